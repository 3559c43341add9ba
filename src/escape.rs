//! Showing text from files, and file names, without letting them act on whoever reads it.
//!
//! A file name or a configuration value can hold an escape sequence (`ESC [ 2 J` clears a
//! terminal; other sequences rewrite the title or fake a prompt), a carriage return that
//! overwrites the line it is on, a newline that starts a fake finding, or bidirectional
//! overrides that reorder what a reviewer sees. Everything lemplint prints for people goes
//! through here: such characters come out as visible escapes (`\x1b`, `\r`, `\u{202e}`),
//! and a path that needs any is quoted as git quotes it (`"etc/x\nb"`), so it cannot be
//! confused with an ordinary one.

use std::borrow::Cow;
use std::fmt::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Characters that are never printed as themselves.
fn is_unsafe(c: char) -> bool {
    c.is_control() || acts_on_terminal(c)
}

/// Characters beyond the C0/C1 controls that change what a reader sees: C1 controls, and the
/// bidirectional overrides and isolates ("Trojan Source"), line and paragraph separators.
pub fn acts_on_terminal(c: char) -> bool {
    matches!(c, '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{061c}')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x100 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// A message or excerpt for a terminal or log: line breaks and tabs are kept (our own
/// messages use them), every other control or reordering character is escaped.
pub fn text(s: &str) -> Cow<'_, str> {
    // Printable ASCII, line breaks and tabs need nothing (checked a byte at a time).
    let plain = |b: u8| (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t';
    if s.bytes().all(plain) || !s.chars().any(|c| is_unsafe(c) && c != '\n' && c != '\t') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) && c != '\n' && c != '\t' {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// At most `max` characters of `s` on one line (as [`line`]), with `…` and the full length
/// when it was longer: a value quoted back to the user (50 MB of `fail-on`) costs no more
/// than a line of output.
pub fn excerpt(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => line(s).into_owned(),
        Some((cut, _)) => format!("{}… ({} bytes)", line(&s[..cut]), s.len()),
    }
}

/// Like [`text`] for a value that must stay on one line (a file name, a quoted argument):
/// line breaks and tabs are escaped too.
pub fn line(s: &str) -> Cow<'_, str> {
    // Printable ASCII needs nothing (checked a byte at a time, which vectorises); anything
    // else is checked character by character.
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) || !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Bytes that may not be UTF-8 (a Latin-1 comment), one line: invalid bytes as `\xNN`.
pub fn bytes(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        out.push_str(&line(chunk.valid()));
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

/// A path for people: as is when it is plain, else in double quotes with C escapes (`\n`,
/// `\t`, `\"`, `\\`, `\xNN` for bytes that are not UTF-8), as git and ls quote names.
pub fn path(p: &Path) -> String {
    let raw = p.as_os_str().as_bytes();
    if raw
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        return String::from_utf8_lossy(raw).into_owned();
    }
    let plain = std::str::from_utf8(raw)
        .is_ok_and(|s| !s.chars().any(is_unsafe) && !s.contains(['"', '\\']));
    if plain {
        return String::from_utf8_lossy(raw).into_owned();
    }
    let mut out = String::from("\"");
    for chunk in raw.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if is_unsafe(c) => push_escaped(&mut out, c),
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out.push('"');
    out
}

/// Source text for miette: every byte that is not valid UTF-8 shown as `?` (one byte for
/// one, so offsets into the original stay valid), and every control or reordering character
/// that would act on a terminal (ESC, a lone CR, form feed, U+202E…) shown as a visible
/// symbol (`␛`, `␍`, `␌`, `�`). Those take more bytes than the original, so the text comes
/// with the [`Shifts`] that move the original's offsets onto it.
pub fn display_text(bytes: &[u8]) -> (String, Shifts) {
    let mut out = String::with_capacity(bytes.len());
    let mut shifts = Shifts::default();
    let mut offset = 0usize;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            let shown = match c {
                '\t' | '\n' => c,
                '\r' if bytes.get(offset + 1) == Some(&b'\n') => c,
                // The Control Pictures block has a symbol for each C0 control and DEL.
                c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('?'),
                '\u{7f}' => '\u{2421}',
                c if acts_on_terminal(c) => '\u{fffd}',
                c => c,
            };
            if shown.len_utf8() != c.len_utf8() {
                shifts.add(offset + c.len_utf8(), shown.len_utf8() - c.len_utf8());
            }
            out.push(shown);
            offset += c.len_utf8();
        }
        let n = chunk.invalid().len();
        out.extend(std::iter::repeat_n('?', n));
        offset += n;
    }
    (out, shifts)
}

/// Where the display text grew: after each original offset, by how many bytes (in order).
#[derive(Default)]
pub struct Shifts {
    at: Vec<(usize, usize)>,
}

impl Shifts {
    fn add(&mut self, after: usize, grew: usize) {
        let total = self.at.last().map_or(0, |l| l.1) + grew;
        self.at.push((after, total));
    }

    /// The display offset of an original offset.
    pub fn map(&self, offset: usize) -> usize {
        match self.at.partition_point(|&(after, _)| after <= offset) {
            0 => offset,
            i => offset + self.at[i - 1].1,
        }
    }

    /// The display range of an original span.
    pub fn span(&self, start: u32, end: u32) -> std::ops::Range<usize> {
        self.map(start as usize)..self.map(end as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn excerpts_are_bounded() {
        assert_eq!(excerpt("info", 8), "info");
        assert_eq!(excerpt(&"x".repeat(50), 4), "xxxx… (50 bytes)");
        assert_eq!(excerpt("é\né", 2), "é\\n… (5 bytes)");
    }

    #[test]
    fn control_characters_become_visible() {
        assert_eq!(text("plain"), "plain");
        assert_eq!(text("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(text("keep\nlines"), "keep\nlines");
        assert_eq!(line("x\ny"), "x\\ny");
        assert_eq!(text("\u{202e}txt"), "\\u{202e}txt");
        assert_eq!(text("over\rwrite"), "over\\rwrite");
        assert_eq!(bytes(b"caf\xe9"), "caf\\xe9");
    }

    #[test]
    fn paths_that_need_it_are_quoted() {
        assert_eq!(
            path(Path::new("etc/nginx/nginx.conf")),
            "etc/nginx/nginx.conf"
        );
        assert_eq!(
            path(Path::new("x\n::error file=README.md::y")),
            "\"x\\n::error file=README.md::y\""
        );
        assert_eq!(path(Path::new("a\\b")), "\"a\\\\b\"");
        assert_eq!(
            path(Path::new(OsStr::from_bytes(b"caf\xe9.conf"))),
            "\"caf\\xe9.conf\""
        );
    }
}
