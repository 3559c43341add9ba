//! FPM002 unknown-directive: a key php-fpm does not know. php-fpm refuses to start
//! (`ERROR: [www.conf:12] unknown entry 'pm.max_childs'`), so a typo in one pool file takes
//! every pool of the server down at the next restart.
//!
//! The names are php-fpm 8.2's own tables ([`fpm::GLOBAL_DIRECTIVES`],
//! [`fpm::POOL_DIRECTIVES`], [`fpm::ARRAY_DIRECTIVES`]; the load errors come from
//! [`FpmFile::load_errors`](crate::syntax::fpm::FpmFile::load_errors)). The PHP manual (up to
//! 8.5) documents no directive added after 8.2, so the 8.2 table also holds for newer
//! versions. For an older target (`[rules.FPM002] php = "7.4"`, else `[host] php`), the
//! directives added since that version are reported too: php-fpm 7.4 refuses
//! `pm.max_spawn_rate` (8.1) just as it refuses a typo.
//!
//! The closest valid name is suggested (edit distance, case-insensitive like php-fpm); when
//! it is 1 edit away (or differs only in case, for the case-sensitive `include` and array
//! names) and no other name is as close, a safe fix renames the key; 2 edits away, the
//! rename is an unsafe fix (`--unsafe-fixes`), since two edits can reach a different
//! setting. A key that belongs
//! to the other section (`user` in `[global]`, `error_log` in a pool) gets a hint instead.

use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::stack::instances::{entry_contexts, is_unknown_name, Instance};
use crate::syntax::fpm::{self, Entry};

declare_rule! {
    pub struct UnknownDirective;
    code: FPM002,
    name: "unknown-directive",
    lang: fpm,
    category: Correctness,
    severity: Error,
    fix: Sometimes,
    group: Default,
    options: Options,
}

impl Rule for UnknownDirective {
    fn check(&self, cx: &mut Context<'_>) {
        let target = target_version(cx);
        for inst in cx.fpm_instances() {
            unknown_names(cx, inst);
            if let Some(target) = target {
                too_new(cx, inst, target);
            }
        }
    }
}

fn unknown_names(cx: &mut Context<'_>, inst: &Instance<'_>) {
    for err in &inst.load_errors {
        if !is_unknown_name(&err.error.message) {
            continue;
        }
        let Some(e) = err.entry() else { continue };
        let file = err.file();
        let src = &file.text;
        let name = String::from_utf8_lossy(e.name_bytes(src)).into_owned();
        let advice = advise(&name, e.subkey.is_some(), err.in_pool);
        let section_has = |want: &str| {
            same_section_keys(err.cfg, err.file, e)
                .iter()
                .any(|k| k.eq_ignore_ascii_case(want))
        };
        let fix = match &advice {
            Advice::Rename {
                to,
                distance,
                unique: true,
            } if *distance <= 2 && !section_has(to) => {
                let title = format!("Rename `{name}` to `{to}`");
                let edits = vec![Edit::replace(file, e.name, to.clone())];
                // One slip of a key is almost surely that key; two edits can reach a
                // different setting of a short name, so the user confirms it.
                Some(if *distance <= 1 {
                    Fix::safe(title, edits)
                } else {
                    Fix::unsafe_(title, edits)
                })
            }
            _ => None,
        };
        let d = cx.report(
            file,
            e.key,
            format!("php-fpm refuses to start: {}", err.error.message),
        );
        d.help = Some(advice.help(&name));
        if let Some(fix) = fix {
            d.with_fix(fix);
        }
    }
}

/// The other keys written in the section of `e` (to avoid renaming onto an existing key).
fn same_section_keys(cfg: &crate::stack::fpm::FpmConfig, file: usize, e: &Entry) -> Vec<String> {
    let f = &cfg.files[file];
    let src = &f.source.text;
    f.parsed
        .file
        .entries()
        .filter(|(_, o)| o.section == e.section && o.key != e.key && o.subkey.is_none())
        .map(|(_, o)| o.key_text(src).into_owned())
        .collect()
}

enum Advice {
    /// A name php-fpm knows, close to the one written.
    Rename {
        to: String,
        /// Edits between the written name and `to`, ignoring case (0: only the case differs).
        distance: usize,
        /// No other known name is as close.
        unique: bool,
    },
    /// A valid key of the other section.
    WrongSection {
        in_pool: bool,
    },
    /// An array name written without its `[key]`.
    NeedsKey,
    /// `listen.setfib`: FreeBSD only.
    FreeBsdOnly,
    None,
}

