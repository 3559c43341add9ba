//! `lemplint parse --format json` for PHP-FPM files: one node per item of [`FpmFile`], with
//! the spans and texts of its parts. The items tile the file, so the nodes' spans do too.
//!
//! ```json
//! {"type":"entry","line":3,"column":1,"span":[7,38],"eol":[37,38],
//!  "key":{"raw":"php_value[memory_limit]","span":[7,30]},
//!  "name":{"raw":"php_value","span":[7,16]},
//!  "subkey":{"raw":"memory_limit","value":"memory_limit","span":[17,29]},
//!  "eq":[31,32],
//!  "value":{"raw":"256M","value":"256M","span":[33,37],"unquoted":[33,37]},
//!  "section":0}
//! ```
//!
//! (the third line of `[www]\n\nphp_value[memory_limit] = 256M\n`; `section` is the index
//! of the header's node).
//!
//! `value` is what php-fpm receives from the INI parser ([`Entry::value_text`]): quotes
//! removed, `yes`/`on` as `1`, `E_*` constants evaluated; `${VAR}` is kept as written (the
//! environment is the server's, not ours) and `$pool` is php-fpm's later step. Parts a line
//! does not have (`subkey`, `comment`, `section` before any header) are left out.

use super::{Entry, FpmFile, LineKind, Section};
use crate::source::SourceFile;
use crate::syntax::lines::json::{mark, open_line, open_valued, part, text, valued};
use crate::syntax::nginx::json::JsonOut;
use std::io;

/// `${VAR}` as written: what the server's environment holds is not known here.
fn env_as_written(name: &str) -> Option<String> {
    Some(format!("${{{name}}}"))
}

/// Writes the items of `file` as a JSON array of nodes.
pub fn write_nodes(o: &mut JsonOut<'_>, src: &SourceFile, file: &FpmFile) -> io::Result<()> {
    o.raw(b"[");
    for (i, line) in file.lines.iter().enumerate() {
        if i > 0 {
            o.raw(b",");
        }
        match &line.kind {
            LineKind::Blank => open_line(o, src, "blank", line),
            LineKind::Comment { text, own_line } => {
                open_line(o, src, "comment", line);
                part(o, src, "comment", *text);
                o.raw(if *own_line {
                    b",\"own_line\":true"
                } else {
                    b",\"own_line\":false"
                });
            }
            LineKind::Section(s) => {
                open_line(o, src, "section", line);
                write_section(o, src, s);
            }
            LineKind::Entry(e) => {
                open_line(o, src, "entry", line);
                write_entry(o, src, e);
            }
            LineKind::Error => {
                open_line(o, src, "error", line);
                text(o, src, line);
            }
            LineKind::Xml => {
                open_line(o, src, "xml", line);
                text(o, src, line);
            }
        }
        o.raw(b"}");
        o.maybe_flush()?;
    }
    o.raw(b"]");
    Ok(())
}

/// `[name]`: the brackets, and the name as written and as php-fpm reads it.
fn write_section(o: &mut JsonOut<'_>, src: &SourceFile, s: &Section) {
    mark(o, "open", s.open);
    valued(
        o,
        src,
        "name",
        s.name,
        &s.name_text(&src.text, &env_as_written),
    );
    mark(o, "close", s.close);
}

/// `key[subkey] = value ; comment`.
fn write_entry(o: &mut JsonOut<'_>, src: &SourceFile, e: &Entry) {
    part(o, src, "key", e.key);
    part(o, src, "name", e.name);
    if let (Some(span), Some(sub)) = (e.subkey, e.subkey_text(&src.text, &env_as_written)) {
        valued(o, src, "subkey", span, &sub);
    }
    mark(o, "eq", e.eq);
    let value = e.value_text(&src.text, &env_as_written);
    open_valued(o, src, "value", e.raw_value, &value);
    o.raw(b",\"unquoted\":");
    o.span(e.value);
    o.raw(b"}");
    if let Some(c) = e.comment {
        part(o, src, "comment", c);
    }
    if let Some(section) = e.section {
        o.raw(b",\"section\":");
        o.uint(section);
    }
    if e.is_include(&src.text) {
        o.raw(b",\"include\":true");
    }
}
