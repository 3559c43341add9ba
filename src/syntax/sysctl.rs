//! `sysctl.conf` and `sysctl.d/*.conf` files: a lossless line parser.
//!
//! The grammar is procps-ng's `parse_setting_line()` (`src/sysctl.c`, 4.0.2, unchanged through
//! 4.0.6), which `sysctl -p` and `sysctl --system` use; systemd-sysctl (`src/sysctl/sysctl.c`) reads
//! the same lines almost the same way, and where the two differ it is noted.
//!
//! * A line is what `getline()` returns: up to and including `\n`. procps works on it as a C
//!   string, so a NUL byte ends it; we keep the bytes and ignore them, as procps does.
//! * Leading blanks (`isspace`) are skipped. A line whose first other byte is `#` or `;` is a
//!   comment. **There are no inline comments**: in `net.core.somaxconn = 4096 # max` the value is
//!   `4096 # max`, which procps writes verbatim; the kernel reads a number and ignores what
//!   follows a blank, but stores the comment in a text value or rejects a list (SYS010 says
//!   which, as measured).
//! * The line is split at the **first** `=`; key and value are trimmed (`isspace`, so a CR of a CRLF
//!   file goes too). The value may hold inner blanks (`1024<TAB>65535`).
//! * A leading `-` (`-net.ipv4.tcp_tw_recycle = 1`) asks to ignore a failure to set the key. procps
//!   removes exactly that byte and does not trim again, so `- net.core.x = 1` names ` net.core.x`
//!   (which does not exist); systemd-sysctl trims, and we normalise keys its way (see
//!   [`Assignment::normalized_key`]) while [`Assignment::key`] keeps the bytes procps uses.
//! * `-key` with no `=` excludes `key` from the globs of other lines ([`LineKind::Exclude`]).
//! * Any other line without `=` makes procps print `invalid syntax, continuing...` (and skip it);
//!   systemd-sysctl logs `Line is not an assignment, ignoring`.
//! * Keys use `.` or `/` as separators. If the first separator is `/`, the key is already a path
//!   under `/proc/sys` and dots are part of names (`net/ipv4/conf/eth0.100/rp_filter`); if it is
//!   `.`, dots and slashes are swapped to get the path (`net.ipv4.conf.eth0/100.rp_filter` is the
//!   same file). Both procps (`slashdot`) and systemd (`sysctl_normalize`) agree on this.
//! * Keys may be globs (`net.ipv4.conf.*.rp_filter`, `*?[` as in procps' `string_is_glob`); both
//!   tools expand them against `/proc/sys` when applying, excluding keys set explicitly or
//!   excluded with `-key`. The parser only marks them ([`Assignment::is_glob`]).

use crate::source::Span;
use crate::syntax::error::SyntaxError;
use crate::syntax::lines::{physical_lines, slice};
use nom::bytes::complete::{tag, take_till, take_while};
use nom::combinator::{opt, rest};
use nom::{IResult, Parser};
use std::borrow::Cow;

pub mod json;

/// The result of parsing one file: always a file and every error.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    pub file: SysctlFile,
    pub errors: Vec<SyntaxError>,
}

/// A parsed sysctl file: one [`Line`] per physical line, covering every byte.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SysctlFile {
    pub lines: Vec<Line>,
}

/// One physical line. Its `eol` is `\n` or `\r\n` (empty on a last line without one).
pub type Line = super::lines::Line<LineKind>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Only blanks (or nothing procps can see, after a NUL byte).
    Blank,
    /// `#` or `;` as the first non-blank byte; `text` runs from it to the end of the line,
    /// terminator excluded.
    Comment { text: Span },
    /// `key = value`.
    Assignment(Assignment),
    /// `-key`: exclude `key` from the globs of other lines.
    Exclude { dash: Span, key: Span },
    /// A line procps or systemd-sysctl refuses; the message is in [`Parsed::errors`].
    Error,
}

/// A `[-]key = value` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    /// The leading `-`: failures to set this key are ignored.
    pub dash: Option<Span>,
    /// The key as procps takes it: after the `-`, trailing blanks removed (leading ones after a
    /// `-` are kept, as procps keeps them).
    pub key: Span,
    pub eq: Span,
    /// The value, trimmed as procps trims it. Empty (right after `=`) when there is none.
    pub value: Span,
}

