//! Findings and fixes about placeholders a deployment fills in (holes, see
//! [`crate::syntax::template`]): a finding on a hole's line may be about the placeholder's
//! text or depend on its value, which is unknown here, so it is dropped; a fix that would
//! edit a hole's line is withheld, so the installer's `sed` or the template engine still
//! finds what it replaces.

use crate::diagnostic::Diagnostic;
use crate::source::{SourceFile, Span};
use crate::syntax::template;

fn touches(file: &SourceFile, span: Span) -> bool {
    template::touches(&file.holes, &file.text, span)
}

/// Whether the finding lies, or points, at a line that holds a hole, or lies where the
/// template decides what is there (a conditional's body, beside a placeholder that may
/// insert statements).
pub fn on_hole(d: &Diagnostic) -> bool {
    touches(&d.file, d.span)
        || template::unsure_at(&d.file.unsure, d.span)
        || d.labels.iter().any(|l| touches(&l.file, l.span))
}

/// Drops the findings on holes, and the fixes that would edit a hole's line.
///
/// A file lemplint wrote for context (a platform's stock nginx.conf, not in the tree) is
/// treated alike: nothing is reported in it, and no fix edits it.
pub fn apply(diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.retain(|d| !on_hole(d) && !d.file.synthetic);
    for d in diagnostics.iter_mut() {
        let edits_hole = d.fix.as_ref().is_some_and(|f| {
            f.edits
                .iter()
                .any(|e| e.file.synthetic || touches(&e.file, e.range))
        });
        if edits_hole {
            d.fix = None;
        }
    }
}
