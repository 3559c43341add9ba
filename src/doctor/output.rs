//! doctor's report: for a person (text), for programs (JSON), and for monitoring
//! (Prometheus' text exposition format, to be scraped from a file by node_exporter's
//! textfile collector).

use super::diagnose::thousands;
use super::Report;
use serde_json::json;
use std::fmt::Write as _;

pub fn text(reports: &[Report]) -> String {
    let mut o = String::new();
    for r in reports {
        let _ = writeln!(o, "Stack {}", if r.root.is_empty() { "." } else { &r.root });
        if !r.host.is_empty() {
            let _ = writeln!(o, "  host: {}", r.host.join(", "));
        }
        for (who, c) in &r.cgroups {
            let mem = c.memory_max.map_or("no limit".into(), crate::tune::mib);
            let cpu = c.cpus.map_or("no limit".into(), |n| format!("{n:.2} CPUs"));
            let _ = writeln!(
                o,
                "  cgroup of {who}: {} (memory.max {mem}, cpu.max {cpu})",
                crate::escape::text(&c.path)
            );
        }
        if r.running.is_empty() {
            let _ = writeln!(
                o,
                "  running: no nginx or php-fpm master runs this configuration"
            );
        }
        for m in &r.running {
            let _ = writeln!(
                o,
                "  running: {} master pid {} ({}), {} worker{}",
                match m.kind {
                    super::procs::Kind::Nginx => "nginx",
                    super::procs::Kind::PhpFpm => "php-fpm",
                },
                m.proc.pid,
                crate::escape::path(&m.conf),
                m.workers.len(),
                if m.workers.len() == 1 { "" } else { "s" }
            );
        }
        let _ = writeln!(o, "  logs read, {}:", r.window);
        for (p, lines) in &r.scan.read {
            let _ = writeln!(
                o,
                "    {}  {} lines",
                crate::escape::path(p),
                thousands(*lines)
            );
        }
        if r.scan.read.is_empty() {
            let _ = writeln!(o, "    none");
        }
        counters(&mut o, r);
        if r.diagnoses.is_empty() {
            let _ = writeln!(o, "\n  No symptom in the logs.");
        }
        for d in &r.diagnoses {
            let nginx = super::templates::TEMPLATES
                .iter()
                .any(|t| t.id == d.symptom && t.server == super::templates::Server::Nginx);
            let subject = match () {
                _ if d.subject.is_empty() => String::new(),
                _ if nginx => format!(" on {}", crate::escape::text(&d.subject)),
                _ => format!(" in pool {}", crate::escape::text(&d.subject)),
            };
            let _ = writeln!(o, "\n  {} × {}{subject}", thousands(d.count), d.message);
            match (&d.first, &d.last) {
                (Some(f), Some(l)) => {
                    let _ = writeln!(o, "    from {f} to {l}");
                }
                _ if d.source != "log" => {
                    let _ = writeln!(o, "    counted by the {} since the pool started", d.source);
                }
                _ => {}
            }
            let _ = writeln!(o, "    means: {}", d.meaning);
            for c in &d.causes {
                let _ = writeln!(o, "    because: {c}");
            }
            for e in &d.evidence {
                let _ = writeln!(o, "    shows: {e}");
            }
            for f in &d.fixes {
                let _ = writeln!(
                    o,
                    "    fix ({}): {} {} → {}  ({})",
                    f.at,
                    f.setting,
                    f.current.as_deref().unwrap_or("(unset)"),
                    f.recommended,
                    f.reason
                );
            }
            if let Some(c) = &d.confirm {
                let _ = writeln!(o, "    confirm: {c}");
            }
            for l in &d.lines {
                let _ = writeln!(o, "    | {l}");
            }
        }
        if !r.drift.is_empty() {
            let _ = writeln!(o, "\n  Running state vs files:");
            for d in &r.drift {
                let _ = writeln!(o, "    {}: {}", d.at, d.message);
            }
        }
        for n in &r.notes {
            let _ = writeln!(o, "  note: {n}");
        }
        if !r.not_read.is_empty() {
            let _ = writeln!(o, "  not read:");
            for n in &r.not_read {
                let _ = writeln!(o, "    {n}");
            }
        }
    }
    o
}

fn counters(o: &mut String, r: &Report) {
    let c = &r.counters;
    if let (Some(ov), Some(dr)) = (c.listen_overflows, c.listen_drops) {
        let _ = writeln!(
            o,
            "  kernel: ListenOverflows {}, ListenDrops {} (since boot, this network namespace)",
            thousands(ov),
            thousands(dr)
        );
    }
    for q in &c.queues {
        let _ = writeln!(
            o,
            "  accept queue of {} ({}): {} waiting of {}",
            crate::escape::text(&q.listener.addr),
            crate::escape::text(&q.owner),
            q.listener.queued,
            q.listener.backlog
        );
    }
    for p in &c.pools {
        let wanted = [
            "listen queue",
            "max listen queue",
            "listen queue len",
            "active processes",
            "total processes",
            "max children reached",
            "slow requests",
        ];
        let shown: Vec<String> = wanted
            .iter()
            .filter_map(|k| {
                p.fields
                    .iter()
                    .find(|(n, _)| n == k)
                    .map(|(n, v)| format!("{n} {}", crate::escape::text(v)))
            })
            .collect();
        let _ = writeln!(
            o,
            "  pool {} status: {}",
            crate::escape::text(&p.pool),
            shown.join(", ")
        );
    }
    if let Some(s) = &c.worker_rss {
        let _ = writeln!(
            o,
            "  PHP workers: {} running, {} p95, {} mean (resident)",
            s.workers,
            crate::tune::mib(s.p95),
            crate::tune::mib(s.mean)
        );
    }
}

