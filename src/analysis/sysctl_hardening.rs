//! The kernel's hardening settings as a stack's sysctl files leave them: which assignments
//! turn a protection off (SYS004) and which recommended values are missing (SYS005).
//!
//! Values come from the kernel documentation (`Documentation/admin-guide/sysctl/kernel.rst`,
//! `fs.rst`, `vm.rst`, `networking/ip-sysctl.rst`) and the kernel source for defaults; the
//! recommended set is KSPP's "Recommended Settings" page and kernel-hardening-checker's
//! `add_sysctl_checks`. Interface settings (`net.ipv4.conf.<if>.<key>`) are combined with
//! `conf.all` the way `ip-sysctl.rst` says for each key ([`Merge`]); a tests/sysctl_binary.rs
//! test shows it inside a network namespace.

use crate::stack::sysctl::{Set, SysctlSet};

/// How the kernel combines `conf/all/<key>` with `conf/<interface>/<key>` (ip-sysctl.rst).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// Not an interface setting.
    Single,
    /// "The max value from conf/{all,interface}/rp_filter is used": `all = 0` lowers
    /// nothing.
    Max,
    /// On only when `all` and the interface both have it: `accept_source_route` ("conf/all
    /// must also be set to TRUE"), `accept_redirects` on a host that does not forward.
    Both,
    /// On when either has it (`send_redirects`).
    Either,
}

/// A hardening setting SYS004 watches.
pub struct Knob {
    /// Dotted key; for an interface setting, the `conf.*` pattern.
    pub key: &'static str,
    pub merge: Merge,
    /// The kernel's value when nothing sets it (for an interface setting, the value of a new
    /// interface; `conf.all` starts at [`Knob::all_default`]).
    pub kernel_default: i64,
    pub all_default: i64,
    /// A value that turns the protection off below the kernel's or the distributions'
    /// default: reported wherever it wins.
    pub weak: fn(i64) -> bool,
    /// A value that keeps the protection on. An assignment that is not, applied after one
    /// that was, undoes it: reported where it does.
    pub hardened: fn(i64) -> bool,
    /// What the protection is, for "… is off again".
    pub protects: &'static str,
    /// What a weak value does, for the message.
    pub weak_means: &'static str,
}

const fn never(_: i64) -> bool {
    false
}

