//! NGX148 error-log-off: `error_log off;` does not turn the error log off. Unlike
//! `access_log`, nginx's `error_log` has no `off` keyword (ngx_log_set_log knows only
//! `stderr`, `memory:` and `syslog:`), so `off` is a file name: nginx opens `off` relative to
//! its prefix and keeps writing errors there, where nobody looks and nothing rotates it.

use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct ErrorLogOff;
    code: NGX148,
    name: "error-log-off",
    lang: nginx,
    category: Reliability,
    severity: Warning,
    fix: Always,
    group: Default,
}

impl Rule for ErrorLogOff {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("error_log") {
            let Some(target) = d.arg(0) else {
                continue;
            };
            // Case matters for the file name, not for what the author meant.
            if !target.is("off") {
                continue;
            }
            let value = target.value().into_owned();
            // A level already given stays; without one nginx would log at `error`, and a
            // discarded log is cheapest when nginx formats only what is critical.
            let replacement = if d.arg(1).is_some() {
                "/dev/null"
            } else {
                "/dev/null crit"
            };
            let fix = Fix::safe(
                format!("Write `error_log {replacement};`"),
                vec![Edit::replace(d.file(), target.raw(), replacement)],
            );
            let found = cx.report(
                d.file(),
                target.raw(),
                format!(
                    "`error_log {value}` does not disable the error log: nginx writes it to a file named `{value}` under its prefix (e.g. /usr/share/nginx/{value})"
                ),
            );
            found.help = Some(format!(
                "`error_log` has no `off` switch; to discard errors write `error_log {replacement};`"
            ));
            found.with_fix(fix);
        }
    }
}
