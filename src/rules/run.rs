//! Running the selected rules on a stack: in parallel, one job per rule, with the findings
//! kept in registry order so that output does not depend on scheduling.

use super::context::{Context, Focus, RunCache};
use super::{RuleOptions, Selection, RULES};
use crate::diagnostic::Diagnostic;
use crate::stack::model::Stack;

/// Outcome of running the rules on one stack.
#[derive(Default)]
pub struct RunResult {
    pub diagnostics: Vec<Diagnostic>,
    /// Rules that need host facts and were skipped because none were given.
    pub skipped_for_host: Vec<&'static str>,
}

/// Runs every selected rule on a stack, each with its options.
pub fn run(stack: &Stack, selection: &Selection, options: &RuleOptions) -> RunResult {
    run_cancellable(stack, selection, options, &|| false)
}

/// [`run`], skipping the rules not started yet once `cancelled` says so (the result is then
/// incomplete, and the caller drops it).
pub fn run_cancellable(
    stack: &Stack,
    selection: &Selection,
    options: &RuleOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> RunResult {
    run_focused(stack, selection, options, cancelled, None)
}

/// [`run_cancellable`] for a run that shows only some files' findings (`focus`): rules may
/// skip building findings that would not be shown.
pub fn run_focused(
    stack: &Stack,
    selection: &Selection,
    options: &RuleOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
    focus: Option<Focus>,
) -> RunResult {
    use rayon::prelude::*;
    let mut result = RunResult::default();
    let mut cache = RunCache::default();
    cache.focus = focus;
    let mut enabled = Vec::new();
    for entry in RULES.iter().filter(|r| selection.enabled(r)) {
        if entry.needs_host && stack.host.is_empty() {
            result.skipped_for_host.push(entry.code);
        } else {
            enabled.push(entry);
        }
    }
    // Location trees are shared by several rules: built first, with every thread, instead of
    // by whichever rule asks first while the others block on it.
    if enabled.iter().any(|e| e.uses_locations) {
        stack.nginx.par_iter().for_each(|inst| {
            crate::analysis::locations::Locations::of(inst);
        });
    }
    // Rules are independent pure functions of the stack: run them in parallel, one job each
    // (so a thread that is done takes the next rule, whichever half of the list it is in),
    // and keep their findings in registry order so output does not depend on scheduling.
    let found: Vec<Vec<Diagnostic>> = enabled
        .par_iter()
        .with_max_len(1)
        .map(|&entry| {
            if cancelled() {
                return Vec::new();
            }
            let mut cx = Context::new(stack, options.of(entry), entry, &cache);
            let started = std::time::Instant::now();
            entry.rule.check(&mut cx);
            let mut out = cx.finish();
            if let Some(severity) = options.severity(entry) {
                for d in &mut out {
                    d.severity = severity;
                }
            }
            crate::timings::report(format_args!("{}", entry.code), started);
            out
        })
        .collect();
    // One exact allocation (collecting the flattened lists would grow by doubling, and a
    // finding in each of 50,000 vhosts makes that tens of megabytes).
    let mut all = Vec::with_capacity(found.iter().map(Vec::len).sum());
    for mut list in found {
        all.append(&mut list);
    }
    result.diagnostics = all;
    result
}
