//! NGX177 remote-addr-from-header: `fastcgi_param REMOTE_ADDR $http_x_forwarded_for` (or
//! `uwsgi_param`/`scgi_param`, or any variable a client writes: `$http_*`, `$arg_*`,
//! `$cookie_*`) hands the application, as the peer address it trusts, a value the client
//! chose. PHP's `$_SERVER['REMOTE_ADDR']` is what rate limiting, login throttling, audit
//! logs and IP allow-lists read; the header is copied whoever sent it, so a client that
//! reaches nginx directly names any address (tests/trust_tls_binary.rs shows PHP seeing
//! `REMOTE_ADDR` as the header said).
//!
//! The realip module is the way to take the address from a proxy's header: it does so only
//! for connections from the `set_real_ip_from` ranges, and `$remote_addr` then holds the
//! result. Only the parameter's direct value is read (a variable copied through `set` or
//! `map` is not followed).
//!
//! A server that only local processes reach is the back half of a proxy: silent when it
//! listens on loopback TCP (the proxy in front is not in view), and, when it listens on
//! unix sockets only, when every `proxy_pass` of this configuration that reaches them sets
//! the header itself (`proxy_set_header X-Real-IP $remote_addr;`) — nginx forwards a
//! client's own header otherwise.

use crate::analysis::access;
use crate::analysis::cursor::Directive;
use crate::analysis::variables::builtin::{self, Origin};
use crate::analysis::variables::parse::PartKind;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct RemoteAddrFromHeader;
    code: NGX177,
    name: "remote-addr-from-header",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

const PARAMS: [&str; 3] = ["fastcgi_param", "uwsgi_param", "scgi_param"];

impl Rule for RemoteAddrFromHeader {
    fn check(&self, cx: &mut Context<'_>) {
        for name in PARAMS {
            for d in cx.nginx_directives(name) {
                let (Some(key), Some(value)) = (d.arg(0), d.arg(1)) else {
                    continue;
                };
                if !key.value().eq_ignore_ascii_case("REMOTE_ADDR") {
                    continue;
                }
                let script = value.variables();
                let client = script.parts.iter().find_map(|p| match &p.kind {
                    PartKind::Variable { name, .. } => builtin::lookup(name)
                        .filter(|b| b.origin == Origin::Client)
                        .map(|_| name.to_string()),
                    _ => None,
                });
                let Some(var) = client else { continue };
                if set_by_the_proxy_in_front(d, &var) {
                    continue;
                }
                let diag = cx.report(
                    d.file(),
                    value.raw(),
                    format!(
                        "`{name} REMOTE_ADDR` is set from `${var}`, which the client writes: the \
                         application trusts as the peer's address whatever the client put there, \
                         so its rate limits, login throttling, allow-lists and logs see the \
                         address the client chose"
                    ),
                );
                diag.help = Some(
                    "pass `$remote_addr`, and let the realip module take the address from the \
                     proxy's header (`set_real_ip_from <proxy ranges>; real_ip_header \
                     X-Forwarded-For;`): it believes the header only from those proxies"
                        .to_string(),
                );
            }
        }
    }
}

/// Whether `d`'s server is reached only through a proxy that writes the header `var`
/// reads, so that its value is the proxy's, not the client's (see the module docs).
fn set_by_the_proxy_in_front(d: Directive<'_>, var: &str) -> bool {
    let Some(server) = d.enclosing("server") else {
        return false;
    };
    if !access::local_only(server) {
        return false;
    }
    let Some(sockets) = access::unix_only(server) else {
        // Loopback TCP: whatever proxies to it is not in this configuration.
        return true;
    };
    let Some(header) = var
        .to_ascii_lowercase()
        .strip_prefix("http_")
        .map(str::to_string)
    else {
        // An argument or a cookie passes through any proxy as the client wrote it.
        return false;
    };
    let passes = access::proxy_passes_to(server, &sockets);
    passes.iter().all(|p| {
        p.level().effective("proxy_set_header").any(|h| {
            let (Some(name), Some(value)) = (h.arg(0), h.arg(1)) else {
                return false;
            };
            name.value().to_ascii_lowercase().replace('-', "_") == header
                && !value.variables().parts.iter().any(|part| match &part.kind {
                    PartKind::Variable { name, .. } => {
                        builtin::lookup(name).is_none_or(|b| b.origin == Origin::Client)
                    }
                    _ => false,
                })
        })
    })
}
