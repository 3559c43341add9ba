//! PHP-FPM: how many workers the memory holds, split across the pools, and the spare
//! servers php-fpm accepts for that many.

use super::{mib, Assumptions, Plan, Recommendation};
use crate::fix::edits;
use crate::stack::fpm::{FpmConfig, Listen, Pool};
use crate::stack::model::Stack;
use std::collections::HashMap;

/// `pm.max_requests` for pools that never recycle workers (the field report cut errors by
/// recycling; 500–1000 is the usual range).
pub const MAX_REQUESTS: u64 = 500;

/// Spare servers for `dynamic`: about 12.5 % and 37.5 % of `max_children`, but at least one
/// idle worker per CPU (up to a quarter of the pool) so a burst does not wait for forks;
/// clamped so php-fpm's checks hold: 1 ≤ min ≤ max ≤ max_children, and start_servers =
/// min + (max − min) / 2, php-fpm's own default.
pub fn spares(max_children: u64, cpus: u64) -> (u64, u64, u64) {
    let max_children = max_children.max(1);
    let by_share = (max_children as f64 * 0.125).round() as u64;
    let by_cpu = cpus.min(max_children / 4);
    let min = by_share.max(by_cpu).clamp(1, max_children);
    let max = ((max_children as f64 * 0.375).round() as u64).clamp(min, max_children);
    let start = min + (max - min) / 2;
    (min, max, start)
}

/// The fewest workers tune gives a pool: with one, every other request waits behind the one
/// being served (FPM105), so one slow page stalls the site.
pub const MIN_WORKERS: u64 = 2;

/// Splits `total` workers across pools in proportion to `weights` (their current
/// `max_children`, or 1), at least [`MIN_WORKERS`] each. Returns `None` when not even that
/// many per pool fit.
pub fn split(total: u64, weights: &[u64]) -> Option<Vec<u64>> {
    if weights.is_empty() {
        return Some(Vec::new());
    }
    if total < MIN_WORKERS * weights.len() as u64 {
        return None;
    }
    let sum: u64 = weights.iter().map(|w| (*w).max(1)).sum();
    let mut shares: Vec<u64> = weights
        .iter()
        .map(|w| ((total * w.max(&1)) / sum).max(MIN_WORKERS))
        .collect();
    // Rounding up the small pools may overshoot: take the excess from the largest.
    while shares.iter().sum::<u64>() > total {
        let i = (0..shares.len()).max_by_key(|&i| shares[i]).unwrap_or(0);
        shares[i] -= 1;
    }
    Some(shares)
}

struct PoolEdits<'a> {
    cfg: &'a FpmConfig,
    pool: &'a Pool,
    /// Keys to insert into the pool's last section, as one edit.
    inserts: Vec<(String, String, String, Option<String>)>, // key, value, reason, current
}

impl<'a> PoolEdits<'a> {
    /// Sets `key` to `value`: replaces the setting in place, or queues an insert. A value
    /// set by the environment or a template (`${VAR}`) is never rewritten: the
    /// recommendation is shown, with no edit.
    fn set(&mut self, plan: &mut Plan, key: &str, value: String, reason: String) {
        if let Some(v) = self.cfg.value(self.pool, key).filter(|v| !v.known) {
            let file = self.cfg.source(v.setting).clone();
            let line = self
                .cfg
                .entry(v.setting)
                .map_or(1, |e| file.line_of(e.key.start));
            plan.recommendations.push(Recommendation {
                edits: Vec::new(),
                file,
                line,
                setting: format!("[{}] {key}", self.pool.name),
                current: Some(v.text),
                recommended: value,
                reason: format!("{reason}; set by the environment, so not changed here"),
            });
            return;
        }
        match self.cfg.get(self.pool, key) {
            Some((_, current)) if current.trim() == value => {}
            Some((s, current)) => {
                if let Some(entry) = self.cfg.entry(s) {
                    let file = self.cfg.source(s).clone();
                    let line = file.line_of(entry.key.start);
                    plan.recommendations.push(Recommendation {
                        edits: vec![edits::replace_fpm_value(&file, entry, &value)],
                        file,
                        line,
                        setting: format!("[{}] {key}", self.pool.name),
                        current: Some(current),
                        recommended: value,
                        reason,
                    });
                }
            }
            None => self.inserts.push((key.to_string(), value, reason, None)),
        }
    }

