//! The running servers, read from `/proc`: which nginx and PHP-FPM masters run which
//! configuration file, when they and their workers started, their limits and memory.
//! Nothing is executed and nothing is signalled.

use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct Proc {
    pub pid: u32,
    pub ppid: u32,
    /// Seconds since the epoch.
    pub started: f64,
    /// The command line as the process shows it (nginx and PHP-FPM rewrite it into a title).
    pub title: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Nginx,
    PhpFpm,
}

/// A master process and the configuration file it was started with.
#[derive(Clone, Debug)]
pub struct Master {
    pub kind: Kind,
    pub proc: Proc,
    /// Its main configuration file as a path of this machine (canonical when it exists).
    pub conf: PathBuf,
    /// nginx's `-p` prefix, which relative log paths are relative to.
    pub prefix: Option<PathBuf>,
    pub workers: Vec<Proc>,
}

impl Master {
    /// When the running workers read the configuration: the oldest serving worker's start
    /// (a reload starts new workers and lets the old ones finish), or the master's.
    pub fn read_at(&self) -> f64 {
        self.workers
            .iter()
            .filter(|w| !w.title.contains("shutting down"))
            .map(|w| w.started)
            .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.min(t))))
            .unwrap_or(self.proc.started)
    }
}

/// When the machine booted, in seconds since the epoch, to a hundredth of a second: now less
/// `/proc/uptime` (the same clock process start times count on). `btime` in `/proc/stat` is
/// whole seconds, too coarse to tell a file written just before a process started from one
/// written just after.
fn boot_time() -> Option<f64> {
    let up: f64 = std::fs::read_to_string("/proc/uptime")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs_f64();
    Some(now - up)
}

fn read_proc(pid: u32, boot: f64, tick: f64) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name is in parentheses and may hold spaces: fields count from after the last `)`.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state (3rd field) is index 0, ppid (4th) 1, starttime (22nd) 19.
    let ppid = fields.get(1)?.parse().ok()?;
    let start_ticks: f64 = fields.get(19)?.parse().ok()?;
    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let title = String::from_utf8_lossy(&cmd)
        .trim_end_matches('\0')
        .replace('\0', " ");
    Some(Proc {
        pid,
        ppid,
        started: boot + start_ticks / tick,
        title,
    })
}

/// Every process this user may see.
pub fn all() -> Vec<Proc> {
    let Some(boot) = boot_time() else {
        return Vec::new();
    };
    // SAFETY: sysconf has no preconditions.
    let tick = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| read_proc(pid, boot, tick))
        .collect()
}

/// The configuration file a master's title names: nginx's `-c FILE` (its compiled-in
/// default without one), PHP-FPM's `master process (FILE)`.
pub fn master_conf(title: &str) -> Option<(Kind, PathBuf)> {
    if let Some(rest) = title.strip_prefix("nginx: master process") {
        let conf = flag(rest, "-c").unwrap_or("/etc/nginx/nginx.conf");
        return Some((Kind::Nginx, PathBuf::from(conf)));
    }
    if title.starts_with("php-fpm: master process (") {
        let inner = title.split_once('(')?.1.rsplit_once(')')?.0;
        return Some((Kind::PhpFpm, PathBuf::from(inner)));
    }
    None
}

/// The word after `flag` in an nginx master's title (`-p /srv/nginx/`).
pub fn flag<'a>(title: &'a str, flag: &str) -> Option<&'a str> {
    let words: Vec<&str> = title.split_whitespace().collect();
    words
        .iter()
        .position(|w| *w == flag)
        .and_then(|i| words.get(i + 1).copied())
}

/// The masters running one of `confs` (paths of this machine), with their workers.
pub fn masters(procs: &[Proc], confs: &[(Kind, PathBuf)]) -> Vec<Master> {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let wanted: Vec<(Kind, PathBuf)> = confs.iter().map(|(k, p)| (*k, canon(p))).collect();
    procs
        .iter()
        .filter_map(|p| {
            let (kind, conf) = master_conf(&p.title)?;
            let conf = canon(&conf);
            wanted.contains(&(kind, conf.clone())).then(|| Master {
                kind,
                proc: p.clone(),
                conf,
                prefix: flag(&p.title, "-p").map(PathBuf::from),
                workers: procs
                    .iter()
                    .filter(|w| w.ppid == p.pid && w.pid != p.pid)
                    .cloned()
                    .collect(),
            })
        })
        .collect()
}

/// `Max open files` (soft, hard) from `/proc/PID/limits`.
pub fn nofile(pid: u32) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/limits")).ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    let mut nums = line["Max open files".len()..].split_whitespace();
    let parse = |w: Option<&str>| -> Option<u64> {
        match w? {
            "unlimited" => Some(u64::MAX),
            n => n.parse().ok(),
        }
    };
    Some((parse(nums.next())?, parse(nums.next())?))
}

/// Resident memory in bytes (`VmRSS`).
pub fn rss(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masters_name_their_configuration() {
        assert_eq!(
            master_conf(
                "nginx: master process /usr/sbin/nginx -c /srv/x/nginx.conf -g daemon off;"
            ),
            Some((Kind::Nginx, PathBuf::from("/srv/x/nginx.conf")))
        );
        assert_eq!(
            master_conf("nginx: master process /usr/sbin/nginx"),
            Some((Kind::Nginx, PathBuf::from("/etc/nginx/nginx.conf")))
        );
        assert_eq!(
            master_conf("php-fpm: master process (/etc/php/8.2/fpm/php-fpm.conf)"),
            Some((Kind::PhpFpm, PathBuf::from("/etc/php/8.2/fpm/php-fpm.conf")))
        );
        assert_eq!(master_conf("nginx: worker process"), None);
        assert_eq!(
            flag(
                "nginx: master process /usr/sbin/nginx -p /srv/n/ -c x.conf",
                "-p"
            ),
            Some("/srv/n/")
        );
        assert_eq!(master_conf("php-fpm: pool www"), None);
    }

    #[test]
    fn this_process_is_seen_with_its_limits() {
        let me = std::process::id();
        let procs = all();
        let p = procs.iter().find(|p| p.pid == me).unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        assert!(
            p.started <= now + 1.0 && p.started > now - 86_400.0,
            "{p:?}"
        );
        let (soft, hard) = nofile(me).unwrap();
        assert!(soft <= hard && soft > 0);
        assert!(rss(me).unwrap() > 0);
    }
}
