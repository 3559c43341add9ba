//! What a rule sees while it runs: the stack, its options, and where it reports. Findings
//! are kept once per place and message, and at most [`MAX_FINDINGS_PER_FILE`] per file;
//! what several rules derive from one configuration is built once per run and shared.

use super::{Declared, RuleEntry};
use crate::analysis::cursor::Directive;
use crate::analysis::variables::{Provenance, ProvenanceIndex};
use crate::diagnostic::Diagnostic;
use crate::host::HostFacts;
use crate::source::{Shared, Span};
use crate::stack::instances::{instances, Instance};
use crate::stack::model::NginxInstance;
use crate::stack::model::Stack;
use std::sync::{Arc, OnceLock};

pub use crate::diagnostic::MAX_FINDINGS_PER_FILE;

/// The message under which [`Context::claim`] records a place: not a message any rule writes.
const CLAIMED: &str = "\0claimed";

/// What a rule sees while it runs.
pub struct Context<'a> {
    pub stack: &'a Stack,
    pub host: &'a HostFacts,
    /// The rule's `[rules.CODE]` options, parsed when lemplint.toml was loaded.
    options: &'a (dyn std::any::Any + Send + Sync),
    entry: &'static RuleEntry,
    out: Vec<Diagnostic>,
    /// Findings per file so far, by the file's id: how many, and the file.
    per_file: crate::fxhash::FxHashMap<u32, (u32, Shared)>,
    /// Where findings past the cap, and repeated ones, go: overwritten by each, never kept.
    discard: Option<Diagnostic>,
    /// Every (file, span, message) reported so far. A directive reached through two
    /// configurations, or a snippet included in two places, is reported once, without each
    /// rule keeping its own set; different problems at one place (a pool header missing
    /// several settings) are each kept. Files are told apart by path: one file read by two
    /// configurations is one. Messages are kept as hashes.
    reported: crate::fxhash::FxHashSet<(u32, Span, u64)>,
    /// Ids of the files that are not nginx files of the stack ([`FileIds`] numbers those
    /// once for every rule), by the path's bytes.
    path_ids: crate::fxhash::FxHashMap<Box<[u8]>, u32>,
    cache: &'a RunCache<'a>,
}

/// What the rules of one run share, built on first use by whichever rule asks first.
#[derive(Default)]
pub(super) struct RunCache<'a> {
    fpm: OnceLock<Vec<Instance<'a>>>,
    files: OnceLock<FileIds>,
    /// Per nginx configuration (by id): where its variables are defined, built by the first
    /// rule that asks (four rules ask, and each built its own).
    provenance: OnceLock<Box<[OnceLock<Arc<ProvenanceIndex>>]>>,
    /// When files were named, the files whose findings are not shown.
    pub(super) focus: Option<Focus>,
}

/// When `lint` is given files, which findings it will show: those in a named file, or with
/// a label in one. A rule whose finding and labels all lie in files this says are not shown
/// may skip the work of building it (a message, a fix, an explanation); nothing else may
/// depend on it. Files it was not told about are shown.
#[derive(Debug, Default)]
pub struct Focus {
    hidden: crate::fxhash::FxHashSet<Box<[u8]>>,
}

impl Focus {
    /// Marks `file` as not shown, unless a file of the same path was said to be shown.
    pub fn hide(&mut self, file: &crate::source::SourceFile) {
        use std::os::unix::ffi::OsStrExt;
        self.hidden.insert(file.path.as_os_str().as_bytes().into());
    }

    /// Marks `file`'s path as shown, whatever [`Focus::hide`] said of it.
    pub fn show(&mut self, file: &crate::source::SourceFile) {
        use std::os::unix::ffi::OsStrExt;
        self.hidden.remove(file.path.as_os_str().as_bytes());
    }

    /// Whether a finding or label in `file` may be shown.
    pub fn shows(&self, file: &crate::source::SourceFile) -> bool {
        use std::os::unix::ffi::OsStrExt;
        !self.hidden.contains(file.path.as_os_str().as_bytes())
    }
}

