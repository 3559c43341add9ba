//! The main context of an nginx configuration, as the rules about the process model
//! (`worker_processes`, `worker_cpu_affinity`, `worker_connections`) read it: which
//! configurations are main ones, their main-context directives, and where to add one.

use crate::analysis::cursor::{self, Directive};
use crate::fix::{edits, Edit};
use crate::source::FileId;
use crate::stack::model::{NginxInstance, Stack};
use crate::syntax::nginx::ROOT;

/// A main configuration: an `nginx.conf` entry point with an `events` block in its main
/// context. Snippets and vhosts linted on their own are not, and neither is a configuration
/// with `master_process off` (a development mode: one process, no workers to size or bind).
#[derive(Clone, Copy)]
pub struct MainConfig<'a> {
    inst: &'a NginxInstance,
}

/// See [`MainConfig::cached_files`].
pub fn cached_files(inst: &NginxInstance) -> u64 {
    cursor::named(inst, "open_file_cache")
        .flat_map(|d| d.args())
        .filter_map(|a| a.value().strip_prefix("max=")?.parse::<u64>().ok())
        .fold(0, u64::saturating_add)
}

/// The stack's main configurations, in the stack's order.
pub fn main_configs(stack: &Stack) -> impl Iterator<Item = MainConfig<'_>> {
    stack
        .nginx
        .iter()
        .map(|inst| MainConfig { inst })
        .filter(|m| m.is_main())
}

impl<'a> MainConfig<'a> {
    fn is_main(self) -> bool {
        if self.inst.standalone {
            return false;
        }
        if self
            .directive("master_process")
            .and_then(|d| d.arg(0))
            .is_some_and(|a| a.value() == "off")
        {
            return false;
        }
        // An `nginx.conf`, or a file nothing includes with an `events` block: either way
        // what nginx starts from has `events`.
        self.directive("events").is_some()
    }

    /// The configuration, for the analyses that take one whole (`fastcgi_targets`).
    pub fn instance(self) -> &'a NginxInstance {
        self.inst
    }

    /// The first occurrence of `name` in the main context (through includes).
    pub fn directive(self, name: &str) -> Option<Directive<'a>> {
        cursor::top_level(self.inst).find(|d| d.name() == name)
    }

    /// The most descriptors `open_file_cache` can keep open in one worker: the sum of the
    /// `max=` of every `open_file_cache` written (each directive makes a cache of its own;
    /// the levels below share it). `off`, and a `max=` that is not a number, count 0.
    pub fn cached_files(self) -> u64 {
        cached_files(self.inst)
    }

    /// Inserts `statement` in the main context: after the first main-context directive
    /// named in `after` (in that order of preference), else after the main file's first
    /// top-level simple directive, else at the top of the main file.
    pub fn insert(self, after: &[&str], statement: &str) -> Edit {
        if let Some(d) = after.iter().find_map(|name| self.directive(name)) {
            return d.insert_after(statement);
        }
        let main = self.inst.config.file(FileId(0));
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
}
