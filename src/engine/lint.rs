//! The lint pipeline: load the workspace, select and run the rules, apply suppressions,
//! keep what concerns the files in focus, drop per-file ignores, sort and deduplicate. The
//! one place `lint`, `fix`, `tune`, the tests and a future language server get findings from.

use super::summary::Summary;
use super::workspace::{StackArgs, Workspace};
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{self, Selection};
use crate::stack::fs::Fs;
use crate::stack::model::Stack;

/// The findings of a run, filtered and sorted, with what is needed to report them.
pub struct Findings {
    pub diagnostics: Vec<Diagnostic>,
    pub summary: Summary,
    pub fail_on: Severity,
}

/// Loads the workspace, runs the selected rules and applies every filter (suppressions,
/// per-file ignores, the files in focus). Errors are usage/config/I-O problems (exit 2).
pub fn collect(
    stack_args: &StackArgs,
    select: &[String],
    ignore: &[String],
    fail_on: Option<Severity>,
) -> Result<(Workspace, Findings), String> {
    collect_with(
        stack_args,
        select,
        ignore,
        fail_on,
        &super::workspace::real_fs(stack_args),
    )
}

/// [`collect`] reading files through `fs`.
pub fn collect_with(
    stack_args: &StackArgs,
    select: &[String],
    ignore: &[String],
    fail_on: Option<Severity>,
    fs: &dyn Fs,
) -> Result<(Workspace, Findings), String> {
    let run = collect_cancellable(stack_args, select, ignore, fail_on, fs, &|| false)?;
    Ok(run.expect("a run nothing cancels ends"))
}

/// Whether the run's result is no longer wanted (the language server's text changed again):
/// asked between stages and before each rule, so a stale run stops within one rule's time.
pub type Cancelled<'a> = &'a (dyn Fn() -> bool + Sync);

