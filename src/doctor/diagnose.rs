//! Each symptom tied to the configuration lines that cause it, the counters that show it,
//! the `tune` recommendation that fixes it (taken from `tune`'s plan, never recomputed
//! here) and the `bench` run that would confirm the fix before it goes live.

use super::counters::Counters;
use super::logs::Scan;
use super::templates::{Symptom, TEMPLATES};
use crate::stack::fpm::Listen;
use crate::stack::instances::{Instance, PoolView};
use crate::stack::model::Stack;
use crate::tune::{Assumptions, Plan, Recommendation};
use std::path::Path;

/// php-fpm's `listen.backlog` when none is set (`FPM_BACKLOG_DEFAULT`, Linux).
const FPM_DEFAULT_BACKLOG: u64 = 511;

#[derive(Clone, Debug, serde::Serialize)]
pub struct Fix {
    pub setting: String,
    /// `file:line` of the setting, or of where `tune` inserts it.
    pub at: String,
    pub current: Option<String>,
    pub recommended: String,
    pub reason: String,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Diagnosis {
    pub symptom: &'static str,
    /// The upstream or pool the messages name (empty when they name none).
    pub subject: String,
    pub count: u64,
    /// Where the count comes from: `log` (lines in the window), or `status page` (PHP-FPM's
    /// counter since the pool started).
    pub source: &'static str,
    pub first: Option<String>,
    pub last: Option<String>,
    pub message: &'static str,
    pub meaning: &'static str,
    /// The configuration lines behind it (`file:line: setting = value`).
    pub causes: Vec<String>,
    /// Counters and arithmetic.
    pub evidence: Vec<String>,
    /// What `tune` changes about it.
    pub fixes: Vec<Fix>,
    /// The bench run that measures the change before it is made.
    pub confirm: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
}

/// What diagnosis needs besides the stack.
pub struct Inputs<'a> {
    pub stack: &'a Stack,
    pub root: Option<&'a Path>,
    pub scan: &'a Scan,
    pub counters: &'a Counters,
    pub plan: Option<&'a Plan>,
    pub assumptions: Option<&'a Assumptions>,
    /// The paths as given, for the bench command line.
    pub paths: String,
    /// `net.core.somaxconn` in this kernel (network namespace).
    pub somaxconn: Option<u64>,
}

pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn fix(r: &Recommendation) -> Fix {
    Fix {
        setting: r.setting.clone(),
        at: format!("{}:{}", crate::escape::path(&r.file.path), r.line),
        current: r.current.clone(),
        recommended: r.recommended.clone(),
        reason: r.reason.clone(),
    }
}

/// `tune`'s recommendations for these settings (`[pool] key` for a pool's).
fn fixes(i: &Inputs<'_>, pool: Option<&str>, keys: &[&str]) -> Vec<Fix> {
    let Some(plan) = i.plan else {
        return Vec::new();
    };
    plan.recommendations
        .iter()
        .filter(|r| {
            keys.iter().any(|k| match pool {
                Some(p) => r.setting.eq_ignore_ascii_case(&format!("[{p}] {k}")),
                None => r.setting == *k,
            })
        })
        .map(fix)
        .collect()
}

fn pool_line(pool: &PoolView<'_>, key: &str, default: &str) -> String {
    match pool.get(key) {
        Some(v) => {
            let file = v.at.file();
            let line = v.at.entry().map_or(1, |e| file.line_of(e.key.start));
            format!(
                "{}:{line}: [{}] {key} = {}",
                crate::escape::path(&file.path),
                crate::escape::text(&pool.name),
                crate::escape::text(&v.text)
            )
        }
        None => format!(
            "[{}] {key} is not set (php-fpm's default: {default})",
            crate::escape::text(&pool.name)
        ),
    }
}

fn pool_value(pool: &PoolView<'_>, key: &str) -> Option<u64> {
    pool.get(key).filter(|v| v.known)?.text.trim().parse().ok()
}

