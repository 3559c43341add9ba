//! One sizing model for the rules and the tuner: how much memory PHP may use, how big a
//! worker is, how many descriptors an nginx worker needs, and the kernel's defaults. The
//! rules judge a configuration with it and `tune` derives settings from it, so after
//! `lemplint tune --write` the sizing rules are silent with the same host facts and options.

use crate::host::{HostFacts, KernelVersion};
use crate::size::parse_size;
pub use crate::size::Reserve;

/// The default memory of one PHP worker: typical application workers measure 30–100 MB
/// (domain research §4); measure yours with `ps -o rss -C php-fpm8.2` or `tune --sample`.
pub const DEFAULT_WORKER_RSS: u64 = 64 << 20;
/// The default share of memory kept for the OS, nginx, databases and caches.
pub const DEFAULT_RESERVE: Reserve = Reserve::Percent(25.0);

/// The memory model: a worker's size and the reserve, each with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryModel {
    pub worker_rss: u64,
    pub worker_rss_source: String,
    /// `worker_rss` is lemplint's default guess: nothing measured or configured it.
    pub worker_rss_guessed: bool,
    pub reserve: Reserve,
    pub reserve_source: String,
}

/// `[rules.FPM004]`: the options of the memory check, which `tune` sizes with too. Their
/// types are checked when lemplint.toml loads; their values when the model is built (a
/// reserve can also come from `[host]`, and FPM004 reports a bad one at the pool it judges).
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct MemoryOptions {
    /// Memory of one PHP worker.
    pub worker_rss: Option<SizeOption>,
    /// Memory kept for everything but PHP: a percentage or a size.
    pub reserve: Option<SizeOption>,
}

/// A size as written in TOML: a number of bytes, or a string (`96MiB`, `25%`).
#[derive(Clone, Debug, PartialEq)]
pub enum SizeOption {
    Number(i64),
    Text(String),
}

