//! SYS010 inline-comment-in-value: `key = 1024 # note`. sysctl files have no inline comments:
//! procps, systemd-sysctl and busybox write the whole rest of the line, note included, to
//! `/proc/sys`. What happens next depends on how the kernel parses that key.
//!
//! # What was measured
//!
//! Linux 6.18.44 (x86_64), procps-ng 4.0.2 (`sysctl -w`, `sysctl -p FILE`), systemd 252
//! (`/lib/systemd/systemd-sysctl FILE`), BusyBox 1.35.0 (`busybox sysctl -p FILE`) and a plain
//! `printf '%s\n' VALUE > /proc/sys/…`, all as root on Debian 12, inside `unshare -n` (net.*
//! keys are per network namespace) and `unshare -u` (kernel.hostname, kernel.domainname are
//! per UTS namespace). Each key was reset to a known value, written, and read back. All five
//! writers gave the same result unless a row says otherwise.
//!
//! | key | value written | read back / error |
//! |---|---|---|
//! | net.core.somaxconn | `1000 # raised for nginx` | `1000` |
//! | net.core.somaxconn | `1000<TAB># tab`, `1000 ; semi`, `1000 #` | `1000` |
//! | net.core.somaxconn | `0x400 # note` | `1024` |
//! | net.core.somaxconn | `1000 2000 # note` (and `1000 2000`) | `1000` |
//! | net.core.somaxconn | `1000#x`, `1000;x` | `Invalid argument`, old value kept |
//! | net.ipv4.tcp_max_syn_backlog | `1000 # note` / `1000#x` | `1000` / `Invalid argument` |
//! | net.ipv4.tcp_fin_timeout | `30 # note` / `30#x` | `30` / `Invalid argument` |
//! | net.ipv4.tcp_syncookies (u8) | `0 # note` / `0#x` | `0` / `Invalid argument` |
//! | net.ipv4.tcp_comp_sack_delay_ns (ulong) | `2000000 # note` / `2000000#x` | `2000000` / `Invalid argument` |
//! | net.ipv4.tcp_notsent_lowat (uint), net.unix.max_dgram_qlen, net.ipv4.conf.lo.rp_filter, net.ipv6.conf.lo.disable_ipv6 | `N # note` | `N` |
//! | net.ipv4.ip_local_port_range (2 numbers) | `1025 65000 # note`, `1025<TAB>65000<TAB># tab`, `1025 65000 1 # note` | `1025 65000` |
//! | net.ipv4.ip_local_port_range | `1025 # note`, `1025 # note 65000`, `1025 65000#x` | `Invalid argument`, old value kept |
//! | net.ipv4.tcp_rmem (3 numbers) | `8192 131072 6291456 # note` / `8192 131072 # note` | applied / `Invalid argument` |
//! | net.ipv4.ping_group_range (2 numbers) | `0 2147483647 # note` | `0 2147483647` |
//! | net.ipv4.ip_local_reserved_ports (port list) | `8080,8443 # note`, `8080 # note`, `8080#x` | `Invalid argument`, old value kept |
//! | net.ipv4.tcp_congestion_control | `reno # note`, `reno<TAB># tab`, `reno#x` | `No such file or directory`, old value kept |
//! | net.mptcp.path_manager, net.mptcp.scheduler | `kernel # note`, `default # note` | `No such file or directory`, old value kept |
//! | net.ipv6.conf.lo.stable_secret | `2001:db8::2 # note` | `2001:db8::2` |
//! | net.ipv4.tcp_fastopen_key | `00000001-00000002-00000003-00000004 # note` | the key, comment ignored |
//! | kernel.hostname | `web1 # note` / `web1#x` | `web1 # note` / `web1#x`: stored verbatim |
//! | kernel.domainname | `web1 ; note` | `web1 ; note`: stored verbatim |
//!
//! Exit status: procps and busybox exit 1 on every failed write; systemd-sysctl exits 1 on
//! `Invalid argument` but logs `Couldn't write '…' to '…', ignoring: No such file or directory`
//! and exits 0 on `ENOENT`. strace of `sysctl -p` on `1000 # raised for nginx`: one
//! `write(3, "1000 # raised for nginx\n", 24) = 5` (a short write: the kernel consumed `1000 `);
//! systemd-sysctl writes the remaining 19 bytes again and the kernel accepts and discards them
//! (`kernel.sysctl_writes_strict = 1`, the default; the legacy modes were not measured because
//! that knob is not namespaced).
//!
//! So the kernel's integer parsers (`proc_dointvec` and friends) read as many numbers as the
//! key holds and ignore what follows a blank; with fewer numbers than the key holds they read
//! the comment as the next number and reject the write, and a `#` glued to a number is never
//! accepted. String keys either store the comment (`proc_dostring`) or look the whole value up
//! as a name and fail. busybox 1.35's `sysctl -p` does not strip end-of-line comments either.
//! Not measured (not namespaced, so not written here): net.core.netdev_max_backlog and
//! net.core.default_qdisc (absent in a new network namespace), kernel.core_pattern; their
//! entries below come from the kernel source (`proc_dointvec`, `qdisc_set_default`,
//! `proc_dostring_coredump` → `proc_dostring`), as do kernel.modprobe, kernel.poweroff_cmd,
//! kernel.hotplug (`proc_dostring`), net.ipv4.tcp_allowed_congestion_control (names looked up
//! one by one) and kernel.watchdog_cpumask (the same list parser as ip_local_reserved_ports).
//!
//! # How a key's type is told
//!
//! From the value and small key lists, in this order: keys that store text verbatim
//! ([`STORED`]); keys that look their value up or parse a list the comment breaks
//! ([`REJECTED`]); keys whose non-numeric value the kernel parses and then ignores the rest
//! ([`PARSED`]). Otherwise a value that is one or more integers (decimal or `0x` hex, as the
//! kernel reads them) is numeric, and [`VECTORS`] says how many numbers a key holds (one for a
//! key it does not name). Anything else cannot be told and gets a softened warning.

