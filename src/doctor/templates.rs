//! The messages `doctor` counts: the literal text nginx and PHP-FPM write for each symptom
//! (their own wording, from their sources), and what each one means.
//!
//! A line is matched by a fixed substring, never shown as it is: around the message nginx
//! writes the client's address, the request line, the `Host` and the referrer, and PHP-FPM
//! writes the script and request URI. What `doctor` keeps of a matched line is its time and
//! one part that names the configuration, not the client: the upstream address nginx
//! connected to, or the pool's name (see [`subject`]).

/// Which log a message is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Server {
    Nginx,
    PhpFpm,
    /// A pool's `slowlog` (one entry per slow request, a stack trace after it).
    Slowlog,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Symptom {
    QueueFull,
    WorkerConnections,
    TooManyOpenFiles,
    UpstreamTimedOut,
    NoLiveUpstreams,
    BodyTooLarge,
    HeaderTooBig,
    MaxChildren,
    SeemsBusy,
    ExecutionTimedOut,
    ChildSignal,
    SlowRequest,
    SlowlogEntry,
}

pub struct Template {
    pub symptom: Symptom,
    /// A stable name (JSON, Prometheus label).
    pub id: &'static str,
    pub server: Server,
    /// The fixed text that identifies the message.
    pub needle: &'static str,
    /// The message as `doctor` shows it.
    pub shown: &'static str,
    pub meaning: &'static str,
}

pub const TEMPLATES: &[Template] = &[
    Template {
        symptom: Symptom::QueueFull,
        id: "upstream_queue_full",
        server: Server::Nginx,
        needle: "(11: Resource temporarily unavailable) while connecting to upstream",
        shown: "connect() to … failed (11: Resource temporarily unavailable) while connecting to upstream",
        meaning: "the upstream's listen queue was full: the kernel refused the connection at once and nginx answered 502 (on a unix socket the queue is PHP-FPM's listen.backlog, capped by net.core.somaxconn)",
    },
    Template {
        symptom: Symptom::WorkerConnections,
        id: "worker_connections_not_enough",
        server: Server::Nginx,
        needle: "worker_connections are not enough",
        shown: "… worker_connections are not enough[, reusing connections]",
        meaning: "a worker had all its connections in use (clients and upstreams both count): it closed idle keep-alive connections to make room (`reusing connections`, at warn), or refused a new one",
    },
    Template {
        symptom: Symptom::TooManyOpenFiles,
        id: "too_many_open_files",
        server: Server::Nginx,
        needle: "(24: Too many open files)",
        shown: "… failed (24: Too many open files)",
        meaning: "a worker reached its open-files limit (RLIMIT_NOFILE: worker_rlimit_nofile, or the service's LimitNOFILE)",
    },
    Template {
        symptom: Symptom::UpstreamTimedOut,
        id: "upstream_timed_out",
        server: Server::Nginx,
        needle: "upstream timed out (110: Connection timed out)",
        shown: "upstream timed out (110: Connection timed out) while …",
        meaning: "the upstream accepted the request but did not answer within fastcgi_read_timeout (or proxy_read_timeout): a slow script, or every worker busy",
    },
    Template {
        symptom: Symptom::NoLiveUpstreams,
        id: "no_live_upstreams",
        server: Server::Nginx,
        needle: "no live upstreams while connecting to upstream",
        shown: "no live upstreams while connecting to upstream",
        meaning: "every server of an upstream block was marked failed (max_fails within fail_timeout) after earlier errors",
    },
    Template {
        symptom: Symptom::BodyTooLarge,
        id: "client_body_too_large",
        server: Server::Nginx,
        needle: "client intended to send too large body",
        shown: "client intended to send too large body: … bytes",
        meaning: "a request body was larger than client_max_body_size (nginx answered 413)",
    },
    Template {
        symptom: Symptom::HeaderTooBig,
        id: "upstream_header_too_big",
        server: Server::Nginx,
        needle: "upstream sent too big header",
        shown: "upstream sent too big header while reading response header from upstream",
        meaning: "the response headers (often cookies) did not fit fastcgi_buffer_size (nginx answered 502)",
    },
    Template {
        symptom: Symptom::MaxChildren,
        id: "max_children_reached",
        server: Server::PhpFpm,
        needle: "server reached pm.max_children setting",
        shown: "[pool …] server reached pm.max_children setting (…), consider raising it",
        meaning: "every worker of the pool was busy and it could start no more: new requests waited in the listen queue",
    },
    Template {
        symptom: Symptom::SeemsBusy,
        id: "seems_busy",
        server: Server::PhpFpm,
        needle: "seems busy (you may need to increase pm.start_servers, or pm.min/max_spare_servers)",
        shown: "[pool …] seems busy (you may need to increase pm.start_servers, or pm.min/max_spare_servers), spawning … children",
        meaning: "the pool had too few idle workers and forked several at once (pm = dynamic)",
    },
    Template {
        symptom: Symptom::ExecutionTimedOut,
        id: "execution_timed_out",
        server: Server::PhpFpm,
        needle: "execution timed out",
        shown: "[pool …] child …, script '…' (request: \"…\") execution timed out (… sec), terminating",
        meaning: "a request ran longer than request_terminate_timeout and PHP-FPM killed its worker",
    },
    Template {
        symptom: Symptom::ChildSignal,
        id: "child_exited_on_signal",
        server: Server::PhpFpm,
        needle: "exited on signal",
        shown: "[pool …] child … exited on signal …",
        meaning: "a worker died from a signal (SIGSEGV: a crash in PHP or an extension; SIGKILL: killed, often by the OOM killer or request_terminate_timeout)",
    },
    Template {
        symptom: Symptom::SlowRequest,
        id: "slow_request",
        server: Server::PhpFpm,
        needle: "executing too slow",
        shown: "[pool …] child …, script '…' (request: \"…\") executing too slow (… sec), logging",
        meaning: "a request ran longer than request_slowlog_timeout; its stack trace went to the pool's slowlog",
    },
    Template {
        symptom: Symptom::SlowlogEntry,
        id: "slowlog_entry",
        server: Server::Slowlog,
        needle: "[pool ",
        shown: "[…]  [pool …] pid …",
        meaning: "one slow request's stack trace in the slowlog (request_slowlog_timeout)",
    },
];

