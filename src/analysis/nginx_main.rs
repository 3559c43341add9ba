//! The main context of an nginx configuration, as the rules about the process model
//! (`worker_processes`, `worker_cpu_affinity`, `worker_connections`) read it: whether a
//! configuration is a main one, its main-context directives, and where to add one.

use crate::fix::{edits, Edit};
use crate::source::{FileId, Shared};
use crate::stack::expanded::{OccId, View, NO_PARENT};
use crate::stack::model::NginxInstance;
use crate::syntax::nginx::{Tree, Word, ROOT};

/// A main configuration: an `nginx.conf` entry point with an `events` block in its main
/// context. Snippets and vhosts linted on their own are not, and neither is a configuration
/// with `master_process off` (a development mode: one process, no workers to size or bind).
pub fn is_main_config(inst: &NginxInstance) -> bool {
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
pub fn main_directive(view: &View<'_>, name: &str) -> Option<OccId> {
    view.expanded
        .children(NO_PARENT)
        .find(|&o| view.name(o) == name)
}

/// The file, tree and argument words of an occurrence.
pub fn occurrence_args(inst: &NginxInstance, occ: OccId) -> (Shared, &Tree, &[Word]) {
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
pub fn insert_in_main(inst: &NginxInstance, after: &[&str], statement: &str) -> Edit {
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
