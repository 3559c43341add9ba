//! STK005 open-files-exceed-kernel: nginx's `worker_rlimit_nofile` beyond what the kernel
//! allows.
//!
//! * Above `fs.nr_open` (default 1048576, "the maximum number of file-handles a process can
//!   allocate"), setrlimit(RLIMIT_NOFILE) fails with EPERM (getrlimit(2)): each worker logs
//!   `setrlimit(RLIMIT_NOFILE, N) failed (1: Operation not permitted)` and keeps the limit it
//!   inherited, usually 1024, far below what `worker_connections` was sized for.
//! * What nginx's workers can open at full load above `fs.file-max` (the system-wide table):
//!   `worker_processes` × the descriptors a worker needs at `worker_connections` (two per
//!   connection, the sizing model's arithmetic that NGX007 and `tune` use), or its limit when
//!   that is lower. When the table fills every process on the host gets ENFILE (`VFS:
//!   file-max limit N reached`). `fs.file-max` scales with memory, so only an explicit value
//!   is judged.
//!
//! As for the other kernel rules, a stack without sysctl files says nothing about the
//! server's settings, and is not judged. `worker_processes auto` counts the host's CPUs when
//! `[host] cpus` is known, else at least one.

use crate::analysis::stack_links::{kernel_setting, sysctl_number};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::expanded::View;
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
}

/// The main-context occurrence of `name` that applies (the last one) with its arguments.
fn main_directive(view: &View<'_>, name: &'static str) -> Option<(u32, Vec<String>)> {
    let occ = view
        .named(name)
        .filter(|&o| view.context(o).is_empty())
        .last()?;
    Some((occ, view.args(occ).iter().map(|a| a.to_string()).collect()))
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
            let view = inst.view();
            let rlimit = main_directive(&view, "worker_rlimit_nofile").and_then(|(occ, args)| {
                let limit = args.first().and_then(|a| a.parse::<u64>().ok())?;
                Some((occ, limit))
            });
            if let Some((occ, limit)) = rlimit {
                let Some((file, span)) = crate::analysis::stack_links::arg_place(&view, occ, 0)
                else {
                    continue;
                };
                if limit > nr_open.value {
                    let d = cx.report(
                        &file,
                        span,
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
                    let o = view.expanded.get(occ);
                    let f = view.config.file(o.file);
                    if let Some(w) = f.parsed.tree.args(view.directive(occ)).first() {
                        d.with_fix(Fix::unsafe_(
                            format!("Lower worker_rlimit_nofile to {}", nr_open.value),
                            vec![edits::replace_arg(&f.source, w, &nr_open.value.to_string())],
                        ));
                    }
                    continue;
                }
            }
            let Some((fm_set, file_max)) = file_max else {
                continue;
            };
            let (workers, workers_text) = match main_directive(&view, "worker_processes") {
                None => (1, "worker_processes 1 (the default)".to_string()),
                Some((_, a)) if a.first().map(String::as_str) == Some("auto") => {
                    match &cx.host.cpus {
                        Some(c) => (
                            u64::from(c.value),
                            format!("worker_processes auto ({} CPUs)", c.value),
                        ),
                        None => (1, "worker_processes auto (at least 1)".to_string()),
                    }
                }
                Some((_, a)) => match a.first().and_then(|n| n.parse::<u64>().ok()) {
                    Some(n) => (n, format!("worker_processes {n}")),
                    None => continue,
                },
            };
            // What a worker can open at full load: two descriptors per connection, up to its
            // open-files limit.
            let events = view.named("events").find(|&o| view.context(o).is_empty());
            let wc = events.and_then(|e| {
                view.expanded
                    .children(e)
                    .find(|&o| view.name(o) == "worker_connections")
            });
            let connections = wc
                .and_then(|o| view.args(o).first().and_then(|a| a.parse::<u64>().ok()))
                .unwrap_or(DEFAULT_CONNECTIONS);
            let limit = rlimit.map_or_else(
                || {
                    cx.host
                        .nofile
                        .as_ref()
                        .map_or(DEFAULT_SOFT_NOFILE, |f| f.value)
                },
                |(_, l)| l,
            );
            let need = worker_descriptors(connections);
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
                format!("{per_worker} descriptors (worker_connections {connections}, two each)")
            };
            let at = rlimit
                .map(|(o, _)| o)
                .or(wc)
                .and_then(|o| crate::analysis::stack_links::arg_place(&view, o, 0));
            let Some((file, span)) = at else {
                continue;
            };
            let fm = crate::analysis::stack_links::KernelSetting {
                value: file_max,
                origin: crate::analysis::stack_links::Origin::Set(fm_set),
            };
            let d = cx.report(
                &file,
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
