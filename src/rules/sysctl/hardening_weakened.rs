//! SYS004 hardening-weakened: a sysctl line that turns a kernel protection off below the
//! kernel's or the distributions' default (`kernel.randomize_va_space = 0`,
//! `kernel.yama.ptrace_scope = 0`, `fs.protected_symlinks = 0`, …), or that undoes an earlier
//! hardening line (`accept_redirects = 0` in one file, `= 1` in a later one).
//!
//! Only what the kernel ends up with is judged: the last assignment `sysctl --system` applies
//! (systemd's rule for globs included, see [`crate::stack::sysctl::SysctlSet::applied`]). An
//! interface setting is judged per interface the way the kernel combines it with `conf.all`
//! ([`Merge`]): `net.ipv4.conf.all.rp_filter = 0` lowers nothing (the larger of `all` and the
//! interface's value is used), and `conf.default.accept_source_route = 1` accepts nothing while
//! `conf.all.accept_source_route` is 0 (both must be on). A value equal to the kernel's default
//! that no distribution raises is not reported as written (the profile, SYS005, asks for more);
//! it is reported only where it undoes an earlier line of the tree. The table and its sources
//! are in [`crate::analysis::sysctl_hardening`].

use crate::analysis::sysctl_hardening::{
    conf_key, effective, known, named_interfaces, value_at, Knob, Merge, KNOBS,
};
use crate::rules::{Context, Rule};
use crate::stack::sysctl::{Set, SysctlSet};
use std::collections::BTreeSet;
use std::path::Path;

