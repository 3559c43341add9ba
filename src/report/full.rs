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

/// Lines longer than this are not framed: miette cannot lay them out (its format widths
/// overflow past 65,535 columns) and nobody reads them anyway.
const MAX_FRAMED_LINE: usize = 4000;

fn line_len(file: &SourceFile, offset: u32) -> usize {
    let line = file.line_of(offset);
    let start = file.line_start(line) as usize;
    let end = file.line_start(line + 1) as usize;
    end.saturating_sub(start)
}

/// Renders one diagnostic whose primary span and labels all lie in `file`.
pub fn render(diag: &Diagnostic, color: bool) -> String {
    let file: &SourceFile = &diag.file;
    let too_long = std::iter::once(diag.span.start)
        .chain(
            diag.labels
                .iter()
                .filter(|l| std::sync::Arc::ptr_eq(&l.file, &diag.file))
                .map(|l| l.span.start),
        )
        .any(|o| line_len(file, o) > MAX_FRAMED_LINE);
    if too_long {
        return render_unframed(diag);
    }
    let severity = match diag.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    };
    let lc = file.line_col(diag.span.start);
    let code = match crate::rules::by_code(diag.code) {
        Some(rule) => format!("{} {}", diag.code, rule.name),
        None => diag.code.to_string(),
    };
    let mut report = MietteDiagnostic::new(diag.message.clone())
        .with_code(code)
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
    // miette frames one source per report; places in other files are listed as notes.
    let mut help: Vec<String> = diag.help.iter().cloned().collect();
    for l in diag
        .labels
        .iter()
        .filter(|l| !std::sync::Arc::ptr_eq(&l.file, &diag.file))
    {
        let at = l.file.line_col(l.span.start);
        help.push(format!(
            "{}: {}:{}:{}",
            l.text,
            l.file.path.display(),
            at.line,
            at.column
        ));
    }
    if !help.is_empty() {
        report = report.with_help(help.join("\n"));
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

/// The same information without a code frame, for a line too long to show.
fn render_unframed(diag: &Diagnostic) -> String {
    let file: &SourceFile = &diag.file;
    let lc = file.line_col(diag.span.start);
    let code = match crate::rules::by_code(diag.code) {
        Some(rule) => format!("{} {}", diag.code, rule.name),
        None => diag.code.to_string(),
    };
    let mark = match diag.severity {
        Severity::Error => "×",
        Severity::Warning => "⚠",
        Severity::Info => "☞",
    };
    let mut out = format!(
        "{code}\n\n  {mark} {}\n   ╭─[{}:{}:{}]\n   │ (line {} is {} bytes long; not shown)\n   ╰────\n",
        diag.message,
        file.path.display(),
        lc.line,
        lc.column,
        lc.line,
        line_len(file, diag.span.start)
    );
    if let Some(h) = &diag.help {
        out.push_str(&format!("  help: {h}\n"));
    }
    out
}

/// The `full` format: every diagnostic with its code frame, then the summary.
pub fn write(
    out: &mut dyn std::io::Write,
    diagnostics: &[Diagnostic],
    summary: &super::Summary,
    color: bool,
) -> std::io::Result<()> {
    for d in diagnostics {
        out.write_all(render(d, color).as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.write_all(summary_text(summary).as_bytes())
}

/// The closing lines shared by the human formats.
pub fn summary_text(s: &super::Summary) -> String {
    let total = s.errors + s.warnings + s.infos;
    let mut text = if total == 0 {
        format!(
            "No problems found in {} file{} ({} stack{}).\n",
            s.files,
            if s.files == 1 { "" } else { "s" },
            s.stacks,
            if s.stacks == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "Found {total} problem{} ({} error{}, {} warning{}, {} info) in {} file{} ({} stack{}).\n",
            if total == 1 { "" } else { "s" },
            s.errors,
            if s.errors == 1 { "" } else { "s" },
            s.warnings,
            if s.warnings == 1 { "" } else { "s" },
            s.infos,
            s.files,
            if s.files == 1 { "" } else { "s" },
            s.stacks,
            if s.stacks == 1 { "" } else { "s" },
        )
    };
    if s.fixable > 0 {
        text.push_str(&format!("[*] {} fixable with `lemplint fix`.\n", s.fixable));
    }
    if s.unsafe_fixable > 0 {
        text.push_str(&format!(
            "{} more fixable with `lemplint fix --unsafe-fixes`.\n",
            s.unsafe_fixable
        ));
    }
    if !s.host.is_empty() {
        text.push_str(&format!("Host: {}.\n", s.host.join(", ")));
    }
    if !s.skipped_for_host.is_empty() {
        text.push_str(&format!(
            "Skipped {} rule{} that need{} host facts ({}): pass --cpus N --memory SIZE, set [host] in lemplint.toml, or use --host local on the server itself.\n",
            s.skipped_for_host.len(),
            if s.skipped_for_host.len() == 1 { "" } else { "s" },
            if s.skipped_for_host.len() == 1 { "s" } else { "" },
            s.skipped_for_host.join(", ")
        ));
    }
    text
}
