//! Source files as bytes, spans into them, and line/column lookup.
//!
//! Everything downstream speaks in [`Span`]s (u32 byte offsets). Lines and columns are
//! computed only when a diagnostic is rendered, from the line index built once per file.
//! Sources are bytes, not `String`: nginx reads bytes, and a latin-1 comment must not stop
//! us from linting (or round-tripping) a file.

use std::borrow::Cow;
use std::path::PathBuf;

pub mod template;

/// A half-open byte range `start..end` into one [`SourceFile`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const fn new(start: u32, end: u32) -> Self {
        Span { start, end }
    }

    pub const fn empty(at: u32) -> Self {
        Span { start: at, end: at }
    }

    pub fn len(self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The smallest span covering both.
    pub fn cover(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Index of a file within a [`crate::stack::Files`] set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct FileId(pub u32);

/// A 1-based line and column (column counted in characters of the line, as editors do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LineCol {
    pub line: u32,
    pub column: u32,
}

/// A source shared by the trees, diagnostics and fixes that point into it.
pub type Shared = std::sync::Arc<SourceFile>;

/// What a file on disk was when it was read: a writer checks the file is still this before
/// replacing it, so an edit made meanwhile is never overwritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime: i64,
    pub mtime_nsec: i64,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
}

impl Stamp {
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
            mode: meta.mode(),
            uid: meta.uid(),
            gid: meta.gid(),
        }
    }

    /// The same file, unchanged since: identity, size and modification time agree.
    pub fn same_file_unchanged(&self, now: &Stamp) -> bool {
        (self.dev, self.ino, self.size, self.mtime, self.mtime_nsec)
            == (now.dev, now.ino, now.size, now.mtime, now.mtime_nsec)
    }
}

/// Where a file held inside another sits (see [`SourceFile::member`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The file holding it (the dump).
    pub container: PathBuf,
    /// The path the section names (`/etc/nginx/conf.d/x.conf`).
    pub name: PathBuf,
    /// Lines of the containing file before this one's first byte.
    pub lines_before: u32,
}

/// One configuration file: its path as the user named it, and its exact bytes.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as it should be shown to the user (relative when the user gave it so).
    pub path: PathBuf,
    pub text: Vec<u8>,
    /// The file on disk it was read from (`None`: standard input, a dump, pending edits).
    pub stamp: Option<Stamp>,
    /// The real file, when a symlink in `path` led elsewhere (`sites-enabled/x` →
    /// `sites-available/x`): what code-scanning formats name, since a link cannot be
    /// annotated.
    pub through_link: Option<PathBuf>,
    /// For a file held inside another (a section of an `nginx -T` dump committed to the
    /// repository, whose `path` is the one the section names): the dump, and the lines of it
    /// before this file, so findings are shown at the dump's lines. Such a file is never
    /// written.
    pub member: Option<Member>,
    /// Placeholders a deployment fills in (see [`crate::syntax::template`]), in order: set
    /// by the loader that knows the file's language. A finding on a hole's line is dropped,
    /// and no edit touches one.
    pub holes: Vec<template::Hole>,
    /// Regions whose findings depend on the template (its conditionals' bodies, the blocks
    /// a placeholder may insert statements into), in order of their start.
    pub unsure: Vec<Span>,
    /// A file lemplint wrote for context, not in the tree (a platform's stock nginx.conf,
    /// see `stack::platform`): nothing is reported in it and nothing edits it.
    pub synthetic: bool,
    /// For a file rendered from its template with known values (see
    /// [`crate::syntax::render`]): the template as read, and each placeholder that got a
    /// value. Findings are shown in the template and fixes edit it.
    pub rendered: Option<std::sync::Arc<template::Rendering>>,
    /// Built on the first line or column asked for: most files of a large configuration
    /// have no finding and never need one.
    index: std::sync::OnceLock<LineIndex>,
}

#[derive(Debug, Clone)]
struct LineIndex {
    starts: Vec<u32>,
    /// The whole file is ASCII, so a column is a byte count (no character counting on
    /// each lookup, which a multi-megabyte line would make quadratic).
    ascii: bool,
    /// For the long lines of a non-ASCII file: checkpoints every few KiB, so a column is
    /// counted from the nearest one rather than from the start of the line.
    checkpoints: Vec<Checkpoint>,
}

impl LineIndex {
    fn new(text: &[u8]) -> LineIndex {
        // Counted first (a vectorised pass) so the index is allocated once, exactly.
        let lines = text.iter().filter(|&&b| b == b'\n').count();
        let mut starts = Vec::with_capacity(lines + 1);
        starts.push(0);
        starts.extend(memchr_iter(b'\n', text).map(|i| i as u32 + 1));
        let ascii = text.is_ascii();
        let checkpoints = if ascii {
            Vec::new()
        } else {
            checkpoints(text, &starts)
        };
        LineIndex {
            starts,
            ascii,
            checkpoints,
        }
    }
}

