//! STK003 fastcgi-target-without-pool: a `fastcgi_pass` (or a `server` of the upstream it
//! names) that points at a local address no PHP-FPM pool of the stack listens on.
//!
//! nginx connects for every PHP request and fails: `connect() to unix:/run/php/php7.4-fpm.sock
//! failed (2: No such file or directory)` or `(111: Connection refused)`, and the client gets
//! 502 Bad Gateway. The classic cause is a PHP upgrade that renamed the socket
//! (`php7.4-fpm.sock` → `php8.2-fpm.sock`) in the pool but not in nginx.
//!
//! Only judged when the stack has PHP-FPM pools and every pool's `listen` is known (a
//! `${VAR}` or relative socket path could be any address). Only unix sockets and loopback
//! addresses must be local; a remote host may run PHP-FPM elsewhere, and a target with
//! variables is decided per request: both are left alone. `/var/run` and `/run` are one
//! directory (a symlink on every current distribution). A target where a pool file of the
//! tree that no master includes listens is left alone too: something the configuration does
//! not show starts it (`php-fpm --fpm-config` per site from an init script).

use crate::analysis::stack_links::{
    active_nginx, pool_listen, reaches, same_server, target_directive,
};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::source::{Shared, Span};
use crate::stack::fpm::Listen;
use crate::stack::net::{fastcgi_targets, Addr};

declare_rule! {
    pub struct FastcgiTargetWithoutPool;
    code: STK003,
    name: "fastcgi-target-without-pool",
    lang: stack,
    category: Correctness,
    severity: Error,
    fix: Sometimes,
    group: Default,
}

/// A pool's name, its address, and where its `listen` is written.
type PoolAddress = (String, Listen, Option<(Shared, Span)>);

/// How nginx would write the address of a pool: `unix:/path` or `host:port` (a pool on every
/// address is reached on `127.0.0.1`).
fn nginx_address(listen: &Listen) -> String {
    match listen {
        Listen::Unix { path } => format!("unix:{path}"),
        Listen::Tcp { host: None, port } => format!("127.0.0.1:{port}"),
        Listen::Tcp {
            host: Some(h),
            port,
        } if h.contains(':') => format!("[{h}]:{port}"),
        Listen::Tcp {
            host: Some(h),
            port,
        } => format!("{h}:{port}"),
    }
}

impl Rule for FastcgiTargetWithoutPool {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in active_nginx(cx.stack) {
            // The pools of the same machine, all with a known address, and where each
            // `listen` is written (labelled, so that a pre-commit run given only the pool file
            // still reports the nginx line it stopped serving).
            let pools: Vec<PoolAddress> = cx
                .stack
                .pools()
                .filter(|(c, _)| same_server(cx.stack, inst, c))
                .map(|(c, p)| {
                    pool_listen(c, p).map(|(s, l)| {
                        let at = c.entry(s).map(|e| (c.source(s).clone(), e.raw_value));
                        (p.name.clone(), l, at)
                    })
                })
                .collect::<Option<_>>()
                .unwrap_or_default();
            if pools.is_empty() {
                continue;
            }
            // Pool files of the tree that no master here includes, yet listen where nginx
            // connects: something outside the configuration starts them (an init script's
            // `php-fpm --fpm-config php-fpm.d/site.conf` per site), so "no pool listens
            // there" would be a guess.
            let unloaded: Vec<Listen> = cx
                .stack
                .fpm
                .iter()
                .filter(|c| !c.has_master)
                .flat_map(|c| c.pools.iter().filter_map(move |p| pool_listen(c, p)))
                .map(|(_, l)| l)
                .collect();
            for t in fastcgi_targets(inst).iter() {
                let local = match &t.addr {
                    Addr::Unix(p) => p.starts_with('/'),
                    a => a.is_loopback_tcp(),
                };
                if !local
                    || pools.iter().any(|(_, l, _)| reaches(&t.addr, l))
                    || unloaded.iter().any(|l| reaches(&t.addr, l))
                {
                    continue;
                }
                let holder = target_directive(inst, t);
                let file = holder.file();
                let Some(word) = holder.arg(0) else {
                    continue;
                };
                let span = word.raw();
                if !cx.claim(file, span) {
                    continue;
                }
                let errno = match t.addr {
                    Addr::Unix(_) => "(2: No such file or directory)",
                    Addr::Tcp { .. } => "(111: Connection refused)",
                };
                let written = t.addr.to_string();
                let via = if t.server.is_some() {
                    format!("upstream server {written} (used by fastcgi_pass)")
                } else {
                    format!("fastcgi_pass {written}")
                };
                // The pools by distance; the nearest, when it is the only one that near.
                let mut by_distance: Vec<(usize, String, &str)> = pools
                    .iter()
                    .map(|(name, l, _)| {
                        let a = nginx_address(l);
                        (
                            crate::edit_distance::levenshtein(written.as_bytes(), a.as_bytes()),
                            a,
                            name.as_str(),
                        )
                    })
                    .collect();
                by_distance.sort();
                by_distance.dedup_by(|a, b| a.1 == b.1);
                let Some(nearest) = by_distance.first() else {
                    continue;
                };
                let unique = by_distance.get(1).is_none_or(|n| n.0 > nearest.0);
                let listening: Vec<String> = by_distance
                    .iter()
                    .map(|(_, a, n)| format!("{a} (pool {n})"))
                    .collect();
                let d = cx.report(
                    file,
                    span,
                    format!(
                        "{via}: no PHP-FPM pool of this stack listens there; nginx's connect() \
                         fails with {errno} and PHP requests get 502 Bad Gateway"
                    ),
                );
                for (name, l, at) in &pools {
                    if let Some((file, span)) = at {
                        d.label(
                            file.clone(),
                            *span,
                            format!("pool {name} listens on {}", nginx_address(l)),
                        );
                    }
                }
                d.help = Some(if unique {
                    format!(
                        "the stack's pools listen on {}; did you mean `{}`?",
                        listening.join(", "),
                        nearest.1
                    )
                } else {
                    format!("the stack's pools listen on {}", listening.join(", "))
                });
                if unique {
                    d.with_fix(Fix::unsafe_(
                        format!("Point it at `{}` (pool {})", nearest.1, nearest.2),
                        vec![edits::replace_arg(file, &word.tree_word(), &nearest.1)],
                    ));
                }
            }
        }
    }
}
