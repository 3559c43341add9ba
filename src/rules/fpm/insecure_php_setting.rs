//! FPM103 insecure-php-setting: a pool or a php.ini turns on a PHP setting that helps an
//! attacker: `allow_url_include` (a warning: an include of a URL runs remote code),
//! `display_errors` and `display_startup_errors` (paths, queries and secrets in error pages),
//! `expose_php` (the PHP version in an `X-Powered-By` header).
//!
//! Two places are judged, each finding at the line that sets the value:
//! * a pool's own `php_value`/`php_flag`/`php_admin_value`/`php_admin_flag`, with php-fpm's
//!   precedence (`PoolView::php_setting`);
//! * each php.ini set (php.ini and its scan directory, the last value winning), unless every
//!   pool that reads it sets the value itself (then the php.ini line never takes effect).
//!
//! PHP's compiled-in defaults are not reported (`expose_php` and `display_errors` are on
//! without a php.ini): the repository may not hold the server's php.ini. `display_errors` and
//! `display_startup_errors` turned on are warnings: error messages with file paths, SQL and
//! credentials reach visitors. `expose_php` only names the version: info. None of the three is
//! reported in a development configuration, decided from evidence in the files
//! (`php_ini::development`): a php.ini or pool file named for development
//! (`php.ini-development`, `php-dev.ini`, `pool.d/local.conf`, a `dev`/`development`/`devel`
//! directory), `zend.assertions = 1` (php.ini-development's value; production's is -1), or
//! Xdebug loaded or configured.
//!
//! The fix (unsafe: someone chose the value) sets the value to `Off`, keeping the directive
//! (`php_admin_flag` stays an admin flag).

use crate::analysis::php_writes::php_writes;
use crate::diagnostic::Severity;
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::instances::php_bool;

declare_rule! {
    pub struct InsecurePhpSetting;
    code: FPM103,
    name: "insecure-php-setting",
    lang: fpm,
    category: Security,
    severity: Warning,
    fix: Always,
    group: Default,
}

/// (setting, severity, what it does when on)
const SETTINGS: &[(&str, Severity, &str)] = &[
    (
        "allow_url_include",
        Severity::Warning,
        "`include`/`require` of an `http://` or `data:` URL then runs code from outside the \
         server: one unchecked include path becomes remote code execution (deprecated since \
         PHP 7.4)",
    ),
    (
        "display_errors",
        Severity::Warning,
        "error messages, with file paths, SQL and sometimes credentials, go into the pages \
         visitors see; keep it for development and log errors instead (`log_errors`)",
    ),
    (
        "display_startup_errors",
        Severity::Warning,
        "errors raised while PHP starts go into the first responses; keep it for development",
    ),
    (
        "expose_php",
        Severity::Info,
        "every PHP response carries `X-Powered-By: PHP/<version>`, telling scanners which \
         vulnerabilities to try",
    ),
];

/// Production hardening, not reported in a development configuration (`allow_url_include`
/// is dangerous anywhere).
fn development_only(name: &str) -> bool {
    name != "allow_url_include"
}

/// Whether PHP reads `text` for `name` as on.
fn is_on(name: &str, text: &str) -> bool {
    // `display_errors = stderr` sends errors to the log stream, not to visitors.
    php_bool(text) || (name == "display_errors" && text.trim().eq_ignore_ascii_case("stdout"))
}

impl Rule for InsecurePhpSetting {
    fn check(&self, cx: &mut Context<'_>) {
        let instances = cx.fpm_instances();
        for &(name, severity, why) in SETTINGS {
            for w in php_writes(cx.stack, instances, name) {
                if (development_only(name) && w.development) || !is_on(name, &w.text) {
                    continue;
                }
                let message = format!("{}`{}` turns {name} on: {why}", w.prefix(), w.written);
                let fix = Fix::unsafe_(
                    format!("Turn {name} off"),
                    vec![edits::replace_fpm_value(w.file, w.entry, "Off")],
                );
                let d = cx.report(w.file, w.span, message);
                d.severity = severity;
                d.with_fix(fix);
            }
        }
    }
}
