//! STK002 backlog-chain-order: the accept queues along a request's way, from nginx to PHP-FPM
//! to the kernel, should not shrink: nginx's `listen … backlog` ≤ the `listen.backlog` of the
//! pools it passes to ≤ `net.core.somaxconn` ≤ `net.ipv4.tcp_max_syn_backlog`.
//!
//! When a pool's queue is shorter than the one in front of it, a burst that nginx accepted
//! overflows the pool's socket: on a unix socket nginx's non-blocking connect() fails at once
//! with `(11: Resource temporarily unavailable)` and the client gets 502 Bad Gateway; on TCP
//! the SYN is dropped and retried, adding seconds.
//!
//! The split with STK001: STK001 reports every backlog above `net.core.somaxconn` (the kernel
//! caps it). This rule reports the other links, comparing the values as configured, so an
//! out-of-order chain shows even while somaxconn caps both ends:
//!
//! * nginx → pool: the largest backlog of the `server`'s listens (nginx's default 511 when
//!   none is set) against the pool's `listen.backlog` (php-fpm's default: 511 on PHP 7.x and
//!   8.0/8.1, -1 = somaxconn from 8.2 on Linux; a negative value always follows somaxconn and is never
//!   short; an unknown PHP version with no explicit value is not judged).
//! * somaxconn → `tcp_max_syn_backlog`: only when SYN cookies are explicitly off
//!   (`net.ipv4.tcp_syncookies = 0`); with cookies on (the default) "there is no logical maximum
//!   length and this setting is ignored" (listen(2)).

use crate::analysis::cursor::Directive;
use crate::analysis::stack_links::{
    listen_backlog, php_version, pool_links, setting_place, somaxconn, Assume, PoolLink,
};
use crate::rules::{Context, Rule};
use crate::source::{Shared, Span};
use crate::stack::fpm::{FpmConfig, Listen, Pool};
use crate::stack::net::NGINX_DEFAULT_BACKLOG;
use std::collections::HashMap;

declare_rule! {
    pub struct BacklogChainOrder;
    code: STK002,
    name: "backlog-chain-order",
    lang: stack,
    category: Performance,
    severity: Warning,
    fix: None,
    group: Default,
}

/// nginx's side of a link: the largest listen queue of a server.
struct NginxSide {
    backlog: u64,
    /// The listen directive it comes from (absent: nginx's default listen).
    place: Option<(Shared, Span)>,
    text: String,
}

/// The largest backlog among the `listen`s of `server` (a missing `backlog=` is 511).
fn server_backlog(server: Directive<'_>) -> NginxSide {
    let mut best = NginxSide {
        backlog: u64::from(NGINX_DEFAULT_BACKLOG),
        place: None,
        text: format!("nginx's default backlog {NGINX_DEFAULT_BACKLOG}"),
    };
    for l in server.children("listen") {
        let addr = l.arg(0).map(|a| a.value()).unwrap_or_default();
        let (value, text, place) = match listen_backlog(l) {
            Some((word, n)) => (
                n,
                format!("nginx's `listen {addr} backlog={n}`"),
                Some((l.file().clone(), word.raw())),
            ),
            None => (
                u64::from(NGINX_DEFAULT_BACKLOG),
                format!("nginx's `listen {addr}` (default backlog {NGINX_DEFAULT_BACKLOG})"),
                Some((l.file().clone(), l.span())),
            ),
        };
        if value > best.backlog || best.place.is_none() {
            best = NginxSide {
                backlog: value,
                place,
                text,
            };
        }
    }
    best
}

/// A pool's configured queue, when it is a fixed number.
enum PoolBacklog {
    /// `listen.backlog = N` (N ≥ 0), where.
    Explicit(u64, Shared, Span),
    /// php-fpm's default 511 (PHP < 8.2), with the version.
    Default511((u32, u32)),
    /// Negative (somaxconn) or unknown: nothing to compare.
    NotFixed,
}

fn pool_backlog(cx: &Context<'_>, cfg: &FpmConfig, pool: &Pool) -> PoolBacklog {
    if let Some((s, v)) = cfg.get(pool, "listen.backlog") {
        let Ok(n) = crate::syntax::fpm::parse_int(v.trim().as_bytes()) else {
            return PoolBacklog::NotFixed;
        };
        return match (u64::try_from(n), setting_place(cfg, s)) {
            (Ok(n), Some((f, span))) => PoolBacklog::Explicit(n, f, span),
            _ => PoolBacklog::NotFixed,
        };
    }
    match php_version(cx.host, cfg) {
        // 511 since php-src PR #731 (2014, before PHP 7.0); older releases had other
        // defaults (128, 65535), not judged.
        Some(v) if ((7, 0)..(8, 2)).contains(&v) => PoolBacklog::Default511(v),
        _ => PoolBacklog::NotFixed,
    }
}

