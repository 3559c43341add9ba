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
//!
//! # Where things are
//! [`statements`] splits a file into items and drives [`scanner`] (the Zend INI lexer) and
//! [`parser`] (the grammar) over each line; [`eval`] computes values as the INI parser does;
//! [`values`] holds php-fpm's value parsers and [`schema`] its directive tables and per-entry
//! loader checks. This file holds the parsed types and their accessors.

use crate::source::Span;
use crate::syntax::error::SyntaxError;
use crate::syntax::lines::slice;
use std::borrow::Cow;

pub mod json;

mod eval;
mod parser;
mod scanner;
mod schema;
mod statements;
mod values;

#[cfg(test)]
mod tests;

use eval::{collect_constants, concat, eval};
pub use eval::{expand_env, expand_pool, unescape_double_quoted};
use parser::{Expr, Parts};
pub use schema::*;
pub use statements::{parse, parse_php_ini};
pub use values::*;

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
    parts: Parts,
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
    /// (A `u32`, like every span: an item is kept for each line of the file, and a
    /// 24,000-pool file has 120,000.)
    pub section: Option<u32>,
    expr: Expr,
    /// Boxed: only array entries have one, and 8 bytes in every item rather than 24.
    subkey_parts: Option<Box<Parts>>,
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
