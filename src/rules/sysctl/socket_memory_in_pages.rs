//! SYS007 socket-memory-in-pages: `net.ipv4.tcp_mem` or `net.ipv4.udp_mem` written as if its
//! numbers were bytes. They are pages (ip-sysctl.rst: "vector of 3 INTEGERs: min, pressure,
//! max ... in pages"), 4 KiB each on x86-64, unlike `tcp_rmem`/`tcp_wmem`, which are bytes.
//!
//! A tuning guide's `tcp_mem = 4096 87380 16777216` copies the byte triple of `tcp_rmem`: as
//! pages its maximum is 64 GiB. The kernel starts pressure handling and refuses socket memory
//! only past those thresholds, so thresholds above the host's memory mean it never does: the
//! OOM killer acts first. Reported when `[host] memory` is known and the pressure threshold
//! (the second number) as pages is at least twice it, or, without it, when the triple is the
//! tree's own `tcp_rmem` or `tcp_wmem` triple (bytes copied into a page setting). The page
//! size is taken as 4 KiB (x86-64, and the default on arm64); the message shows the
//! arithmetic.

use crate::rules::{Context, Rule};
use crate::size::human;

declare_rule! {
    pub struct SocketMemoryInPages;
    code: SYS007,
    name: "socket-memory-in-pages",
    lang: sysctl,
    category: Reliability,
    severity: Warning,
    fix: None,
    group: Preview,
}

const PAGE: u64 = 4096;

/// Three numbers, as the kernel parses the vector.
fn triple(value: &str) -> Option<[u64; 3]> {
    let v: Vec<u64> = value
        .split_whitespace()
        .map(|w| w.parse().ok())
        .collect::<Option<_>>()?;
    <[u64; 3]>::try_from(v).ok()
}

impl Rule for SocketMemoryInPages {
    fn check(&self, cx: &mut Context<'_>) {
        let set = &cx.stack.sysctl;
        let memory = cx.host.memory.as_ref().map(|f| f.value);
        let byte_triples: Vec<(&str, [u64; 3])> = ["net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"]
            .into_iter()
            .filter_map(|k| Some((k, triple(&set.effective(k)?.1)?)))
            .collect();
        for key in ["net.ipv4.tcp_mem", "net.ipv4.udp_mem"] {
            let Some(&last) = set.applied(key).last() else {
                continue;
            };
            let Some(t) = set.value_of(last).as_deref().and_then(triple) else {
                continue;
            };
            let as_bytes = |pages: u64| human(pages.saturating_mul(PAGE));
            let shown = format!(
                "`{key} = {} {} {}` counts pages of 4 KiB, not bytes: the pressure threshold, {} \
                 pages, is {}, and the maximum, {} pages, is {}",
                t[0],
                t[1],
                t[2],
                t[1],
                as_bytes(t[1]),
                t[2],
                as_bytes(t[2])
            );
            let pressure = t[1].saturating_mul(PAGE);
            // Twice the memory at least: a threshold a little above it may be a deliberate
            // "never throttle" on a host with other limits; twice is no longer a size.
            let why = if let Some(mem) = memory.filter(|&m| pressure >= m.saturating_mul(2)) {
                format!(
                    "{shown}: the threshold alone is {:.1}× the host's {} ([host] memory), so \
                     the kernel never reaches memory pressure for sockets and the OOM killer \
                     acts first",
                    pressure as f64 / mem as f64,
                    human(mem)
                )
            } else if let Some((copied, _)) = byte_triples.iter().find(|(_, b)| *b == t) {
                format!(
                    "{shown}; the numbers are those of `{copied}`, which counts bytes: they were \
                     copied as bytes"
                )
            } else {
                continue;
            };
            let Some(a) = set.assignment(last) else {
                continue;
            };
            let src = set.files[last.file].source.clone();
            cx.report(&src, a.key.cover(a.value), why).help = Some(
                "remove the line: the kernel sizes it from the host's memory at boot (about \
                 4.7%, 6.25% and 9.4% of it); or write page counts (bytes / 4096)"
                    .into(),
            );
        }
    }
}