impl Assignment {
    /// The key as written (for printing).
    pub fn key_text<'a>(&self, src: &'a [u8]) -> Cow<'a, str> {
        String::from_utf8_lossy(slice(src, self.key))
    }

    /// The value, verbatim: `8192 # note` stays `8192 # note`.
    pub fn value_text<'a>(&self, src: &'a [u8]) -> Cow<'a, str> {
        String::from_utf8_lossy(slice(src, self.value))
    }

    /// Whether failures to set the key are ignored (`-key = value`).
    pub fn ignore_failure(&self) -> bool {
        self.dash.is_some()
    }

    /// The key in dotted form for lookups: `net/ipv4/tcp_syncookies` and `net.ipv4.tcp_syncookies`
    /// are the same key; `net/ipv4/conf/eth0.100/rp_filter` becomes
    /// `net.ipv4.conf.eth0/100.rp_filter` (the dot inside an interface name is written `/` in
    /// dotted form, as `sysctl -a` prints it). Repeated separators collapse and blanks are trimmed
    /// (systemd's `sysctl_normalize` + `path_simplify`).
    pub fn normalized_key(&self, src: &[u8]) -> String {
        normalize_key(slice(src, self.key))
    }

    /// The file under `/proc/sys` this key names (`net/ipv4/tcp_syncookies`).
    pub fn proc_path(&self, src: &[u8]) -> String {
        key_to_path(slice(src, self.key))
    }

    /// Whether the key is a glob pattern (`*`, `?` or `[`).
    pub fn is_glob(&self, src: &[u8]) -> bool {
        is_glob(slice(src, self.key))
    }

    /// Whether procps would warn `separators should not be repeated` (`net..core.x`).
    pub fn has_repeated_separators(&self, src: &[u8]) -> bool {
        slice(src, self.key)
            .windows(2)
            .any(|w| matches!(w[0], b'.' | b'/') && matches!(w[1], b'.' | b'/'))
    }
}

/// Whether a key is a glob pattern (procps `GLOB_CHARS "*?["`).
pub fn is_glob(key: &[u8]) -> bool {
    key.iter().any(|c| matches!(c, b'*' | b'?' | b'['))
}

/// A key as a path under `/proc/sys`: when its first separator is `.`, dots and slashes are
/// swapped; when it is `/`, it is already a path.
pub fn key_to_path(key: &[u8]) -> String {
    let key = String::from_utf8_lossy(key);
    let key = key.trim_matches(is_c_space_char);
    match key.find(['.', '/']) {
        Some(i) if key.as_bytes()[i] == b'.' => swap_separators(key),
        _ => key.to_string(),
    }
}

/// `a.b/c` ↔ `a/b.c`: the dotted form of a key and its path under `/proc/sys` (a dot inside
/// a name, like an interface's, is a slash in the dotted form).
pub fn swap_separators(key: &str) -> String {
    key.chars()
        .map(|c| match c {
            '.' => '/',
            '/' => '.',
            c => c,
        })
        .collect()
}

/// A key in dotted form (see [`Assignment::normalized_key`]).
pub fn normalize_key(key: &[u8]) -> String {
    let path = key_to_path(key);
    let simplified: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    simplified
        .join("/")
        .chars()
        .map(|c| match c {
            '/' => '.',
            '.' => '/',
            c => c,
        })
        .collect()
}

impl SysctlFile {
    /// Rebuilds the file from its lines; `None` (and a panic in debug builds) if a byte was lost.
    pub fn print(&self, src: &[u8]) -> Option<Vec<u8>> {
        super::lines::print(&self.lines, src, "sysctl lines")
    }

    /// Every assignment with its line index, in file order.
    pub fn assignments(&self) -> impl Iterator<Item = (usize, &Assignment)> + '_ {
        self.lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| match &l.kind {
                LineKind::Assignment(a) => Some((i, a)),
                _ => None,
            })
    }

    /// The assignment that wins for `key` within this file (the last one; procps and systemd both
    /// apply lines in order). `key` may use either separator.
    pub fn get(&self, src: &[u8], key: &str) -> Option<&Assignment> {
        self.get_all(src, key).pop()
    }

    /// Every assignment of `key`, in file order.
    pub fn get_all(&self, src: &[u8], key: &str) -> Vec<&Assignment> {
        let want = normalize_key(key.as_bytes());
        self.assignments()
            .map(|(_, a)| a)
            .filter(|a| a.normalized_key(src) == want)
            .collect()
    }
}

