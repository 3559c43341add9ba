//! The rules: one registry of every rule, selection, and running rules on a stack.
//!
//! A rule is a pure function of the [`crate::stack::model::Stack`] (with its host facts)
//! and its options. Each rule file declares everything that is known about its rule once,
//! with [`declare_rule!`] (`declare.rs`): code, name, language, category, default severity,
//! fix availability, whether it needs host facts, whether its findings are input errors
//! (and block fixes of their file), and its typed options. `rules/<lang>/<CODE>.toml` holds
//! only prose: the summary, the docs and the option descriptions.
//!
//! The files here, by what they hold: `declare.rs` the macro and the [`Rule`] trait,
//! `registry.rs` the list of rules and the lookups by code and name, `selection.rs` which
//! rules a `select`/`ignore` runs, `context.rs` what a rule sees while it runs, `run.rs` the
//! runner. Adding a rule: `scripts/new-rule CODE name lang` writes the rule file, its TOML,
//! fixtures under `fixtures/<lang>/<CODE>/`, its `pub mod` line and its registry line. What
//! several rules share lives in [`crate::analysis`], never in another rule's file. A missing
//! TOML is a compile error; `tests/registry.rs` keeps the rest in step.

#[macro_use]
mod declare;
mod context;
mod registry;
mod run;
mod selection;

pub mod fpm;
pub mod lifecycle;
pub mod lint;
pub mod meta;
pub mod nginx;
pub mod options;
pub mod stack;
pub mod sysctl;
pub mod tls;

pub use context::{Context, Focus, MAX_FINDINGS_PER_FILE};
pub use declare::{Decl, Declared, Rule};
pub use options::{NoOptions, RuleOptions};
pub use registry::{
    blocks_fixes, by_code, entry, is_input_error, lookup, lookup_exact, RuleEntry, RULES,
};
pub use run::{run, run_cancellable, run_focused, RunResult};
pub use selection::{ignore_specificity, specificity, Selection};
