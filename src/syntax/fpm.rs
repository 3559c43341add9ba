//! PHP-FPM configuration files (`php-fpm.conf` and pool files): a lossless line parser.
//!
//! # How php-fpm reads these files (and why this parser is shaped like it)
//!
//! `fpm_conf_load_ini_file()` (php-src `sapi/fpm/fpm/fpm_conf.c`, 8.2) reads the file one LF-terminated
//! line at a time, skips empty lines, appends `\n` and hands **each line on its own** to the Zend INI
//! parser (`zend_parse_ini_string(…, ZEND_INI_SCANNER_NORMAL, …)`). So:
//!
//! * a quoted string cannot span lines, and the line number of every message is the LF count;
//! * within one line the Zend scanner also treats a lone CR as a line end, so one physical line can
//!   hold several statements (`[www] listen = x` is a section *and* an entry; `a = 1\rb = 2` is two
//!   entries). We therefore split the file into *items* ([`Line`]): normally one per physical line,
//!   more when a physical line holds several statements. Items are contiguous and cover every byte,
//!   so [`FpmFile::print`] is a concatenation;
//! * a NUL byte ends the C string: whatever follows it on that line is invisible to php-fpm (we keep
//!   the bytes, and scan only up to the NUL).
//!
//! The scanner below is a port of the re2c rules of `Zend/zend_ini_scanner.l` (NORMAL mode, 8.2: no
//! `${VAR:-default}`, which arrived in 8.3), with re2c's longest-match/first-rule tie-breaking, and the
//! statement parser follows `Zend/zend_ini_parser.y` including bison's default reductions, so a syntax
//! error carries the exact text PHP prints (`syntax error, unexpected END_OF_LINE, expecting '='`)
//! — minus PHP's `in Unknown on line N` suffix, whose N is meaningless for per-line parsing. Every
//! message was checked against `php-fpm8.2 -t` (see `tests/php_fpm_binary.rs`).
//!
//! php-fpm stops at the first error of a file; we record it, skip the rest of that physical line,
//! and go on, so one run reports every bad line.
//!
//! Two layers of errors:
//! * [`parse`] reports what the INI grammar rejects, plus php-fpm's `value is NULL for a
//!   ZEND_INI_PARSER_ENTRY` (a line with a key and no `=`, e.g. a `#` comment) and the legacy XML
//!   format. These are version-independent.
//! * [`FpmFile::load_errors`] adds what php-fpm 8.2's loader rejects per entry: unknown entries,
//!   values its parsers refuse (`invalid boolean value`, …), array entries in the wrong place. Those
//!   depend on the php-fpm version (a new directive is "unknown" to an older php-fpm), so they are a
//!   separate pass that a rule can run with the target version in mind.

use crate::source::Span;
use crate::syntax::error::SyntaxError;
use crate::syntax::lines::{physical_lines, slice};
use std::borrow::Cow;

pub mod json;

/// The result of parsing one file: always a file (possibly with error items) and every error.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    pub file: FpmFile,
    pub errors: Vec<SyntaxError>,
}

/// A parsed PHP-FPM file: its items in order. Spans point into the source it was parsed from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FpmFile {
    pub lines: Vec<Line>,
    /// The file is PHP 5.2's XML configuration; every physical line is a [`LineKind::Xml`] item.
    pub xml: bool,
}

/// One item: a physical line, or one statement of a physical line that holds several. Its
/// `eol` is `\n`, `\r\n` or a lone `\r`.
pub type Line = super::lines::Line<LineKind>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Only spaces/tabs (or nothing php-fpm can see, e.g. after a NUL byte).
    Blank,
    /// A `;` comment. `text` runs from the `;` to the end of the line, excluding the terminator.
    /// `own_line` is false when an earlier statement shares the physical line (`[www] ; pool`).
    Comment { text: Span, own_line: bool },
    /// A `[name]` header: `[global]` or a pool.
    Section(Section),
    /// `key = value`.
    Entry(Entry),
    /// Bytes php-fpm rejects; the message is in [`Parsed::errors`].
    Error,
    /// A line of a PHP 5.2 XML configuration (see [`FpmFile::xml`]).
    Xml,
}

/// A section header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub open: Span,
    /// The raw text between the brackets. php-fpm keeps spaces: `[ www ]` is a pool named ` www `.
    pub name: Span,
    pub close: Span,
    parts: Vec<Part>,
}

impl Section {
    /// The section name as php-fpm sees it (quotes removed, `${VAR}` expanded with `env`).
    /// Constants are not resolved in section names (`constant_literal` in zend_ini_parser.y).
    pub fn name_text(&self, src: &[u8], env: &dyn Fn(&str) -> Option<String>) -> Vec<u8> {
        concat(&self.parts, src, env)
    }

    /// `[global]`, compared as php-fpm does (`strcasecmp`); any other name starts (or re-opens) a pool.
    pub fn is_global(&self, src: &[u8]) -> bool {
        self.name_text(src, &no_env).eq_ignore_ascii_case(b"global")
    }
}

/// A `key = value` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The key as written, without surrounding blanks: `pm.max_children`, `php_value[memory_limit]`.
    pub key: Span,
    /// The directive name: the whole key, or the part before `[` for `name[subkey]`.
    pub name: Span,
    /// For `name[subkey]`: the text between the brackets (after leading blanks; php-fpm keeps
    /// trailing ones: `php_value[ x ]` sets `x `). Empty for `access.suppress_path[]`.
    pub subkey: Option<Span>,
    /// The `=` sign.
    pub eq: Span,
    /// The value as written: first to last byte, quotes included, without surrounding blanks and
    /// without the trailing comment. Empty (just after `=` and its blanks) when there is no value.
    pub raw_value: Span,
    /// The value without its quotes when it is one quoted string (`"…"` or `'…'`), else `raw_value`.
    pub value: Span,
    /// A trailing `; comment`, from the `;` to the end of the line (terminator excluded).
    pub comment: Option<Span>,
    /// The header item (index into [`FpmFile::lines`]) this entry belongs to; `None` before any
    /// header. php-fpm applies such entries to whatever section is current when the file is read:
    /// `[global]` for the main file, the including file's section for an `include`d file.
    pub section: Option<usize>,
    expr: Expr,
    subkey_parts: Option<Vec<Part>>,
}

impl Entry {
    /// The key text as written (`PM.Max_Children` stays as is).
    pub fn key_text<'a>(&self, src: &'a [u8]) -> Cow<'a, str> {
        String::from_utf8_lossy(slice(src, self.key))
    }

    /// The directive name (the part before `[` for arrays).
    pub fn name_bytes<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        slice(src, self.name)
    }

    /// Whether this is an `include = …` entry (php-fpm matches `include` case-sensitively).
    pub fn is_include(&self, src: &[u8]) -> bool {
        self.subkey.is_none() && self.name_bytes(src) == b"include"
    }

    /// The value as php-fpm receives it from the INI parser: quotes removed, `\"` `\\` `\$` unescaped
    /// in double quotes, `yes/on/true` → `1`, `no/off/false/none/null` → empty, `${VAR}` replaced
    /// through `env` (php checks php.ini directives first, then the environment: give a closure that
    /// does the same; unset → empty), `E_*` constants and the `| & ^ ~ ! ()` operators evaluated as
    /// PHP does. Other constants PHP knows (`PHP_VERSION`, …) are kept as written; see
    /// [`Entry::unresolved_constants`]. `$pool` is *not* substituted here: that is php-fpm's later
    /// step ([`expand_pool`]), done only for string and array directives.
    pub fn value_text(&self, src: &[u8], env: &dyn Fn(&str) -> Option<String>) -> Vec<u8> {
        eval(&self.expr, src, env)
    }

    /// [`Entry::value_text`] with every `${VAR}` unset.
    pub fn value_text_no_env(&self, src: &[u8]) -> Vec<u8> {
        self.value_text(src, &no_env)
    }

    /// The subkey of `name[subkey]` as php-fpm sees it (quotes removed, `${VAR}` expanded,
    /// constants resolved: `php_value[E_ALL]` sets `32767`).
    pub fn subkey_text(&self, src: &[u8], env: &dyn Fn(&str) -> Option<String>) -> Option<Vec<u8>> {
        self.subkey_parts.as_ref().map(|p| concat(p, src, env))
    }

    /// Upper-case identifiers in the value that PHP would look up as constants and that we could
    /// not resolve (we know only the `E_*` error levels). Empty for nearly every real value.
    pub fn unresolved_constants(&self, src: &[u8]) -> Vec<Span> {
        let mut out = Vec::new();
        collect_constants(&self.expr, src, &mut out);
        out
    }

    /// Whether the value is a bare `yes/on/true/no/off/false/none/null` word, which the INI scanner
    /// turns into `1` or an empty string before php-fpm sees it.
    pub fn value_is_bool_word(&self) -> bool {
        matches!(self.expr, Expr::Bool(_) | Expr::Null)
    }
}

/// One section of a file as the accessors see it: a header occurrence and its entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionView {
    /// The header item, or `None` for the entries before the first header.
    pub header: Option<usize>,
    /// The evaluated name (`${VAR}` unset), or empty for the headerless part.
    pub name: Vec<u8>,
    pub is_global: bool,
    /// Indices into [`FpmFile::lines`] of the section's entries, in order.
    pub entries: Vec<usize>,
}

impl FpmFile {
    /// Rebuilds the file from its items. Items are contiguous by construction; returns `None`
    /// (and panics in debug builds) if that ever stops being true, i.e. if a byte was lost.
    pub fn print(&self, src: &[u8]) -> Option<Vec<u8>> {
        super::lines::print(&self.lines, src, "fpm items")
    }

    /// Every entry with its item index, in file order.
    pub fn entries(&self) -> impl Iterator<Item = (usize, &Entry)> + '_ {
        self.lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| match &l.kind {
                LineKind::Entry(e) => Some((i, e)),
                _ => None,
            })
    }

    /// Every `include = …` entry (resolution against the prefix and globbing happen elsewhere).
    pub fn includes<'a>(&'a self, src: &'a [u8]) -> impl Iterator<Item = (usize, &'a Entry)> + 'a {
        self.entries().filter(move |(_, e)| e.is_include(src))
    }

    /// The sections in file order: first the headerless part (if it has entries), then one view per
    /// header occurrence. A pool re-opened later (`[www]` twice, any case) gets two views;
    /// [`FpmFile::get`] merges them as php-fpm does.
    pub fn sections(&self, src: &[u8]) -> Vec<SectionView> {
        let mut out: Vec<SectionView> = Vec::new();
        let mut headless = SectionView {
            header: None,
            name: Vec::new(),
            is_global: false,
            entries: Vec::new(),
        };
        for (i, line) in self.lines.iter().enumerate() {
            match &line.kind {
                LineKind::Section(s) => out.push(SectionView {
                    header: Some(i),
                    name: s.name_text(src, &no_env),
                    is_global: s.is_global(src),
                    entries: Vec::new(),
                }),
                LineKind::Entry(e) => match (e.section, out.last_mut()) {
                    (Some(_), Some(view)) => view.entries.push(i),
                    _ => headless.entries.push(i),
                },
                _ => {}
            }
        }
        if !headless.entries.is_empty() {
            out.insert(0, headless);
        }
        out
    }

    /// The entry php-fpm would use for `key` in `section` (the last occurrence wins, as in 8.2).
    /// `section`: `None` for the entries before any header, else a name compared case-insensitively
    /// (php-fpm uses `strcasecmp` for `global` and pool names). `key`: directive names compare
    /// case-insensitively except `include`; array keys (`php_value[memory_limit]`, `env[PATH]`)
    /// compare exactly, as php-fpm does.
    pub fn get(&self, src: &[u8], section: Option<&str>, key: &str) -> Option<&Entry> {
        self.get_all(src, section, key).pop()
    }

    /// Every occurrence of `key` in `section`, in file order (see [`FpmFile::get`]).
    pub fn get_all(&self, src: &[u8], section: Option<&str>, key: &str) -> Vec<&Entry> {
        let want = KeyQuery::new(key);
        let mut out = Vec::new();
        for view in self.sections(src) {
            let matches = match (section, view.header) {
                (None, None) => true,
                (Some(name), Some(_)) => view.name.eq_ignore_ascii_case(name.as_bytes()),
                _ => false,
            };
            if !matches {
                continue;
            }
            for &i in &view.entries {
                if let Some(LineKind::Entry(e)) = self.lines.get(i).map(|l| &l.kind) {
                    if want.matches(e, src) {
                        out.push(e);
                    }
                }
            }
        }
        out
    }
}

/// A key to look up, split like an entry key: `php_value[memory_limit]` → (`php_value`, `memory_limit`).
struct KeyQuery<'k> {
    name: &'k str,
    subkey: Option<&'k str>,
}

