//! NGX004 ssl-session-cache-missing: a TLS server that can resume no session, so every
//! returning client pays a full handshake.
//!
//! A TLS client that comes back (a new connection for the next page, after a keepalive
//! timeout) can skip the key exchange and the certificate signature by resuming its previous
//! session, either with a session ticket or with a session ID the server kept. nginx keeps
//! nothing by default (`ssl_session_cache none`), but session tickets are on by default and
//! work across workers (the ticket keys are made before the workers fork), so resumption
//! works out of the box. It stops working when `ssl_session_tickets off` (often copied from
//! hardening guides for forward secrecy) meets a session cache that is not shared: `none`
//! or `off` keep nothing, and `builtin` keeps sessions per worker process, so with several
//! workers a client finds its session only when it lands on the same worker.
//!
//! Only that combination is reported: with tickets on, a missing cache costs only the rare
//! clients without ticket support, and Mozilla's modern profile leaves the cache out on
//! purpose. The fix adds `ssl_session_cache shared:SSL:10m;` (about 40,000 sessions) and
//! `ssl_session_timeout 1d;` (when no timeout is set) once, next to the `ssl_*` directives
//! of the enclosing `http` block, which every server inherits; an explicit cache that is not
//! shared is replaced (unsafe: someone chose it).

use crate::analysis::cursor::{self, Block, Directive};
use crate::analysis::tls_settings::{
    arg_values, http_of, insert_ssl_directives, source, tls_servers, Source, TlsServer,
};
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::Span;
use crate::stack::model::NginxInstance;

declare_rule! {
    pub struct SslSessionCacheMissing;
    code: NGX004,
    name: "ssl-session-cache-missing",
    lang: nginx,
    category: Performance,
    severity: Warning,
    fix: Always,
    group: Default,
}

impl Rule for SslSessionCacheMissing {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let mut groups: Vec<(Directive, Cache, Vec<TlsServer>)> = Vec::new();
            for s in tls_servers(inst) {
                let Some(tickets) = tickets_off(s.server) else {
                    continue;
                };
                let Some(cache) = cache_problem(&s) else {
                    continue;
                };
                match groups
                    .iter_mut()
                    .find(|(t, c, _)| *t == tickets && *c == cache)
                {
                    Some((_, _, list)) => list.push(s),
                    None => groups.push((tickets, cache, vec![s])),
                }
            }
            for (tickets, cache, servers) in groups {
                report(cx, inst, tickets, cache, &servers);
            }
        }
    }
}

/// The `ssl_session_tickets off` in effect for a server, if any.
fn tickets_off(server: Directive<'_>) -> Option<Directive<'_>> {
    let Source::Set(t) = source(server.into(), "ssl_session_tickets") else {
        return None; // default `on`, or unknown
    };
    (t.args().len() == 1 && t.arg(0).is_some_and(|a| a.is("off"))).then_some(t)
}

/// A session cache that cannot serve returning clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cache<'a> {
    /// nginx's default, `none`.
    Default,
    /// `off`, `none`, or `builtin` with several workers.
    Set(Directive<'a>),
}

/// The number of worker processes, when the main context was read: `None` for `auto` or
/// a value nginx rejects; unset means 1.
fn workers(server: &TlsServer<'_>) -> Option<Option<u32>> {
    server.http?;
    Some(
        match Block::main(server.server.instance())
            .effective("worker_processes")
            .last()
        {
            None => Some(1),
            Some(w) => w.arg(0).and_then(|a| a.value().parse().ok()),
        },
    )
}

fn cache_problem<'a>(server: &TlsServer<'a>) -> Option<Cache<'a>> {
    match source(server.server.into(), "ssl_session_cache") {
        Source::Set(c) => {
            let args = arg_values(c);
            if args.is_empty() || args.iter().any(|a| a.starts_with("shared:")) {
                return None;
            }
            let builtin_only = args
                .iter()
                .all(|a| a == "builtin" || a.starts_with("builtin:"));
            if builtin_only && workers(server)? == Some(1) {
                return None; // one worker: its builtin cache sees every client
            }
            Some(Cache::Set(c))
        }
        Source::Default => Some(Cache::Default),
        Source::Unknown => None,
    }
}

