//! STK012 path-info-underflow (CVE-2019-11043, PHP bug #78599): the nginx shape that lets a
//! `%0a` in the URI drive php-fpm's `PATH_INFO` computation below its buffer, which the
//! public exploit turns into remote code execution on PHP before 7.1.33, 7.2.24 and 7.3.11.
//!
//! Each link of the chain, as the advisory and the two programs' code say it:
//! 1. a PHP regex location matches a URI with a newline after `.php/`: `/index.php/a%0ab.php`
//!    (nginx decodes `%0a` before matching: `[^/]\.php(/|$)` and `\.php$` both match);
//! 2. the block's `fastcgi_split_path_info` regex does not match that URI, or matches it with
//!    an empty path-info group: `.` does not match a newline in PCRE, so
//!    `^(.+?\.php)(/.*)$` fails, `$fastcgi_path_info` is empty and `$fastcgi_script_name` is
//!    the whole URI (`tests/security_php_binary.rs` shows it with the real nginx);
//! 3. `fastcgi_param PATH_INFO $fastcgi_path_info` sends that empty value, and
//!    `SCRIPT_FILENAME` is built from `$fastcgi_script_name` (or `$request_filename`): a path
//!    that does not exist;
//! 4. nothing checks that the script exists (`try_files`, `if (!-f …)`, `internal`): the
//!    request reaches php-fpm;
//! 5. `cgi.fix_pathinfo` is on in the pool (PHP's default): `init_request_info` walks back
//!    to `index.php` and computes `path_info = env_path_info + pilen - slen` with an empty
//!    `env_path_info`, the underflow the fix guards against;
//! 6. the PHP version is one the fix missed: before 7.1.33, 7.2.24, 7.3.11 (5.x and 7.0 never
//!    got it). `[host] php` decides; a pool path naming 7.4 or 8.x clears it; with no version
//!    the finding is info and says what it depends on.
//!
//! A pool in the tree that turns `cgi.fix_pathinfo` off breaks step 5 and silences it.

use crate::analysis::cursor::Directive;
use crate::analysis::fastcgi_params::param;
use crate::analysis::pcre::Regex;
use crate::analysis::php_guard::{
    has_file_check, regex_word, split_loses_path_info, NEWLINE_PROBE,
};
use crate::analysis::stack_links::{active_directives, php_version, pool_links, pool_view};
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use crate::stack::instances::php_bool;

declare_rule! {
    pub struct PathInfoUnderflow;
    code: STK012,
    name: "path-info-underflow",
    lang: stack,
    category: Security,
    severity: Error,
    fix: None,
    group: Preview,
}

/// What the PHP version says about the advisory.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Covered {
    Yes,
    No,
    Unknown,
}

/// `7.3.10` → covered; `7.3` → unknown (the patch decides); `7.4`, `8.2` → not covered.
fn covered(major: u32, minor: u32, patch: Option<u32>) -> Covered {
    let fixed_in = match (major, minor) {
        (0..=6, _) | (7, 0) => return Covered::Yes,
        (7, 1) => 33,
        (7, 2) => 24,
        (7, 3) => 11,
        _ => return Covered::No,
    };
    match patch {
        Some(p) if p < fixed_in => Covered::Yes,
        Some(_) => Covered::No,
        None => Covered::Unknown,
    }
}

/// `7.3.10`, `7.3.10-1+deb10u1`, `7.3` → (7, 3, Some(10)) / (7, 3, None).
fn parse_version(text: &str) -> Option<(u32, u32, Option<u32>)> {
    let mut parts = text.trim().split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next().and_then(|p| p.parse().ok());
    Some((major, minor, patch))
}

/// Whether `PATH_INFO` is sent as `$fastcgi_path_info`, directly or through a variable the
/// block `set`s from it (Debian's `snippets/fastcgi-php.conf` style).
fn sends_path_info(location: Directive<'_>) -> bool {
    let Some(v) = param(location, "PATH_INFO") else {
        return false;
    };
    if v == "$fastcgi_path_info" {
        return true;
    }
    let Some(name) = v.strip_prefix('$') else {
        return false;
    };
    location.children("set").any(|s| {
        s.arg(0)
            .is_some_and(|a| a.value().strip_prefix('$') == Some(name))
            && s.arg(1).is_some_and(|a| a.is("$fastcgi_path_info"))
    })
}

/// Whether `SCRIPT_FILENAME` carries the whole unsplit URI on a failed split.
fn script_filename_from_uri(location: Directive<'_>) -> bool {
    param(location, "SCRIPT_FILENAME")
        .is_some_and(|v| v.contains("$fastcgi_script_name") || v.contains("$request_filename"))
}