/// The settings SYS004 judges, with the reason each weak value is weak. A value equal to the
/// kernel's own default and raised by no major distribution (`accept_redirects = 1`,
/// `send_redirects = 1`, `bpf_jit_harden = 0`) is not "weakened as written": only its undoing
/// of an earlier hardening line is reported; raising it is the opt-in profile's (SYS005).
pub const KNOBS: &[Knob] = &[
    Knob {
        key: "kernel.randomize_va_space",
        merge: Merge::Single,
        kernel_default: 2,
        all_default: 2,
        weak: |v| v < 2,
        hardened: |v| v >= 2,
        protects: "address-space layout randomisation",
        weak_means: "turns address-space layout randomisation down (0: off; 1: stack, mmap \
                     and VDSO only, not the heap), so exploits find code and data at \
                     predictable addresses; the kernel's default is 2",
    },
    Knob {
        key: "kernel.kptr_restrict",
        merge: Merge::Single,
        kernel_default: 0,
        all_default: 0,
        weak: |v| v == 0,
        hardened: |v| v >= 1,
        protects: "hiding kernel addresses",
        weak_means: "prints kernel addresses in /proc/kallsyms, /proc/modules and `%pK` \
                     output to users with CAP_SYSLOG unhashed, which defeats kernel address \
                     randomisation for an exploit (Ubuntu ships 1, KSPP recommends 1 or 2)",
    },
    Knob {
        key: "kernel.dmesg_restrict",
        merge: Merge::Single,
        kernel_default: 0,
        all_default: 0,
        weak: |v| v == 0,
        hardened: |v| v >= 1,
        protects: "restricting the kernel log to root",
        weak_means: "lets every local user read the kernel log (dmesg), which leaks kernel \
                     addresses and state an exploit uses; Debian's and Ubuntu's kernels are \
                     built with CONFIG_SECURITY_DMESG_RESTRICT (1)",
    },
    Knob {
        key: "kernel.yama.ptrace_scope",
        merge: Merge::Single,
        kernel_default: 1,
        all_default: 1,
        weak: |v| v == 0,
        hardened: |v| v >= 1,
        protects: "Yama's ptrace restriction",
        weak_means: "lets any process attach to every other process of the same user (read \
                     its memory, secrets, session keys): a compromised PHP worker can read \
                     every other process running as its user; Yama's default is 1 (descendants \
                     only)",
    },
    Knob {
        key: "fs.protected_symlinks",
        merge: Merge::Single,
        kernel_default: 0,
        all_default: 0,
        weak: |v| v == 0,
        hardened: |v| v >= 1,
        protects: "the symlink protection in world-writable sticky directories",
        weak_means: "lets a process follow another user's symlink in /tmp and other \
                     world-writable sticky directories (the classic /tmp symlink race); \
                     systemd's 50-default.conf sets 1 on every systemd distribution",
    },
    Knob {
        key: "fs.protected_hardlinks",
        merge: Merge::Single,
        kernel_default: 0,
        all_default: 0,
        weak: |v| v == 0,
        hardened: |v| v >= 1,
        protects: "the hardlink protection",
        weak_means: "lets a user hard-link files they do not own (setuid binaries, other \
                     users' files) into a directory they control; systemd's 50-default.conf \
                     sets 1 on every systemd distribution",
    },
    Knob {
        key: "fs.protected_fifos",
        merge: Merge::Single,
        kernel_default: 0,
        all_default: 0,
        weak: |v| v == 0,
        hardened: |v| v >= 1,
        protects: "the FIFO protection in world-writable sticky directories",
        weak_means: "lets a process open with O_CREAT a FIFO another user planted in /tmp \
                     (data spoofing); systemd's 50-default.conf sets 1",
    },
    Knob {
        key: "fs.protected_regular",
        merge: Merge::Single,
        kernel_default: 0,
        all_default: 0,
        weak: |v| v == 0,
        hardened: |v| v >= 1,
        protects: "the regular-file protection in world-writable sticky directories",
        weak_means: "lets a process open with O_CREAT a file another user planted in /tmp, \
                     so it writes into an attacker's file; systemd's 50-default.conf sets 1",
    },
    Knob {
        key: "fs.suid_dumpable",
        merge: Merge::Single,
        kernel_default: 0,
        all_default: 0,
        weak: |v| v == 1,
        hardened: |v| v == 0,
        protects: "keeping privileged processes from dumping core",
        weak_means: "dumps the core of processes that changed privileges, owned by the \
                     user who ran them: the kernel documentation calls 1 (debug) insecure, \
                     it lets regular users read the memory of privileged processes",
    },
    Knob {
        key: "kernel.unprivileged_bpf_disabled",
        merge: Merge::Single,
        kernel_default: 2,
        all_default: 2,
        weak: |v| v == 0,
        hardened: |v| v >= 1,
        protects: "the ban on unprivileged BPF",
        weak_means: "lets every local user load BPF programs, the attack surface of many \
                     kernel privilege escalations (Spectre v2 through BPF, verifier bugs); the \
                     kernel's default since 5.16 is 2 (CONFIG_BPF_UNPRIV_DEFAULT_OFF)",
    },
    Knob {
        key: "kernel.perf_event_paranoid",
        merge: Merge::Single,
        kernel_default: 2,
        all_default: 2,
        weak: |v| v < 2,
        hardened: |v| v >= 2,
        protects: "the restriction of perf events",
        weak_means: "lets unprivileged users profile the kernel (1, 0) or everything (-1) \
                     with perf events, a kernel address leak and attack surface; the kernel's \
                     default is 2 (user-space profiling of one's own processes only)",
    },
    Knob {
        key: "vm.mmap_min_addr",
        merge: Merge::Single,
        kernel_default: 4096,
        all_default: 4096,
        // The Kconfig default is 4096, but its help text asks for 65536 on x86 and at most
        // 32768 on Arm, and the distributions build with those: below 32768 lowers every
        // distribution's guard.
        weak: |v| v < 32768,
        hardened: |v| v >= 32768,
        protects: "the guard below the lowest address a process may map",
        weak_means: "lets a process map memory that low (page zero itself at 0), which turns \
                     a kernel NULL-pointer dereference with a small offset into code \
                     execution; distributions ship 65536 (x86) or 32768 (Arm)",
    },
    Knob {
        key: "vm.unprivileged_userfaultfd",
        merge: Merge::Single,
        kernel_default: 0,
        all_default: 0,
        weak: |v| v == 1,
        hardened: |v| v == 0,
        protects: "the restriction of userfaultfd to privileged users",
        weak_means: "lets unprivileged users handle kernel-mode page faults with \
                     userfaultfd, which exploits use to stall the kernel in a race window; \
                     the kernel's default is 0",
    },
    Knob {
        key: "net.core.bpf_jit_harden",
        merge: Merge::Single,
        kernel_default: 0,
        all_default: 0,
        weak: never,
        hardened: |v| v >= 1,
        protects: "BPF JIT hardening",
        weak_means: "",
    },
    Knob {
        key: "net.ipv4.conf.*.rp_filter",
        merge: Merge::Max,
        kernel_default: 0,
        all_default: 0,
        weak: |v| v == 0,
        hardened: |v| v >= 1,
        protects: "reverse-path filtering",
        weak_means: "turns reverse-path source validation off for the interface (the larger \
                     of conf.all and the interface's value is used): packets with spoofed \
                     source addresses are accepted there; systemd's \
                     50-default.conf and Ubuntu ship 2 (loose); a firewall rule can check \
                     sources instead (nftables `fib saddr . iif oif missing drop`)",
    },
    Knob {
        key: "net.ipv4.conf.*.accept_source_route",
        merge: Merge::Both,
        kernel_default: 1,
        all_default: 0,
        weak: |v| v >= 1,
        hardened: |v| v == 0,
        protects: "dropping source-routed packets",
        weak_means: "accepts IPv4 packets carrying a source route (the sender picks the \
                     path back, around filters and to spoof a trusted address): with \
                     conf.all at 1 every interface whose own value is 1 (a new interface's \
                     is) accepts them; systemd's 50-default.conf sets 0",
    },
    Knob {
        key: "net.ipv4.conf.*.accept_redirects",
        merge: Merge::Both,
        kernel_default: 1,
        all_default: 1,
        weak: never,
        hardened: |v| v == 0,
        protects: "ignoring ICMP redirects",
        weak_means: "",
    },
    Knob {
        key: "net.ipv4.conf.*.secure_redirects",
        merge: Merge::Both,
        kernel_default: 1,
        all_default: 1,
        weak: never,
        hardened: |v| v == 0,
        protects: "ignoring ICMP redirects from gateways",
        weak_means: "",
    },
    Knob {
        key: "net.ipv4.conf.*.send_redirects",
        merge: Merge::Either,
        kernel_default: 1,
        all_default: 1,
        weak: never,
        hardened: |v| v == 0,
        protects: "not sending ICMP redirects",
        weak_means: "",
    },
];