impl<'k> KeyQuery<'k> {
    fn new(key: &'k str) -> Self {
        match key.split_once('[') {
            Some((name, rest)) => KeyQuery {
                name: name.trim(),
                subkey: Some(rest.strip_suffix(']').unwrap_or(rest)),
            },
            None => KeyQuery {
                name: key.trim(),
                subkey: None,
            },
        }
    }

    fn matches(&self, e: &Entry, src: &[u8]) -> bool {
        let name = e.name_bytes(src);
        match (self.subkey, &e.subkey_parts) {
            (None, None) if self.name == "include" || name == b"include" => {
                name == self.name.as_bytes()
            }
            (None, None) => name.eq_ignore_ascii_case(self.name.as_bytes()),
            (Some(sub), Some(parts)) => {
                name == self.name.as_bytes() && concat(parts, src, &no_env) == sub.as_bytes()
            }
            _ => false,
        }
    }
}

/// An environment with nothing set.
pub fn no_env(_: &str) -> Option<String> {
    None
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// Parses a PHP-FPM configuration file. Never panics; every byte ends up in exactly one item.
pub fn parse(src: &[u8]) -> Parsed {
    if is_xml(src) {
        return parse_xml(src);
    }
    let mut file = FpmFile::default();
    let mut errors = Vec::new();
    let mut section: Option<usize> = None;
    for (start, end) in physical_lines(src) {
        parse_physical_line(src, start, end, &mut file, &mut errors, &mut section);
    }
    if super::encoding::is_utf16(src) {
        errors = vec![super::encoding::utf16_error(src)];
    }
    Parsed { file, errors }
}

/// PHP 5.2's php-fpm used an XML file (`<?xml …?>` / `<configuration>`). php-fpm 8.2 reads it as
/// INI and stops at line 1 with `unknown entry '<?xml version'`; one clear diagnostic is more useful
/// than a list of INI errors for every tag.
fn is_xml(src: &[u8]) -> bool {
    let body = src.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(src);
    let first = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(&[][..], |i| &body[i..]);
    first.starts_with(b"<?xml") || first.starts_with(b"<configuration")
}

fn parse_xml(src: &[u8]) -> Parsed {
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

fn item(src: &[u8], start: usize, end: usize, kind: LineKind) -> Line {
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
struct Stmt {
    kind: LineKind,
    end: usize,
}

/// Splits one physical line (`start..end`, LF included if any) into items.
fn parse_physical_line(
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
fn statements(
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
struct LineBuf<'a> {
    bytes: Cow<'a, [u8]>,
    /// Absolute offset of `bytes[0]`.
    base: usize,
    /// Absolute end of the physical line (for clamping the appended `\n`).
    end: usize,
}

impl<'a> LineBuf<'a> {
    fn new(src: &'a [u8], start: usize, end: usize) -> Self {
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

    fn abs(&self, i: usize) -> usize {
        (self.base + i).min(self.end)
    }

    fn span(&self, s: usize, e: usize) -> Span {
        Span::new(self.abs(s) as u32, self.abs(e) as u32)
    }
}

// ---------------------------------------------------------------------------------------------
// The Zend INI scanner (NORMAL mode), one line at a time
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Initial,
    Value,
    SectionValue,
    Offset,
    DoubleQuotes,
    VarName,
}

/// Token kinds; the names in [`Tk::name`] are bison's, as they appear in PHP's messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tk {
    End,
    Section,
    Raw,
    Constant,
    Number,
    Str,
    Whitespace,
    Label,
    Offset,
    DollarCurly,
    VarName,
    Quoted,
    True,
    False,
    Null,
    Eol,
    Ch(u8),
}

impl Tk {
    fn name(self) -> String {
        match self {
            Tk::End => "end of file".into(),
            Tk::Section => "TC_SECTION".into(),
            Tk::Raw => "TC_RAW".into(),
            Tk::Constant => "TC_CONSTANT".into(),
            Tk::Number => "TC_NUMBER".into(),
            Tk::Str => "TC_STRING".into(),
            Tk::Whitespace => "TC_WHITESPACE".into(),
            Tk::Label => "TC_LABEL".into(),
            Tk::Offset => "TC_OFFSET".into(),
            Tk::DollarCurly => "TC_DOLLAR_CURLY".into(),
            Tk::VarName => "TC_VARNAME".into(),
            Tk::Quoted => "TC_QUOTED_STRING".into(),
            Tk::True => "BOOL_TRUE".into(),
            Tk::False => "BOOL_FALSE".into(),
            Tk::Null => "NULL_NULL".into(),
            Tk::Eol => "END_OF_LINE".into(),
            Tk::Ch(c) => format!("'{}'", c as char),
        }
    }
}

/// A token: the bytes it consumed (`start..end`) and its semantic text (`text`, e.g. a label
/// without blanks, a raw string without quotes), as indices into the line buffer.
#[derive(Clone, Copy, Debug)]
struct Tok {
    kind: Tk,
    start: usize,
    end: usize,
    text: (usize, usize),
}

/// What a matched rule does (one variant per rule of zend_ini_scanner.l that NORMAL mode uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    SectionOpen,
    Raw,
    SectionClose,
    Offset,
    OffsetClose,
    DollarCurly,
    VarName,
    VarClose,
    True,
    False,
    Null,
    Label,
    Eq,
    ValueEol,
    Constant,
    Number,
    Token,
    Operator,
    EqInValue,
    Str,
    DqOpen,
    DqClose,
    DqContent,
    Whitespace,
    Skip,
    InitialEol,
    Comment,
    ValueAny,
    Any,
}

/// `LABEL` (8.2: `[^=\n\r\t;&|^$~(){}!"\[]+`; `]` is allowed, so `foo] = 1` is the entry `foo]`).
fn is_label_char(c: u8) -> bool {
    !matches!(
        c,
        b'=' | b'\n'
            | b'\r'
            | b'\t'
            | b';'
            | b'&'
            | b'|'
            | b'^'
            | b'$'
            | b'~'
            | b'('
            | b')'
            | b'{'
            | b'}'
            | b'!'
            | b'"'
            | b'['
            | 0
    )
}

/// `TOKENS`: characters returned as themselves outside values.
fn is_token_char(c: u8) -> bool {
    b":,.[]\"'()&|^+-/*=%$!~<>?@{}".contains(&c)
}

fn is_operator(c: u8) -> bool {
    b"&|^~()!".contains(&c)
}

const TRUE_WORDS: &[&[u8]] = &[b"true", b"on", b"yes"];
const FALSE_WORDS: &[&[u8]] = &[b"false", b"off", b"none", b"no"];
const NULL_WORDS: &[&[u8]] = &[b"null"];

/// Keeps the longest candidate; on a tie the earlier rule (offered first) wins, as in re2c.
fn offer(best: &mut Option<(usize, Act)>, len: usize, act: Act) {
    if len > 0 && !matches!(best, Some((l, _)) if len <= *l) {
        *best = Some((len, act));
    }
}

struct Lexer<'b> {
    buf: &'b [u8],
    pos: usize,
    mode: Mode,
    stack: Vec<Mode>,
}

impl<'b> Lexer<'b> {
    fn new(buf: &'b [u8]) -> Self {
        Lexer {
            buf,
            pos: 0,
            mode: Mode::Initial,
            stack: Vec::new(),
        }
    }

    /// The byte at `i`, or 0 past the end (the C string's terminator, which no rule accepts).
    fn at(&self, i: usize) -> u8 {
        self.buf.get(i).copied().unwrap_or(0)
    }

    fn ts(&self, i: usize) -> usize {
        self.buf.get(i..).map_or(0, |r| {
            r.iter().take_while(|&&c| c == b' ' || c == b'\t').count()
        })
    }

    fn newline(&self, i: usize) -> usize {
        match (self.at(i), self.at(i + 1)) {
            (b'\r', b'\n') => 2,
            (b'\r', _) | (b'\n', _) => 1,
            _ => 0,
        }
    }

    fn run(&self, i: usize, f: impl Fn(u8) -> bool) -> usize {
        self.buf
            .get(i..)
            .map_or(0, |r| r.iter().take_while(|&&c| f(c)).count())
    }

    fn label(&self, i: usize) -> usize {
        self.run(i, is_label_char)
    }

    /// `("true"|"on"|"yes"){TABS_AND_SPACES}*` and friends; PHP builds the scanner with
    /// `re2c --case-inverted`, so these words match in any case (`YES`, `Off`).
    fn word(&self, i: usize, words: &[&[u8]]) -> usize {
        let rest = self.buf.get(i..).unwrap_or_default();
        words
            .iter()
            .filter(|w| rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w))
            .map(|w| w.len() + self.ts(i + w.len()))
            .max()
            .unwrap_or(0)
    }

    fn constant(&self, i: usize) -> usize {
        let c = self.at(i);
        if c.is_ascii_alphabetic() || c == b'_' {
            1 + self.run(i + 1, |c| c.is_ascii_alphanumeric() || c == b'_')
        } else {
            0
        }
    }

    /// `NUMBER ([-]?{LNUM})|([-]?{DNUM})`.
    fn number(&self, i: usize) -> usize {
        let sign = usize::from(self.at(i) == b'-');
        let j = i + sign;
        let int = self.run(j, |c| c.is_ascii_digit());
        let dnum = if self.at(j + int) == b'.' {
            let frac = self.run(j + int + 1, |c| c.is_ascii_digit());
            if int + frac > 0 {
                int + 1 + frac
            } else {
                0
            }
        } else {
            0
        };
        let len = int.max(dnum);
        if len == 0 {
            0
        } else {
            sign + len
        }
    }

    /// `LITERAL_DOLLAR ("$"([^{\000]|("\\"{ANY_CHAR})))`: a `$` not starting `${`.
    fn literal_dollar(&self, i: usize) -> usize {
        let next = self.at(i + 1);
        if next == b'\\' && i + 2 < self.buf.len() {
            3
        } else if next != b'{' && next != 0 {
            2
        } else {
            0
        }
    }

    /// `{VALUE_CHARS}+`.
    fn value_chars(&self, i: usize) -> usize {
        let mut j = i;
        loop {
            let c = self.at(j);
            let n = match c {
                b'$' => self.literal_dollar(j),
                b'=' | b' ' | b'\t' | b'\n' | b'\r' | b';' | b'&' | b'|' | b'^' | b'~' | b'('
                | b')' | b'!' | b'"' | b'\'' | 0 => 0,
                _ => 1,
            };
            if n == 0 {
                return j - i;
            }
            j += n;
        }
    }

    /// `{SECTION_VALUE_CHARS}+`: section names and array keys (backslash escapes any byte).
    fn section_chars(&self, i: usize) -> usize {
        let mut j = i;
        loop {
            let c = self.at(j);
            let n = match c {
                b'$' => self.literal_dollar(j),
                b'\\' if j + 1 < self.buf.len() => 2,
                b'\n' | b'\r' | b';' | b'"' | b'\'' | b']' | b'\\' | 0 => 0,
                _ => 1,
            };
            if n == 0 {
                return j - i;
            }
            j += n;
        }
    }

    /// `"'"{SINGLE_QUOTED_CHARS}+"'"`: its length, or `Some(None)` for an unterminated `'`, which
    /// reads past the end (see [`Lexer::reads_past_end`]): php then reports `unexpected end of
    /// file` (verified: `a = 'abc` fails, `a = ab'c` silently keeps `ab`).
    fn raw(&self, i: usize) -> Option<Option<usize>> {
        if self.at(i) != b'\'' || self.at(i + 1) == b'\'' {
            return None;
        }
        let close = self.buf.get(i + 1..)?.iter().position(|&c| c == b'\'');
        Some(close.map(|k| k + 2))
    }

    /// `{TABS_AND_SPACES}*[;][^\r\n]*{NEWLINE}` (the newline is required).
    fn comment(&self, i: usize) -> usize {
        let t = self.ts(i);
        if self.at(i + t) != b';' {
            return 0;
        }
        let body = self.run(i + t + 1, |c| c != b'\r' && c != b'\n' && c != 0);
        let nl = self.newline(i + t + 1 + body);
        if nl == 0 {
            0
        } else {
            t + 1 + body + nl
        }
    }

    /// A `;` comment cut by a NUL byte: its body class `[^\r\n]` takes the terminator too.
    fn comment_runs_off(&self, i: usize) -> bool {
        let t = self.ts(i);
        self.at(i + t) == b';'
            && i + t + 1 + self.run(i + t + 1, |c| c != b'\r' && c != b'\n') >= self.buf.len()
    }

    fn tok(&self, kind: Tk, start: usize, end: usize) -> Tok {
        Tok {
            kind,
            start,
            end,
            text: (start, end),
        }
    }

    /// `EAT_LEADING_WHITESPACE` / `EAT_TRAILING_WHITESPACE`: the text of labels and var names.
    fn trimmed(&self, mut s: usize, mut e: usize, also: u8) -> (usize, usize) {
        while s < e && matches!(self.at(s), b' ' | b'\t') {
            s += 1;
        }
        while e > s
            && (matches!(self.at(e - 1), b'\n' | b'\r' | b'\t' | b' ') || self.at(e - 1) == also)
        {
            e -= 1;
        }
        (s, e)
    }

    fn next(&mut self) -> Tok {
        loop {
            let p = self.pos;
            if p >= self.buf.len() {
                if self.mode == Mode::Value {
                    self.mode = Mode::Initial;
                    return self.tok(Tk::Eol, p, p);
                }
                return self.tok(Tk::End, p, p);
            }
            // "Eat any UTF-8 BOM we find in the first 3 bytes" (of each line buffer).
            if p == 0 && self.buf.len() > 3 && self.buf.starts_with(b"\xEF\xBB\xBF") {
                self.pos = 3;
                continue;
            }
            if self.reads_past_end(p) {
                self.pos = self.buf.len();
                return self.tok(Tk::End, p, self.buf.len());
            }
            let best = match self.mode {
                Mode::Initial => self.match_initial(p),
                Mode::Value => self.match_value(p),
                Mode::SectionValue | Mode::Offset => self.match_section(p),
                Mode::DoubleQuotes => self.match_dq(p),
                Mode::VarName => self.match_varname(p),
            };
            let (len, act) = best.unwrap_or((1, Act::Any));
            if let Some(t) = self.act(p, len, act) {
                return t;
            }
        }
    }

    /// PHP's `YYFILL` makes the scanner return 0 ("end of file") when a rule reads past the end
    /// of the C string. With the `\n` php-fpm appends, that happens to an unterminated `'…`
    /// (`[^']` takes the newline and the terminator); on a line cut by a NUL byte, also to a label
    /// or a `;` comment running into it (`x\0` is ignored, not an entry: verified).
    fn reads_past_end(&self, p: usize) -> bool {
        match self.mode {
            Mode::Initial => p + self.label(p) >= self.buf.len() || self.comment_runs_off(p),
            Mode::VarName => p + self.label(p) >= self.buf.len(),
            Mode::Value => self.raw(p) == Some(None) || self.comment_runs_off(p),
            Mode::SectionValue | Mode::Offset => self.raw(p) == Some(None),
            Mode::DoubleQuotes => false,
        }
    }

    fn match_initial(&self, p: usize) -> Option<(usize, Act)> {
        let c = self.at(p);
        let mut best = None;
        if c == b'[' {
            offer(&mut best, 1, Act::SectionOpen);
        }
        let l = self.label(p);
        if l > 0 && self.at(p + l) == b'[' {
            offer(&mut best, l + 1 + self.ts(p + l + 1), Act::Offset);
        }
        offer(&mut best, self.word(p, TRUE_WORDS), Act::True);
        offer(&mut best, self.word(p, FALSE_WORDS), Act::False);
        offer(&mut best, self.word(p, NULL_WORDS), Act::Null);
        offer(&mut best, l, Act::Label);
        let t = self.ts(p);
        if self.at(p + t) == b'=' {
            offer(&mut best, t + 1 + self.ts(p + t + 1), Act::Eq);
        }
        if is_token_char(c) {
            offer(&mut best, 1, Act::Token);
        }
        offer(&mut best, t, Act::Skip);
        let nl = self.newline(p + t);
        if nl > 0 {
            offer(&mut best, t + nl, Act::InitialEol);
        }
        offer(&mut best, self.comment(p), Act::Comment);
        best
    }

    fn match_value(&self, p: usize) -> Option<(usize, Act)> {
        let c = self.at(p);
        let mut best = None;
        offer(&mut best, self.raw(p).flatten().unwrap_or(0), Act::Raw);
        if c == b'$' && self.at(p + 1) == b'{' {
            offer(&mut best, 2, Act::DollarCurly);
        }
        offer(&mut best, self.word(p, TRUE_WORDS), Act::True);
        offer(&mut best, self.word(p, FALSE_WORDS), Act::False);
        offer(&mut best, self.word(p, NULL_WORDS), Act::Null);
        let t = self.ts(p);
        let nl = self.newline(p + t);
        if nl > 0 {
            offer(&mut best, t + nl, Act::ValueEol);
        }
        offer(&mut best, self.constant(p), Act::Constant);
        offer(&mut best, self.number(p), Act::Number);
        if is_operator(c) {
            offer(&mut best, 1 + self.ts(p + 1), Act::Operator);
        }
        if c == b'=' {
            offer(&mut best, 1, Act::EqInValue);
        }
        offer(&mut best, self.value_chars(p), Act::Str);
        if self.at(p + t) == b'"' {
            offer(&mut best, t + 1, Act::DqOpen);
        }
        offer(&mut best, t, Act::Whitespace);
        offer(&mut best, self.comment(p), Act::Comment);
        offer(&mut best, 1, Act::ValueAny);
        best
    }

    /// Section names (`[…]`) and array keys (`name[…]`) share most rules.
    fn match_section(&self, p: usize) -> Option<(usize, Act)> {
        let c = self.at(p);
        let t = self.ts(p);
        let mut best = None;
        offer(&mut best, self.raw(p).flatten().unwrap_or(0), Act::Raw);
        if self.mode == Mode::SectionValue && c == b']' {
            let t2 = self.ts(p + 1);
            offer(
                &mut best,
                1 + t2 + self.newline(p + 1 + t2),
                Act::SectionClose,
            );
        }
        if self.mode == Mode::Offset && self.at(p + t) == b']' {
            offer(&mut best, t + 1, Act::OffsetClose);
        }
        if c == b'$' && self.at(p + 1) == b'{' {
            offer(&mut best, 2, Act::DollarCurly);
        }
        offer(&mut best, self.constant(p), Act::Constant);
        offer(&mut best, self.number(p), Act::Number);
        offer(&mut best, self.section_chars(p), Act::Str);
        if self.at(p + t) == b'"' {
            offer(&mut best, t + 1, Act::DqOpen);
        }
        offer(&mut best, t, Act::Whitespace);
        best
    }

    fn match_dq(&self, p: usize) -> Option<(usize, Act)> {
        let mut best = None;
        if self.at(p) == b'$' && self.at(p + 1) == b'{' {
            offer(&mut best, 2, Act::DollarCurly);
        }
        if self.at(p) == b'"' {
            offer(&mut best, 1 + self.ts(p + 1), Act::DqClose);
        }
        offer(&mut best, 1, Act::DqContent);
        best
    }

    fn match_varname(&self, p: usize) -> Option<(usize, Act)> {
        let mut best = None;
        offer(&mut best, self.label(p), Act::VarName);
        if self.at(p) == b'}' {
            offer(&mut best, 1, Act::VarClose);
        }
        best
    }

    /// The body of the double-quoted-string rule (PHP 8.2): up to the closing `"` or `${`; `\x`
    /// skips one byte, except that `\"` right before the end of the line closes the string
    /// (`"C:\path\"`).
    fn dq_content_end(&self, p: usize) -> usize {
        let lim = self.buf.len();
        let mut s = p;
        while s < lim {
            let c = self.buf[s];
            s += 1;
            match c {
                b'"' => return s - 1,
                b'$' if self.at(s) == b'{' && s < lim => return s - 1,
                b'\\' if s < lim => {
                    let escaped = self.buf[s];
                    s += 1;
                    if escaped == b'"' && (s >= lim || matches!(self.buf[s], b'\n' | b'\r')) {
                        return s - 1;
                    }
                }
                _ => {}
            }
        }
        lim
    }

    fn push(&mut self, m: Mode) {
        self.stack.push(self.mode);
        self.mode = m;
    }

    fn pop(&mut self) {
        self.mode = self.stack.pop().unwrap_or(Mode::Initial);
    }

    /// Runs a rule's action; `None` means "restart" (whitespace skipped in INITIAL).
    fn act(&mut self, p: usize, len: usize, act: Act) -> Option<Tok> {
        let e = p + len;
        self.pos = e;
        let t = match act {
            Act::SectionOpen => {
                self.mode = Mode::SectionValue;
                self.tok(Tk::Section, p, e)
            }
            Act::Raw => Tok {
                text: (p + 1, e - 1),
                ..self.tok(Tk::Raw, p, e)
            },
            Act::SectionClose | Act::OffsetClose => {
                self.mode = Mode::Initial;
                self.tok(Tk::Ch(b']'), p, e)
            }
            Act::Offset => {
                self.mode = Mode::Offset;
                Tok {
                    text: self.trimmed(p, e, b'['),
                    ..self.tok(Tk::Offset, p, e)
                }
            }
            Act::DollarCurly => {
                self.push(Mode::VarName);
                self.tok(Tk::DollarCurly, p, e)
            }
            Act::VarName => Tok {
                text: self.trimmed(p, e, b' '),
                ..self.tok(Tk::VarName, p, e)
            },
            Act::VarClose => {
                self.pop();
                self.tok(Tk::Ch(b'}'), p, e)
            }
            Act::True => self.tok(Tk::True, p, e),
            Act::False => self.tok(Tk::False, p, e),
            Act::Null => self.tok(Tk::Null, p, e),
            Act::Label => Tok {
                text: self.trimmed(p, e, b' '),
                ..self.tok(Tk::Label, p, e)
            },
            Act::Eq => {
                self.mode = Mode::Value;
                self.tok(Tk::Ch(b'='), p, e)
            }
            Act::ValueEol | Act::InitialEol | Act::Comment | Act::ValueAny => {
                self.mode = Mode::Initial;
                self.tok(Tk::Eol, p, e)
            }
            Act::Constant => self.tok(Tk::Constant, p, e),
            Act::Number => self.tok(Tk::Number, p, e),
            Act::Token | Act::Operator => self.tok(Tk::Ch(self.at(p)), p, e),
            Act::EqInValue => {
                // `yyless(0)`: the `=` is scanned again in INITIAL, where it is a syntax error.
                self.pos = p;
                self.mode = Mode::Initial;
                self.tok(Tk::Eol, p, p)
            }
            Act::Str => self.tok(Tk::Str, p, e),
            Act::DqOpen => {
                self.push(Mode::DoubleQuotes);
                self.tok(Tk::Ch(b'"'), p, e)
            }
            Act::DqClose => {
                self.pop();
                self.tok(Tk::Ch(b'"'), p, e)
            }
            Act::DqContent => {
                let end = self.dq_content_end(p);
                self.pos = end;
                self.tok(Tk::Quoted, p, end)
            }
            Act::Whitespace => self.tok(Tk::Whitespace, p, e),
            Act::Skip => return None,
            Act::Any => {
                // `<*>[^] { return 0; }`: the parser sees the end of input.
                self.pos = self.buf.len();
                self.tok(Tk::End, p, self.buf.len())
            }
        };
        Some(t)
    }
}

