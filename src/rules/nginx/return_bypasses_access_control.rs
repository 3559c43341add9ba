//! NGX111 return-bypasses-access-control: a `return` that sends content where `deny` or
//! authentication is in force. The rewrite module runs in the server and location rewrite
//! phases, which come before the access phase (`NGX_HTTP_SERVER_REWRITE_PHASE`,
//! `NGX_HTTP_REWRITE_PHASE` < `NGX_HTTP_ACCESS_PHASE`), so the response goes to every
//! client and the `deny` never runs for it.
//!
//! A redirect (`return 301/302/303/307/308 URL`, a redirecting `rewrite`) is not reported:
//! the client gets only a `Location`, a URL the operator wrote or chose (a literal, the
//! request's own parts, a map of redirects), and the target answers under its own access
//! rules. Nor is a `return` in a location no client can ask for: an `internal` one, or a
//! named location reached only through `error_page 401`/`403`, where access was already
//! refused.

use crate::analysis::access;
use crate::analysis::cursor::Directive;
use crate::analysis::request::access::is_internal;
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
            if reached_only_internally(d) {
                continue;
            }
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
/// body (2xx, and the 3xx codes whose text nginx sends as the body). Not a refusal
/// (4xx/5xx/444), which denies anyway; not a redirect (`return URL`, or 301, 302, 303, 307,
/// 308, whose text is the `Location`, `ngx_http_rewrite_return`): it discloses only the
/// target, which answers under its own access rules.
///
/// A code without text (`return 200;`, `return 204;`, a health check or a CORS preflight's
/// answer) sends an empty body (`tests/access_binary.rs`): nothing the access control
/// guards goes out.
fn answers_return(d: Directive<'_>) -> Option<String> {
    let code = d.arg(0)?.value().parse::<u16>().ok()?;
    if !(200..400).contains(&code) || matches!(code, 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    if d.arg(1).is_none_or(|text| text.value().is_empty()) {
        return None;
    }
    Some(format!("`return {code}`"))
}

/// Whether the location the `return` is in cannot be requested by a client: `internal`
/// (set there or on an enclosing location, which nginx inherits; a direct request gets
/// 404), or a named location every reference to which is an `error_page` for 401 or 403,
/// so the client reaching it was refused by the access phase already.
fn reached_only_internally(d: Directive<'_>) -> bool {
    if d.parent().is_some_and(is_internal) {
        return true;
    }
    let Some(name) = d
        .enclosing("location")
        .and_then(|l| l.arg(0))
        .map(|a| a.value().into_owned())
        .filter(|n| n.starts_with('@'))
    else {
        return false;
    };
    let Some(server) = d.enclosing("server") else {
        return false;
    };
    let mut any = false;
    for r in references(server, &name) {
        any = true;
        let codes: Vec<String> = r
            .args()
            .map(|a| a.value().into_owned())
            .filter(|a| a.parse::<u16>().is_ok())
            .collect();
        if r.name() != "error_page" || !codes.iter().all(|c| c == "401" || c == "403") {
            return false;
        }
    }
    any
}

/// The directives of `server` and of the `http` block around it that name `target` (a
/// named location) as an argument: `error_page`, `try_files`, `post_action`, …
fn references<'a>(server: Directive<'a>, target: &str) -> Vec<Directive<'a>> {
    let mut out = Vec::new();
    let mut stack: Vec<Directive<'a>> = server.all_children().collect();
    while let Some(d) = stack.pop() {
        // The named location's own `location @name` is its definition, not a way in.
        if d.name() != "location" && d.args().any(|a| a.value() == target) {
            out.push(d);
        }
        stack.extend(d.all_children());
    }
    // `error_page` of the `http` level is inherited by every server.
    if let Some(http) = server.parent() {
        out.extend(
            http.children("error_page")
                .filter(|d| d.args().any(|a| a.value() == target)),
        );
    }
    out
}