    fn finish(self, plan: &mut Plan) {
        if self.inserts.is_empty() {
            return;
        }
        let Some(header) = self.pool.headers.last() else {
            return;
        };
        let file = &self.cfg.files[header.file];
        let lines = &file.parsed.file.lines;
        let entries: Vec<(String, String)> = self
            .inserts
            .iter()
            .map(|(k, v, _, _)| (k.clone(), v.clone()))
            .collect();
        let mut edit = Some(edits::insert_fpm_entries(
            &file.source,
            lines,
            header.line,
            &entries,
        ));
        let line = file.source.line_of(lines[header.line].span.start);
        for (key, value, reason, current) in self.inserts {
            plan.recommendations.push(Recommendation {
                file: file.source.clone(),
                line,
                setting: format!("[{}] {key}", self.pool.name),
                current,
                recommended: value,
                reason,
                edits: edit.take().into_iter().collect(),
            });
        }
    }
}

fn number(cfg: &FpmConfig, pool: &Pool, key: &str) -> Option<u64> {
    cfg.get(pool, key).and_then(|(_, v)| v.trim().parse().ok())
}

pub fn recommend(stack: &Stack, cpus: u32, memory: u64, a: &Assumptions, plan: &mut Plan) {
    // The pools php-fpm runs: `pools()` leaves out the pool files no master reads, and a file
    // lint marks as not loaded is left alone too.
    let unloaded = stack.unloaded_files();
    let pools: Vec<(&FpmConfig, &Pool)> = stack
        .pools()
        .filter(|(c, p)| {
            p.headers
                .iter()
                .all(|h| !unloaded.contains_key(c.files[h.file].source.path.as_path()))
        })
        .collect();
    if pools.is_empty() {
        return;
    }
    let available = memory.saturating_sub(a.reserve);
    let total = available / a.php_worker_rss.max(1);
    // A worker's size taken from memory_limit is an assumption: say so where it is used.
    let per_worker = if a.php_worker_rss_source.starts_with("memory_limit") {
        format!(
            "{} per worker (memory_limit, assumed to be the most a worker holds)",
            mib(a.php_worker_rss)
        )
    } else {
        format!("{} per worker", mib(a.php_worker_rss))
    };
    let arithmetic = format!(
        "({} memory − {} reserve) / {per_worker} = {} workers",
        mib(memory),
        mib(a.reserve),
        total
    );
    // Pools that listen on one address are alternatives (one master per PHP version on
    // `/run/php/php-fpm.sock`): only one of them runs, so they share one slot of the split
    // and each gets the whole of it (see FPM004).
    let mut slot_of_listen: HashMap<Listen, usize> = HashMap::new();
    let mut weights: Vec<u64> = Vec::new();
    let slots: Vec<usize> = pools
        .iter()
        .map(|(c, p)| {
            let weight = number(c, p, "pm.max_children").unwrap_or(1);
            let listen = c
                .value(p, "listen")
                .filter(|v| v.known)
                .and_then(|v| Listen::parse(&v.text));
            let slot = match listen {
                Some(l) => *slot_of_listen.entry(l).or_insert_with(|| {
                    weights.push(0);
                    weights.len() - 1
                }),
                None => {
                    weights.push(0);
                    weights.len() - 1
                }
            };
            weights[slot] = weights[slot].max(weight);
            slot
        })
        .collect();
    let running = weights.len();
    let shares: Option<Vec<u64>> =
        split(total, &weights).map(|by_slot| slots.iter().map(|&s| by_slot[s]).collect());
    if shares.is_none() {
        plan.notes.push(if total == 0 {
            format!("not even one PHP worker fits: {arithmetic}; give the host more memory, lower the reserve, or measure the real worker size with --sample")
        } else if running == 1 {
            format!("only {total} PHP worker fits ({arithmetic}): a pool needs at least {MIN_WORKERS}, or every request waits behind the one being served; pm.max_children not tuned: give the host more memory, lower the reserve, or measure the real worker size with --sample")
        } else {
            format!("{total} workers fit ({arithmetic}) but {running} pools need at least {MIN_WORKERS} each: merge pools or add memory; pm.max_children not tuned")
        });
    }
    let many_small = running > 4 && shares.as_ref().is_some_and(|s| s.iter().all(|&n| n < 4));
    for (i, (cfg, pool)) in pools.iter().enumerate() {
        let mut pe = PoolEdits {
            cfg,
            pool,
            inserts: Vec::new(),
        };
        let pm_value = cfg.value(pool, "pm");
        // A process manager chosen at runtime: its spares are not ours to size.
        let pm_known = pm_value.as_ref().is_none_or(|v| v.known);
        let current_pm = pm_value.map(|v| v.text.trim().to_ascii_lowercase());
        let pm = if many_small {
            "ondemand".to_string()
        } else {
            match current_pm.as_deref() {
                Some(p @ ("static" | "dynamic" | "ondemand")) => p.to_string(),
                _ if running == 1 => "static".to_string(),
                _ => "dynamic".to_string(),
            }
        };
        let pm_reason = match pm.as_str() {
            _ if many_small => format!("{running} pools with few workers each: `ondemand` starts workers only when a pool gets traffic"),
            "static" => "one pool whose workers all fit in memory: keep them running (`static`)".to_string(),
            _ => "php-fpm needs a process manager; `dynamic` keeps spare workers for bursts".to_string(),
        };
        if current_pm.as_deref() != Some(pm.as_str()) {
            pe.set(plan, "pm", pm.clone(), pm_reason);
        }
        if let Some(shares) = &shares {
            let n = shares[i];
            let current = number(cfg, pool, "pm.max_children");
            let reason = if running == 1 {
                arithmetic.clone()
            } else {
                format!("{arithmetic}, split across {running} pools by their current sizes")
            };
            if current != Some(n) {
                pe.set(plan, "pm.max_children", n.to_string(), reason);
            }
            if pm == "dynamic" && pm_known {
                let (min, max, start) = spares(n, cpus as u64);
                let cur_min = number(cfg, pool, "pm.min_spare_servers");
                let cur_max = number(cfg, pool, "pm.max_spare_servers");
                let cur_start = number(cfg, pool, "pm.start_servers");
                // Keep the operator's spares when php-fpm accepts them for the new size.
                let valid = match (cur_min, cur_max) {
                    (Some(lo), Some(hi)) => {
                        lo >= 1
                            && lo <= hi
                            && hi <= n
                            && cur_start.is_none_or(|s| s >= lo && s <= hi)
                    }
                    _ => false,
                };
                if !valid {
                    let why = format!("for {n} workers: about 12.5 % / 37.5 % spare, start halfway (php-fpm's default)");
                    pe.set(plan, "pm.min_spare_servers", min.to_string(), why.clone());
                    pe.set(plan, "pm.max_spare_servers", max.to_string(), why.clone());
                    pe.set(plan, "pm.start_servers", start.to_string(), why);
                }
            }
        }
        if number(cfg, pool, "pm.max_requests").unwrap_or(0) == 0 {
            pe.set(
                plan,
                "pm.max_requests",
                MAX_REQUESTS.to_string(),
                "workers that are never recycled keep whatever memory leaks they collect".into(),
            );
        }
        pe.finish(plan);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spares_hold_php_fpm_constraints() {
        for cpus in [1, 2, 8, 64] {
            for n in 1..300 {
                let (min, max, start) = spares(n, cpus);
                assert!(
                    1 <= min && min <= max && max <= n && min <= start && start <= max,
                    "{n}/{cpus}: {min} {max} {start}"
                );
            }
        }
        assert_eq!(spares(7, 1), (1, 3, 2));
        assert_eq!(spares(40, 2), (5, 15, 10));
        assert_eq!(spares(40, 8), (8, 15, 11));
    }

    #[test]
    fn split_in_proportion_with_at_least_one_each() {
        assert_eq!(split(7, &[160]), Some(vec![7]));
        assert_eq!(split(10, &[10, 5, 5]), Some(vec![5, 2, 2]));
        assert_eq!(split(6, &[1, 1, 1]), Some(vec![2, 2, 2]));
        assert_eq!(split(7, &[10, 1, 1]), Some(vec![3, 2, 2]));
        assert_eq!(split(5, &[1, 1, 1]), None);
        assert_eq!(split(1, &[5]), None);
        assert_eq!(split(0, &[5]), None);
        let big = split(3990, &[100, 1]).unwrap();
        assert!(big.iter().sum::<u64>() <= 3990 && big[1] >= MIN_WORKERS);
    }
}
