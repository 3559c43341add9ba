//! lemplint's own rules: about suppression comments (LINT001, LINT002), and about files that
//! could not be read (LINT003) or were never opened because they lead out of the linted tree
//! (LINT004).
//!
//! LINT001 and LINT002 are produced while suppressions are applied (`crate::suppress`), after
//! every other rule has run, because only then is it known which suppressions silenced
//! something.

use super::{Context, Rule};
use crate::source::{Shared, SourceFile, Span};
use crate::stack::confine::Refusal;
use crate::stack::nginx::LoadProblemKind;

declare_rule! {
    /// LINT001 unused-suppression: a suppression comment that silenced nothing. Reported
    /// while suppressions are applied; the rule itself checks nothing.
    pub struct UnusedSuppression;
    code: LINT001,
    name: "unused-suppression",
    lang: lint,
    category: Style,
    severity: Warning,
    fix: None,
    group: Default,
}

declare_rule! {
    /// LINT002 invalid-suppression: a suppression comment naming no rule. Reported while
    /// suppressions are applied; the rule itself checks nothing.
    pub struct InvalidSuppression;
    code: LINT002,
    name: "invalid-suppression",
    lang: lint,
    category: Style,
    severity: Warning,
    fix: None,
    group: Default,
}

impl Rule for UnusedSuppression {
    fn check(&self, _cx: &mut Context<'_>) {}
}

impl Rule for InvalidSuppression {
    fn check(&self, _cx: &mut Context<'_>) {}
}

/// A place for a finding about a file that has no text to point into.
fn whole_file(path: &std::path::Path) -> Shared {
    Shared::new(SourceFile::new(path, Vec::new()))
}

declare_rule! {
    /// LINT003 unreadable-file: a configuration file that was found but could not be read
    /// (permissions, a directory where a file was expected, larger than the size cap).
    pub struct UnreadableFile;
    code: LINT003,
    name: "unreadable-file",
    lang: lint,
    category: Correctness,
    severity: Error,
    fix: None,
    group: Default,
    input_error: true,
}

impl Rule for UnreadableFile {
    fn check(&self, cx: &mut Context<'_>) {
        for u in cx.stack.unreadable.iter().filter(|u| u.refused.is_none()) {
            cx.report(
                &whole_file(&u.path),
                Span::empty(0),
                format!("cannot read {} ({})", u.path.display(), u.why),
            );
        }
    }
}

declare_rule! {
    /// LINT004 path-outside-tree: a path that resolves outside the linted tree (through `..`,
    /// an absolute path or a symlink), or to a secret: never opened, so never quoted.
    pub struct PathOutsideTree;
    code: LINT004,
    name: "path-outside-tree",
    lang: lint,
    category: Security,
    severity: Error,
    fix: None,
    group: Default,
    input_error: true,
}

const HELP: &str = "lemplint reads only inside the tree it lints (the repository, or the paths given), so an untrusted change cannot make it print files of the machine running it; pass --allow-outside DIR for a shared include directory, or lint the live system (`lemplint lint /`)";

fn help(refusal: Refusal) -> &'static str {
    match refusal {
        Refusal::Outside => HELP,
        Refusal::Secret => "version-control metadata (`.git/config` can hold the CI job's token) and credential files (`.env`, `.netrc`) are never configuration; point the include elsewhere",
        Refusal::PseudoFs => "/proc, /sys and /dev hold no configuration (`/proc/self/environ` is the environment of the process reading it)",
    }
}

impl Rule for PathOutsideTree {
    fn check(&self, cx: &mut Context<'_>) {
        for u in &cx.stack.unreadable {
            if let Some(r) = u.refused {
                cx.report(
                    &whole_file(&u.path),
                    Span::empty(0),
                    format!("{} was not read: {}", u.path.display(), r.describe()),
                )
                .help = Some(help(r).into());
            }
        }
        for inst in &cx.stack.nginx {
            for p in &inst.config.problems {
                if let LoadProblemKind::Refused { refusal, .. } = p.kind {
                    let src = inst.config.file(p.file).source.clone();
                    cx.report(&src, p.span, p.message()).help = Some(help(refusal).into());
                }
            }
        }
        for cfg in &cx.stack.fpm {
            for p in &cfg.problems {
                if let Some(r) = p.refused {
                    let src = cfg.files[p.file].source.clone();
                    cx.report(&src, p.span, p.message.clone()).help = Some(help(r).into());
                }
            }
        }
    }
}
