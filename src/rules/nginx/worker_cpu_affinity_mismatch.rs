//! NGX006 worker-cpu-affinity-mismatch: `worker_cpu_affinity` masks that do not match the
//! workers or the host.
//!
//! Three mistakes, each reported at the mask(s) concerned:
//! - the number of masks differs from the number of workers (one mask for all is fine):
//!   nginx warns and binds the remaining workers to the last mask (or ignores the extra
//!   masks);
//! - a mask names a CPU the host does not have (only with host facts): if no CPU of a mask
//!   exists, `sched_setaffinity()` fails and the worker is not bound at all;
//! - an uneven spread: one of the CPUs the masks use carries more than one worker more than
//!   another, so those workers share a CPU while another is underused.
//!
//! The rule does not need host facts: the count and spread checks only read the file; the
//! CPU check and `worker_processes auto` use the CPU count when it is known.
//! `worker_cpu_affinity auto` (nginx 1.9.10) binds worker n to the n-th CPU and is the fix,
//! offered when there is one worker per CPU.

use crate::analysis::nginx_main::{main_configs, MainConfig};
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::{Shared, Span};

declare_rule! {
    pub struct WorkerCpuAffinityMismatch;
    code: NGX006,
    name: "worker-cpu-affinity-mismatch",
    lang: nginx,
    category: Correctness,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

/// The number of workers, and how it was decided (for messages).
struct Workers {
    count: Option<u32>,
    text: String,
    /// `auto`, or a number equal to the host's CPU count: `worker_cpu_affinity auto` gives
    /// each worker its own CPU.
    one_per_cpu: bool,
}

impl Rule for WorkerCpuAffinityMismatch {
    fn check(&self, cx: &mut Context<'_>) {
        let cpus = cx.host.cpus.as_ref().map(|f| f.value);
        for main in main_configs(cx.stack) {
            check_instance(cx, main, cpus);
        }
    }
}

fn check_instance(cx: &mut Context<'_>, main: MainConfig<'_>, cpus: Option<u32>) {
    let Some(d) = main.directive("worker_cpu_affinity") else {
        return;
    };
    let Some(workers) = workers(main, cpus) else {
        return;
    };
    let file = d.file();
    let (Some(first), Some(last)) = (d.arg(0), d.args().last()) else {
        return;
    };
    let is_auto = first.value() == "auto";
    let mut mask_words = Vec::new();
    let mut masks = Vec::new();
    for w in d.args().skip(usize::from(is_auto)) {
        match parse_mask(&w.value()) {
            Some(m) => {
                mask_words.push(w);
                masks.push(m);
            }
            None => return, // nginx rejects the directive; NGX000's territory
        }
    }
    let has_comments = d.has_comments();
    let fix = || -> Option<Fix> {
        if is_auto || !workers.one_per_cpu || has_comments {
            return None;
        }
        Some(Fix::unsafe_(
            "Use `worker_cpu_affinity auto` (worker n on CPU n)",
            vec![Edit::replace(
                file,
                Span::new(first.raw().start, last.raw().end),
                "auto",
            )],
        ))
    };
    let mut reported = false;
    // Masks naming CPUs the host lacks.
    if let Some(cpus) = cpus {
        for (w, mask) in mask_words.iter().zip(&masks) {
            let missing: Vec<u32> = mask.iter().copied().filter(|&c| c >= cpus).collect();
            if missing.is_empty() {
                continue;
            }
            let message = format!(
                "mask `{}` names {} but this host has {cpus} CPU{} (CPU0–CPU{})",
                w.value(),
                cpu_list(&missing),
                if cpus == 1 { "" } else { "s" },
                cpus - 1
            );
            report(
                cx,
                file,
                w.raw(),
                message,
                fix(),
                missing.len() == mask.len(),
            );
            reported = true;
        }
    }
    if is_auto {
        return;
    }
    let Some(count) = workers.count else { return };
    let span = Span::new(first.raw().start, last.raw().end);
    if masks.len() != 1 && masks.len() != count as usize {
        let what = if masks.len() < count as usize {
            "nginx binds the remaining workers to the last mask"
        } else {
            "nginx ignores the extra masks"
        };
        let message = format!(
            "{} `worker_cpu_affinity` masks for {}: {what}",
            masks.len(),
            workers.text
        );
        let d = cx.report(file, span, message);
        d.fix = fix();
        d.help = Some(
            "nginx warns \"the number of \"worker_processes\" is not equal to the number of \
             \"worker_cpu_affinity\" masks\"; write one mask per worker, one mask for all, or \
             `worker_cpu_affinity auto`"
                .into(),
        );
        return;
    }
    if reported || masks.len() == 1 {
        return;
    }
    if let Some((busy, busy_load, idle, idle_load)) = uneven(&masks) {
        let message = format!(
            "uneven `worker_cpu_affinity`: CPU{busy} carries {} while CPU{idle} carries {}",
            workers_text(busy_load),
            workers_text(idle_load)
        );
        let d = cx.report(file, span, message);
        d.fix = fix();
        d.help = Some(
            "workers sharing a CPU compete for it; give each worker its own CPU, or use \
             `worker_cpu_affinity auto`"
                .into(),
        );
    }
}

/// Reports a mask naming missing CPUs.
fn report(
    cx: &mut Context<'_>,
    file: &Shared,
    span: Span,
    message: String,
    fix: Option<Fix>,
    none_exist: bool,
) {
    let d = cx.report(file, span, message);
    d.fix = fix;
    d.help = Some(if none_exist {
        "no CPU of this mask exists: sched_setaffinity() fails and the worker is not bound".into()
    } else {
        "the CPUs that do not exist are ignored; the worker runs on the others".into()
    });
}

/// How many workers nginx starts: `worker_processes N`, `auto` (the host's CPU count), or
/// the default 1. `None` when it cannot be known.
fn workers(main: MainConfig<'_>, cpus: Option<u32>) -> Option<Workers> {
    let Some(d) = main.directive("worker_processes") else {
        return Some(Workers {
            count: Some(1),
            text: "the default of 1 worker".into(),
            one_per_cpu: cpus == Some(1),
        });
    };
    let value = d.arg(0)?.value();
    if value == "auto" {
        return Some(Workers {
            count: cpus,
            text: match cpus {
                Some(c) => format!("`worker_processes auto` ({c} workers on this host)"),
                None => "`worker_processes auto`".into(),
            },
            one_per_cpu: true,
        });
    }
    let n: u32 = value.parse().ok()?;
    Some(Workers {
        count: Some(n),
        text: format!("`worker_processes {n}`"),
        one_per_cpu: cpus == Some(n),
    })
}

/// The CPUs a mask names, as nginx reads it: `0`/`1` from the right (CPU0 is the last
/// character), spaces skipped. `None` for anything nginx rejects.
fn parse_mask(text: &str) -> Option<Vec<u32>> {
    let mut cpus = Vec::new();
    let mut i = 0u32;
    for c in text.bytes().rev() {
        match c {
            b' ' => continue,
            b'0' => {}
            b'1' => cpus.push(i),
            _ => return None,
        }
        i += 1;
    }
    (i > 0 && i <= 1024).then_some(cpus)
}

/// The busiest and the idlest CPU among those the masks name, when their loads differ by more
/// than one worker. A worker bound to k CPUs counts 1/k on each.
fn uneven(masks: &[Vec<u32>]) -> Option<(u32, f64, u32, f64)> {
    let mut load: std::collections::BTreeMap<u32, f64> = std::collections::BTreeMap::new();
    for mask in masks.iter().filter(|m| !m.is_empty()) {
        let share = 1.0 / mask.len() as f64;
        for &cpu in mask {
            *load.entry(cpu).or_default() += share;
        }
    }
    let (&busy, &max) = load
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)))?;
    let (&idle, &min) = load
        .iter()
        .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(b.0)))?;
    (max - min > 1.0 + 1e-9).then_some((busy, max, idle, min))
}

