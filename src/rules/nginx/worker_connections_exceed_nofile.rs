//! NGX007 worker-connections-exceed-nofile: `worker_connections` that the workers' open-files
//! limit cannot hold.
//!
//! The arithmetic is the sizing model's (`crate::stack::sizing`), the one `tune` and STK005
//! use: a worker at `worker_connections` under load needs two descriptors per connection,
//! since a proxied or FastCGI request holds the client's and the upstream's. The limit is
//! `worker_rlimit_nofile` when set, else the soft limit nginx inherits: `LimitNOFILE=` of
//! nginx's systemd unit when the repository has it, `[host] nofile`, or 1024, a service's
//! usual default. Past the limit `accept()` and `open()` fail with "Too many open files".
//!
//! Severity follows what breaks: a `worker_connections` above the limit can never be reached
//! (warning; nginx logs `N worker_connections exceed open file resource limit: M` at the
//! `warn` level only, below the default `error_log` level); one that fits alone but not at two
//! descriptors each runs out only when nearly every connection is proxied (info).

use crate::analysis::cursor::{Directive, Word};
use crate::analysis::nginx_main::{main_configs, MainConfig};
use crate::diagnostic::Severity;
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::sizing::{
    worker_descriptors, DEFAULT_CONNECTIONS, DEFAULT_NR_OPEN, DEFAULT_SOFT_NOFILE, DESCRIPTORS_WHY,
};

declare_rule! {
    pub struct WorkerConnectionsExceedNofile;
    code: NGX007,
    name: "worker-connections-exceed-nofile",
    lang: nginx,
    category: Reliability,
    severity: Warning,
    fix: Always,
    group: Default,
}

impl Rule for WorkerConnectionsExceedNofile {
    fn check(&self, cx: &mut Context<'_>) {
        let inherited = match &cx.host.nofile {
            Some(f) => (f.value, f.source.to_string()),
            None => (
                DEFAULT_SOFT_NOFILE,
                "the usual soft limit of a service; `LimitNOFILE=` in nginx's unit or `[host] nofile` says otherwise".to_string(),
            ),
        };
        let nr_open = cx
            .stack
            .sysctl
            .effective_u64("fs.nr_open")
            .map_or(DEFAULT_NR_OPEN, |(_, v)| v);
        for main in main_configs(cx.stack) {
            check_instance(cx, main, &inherited, nr_open);
        }
    }
}

/// `inherited` is the open-files limit workers start with, and how it is known.
fn check_instance(
    cx: &mut Context<'_>,
    main: MainConfig<'_>,
    (soft, soft_why): &(u64, String),
    nr_open: u64,
) {
    let soft = *soft;
    let Some(events) = main.directive("events") else {
        return;
    };
    let wc = events.children("worker_connections").next();
    let connections = match wc {
        Some(d) => {
            let Some(n) = only_arg(d).and_then(|a| a.value().parse::<u64>().ok()) else {
                return;
            };
            n
        }
        None => DEFAULT_CONNECTIONS,
    };
    let need = worker_descriptors(connections);
    let wanted = need.min(nr_open);
    let wc_text = match wc {
        Some(_) => format!("`worker_connections {connections}`"),
        None => format!("the default `worker_connections` ({connections})"),
    };
    match main.directive("worker_rlimit_nofile") {
        Some(d) => {
            let Some(arg) = only_arg(d) else { return };
            let Ok(limit) = arg.value().parse::<u64>() else {
                return;
            };
            if limit >= wanted {
                return;
            }
            let (message, severity) = if limit < connections {
                (
                    format!(
                        "`worker_rlimit_nofile {limit}` is below {wc_text}: workers run out of \
                         file descriptors before they reach their connection limit"
                    ),
                    Severity::Warning,
                )
            } else {
                (
                    format!(
                        "`worker_rlimit_nofile {limit}` is below the {need} descriptors {wc_text} \
                         can need: {DESCRIPTORS_WHY}"
                    ),
                    Severity::Info,
                )
            };
            // Never lower a limit: the fix only raises it.
            let value = wanted.max(limit);
            let fix = Fix::unsafe_(
                format!("Raise `worker_rlimit_nofile` to {value}"),
                vec![edits::replace_arg(
                    d.file(),
                    &arg.tree_word(),
                    &value.to_string(),
                )],
            );
            let d = cx.report(d.file(), arg.raw(), message).with_fix(fix);
            d.severity = severity;
            d.help = Some(format!("raise it to {}", advice(connections, wanted)));
        }
        None => {
            if wanted <= soft {
                return;
            }
            let (file, span) = match wc {
                Some(d) => {
                    let Some(arg) = d.arg(0) else { return };
                    (d.file(), arg.raw())
                }
                None => (events.file(), events.span()),
            };
            let value = wanted.max(soft);
            let statement = format!("worker_rlimit_nofile {value};");
            let edit = main.insert(&["worker_processes", "user", "pid"], &statement);
            let fix = Fix::safe(format!("Add `{statement}`"), vec![edit]);
            let (message, severity) = if connections > soft {
                (
                    format!(
                        "{wc_text} exceeds the open-files limit of {soft} that workers inherit \
                         ({soft_why}) and `worker_rlimit_nofile` is not set: past {soft} \
                         descriptors a worker fails with \"Too many open files\""
                    ),
                    Severity::Warning,
                )
            } else {
                (
                    format!(
                        "{wc_text} can need {need} descriptors per worker ({DESCRIPTORS_WHY}), \
                         above the open-files limit of {soft} that workers inherit ({soft_why}), \
                         and `worker_rlimit_nofile` is not set"
                    ),
                    Severity::Info,
                )
            };
            let d = cx.report(file, span, message).with_fix(fix);
            d.severity = severity;
            d.help = Some(format!(
                "set `worker_rlimit_nofile` to {}; nginx itself warns only when \
                 worker_connections alone exceeds the limit, and only at the warn level",
                advice(connections, wanted)
            ));
        }
    }
}

/// The argument of a directive that has exactly one.
fn only_arg(d: Directive<'_>) -> Option<Word<'_>> {
    let mut args = d.args();
    match (args.next(), args.next()) {
        (Some(a), None) => Some(a),
        _ => None,
    }
}

/// The recommended limit, and why.
fn advice(connections: u64, wanted: u64) -> String {
    if worker_descriptors(connections) > wanted {
        format!(
            "{wanted}, the kernel's maximum (`fs.nr_open`); twice `worker_connections` would be \
             refused"
        )
    } else {
        format!("{wanted}, twice `worker_connections`")
    }
}
