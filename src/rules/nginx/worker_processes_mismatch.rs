//! NGX005 worker-processes-mismatch: a numeric `worker_processes` that does not fit the
//! host's CPUs.
//!
//! nginx workers are single-threaded event loops: one per CPU lets nginx use the whole
//! machine, fewer leaves CPUs idle for nginx, and more only adds context switches. When
//! PHP-FPM runs on the same host, the CPUs beyond one nginx worker each are what the PHP
//! workers run on. `worker_processes auto` (one per CPU, since nginx 1.3.8) is always right
//! and never fires. An unset `worker_processes` means one worker, which fires on a multi-CPU
//! host. Only main configurations are judged (an `nginx.conf` with an `events` block): a
//! snippet does not set the process model.
//!
//! Info, not a warning: how many workers a site needs depends on its load (one worker in a
//! small container in front of PHP is a deliberate choice, and an idle worker costs no
//! CPU), so it is tuning advice that fails no gate; `lemplint tune` shows the arithmetic.
//!
//! The main-context helpers it shares with NGX006 and NGX007 are in
//! [`crate::analysis::nginx_main`].

use crate::analysis::cursor::Directive;
use crate::analysis::nginx_main::{main_configs, MainConfig};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::model::Stack;
use crate::stack::net::{fastcgi_targets, Addr};

declare_rule! {
    pub struct WorkerProcessesMismatch;
    code: NGX005,
    name: "worker-processes-mismatch",
    lang: nginx,
    category: Performance,
    severity: Info,
    fix: Always,
    group: Default,
    needs_host: true,
}

impl Rule for WorkerProcessesMismatch {
    fn check(&self, cx: &mut Context<'_>) {
        let Some(cpus) = cx.host.cpus.as_ref().map(|f| f.value) else {
            return;
        };
        for main in main_configs(cx.stack) {
            match main.directive("worker_processes") {
                Some(d) => check_value(cx, main, d, cpus),
                None if cpus > 1 => report_unset(cx, main, cpus),
                None => {}
            }
        }
    }
}

/// Judges `worker_processes N`.
fn check_value(cx: &mut Context<'_>, main: MainConfig<'_>, d: Directive<'_>, cpus: u32) {
    let mut args = d.args();
    let (Some(arg), None) = (args.next(), args.next()) else {
        return;
    };
    let Ok(workers) = arg.value().parse::<u32>() else {
        return; // `auto`, or a value nginx itself rejects
    };
    let php = php_on_host(cx.stack, main);
    let cpu_word = if cpus == 1 { "CPU" } else { "CPUs" };
    let message = if workers < cpus {
        format!(
            "`worker_processes {workers}` on a host with {cpus} {cpu_word}: nginx can use only \
             {workers} of them"
        )
    } else if workers > cpus && php {
        format!(
            "`worker_processes {workers}` on a host with {cpus} {cpu_word} that also runs PHP-FPM: \
             the nginx workers beyond one per CPU take CPU time from the PHP workers"
        )
    } else if workers > cpus.saturating_mul(2) {
        format!(
            "`worker_processes {workers}` on a host with {cpus} {cpu_word}: more than two workers \
             per CPU only add context switches"
        )
    } else {
        return;
    };
    let fix = Fix::unsafe_(
        "Set `worker_processes auto` (one worker per CPU)",
        vec![edits::replace_arg(d.file(), &arg.tree_word(), "auto")],
    );
    let d = cx.report(d.file(), arg.raw(), message).with_fix(fix);
    d.help = Some(format!(
        "`auto` starts one worker per CPU ({cpus} here) and follows the host if it is resized"
    ));
}

/// `worker_processes` is not set: nginx starts one worker.
fn report_unset(cx: &mut Context<'_>, main: MainConfig<'_>, cpus: u32) {
    let Some(events) = main.directive("events") else {
        return;
    };
    let edit = main.insert(&["user", "pid"], "worker_processes auto;");
    let fix = Fix::unsafe_("Add `worker_processes auto;`", vec![edit]);
    let d = cx
        .report(
            events.file(),
            events.span(),
            format!(
                "`worker_processes` is not set: nginx runs a single worker on this host with \
                 {cpus} CPUs"
            ),
        )
        .with_fix(fix);
    d.help = Some("nginx's default is 1; `worker_processes auto;` starts one per CPU".into());
}

/// Whether PHP-FPM runs on the same host as this nginx: the stack holds pools, or a
/// `fastcgi_pass` goes to a unix socket or a loopback address.
fn php_on_host(stack: &Stack, main: MainConfig<'_>) -> bool {
    stack.pools().next().is_some()
        || fastcgi_targets(main.instance())
            .iter()
            .any(|t| matches!(t.addr, Addr::Unix(_)) || t.addr.is_loopback_tcp())
}