impl Advice {
    fn help(&self, name: &str) -> String {
        match self {
            Advice::Rename { to, .. } => format!("did you mean `{to}`?"),
            Advice::WrongSection { in_pool: true } => format!(
                "`{name}` is a [global] setting (php-fpm.conf); a pool does not take it{}",
                if name.eq_ignore_ascii_case("error_log") {
                    ": for the pool's PHP errors use `php_admin_value[error_log]`"
                } else {
                    ""
                }
            ),
            Advice::WrongSection { in_pool: false } => format!(
                "`{name}` is a pool setting: it belongs after a pool header such as `[www]`, not in [global]"
            ),
            Advice::NeedsKey => {
                format!("`{name}` takes a key: `{name}[NAME] = value`")
            }
            Advice::FreeBsdOnly => {
                "`listen.setfib` exists only in php-fpm built for FreeBSD (PHP ≥ 8.2)".into()
            }
            Advice::None => "see the list of directives in the PHP manual (install.fpm.configuration)".into(),
        }
    }
}

fn advise(name: &str, is_array: bool, in_pool: Option<bool>) -> Advice {
    if is_array {
        return closest(name, fpm::ARRAY_DIRECTIVES.iter().copied(), false);
    }
    if fpm::ARRAY_DIRECTIVES.contains(&name) {
        return Advice::NeedsKey;
    }
    if name.eq_ignore_ascii_case("listen.setfib") {
        return Advice::FreeBsdOnly;
    }
    if let Some(p) = in_pool {
        if fpm::directive(!p, name.as_bytes()).is_some() {
            return Advice::WrongSection { in_pool: p };
        }
    }
    let pool = fpm::POOL_DIRECTIVES.iter().map(|(n, _)| *n);
    let global = fpm::GLOBAL_DIRECTIVES.iter().map(|(n, _)| *n);
    let include = std::iter::once("include");
    match in_pool {
        Some(true) => closest(name, pool.chain(include), true),
        Some(false) => closest(name, global.chain(include), true),
        None => closest(name, pool.chain(global).chain(include), true),
    }
}

/// The known name closest to `name`, when it is plausibly what was meant: at most a third of
/// the name's length away (and at least 2 edits are always allowed for short names, but never
/// half of the name). Distances ignore case; a distance of 0 means only the case differs,
/// which matters for `include` and the array names that php-fpm matches case-sensitively.
/// `scalar`: skip scalar directives equal to `name` but for case (php-fpm accepts those).
fn closest<'n>(name: &str, known: impl Iterator<Item = &'n str>, scalar: bool) -> Advice {
    let lower = name.to_ascii_lowercase();
    let mut best: Option<(usize, &str)> = None;
    let mut ties = 0;
    for k in known {
        if scalar && k != "include" && k.eq_ignore_ascii_case(name) {
            continue; // php-fpm would have accepted it
        }
        let d = crate::edit_distance::levenshtein(lower.as_bytes(), k.as_bytes());
        match best {
            Some((bd, bk)) if d == bd && bk != k => ties += 1,
            Some((bd, _)) if d >= bd => {}
            _ => {
                best = Some((d, k));
                ties = 0;
            }
        }
    }
    match best {
        Some((d, k)) if d <= 2.max(name.len() / 3) && 2 * d < name.len() => Advice::Rename {
            to: k.to_string(),
            distance: d,
            unique: ties == 0,
        },
        _ => Advice::None,
    }
}

// ---------------------------------------------------------------------------------------------
// Directives newer than the target PHP version
// ---------------------------------------------------------------------------------------------

/// Directives added after PHP 7.0, with the release that added them (PHP manual,
/// install/fpm/configuration.xml; `pm.status_listen` 8.0 and `pm.max_spawn_rate` 8.1 from
/// php-src's UPGRADING). Older additions are not listed: PHP < 7.0 is not a target.
const ADDED_IN: &[(&str, (u32, u32))] = &[
    ("request_slowlog_trace_depth", (7, 2)),
    ("log_limit", (7, 3)),
    ("log_buffering", (7, 3)),
    ("decorate_workers_output", (7, 3)),
    ("request_terminate_timeout_track_finished", (7, 3)),
    ("pm.status_listen", (8, 0)),
    ("pm.max_spawn_rate", (8, 1)),
    ("access.suppress_path", (8, 2)),
];