/// The first word of a value as a number (`-1` included); `None` for a placeholder or text.
pub fn number(value: &str) -> Option<i64> {
    value.split_whitespace().next()?.parse().ok()
}

/// One assignment's number.
pub fn value_at(set: &SysctlSet, s: Set) -> Option<i64> {
    number(&set.value_of(s)?)
}

/// The interface segment of a `conf.*` pattern's concrete key (`all`, `default`, `eth0`).
pub fn conf_key(pattern: &str, name: &str) -> String {
    pattern.replacen('*', name, 1)
}

/// The interface names the files set this `conf.*` setting for, besides `all` and `default`
/// (explicit keys only: a glob names no interface).
pub fn named_interfaces(set: &SysctlSet, pattern: &str) -> Vec<String> {
    let (head, tail) = pattern.split_once('*').unwrap_or((pattern, ""));
    let mut out: Vec<String> = set
        .keys
        .keys()
        .filter_map(|k| k.strip_prefix(head)?.strip_suffix(tail).map(str::to_string))
        .filter(|n| {
            !n.is_empty()
                && !n.contains('.')
                && n != "all"
                && n != "default"
                && !crate::syntax::sysctl::is_glob(n.as_bytes())
        })
        .collect();
    out.dedup();
    out
}

/// The value a key ends with, and the assignment that sets it (none: the kernel's).
pub fn effective(set: &SysctlSet, key: &str) -> Option<(Set, i64)> {
    let s = *set.applied(key).last()?;
    Some((s, value_at(set, s)?))
}