/// How far into a long line a character boundary lies.
#[derive(Debug, Clone, Copy)]
struct Checkpoint {
    offset: u32,
    /// Characters from the start of the line to `offset`.
    chars: u32,
    /// The line is valid UTF-8 up to `offset` (else columns count bytes).
    valid: bool,
}

/// Files up to this size get no line index (see [`SourceFile::is_small`]).
const SCAN_LINES_UP_TO: usize = 8 << 10;

/// Lines longer than this get checkpoints, one per this many bytes.
const CHECKPOINT_EVERY: usize = 4096;

/// Checkpoints for the long lines of `text`.
fn checkpoints(text: &[u8], line_starts: &[u32]) -> Vec<Checkpoint> {
    let mut out = Vec::new();
    for (i, &start) in line_starts.iter().enumerate() {
        let end = line_starts
            .get(i + 1)
            .map_or(text.len(), |&next| next as usize);
        let (mut pos, mut chars, mut valid) = (start as usize, 0u32, true);
        while pos + CHECKPOINT_EVERY < end {
            let mut next = pos + CHECKPOINT_EVERY;
            // Move to a character boundary (past UTF-8 continuation bytes).
            while next < end && text[next] & 0xC0 == 0x80 {
                next += 1;
            }
            match std::str::from_utf8(&text[pos..next]) {
                Ok(s) if valid => chars += s.chars().count() as u32,
                _ => valid = false,
            }
            out.push(Checkpoint {
                offset: next as u32,
                chars,
                valid,
            });
            pos = next;
        }
    }
    out
}

impl SourceFile {
    /// The path of the real file: the one a symlink led to (see
    /// [`SourceFile::through_link`]), or the dump holding it.
    pub fn real_path(&self) -> &std::path::Path {
        match &self.member {
            Some(m) => &m.container,
            None => self.through_link.as_deref().unwrap_or(&self.path),
        }
    }

    /// The path findings are shown at: the path as reached, or the dump holding the file.
    pub fn shown_path(&self) -> &std::path::Path {
        self.member.as_ref().map_or(&self.path, |m| &m.container)
    }

    /// Builds a source from bytes. Sources larger than 4 GiB cannot be addressed by u32 spans;
    /// callers enforce a (much smaller) size cap before reading.
    pub fn new(path: impl Into<PathBuf>, text: Vec<u8>) -> Self {
        SourceFile {
            path: path.into(),
            text,
            stamp: None,
            through_link: None,
            member: None,
            holes: Vec::new(),
            unsure: Vec::new(),
            synthetic: false,
            rendered: None,
            index: std::sync::OnceLock::new(),
        }
    }

    /// Records the file on disk the text was read from.
    pub fn with_stamp(mut self, stamp: Option<Stamp>) -> Self {
        self.stamp = stamp;
        self
    }

    fn index(&self) -> &LineIndex {
        self.index.get_or_init(|| LineIndex::new(&self.text))
    }

    /// Small files answer line questions by scanning: a finding in each of 50,000 vhosts
    /// would otherwise keep 50,000 line indexes.
    fn is_small(&self) -> bool {
        self.text.len() <= SCAN_LINES_UP_TO
    }

    pub fn len(&self) -> u32 {
        self.text.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn bytes(&self, span: Span) -> &[u8] {
        &self.text[span.range()]
    }

    /// The text of a span; invalid UTF-8 is replaced (for display and messages only).
    pub fn str(&self, span: Span) -> Cow<'_, str> {
        String::from_utf8_lossy(self.bytes(span))
    }

    /// The number of lines as nginx counts them: one plus the number of LF bytes.
    pub fn line_count(&self) -> u32 {
        if self.is_small() {
            return memchr_iter(b'\n', &self.text).count() as u32 + 1;
        }
        self.index().starts.len() as u32
    }

    /// Lines before this text in the file it sits in (0 but for a member of a dump).
    pub fn lines_before(&self) -> u32 {
        self.member.as_ref().map_or(0, |m| m.lines_before)
    }

    /// 1-based line of a byte offset (in the containing file, for a member of a dump).
    pub fn line_of(&self, offset: u32) -> u32 {
        self.local_line_of(offset) + self.lines_before()
    }

    /// 1-based line of a byte offset within this text.
    fn local_line_of(&self, offset: u32) -> u32 {
        if self.is_small() {
            let end = (offset as usize).min(self.text.len());
            return memchr_iter(b'\n', &self.text[..end]).count() as u32 + 1;
        }
        match self.index().starts.binary_search(&offset) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    }