/// `[rules.FPM002]`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Options {
    /// The PHP version the configuration is for.
    php: Option<Version>,
}

/// A version as written in TOML: `"7.4"`, or the bare number `7.4` (or `8`) people write.
#[derive(Debug)]
struct Version(String);

impl<'de> serde::Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Version;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a PHP version such as \"8.1\"")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Version, E> {
                Ok(Version(s.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Version, E> {
                Ok(Version(n.to_string()))
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Version, E> {
                Ok(Version(n.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Version, E> {
                Ok(Version(n.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// The PHP version the configuration is for: `[rules.FPM002] php`, else `[host] php`.
fn target_version(cx: &Context<'_>) -> Option<(u32, u32)> {
    let text = match &cx.options(&UnknownDirective).php {
        Some(Version(v)) if !v.is_empty() => v.clone(),
        _ => cx.host.php.as_ref()?.value.clone(),
    };
    parse_version(&text)
}

/// `8.1`, `8.1.27`, `php8.1`, `PHP 7.4.33-1+deb11u1` → (major, minor).
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let mut parts = text[start..].split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

fn too_new(cx: &mut Context<'_>, inst: &Instance<'_>, target: (u32, u32)) {
    for cfg in &inst.configs {
        for file in 0..cfg.files.len() {
            let source = &cfg.files[file].source;
            for (_, e, in_pool) in entry_contexts(cfg, file) {
                let name = String::from_utf8_lossy(e.name_bytes(&source.text)).to_ascii_lowercase();
                let Some(&(_, since)) = ADDED_IN.iter().find(|(n, _)| *n == name) else {
                    continue;
                };
                // A key in the wrong section is already unknown (reported above).
                let pool_key =
                    fpm::directive(true, name.as_bytes()).is_some() || e.subkey.is_some();
                if since <= target || in_pool.is_some_and(|p| p != pool_key) {
                    continue;
                }
                let shown = if e.subkey.is_some() {
                    format!("{name}[]")
                } else {
                    name.clone()
                };
                let entry_word = if e.subkey.is_some() {
                    "directive"
                } else {
                    "entry"
                };
                let msg = format!(
                    "`{shown}` was added in PHP {}.{}; php-fpm {}.{} refuses to start: unknown {entry_word} '{}'",
                    since.0, since.1, target.0, target.1, name
                );
                cx.report(source, e.key, msg).help = Some(format!(
                    "remove it, or upgrade to PHP {}.{} (the target version comes from [rules.FPM002] php or [host] php)",
                    since.0, since.1
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let pool = Some(true);
        let to = |n: &str| match advise(n, false, pool) {
            Advice::Rename {
                to,
                distance,
                unique,
            } => Some((to, distance, unique)),
            _ => None,
        };
        assert_eq!(
            to("pm.max_childen"),
            Some(("pm.max_children".into(), 1, true))
        );
        assert_eq!(
            to("pm.max_childs"),
            Some(("pm.max_children".into(), 3, true))
        );
        assert_eq!(
            to("pm.max_request"),
            Some(("pm.max_requests".into(), 1, true))
        );
        assert_eq!(to("Include"), Some(("include".into(), 0, true)));
        assert_eq!(to("foo"), None);
        assert!(matches!(
            advise("error_log", false, pool),
            Advice::WrongSection { in_pool: true }
        ));
        assert!(matches!(
            advise("user", false, Some(false)),
            Advice::WrongSection { in_pool: false }
        ));
        assert!(matches!(advise("php_value", false, pool), Advice::NeedsKey));
        assert!(matches!(
            advise("PHP_VALUE", true, pool),
            Advice::Rename { ref to, distance: 0, unique: true } if to == "php_value"
        ));
    }

    #[test]
    fn versions() {
        assert_eq!(parse_version("8.1"), Some((8, 1)));
        assert_eq!(parse_version("php7.4"), Some((7, 4)));
        assert_eq!(parse_version("PHP 8.2.36-1~deb12u1"), Some((8, 2)));
        assert_eq!(parse_version("8"), Some((8, 0)));
        assert_eq!(parse_version("x"), None);
    }
}