use crate::diagnostic::Severity;
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::Span;
use crate::syntax::sysctl::LineKind;

declare_rule! {
    pub struct InlineComment;
    code: SYS010,
    name: "inline-comment-in-value",
    lang: sysctl,
    category: Correctness,
    severity: Warning,
    fix: Always,
    group: Default,
}

/// Keys the kernel stores as text (`proc_dostring`): a comment becomes part of the value.
const STORED: &[&str] = &[
    "kernel.core_pattern",
    "kernel.domainname",
    "kernel.hostname",
    "kernel.hotplug",
    "kernel.modprobe",
    "kernel.poweroff_cmd",
];

/// Keys whose write fails when a comment follows the value, with the error the kernel gives.
const REJECTED: &[(&str, &str)] = &[
    ("kernel.watchdog_cpumask", INVALID),
    ("net.core.default_qdisc", NO_SUCH),
    ("net.ipv4.ip_local_reserved_ports", INVALID),
    ("net.ipv4.tcp_allowed_congestion_control", NO_SUCH),
    ("net.ipv4.tcp_congestion_control", NO_SUCH),
    ("net.mptcp.path_manager", NO_SUCH),
    ("net.mptcp.scheduler", NO_SUCH),
];

/// Keys with a non-numeric value that the kernel parses and then ignores what follows.
const PARSED: &[&str] = &["net.ipv4.tcp_fastopen_key", "net.ipv6.conf.*.stable_secret"];

/// Numeric keys holding more than one number (`None`: how many depends on the machine). Those
/// of Linux 6.18 (`sysctl -a`, writable, more than one integer) and of modules it did not load.
const VECTORS: &[(&str, Option<usize>)] = &[
    ("kernel.acct", Some(3)),
    ("kernel.printk", Some(4)),
    ("kernel.sem", Some(4)),
    ("kernel.usermodehelper.bset", Some(2)),
    ("kernel.usermodehelper.inheritable", Some(2)),
    ("net.ipv4.ip_local_port_range", Some(2)),
    ("net.ipv4.ping_group_range", Some(2)),
    ("net.ipv4.tcp_mem", Some(3)),
    ("net.ipv4.tcp_rmem", Some(3)),
    ("net.ipv4.tcp_wmem", Some(3)),
    ("net.ipv4.udp_mem", Some(3)),
    ("net.sctp.sctp_mem", Some(3)),
    ("net.sctp.sctp_rmem", Some(3)),
    ("net.sctp.sctp_wmem", Some(3)),
    // One number per memory zone.
    ("vm.lowmem_reserve_ratio", None),
];

const INVALID: &str = "Invalid argument";
const NO_SUCH: &str = "No such file or directory";

/// What the kernel does with `value # note` for a key.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// It reads this much of the value and ignores the rest.
    Ignored(String),
    /// It stores the comment as part of the value.
    Stored,
    /// It rejects the write with this error; the old value stays.
    Rejected(&'static str),
    /// A numeric key holding `holds` numbers got `given` before the comment.
    TooFewNumbers { holds: usize, given: usize },
    /// It cannot be told.
    Unknown,
}

/// Where an inline comment starts in a value: a `#` or `;` after a blank.
fn comment_start(value: &[u8]) -> Option<usize> {
    value
        .windows(2)
        .position(|w| (w[0] == b' ' || w[0] == b'\t') && (w[1] == b'#' || w[1] == b';'))
        .map(|p| p + 1)
}