    /// 1-based line and column (column in characters; bytes for invalid UTF-8).
    pub fn line_col(&self, offset: u32) -> LineCol {
        if self.is_small() {
            let end = (offset as usize).min(self.text.len());
            let start = memchr::memrchr(b'\n', &self.text[..end]).map_or(0, |p| p + 1);
            let prefix = &self.text[start..end];
            return LineCol {
                line: self.line_of(offset),
                column: chars_in(prefix).unwrap_or(prefix.len() as u32) + 1,
            };
        }
        let index = self.index();
        let line = self.local_line_of(offset);
        let start = index.starts[line as usize - 1] as usize;
        let end = (offset as usize).min(self.text.len());
        let prefix = &self.text[start..end];
        if index.ascii {
            return LineCol {
                line: line + self.lines_before(),
                column: prefix.len() as u32 + 1,
            };
        }
        // Count from the last checkpoint of this line at or before the offset, if any.
        let at = index
            .checkpoints
            .partition_point(|c| c.offset as usize <= end);
        let (from, chars, valid) = match at.checked_sub(1).map(|i| index.checkpoints[i]) {
            Some(c) if c.offset as usize > start => (c.offset as usize, c.chars, c.valid),
            _ => (start, 0, true),
        };
        let column = valid
            .then(|| chars_in(&self.text[from..end]))
            .flatten()
            .map_or(prefix.len() as u32, |n| chars + n);
        LineCol {
            line: line + self.lines_before(),
            column: column + 1,
        }
    }

    /// Byte offset where a 1-based line starts (a line of the containing file, for a member
    /// of a dump).
    pub fn line_start(&self, line: u32) -> u32 {
        let line = line.saturating_sub(self.lines_before()).max(1);
        if self.is_small() {
            return match line.saturating_sub(1) as usize {
                0 => 0,
                n => memchr_iter(b'\n', &self.text)
                    .nth(n - 1)
                    .map_or(self.len(), |p| p as u32 + 1),
            };
        }
        self.index()
            .starts
            .get(line.saturating_sub(1) as usize)
            .copied()
            .unwrap_or(self.len())
    }
}

/// How many characters `bytes` holds, if it is valid UTF-8 (a column counts characters;
/// on a line that is not valid UTF-8 it counts bytes instead).
fn chars_in(bytes: &[u8]) -> Option<u32> {
    if bytes.is_ascii() {
        return Some(bytes.len() as u32);
    }
    std::str::from_utf8(bytes)
        .ok()
        .map(|s| s.chars().count() as u32)
}

fn memchr_iter(needle: u8, hay: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(needle, hay)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_files_scan_to_the_same_answers_as_the_index() {
        let samples: [&[u8]; 6] = [
            b"",
            b"a\r\nbb\nc",
            b"\n\n\nx y;\n",
            "server_name caf\u{e9}.example \u{4e2d}\u{6587};\n  # \u{e9}t\u{e9}\nz".as_bytes(),
            b"bad \xff\xfe utf8;\nok;\n\xc3",
            b"no newline at all",
        ];
        for text in samples {
            let small = SourceFile::new("s", text.to_vec());
            // The same text padded past the limit: read through a line index.
            let mut padded = text.to_vec();
            padded.extend_from_slice(b"\n#");
            padded.resize(SCAN_LINES_UP_TO + 100, b'x');
            let big = SourceFile::new("b", padded);
            assert!(small.is_small() && !big.is_small());
            for offset in 0..=text.len() as u32 {
                assert_eq!(
                    small.line_of(offset),
                    big.line_of(offset),
                    "{text:?} @ {offset}"
                );
                assert_eq!(
                    small.line_col(offset),
                    big.line_col(offset),
                    "{text:?} @ {offset}"
                );
            }
            let lines = small.line_count();
            assert_eq!(lines, big.line_count() - 1, "{text:?}");
            for line in 0..=lines {
                assert_eq!(
                    small.line_start(line),
                    big.line_start(line),
                    "{text:?} line {line}"
                );
            }
            assert_eq!(small.line_start(lines + 1), small.len());
        }
    }

    #[test]
    fn lines_are_counted_by_lf_like_nginx() {
        let f = SourceFile::new("x", b"a\r\nbb\nc".to_vec());
        assert_eq!(f.line_count(), 3);
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, column: 1 });
        assert_eq!(f.line_col(7), LineCol { line: 3, column: 2 });
        let g = SourceFile::new("y", b"a;\n".to_vec());
        assert_eq!(
            g.line_col(3).line,
            2,
            "EOF after a final LF is on the next line"
        );
    }

    /// The column as defined: characters of the line before the offset when that prefix is
    /// valid UTF-8, else bytes.
    fn naive_column(text: &[u8], offset: usize) -> u32 {
        let start = text[..offset]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let prefix = &text[start..offset];
        match std::str::from_utf8(prefix) {
            Ok(s) => s.chars().count() as u32 + 1,
            Err(_) => prefix.len() as u32 + 1,
        }
    }

    #[test]
    fn columns_on_long_non_ascii_lines_match_counting_from_the_line_start() {
        // Long lines of multi-byte characters (with checkpoints inside them), one that turns
        // invalid halfway, and short lines around them.
        let mut text = "é".repeat(5000).into_bytes();
        text.extend_from_slice(b"\nshort \xc3\xa9 line\n");
        text.extend("日本".repeat(3000).bytes());
        text.push(0xff);
        text.extend("ü".repeat(4000).bytes());
        text.push(b'\n');
        let f = SourceFile::new("x", text.clone());
        for offset in (0..=text.len()).step_by(97).chain([text.len()]) {
            assert_eq!(
                f.line_col(offset as u32).column,
                naive_column(&text, offset),
                "offset {offset}"
            );
        }
    }
}
