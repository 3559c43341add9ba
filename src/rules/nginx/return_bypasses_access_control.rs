//! NGX111 return-bypasses-access-control: a `return` (or a redirecting `rewrite`) where
//! `deny` or authentication is in force. The rewrite module runs in the server and
//! location rewrite phases, which come before the access phase
//! (`NGX_HTTP_SERVER_REWRITE_PHASE`, `NGX_HTTP_REWRITE_PHASE` < `NGX_HTTP_ACCESS_PHASE`),
//! so the response goes to every client and the `deny` never runs for it. A `rewrite`
//! redirects with `redirect`/`permanent`, and with a replacement that starts with a
//! scheme whatever its flag; any other `rewrite` only changes the URI, which is served
//! after an access phase (this location's for `break`, the newly chosen one's otherwise).

use crate::analysis::access;
use crate::analysis::cursor::Directive;
use crate::analysis::rewrite_redirect::redirects;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct ReturnBypassesAccessControl;
    code: NGX111,
    name: "return-bypasses-access-control",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
}

impl Rule for ReturnBypassesAccessControl {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("return") {
            let Some(what) = answers_return(d) else {
                continue;
            };
            check_one(cx, d, what);
        }
        for d in cx.nginx_directives("rewrite") {
            let Some(what) = answers_rewrite(d) else {
                continue;
            };
            check_one(cx, d, what);
        }
    }
}

fn check_one(cx: &mut Context<'_>, d: Directive<'_>, what: String) {
    let Some(block) = d.parent() else { return };
    // Where the rewrite phase that runs it belongs: the server's (before a location is
    // chosen) or a location's; an `if` belongs to the block it is in.
    if !matches!(block.name(), "location" | "server" | "if") {
        return;
    }
    let Some(guard) = access::restriction(block) else {
        return;
    };
    let refused = match guard.name() {
        "deny" => format!(
            "`deny {}` would refuse clients",
            guard
                .arg(0)
                .map(|a| a.value().into_owned())
                .unwrap_or_default()
        ),
        name if name.starts_with("auth_") => format!("`{name}` would ask for credentials"),
        name => format!("`{name}` would check the client"),
    };
    let phase = if block.name() == "server"
        || (block.name() == "if" && block.parent().is_some_and(|p| p.name() == "server"))
    {
        "the server rewrite phase, before a location is even chosen"
    } else {
        "the location's rewrite phase"
    };
    let diag = cx.report(
        d.file(),
        d.span(),
        format!(
            "{what} answers every client: it runs in {phase}, before the access phase where {refused}"
        ),
    );
    diag.label(
        guard.file().clone(),
        guard.span(),
        "never reached for this response",
    );
    diag.help = Some(
        "serve the response from the content phase (a file via `root`/`try_files`, `proxy_pass`), or refuse the clients in the rewrite phase first (`if ($allowed = 0) { return 403; }` with a `geo` map)"
            .to_string(),
    );
}

/// What a `return` sends, when it is something access control should have guarded: a
/// body or a redirect (not a refusal, 4xx/5xx/444, which denies anyway; not the usual
/// move of the same URI to HTTPS, where the access rules apply again).
fn answers_return(d: Directive<'_>) -> Option<String> {
    let first = d.arg(0)?;
    let first_v = first.value();
    let (code, target) = match first_v.parse::<u16>() {
        Ok(code) => (code, d.arg(1).map(|a| a.value().into_owned())),
        Err(_) => (302, Some(first_v.into_owned())),
    };
    if !(200..400).contains(&code) {
        return None;
    }
    if let Some(t) = &target {
        if is_https_move(d, t) {
            return None;
        }
    }
    Some(format!("`return {code}`"))
}

/// A `rewrite` that answers the client itself: a redirect. nginx makes one of a
/// `redirect` or `permanent` flag, and of a replacement that starts with `http://`,
/// `https://` or `$scheme` whatever the flag (`ngx_http_rewrite`: such a replacement
/// redirects with 302 even under `last` or `break`; nginx 1.22.1 answered
/// `rewrite ^ https://example.test/ last;` with a 302). Any other rewrite changes the URI
/// within the server: `break` serves it in this location, after its access phase; `last`,
/// and a rewrite without a flag once the rewrite phase is over, search the locations again
/// and the chosen one's access phase runs.
fn answers_rewrite(d: Directive<'_>) -> Option<String> {
    let replacement = d.arg(1)?.value().into_owned();
    let flag = d.arg(2).map(|f| f.value().into_owned());
    if !redirects(d) || is_https_move(d, &replacement) {
        return None;
    }
    Some(match flag.as_deref() {
        Some(f @ ("last" | "break")) => format!(
            "`rewrite … {f}` to `{replacement}` (a redirect all the same: the replacement \
             starts with a scheme)"
        ),
        Some(f) => format!("`rewrite … {f}`"),
        None => "`rewrite` to an absolute URL (a redirect)".to_string(),
    })
}

/// `https://<host>$request_uri` (or `…$uri`, `…$1`): the same request again over TLS,
/// where this server's or another's access rules apply; and `https://$host/` (or one of
/// the server's own names): the site itself over TLS. A fixed URL on another host
/// (`https://example.test/`) is a redirect like any other.
fn is_https_move(d: Directive<'_>, target: &str) -> bool {
    let Some(rest) = target.strip_prefix("https://") else {
        return false;
    };
    let request_host = ["$host", "$server_name", "$http_host"]
        .iter()
        .find_map(|h| rest.strip_prefix(h));
    let (own_host, path) = match request_host {
        Some(path) => (true, path),
        None => {
            let end = rest.find(['/', '$']).unwrap_or(rest.len());
            (is_server_name(d, &rest[..end]), &rest[end..])
        }
    };
    match path {
        "$request_uri" | "$uri" | "$1" | "/$1" | "$uri$is_args$args" => true,
        "" | "/" => own_host,
        _ => false,
    }
}

/// Whether `host` (`example.com`, `example.com:443`) is one of the names of the server
/// the directive is in: written out, or under a `.example.com` / `*.example.com` wildcard
/// (regular-expression names are not matched: the redirect is then reported).
fn is_server_name(d: Directive<'_>, host: &str) -> bool {
    let host = host.split(':').next().unwrap_or(host).to_ascii_lowercase();
    if host.is_empty() {
        return false;
    }
    let Some(server) = d.enclosing("server") else {
        return false;
    };
    server
        .children("server_name")
        .flat_map(|s| s.args())
        .any(|name| {
            let name = name.value().to_ascii_lowercase();
            if let Some(domain) = name.strip_prefix('.') {
                host == domain || host.ends_with(&name)
            } else if let Some(suffix) = name.strip_prefix('*') {
                suffix.starts_with('.') && host.ends_with(suffix)
            } else {
                host == name
            }
        })
}
