//! Which sysctl keys exist: the knowledge SYS003 (unknown-key) judges with, shared with SYS010
//! (a comment after an unknown key is never written to the kernel at all). See SYS003's
//! module documentation for what counts as known.

use crate::analysis::sysctl_keys::{
    DOC_FS, DOC_KERNEL, DOC_NET_CORE, DOC_NET_IP, DOC_VM, PROC_KEYS,
};
use crate::fxhash::FxHashSet;

/// The subtrees this rule judges; everything else (`net.netfilter`, `net.bridge`, `user`,
/// `abi`, `dev`, `sunrpc`, …) depends on modules and is left alone.
pub const CHECKED: &[&str] = &[
    "net.core.",
    "net.ipv4.",
    "net.ipv6.",
    "fs.",
    "vm.",
    "kernel.",
];

/// Subtrees (or key prefixes) that exist only with a module loaded, a build option, a
/// filesystem mounted or a vendor patch: never reported.
pub const OPTIONAL_SUBTREES: &[&str] = &[
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

/// Where a key of [`HISTORICAL`] exists: the kernel release that removed it from Linux, or
/// the kernels that have it. Said the same way wherever a message names one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Removed in this Linux release (major, minor).
    Removed(u32, u32),
    /// Removed during this major series (the exact release not recorded).
    RemovedIn(u32),
    /// Removed before this major series began (the release not recorded).
    RemovedBefore(u32),
    /// Only in these kernels (a vendor patch, another architecture).
    Only(&'static str),
    /// Only in these vendor kernels, all of them Linux 2.6 and past their end of life.
    Retired(&'static str),
}

impl Origin {
    /// "removed in Linux 5.12", "only on RHEL 5 and 6 kernels".
    pub fn describe(self) -> String {
        match self {
            Origin::Removed(major, minor) => format!("removed in Linux {major}.{minor}"),
            Origin::RemovedIn(major) => format!("removed during Linux {major}.x"),
            Origin::RemovedBefore(major) => format!("removed before Linux {major}.0"),
            Origin::Only(kernels) | Origin::Retired(kernels) => format!("only on {kernels}"),
        }
    }

    /// Whether a kernel of this version has no such key for sure.
    pub fn absent_from(self, major: u32, minor: u32) -> bool {
        match self {
            Origin::Removed(m, n) => (major, minor) >= (m, n),
            Origin::RemovedIn(m) => major > m,
            Origin::RemovedBefore(m) => major >= m,
            Origin::Only(_) => false,
            Origin::Retired(_) => major >= 3,
        }
    }
}

/// Keys that exist in kernels other than the 6.x ones the generated table comes from: removed
/// ones still found in configurations, and vendor-patched kernels' own, with where they exist.
pub const HISTORY: &[(&str, Origin)] = &[
    // Removed in 4.12; SYS001 reports it.
    ("net.ipv4.tcp_tw_recycle", Origin::Removed(4, 12)),
    // Removed in the 3.x series (tcp(7), ip-sysctl.txt of those kernels).
    ("net.ipv4.tcp_abc", Origin::RemovedIn(3)),
    ("net.ipv4.tcp_cookie_size", Origin::RemovedIn(3)),
    ("net.ipv4.tcp_dma_copybreak", Origin::RemovedIn(3)),
    ("net.ipv4.tcp_frto_response", Origin::RemovedIn(3)),
    ("net.ipv4.tcp_max_ssthresh", Origin::RemovedIn(3)),
    // tcp(7) still lists it; the thin-stream dupack logic went in the 4.x series.
    ("net.ipv4.tcp_thin_dupack", Origin::RemovedBefore(5)),
    ("net.ipv4.inet_peer_gc_maxtime", Origin::RemovedIn(3)),
    ("net.ipv4.inet_peer_gc_mintime", Origin::RemovedIn(3)),
    ("net.ipv4.rt_cache_rebuild_count", Origin::RemovedIn(3)),
    ("net.ipv4.route.secret_interval", Origin::RemovedIn(3)),
    ("vm.nr_pdflush_threads", Origin::RemovedIn(3)),
    ("vm.swap_token_timeout", Origin::RemovedIn(3)),
    ("vm.scan_unevictable_pages", Origin::RemovedIn(3)),
    ("kernel.rtsig-max", Origin::RemovedIn(2)),
    ("kernel.rtsig-nr", Origin::RemovedIn(2)),
    ("kernel.softlockup_thresh", Origin::RemovedIn(2)),
    // Removed in 4.x/5.x: the block I/O poll knob (4.4), fragment secrets (4.17), the random
    // driver's read threshold (5.18), block_dump (5.12), percpu_pagelist_fraction (renamed in
    // 5.14).
    ("kernel.blk_iopoll", Origin::Removed(4, 4)),
    (
        "kernel.random.read_wakeup_threshold",
        Origin::Removed(5, 18),
    ),
    ("net.ipv6.ip6frag_secret_interval", Origin::Removed(4, 17)),
    ("vm.block_dump", Origin::Removed(5, 12)),
    ("vm.hugepages_treat_as_movable", Origin::RemovedBefore(6)),
    ("vm.percpu_pagelist_fraction", Origin::Removed(5, 14)),
    // Other architectures and Android kernels.
    (
        "vm.vdso_enabled",
        Origin::Only("32-bit x86 and other architectures' kernels"),
    ),
    (
        "net.ipv4.tcp_default_init_rwnd",
        Origin::Only("Android kernels"),
    ),
    // Vendor kernels: Debian/Ubuntu and linux-hardened patches, RHEL.
    (
        "kernel.unprivileged_userns_clone",
        Origin::Only("Debian, Ubuntu and linux-hardened kernels"),
    ),
    (
        "kernel.unprivileged_userns_apparmor_policy",
        Origin::Only("Ubuntu kernels"),
    ),
    (
        "kernel.deny_new_usb",
        Origin::Only("linux-hardened kernels"),
    ),
    (
        "kernel.tiocsti_restrict",
        Origin::Only("linux-hardened kernels"),
    ),
    (
        "kernel.device_sidechannel_restrict",
        Origin::Only("linux-hardened kernels"),
    ),
    (
        "kernel.exec-shield",
        Origin::Retired("RHEL and CentOS 5 and 6 kernels"),
    ),
    (
        "kernel.exec-shield-randomize",
        Origin::Retired("RHEL and CentOS 5 kernels"),
    ),
    (
        "kernel.vsyscall64",
        Origin::Retired("RHEL and CentOS 5 and 6 kernels"),
    ),
    (
        "fs.may_detach_mounts",
        Origin::Only("RHEL and CentOS 7 kernels"),
    ),
    (
        "vm.extra_free_kbytes",
        Origin::Only("RHEL 7 and Android kernels"),
    ),
];

/// The keys of [`HISTORY`].
pub static HISTORICAL: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| HISTORY.iter().map(|(k, _)| *k).collect());

/// Where a key of [`HISTORY`] exists.
pub fn origin(key: &str) -> Option<Origin> {
    HISTORY.iter().find(|(k, _)| *k == key).map(|&(_, o)| o)
}

/// The documented leaves that apply to a key's subtree.
pub fn doc_leaves(key: &str) -> &'static [&'static str] {
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
pub struct KnownPaths {
    exact: FxHashSet<&'static str>,
    /// Which segment positions hold a `*` in some pattern.
    star_at: Vec<usize>,
    starred: FxHashSet<String>,
}

impl KnownPaths {
    pub fn matches(&self, key: &str) -> bool {
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

pub fn known_paths() -> &'static KnownPaths {
    static KNOWN: std::sync::OnceLock<KnownPaths> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| {
        let mut k = KnownPaths {
            exact: FxHashSet::default(),
            star_at: Vec::new(),
            starred: FxHashSet::default(),
        };
        for p in PROC_KEYS.iter().chain(HISTORICAL.iter()) {
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
pub const TOP_LEVEL: &[&str] = &[
    "abi", "crypto", "debug", "dev", "fs", "kernel", "net", "sunrpc", "user", "vm", "fscache",
    "lnet", "lustre", "xen",
];

/// The top-level names of the BSDs' sysctl trees (sysctl(3) of FreeBSD, NetBSD, OpenBSD):
/// a key under one belongs to another kernel's `sysctl.conf`, which Linux's rules leave alone.
pub const BSD_TOP_LEVEL: &[&str] = &[
    "kern", "vfs", "hw", "machdep", "security", "compat", "p1003_1b", "ddb",
];

/// Whether `key` belongs to a BSD's sysctl tree ([`BSD_TOP_LEVEL`], or FreeBSD's
/// `net.inet`/`net.inet6`/`net.link`).
pub fn is_bsd_key(key: &str) -> bool {
    let top = key.split('.').next().unwrap_or("");
    BSD_TOP_LEVEL.contains(&top)
        || ["net.inet.", "net.inet6.", "net.link."]
            .iter()
            .any(|p| key.starts_with(p))
}

/// The directories under `net` whose keys the table lists.
pub const NET_CHECKED: &[&str] = &["core", "ipv4", "ipv6"];

/// Whether a key outside [`CHECKED`] is a slip of one of its subtrees, and so judged too: a
/// misspelt top level (`kernal.pid_max`, `mv.swappiness`) or `net` subdirectory
/// (`net.cor.somaxconn`), or an underscore for the dot after one (`net.ipv4_timestamps`). Keys
/// under directories of their own (`net.netfilter`, `user`, `net.nf_conntrack_max`) stay
/// unjudged: modules add those.
pub fn slipped_subtree(key: &str) -> bool {
    let mut segs = key.split('.');
    let top = segs.next().unwrap_or("");
    let Some(second) = segs.next() else {
        return false;
    };
    // `/proc/sys/` written into the key (`sys.kernel.randomize_va_space`): no kernel has a
    // `sys` or `proc` directory under /proc/sys.
    if (top == "sys" || (top == "proc" && second == "sys")) && key.split('.').count() > 2 {
        return true;
    }
    // The BSDs' own top-level names (`kern.ipc.somaxconn`, `vfs.usermount`): a FreeBSD
    // `sysctl.conf` is not a slip of Linux's.
    if BSD_TOP_LEVEL.contains(&top) {
        return false;
    }
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
pub fn is_known(key: &str, extra: &[String]) -> bool {
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
    // The documentation's leaf names stand in for keys this machine's kernel was built
    // without. A leaf the table has under other paths only is not one of those: the kernel
    // that has it knows where it lives, and the key is a wrong path to it
    // (`net.ipv6.tcp_rmem`: TCP's settings are all under `net.ipv4`;
    // `net.ipv6.conf.all.rp_filter`: IPv6 has no reverse-path filter).
    doc_leaves(key).contains(&leaf) && !known_leaves().contains(leaf)
}

/// The last segments of [`PROC_KEYS`] and [`HISTORICAL`].
fn known_leaves() -> &'static FxHashSet<&'static str> {
    static LEAVES: std::sync::OnceLock<FxHashSet<&'static str>> = std::sync::OnceLock::new();
    LEAVES.get_or_init(|| {
        PROC_KEYS
            .iter()
            .chain(HISTORICAL.iter())
            .filter_map(|k| k.rsplit('.').next())
            .collect()
    })
}

/// Levenshtein distance over bytes.
pub fn distance(a: &str, b: &str) -> usize {
    crate::edit_distance::levenshtein(a.as_bytes(), b.as_bytes())
}
