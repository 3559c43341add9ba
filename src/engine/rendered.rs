//! Findings in files rendered from a template (see [`crate::syntax::render`]) are shown in
//! the template: at its line and column, in its text, with a label on each placeholder the
//! finding rests on saying the value it was given and where that came from. A fix moves to
//! the template too, unless it would edit a placeholder (the value belongs to whoever
//! declared it, not to the template).

use crate::diagnostic::{Diagnostic, Label};
use crate::source::{Shared, Span};

/// The template's file and span of `span` in `file`, when `file` was rendered.
pub fn to_template(file: &Shared, span: Span) -> Option<(Shared, Span)> {
    let r = file.rendered.as_ref()?;
    Some((r.template.clone(), r.to_template(span)))
}

/// Labels naming the value each placeholder under `span` was rendered with.
fn value_labels(file: &Shared, span: Span) -> Vec<Label> {
    let Some(r) = file.rendered.as_ref() else {
        return Vec::new();
    };
    // The placeholders on the finding's lines: a value beside the span can be what it
    // is about (`listen {{ port }} ssl` reported at the directive).
    let first = file.line_start(file.line_of(span.start));
    let last = file.line_start(file.line_of(span.end) + 1);
    r.subs_in(Span::new(first, last.saturating_sub(1).max(first)))
        .map(|s| Label {
            file: r.template.clone(),
            span: s.template,
            text: format!(
                "`{}` is `{}` here (from {})",
                s.placeholder,
                s.value,
                crate::escape::text(&s.origin)
            ),
        })
        .collect()
}

/// Moves every finding, label and fix in a rendered file to its template.
pub fn apply(diagnostics: &mut [Diagnostic]) {
    for d in diagnostics.iter_mut() {
        let mut notes = value_labels(&d.file, d.span);
        if let Some((file, span)) = to_template(&d.file, d.span) {
            d.file = file;
            d.span = span;
        }
        for l in d.labels.iter_mut() {
            notes.extend(value_labels(&l.file, l.span));
            if let Some((file, span)) = to_template(&l.file, l.span) {
                l.file = file;
                l.span = span;
            }
        }
        for n in notes {
            let dup = d
                .labels
                .iter()
                .any(|l| l.span == n.span && l.file.path == n.file.path);
            if !dup {
                d.labels.push(n);
            }
        }
        let edits_value = d.fix.as_ref().is_some_and(|f| {
            f.edits.iter().any(|e| {
                e.file
                    .rendered
                    .as_ref()
                    .is_some_and(|r| r.subs_in(e.range).next().is_some())
            })
        });
        if edits_value {
            d.fix = None;
        } else if let Some(f) = d.fix.as_mut() {
            for e in f.edits.iter_mut() {
                if let Some((file, range)) = to_template(&e.file, e.range) {
                    e.file = file;
                    e.range = range;
                }
            }
        }
    }
}
