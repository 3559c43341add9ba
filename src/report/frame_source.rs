//! The source miette frames a finding from: a file's display text with a line index, made
//! once per file, that hands miette only the lines around a span.
//!
//! miette's own `SourceCode` for a string scans it from the start to find a span's lines,
//! and the display text was made anew for each finding, so the `full` format cost the
//! file's size per finding (999 findings in 12.6 MB: 117 s). Here each request is answered
//! by running miette's scan over a window of the lines it can need (the context asked for,
//! and one more on each side), then numbering the answer as the whole text would have: the
//! frames are byte-identical to those of the whole text.

use crate::escape::{display_text, Shifts};
use crate::source::{Shared, SourceFile};
use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use std::sync::Arc;

pub struct FrameSource {
    /// The name miette prints before the line and column.
    name: String,
    /// The file's display text (see [`display_text`]).
    text: String,
    /// Where each line of `text` starts (`starts[0]` is 0). Display text breaks lines only
    /// at `\n` (a `\r` not before `\n` is shown as a symbol), as miette counts them.
    starts: Vec<usize>,
    /// Lines before the text in the file it sits in (a section of an `nginx -T` dump).
    lines_before: usize,
    /// The display text's offsets of the file's offsets.
    pub shifts: Shifts,
}

impl FrameSource {
    pub fn new(file: &SourceFile) -> FrameSource {
        let (text, shifts) = display_text(&file.text);
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        FrameSource {
            name: crate::escape::path(file.shown_path()),
            text,
            starts,
            lines_before: file.lines_before() as usize,
            shifts,
        }
    }

    /// The 0-based line holding display offset `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }
}

impl SourceCode for FrameSource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let start = span.offset();
        let end = start.saturating_add(span.len());
        let first = self.line_of(start).saturating_sub(before + 1);
        let last = self.line_of(end).saturating_add(after + 2);
        let from = self.starts[first];
        let to = self.starts.get(last).copied().unwrap_or(self.text.len());
        let window = &self.text[from..to];
        let local = SourceSpan::new((start - from).into(), span.len());
        let c = window.read_span(&local, before, after)?;
        // The column miette prints in a frame's header (`file:line:column`) comes from a read
        // without context; miette counts it in bytes of the display text, where `é` is two
        // and a control character's symbol three. Every other format counts characters of
        // the file, and each character of the file is one of the display text (see
        // [`display_text`]): count them here.
        let column = if before == 0 && after == 0 {
            let line_start = self.starts[self.line_of(start)];
            self.text
                .get(line_start..start)
                .map_or(c.column(), |s| s.chars().count())
        } else {
            c.column()
        };
        // Numbered as a scan of the whole text numbers them: `line_count` counts every line
        // break from the start of the text (miette merges two frames by it).
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            c.data(),
            SourceSpan::new((c.span().offset() + from).into(), c.span().len()),
            c.line() + first + self.lines_before,
            column,
            c.line_count() + first,
        )))
    }
}

/// The last file's frame source, kept while its findings are rendered (they come sorted
/// by file).
#[derive(Default)]
pub struct Frames {
    last: Option<(Shared, Arc<FrameSource>)>,
}

impl Frames {
    pub fn of(&mut self, file: &Shared) -> Arc<FrameSource> {
        match &self.last {
            Some((f, s)) if Arc::ptr_eq(f, file) => s.clone(),
            _ => {
                let s = Arc::new(FrameSource::new(file));
                self.last = Some((file.clone(), s.clone()));
                s
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame's header counts columns in characters of the file, as the other formats do:
    /// `é` is one column (miette counted two), a control character one (shown as a symbol).
    #[test]
    fn the_headers_column_counts_characters() {
        let text = "http {\nxx \"\u{e9}\u{e9}\u{e9}\" }\ny \x01\x02 }\n";
        let file = SourceFile::new("t.conf", text.as_bytes().to_vec());
        let source = FrameSource::new(&file);
        for (at, want) in [
            (text.find(" }").unwrap() + 1, 9),
            (text.rfind('}').unwrap(), 5),
        ] {
            let lc = file.line_col(at as u32);
            assert_eq!(lc.column as usize, want + 1);
            let shown = source.shifts.map(at);
            let c = source
                .read_span(&SourceSpan::new(shown.into(), 1), 0, 0)
                .unwrap();
            assert_eq!(c.column() + 1, lc.column as usize, "at {at}");
        }
    }

    /// Every span, with every context, reads as miette reads it from the whole text, but
    /// for the header's column (a read without context), which counts characters from the
    /// line's start: miette counts bytes and also starts a line after a lone `\r`.
    #[test]
    fn windows_read_as_the_whole_text() {
        let text = "a\n\nbb ccc\r\nd\te\n\nlast line\nx";
        let file = SourceFile::new("t.conf", text.as_bytes().to_vec());
        let source = FrameSource::new(&file);
        for start in 0..=text.len() {
            for len in 0..=(text.len() - start).min(12) {
                for (before, after) in [(0, 0), (1, 1), (2, 3)] {
                    let span = SourceSpan::new(start.into(), len);
                    let want = source.text.read_span(&span, before, after);
                    let got = source.read_span(&span, before, after);
                    match (want, got) {
                        (Ok(w), Ok(g)) => {
                            let header = (before, after) == (0, 0);
                            let column = |c: &dyn SpanContents| {
                                if header {
                                    let offset = c.span().offset();
                                    let line_start = source.starts[source.line_of(offset)];
                                    text[line_start..offset].chars().count()
                                } else {
                                    c.column()
                                }
                            };
                            assert_eq!(
                                (w.data(), w.span(), w.line(), column(&*w), w.line_count()),
                                (g.data(), g.span(), g.line(), g.column(), g.line_count()),
                                "{start}+{len} ({before}, {after})"
                            );
                        }
                        (w, g) => assert_eq!(w.is_err(), g.is_err(), "{start}+{len}"),
                    }
                }
            }
        }
    }
}