/// The template a line matches, if any.
pub fn matching(server: Server, line: &str) -> Option<&'static Template> {
    TEMPLATES.iter().find(|t| {
        t.server == server
            && line.contains(t.needle)
            // A slowlog entry starts with its time: `[07-Dec-2026 08:46:50]  [pool www] pid 9`.
            && (t.server != Server::Slowlog || (line.starts_with('[') && line.contains("] pid ")))
    })
}

/// The part of a matched line that names the configuration rather than the client: the
/// upstream nginx was connecting to (`unix:/run/php/www.sock`, `127.0.0.1:9000`), or the
/// pool PHP-FPM names. Anything else on the line is the client's and is never kept.
pub fn subject(server: Server, line: &str) -> Option<String> {
    match server {
        Server::Nginx => {
            let (_, rest) = line.split_once(", upstream: \"")?;
            let url = rest.split('"').next()?;
            let addr = url.split_once("://").map_or(url, |(_, a)| a);
            // nginx writes the URI after the address (`fastcgi://unix:/x.sock:`,
            // `http://127.0.0.1:8080/path`): only the address is kept.
            let addr = match addr.strip_prefix("unix:") {
                Some(path) => format!("unix:{}", path.trim_end_matches(':')),
                None => addr.split('/').next().unwrap_or(addr).to_string(),
            };
            Some(addr)
        }
        Server::PhpFpm | Server::Slowlog => {
            let (_, rest) = line.split_once("[pool ")?;
            rest.split(']').next().map(str::to_string)
        }
    }
}