/// An id per path for every nginx file of the stack (a file two configurations read is two
/// sources, one path, one id): findings are told apart by path. Numbered once per run: each
/// rule that reports in thousands of vhosts numbering them again was a copy of every path
/// per rule. By the path's bytes (hashing a `Path` walks its components, several times
/// slower).
struct FileIds {
    by_path: crate::fxhash::FxHashMap<Box<[u8]>, u32>,
}

impl FileIds {
    fn of(stack: &Stack) -> FileIds {
        let mut by_path = crate::fxhash::FxHashMap::default();
        for inst in &stack.nginx {
            for file in &inst.config.files {
                let next = by_path.len() as u32;
                by_path
                    .entry(path_bytes(&file.source).into())
                    .or_insert(next);
            }
        }
        FileIds { by_path }
    }
}

fn path_bytes(file: &Shared) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    file.path.as_os_str().as_bytes()
}

impl<'a> Context<'a> {
    /// The context `entry` runs in, with its parsed options and the run's shared cache.
    pub(super) fn new(
        stack: &'a Stack,
        options: &'a (dyn std::any::Any + Send + Sync),
        entry: &'static RuleEntry,
        cache: &'a RunCache<'a>,
    ) -> Context<'a> {
        Context {
            stack,
            host: &stack.host,
            options,
            entry,
            out: Vec::new(),
            per_file: Default::default(),
            discard: None,
            reported: Default::default(),
            path_ids: Default::default(),
            cache,
        }
    }

    /// When files were named, which files' findings are shown (see [`Focus`]); `None` when
    /// every finding is.
    pub fn focus(&self) -> Option<&'a Focus> {
        self.cache.focus.as_ref()
    }

    /// Every directive named `name` in every nginx configuration of the stack, in order: a
    /// lookup by name, never a tree walk. A file read by two configurations yields its
    /// directives twice; `report` keeps each finding once.
    pub fn nginx_directives(&self, name: &'a str) -> impl Iterator<Item = Directive<'a>> + 'a {
        self.stack
            .nginx
            .iter()
            .flat_map(move |inst| crate::analysis::cursor::named(inst, name))
    }

    /// The stack's php-fpm instances (pools merged per master), built once per run.
    pub fn fpm_instances(&self) -> &'a [Instance<'a>] {
        let stack = self.stack;
        self.cache.fpm.get_or_init(|| instances(stack))
    }

    /// Provenance questions about `inst` (where a variable's value comes from), on the
    /// configuration's index built once per run for every rule that asks.
    pub fn provenance(&self, inst: &'a NginxInstance) -> Provenance<'a> {
        let stack = self.stack;
        let i = inst.id.index();
        // An instance of another stack (none today) gets an index of its own.
        if !stack
            .nginx
            .get(i)
            .is_some_and(|own| std::ptr::eq(own, inst))
        {
            return Provenance::new(inst.view());
        }
        let slots = self
            .cache
            .provenance
            .get_or_init(|| stack.nginx.iter().map(|_| OnceLock::new()).collect());
        let index = slots[i]
            .get_or_init(|| Arc::new(ProvenanceIndex::build(inst.view())))
            .clone();
        Provenance::with_index(inst.view(), index)
    }

    /// The nginx release `[host] nginx` names, when it gives one that parses.
    pub fn nginx_version(&self) -> Option<crate::analysis::tls_settings::NginxVersion> {
        let fact = self.host.nginx.as_ref()?;
        crate::analysis::tls_settings::NginxVersion::parse(&fact.value)
    }
}