/// [`collect_with`] that stops early, with `Ok(None)`, once `cancelled` says so.
pub fn collect_cancellable(
    stack_args: &StackArgs,
    select: &[String],
    ignore: &[String],
    fail_on: Option<Severity>,
    fs: &dyn Fs,
    cancelled: Cancelled<'_>,
) -> Result<Option<(Workspace, Findings)>, String> {
    crate::timings::enabled();
    let started = std::time::Instant::now();
    let ws = Workspace::load_with(stack_args, fs)?;
    crate::timings::report(format_args!("load"), started);
    if cancelled() {
        return Ok(None);
    }
    let cfg = &ws.config.config;
    let selection = Selection {
        select: {
            let base = if select.is_empty() {
                cfg.select.clone().unwrap_or_default()
            } else {
                select.to_vec()
            };
            // `extend-select` adds to whatever `select` resolves to, the default group
            // included.
            match (base.is_empty(), cfg.extend_select.is_empty()) {
                (_, true) => base,
                (true, false) => std::iter::once("default".to_string())
                    .chain(cfg.extend_select.iter().cloned())
                    .collect(),
                (false, false) => base
                    .into_iter()
                    .chain(cfg.extend_select.iter().cloned())
                    .collect(),
            }
        },
        ignore: cfg.ignore.iter().chain(ignore).cloned().collect(),
    };
    let unknown = selection.unknown();
    if let Some(r) = unknown
        .iter()
        .find_map(|s| rules::lifecycle::SHIPPED.removed(s))
    {
        return Err(format!(
            "rule {} was removed in lemplint {}: {}",
            r.code, r.version, r.reason
        ));
    }
    if !unknown.is_empty() {
        return Err(format!(
            "unknown rule selector{} {} (see `lemplint rules`)",
            if unknown.len() == 1 { "" } else { "s" },
            unknown.join(", ")
        ));
    }
    let mut summary = Summary {
        stacks: ws.stacks.len(),
        ..Default::default()
    };
    let mut diagnostics = Vec::new();
    let mut skipped: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    for stack in &ws.stacks {
        summary.files += stack.file_count();
        summary.note_rendered(stack);
        let ran = std::time::Instant::now();
        let focus = ws.focus.is_some().then(|| {
            // Each nginx file once: a file two configurations read is one path.
            let mut focus = rules::Focus::default();
            let mut memo = ws.focus_memo();
            for inst in &stack.nginx {
                for file in &inst.config.files {
                    if !memo.file_in_focus(&file.source) {
                        focus.hide(&file.source);
                    }
                }
            }
            // A path shown through one source is shown (a dump's section and the tree's
            // file can share a path).
            for inst in &stack.nginx {
                for file in &inst.config.files {
                    if memo.file_in_focus(&file.source) {
                        focus.show(&file.source);
                    }
                }
            }
            focus
        });
        let result = rules::run_focused(stack, &selection, &ws.options, cancelled, focus);
        if cancelled() {
            return Ok(None);
        }
        crate::timings::report(format_args!("rules"), ran);
        skipped.extend(result.skipped_for_host);
        let mut found = result.diagnostics;
        // Which files nothing loads is asked only when there is a finding to mark (a walk of
        // every file: 31 M instructions on a 5,600-file tree linted through its main file).
        let unloaded = if found.is_empty() {
            Default::default()
        } else {
            stack.unloaded_files()
        };
        if !unloaded.is_empty() {
            for d in &mut found {
                let why = unloaded.get(d.file.path.as_path()).copied();
                d.loaded = why.is_none();
                // A site left out of `sites-enabled/` on purpose, or a stock file nothing
                // includes, cannot fail the server: its findings are told as info and fail
                // no gate. A file that cannot be read is still an input error.
                let disabled = why == Some(crate::stack::model::Unloaded::Disabled);
                if disabled && !rules::is_input_error(d.code) {
                    d.severity = d.severity.min(Severity::Info);
                }
            }
        }
        if diagnostics.is_empty() {
            diagnostics = found;
        } else {
            diagnostics.extend(found);
        }
        let mut lines = stack.host.describe();
        // The TLS rules judge cipher and protocol lists as a given OpenSSL expands them;
        // without `[host] openssl` they assume 3.0, which the summary says once.
        if stack.host.openssl.is_none() && uses_tls_lists(stack) {
            lines.push(format!(
                "openssl: {} assumed for the TLS findings (set [host] openssl)",
                crate::analysis::tls_settings::Versions::of(&stack.host).openssl
            ));
        }
        for line in lines {
            if !summary.host.contains(&line) {
                summary.host.push(line);
            }
        }
    }
    summary.skipped_for_host = skipped.iter().map(|s| s.to_string()).collect();
    let ran = |code: &str| {
        rules::by_code(code).is_some_and(|r| selection.enabled(r)) && !skipped.contains(code)
    };
    let after = std::time::Instant::now();
    let mut diagnostics = super::suppress::apply(diagnostics, &ws, &ran);
    super::holes::apply(&mut diagnostics);
    super::rendered::apply(&mut diagnostics);
    crate::timings::report(format_args!("suppressions"), after);
    let after = std::time::Instant::now();
    let mut focus = ws.focus_memo();
    diagnostics.retain(|d| {
        focus.file_in_focus(&d.file) || d.labels.iter().any(|l| focus.file_in_focus(&l.file))
    });
    diagnostics.retain(|d| rules::is_input_error(d.code) || !per_file_ignored(&ws, d));
    // Only a run that read an `nginx -T` dump opens the tree to look for its files.
    if diagnostics.iter().any(|d| d.file.member.is_some()) {
        let roots: Vec<_> = ws.stacks.iter().map(|s| s.root.clone()).collect();
        super::dump_files::apply(&mut diagnostics, &super::real_fs(stack_args), &roots);
    }
    sort_by_place(&mut diagnostics);
    // The same finding reached through two configurations that share a file.
    diagnostics.dedup_by(|a, b| {
        a.file.path == b.file.path && a.span == b.span && a.code == b.code && a.message == b.message
    });
    drop_read_into_binary(&mut diagnostics);
    summary.count(&diagnostics);
    crate::timings::report(format_args!("focus, sort and dedup"), after);
    let fail_on = fail_on.or(cfg.fail_on).unwrap_or(Severity::Warning);
    Ok(Some((
        ws,
        Findings {
            diagnostics,
            summary,
            fail_on,
        },
    )))
}

/// The findings that mean the input could not be read or parsed as a whole (syntax errors,
/// missing includes, unreadable files, paths out of the tree): what `tune` and `fix` refuse
/// to edit on. No selection or suppression applies to them.
/// A binary file is no configuration: its one finding says so (see
/// [`crate::syntax::encoding::is_binary`]), and what the rules made of its bytes (php-fpm's
/// "unknown entry" for every line) is noise. `diagnostics` are sorted by file.
fn drop_read_into_binary(diagnostics: &mut Vec<crate::diagnostic::Diagnostic>) {
    use crate::syntax::encoding;
    let mut last: Option<(*const crate::source::SourceFile, bool)> = None;
    diagnostics.retain(|d| {
        let file = std::sync::Arc::as_ptr(&d.file);
        let binary = match last {
            Some((f, binary)) if f == file => binary,
            _ => {
                let binary = encoding::is_binary(&d.file.text);
                last = Some((file, binary));
                binary
            }
        };
        !binary || d.message == encoding::BINARY
    });
}

