//! SYS003 unknown-key: a key under `net.core`, `net.ipv4`, `net.ipv6`, `fs`, `vm` or `kernel`
//! that no Linux kernel we know has, usually a typo (`vm.swapiness`, `net.core.somaxcon`).
//!
//! `sysctl --system` skips unknown keys silently and systemd-sysctl logs them at debug level,
//! so a misspelt key is a setting that never applies and nobody notices. `sysctl -p` prints
//! `sysctl: cannot stat /proc/sys/…: No such file or directory`.
//!
//! A key counts as known when it is a file of Linux 6.18's `/proc/sys` (interface names are
//! wildcards), when its last segment is a leaf the kernel documentation of 6.1 or 6.12 describes
//! for that subtree, when it is in [`HISTORICAL`] (keys of older and vendor kernels), or when it
//! lies under a subtree that only exists with a module, a build option or a vendor patch
//! ([`OPTIONAL_SUBTREES`]). Globs and `-key` lines (the admin expects the key may be missing)
//! are never reported. Users add keys with the `known-keys` option. Keys outside those subtrees
//! are judged only when the subtree itself is a slip of one of them ([`slipped_subtree`]).

use crate::analysis::sysctl_keys::{
    DOC_FS, DOC_KERNEL, DOC_NET_CORE, DOC_NET_IP, DOC_VM, PROC_KEYS,
};
use crate::fix::{Edit, Fix};
use crate::fxhash::FxHashSet;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct UnknownKey;
    code: SYS003,
    name: "unknown-key",
    lang: sysctl,
    category: Correctness,
    severity: Warning,
    fix: Sometimes,
    group: Default,
    options: Options,
}

/// The subtrees this rule judges; everything else (`net.netfilter`, `net.bridge`, `user`,
/// `abi`, `dev`, `sunrpc`, …) depends on modules and is left alone.
const CHECKED: &[&str] = &[
    "net.core.",
    "net.ipv4.",
    "net.ipv6.",
    "fs.",
    "vm.",
    "kernel.",
];

/// Subtrees (or key prefixes) that exist only with a module loaded, a build option, a
/// filesystem mounted or a vendor patch: never reported.
const OPTIONAL_SUBTREES: &[&str] = &[
    // Modules: netfilter (old conntrack), IPVS, XFS, NFS, OCFS2, FUSE, ZFS's SPL…
    "net.ipv4.netfilter.",
    "net.ipv4.ip_conntrack_",
    "net.ipv4.vs.",
    "net.ipv6.netfilter.",
    "net.core.xfrm_",
    "fs.binfmt_misc.",
    "fs.nfs.",
    "fs.xfs.",
    "fs.ocfs2.",
    "fs.lustre.",
    "fs.fscache.",
    "fs.cachefiles.",
    "fs.verity.",
    "fs.fuse.",
    "kernel.spl.",
    // Build options and LSMs: Yama (kernel.yama.ptrace_scope), the scheduler's debug knobs
    // (moved to debugfs in 5.13, still in many tuning guides), NUMA balancing.
    "kernel.yama.",
    "kernel.sched_",
    "kernel.numa_balancing",
    // Vendor patches: grsecurity/PaX, Ubuntu's AppArmor user-namespace restrictions.
    "kernel.grsecurity.",
    "kernel.pax.",
    "kernel.apparmor_",
];

