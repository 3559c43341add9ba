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
//! The main-context helpers here are shared with NGX007 (worker-connections-exceed-nofile).

use crate::fix::{edits, Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::{FileId, Shared};
use crate::stack::expanded::{OccId, View, NO_PARENT};
use crate::stack::model::{NginxInstance, Stack};
use crate::stack::net::{fastcgi_targets, Addr};
use crate::syntax::nginx::{Tree, Word, ROOT};

declare_rule! {
    pub struct WorkerProcessesMismatch;
    code: NGX005,
    name: "worker-processes-mismatch",
    lang: nginx,
    category: Performance,
    severity: Warning,
    fix: Always,
    needs_host: true,
}

impl Rule for WorkerProcessesMismatch {
    fn check(&self, cx: &mut Context<'_>) {
        let Some(cpus) = cx.host.cpus.as_ref().map(|f| f.value) else {
            return;
        };
        for inst in &cx.stack.nginx {
            if !is_main_config(inst) {
                continue;
            }
            let view = inst.view();
            match main_directive(&view, "worker_processes") {
                Some(occ) => check_value(cx, inst, occ, cpus),
                None if cpus > 1 => report_unset(cx, inst, cpus),
                None => {}
            }
        }
    }
}

/// Judges `worker_processes N`.
fn check_value(cx: &mut Context<'_>, inst: &NginxInstance, occ: OccId, cpus: u32) {
    let (file, _, args) = occurrence_args(inst, occ);
    let [arg] = args else { return };
    let Ok(workers) = arg.text(&file.text).parse::<u32>() else {
        return; // `auto`, or a value nginx itself rejects
    };
    let php = php_on_host(cx.stack, inst);
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
        vec![edits::replace_arg(&file, arg, "auto")],
    );
    let d = cx.report(&file, arg.raw(), message).with_fix(fix);
    d.help = Some(format!(
        "`auto` starts one worker per CPU ({cpus} here) and follows the host if it is resized"
    ));
}

/// `worker_processes` is not set: nginx starts one worker.
fn report_unset(cx: &mut Context<'_>, inst: &NginxInstance, cpus: u32) {
    let view = inst.view();
    let Some(events) = main_directive(&view, "events") else {
        return;
    };
    let (file, span) = view.location(events);
    let edit = insert_in_main(inst, &["user", "pid"], "worker_processes auto;");
    let fix = Fix::unsafe_("Add `worker_processes auto;`", vec![edit]);
    let d = cx
        .report(
            &file,
            span,
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
pub(super) fn php_on_host(stack: &Stack, inst: &NginxInstance) -> bool {
    stack.pools().next().is_some()
        || fastcgi_targets(inst)
            .iter()
            .any(|t| matches!(t.addr, Addr::Unix(_)) || t.addr.is_loopback_tcp())
}

/// A main configuration: an `nginx.conf` entry point with an `events` block in its main
/// context. Snippets and vhosts linted on their own are not, and neither is a configuration
/// with `master_process off` (a development mode: one process, no workers to size or bind).
pub(super) fn is_main_config(inst: &NginxInstance) -> bool {
    if inst.standalone {
        return false;
    }
    let view = inst.view();
    if main_directive(&view, "master_process")
        .is_some_and(|o| view.args(o).first().is_some_and(|a| a == "off"))
    {
        return false;
    }
    let main = inst.config.file(FileId(0));
    main.source
        .path
        .file_name()
        .is_some_and(|n| n == "nginx.conf")
        && main_directive(&inst.view(), "events").is_some()
}

/// The first occurrence of `name` in the main context (through includes).
pub(super) fn main_directive(view: &View<'_>, name: &str) -> Option<OccId> {
    view.expanded
        .children(NO_PARENT)
        .find(|&o| view.name(o) == name)
}

/// The file, tree and argument words of an occurrence.
pub(super) fn occurrence_args(inst: &NginxInstance, occ: OccId) -> (Shared, &Tree, &[Word]) {
    let o = inst.expanded.get(occ);
    let f = inst.config.file(o.file);
    let tree = &f.parsed.tree;
    let args = tree
        .directive(o.node)
        .map(|d| tree.args(d))
        .unwrap_or_default();
    (f.source.clone(), tree, args)
}

/// Inserts `statement` in the main context: after the first main-context directive named in
/// `after` (in that order of preference), else after the main file's first top-level simple
/// directive, else at the top of the main file.
pub(super) fn insert_in_main(inst: &NginxInstance, after: &[&str], statement: &str) -> Edit {
    let view = inst.view();
    for name in after {
        if let Some(occ) = main_directive(&view, name) {
            let o = inst.expanded.get(occ);
            let f = inst.config.file(o.file);
            return edits::insert_after(&f.source, &f.parsed.tree, o.node, statement);
        }
    }
    let main = inst.config.file(FileId(0));
    let tree = &main.parsed.tree;
    let first_simple = tree.children(ROOT).find(|&n| {
        tree.directive(n)
            .is_some_and(|d| d.block().is_none() && d.semicolon().is_some())
    });
    match first_simple {
        Some(n) => edits::insert_after(&main.source, tree, n, statement),
        None => edits::insert_at_block_start(&main.source, tree, ROOT, statement),
    }
}
