//! NGX112 status-page-exposed: a status page (`stub_status`, nginx Plus `status`,
//! `vhost_traffic_status_display`, or php-fpm's status/ping page reached through
//! `fastcgi_pass`) that any client can load: no `deny`, no authentication, not `internal`,
//! on a server that listens beyond loopback. Connection counts, pool sizes, request rates
//! and (for php-fpm's full status) client addresses and URIs help an attacker time and
//! aim a flood or read other users' requests.

use crate::analysis::access;
use crate::analysis::cursor::Directive;
use crate::analysis::fastcgi_params;
use crate::analysis::pcre::Regex;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct StatusPageExposed;
    code: NGX112,
    name: "status-page-exposed",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
}

/// nginx's own status handlers.
const HANDLERS: &[&str] = &["stub_status", "status", "vhost_traffic_status_display"];

/// The paths php-fpm's `pm.status_path` / `ping.path` are usually given (the
/// documentation's `/status` and `/ping`, and the spellings distributions use).
pub const FPM_PATHS: &[&str] = &[
    "/status",
    "/ping",
    "/fpm-status",
    "/fpm-ping",
    "/fpm_status",
    "/fpm_ping",
    "/php-fpm-status",
    "/php-fpm-ping",
    "/php_fpm_status",
    "/phpfpm_status",
    "/php-status",
    "/php_status",
    "/status-fpm",
];

impl Rule for StatusPageExposed {
    fn check(&self, cx: &mut Context<'_>) {
        for name in HANDLERS {
            for d in cx.nginx_directives(name) {
                // `status` is also a word inside other modules' blocks (upstream `check`
                // modules, maps); only the handler in a location or server counts.
                let Some(block) = d.parent() else { continue };
                if !matches!(block.name(), "location" | "server") {
                    continue;
                }
                if d.name() == "stub_status" && d.arg(0).is_some_and(|a| a.is("off")) {
                    continue;
                }
                if *name == "status" && d.args().len() != 0 {
                    continue;
                }
                report(cx, d, block, format!("`{}`", d.name()));
            }
        }
        for d in cx.nginx_directives("fastcgi_pass") {
            let Some(loc) = d.parent().filter(|p| p.name() == "location") else {
                continue;
            };
            let Some(path) = fpm_status_path(loc) else {
                continue;
            };
            // Without SCRIPT_FILENAME or SCRIPT_NAME php-fpm never answers its status page
            // (404 "Primary script unknown"): only when every include was read is that known.
            let missing = |name| fastcgi_params::param(loc, name).is_none();
            if (missing("SCRIPT_FILENAME") || missing("SCRIPT_NAME"))
                && fastcgi_params::params_known(loc)
            {
                continue;
            }
            report(cx, d, loc, format!("php-fpm's status page (`{path}`)"));
        }
    }
}

fn report(cx: &mut Context<'_>, d: Directive<'_>, block: Directive<'_>, what: String) {
    if is_internal(block) || access::restriction(block).is_some() || guarded_by_if(block) {
        return;
    }
    // A `return` in the block answers in the rewrite phase, before the status handler
    // (the content phase) ever runs: a health check that only looks like a status page.
    if block.children("return").next().is_some() {
        return;
    }
    // `allow all` opens the page on purpose; that is a decision, not an oversight.
    if access::rules(block)
        .iter()
        .any(|r| r.name() == "allow" && r.arg(0).is_some_and(|a| a.is("all")))
    {
        return;
    }
    let server = block
        .enclosing("server")
        .or((block.name() == "server").then_some(block));
    if server.is_some_and(access::local_only) {
        return;
    }
    let place = if block.name() == "location" {
        let args: Vec<String> = block.args().map(|a| a.raw_text().into_owned()).collect();
        format!("`location {}`", args.join(" "))
    } else {
        "this server".to_string()
    };
    let reach = match server {
        Some(s) => match s.children("listen").next() {
            None => ", and the server listens on `*:80`".to_string(),
            Some(l) => {
                let addr: Vec<String> = l.args().take(1).map(|a| a.value().into_owned()).collect();
                format!(", and the server listens on `{}`", addr.join(""))
            }
        },
        None => String::new(),
    };
    let diag = cx.report(
        d.file(),
        d.span(),
        format!(
            "{what} at {place} answers any client: no `deny`, `auth_basic` or `auth_request` applies{reach}"
        ),
    );
    if block.name() == "location" {
        diag.label(
            block.file().clone(),
            block.span(),
            "reachable by every client",
        );
    }
    diag.help = Some(
        "let only the monitoring hosts in: `allow 127.0.0.1; deny all;` in this block (or serve it on a server that listens on 127.0.0.1 only)"
            .to_string(),
    );
}

/// `internal;` here or in an enclosing location: external requests get 404.
pub fn is_internal(block: Directive<'_>) -> bool {
    let mut at = Some(block);
    while let Some(b) = at {
        if b.name() != "location" && b.name() != "if" {
            return false;
        }
        if b.children("internal").next().is_some() {
            return true;
        }
        at = b.parent();
    }
    false
}

/// An `if` in the block that refuses some requests (`if ($remote_addr != …) { return 403; }`):
/// a hand-written access check this cannot evaluate, taken as a restriction.
pub fn guarded_by_if(block: Directive<'_>) -> bool {
    block.children("if").any(|i| {
        i.children("return").any(|r| {
            r.arg(0)
                .and_then(|c| c.value().parse::<u16>().ok())
                .is_some_and(|c| c >= 400)
        })
    })
}

/// The php-fpm status or ping path a location selects, if it is one of [`FPM_PATHS`]
/// (matched by an exact or prefix name, or by a regex that does not also take PHP
/// scripts or the site root).
pub fn fpm_status_path(loc: Directive<'_>) -> Option<&'static str> {
    let args: Vec<String> = loc.args().map(|a| a.value().into_owned()).collect();
    let (modifier, name) = match args.as_slice() {
        [name] => ("", name.as_str()),
        [m, name] => (m.as_str(), name.as_str()),
        _ => return None,
    };
    match modifier {
        "" | "=" | "^~" => {
            let trimmed = name.trim_end_matches('/');
            FPM_PATHS.iter().copied().find(|p| *p == trimmed)
        }
        "~" | "~*" => {
            let re = Regex::parse(name, modifier == "~*").ok()?;
            let hits = |s: &str| re.is_match(s.as_bytes()).unwrap_or(true);
            if hits("/index.php") || hits("/") || hits("/app/status/index.php") {
                return None;
            }
            FPM_PATHS
                .iter()
                .copied()
                .find(|p| re.is_match(p.as_bytes()).unwrap_or(false))
        }
        _ => None,
    }
}
