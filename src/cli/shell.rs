//! `lemplint completions SHELL` (clap_complete) and `lemplint man [COMMAND]` (clap_mangen):
//! both generated from the same argument definitions as the parser, so they cannot drift.

use super::{EXIT_ERROR, EXIT_OK};
use clap::{Args, CommandFactory};
use std::io::Write;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to write completions for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// A command's own page (`lemplint man lint` is lemplint-lint(1)); the overview without
    pub command: Option<String>,
}

/// Installing: `lemplint completions bash > ~/.local/share/bash-completion/completions/lemplint`,
/// `lemplint completions zsh > ~/.zfunc/_lemplint`, `lemplint completions fish >
/// ~/.config/fish/completions/lemplint.fish`.
pub fn completions(args: CompletionsArgs) -> i32 {
    let mut cmd = super::Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(args.shell, &mut cmd, "lemplint", &mut out);
    if out.flush().is_err() {
        return EXIT_ERROR;
    }
    EXIT_OK
}

/// The man page in roff: `lemplint man | man -l -`, or `lemplint man > lemplint.1`.
pub fn man(args: ManArgs) -> i32 {
    let mut cmd = super::Cli::command();
    cmd.build();
    let page = match &args.command {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            Some(sub) => {
                let sub = sub.clone();
                // The process prints one page and exits: the name may live as long.
                let full: &'static str =
                    Box::leak(format!("lemplint-{}", sub.get_name()).into_boxed_str());
                sub.name(full).bin_name(full)
            }
            None => {
                eprintln!(
                    "error: no command named {name:?}{}",
                    suggest(name, cmd.get_subcommands().map(|s| s.get_name()))
                        .map(|s| format!(": did you mean `{s}`?"))
                        .unwrap_or_default()
                );
                return EXIT_ERROR;
            }
        },
    };
    let mut buf = Vec::new();
    if clap_mangen::Man::new(page).render(&mut buf).is_err()
        || std::io::stdout().write_all(&buf).is_err()
    {
        return EXIT_ERROR;
    }
    EXIT_OK
}

/// The candidate nearest to `word`, when near enough to be a typo.
pub fn suggest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    crate::edit_distance::closest(word, candidates)
}
