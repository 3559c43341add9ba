//! FPM004 pm-max-children-exceeds-memory: the pools of one php-fpm may start more workers
//! than the host's memory holds. Under load every pool grows to `pm.max_children` (a static
//! pool starts there), and `Σ max_children × per-worker memory` then exceeds what the host can
//! give PHP: the kernel swaps, and then the OOM killer ends workers (or the database) mid-
//! request.
//!
//! Memory available to PHP = host memory − a reserve for the OS, nginx, databases and caches
//! (`[rules.FPM004] reserve`, else `[host] reserve`: a percentage or a size, default 25%). Per-worker memory is
//! `[rules.FPM004] worker-rss` (default 64MiB: the middle of the 30–100 MB that sizing guides
//! measure for real applications; measure yours with `ps -o rss -C php-fpm8.2`).
//!
//! One finding per php-fpm instance (a master and its pools, or the pool files of one
//! directory), at the pool with the most children; the other pools are labelled. Pools whose
//! `pm.max_children` is unknown (`${VAR}`) are left out of the sum, so the sum is never
//! overstated.

use super::pm_invalid::{instances, Val};
use crate::rules::{Context, Rule};
use crate::size::parse_size;

pub struct PmMaxChildrenExceedsMemory;

const DEFAULT_WORKER_RSS: u64 = 64 << 20;
const DEFAULT_RESERVE: Reserve = Reserve::Percent(25.0);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Reserve {
    Percent(f64),
    Bytes(u64),
}

impl Reserve {
    fn parse(text: &str) -> Result<Reserve, String> {
        let t = text.trim();
        match t.strip_suffix('%') {
            Some(p) => match p.trim().parse::<f64>() {
                Ok(p) if (0.0..100.0).contains(&p) => Ok(Reserve::Percent(p)),
                _ => Err(format!(
                    "invalid reserve {text:?}: a percentage must be at least 0% and below 100%"
                )),
            },
            None => parse_size(t).map(Reserve::Bytes),
        }
    }

    fn available(self, memory: u64) -> u64 {
        match self {
            Reserve::Percent(p) => (memory as f64 * (100.0 - p) / 100.0) as u64,
            Reserve::Bytes(b) => memory.saturating_sub(b),
        }
    }

    /// `613 MiB − 25%`, `2 GiB − 512 MiB reserved`.
    fn describe(self, memory: u64) -> String {
        match self {
            Reserve::Percent(p) => format!("{} − {p}%", human(memory)),
            Reserve::Bytes(b) => format!("{} − {} reserved", human(memory), human(b)),
        }
    }
}

/// Reads the rule's options; `Err` names the bad one.
fn options(cx: &Context<'_>) -> Result<(u64, Reserve), String> {
    let rss = match cx.options.get("worker-rss") {
        None => DEFAULT_WORKER_RSS,
        Some(toml::Value::Integer(n)) if *n > 0 => *n as u64,
        Some(toml::Value::String(s)) => match parse_size(s) {
            Ok(0) => return Err("[rules.FPM004] worker-rss must be more than 0".into()),
            Ok(n) => n,
            Err(e) => return Err(format!("[rules.FPM004] worker-rss: {e}")),
        },
        Some(v) => return Err(format!("[rules.FPM004] worker-rss: invalid size {v}")),
    };
    let reserve = match cx.options.get("reserve") {
        // The host's own reserve (`[host] reserve`, a profile, `tune --reserve`'s figure).
        None => match &cx.host.reserve {
            Some(r) => Reserve::parse(&r.value).map_err(|e| format!("[host] reserve: {e}"))?,
            None => DEFAULT_RESERVE,
        },
        Some(toml::Value::String(s)) => {
            Reserve::parse(s).map_err(|e| format!("[rules.FPM004] reserve: {e}"))?
        }
        Some(toml::Value::Integer(n)) if *n >= 0 => Reserve::Bytes(*n as u64),
        Some(v) => return Err(format!("[rules.FPM004] reserve: invalid value {v}")),
    };
    Ok((rss, reserve))
}