pub fn input_errors(ws: &Workspace) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = ws
        .stacks
        .iter()
        .flat_map(|stack| stack_input_errors(ws, stack))
        .collect();
    sort_by_place(&mut out);
    out
}

/// [`input_errors`] of one stack of the workspace, in order.
pub fn stack_input_errors(ws: &Workspace, stack: &Stack) -> Vec<Diagnostic> {
    let selection = Selection {
        select: rules::RULES
            .iter()
            .filter(|r| r.input_error)
            .map(|r| r.code.to_string())
            .collect(),
        ignore: Vec::new(),
    };
    let mut out = rules::run(stack, &selection, &ws.options).diagnostics;
    super::holes::apply(&mut out);
    super::rendered::apply(&mut out);
    let mut focus = ws.focus_memo();
    out.retain(|d| focus.file_in_focus(&d.file));
    sort_by_place(&mut out);
    out
}

/// Sorts findings by path, offset and code (stable). The paths are ranked once, so a run
/// with a finding in each of 50,000 files does not compare paths component by component
/// in every comparison of the sort.
fn sort_by_place(diagnostics: &mut [Diagnostic]) {
    use crate::fxhash::FxHashMap;
    // Distinct sources (by address, cheaply), ranked by path once; equal paths get one rank.
    let mut rank: FxHashMap<*const crate::source::SourceFile, u32> = FxHashMap::default();
    let mut files: Vec<(&std::path::Path, *const crate::source::SourceFile)> = Vec::new();
    for d in diagnostics.iter() {
        let ptr = std::sync::Arc::as_ptr(&d.file);
        if rank.insert(ptr, 0).is_none() {
            files.push((d.file.path.as_path(), ptr));
        }
    }
    files.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut r = 0u32;
    for (i, &(path, ptr)) in files.iter().enumerate() {
        if i > 0 && files[i - 1].0 != path {
            r += 1;
        }
        rank.insert(ptr, r);
    }
    let keys: Vec<(u32, u32, &'static str)> = diagnostics
        .iter()
        .map(|d| {
            (
                rank[&std::sync::Arc::as_ptr(&d.file)],
                d.span.start,
                d.code.as_str(),
            )
        })
        .collect();
    drop(rank);
    let mut order: Vec<usize> = (0..diagnostics.len()).collect();
    order.sort_by_key(|&i| keys[i]);
    apply_order(diagnostics, order);
}

/// Reorders `items` so that position `k` holds what was at `order[k]`.
fn apply_order<T>(items: &mut [T], mut order: Vec<usize>) {
    // Follow each cycle of the permutation, swapping into place.
    for start in 0..items.len() {
        let mut k = start;
        while order[k] != start {
            let next = order[k];
            items.swap(k, next);
            order[k] = k;
            k = next;
        }
        order[k] = k;
    }
}

fn per_file_ignored(ws: &Workspace, d: &Diagnostic) -> bool {
    if ws.config.per_file.is_empty() {
        return false;
    }
    let rule = rules::entry(d.code);
    let rel = crate::config::relative_to_config(ws.config.path.as_deref(), &d.file.path);
    ws.config.per_file.iter().any(|(glob, sels)| {
        (glob.matches(&rel) || glob.matches(&d.file.path))
            && sels.iter().any(|s| rules::ignore_specificity(s, rule) > 0)
    })
}

/// Whether an nginx configuration of `stack` writes a cipher or protocol list, which the
/// TLS rules judge per OpenSSL version.
fn uses_tls_lists(stack: &crate::stack::model::Stack) -> bool {
    stack.nginx.iter().any(|inst| {
        [
            "ssl_ciphers",
            "ssl_protocols",
            "proxy_ssl_ciphers",
            "proxy_ssl_protocols",
        ]
        .iter()
        .any(|name| crate::analysis::cursor::named(inst, name).next().is_some())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn apply_order_moves_each_item_to_its_place() {
        for order in [
            vec![2, 0, 1],
            vec![1, 2, 0],
            vec![0, 1, 2],
            vec![3, 2, 1, 0],
            vec![],
        ] {
            let mut items: Vec<usize> = (0..order.len()).map(|i| i * 10).collect();
            let want: Vec<usize> = order.iter().map(|&i| i * 10).collect();
            super::apply_order(&mut items, order);
            assert_eq!(items, want);
        }
    }
}
