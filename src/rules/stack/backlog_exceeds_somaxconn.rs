//! STK001 backlog-exceeds-somaxconn: an nginx `listen … backlog=N` or a PHP-FPM
//! `listen.backlog = N` above the effective `net.core.somaxconn`.
//!
//! The backlog goes to listen(2), and "if the backlog argument is greater than the value in
//! /proc/sys/net/core/somaxconn, then it is silently capped to that value" (listen(2);
//! verified: `backlog=65535` shows `Send-Q 4096` in `ss -ltn` with somaxconn 4096). The
//! configured queue is not the queue the server gets, and nothing logs it.
//!
//! `somaxconn` is the stack's own value when its sysctl files set it, else the kernel default:
//! 4096 since Linux 5.4, 128 before, picked by `[host] kernel`; with no kernel version the rule
//! assumes 4096, the larger default, so a finding holds on every kernel. A stack without any
//! sysctl file says nothing about the server's kernel settings: the rule stays silent there.
//! A negative `listen.backlog` (php-fpm 8.2's default on Linux, -1) means "somaxconn" and is
//! never reported.

use crate::analysis::stack_links::{
    active_directives, listen_backlog, setting_place, somaxconn, Assume,
};
use crate::fix::Fix;
use crate::rules::{Context, Rule};
use crate::source::{Shared, Span};

declare_rule! {
    pub struct BacklogExceedsSomaxconn;
    code: STK001,
    name: "backlog-exceeds-somaxconn",
    lang: stack,
    category: Correctness,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

/// Above this, kernels older than the 32-bit accept backlog wrap or refuse the value
/// (domain notes: h2o PR #183, brpc PR #466); the fix never goes higher.
const SAFE_MAX: u64 = 65535;

/// One configured backlog.
struct Backlog {
    file: Shared,
    span: Span,
    value: u64,
    what: String,
}

fn nginx_backlogs(cx: &Context<'_>, out: &mut Vec<Backlog>) {
    for l in active_directives(cx.stack, "listen") {
        // Only a `listen` of a `server` block binds a socket; elsewhere nginx rejects it.
        if l.parent().is_none_or(|p| p.name() != "server") {
            continue;
        }
        let Some((word, n)) = listen_backlog(l) else {
            continue;
        };
        let addr = l.arg(0).map(|a| a.value()).unwrap_or_default();
        out.push(Backlog {
            file: l.file().clone(),
            span: word.raw(),
            value: n,
            what: format!("nginx's `listen {addr} backlog={n}`"),
        });
    }
}

fn fpm_backlogs(cx: &Context<'_>, out: &mut Vec<Backlog>) {
    for (cfg, pool) in cx.stack.pools() {
        let Some((s, v)) = cfg.get(pool, "listen.backlog") else {
            continue;
        };
        let Ok(n) = crate::syntax::fpm::parse_int(v.trim().as_bytes()) else {
            continue;
        };
        let Ok(n) = u64::try_from(n) else {
            // Negative: php-fpm passes it to listen(2), which reads it as somaxconn.
            continue;
        };
        let Some((file, span)) = setting_place(cfg, s) else {
            continue;
        };
        out.push(Backlog {
            file,
            span,
            value: n,
            what: format!("pool `{}`'s `listen.backlog = {n}`", pool.name),
        });
    }
}

impl Rule for BacklogExceedsSomaxconn {
    fn check(&self, cx: &mut Context<'_>) {
        let Some(max) = somaxconn(cx.stack, cx.host, Assume::Largest) else {
            return;
        };
        let mut backlogs = Vec::new();
        nginx_backlogs(cx, &mut backlogs);
        fpm_backlogs(cx, &mut backlogs);
        backlogs.retain(|b| b.value > max.value && cx.claim(&b.file, b.span));
        // One target for every finding, so that their fixes are the same edit.
        let target = backlogs
            .iter()
            .map(|b| b.value)
            .max()
            .unwrap_or(0)
            .min(SAFE_MAX);
        let edits = (target > max.value)
            .then(|| {
                crate::analysis::stack_links::set_sysctl(cx.stack, "net.core.somaxconn", target)
            })
            .flatten();
        let limit = max.describe(cx.stack, "net.core.somaxconn");
        let place = max.place(cx.stack);
        for b in backlogs {
            let d = cx.report(
                &b.file,
                b.span,
                format!(
                    "{} is above {limit}: the kernel silently caps this accept queue at {}",
                    b.what, max.value
                ),
            );
            if let Some((file, span)) = &place {
                d.label(file.clone(), *span, "caps every listen backlog");
            }
            d.help = Some(format!(
                "raise net.core.somaxconn to at least {} in the stack's sysctl files, or lower \
                 the backlog",
                b.value
            ));
            if let Some(edits) = &edits {
                d.with_fix(Fix::unsafe_(
                    format!("Raise net.core.somaxconn to {target}"),
                    edits.clone(),
                ));
            }
        }
    }
}