// ---------------------------------------------------------------------------------------------
// The statement parser (zend_ini_parser.y)
// ---------------------------------------------------------------------------------------------

/// A piece of a string value (`var_string_list` / `encapsed_list`), by span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Literal bytes (bare words, numbers, blanks, `'raw'` contents).
    Text(Span),
    /// Double-quoted contents: `\"`, `\\`, `\$` are unescaped.
    Escaped(Span),
    /// `${NAME}`: the name.
    Var(Span),
    /// A bare identifier PHP looks up with `zend_get_constant()`.
    Constant(Span),
}

/// The value of an entry as `string_or_value` / `expr` build it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Expr {
    Empty,
    Bool(bool),
    Null,
    Concat(Vec<Part>),
    Unary(u8, Box<Expr>),
    Binary(u8, Box<Expr>, Box<Expr>),
}

struct SynErr {
    message: String,
    span: Span,
}

/// The expected tokens bison lists in the states where it does (four or fewer; elsewhere PHP's
/// message is just `syntax error, unexpected X`).
const EXPECT_CLOSE_BRACKET: &str = "']'";
const EXPECT_EQ: &str = "'='";
const EXPECT_VARNAME: &str = "TC_VARNAME";
const EXPECT_CLOSE_BRACE: &str = "'}'";
const EXPECT_ENCAPSED: &str = "TC_DOLLAR_CURLY or TC_QUOTED_STRING or '\"'";
const EXPECT_CLOSE_PAREN: &str = "'^' or '|' or '&' or ')'";

/// What follows a key: `=`, the value and a trailing comment (see [`Entry`] for each span).
struct Assigned {
    eq: Span,
    raw: Span,
    unquoted: Span,
    comment: Option<Span>,
    expr: Expr,
}

/// A string value being collected, and whether it is exactly one quoted string.
struct StringList {
    parts: Vec<Part>,
    items: usize,
    quoted_inner: Option<Span>,
}

