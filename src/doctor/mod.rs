//! `lemplint doctor`: what the running stack has already shown (its logs, its counters, its
//! processes), tied to the configuration lines that cause it and to the `tune` change that
//! fixes it.
//!
//! Read-only: nothing is executed, signalled or written. The files are the machine's own
//! (`/`), or a tree standing for it (a root directory, a private prefix): the logs the
//! configuration names are read there, while processes, `/proc/sys` and sockets are always
//! this machine's. What could not be read is said, never guessed.

pub mod counters;
pub mod diagnose;
pub mod drift;
pub mod fastcgi;
pub mod logs;
pub mod output;
pub mod procs;
pub mod sockdiag;
pub mod templates;

use crate::engine::{StackArgs, Workspace};
use crate::stack::model::Stack;
use std::path::{Path, PathBuf};

/// What a run reads and shows.
pub struct Options {
    /// Only log lines newer than this many seconds.
    pub since: Option<u64>,
    pub show_lines: bool,
}

/// Everything doctor found about one stack.
pub struct Report {
    pub root: String,
    pub host: Vec<String>,
    /// What window the counts cover.
    pub window: String,
    pub scan: logs::Scan,
    pub counters: counters::Counters,
    pub running: Vec<procs::Master>,
    pub drift: Vec<drift::Drift>,
    pub cgroups: Vec<(String, crate::host::CgroupLimits)>,
    pub diagnoses: Vec<diagnose::Diagnosis>,
    /// What could not be read, and why.
    pub not_read: Vec<String>,
    pub notes: Vec<String>,
}

impl Report {
    /// Whether anything is wrong: a symptom in the logs or a drift.
    pub fn unhealthy(&self) -> bool {
        !self.diagnoses.is_empty() || !self.drift.is_empty()
    }
}

/// An nginx configuration's main file (the one its master is started with).
pub fn main_file(inst: &crate::stack::model::NginxInstance) -> Option<&Path> {
    inst.config.files.first().map(|f| f.source.path.as_path())
}

/// The directory that stands for `/` when the files are a copy of a server's.
fn root_of(stack: &Stack, args: &StackArgs) -> Option<PathBuf> {
    if let Some(r) = &args.root {
        return Some(r.clone());
    }
    if let Some(r) = stack.nginx.iter().find_map(|i| i.config.root.clone()) {
        return Some(r);
    }
    let r = &stack.root;
    (!r.as_os_str().is_empty() && r != Path::new("/") && r.join("etc").is_dir()).then(|| r.clone())
}

