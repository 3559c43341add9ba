//! NGX180 try-files-relative-fallback: a `try_files` whose last argument — the fallback
//! nginx redirects to when no file exists — is neither `=code`, a named location `@name`,
//! nor a URI starting with `/`. nginx accepts it and redirects internally to a relative URI:
//! `try_files $uri $uri/ index.php?$args;` goes to `index.php`, which no prefix location
//! matches; a regex location may (`~ \.php$` does), but the file is still looked up at
//! `root` joined without a slash (`$document_root$fastcgi_script_name` is
//! `/var/wwwindex.php`; nginx strips a `/` that ends `root`): a 404 instead of the front
//! controller. tests/trust_tls_binary.rs shows both with nginx.
//!
//! `try_files $uri = 404;` is the same mistake with a space: `=` becomes a file to try
//! (`root` joined with `=`: `/var/www=`) and `404` the relative fallback URI, not the
//! status code `=404` means.
//!
//! A fallback that starts with a variable is silent: `$uri`, `$document_uri` and
//! `$request_uri` start with `/`, and any other variable is unknown here.

use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::Span;

declare_rule! {
    pub struct TryFilesRelativeFallback;
    code: NGX180,
    name: "try-files-relative-fallback",
    lang: nginx,
    category: Correctness,
    severity: Warning,
    fix: Always,
    group: Default,
}

impl Rule for TryFilesRelativeFallback {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("try_files") {
            let args: Vec<_> = d.args().collect();
            let [.., before, last] = args.as_slice() else {
                continue;
            };
            if last.is_templated() {
                continue;
            }
            let value = last.value();
            let code = value.bytes().all(|b| b.is_ascii_digit()) && !value.is_empty();
            if before.value() == "=" && code && !before.is_quoted() && !last.is_quoted() {
                let span = Span::new(before.raw().start, last.raw().end);
                let fix = Fix::unsafe_(
                    format!("Write `={value}`"),
                    vec![Edit::replace(d.file(), span, format!("={value}"))],
                );
                let diag = cx.report(
                    d.file(),
                    span,
                    format!(
                        "`= {value}` is two arguments: nginx tries `=` as a file (at `root` \
                         joined without a slash) and then redirects to the relative URI \
                         `{value}`, instead of answering with status {value}"
                    ),
                );
                diag.help = Some(format!("write `={value}` without the space"));
                diag.with_fix(fix);
                continue;
            }
            match value.bytes().next() {
                None | Some(b'/' | b'@' | b'=' | b'$') => continue,
                Some(_) => {}
            }
            let path = value.split('?').next().unwrap_or(&value);
            let fix = Fix::unsafe_(
                format!("Write `/{value}`"),
                vec![Edit::insert(d.file(), last.inner().start, "/")],
            );
            let diag = cx.report(
                d.file(),
                last.raw(),
                format!(
                    "the fallback `{value}` does not start with `/`: nginx redirects to it as a \
                     relative URI, which no prefix location matches, and whatever serves it (the \
                     static files, or a `\\.php$` location's `$document_root$fastcgi_script_name`) \
                     looks for it at `root` joined without a slash: a 404, not `/{path}`"
                ),
            );
            diag.help = Some(format!(
                "start the fallback with `/` (`/{value}`), or use `=404` for a status or \
                 `@name` for a named location"
            ));
            diag.with_fix(fix);
        }
    }
}