impl<'a> Context<'a> {
    /// The running rule's options, as its [`declare_rule!`] typed them: a rule passes
    /// itself (`cx.options(self)`). Asking for another rule's is a defect, reported loudly.
    pub fn options<R: Declared>(&self, _rule: &R) -> &'a R::Options {
        assert_eq!(
            R::DECL.code,
            self.entry.code,
            "a rule reads only its own options"
        );
        self.options
            .downcast_ref()
            .expect("the registry parsed these options with the rule's declared type")
    }

    /// Reports a problem with the rule's code and default severity; returns it so the rule
    /// can add labels, help or a fix.
    pub fn report(
        &mut self,
        file: &Shared,
        span: Span,
        message: impl Into<String>,
    ) -> &mut Diagnostic {
        let d = Diagnostic::new(
            self.entry.id,
            self.entry.severity(),
            file.clone(),
            span,
            message,
        );
        let id = self.file_id(file);
        if !self.first_report(id, span, &d.message) {
            return self.discard.insert(d);
        }
        let (n, _) = self.per_file.entry(id).or_insert_with(|| (0, file.clone()));
        *n += 1;
        if *n > MAX_FINDINGS_PER_FILE {
            return self.discard.insert(d);
        }
        self.out.push(d);
        self.out.last_mut().expect("just pushed")
    }

    /// Whether `message` was not reported at `span` of file `id` yet (and records it).
    fn first_report(&mut self, id: u32, span: Span, message: &str) -> bool {
        let hash = std::hash::BuildHasher::hash_one(
            &std::hash::BuildHasherDefault::<crate::fxhash::FxHasher>::default(),
            message,
        );
        self.reported.insert((id, span, hash))
    }

    /// The id of `file`'s path: the stack's nginx files are numbered once per run
    /// ([`FileIds`]), the others (a pool, a sysctl file) after those, by this rule.
    fn file_id(&mut self, file: &Shared) -> u32 {
        let stack = self.stack;
        let shared = self.cache.files.get_or_init(|| FileIds::of(stack));
        let bytes = path_bytes(file);
        if let Some(&id) = shared.by_path.get(bytes) {
            return id;
        }
        let next = (shared.by_path.len() + self.path_ids.len()) as u32;
        *self.path_ids.entry(bytes.into()).or_insert(next)
    }

    /// The id of `file`'s path, if a finding was reported in it.
    fn known_file_id(&self, file: &Shared) -> Option<u32> {
        let bytes = path_bytes(file);
        let shared = self.cache.files.get()?;
        shared
            .by_path
            .get(bytes)
            .or_else(|| self.path_ids.get(bytes))
            .copied()
    }

    /// Claims a place for the rule's one finding there, whatever its message: false when it
    /// was claimed before. For a rule whose message at one directive depends on the
    /// configuration it was reached through (the pools it was compared with), so that the
    /// first configuration's finding is the one kept.
    pub fn claim(&mut self, file: &Shared, span: Span) -> bool {
        let id = self.file_id(file);
        self.first_report(id, span, CLAIMED)
    }

    /// Whether `file` has reached the cap: what is reported now is only counted, so a rule
    /// may skip work it would spend on the finding (a suggestion, a fix).
    pub fn is_full(&self, file: &Shared) -> bool {
        self.known_file_id(file)
            .and_then(|id| self.per_file.get(&id))
            .is_some_and(|&(n, _)| n >= MAX_FINDINGS_PER_FILE)
    }

    /// Counts `n` more findings in `file` that an analysis counted without building them
    /// (past the cap, a finding is only counted): they are told in the one finding that says
    /// how many were not shown. For an analysis that stops building findings of a file once
    /// [`MAX_FINDINGS_PER_FILE`] were built.
    pub fn count_more(&mut self, file: &Shared, n: u32) {
        let id = self.file_id(file);
        let (count, _) = self.per_file.entry(id).or_insert_with(|| (0, file.clone()));
        *count = count.saturating_add(n);
    }

    /// One finding per file whose findings passed the cap, saying how many were not shown.
    pub(super) fn finish(mut self) -> Vec<Diagnostic> {
        let mut over: Vec<_> = self
            .per_file
            .iter()
            .filter(|(_, (n, _))| *n > MAX_FINDINGS_PER_FILE)
            .map(|(&id, (n, file))| (id, n - MAX_FINDINGS_PER_FILE, file.clone()))
            .collect();
        over.sort_by_key(|&(id, _, _)| id);
        for (_, more, file) in over {
            let path = path_bytes(&file);
            let last = self
                .out
                .iter()
                .rev()
                .find(|d| path_bytes(&d.file) == path)
                .map_or(Span::empty(0), |d| d.span);
            let code = self.entry.code;
            let d = Diagnostic::new(
                self.entry.id,
                self.entry.severity(),
                file,
                last,
                format!(
                    "{more} more {code} finding{} in this file are not shown (at most {MAX_FINDINGS_PER_FILE} per rule and file)",
                    if more == 1 { "" } else { "s" }
                ),
            );
            self.out.push(d);
        }
        self.out
    }
}
