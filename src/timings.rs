//! `LEMPLINT_TIMINGS=1` prints, on stderr, where a run spends its time and memory: each
//! stage and each rule, with the process's resident set size then and at its peak.

use std::sync::OnceLock;
use std::time::Instant;

pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        origin();
        std::env::var_os("LEMPLINT_TIMINGS").is_some_and(|v| v != "0")
    })
}

/// When timing started (the first question whether it is on): each line says when, after
/// it, its stage began and on which thread, so a gap in the rules' parallel run shows.
fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

/// Prints `what` with the time since `started`, when timings are on.
pub fn report(what: std::fmt::Arguments<'_>, started: Instant) {
    if !enabled() {
        return;
    }
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let at = started.saturating_duration_since(origin()).as_secs_f64() * 1e3;
    let thread = rayon::current_thread_index().map_or("main".to_string(), |i| i.to_string());
    let when = format!("from +{at:.1} ms on thread {thread}");
    match memory() {
        Some((rss, peak)) => {
            eprintln!("lemplint timing: {what} {ms:.1} ms {when} (rss {rss} MiB, peak {peak} MiB)")
        }
        None => eprintln!("lemplint timing: {what} {ms:.1} ms {when}"),
    }
}

/// Resident and peak resident memory in MiB, where the system says (Linux).
fn memory() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kb / 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}
