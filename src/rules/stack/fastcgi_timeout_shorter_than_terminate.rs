//! STK006 fastcgi-timeout-shorter-than-terminate: nginx stops waiting for PHP before PHP-FPM
//! stops the script.
//!
//! `fastcgi_read_timeout` (default 60s, inherited http → server → location) is how long nginx
//! waits between two reads from PHP-FPM; the pool's `request_terminate_timeout` is how long a
//! request may run before php-fpm kills the worker (0 or unset: no limit, not judged). With
//! the first shorter, a slow script makes nginx answer 504 Gateway Time-out while the worker
//! keeps running, holding a slot of `pm.max_children`, and whatever the script does after that
//! (sending mail, writing an order) happens for a client that already saw an error.
//!
//! A pool without `request_terminate_timeout` is judged by its `max_execution_time` when that
//! is written (php.ini or the pool) rather than PHP's 30: raising it says scripts are meant to
//! run that long, and nginx's wait must follow. It counts CPU time, not wall time (PHP arms
//! `ITIMER_PROF` on Linux), so the help also asks for a `request_terminate_timeout`.
//!
//! A location that serves only the pool's status or ping page is not judged: php-fpm's
//! worker answers those itself (`fpm_status_handle_request`, fpm_main.c) without running a
//! script, so no script can outlast nginx's wait there.

use crate::analysis::cursor::Directive;
use crate::analysis::fpm_status::fpm_status_path;
use crate::analysis::locations::{location_line, Kind};
use crate::analysis::pcre::Regex;
use crate::analysis::stack_links::{pool_links, pool_view, setting_place, PoolLink};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::source::{Shared, Span};
use crate::stack::instances::PoolView;
use crate::stack::php_settings::Origin;

declare_rule! {
    pub struct FastcgiTimeoutShorterThanTerminate;
    code: STK006,
    name: "fastcgi-timeout-shorter-than-terminate",
    lang: stack,
    category: Reliability,
    severity: Info,
    fix: Sometimes,
    group: Hardening,
}

/// nginx's default `fastcgi_read_timeout`, in milliseconds.
const DEFAULT_READ_TIMEOUT_MS: u64 = 60_000;

/// `ngx_parse_time` in milliseconds mode (the mode of `*_timeout` directives): numbers with
/// units `w d h m s ms` in decreasing order (`1m30s`, `1h 30m`), a bare number last meaning
/// seconds. `y` and `M` exist only in seconds mode: nginx refuses them here, as it refuses
/// anything else, and so does this function (`None`).
fn parse_nginx_time(value: &str) -> Option<u64> {
    let mut total: u64 = 0;
    let mut rest = value.trim();
    if rest.is_empty() {
        return None;
    }
    let mut last_rank = usize::MAX;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let n: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let (unit_ms, len, rank) = match rest.as_bytes() {
            [b'm', b's', ..] => (1, 2, 0),
            [b'w', ..] => (7 * 86_400_000, 1, 5),
            [b'd', ..] => (86_400_000, 1, 4),
            [b'h', ..] => (3_600_000, 1, 3),
            [b'm', ..] => (60_000, 1, 2),
            [b's', ..] => (1_000, 1, 1),
            // A number without a unit ends the value.
            [] => (1_000, 0, 1),
            _ => return None,
        };
        if rank >= last_rank {
            return None;
        }
        last_rank = rank;
        total = total.checked_add(n.checked_mul(unit_ms)?)?;
        rest = rest[len..].trim_start();
    }
    Some(total)
}

