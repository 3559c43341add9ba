//! FPM003 invalid-php-ini-value: a `php_value[…]` / `php_admin_value[…]` that PHP accepts
//! but reads differently from what was written. php-fpm passes these values to PHP's own ini
//! parsers, which never refuse a value: they warn (nowhere an operator looks) and carry on.
//!
//! * Sizes (`memory_limit`, `post_max_size`, `upload_max_filesize`, `realpath_cache_size`):
//!   PHP's quantity parser knows only the suffixes `K`, `M` and `G`, read from the last
//!   character. `128MB` is therefore **128 bytes** (`Invalid quantity "128MB": unknown
//!   multiplier "B", interpreting as "128"`), and `1.5G` is 1 GiB. Verified with php-fpm 8.2:
//!   `php_admin_value[memory_limit] = 32MB` leaves the pool at php.ini's limit (PHP cannot
//!   lower the limit below what it already uses, and php-fpm logs nothing), and
//!   `upload_max_filesize = 64MB` allows 64-byte uploads.
//! * Booleans (`log_errors`, `display_errors`, `short_open_tag`, …) written with
//!   `php_value`: PHP reads `on`, `yes`, `true` (any case) and non-zero numbers as on, and
//!   *everything else* as off, so `enabled` or `y` switch the setting off (verified with
//!   php 8.2). `php_flag` values are checked by php-fpm itself (FPM001).
//!
//! `opcache.memory_consumption` and `opcache.interned_strings_buffer` are numbers of
//! megabytes, not quantities (`128` is 128 MiB), and take effect only in php.ini: they are
//! deliberately not checked here.
//!
//!   A bare number below 1024 (`memory_limit = 256`) is bytes as well, and reported.
//!
//! Fix (safe): `128MB` → `128M`, `1.5G` → `1536M`: the unit that was meant, in PHP's spelling.

use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::size::human;
use crate::stack::fpm::eval_value;
use crate::stack::instances::{entry_contexts, value_span};
use crate::syntax::fpm::{self, Entry};

declare_rule! {
    pub struct InvalidPhpIniValue;
    code: FPM003,
    name: "invalid-php-ini-value",
    lang: fpm,
    category: Correctness,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

/// Size-valued settings parsed with `zend_ini_parse_quantity` (PHP 8.2 `OnUpdateLong` /
/// `OnUpdateMemoryLimit`), each with what a wrong value does.
const SIZES: &[&str] = &[
    "memory_limit",
    "post_max_size",
    "upload_max_filesize",
    "realpath_cache_size",
];

/// Boolean settings read with `zend_ini_parse_bool` (`STD_PHP_INI_BOOLEAN` in php-src), plus
/// `display_errors`, whose parser also takes `stderr` and `stdout`.
const BOOLEANS: &[&str] = &[
    "allow_url_fopen",
    "allow_url_include",
    "display_errors",
    "display_startup_errors",
    "expose_php",
    "file_uploads",
    "html_errors",
    "ignore_repeated_errors",
    "ignore_repeated_source",
    "ignore_user_abort",
    "log_errors",
    "opcache.enable",
    "opcache.save_comments",
    "opcache.validate_timestamps",
    "session.auto_start",
    "session.cookie_httponly",
    "session.cookie_secure",
    "session.use_cookies",
    "session.use_only_cookies",
    "session.use_strict_mode",
    "session.use_trans_sid",
    "short_open_tag",
];

/// Words that read as off and were meant so: not worth a finding.
const MEANT_OFF: &[&str] = &["disabled", "disable", "n", "null", "nil"];

impl Rule for InvalidPhpIniValue {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in cx.fpm_instances() {
            for cfg in &inst.configs {
                for file in 0..cfg.files.len() {
                    let source = &cfg.files[file].source;
                    for (_, e, in_pool) in entry_contexts(cfg, file) {
                        if in_pool == Some(false) {
                            continue; // an array in [global] is an error of its own (FPM001)
                        }
                        check_entry(cx, source, e);
                    }
                }
            }
        }
    }
}

fn check_entry(cx: &mut Context<'_>, source: &crate::source::Shared, e: &Entry) {
    let src = &source.text;
    if !matches!(e.name_bytes(src), b"php_value" | b"php_admin_value") {
        return;
    }
    let Some(setting) = e.subkey_text(src, &fpm::no_env) else {
        return;
    };
    let setting = String::from_utf8_lossy(&setting).into_owned();
    let (value, known) = eval_value(e, src);
    if !known {
        return;
    }
    let value = String::from_utf8_lossy(&value).into_owned();
    if SIZES.contains(&setting.as_str()) {
        check_size(cx, source, e, &setting, &value);
    } else if BOOLEANS.contains(&setting.as_str()) {
        check_bool(cx, source, e, &setting, &value);
    }
}