impl Rule for BacklogChainOrder {
    fn check(&self, cx: &mut Context<'_>) {
        nginx_to_pool(cx);
        somaxconn_to_syn_backlog(cx);
    }
}

fn nginx_to_pool(cx: &mut Context<'_>) {
    // Per pool (by its listen setting), the largest nginx queue in front of it.
    let mut worst: HashMap<(std::path::PathBuf, usize), (NginxSide, &PoolLink<'_>)> =
        HashMap::new();
    let links = pool_links(cx.stack);
    for link in &links {
        let Some(server) = link.pass.enclosing("server") else {
            continue;
        };
        let side = server_backlog(server);
        let key = (link.cfg.source(link.listen).path.clone(), link.listen.line);
        match worst.get(&key) {
            Some((w, _)) if w.backlog >= side.backlog => {}
            _ => {
                worst.insert(key, (side, link));
            }
        }
    }
    let mut found: Vec<_> = worst.into_values().collect();
    found.sort_by_key(|(_, l)| (l.cfg.source(l.listen).path.clone(), l.listen.line));
    for (side, link) in found {
        let (pool_n, file, span, what) = match pool_backlog(cx, link.cfg, link.pool) {
            PoolBacklog::Explicit(n, f, s) => (n, f, s, format!("listen.backlog = {n}")),
            PoolBacklog::Default511((major, minor)) => {
                let Some((f, s)) = setting_place(link.cfg, link.listen) else {
                    continue;
                };
                let what = format!("listen.backlog unset: PHP {major}.{minor}'s default");
                (511, f, s, what)
            }
            PoolBacklog::NotFixed => continue,
        };
        if pool_n >= side.backlog {
            continue;
        }
        let unix = matches!(
            crate::analysis::stack_links::pool_listen(link.cfg, link.pool),
            Some((_, Listen::Unix { .. }))
        );
        let symptom = if unix {
            "nginx's connect() to the socket fails with (11: Resource temporarily unavailable) \
             and the client gets 502 Bad Gateway"
        } else {
            "the kernel drops nginx's new connections to the pool and nginx retries them after a \
             second or more"
        };
        let d = cx.report(
            &file,
            span,
            format!(
                "pool `{}` queues at most {pool_n} connections ({what}), fewer than {} in \
                 front of it: when a burst fills the pool's queue, {symptom}",
                link.pool.name, side.text
            ),
        );
        if let Some((f, s)) = side.place {
            d.label(f, s, format!("nginx queues up to {}", side.backlog));
        }
        d.help = Some(format!(
            "raise the pool's listen.backlog to at least {} (and net.core.somaxconn with it), or \
             lower nginx's backlog",
            side.backlog
        ));
    }
}

fn somaxconn_to_syn_backlog(cx: &mut Context<'_>) {
    let stack = cx.stack;
    // Only with SYN cookies explicitly off does tcp_max_syn_backlog bound the SYN queue.
    let cookies = crate::analysis::stack_links::sysctl_number(cx.stack, "net.ipv4.tcp_syncookies");
    if !matches!(cookies, Some(Some((_, 0)))) {
        return;
    }
    if cx.stack.nginx.is_empty() {
        return;
    }
    let Some(Some((syn_set, syn))) =
        crate::analysis::stack_links::sysctl_number(cx.stack, "net.ipv4.tcp_max_syn_backlog")
    else {
        return;
    };
    // The smallest default somaxconn: below it, the link is broken on every kernel.
    let Some(max) = somaxconn(cx.stack, cx.host, Assume::Smallest) else {
        return;
    };
    if syn >= max.value {
        return;
    }
    let set = &cx.stack.sysctl;
    let Some(a) = set.assignment(syn_set) else {
        return;
    };
    let file = set.files[syn_set.file].source.clone();
    let limit = max.describe(cx.stack, "net.core.somaxconn");
    let d = cx.report(
        &file,
        a.key.cover(a.value),
        format!(
            "net.ipv4.tcp_max_syn_backlog = {syn} is below {limit}: with SYN cookies off, the \
             kernel drops SYNs from clients it has not seen before once {} connections are \
             half-open, before the accept queues can fill",
            syn - syn / 4
        ),
    );
    if let Some((f, s)) = max.place(stack) {
        d.label(f, s, "the accept queues' limit");
    }
    d.help = Some(format!(
        "raise net.ipv4.tcp_max_syn_backlog to at least {}",
        max.value
    ));
}
