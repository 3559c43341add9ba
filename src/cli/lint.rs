//! `lemplint lint`: run the rules on every stack under the given paths.

use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use crate::diagnostic::Severity;
use crate::engine::{collect_with, Findings, StackArgs};
use crate::report::{self, Format};
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct LintArgs {
    #[command(flatten)]
    pub stack: StackArgs,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Full)]
    pub format: Format,
    /// Rules to run: groups (default, hardening, preview), codes, prefixes (NGX, FPM0) or
    /// names; replaces `select` in the config (default: the `default` group)
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Rules to skip, added to `ignore` in the config
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Lowest severity that makes the exit code 1
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Hide findings in files that nothing the server starts from reads (a vhost in
    /// sites-available that is not enabled, a pool no master includes)
    #[arg(long)]
    pub loaded_only: bool,
    /// Report only findings not recorded in this baseline file; when it does not exist,
    /// record every current finding in it and exit 0
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Rewrite the --baseline file with the current findings (fixed ones leave it)
    #[arg(long, requires = "baseline")]
    pub update_baseline: bool,
    /// Add a `lemplint: ignore CODE -- TODO: reason` comment above every finding's line
    #[arg(long, conflicts_with_all = ["baseline", "output_file", "statistics"])]
    pub add_noqa: bool,
    /// Print how many findings each rule has (most first) instead of the findings
    #[arg(long)]
    pub statistics: bool,
    /// Write the report to this file (atomically) instead of standard output
    #[arg(long, value_name = "PATH")]
    pub output_file: Option<PathBuf>,
    /// Colour in the `full` format: auto (a terminal, unless NO_COLOR is set), always, never
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour output going to a terminal (`is_terminal`) or not.
    pub fn enabled(self, is_terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => report::full::use_color(is_terminal),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
}

impl From<FailOn> for Severity {
    fn from(f: FailOn) -> Severity {
        match f {
            FailOn::Error => Severity::Error,
            FailOn::Warning => Severity::Warning,
            FailOn::Info => Severity::Info,
        }
    }
}

pub fn run(mut args: LintArgs) -> i32 {
    let overlay = match crate::engine::stdin_overlay(&mut args.stack) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("error: {msg}");
            return EXIT_ERROR;
        }
    };
    // `--add-noqa` writes: the tree's lock is held from before anything is read, as `fix`
    // holds it.
    let _lock = match super::lock_for_writing(&args.stack, args.add_noqa) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let real = crate::engine::real_fs(&args.stack);
    let fs: &dyn crate::stack::fs::Fs = match &overlay {
        Some(o) => o,
        None => &real,
    };
    let (workspace, mut findings) = match collect_with(
        &args.stack,
        &args.select,
        &args.ignore,
        args.fail_on.map(Severity::from),
        fs,
    ) {
        Ok(r) => r,
        // A repository with nothing of ours in it (a chart whose configuration sits in YAML,
        // an application without server files) passes, as ruff passes a tree without Python:
        // a gate that fails with nothing to fix would be switched off. The report is still
        // written, empty, for the tools that read it.
        Err(msg) if msg.starts_with(crate::engine::NOTHING_FOUND) => {
            eprintln!("warning: {msg}: nothing to lint");
            let summary = crate::engine::Summary {
                root: Some(report::fingerprint::Root::detect(&args.stack.paths)),
                ..Default::default()
            };
            return match emit(&args, &[], &summary) {
                Ok(()) => EXIT_OK,
                Err(code) => code,
            };
        }
        Err(msg) => {
            eprintln!("error: {msg}");
            return EXIT_ERROR;
        }
    };
    if args.loaded_only {
        // The input's errors stay: a file that cannot be read is never hidden.
        findings
            .diagnostics
            .retain(|d| d.loaded || crate::rules::is_input_error(d.code));
        findings.summary.recount(&findings.diagnostics);
    }
    if args.add_noqa {
        return super::noqa::run(&args.stack, &workspace, &findings.diagnostics);
    }
    findings.summary.root = Some(report::fingerprint::Root::detect(&args.stack.paths));
    if let Some(path) = &args.baseline {
        if let Err(code) = apply_baseline(&args, path, &mut findings) {
            return code;
        }
    }
    let reported = std::time::Instant::now();
    let written = emit(&args, &findings.diagnostics, &findings.summary);
    crate::timings::report(format_args!("report"), reported);
    if let Err(code) = written {
        return code;
    }
    // Freeing every tree of a large configuration one allocation at a time costs more than
    // the lint's rules; the process is about to exit, which returns the memory at once.
    std::mem::forget(workspace);
    exit_code(&findings)
}

