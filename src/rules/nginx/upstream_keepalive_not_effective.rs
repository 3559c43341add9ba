//! NGX145 upstream-keepalive-not-effective: an `upstream` keeps idle connections
//! (`keepalive N`), but a location passing to it sends requests that end every connection.
//!
//! ngx_http_upstream_keepalive_module only keeps a connection the backend left open. Before
//! nginx 1.29.7, `proxy_pass` spoke HTTP/1.0 and sent `Connection: close` by default, so
//! the documentation's recipe needs both `proxy_http_version 1.1;` and
//! `proxy_set_header Connection "";` (1.29.7 made both the default, changes.xml). For
//! FastCGI the backend closes unless `fastcgi_keep_conn on;`. Both settings are read as
//! nginx merges them (`proxy_set_header` at a level replaces every inherited one).
//!
//! With `[host] nginx` at 1.29.7 or later only explicit `proxy_http_version 1.0` or
//! `Connection close` are reported; without a version, the older defaults are assumed,
//! since most installed nginx predates 1.29.7 — the message says so.

use crate::analysis::cursor::{named, Directive, Word};
use crate::analysis::pass_target::PassTarget;
use crate::fxhash::FxHashMap;
use crate::rules::{Context, Rule};
use crate::stack::expanded::OccId;

declare_rule! {
    pub struct UpstreamKeepaliveNotEffective;
    code: NGX145,
    name: "upstream-keepalive-not-effective",
    lang: nginx,
    category: Performance,
    severity: Warning,
    fix: None,
    group: Default,
}

impl Rule for UpstreamKeepaliveNotEffective {
    fn check(&self, cx: &mut Context<'_>) {
        let version = cx.nginx_version();
        // Since 1.29.7 HTTP/1.1 without `Connection: close` is the default.
        let new_defaults = version.is_some_and(|v| v.at_least(1, 29, 7));
        let assumed = if version.is_none() {
            " (before nginx 1.29.7; set `[host] nginx` if yours is newer)"
        } else {
            ""
        };
        for inst in &cx.stack.nginx {
            // The http upstreams with a keepalive cache, by lowercase name (nginx matches
            // `proxy_pass` hosts to upstream names without case).
            let mut pools: FxHashMap<String, Directive<'_>> = FxHashMap::default();
            for u in named(inst, "upstream") {
                if u.parent().is_some_and(|p| p.name() != "http") {
                    continue;
                }
                let Some(name) = u.arg(0) else { continue };
                let keepalive = u.children("keepalive").last().filter(|k| {
                    k.arg(0)
                        .is_some_and(|a| a.value().parse::<u32>().is_ok_and(|n| n > 0))
                });
                if let Some(k) = keepalive {
                    pools.insert(name.value().to_ascii_lowercase(), k);
                }
            }
            if pools.is_empty() {
                continue;
            }
            let mut groups = Groups::default();
            for d in named(inst, "proxy_pass") {
                let Some((arg, pool)) = pool_of(d, &pools, true) else {
                    continue;
                };
                let mut missing = Vec::new();
                let version_set = d.inherited("proxy_http_version").last();
                match version_set.and_then(|v| v.arg(0)) {
                    Some(v) if v.is("1.1") => {}
                    Some(v) => missing.push(format!(
                        "it speaks HTTP/{} (`proxy_http_version {}`)",
                        v.value(),
                        v.value()
                    )),
                    None if !new_defaults => missing.push(
                        "it speaks HTTP/1.0 (the default without `proxy_http_version 1.1`)"
                            .to_string(),
                    ),
                    None => {}
                }
                let connection = d
                    .inherited("proxy_set_header")
                    .filter(|h| h.arg(0).is_some_and(|a| a.is("connection")))
                    .last();
                match connection.and_then(|c| c.arg(1)) {
                    Some(v) if v.is("close") => missing.push(
                        "it sends `Connection: close` (`proxy_set_header Connection close`)".to_string(),
                    ),
                    Some(_) => {}
                    None if !new_defaults => missing.push(
                        "it sends `Connection: close` (the default without `proxy_set_header Connection \"\"`)".to_string(),
                    ),
                    None => {}
                }
                if missing.is_empty() {
                    continue;
                }
                let defaults_noted = if version_set.is_none() || connection.is_none() {
                    assumed
                } else {
                    ""
                };
                let message = format!(
                    "upstream `{}` keeps idle connections, but this `proxy_pass` closes every one: {}{defaults_noted}",
                    upstream_name(pool),
                    missing.join(", and ")
                );
                let help = "set `proxy_http_version 1.1;` and `proxy_set_header Connection \"\";` where this location (or its server) sets its other proxy headers";
                groups.add(d, arg, pool, message, help);
            }
            for d in named(inst, "fastcgi_pass") {
                let Some((arg, pool)) = pool_of(d, &pools, false) else {
                    continue;
                };
                let keep = d.inherited("fastcgi_keep_conn").last();
                if keep.and_then(|k| k.arg(0)).is_some_and(|a| a.is("on")) {
                    continue;
                }
                let message = format!(
                    "upstream `{}` keeps idle connections, but without `fastcgi_keep_conn on` the FastCGI server closes each after one request",
                    upstream_name(pool),
                );
                groups.add(
                    d,
                    arg,
                    pool,
                    message,
                    "set `fastcgi_keep_conn on;` in this location (or its server)",
                );
            }
            groups.report(cx);
        }
    }
}

