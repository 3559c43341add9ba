//! The accept-queue chain and the kernel limits: nginx's `listen … backlog` ≤ the PHP-FPM
//! pool's `listen.backlog` ≤ `net.core.somaxconn` ≤ `net.ipv4.tcp_max_syn_backlog`, and
//! enough file descriptors for nginx's workers.

use super::{Plan, Recommendation};
use crate::fix::{edits, Edit};
use crate::host::KernelVersion;
use crate::source::{Shared, SourceFile};
use crate::stack::expanded::{OccId, NO_PARENT};
use crate::stack::model::Stack;
use crate::stack::net::{self, NGINX_DEFAULT_BACKLOG};
use crate::stack::sizing;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// `somaxconn` when no sysctl file sets it (see [`sizing::default_somaxconn`]).
pub fn default_somaxconn(kernel: Option<KernelVersion>) -> Option<u64> {
    kernel.map(sizing::default_somaxconn)
}

/// What the tuner sets `somaxconn` to when it must raise it: the modern kernels' default,
/// or more when a backlog needs it.
const SOMAXCONN_FLOOR: u64 = 4096;
/// The kernel's default `fs.nr_open` (1024 × 1024).
const NR_OPEN_DEFAULT: u64 = sizing::DEFAULT_NR_OPEN;

/// Changes to sysctl keys, gathered so that new keys land in one edit per file.
#[derive(Default)]
struct SysctlChanges {
    /// key → (value, reason).
    set: BTreeMap<String, (u64, String)>,
}

pub fn recommend(stack: &Stack, plan: &mut Plan) {
    let mut changes = SysctlChanges::default();
    let needed = backlog_chain(stack, plan);
    let kernel = stack.host.kernel.as_ref().map(|k| k.value);
    let somaxconn_now = stack
        .sysctl
        .effective_u64("net.core.somaxconn")
        .map(|(_, v)| v)
        .or_else(|| default_somaxconn(kernel));
    let mut somaxconn = somaxconn_now.unwrap_or(SOMAXCONN_FLOOR);
    // Nothing listens with a backlog here (no nginx, no pool socket): nothing to raise.
    if needed > 0 && somaxconn_now.is_none_or(|s| s < needed) {
        somaxconn = needed.max(SOMAXCONN_FLOOR);
        let why = match somaxconn_now {
            Some(s) => format!("the kernel silently caps every listen backlog at somaxconn ({s}); the largest backlog here is {needed}"),
            None => format!("the kernel caps listen backlogs at somaxconn, which is 128 before Linux 5.4 (kernel unknown: pass --kernel); the largest backlog here is {needed}"),
        };
        changes
            .set
            .insert("net.core.somaxconn".into(), (somaxconn, why));
    }
    let syn = stack
        .sysctl
        .effective_u64("net.ipv4.tcp_max_syn_backlog")
        .map(|(_, v)| v);
    if syn.is_some_and(|s| s < somaxconn)
        || (syn.is_none() && changes.set.contains_key("net.core.somaxconn"))
    {
        changes.set.insert(
            "net.ipv4.tcp_max_syn_backlog".into(),
            (somaxconn, format!("half-open connections queue before the accept queue: keep it ≥ somaxconn ({somaxconn})")),
        );
    }
    file_limits(stack, &mut changes);
    apply_sysctl(stack, changes, plan);
}

/// Raises PHP-FPM `listen.backlog` values below the backlog of the nginx servers that pass
/// to the pool, and returns the largest backlog somaxconn must admit.
fn backlog_chain(stack: &Stack, plan: &mut Plan) -> u64 {
    let mut needed = 0u64;
    // nginx side: the largest backlog of each server, by the fastcgi_pass occurrences in it.
    let mut per_pool_need: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    for inst in stack.nginx.iter().filter(|i| !i.standalone) {
        let view = inst.view();
        // The largest backlog of each server (by its occurrence).
        let mut server_backlog: HashMap<OccId, u64> = HashMap::new();
        for l in &net::http_listens(inst) {
            let b = l.backlog.map_or(NGINX_DEFAULT_BACKLOG, |(_, b)| b) as u64;
            needed = needed.max(b);
            let e = server_backlog
                .entry(view.expanded.get(l.occ).parent)
                .or_default();
            *e = (*e).max(b);
        }
        for t in net::fastcgi_targets(inst).iter() {
            // The server block holding this fastcgi_pass.
            let server = view
                .expanded
                .ancestors(t.pass)
                .find(|&a| view.name(a) == "server");
            let Some(server) = server else { continue };
            let backlog = server_backlog
                .get(&server)
                .copied()
                .unwrap_or(NGINX_DEFAULT_BACKLOG as u64);
            for (ci, cfg) in stack.fpm.iter().enumerate() {
                for (pi, pool) in cfg.pools.iter().enumerate() {
                    if cfg
                        .listen(pool)
                        .is_some_and(|(_, l)| net::reaches(&t.addr, &l))
                    {
                        let e = per_pool_need.entry((ci, pi)).or_default();
                        *e = (*e).max(backlog);
                    }
                }
            }
        }
    }
    for (ci, cfg) in stack.fpm.iter().enumerate() {
        for (pi, pool) in cfg.pools.iter().enumerate() {
            let explicit = cfg
                .get(pool, "listen.backlog")
                .and_then(|(s, v)| v.trim().parse::<i64>().ok().map(|n| (s, n)));
            let need = per_pool_need.get(&(ci, pi)).copied().unwrap_or(0);
            match explicit {
                // -1 (php-fpm 8.2's default on Linux) means somaxconn.
                Some((_, n)) if n < 0 => {}
                Some((s, n)) if (n as u64) < need => {
                    if let Some(entry) = cfg.entry(s) {
                        let file = cfg.source(s).clone();
                        plan.recommendations.push(Recommendation {
                            line: file.line_of(entry.key.start),
                            edits: vec![edits::replace_fpm_value(&file, entry, &need.to_string())],
                            file,
                            setting: format!("[{}] listen.backlog", pool.name),
                            current: Some(n.to_string()),
                            recommended: need.to_string(),
                            reason: format!("nginx queues up to {need} connections for this pool's sites; a shorter queue here turns bursts into \"Resource temporarily unavailable\" (502)"),
                        });
                    }
                    needed = needed.max(need);
                }
                Some((_, n)) => needed = needed.max(n as u64),
                None => {}
            }
        }
    }
    needed
}