/// Where a comment glued to a number starts (`1000#x`): the first `#` or `;` of the value,
/// right after a number (no blank between), with only integers before it.
fn glued_start(value: &[u8]) -> Option<usize> {
    let p = value.iter().position(|&c| c == b'#' || c == b';')?;
    let before = std::str::from_utf8(&value[..p]).ok()?;
    (p > 0 && value[p - 1].is_ascii_alphanumeric() && integers(before).is_some()).then_some(p)
}

/// The integers of a value as the kernel's `proc_get_long` reads them (an optional `-`, then
/// decimal or `0x` hex), or `None` if some word is not one.
fn integers(text: &str) -> Option<Vec<&str>> {
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    let is_int = |w: &str| {
        let w = w.strip_prefix('-').unwrap_or(w);
        match w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
            Some(h) => !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit()),
            None => !w.is_empty() && w.bytes().all(|c| c.is_ascii_digit()),
        }
    };
    (!words.is_empty() && words.iter().all(|w| is_int(w))).then_some(words)
}

/// Whether a dotted key matches a pattern whose `*` segments stand for any one segment.
fn key_matches(pattern: &str, key: &str) -> bool {
    let (mut p, mut k) = (pattern.split('.'), key.split('.'));
    loop {
        match (p.next(), k.next()) {
            (None, None) => return true,
            (Some(a), Some(b)) if a == "*" || a == b => {}
            _ => return false,
        }
    }
}

fn lookup<'t, T>(table: &'t [(&str, T)], key: &str) -> Option<&'t T> {
    table
        .iter()
        .find(|(p, _)| key_matches(p, key))
        .map(|(_, v)| v)
}

/// What the kernel does with `kept` followed by a comment, for `key` (dotted).
fn judge(key: &str, kept: &str, glued: bool) -> Verdict {
    if STORED.iter().any(|p| key_matches(p, key)) {
        return Verdict::Stored;
    }
    if let Some(err) = lookup(REJECTED, key) {
        return Verdict::Rejected(err);
    }
    if glued {
        return Verdict::Rejected(INVALID);
    }
    if PARSED.iter().any(|p| key_matches(p, key)) {
        return Verdict::Ignored(kept.to_string());
    }
    let Some(numbers) = integers(kept) else {
        return Verdict::Unknown;
    };
    match lookup(VECTORS, key).copied().unwrap_or(Some(1)) {
        None => Verdict::Unknown,
        Some(holds) if numbers.len() < holds => Verdict::TooFewNumbers {
            holds,
            given: numbers.len(),
        },
        Some(holds) => Verdict::Ignored(numbers[..holds].join(" ")),
    }
}