declare_rule! {
    pub struct HardeningWeakened;
    code: SYS004,
    name: "hardening-weakened",
    lang: sysctl,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

/// A finding to report: the assignment, and its message.
struct Finding {
    at: Set,
    message: String,
    /// An earlier hardening line this one undoes.
    undoes: Option<Set>,
}

impl Rule for HardeningWeakened {
    fn check(&self, cx: &mut Context<'_>) {
        let set = &cx.stack.sysctl;
        let root = cx.stack.root.as_path();
        let mut found = Vec::new();
        for knob in KNOBS {
            match knob.merge {
                Merge::Single => single(set, root, knob, &mut found),
                _ => per_interface(set, root, knob, &mut found),
            }
        }
        let mut seen = BTreeSet::new();
        for f in found {
            if !seen.insert((f.at.file, f.at.line)) {
                continue;
            }
            let Some(a) = set.assignment(f.at) else {
                continue;
            };
            let file = &set.files[f.at.file].source;
            let d = cx.report(file, a.key.cover(a.value), f.message);
            if let Some(old) = f.undoes.and_then(|u| Some((u, set.assignment(u)?))) {
                d.label(
                    set.files[old.0.file].source.clone(),
                    old.1.key.cover(old.1.value),
                    "the hardening line it undoes",
                );
            }
            d.help = Some(
                "remove the line (or set the hardened value); if the workload needs it, say why \
                 in a comment and disable SYS004 for this line"
                    .into(),
            );
        }
    }
}

/// `key = value` as written at `s`.
fn shown(set: &SysctlSet, s: Set) -> String {
    let text = &set.files[s.file].source.text;
    set.assignment(s).map_or_else(String::new, |a| {
        format!(
            "{} = {}",
            a.key_text(text),
            a.value_text(text).split_whitespace().next().unwrap_or("")
        )
    })
}

/// `file:line` of an assignment, relative to the stack's root.
fn place(set: &SysctlSet, root: &Path, s: Set) -> String {
    let f = &set.files[s.file].source;
    let line = set.assignment(s).map_or(0, |a| f.line_of(a.key.start));
    let path = f.path.strip_prefix(root).unwrap_or(&f.path);
    format!("{}:{line}", path.display())
}

/// An earlier assignment of `key` that kept the protection on, when the last one does not.
fn undone(set: &SysctlSet, knob: &Knob, key: &str) -> Option<(Set, Set)> {
    let applied = set.applied(key);
    let (&last, earlier) = applied.split_last()?;
    if value_at(set, last).is_none_or(knob.hardened) {
        return None;
    }
    let old = earlier
        .iter()
        .rev()
        .find(|&&s| value_at(set, s).is_some_and(knob.hardened))?;
    Some((last, *old))
}

fn revert_finding(set: &SysctlSet, root: &Path, knob: &Knob, last: Set, old: Set) -> Finding {
    Finding {
        at: last,
        message: format!(
            "`{}` undoes `{}` ({}), applied before it: {} is off again",
            shown(set, last),
            shown(set, old),
            place(set, root, old),
            knob.protects
        ),
        undoes: Some(old),
    }
}

fn single(set: &SysctlSet, root: &Path, knob: &Knob, out: &mut Vec<Finding>) {
    if !known(set, knob.key) {
        return;
    }
    let Some((last, v)) = effective(set, knob.key) else {
        return;
    };
    if (knob.weak)(v) {
        let undoes = undone(set, knob, knob.key).map(|(_, old)| old);
        out.push(Finding {
            at: last,
            message: format!("`{}` {}", shown(set, last), knob.weak_means),
            undoes,
        });
    } else if let Some((last, old)) = undone(set, knob, knob.key) {
        out.push(revert_finding(set, root, knob, last, old));
    }
}

/// One side of an interface setting: its value, and the line that sets it (none: the
/// kernel's default).
type Side = (Option<Set>, i64);

/// The `conf.all` side, and the side of interface `name`: its own lines, else (for a named
/// interface) `conf.default`'s, which it was created with, else the kernel's default.
fn sides(set: &SysctlSet, knob: &Knob, name: &str) -> Option<(Side, Side, String)> {
    let all_key = conf_key(knob.key, "all");
    let mut if_key = conf_key(knob.key, name);
    if !known(set, &all_key) || !known(set, &if_key) {
        return None;
    }
    let all = effective(set, &all_key).map_or((None, knob.all_default), |(s, v)| (Some(s), v));
    let mut side = effective(set, &if_key);
    if side.is_none() && name != "default" {
        if_key = conf_key(knob.key, "default");
        if !known(set, &if_key) {
            return None;
        }
        side = effective(set, &if_key);
    }
    let side = side.map_or((None, knob.kernel_default), |(s, v)| (Some(s), v));
    Some((all, side, if_key))
}

fn per_interface(set: &SysctlSet, root: &Path, knob: &Knob, out: &mut Vec<Finding>) {
    let mut names = vec!["default".to_string()];
    names.extend(named_interfaces(set, knob.key));
    for name in names {
        let Some((all, side, if_key)) = sides(set, knob, &name) else {
            continue;
        };
        let result = match knob.merge {
            Merge::Both => all.1.min(side.1),
            _ => all.1.max(side.1),
        };
        if (knob.weak)(result) {
            // The line to blame is the one that is not the kernel's default on the side that
            // decides: for `max`, the interface's 0 (conf.all's 0 lowers nothing); for
            // `both`, conf.all's 1 (a new interface's own value is already 1).
            let (blamed, other) = match knob.merge {
                Merge::Max => (side.0, all),
                _ => (all.0, side),
            };
            let Some(at) = blamed else { continue };
            let other_note = match (knob.merge, other.0) {
                (Merge::Max, Some(s)) => {
                    format!(" (conf.all is {} too: {})", other.1, place(set, root, s))
                }
                (Merge::Max, None) => " (conf.all is 0, the kernel's default)".to_string(),
                (_, Some(s)) => format!(" ({} is {}: {})", if_key, other.1, place(set, root, s)),
                (_, None) => format!(" ({if_key} is {}, the kernel's default)", other.1),
            };
            out.push(Finding {
                at,
                message: format!("`{}` {}{}", shown(set, at), knob.weak_means, other_note),
                undoes: None,
            });
            continue;
        }
        if (knob.hardened)(result) {
            continue;
        }
        for key in [conf_key(knob.key, "all"), if_key] {
            if let Some((last, old)) = undone(set, knob, &key) {
                out.push(revert_finding(set, root, knob, last, old));
            }
        }
    }
}