struct Parser<'a> {
    buf: &'a LineBuf<'a>,
    lx: Lexer<'a>,
    tok: Tok,
    /// Absolute end of the last token consumed.
    last_end: usize,
    /// Buffer index of the closing quote of the last double-quoted string.
    last_close_quote: usize,
}

impl<'a> Parser<'a> {
    fn new(buf: &'a LineBuf<'a>) -> Self {
        let mut lx = Lexer::new(&buf.bytes);
        let tok = lx.next();
        Parser {
            buf,
            lx,
            tok,
            last_end: buf.base,
            last_close_quote: 0,
        }
    }

    fn bump(&mut self) -> Tok {
        let t = self.tok;
        self.last_end = self.buf.abs(t.end);
        self.tok = self.lx.next();
        t
    }

    fn span(&self, t: &Tok) -> Span {
        self.buf.span(t.start, t.end)
    }

    fn text(&self, t: &Tok) -> Span {
        self.buf.span(t.text.0, t.text.1)
    }

    fn unexpected(&self, expecting: Option<&str>) -> SynErr {
        let mut message = format!("syntax error, unexpected {}", self.tok.kind.name());
        if let Some(e) = expecting {
            message.push_str(", expecting ");
            message.push_str(e);
        }
        SynErr {
            message,
            span: self.span(&self.tok),
        }
    }

    fn expect(&mut self, kind: Tk, expecting: &str) -> Result<Tok, SynErr> {
        if self.tok.kind == kind {
            Ok(self.bump())
        } else {
            Err(self.unexpected(Some(expecting)))
        }
    }

    /// `statement`. `Ok(None)` at the end of the line.
    fn statement(&mut self, section: Option<usize>) -> Result<Option<Stmt>, SynErr> {
        match self.tok.kind {
            Tk::End => Ok(None),
            Tk::Eol => {
                let t = self.bump();
                Ok(Some(Stmt {
                    kind: self.eol_kind(&t),
                    end: self.last_end,
                }))
            }
            Tk::Section => self.section().map(Some),
            Tk::Label | Tk::Offset => self.entry(section).map(Some),
            _ => Err(self.unexpected(None)),
        }
    }

    /// A blank line or a `;` comment (both are an `END_OF_LINE` token).
    fn eol_kind(&self, t: &Tok) -> LineKind {
        let bytes = &self.buf.bytes[t.start..t.end];
        match bytes.iter().position(|&b| b == b';') {
            Some(i) => {
                let stop = t.start
                    + bytes
                        .iter()
                        .rposition(|&b| b != b'\n' && b != b'\r')
                        .map_or(i, |j| j + 1);
                LineKind::Comment {
                    text: self.buf.span(t.start + i, stop),
                    own_line: true,
                }
            }
            None => LineKind::Blank,
        }
    }

    /// `TC_SECTION section_string_or_value ']'`.
    fn section(&mut self) -> Result<Stmt, SynErr> {
        let open = self.bump();
        let first = self.tok.start;
        let list = self.string_list(true)?;
        let name = self.covered(&list, first, open.end);
        let close = self.expect(Tk::Ch(b']'), EXPECT_CLOSE_BRACKET)?;
        Ok(Stmt {
            kind: LineKind::Section(Section {
                open: self.span(&open),
                name,
                close: self.buf.span(close.start, close.start + 1),
                parts: list.parts,
            }),
            end: self.last_end,
        })
    }

    /// The bytes a string list consumed (from buffer index `first` to the last token), or an empty
    /// span at buffer index `empty_at` when it is empty.
    fn covered(&self, list: &StringList, first: usize, empty_at: usize) -> Span {
        if list.items == 0 {
            self.buf.span(empty_at, empty_at)
        } else {
            Span::new(self.buf.abs(first) as u32, self.last_end as u32)
        }
    }

    /// `TC_LABEL '=' string_or_value`, `TC_OFFSET option_offset ']' '=' string_or_value`, or a
    /// bare `TC_LABEL`, which php-fpm's callback rejects (`value is NULL …`).
    fn entry(&mut self, section: Option<usize>) -> Result<Stmt, SynErr> {
        let head = self.bump();
        let name = self.text(&head);
        let (key, subkey, subkey_parts) = if head.kind == Tk::Offset {
            let (key, sub, parts) = self.array_key(&head, name)?;
            (key, Some(sub), Some(parts))
        } else {
            (name, None, None)
        };
        if self.tok.kind != Tk::Ch(b'=') {
            if head.kind == Tk::Offset {
                return Err(self.unexpected(Some(EXPECT_EQ)));
            }
            return Err(SynErr {
                message: "value is NULL for a ZEND_INI_PARSER_ENTRY".into(),
                span: name,
            });
        }
        let value = self.assignment()?;
        Ok(Stmt {
            kind: LineKind::Entry(Entry {
                key,
                name,
                subkey,
                eq: value.eq,
                raw_value: value.raw,
                value: value.unquoted,
                comment: value.comment,
                section,
                expr: value.expr,
                subkey_parts,
            }),
            end: self.last_end,
        })
    }

    /// `option_offset ']'` after `name[`: the whole key's span, the subkey's, and its parts.
    fn array_key(&mut self, head: &Tok, name: Span) -> Result<(Span, Span, Vec<Part>), SynErr> {
        let first = self.tok.start;
        let list = self.string_list(false)?;
        let sub = self.covered(&list, first, head.end);
        let close = self.expect(Tk::Ch(b']'), EXPECT_CLOSE_BRACKET)?;
        let key = Span::new(name.start, self.buf.abs(close.end) as u32);
        Ok((key, sub, list.parts))
    }

    /// `'=' string_or_value`, and the comment that ends the line, if any.
    fn assignment(&mut self) -> Result<Assigned, SynErr> {
        let eq_tok = self.bump();
        // The `=` token includes the blanks around the sign.
        let eq_at = eq_tok.start
            + self.buf.bytes[eq_tok.start..eq_tok.end]
                .iter()
                .position(|&b| b == b'=')
                .unwrap_or(0);
        let value_start = self.buf.abs(eq_tok.end);
        let first = self.tok.start;
        let (expr, quoted_inner) = self.string_or_value()?;
        let raw = if matches!(expr, Expr::Empty) {
            Span::empty(value_start as u32)
        } else {
            self.trim_value(self.buf.abs(first).max(value_start), self.last_end)
        };
        let mut comment = None;
        if self.tok.kind == Tk::Eol {
            let t = self.bump();
            if let LineKind::Comment { text, .. } = self.eol_kind(&t) {
                comment = Some(text);
            }
        }
        Ok(Assigned {
            eq: self.buf.span(eq_at, eq_at + 1),
            raw,
            unquoted: quoted_inner.unwrap_or(raw),
            comment,
            expr,
        })
    }

    /// The value's bytes without the blanks (and any newline) that tokens like `"…"  ` include.
    fn trim_value(&self, s: usize, e: usize) -> Span {
        let mut e = e.max(s);
        while e > s {
            let i = e - 1 - self.buf.base;
            match self.buf.bytes.get(i) {
                Some(b' ' | b'\t' | b'\r' | b'\n') => e -= 1,
                _ => break,
            }
        }
        Span::new(s as u32, e as u32)
    }

    /// `string_or_value: expr | BOOL_TRUE | BOOL_FALSE | NULL_NULL | END_OF_LINE`.
    fn string_or_value(&mut self) -> Result<(Expr, Option<Span>), SynErr> {
        match self.tok.kind {
            Tk::True => {
                self.bump();
                Ok((Expr::Bool(true), None))
            }
            Tk::False => {
                self.bump();
                Ok((Expr::Bool(false), None))
            }
            Tk::Null => {
                self.bump();
                Ok((Expr::Null, None))
            }
            Tk::Eol => Ok((Expr::Empty, None)),
            _ => {
                let mut quoted = None;
                let e = self.expr(&mut quoted)?;
                Ok((e, quoted))
            }
        }
    }

