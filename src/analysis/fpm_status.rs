//! Which locations serve php-fpm's own status or ping page: the paths such pages are
//! usually given, and whether a `location` line selects one of them. NGX112 asks it to find
//! an exposed status page, STK009 to pair one with its pool, STK006 to leave such a page's
//! short timeout alone.

use crate::analysis::cursor::Directive;
use crate::analysis::locations::{location_line, Kind};
use crate::analysis::pcre::Regex;

/// The paths php-fpm's `pm.status_path` / `ping.path` are usually given (the
/// documentation's `/status` and `/ping`, and the spellings distributions use).
pub const FPM_PATHS: &[&str] = &[
    "/status",
    "/ping",
    "/fpm-status",
    "/fpm-ping",
    "/fpm_status",
    "/fpm_ping",
    "/php-fpm-status",
    "/php-fpm-ping",
    "/php_fpm_status",
    "/phpfpm_status",
    "/php-status",
    "/php_status",
    "/status-fpm",
];

/// The php-fpm status or ping path a location selects, if it is one of [`FPM_PATHS`]
/// (matched by an exact or prefix name, or by a regex that does not also take PHP
/// scripts or the site root).
pub fn fpm_status_path(loc: Directive<'_>) -> Option<&'static str> {
    let (kind, name) = location_line(loc)?;
    match kind {
        Kind::Prefix | Kind::Exact | Kind::NoRegexPrefix => {
            let name = String::from_utf8_lossy(&name);
            let trimmed = name.trim_end_matches('/');
            FPM_PATHS.iter().copied().find(|p| *p == trimmed)
        }
        Kind::Regex { caseless } => {
            let re = Regex::parse_bytes(&name, caseless).ok()?;
            let hits = |s: &str| re.is_match(s.as_bytes()).unwrap_or(true);
            if hits("/index.php") || hits("/") || hits("/app/status/index.php") {
                return None;
            }
            FPM_PATHS
                .iter()
                .copied()
                .find(|p| re.is_match(p.as_bytes()).unwrap_or(false))
        }
        Kind::Named => None,
    }
}
