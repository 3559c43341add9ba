//! Splitting a file into items: php-fpm reads it one LF-terminated line at a time, and the
//! Zend scanner may find several statements on one line (a lone CR ends one).

use super::parser::{Parser, SynErr};
use super::{FpmFile, Line, LineKind, Parsed};
use crate::source::Span;
use crate::syntax::error::SyntaxError;
use crate::syntax::lines::physical_lines;
use std::borrow::Cow;

/// Parses a PHP-FPM configuration file. Never panics; every byte ends up in exactly one item.
pub fn parse(src: &[u8]) -> Parsed {
    if is_xml(src) {
        return parse_xml(src);
    }
    let mut file = FpmFile::default();
    // An item per physical line, or more where one holds several statements: room for one
    // each at once. Grown by doubling, the items of a 2 MB pool file were copied 15 times
    // and peaked at 20 MB (heaptrack), the room unused included.
    file.lines
        .reserve(memchr::memchr_iter(b'\n', src).count() + 1);
    let mut errors = Vec::new();
    let mut section: Option<usize> = None;
    for (start, end) in physical_lines(src) {
        parse_physical_line(src, start, end, &mut file, &mut errors, &mut section);
    }
    if let Some(e) = crate::syntax::encoding::not_text_error(src) {
        errors = vec![e];
    }
    Parsed { file, errors }
}

/// The most physical lines one double-quoted php.ini value may span: a quote that is never
/// closed costs at most this many re-parses of the lines after it.
const MAX_QUOTED_LINES: usize = 256;

/// Parses a php.ini file. PHP hands the Zend scanner the whole file, not a line at a time as
/// php-fpm does, so a double-quoted value may run over several lines (`error_prepend_string =
/// "<div>` … `</div>"`, checked with `php8.2 -c`). Otherwise the items, spans and messages are
/// those of [`parse`]. A line whose statement ends in the middle of a quoted string is joined
/// with the lines after it until the string closes; when it never closes, the line keeps its
/// own error, which is PHP's (it also reports the end of the file there).
pub fn parse_php_ini(src: &[u8]) -> Parsed {
    let mut file = FpmFile::default();
    let mut errors = Vec::new();
    let mut section: Option<usize> = None;
    let lines: Vec<(usize, usize)> = physical_lines(src).collect();
    let mut i = 0;
    while i < lines.len() {
        let (start, end) = lines[i];
        let open = open_quote_at_end(src, start, end, file.lines.len(), section);
        let closes = open
            .then(|| {
                (2..=MAX_QUOTED_LINES.min(lines.len() - i)).find(|&k| {
                    let end = lines[i + k - 1].1;
                    let mut s = section;
                    statements(src, start, end, file.lines.len(), &mut s)
                        .1
                        .is_none()
                })
            })
            .flatten();
        let take = closes.unwrap_or(1);
        let end = lines[i + take - 1].1;
        parse_physical_line(src, start, end, &mut file, &mut errors, &mut section);
        if open && closes.is_none() {
            // PHP reads on to the end of the file looking for the quote, and reports it there.
            if let Some(e) = errors.last_mut() {
                e.span = Span::new(src.len() as u32, src.len() as u32);
            }
        }
        i += take;
    }
    if let Some(e) = crate::syntax::encoding::not_text_error(src) {
        errors = vec![e];
    }
    Parsed { file, errors }
}

/// Whether the line's statements stop at its end inside a double-quoted string: the
/// scanner's "unexpected end of file" with an unclosed `"` on the line.
fn open_quote_at_end(
    src: &[u8],
    start: usize,
    end: usize,
    first_index: usize,
    section: Option<usize>,
) -> bool {
    let line = &src[start..end];
    if memchr::memchr(b'"', line).is_none() {
        return false;
    }
    let mut s = section;
    let (_, error) = statements(src, start, end, first_index, &mut s);
    error.is_some_and(|e| e.message.contains("unexpected end of file"))
}

/// PHP 5.2's php-fpm used an XML file (`<?xml …?>` / `<configuration>`). php-fpm 8.2 reads it as
/// INI and stops at line 1 with `unknown entry '<?xml version'`; one clear diagnostic is more useful
/// than a list of INI errors for every tag.
pub(super) fn is_xml(src: &[u8]) -> bool {
    let body = src.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(src);
    let first = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(&[][..], |i| &body[i..]);
    first.starts_with(b"<?xml") || first.starts_with(b"<configuration")
}