impl<'de> serde::Deserialize<'de> for SizeOption {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = SizeOption;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number of bytes or a string such as \"96MiB\"")
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<SizeOption, E> {
                Ok(SizeOption::Number(n))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<SizeOption, E> {
                i64::try_from(n)
                    .map(SizeOption::Number)
                    .map_err(|_| E::custom(format!("{n} bytes is out of range")))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<SizeOption, E> {
                Ok(SizeOption::Text(s.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl MemoryModel {
    /// From `[rules.FPM004]` (`worker-rss`, `reserve`), then `[host] reserve`, then the
    /// defaults: what FPM004 judges with, and what `tune` starts from (its flags override).
    /// `Err` names the bad option.
    pub fn from_options(fpm004: &MemoryOptions, host: &HostFacts) -> Result<Self, String> {
        let (worker_rss, worker_rss_source) = match &fpm004.worker_rss {
            None => (DEFAULT_WORKER_RSS, "default".to_string()),
            Some(SizeOption::Number(n)) if *n > 0 => {
                (*n as u64, format!("[rules.FPM004] worker-rss = {n}"))
            }
            Some(SizeOption::Text(s)) => match parse_size(s) {
                Ok(0) => return Err("[rules.FPM004] worker-rss must be more than 0".into()),
                Ok(n) => (n, format!("[rules.FPM004] worker-rss = {s:?}")),
                Err(e) => return Err(format!("[rules.FPM004] worker-rss: {e}")),
            },
            Some(SizeOption::Number(n)) => {
                return Err(format!("[rules.FPM004] worker-rss: invalid size {n}"))
            }
        };
        let (reserve, reserve_source) = match &fpm004.reserve {
            None => match &host.reserve {
                Some(r) => (
                    Reserve::parse(&r.value).map_err(|e| format!("[host] reserve: {e}"))?,
                    format!("{} ({})", r.value, r.source),
                ),
                None => (DEFAULT_RESERVE, "default: 25% of memory".to_string()),
            },
            Some(SizeOption::Text(s)) => (
                Reserve::parse(s).map_err(|e| format!("[rules.FPM004] reserve: {e}"))?,
                format!("[rules.FPM004] reserve = {s:?}"),
            ),
            Some(SizeOption::Number(n)) if *n >= 0 => (
                Reserve::Bytes(*n as u64),
                format!("[rules.FPM004] reserve = {n}"),
            ),
            Some(SizeOption::Number(n)) => {
                return Err(format!("[rules.FPM004] reserve: invalid value {n}"))
            }
        };
        Ok(MemoryModel {
            worker_rss_guessed: fpm004.worker_rss.is_none(),
            worker_rss,
            worker_rss_source,
            reserve,
            reserve_source,
        })
    }

    /// With no measured or configured worker size, the largest `memory_limit` written for the
    /// given pools (php.ini or the pool; PHP's compiled-in 128M is not a choice anyone made)
    /// becomes the size of a worker: the most one request may take, assumed to be the most a
    /// worker holds (the interpreter and its extensions come on top, but few requests use
    /// their whole limit). It only ever raises the default: a `memory_limit` below
    /// [`DEFAULT_WORKER_RSS`] says nothing about the worker around the request, and the
    /// default stays the floor. `-1` (no limit) and unknown values change nothing.
    pub fn bounded_by_memory_limit<'a>(
        mut self,
        pools: impl IntoIterator<Item = &'a super::instances::PoolView<'a>>,
    ) -> Self {
        if !self.worker_rss_guessed {
            return self;
        }
        let largest = pools
            .into_iter()
            .filter_map(|p| {
                let v = p.php("memory_limit")?;
                if matches!(v.origin, super::php_settings::Origin::Default) || !v.known {
                    return None;
                }
                let bytes = super::php_settings::php_quantity(&v.text).filter(|&b| b > 0)?;
                Some((bytes, v.text.trim().to_string(), v.describe()))
            })
            .max_by_key(|(b, ..)| *b);
        if let Some((bytes, text, at)) = largest.filter(|(b, ..)| *b > self.worker_rss) {
            self.worker_rss = bytes;
            self.worker_rss_source = format!(
                "memory_limit = {text} ({at}), the most one request may use, assumed to be the \
                 most a worker holds: no measured worker size was given"
            );
            self.worker_rss_guessed = false;
        }
        self
    }

    /// Memory PHP may use on a host of `memory` bytes.
    pub fn available(&self, memory: u64) -> u64 {
        self.reserve.available(memory)
    }

    /// How many workers of all pools of the host fit.
    pub fn workers(&self, memory: u64) -> u64 {
        self.available(memory) / self.worker_rss.max(1)
    }
}

/// nginx's default `worker_connections` (`DEFAULT_CONNECTIONS`, ngx_event.c).
pub const DEFAULT_CONNECTIONS: u64 = 512;
/// The soft open-files limit a service starts with when nothing raises it (the kernel's
/// and systemd's default `DefaultLimitNOFILE=1024:524288`).
pub const DEFAULT_SOFT_NOFILE: u64 = 1024;
/// The kernel's default `fs.nr_open`: the highest value setrlimit accepts (1024 × 1024).
pub const DEFAULT_NR_OPEN: u64 = 1 << 20;

/// Descriptors an idle nginx worker holds that are not connections, measured on nginx 1.22
/// with one `error_log` and one `access_log` (`ls /proc/<worker>/fd`): stdin, stdout and
/// stderr, the two log files, the epoll descriptor, its notification eventfd and a `/dev/null`.
/// Listening sockets and the master's channel are connections: `worker_connections` counts
/// them, as it counts clients and upstreams (tests/descriptors_binary.rs shows both).
pub const WORKER_FIXED_DESCRIPTORS: u64 = 8;

/// What counts where, said once for the rules and the tuner.
pub const DESCRIPTORS_WHY: &str = "`worker_connections` counts every socket a worker holds, \
     clients and upstream (proxied, FastCGI) connections alike; the files it opens are \
     descriptors beside them: logs, files being sent, temp files of buffered bodies, \
     `open_file_cache` entries";

/// The open-files limit `tune` (and NGX007's fix) gives a worker: its connections, and as many
/// again for files, so every connection can send a file or buffer a body to a temp file at
/// once (the logs fit in that), or the entries `open_file_cache` keeps open and the fixed
/// descriptors when they are more.
pub fn worker_descriptors(connections: u64, cached_files: u64) -> u64 {
    connections
        .saturating_add(connections.max(cached_files.saturating_add(WORKER_FIXED_DESCRIPTORS)))
}

/// How short a worker's open-files limit is at `worker_connections`, when it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shortfall {
    /// `connections` + the fixed descriptors do not fit: the worker never reaches its
    /// connection limit; `accept()` fails with EMFILE first.
    Connections,
    /// The connections fit but leave fewer descriptors for files than `open_file_cache`
    /// keeps open, or than one for every [`FILES_PER_CONNECTIONS`] connections.
    Files { room: u64 },
}

/// NGX007 reports a room for files below one descriptor per this many connections: a site
/// where one connection in ten sends a file or buffers a body at once is ordinary, and the
/// worker runs out there; with more room it takes traffic lemplint cannot see.
pub const FILES_PER_CONNECTIONS: u64 = 10;

/// Judges a worker's open-files `limit` at `connections`, with `cached_files` the most
/// `open_file_cache` keeps open.
pub fn shortfall(connections: u64, cached_files: u64, limit: u64) -> Option<Shortfall> {
    let sockets = connections.saturating_add(WORKER_FIXED_DESCRIPTORS);
    if limit < sockets {
        return Some(Shortfall::Connections);
    }
    let room = limit - sockets;
    (room < cached_files || room < connections / FILES_PER_CONNECTIONS)
        .then_some(Shortfall::Files { room })
}

/// `net.core.somaxconn` when no sysctl file sets it: 4096 since Linux 5.4, 128 before
/// (ip-sysctl.rst, listen(2)).
pub const SOMAXCONN_4096_SINCE: KernelVersion = KernelVersion { major: 5, minor: 4 };

pub fn default_somaxconn(kernel: KernelVersion) -> u64 {
    if kernel >= SOMAXCONN_4096_SINCE {
        4096
    } else {
        128
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors() {
        // nginx 1.22 with `worker_rlimit_nofile 32; worker_connections 32;` took 21 clients.
        assert_eq!(shortfall(32, 0, 32), Some(Shortfall::Connections));
        assert_eq!(shortfall(768, 0, 1024), None);
        assert_eq!(
            shortfall(8000, 0, 8192),
            Some(Shortfall::Files { room: 184 })
        );
        assert_eq!(shortfall(300_000, 50_000, 520_000), None);
        assert!(matches!(
            shortfall(1024, 100_000, 4096),
            Some(Shortfall::Files { .. })
        ));
        for (c, f) in [(512, 0), (1024, 100_000), (65535, 0)] {
            assert_eq!(shortfall(c, f, worker_descriptors(c, f)), None);
        }
    }

    #[test]
    fn reserves() {
        assert_eq!(Reserve::parse("25%"), Ok(Reserve::Percent(25.0)));
        assert_eq!(Reserve::parse(" 12.5 % "), Ok(Reserve::Percent(12.5)));
        assert_eq!(Reserve::parse("512MiB"), Ok(Reserve::Bytes(512 << 20)));
        assert!(Reserve::parse("100%").is_err());
        assert!(Reserve::parse("-1%").is_err());
        assert!(Reserve::parse("lots").is_err());
        assert_eq!(Reserve::Percent(25.0).available(1 << 30), 768 << 20);
        assert_eq!(Reserve::Percent(25.0).bytes(1 << 30), 256 << 20);
        assert_eq!(Reserve::Bytes(2 << 30).available(1 << 30), 0);
    }

    #[test]
    fn options_then_host_then_defaults() {
        let host = HostFacts::default();
        let m = MemoryModel::from_options(&MemoryOptions::default(), &host).unwrap();
        assert_eq!(
            (m.worker_rss, m.reserve),
            (DEFAULT_WORKER_RSS, DEFAULT_RESERVE)
        );
        let t: MemoryOptions = toml::from_str("worker-rss = \"96MiB\"\nreserve = \"60%\"").unwrap();
        let m = MemoryModel::from_options(&t, &host).unwrap();
        assert_eq!(
            (m.worker_rss, m.reserve),
            (96 << 20, Reserve::Percent(60.0))
        );
        let t: MemoryOptions = toml::from_str("worker-rss = \"lots\"").unwrap();
        assert!(MemoryModel::from_options(&t, &host).is_err());
        let t: MemoryOptions = toml::from_str("worker-rss = 0\nreserve = 1024").unwrap();
        assert!(MemoryModel::from_options(&t, &host).is_err());
        let t: MemoryOptions = toml::from_str("reserve = 1024").unwrap();
        let m = MemoryModel::from_options(&t, &host).unwrap();
        assert_eq!(m.reserve, Reserve::Bytes(1024));
        assert!(toml::from_str::<MemoryOptions>("worker-rss = 1.5").is_err());
        assert!(toml::from_str::<MemoryOptions>("worker_rss = 1").is_err());
    }
}
