//! NGX007 worker-connections-exceed-nofile: `worker_connections` that the workers' open-files
//! limit cannot hold.
//!
//! The arithmetic is the sizing model's (`crate::stack::sizing`), the one `tune` and STK005
//! use. `worker_connections` counts every socket a worker holds, upstream connections
//! included (nginx answers "worker_connections are not enough" when the upstream connection
//! does not fit, tests/descriptors_binary.rs); the files a worker opens are descriptors beside them.
//! So a worker needs its connections, at least 8 fixed descriptors (logs, the event queue,
//! stdio: measured), and room for the files it sends and the temp files it buffers. The limit is
//! `worker_rlimit_nofile` when set, else the soft limit nginx inherits: `LimitNOFILE=` of
//! nginx's systemd unit when the repository has it, `[host] nofile`, or 1024, a service's
//! usual default. Past the limit `accept()` and `open()` fail with "Too many open files".
//!
//! Severity follows what breaks: when the connections and the fixed descriptors do not fit,
//! `worker_connections` can never be reached (warning; nginx itself logs `N
//! worker_connections exceed open file resource limit: M` only when the connections alone do
//! not fit, and only at the `warn` level, below the default `error_log` level). When they fit
//! but leave fewer descriptors for files than `open_file_cache` keeps open, or than one for
//! every ten connections, the worker runs out at a traffic mix lemplint cannot see (info).
//! With more room than that, how many files are open at once is the traffic's business:
//! silent.

use crate::analysis::cursor::{Directive, Word};
use crate::analysis::nginx_main::{main_configs, MainConfig};
use crate::diagnostic::Severity;
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::sizing::{
    shortfall, worker_descriptors, Shortfall, DEFAULT_CONNECTIONS, DEFAULT_NR_OPEN,
    DEFAULT_SOFT_NOFILE, FILES_PER_CONNECTIONS, WORKER_FIXED_DESCRIPTORS,
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
            Some(f) => (f.value, f.source.to_string(), false),
            None => (
                DEFAULT_SOFT_NOFILE,
                "the usual soft limit of a service; `LimitNOFILE=` in nginx's unit or `[host] nofile` says otherwise".to_string(),
                true,
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

/// `inherited` is the open-files limit workers start with, how it is known, and whether it is
/// only the usual default (nothing in the repository or the host facts says).
fn check_instance(
    cx: &mut Context<'_>,
    main: MainConfig<'_>,
    (soft, soft_why, guessed): &(u64, String, bool),
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
    let cached = main.cached_files();
    let wanted = worker_descriptors(connections, cached).min(nr_open);
    let wc_text = match wc {
        Some(_) => format!("`worker_connections {connections}`"),
        None => format!("the default `worker_connections` ({connections})"),
    };
    let help = advice(connections, cached, wanted);
    match main.directive("worker_rlimit_nofile") {
        Some(d) => {
            let Some(arg) = only_arg(d) else { return };
            let Ok(limit) = arg.value().parse::<u64>() else {
                return;
            };
            let Some(short) = shortfall(connections, cached, limit) else {
                return;
            };
            let (message, severity) = describe(
                short,
                &format!("`worker_rlimit_nofile {limit}`"),
                &wc_text,
                connections,
                cached,
            );
            // Never lower a limit: the fix only raises it, and there is none when the limit
            // is already the kernel's maximum.
            let value = wanted.max(limit);
            let fix = (value > limit).then(|| {
                Fix::unsafe_(
                    format!("Raise `worker_rlimit_nofile` to {value}"),
                    vec![edits::replace_arg(
                        d.file(),
                        &arg.tree_word(),
                        &value.to_string(),
                    )],
                )
            });
            let d = cx.report(d.file(), arg.raw(), message);
            if let Some(fix) = fix {
                d.with_fix(fix);
            }
            d.severity = severity;
            d.help = Some(format!("raise it to {help}"));
        }
        None => {
            // A limit nothing states (a container's runtime often starts nginx with far more
            // than 1024) is judged only when the connections alone exceed it.
            if *guessed && connections <= soft {
                return;
            }
            let Some(short) = shortfall(connections, cached, soft) else {
                return;
            };
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
            let limit_text = format!(
                "the open-files limit of {soft} that workers inherit ({soft_why}; \
                 `worker_rlimit_nofile` is not set)"
            );
            let (message, severity) = describe(short, &limit_text, &wc_text, connections, cached);
            let d = cx.report(file, span, message).with_fix(fix);
            d.severity = severity;
            d.help = Some(format!(
                "set `worker_rlimit_nofile` to {help}; nginx itself warns only when \
                 worker_connections alone exceeds the limit, and only at the warn level"
            ));
        }
    }
}

/// The message and severity of a shortfall of `limit` (already described) at `wc_text`.
fn describe(
    short: Shortfall,
    limit: &str,
    wc_text: &str,
    connections: u64,
    cached: u64,
) -> (String, Severity) {
    match short {
        Shortfall::Connections => (
            format!(
                "{limit} leaves no room beside {wc_text}: a worker also holds at least \
                 {WORKER_FIXED_DESCRIPTORS} descriptors that are not connections (its logs, the \
                 event queue, stdio), so `accept()` fails with \"Too many open files\" before \
                 it reaches its connection limit"
            ),
            Severity::Warning,
        ),
        Shortfall::Files { room } => {
            let why = if room < cached {
                format!(
                    "fewer than the {cached} open files `open_file_cache` may keep (one per \
                     cached file the site serves within `inactive`)"
                )
            } else {
                format!(
                    "fewer than one for every {FILES_PER_CONNECTIONS} connections: a worker \
                     runs out when more than {room} of its {connections} connections send a \
                     file or buffer a body to a temp file at once"
                )
            };
            (
                format!(
                    "{limit} leaves {room} descriptors beside {wc_text} and the worker's logs \
                     for the files it opens, {why}"
                ),
                Severity::Info,
            )
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
fn advice(connections: u64, cached: u64, wanted: u64) -> String {
    let from_cache = cached + WORKER_FIXED_DESCRIPTORS > connections;
    let files = if from_cache {
        format!(
            "the {cached} files `open_file_cache` may keep open and {WORKER_FIXED_DESCRIPTORS} for \
             logs and the event queue"
        )
    } else {
        "as many again for files (each connection may send one or buffer a body to a temp \
         file; `worker_connections` already counts upstream connections)"
            .to_string()
    };
    if worker_descriptors(connections, cached) > wanted {
        format!(
            "{wanted}, the kernel's maximum (`fs.nr_open`); {connections} connections and \
             {files} would be refused"
        )
    } else if from_cache {
        format!("{wanted}: {connections} connections and {files}, or lower `open_file_cache max=`")
    } else {
        format!("{wanted}: {connections} connections and {files}")
    }
}
