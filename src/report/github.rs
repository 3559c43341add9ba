//! The `github` format: GitHub Actions workflow commands, which the runner turns into
//! annotations on the pull request's diff.
//!
//! `::error file=PATH,line=L,col=C,endLine=L2,endColumn=C2,title=CODE name::message`, with
//! `::warning` for warnings and `::notice` for infos. GitHub only accepts columns on a
//! one-line annotation, so a finding that spans lines gets `line`/`endLine` alone.
//! Property values escape `%`, CR, LF, `:` and `,`; the message escapes `%`, CR and LF (as
//! the Actions toolkit's `escapeProperty`/`escapeData` do). Nothing else is printed.

use super::json::positions;
use super::Summary;
use crate::diagnostic::{Diagnostic, Severity};

/// Escapes workflow-command data (the message after `::`), as the Actions toolkit does;
/// other control characters (an escape sequence in a configuration value) are first made
/// visible, since the runner's log would render them.
pub fn escape_data(s: &str) -> String {
    crate::escape::text(s)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow-command property value.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One finding as one workflow command (without the line end).
pub fn line(d: &Diagnostic) -> String {
    let command = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let (start, end) = positions(d);
    // The real file (a symlink cannot be annotated), as it is: a `\\` is part of a file
    // name here, not a separator.
    let path = d.file.real_path().to_string_lossy();
    let mut props = vec![
        format!("file={}", escape_property(&path)),
        format!("line={}", start.line),
    ];
    if start.line == end.line {
        props.push(format!("col={}", start.column));
        props.push(format!("endLine={}", end.line));
        props.push(format!("endColumn={}", end.column));
    } else {
        props.push(format!("endLine={}", end.line));
    }
    let title = format!("{} {}", d.code, crate::rules::entry(d.code).name);
    props.push(format!("title={}", escape_property(&title)));
    let message = match &d.file.through_link {
        Some(_) => format!("{} (read through {})", d.message, d.file.path.display()),
        None => d.message.clone(),
    };
    format!("::{command} {}::{}", props.join(","), escape_data(&message))
}

pub fn write(
    out: &mut dyn std::io::Write,
    diagnostics: &[Diagnostic],
    _summary: &Summary,
) -> std::io::Result<()> {
    for d in diagnostics {
        writeln!(out, "{}", line(d))?;
    }
    Ok(())
}
