//! NGX028 removed-directive: a directive that current nginx no longer supports. `ssl on;`
//! and `spdy_*` are refused as unknown directives by nginx 1.25.1 and 1.19 and later, so an
//! upgrade stops the server from starting; the HTTP/2 directives that became obsolete are
//! ignored with a warning, which silently changes behaviour.
//!
//! The catalogue says which directives HEAD no longer has (`removed`, with the last release
//! that had them) or reads with an "obsolete" handler; the versions and replacements come
//! from nginx's change log (`docs/xml/nginx/changes.xml`): 1.19.7 replaced
//! `http2_recv_timeout`, `http2_idle_timeout`, `http2_max_requests`,
//! `http2_max_field_size` and `http2_max_header_size`; 1.25.1 removed the `ssl` directive
//! (deprecated since 1.15.0) and HTTP/2 server push.

use crate::analysis::catalogue;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct RemovedDirective;
    code: NGX028,
    name: "removed-directive",
    lang: nginx,
    category: Correctness,
    severity: Warning,
    fix: None,
    group: Default,
}

/// What became of a directive, and since which nginx.
struct Fate {
    name: &'static str,
    since: &'static str,
    what: What,
}

enum What {
    /// Refused as unknown since `since`; the help says what to write instead.
    Removed(&'static str),
    /// Read with a warning and ignored; nginx names the directive to use instead.
    UseInstead(&'static str),
    /// Read with a warning and ignored; nothing replaces it.
    Ignored(&'static str),
}

const FATES: &[Fate] = &[
    Fate { name: "http2_idle_timeout", since: "1.19.7", what: What::UseInstead("keepalive_timeout") },
    Fate { name: "http2_max_concurrent_pushes", since: "1.25.1", what: What::Ignored("HTTP/2 server push support was removed") },
    Fate { name: "http2_max_field_size", since: "1.19.7", what: What::UseInstead("large_client_header_buffers") },
    Fate { name: "http2_max_header_size", since: "1.19.7", what: What::UseInstead("large_client_header_buffers") },
    Fate { name: "http2_max_requests", since: "1.19.7", what: What::UseInstead("keepalive_requests") },
    Fate { name: "http2_push", since: "1.25.1", what: What::Ignored("HTTP/2 server push support was removed") },
    Fate { name: "http2_push_preload", since: "1.25.1", what: What::Ignored("HTTP/2 server push support was removed") },
    Fate { name: "http2_recv_timeout", since: "1.19.7", what: What::UseInstead("client_header_timeout") },
    Fate { name: "ssl", since: "1.25.1", what: What::Removed("use the `ssl` parameter of `listen` instead (`listen 443 ssl;`); it has done the same since nginx 0.7.14") },
];

/// The `spdy_*` directives: ngx_http_spdy_module was replaced by ngx_http_v2_module in
/// 1.9.5; the names were accepted with a warning until 1.18 (the catalogue's `removed`).
const SPDY_HELP: &str = "ngx_http_spdy_module was superseded by ngx_http_v2_module in nginx 1.9.5: remove it, and use `listen … http2` (or `http2 on;` since 1.25.1)";

impl Rule for RemovedDirective {
    fn check(&self, cx: &mut Context<'_>) {
        let version = cx.nginx_version();
        for fate in FATES {
            let since = crate::analysis::tls_settings::NginxVersion::parse(fate.since);
            // An nginx older than the change still does what the directive says.
            if let (Some(v), Some(since)) = (version, since) {
                if v < since {
                    continue;
                }
            }
            let (message, help) = match fate.what {
                What::Removed(help) => (
                    format!("the \"{}\" directive was removed in nginx {}: later versions refuse to start (unknown directive)", fate.name, fate.since),
                    Some(help.to_string()),
                ),
                What::UseInstead(new) => (
                    format!("the \"{}\" directive is obsolete since nginx {}, use the \"{new}\" directive instead", fate.name, fate.since),
                    Some(format!("nginx {} and later ignore it with a warning", fate.since)),
                ),
                What::Ignored(why) => (
                    format!("the \"{}\" directive is obsolete since nginx {} and ignored", fate.name, fate.since),
                    Some(format!("{why}; remove the directive")),
                ),
            };
            // Ignored or superseded, it still works on an nginx before the change: with the
            // version unknown (an image pinned to nginx:1.21 is common), that is info. A
            // removed directive stops nginx from starting there: still a warning.
            let severity = match (&fate.what, version) {
                (What::Removed(_), _) | (_, Some(_)) => None,
                (_, None) => Some(crate::diagnostic::Severity::Info),
            };
            let message = match severity {
                Some(_) => {
                    format!("{message} (the nginx version is not known: `[host] nginx` says which)")
                }
                None => message,
            };
            report_all(cx, fate.name, &message, help.as_deref(), severity);
        }
        // The spdy_* names, from the catalogue: every entry of the name is gone.
        let spdy = catalogue::all()
            .iter()
            .filter(|e| e.name.starts_with("spdy_") && !e.removed.is_empty());
        for entry in spdy {
            let message = format!(
                "the \"{}\" directive was removed after nginx {}: later versions refuse to start (unknown directive)",
                entry.name, entry.removed
            );
            report_all(cx, entry.name, &message, Some(SPDY_HELP), None);
        }
    }
}

fn report_all(
    cx: &mut Context<'_>,
    name: &'static str,
    message: &str,
    help: Option<&str>,
    severity: Option<crate::diagnostic::Severity>,
) {
    for d in cx.nginx_directives(name) {
        // Inside a word list (`map`, `types`) a word is an entry, not a directive: the cursor
        // never yields those. A name nginx does not read as this directive here (a module's
        // other context) is left to NGX025.
        let found = cx.report(d.file(), d.span(), message);
        found.help = help.map(str::to_string);
        if let Some(severity) = severity {
            found.severity = severity;
        }
    }
}