/// `--baseline FILE`: records the findings when FILE does not exist (or with
/// `--update-baseline`), else leaves out the findings it records and says how many of its
/// entries are fixed. Input errors are never recorded nor hidden.
fn apply_baseline(
    args: &LintArgs,
    path: &std::path::Path,
    findings: &mut Findings,
) -> Result<(), i32> {
    use crate::report::baseline::{self, Baseline};
    let root = report::fingerprint::Root::new(findings.summary.root.as_deref());
    let shown = crate::escape::path(path);
    let existing = match std::fs::read(path) {
        Ok(bytes) => Some(Baseline::parse(&bytes).map_err(|e| {
            eprintln!("error: baseline {shown}: {e}");
            EXIT_ERROR
        })?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            eprintln!("error: cannot read baseline {shown}: {e}");
            return Err(EXIT_ERROR);
        }
    };
    let record = existing.is_none() || args.update_baseline;
    let before = existing.as_ref().map_or(0, |b| b.findings.len());
    let comparison = existing
        .as_ref()
        .map(|b| baseline::filter(b, &root, &mut findings.diagnostics.clone()));
    if record {
        let current = baseline::build(&root, &findings.diagnostics);
        if let Err(e) = crate::fix::write::output(path, current.to_json().as_bytes()) {
            eprintln!("error: cannot write baseline {shown}: {e}");
            return Err(EXIT_ERROR);
        }
        let n = current.findings.len();
        match (&existing, comparison) {
            (Some(_), Some(c)) => eprintln!(
                "Updated the baseline {shown}: {n} finding{} recorded ({} fixed since, {} new).",
                plural(n),
                c.fixed,
                n.saturating_sub(before - c.fixed)
            ),
            _ => eprintln!(
                "Wrote the baseline {shown}: {n} finding{} recorded; later runs with --baseline report only new ones.",
                plural(n)
            ),
        }
        let recorded = current;
        baseline::filter(&recorded, &root, &mut findings.diagnostics);
    } else if let Some(b) = &existing {
        let c = baseline::filter(b, &root, &mut findings.diagnostics);
        let fixed = if c.fixed == 0 {
            String::new()
        } else {
            format!(
                "; {} fixed (no longer found: `--update-baseline` removes {})",
                c.fixed,
                if c.fixed == 1 { "it" } else { "them" }
            )
        };
        eprintln!(
            "Baseline {shown}: {} known finding{} not shown{fixed}.",
            c.known,
            plural(c.known)
        );
    }
    findings.summary.recount(&findings.diagnostics);
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Writes the report (or `--statistics`) to standard output or `--output-file`.
fn emit(
    args: &LintArgs,
    diagnostics: &[crate::diagnostic::Diagnostic],
    summary: &crate::engine::Summary,
) -> Result<(), i32> {
    let render = |out: &mut dyn Write, color: bool| -> std::io::Result<()> {
        if args.statistics {
            statistics(out, args.format, diagnostics)
        } else {
            report::write(args.format, out, diagnostics, summary, color)
        }
    };
    let result = match &args.output_file {
        Some(path) => {
            let mut buf = Vec::new();
            render(&mut buf, args.color.enabled(false)).and_then(|_| {
                crate::fix::write::output(path, &buf).map_err(|e| {
                    std::io::Error::new(e.kind(), format!("{}: {e}", crate::escape::path(path)))
                })
            })
        }
        None => {
            let color = args.color.enabled(std::io::stdout().is_terminal());
            // Buffered: a JSON report is written a line at a time, and stdout flushes every line.
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            render(&mut out, color).and_then(|_| out.flush())
        }
    };
    match result {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(EXIT_ERROR),
        Err(e) => {
            eprintln!("error: cannot write output: {e}");
            Err(EXIT_ERROR)
        }
    }
}

/// `--statistics`: findings per rule, most first (then by code). `--format json` gives
/// `[{"code", "name", "count", "fixable"}]`; every other format a table.
pub fn statistics(
    out: &mut dyn Write,
    format: Format,
    diagnostics: &[crate::diagnostic::Diagnostic],
) -> std::io::Result<()> {
    let mut counts: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for d in diagnostics {
        let c = counts.entry(d.code.as_str()).or_default();
        c.0 += 1;
        if d.fix
            .as_ref()
            .is_some_and(|f| f.applicability == crate::fix::Applicability::Safe)
        {
            c.1 += 1;
        }
    }
    let mut rows: Vec<(&str, usize, usize)> =
        counts.into_iter().map(|(k, (n, f))| (k, n, f)).collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let name = |code: &str| crate::rules::by_code(code).map_or("", |r| r.name);
    if format == Format::Json {
        let list: Vec<serde_json::Value> = rows
            .iter()
            .map(|(code, n, fixable)| {
                serde_json::json!({"code": code, "name": name(code), "count": n, "fixable": fixable})
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &list)?;
        return out.write_all(b"\n");
    }
    let width = rows
        .iter()
        .map(|r| r.1.to_string().len())
        .max()
        .unwrap_or(1);
    for (code, n, fixable) in &rows {
        writeln!(
            out,
            "{n:>width$}  {code:<7} {}{}",
            name(code),
            if *fixable > 0 {
                format!(" [{fixable} fixable]")
            } else {
                String::new()
            }
        )?;
    }
    let total: usize = rows.iter().map(|r| r.1).sum();
    writeln!(out, "Found {total} problem{}.", plural(total))
}

/// 2 when a file could not be parsed or read (the run is incomplete), 1 when findings reach
/// `--fail-on`, else 0.
pub fn exit_code(f: &Findings) -> i32 {
    if f.diagnostics
        .iter()
        .any(|d| crate::rules::is_input_error(d.code))
    {
        EXIT_ERROR
    } else if f.diagnostics.iter().any(|d| d.severity >= f.fail_on) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}