/// Keys that exist in kernels other than the 6.x ones the generated table comes from: removed
/// ones still found in configurations, and vendor-patched kernels' own.
const HISTORICAL: &[&str] = &[
    // Removed in 4.12; SYS001 reports it.
    "net.ipv4.tcp_tw_recycle",
    // Removed in the 3.x series (tcp(7), ip-sysctl.txt of those kernels).
    "net.ipv4.tcp_abc",
    "net.ipv4.tcp_cookie_size",
    "net.ipv4.tcp_dma_copybreak",
    "net.ipv4.tcp_frto_response",
    "net.ipv4.tcp_max_ssthresh",
    "net.ipv4.tcp_thin_dupack",
    "net.ipv4.inet_peer_gc_maxtime",
    "net.ipv4.inet_peer_gc_mintime",
    "net.ipv4.rt_cache_rebuild_count",
    "net.ipv4.route.secret_interval",
    "vm.nr_pdflush_threads",
    "vm.swap_token_timeout",
    "vm.scan_unevictable_pages",
    "kernel.rtsig-max",
    "kernel.rtsig-nr",
    "kernel.softlockup_thresh",
    // Removed in 4.x/5.x: the block I/O poll knob (4.4), fragment secrets (4.17), the random
    // driver's read threshold (5.18), block_dump (5.12), percpu_pagelist_fraction (renamed in
    // 5.14).
    "kernel.blk_iopoll",
    "kernel.random.read_wakeup_threshold",
    "net.ipv6.ip6frag_secret_interval",
    "vm.block_dump",
    "vm.hugepages_treat_as_movable",
    "vm.percpu_pagelist_fraction",
    // Other architectures and Android kernels.
    "vm.vdso_enabled",
    "net.ipv4.tcp_default_init_rwnd",
    // Vendor kernels: Debian/Ubuntu and linux-hardened patches, RHEL.
    "kernel.unprivileged_userns_clone",
    "kernel.unprivileged_userns_apparmor_policy",
    "kernel.deny_new_usb",
    "kernel.tiocsti_restrict",
    "kernel.device_sidechannel_restrict",
    "kernel.exec-shield",
    "kernel.exec-shield-randomize",
    "kernel.vsyscall64",
    "fs.may_detach_mounts",
    "vm.extra_free_kbytes",
];

/// The documented leaves that apply to a key's subtree.
fn doc_leaves(key: &str) -> &'static [&'static str] {
    match key.split('.').next() {
        Some("kernel") => DOC_KERNEL,
        Some("vm") => DOC_VM,
        Some("fs") => DOC_FS,
        _ if key.starts_with("net.core.") => DOC_NET_CORE,
        _ => DOC_NET_IP,
    }
}

/// [`PROC_KEYS`] and [`HISTORICAL`] for lookups: exact keys in a set, and keys with a `*`
/// segment (an interface name) in a set by the key with that segment written `*`, so a file
/// of a million lines costs a million lookups, not a billion comparisons.
struct KnownPaths {
    exact: FxHashSet<&'static str>,
    /// Which segment positions hold a `*` in some pattern.
    star_at: Vec<usize>,
    starred: FxHashSet<String>,
}

impl KnownPaths {
    fn matches(&self, key: &str) -> bool {
        if self.exact.contains(key) {
            return true;
        }
        self.star_at.iter().any(|&i| {
            let mut segs: Vec<&str> = key.split('.').collect();
            if i >= segs.len() {
                return false;
            }
            segs[i] = "*";
            self.starred.contains(&segs.join("."))
        })
    }
}

fn known_paths() -> &'static KnownPaths {
    static KNOWN: std::sync::OnceLock<KnownPaths> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| {
        let mut k = KnownPaths {
            exact: FxHashSet::default(),
            star_at: Vec::new(),
            starred: FxHashSet::default(),
        };
        for p in PROC_KEYS.iter().chain(HISTORICAL) {
            let stars: Vec<usize> = p
                .split('.')
                .enumerate()
                .filter(|(_, s)| *s == "*")
                .map(|(i, _)| i)
                .collect();
            match stars.as_slice() {
                [] => {
                    k.exact.insert(p);
                }
                [i] => {
                    if !k.star_at.contains(i) {
                        k.star_at.push(*i);
                    }
                    k.starred.insert(p.to_string());
                }
                // Not in the tables; kept exact so nothing is lost if one appears.
                _ => {
                    k.exact.insert(p);
                }
            }
        }
        k
    })
}

/// The top-level directories of `/proc/sys`, built in or added by common modules.
const TOP_LEVEL: &[&str] = &[
    "abi", "crypto", "debug", "dev", "fs", "kernel", "net", "sunrpc", "user", "vm", "fscache",
    "lnet", "lustre", "xen",
];

/// The directories under `net` whose keys the table lists.
const NET_CHECKED: &[&str] = &["core", "ipv4", "ipv6"];

/// Whether a key outside [`CHECKED`] is a slip of one of its subtrees, and so judged too: a
/// misspelt top level (`kernal.pid_max`, `mv.swappiness`) or `net` subdirectory
/// (`net.cor.somaxconn`), or an underscore for the dot after one (`net.ipv4_timestamps`). Keys
/// under directories of their own (`net.netfilter`, `user`, `net.nf_conntrack_max`) stay
/// unjudged: modules add those.
fn slipped_subtree(key: &str) -> bool {
    let mut segs = key.split('.');
    let top = segs.next().unwrap_or("");
    let Some(second) = segs.next() else {
        return false;
    };
    if !TOP_LEVEL.contains(&top) {
        return ["fs", "kernel", "net", "vm"]
            .iter()
            .any(|t| distance(top, t) <= if t.len() <= 3 { 1 } else { 2 });
    }
    if top != "net" || NET_CHECKED.contains(&second) {
        return false;
    }
    let third = segs.next();
    NET_CHECKED.iter().any(|d| {
        (third.is_some() && second.len() >= 3 && distance(second, d) == 1)
            || second
                .strip_prefix(d)
                .is_some_and(|rest| rest.starts_with('_') && rest.len() > 1)
    })
}

