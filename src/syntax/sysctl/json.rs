//! `lemplint parse --format json` for sysctl files: one node per line of [`SysctlFile`],
//! with the spans and texts of its parts. The lines tile the file, so the nodes' spans do
//! too.
//!
//! ```json
//! {"type":"assignment","line":2,"column":1,"span":[6,32],"eol":[31,32],
//!  "key":{"raw":"net.core.somaxconn","span":[6,24],"normalized":"net.core.somaxconn",
//!         "path":"net/core/somaxconn"},
//!  "eq":[25,26],"value":{"raw":"4096","value":"4096","span":[27,31]}}
//! ```
//!
//! (the second line of `# web\nnet.core.somaxconn = 4096\n`).
//!
//! `key.raw` is the key procps uses, `key.path` the file under `/proc/sys` it names, and
//! `key.normalized` the dotted form lookups compare ([`Assignment::normalized_key`]); `glob`
//! is present (true) for glob keys. procps writes a value verbatim, so `value.value` is
//! `value.raw` (`4096 # note` included). A `-` in front is `dash`, left out when absent.

use super::{Assignment, LineKind, SysctlFile};
use crate::source::{SourceFile, Span};
use crate::syntax::lines::json::{mark, open_line, open_part, part, text, valued};
use crate::syntax::nginx::json::JsonOut;
use std::io;

/// Writes the lines of `file` as a JSON array of nodes.
pub fn write_nodes(o: &mut JsonOut<'_>, src: &SourceFile, file: &SysctlFile) -> io::Result<()> {
    o.raw(b"[");
    for (i, line) in file.lines.iter().enumerate() {
        if i > 0 {
            o.raw(b",");
        }
        match &line.kind {
            LineKind::Blank => open_line(o, src, "blank", line),
            LineKind::Comment { text } => {
                open_line(o, src, "comment", line);
                part(o, src, "comment", *text);
            }
            LineKind::Assignment(a) => {
                open_line(o, src, "assignment", line);
                write_assignment(o, src, a);
            }
            LineKind::Exclude { dash, key } => {
                open_line(o, src, "exclude", line);
                mark(o, "dash", *dash);
                write_key(o, src, *key);
            }
            LineKind::Error => {
                open_line(o, src, "error", line);
                text(o, src, line);
            }
        }
        o.raw(b"}");
        o.maybe_flush()?;
    }
    o.raw(b"]");
    Ok(())
}

/// `[-]key = value`.
fn write_assignment(o: &mut JsonOut<'_>, src: &SourceFile, a: &Assignment) {
    if let Some(dash) = a.dash {
        mark(o, "dash", dash);
    }
    write_key(o, src, a.key);
    mark(o, "eq", a.eq);
    valued(o, src, "value", a.value, src.bytes(a.value));
}

/// `,"key":{"raw":…,"span":…,"normalized":…,"path":…}`, and `"glob":true` for a glob.
fn write_key(o: &mut JsonOut<'_>, src: &SourceFile, key: Span) {
    let bytes = src.bytes(key);
    open_part(o, src, "key", key);
    o.raw(b",\"normalized\":");
    o.string(&super::normalize_key(bytes));
    o.raw(b",\"path\":");
    o.string(&super::key_to_path(bytes));
    if super::is_glob(bytes) {
        o.raw(b",\"glob\":true");
    }
    o.raw(b"}");
}