impl Rule for InlineComment {
    fn check(&self, cx: &mut Context<'_>) {
        for f in &cx.stack.sysctl.files {
            let src = &f.source;
            for line in &f.parsed.file.lines {
                let LineKind::Assignment(a) = &line.kind else {
                    continue;
                };
                let value = &src.text[a.value.range()];
                let glued = glued_start(value);
                let Some(p) = glued.or_else(|| comment_start(value)) else {
                    continue;
                };
                // A key no kernel has (SYS003) is never written: nothing reads the number
                // or the comment.
                if !crate::analysis::sysctl_known::is_known(&a.normalized_key(&src.text), &[]) {
                    continue;
                }
                let kept = String::from_utf8_lossy(&value[..p]).trim_end().to_string();
                let key = a.key_text(&src.text);
                let verdict = judge(&a.normalized_key(&src.text), &kept, glued.is_some());
                // A comment glued to something the kernel stores is text like any other.
                if glued.is_some() && verdict == Verdict::Stored {
                    continue;
                }
                let comment = String::from_utf8_lossy(&value[p..]).trim_end().to_string();
                let start = a.value.start as usize;
                let comment_span = Span::new((start + p) as u32, a.value.end);
                // Move the note to its own line above, in the file's comment style.
                let nl = crate::fix::edits::line_ending(&src.text);
                let note = format!("#{}{nl}", comment.trim_start_matches(['#', ';']));
                let edits = vec![
                    Edit::insert(src, line.span.start, note),
                    Edit::replace(src, Span::new(a.value.start, a.value.end), kept.clone()),
                ];
                // Safe only where the kernel ends up with the same value either way; otherwise
                // the stored text changes, or a setting that failed starts to apply.
                let title = "Move the comment to its own line";
                let fix = match verdict {
                    Verdict::Ignored(_) => Fix::safe(title, edits),
                    _ => Fix::unsafe_(title, edits),
                };
                let written = String::from_utf8_lossy(value);
                let (message, info) = match &verdict {
                    Verdict::Ignored(read) => (
                        format!(
                            "sysctl writes the comment to the kernel as part of the value; the \
                             kernel reads `{read}` for `{key}` and ignores the rest"
                        ),
                        true,
                    ),
                    Verdict::Stored => (
                        format!(
                            "the comment is part of the value: the kernel stores {written:?} \
                             in `{key}`"
                        ),
                        false,
                    ),
                    Verdict::Rejected(err) if glued.is_some() => (
                        format!(
                            "a comment glued to the number is part of the value: the kernel \
                             rejects {written:?} for `{key}` ({err}) and keeps the old value"
                        ),
                        false,
                    ),
                    Verdict::Rejected(err) => (
                        format!(
                            "the comment is part of the value: the kernel rejects {written:?} \
                             for `{key}` ({err}) and keeps the old value"
                        ),
                        false,
                    ),
                    Verdict::TooFewNumbers { holds, given } => (
                        format!(
                            "the comment is part of the value: `{key}` takes {holds} numbers \
                             but only {given} {} the comment, so the kernel reads the \
                             comment as the next number, rejects {written:?} ({INVALID}) and \
                             keeps the old value",
                            if *given == 1 { "precedes" } else { "precede" }
                        ),
                        false,
                    ),
                    Verdict::Unknown => (
                        format!(
                            "the comment may be part of the value: `{key}` is written as \
                             {written:?}, which the kernel may store, reject or cut at the blank, \
                             depending on how it reads this key"
                        ),
                        false,
                    ),
                };
                const WHOLE_LINE: &str =
                    "sysctl files only have whole-line comments (`#` or `;` first on the line)";
                let help = match &verdict {
                    Verdict::Ignored(read) => format!(
                        "{WHOLE_LINE}; this one is harmless only because the kernel stops \
                         reading `{key}` after `{read}`, and tools that read the file instead of \
                         the kernel see {written:?}"
                    ),
                    Verdict::TooFewNumbers { holds, .. } => format!(
                        "{WHOLE_LINE}; give all {holds} numbers too: with fewer, the kernel \
                         changes only the first ones"
                    ),
                    _ => WHOLE_LINE.to_string(),
                };
                let d = cx.report(src, comment_span, message).with_fix(fix);
                d.help = Some(help);
                if info {
                    d.severity = Severity::Info;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{judge, Verdict, INVALID, NO_SUCH};

    #[test]
    fn comment_needs_a_blank_before_it() {
        assert_eq!(super::comment_start(b"1024 # note"), Some(5));
        assert_eq!(super::comment_start(b"|/bin/x %p#1"), None);
        assert_eq!(super::comment_start(b"1 ;x"), Some(2));
    }

    #[test]
    fn a_glued_comment_counts_only_after_numbers() {
        assert_eq!(super::glued_start(b"1000#x"), Some(4));
        assert_eq!(super::glued_start(b"1025 65000;x"), Some(10));
        assert_eq!(super::glued_start(b"1000 # x"), None);
        assert_eq!(super::glued_start(b"#x"), None);
        assert_eq!(super::glued_start(b"|/bin/x %p#1"), None);
        assert_eq!(super::glued_start(b"core#%e"), None);
    }

    #[test]
    fn verdicts_follow_the_measurements() {
        let ignored = |s: &str| Verdict::Ignored(s.to_string());
        assert_eq!(judge("net.core.somaxconn", "1000", false), ignored("1000"));
        assert_eq!(
            judge("net.core.somaxconn", "0x400", false),
            ignored("0x400")
        );
        assert_eq!(
            judge("net.core.somaxconn", "1000 2000", false),
            ignored("1000")
        );
        assert_eq!(
            judge("net.core.somaxconn", "1000", true),
            Verdict::Rejected(INVALID)
        );
        assert_eq!(
            judge("net.ipv4.ip_local_port_range", "1025 65000", false),
            ignored("1025 65000")
        );
        assert_eq!(
            judge("net.ipv4.ip_local_port_range", "1025", false),
            Verdict::TooFewNumbers { holds: 2, given: 1 }
        );
        assert_eq!(
            judge("net.ipv4.ip_local_reserved_ports", "8080", false),
            Verdict::Rejected(INVALID)
        );
        assert_eq!(
            judge("net.ipv4.tcp_congestion_control", "cubic", false),
            Verdict::Rejected(NO_SUCH)
        );
        assert_eq!(judge("kernel.hostname", "1234", false), Verdict::Stored);
        assert_eq!(
            judge("net.ipv6.conf.eth0.stable_secret", "2001:db8::1", false),
            ignored("2001:db8::1")
        );
        assert_eq!(
            judge("vm.lowmem_reserve_ratio", "256 256 32", false),
            Verdict::Unknown
        );
        assert_eq!(judge("kernel.random.uuid", "abc", false), Verdict::Unknown);
    }
}
