//! `lemplint fmt`: lay out nginx files again (see [`crate::format::nginx`]).
//!
//! The files are the nginx files `lint` finds under the paths (discovery, includes and
//! confinement alike); named files (pre-commit) are formatted alone. Writes go through the
//! fixer's writer: atomic, permissions kept, symlinks followed, and a file that changed since
//! it was read is not overwritten.

use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use crate::engine::{StackArgs, Workspace};
use crate::fix::{diff, write, Change, Changes};
use crate::format::{nginx, FormatError, Indent, Style};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct FmtArgs {
    /// Files or directories (default: the current directory); `-` reads standard input and
    /// writes the formatted text to standard output
    pub paths: Vec<PathBuf>,
    /// Write nothing; exit 1 when a file would change
    #[arg(long)]
    pub check: bool,
    /// Print a unified diff (for `git apply`) instead of writing; exit 1 when a file would change
    #[arg(long)]
    pub diff: bool,
    /// Spaces per level, or `tab` (default: `[format] indent` in lemplint.toml, else 4)
    #[arg(long, value_name = "N|tab", value_parser = parse_indent)]
    pub indent: Option<Indent>,
    /// Use this config file instead of looking for lemplint.toml
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Ignore every config file (defaults only)
    #[arg(long, conflicts_with = "config")]
    pub isolated: bool,
}

fn parse_indent(s: &str) -> Result<Indent, String> {
    match s {
        "tab" | "tabs" => Ok(Indent::Tab),
        _ => match s.parse::<u8>() {
            Ok(n @ 1..=16) => Ok(Indent::Spaces(n)),
            _ => Err("expected a number of spaces from 1 to 16, or `tab`".into()),
        },
    }
}

pub fn run(args: FmtArgs) -> i32 {
    let stack = StackArgs {
        paths: args.paths.clone(),
        config: args.config.clone(),
        isolated: args.isolated,
        ..Default::default()
    };
    if args.paths == [PathBuf::from("-")] {
        return stdin(&args, &stack);
    }
    let _lock = match super::lock_for_writing(&stack, !args.check && !args.diff) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let ws = match Workspace::load(&stack) {
        Ok(ws) => ws,
        Err(msg) => return super::load_failed(&msg, "format"),
    };
    let style = style(&args, &ws.config.config.format);
    let mut changes = Changes::new();
    let mut unchanged = 0usize;
    let mut failed = false;
    let mut seen = std::collections::HashSet::new();
    let mut templates = 0usize;
    for file in ws.stacks.iter().flat_map(|s| s.nginx_files()) {
        let source = &file.source;
        // A section of a committed `nginx -T` dump is never written; neither is a file
        // read from anywhere but the disk.
        if source.member.is_some()
            || source.stamp.is_none()
            || !ws.file_in_focus(source)
            || !seen.insert(file.identity.clone())
        {
            continue;
        }
        // A template with tags of its own (`{% if %}`, `<% end %>`), or whose placeholders
        // are not nginx words until rendered (`listen {{ port }};`): its layout is the
        // template's, left as written. Placeholders that are plain words (`@NAME`) format.
        let control = source.holes.iter().any(|h| {
            use crate::syntax::template::HoleKind;
            matches!(h.kind, HoleKind::Control | HoleKind::Statements)
        });
        if !source.holes.is_empty()
            && (control || !crate::syntax::nginx::parse(&source.text).errors.is_empty())
        {
            templates += 1;
            continue;
        }
        match nginx::format(&source.text, &file.parsed, style) {
            Ok(None) => unchanged += 1,
            Ok(Some(new)) => {
                changes.insert(
                    source.path.clone(),
                    Change {
                        original: source.text.clone(),
                        stamp: source.stamp,
                        new,
                    },
                );
            }
            Err(FormatError::Syntax) => {
                failed = true;
                syntax_error(source, &file.parsed);
            }
            Err(FormatError::Unverified(why)) => {
                failed = true;
                eprintln!(
                    "error: {}: not formatted: {why}; this is a bug in lemplint fmt, please report it",
                    crate::escape::path(&source.path)
                );
            }
        }
    }
    if templates > 0 {
        eprintln!(
            "{} left as written: templates that are not nginx until rendered",
            files(templates)
        );
    }
    let confine = crate::engine::confinement(&stack);
    let would = changes.len();
    if args.diff || args.check {
        if args.diff {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            if diff::write_patch(&mut out, &confine, &changes)
                .and_then(|_| out.flush())
                .is_err()
            {
                return EXIT_ERROR;
            }
        } else {
            for path in changes.keys() {
                println!("Would reformat: {}", crate::escape::path(path));
            }
        }
        eprintln!(
            "{} would be reformatted, {} already formatted",
            files(would),
            files(unchanged)
        );
        return if failed {
            EXIT_ERROR
        } else if would > 0 {
            EXIT_FINDINGS
        } else {
            EXIT_OK
        };
    }
    let (written, not_written) = write::commit(&confine, &changes);
    for (path, e) in &not_written {
        failed = true;
        eprintln!("error: cannot write {}: {e}", crate::escape::path(path));
    }
    println!(
        "{} reformatted, {} left unchanged",
        files(written),
        files(unchanged)
    );
    if failed {
        EXIT_ERROR
    } else {
        EXIT_OK
    }
}

