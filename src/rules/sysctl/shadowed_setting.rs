//! SYS002 shadowed-setting: a key set to different values in several places, where a later
//! assignment wins; and a whole file that is never applied because a file of the same name in
//! an earlier directory masks it.
//!
//! `sysctl --system` (and systemd-sysctl at boot) applies `*.conf` from `/etc/sysctl.d`,
//! `/run/sysctl.d`, `/usr/local/lib/sysctl.d`, `/usr/lib/sysctl.d` and `/lib/sysctl.d` sorted
//! by file name across directories, then `/etc/sysctl.conf`; each write replaces the previous
//! one, so the last assignment of a key is the value the kernel keeps. A file name present in
//! two directories is read only from the first: the other is masked. The stack model
//! ([`crate::stack::sysctl`]) orders files that way; this rule reads its result.
//!
//! Only the files `sysctl --system` reads take part: a file elsewhere in a tree laid out as a
//! server (a vendor agent's `/etc/<vendor>/sysctl.conf`) is applied by whatever reads it,
//! at a time not known here, so it neither shadows nor is shadowed.
//!
//! Assignments of the same value are not reported (Debian's `99-sysctl.conf` is a symlink to
//! `sysctl.conf`, so that file is applied twice on every Debian system), nor is a file masked
//! by an empty one (`ln -s /dev/null /etc/sysctl.d/x.conf` is the documented way to disable a
//! vendor file).

use crate::rules::{Context, Rule};
use crate::source::Span;
use crate::stack::sysctl::{Set, SysctlSet};
use std::path::Path;

declare_rule! {
    pub struct ShadowedSetting;
    code: SYS002,
    name: "shadowed-setting",
    lang: sysctl,
    category: Correctness,
    severity: Info,
    fix: None,
    group: Default,
}

/// A value compared as the kernel parses it: runs of blanks are one separator.
fn canonical(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `path` relative to the stack's root, for messages.
fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

impl Rule for ShadowedSetting {
    fn check(&self, cx: &mut Context<'_>) {
        report_shadowed(cx);
        report_masked(cx);
    }
}

fn value_of(set: &SysctlSet, s: Set) -> Option<String> {
    let a = set.assignment(s)?;
    Some(canonical(&a.value_text(&set.files[s.file].source.text)))
}

fn report_shadowed(cx: &mut Context<'_>) {
    let set = &cx.stack.sysctl;
    let root = &cx.stack.root;
    for (key, sets) in &set.keys {
        // Only what `sysctl --system` reads competes: a file it never reads (a vendor agent's
        // `/etc/<vendor>/sysctl.conf`) neither shadows nor is shadowed.
        let sets: Vec<Set> = sets
            .iter()
            .copied()
            .filter(|s| set.files[s.file].system)
            .collect();
        let Some((&winner, losers)) = sets.split_last() else {
            continue;
        };
        let (Some(win_value), Some(win_a)) = (value_of(set, winner), set.assignment(winner)) else {
            continue;
        };
        let win_file = &set.files[winner.file].source;
        for &loser in losers {
            let (Some(value), Some(a)) = (value_of(set, loser), set.assignment(loser)) else {
                continue;
            };
            if value == win_value {
                continue;
            }
            let src = &set.files[loser.file].source;
            let place = if loser.file == winner.file {
                format!("line {}", win_file.line_of(win_a.key.start))
            } else {
                format!(
                    "{}:{}",
                    shown(root, &win_file.path),
                    win_file.line_of(win_a.key.start)
                )
            };
            let span = a.key.cover(a.value);
            cx.report(
                src,
                span,
                format!(
                    "`{key} = {value}` never takes effect: `{key} = {win_value}` ({place}) is \
                     applied later and wins"
                ),
            )
            .label(
                win_file.clone(),
                win_a.key.cover(win_a.value),
                "applied last: this value wins",
            )
            .help = Some(
                "`sysctl --system` applies sysctl.d files sorted by name, then /etc/sysctl.conf; \
                 keep one assignment per key"
                    .into(),
            );
        }
    }
}

fn report_masked(cx: &mut Context<'_>) {
    let set = &cx.stack.sysctl;
    let root = &cx.stack.root;
    for f in &set.files {
        let Some(by) = &f.masked_by else { continue };
        let Some(masking) = set.files.iter().find(|m| &m.source.path == by) else {
            continue;
        };
        let mtext = &masking.source.text;
        let masking_pairs: Vec<(String, String)> = masking
            .parsed
            .file
            .assignments()
            .map(|(_, a)| (a.normalized_key(mtext), canonical(&a.value_text(mtext))))
            .collect();
        if masking_pairs.is_empty() {
            // An empty file (or a symlink to /dev/null) masks on purpose.
            continue;
        }
        let text = &f.source.text;
        let lost: Vec<(Span, String, String)> = f
            .parsed
            .file
            .assignments()
            .map(|(_, a)| {
                (
                    a.key.cover(a.value),
                    a.normalized_key(text),
                    canonical(&a.value_text(text)),
                )
            })
            .filter(|(_, k, v)| !masking_pairs.iter().any(|(mk, mv)| mk == k && mv == v))
            .collect();
        let Some((span, key, value)) = lost.first().cloned() else {
            continue;
        };
        let others = match lost.len() - 1 {
            0 => String::new(),
            1 => " (nor does 1 other setting of this file)".into(),
            n => format!(" (nor do {n} other settings of this file)"),
        };
        let first_line = masking
            .parsed
            .file
            .lines
            .first()
            .map_or(Span::empty(0), |l| Span::new(l.span.start, l.eol.start));
        cx.report(
            &f.source,
            span,
            format!(
                "`{key} = {value}` never takes effect{others}: this file is masked by {}, which \
                 has the same name in an earlier directory",
                shown(root, by)
            ),
        )
        .label(
            masking.source.clone(),
            first_line,
            "read instead of the masked file",
        )
        .help = Some(
            "for a file name present in several sysctl.d directories only the first is read \
             (/etc, /run, /usr/local/lib, /usr/lib, /lib); move the settings into that file"
                .into(),
        );
    }
}
