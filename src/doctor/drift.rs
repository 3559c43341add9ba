//! The running state against the files: configuration files changed since the running
//! workers read them, kernel values in `/proc/sys` that differ from what the sysctl files
//! say after `sysctl --system`'s ordering, workers whose open-files limit is below their
//! `worker_connections`, and a unit's `LimitNOFILE` the running master does not have. (The
//! cgroup limits are read by [`crate::host::cgroup_limits`], which `--host local` uses too.)

use super::main_file;
use super::procs::{self, Kind, Master};
use crate::stack::model::Stack;
use std::path::Path;

#[derive(Clone, Debug, serde::Serialize)]
pub struct Drift {
    /// `changed-since-start`, `sysctl-not-applied`, `nofile-below-connections`,
    /// `limit-not-applied`.
    pub kind: &'static str,
    /// `file:line` the finding is about.
    pub at: String,
    pub message: String,
}

/// Files of each running master's configuration modified after its workers started.
pub fn changed_files(stack: &Stack, masters: &[Master], out: &mut Vec<Drift>) {
    for m in masters {
        let read_at = m.read_at();
        let files: Vec<&Path> = match m.kind {
            Kind::Nginx => stack
                .nginx
                .iter()
                .filter(|i| main_file(i).is_some_and(|f| same_file(f, &m.conf)))
                .flat_map(|i| i.config.files.iter().map(|f| f.source.path.as_path()))
                .collect(),
            Kind::PhpFpm => stack
                .fpm
                .iter()
                .filter(|c| {
                    c.files
                        .first()
                        .is_some_and(|f| same_file(&f.source.path, &m.conf))
                })
                .flat_map(|c| c.files.iter().map(|f| f.source.path.as_path()))
                .collect(),
        };
        for f in files {
            let Some(mtime) = std::fs::metadata(f)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_secs_f64())
            else {
                continue;
            };
            // Start times are counted in clock ticks (10 ms): a file written in the tick
            // the worker started is not later than it.
            if mtime > read_at + 0.02 {
                let (what, how) = match m.kind {
                    Kind::Nginx => ("nginx", "nginx -t && nginx -s reload"),
                    Kind::PhpFpm => ("php-fpm", "php-fpm -t, then reload the service"),
                };
                out.push(Drift {
                    kind: "changed-since-start",
                    at: format!("{}:1", crate::escape::path(f)),
                    message: format!(
                        "changed {} after the running {what} (pid {}) read its configuration: what runs is not what the file says; check and reload ({how})",
                        ago(mtime - read_at),
                        m.proc.pid
                    ),
                });
            }
        }
    }
}

