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
use crate::syntax::nginx::json::JsonOut;

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

/// Writes the document of the contract above, as `serde_json::to_writer_pretty` prints it
/// (two-space indent, `"key": value`, `[]` for an empty list) and a final newline. The
/// diagnostics are written by hand into one buffer: through serde, escaping each key and
/// string a byte at a time was a third of a run whose 10,000 findings make 34 MB of JSON.
/// The summary, a few lines, still goes through serde. The unit tests compare the two: the
/// same document built through serde (`serde_oracle`) is printed byte for byte alike.
pub fn write(
    out: &mut dyn std::io::Write,
    diagnostics: &[Diagnostic],
    summary: &Summary,
) -> std::io::Result<()> {
    let mut o = JsonOut::new(out);
    o.raw(b"{\n  \"version\": ");
    o.uint(VERSION);
    o.raw(b",\n  \"diagnostics\": ");
    if diagnostics.is_empty() {
        o.raw(b"[]");
    } else {
        o.raw(b"[");
        for (i, d) in diagnostics.iter().enumerate() {
            o.raw(if i == 0 { b"\n    " } else { b",\n    " });
            write_diagnostic(&mut o, d);
            o.maybe_flush()?;
        }
        o.raw(b"\n  ]");
    }
    o.raw(b",\n  \"summary\": ");
    // Nested one level down: each line after the first indented by two more spaces (a JSON
    // string holds no raw line break, so every `\n` is between tokens).
    let summary = serde_json::to_vec_pretty(summary)?;
    for (i, line) in summary.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            o.raw(b"\n  ");
        }
        o.raw(line);
    }
    o.raw(b"\n}\n");
    o.flush()
}

/// One diagnostic object, opened at an indent of four spaces.
fn write_diagnostic(o: &mut JsonOut<'_>, d: &Diagnostic) {
    let rule = crate::rules::entry(d.code);
    let (start, end) = positions(d);
    o.raw(b"{\n      \"code\": ");
    o.string(d.code.as_str());
    o.raw(b",\n      \"name\": ");
    o.string(rule.name);
    o.raw(b",\n      \"severity\": ");
    o.string(d.severity.as_str());
    o.raw(b",\n      \"category\": ");
    o.string(rule.category.as_str());
    o.raw(b",\n      \"message\": ");
    o.string(&d.message);
    o.raw(b",\n      \"file\": ");
    write_path(o, &d.file);
    o.raw(b",\n      \"line\": ");
    o.uint(start.line);
    o.raw(b",\n      \"column\": ");
    o.uint(start.column);
    o.raw(b",\n      \"end_line\": ");
    o.uint(end.line);
    o.raw(b",\n      \"end_column\": ");
    o.uint(end.column);
    o.raw(b",\n      \"help\": ");
    match &d.help {
        Some(help) => o.string(help),
        None => o.raw(b"null"),
    }
    o.raw(b",\n      \"labels\": ");
    write_array(o, &d.labels, b"\n        ", |o, l| {
        let at = l.file.line_col(l.span.start);
        o.raw(b"{\n          \"file\": ");
        write_path(o, &l.file);
        o.raw(b",\n          \"line\": ");
        o.uint(at.line);
        o.raw(b",\n          \"column\": ");
        o.uint(at.column);
        o.raw(b",\n          \"message\": ");
        o.string(&l.text);
        o.raw(b"\n        }");
    });
    o.raw(b",\n      \"fix\": ");
    match &d.fix {
        None => o.raw(b"null"),
        Some(f) => {
            o.raw(b"{\n        \"applicability\": ");
            o.string(f.applicability.as_str());
            o.raw(b",\n        \"title\": ");
            o.string(&f.title);
            o.raw(b",\n        \"edits\": ");
            write_array(o, &f.edits, b"\n          ", |o, e| {
                o.raw(b"{\n            \"file\": ");
                write_path(o, &e.file);
                o.raw(b",\n            \"start\": ");
                o.uint(e.range.start);
                o.raw(b",\n            \"end\": ");
                o.uint(e.range.end);
                o.raw(b",\n            \"content\": ");
                o.string(&e.content);
                o.raw(b"\n          }");
            });
            o.raw(b"\n      }");
        }
    }
    o.raw(b",\n      \"loaded\": ");
    o.raw(if d.loaded { b"true" } else { b"false" });
    o.raw(b"\n    }");
}

/// A list as serde's pretty printer writes it: `[]` when empty, else each item on its own
/// line after `indent` (a newline and the items' indent), the closing `]` two spaces less
/// indented.
fn write_array<T>(
    o: &mut JsonOut<'_>,
    items: &[T],
    indent: &[u8],
    mut each: impl FnMut(&mut JsonOut<'_>, &T),
) {
    if items.is_empty() {
        o.raw(b"[]");
        return;
    }
    o.raw(b"[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            o.raw(b",");
        }
        o.raw(indent);
        each(o, item);
    }
    o.raw(&indent[..indent.len() - 2]);
    o.raw(b"]");
}