impl Rule for PathInfoUnderflow {
    fn check(&self, cx: &mut Context<'_>) {
        let instances = cx.fpm_instances();
        let links = pool_links(cx.stack);
        let host_version = cx.host.php.as_ref().map(|f| f.value.clone());
        for pass in active_directives(cx.stack, "fastcgi_pass") {
            let Some(location) = pass.parent().filter(|p| p.name() == "location") else {
                continue;
            };
            // Step 1: the location takes the probe.
            let Some((word, caseless, skip)) = regex_word(location) else {
                continue;
            };
            let value = word.value();
            let Some(re) = value
                .get(skip..)
                .and_then(|p| Regex::parse(p, caseless).ok())
            else {
                continue;
            };
            if re.is_match(NEWLINE_PROBE).ok() != Some(true) {
                continue;
            }
            // Step 2: the split loses the path info.
            let Some(split) = location.effective("fastcgi_split_path_info").last() else {
                continue;
            };
            let Some(pattern) = split.arg(0).map(|a| a.value().into_owned()) else {
                continue;
            };
            if split_loses_path_info(&pattern) != Some(true) {
                continue;
            }
            // Steps 3 and 4.
            if !sends_path_info(location)
                || !script_filename_from_uri(location)
                || has_file_check(location)
            {
                continue;
            }
            // Step 5: the pools this `fastcgi_pass` reaches, when the tree holds them.
            let pools: Vec<_> = links
                .iter()
                .filter(|l| l.pass == pass)
                .filter_map(|l| pool_view(instances, l).map(|p| (l, p)))
                .collect();
            let walks_back = |p: &crate::stack::instances::PoolView<'_>| {
                p.php("cgi.fix_pathinfo")
                    .is_none_or(|v| !v.is_set() || !v.known || php_bool(&v.text))
            };
            if !pools.is_empty() && !pools.iter().any(|(_, p)| walks_back(p)) {
                continue;
            }
            // Step 6: the version.
            let (verdict, version) = match host_version.as_deref().and_then(parse_version) {
                Some((a, b, c)) => (covered(a, b, c), host_version.clone()),
                None => match pools.iter().find_map(|(l, _)| php_version(cx.host, l.cfg)) {
                    Some((a, b)) => (covered(a, b, None), Some(format!("{a}.{b}"))),
                    None => (Covered::Unknown, None),
                },
            };
            if verdict == Covered::No || !cx.claim(word.file(), word.raw()) {
                continue;
            }
            let shape = format!(
                "`{}` with `fastcgi_split_path_info {pattern}` and `PATH_INFO` from \
                 `$fastcgi_path_info`, no check that the script exists: a `%0a` after `.php/` \
                 makes the split fail, so php-fpm gets an empty PATH_INFO with a SCRIPT_FILENAME \
                 that does not exist",
                &value[skip..]
            );
            let message = match (verdict, &version) {
                (Covered::Yes, Some(v)) => format!(
                    "{shape}; PHP {v} has the path-info underflow (CVE-2019-11043, fixed in \
                     7.1.33, 7.2.24, 7.3.11): remote code execution, public exploit"
                ),
                (_, Some(v)) => format!(
                    "{shape}; whether PHP {v} has the path-info underflow (CVE-2019-11043) \
                     depends on its patch release: fixed in 7.1.33, 7.2.24, 7.3.11"
                ),
                _ => format!(
                    "{shape}; this is the CVE-2019-11043 shape: remote code execution when \
                     php-fpm is older than 7.1.33, 7.2.24 or 7.3.11 (give `[host] php` to decide)"
                ),
            };
            let d = cx.report(word.file(), word.raw(), message);
            if verdict != Covered::Yes {
                d.severity = Severity::Info;
            }
            d.label(
                split.file().clone(),
                split.span(),
                "a newline in the URI defeats `.`",
            );
            d.help = Some(
                "check that the script exists before passing it: `try_files \
                 $fastcgi_script_name =404;` after `fastcgi_split_path_info` (or `if (!-f \
                 $document_root$fastcgi_script_name) { return 404; }`), and upgrade PHP"
                    .into(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(covered(7, 3, Some(10)), Covered::Yes);
        assert_eq!(covered(7, 3, Some(11)), Covered::No);
        assert_eq!(covered(7, 2, Some(23)), Covered::Yes);
        assert_eq!(covered(7, 1, Some(33)), Covered::No);
        assert_eq!(covered(7, 0, Some(33)), Covered::Yes);
        assert_eq!(covered(5, 6, None), Covered::Yes);
        assert_eq!(covered(7, 3, None), Covered::Unknown);
        assert_eq!(covered(7, 4, Some(0)), Covered::No);
        assert_eq!(covered(8, 2, None), Covered::No);
        assert_eq!(parse_version("7.3.10-1+deb10u1"), Some((7, 3, Some(10))));
        assert_eq!(parse_version("7.3"), Some((7, 3, None)));
    }
}