fn workers_text(load: f64) -> String {
    if (load - load.round()).abs() < 1e-9 {
        let n = load.round() as u64;
        format!("{n} worker{}", if n == 1 { "" } else { "s" })
    } else {
        format!("{load:.1} workers")
    }
}

fn cpu_list(cpus: &[u32]) -> String {
    let names: Vec<String> = cpus.iter().map(|c| format!("CPU{c}")).collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_read_from_the_right() {
        assert_eq!(parse_mask("0001"), Some(vec![0]));
        assert_eq!(parse_mask("1010"), Some(vec![1, 3]));
        assert_eq!(parse_mask("00 10"), Some(vec![1]));
        assert_eq!(parse_mask("0x10"), None);
    }

    #[test]
    fn spread() {
        let m =
            |v: &[&str]| -> Vec<Vec<u32>> { v.iter().map(|s| parse_mask(s).unwrap()).collect() };
        assert!(uneven(&m(&["0001", "0010", "0100", "1000"])).is_none());
        assert!(uneven(&m(&["0001", "0010"])).is_none());
        assert!(uneven(&m(&["0011", "0011", "0100"])).is_none());
        let (busy, _, idle, _) = uneven(&m(&["0001", "0001", "0001", "0010"])).unwrap();
        assert_eq!((busy, idle), (0, 1));
    }
}
