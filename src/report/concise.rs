//! The `concise` format: one gcc-style line per finding, `path:line:col: severity[CODE]
//! message`, which editors and terminals turn into links; then the closing summary of the
//! `full` format.

use super::Summary;
use crate::diagnostic::Diagnostic;

/// One finding as a single line (without the line end). Line breaks inside the message are
/// folded to spaces so that every finding stays one line.
pub fn line(d: &Diagnostic) -> String {
    let mut out = Vec::with_capacity(d.message.len() + 64);
    write_line(&mut out, d).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("every part is UTF-8")
}

/// [`line`] written straight to `out`, without an intermediate string per finding (a run
/// with a finding in every vhost prints tens of thousands).
fn write_line(out: &mut dyn std::io::Write, d: &Diagnostic) -> std::io::Result<()> {
    let at = d.file.line_col(d.span.start);
    out.write_all(crate::escape::path(d.file.shown_path()).as_bytes())?;
    write!(out, ":{}:{}: ", at.line, at.column)?;
    for part in [d.severity.as_str(), "[", d.code.as_str(), "] "] {
        out.write_all(part.as_bytes())?;
    }
    out.write_all(crate::escape::line(&one_line(&d.message)).as_bytes())?;
    if !d.loaded {
        out.write_all(NOT_LOADED_TAG.as_bytes())?;
    }
    Ok(())
}

/// What follows a finding in a file nothing the server starts from reads.
pub const NOT_LOADED_TAG: &str = " [not loaded]";

fn one_line(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\n') {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(s.replace("\r\n", " ").replace('\n', " "))
}

pub fn write(
    out: &mut dyn std::io::Write,
    diagnostics: &[Diagnostic],
    summary: &Summary,
) -> std::io::Result<()> {
    for d in diagnostics {
        write_line(out, d)?;
        out.write_all(b"\n")?;
    }
    out.write_all(super::full::summary_text(summary).as_bytes())
}
