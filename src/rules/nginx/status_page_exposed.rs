//! NGX112 status-page-exposed: a status page (`stub_status`, nginx Plus `status`,
//! `vhost_traffic_status_display`, or php-fpm's status/ping page reached through
//! `fastcgi_pass`) that any client can load: no `deny`, no authentication, not `internal`,
//! on a server that listens beyond loopback. Connection counts, pool sizes, request rates
//! and (for php-fpm's full status) client addresses and URIs help an attacker time and
//! aim a flood or read other users' requests.
//!
//! A written `deny` or login counts only as nginx runs it: the access module checks the
//! rules in order and the first that matches the client decides, so an `allow all` (or
//! `allow 0.0.0.0/0` on an IPv4 server, `allow ::/0` on an IPv6 one) before `deny all`
//! lets everyone in; and under `satisfy any` an `allow` that matches is enough, so the
//! same `allow` makes `auth_basic` moot (`ngx_http_core_access_phase`). Both answered
//! every client with the status page on nginx 1.22.1.
//!
//! Silent when the block itself holds an `include` that read nothing: the rules may be there.

use crate::analysis::access;
use crate::analysis::cursor::Directive;
use crate::analysis::fastcgi_params;
use crate::analysis::fpm_status::fpm_status_path;
use crate::analysis::request::access::{guarded_by_if, is_internal};
use crate::analysis::request::opening::defeated;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct StatusPageExposed;
    code: NGX112,
    name: "status-page-exposed",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
}

/// nginx's own status handlers.
const HANDLERS: &[&str] = &["stub_status", "status", "vhost_traffic_status_display"];

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
    if is_internal(block) || guarded_by_if(block) {
        return;
    }
    // An include that read nothing (an allow list kept outside the tree, a snippet installed
    // beside the file at deployment), in the block or a level it inherits from, may hold the
    // `allow`/`deny` or login: whether the page is open depends on it.
    if access::unread_include_around(block) {
        return;
    }
    // A `return` in the block answers in the rewrite phase, before the status handler
    // (the content phase) ever runs: a health check that only looks like a status page.
    if block.children("return").next().is_some() {
        return;
    }
    let server = block
        .enclosing("server")
        .or((block.name() == "server").then_some(block));
    if server.is_some_and(access::local_only) {
        return;
    }
    let opening = match access::restriction(block) {
        None => {
            // `allow all` opens the page on purpose; that is a decision, not an oversight.
            if access::rules(block)
                .iter()
                .any(|r| r.name() == "allow" && r.arg(0).is_some_and(|a| a.is("all")))
            {
                return;
            }
            None
        }
        // A `deny` or a login is written, but the rules as nginx runs them let everyone in.
        Some(_) => match defeated(block, server) {
            Some(opening) => Some(opening),
            None => return,
        },
    };
    let place = if block.name() == "location" {
        let args: Vec<String> = block.args().map(|a| a.raw_text().into_owned()).collect();
        format!("`location {}`", args.join(" "))
    } else {
        "this server".to_string()
    };
    // The `listen` that receives the clients let in (the family's, for an opening).
    let listen = match &opening {
        Some(o) => server.map(|_| o.listen),
        None => server.map(|s| s.children("listen").next()),
    };
    let reach = match listen {
        Some(l) => match l {
            None => ", and the server listens on `*:80`".to_string(),
            Some(l) => {
                let addr: Vec<String> = l.args().take(1).map(|a| a.value().into_owned()).collect();
                format!(", and the server listens on `{}`", addr.join(""))
            }
        },
        None => String::new(),
    };
    let why = match &opening {
        None => "no `deny`, `auth_basic` or `auth_request` applies".to_string(),
        Some(o) => o.why(),
    };
    let diag = cx.report(
        d.file(),
        d.span(),
        format!("{what} at {place} answers any client: {why}{reach}"),
    );
    if block.name() == "location" {
        diag.label(
            block.file().clone(),
            block.span(),
            "reachable by every client",
        );
    }
    if let Some(o) = &opening {
        diag.label(o.allow.file().clone(), o.allow.span(), o.label());
    }
    diag.help = Some(match &opening {
        Some(o) => o.help(),
        None => "let only the monitoring hosts in: `allow 127.0.0.1; deny all;` in this block \
                 (or serve it on a server that listens on 127.0.0.1 only)"
            .to_string(),
    });
}
