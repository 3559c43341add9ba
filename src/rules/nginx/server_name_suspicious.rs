//! NGX181 server-name-suspicious: a `server_name` argument nginx warns about, or that is
//! really the next directive.
//!
//! - A name with a `/` gets nginx's own warning, "server name "…" has suspicious symbols"
//!   (`ngx_http_core_server_name`), and `nginx -t` still succeeds: no Host header holds a
//!   `/` (`ngx_http_validate_host` refuses it), so the name matches nothing.
//! - A missing `;` merges the next directive into `server_name`:
//!   `server_name a.example root /srv/x;` gives the server three names, `a.example`, `root`
//!   and `/srv/x`, and no `root` at all. A later argument that is the name of a directive
//!   nginx accepts in a `server`, followed by more arguments, is reported as that.
//!
//! tests/trust_tls_binary.rs checks nginx's warning and that the merged directive is lost.

use crate::analysis::catalogue;
use crate::analysis::cursor::Word;
use crate::rules::{Context, Rule};
use crate::syntax::nginx::known;

declare_rule! {
    pub struct ServerNameSuspicious;
    code: NGX181,
    name: "server-name-suspicious",
    lang: nginx,
    category: Correctness,
    severity: Warning,
    fix: None,
    group: Preview,
}

impl Rule for ServerNameSuspicious {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("server_name") {
            if d.contexts() & known::HTTP_SRV == 0 {
                continue;
            }
            let args: Vec<Word<'_>> = d.args().collect();
            if args.iter().any(|a| a.is_templated()) {
                continue;
            }
            let merged = args
                .iter()
                .enumerate()
                .skip(1)
                .find(|(i, a)| *i + 1 < args.len() && is_server_directive(&a.value()));
            if let Some((i, word)) = merged {
                let name = word.value();
                let rest: Vec<String> = args[i + 1..]
                    .iter()
                    .map(|a| a.value().into_owned())
                    .collect();
                let diag = cx.report(
                    d.file(),
                    word.raw(),
                    format!(
                        "`{name}` looks like the next directive: a `;` seems to be missing \
                         before it, so nginx took `{name} {}` as more server names and does not \
                         set `{name}`",
                        rest.join(" ")
                    ),
                );
                diag.help = Some(format!("end `server_name` with `;` before `{name}`"));
                continue;
            }
            for a in &args {
                let value = a.value();
                if !value.contains('/') {
                    continue;
                }
                let diag = cx.report(
                    d.file(),
                    a.raw(),
                    format!(
                        "server name \"{value}\" has suspicious symbols (nginx's warning): no \
                         Host header can hold a `/`, so this name matches no request"
                    ),
                );
                diag.help = Some(
                    "remove it, or end `server_name` with `;` if it was meant for the next \
                     directive"
                        .to_string(),
                );
            }
        }
    }
}

/// Whether `name` is a directive nginx accepts directly in a `server` block.
fn is_server_directive(name: &str) -> bool {
    catalogue::lookup(name)
        .iter()
        .any(|e| e.module.starts_with("ngx_http_") && e.allowed_in(known::HTTP_SRV))
}
