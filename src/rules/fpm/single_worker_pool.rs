//! FPM105 single-worker-pool: `pm.max_children = 1`, so the pool serves one request at a
//! time.
//!
//! Every other request waits in the listen backlog behind the one being served: one slow
//! page (a report, an upload, a locked session) stalls the whole site, and nginx answers
//! 504 once `fastcgi_read_timeout` passes, or 502 when the backlog is full. A size of 1 is
//! usually a placeholder left from a template or a development setup; `lemplint tune`
//! derives a size from the memory. Pools whose manager is unknown are still judged: php-fpm
//! never runs more than `pm.max_children` workers, whatever the manager.

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

fn check_pool(cx: &mut Context<'_>, pool: &PoolView<'_>) {
    let Some(v) = pool.get("pm.max_children") else {
        return;
    };
    if v.int() != Some(1) {
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
