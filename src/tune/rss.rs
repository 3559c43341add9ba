//! `--sample`: the memory of the PHP-FPM workers running on this machine.
//!
//! A worker's resident set counts shared pages (OPcache, the binary) too, so this figure is
//! an upper bound, which is the safe side for sizing `pm.max_children`. The p95 is used, not
//! the mean: sizing by the average runs out of memory when the heavy requests line up.

use sysinfo::{ProcessRefreshKind, ProcessesToUpdate, RefreshKind, System, UpdateKind};

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Sample {
    pub workers: usize,
    pub mean: u64,
    pub p95: u64,
}

/// Whether a process is a PHP-FPM worker (not the master): php-fpm names its processes
/// `php-fpm: pool NAME` and `php-fpm: master process (…)`.
pub fn is_worker(name: &str, cmdline: &str) -> bool {
    let looks_fpm = name.starts_with("php-fpm") || cmdline.starts_with("php-fpm");
    looks_fpm && cmdline.contains("pool ") && !cmdline.contains("master process")
}

/// Mean and 95th percentile of a set of sizes.
pub fn summarize(mut sizes: Vec<u64>) -> Option<Sample> {
    if sizes.is_empty() {
        return None;
    }
    sizes.sort_unstable();
    let mean = sizes.iter().sum::<u64>() / sizes.len() as u64;
    // Nearest-rank percentile.
    let rank = ((sizes.len() as f64) * 0.95).ceil() as usize;
    let p95 = sizes[rank.clamp(1, sizes.len()) - 1];
    Some(Sample {
        workers: sizes.len(),
        mean,
        p95,
    })
}

/// Samples the running workers' resident memory.
pub fn sample() -> Result<Sample, String> {
    let mut sys = System::new_with_specifics(RefreshKind::nothing());
    sys.refresh_processes_specifics(
        ProcessesToUpdate::All,
        true,
        ProcessRefreshKind::nothing()
            .with_memory()
            .with_cmd(UpdateKind::Always),
    );
    let sizes: Vec<u64> = sys
        .processes()
        .values()
        .filter(|p| {
            let name = p.name().to_string_lossy();
            let cmd: Vec<String> = p
                .cmd()
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            is_worker(&name, &cmd.join(" "))
        })
        .map(|p| p.memory())
        .collect();
    summarize(sizes).ok_or_else(|| "no PHP-FPM worker processes are running to sample (start php-fpm, or use --worker-rss SIZE)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_not_master() {
        assert!(is_worker("php-fpm8.2", "php-fpm: pool www"));
        assert!(!is_worker(
            "php-fpm8.2",
            "php-fpm: master process (/etc/php/8.2/fpm/php-fpm.conf)"
        ));
        assert!(!is_worker("nginx", "nginx: worker process"));
    }

    #[test]
    fn p95_is_nearest_rank() {
        let s = summarize((1..=100).collect()).unwrap();
        assert_eq!((s.workers, s.mean, s.p95), (100, 50, 95));
        let s = summarize(vec![10, 30]).unwrap();
        assert_eq!((s.mean, s.p95), (20, 30));
        assert!(summarize(vec![]).is_none());
    }
}