/// Whether the key's last value is a number or absent: a placeholder or text is unknown,
/// and nothing is judged on it.
pub fn known(set: &SysctlSet, key: &str) -> bool {
    set.applied(key)
        .last()
        .is_none_or(|&s| value_at(set, s).is_some())
}

/// What a recommended key is when no file sets it.
#[derive(Clone, Copy, Debug)]
pub enum Unset {
    /// The kernel's value.
    Kernel(i64),
    /// Set by systemd's `50-default.conf`, which every systemd distribution ships.
    Systemd(i64),
    /// The kernel's build decides (a Kconfig option distributions set differently): not
    /// judged when no file sets it.
    Build,
    /// Distributions ship different values (upstream systemd's `50-default.conf` sets
    /// `fs.protected_fifos`/`fs.protected_regular` to 1, Debian's and Ubuntu's procps
    /// `99-protect-links.conf` sets `protected_regular` to 2): not judged when no file of
    /// the tree sets it.
    Distribution,
}

/// A setting of the KSPP / kernel-hardening-checker recommended set (SYS005).
pub struct Recommended {
    pub key: &'static str,
    /// The value to write.
    pub want: i64,
    /// Whether a value meets the recommendation (KSPP's where it and kernel-hardening-checker
    /// differ: `kptr_restrict` 1 or 2, `ptrace_scope` 1 to 3).
    pub meets: fn(i64) -> bool,
    /// Who recommends it.
    pub by: &'static str,
    pub unset: Unset,
    /// What it may break, when something commonly depends on the weaker value.
    pub caveat: &'static str,
}