    /// `expr` with `%left '|' '&' '^'` and the unary `~`, `!` binding tighter.
    fn expr(&mut self, quoted: &mut Option<Span>) -> Result<Expr, SynErr> {
        let mut lhs = self.unary(quoted)?;
        while let Tk::Ch(op @ (b'|' | b'&' | b'^')) = self.tok.kind {
            self.bump();
            *quoted = None;
            let rhs = self.unary(quoted)?;
            *quoted = None;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn unary(&mut self, quoted: &mut Option<Span>) -> Result<Expr, SynErr> {
        match self.tok.kind {
            Tk::Ch(op @ (b'~' | b'!')) => {
                self.bump();
                *quoted = None;
                let inner = self.unary(quoted)?;
                *quoted = None;
                Ok(Expr::Unary(op, Box::new(inner)))
            }
            Tk::Ch(b'(') => {
                self.bump();
                let inner = self.expr(quoted)?;
                *quoted = None;
                self.expect(Tk::Ch(b')'), EXPECT_CLOSE_PAREN)?;
                Ok(inner)
            }
            _ => {
                let list = self.string_list(false)?;
                if list.items == 0 {
                    return Err(self.unexpected(None));
                }
                *quoted = if list.items == 1 {
                    list.quoted_inner
                } else {
                    None
                };
                Ok(Expr::Concat(list.parts))
            }
        }
    }

    /// `var_string_list` (values, array keys; constants resolved) or `var_string_list_section`
    /// (section names; constants kept as written). Stops at the first token that cannot continue it.
    fn string_list(&mut self, section: bool) -> Result<StringList, SynErr> {
        let mut list = StringList {
            parts: Vec::new(),
            items: 0,
            quoted_inner: None,
        };
        loop {
            let t = self.tok;
            match t.kind {
                Tk::DollarCurly => {
                    let var = self.var_ref()?;
                    list.parts.push(var);
                    list.quoted_inner = None;
                }
                Tk::Constant if !section => {
                    self.bump();
                    list.parts.push(Part::Constant(self.span(&t)));
                }
                Tk::Raw => {
                    self.bump();
                    let inner = self.text(&t);
                    list.parts.push(Part::Text(inner));
                    list.quoted_inner = Some(inner);
                }
                Tk::Constant | Tk::Number | Tk::Str | Tk::Whitespace => {
                    self.bump();
                    list.parts.push(Part::Text(self.span(&t)));
                }
                Tk::Ch(b'"') => {
                    self.bump();
                    let open_end = self.buf.abs(t.end);
                    let parts = self.encapsed()?;
                    let close_start = self.buf.abs(self.last_close_quote);
                    list.parts.extend(parts);
                    list.quoted_inner = Some(Span::new(open_end as u32, close_start as u32));
                }
                _ => break,
            }
            list.items += 1;
        }
        if list.items != 1 {
            list.quoted_inner = None;
        }
        Ok(list)
    }

    /// `encapsed_list '"'`: double-quoted contents up to the closing quote.
    fn encapsed(&mut self) -> Result<Vec<Part>, SynErr> {
        let mut parts = Vec::new();
        loop {
            let t = self.tok;
            match t.kind {
                Tk::DollarCurly => parts.push(self.var_ref()?),
                Tk::Quoted => {
                    self.bump();
                    parts.push(Part::Escaped(self.span(&t)));
                }
                Tk::Ch(b'"') => {
                    self.last_close_quote = t.start;
                    self.bump();
                    return Ok(parts);
                }
                _ => return Err(self.unexpected(Some(EXPECT_ENCAPSED))),
            }
        }
    }

    /// `TC_DOLLAR_CURLY TC_VARNAME '}'`.
    fn var_ref(&mut self) -> Result<Part, SynErr> {
        self.bump();
        let name = self.expect(Tk::VarName, EXPECT_VARNAME)?;
        self.expect(Tk::Ch(b'}'), EXPECT_CLOSE_BRACE)?;
        Ok(Part::Var(self.text(&name)))
    }
}

// ---------------------------------------------------------------------------------------------
// Values: evaluation as the INI parser does it
// ---------------------------------------------------------------------------------------------

/// PHP 8.2's error-level constants, the only constants that show up in pool files in practice
/// (`php_admin_value[error_reporting] = E_ALL & ~E_DEPRECATED` → `24575`, verified with `-tt`).
const E_CONSTANTS: &[(&str, i32)] = &[
    ("E_ERROR", 1),
    ("E_WARNING", 2),
    ("E_PARSE", 4),
    ("E_NOTICE", 8),
    ("E_CORE_ERROR", 16),
    ("E_CORE_WARNING", 32),
    ("E_COMPILE_ERROR", 64),
    ("E_COMPILE_WARNING", 128),
    ("E_USER_ERROR", 256),
    ("E_USER_WARNING", 512),
    ("E_USER_NOTICE", 1024),
    ("E_STRICT", 2048),
    ("E_RECOVERABLE_ERROR", 4096),
    ("E_DEPRECATED", 8192),
    ("E_USER_DEPRECATED", 16384),
    ("E_ALL", 32767),
];

fn constant_value(name: &[u8]) -> Option<i32> {
    E_CONSTANTS
        .iter()
        .find(|(n, _)| n.as_bytes() == name)
        .map(|&(_, v)| v)
}

fn concat(parts: &[Part], src: &[u8], env: &dyn Fn(&str) -> Option<String>) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts {
        match *part {
            Part::Text(s) => out.extend_from_slice(slice(src, s)),
            Part::Escaped(s) => out.extend_from_slice(&unescape_double_quoted(slice(src, s))),
            Part::Var(s) => {
                let name = String::from_utf8_lossy(slice(src, s));
                if let Some(v) = env(&name) {
                    out.extend_from_slice(v.as_bytes());
                }
            }
            Part::Constant(s) => match constant_value(slice(src, s)) {
                Some(v) => out.extend_from_slice(v.to_string().as_bytes()),
                None => out.extend_from_slice(slice(src, s)),
            },
        }
    }
    out
}

fn eval(expr: &Expr, src: &[u8], env: &dyn Fn(&str) -> Option<String>) -> Vec<u8> {
    match expr {
        Expr::Empty | Expr::Null | Expr::Bool(false) => Vec::new(),
        Expr::Bool(true) => b"1".to_vec(),
        Expr::Concat(parts) => concat(parts, src, env),
        // `zend_ini_do_op`: operands go through atoi(), the result is printed with "%d".
        Expr::Unary(op, e) => {
            let v = atoi(&eval(e, src, env));
            let r = if *op == b'~' { !v } else { i32::from(v == 0) };
            r.to_string().into_bytes()
        }
        Expr::Binary(op, a, b) => {
            let (x, y) = (atoi(&eval(a, src, env)), atoi(&eval(b, src, env)));
            let r = match op {
                b'|' => x | y,
                b'&' => x & y,
                _ => x ^ y,
            };
            r.to_string().into_bytes()
        }
    }
}

fn collect_constants(expr: &Expr, src: &[u8], out: &mut Vec<Span>) {
    match expr {
        Expr::Concat(parts) => {
            for p in parts {
                if let Part::Constant(s) = *p {
                    let name = slice(src, s);
                    let upper = name
                        .iter()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_');
                    if upper && constant_value(name).is_none() {
                        out.push(s);
                    }
                }
            }
        }
        Expr::Unary(_, e) => collect_constants(e, src, out),
        Expr::Binary(_, a, b) => {
            collect_constants(a, src, out);
            collect_constants(b, src, out);
        }
        _ => {}
    }
}

/// `zend_ini_escape_string` for double quotes: `\"`, `\\`, `\$` lose the backslash; any other
/// `\x` is kept as written (`"a\tb"` stays `a\tb`).
pub fn unescape_double_quoted(raw: &[u8]) -> Cow<'_, [u8]> {
    if !raw.contains(&b'\\') {
        return Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c == b'\\' {
            match raw.get(i + 1) {
                Some(&e @ (b'"' | b'\\' | b'$')) => out.push(e),
                Some(&e) => out.extend_from_slice(&[b'\\', e]),
                None => out.push(b'\\'),
            }
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// php-fpm's `$pool` substitution (`fpm_conf_expand_pool_name`), applied to string directives and
/// array values after INI parsing: every `$pool` becomes the pool name (`$poolx` too: it is a plain
/// substring search). php-fpm rescans from the start after each replacement, so a pool name that
/// itself contains `$pool` would loop forever there; we stop after a bounded number of rounds.
pub fn expand_pool(value: &[u8], pool: &[u8]) -> Vec<u8> {
    const NEEDLE: &[u8] = b"$pool";
    let mut out = value.to_vec();
    for _ in 0..1024 {
        let Some(i) = out.windows(NEEDLE.len()).position(|w| w == NEEDLE) else {
            break;
        };
        out.splice(i..i + NEEDLE.len(), pool.iter().copied());
    }
    out
}

/// `${NAME}` expansion in a plain string, as the INI scanner does it outside single quotes: the
/// name (blanks trimmed) is looked up with `env`, an unset variable gives an empty string
/// (php-fpm 8.2 does so silently; `${NAME:-default}` is PHP ≥ 8.3 and on 8.2 simply names a
/// variable `NAME:-default`). An unterminated `${` is kept as written. [`Entry::value_text`] does
/// this with the exact quoting rules; this helper is for text that is already unquoted.
pub fn expand_env(text: &[u8], env: &dyn Fn(&str) -> Option<String>) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(b"${") {
            if let Some(close) = text[i + 2..].iter().position(|&c| c == b'}') {
                let name = String::from_utf8_lossy(&text[i + 2..i + 2 + close]);
                if let Some(v) = env(name.trim_matches([' ', '\t'])) {
                    out.extend_from_slice(v.as_bytes());
                }
                i += close + 3;
                continue;
            }
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// php-fpm's value parsers (fpm_conf.c, 8.2), with its exact messages
// ---------------------------------------------------------------------------------------------

pub const INVALID_NUMBER: &str = "is not a valid number (greater or equal than zero)";
pub const INVALID_BOOLEAN: &str = "invalid boolean value";
pub const INVALID_TIME: &str = "invalid time value";
pub const UNKNOWN_TIME_SUFFIX: &str = "unknown suffix used in time value";
pub const INVALID_PM: &str = "invalid process manager (static, dynamic or ondemand)";
pub const INVALID_LOG_LEVEL: &str = "invalid value for 'log_level'";
pub const INVALID_RLIMIT_CORE: &str = "must be greater than zero or 'unlimited'";
pub const INVALID_FACILITY: &str = "invalid value";
pub const POOL_NOT_DEFINED: &str = "Can't use '$pool' when the pool is not defined";

/// glibc `atoi`: `(int) strtol(s, NULL, 10)` — leading blanks, a sign, digits; the first other
/// byte ends it; the 64-bit result saturates and is then truncated to `int` (so `99999999999`
/// becomes `1215752191`, as `php-fpm -tt` shows).
pub fn atoi(s: &[u8]) -> i32 {
    let mut i = s
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
        .count();
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let mut v: i64 = 0;
    for &c in s.get(i..).unwrap_or_default() {
        if !c.is_ascii_digit() {
            break;
        }
        let d = i64::from(c - b'0');
        v = if negative {
            v.saturating_mul(10).saturating_sub(d)
        } else {
            v.saturating_mul(10).saturating_add(d)
        };
    }
    v as i32
}

/// `fpm_conf_set_integer`: only digits, with one optional leading `-` (so negatives pass here and
/// are refused later by the pool checks, despite the message). An empty value is 0.
pub fn parse_int(v: &[u8]) -> Result<i32, &'static str> {
    let ok = v
        .iter()
        .enumerate()
        .all(|(i, &c)| c.is_ascii_digit() || (i == 0 && c == b'-'));
    if ok {
        Ok(atoi(v))
    } else {
        Err(INVALID_NUMBER)
    }
}

/// `fpm_conf_set_boolean` (8.2): exactly `1 yes true on` or `"" 0 no none false off`, compared
/// case-sensitively on the value *after* INI parsing (bare `Yes`/`OFF` are already `1`/`""` then;
/// a quoted `"Yes"` is refused — verified with php-fpm 8.2).
pub fn parse_bool(v: &[u8]) -> Result<bool, &'static str> {
    match v {
        b"1" | b"yes" | b"true" | b"on" => Ok(true),
        b"" | b"0" | b"no" | b"none" | b"false" | b"off" => Ok(false),
        _ => Err(INVALID_BOOLEAN),
    }
}

/// `fpm_conf_set_time`, in seconds: the *last* byte picks the unit (`s` default, `m`, `h`, `d`);
/// the rest goes through `atoi`, so `1.5m` is 60 s, `5ms` is 5 s and `abc5` is 0 s.
pub fn parse_time(v: &[u8]) -> Result<i32, &'static str> {
    let Some((&suffix, rest)) = v.split_last() else {
        return Err(INVALID_TIME);
    };
    match suffix {
        b'm' => Ok(60i32.wrapping_mul(atoi(rest))),
        b'h' => Ok(3600i32.wrapping_mul(atoi(rest))),
        b'd' => Ok(86400i32.wrapping_mul(atoi(rest))),
        b's' => Ok(atoi(rest)),
        b'0'..=b'9' => Ok(atoi(v)),
        _ => Err(UNKNOWN_TIME_SUFFIX),
    }
}

/// The `pm` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pm {
    Static,
    Dynamic,
    Ondemand,
}

/// `fpm_conf_set_pm`: case-insensitive.
pub fn parse_pm(v: &[u8]) -> Result<Pm, &'static str> {
    if v.eq_ignore_ascii_case(b"static") {
        Ok(Pm::Static)
    } else if v.eq_ignore_ascii_case(b"dynamic") {
        Ok(Pm::Dynamic)
    } else if v.eq_ignore_ascii_case(b"ondemand") {
        Ok(Pm::Ondemand)
    } else {
        Err(INVALID_PM)
    }
}

/// `fpm_conf_set_log_level`: `debug notice warning|warn error alert`, case-insensitive.
pub fn parse_log_level(v: &[u8]) -> Result<&'static str, &'static str> {
    ["debug", "notice", "warning", "warn", "error", "alert"]
        .into_iter()
        .find(|l| v.eq_ignore_ascii_case(l.as_bytes()))
        .map(|l| if l == "warn" { "warning" } else { l })
        .ok_or(INVALID_LOG_LEVEL)
}

/// `fpm_conf_set_rlimit_core`: `unlimited` (any case) is -1; otherwise an integer ≥ 0.
pub fn parse_rlimit_core(v: &[u8]) -> Result<i32, &'static str> {
    if v.eq_ignore_ascii_case(b"unlimited") {
        return Ok(-1);
    }
    match parse_int(v)? {
        n if n < 0 => Err(INVALID_RLIMIT_CORE),
        n => Ok(n),
    }
}

/// `fpm_conf_set_syslog_facility`: a syslog facility name, case-insensitive; returns the Linux
/// `LOG_*` value (`daemon` → 24, `local0` → 128, as `-tt` prints).
pub fn parse_syslog_facility(v: &[u8]) -> Result<i32, &'static str> {
    const FACILITIES: &[(&str, i32)] = &[
        ("auth", 4 << 3),
        ("authpriv", 10 << 3),
        ("cron", 9 << 3),
        ("daemon", 3 << 3),
        ("ftp", 11 << 3),
        ("kern", 0),
        ("lpr", 6 << 3),
        ("mail", 2 << 3),
        ("news", 7 << 3),
        ("syslog", 5 << 3),
        ("user", 1 << 3),
        ("uucp", 8 << 3),
        ("local0", 16 << 3),
        ("local1", 17 << 3),
        ("local2", 18 << 3),
        ("local3", 19 << 3),
        ("local4", 20 << 3),
        ("local5", 21 << 3),
        ("local6", 22 << 3),
        ("local7", 23 << 3),
    ];
    FACILITIES
        .iter()
        .find(|(n, _)| v.eq_ignore_ascii_case(n.as_bytes()))
        .map(|&(_, f)| f)
        .ok_or(INVALID_FACILITY)
}

/// A PHP ini quantity (`memory_limit`, `upload_max_filesize`, … set with `php_value[…]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantity {
    /// The value PHP uses (bytes), even when it warns.
    pub value: i64,
    /// PHP's warning, worded as `zend_ini_parse_quantity` words it, e.g. `Invalid quantity
    /// "128MB": unknown multiplier "B", interpreting as "128" for backwards compatibility`.
    pub warning: Option<String>,
}

