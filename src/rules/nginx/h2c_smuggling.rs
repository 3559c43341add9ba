//! NGX146 h2c-smuggling: a location forwards the client's `Upgrade` header (and a
//! `Connection: upgrade`) to its backend over HTTP/1.1, so any client can ask the backend to
//! switch protocols — not only to WebSocket but to cleartext HTTP/2 (`Upgrade: h2c`). If the
//! backend accepts (many HTTP/2-capable application servers do), nginx turns the connection
//! into an opaque tunnel, and every later request on it goes straight to the backend:
//! nginx's location rules (`deny`, `auth_basic`, `auth_request`, `internal`) no longer see
//! them.
//!
//! Reported at the `proxy_set_header Upgrade $http_upgrade` a `proxy_pass` runs with (as
//! merged), when `Connection` is forwarded too (`$http_connection`, a literal `upgrade`, or a
//! map such as `$connection_upgrade`) and the version is HTTP/1.1. A Warning when another
//! location of the same server restricts access and passes to the same backend (the tunnel
//! reaches what it protects); Info otherwise — including WebSocket locations, where the
//! upgrade is the point but only `websocket` should pass.

use crate::analysis::cursor::Directive;
use crate::analysis::pass_target::PassTarget;
use crate::diagnostic::Severity;
use crate::fxhash::FxHashMap;
use crate::rules::{Context, Rule};
use crate::source::Span;

declare_rule! {
    pub struct H2cSmuggling;
    code: NGX146,
    name: "h2c-smuggling",
    lang: nginx,
    category: Security,
    severity: Info,
    fix: None,
    group: Hardening,
}

/// The last `proxy_set_header` of `name` among `headers`.
fn header<'a>(headers: &[Directive<'a>], name: &str) -> Option<Directive<'a>> {
    headers
        .iter()
        .rev()
        .find(|h| h.arg(0).is_some_and(|a| a.is(name)))
        .copied()
}

/// Whether the location limits who reaches it.
fn restricts(loc: Directive<'_>) -> bool {
    loc.children("deny").next().is_some()
        || loc.children("internal").next().is_some()
        || loc
            .children("auth_request")
            .any(|a| a.arg(0).is_some_and(|v| !v.is("off")))
        || loc
            .children("auth_basic")
            .any(|a| a.arg(0).is_some_and(|v| !v.is("off")))
        || loc.children("return").any(|r| {
            r.arg(0)
                .is_some_and(|c| c.is("401") || c.is("403") || c.is("404"))
        })
}

fn backend_of(pass: Directive<'_>) -> Option<String> {
    let arg = pass.arg(0)?;
    let value = arg.value();
    let t = PassTarget::parse(&value, true);
    Some(t.authority.to_ascii_lowercase())
}

impl Rule for H2cSmuggling {
    fn check(&self, cx: &mut Context<'_>) {
        let new_defaults = cx.nginx_version().is_some_and(|v| v.at_least(1, 29, 7));
        // Per `Upgrade` header directive: the first `proxy_pass` using it, and a protected
        // location it tunnels past, if any.
        #[allow(clippy::mutable_key_type)] // hashed by path and span
        let mut found: FxHashMap<
            (std::path::PathBuf, Span),
            (Directive<'_>, Directive<'_>, Option<Directive<'_>>),
        > = FxHashMap::default();
        let mut order = Vec::new();
        // The locations that restrict access and pass to a backend, per server: built once,
        // so each `proxy_pass` looks at its own server's few.
        #[allow(clippy::mutable_key_type)] // hashed by address and occurrence only
        let mut guarded: FxHashMap<Directive<'_>, Vec<(Directive<'_>, Option<String>)>> =
            FxHashMap::default();
        for loc in cx.nginx_directives("location") {
            // Most locations pass nowhere: that is asked first, the restrictions after.
            let Some(p) = loc.children("proxy_pass").next() else {
                continue;
            };
            if !restricts(loc) {
                continue;
            }
            let Some(server) = loc.enclosing("server") else {
                continue;
            };
            guarded
                .entry(server)
                .or_default()
                .push((loc, backend_of(p)));
        }
        for pass in cx.nginx_directives("proxy_pass") {
            let Some(loc) = pass.parent().filter(|p| p.name() == "location") else {
                continue;
            };
            let headers: Vec<Directive<'_>> = pass.inherited("proxy_set_header").collect();
            let Some(upgrade) = header(&headers, "upgrade") else {
                continue;
            };
            let forwards_upgrade = upgrade
                .arg(1)
                .is_some_and(|v| v.value().to_ascii_lowercase().contains("$http_upgrade"));
            if !forwards_upgrade {
                continue;
            }
            let Some(connection) = header(&headers, "connection").and_then(|c| c.arg(1)) else {
                continue;
            };
            let c = connection.value().to_ascii_lowercase();
            if !(c.contains("upgrade") || c.contains("$http_connection")) {
                continue;
            }
            let http11 = match pass
                .inherited("proxy_http_version")
                .last()
                .and_then(|v| v.arg(0))
            {
                Some(v) => v.is("1.1"),
                None => new_defaults,
            };
            if !http11 {
                continue;
            }
            // A location of the same server that restricts access and passes to the same
            // backend: the tunnel reaches it without its rules.
            let backend = backend_of(pass);
            let bypassed = pass
                .enclosing("server")
                .and_then(|server| guarded.get(&server))
                .and_then(|locs| {
                    locs.iter()
                        .find(|(other, b)| *other != loc && *b == backend)
                        .map(|&(other, _)| other)
                });
            let key = (upgrade.file().path.clone(), upgrade.span());
            match found.get_mut(&key) {
                Some(entry) => {
                    if entry.2.is_none() && bypassed.is_some() {
                        *entry = (upgrade, pass, bypassed);
                    }
                }
                None => {
                    order.push(key.clone());
                    found.insert(key, (upgrade, pass, bypassed));
                }
            }
        }
        for key in order {
            let Some(&(upgrade, pass, bypassed)) = found.get(&key) else {
                continue;
            };
            let backend = pass
                .arg(0)
                .map_or_else(String::new, |a| a.value().into_owned());
            let message = match bypassed {
                Some(other) => format!(
                    "any client's `Upgrade` header is forwarded to `{backend}`: with `Upgrade: h2c` a client can open an HTTP/2 tunnel (if the backend speaks h2c) to the backend and request `{}` without that location's access rules",
                    other.args().map(|a| a.value().into_owned()).collect::<Vec<_>>().join(" ")
                ),
                None => format!(
                    "any client's `Upgrade` header is forwarded to `{backend}`: with `Upgrade: h2c` a client can turn the connection into an HTTP/2 tunnel to the backend that nginx no longer inspects (if the backend speaks h2c)"
                ),
            };
            let r = cx.report(upgrade.file(), upgrade.span(), message);
            if let Some(other) = bypassed {
                r.severity = Severity::Warning;
                r.label(
                    other.file().clone(),
                    other.span(),
                    "access rules the tunnel skips",
                );
            }
            let at = pass.arg(0).map_or(pass.span(), |a| a.raw());
            r.label(pass.file().clone(), at, "upgraded here");
            r.help = Some(
                "forward only WebSocket upgrades: `map $http_upgrade $ws_upgrade { default \"\"; ~*^websocket$ websocket; }` and `map $ws_upgrade $ws_connection { default \"\"; websocket upgrade; }`, then `proxy_set_header Upgrade $ws_upgrade; proxy_set_header Connection $ws_connection;` (and only in the WebSocket location)".into(),
            );
        }
    }
}
