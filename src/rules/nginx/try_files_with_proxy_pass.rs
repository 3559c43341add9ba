//! NGX149 try-files-with-proxy-pass: `try_files` and `proxy_pass` in one location never
//! serve a file from disk. try_files runs in the precontent phase: when a file exists it only
//! rewrites the URI to it and lets the location's content handler run — which is
//! `proxy_pass`, so the "static" file is proxied; when none exists it redirects to its last
//! argument. The usual intent, "serve the file if it exists, else proxy", needs the proxy in
//! the fallback (a named location) and no `proxy_pass` here.
//!
//! Checked with nginx 1.22: `try_files $uri $uri/ @fallback; proxy_pass …` sent an existing
//! `/exists.txt` to the backend and a missing one to `@fallback`. A `=code` fallback
//! ("proxy only what exists here") is a deliberate gate and is not reported.

use crate::rules::{Context, Rule};

declare_rule! {
    pub struct TryFilesWithProxyPass;
    code: NGX149,
    name: "try-files-with-proxy-pass",
    lang: nginx,
    category: Correctness,
    severity: Warning,
    fix: None,
    group: Default,
}

impl Rule for TryFilesWithProxyPass {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("try_files") {
            let Some(loc) = d.parent().filter(|p| p.name() == "location") else {
                continue;
            };
            let Some(pass) = loc.children("proxy_pass").next() else {
                continue;
            };
            let n = d.args().len();
            if n < 2 {
                continue;
            }
            let Some(last) = d.arg(n - 1) else { continue };
            let fallback = last.value().into_owned();
            if fallback.starts_with('=') {
                continue;
            }
            let files: Vec<String> = d
                .args()
                .take(n - 1)
                .map(|a| format!("`{}`", a.value()))
                .collect();
            let found = cx.report(
                d.file(),
                d.span(),
                format!(
                    "`try_files` cannot serve a file here: when {} exists nginx still proxies the request (this location's handler is `proxy_pass`), and otherwise it goes to `{fallback}`",
                    files.join(" or ")
                ),
            );
            let at = pass.arg(0).map_or(pass.span(), |a| a.raw());
            found.label(
                pass.file().clone(),
                at,
                "handles every request of this location",
            );
            found.help = Some(if fallback.starts_with('@') {
                format!("to serve existing files from disk and proxy the rest, remove `proxy_pass` here and keep it in `{fallback}`")
            } else {
                "to serve existing files from disk and proxy the rest, remove `proxy_pass` here and make the fallback a named location (`try_files $uri $uri/ @backend;` with `location @backend { proxy_pass …; }`)".to_string()
            });
        }
    }
}