/// Every `name` directive of the configurations that run, as `file:line: name args`.
fn nginx_lines(stack: &Stack, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for inst in crate::analysis::stack_links::active_nginx(stack) {
        let view = inst.view();
        for occ in view.named(name) {
            let (file, span) = view.location(occ);
            let args: Vec<String> = view.args(occ).iter().map(|a| a.to_string()).collect();
            out.push(format!(
                "{}:{}: {}",
                crate::escape::path(&file.path),
                file.line_of(span.start),
                crate::escape::text(&format!("{name} {}", args.join(" ")))
            ));
        }
    }
    out
}

fn pool_by_name<'a>(insts: &'a [Instance<'a>], name: &str) -> Option<&'a PoolView<'a>> {
    insts
        .iter()
        .flat_map(|i| &i.pools)
        .find(|p| p.name.eq_ignore_ascii_case(name))
}

/// The pool an nginx upstream address reaches (`unix:/run/php/www.sock`).
fn pool_at<'a>(
    insts: &'a [Instance<'a>],
    root: Option<&Path>,
    addr: &str,
) -> Option<&'a PoolView<'a>> {
    insts.iter().flat_map(|i| &i.pools).find(|p| {
        let Some(l) = p.get("listen").and_then(|v| Listen::parse(&v.text)) else {
            return false;
        };
        match (&l, addr.strip_prefix("unix:")) {
            (Listen::Unix { path }, Some(a)) => {
                let mapped = match root {
                    Some(r) => crate::stack::paths::under_root(r, Path::new(path)),
                    None => Path::new(path).to_path_buf(),
                };
                Path::new(a) == Path::new(path) || Path::new(a) == mapped
            }
            (Listen::Tcp { port, .. }, None) => addr.ends_with(&format!(":{port}")),
            _ => false,
        }
    })
}

fn bench(i: &Inputs<'_>, extra: &str) -> String {
    format!("lemplint bench {}{extra}", i.paths)
}