/// The time a log line starts with, as written, and as seconds since the epoch (read as this
/// machine's local time, as both servers write it): nginx's `2026/12/07 08:46:49`, PHP-FPM's
/// `[07-Dec-2026 08:46:50]` (microseconds, when `log_limit` style is on, are ignored).
pub fn timestamp(line: &str) -> Option<(String, i64)> {
    let b = line.as_bytes();
    let num = |s: &str| s.parse::<i32>().ok();
    // Only ASCII times are read: slicing text with other characters there could split one.
    if b.len() >= 19 && b[..19].is_ascii() && b[4] == b'/' && b[7] == b'/' && b[10] == b' ' {
        let t = &line[..19];
        let civil = (
            num(&t[0..4])?,
            num(&t[5..7])?,
            num(&t[8..10])?,
            num(&t[11..13])?,
            num(&t[14..16])?,
            num(&t[17..19])?,
        );
        return Some((t.to_string(), local_epoch(civil)?));
    }
    if b.len() >= 21 && b[..21].is_ascii() && b[0] == b'[' && b[3] == b'-' && b[7] == b'-' {
        let t = &line[1..21];
        let month = MONTHS.iter().position(|m| *m == &t[3..6])? as i32 + 1;
        let civil = (
            num(&t[7..11])?,
            month,
            num(&t[0..2])?,
            num(&t[12..14])?,
            num(&t[15..17])?,
            num(&t[18..20])?,
        );
        return Some((t.to_string(), local_epoch(civil)?));
    }
    None
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Seconds since the epoch of a local civil time (`mktime`, which applies the machine's
/// time zone and its daylight saving rules).
fn local_epoch((y, mo, d, h, mi, s): (i32, i32, i32, i32, i32, i32)) -> Option<i64> {
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    // SAFETY: `tm` is fully initialised (zeroed, then the fields mktime reads are set);
    // mktime only reads and normalises it.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        tm.tm_year = y - 1900;
        tm.tm_mon = mo - 1;
        tm.tm_mday = d;
        tm.tm_hour = h;
        tm.tm_min = mi;
        tm.tm_sec = s;
        tm.tm_isdst = -1;
        let t = libc::mktime(&mut tm);
        (t != -1).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EAGAIN: &str = "2026/12/07 08:46:49 [error] 6#6: *5481 connect() to unix:/run/php/www.sock failed (11: Resource temporarily unavailable) while connecting to upstream, client: 203.0.113.9, server: , request: \"GET /login.php?user=bob HTTP/1.1\", upstream: \"fastcgi://unix:/run/php/www.sock:\", host: \"example.org\"";

    #[test]
    fn nginx_messages_keep_only_the_upstream() {
        let t = matching(Server::Nginx, EAGAIN).unwrap();
        assert_eq!(t.symptom, Symptom::QueueFull);
        assert_eq!(
            subject(Server::Nginx, EAGAIN).as_deref(),
            Some("unix:/run/php/www.sock")
        );
        let tcp = "2026/12/07 08:46:49 [error] 6#6: *1 upstream timed out (110: Connection timed out) while reading response header from upstream, client: 1.2.3.4, server: x, request: \"GET /a HTTP/1.1\", upstream: \"fastcgi://127.0.0.1:9000\", host: \"x\"";
        assert_eq!(
            matching(Server::Nginx, tcp).unwrap().symptom,
            Symptom::UpstreamTimedOut
        );
        assert_eq!(
            subject(Server::Nginx, tcp).as_deref(),
            Some("127.0.0.1:9000")
        );
        assert!(matching(Server::PhpFpm, EAGAIN).is_none());
    }

    #[test]
    fn fpm_messages_keep_the_pool() {
        let l = "[07-Dec-2026 08:46:50] WARNING: [pool www] server reached pm.max_children setting (5), consider raising it";
        assert_eq!(
            matching(Server::PhpFpm, l).unwrap().symptom,
            Symptom::MaxChildren
        );
        assert_eq!(subject(Server::PhpFpm, l).as_deref(), Some("www"));
        let slow = "[07-Dec-2026 08:46:50]  [pool www] pid 9123";
        assert_eq!(
            matching(Server::Slowlog, slow).unwrap().symptom,
            Symptom::SlowlogEntry
        );
        assert!(matching(Server::Slowlog, "script_filename = /var/www/a.php").is_none());
    }

    #[test]
    fn the_readme_says_what_each_symptom_means() {
        let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"));
        for t in TEMPLATES {
            assert!(readme.contains(&format!("| `{}` |", t.id)), "{}", t.id);
        }
    }

    #[test]
    fn both_time_formats_read_alike() {
        let (a, ta) = timestamp(EAGAIN).unwrap();
        let (b, tb) = timestamp("[07-Dec-2026 08:46:50] WARNING: x").unwrap();
        assert_eq!(
            (a.as_str(), b.as_str()),
            ("2026/12/07 08:46:49", "07-Dec-2026 08:46:50")
        );
        assert_eq!(tb - ta, 1);
        assert!(timestamp("script_filename = /x").is_none());
        assert!(timestamp("[07-Foo-2026 08:46:50] x").is_none());
        // Other characters where the time would be: not a time, and no panic.
        assert!(timestamp("2026/12/07 08:46:4é9 [error]").is_none());
        assert!(timestamp("[07-Dec-2026 08:46:é] x").is_none());
    }
}
