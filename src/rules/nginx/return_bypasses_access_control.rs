//! NGX111 return-bypasses-access-control: a `return` (or a redirecting `rewrite`) where
//! `deny` or authentication is in force. The rewrite module runs in the server and
//! location rewrite phases, which come before the access phase
//! (`NGX_HTTP_SERVER_REWRITE_PHASE`, `NGX_HTTP_REWRITE_PHASE` < `NGX_HTTP_ACCESS_PHASE`),
//! so the response goes to every client and the `deny` never runs for it.

use crate::analysis::access;
use crate::analysis::cursor::Directive;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct ReturnBypassesAccessControl;
    code: NGX111,
    name: "return-bypasses-access-control",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
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
        if is_https_move(t) {
            return None;
        }
    }
    Some(format!("`return {code}`"))
}

/// A `rewrite` that answers the client itself: a redirect (`redirect`/`permanent`, or a
/// replacement that starts with a scheme). `last` and `break` go on to a location whose
/// own access phase runs.
fn answers_rewrite(d: Directive<'_>) -> Option<String> {
    let replacement = d.arg(1)?.value().into_owned();
    let flag = d.arg(2).map(|f| f.value().to_ascii_lowercase());
    let redirect = match flag.as_deref() {
        Some("redirect") | Some("permanent") => true,
        Some(_) => false,
        None => {
            replacement.starts_with("http://")
                || replacement.starts_with("https://")
                || replacement.starts_with("$scheme")
        }
    };
    if !redirect || is_https_move(&replacement) {
        return None;
    }
    Some(format!(
        "`rewrite … {}`",
        flag.unwrap_or_else(|| "redirect".to_string())
    ))
}

/// `https://<host>$request_uri` (or `…$uri`, `…$1`): the same request again over TLS,
/// where this server's or another's access rules apply.
fn is_https_move(target: &str) -> bool {
    let Some(rest) = target.strip_prefix("https://") else {
        return false;
    };
    let path = ["$host", "$server_name", "$http_host"]
        .iter()
        .find_map(|h| rest.strip_prefix(h))
        .unwrap_or_else(|| {
            let end = rest.find(['/', '$']).unwrap_or(rest.len());
            &rest[end..]
        });
    matches!(
        path,
        "" | "/" | "$request_uri" | "$uri" | "$1" | "/$1" | "$uri$is_args$args"
    )
}