/// Seconds as nginx would write them: `300s`, `5m`, `2h`.
fn nginx_seconds(s: u64) -> String {
    if s % 3600 == 0 {
        format!("{}h", s / 3600)
    } else if s % 60 == 0 {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

/// How long PHP lets a request run, as the pool sets it.
struct PhpLimit {
    secs: u64,
    /// `pool `www`'s request_terminate_timeout = 300`.
    what: String,
    /// Where the limit is written, with its label.
    place: Option<(Shared, Span, &'static str)>,
    /// `request_terminate_timeout` (wall time), not `max_execution_time` (CPU time).
    wall: bool,
}

/// How long PHP lets the pool's requests run: its `request_terminate_timeout`; without one
/// (unset or `0`), a `max_execution_time` raised on purpose, which says how long its scripts
/// are meant to run. A value php-fpm refuses decides nothing.
fn php_limit(link: &PoolLink<'_>, pool: Option<&PoolView<'_>>) -> Option<PhpLimit> {
    let Some((s, v)) = link.cfg.get(link.pool, "request_terminate_timeout") else {
        return execution_time(link, pool);
    };
    let secs = crate::syntax::fpm::parse_time(v.trim().as_bytes()).ok()?;
    match u64::try_from(secs).ok()? {
        0 => execution_time(link, pool),
        secs => Some(PhpLimit {
            secs,
            what: format!(
                "pool `{}`'s request_terminate_timeout = {}",
                link.pool.name,
                v.trim()
            ),
            place: setting_place(link.cfg, s)
                .map(|(f, sp)| (f, sp, "php-fpm lets the request run this long")),
            wall: true,
        }),
    }
}

/// The pool's `max_execution_time` in seconds, when it is written (PHP's and the
/// distributions' 30 is below nginx's default wait, and never the point) and a limit.
fn execution_time(link: &PoolLink<'_>, pool: Option<&PoolView<'_>>) -> Option<PhpLimit> {
    let v = pool?.php("max_execution_time")?;
    let place = match &v.origin {
        Origin::Default => return None,
        Origin::Ini(i) => (i.file.source.clone(), i.span()),
        Origin::Pool { val, .. } => (val.at.file().clone(), val.span()),
    };
    if !v.known {
        return None;
    }
    let secs = v.text.trim().parse::<u64>().ok().filter(|&t| t > 0)?;
    Some(PhpLimit {
        secs,
        what: format!(
            "max_execution_time = {secs} for pool `{}` ({})",
            link.pool.name,
            v.describe()
        ),
        place: Some((place.0, place.1, "PHP lets a script compute this long")),
        wall: false,
    })
}

impl Rule for FastcgiTimeoutShorterThanTerminate {
    fn check(&self, cx: &mut Context<'_>) {
        let instances = cx.fpm_instances();
        let links = pool_links(cx.stack);
        // Per fastcgi_pass occurrence, the pool with the longest limit.
        let mut best: Vec<(Directive<'_>, PhpLimit)> = Vec::new();
        for link in &links {
            // A php-fpm worker answers the status and ping pages itself, running no script:
            // nothing there can outlast nginx's wait.
            if link
                .pass
                .parent()
                .is_some_and(|loc| status_location(link, loc))
            {
                continue;
            }
            let Some(limit) = php_limit(link, pool_view(instances, link)) else {
                continue;
            };
            match best.iter_mut().find(|(p, _)| *p == link.pass) {
                Some(b) if b.1.secs >= limit.secs => {}
                Some(b) => b.1 = limit,
                None => best.push((link.pass, limit)),
            }
        }
        for (pass, limit) in best {
            let parent = pass.parent();
            let explicit = pass.inherited("fastcgi_read_timeout").last();
            let read_ms = match explicit {
                Some(d) => match d.arg(0).and_then(|a| parse_nginx_time(&a.value())) {
                    Some(ms) => ms,
                    None => continue,
                },
                None => DEFAULT_READ_TIMEOUT_MS,
            };
            if read_ms >= limit.secs.saturating_mul(1000) {
                continue;
            }
            let at = explicit.unwrap_or(pass);
            let (file, span) = (at.file(), at.span());
            if !cx.claim(file, span) {
                continue;
            }
            let read_text = match explicit {
                Some(d) => format!(
                    "fastcgi_read_timeout {}",
                    d.arg(0).map(|a| a.value()).unwrap_or_default()
                ),
                None => "fastcgi_read_timeout (default 60s)".to_string(),
            };
            let consequence = if limit.wall {
                "a script silent for longer gets 504 Gateway Time-out from nginx while PHP keeps \
                 running it"
            } else {
                "a script that runs longer gets 504 Gateway Time-out from nginx while PHP keeps \
                 running it, and the pool sets no request_terminate_timeout to end it"
            };
            let d = cx.report(
                file,
                span,
                format!("{read_text} is shorter than {}: {consequence}", limit.what),
            );
            if let Some((f, s, label)) = limit.place {
                d.label(f, s, label);
            }
            if let Some(block) = parent.filter(|b| explicit.is_none() && !b.same_file(pass)) {
                d.label(
                    block.file().clone(),
                    block.span(),
                    "for the requests of this block",
                );
            }
            let value = nginx_seconds(limit.secs);
            d.help = Some(if limit.wall {
                format!(
                    "set fastcgi_read_timeout to at least {value} where these requests pass, or \
                     lower the pool's request_terminate_timeout"
                )
            } else {
                format!(
                    "set fastcgi_read_timeout to at least {value} where these requests pass, and \
                     give the pool a request_terminate_timeout (max_execution_time counts CPU \
                     time only: a script waiting on I/O is never stopped by it)"
                )
            });
            let edit = match explicit {
                Some(d) => d
                    .arg(0)
                    .map(|w| edits::replace_arg(d.file(), &w.tree_word(), &value)),
                // Only into the block the `fastcgi_pass` is written in: a snippet included by
                // several locations may meet one that sets the timeout itself, and nginx
                // refuses a duplicate.
                None if parent.is_some_and(|b| b.same_file(pass)) => {
                    Some(pass.insert_after(&format!("fastcgi_read_timeout {value};")))
                }
                None => None,
            };
            if let Some(e) = edit {
                d.with_fix(Fix::unsafe_(
                    format!("Set fastcgi_read_timeout {value}"),
                    vec![e],
                ));
            }
        }
    }
}

/// Whether `loc` serves only the pool's status or ping page (`pm.status_path`, `ping.path`,
/// or the usual names of them): an exact or prefix location for one of them, or a regex
/// that matches one and neither `/` nor a script (`/index.php`).
fn status_location(link: &PoolLink<'_>, loc: Directive<'_>) -> bool {
    if loc.name() != "location" {
        return false;
    }
    if fpm_status_path(loc).is_some() {
        return true;
    }
    let paths: Vec<String> = ["pm.status_path", "ping.path"]
        .iter()
        .filter_map(|k| link.cfg.get(link.pool, k))
        .map(|(_, v)| v.trim().to_string())
        .filter(|v| v.starts_with('/'))
        .collect();
    let Some((kind, name)) = location_line(loc) else {
        return false;
    };
    let name = String::from_utf8_lossy(&name);
    match kind {
        Kind::Prefix | Kind::Exact | Kind::NoRegexPrefix => {
            paths.iter().any(|p| p == name.trim_end_matches('/'))
        }
        Kind::Regex { caseless } => {
            let Ok(re) = Regex::parse(&name, caseless) else {
                return false;
            };
            let hits = |s: &str| re.is_match(s.as_bytes()).unwrap_or(true);
            !hits("/") && !hits("/index.php") && paths.iter().any(|p| hits(p))
        }
        Kind::Named => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nginx_times() {
        assert_eq!(parse_nginx_time("60"), Some(60_000));
        assert_eq!(parse_nginx_time("60s"), Some(60_000));
        assert_eq!(parse_nginx_time("500ms"), Some(500));
        assert_eq!(parse_nginx_time("5m"), Some(300_000));
        assert_eq!(parse_nginx_time("1h30m"), Some(5_400_000));
        assert_eq!(parse_nginx_time("1h 30m"), Some(5_400_000));
        assert_eq!(parse_nginx_time("1d"), Some(86_400_000));
        assert_eq!(parse_nginx_time("1w"), Some(604_800_000));
        assert_eq!(parse_nginx_time("1M"), None);
        assert_eq!(parse_nginx_time("1y"), None);
        assert_eq!(parse_nginx_time("1 30s"), None);
        assert_eq!(parse_nginx_time("1m 30"), Some(90_000));
        assert_eq!(parse_nginx_time("30m1h"), None);
        assert_eq!(parse_nginx_time("abc"), None);
        assert_eq!(parse_nginx_time(""), None);
        assert_eq!(nginx_seconds(300), "5m");
        assert_eq!(nginx_seconds(90), "90s");
        assert_eq!(nginx_seconds(7200), "2h");
    }
}
