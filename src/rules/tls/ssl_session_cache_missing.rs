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

use crate::analysis::tls_settings::{
    http_of, insert_ssl_directives, occurrence, source, tls_servers, Source, TlsServer,
};
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::Span;
use crate::stack::expanded::{OccId, View, NO_PARENT};
use crate::stack::model::NginxInstance;

declare_rule! {
    pub struct SslSessionCacheMissing;
    code: NGX004,
    name: "ssl-session-cache-missing",
    lang: nginx,
    category: Performance,
    severity: Warning,
    fix: Always,
}

impl Rule for SslSessionCacheMissing {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let view = inst.view();
            let mut groups: Vec<(OccId, Cache, Vec<TlsServer>)> = Vec::new();
            for &s in tls_servers(inst).iter() {
                let Some(tickets) = tickets_off(&view, s.server) else {
                    continue;
                };
                let Some(cache) = cache_problem(&view, &s) else {
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
                report(cx, inst, &view, tickets, cache, &servers);
            }
        }
    }
}

/// The `ssl_session_tickets off` in effect for a server, if any.
fn tickets_off(view: &View<'_>, server: OccId) -> Option<OccId> {
    let Source::Set(t) = source(view, server, "ssl_session_tickets") else {
        return None; // default `on`, or unknown
    };
    let args = view.args(t);
    (args.len() == 1 && args[0].eq_ignore_ascii_case("off")).then_some(t)
}

/// A session cache that cannot serve returning clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cache {
    /// nginx's default, `none`.
    Default,
    /// `off`, `none`, or `builtin` with several workers.
    Set(OccId),
}

/// The number of worker processes, when the main context was read: `None` for `auto` or
/// a value nginx rejects; unset means 1.
fn workers(view: &View<'_>, server: &TlsServer) -> Option<Option<u32>> {
    server.http?;
    Some(match view.effective(NO_PARENT, "worker_processes").last() {
        None => Some(1),
        Some(&w) => view.args(w).first().and_then(|a| a.parse().ok()),
    })
}

fn cache_problem(view: &View<'_>, server: &TlsServer) -> Option<Cache> {
    match source(view, server.server, "ssl_session_cache") {
        Source::Set(c) => {
            let args = view.args(c);
            if args.is_empty() || args.iter().any(|a| a.starts_with("shared:")) {
                return None;
            }
            let builtin_only = args
                .iter()
                .all(|a| a == "builtin" || a.starts_with("builtin:"));
            if builtin_only && workers(view, server)? == Some(1) {
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
fn shared_cache_arg(view: &View<'_>) -> String {
    let mut name = "SSL";
    for c in view.named("ssl_session_cache") {
        let in_http = http_of(view, c).is_some();
        for a in view.args(c) {
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
    view: &View<'_>,
    tickets: OccId,
    cache: Cache,
    servers: &[TlsServer],
) {
    let shared = shared_cache_arg(view);
    let (tfile, tspan) = view.location(tickets);
    let full =
        "so every returning client pays a full handshake (key exchange and certificate signature)";
    match cache {
        Cache::Default => {
            let (file, _, args) = occurrence(inst, view, tickets);
            let Some(off) = args.first() else { return };
            if !cx.claim(&file, off.raw()) {
                return;
            }
            let parent = view.expanded.get(tickets).parent;
            let Some(block) = http_of(view, parent).or((parent != NO_PARENT).then_some(parent))
            else {
                return;
            };
            let mut stmts = vec![format!("ssl_session_cache {shared};")];
            // The timeout also applies to the block's other servers: add it only when no
            // other server relies on the default 5m.
            let reported_here: std::collections::HashSet<OccId> =
                servers.iter().map(|s| s.server).collect();
            let others_rely = tls_servers(inst).iter().any(|o| {
                !reported_here.contains(&o.server)
                    && view.expanded.ancestors(o.server).any(|a| a == block)
                    && source(view, o.server, "ssl_session_timeout") == Source::Default
            });
            if source(view, block, "ssl_session_timeout") == Source::Default && !others_rely {
                stmts.push("ssl_session_timeout 1d;".to_string());
            }
            let Some(edit) = insert_ssl_directives(inst, view, block, &stmts) else {
                return;
            };
            let title = format!("Add `{}` to `{}`", stmts.join(" "), view.name(block));
            let message = format!(
                "`ssl_session_tickets off` and no shared `ssl_session_cache` (nginx's default \
                 is `none`): TLS sessions are never resumed, {full}"
            );
            let d = cx
                .report(&file, off.raw(), message)
                .with_fix(Fix::safe(title, vec![edit]));
            label_servers(d, view, tickets, servers);
            d.help = Some(help());
        }
        Cache::Set(c) => {
            let (file, _, args) = occurrence(inst, view, c);
            let (Some(first), Some(last)) = (args.first(), args.last()) else {
                return;
            };
            if !cx.claim(&file, first.raw()) {
                return;
            }
            let value = view.args(c).join(" ");
            let why = if value.starts_with("builtin") {
                let n = servers
                    .first()
                    .and_then(|s| workers(view, s))
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
                vec![Edit::replace(&file, span, shared.clone())],
            );
            let d = cx.report(&file, span, message).with_fix(fix);
            d.label(tfile, tspan, "tickets are turned off here");
            d.help = Some(help());
        }
    }
}

fn label_servers(
    d: &mut crate::diagnostic::Diagnostic,
    view: &View<'_>,
    tickets: OccId,
    servers: &[TlsServer],
) {
    let tparent = view.expanded.get(tickets).parent;
    for s in servers.iter().filter(|s| s.server != tparent).take(3) {
        let (f, sp) = view.location(s.marker);
        d.label(f, sp, "this TLS server inherits both");
    }
}

fn help() -> String {
    "A shared cache holds about 4,000 sessions per megabyte for all workers; with it, a \
     returning client resumes without the key exchange and the certificate signature. \
     Since nginx 1.23.2 the shared cache also rotates the session-ticket keys, should \
     tickets be turned back on."
        .to_string()
}