/// A path as [`display_path`] shows it.
fn write_path(o: &mut JsonOut<'_>, file: &SourceFile) {
    let path = file.shown_path();
    match path.to_str() {
        Some(text) => o.string(text),
        None => o.string(&path.display().to_string()),
    }
}

/// The contract's document built through serde's data model: the unit tests' oracle for
/// the hand-written [`write`] (serde_json's pretty printer, byte for byte).
#[cfg(test)]
mod serde_oracle {
    use super::{positions, Summary, VERSION};
    use crate::diagnostic::{Diagnostic, Label};
    use crate::fix::{Edit, Fix};
    use crate::source::SourceFile;
    use serde::ser::{Serialize, SerializeMap, Serializer};
    use serde_json::{json, Value};

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{RuleId, Severity};
    use crate::fix::{Edit, Fix};
    use crate::source::Span;
    use std::sync::Arc;

    /// What serde_json printed for the same document before the diagnostics were written
    /// by hand: the contract's bytes.
    fn through_serde(diagnostics: &[Diagnostic], summary: &Summary) -> String {
        serde_json::to_string_pretty(&super::serde_oracle::document(diagnostics, summary)).unwrap()
            + "\n"
    }

    fn written(diagnostics: &[Diagnostic], summary: &Summary) -> String {
        let mut out = Vec::new();
        write(&mut out, diagnostics, summary).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn hand_written_document_is_serdes_byte_for_byte() {
        let text = "server {\n\tlisten 80;\r\n}\n# é \"quoted\" \\ back\u{1}\u{7f}\n".repeat(3);
        let file = Arc::new(SourceFile::new(
            "etc/nginx/sites-enabled/é x.conf",
            text.into(),
        ));
        #[cfg(unix)]
        let odd = {
            use std::os::unix::ffi::OsStrExt;
            let name = std::ffi::OsStr::from_bytes(b"etc/nginx/bad\xff name.conf");
            Arc::new(SourceFile::new(name, b"x;\n".to_vec()))
        };
        #[cfg(not(unix))]
        let odd = file.clone();
        let code = |c: &str| RuleId::of_code(c).unwrap();
        let mut plain = Diagnostic::new(
            code("NGX116"),
            Severity::Info,
            file.clone(),
            Span::new(9, 15),
            "`location /` sets its own \"add_header\": \u{0}\u{8}\u{c}\t\n\r \\ é \u{1f} ok",
        );
        plain.label(file.clone(), Span::new(20, 21), "set here \"x\"");
        plain.label(odd.clone(), Span::new(0, 1), "and here");
        plain.with_fix(Fix::unsafe_(
            "Repeat the 2 lost directive(s) here",
            vec![
                Edit::replace(&file, Span::new(9, 15), "add_header X \"y\";\n\t"),
                Edit::replace(&odd, Span::new(0, 0), ""),
            ],
        ));
        plain.help = Some("repeat them (or `include` a file)".to_string());
        let mut bare = Diagnostic::new(
            code("NGX023"),
            Severity::Error,
            odd.clone(),
            Span::new(0, 2),
            "",
        );
        bare.loaded = false;
        bare.with_fix(Fix::safe("Nothing to do", Vec::new()));
        let warned = Diagnostic::new(
            code("NGX000"),
            Severity::Warning,
            file.clone(),
            Span::new(40, 41),
            "short",
        );
        let summary = Summary {
            files: 3,
            stacks: 1,
            warnings: 1,
            host: vec!["cpus: 2 (command line)".into(), "say \"hi\"".into()],
            skipped_for_host: vec!["NGX110".into()],
            rendered: vec!["a.conf: 2 values from env".into()],
            ..Default::default()
        };
        for list in [
            vec![],
            vec![warned.clone()],
            vec![plain.clone(), bare.clone(), warned.clone()],
        ] {
            assert_eq!(written(&list, &summary), through_serde(&list, &summary));
        }
        // Every byte serde escapes, and a non-ASCII one, at each offset of an eight-byte
        // word (the plain runs are skipped a word at a time).
        for special in ["\"", "\\", "\u{0}", "\u{1f}", "\n", "é", "\u{7f}"] {
            for at in 0..17 {
                let message = format!("{}{special}{}", "a".repeat(at), "b".repeat(17 - at));
                let d = Diagnostic::new(
                    code("NGX000"),
                    Severity::Error,
                    file.clone(),
                    Span::new(0, 1),
                    message,
                );
                let list = [d];
                assert_eq!(written(&list, &summary), through_serde(&list, &summary));
            }
        }
    }
}
