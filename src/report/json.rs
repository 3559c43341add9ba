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
use crate::source::{LineCol, SourceFile};
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
    let rule = crate::rules::entry(d.code);
    let (start, end) = positions(d);
    let labels: Vec<Value> = d
        .labels
        .iter()
        .map(|l| {
            let at = l.file.line_col(l.span.start);
            json!({
                "file": display_path(&l.file),
                "line": at.line,
                "column": at.column,
                "message": l.text,
            })
        })
        .collect();
    let fix = match &d.fix {
        None => Value::Null,
        Some(f) => json!({
            "applicability": serde_json::to_value(f.applicability).unwrap_or(Value::Null),
            "title": f.title,
            "edits": f.edits.iter().map(|e| json!({
                "file": display_path(&e.file),
                "start": e.range.start,
                "end": e.range.end,
                "content": e.content,
            })).collect::<Vec<_>>(),
        }),
    };
    json!({
        "code": d.code,
        "name": rule.name,
        "severity": d.severity.as_str(),
        "category": rule.category.as_str(),
        "message": d.message,
        "file": display_path(&d.file),
        "line": start.line,
        "column": start.column,
        "end_line": end.line,
        "end_column": end.column,
        "help": d.help,
        "labels": labels,
        "fix": fix,
        "loaded": d.loaded,
    })
}

/// The whole document.
pub fn document(diagnostics: &[Diagnostic], summary: &Summary) -> Value {
    json!({
        "version": VERSION,
        "diagnostics": diagnostics.iter().map(diagnostic).collect::<Vec<_>>(),
        "summary": serde_json::to_value(summary).unwrap_or(Value::Null),
    })
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
        diagnostics: super::Streamed(diagnostics, diagnostic),
        summary,
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}
