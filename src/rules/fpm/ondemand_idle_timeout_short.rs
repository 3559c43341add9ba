//! FPM109 ondemand-idle-timeout-short: `pm = ondemand` with `pm.process_idle_timeout` of one or
//! two seconds, so workers exit as soon as a request ends (0 is refused by php-fpm: FPM001).
//!
//! An ondemand pool forks a worker when a request finds none idle, and a worker that has
//! been idle for `pm.process_idle_timeout` (default 10s) exits. At a second or two nearly
//! every request after a pause of a second pays for a fork and a cold start of PHP (the
//! extensions' startup, and OPcache's shared memory is kept but the per-process caches are
//! not), and a burst makes php-fpm fork many workers at once. The default, or a minute on a
//! pool that is rarely used, keeps the memory saving ondemand is chosen for.

use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::instances::PoolView;
use crate::syntax::fpm;

declare_rule! {
    pub struct OndemandIdleTimeoutShort;
    code: FPM109,
    name: "ondemand-idle-timeout-short",
    lang: fpm,
    category: Performance,
    severity: Info,
    fix: Always,
    group: Default,
}

impl Rule for OndemandIdleTimeoutShort {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in cx.fpm_instances() {
            for pool in &inst.pools {
                check_pool(cx, pool);
            }
        }
    }
}

fn check_pool(cx: &mut Context<'_>, pool: &PoolView<'_>) {
    let ondemand = pool
        .get("pm")
        .filter(|v| v.known)
        .is_some_and(|v| fpm::parse_pm(v.text.as_bytes()) == Ok(fpm::Pm::Ondemand));
    let Some(v) = pool.get("pm.process_idle_timeout").filter(|v| v.known) else {
        return;
    };
    let Ok(secs) = fpm::parse_time(v.text.trim().as_bytes()) else {
        return;
    };
    let Some(e) = v.entry().filter(|_| ondemand && (1..=2).contains(&secs)) else {
        return;
    };
    let message = format!(
        "[pool {}] pm.process_idle_timeout = {}: an ondemand worker exits {secs}s after its \
         request, so almost every request after a pause forks and starts PHP again",
        pool.name,
        v.text.trim(),
    );
    let d = cx.report(v.at.file(), v.span(), message);
    d.help = Some(
        "keep idle workers for a while: php-fpm's default is 10s; on a rarely used pool a \
         minute still frees the memory"
            .into(),
    );
    d.with_fix(Fix::unsafe_(
        "Set pm.process_idle_timeout = 10s",
        vec![edits::replace_fpm_value(v.at.file(), e, "10s")],
    ));
}