impl Rule for PmMaxChildrenExceedsMemory {
    fn check(&self, cx: &mut Context<'_>) {
        let Some(memory) = cx.host.memory.as_ref().map(|f| f.value) else {
            return;
        };
        let options = options(cx);
        let lone_run = cx.stack.lone_pools_run();
        // Pool files no master loads take no memory.
        for inst in instances(cx.stack)
            .into_iter()
            .filter(|i| i.master || lone_run)
        {
            let pools: Vec<(String, i64, Val<'_>)> = inst
                .pools
                .iter()
                .filter_map(|p| {
                    let v = p.get("pm.max_children")?;
                    let n = v.int().filter(|n| *n > 0)?;
                    Some((p.name.clone(), i64::from(n), v))
                })
                .collect();
            let Some(largest) = pools
                .iter()
                .max_by_key(|(_, n, _)| *n)
                .map(|(name, ..)| name.clone())
            else {
                continue;
            };
            let (rss, reserve) = match &options {
                Ok(o) => *o,
                Err(e) => {
                    let (_, _, v) = &pools[0];
                    cx.report(
                        v.at.file(),
                        v.span(),
                        format!("{e}; the memory check is skipped"),
                    );
                    return;
                }
            };
            let total: u64 = pools.iter().map(|(_, n, _)| *n as u64).sum();
            let need = total.saturating_mul(rss);
            let available = reserve.available(memory);
            if need <= available {
                continue;
            }
            let sum = if pools.len() == 1 {
                format!("pm.max_children {total}")
            } else {
                let terms: Vec<String> = pools.iter().map(|(_, n, _)| n.to_string()).collect();
                format!("{} pools: {} children", pools.len(), terms.join(" + "))
            };
            let msg = format!(
                "{sum} × {} = {} > {} available ({})",
                human(rss),
                human(need),
                human(available),
                reserve.describe(memory)
            );
            let Some((_, _, at)) = pools.iter().find(|(name, ..)| *name == largest) else {
                continue;
            };
            let d = cx.report(at.at.file(), at.span(), msg);
            for (name, n, v) in &pools {
                if *name != largest {
                    d.label(
                        v.at.file().clone(),
                        v.span(),
                        format!("+ {n} children in pool {name}"),
                    );
                }
            }
            let budget = available / rss;
            d.help = Some(format!(
                "this host can give PHP about {budget} workers of {} in total: lower pm.max_children, or measure a worker's memory (ps -o rss -C php-fpm8.2) and set [rules.FPM004] worker-rss",
                human(rss)
            ));
        }
    }
}

/// Sizes for the message: `10.6 GiB`, `460 MiB`, `64 KiB`, `512 B` (MiB rounded to whole
/// numbers, GiB to one decimal).
pub(crate) fn human(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    let b = bytes as f64;
    if b >= GIB {
        let text = format!("{:.1}", b / GIB);
        format!("{} GiB", text.strip_suffix(".0").unwrap_or(&text))
    } else if b >= MIB {
        format!("{} MiB", (b / MIB).round())
    } else if bytes >= 1024 {
        format!("{} KiB", (b / 1024.0).round())
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserves() {
        assert_eq!(Reserve::parse("25%"), Ok(Reserve::Percent(25.0)));
        assert_eq!(Reserve::parse(" 12.5 % "), Ok(Reserve::Percent(12.5)));
        assert_eq!(Reserve::parse("512MiB"), Ok(Reserve::Bytes(512 << 20)));
        assert!(Reserve::parse("100%").is_err());
        assert!(Reserve::parse("-1%").is_err());
        assert!(Reserve::parse("lots").is_err());
        assert_eq!(Reserve::Percent(25.0).available(1 << 30), 768 << 20);
        assert_eq!(Reserve::Bytes(2 << 30).available(1 << 30), 0);
        assert_eq!(Reserve::Percent(25.0).describe(613 << 20), "613 MiB − 25%");
        assert_eq!(Reserve::Percent(25.0).available(613 << 20) >> 20, 459);
        assert_eq!(
            human(Reserve::Percent(25.0).available(613 << 20)),
            "460 MiB"
        );
        assert_eq!(human(170 * (64 << 20)), "10.6 GiB");
        assert_eq!(human(2 << 30), "2 GiB");
        assert_eq!(human(64 << 20), "64 MiB");
    }
}