/// `fs.file-max` and `fs.nr_open` against nginx's workers × `worker_rlimit_nofile`, when the
/// stack sets them explicitly lower.
fn file_limits(stack: &Stack, changes: &mut SysctlChanges) {
    let Some(cpus) = stack.host.cpus.as_ref().map(|c| c.value as u64) else {
        return;
    };
    for inst in stack.nginx.iter().filter(|i| !i.standalone) {
        let view = inst.view();
        let top = |name: &'static str| {
            view.named(name)
                .find(|&o| view.expanded.get(o).parent == NO_PARENT)
                .and_then(|o| view.args(o).first().map(|v| v.to_string()))
        };
        let Some(nofile) = top("worker_rlimit_nofile").and_then(|v| v.parse::<u64>().ok()) else {
            continue;
        };
        let workers = match top("worker_processes").as_deref() {
            Some("auto") | None => cpus,
            Some(v) => v.parse().unwrap_or(cpus),
        };
        if let Some((_, max)) = stack.sysctl.effective_u64("fs.file-max") {
            if max < workers * nofile {
                changes.set.insert(
                    "fs.file-max".into(),
                    (workers * nofile * 2, format!("{workers} nginx workers × {nofile} files, with room for PHP and the rest of the system")),
                );
            }
        }
        let nr_open = stack
            .sysctl
            .effective_u64("fs.nr_open")
            .map_or(NR_OPEN_DEFAULT, |(_, v)| v);
        if nofile > nr_open {
            changes.set.insert(
                "fs.nr_open".into(),
                (
                    nofile,
                    format!(
                        "worker_rlimit_nofile {nofile} is refused above fs.nr_open ({nr_open})"
                    ),
                ),
            );
        }
    }
}

/// Writes the sysctl changes: in place where the key is set, else into the stack's
/// `sysctl.d/60-lemplint.conf` (created when the stack has a sysctl.d directory), else into
/// the sysctl file applied last; advice only when the stack has no sysctl files at all.
fn apply_sysctl(stack: &Stack, changes: SysctlChanges, plan: &mut Plan) {
    let mut appends: Vec<(String, u64, String)> = Vec::new();
    for (key, (value, reason)) in changes.set {
        match stack.sysctl.effective(&key) {
            Some((s, current)) => {
                let f = &stack.sysctl.files[s.file];
                if let Some(a) = stack.sysctl.assignment(s) {
                    plan.recommendations.push(Recommendation {
                        file: f.source.clone(),
                        line: f.source.line_of(a.key.start),
                        setting: key,
                        current: Some(current),
                        recommended: value.to_string(),
                        reason,
                        edits: vec![Edit::replace(&f.source, a.value, value.to_string())],
                    });
                }
            }
            None => appends.push((key, value, reason)),
        }
    }
    if appends.is_empty() {
        return;
    }
    let dir = stack.root.join("etc/sysctl.d");
    let target: Option<Shared> = if dir.is_dir() {
        let path: PathBuf = dir.join("60-lemplint.conf");
        let existing = stack
            .sysctl
            .files
            .iter()
            .find(|f| f.source.path == path)
            .map(|f| f.source.clone());
        Some(existing.unwrap_or_else(|| Shared::new(SourceFile::new(path, Vec::new()))))
    } else {
        stack
            .sysctl
            .files
            .iter()
            .rfind(|f| f.masked_by.is_none())
            .map(|f| f.source.clone())
    };
    let lines: Vec<String> = appends
        .iter()
        .map(|(k, v, _)| format!("{k} = {v}"))
        .collect();
    let mut edit = target.as_ref().map(|t| {
        let nl = edits::line_ending(&t.text);
        let header = if t.text.is_empty() {
            format!("# Written by lemplint tune: listen backlogs and file limits for nginx and PHP-FPM.{nl}")
        } else {
            String::new()
        };
        edits::append_line(t, &format!("{header}{}", lines.join(nl)))
    });
    for (key, value, reason) in appends {
        let (file, line) = match &target {
            Some(t) => (t.clone(), t.line_count()),
            None => (
                Shared::new(SourceFile::new(
                    stack.root.join("etc/sysctl.d/60-lemplint.conf"),
                    Vec::new(),
                )),
                1,
            ),
        };
        plan.recommendations.push(Recommendation {
            file,
            line,
            setting: key,
            current: None,
            recommended: value.to_string(),
            reason: if target.is_some() {
                reason
            } else {
                format!("{reason} (the stack has no sysctl files: add it by hand)")
            },
            edits: edit.take().into_iter().collect(),
        });
    }
}