fn check_size(
    cx: &mut Context<'_>,
    source: &crate::source::Shared,
    e: &Entry,
    setting: &str,
    value: &str,
) {
    let q = fpm::parse_quantity(value.as_bytes());
    // A bare number is bytes (`memory_limit = 256` meant megabytes): PHP says nothing then.
    let bare_bytes =
        (1..1024).contains(&q.value) && value.trim().bytes().all(|b| b.is_ascii_digit());
    if q.warning.is_none() && !bare_bytes {
        return;
    }
    let read_as = if (0..1024).contains(&q.value) {
        format!("{} bytes", q.value)
    } else if q.value < 0 {
        q.value.to_string()
    } else {
        human(q.value.unsigned_abs())
    };
    let msg = format!("PHP reads {setting} `{value}` as {read_as}");
    let php_says = match &q.warning {
        Some(w) => format!("PHP's warning, which php-fpm does not log: \"{w}\". "),
        None => "A size without a unit is a number of bytes. ".into(),
    };
    let meant = intended(value);
    let advice = match &meant {
        Some(v) => format!("Write `{v}` (PHP's units are K, M and G, powers of 1024)."),
        None if value.trim().bytes().all(|b| b.is_ascii_digit()) => format!(
            "PHP's units are K, M and G (powers of 1024): `{}M` if megabytes were meant.",
            value.trim()
        ),
        None => "PHP's units are K, M and G (powers of 1024), after a whole number.".into(),
    };
    let fix = meant.map(|v| {
        Fix::safe(
            format!("Write `{v}`"),
            vec![edits::replace_fpm_value(source, e, &v)],
        )
    });
    let d = cx.report(source, value_span(e), msg);
    d.help = Some(format!(
        "{php_says}{}{advice}",
        consequence(setting, q.value, &read_as)
    ));
    if let Some(fix) = fix {
        d.with_fix(fix);
    }
}

/// What the misread value does, per setting (with a trailing space), or nothing.
fn consequence(setting: &str, bytes: i64, read_as: &str) -> String {
    match setting {
        // zend_set_memory_limit refuses a limit below the memory already in use (2 MiB at
        // startup), so such a value is dropped without a word in php-fpm's log.
        "memory_limit" if (0..4 << 20).contains(&bytes) => format!(
            "A limit of {read_as} is below what PHP already uses, so it cannot be set: the pool silently keeps php.ini's memory_limit. "
        ),
        "memory_limit" => format!("Scripts may use {read_as}. "),
        "post_max_size" => format!(
            "Every request body larger than {read_as} is discarded: the script sees empty $_POST and $_FILES. "
        ),
        "upload_max_filesize" => format!(
            "Every uploaded file larger than {read_as} is rejected (UPLOAD_ERR_INI_SIZE). "
        ),
        "realpath_cache_size" => format!("The realpath cache holds {read_as}. "),
        _ => String::new(),
    }
}

/// The value that was meant, when it is unambiguous: `128MB` → `128M`, `2 gb` → `2G`,
/// `1.5G` → `1536M`.
fn intended(value: &str) -> Option<String> {
    let v = value.trim();
    let unit_at = v.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (num, unit) = v.split_at(unit_at);
    let unit = unit.trim_start().to_ascii_uppercase();
    let letter = match unit.as_str() {
        "KB" | "KIB" => 'K',
        "MB" | "MIB" => 'M',
        "GB" | "GIB" => 'G',
        "K" | "M" | "G" => unit.chars().next()?,
        _ => return None,
    };
    if num.is_empty() || (num.starts_with('0') && num.len() > 1 && !num.starts_with("0.")) {
        return None; // a leading 0 is octal to PHP: not ours to guess
    }
    match num.split_once('.') {
        None => num.parse::<u64>().ok().map(|n| format!("{n}{letter}")),
        Some((whole, frac)) => {
            let smaller = match letter {
                'G' => 'M',
                'M' => 'K',
                _ => return None,
            };
            let scaled = format!("{whole}.{frac}").parse::<f64>().ok()? * 1024.0;
            (scaled.fract() == 0.0 && scaled >= 1.0).then(|| format!("{}{smaller}", scaled as u64))
        }
    }
}

fn check_bool(
    cx: &mut Context<'_>,
    source: &crate::source::Shared,
    e: &Entry,
    setting: &str,
    value: &str,
) {
    let word = value.trim();
    let lower = word.to_ascii_lowercase();
    let recognised = ["on", "yes", "true", "off", "no", "false", "none", ""]
        .contains(&lower.as_str())
        || (setting == "display_errors" && (lower == "stderr" || lower == "stdout"))
        || word.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+');
    if recognised || MEANT_OFF.contains(&lower.as_str()) {
        return;
    }
    let msg = format!("PHP reads {setting} `{word}` as off");
    cx.report(source, value_span(e), msg).help = Some(format!(
        "PHP's ini booleans are on/yes/true (any case) or a non-zero number; every other word is off. Write `On` or `Off` (or use `php_flag[{setting}]`)"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intended_values() {
        assert_eq!(intended("128MB").as_deref(), Some("128M"));
        assert_eq!(intended("128mb").as_deref(), Some("128M"));
        assert_eq!(intended("2 GB").as_deref(), Some("2G"));
        assert_eq!(intended("512KB").as_deref(), Some("512K"));
        assert_eq!(intended("1.5G").as_deref(), Some("1536M"));
        assert_eq!(intended("0.5M").as_deref(), Some("512K"));
        assert_eq!(intended("1.3G"), None);
        assert_eq!(intended("abc"), None);
        assert_eq!(intended("12kk"), None);
        assert_eq!(intended("0128MB"), None);
        assert_eq!(intended("128"), None);
    }
}