fn ago(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    match s {
        0..=119 => format!("{s} s"),
        120..=7199 => format!("{} min", s / 60),
        _ => format!("{} h", s / 3600),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(a) == canon(b)
}

/// A kernel value as `/proc/sys` shows it (`None` when the key is unknown or unreadable).
pub fn proc_sys(key: &str) -> Result<String, std::io::Error> {
    let rel: String = key
        .trim_start_matches('-')
        .chars()
        .map(|c| if c == '.' { '/' } else { c })
        .collect();
    if rel.split('/').any(|p| p == ".." || p.is_empty()) {
        return Err(std::io::ErrorKind::InvalidInput.into());
    }
    std::fs::read_to_string(Path::new("/proc/sys").join(rel))
}

/// Compares every value the sysctl files set (the last assignment, as `sysctl --system`
/// applies them) with the kernel's.
pub fn sysctl(stack: &Stack, out: &mut Vec<Drift>, not_read: &mut Vec<String>) {
    for key in stack.sysctl.keys.keys() {
        let Some((set, value)) = stack.sysctl.effective(key) else {
            continue;
        };
        let file = &stack.sysctl.files[set.file];
        // systemd-sysctl's patterns (`net.ipv4.conf.*.rp_filter`) name many keys, some
        // made later (interfaces): not compared.
        if !file.system || key.contains('*') {
            continue;
        }
        let line = stack
            .sysctl
            .assignment(set)
            .map_or(1, |a| file.source.line_of(a.key.start));
        let at = format!("{}:{line}", crate::escape::path(&file.source.path));
        let kernel = match proc_sys(key) {
            Ok(v) => v,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                not_read.push(format!(
                    "{at}: {} is not a key of this kernel (or of this network namespace)",
                    crate::escape::text(key)
                ));
                continue;
            }
            Err(e) => {
                not_read.push(format!("/proc/sys for {}: {e}", crate::escape::text(key)));
                continue;
            }
        };
        let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let (want, have) = (norm(&value), norm(&kernel));
        if want == have {
            continue;
        }
        // Why is not known from here: `sysctl --system` not run since the file changed, a
        // later tool setting the key, or the kernel refusing or capping the value on write.
        out.push(Drift {
            kind: "sysctl-not-applied",
            at,
            message: format!(
                "{} = {} in the file, but the kernel has {}: the file was never applied (run `sysctl --system`), something set the key since, or the kernel refused or capped the value",
                crate::escape::text(key),
                crate::escape::text(&want),
                crate::escape::text(&have)
            ),
        });
    }
}

/// nginx workers whose open-files limit is below what `worker_connections` needs.
pub fn nofile(stack: &Stack, masters: &[Master], out: &mut Vec<Drift>, not_read: &mut Vec<String>) {
    for m in masters.iter().filter(|m| m.kind == Kind::Nginx) {
        let Some(inst) = stack
            .nginx
            .iter()
            .find(|i| main_file(i).is_some_and(|f| same_file(f, &m.conf)))
        else {
            continue;
        };
        let view = inst.view();
        let Some(occ) = view.named("worker_connections").next() else {
            continue;
        };
        let Some(wc) = view.arg(occ, 0).and_then(|a| a.parse::<u64>().ok()) else {
            continue;
        };
        let (file, span) = view.location(occ);
        let at = format!(
            "{}:{}",
            crate::escape::path(&file.path),
            file.line_of(span.start)
        );
        for w in m
            .workers
            .iter()
            .filter(|w| w.title.contains("worker process"))
        {
            match procs::nofile(w.pid) {
                Some((soft, _)) if soft < wc => out.push(Drift {
                    kind: "nofile-below-connections",
                    at: at.clone(),
                    message: format!(
                        "nginx worker pid {} may open {soft} files, fewer than worker_connections {wc} (each connection is a descriptor, an upstream connection another): \"Too many open files\" comes before the connections run out; raise worker_rlimit_nofile (or the service's LimitNOFILE)",
                        w.pid
                    ),
                }),
                Some(_) => {}
                None => not_read.push(format!("/proc/{}/limits: not readable", w.pid)),
            }
        }
    }
}

/// The open-files limit nginx's systemd unit gives (`LimitNOFILE=`, read into the host facts
/// from the tree) against the running master's: a unit edited after the service started.
pub fn unit_limit(stack: &Stack, masters: &[Master], out: &mut Vec<Drift>) {
    let Some(fact) = &stack.host.nofile else {
        return;
    };
    let crate::host::Provenance::File { file, line, text } = &fact.source else {
        return;
    };
    for m in masters.iter().filter(|m| m.kind == Kind::Nginx) {
        let Some((soft, _)) = procs::nofile(m.proc.pid) else {
            continue;
        };
        if soft != fact.value {
            out.push(Drift {
                kind: "limit-not-applied",
                at: format!("{file}:{line}"),
                message: format!(
                    "{} in the unit, but the running nginx master (pid {}) may open {soft} files: the unit changed after nginx started (systemctl daemon-reload, then restart nginx), or something else started it",
                    crate::escape::text(text),
                    m.proc.pid
                ),
            });
        }
    }
}