pub fn diagnose(i: &Inputs<'_>) -> Vec<Diagnosis> {
    let insts = crate::stack::instances::instances(i.stack);
    let mut out = Vec::new();
    for ((symptom, subject), c) in &i.scan.counts {
        let Some(t) = TEMPLATES.iter().find(|t| t.symptom == *symptom) else {
            continue;
        };
        let mut d = Diagnosis {
            symptom: t.id,
            subject: subject.clone(),
            count: c.count,
            source: "log",
            first: c.first.clone(),
            last: c.last.clone(),
            message: t.shown,
            meaning: t.meaning,
            causes: Vec::new(),
            evidence: Vec::new(),
            fixes: Vec::new(),
            confirm: None,
            lines: c.lines.clone(),
        };
        match symptom {
            Symptom::QueueFull => queue_full(i, &insts, &mut d),
            Symptom::MaxChildren | Symptom::SeemsBusy => {
                if let Some(pool) = pool_by_name(&insts, subject) {
                    max_children(i, pool, *symptom, &mut d);
                }
            }
            Symptom::WorkerConnections | Symptom::TooManyOpenFiles => {
                d.causes.extend(nginx_lines(i.stack, "worker_connections"));
                d.causes
                    .extend(nginx_lines(i.stack, "worker_rlimit_nofile"));
                d.fixes = fixes(
                    i,
                    None,
                    &[
                        "worker_connections",
                        "worker_rlimit_nofile",
                        "worker_processes",
                        "fs.file-max",
                        "fs.nr_open",
                    ],
                );
                d.confirm = Some(bench(i, " --ramp 1-1000:60s --target static"));
            }
            Symptom::UpstreamTimedOut => {
                d.causes
                    .extend(nginx_lines(i.stack, "fastcgi_read_timeout"));
                if let Some(pool) = pool_at(&insts, i.root, subject) {
                    d.causes.push(pool_line(pool, "pm.max_children", "5"));
                    d.causes
                        .push(pool_line(pool, "request_terminate_timeout", "0 (none)"));
                    d.fixes = fixes(i, Some(&pool.name), &["pm.max_children"]);
                }
                // On TCP a full accept queue drops the SYN: the connect times out instead
                // of failing at once, and the kernel counts the overflow.
                if let Some(n) = i.counters.listen_overflows.filter(|n| *n > 0) {
                    d.evidence.push(format!(
                        "the kernel counted {} ListenOverflows since boot: a TCP accept queue was full (a timeout \"while connecting to upstream\" is that queue; \"while reading response header\" is a slow answer)",
                        thousands(n)
                    ));
                    if let Some(pool) = pool_at(&insts, i.root, subject) {
                        d.fixes
                            .extend(fixes(i, Some(&pool.name), &["listen.backlog"]));
                    }
                    d.fixes.extend(fixes(
                        i,
                        None,
                        &["net.core.somaxconn", "net.ipv4.tcp_max_syn_backlog"],
                    ));
                }
                if d.causes.iter().all(|c| !c.contains("fastcgi_read_timeout")) {
                    d.causes
                        .push("fastcgi_read_timeout is not set (nginx's default: 60s)".into());
                }
                d.confirm = Some(bench(i, ""));
            }
            Symptom::NoLiveUpstreams => {
                d.causes.extend(nginx_lines(i.stack, "upstream"));
                d.evidence.push("the errors before it (queue full, timeouts) marked the servers failed: fix those first".into());
            }
            Symptom::BodyTooLarge => {
                d.causes
                    .extend(nginx_lines(i.stack, "client_max_body_size"));
                if d.causes.is_empty() {
                    d.causes
                        .push("client_max_body_size is not set (nginx's default: 1m)".into());
                }
            }
            Symptom::HeaderTooBig => {
                d.causes.extend(nginx_lines(i.stack, "fastcgi_buffer_size"));
                if d.causes.is_empty() {
                    d.causes.push(
                        "fastcgi_buffer_size is not set (nginx's default: one memory page, 4k)"
                            .into(),
                    );
                }
            }
            Symptom::ExecutionTimedOut | Symptom::ChildSignal => {
                if let Some(pool) = pool_by_name(&insts, subject) {
                    d.causes
                        .push(pool_line(pool, "request_terminate_timeout", "0 (none)"));
                    d.causes
                        .push(pool_line(pool, "pm.max_requests", "0 (never)"));
                    d.fixes = fixes(i, Some(&pool.name), &["pm.max_requests"]);
                }
            }
            Symptom::SlowRequest | Symptom::SlowlogEntry => {
                if let Some(pool) = pool_by_name(&insts, subject) {
                    d.causes
                        .push(pool_line(pool, "request_slowlog_timeout", "0 (off)"));
                }
            }
        }
        out.push(d);
    }
    status_only(i, &insts, &mut out);
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.symptom.cmp(b.symptom)));
    out
}

/// A pool whose status page counts `max children reached` while its log says nothing of it
/// (a `log_level` above `warning`, a log rotated away): the counter is the symptom.
fn status_only(i: &Inputs<'_>, insts: &[Instance<'_>], out: &mut Vec<Diagnosis>) {
    let Some(t) = TEMPLATES.iter().find(|t| t.symptom == Symptom::MaxChildren) else {
        return;
    };
    for st in &i.counters.pools {
        let Some(n) = st.get("max children reached").filter(|n| *n > 0) else {
            continue;
        };
        let logged = out
            .iter()
            .any(|d| d.symptom == t.id && d.subject.eq_ignore_ascii_case(&st.pool));
        let Some(pool) = pool_by_name(insts, &st.pool) else {
            continue;
        };
        if logged {
            continue;
        }
        let mut d = Diagnosis {
            symptom: t.id,
            subject: st.pool.clone(),
            count: n,
            source: "status page",
            first: None,
            last: None,
            message: "status page: max children reached",
            meaning: t.meaning,
            causes: Vec::new(),
            evidence: Vec::new(),
            fixes: Vec::new(),
            confirm: None,
            lines: Vec::new(),
        };
        max_children(i, pool, Symptom::MaxChildren, &mut d);
        out.push(d);
    }
}

