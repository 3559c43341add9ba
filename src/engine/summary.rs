//! What a run looked at and found, counted for the closing summary line and the machine
//! formats.

use crate::diagnostic::{Diagnostic, Severity};

/// What the run looked at, for the closing summary line and machine formats.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Summary {
    /// Files read.
    pub files: usize,
    pub stacks: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    /// Findings that the fixer could fix (safe fixes), and with `--unsafe-fixes`.
    pub fixable: usize,
    pub unsafe_fixable: usize,
    /// Host facts used, one "name: value (source)" line each.
    pub host: Vec<String>,
    /// Rules skipped because they need host facts and none were given.
    pub skipped_for_host: Vec<String>,
    /// Templates rendered with known values, one "file: N values from …" line each (see
    /// [`crate::syntax::render`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rendered: Vec<String>,
    /// The repository root that the code-scanning formats (`sarif`, `gitlab`) and the
    /// baseline make paths relative to: the git work tree above the linted paths, set by
    /// the command line (`None`: the current directory). Not part of the JSON contract.
    #[serde(skip)]
    pub root: Option<std::path::PathBuf>,
}

impl Summary {
    /// Notes each rendered file of `stack`: how many placeholders got a value, and from where.
    pub fn note_rendered(&mut self, stack: &crate::stack::model::Stack) {
        for (source, _, _) in stack.sources() {
            let Some(r) = source.rendered.as_ref() else {
                continue;
            };
            let mut origins: Vec<String> = Vec::new();
            for s in &r.subs {
                let o = crate::escape::text(&s.origin).into_owned();
                if !origins.contains(&o) {
                    origins.push(o);
                }
            }
            let line = format!(
                "{}: {} value{} from {}",
                crate::escape::path(&source.path),
                r.subs.len(),
                if r.subs.len() == 1 { "" } else { "s" },
                origins.join(", ")
            );
            if !self.rendered.contains(&line) {
                self.rendered.push(line);
            }
        }
    }

    /// Counts anew after findings were left out.
    pub fn recount(&mut self, diagnostics: &[Diagnostic]) {
        (self.errors, self.warnings, self.infos) = (0, 0, 0);
        (self.fixable, self.unsafe_fixable) = (0, 0);
        self.count(diagnostics);
    }

    /// Counts findings by severity, and the fixes `lemplint fix` would apply: not those that
    /// edit a file `fix` refuses to write because it does not parse (see
    /// [`crate::rules::blocks_fixes`]), so the number announced is the number fixed.
    pub fn count(&mut self, diagnostics: &[Diagnostic]) {
        use crate::fix::Applicability;
        let unfixable: std::collections::HashSet<&std::path::Path> = diagnostics
            .iter()
            .filter(|d| crate::rules::blocks_fixes(d.code))
            .map(|d| d.file.path.as_path())
            .collect();
        for d in diagnostics {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Info => self.infos += 1,
            }
            let fix = d.fix.as_ref().filter(|f| {
                f.edits
                    .iter()
                    .all(|e| !unfixable.contains(e.file.path.as_path()) && e.file.member.is_none())
            });
            match fix.map(|f| f.applicability) {
                Some(Applicability::Safe) => self.fixable += 1,
                Some(Applicability::Unsafe) => self.unsafe_fixable += 1,
                _ => {}
            }
        }
    }
}
