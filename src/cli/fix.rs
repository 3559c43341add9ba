//! `lemplint fix`: apply fixes, or show them as a diff.

use super::lint::{exit_code, FailOn};
use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use crate::engine::fix_loop::{run as run_fixes, Request};
use crate::engine::StackArgs;
use crate::fix::{diff, write, Applicability};
use crate::report::{self, Format};
use clap::Args;
use std::io::{IsTerminal, Write};

#[derive(Args, Debug)]
pub struct FixArgs {
    #[command(flatten)]
    pub stack: StackArgs,
    /// Print a unified diff (for `git apply`) instead of writing; exit 1 if anything would change
    #[arg(long)]
    pub diff: bool,
    /// Also apply fixes that may change behaviour
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Rules whose fixes to apply (codes, prefixes or names)
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Rules whose fixes to skip
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Format of the findings that remain after fixing
    #[arg(long, value_enum, default_value_t = Format::Full)]
    pub format: Format,
    /// Lowest severity of a remaining finding that makes the exit code 1
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
}

pub fn run(mut args: FixArgs) -> i32 {
    let level = if args.unsafe_fixes {
        Applicability::Unsafe
    } else {
        Applicability::Safe
    };
    let stdin = match crate::engine::stdin_overlay(&mut args.stack) {
        Ok(o) => o.and_then(|mut fs| fs.remove(std::path::Path::new(crate::engine::STDIN))),
        Err(msg) => {
            eprintln!("error: {msg}");
            return EXIT_ERROR;
        }
    };
    let from_stdin = stdin.is_some();
    let _lock = match super::lock_for_writing(&args.stack, !args.diff && !from_stdin) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let req = Request {
        stdin: stdin.clone(),
        args: &args.stack,
        select: &args.select,
        ignore: &args.ignore,
        level,
    };
    let outcome = match run_fixes(&req) {
        Ok(o) => o,
        Err(msg) => return super::load_failed(&msg, "fix"),
    };
    for p in &outcome.unparsable {
        eprintln!(
            "warning: {} has syntax errors and was not fixed",
            crate::escape::path(p)
        );
    }
    for b in &outcome.bugs {
        eprintln!("error: {b}");
    }
    let files = outcome.changed.len();
    let fixed = outcome.applied.len();
    // Input that could not be read or parsed as a whole fails the run, whatever was fixed.
    let broken = outcome
        .remaining
        .diagnostics
        .iter()
        .any(|d| crate::rules::is_input_error(d.code));
    if from_stdin && !args.diff {
        // `lemplint fix -`: the fixed text on stdout (unchanged when nothing applies), the
        // report on stderr.
        let path = std::path::Path::new(crate::engine::STDIN);
        let text = outcome
            .changed
            .get(path)
            .map(|c| c.new.clone())
            .or(stdin)
            .unwrap_or_default();
        if std::io::stdout().write_all(&text).is_err() {
            return EXIT_ERROR;
        }
        let remaining = &outcome.remaining;
        let mut err = std::io::stderr().lock();
        let _ = report::write(
            Format::Concise,
            &mut err,
            &remaining.diagnostics,
            &remaining.summary,
            false,
        );
        return if outcome.bugs.is_empty() {
            exit_code(&outcome.remaining)
        } else {
            EXIT_ERROR
        };
    }
    if args.diff {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        if diff::write_patch(&mut out, &outcome.confine, &outcome.changed)
            .and_then(|_| out.flush())
            .is_err()
        {
            return EXIT_ERROR;
        }
        eprintln!(
            "{}",
            if files == 0 {
                "No fixes available.".to_string()
            } else {
                format!(
                    "Would fix {fixed} problem{} in {files} file{}.",
                    plural(fixed),
                    plural(files)
                )
            }
        );
        return if !outcome.bugs.is_empty() || broken {
            EXIT_ERROR
        } else if files > 0 {
            EXIT_FINDINGS
        } else {
            EXIT_OK
        };
    }
    let (written, failed) = write::commit(&outcome.confine, &outcome.changed);
    for (path, e) in &failed {
        eprintln!("error: cannot write {}: {e}", crate::escape::path(path));
    }
    let color = report::full::use_color(std::io::stdout().is_terminal());
    let mut out = std::io::stdout().lock();
    let mut remaining = outcome.remaining;
    remaining.summary.root = Some(report::fingerprint::Root::detect(&args.stack.paths));
    if failed.is_empty() {
        if fixed > 0 {
            let _ = writeln!(
                out,
                "Fixed {fixed} problem{} in {written} file{}.",
                plural(fixed),
                plural(written)
            );
        }
    } else {
        let _ = writeln!(
            out,
            "Wrote {written} of {files} changed file{}; the other{} kept what was on disk.",
            plural(files),
            plural(failed.len())
        );
        // The findings on the fixed contents would describe files that were not written:
        // report what is on disk now.
        match crate::engine::collect(&args.stack, &args.select, &args.ignore, None) {
            Ok((_, found)) => {
                remaining = found;
                remaining.summary.root = Some(report::fingerprint::Root::detect(&args.stack.paths));
            }
            Err(msg) => eprintln!("error: {msg}"),
        }
    }
    if report::write(
        args.format,
        &mut out,
        &remaining.diagnostics,
        &remaining.summary,
        color,
    )
    .is_err()
    {
        return EXIT_ERROR;
    }
    if !outcome.bugs.is_empty() || !failed.is_empty() {
        return EXIT_ERROR;
    }
    let mut f = remaining;
    if let Some(fail_on) = args.fail_on {
        f.fail_on = fail_on.into();
    }
    exit_code(&f)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
