//! FPM005 pm-max-requests-unset: `pm.max_requests` is 0 or unset, so php-fpm never recycles
//! a worker. Whatever a worker leaks (extensions, static caches, libraries holding
//! references) stays with it until php-fpm restarts; the pool's memory grows for days and
//! ends in swap or the OOM killer. php-fpm's own documentation names `pm.max_requests` as the
//! workaround for such leaks, and restarting a worker every few hundred requests costs
//! little (a fork and OPcache-warm startup).
//!
//! Only pools that set `pm` are judged: a pool section without it is a fragment completed
//! elsewhere (a Docker image's override file), and a master whose includes could not be read
//! may set `pm.max_requests` there.
//!
//! Fix (unsafe: it changes when workers restart): `pm.max_requests = 500`.

use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::instances::{value_span, PoolView};
use crate::syntax::fpm;

declare_rule! {
    pub struct PmMaxRequestsUnset;
    code: FPM005,
    name: "pm-max-requests-unset",
    lang: fpm,
    category: Reliability,
    severity: Info,
    fix: Always,
    group: Default,
}

const RECOMMENDED: &str = "500";

const HELP: &str = "set `pm.max_requests` (500–1000 is common) so each worker is replaced after \
     that many requests, releasing whatever it leaked";

impl Rule for PmMaxRequestsUnset {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in cx.fpm_instances() {
            for pool in &inst.pools {
                check_pool(cx, pool, inst.includes_read);
            }
        }
    }
}

fn check_pool(cx: &mut Context<'_>, pool: &PoolView<'_>, includes_read: bool) {
    let Some(pm) = pool.get("pm").filter(|v| v.known) else {
        return;
    };
    let Ok(kind) = fpm::parse_pm(pm.text.as_bytes()) else {
        return;
    };
    let lifetime = match kind {
        fpm::Pm::Ondemand => "until it sits idle for pm.process_idle_timeout",
        _ => "until php-fpm restarts",
    };
    match pool.get("pm.max_requests") {
        Some(v) => {
            if v.int() != Some(0) {
                return;
            }
            let Some(e) = v.entry() else { return };
            let fix = Fix::unsafe_(
                format!("Set pm.max_requests = {RECOMMENDED}"),
                vec![edits::replace_fpm_value(v.at.file(), e, RECOMMENDED)],
            );
            let msg = format!(
                "[pool {}] pm.max_requests = 0: workers are never recycled, so what a worker leaks stays with it {lifetime}",
                pool.name
            );
            let d = cx.report(v.at.file(), value_span(e), msg);
            d.help = Some(HELP.into());
            d.with_fix(fix);
        }
        None if includes_read => {
            // Insert next to `pm`, in the section (and file) that defines the pool's manager.
            let Some(at) = pm.section_header() else {
                return;
            };
            let Some(span) = at.header_span() else { return };
            let file = at.file();
            let fix = Fix::unsafe_(
                format!("Add pm.max_requests = {RECOMMENDED}"),
                vec![edits::insert_fpm_entry(
                    file,
                    at.lines(),
                    at.setting.line,
                    "pm.max_requests",
                    RECOMMENDED,
                )],
            );
            let msg = format!(
                "[pool {}] pm.max_requests is not set: workers are never recycled, so what a worker leaks stays with it {lifetime}",
                pool.name
            );
            let d = cx.report(file, span, msg);
            d.help = Some(HELP.into());
            d.with_fix(fix);
        }
        None => {}
    }
}
