//! FPM105 single-worker-pool: `pm.max_children = 1`, so the pool serves one request at a
//! time.
//!
//! Every other request waits in the listen backlog behind the one being served: one slow
//! page (a report, an upload, a locked session) stalls the whole site, and nginx answers
//! 504 once `fastcgi_read_timeout` passes, or 502 when the backlog is full. A size of 1 is
//! usually a placeholder left from a template or a development setup; `lemplint tune`
//! derives a size from the memory. Pools whose manager is unknown are still judged: php-fpm
//! never runs more than `pm.max_children` workers, whatever the manager.
//!
//! A pool matters only if requests reach it. When the stack's nginx passes requests to
//! php-fpm, the pool is judged only if one of those `fastcgi_pass` addresses is its `listen`:
//! a one-worker pool nothing routes to (a role's stand-in for the stock `www.conf`, with its
//! socket named at deployment) serves no one. Without nginx in the stack (a pool file linted
//! alone), the pool is judged. Every nginx file counts, loaded or not: an installer enables
//! its vhosts at deployment.

use crate::rules::{Context, Rule};
use crate::stack::instances::PoolView;

declare_rule! {
    pub struct SingleWorkerPool;
    code: FPM105,
    name: "single-worker-pool",
    lang: fpm,
    category: Reliability,
    severity: Warning,
    fix: None,
    group: Default,
}

impl Rule for SingleWorkerPool {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in cx.fpm_instances() {
            for pool in &inst.pools {
                check_pool(cx, pool);
            }
        }
    }
}

/// Whether requests can reach the pool: no nginx in the stack passes to php-fpm (nothing
/// says they cannot), or a `fastcgi_pass` address is the pool's `listen`.
fn may_get_requests(cx: &Context<'_>, pool: &PoolView<'_>) -> bool {
    use crate::analysis::stack_links::reaches;
    use crate::stack::fpm::Listen;
    // Every nginx file of the stack, the vhosts an installer enables included.
    let targets: Vec<_> = cx
        .stack
        .nginx
        .iter()
        .map(crate::stack::net::fastcgi_targets)
        .collect();
    if targets.iter().all(|t| t.iter().next().is_none()) {
        return true;
    }
    let Some(listen) = pool
        .get("listen")
        .filter(|l| l.known)
        .and_then(|l| Listen::parse(&l.text))
    else {
        return false;
    };
    targets
        .iter()
        .any(|ts| ts.iter().any(|t| reaches(&t.addr, &listen)))
}

fn check_pool(cx: &mut Context<'_>, pool: &PoolView<'_>) {
    let Some(v) = pool.get("pm.max_children") else {
        return;
    };
    if v.int() != Some(1) || !may_get_requests(cx, pool) {
        return;
    }
    let message = format!(
        "[pool {}] pm.max_children = 1: the pool serves one request at a time, so a single \
         slow request makes every other visitor wait (504 after fastcgi_read_timeout, 502 \
         when the backlog fills)",
        pool.name
    );
    let d = cx.report(v.at.file(), v.span(), message);
    d.help = Some(
        "Size the pool from memory: (memory − reserve) / memory per worker; `lemplint tune \
         --cpus N --memory SIZE` computes it and shows the diff."
            .into(),
    );
}
