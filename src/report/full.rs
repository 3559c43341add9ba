//! The human format: miette's graphical report with a code frame.

pub use super::frame_source::Frames;
use crate::diagnostic::{Diagnostic, Severity};
use crate::escape;
use crate::source::SourceFile;
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic};

/// Whether to colour output: never when `NO_COLOR` is set (https://no-color.org) or when
/// the stream is not a terminal.
pub fn use_color(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

pub use crate::escape::{display_text, Shifts};

/// Lines longer than this are not framed: miette cannot lay them out (its format widths
/// overflow past 65,535 columns) and nobody reads them anyway.
const MAX_FRAMED_LINE: usize = 4000;

fn line_len(file: &SourceFile, offset: u32) -> usize {
    let line = file.line_of(offset);
    let start = file.line_start(line) as usize;
    let end = file.line_start(line + 1) as usize;
    end.saturating_sub(start)
}

/// The note under a finding in a file nothing the server starts from reads.
pub const NOT_LOADED: &str =
    "not loaded: no configuration the server starts from reads this file (`--loaded-only` hides it)";

/// Renders one diagnostic whose primary span and labels all lie in `file`; `frames` keeps
/// the frame source of the last file rendered for the next finding in it.
pub fn render(diag: &Diagnostic, color: bool, frames: &mut Frames) -> String {
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
    if crate::syntax::encoding::is_binary(&file.text) {
        return render_binary(diag);
    }
    let severity = match diag.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    };
    let lc = file.line_col(diag.span.start);
    let code = format!("{} {}", diag.code, crate::rules::entry(diag.code).name);
    let source = frames.of(&diag.file);
    let shifts = &source.shifts;
    let mut report = MietteDiagnostic::new(escape::text(&diag.message))
        .with_code(code)
        .with_severity(severity)
        .with_label(LabeledSpan::new_primary_with_span(
            None,
            shifts.span(diag.span.start, diag.span.end),
        ));
    for l in diag
        .labels
        .iter()
        .filter(|l| std::sync::Arc::ptr_eq(&l.file, &diag.file))
    {
        report = report.and_label(LabeledSpan::new_with_span(
            Some(escape::text(&l.text).into_owned()),
            shifts.span(l.span.start, l.span.end),
        ));
    }
    // miette frames one source per report; places in other files are listed as notes.
    let mut help: Vec<String> = diag
        .help
        .iter()
        .map(|h| escape::text(h).into_owned())
        .collect();
    if !diag.loaded {
        help.push(NOT_LOADED.into());
    }
    for l in diag
        .labels
        .iter()
        .filter(|l| !std::sync::Arc::ptr_eq(&l.file, &diag.file))
    {
        let at = l.file.line_col(l.span.start);
        help.push(format!(
            "{}: {}:{}:{}",
            escape::text(&l.text),
            escape::path(l.file.shown_path()),
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
    // miette prints the name before its own line:column (counted in characters by the
    // frame source, as every other format counts), which is what editors and terminals turn
    // into a link.
    let report = miette::Report::new(report).with_source_code(source);
    let mut out = String::new();
    if handler.render_report(&mut out, report.as_ref()).is_err() {
        out = format!(
            "{}:{}:{}: {}[{}] {}\n",
            escape::path(file.shown_path()),
            lc.line,
            lc.column,
            diag.severity.as_str(),
            diag.code,
            escape::text(&diag.message)
        );
    }
    out
}

/// A finding in a binary file, in one line: its bytes are no configuration and framing
/// them would print control-character garbage.
fn render_binary(diag: &Diagnostic) -> String {
    let lc = diag.file.line_col(diag.span.start);
    format!(
        "{}:{}:{}: {}[{}] {}\n",
        escape::path(diag.file.shown_path()),
        lc.line,
        lc.column,
        diag.severity.as_str(),
        diag.code,
        escape::text(&diag.message)
    )
}

/// The same information without a code frame, for a line too long to show.
fn render_unframed(diag: &Diagnostic) -> String {
    let file: &SourceFile = &diag.file;
    let lc = file.line_col(diag.span.start);
    let code = format!("{} {}", diag.code, crate::rules::entry(diag.code).name);
    let mark = match diag.severity {
        Severity::Error => "×",
        Severity::Warning => "⚠",
        Severity::Info => "☞",
    };
    let mut out = format!(
        "{code}\n\n  {mark} {}\n   ╭─[{}:{}:{}]\n   │ (line {} is {} bytes long; not shown)\n   ╰────\n",
        escape::text(&diag.message),
        escape::path(file.shown_path()),
        lc.line,
        lc.column,
        lc.line,
        line_len(file, diag.span.start)
    );
    if let Some(h) = &diag.help {
        out.push_str(&format!("  help: {}\n", escape::text(h)));
    }
    if !diag.loaded {
        out.push_str(&format!("  note: {NOT_LOADED}\n"));
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
    let mut frames = Frames::default();
    for d in diagnostics {
        out.write_all(render(d, color, &mut frames).as_bytes())?;
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
    for r in &s.rendered {
        text.push_str(&format!("Rendered {r}.\n"));
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
