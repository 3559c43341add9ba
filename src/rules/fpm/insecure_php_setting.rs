//! FPM103 insecure-php-setting: a pool turns on a PHP setting that helps an attacker:
//! `allow_url_include` (a warning: an include of a URL runs remote code), `display_errors`
//! and `display_startup_errors` (paths, queries and secrets in error pages), `expose_php`
//! (the PHP version in an `X-Powered-By` header).
//!
//! Only the pool's own `php_value`/`php_flag`/`php_admin_value`/`php_admin_flag` are judged
//! here, with php-fpm's precedence (`PoolView::php_setting`): php.ini is not read yet, so a
//! pool that turns a setting off silences what php.ini may say, and php.ini's own values are
//! not reported. `display_errors` is a development aid that some images turn on on purpose:
//! it is an info, which says to keep it out of production.
//!
//! The fix (unsafe: someone chose the value) sets the value to `Off`, keeping the directive
//! (`php_admin_flag` stays an admin flag).

use crate::diagnostic::Severity;
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::instances::{php_bool, PoolView};

declare_rule! {
    pub struct InsecurePhpSetting;
    code: FPM103,
    name: "insecure-php-setting",
    lang: fpm,
    category: Security,
    severity: Warning,
    fix: Always,
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
        Severity::Info,
        "error messages, with file paths, SQL and sometimes credentials, go into the pages \
         visitors see; keep it for development and log errors instead (`log_errors`)",
    ),
    (
        "display_startup_errors",
        Severity::Info,
        "errors raised while PHP starts go into the first responses; keep it for development",
    ),
    (
        "expose_php",
        Severity::Info,
        "every PHP response carries `X-Powered-By: PHP/<version>`, telling scanners which \
         vulnerabilities to try",
    ),
];

impl Rule for InsecurePhpSetting {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in cx.fpm_instances() {
            for pool in &inst.pools {
                check_pool(cx, pool);
            }
        }
    }
}

fn check_pool(cx: &mut Context<'_>, pool: &PoolView<'_>) {
    for &(name, severity, why) in SETTINGS {
        let Some((v, _admin)) = pool.php_setting(name) else {
            continue;
        };
        // `display_errors = stderr` sends errors to the log stream, not to visitors.
        let on = php_bool(&v.text) || (name == "display_errors" && v.text.trim() == "stdout");
        if !v.known || !on {
            continue;
        }
        let Some(entry) = v.entry() else { continue };
        let file = v.at.file();
        let written = format!(
            "{} = {}",
            file.str(entry.key),
            file.str(entry.raw_value).trim()
        );
        let message = format!("[pool {}] `{written}` turns {name} on: {why}", pool.name);
        let fix = Fix::unsafe_(
            format!("Turn {name} off"),
            vec![edits::replace_fpm_value(v.at.file(), entry, "Off")],
        );
        let d = cx.report(v.at.file(), v.span(), message);
        d.severity = severity;
        d.with_fix(fix);
    }
}