fn queue_full(i: &Inputs<'_>, insts: &[Instance<'_>], d: &mut Diagnosis) {
    let Some(pool) = pool_at(insts, i.root, &d.subject) else {
        d.evidence.push(format!(
            "{} is not the socket of a pool of this stack: its listen queue is another server's",
            crate::escape::text(&d.subject)
        ));
        return;
    };
    d.causes.extend(
        nginx_lines(i.stack, "fastcgi_pass")
            .into_iter()
            .filter(|l| {
                let a = d.subject.trim_start_matches("unix:");
                l.contains(a)
            }),
    );
    d.causes.push(pool_line(
        pool,
        "listen.backlog",
        &FPM_DEFAULT_BACKLOG.to_string(),
    ));
    d.causes.push(pool_line(pool, "pm.max_children", "5"));
    let backlog = pool_value(pool, "listen.backlog").unwrap_or(FPM_DEFAULT_BACKLOG);
    // php-fpm passes -1 as "the system's maximum" (somaxconn).
    let queue = match i.somaxconn {
        Some(s) => {
            d.causes
                .push(format!("net.core.somaxconn = {s} (this kernel, /proc/sys)"));
            backlog.min(s)
        }
        None => backlog,
    };
    d.evidence.push(format!(
        "the pool's accept queue holds {queue} connection{}: min(listen.backlog {backlog}, somaxconn {}); with {} busy, the next {queue} wait and any more are refused at once (EAGAIN, 502)",
        if queue == 1 { "" } else { "s" },
        i.somaxconn.map_or("unknown".into(), |s| s.to_string()),
        match pool_value(pool, "pm.max_children") {
            Some(1) => "its one worker".to_string(),
            Some(n) => format!("its {n} workers"),
            None => "all its workers".to_string(),
        },
    ));
    if let Some(q) = i
        .counters
        .queues
        .iter()
        .find(|q| q.owner == format!("pool {}", pool.name))
    {
        d.evidence.push(format!(
            "now: {} waiting of {} (the kernel's backlog for {})",
            q.listener.queued,
            q.listener.backlog,
            crate::escape::text(&q.listener.addr)
        ));
    }
    if let Some(st) = i.counters.pools.iter().find(|s| s.pool == pool.name) {
        if let (Some(max), Some(len)) = (st.get("max listen queue"), st.get("listen queue len")) {
            d.evidence.push(format!(
                "status page: max listen queue {max} of listen queue len {len}{}",
                if max >= len && len > 0 {
                    ": the queue was full"
                } else {
                    ""
                }
            ));
        }
        if let Some(n) = st.get("max children reached") {
            d.evidence
                .push(format!("status page: max children reached {n}"));
        }
    }
    d.fixes = fixes(i, Some(&pool.name), &["listen.backlog", "pm.max_children"]);
    d.fixes.extend(fixes(i, None, &["net.core.somaxconn"]));
    d.confirm = Some(bench(i, " --experiment backlog"));
}