/// C `isspace` in the C locale.
fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn is_c_space_char(c: char) -> bool {
    c.is_ascii() && is_c_space(c as u8)
}

/// procps' message for a line without `=` (printed as `FILE(LINE): invalid syntax, continuing...`).
pub const INVALID_SYNTAX: &str = "invalid syntax, continuing...";

/// Parses a sysctl file. Never panics; every byte ends up in exactly one line.
pub fn parse(src: &[u8]) -> Parsed {
    let mut out = Parsed::default();
    for (start, end) in physical_lines(src) {
        let (kind, error) = parse_line(src, start, end);
        let eol_len = if src[start..end].ends_with(b"\r\n") {
            2
        } else {
            usize::from(src[start..end].ends_with(b"\n"))
        };
        out.file.lines.push(Line::new(start, end, eol_len, kind));
        if let Some(e) = error {
            out.errors.push(e);
        }
    }
    if let Some(e) = super::encoding::not_text_error(src) {
        out.errors = vec![e];
    }
    out
}

/// The pieces of a non-comment line, as byte slices of the C string (nom over `&[u8]`).
struct Pieces<'a> {
    body: &'a [u8],
    dash: Option<&'a [u8]>,
    key: &'a [u8],
    eq: Option<&'a [u8]>,
    value: &'a [u8],
}

/// `lstrip`, then `[-] key [= value]` split at the first `=`.
fn pieces(line: &[u8]) -> IResult<&[u8], Pieces<'_>> {
    let (body, _) = take_while(is_c_space)(line)?;
    let (after_dash, dash) = opt(tag(&b"-"[..])).parse(body)?;
    let (after_key, key) = take_till(|c| c == b'=')(after_dash)?;
    let (after_eq, eq) = opt(tag(&b"="[..])).parse(after_key)?;
    let (end, value) = rest(after_eq)?;
    Ok((
        end,
        Pieces {
            body,
            dash,
            key,
            eq,
            value,
        },
    ))
}

fn trim_end(s: &[u8]) -> &[u8] {
    let n = s.iter().rev().take_while(|&&c| is_c_space(c)).count();
    &s[..s.len() - n]
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&c| is_c_space(c)).count();
    &s[n..]
}