/// The argument of a `*_pass` naming a keepalive upstream, and that upstream's `keepalive`.
fn pool_of<'a>(
    d: Directive<'a>,
    pools: &FxHashMap<String, Directive<'a>>,
    http: bool,
) -> Option<(Word<'a>, Directive<'a>)> {
    let arg = d.arg(0)?;
    let value = arg.value();
    let target = PassTarget::parse(&value, http);
    // A `proxy_pass` in `stream` has no scheme; a variable host is looked up per request.
    if (http && target.scheme.is_empty()) || target.unix || target.host_has_variables() {
        return None;
    }
    let pool = *pools.get(&target.host.to_ascii_lowercase())?;
    Some((arg, pool))
}

fn upstream_name(pool: Directive<'_>) -> String {
    pool.parent()
        .and_then(|u| u.arg(0))
        .map_or_else(String::new, |a| a.value().into_owned())
}

/// One problem with one pool in one server, reported once at its first `*_pass`: a server
/// with twenty locations passing to the upstream has one cause (usually one missing line at
/// the server or `http` level), not twenty.
#[derive(Default)]
struct Groups<'a> {
    order: Vec<Group<'a>>,
    index: FxHashMap<(Option<OccId>, OccId, String), usize>,
}

struct Group<'a> {
    first: (Directive<'a>, Word<'a>),
    others: Vec<(Directive<'a>, Word<'a>)>,
    pool: Directive<'a>,
    message: String,
    help: &'static str,
}

impl<'a> Groups<'a> {
    fn add(
        &mut self,
        d: Directive<'a>,
        arg: Word<'a>,
        pool: Directive<'a>,
        message: String,
        help: &'static str,
    ) {
        let server = d.enclosing("server").map(|s| s.occ());
        let key = (server, pool.occ(), message.clone());
        match self.index.get(&key) {
            Some(&i) => self.order[i].others.push((d, arg)),
            None => {
                self.index.insert(key, self.order.len());
                self.order.push(Group {
                    first: (d, arg),
                    others: Vec::new(),
                    pool,
                    message,
                    help,
                });
            }
        }
    }

    fn report(self, cx: &mut Context<'_>) {
        for g in self.order {
            let (d, arg) = g.first;
            let message = match g.others.len() {
                0 => g.message,
                n => format!(
                    "{} (and {n} more `{}` to it in this server)",
                    g.message,
                    d.name()
                ),
            };
            let found = cx.report(d.file(), arg.raw(), message);
            found.label(
                g.pool.file().clone(),
                g.pool.span(),
                "connections kept here are never reused",
            );
            for (o, a) in g.others.iter().take(3) {
                found.label(o.file().clone(), a.raw(), "also here");
            }
            found.help = Some(g.help.to_string());
        }
    }
}
