//! FPM107 request-terminate-timeout-unset: a pool without `request_terminate_timeout` (or with
//! `0`) never stops a request, so one that hangs holds its worker for good.
//!
//! `max_execution_time` does not cover it under php-fpm: on Linux PHP arms `ITIMER_PROF`,
//! which counts the CPU time the script uses, and a script blocked on a database, an HTTP API
//! or a lock uses none. nginx gives up after `fastcgi_read_timeout` (60s by default) and the
//! client sees 504, but the worker stays busy; enough of them and every slot of
//! `pm.max_children` is taken (`server reached pm.max_children setting`). php-fpm's own limit,
//! `request_terminate_timeout`, is wall time: it kills the worker and logs the script.
//!
//! Judged like FPM005: only pools that set `pm` (a section without it is a fragment completed
//! elsewhere), and an unset value only when every include of the master was read. No fix:
//! the right limit is the application's longest legitimate request.

use crate::rules::{Context, Rule};
use crate::stack::instances::{value_span, PoolView};

declare_rule! {
    pub struct RequestTerminateTimeoutUnset;
    code: FPM107,
    name: "request-terminate-timeout-unset",
    lang: fpm,
    category: Reliability,
    severity: Info,
    fix: None,
    group: Default,
}

const HELP: &str = "set `request_terminate_timeout` to the longest a request may legitimately \
     take, no longer than nginx's fastcgi_read_timeout (60s by default): php-fpm then ends a hung \
     request and logs the script (`execution timed out`)";

impl Rule for RequestTerminateTimeoutUnset {
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
    let consequence = "a request that hangs on I/O (a database, an API, a lock) holds its worker \
                       until php-fpm restarts; max_execution_time counts CPU time only";
    match pool.get("request_terminate_timeout") {
        Some(v) => {
            let off = crate::syntax::fpm::parse_time(v.text.trim().as_bytes()) == Ok(0);
            let Some(e) = v.entry().filter(|_| v.known && off) else {
                return;
            };
            let msg = format!(
                "[pool {}] request_terminate_timeout = {}: php-fpm never stops a request, so {consequence}",
                pool.name,
                v.text.trim()
            );
            cx.report(v.at.file(), value_span(e), msg).help = Some(HELP.into());
        }
        None if includes_read => {
            let Some(at) = pm.section_header() else {
                return;
            };
            let Some(span) = at.header_span() else { return };
            let msg = format!(
                "[pool {}] request_terminate_timeout is not set: php-fpm never stops a request, so {consequence}",
                pool.name
            );
            cx.report(at.file(), span, msg).help = Some(HELP.into());
        }
        None => {}
    }
}
