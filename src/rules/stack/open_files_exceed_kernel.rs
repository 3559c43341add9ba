//! STK005 open-files-exceed-kernel: nginx's `worker_rlimit_nofile` beyond what the kernel
//! allows.
//!
//! * Above `fs.nr_open` (default 1048576, "the maximum number of file-handles a process can
//!   allocate"), setrlimit(RLIMIT_NOFILE) fails with EPERM (getrlimit(2)): each worker logs
//!   `setrlimit(RLIMIT_NOFILE, N) failed (1: Operation not permitted)` and keeps the limit it
//!   inherited, usually 1024, far below what `worker_connections` was sized for.
//! * What nginx's workers can open at full load above `fs.file-max` (the system-wide table):
//!   `worker_processes` × the descriptors a worker can hold at `worker_connections` (its
//!   connections, clients and upstreams alike, and a file beside each one: the sizing model's
//!   arithmetic that NGX007 and `tune` use), or its limit when that is lower. When the table fills every process on the host gets ENFILE (`VFS:
//!   file-max limit N reached`). `fs.file-max` scales with memory, so only an explicit value
//!   is judged.
//!
//! As for the other kernel rules, a stack without sysctl files says nothing about the
//! server's settings, and is not judged. `worker_processes auto` counts the host's CPUs when
//! `[host] cpus` is known, else at least one.

use crate::analysis::cursor::{self, Directive};
use crate::analysis::nginx_main::cached_files;
use crate::analysis::stack_links::{kernel_setting, sysctl_number};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::model::NginxInstance;
use crate::stack::sizing::{
    worker_descriptors, DEFAULT_CONNECTIONS, DEFAULT_NR_OPEN, DEFAULT_SOFT_NOFILE, DESCRIPTORS_WHY,
};

declare_rule! {
    pub struct OpenFilesExceedKernel;
    code: STK005,
    name: "open-files-exceed-kernel",
    lang: stack,
    category: Reliability,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

/// The main-context occurrence of `name` that applies (the last one).
fn main_directive<'a>(inst: &'a NginxInstance, name: &str) -> Option<Directive<'a>> {
    cursor::named(inst, name)
        .filter(|d| d.parent().is_none())
        .last()
}

/// A directive's first argument as a number.
fn number(d: Directive<'_>) -> Option<u64> {
    d.arg(0)?.value().parse().ok()
}

impl Rule for OpenFilesExceedKernel {
    fn check(&self, cx: &mut Context<'_>) {
        let stack = cx.stack;
        let nr_open = kernel_setting(
            cx.stack,
            "fs.nr_open",
            DEFAULT_NR_OPEN,
            "not set: the kernel default",
        );
        let file_max = sysctl_number(cx.stack, "fs.file-max").flatten();
        let Some(nr_open) = nr_open else { return };
        for inst in cx.stack.nginx.iter().filter(|i| !i.standalone) {
            let rlimit =
                main_directive(inst, "worker_rlimit_nofile").and_then(|d| Some((d, number(d)?)));
            if let Some((rl, limit)) = rlimit {
                let Some(word) = rl.arg(0) else {
                    continue;
                };
                if limit > nr_open.value {
                    let d = cx.report(
                        rl.file(),
                        word.raw(),
                        format!(
                            "worker_rlimit_nofile {limit} is above {}: setrlimit() fails with EPERM \
                             and each worker keeps its inherited open-files limit",
                            nr_open.describe(cx.stack, "fs.nr_open")
                        ),
                    );
                    if let Some((f, s)) = nr_open.place(stack) {
                        d.label(f, s, "the per-process ceiling");
                    }
                    d.help = Some(format!(
                        "nginx logs `setrlimit(RLIMIT_NOFILE, {limit}) failed (1: Operation not \
                         permitted)`; lower worker_rlimit_nofile to at most {} or raise fs.nr_open",
                        nr_open.value
                    ));
                    d.with_fix(Fix::unsafe_(
                        format!("Lower worker_rlimit_nofile to {}", nr_open.value),
                        vec![edits::replace_arg(
                            rl.file(),
                            &word.tree_word(),
                            &nr_open.value.to_string(),
                        )],
                    ));
                    continue;
                }
            }
            let Some((fm_set, file_max)) = file_max else {
                continue;
            };
            let (workers, workers_text) = match main_directive(inst, "worker_processes") {
                None => (1, "worker_processes 1 (the default)".to_string()),
                Some(d) if d.arg(0).is_some_and(|a| a.value() == "auto") => match &cx.host.cpus {
                    Some(c) => (
                        u64::from(c.value),
                        format!("worker_processes auto ({} CPUs)", c.value),
                    ),
                    None => (1, "worker_processes auto (at least 1)".to_string()),
                },
                Some(d) => match number(d) {
                    Some(n) => (n, format!("worker_processes {n}")),
                    None => continue,
                },
            };
            // What a worker can open at full load: its connections, a file beside each one
            // (or what `open_file_cache` keeps open), the logs; up to its open-files limit.
            let events = cursor::named(inst, "events").find(|d| d.parent().is_none());
            let wc = events.and_then(|e| e.children("worker_connections").next());
            let connections = wc.and_then(number).unwrap_or(DEFAULT_CONNECTIONS);
            let limit = rlimit.map_or_else(
                || {
                    cx.host
                        .nofile
                        .as_ref()
                        .map_or(DEFAULT_SOFT_NOFILE, |f| f.value)
                },
                |(_, l)| l,
            );
            let need = worker_descriptors(connections, cached_files(inst));
            let per_worker = need.min(limit);
            let total = workers.saturating_mul(per_worker);
            if total <= file_max {
                continue;
            }
            let each = if per_worker < need {
                match rlimit {
                    Some(_) => format!("{per_worker} descriptors (worker_rlimit_nofile)"),
                    None => format!("{per_worker} descriptors (their open-files limit)"),
                }
            } else {
                format!(
                    "{per_worker} descriptors (worker_connections {connections} and a file beside \
                     each)"
                )
            };
            let at = rlimit.map(|(d, _)| d).or(wc);
            let Some((file, span)) = at.and_then(|d| Some((d.file(), d.arg(0)?.raw()))) else {
                continue;
            };
            let fm = crate::analysis::stack_links::KernelSetting {
                value: file_max,
                origin: crate::analysis::stack_links::Origin::Set(fm_set),
            };
            let d = cx.report(
                file,
                span,
                format!(
                    "{workers_text} × {each} = {total} open files at full load, above {}: the \
                     system-wide file table runs out first, and then every process on the host \
                     fails to open files (ENFILE)",
                    fm.describe(cx.stack, "fs.file-max")
                ),
            );
            if let Some((f, s)) = fm.place(stack) {
                d.label(f, s, "the system-wide ceiling");
            }
            d.help = Some(format!(
                "{DESCRIPTORS_WHY}; raise fs.file-max above {total} (the kernel logs `VFS: \
                 file-max limit {file_max} reached`), or lower worker_connections"
            ));
        }
    }
}