pub fn examine(args: &StackArgs, opts: &Options) -> Result<Vec<Report>, String> {
    let ws = Workspace::load(args)?;
    let confine = crate::engine::confinement(args);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let all = procs::all();
    let somaxconn = drift::proc_sys("net.core.somaxconn")
        .ok()
        .and_then(|v| v.trim().parse().ok());
    let paths = args
        .paths
        .iter()
        .map(|p| crate::escape::path(p))
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = Vec::new();
    for stack in ws
        .stacks
        .iter()
        .filter(|s| !s.nginx.is_empty() || !s.fpm.is_empty())
    {
        let root = root_of(stack, args);
        let root = root.as_deref();

        let confs: Vec<(procs::Kind, PathBuf)> =
            stack
                .nginx
                .iter()
                .filter(|i| !i.standalone)
                .filter_map(|i| Some((procs::Kind::Nginx, main_file(i)?.to_path_buf())))
                .chain(stack.fpm.iter().filter(|c| c.has_master).filter_map(|c| {
                    Some((procs::Kind::PhpFpm, c.files.first()?.source.path.clone()))
                }))
                .collect();
        let running = procs::masters(&all, &confs);
        let prefixes: Vec<(PathBuf, PathBuf)> = running
            .iter()
            .filter_map(|m| Some((m.conf.clone(), m.prefix.clone()?)))
            .collect();
        let (configured, mut notes) = logs::locations(stack, root, &prefixes);
        let window = logs::Window {
            since: opts.since.map(|s| now - s as i64),
            show_lines: opts.show_lines,
            confine: &confine,
        };
        let scan = logs::scan(configured, &window)?;
        let mut not_read = scan.not_read.clone();
        let counters = counters::read(stack, root, &running);
        notes.extend(counters.notes.iter().cloned());
        let mut drifts = Vec::new();
        drift::changed_files(stack, &running, &mut drifts);
        drift::sysctl(stack, &mut drifts, &mut not_read);
        drift::nofile(stack, &running, &mut drifts, &mut not_read);
        drift::unit_limit(stack, &running, &mut drifts);
        let mut cgroups = Vec::new();
        if let Some(c) = crate::host::cgroup_limits("self") {
            cgroups.push(("lemplint".to_string(), c));
        }
        for m in &running {
            if let Some(c) = crate::host::cgroup_limits(&m.proc.pid.to_string()) {
                if !cgroups.iter().any(|(_, o)| o.path == c.path) {
                    let name = match m.kind {
                        procs::Kind::Nginx => "nginx",
                        procs::Kind::PhpFpm => "php-fpm",
                    };
                    cgroups.push((format!("{name} master pid {}", m.proc.pid), c));
                }
            }
        }
        // tune's own plan, from its own code: the recommendations doctor shows are the
        // ones `lemplint tune` prints for the same host (with the running workers' p95 as
        // `--worker-rss` when they could be measured, as `tune --sample` would).
        let (plan, assumptions) = match tune_plan(&ws, stack, &counters) {
            Ok((p, a)) => (Some(p), Some(a)),
            Err(e) => {
                notes.push(format!("no tune recommendations: {e}"));
                (None, None)
            }
        };
        // A worker limit below its connections: tune's value for the limit, where it goes.
        if let Some(r) = plan.as_ref().and_then(|p| {
            p.recommendations
                .iter()
                .find(|r| r.setting == "worker_rlimit_nofile")
        }) {
            for d in drifts
                .iter_mut()
                .filter(|d| d.kind == "nofile-below-connections")
            {
                d.message.push_str(&format!(
                    "; tune: worker_rlimit_nofile {} at {}:{} ({})",
                    r.recommended,
                    crate::escape::path(&r.file.path),
                    r.line,
                    r.reason
                ));
            }
        }
        let diagnoses = diagnose::diagnose(&diagnose::Inputs {
            stack,
            root,
            scan: &scan,
            counters: &counters,
            plan: plan.as_ref(),
            assumptions: assumptions.as_ref(),
            paths: paths.clone(),
            somaxconn,
        });
        let window = match (opts.since, &scan.oldest) {
            (Some(s), _) => format!("the last {} (--since)", show_duration(s)),
            (None, Some((_, t))) => format!("all they hold (since {t})"),
            (None, None) => "all they hold (no dated line)".into(),
        };
        out.push(Report {
            root: stack.root.display().to_string(),
            host: stack.host.describe(),
            window,
            scan,
            counters,
            running,
            drift: drifts,
            cgroups,
            diagnoses,
            not_read,
            notes,
        });
    }
    if out.is_empty() {
        return Err("no nginx or PHP-FPM configuration in the paths".into());
    }
    Ok(out)
}

fn tune_plan(
    ws: &Workspace,
    stack: &Stack,
    counters: &counters::Counters,
) -> Result<(crate::tune::Plan, crate::tune::Assumptions), String> {
    let over = crate::tune::Overrides {
        reserve: None,
        worker_rss: counters.worker_rss.as_ref().map(|s| s.p95.to_string()),
        sample: false,
    };
    let mut a = crate::tune::assumptions(&over, ws, stack)?;
    if let Some(s) = &counters.worker_rss {
        a.php_worker_rss_source = format!(
            "sampled: p95 of {} running workers of this configuration (mean {})",
            s.workers,
            crate::tune::mib(s.mean)
        );
    }
    Ok((crate::tune::plan(stack, &a)?, a))
}

pub fn show_duration(secs: u64) -> String {
    match secs {
        s if s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// `--since`: `90s`, `30m`, `24h`, `7d`.
pub fn parse_since(s: &str) -> Result<u64, String> {
    let bad = || format!("not a duration: {s} (use s, m, h or d: 24h, 7d)");
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: u64 = n.parse().map_err(|_| bad())?;
    let mult = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(bad()),
    };
    n.checked_mul(mult).filter(|v| *v > 0).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    #[test]
    fn since_reads_units() {
        assert_eq!(super::parse_since("24h"), Ok(86_400));
        assert_eq!(super::parse_since("90s"), Ok(90));
        assert_eq!(super::parse_since("7d"), Ok(604_800));
        assert!(super::parse_since("24").is_err());
        assert!(super::parse_since("h").is_err());
        assert!(super::parse_since("0h").is_err());
        assert_eq!(super::show_duration(86_400), "1d");
        assert_eq!(super::show_duration(7200), "2h");
    }
}
