//! SYS005 sysctl-hardening-profile: the settings of the KSPP / kernel-hardening-checker
//! recommended sysctl set that the stack's files leave below the recommendation, listed in one
//! finding. An opt-in profile: it asks for more than the kernel's defaults, and several of its
//! values break workloads (user namespaces, io_uring, module loading), so it is for an
//! operator who chose that profile.
//!
//! Judged on the value the kernel ends up with after `sysctl --system` (the last assignment,
//! distribution files in `usr/lib/sysctl.d` included when the tree has them). A key no file
//! sets is judged at the kernel's default, or at systemd's `50-default.conf` value for the keys
//! that file sets; a key whose default is a kernel build option distributions set differently
//! (`dmesg_restrict`, `mmap_min_addr`, …) is judged only when set. A tree without sysctl files
//! says nothing about the kernel and is left alone.

use crate::analysis::sysctl_hardening::{effective, known, Recommended, Unset, RECOMMENDED};
use crate::rules::{Context, Rule};
use crate::source::Span;

declare_rule! {
    pub struct HardeningProfile;
    code: SYS005,
    name: "sysctl-hardening-profile",
    lang: sysctl,
    category: Security,
    severity: Info,
    fix: None,
    group: Preview,
}

/// Why a recommended key falls short: what it is and where that comes from.
fn shortfall(cx: &Context<'_>, r: &Recommended) -> Option<String> {
    let set = &cx.stack.sysctl;
    if !known(set, r.key) {
        return None;
    }
    let (value, from) = match effective(set, r.key) {
        Some((s, v)) => {
            let f = &set.files[s.file].source;
            let line = set.assignment(s).map_or(0, |a| f.line_of(a.key.start));
            let path = f.path.strip_prefix(&cx.stack.root).unwrap_or(&f.path);
            (v, format!("{v} at {}:{line}", path.display()))
        }
        None => match r.unset {
            Unset::Kernel(v) => (v, format!("not set: the kernel's default is {v}")),
            Unset::Systemd(v) => (v, format!("not set: systemd's 50-default.conf gives {v}")),
            Unset::Build | Unset::Distribution => return None,
        },
    };
    if (r.meets)(value) {
        return None;
    }
    let caveat = if r.caveat.is_empty() {
        String::new()
    } else {
        format!("; {}", r.caveat)
    };
    Some(format!(
        "`{} = {}` ({}; {from}{caveat})",
        r.key, r.want, r.by
    ))
}

impl Rule for HardeningProfile {
    fn check(&self, cx: &mut Context<'_>) {
        let set = &cx.stack.sysctl;
        // The administrator's file applied last (else the last file): where their own
        // settings go, and win.
        let applied = || {
            set.files
                .iter()
                .rev()
                .filter(|f| f.system && f.masked_by.is_none())
        };
        let Some(last) = applied().find(|f| !f.vendor).or_else(|| applied().next()) else {
            return;
        };
        // A BSD's `sysctl.conf` (every key under `kern.`, `vfs.`…): Linux's profile does not
        // apply to that kernel.
        let bsd = |f: &crate::stack::sysctl::SysctlFile| {
            let mut keys = f
                .parsed
                .file
                .assignments()
                .map(|(_, a)| a.normalized_key(&f.source.text));
            keys.all(|k| crate::analysis::sysctl_known::is_bsd_key(&k))
        };
        if applied().any(|f| f.parsed.file.assignments().next().is_some()) && applied().all(bsd) {
            return;
        }
        let missing: Vec<String> = RECOMMENDED
            .iter()
            .filter_map(|r| shortfall(cx, r))
            .collect();
        if missing.is_empty() {
            return;
        }
        let src = last.source.clone();
        // Its first setting (else its first line): the profile's lines belong beside it.
        let span = match last.parsed.file.assignments().next() {
            Some((_, a)) => a.key.cover(a.value),
            None => last
                .parsed
                .file
                .lines
                .first()
                .map_or(Span::empty(0), |l| Span::new(l.span.start, l.eol.start)),
        };
        let lines: Vec<String> = RECOMMENDED
            .iter()
            .filter(|r| {
                missing
                    .iter()
                    .any(|m| m.starts_with(&format!("`{} =", r.key)))
            })
            .map(|r| format!("{} = {}", r.key, r.want))
            .collect();
        let d = cx.report(
            &src,
            span,
            format!(
                "{} setting{} of the KSPP / kernel-hardening-checker sysctl profile {} below \
                 the recommendation: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                if missing.len() == 1 { "is" } else { "are" },
                missing.join(", ")
            ),
        );
        d.help = Some(format!(
            "if this host follows that profile, add to a file applied last (such as \
             /etc/sysctl.d/99-hardening.conf), after checking the caveats: {}",
            lines.join("; ")
        ));
    }
}
