//! SYS003 unknown-key: a key under `net.core`, `net.ipv4`, `net.ipv6`, `fs`, `vm` or `kernel`
//! that no Linux kernel we know has, usually a typo (`vm.swapiness`, `net.core.somaxcon`).
//!
//! `sysctl --system` skips unknown keys silently and systemd-sysctl logs them at debug level,
//! so a misspelt key is a setting that never applies and nobody notices. `sysctl -p` prints
//! `sysctl: cannot stat /proc/sys/…: No such file or directory`.
//!
//! A key counts as known when it is a file of Linux 6.18's `/proc/sys` (interface names are
//! wildcards), when its last segment is a leaf the kernel documentation of 6.1 or 6.12 describes
//! for that subtree and no key of the table has that leaf under another path (the whole key
//! counts: `net.ipv6.tcp_rmem` and `net.ipv6.conf.all.rp_filter` name leaves that exist only
//! under `net.ipv4`), when it is in [`HISTORICAL`] (keys of older and vendor kernels), or when it
//! lies under a subtree that only exists with a module, a build option or a vendor patch
//! ([`OPTIONAL_SUBTREES`]). Globs and `-key` lines (the admin expects the key may be missing)
//! are never reported. Users add keys with the `known-keys` option. A key of [`HISTORY`] that
//! the `[host] kernel` release no longer has is reported as removed, with the release
//! ([`Origin`]); a suggestion of a vendor key says which kernels have it. Keys outside those
//! subtrees are judged only when the subtree itself is a slip of one of them
//! ([`slipped_subtree`]).

use crate::analysis::sysctl_keys::PROC_KEYS;
use crate::analysis::sysctl_known::*;
use crate::fix::{Edit, Fix};
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
    // `/proc/sys/` written into the key: the rest, when that is a key.
    let rest = key
        .strip_prefix("proc.sys.")
        .or_else(|| key.strip_prefix("sys."));
    if let Some(rest) = rest.filter(|r| PROC_KEYS.contains(r) || HISTORICAL.contains(r)) {
        return Some(rest.to_string());
    }
    let mut best: Option<(usize, String)> = None;
    let mut tie = false;
    for k in PROC_KEYS.iter().chain(HISTORICAL.iter()) {
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
                    report_removed(cx, src, a, &key, extra);
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
                        let origin = origin(&s).map(|o| format!(" ({})", o.describe()));
                        let s = in_style_of(&written, &s);
                        d.help = Some(format!("did you mean `{s}`?{}", origin.unwrap_or_default()));
                        d.with_fix(Fix::unsafe_(
                            format!("Rename the key to `{s}`"),
                            vec![Edit::replace(src, a.key, s)],
                        ));
                    }
                    None if key.starts_with("sys.") || key.starts_with("proc.sys.") => {
                        d.help = Some(
                            "a key is the path below /proc/sys/, without `sys.` or `proc.sys.` \
                             before it (`kernel.randomize_va_space`)"
                                .into(),
                        );
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

/// A key of an older kernel on a host whose `[host] kernel` no longer has it: skipped as
/// silently as a typo. `net.ipv4.tcp_tw_recycle` is SYS001's. Without `[host] kernel`,
/// information that says which kernels have it (whether this host is one of them is not in
/// the tree); a key of current vendor kernels (Debian's, RHEL 7's) is left alone.
fn report_removed(
    cx: &mut Context<'_>,
    src: &crate::source::Shared,
    a: &crate::syntax::sysctl::Assignment,
    key: &str,
    extra: &[String],
) {
    let Some(o) = origin(key) else { return };
    if key == "net.ipv4.tcp_tw_recycle"
        || extra.iter().any(|e| e == key)
        || matches!(o, Origin::Only(_))
    {
        return;
    }
    let written = a.key_text(&src.text);
    let kernel = cx.host.kernel.as_ref().map(|f| f.value);
    let Some(kernel) = kernel else {
        let elsewhere = match o {
            Origin::Retired(_) => "on any other",
            _ => "on a later one",
        };
        let d = cx.report(
            src,
            a.key,
            format!(
                "`{written}` is a setting {}: {elsewhere}, `sysctl --system` skips the line \
                 silently",
                match o {
                    Origin::Retired(k) => format!("of {k} only"),
                    _ => format!("that was {}", o.describe()),
                }
            ),
        );
        d.severity = crate::diagnostic::Severity::Info;
        d.help = Some(
            "remove the line where the kernel does not have it; `[host] kernel` in lemplint.toml \
             tells lemplint which one runs"
                .into(),
        );
        return;
    };
    if !o.absent_from(kernel.major, kernel.minor) {
        return;
    }
    cx.report(
        src,
        a.key,
        format!(
            "`{written}` was {}: the host's Linux {}.{} ([host] kernel) has no such setting, so \
             `sysctl --system` skips the line silently",
            o.describe(),
            kernel.major,
            kernel.minor
        ),
    )
    .help = Some("remove the line: it sets nothing on this kernel".into());
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
        // The whole key counts, not its last segment.
        assert!(!is_known("net.ipv6.tcp_rmem", &[]));
        assert!(!is_known("net.ipv6.tcp_congestion_control", &[]));
        assert!(!is_known("net.ipv6.conf.all.rp_filter", &[]));
        assert!(!is_known("net.ipv6.conf.eth0.accept_source_routes", &[]));
        assert!(is_known("net.ipv4.tcp_rmem", &[]));
        assert!(is_known("net.ipv6.conf.all.accept_source_route", &[]));
        assert!(is_known("vm.swapiness", &["vm.swapiness".into()]));
        assert!(is_known("kernel.foo.bar", &["kernel.foo.".into()]));
        // Slips outside the checked subtrees.
        assert!(!is_known("kernal.pid_max", &[]));
        assert!(!is_known("net.cor.somaxconn", &[]));
        assert!(!is_known("net.ipv4_timestamps", &[]));
        assert!(!is_known("net.ipv6_conf.all.disable_ipv6", &[]));
        // A BSD's sysctl.conf (FreeBSD's `kern.ipc.somaxconn`): another kernel's tree.
        assert!(is_known("kern.ipc.somaxconn", &[]));
        assert!(is_known("vfs.usermount", &[]));
        assert!(is_known("net.inet.tcp.msl", &[]));
        // `/proc/sys/` written into the key.
        assert!(!is_known("sys.kernel.randomize_va_space", &[]));
        assert!(!is_known("proc.sys.vm.swappiness", &[]));
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
        assert_eq!(
            suggestion("sys.kernel.randomize_va_space").as_deref(),
            Some("kernel.randomize_va_space")
        );
        assert_eq!(
            suggestion("proc.sys.vm.swappiness").as_deref(),
            Some("vm.swappiness")
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