pub(super) fn parse_xml(src: &[u8]) -> Parsed {
    let mut file = FpmFile {
        lines: Vec::new(),
        xml: true,
    };
    for (start, end) in physical_lines(src) {
        file.lines.push(item(src, start, end, LineKind::Xml));
    }
    let first_end = file.lines.first().map_or(0, |l| l.span.end - l.eol.len());
    let errors = vec![SyntaxError::new(
        "XML configuration of PHP 5.2 is not supported",
        Span::new(0, first_end),
    )];
    Parsed { file, errors }
}

pub(super) fn item(src: &[u8], start: usize, end: usize, kind: LineKind) -> Line {
    let bytes = &src[start..end];
    let eol_len = if bytes.ends_with(b"\r\n") {
        2
    } else if bytes.ends_with(b"\n") || bytes.ends_with(b"\r") {
        1
    } else {
        0
    };
    Line::new(start, end, eol_len, kind)
}

/// What one statement of a line turned into, and where it ended.
pub(super) struct Stmt {
    pub(super) kind: LineKind,
    pub(super) end: usize,
}

/// Splits one physical line (`start..end`, LF included if any) into items.
pub(super) fn parse_physical_line(
    src: &[u8],
    start: usize,
    end: usize,
    file: &mut FpmFile,
    errors: &mut Vec<SyntaxError>,
    section: &mut Option<usize>,
) {
    let (stmts, error) = statements(src, start, end, file.lines.len(), section);
    let mut pos = start;
    let n = stmts.len();
    for (i, stmt) in stmts.into_iter().enumerate() {
        // The last item of a line takes the line's remaining bytes (blanks, terminator, NUL tail).
        let last = i + 1 == n && error.is_none();
        let stop = if last { end } else { stmt.end.clamp(pos, end) };
        let mut kind = stmt.kind;
        if let LineKind::Comment { own_line, .. } = &mut kind {
            *own_line = pos == start;
        }
        file.lines.push(item(src, pos, stop, kind));
        pos = stop;
    }
    if let Some(err) = error {
        let line = item(src, pos, end, LineKind::Error);
        // "unexpected end of file" points past the line; keep it on the line php-fpm reports.
        let stop = line.eol.start.max(start as u32);
        let at = err.span.start.min(stop);
        let span = Span::new(at, err.span.end.clamp(at, stop));
        file.lines.push(line);
        errors.push(SyntaxError::new(err.message, span));
    } else if pos < end {
        // Nothing php-fpm can see (an empty line, or bytes after a NUL).
        file.lines.push(item(src, pos, end, LineKind::Blank));
    }
}

/// The statements of one physical line, up to the first syntax error. `first_index` is the item
/// index the first statement will get; `section` tracks the current header item across lines.
pub(super) fn statements(
    src: &[u8],
    start: usize,
    end: usize,
    first_index: usize,
    section: &mut Option<usize>,
) -> (Vec<Stmt>, Option<SynErr>) {
    let mut stmts: Vec<Stmt> = Vec::new();
    // php-fpm skips a line with no byte before the LF without parsing it.
    if src[start] == b'\n' {
        return (stmts, None);
    }
    let buf = LineBuf::new(src, start, end);
    let mut p = Parser::new(&buf);
    loop {
        match p.statement(*section) {
            Ok(Some(stmt)) => {
                if matches!(stmt.kind, LineKind::Section(_)) {
                    *section = Some(first_index + stmts.len());
                }
                stmts.push(stmt);
            }
            Ok(None) => return (stmts, None),
            Err(e) => return (stmts, Some(e)),
        }
    }
}

/// The bytes the Zend scanner sees for one line: the line up to (not including) its first NUL,
/// with a `\n` appended when the file's last line has none (php-fpm always appends one).
pub(super) struct LineBuf<'a> {
    pub(super) bytes: Cow<'a, [u8]>,
    /// Absolute offset of `bytes[0]`.
    pub(super) base: usize,
    /// Absolute end of the physical line (for clamping the appended `\n`).
    pub(super) end: usize,
}

impl<'a> LineBuf<'a> {
    pub(super) fn new(src: &'a [u8], start: usize, end: usize) -> Self {
        let line = &src[start..end];
        let bytes: Cow<'a, [u8]> = match line.iter().position(|&b| b == 0) {
            Some(nul) => Cow::Borrowed(&line[..nul]),
            None if line.ends_with(b"\n") => Cow::Borrowed(line),
            None => {
                let mut v = line.to_vec();
                v.push(b'\n');
                Cow::Owned(v)
            }
        };
        LineBuf {
            bytes,
            base: start,
            end,
        }
    }

    pub(super) fn abs(&self, i: usize) -> usize {
        (self.base + i).min(self.end)
    }

    pub(super) fn span(&self, s: usize, e: usize) -> Span {
        Span::new(self.abs(s) as u32, self.abs(e) as u32)
    }
}