/// `zend_ini_parse_quantity` (PHP 8.2, signed): blanks trimmed; optional sign; `0x`/`0o`/`0b`
/// prefixes, and a leading `0` means octal (`012` is 10); then an optional multiplier in the
/// **last** byte: `k`/`K` 1024, `m`/`M` 1024², `g`/`G` 1024³.
///
/// So `128M` is 134217728 and `128MB` is **128 bytes** with a warning (`unknown multiplier "B"`):
/// PHP never refuses the value; for `memory_limit` PHP then fails with `Failed to set memory
/// limit to 128 bytes` and keeps the previous limit (verified with `php8.2 -d memory_limit=128MB`).
/// `1.5M` is 1 MiB (`interpreting as "1M"`). `-1` is -1 (unlimited for `memory_limit`).
pub fn parse_quantity(raw: &[u8]) -> Quantity {
    let quoted = escape_for_message(raw);
    let is_ws = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let start = raw.iter().take_while(|c| is_ws(c)).count();
    let end = raw.len() - raw[start..].iter().rev().take_while(|c| is_ws(c)).count();
    let s = &raw[start..end];
    if s.is_empty() {
        return Quantity {
            value: 0,
            warning: None,
        };
    }
    let no_digits = |quoted: &str| {
        Quantity {
        value: 0,
        warning: Some(format!("Invalid quantity \"{quoted}\": no valid leading digits, interpreting as \"0\" for backwards compatibility")),
    }
    };
    let (negative, mut d) = match s[0] {
        b'+' => (false, 1),
        b'-' => (true, 1),
        _ => (false, 0),
    };
    if !s.get(d).is_some_and(u8::is_ascii_digit) {
        return no_digits(&quoted);
    }
    let mut base = 0u32;
    let next = s.get(d + 1).copied();
    if s[d] == b'0' && !next.is_some_and(|c| c.is_ascii_digit()) {
        let Some(prefix) = next else {
            return Quantity {
                value: 0,
                warning: None,
            };
        };
        match prefix {
            b'g' | b'G' | b'm' | b'M' | b'k' | b'K' => {}
            b'x' | b'X' => base = 16,
            b'o' | b'O' => base = 8,
            b'b' | b'B' => base = 2,
            other => {
                return Quantity {
                    value: 0,
                    warning: Some(format!(
                        "Invalid prefix \"0{}\", interpreting as \"0\" for backwards compatibility",
                        other as char
                    )),
                }
            }
        }
        if base != 0 {
            d += 2;
            let bad = match s.get(d) {
                None => true,
                Some(c) => {
                    is_ws(c)
                        || *c == b'+'
                        || *c == b'-'
                        || (*c == b'0' && s.get(d + 1).is_some_and(|c| b"xXoObB".contains(c)))
                }
            };
            if bad {
                return Quantity {
                    value: 0,
                    warning: Some(format!("Invalid quantity \"{quoted}\": no digits after base prefix, interpreting as \"0\" for backwards compatibility")),
                };
            }
        }
    }
    // strtoul(digits, &end, base): base 0 means 0x → 16, leading 0 → 8, else 10.
    let digits = &s[d..];
    let (radix, skip) = match base {
        0 if digits.len() > 1 && digits[0] == b'0' && matches!(digits[1], b'x' | b'X') => (16, 2),
        0 if digits.first() == Some(&b'0') => (8, 0),
        0 => (10, 0),
        b => (b, 0),
    };
    let body = &digits[skip..];
    let n = body
        .iter()
        .take_while(|c| (**c as char).is_digit(radix))
        .count();
    if n == 0 {
        return no_digits(&quoted);
    }
    let mut overflow = false;
    let mut value: u64 = 0;
    for &c in &body[..n] {
        let digit = u64::from((c as char).to_digit(radix).unwrap_or(0));
        match value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(digit))
        {
            Some(v) => value = v,
            None => {
                overflow = true;
                value = u64::MAX;
            }
        }
    }
    if !overflow {
        if negative && value == 1u64 << 63 {
            value = value.wrapping_neg();
        } else if (value as i64) < 0 {
            overflow = true;
        } else if negative {
            value = value.wrapping_neg();
        }
    }
    let mut digits_end = d + skip + n;
    while digits_end < s.len() && is_ws(&s[digits_end]) {
        digits_end += 1;
    }
    // PHP quotes the input up to the suffix, blanks after the digits included.
    let interpreted = escape_for_message(&raw[..start + digits_end]);
    let mut result = value as i64;
    if digits_end < s.len() {
        let last = s[s.len() - 1];
        let factor: i64 = match last {
            b'g' | b'G' => 1 << 30,
            b'm' | b'M' => 1 << 20,
            b'k' | b'K' => 1 << 10,
            _ => {
                let chr = escape_for_message(&[last]);
                return Quantity {
                    value: result,
                    warning: Some(format!("Invalid quantity \"{quoted}\": unknown multiplier \"{chr}\", interpreting as \"{interpreted}\" for backwards compatibility")),
                };
            }
        };
        if !overflow {
            overflow = if result > 0 {
                result > i64::MAX / factor
            } else {
                result < i64::MIN / factor
            };
        }
        result = result.wrapping_mul(factor);
        if digits_end != s.len() - 1 {
            let chr = escape_for_message(&[last]);
            return Quantity {
                value: result,
                warning: Some(format!("Invalid quantity \"{quoted}\", interpreting as \"{interpreted}{chr}\" for backwards compatibility")),
            };
        }
    }
    let warning = overflow.then(|| format!("Invalid quantity \"{quoted}\": value is out of range, using overflow result for backwards compatibility"));
    Quantity {
        value: result,
        warning,
    }
}

/// `smart_str_append_escaped`, as PHP quotes a value in its messages (`\t`, `\\`, `\xE9`).
fn escape_for_message(raw: &[u8]) -> String {
    let mut out = String::new();
    for &c in raw {
        match c {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x0c => out.push_str("\\f"),
            0x0b => out.push_str("\\v"),
            b'\\' => out.push_str("\\\\"),
            0x1b => out.push_str("\\e"),
            0x20..=0x7e => out.push(c as char),
            _ => out.push_str(&format!("\\x{c:02X}")),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// What php-fpm 8.2's loader checks per entry
// ---------------------------------------------------------------------------------------------

/// How php-fpm parses a directive's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// Any string; `$pool` is substituted (and refused outside a pool).
    String,
    Integer,
    Boolean,
    Time,
    Pm,
    LogLevel,
    RlimitCore,
    SyslogFacility,
}

impl ValueKind {
    /// Runs php-fpm's parser for this kind; `Err` is php-fpm's message.
    pub fn check(self, v: &[u8], in_pool: bool) -> Result<(), &'static str> {
        match self {
            ValueKind::String if !in_pool && v.windows(5).any(|w| w == b"$pool") => {
                Err(POOL_NOT_DEFINED)
            }
            ValueKind::String => Ok(()),
            ValueKind::Integer => parse_int(v).map(drop),
            ValueKind::Boolean => parse_bool(v).map(drop),
            ValueKind::Time => parse_time(v).map(drop),
            ValueKind::Pm => parse_pm(v).map(drop),
            ValueKind::LogLevel => parse_log_level(v).map(drop),
            ValueKind::RlimitCore => parse_rlimit_core(v).map(drop),
            ValueKind::SyslogFacility => parse_syslog_facility(v).map(drop),
        }
    }
}

/// `ini_fpm_global_options` of php-fpm 8.2 as Debian builds it (syslog, systemd; every name
/// checked against `php-fpm8.2 -t`).
pub const GLOBAL_DIRECTIVES: &[(&str, ValueKind)] = &[
    ("pid", ValueKind::String),
    ("error_log", ValueKind::String),
    ("syslog.ident", ValueKind::String),
    ("syslog.facility", ValueKind::SyslogFacility),
    ("log_buffering", ValueKind::Boolean),
    ("log_level", ValueKind::LogLevel),
    ("log_limit", ValueKind::Integer),
    ("emergency_restart_threshold", ValueKind::Integer),
    ("emergency_restart_interval", ValueKind::Time),
    ("process_control_timeout", ValueKind::Time),
    ("process.max", ValueKind::Integer),
    ("process.priority", ValueKind::Integer),
    ("daemonize", ValueKind::Boolean),
    ("rlimit_files", ValueKind::Integer),
    ("rlimit_core", ValueKind::RlimitCore),
    ("events.mechanism", ValueKind::String),
    ("systemd_interval", ValueKind::Time),
];

/// `ini_fpm_pool_options` of php-fpm 8.2 on Linux (ACL and AppArmor built in; `listen.setfib` is
/// FreeBSD-only and unknown here).
pub const POOL_DIRECTIVES: &[(&str, ValueKind)] = &[
    ("prefix", ValueKind::String),
    ("user", ValueKind::String),
    ("group", ValueKind::String),
    ("listen", ValueKind::String),
    ("listen.backlog", ValueKind::Integer),
    ("listen.acl_users", ValueKind::String),
    ("listen.acl_groups", ValueKind::String),
    ("listen.owner", ValueKind::String),
    ("listen.group", ValueKind::String),
    ("listen.mode", ValueKind::String),
    ("listen.allowed_clients", ValueKind::String),
    ("process.priority", ValueKind::Integer),
    ("process.dumpable", ValueKind::Boolean),
    ("pm", ValueKind::Pm),
    ("pm.max_children", ValueKind::Integer),
    ("pm.start_servers", ValueKind::Integer),
    ("pm.min_spare_servers", ValueKind::Integer),
    ("pm.max_spare_servers", ValueKind::Integer),
    ("pm.max_spawn_rate", ValueKind::Integer),
    ("pm.process_idle_timeout", ValueKind::Time),
    ("pm.max_requests", ValueKind::Integer),
    ("pm.status_path", ValueKind::String),
    ("pm.status_listen", ValueKind::String),
    ("ping.path", ValueKind::String),
    ("ping.response", ValueKind::String),
    ("access.log", ValueKind::String),
    ("access.format", ValueKind::String),
    ("slowlog", ValueKind::String),
    ("request_slowlog_timeout", ValueKind::Time),
    ("request_slowlog_trace_depth", ValueKind::Integer),
    ("request_terminate_timeout", ValueKind::Time),
    (
        "request_terminate_timeout_track_finished",
        ValueKind::Boolean,
    ),
    ("rlimit_files", ValueKind::Integer),
    ("rlimit_core", ValueKind::RlimitCore),
    ("chroot", ValueKind::String),
    ("chdir", ValueKind::String),
    ("catch_workers_output", ValueKind::Boolean),
    ("decorate_workers_output", ValueKind::Boolean),
    ("clear_env", ValueKind::Boolean),
    ("security.limit_extensions", ValueKind::String),
    ("apparmor_hat", ValueKind::String),
];

/// The array directives (`name[key] = value`), matched case-sensitively.
pub const ARRAY_DIRECTIVES: &[&str] = &[
    "env",
    "php_value",
    "php_admin_value",
    "php_flag",
    "php_admin_flag",
    "access.suppress_path",
];

/// Looks a scalar directive up as php-fpm does (`strcasecmp`); returns its canonical name.
pub fn directive(in_pool: bool, name: &[u8]) -> Option<(&'static str, ValueKind)> {
    let table = if in_pool {
        POOL_DIRECTIVES
    } else {
        GLOBAL_DIRECTIVES
    };
    table
        .iter()
        .find(|(n, _)| name.eq_ignore_ascii_case(n.as_bytes()))
        .copied()
}

/// Which section the first lines of a file belong to. php-fpm keeps its current section across
/// `include`: the main file starts in `[global]`, an included file in the includer's section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartIn {
    Global,
    Pool,
}