/// Why a file was not formatted: its first syntax error, at file:line:col.
fn syntax_error(source: &crate::source::SourceFile, parsed: &crate::syntax::nginx::Parsed) {
    let e = &parsed.errors[0];
    let at = source.line_col(e.span.start);
    eprintln!(
        "error: {}:{}:{}: {}; not formatted (a file with syntax errors is left as it is)",
        crate::escape::path(&source.path),
        at.line,
        at.column,
        crate::escape::text(&e.message)
    );
}

/// The config's style, with the command line's `--indent` over it.
fn style(args: &FmtArgs, config: &crate::format::FormatConfig) -> Style {
    let mut style = config.style();
    if let Some(indent) = args.indent {
        style.indent = indent;
    }
    style
}

fn files(n: usize) -> String {
    format!("{n} file{}", if n == 1 { "" } else { "s" })
}

/// `lemplint fmt -`: standard input to standard output (an editor's format command).
fn stdin(args: &FmtArgs, stack: &StackArgs) -> i32 {
    let text = match crate::stack::fs::read_stdin() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read standard input: {e}");
            return EXIT_ERROR;
        }
    };
    let style = match Workspace::config_only(stack) {
        Ok(c) => style(args, &c.config.format),
        Err(msg) => {
            eprintln!("error: {msg}");
            return EXIT_ERROR;
        }
    };
    let parsed = crate::syntax::nginx::parse(&text);
    let new = match nginx::format(&text, &parsed, style) {
        Ok(new) => new,
        Err(FormatError::Syntax) => {
            let source = crate::source::SourceFile::new(crate::engine::STDIN, text.clone());
            syntax_error(&source, &parsed);
            return EXIT_ERROR;
        }
        Err(FormatError::Unverified(why)) => {
            eprintln!(
                "error: not formatted: {why}; this is a bug in lemplint fmt, please report it"
            );
            return EXIT_ERROR;
        }
    };
    let changed = new.is_some();
    let mut out = std::io::stdout().lock();
    let result = if args.diff {
        match &new {
            Some(new) => out.write_all(&diff::unified(
                crate::engine::STDIN.as_bytes(),
                &text,
                new,
                false,
            )),
            None => Ok(()),
        }
    } else if args.check {
        Ok(())
    } else {
        out.write_all(new.as_deref().unwrap_or(&text))
    };
    if result.and_then(|_| out.flush()).is_err() {
        return EXIT_ERROR;
    }
    if changed && (args.check || args.diff) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}
