//! `lemplint lint`: run the rules on every stack under the given paths.

use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use crate::diagnostic::Severity;
use crate::engine::{collect_with, Findings, StackArgs};
use crate::report::{self, Format};
use clap::Args;
use std::io::{IsTerminal, Write};

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
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let summary = crate::engine::Summary::default();
            let written = report::write(args.format, &mut out, &[], &summary, false)
                .and_then(|_| out.flush());
            return if written.is_ok() { EXIT_OK } else { EXIT_ERROR };
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
    let reported = std::time::Instant::now();
    let color = report::full::use_color(std::io::stdout().is_terminal());
    // Buffered: a JSON report is written a line at a time, and stdout flushes every line.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = report::write(
        args.format,
        &mut out,
        &findings.diagnostics,
        &findings.summary,
        color,
    )
    .and_then(|_| out.flush());
    crate::timings::report(format_args!("report"), reported);
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
        }
        return EXIT_ERROR;
    }
    // Freeing every tree of a large configuration one allocation at a time costs more than
    // the lint's rules; the process is about to exit, which returns the memory at once.
    std::mem::forget(workspace);
    exit_code(&findings)
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
