//! What the tuner assumes beyond the host facts: a PHP worker's memory and the memory kept
//! for everything else, from the options `lint` judges with and the command's flags. Here
//! rather than in `cli`, so that `bench` (which tunes a private copy) asks the same
//! question without depending on the command line.

use super::{rss, Assumptions};
use crate::engine::Workspace;
use crate::size::parse_size;
use crate::stack::model::Stack;
use crate::stack::sizing::{MemoryModel, Reserve};

/// The flags of `lemplint tune` that change the assumptions (none: the configured ones).
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// `--reserve`: a size (1GiB) or a percentage (25%).
    pub reserve: Option<String>,
    /// `--worker-rss`: the resident memory of one PHP worker.
    pub worker_rss: Option<String>,
    /// `--sample`: measure the running PHP-FPM workers instead.
    pub sample: bool,
}

/// The sizing model `lint` judges with (`[rules.FPM004]`, `[host] reserve`, the defaults),
/// with the command's flags on top: after `tune --write`, FPM004 agrees.
pub fn assumptions(args: &Overrides, ws: &Workspace, stack: &Stack) -> Result<Assumptions, String> {
    let memory = stack.host.memory.as_ref().map_or(0, |m| m.value);
    let model = MemoryModel::from_options(
        ws.options
            .get::<crate::rules::fpm::pm_max_children_exceeds_memory::PmMaxChildrenExceedsMemory>(),
        &stack.host,
    )?;
    let insts = crate::stack::instances::instances(stack);
    let lone = stack.lone_pools_run();
    let model = model.bounded_by_memory_limit(
        insts
            .iter()
            .filter(|i| i.master || lone)
            .flat_map(|i| i.pools.iter()),
    );
    let (reserve, reserve_source) = match &args.reserve {
        Some(r) => (Reserve::parse(r)?, format!("--reserve {r}")),
        None => (model.reserve, model.reserve_source.clone()),
    };
    let (rss, rss_source) = if args.sample {
        let s = rss::sample()?;
        (
            s.p95,
            format!(
                "sampled: p95 of {} running workers (mean {})",
                s.workers,
                super::mib(s.mean)
            ),
        )
    } else if let Some(r) = &args.worker_rss {
        (parse_size(r)?, format!("--worker-rss {r}"))
    } else {
        (model.worker_rss, model.worker_rss_source.clone())
    };
    if rss == 0 {
        return Err("the PHP worker size must be more than 0".into());
    }
    Ok(Assumptions {
        php_worker_rss: rss,
        php_worker_rss_source: rss_source,
        reserve: reserve.bytes(memory),
        reserve_source,
    })
}
