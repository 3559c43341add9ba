//! SYS010 inline-comment-in-value: `key = 1024 # note`. sysctl files have no inline
//! comments: the whole rest of the line, note included, is written to the kernel, which
//! rejects it for a number (`Invalid argument`) or stores it for a string.

use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::Span;
use crate::syntax::sysctl::LineKind;

pub struct InlineComment;

/// Where an inline comment starts in a value: a `#` or `;` after a blank.
fn comment_start(value: &[u8]) -> Option<usize> {
    value
        .windows(2)
        .position(|w| (w[0] == b' ' || w[0] == b'\t') && (w[1] == b'#' || w[1] == b';'))
        .map(|p| p + 1)
}

impl Rule for InlineComment {
    fn check(&self, cx: &mut Context<'_>) {
        for f in &cx.stack.sysctl.files {
            let src = &f.source;
            for line in &f.parsed.file.lines {
                let LineKind::Assignment(a) = &line.kind else {
                    continue;
                };
                let value = &src.text[a.value.range()];
                let Some(p) = comment_start(value) else {
                    continue;
                };
                let kept = String::from_utf8_lossy(&value[..p]).trim_end().to_string();
                let comment = String::from_utf8_lossy(&value[p..]).trim_end().to_string();
                let start = a.value.start as usize;
                let comment_span = Span::new((start + p) as u32, a.value.end);
                // Move the note to its own line above, in the file's comment style.
                let nl = crate::fix::edits::line_ending(&src.text);
                let note = format!("#{}{nl}", comment.trim_start_matches(['#', ';']));
                let edits = vec![
                    Edit::insert(src, line.span.start, note),
                    Edit::replace(src, Span::new(a.value.start, a.value.end), kept.clone()),
                ];
                // For a number the current line cannot be applied at all, so the fix only
                // makes it work as meant; for text values it changes what the kernel stores.
                let numeric =
                    !kept.is_empty() && kept.split_whitespace().all(|w| w.parse::<i64>().is_ok());
                let title = "Move the comment to its own line";
                let fix = if numeric {
                    Fix::safe(title, edits)
                } else {
                    Fix::unsafe_(title, edits)
                };
                let key = a.key_text(&src.text);
                cx.report(
                    src,
                    comment_span,
                    format!(
                        "the comment is part of the value: `{key}` is set to {:?}",
                        String::from_utf8_lossy(value)
                    ),
                )
                .with_fix(fix)
                .help = Some(
                    "sysctl files only have whole-line comments (`#` or `;` first on the line)"
                        .into(),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn comment_needs_a_blank_before_it() {
        assert_eq!(super::comment_start(b"1024 # note"), Some(5));
        assert_eq!(super::comment_start(b"|/bin/x %p#1"), None);
        assert_eq!(super::comment_start(b"1 ;x"), Some(2));
    }
}
