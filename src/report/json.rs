//! The `json` format: lemplint's stable machine contract, version 1.
//!
//! ```text
//! {"version": 1,
//!  "diagnostics": [{"code", "name", "severity", "category", "message", "file",
//!                   "line", "column", "end_line", "end_column", "help",
//!                   "labels": [{"file", "line", "column", "message"}],
//!                   "fix": null | {"applicability", "title",
//!                                  "edits": [{"file", "start", "end", "content"}]},
//!                   "loaded"}],
//!  "summary": {"files", "stacks", "errors", "warnings", "infos", "fixable",
//!              "unsafe_fixable", "host", "skipped_for_host"}}
//! ```
//!
//! Lines and columns are 1-based; columns count characters (bytes on a line that is not
//! valid UTF-8), as [`SourceFile::line_col`] does. `end_line`/`end_column` is the position
//! just after the span (exclusive, like ruff's `end_location`). Edit `start`/`end` are byte
//! offsets into the original file. `file` is the path as shown to the user. `name` and
//! `category` are `null` for a code that is not a registered rule; `help` is `null` when
//! the finding has none. `loaded` is false when nothing the server starts from reads the
//! file (see [`crate::stack::model::Stack::unloaded_files`]). Keys are only ever added.

use super::Summary;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::Label;
use crate::fix::{Edit, Fix};
use crate::source::{LineCol, SourceFile};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Value};

/// The version of the contract this module writes.
pub const VERSION: u32 = 1;

/// Where a diagnostic starts and (exclusively) ends.
pub fn positions(d: &Diagnostic) -> (LineCol, LineCol) {
    (d.file.line_col(d.span.start), d.file.line_col(d.span.end))
}

/// The path of a file as shown to the user.
pub fn display_path(file: &SourceFile) -> String {
    file.shown_path().display().to_string()
}

/// One diagnostic as a JSON object of the contract.
pub fn diagnostic(d: &Diagnostic) -> Value {
    serde_json::to_value(Contract(d)).unwrap_or(Value::Null)
}

/// A diagnostic serialized straight into the contract's shape. The writer streams these
/// rather than building a [`Value`] per finding: a `Value` copies every string and hashes
/// every key into an ordered map first, which cost more than the rules on a tree with
/// 16,000 findings (1 G instructions for 33 MB of JSON). Keys stay in the order above.
struct Contract<'a>(&'a Diagnostic);

/// A path written as [`display_path`] shows it, without building the `String`.
struct PathOf<'a>(&'a SourceFile);

impl Serialize for PathOf<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // A UTF-8 path displays as itself: written as a string, without the formatting
        // machinery (240,000 paths in a 16,000-finding report).
        let path = self.0.shown_path();
        match path.to_str() {
            Some(text) => s.serialize_str(text),
            None => s.collect_str(&path.display()),
        }
    }
}

impl Serialize for Contract<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.0;
        let rule = crate::rules::entry(d.code);
        let (start, end) = positions(d);
        let mut m = s.serialize_map(Some(14))?;
        m.serialize_entry("code", &d.code)?;
        m.serialize_entry("name", rule.name)?;
        m.serialize_entry("severity", d.severity.as_str())?;
        m.serialize_entry("category", rule.category.as_str())?;
        m.serialize_entry("message", &d.message)?;
        m.serialize_entry("file", &PathOf(&d.file))?;
        m.serialize_entry("line", &start.line)?;
        m.serialize_entry("column", &start.column)?;
        m.serialize_entry("end_line", &end.line)?;
        m.serialize_entry("end_column", &end.column)?;
        m.serialize_entry("help", &d.help)?;
        m.serialize_entry("labels", &Labels(&d.labels))?;
        m.serialize_entry("fix", &d.fix.as_ref().map(FixOf))?;
        m.serialize_entry("loaded", &d.loaded)?;
        m.end()
    }
}

struct Labels<'a>(&'a [Label]);

impl Serialize for Labels<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(LabelOf))
    }
}

struct LabelOf<'a>(&'a Label);

impl Serialize for LabelOf<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let l = self.0;
        let at = l.file.line_col(l.span.start);
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("file", &PathOf(&l.file))?;
        m.serialize_entry("line", &at.line)?;
        m.serialize_entry("column", &at.column)?;
        m.serialize_entry("message", &l.text)?;
        m.end()
    }
}

struct FixOf<'a>(&'a Fix);

impl Serialize for FixOf<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = self.0;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("applicability", &f.applicability)?;
        m.serialize_entry("title", &f.title)?;
        m.serialize_entry("edits", &Edits(&f.edits))?;
        m.end()
    }
}

struct Edits<'a>(&'a [Edit]);

impl Serialize for Edits<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(EditOf))
    }
}

struct EditOf<'a>(&'a Edit);

impl Serialize for EditOf<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("file", &PathOf(&e.file))?;
        m.serialize_entry("start", &e.range.start)?;
        m.serialize_entry("end", &e.range.end)?;
        m.serialize_entry("content", &e.content)?;
        m.end()
    }
}

/// The whole document.
pub fn document(diagnostics: &[Diagnostic], summary: &Summary) -> Value {
    json!({
        "version": VERSION,
        "diagnostics": diagnostics.iter().map(diagnostic).collect::<Vec<_>>(),
        "summary": serde_json::to_value(summary).unwrap_or(Value::Null),
    })
}

struct Diagnostics<'a>(&'a [Diagnostic]);

impl Serialize for Diagnostics<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(Contract))
    }
}

pub fn write(
    out: &mut dyn std::io::Write,
    diagnostics: &[Diagnostic],
    summary: &Summary,
) -> std::io::Result<()> {
    // The same document as [`document`], with the diagnostics streamed.
    #[derive(serde::Serialize)]
    struct Document<'a, D> {
        version: u32,
        diagnostics: D,
        summary: &'a Summary,
    }
    let doc = Document {
        version: VERSION,
        diagnostics: Diagnostics(diagnostics),
        summary,
    };
    use std::io::Write;
    let mut out = super::Batched::new(out);
    serde_json::to_writer_pretty(&mut out, &doc)?;
    out.write_all(b"\n")?;
    out.flush()
}
