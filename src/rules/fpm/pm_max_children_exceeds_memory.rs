//! FPM004 pm-max-children-exceeds-memory: the pools php-fpm runs on a host may start more
//! workers than the host's memory holds. Under load every pool grows to `pm.max_children` (a
//! static pool starts there), and `Σ max_children × per-worker memory` then exceeds what the
//! host can give PHP: the kernel swaps, and then the OOM killer ends workers (or the
//! database) mid-request.
//!
//! The arithmetic is the sizing model's (`crate::stack::sizing`), the one `tune` uses:
//! memory available to PHP = host memory − a reserve for the OS, nginx, databases and caches
//! (`[rules.FPM004] reserve`, else `[host] reserve`: a percentage or a size, default 25%);
//! per-worker memory is `[rules.FPM004] worker-rss`, else the largest `memory_limit` written
//! for the running pools (the most one request may use), else 64MiB.
//!
//! Every php-fpm master of the stack shares the host's memory, so the pools of all of them
//! are summed (and the pool files no master loads are not). Pools of different masters that
//! listen on the same address are alternatives, not neighbours: a repository that ships one
//! master per PHP version (`etc/php/7.4/fpm`, `etc/php/8.2/fpm`) all on
//! `/run/php/php-fpm.sock` runs one of them, since a TCP address binds once and a unix socket
//! is taken over by the master that starts last, so only that one's pool receives requests
//! and grows. Such a group counts once, at its largest pool. One finding per stack, at the
//! pool with the most children; the other pools are labelled. Pools whose `pm.max_children`
//! is unknown (`${VAR}`) are left out of the sum, so the sum is never overstated.

use crate::rules::{Context, Rule};
use crate::size::human;
use crate::stack::fpm::Listen;
use crate::stack::instances::Val;
use crate::stack::sizing::MemoryModel;
use std::collections::HashMap;

declare_rule! {
    pub struct PmMaxChildrenExceedsMemory;
    code: FPM004,
    name: "pm-max-children-exceeds-memory",
    lang: fpm,
    category: Reliability,
    severity: Warning,
    fix: None,
    group: Default,
    needs_host: true,
    options: crate::stack::sizing::MemoryOptions,
}

impl Rule for PmMaxChildrenExceedsMemory {
    fn check(&self, cx: &mut Context<'_>) {
        let Some(memory) = cx.host.memory.as_ref().map(|f| f.value) else {
            return;
        };
        let lone_run = cx.stack.lone_pools_run();
        let insts = cx.fpm_instances();
        // Pool files no master loads take no memory.
        let mut pools: Vec<(String, i64, Val<'_>)> = Vec::new();
        // Listen address → index in `pools` of the largest pool listening there.
        let mut by_listen: HashMap<Listen, usize> = HashMap::new();
        for i in insts.iter().filter(|i| i.master || lone_run) {
            for p in &i.pools {
                let Some(v) = p.get("pm.max_children") else {
                    continue;
                };
                let Some(n) = v.int().filter(|n| *n > 0) else {
                    continue;
                };
                let pool = (p.name.clone(), i64::from(n), v);
                let listen = p.get("listen").filter(|l| l.known);
                let Some(addr) = listen.and_then(|l| Listen::parse(&l.text)) else {
                    pools.push(pool);
                    continue;
                };
                match by_listen.get(&addr) {
                    Some(&k) if pools[k].1 >= pool.1 => {}
                    Some(&k) => pools[k] = pool,
                    None => {
                        by_listen.insert(addr, pools.len());
                        pools.push(pool);
                    }
                }
            }
        }
        // By index: two masters (PHP 8.2 and 8.3) often hold pools of the same name.
        let Some(largest) = pools
            .iter()
            .enumerate()
            .max_by_key(|(k, (_, n, _))| (*n, std::cmp::Reverse(*k)))
            .map(|(k, _)| k)
        else {
            return;
        };
        let running = insts
            .iter()
            .filter(|i| i.master || lone_run)
            .flat_map(|i| i.pools.iter());
        let model = match MemoryModel::from_options(cx.options(self), cx.host) {
            Ok(m) => m.bounded_by_memory_limit(running),
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
        let rss = model.worker_rss;
        let total: u64 = pools.iter().map(|(_, n, _)| *n as u64).sum();
        let need = total.saturating_mul(rss);
        let available = model.available(memory);
        if need <= available {
            return;
        }
        let sum = if pools.len() == 1 {
            format!("pm.max_children {total}")
        } else {
            let terms: Vec<String> = pools.iter().map(|(_, n, _)| n.to_string()).collect();
            format!("{} pools: {} children", pools.len(), terms.join(" + "))
        };
        let per_worker = if model.worker_rss_source.starts_with("memory_limit") {
            format!("{} (memory_limit)", human(rss))
        } else {
            human(rss)
        };
        let msg = format!(
            "{sum} × {per_worker} = {} > {} available ({})",
            human(need),
            human(available),
            model.reserve.describe(memory)
        );
        let (_, _, at) = &pools[largest];
        let d = cx.report(at.at.file(), at.span(), msg);
        for (k, (name, n, v)) in pools.iter().enumerate() {
            if k != largest {
                d.label(
                    v.at.file().clone(),
                    v.span(),
                    format!("+ {n} children in pool {name}"),
                );
            }
        }
        d.help = Some(format!(
            "this host can give PHP about {} workers of {} in total: lower pm.max_children (`lemplint tune` splits them), or measure a worker's memory (ps -o rss -C php-fpm8.2) and set [rules.FPM004] worker-rss",
            model.workers(memory),
            human(rss)
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::size::human;
    use crate::stack::sizing::Reserve;

    #[test]
    fn message_sizes() {
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