/// Classifies one physical line (`start..end`, LF included if any).
fn parse_line(src: &[u8], start: usize, end: usize) -> (LineKind, Option<SyntaxError>) {
    let line = &src[start..end];
    // procps sees a C string: nothing after a NUL byte.
    let cstr = line
        .iter()
        .position(|&b| b == 0)
        .map_or(line, |n| &line[..n]);
    let at = |s: &[u8]| start + (s.as_ptr() as usize - line.as_ptr() as usize);
    let span = |s: &[u8]| Span::new(at(s) as u32, (at(s) + s.len()) as u32);
    let eol_len = if line.ends_with(b"\r\n") {
        2
    } else {
        usize::from(line.ends_with(b"\n"))
    };
    let content_end = end - eol_len;
    let whole = Span::new(start as u32, content_end as u32);
    let Ok((_, p)) = pieces(cstr) else {
        return (LineKind::Blank, None);
    };
    let body = trim_end(p.body);
    match body.first() {
        None => return (LineKind::Blank, None),
        Some(b'#' | b';') => {
            let text = Span::new(at(body) as u32, content_end as u32);
            return (LineKind::Comment { text }, None);
        }
        _ => {}
    }
    // `getline` length < 2, or < 2 bytes after `lstrip`: procps skips the line without a word;
    // systemd-sysctl warns. Nothing meaningful fits in one byte, so say what systemd says.
    if line.len() < 2 || p.body.len() < 2 {
        let msg = format!(
            "Line is not an assignment, ignoring: {} (procps skips it silently)",
            String::from_utf8_lossy(body)
        );
        return (LineKind::Error, Some(SyntaxError::new(msg, whole)));
    }
    let Some(eq) = p.eq else {
        if let Some(dash) = p.dash {
            let key = trim_end(p.key);
            return (
                LineKind::Exclude {
                    dash: span(dash),
                    key: span(key),
                },
                None,
            );
        }
        return (
            LineKind::Error,
            Some(SyntaxError::new(INVALID_SYNTAX, whole)),
        );
    };
    let key = trim_end(p.key);
    if key.iter().all(|&c| is_c_space(c)) {
        let msg = "empty key before \"=\" (procps: \"Path is not under /proc/sys/: /proc/sys/\")";
        return (LineKind::Error, Some(SyntaxError::new(msg, whole)));
    }
    let value = trim_end(trim_start(p.value));
    let value_span = if value.is_empty() {
        Span::empty((at(eq) + 1) as u32)
    } else {
        span(value)
    };
    let assignment = Assignment {
        dash: p.dash.map(span),
        key: span(key),
        eq: span(eq),
        value: value_span,
    };
    (LineKind::Assignment(assignment), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &[u8]) -> (LineKind, Vec<SyntaxError>) {
        let p = parse(src);
        assert_eq!(p.file.print(src).as_deref(), Some(src), "round-trip");
        (p.file.lines[0].kind.clone(), p.errors)
    }

    fn assignment(src: &[u8]) -> Assignment {
        match one(src) {
            (LineKind::Assignment(a), e) if e.is_empty() => a,
            other => panic!("not an assignment: {other:?}"),
        }
    }

    fn text(src: &[u8], s: Span) -> &str {
        std::str::from_utf8(&src[s.range()]).unwrap()
    }

    #[test]
    fn key_value_with_and_without_blanks() {
        for src in [
            &b"net.core.somaxconn = 4096\n"[..],
            b"net.core.somaxconn=4096",
            b"  net.core.somaxconn\t=\t4096\t\r\n",
        ] {
            let a = assignment(src);
            assert_eq!(text(src, a.key), "net.core.somaxconn");
            assert_eq!(text(src, a.value), "4096");
            assert_eq!(text(src, a.eq), "=");
            assert!(a.dash.is_none());
        }
    }

    #[test]
    fn inline_hash_is_part_of_the_value() {
        let src = b"net.core.somaxconn=8192 # inline comment is part of the value\n";
        let a = assignment(src);
        assert_eq!(
            a.value_text(src),
            "8192 # inline comment is part of the value"
        );
    }

    #[test]
    fn value_keeps_inner_blanks_and_splits_at_first_eq() {
        let src = b"net.ipv4.ip_local_port_range = 1024\t65535\n";
        assert_eq!(assignment(src).value_text(src), "1024\t65535");
        let src = b"kernel.core_pattern = |/bin/x a=b\n";
        assert_eq!(assignment(src).value_text(src), "|/bin/x a=b");
        let src = b"kernel.domainname =\n";
        let a = assignment(src);
        assert!(a.value.is_empty());
        assert_eq!(a.value.start, 19);
    }

    #[test]
    fn comments_start_with_hash_or_semicolon() {
        for src in [&b"# c\n"[..], b"; c\n", b"   # indented\r\n", b"#"] {
            let (kind, errors) = one(src);
            assert!(matches!(kind, LineKind::Comment { .. }), "{src:?}");
            assert!(errors.is_empty());
        }
        let src = b"  ;x\r\n";
        match one(src).0 {
            LineKind::Comment { text: t } => assert_eq!(text(src, t), ";x"),
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn leading_dash_ignores_failure_and_keeps_procps_key() {
        let src = b"-net.ipv4.tcp_tw_recycle = 1\n";
        let a = assignment(src);
        assert!(a.ignore_failure());
        assert_eq!(text(src, a.dash.unwrap()), "-");
        assert_eq!(a.key_text(src), "net.ipv4.tcp_tw_recycle");
        // procps does not trim after the dash; we normalise like systemd for lookups.
        let src = b"- net.core.somaxconn = 5\n";
        let a = assignment(src);
        assert_eq!(a.key_text(src), " net.core.somaxconn");
        assert_eq!(a.normalized_key(src), "net.core.somaxconn");
    }

    #[test]
    fn dash_without_eq_is_a_glob_exclusion() {
        let src = b"-net.ipv4.conf.all.rp_filter\n";
        match one(src) {
            (LineKind::Exclude { key, .. }, e) if e.is_empty() => {
                assert_eq!(text(src, key), "net.ipv4.conf.all.rp_filter")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn slash_and_dot_keys_normalise_alike() {
        let src = b"net/ipv4/tcp_max_syn_backlog = 2048\n";
        let a = assignment(src);
        assert_eq!(a.normalized_key(src), "net.ipv4.tcp_max_syn_backlog");
        assert_eq!(a.proc_path(src), "net/ipv4/tcp_max_syn_backlog");
        // A dot inside a name: with `/` separators it stays a dot in the path…
        let src = b"net/ipv4/conf/eth0.100/rp_filter = 1\n";
        let a = assignment(src);
        assert_eq!(a.proc_path(src), "net/ipv4/conf/eth0.100/rp_filter");
        assert_eq!(a.normalized_key(src), "net.ipv4.conf.eth0/100.rp_filter");
        // …and with `.` separators it is written `/`.
        let src = b"net.ipv4.conf.eth0/100.rp_filter = 1\n";
        let b = assignment(src);
        assert_eq!(b.proc_path(src), "net/ipv4/conf/eth0.100/rp_filter");
        assert_eq!(b.normalized_key(src), "net.ipv4.conf.eth0/100.rp_filter");
    }

    #[test]
    fn repeated_separators_collapse() {
        let src = b"net..core.somaxconn = 6\n";
        let a = assignment(src);
        assert!(a.has_repeated_separators(src));
        assert_eq!(a.normalized_key(src), "net.core.somaxconn");
    }

    #[test]
    fn globs_are_marked() {
        let src = b"net.ipv4.conf.*.rp_filter = 2\n";
        let a = assignment(src);
        assert!(a.is_glob(src));
        assert_eq!(a.normalized_key(src), "net.ipv4.conf.*.rp_filter");
    }

    #[test]
    fn lines_procps_rejects() {
        let (kind, errors) = one(b"garbage line without equals\n");
        assert_eq!(kind, LineKind::Error);
        assert_eq!(errors[0].message, INVALID_SYNTAX);
        assert_eq!(errors[0].span, Span::new(0, 27));
        // `x\n` is two bytes: invalid syntax, not skipped.
        assert_eq!(one(b"x\n").1[0].message, INVALID_SYNTAX);
        let (kind, errors) = one(b" = 1\n");
        assert_eq!(kind, LineKind::Error);
        assert!(errors[0].message.starts_with("empty key"));
        // One byte at the end of the file: procps skips it silently, systemd warns.
        let (kind, errors) = one(b"y");
        assert_eq!(kind, LineKind::Error);
        assert!(errors[0].message.starts_with("Line is not an assignment"));
    }

    #[test]
    fn nul_ends_the_line_for_procps() {
        let src = b"net.core.somaxconn = a\0b\n";
        let a = assignment(src);
        assert_eq!(a.value_text(src), "a");
        let (kind, errors) = one(b"\0junk\n");
        assert_eq!(kind, LineKind::Blank);
        assert!(errors.is_empty());
    }

    #[test]
    fn round_trip_keeps_every_byte() {
        let src: &[u8] = b"# c\r\n\r\n\tkernel.x = 1 \r\nbad\n-a.b\n\xff\xfe = \xe9\nlast.key=1";
        let p = parse(src);
        assert_eq!(p.file.print(src).as_deref(), Some(src));
        assert_eq!(p.file.lines.len(), 7);
        assert_eq!(p.errors.len(), 1);
        assert_eq!(p.file.lines[0].eol, Span::new(3, 5));
        assert!(p.file.lines[6].eol.is_empty());
    }

    #[test]
    fn get_uses_the_last_assignment_and_either_separator() {
        let src = b"net.core.somaxconn = 1\nnet/core/somaxconn = 2\nvm.swappiness=10\n";
        let p = parse(src);
        assert_eq!(
            p.file
                .get(src, "net.core.somaxconn")
                .unwrap()
                .value_text(src),
            "2"
        );
        assert_eq!(p.file.get_all(src, "net/core/somaxconn").len(), 2);
        assert!(p.file.get(src, "vm.dirty_ratio").is_none());
    }
}