fn max_children(i: &Inputs<'_>, pool: &PoolView<'_>, symptom: Symptom, d: &mut Diagnosis) {
    d.causes.push(pool_line(pool, "pm", "dynamic"));
    d.causes.push(pool_line(pool, "pm.max_children", "5"));
    let keys: &[&str] = if symptom == Symptom::SeemsBusy {
        d.causes
            .push(pool_line(pool, "pm.start_servers", "min + (max − min) / 2"));
        d.causes.push(pool_line(pool, "pm.min_spare_servers", "1"));
        d.causes.push(pool_line(pool, "pm.max_spare_servers", "3"));
        &[
            "pm.start_servers",
            "pm.min_spare_servers",
            "pm.max_spare_servers",
            "pm.max_children",
        ]
    } else {
        &[
            "pm",
            "pm.max_children",
            "pm.min_spare_servers",
            "pm.max_spare_servers",
            "pm.start_servers",
        ]
    };
    if let Some(st) = i.counters.pools.iter().find(|s| s.pool == pool.name) {
        for k in [
            "max children reached",
            "max active processes",
            "listen queue",
        ] {
            if let Some(n) = st.get(k) {
                d.evidence.push(format!("status page: {k} {n}"));
            }
        }
    }
    if let Some(s) = &i.counters.worker_rss {
        d.evidence.push(format!(
            "running workers use {} p95 (mean {}, {} workers)",
            crate::tune::mib(s.p95),
            crate::tune::mib(s.mean),
            s.workers
        ));
    }
    if let Some(free) = i.counters.mem_available {
        d.evidence.push(format!(
            "this machine has {} available now (MemAvailable)",
            crate::tune::mib(free)
        ));
    }
    if let (Some(a), Some(m)) = (i.assumptions, i.stack.host.memory.as_ref()) {
        d.evidence.push(format!(
            "memory {} ({}), reserve {} ({}), PHP worker {} ({})",
            crate::tune::mib(m.value),
            m.source,
            crate::tune::mib(a.reserve),
            a.reserve_source,
            crate::tune::mib(a.php_worker_rss),
            a.php_worker_rss_source
        ));
    }
    d.fixes = fixes(i, Some(&pool.name), keys);
    d.confirm = Some(bench(i, ""));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::logs::Count;

    /// A stack whose nginx passes to a pool on loopback TCP with a short queue.
    fn tcp_stack(dir: &Path) -> crate::engine::Workspace {
        let put = |rel: &str, text: &str| {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        put(
            "etc/nginx/nginx.conf",
            "events {}\nhttp {\n    server {\n        listen 80;\n        location ~ \\.php$ {\n            fastcgi_pass 127.0.0.1:9000;\n        }\n    }\n}\n",
        );
        put(
            "etc/php/8.2/fpm/php-fpm.conf",
            "[global]\n[www]\nlisten = 127.0.0.1:9000\nlisten.backlog = 64\npm = static\npm.max_children = 4\n",
        );
        crate::engine::Workspace::load(&crate::engine::StackArgs {
            paths: vec![dir.to_path_buf()],
            cpus: Some(2),
            memory: Some("2GiB".into()),
            isolated: true,
            ..Default::default()
        })
        .unwrap()
    }

    #[test]
    fn a_tcp_timeout_with_overflows_is_tied_to_the_queue() {
        let dir = tempfile::tempdir().unwrap();
        let ws = tcp_stack(dir.path());
        let stack = &ws.stacks[0];
        let a = Assumptions {
            php_worker_rss: 64 << 20,
            php_worker_rss_source: "default".into(),
            reserve: 512 << 20,
            reserve_source: "default".into(),
        };
        let plan = crate::tune::plan(stack, &a).unwrap();
        let mut scan = Scan::default();
        scan.counts.insert(
            (Symptom::UpstreamTimedOut, "127.0.0.1:9000".into()),
            Count {
                count: 3,
                ..Default::default()
            },
        );
        let diagnose_with = |overflows: u64| {
            let counters = Counters {
                listen_overflows: Some(overflows),
                ..Default::default()
            };
            diagnose(&Inputs {
                stack,
                root: None,
                scan: &scan,
                counters: &counters,
                plan: Some(&plan),
                assumptions: Some(&a),
                paths: "/".into(),
                somaxconn: Some(4096),
            })
        };
        let d = &diagnose_with(7)[0];
        assert_eq!(d.symptom, "upstream_timed_out");
        assert!(
            d.evidence.iter().any(|e| e.contains("7 ListenOverflows")),
            "{d:?}"
        );
        let backlog = d
            .fixes
            .iter()
            .find(|f| f.setting == "[www] listen.backlog")
            .unwrap_or_else(|| panic!("{d:?}"));
        let tuned = plan
            .recommendations
            .iter()
            .find(|r| r.setting == "[www] listen.backlog")
            .unwrap();
        assert_eq!(backlog.recommended, tuned.recommended);
        // No overflow: a slow answer, not the queue.
        let d = &diagnose_with(0)[0];
        assert!(
            d.evidence.iter().all(|e| !e.contains("ListenOverflows")),
            "{d:?}"
        );
        assert!(
            d.fixes.iter().all(|f| f.setting != "[www] listen.backlog"),
            "{d:?}"
        );
    }

    #[test]
    fn counts_read_with_separators() {
        assert_eq!(thousands(1482), "1,482");
        assert_eq!(thousands(46234), "46,234");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}