/// KSPP's "Recommended Settings" (sysctls) and kernel-hardening-checker's
/// `add_sysctl_checks`, in that order; `vm.mmap_rnd_bits = max` is left out (the maximum
/// depends on the architecture, which the files do not say).
pub const RECOMMENDED: &[Recommended] = &[
    Recommended {
        key: "kernel.kptr_restrict",
        want: 1,
        meets: |v| v >= 1,
        by: "KSPP (kernel-hardening-checker: 2)",
        unset: Unset::Kernel(0),
        caveat: "",
    },
    Recommended {
        key: "kernel.dmesg_restrict",
        want: 1,
        meets: |v| v >= 1,
        by: "KSPP",
        unset: Unset::Build,
        caveat: "",
    },
    Recommended {
        key: "kernel.perf_event_paranoid",
        want: 3,
        meets: |v| v >= 3,
        by: "KSPP",
        unset: Unset::Kernel(2),
        caveat: "3 needs a distribution patch (Debian, Ubuntu); elsewhere it acts as 2",
    },
    Recommended {
        key: "kernel.kexec_load_disabled",
        want: 1,
        meets: |v| v == 1,
        by: "KSPP",
        unset: Unset::Kernel(0),
        caveat: "",
    },
    Recommended {
        key: "kernel.yama.ptrace_scope",
        want: 1,
        meets: |v| v >= 1,
        by: "KSPP (kernel-hardening-checker: 3)",
        unset: Unset::Kernel(1),
        caveat: "",
    },
    Recommended {
        key: "user.max_user_namespaces",
        want: 0,
        meets: |v| v == 0,
        by: "KSPP",
        unset: Unset::Build,
        caveat: "breaks containers, rootless tools and browser sandboxes",
    },
    Recommended {
        key: "dev.tty.ldisc_autoload",
        want: 0,
        meets: |v| v == 0,
        by: "KSPP",
        unset: Unset::Kernel(1),
        caveat: "",
    },
    Recommended {
        key: "dev.tty.legacy_tiocsti",
        want: 0,
        meets: |v| v == 0,
        by: "KSPP",
        unset: Unset::Build,
        caveat: "breaks screen readers",
    },
    Recommended {
        key: "kernel.unprivileged_bpf_disabled",
        want: 1,
        meets: |v| v >= 1,
        by: "KSPP",
        unset: Unset::Kernel(2),
        caveat: "",
    },
    Recommended {
        key: "net.core.bpf_jit_harden",
        want: 2,
        meets: |v| v == 2,
        by: "KSPP",
        unset: Unset::Kernel(0),
        caveat: "",
    },
    Recommended {
        key: "vm.unprivileged_userfaultfd",
        want: 0,
        meets: |v| v == 0,
        by: "KSPP",
        unset: Unset::Kernel(0),
        caveat: "",
    },
    Recommended {
        key: "fs.protected_symlinks",
        want: 1,
        meets: |v| v >= 1,
        by: "KSPP",
        unset: Unset::Systemd(1),
        caveat: "",
    },
    Recommended {
        key: "fs.protected_hardlinks",
        want: 1,
        meets: |v| v >= 1,
        by: "KSPP",
        unset: Unset::Systemd(1),
        caveat: "",
    },
    Recommended {
        key: "fs.protected_fifos",
        want: 2,
        meets: |v| v >= 2,
        by: "KSPP",
        unset: Unset::Distribution,
        caveat: "",
    },
    Recommended {
        key: "fs.protected_regular",
        want: 2,
        meets: |v| v >= 2,
        by: "KSPP",
        unset: Unset::Distribution,
        caveat: "",
    },
    Recommended {
        key: "fs.suid_dumpable",
        want: 0,
        meets: |v| v == 0,
        by: "KSPP",
        unset: Unset::Kernel(0),
        caveat: "",
    },
    Recommended {
        key: "kernel.randomize_va_space",
        want: 2,
        meets: |v| v == 2,
        by: "kernel-hardening-checker",
        unset: Unset::Kernel(2),
        caveat: "",
    },
    Recommended {
        key: "vm.mmap_min_addr",
        want: 65536,
        meets: |v| v >= 65536,
        by: "kernel-hardening-checker",
        unset: Unset::Build,
        caveat: "",
    },
    Recommended {
        key: "kernel.io_uring_disabled",
        want: 2,
        meets: |v| v == 2,
        by: "kernel-hardening-checker",
        unset: Unset::Kernel(0),
        caveat: "breaks programs that use io_uring",
    },
    Recommended {
        key: "kernel.sysrq",
        want: 0,
        meets: |v| v == 0,
        by: "kernel-hardening-checker",
        unset: Unset::Systemd(16),
        caveat: "",
    },
    Recommended {
        key: "kernel.modules_disabled",
        want: 1,
        meets: |v| v == 1,
        by: "kernel-hardening-checker",
        unset: Unset::Kernel(0),
        caveat: "no module can be loaded after boot",
    },
    Recommended {
        key: "kernel.oops_limit",
        want: 100,
        meets: |v| (1..=100).contains(&v),
        by: "kernel-hardening-checker",
        unset: Unset::Kernel(10000),
        caveat: "",
    },
    Recommended {
        key: "kernel.warn_limit",
        want: 100,
        meets: |v| (1..=100).contains(&v),
        by: "kernel-hardening-checker",
        unset: Unset::Kernel(0),
        caveat: "",
    },
];
