//! NGX007 worker-connections-exceed-nofile: `worker_connections` that the workers' open-files
//! limit cannot hold.
//!
//! Every connection a worker holds (client or upstream) is a file descriptor, and so is every
//! file it sends, every request body or response buffered to a temporary file, every cache
//! and log file. Without `worker_rlimit_nofile`, a worker inherits the soft `RLIMIT_NOFILE`
//! nginx was started with (1024 on most systems, `[host] nofile` to say otherwise): a
//! `worker_connections` above it can never be reached, and past the limit `accept()` and
//! `open()` fail with "Too many open files". nginx notices at start
//! (`N worker_connections exceed open file resource limit: M`), but only at the `warn` level,
//! below the default `error_log` level, so the message is usually never seen.
//!
//! With `worker_rlimit_nofile` set, it should leave room for the files besides the
//! connections: at least twice `worker_connections`, capped by the kernel's `fs.nr_open`
//! (setrlimit fails above it).

use super::worker_processes_mismatch::{
    insert_in_main, is_main_config, main_directive, occurrence_args,
};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::model::NginxInstance;

pub struct WorkerConnectionsExceedNofile;

/// nginx's default `worker_connections` (`DEFAULT_CONNECTIONS`, ngx_event.c).
const DEFAULT_CONNECTIONS: u64 = 512;
/// The usual soft open-files limit of a service (systemd's and the kernel's default).
const DEFAULT_SOFT_NOFILE: u64 = 1024;
/// The kernel's default `fs.nr_open`: the highest value setrlimit accepts.
const DEFAULT_NR_OPEN: u64 = 1_048_576;

impl Rule for WorkerConnectionsExceedNofile {
    fn check(&self, cx: &mut Context<'_>) {
        let default_limit = cx.host.nofile.is_none();
        let soft = cx
            .host
            .nofile
            .as_ref()
            .map_or(DEFAULT_SOFT_NOFILE, |f| f.value);
        let nr_open = cx
            .stack
            .sysctl
            .effective_u64("fs.nr_open")
            .map_or(DEFAULT_NR_OPEN, |(_, v)| v);
        for inst in &cx.stack.nginx {
            if is_main_config(inst) {
                check_instance(cx, inst, (soft, default_limit), nr_open);
            }
        }
    }
}

/// `soft` is the inherited open-files limit, with whether it is the assumed default.
fn check_instance(
    cx: &mut Context<'_>,
    inst: &NginxInstance,
    (soft, default_limit): (u64, bool),
    nr_open: u64,
) {
    let view = inst.view();
    let Some(events) = main_directive(&view, "events") else {
        return;
    };
    let wc_occ = view
        .expanded
        .children(events)
        .find(|&o| view.name(o) == "worker_connections");
    let connections = match wc_occ {
        Some(occ) => {
            let (file, _, args) = occurrence_args(inst, occ);
            let [arg] = args else { return };
            let Ok(n) = arg.text(&file.text).parse::<u64>() else {
                return;
            };
            n
        }
        None => DEFAULT_CONNECTIONS,
    };
    let wanted = connections.saturating_mul(2).min(nr_open);
    let wc_text = match wc_occ {
        Some(_) => format!("`worker_connections {connections}`"),
        None => format!("the default `worker_connections` ({connections})"),
    };
    match main_directive(&view, "worker_rlimit_nofile") {
        Some(occ) => {
            let (file, _, args) = occurrence_args(inst, occ);
            let [arg] = args else { return };
            let Ok(limit) = arg.text(&file.text).parse::<u64>() else {
                return;
            };
            if limit >= wanted {
                return;
            }
            let message = if limit < connections {
                format!(
                    "`worker_rlimit_nofile {limit}` is below {wc_text}: workers run out of file \
                     descriptors before they reach their connection limit"
                )
            } else {
                format!(
                    "`worker_rlimit_nofile {limit}` leaves almost no descriptors beyond \
                     {wc_text} for the files, temporary files and logs each worker also opens"
                )
            };
            let fix = Fix::unsafe_(
                format!("Raise `worker_rlimit_nofile` to {wanted}"),
                vec![edits::replace_arg(&file, arg, &wanted.to_string())],
            );
            let d = cx.report(&file, arg.raw(), message).with_fix(fix);
            d.help = Some(format!("raise it to {}", advice(connections, wanted)));
        }
        None => {
            if connections <= soft {
                return;
            }
            let (file, span) = match wc_occ {
                Some(occ) => {
                    let (file, _, args) = occurrence_args(inst, occ);
                    let Some(arg) = args.first() else { return };
                    (file, arg.raw())
                }
                None => view.location(events),
            };
            let statement = format!("worker_rlimit_nofile {wanted};");
            let edit = insert_in_main(inst, &["worker_processes", "user", "pid"], &statement);
            let fix = Fix::safe(format!("Add `{statement}`"), vec![edit]);
            let d = cx
                .report(
                    &file,
                    span,
                    format!(
                        "{wc_text} exceeds the open-files limit of {soft} and \
                         `worker_rlimit_nofile` is not set: past {soft} descriptors a worker \
                         fails with \"Too many open files\""
                    ),
                )
                .with_fix(fix);
            let source = if default_limit {
                format!(
                    "; {soft} is the usual soft limit of a service (give yours with \
                     `[host] nofile`)"
                )
            } else {
                String::new()
            };
            d.help = Some(format!(
                "set `worker_rlimit_nofile` to {}; nginx only logs \"{connections} \
                 worker_connections exceed open file resource limit: {soft}\" at the warn \
                 level{source}",
                advice(connections, wanted)
            ));
        }
    }
}

/// The recommended limit, and why.
fn advice(connections: u64, wanted: u64) -> String {
    if connections.saturating_mul(2) > wanted {
        format!(
            "{wanted}, the kernel's maximum (`fs.nr_open`); twice `worker_connections` would be \
             refused"
        )
    } else {
        format!("{wanted}, twice `worker_connections`")
    }
}