impl FpmFile {
    /// The errors php-fpm 8.2's loader reports for individual entries, with its wording
    /// (`unknown entry 'x'`, `unable to parse value for entry 'pm': invalid process manager
    /// (static, dynamic or ondemand)`, `Array are not allowed in the global section`, …), one per
    /// entry, in file order. Syntax errors are [`parse`]'s; `include` targets are not resolved here.
    pub fn load_errors(
        &self,
        src: &[u8],
        env: &dyn Fn(&str) -> Option<String>,
        start: StartIn,
    ) -> Vec<SyntaxError> {
        let mut in_pool = start == StartIn::Pool;
        let mut out = Vec::new();
        if self.xml {
            return out;
        }
        for line in &self.lines {
            match &line.kind {
                LineKind::Section(s) => in_pool = !s.is_global(src),
                LineKind::Entry(e) => {
                    if let Some(msg) = entry_error(e, src, env, in_pool) {
                        out.push(SyntaxError::new(msg, e.key));
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// `fpm_conf_ini_parser_entry` / `fpm_conf_ini_parser_array`, in their order of checks.
fn entry_error(
    e: &Entry,
    src: &[u8],
    env: &dyn Fn(&str) -> Option<String>,
    in_pool: bool,
) -> Option<String> {
    let name = e.name_bytes(src);
    let value = e.value_text(src, env);
    let Some(subkey) = e.subkey_text(src, env) else {
        if name == b"include" {
            return None;
        }
        let Some((canonical, kind)) = directive(in_pool, name) else {
            return Some(format!("unknown entry '{}'", e.key_text(src)));
        };
        return kind
            .check(&value, in_pool)
            .err()
            .map(|m| format!("unable to parse value for entry '{canonical}': {m}"));
    };
    let name_text = String::from_utf8_lossy(name);
    if name == b"access.suppress_path" {
        if !subkey.is_empty() {
            return Some("Keys provided to field 'access.suppress_path' are ignored".into());
        }
        if !value.starts_with(b"/") {
            return Some(
                "Values provided to field 'access.suppress_path' must begin with '/'".into(),
            );
        }
    } else if subkey.is_empty() {
        return Some(format!("You must provide a key for field '{name_text}'"));
    }
    if !in_pool {
        return Some("Array are not allowed in the global section".into());
    }
    match name {
        b"env" if value.is_empty() => Some("empty value".into()),
        b"php_flag" | b"php_admin_flag" => parse_bool(&value).err().map(|m| {
            format!(
                "error while parsing '{name_text}[{}]' : {m}",
                String::from_utf8_lossy(&subkey)
            )
        }),
        n if ARRAY_DIRECTIVES.iter().any(|a| a.as_bytes() == n) => None,
        _ => Some(format!("unknown directive '{name_text}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(src: &[u8]) -> Parsed {
        let p = parse(src);
        assert_eq!(p.file.print(src).as_deref(), Some(src), "round-trip");
        p
    }

    fn entry(src: &[u8]) -> Entry {
        let p = parsed(src);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let first = p.file.entries().next().map(|(_, e)| e.clone());
        first.expect("an entry")
    }

    fn text(src: &[u8], s: Span) -> &str {
        std::str::from_utf8(&src[s.range()]).unwrap()
    }

    fn value(src: &[u8]) -> String {
        String::from_utf8(entry(src).value_text_no_env(src)).unwrap()
    }

    fn error(src: &[u8]) -> (String, u32) {
        let p = parsed(src);
        let e = p.errors.first().expect("an error");
        let line = src[..e.span.start as usize]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u32;
        (e.message.clone(), line + 1)
    }

    #[test]
    fn entry_spans() {
        let src = b"  pm.max_children   =  \"5\"  ; five\n";
        let e = entry(src);
        assert_eq!(text(src, e.key), "pm.max_children");
        assert_eq!(text(src, e.name), "pm.max_children");
        assert_eq!(text(src, e.eq), "=");
        assert_eq!(text(src, e.raw_value), "\"5\"");
        assert_eq!(text(src, e.value), "5");
        assert_eq!(text(src, e.comment.unwrap()), "; five");
        assert!(e.subkey.is_none());
    }

    #[test]
    fn array_keys_expose_name_and_subkey() {
        let src = b"php_admin_value[memory_limit] = 128M\n";
        let e = entry(src);
        assert_eq!(text(src, e.key), "php_admin_value[memory_limit]");
        assert_eq!(text(src, e.name), "php_admin_value");
        assert_eq!(text(src, e.subkey.unwrap()), "memory_limit");
        assert_eq!(e.subkey_text(src, &no_env).unwrap(), b"memory_limit");
        // php-fpm keeps blanks before `]` (verified: `php_value[ x ]` sets `x `).
        let src = b"php_value [ x ] = 1\n";
        let e = entry(src);
        assert_eq!(text(src, e.name), "php_value");
        assert_eq!(e.subkey_text(src, &no_env).unwrap(), b"x ");
        let src = b"env[PATH] = /usr/bin:/bin\n";
        assert_eq!(value(src), "/usr/bin:/bin");
        let src = b"access.suppress_path[] = /ping\n";
        let e = entry(src);
        assert!(e.subkey.unwrap().is_empty());
    }

    #[test]
    fn semicolon_starts_a_comment_outside_quotes_only() {
        assert_eq!(value(b"a = x;y\n"), "x");
        assert_eq!(value(b"a = x ; y\n"), "x");
        assert_eq!(value(b"a = \"x;y\" ; z\n"), "x;y");
        assert_eq!(value(b"a = 'x;y\"z'\n"), "x;y\"z");
        let src = b"; own line\n[www] ; after a header\n";
        let p = parsed(src);
        assert!(matches!(
            p.file.lines[0].kind,
            LineKind::Comment { own_line: true, .. }
        ));
        assert!(matches!(p.file.lines[1].kind, LineKind::Section(_)));
        match &p.file.lines[2].kind {
            LineKind::Comment { text: t, own_line } => {
                assert!(!own_line);
                assert_eq!(text(src, *t), "; after a header");
            }
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn hash_is_not_a_comment() {
        assert_eq!(value(b"user = x # trailing\n"), "x # trailing");
        assert_eq!(
            error(b"[www]\n# comment\n"),
            ("value is NULL for a ZEND_INI_PARSER_ENTRY".into(), 2)
        );
        // `#key = value` is an entry named `#key` (php-fpm: unknown entry '#key').
        let src = b"[www]\n#listen = 1\n";
        let p = parsed(src);
        assert!(p.errors.is_empty());
        let errs = p.file.load_errors(src, &no_env, StartIn::Global);
        assert_eq!(errs[0].message, "unknown entry '#listen'");
    }

    #[test]
    fn quotes_escapes_and_concatenation() {
        assert_eq!(value(b"a = \"a\\\\\"\n"), "a\\");
        assert_eq!(value(b"a = \"a\\\"b\"\n"), "a\"b");
        assert_eq!(value(b"a = \"a\\$b\\n\"\n"), "a$b\\n");
        assert_eq!(value(b"a = \"C:\\path\\\"\n"), "C:\\path\\");
        assert_eq!(value(b"a = abc'de'f \"gh\" i\n"), "abcdefghi");
        assert_eq!(value(b"a = a  b\t c   \n"), "a  b\t c");
        assert_eq!(value(b"a = \"a\"  \"b\"  \n"), "ab");
        assert_eq!(value(b"a = \"\" x\n"), "x");
        assert_eq!(value(b"a = $${HOME}\n"), "$${HOME}");
        assert_eq!(value(b"a = {a}\n"), "{a}");
        // An unterminated `'` after some text silently ends the value (verified).
        assert_eq!(value(b"a = ab'c\n"), "ab");
    }

    #[test]
    fn bool_words_null_constants_and_operators() {
        assert_eq!(value(b"a = YES\n"), "1");
        assert_eq!(value(b"a = Off\n"), "");
        assert_eq!(value(b"a = none\n"), "");
        assert_eq!(value(b"a = NULL\n"), "");
        assert_eq!(value(b"a = \"yes\"\n"), "yes");
        assert_eq!(value(b"a = yesno\n"), "yesno");
        assert_eq!(value(b"a = E_ALL & ~E_DEPRECATED\n"), "24575");
        assert_eq!(value(b"a = 1 | 2\n"), "3");
        assert_eq!(value(b"a = !1\n"), "0");
        assert_eq!(value(b"a = (4)\n"), "4");
        assert_eq!(value(b"a = E_ALL x\n"), "32767 x");
        assert_eq!(value(b"a = \"E_ALL\"\n"), "E_ALL");
        let src = b"a = PHP_VERSION\n";
        assert_eq!(entry(src).unresolved_constants(src).len(), 1);
    }

    #[test]
    fn env_expansion_unset_is_empty() {
        let env = |k: &str| (k == "HOME").then(|| "/root".to_string());
        let v = |src: &[u8]| String::from_utf8(entry(src).value_text(src, &env)).unwrap();
        assert_eq!(v(b"a = ${HOME}x\n"), "/rootx");
        assert_eq!(v(b"a = \"${HOME}x\"\n"), "/rootx");
        assert_eq!(v(b"a = ${ HOME }\n"), "/root");
        assert_eq!(v(b"a = '${HOME}x'\n"), "${HOME}x");
        assert_eq!(v(b"a = \"\\${HOME}x\"\n"), "${HOME}x");
        assert_eq!(v(b"a = ${NOPE}x\n"), "x");
        // 8.2 has no `:-default`: the variable is named `HOME:-5` and unset.
        assert_eq!(v(b"a = ${HOME:-5}\n"), "");
        assert_eq!(expand_env(b"x${HOME}y${NOPE}z${", &env), b"x/rootyz${");
    }

    #[test]
    fn pool_substitution() {
        assert_eq!(expand_pool(b"/run/$pool.sock", b"www"), b"/run/www.sock");
        assert_eq!(expand_pool(b"$pool-$pool", b"a"), b"a-a");
        assert_eq!(expand_pool(b"none", b"a"), b"none");
        // A pool named `$pool` would loop forever in php-fpm; we stop.
        assert_eq!(expand_pool(b"$pool", b"$pool"), b"$pool");
    }

    #[test]
    fn sections_keep_spaces_and_compare_case_insensitively() {
        let src = b"[ spaced pool ]\n[GLOBAL]\n[\"q p\"]\n[]\n";
        let p = parsed(src);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let names: Vec<Vec<u8>> = p.file.sections(src).into_iter().map(|s| s.name).collect();
        assert_eq!(
            names,
            [&b" spaced pool "[..], b"GLOBAL", b"q p", b""].map(|n| n.to_vec())
        );
        let views = p.file.sections(src);
        assert!(views[1].is_global && !views[0].is_global);
        match &p.file.lines[0].kind {
            LineKind::Section(s) => {
                assert_eq!(text(src, s.open), "[");
                assert_eq!(text(src, s.name), " spaced pool ");
                assert_eq!(text(src, s.close), "]");
            }
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn a_space_before_a_section_header_is_a_syntax_error() {
        // ` [www]` scans as an array key with an empty name (verified with php-fpm 8.2).
        assert_eq!(
            error(b" [www]\n"),
            (
                "syntax error, unexpected END_OF_LINE, expecting '='".into(),
                1
            )
        );
        assert!(parsed(b"\t[www]\n").errors.is_empty());
    }

    #[test]
    fn several_statements_on_one_line() {
        let src = b"[www] listen = /run/x.sock\na = 1\rb = 2\n";
        let p = parsed(src);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let kinds: Vec<&str> = p
            .file
            .lines
            .iter()
            .map(|l| match l.kind {
                LineKind::Section(_) => "section",
                LineKind::Entry(_) => "entry",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["section", "entry", "entry", "entry"]);
        assert_eq!(p.file.lines[2].eol, Span::new(32, 33));
        let www = p.file.get(src, Some("WWW"), "b").unwrap();
        assert_eq!(www.value_text_no_env(src), b"2");
    }

    #[test]
    fn syntax_errors_match_php() {
        let cases: &[(&[u8], &str)] = &[
            (b"a = \"abc\n", "syntax error, unexpected end of file, expecting TC_DOLLAR_CURLY or TC_QUOTED_STRING or '\"'"),
            (b"[www\n", "syntax error, unexpected end of file, expecting ']'"),
            (b"[a;b]\n", "syntax error, unexpected end of file, expecting ']'"),
            (b"a = b = c\n", "syntax error, unexpected '='"),
            (b"a = (b\n", "syntax error, unexpected END_OF_LINE, expecting '^' or '|' or '&' or ')'"),
            (b"a = b)\n", "syntax error, unexpected ')'"),
            (b"\"a\" = b\n", "syntax error, unexpected '\"'"),
            (b"a = 'abc\n", "syntax error, unexpected end of file"),
            (b"on = 1\n", "syntax error, unexpected BOOL_TRUE"),
            (b"a = yes please\n", "syntax error, unexpected TC_CONSTANT"),
            (b"a = 1 yes\n", "syntax error, unexpected BOOL_TRUE"),
            (b"a = pong!\n", "syntax error, unexpected '!'"),
            (b"a = ${b\n", "syntax error, unexpected end of file, expecting '}'"),
            (b"a = ${}\n", "syntax error, unexpected '}', expecting TC_VARNAME"),
            (b"php_value[a = b\n", "syntax error, unexpected end of file, expecting ']'"),
            (b"php_value[a]\n", "syntax error, unexpected END_OF_LINE, expecting '='"),
            (b"php_value[a] foo = 1\n", "syntax error, unexpected TC_LABEL, expecting '='"),
            (b"a = ~\n", "syntax error, unexpected END_OF_LINE"),
            (b"foo\n", "value is NULL for a ZEND_INI_PARSER_ENTRY"),
            (b"us$er = a\n", "value is NULL for a ZEND_INI_PARSER_ENTRY"),
            (b"a = ''\n", "value is NULL for a ZEND_INI_PARSER_ENTRY"),
            (b"[a] x\n", "value is NULL for a ZEND_INI_PARSER_ENTRY"),
        ];
        for (src, want) in cases {
            let (msg, line) = error(src);
            assert_eq!(
                (msg.as_str(), line),
                (*want, 1),
                "{}",
                String::from_utf8_lossy(src)
            );
        }
    }

    #[test]
    fn recovers_to_report_every_bad_line() {
        let src = b"[www]\n# one\nlisten = /x\n# two\r\n\"bad\" = 1\n";
        let p = parsed(src);
        let lines: Vec<u32> = p
            .errors
            .iter()
            .map(|e| {
                1 + src[..e.span.start as usize]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count() as u32
            })
            .collect();
        assert_eq!(lines, [2, 4, 5]);
        assert_eq!(p.file.entries().count(), 1);
    }

    #[test]
    fn crlf_tabs_no_final_newline_and_non_utf8_round_trip() {
        let src: &[u8] =
            b"\xEF\xBB\xBF[www]\r\n\tuser\t= www-data\r\n;caf\xe9\r\n\r\nphp_value[x] = \xff\xfe\nlast = 1";
        let p = parsed(src);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let user = p.file.get(src, Some("www"), "USER").unwrap();
        assert_eq!(text(src, user.raw_value), "www-data");
        assert_eq!(p.file.lines[1].eol, Span::new(26, 28));
        let x = p.file.get(src, Some("www"), "php_value[x]").unwrap();
        assert_eq!(x.value_text_no_env(src), b"\xff\xfe");
        let last = p.file.lines.last().unwrap();
        assert!(last.eol.is_empty());
        assert_eq!(
            p.file
                .get(src, Some("www"), "last")
                .unwrap()
                .value_text_no_env(src),
            b"1"
        );
    }

    #[test]
    fn nul_hides_the_rest_of_the_line() {
        let src = b"[www]\nuser = a\0 = b\nx\0\non \0\n";
        let p = parsed(src);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let user = p.file.get(src, Some("www"), "user").unwrap();
        assert_eq!(user.value_text_no_env(src), b"a");
        // A key cut by a NUL is still a key without a value.
        assert_eq!(
            error(b"x;c\0\n").0,
            "value is NULL for a ZEND_INI_PARSER_ENTRY"
        );
    }

    #[test]
    fn duplicates_last_wins_but_all_are_kept() {
        let src = b"[www]\npm.max_children = 5\n[global]\n[Www]\nPM.MAX_CHILDREN = 7\n";
        let p = parsed(src);
        assert_eq!(p.file.get_all(src, Some("www"), "pm.max_children").len(), 2);
        let e = p.file.get(src, Some("www"), "pm.max_children").unwrap();
        assert_eq!(e.value_text_no_env(src), b"7");
        assert!(p.file.get(src, Some("global"), "pm.max_children").is_none());
        // `include` and array keys compare case-sensitively, like php-fpm.
        let src = b"Include = a\ninclude = b\nphp_value[X] = 1\n";
        let p = parsed(src);
        assert_eq!(
            p.file
                .get(src, None, "include")
                .unwrap()
                .value_text_no_env(src),
            b"b"
        );
        assert_eq!(p.file.includes(src).count(), 1);
        assert!(p.file.get(src, None, "php_value[x]").is_none());
        assert!(p.file.get(src, None, "php_value[X]").is_some());
    }

    #[test]
    fn headerless_entries_belong_to_no_section() {
        let src = b"user = a\n[www]\nuser = b\n";
        let p = parsed(src);
        let views = p.file.sections(src);
        assert_eq!(views.len(), 2);
        assert_eq!(views[0].header, None);
        assert_eq!(
            p.file
                .get(src, None, "user")
                .unwrap()
                .value_text_no_env(src),
            b"a"
        );
        // php-fpm reads them in the section current at that point: [global] for a main file.
        let errs = p.file.load_errors(src, &no_env, StartIn::Global);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].message, "unknown entry 'user'");
        assert!(p.file.load_errors(src, &no_env, StartIn::Pool).is_empty());
    }

    #[test]
    fn xml_gives_one_diagnostic() {
        let src = b"<?xml version=\"1.0\" ?>\n<configuration>\n\t<value name=\"x\">1</value>\n</configuration>\n";
        let p = parsed(src);
        assert!(p.file.xml);
        assert_eq!(p.errors.len(), 1);
        assert_eq!(
            p.errors[0].message,
            "XML configuration of PHP 5.2 is not supported"
        );
        assert_eq!(p.errors[0].span, Span::new(0, 22));
        assert!(p.file.lines.iter().all(|l| l.kind == LineKind::Xml));
        assert!(p.file.load_errors(src, &no_env, StartIn::Global).is_empty());
    }

    #[test]
    fn empty_and_blank_files() {
        for src in [&b""[..], b"\n", b"\n\n", b"   \n\t\r\n", b"\r"] {
            let p = parsed(src);
            assert!(p.errors.is_empty());
            assert!(p.file.lines.iter().all(|l| l.kind == LineKind::Blank));
        }
    }

    #[test]
    fn integers() {
        assert_eq!(parse_int(b"10"), Ok(10));
        assert_eq!(parse_int(b"-3"), Ok(-3));
        assert_eq!(parse_int(b""), Ok(0));
        assert_eq!(parse_int(b"-"), Ok(0));
        assert_eq!(parse_int(b"99999999999"), Ok(1215752191));
        for bad in [&b"10a"[..], b"+1", b"--1", b" 1", b"1.0", b"0x10"] {
            assert_eq!(parse_int(bad), Err(INVALID_NUMBER), "{bad:?}");
        }
    }

    #[test]
    fn booleans_as_php_fpm_8_2() {
        for t in [&b"1"[..], b"yes", b"true", b"on"] {
            assert_eq!(parse_bool(t), Ok(true));
        }
        for f in [&b""[..], b"0", b"no", b"none", b"false", b"off"] {
            assert_eq!(parse_bool(f), Ok(false));
        }
        for bad in [&b"Yes"[..], b"TRUE", b"null", b"2", b"1 ", b"maybe"] {
            assert_eq!(parse_bool(bad), Err(INVALID_BOOLEAN), "{bad:?}");
        }
    }

    #[test]
    fn time_values() {
        assert_eq!(parse_time(b"10"), Ok(10));
        assert_eq!(parse_time(b"10s"), Ok(10));
        assert_eq!(parse_time(b"5m"), Ok(300));
        assert_eq!(parse_time(b"1h"), Ok(3600));
        assert_eq!(parse_time(b"1d"), Ok(86400));
        assert_eq!(parse_time(b"1.5m"), Ok(60));
        assert_eq!(parse_time(b"5ms"), Ok(5));
        assert_eq!(parse_time(b"m"), Ok(0));
        assert_eq!(parse_time(b"a5"), Ok(0));
        assert_eq!(parse_time(b"-5"), Ok(-5));
        assert_eq!(parse_time(b""), Err(INVALID_TIME));
        assert_eq!(parse_time(b"10S"), Err(UNKNOWN_TIME_SUFFIX));
        assert_eq!(parse_time(b"5x"), Err(UNKNOWN_TIME_SUFFIX));
    }

    #[test]
    fn other_value_parsers() {
        assert_eq!(parse_pm(b"Static"), Ok(Pm::Static));
        assert_eq!(parse_pm(b"apache-like"), Err(INVALID_PM));
        assert_eq!(parse_log_level(b"WARN"), Ok("warning"));
        assert_eq!(parse_log_level(b"x"), Err(INVALID_LOG_LEVEL));
        assert_eq!(parse_rlimit_core(b"Unlimited"), Ok(-1));
        assert_eq!(parse_rlimit_core(b"-1"), Err(INVALID_RLIMIT_CORE));
        assert_eq!(parse_rlimit_core(b"x"), Err(INVALID_NUMBER));
        assert_eq!(parse_syslog_facility(b"LOCAL0"), Ok(128));
        assert_eq!(parse_syslog_facility(b"daemon"), Ok(24));
    }

    #[test]
    fn php_ini_quantities() {
        let q = |s: &[u8]| parse_quantity(s);
        assert_eq!(
            q(b"128M"),
            Quantity {
                value: 134217728,
                warning: None
            }
        );
        assert_eq!(q(b"128m").value, 134217728);
        assert_eq!(q(b"1G").value, 1 << 30);
        assert_eq!(q(b"512K").value, 512 << 10);
        assert_eq!(q(b" 64M ").value, 64 << 20);
        assert_eq!(q(b"64 M").value, 64 << 20);
        assert_eq!(
            q(b"-1"),
            Quantity {
                value: -1,
                warning: None
            }
        );
        assert_eq!(q(b"").value, 0);
        assert_eq!(q(b"012").value, 10);
        assert_eq!(q(b"0x10M").value, 16 << 20);
        assert_eq!(q(b"0b101").value, 5);
        assert_eq!(q(b"+5M").value, 5 << 20);
        // The messages below are PHP 8.2's, verified with php8.2 -r 'ini_parse_quantity(…)'.
        assert_eq!(
            q(b"128MB"),
            Quantity {
                value: 128,
                warning: Some("Invalid quantity \"128MB\": unknown multiplier \"B\", interpreting as \"128\" for backwards compatibility".into()),
            }
        );
        let w = |s: &[u8]| q(s).warning.unwrap();
        assert_eq!(
            w(b"1.5M"),
            "Invalid quantity \"1.5M\", interpreting as \"1M\" for backwards compatibility"
        );
        assert_eq!(q(b"1.5M").value, 1 << 20);
        assert_eq!(
            w(b"12kk"),
            "Invalid quantity \"12kk\", interpreting as \"12k\" for backwards compatibility"
        );
        assert_eq!(w(b"abc"), "Invalid quantity \"abc\": no valid leading digits, interpreting as \"0\" for backwards compatibility");
        assert_eq!(w(b"0x"), "Invalid quantity \"0x\": no digits after base prefix, interpreting as \"0\" for backwards compatibility");
        assert_eq!(w(b"0x 5"), "Invalid quantity \"0x 5\": no digits after base prefix, interpreting as \"0\" for backwards compatibility");
        assert_eq!(
            w(b"0y5"),
            "Invalid prefix \"0y\", interpreting as \"0\" for backwards compatibility"
        );
        assert_eq!(w(b"1\x01\xe9\\q\t"), "Invalid quantity \"1\\x01\\xE9\\\\q\\t\": unknown multiplier \"q\", interpreting as \"1\" for backwards compatibility");
        assert_eq!(
            q(b"-9223372036854775808"),
            Quantity {
                value: i64::MIN,
                warning: None
            }
        );
        assert_eq!(q(b"9223372036854775808").value, i64::MIN);
        assert!(w(b"9223372036854775808").contains("value is out of range"));
        assert_eq!(q(b"8589934592G").value, i64::MIN);
        assert_eq!(q(b"9999999999999999999999M").value, -(1 << 20));
        assert_eq!(q(b"1\x0bK").value, 1024);
    }

    #[test]
    fn load_errors_as_php_fpm_words_them() {
        let src = b"[global]\nlog_level = loud\nenv[X] = 1\nerror_log = /var/log/$pool.log\n\
[www]\npm = apache-like\npm.max_children = 10a\nrequest_terminate_timeout = 5x\n\
catch_workers_output = maybe\nrlimit_core = -1\nenv[Y] =\nphp_flag[display_errors] = maybe\n\
php_value[] = 1\nfoo[x] = 1\naccess.suppress_path[x] = /a\naccess.suppress_path[] = a\n\
pm.max_childs = 5\nlisten.setfib = 1\nInclude = x\ninclude = /etc/x/*.conf\n\
PM.Max_Children = 5\nphp_admin_value[error_reporting] = E_ALL\nlisten = /run/$pool.sock\n";
        let p = parsed(src);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let got: Vec<String> = p
            .file
            .load_errors(src, &no_env, StartIn::Global)
            .into_iter()
            .map(|e| e.message)
            .collect();
        assert_eq!(
            got,
            [
                "unable to parse value for entry 'log_level': invalid value for 'log_level'",
                "Array are not allowed in the global section",
                "unable to parse value for entry 'error_log': Can't use '$pool' when the pool is not defined",
                "unable to parse value for entry 'pm': invalid process manager (static, dynamic or ondemand)",
                "unable to parse value for entry 'pm.max_children': is not a valid number (greater or equal than zero)",
                "unable to parse value for entry 'request_terminate_timeout': unknown suffix used in time value",
                "unable to parse value for entry 'catch_workers_output': invalid boolean value",
                "unable to parse value for entry 'rlimit_core': must be greater than zero or 'unlimited'",
                "empty value",
                "error while parsing 'php_flag[display_errors]' : invalid boolean value",
                "You must provide a key for field 'php_value'",
                "unknown directive 'foo'",
                "Keys provided to field 'access.suppress_path' are ignored",
                "Values provided to field 'access.suppress_path' must begin with '/'",
                "unknown entry 'pm.max_childs'",
                "unknown entry 'listen.setfib'",
                "unknown entry 'Include'",
            ]
        );
    }

    #[test]
    fn never_panics_on_odd_bytes() {
        let mut src = Vec::new();
        for b in 0u8..=255 {
            src.extend_from_slice(&[b, b'=', b'"', b, b'\'', b'$', b'{', b, b'[', b'\n']);
            src.extend_from_slice(&[b'[', b, b'\r', b'(', b'~', b]);
        }
        let p = parse(&src);
        assert_eq!(p.file.print(&src).as_deref(), Some(&src[..]));
        let _ = p.file.load_errors(&src, &no_env, StartIn::Global);
        for (_, e) in p.file.entries() {
            let _ = e.value_text_no_env(&src);
        }
    }
}
