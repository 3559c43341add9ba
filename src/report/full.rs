//! The human format: miette's graphical report with a code frame.

use crate::diagnostic::{Diagnostic, Severity};
use crate::source::SourceFile;
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};

/// Whether to colour output: never when `NO_COLOR` is set (https://no-color.org) or when
/// the stream is not a terminal.
pub fn use_color(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Source text for miette, with every byte that is not valid UTF-8 shown as `?`, so that
/// byte offsets into the original file stay valid in the rendered text.
pub fn display_text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                // Safe: `good` was just validated.
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let n = e.error_len().unwrap_or(bad.len());
                out.extend(std::iter::repeat_n('?', n));
                rest = &bad[n..];
            }
        }
    }
}

/// Renders one diagnostic whose primary span and labels all lie in `file`.
pub fn render(diag: &Diagnostic, color: bool) -> String {
    let file: &SourceFile = &diag.file;
    let severity = match diag.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    };
    let lc = file.line_col(diag.span.start);
    let mut report = MietteDiagnostic::new(diag.message.clone())
        .with_code(diag.code)
        .with_severity(severity)
        .with_label(LabeledSpan::new_primary_with_span(
            None,
            diag.span.start as usize..diag.span.end as usize,
        ));
    for l in diag
        .labels
        .iter()
        .filter(|l| std::sync::Arc::ptr_eq(&l.file, &diag.file))
    {
        report = report.and_label(LabeledSpan::new_with_span(
            Some(l.text.clone()),
            l.span.start as usize..l.span.end as usize,
        ));
    }
    if let Some(h) = &diag.help {
        report = report.with_help(h.clone());
    }
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
    // miette prints the name before its own line:column, which is what editors and
    // terminals turn into a link.
    let source = NamedSource::new(file.path.display().to_string(), display_text(&file.text));
    let report = miette::Report::new(report).with_source_code(source);
    let mut out = String::new();
    if handler.render_report(&mut out, report.as_ref()).is_err() {
        out = format!(
            "{}:{}:{}: {}[{}] {}\n",
            file.path.display(),
            lc.line,
            lc.column,
            diag.severity.as_str(),
            diag.code,
            diag.message
        );
    }
    out
}