/// Whether the key exists in some kernel we know of.
fn is_known(key: &str, extra: &[String]) -> bool {
    let checked = CHECKED.iter().any(|p| key.starts_with(p));
    if !checked && !slipped_subtree(key) {
        return true;
    }
    if OPTIONAL_SUBTREES.iter().any(|p| key.starts_with(p))
        || extra
            .iter()
            .any(|e| key == e || (e.ends_with('.') && key.starts_with(e.as_str())))
    {
        return true;
    }
    if known_paths().matches(key) {
        return true;
    }
    if !checked {
        // A slipped subtree: its leaf may well be documented, under the right subtree.
        return false;
    }
    let leaf = key.rsplit('.').next().unwrap_or(key);
    doc_leaves(key).contains(&leaf)
}

/// Levenshtein distance over bytes.
fn distance(a: &str, b: &str) -> usize {
    crate::edit_distance::levenshtein(a.as_bytes(), b.as_bytes())
}

/// `pattern` with its `*` segments replaced by the key's segments at the same place, so that
/// `net.ipv4.conf.eth0.rp_filtr` is compared with `net.ipv4.conf.eth0.rp_filter`.
fn instantiate(pattern: &str, key: &str) -> String {
    let ks: Vec<&str> = key.split('.').collect();
    pattern
        .split('.')
        .enumerate()
        .map(|(i, s)| {
            if s == "*" {
                ks.get(i).copied().unwrap_or(s)
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The nearest known key, if it is close enough to be what was meant (at most 3 edits, and
/// fewer than a third of the key's length), and unique at that distance.
fn suggestion(key: &str) -> Option<String> {
    if let Some(s) = separator_repair(key) {
        return Some(s);
    }
    let mut best: Option<(usize, String)> = None;
    let mut tie = false;
    for k in PROC_KEYS.iter().chain(HISTORICAL) {
        let cand = instantiate(k, key);
        let d = distance(key, &cand);
        match &best {
            Some((bd, bk)) if d == *bd && *bk != cand => tie = true,
            Some((bd, _)) if d >= *bd => {}
            _ => {
                best = Some((d, cand));
                tie = false;
            }
        }
    }
    let (d, cand) = best?;
    (d > 0 && d <= 3 && d * 3 < key.len() && !tie).then_some(cand)
}

/// For `net.ipv4_timestamps` (an underscore where the dot after a subtree goes): the key with
/// the dot, when it is known, or else the one known key of that subtree whose leaf ends with
/// `_` and the written rest (`net.ipv4.tcp_timestamps`).
fn separator_repair(key: &str) -> Option<String> {
    let rest = key.strip_prefix("net.")?;
    let (dir, leaf) = NET_CHECKED.iter().find_map(|d| {
        let r = rest.strip_prefix(d)?.strip_prefix('_')?;
        (!r.is_empty() && !r.contains('.')).then_some((*d, r))
    })?;
    let dotted = format!("net.{dir}.{leaf}");
    if known_paths().matches(&dotted) {
        return Some(dotted);
    }
    let prefix = format!("net.{dir}.");
    let suffix = format!("_{leaf}");
    let mut found = PROC_KEYS
        .iter()
        .filter(|k| {
            k.strip_prefix(prefix.as_str())
                .is_some_and(|l| !l.contains('.'))
        })
        .filter(|k| k.ends_with(suffix.as_str()));
    let first = found.next()?;
    found.next().is_none().then(|| first.to_string())
}

/// A dotted key written the way `written` is: with `/` separators when its first separator
/// is a slash (dots inside names, written `/` in dotted form, become dots again).
fn in_style_of(written: &str, dotted: &str) -> String {
    match written.find(['.', '/']) {
        Some(i) if written.as_bytes()[i] == b'/' => crate::syntax::sysctl::swap_separators(dotted),
        _ => dotted.to_string(),
    }
}

/// `[rules.SYS003]`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Options {
    /// More keys to accept: exact keys, or prefixes ending with a dot.
    #[serde(default)]
    known_keys: Vec<String>,
}

impl Rule for UnknownKey {
    fn check(&self, cx: &mut Context<'_>) {
        let extra = &cx.options(self).known_keys;
        for f in cx
            .stack
            .sysctl
            .files
            .iter()
            .filter(|f| f.masked_by.is_none())
        {
            let src = &f.source;
            for (_, a) in f.parsed.file.assignments() {
                if a.ignore_failure() || a.is_glob(&src.text) {
                    continue;
                }
                let key = a.normalized_key(&src.text);
                if is_known(&key, extra) {
                    continue;
                }
                let path = a.proc_path(&src.text);
                let written = a.key_text(&src.text);
                // Past the per-file cap the finding is only counted: skip the search for a
                // suggestion.
                let suggest = !cx.is_full(src);
                let d = cx.report(
                    src,
                    a.key,
                    format!(
                        "`{written}` is not a known kernel setting: `sysctl --system` skips the \
                         line silently (`sysctl -p`: cannot stat /proc/sys/{path})"
                    ),
                );
                match suggest.then(|| suggestion(&key)).flatten() {
                    Some(s) => {
                        let s = in_style_of(&written, &s);
                        d.help = Some(format!("did you mean `{s}`?"));
                        d.with_fix(Fix::unsafe_(
                            format!("Rename the key to `{s}`"),
                            vec![Edit::replace(src, a.key, s)],
                        ));
                    }
                    None => {
                        d.help = Some(
                            "if your kernel has it (a newer kernel, a vendor patch, a module), \
                             add it to `[rules.SYS003] known-keys`"
                                .into(),
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_keys_and_interfaces() {
        assert!(is_known("net.core.somaxconn", &[]));
        assert!(is_known("net.ipv4.conf.eth0/100.rp_filter", &[]));
        assert!(is_known("net.ipv6.conf.ens3.accept_ra", &[]));
        assert!(is_known("kernel.sysrq", &[]));
        assert!(is_known("kernel.yama.ptrace_scope", &[]));
        assert!(is_known("net.netfilter.nf_conntrack_max", &[]));
        assert!(!is_known("net.core.somaxcon", &[]));
        assert!(!is_known("vm.swapiness", &[]));
        assert!(is_known("vm.swapiness", &["vm.swapiness".into()]));
        assert!(is_known("kernel.foo.bar", &["kernel.foo.".into()]));
        // Slips outside the checked subtrees.
        assert!(!is_known("kernal.pid_max", &[]));
        assert!(!is_known("net.cor.somaxconn", &[]));
        assert!(!is_known("net.ipv4_timestamps", &[]));
        assert!(!is_known("net.ipv6_conf.all.disable_ipv6", &[]));
        // Other directories are left to their modules.
        assert!(is_known("net.nf_conntrack_max", &[]));
        assert!(is_known("net.bridge.bridge-nf-call-iptables", &[]));
        assert!(is_known("net.unix.max_dgram_qlen", &[]));
        assert!(is_known("user.max_user_namespaces", &[]));
        assert!(is_known("sunrpc.tcp_slot_table_entries", &[]));
        assert!(is_known("vendor.custom_knob", &[]));
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggestion("vm.swapiness").as_deref(), Some("vm.swappiness"));
        assert_eq!(
            suggestion("net.ipv4.conf.eth0.rp_filtr").as_deref(),
            Some("net.ipv4.conf.eth0.rp_filter")
        );
        assert_eq!(suggestion("kernel.completely_made_up_name"), None);
        assert_eq!(
            suggestion("kernal.pid_max").as_deref(),
            Some("kernel.pid_max")
        );
        assert_eq!(
            suggestion("net.cor.somaxconn").as_deref(),
            Some("net.core.somaxconn")
        );
        assert_eq!(
            suggestion("net.ipv4_timestamps").as_deref(),
            Some("net.ipv4.tcp_timestamps")
        );
        assert_eq!(
            suggestion("net.ipv4_tcp_syncookies").as_deref(),
            Some("net.ipv4.tcp_syncookies")
        );
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(
            in_style_of("vm/swapiness", "vm.swappiness"),
            "vm/swappiness"
        );
        assert_eq!(
            in_style_of(
                "net/ipv4/conf/eth0.2/rp_filtr",
                "net.ipv4.conf.eth0/2.rp_filter"
            ),
            "net/ipv4/conf/eth0.2/rp_filter"
        );
    }
}
