//! The command line: argument definitions (clap) and one module per command.
//!
//! Exit codes (a contract, see README): 0 nothing at or above `--fail-on`; 1 findings;
//! 2 usage, configuration, I/O or parse errors.

pub mod ciphers;
mod doctor;
mod fix;
mod fmt;
mod input;
pub mod lint;
mod noqa;
mod parse;
pub mod rule;
mod shell;
mod stack;
pub(crate) mod tune;

use clap::{Parser, Subcommand};

pub use crate::exit::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};

/// The exit code of a command whose workspace failed to load with `msg`. Paths that hold
/// no configuration of ours (an empty directory, an application without server files) are
/// not an error, as ruff treats a tree without Python: a warning on standard error, and
/// exit 0, so a gate run on every repository does not fail where there is nothing to check.
/// Anything else is an error (exit 2).
fn load_failed(msg: &str, what: &str) -> i32 {
    if msg.starts_with(crate::engine::NOTHING_FOUND) {
        eprintln!("warning: {msg}: nothing to {what}");
        EXIT_OK
    } else {
        eprintln!("error: {msg}");
        EXIT_ERROR
    }
}

// The parsed command line (see `parse_args` and `run_parsed`); a doc comment here would become
// the long `--help` text.
#[derive(Parser, Debug)]
#[command(
    name = "lemplint",
    version,
    about = "Lint, fix and tune nginx, PHP-FPM and sysctl configuration as one stack",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Each subcommand's arguments are added only when that subcommand is parsed (or help,
// completions or the man page need the whole tree): building every subcommand's arguments
// was a third of `lemplint --version` and of a one-file lint's start-up.
#[derive(Subcommand, Debug)]
#[command(defer = true)]
enum Command {
    /// Check configurations and report problems
    Lint(lint::LintArgs),
    /// Fix what can be fixed (or show it with --diff)
    Fix(fix::FixArgs),
    /// Run the stack on loopback from private copies and measure it as it is and tuned
    Bench(crate::bench::BenchArgs),
    /// Expand an OpenSSL cipher string as `openssl ciphers -v` does, and say what is weak
    Ciphers(ciphers::CiphersArgs),
    /// Lay out nginx files: one statement per line, indented by block (tokens unchanged)
    Fmt(fmt::FmtArgs),
    /// Parse a configuration file and print its syntax tree
    Parse(parse::ParseArgs),
    /// Show a rule's documentation
    Rule(rule::RuleArgs),
    /// List every rule
    Rules(rule::RulesArgs),
    /// Run the language server (LSP over stdio) for editors
    Server,
    /// Show the stacks found: files, pools, sysctl values, host facts
    Stack(stack::StackCmdArgs),
    /// Tie the running stack's symptoms (logs, counters, running state) to their causes
    Doctor(doctor::DoctorArgs),
    /// Derive worker, pool, backlog and kernel settings from the host (and apply them)
    Tune(tune::TuneArgs),
    /// Print shell completions (bash, zsh, fish, elvish, powershell)
    Completions(shell::CompletionsArgs),
    /// Print the man page (roff): `lemplint man | man -l -`
    Man(shell::ManArgs),
}

/// For a command that will write (`writes`): the tree's lock, held from before anything is
/// read until it has written, so a second lemplint writing there reads what this one wrote.
fn lock_for_writing(
    args: &crate::engine::StackArgs,
    writes: bool,
) -> Result<Option<crate::fix::write::WriteLock>, i32> {
    if !writes {
        return Ok(None);
    }
    crate::fix::write::WriteLock::acquire(&crate::engine::confinement(args))
        .map(Some)
        .map_err(|e| {
            eprintln!("error: cannot lock the tree for writing: {e}");
            EXIT_ERROR
        })
}

/// Runs the command line and returns the process exit code.
pub fn run() -> i32 {
    match parse_args() {
        Ok(cli) => run_parsed(cli),
        Err(code) => code,
    }
}

impl Cli {
    /// The command starts nginx and php-fpm (`bench`): those inherit the process's
    /// settings, such as whether transparent huge pages are allowed.
    pub fn starts_servers(&self) -> bool {
        matches!(self.command, Command::Bench(_))
    }
}

/// Reads the command line. `--version`, `--help` and a usage error are answered here, and
/// end with the exit code in `Err`: `main` parses before it starts the thread pool, so these
/// answer without starting threads.
pub fn parse_args() -> Result<Cli, i32> {
    Cli::try_parse().map_err(|e| {
        let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
        let _ = e.print();
        code
    })
}

/// Runs a parsed command line and returns the process exit code.
pub fn run_parsed(cli: Cli) -> i32 {
    match cli.command {
        Command::Lint(args) => lint::run(args),
        Command::Bench(args) => crate::bench::run(args),
        Command::Ciphers(args) => ciphers::run(args),
        Command::Completions(args) => shell::completions(args),
        Command::Man(args) => shell::man(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Fix(args) => fix::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Parse(args) => parse::run(args),
        Command::Rule(args) => rule::run_rule(args),
        Command::Rules(args) => rule::run_rules(args),
        Command::Server => crate::server::run(),
        Command::Stack(args) => stack::run(args),
        Command::Tune(args) => tune::run(args),
    }
}
