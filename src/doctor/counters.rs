//! Live counters: PHP-FPM's status page read on the pool's own socket, the kernel's listen
//! queue overflow counters, each configured listener's accept queue, and the PHP workers'
//! resident memory.

use super::fastcgi::{self, Target};
use super::procs::{self, Kind, Master};
use super::sockdiag::{self, Listener};
use crate::stack::fpm::Listen;
use crate::stack::model::Stack;
use crate::stack::paths::under_root;
use crate::tune::rss::Sample;
use std::path::Path;

#[derive(Clone, Debug, serde::Serialize)]
pub struct PoolStatus {
    pub pool: String,
    pub listen: String,
    /// The status page's fields, as PHP-FPM names them (`max listen queue`, …).
    pub fields: Vec<(String, String)>,
}

impl PoolStatus {
    pub fn get(&self, name: &str) -> Option<u64> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.parse().ok())
    }
}

/// A configured listener and what the kernel says of it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Queue {
    /// `pool www`, `nginx`.
    pub owner: String,
    #[serde(flatten)]
    pub listener: Listener,
}

#[derive(Debug, Default, serde::Serialize)]
pub struct Counters {
    /// `TcpExt: ListenOverflows` and `ListenDrops` since boot (this network namespace).
    pub listen_overflows: Option<u64>,
    pub listen_drops: Option<u64>,
    pub queues: Vec<Queue>,
    pub pools: Vec<PoolStatus>,
    /// The running PHP workers' resident memory (the percentile `tune --sample` uses).
    pub worker_rss: Option<Sample>,
    /// `MemAvailable` of `/proc/meminfo`, in bytes: what the machine could still give.
    pub mem_available: Option<u64>,
    #[serde(skip)]
    pub notes: Vec<String>,
}

/// `TcpExt` counters from `/proc/net/netstat` (a header line of names, then values).
pub fn netstat(text: &str) -> Vec<(String, u64)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for pair in lines.chunks(2) {
        let [names, values] = pair else { continue };
        let (Some(("TcpExt", n)), Some(("TcpExt", v))) =
            (names.split_once(':'), values.split_once(':'))
        else {
            continue;
        };
        for (k, v) in n.split_whitespace().zip(v.split_whitespace()) {
            if let Ok(v) = v.parse() {
                out.push((k.to_string(), v));
            }
        }
    }
    out
}

/// Where a pool listens, as a path or address of this machine.
fn pool_addr(listen: &Listen, root: Option<&Path>) -> String {
    match listen {
        Listen::Unix { path } => {
            let p = Path::new(path);
            match root {
                Some(r) if p.is_absolute() => format!("unix:{}", under_root(r, p).display()),
                _ => format!("unix:{path}"),
            }
        }
        Listen::Tcp { host, port } => match host.as_deref() {
            Some(h) if h.contains(':') => format!("[{h}]:{port}"),
            Some(h) => format!("{h}:{port}"),
            None => format!("0.0.0.0:{port}"),
        },
    }
}

