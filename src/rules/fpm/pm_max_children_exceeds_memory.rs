//! FPM004 pm-max-children-exceeds-memory: the pools php-fpm runs on a host may start more
//! workers than the host's memory holds. Under load every pool grows to `pm.max_children` (a
//! static pool starts there), and `Σ max_children × per-worker memory` then exceeds what the
//! host can give PHP: the kernel swaps, and then the OOM killer ends workers (or the
//! database) mid-request.
//!
//! The arithmetic is the sizing model's (`crate::stack::sizing`), the one `tune` uses:
//! memory available to PHP = host memory − a reserve for the OS, nginx, databases and caches
//! (`[rules.FPM004] reserve`, else `[host] reserve`: a percentage or a size, default 25%);
//! per-worker memory is `[rules.FPM004] worker-rss`, else each pool's own `memory_limit` (the
//! most one of its requests may use) when above 64MiB, else 64MiB.
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

/// A pool counted in the sum: its children and the memory each may hold.
struct Counted<'a> {
    name: String,
    children: i64,
    at: Val<'a>,
    rss: u64,
    /// The size is the pool's `memory_limit` (else the default or `worker-rss`).
    from_limit: bool,
}

impl Counted<'_> {
    fn need(&self) -> u64 {
        (self.children as u64).saturating_mul(self.rss)
    }
}

/// Whether the pool's name is a placeholder the deployment fills in (`[{{username}}]`): a
/// hole of the template layer in one of its headers.
fn named_at_deployment(pool: &crate::stack::instances::PoolView<'_>) -> bool {
    pool.headers.iter().any(|h| {
        let f = h.file();
        h.header_span()
            .is_some_and(|span| crate::syntax::template::touches(&f.holes, &f.text, span))
    })
}

impl Rule for PmMaxChildrenExceedsMemory {
    fn check(&self, cx: &mut Context<'_>) {
        let Some(memory) = cx.host.memory.as_ref().map(|f| f.value) else {
            return;
        };
        let lone_run = cx.stack.lone_pools_run();
        let insts = cx.fpm_instances();
        let base = match MemoryModel::from_options(cx.options(self), cx.host) {
            Ok(m) => m,
            Err(e) => {
                let first = insts
                    .iter()
                    .flat_map(|i| i.pools.iter())
                    .find_map(|p| p.get("pm.max_children"));
                if let Some(v) = first {
                    cx.report(
                        v.at.file(),
                        v.span(),
                        format!("{e}; the memory check is skipped"),
                    );
                }
                return;
            }
        };
        // Pool files no master loads take no memory. Each pool's workers are sized by its
        // own `memory_limit` (a pool of 128M next to one of 512M does not hold 512M a worker).
        let mut pools: Vec<Counted<'_>> = Vec::new();
        // Listen address → index in `pools` of the largest pool listening there.
        // Sized at once: rehashed at each doubling, 240,000 pools cost more than their lookups.
        let count = insts.iter().map(|i| i.pools.len()).sum();
        let mut by_listen: HashMap<Listen, usize> = HashMap::with_capacity(count);
        let mut lone_by_name: HashMap<String, usize> = HashMap::with_capacity(count);
        for i in insts.iter().filter(|i| i.master || lone_run) {
            for p in &i.pools {
                let Some(v) = p.get("pm.max_children") else {
                    continue;
                };
                let Some(n) = v.int().filter(|n| *n > 0) else {
                    continue;
                };
                let templated = named_at_deployment(p);
                let model = base.clone().bounded_by_memory_limit(std::iter::once(p));
                let from_limit = model.worker_rss_source.starts_with("memory_limit");
                let pool = Counted {
                    // A name the deployment fills in is not quoted as if it were the pool's.
                    name: if templated {
                        "(named at deployment)".into()
                    } else {
                        p.name.clone()
                    },
                    children: i64::from(n),
                    at: v,
                    rss: model.worker_rss,
                    from_limit,
                };
                // Pool files no master reads that name the same pool are versions of one
                // pool (php-fpm reads a repeated `[name]` into the pool it names), not two;
                // pools of masters on one address are alternatives (see above).
                let listen = p.get("listen").filter(|l| l.known);
                let addr = listen.and_then(|l| Listen::parse(&l.text));
                // A name the deployment fills in (`[{{username}}]`) names a different pool
                // in each file an installer renames: never merged by it.
                let by_name = !i.master && !templated;
                let same = by_name
                    .then(|| lone_by_name.get(&p.name).copied())
                    .flatten()
                    .or_else(|| addr.as_ref().and_then(|a| by_listen.get(a).copied()));
                let k = match same {
                    Some(k) if pools[k].need() >= pool.need() => k,
                    Some(k) => {
                        pools[k] = pool;
                        k
                    }
                    None => {
                        pools.push(pool);
                        pools.len() - 1
                    }
                };
                if by_name {
                    lone_by_name.entry(p.name.clone()).or_insert(k);
                }
                if let Some(a) = addr {
                    by_listen.entry(a).or_insert(k);
                }
            }
        }
        // By index: two masters (PHP 8.2 and 8.3) often hold pools of the same name.
        let Some(largest) = pools
            .iter()
            .enumerate()
            .max_by_key(|(k, c)| (c.children, std::cmp::Reverse(*k)))
            .map(|(k, _)| k)
        else {
            return;
        };
        let need: u64 = pools.iter().map(Counted::need).sum();
        let available = base.available(memory);
        if need <= available {
            return;
        }
        let size = |c: &Counted<'_>| {
            if c.from_limit {
                format!("{} (memory_limit)", human(c.rss))
            } else {
                human(c.rss)
            }
        };
        let same_size = pools.iter().all(|c| c.rss == pools[0].rss);
        let total: u64 = pools.iter().map(|c| c.children as u64).sum();
        let product = if pools.len() == 1 {
            format!("pm.max_children {total} × {}", size(&pools[0]))
        } else if same_size {
            let terms: Vec<String> = pools.iter().map(|c| c.children.to_string()).collect();
            format!(
                "{} pools: {} children × {}",
                pools.len(),
                terms.join(" + "),
                size(&pools[0])
            )
        } else {
            let terms: Vec<String> = pools
                .iter()
                .map(|c| format!("{} × {}", c.children, size(c)))
                .collect();
            format!("{} pools: {}", pools.len(), terms.join(" + "))
        };
        let msg = format!(
            "{product} = {} > {} available ({})",
            human(need),
            human(available),
            base.reserve.describe(memory)
        );
        let at = &pools[largest].at;
        let d = cx.report(at.at.file(), at.span(), msg);
        for (k, c) in pools.iter().enumerate() {
            if k != largest {
                d.label(
                    c.at.at.file().clone(),
                    c.at.span(),
                    format!("+ {} children in pool {}", c.children, c.name),
                );
            }
        }
        d.help = Some(format!(
            "this host can give PHP about {} workers of {} in total: lower pm.max_children (`lemplint tune` splits them), or measure a worker's memory (ps -o rss -C php-fpm8.2) and set [rules.FPM004] worker-rss",
            available / pools[largest].rss.max(1),
            human(pools[largest].rss)
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
