//! SYS001 tcp-tw-recycle: `net.ipv4.tcp_tw_recycle` in a sysctl file.
//!
//! The key was removed in Linux 4.12 (commit 4396e46187ca "tcp: remove tcp_tw_recycle"): on
//! every current kernel the write fails (`sysctl: cannot stat
//! /proc/sys/net/ipv4/tcp_tw_recycle: No such file or directory`, and `sysctl -p` exits 1, even
//! with a leading `-`). On the kernels that still had it, enabling it dropped connections from
//! clients behind NAT, whose TCP timestamps are not monotonic across hosts. Either way the line
//! has to go.

use crate::fix::{Edit, Fix};
use crate::host::KernelVersion;
use crate::rules::{Context, Rule};
use crate::syntax::sysctl::LineKind;

declare_rule! {
    pub struct TcpTwRecycle;
    code: SYS001,
    name: "tcp-tw-recycle",
    lang: sysctl,
    category: Correctness,
    severity: Error,
    fix: Always,
    group: Default,
}

const KEY: &str = "net.ipv4.tcp_tw_recycle";

/// The first kernel without the key.
const REMOVED_IN: KernelVersion = KernelVersion {
    major: 4,
    minor: 12,
};

impl Rule for TcpTwRecycle {
    fn check(&self, cx: &mut Context<'_>) {
        // Known to be a kernel that still has the key (only then does the value matter).
        let old_kernel = cx
            .host
            .kernel
            .as_ref()
            .is_some_and(|k| k.value < REMOVED_IN);
        for f in cx
            .stack
            .sysctl
            .files
            .iter()
            .filter(|f| f.masked_by.is_none())
        {
            let src = &f.source;
            for line in &f.parsed.file.lines {
                let LineKind::Assignment(a) = &line.kind else {
                    continue;
                };
                if a.normalized_key(&src.text) != KEY {
                    continue;
                }
                let value = a.value_text(&src.text).trim().to_string();
                let enabled = value != "0";
                if old_kernel && !enabled {
                    // `0` is the default of a kernel that has the key: harmless there.
                    continue;
                }
                let message = if old_kernel {
                    format!(
                        "`{KEY} = {value}` drops connections from clients behind NAT (their TCP \
                         timestamps are not monotonic); the key was removed in Linux 4.12"
                    )
                } else if enabled {
                    format!(
                        "`{KEY}` was removed in Linux 4.12: the write fails, and on older kernels \
                         `{value}` drops connections from clients behind NAT"
                    )
                } else {
                    format!(
                        "`{KEY}` was removed in Linux 4.12: the write fails (`sysctl: cannot stat \
                         /proc/sys/net/ipv4/tcp_tw_recycle`)"
                    )
                };
                let edit = Edit::delete(src, line.span);
                let title = "Remove the `net.ipv4.tcp_tw_recycle` line";
                // On a kernel that has the key, removing an enabled line changes behaviour
                // (for the better); everywhere else the line does nothing but fail.
                let fix = if old_kernel {
                    Fix::unsafe_(title, vec![edit])
                } else {
                    Fix::safe(title, vec![edit])
                };
                let help = if a.ignore_failure() {
                    "the leading `-` only hides the failure from `sysctl --system`; \
                     for TIME-WAIT pressure see `net.ipv4.tcp_tw_reuse` (default 2: loopback only)"
                } else {
                    "for TIME-WAIT pressure see `net.ipv4.tcp_tw_reuse` (default 2: loopback only)"
                };
                let d = cx.report(src, a.key, message);
                // `= 0` asks for what every kernel does: the line only fails (`sysctl -p`
                // exits 1, systemd-sysctl logs it), a warning rather than a broken setting.
                if !enabled {
                    d.severity = crate::diagnostic::Severity::Warning;
                }
                d.with_fix(fix).help = Some(help.into());
            }
        }
    }
}