pub fn read(stack: &Stack, root: Option<&Path>, masters: &[Master]) -> Counters {
    let mut c = Counters::default();
    match std::fs::read_to_string("/proc/net/netstat") {
        Ok(t) => {
            let all = netstat(&t);
            let get = |k: &str| all.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
            c.listen_overflows = get("ListenOverflows");
            c.listen_drops = get("ListenDrops");
        }
        Err(e) => c.notes.push(format!("/proc/net/netstat: {e}")),
    }
    let listeners = match sockdiag::listeners() {
        Ok(l) => l,
        Err(e) => {
            c.notes.push(e);
            Vec::new()
        }
    };
    for inst in crate::stack::instances::instances(stack) {
        for pool in &inst.pools {
            let Some(listen) = pool.get("listen").and_then(|v| Listen::parse(&v.text)) else {
                continue;
            };
            let addr = pool_addr(&listen, root);
            let owner = format!("pool {}", pool.name);
            if let Some(l) = listeners.iter().find(|l| same_addr(&l.addr, &addr)) {
                c.queues.push(Queue {
                    owner: owner.clone(),
                    listener: l.clone(),
                });
            }
            let Some(status) = pool.get("pm.status_path").filter(|v| v.known) else {
                continue;
            };
            let target_addr;
            let target = match &listen {
                Listen::Unix { .. } => {
                    target_addr = std::path::PathBuf::from(addr.trim_start_matches("unix:"));
                    Target::Unix(&target_addr)
                }
                Listen::Tcp { host, port } => {
                    let h = host.as_deref().unwrap_or("127.0.0.1");
                    match format!("{h}:{port}")
                        .parse()
                        .or_else(|_| format!("[{h}]:{port}").parse())
                    {
                        Ok(a) => Target::Tcp(a),
                        Err(_) => {
                            c.notes.push(format!(
                                "pool {}: status not read: {} is not an address",
                                crate::escape::text(&pool.name),
                                crate::escape::text(h)
                            ));
                            continue;
                        }
                    }
                }
            };
            match fastcgi::get(&target, status.text.trim(), "") {
                Ok(body) => c.pools.push(PoolStatus {
                    pool: pool.name.clone(),
                    listen: addr,
                    fields: fastcgi::parse_status(&body),
                }),
                Err(e) => c.notes.push(format!(
                    "pool {}: status page {} on {}: {e}",
                    crate::escape::text(&pool.name),
                    crate::escape::text(&status.text),
                    crate::escape::text(&addr)
                )),
            }
        }
    }
    for m in masters.iter().filter(|m| m.kind == Kind::Nginx) {
        // nginx's listeners are the sockets its master holds; told apart from others by
        // the ports the configuration names.
        for inst in stack.nginx.iter() {
            let view = inst.view();
            for occ in view.named("listen") {
                let Some(a) = view.arg(occ, 0) else { continue };
                let port = a.rsplit(':').next().unwrap_or(&a);
                for l in listeners.iter().filter(|l| {
                    !l.addr.starts_with("unix:") && l.addr.ends_with(&format!(":{port}"))
                }) {
                    if !c.queues.iter().any(|q| q.listener.addr == l.addr) {
                        c.queues.push(Queue {
                            owner: format!("nginx (pid {})", m.proc.pid),
                            listener: l.clone(),
                        });
                    }
                }
            }
        }
    }
    let rss: Vec<u64> = masters
        .iter()
        .filter(|m| m.kind == Kind::PhpFpm)
        .flat_map(|m| &m.workers)
        .filter(|w| crate::tune::rss::is_worker("php-fpm", &w.title))
        .filter_map(|w| procs::rss(w.pid))
        .collect();
    c.worker_rss = crate::tune::rss::summarize(rss);
    c.mem_available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| mem_available(&t));
    c
}

/// `MemAvailable:  2201596 kB` → bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let kb: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

fn same_addr(kernel: &str, configured: &str) -> bool {
    if kernel == configured {
        return true;
    }
    // A socket path through a symlinked directory (`/var/run` → `/run`).
    match (
        kernel.strip_prefix("unix:"),
        configured.strip_prefix("unix:"),
    ) {
        (Some(k), Some(c)) => std::fs::canonicalize(c).is_ok_and(|c| c == Path::new(k)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn available_memory_is_read_in_bytes() {
        let t = "MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:    2201596 kB\n";
        assert_eq!(mem_available(t), Some(2_201_596 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn tcpext_counters_are_read_by_name() {
        let t = "TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 0 12 14\nIpExt: InNoRoutes\nIpExt: 3\n";
        let n = netstat(t);
        assert_eq!(
            n,
            vec![
                ("SyncookiesSent".to_string(), 0),
                ("ListenOverflows".to_string(), 12),
                ("ListenDrops".to_string(), 14)
            ]
        );
    }
}
