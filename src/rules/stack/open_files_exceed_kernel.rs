//! STK005 open-files-exceed-kernel: nginx's `worker_rlimit_nofile` beyond what the kernel
//! allows.
//!
//! * Above `fs.nr_open` (default 1048576, "the maximum number of file-handles a process can
//!   allocate"), setrlimit(RLIMIT_NOFILE) fails with EPERM (getrlimit(2)): each worker logs
//!   `setrlimit(RLIMIT_NOFILE, N) failed (1: Operation not permitted)` and keeps the limit it
//!   inherited, usually 1024, far below what `worker_connections` was sized for.
//! * `worker_processes` × `worker_rlimit_nofile` above `fs.file-max` (the system-wide table):
//!   nginx may open more files than the whole system can, and when the table fills every
//!   process on the host gets ENFILE (`VFS: file-max limit N reached`). `fs.file-max` scales
//!   with memory, so only an explicit value is judged.
//!
//! As for the other kernel rules, a stack without sysctl files says nothing about the
//! server's settings, and is not judged. `worker_processes auto` counts the host's CPUs when
//! `[host] cpus` is known, else at least one.

use super::{kernel_setting, sysctl_number};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::expanded::View;

pub struct OpenFilesExceedKernel;

const NR_OPEN_DEFAULT: u64 = 1_048_576;

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
            NR_OPEN_DEFAULT,
            "not set: the kernel default",
        );
        let file_max = sysctl_number(cx.stack, "fs.file-max").flatten();
        let Some(nr_open) = nr_open else { return };
        for inst in cx.stack.nginx.iter().filter(|i| !i.standalone) {
            let view = inst.view();
            let Some((occ, args)) = main_directive(&view, "worker_rlimit_nofile") else {
                continue;
            };
            let Some(limit) = args.first().and_then(|a| a.parse::<u64>().ok()) else {
                continue;
            };
            let Some((file, span)) = super::arg_place(&view, occ, 0) else {
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
            let total = workers.saturating_mul(limit);
            if total <= file_max {
                continue;
            }
            let fm = super::KernelSetting {
                value: file_max,
                origin: super::Origin::Set(fm_set),
            };
            let d = cx.report(
                &file,
                span,
                format!(
                    "{workers_text} × worker_rlimit_nofile {limit} = {total} open files, above \
                     {}: the system-wide file table runs out first, and then every process on \
                     the host fails to open files (ENFILE)",
                    fm.describe(cx.stack, "fs.file-max")
                ),
            );
            if let Some((f, s)) = fm.place(stack) {
                d.label(f, s, "the system-wide ceiling");
            }
            d.help = Some(format!(
                "raise fs.file-max above {total} (the kernel logs `VFS: file-max limit {file_max} \
                 reached`), or lower worker_rlimit_nofile"
            ));
        }
    }
}
