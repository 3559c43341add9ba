//! The `concise` format: one gcc-style line per finding, `path:line:col: severity[CODE]
//! message`, which editors and terminals turn into links; then the closing summary of the
//! `full` format.

use super::Summary;
use crate::diagnostic::Diagnostic;

/// One finding as a single line (without the line end). Line breaks inside the message are
/// folded to spaces so that every finding stays one line.
pub fn line(d: &Diagnostic) -> String {
    let at = d.file.line_col(d.span.start);
    format!(
        "{}:{}:{}: {}[{}] {}",
        crate::escape::path(d.file.shown_path()),
        at.line,
        at.column,
        d.severity.as_str(),
        d.code,
        crate::escape::line(&one_line(&d.message))
    )
}

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
        writeln!(out, "{}", line(d))?;
    }
    out.write_all(super::full::summary_text(summary).as_bytes())
}