pub fn json(reports: &[Report]) -> serde_json::Value {
    let stacks: Vec<_> = reports
        .iter()
        .map(|r| {
            json!({
                "root": r.root,
                "host": r.host,
                "window": r.window,
                "logs": r.scan.read.iter().map(|(p, n)| json!({"path": crate::escape::path(p), "lines": n})).collect::<Vec<_>>(),
                "configured_logs": r.scan.logs.iter().map(|l| json!({"server": l.server, "written": l.written, "path": crate::escape::path(&l.path), "at": l.at})).collect::<Vec<_>>(),
                "running": r.running.iter().map(|m| json!({"kind": m.kind, "pid": m.proc.pid, "conf": crate::escape::path(&m.conf), "workers": m.workers.len()})).collect::<Vec<_>>(),
                "counters": r.counters,
                "cgroups": r.cgroups.iter().map(|(w, c)| json!({"of": w, "cgroup": c})).collect::<Vec<_>>(),
                "symptoms": r.diagnoses,
                "drift": r.drift,
                "not_read": r.not_read,
                "notes": r.notes,
            })
        })
        .collect();
    json!({"version": 1, "stacks": stacks})
}

/// A label value as the exposition format quotes it.
fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// One metric family: its HELP and TYPE, then all its samples (the exposition format wants
/// a family's samples together, after its TYPE line).
fn family(o: &mut String, name: &str, kind: &str, help: &str, samples: &[(String, u64)]) {
    let _ = writeln!(o, "# HELP {name} {help}\n# TYPE {name} {kind}");
    for (labels, v) in samples {
        if labels.is_empty() {
            let _ = writeln!(o, "{name} {v}");
        } else {
            let _ = writeln!(o, "{name}{{{labels}}} {v}");
        }
    }
}

pub fn prometheus(reports: &[Report]) -> String {
    let mut o = String::new();
    let mut messages = Vec::new();
    let (mut queued, mut backlog, mut fpm, mut drift, mut rss) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in reports {
        let stack = format!("stack=\"{}\"", label(&r.root));
        for d in &r.diagnoses {
            messages.push((
                format!(
                    "{stack},symptom=\"{}\",subject=\"{}\",source=\"{}\"",
                    d.symptom,
                    label(&d.subject),
                    d.source
                ),
                d.count,
            ));
        }
        for q in &r.counters.queues {
            let l = format!(
                "addr=\"{}\",owner=\"{}\"",
                label(&q.listener.addr),
                label(&q.owner)
            );
            queued.push((l.clone(), q.listener.queued as u64));
            backlog.push((l, q.listener.backlog as u64));
        }
        for p in &r.counters.pools {
            for (k, v) in &p.fields {
                if let Ok(n) = v.parse::<u64>() {
                    fpm.push((
                        format!(
                            "pool=\"{}\",field=\"{}\"",
                            label(&p.pool),
                            label(&k.replace(' ', "_"))
                        ),
                        n,
                    ));
                }
            }
        }
        let mut kinds: std::collections::BTreeMap<&str, u64> = Default::default();
        for d in &r.drift {
            *kinds.entry(d.kind).or_default() += 1;
        }
        for (k, n) in kinds {
            drift.push((format!("{stack},kind=\"{k}\""), n));
        }
        if let Some(s) = &r.counters.worker_rss {
            for (q, v) in [("p95", s.p95), ("mean", s.mean)] {
                rss.push((format!("{stack},stat=\"{q}\""), v));
            }
        }
    }
    family(
        &mut o,
        "lemplint_doctor_log_messages",
        "gauge",
        "Messages of a symptom in the window read (per upstream or pool; source log or status page).",
        &messages,
    );
    // The kernel's counters are the machine's (this network namespace): once.
    let kernel = reports.first().map(|r| &r.counters);
    let one = |v: Option<u64>| {
        v.map(|v| (String::new(), v))
            .into_iter()
            .collect::<Vec<_>>()
    };
    family(
        &mut o,
        "lemplint_doctor_listen_overflows",
        "counter",
        "TcpExt ListenOverflows since boot (this network namespace).",
        &one(kernel.and_then(|c| c.listen_overflows)),
    );
    family(
        &mut o,
        "lemplint_doctor_listen_drops",
        "counter",
        "TcpExt ListenDrops since boot (this network namespace).",
        &one(kernel.and_then(|c| c.listen_drops)),
    );
    family(
        &mut o,
        "lemplint_doctor_accept_queue",
        "gauge",
        "Connections waiting in a configured listener's accept queue.",
        &queued,
    );
    family(
        &mut o,
        "lemplint_doctor_accept_backlog",
        "gauge",
        "The accept queue's size the kernel enforces for a configured listener.",
        &backlog,
    );
    family(
        &mut o,
        "lemplint_doctor_fpm_status",
        "gauge",
        "A numeric field of a pool's PHP-FPM status page.",
        &fpm,
    );
    family(
        &mut o,
        "lemplint_doctor_drift",
        "gauge",
        "Differences between the running state and the files, by kind.",
        &drift,
    );
    family(
        &mut o,
        "lemplint_doctor_php_worker_rss_bytes",
        "gauge",
        "Resident memory of the running PHP-FPM workers (p95 and mean).",
        &rss,
    );
    o
}