/// The shared cache to add: an http-level `shared:SSL:…` already declared is reused as is
/// (a zone name must keep one size), otherwise `shared:SSL:10m`, or `shared:HTTP_SSL:10m`
/// when `SSL` is a `stream` or `mail` zone.
fn shared_cache_arg(inst: &NginxInstance) -> String {
    let mut name = "SSL";
    for c in cursor::named(inst, "ssl_session_cache") {
        let in_http = http_of(c.into()).is_some();
        for a in arg_values(c) {
            if a.starts_with("shared:SSL:") {
                if in_http {
                    return a.to_string();
                }
                name = "HTTP_SSL";
            }
        }
    }
    format!("shared:{name}:10m")
}

fn report(
    cx: &mut Context<'_>,
    inst: &NginxInstance,
    tickets: Directive<'_>,
    cache: Cache<'_>,
    servers: &[TlsServer<'_>],
) {
    let shared = shared_cache_arg(inst);
    let full =
        "so every returning client pays a full handshake (key exchange and certificate signature)";
    match cache {
        Cache::Default => {
            let file = tickets.file();
            let Some(off) = tickets.arg(0) else { return };
            if !cx.claim(file, off.raw()) {
                return;
            }
            let Some(block) = http_of(tickets.level()).or(tickets.parent()) else {
                return;
            };
            let mut stmts = vec![format!("ssl_session_cache {shared};")];
            // The timeout also applies to the block's other servers: add it only when no
            // other server relies on the default 5m.
            let reported_here: std::collections::HashSet<_> =
                servers.iter().map(|s| s.server.occ()).collect();
            let others_rely = tls_servers(inst).iter().any(|o| {
                !reported_here.contains(&o.server.occ())
                    && o.server != block
                    && Block::from(o.server).is_within(block.into())
                    && source(o.server.into(), "ssl_session_timeout") == Source::Default
            });
            if source(block.into(), "ssl_session_timeout") == Source::Default && !others_rely {
                stmts.push("ssl_session_timeout 1d;".to_string());
            }
            let Some(edit) = insert_ssl_directives(block, &stmts) else {
                return;
            };
            let title = format!("Add `{}` to `{}`", stmts.join(" "), block.name());
            let message = format!(
                "`ssl_session_tickets off` and no shared `ssl_session_cache` (nginx's default \
                 is `none`): TLS sessions are never resumed, {full}"
            );
            let d = cx
                .report(file, off.raw(), message)
                .with_fix(Fix::safe(title, vec![edit]));
            label_servers(d, tickets, servers);
            d.help = Some(help());
        }
        Cache::Set(c) => {
            let file = c.file();
            let (Some(first), Some(last)) = (c.arg(0), c.args().last()) else {
                return;
            };
            if !cx.claim(file, first.raw()) {
                return;
            }
            let value = arg_values(c).join(" ");
            let why = if value.starts_with("builtin") {
                let n = servers
                    .first()
                    .and_then(workers)
                    .flatten()
                    .map_or("several".to_string(), |n| n.to_string());
                format!(
                    "`builtin` keeps sessions per worker process, so with {n} workers a \
                     returning client finds its session only when it reaches the same worker"
                )
            } else {
                format!("TLS sessions are never resumed, {full}")
            };
            let message =
                format!("`ssl_session_cache {value}` with `ssl_session_tickets off`: {why}");
            let span = Span::new(first.raw().start, last.raw().end);
            let fix = Fix::unsafe_(
                format!("Use `ssl_session_cache {shared}`"),
                vec![Edit::replace(file, span, shared.clone())],
            );
            let d = cx.report(file, span, message).with_fix(fix);
            d.label(
                tickets.file().clone(),
                tickets.span(),
                "tickets are turned off here",
            );
            d.help = Some(help());
        }
    }
}

fn label_servers(
    d: &mut crate::diagnostic::Diagnostic,
    tickets: Directive<'_>,
    servers: &[TlsServer<'_>],
) {
    for s in servers
        .iter()
        .filter(|s| Some(s.server) != tickets.parent())
        .take(3)
    {
        d.label(
            s.marker.file().clone(),
            s.marker.span(),
            "this TLS server inherits both",
        );
    }
}

fn help() -> String {
    "A shared cache holds about 4,000 sessions per megabyte for all workers; with it, a \
     returning client resumes without the key exchange and the certificate signature. \
     Since nginx 1.23.2 the shared cache also rotates the session-ticket keys, should \
     tickets be turned back on."
        .to_string()
}
