//! FPM111 php-hardening-off: a pool or a php.ini writes a value the PHP configuration
//! auditors (sektioneins pcc, iniscan) flag, each re-derived from php.ini's documentation:
//!
//! * `allow_url_fopen` on: `file_get_contents()`, `fopen()` and friends fetch `http://` and
//!   `ftp://` URLs, so a path an attacker controls becomes a request to any host (SSRF) or a
//!   read of remote data the code takes for a local file;
//! * `log_errors` off: PHP's errors and warnings go nowhere an operator looks (with
//!   `display_errors` off, as it should be), so probing and failures leave no trace;
//! * `mail.add_x_header` on: every mail sent with `mail()` carries `X-PHP-Originating-Script:
//!   <uid>:<script>`, the script's name and owner, to every recipient.
//!
//! All three are info: each is a trade an application may need (a feed reader needs
//! `allow_url_fopen`, a framework may log errors itself), and none opens a hole alone. Only
//! written values count: php.ini-production writes `allow_url_fopen = On`, and PHP's
//! compiled-in defaults are not judged (the server's php.ini may not be in the tree). A
//! development configuration is not reported (FPM103's rule).
//!
//! Not here, and why: `enable_dl` (php-fpm has no `dl()` since PHP 7.0: the setting does
//! nothing; `tests/security_php_binary.rs` shows `function_exists('dl')` false under FPM);
//! `assert.active` (PHP 8 never evaluates string assertions, and the setting matters only
//! with `zend.assertions = 1`, which lemplint reads as a development configuration);
//! `display_errors`, `display_startup_errors`, `expose_php`, `allow_url_include` (FPM103).

use crate::analysis::php_writes::php_writes;
use crate::diagnostic::Severity;
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::instances::php_bool;

declare_rule! {
    pub struct PhpHardeningOff;
    code: FPM111,
    name: "php-hardening-off",
    lang: fpm,
    category: Security,
    severity: Info,
    fix: Always,
    group: Preview,
}

/// (setting, the value that is weak, the safe value to write, what the weak value does)
const SETTINGS: &[(&str, bool, &str, &str)] = &[
    (
        "allow_url_fopen",
        true,
        "Off",
        "file functions (`file_get_contents`, `fopen`, `copy`) also open `http://` and \
         `ftp://` URLs: a path an attacker influences becomes a request to any host (SSRF) or \
         remote data read as a local file; turn it off unless the application fetches URLs \
         this way (cURL does not need it)",
    ),
    (
        "log_errors",
        false,
        "On",
        "PHP's errors and warnings are not logged: with `display_errors` off they go nowhere, \
         and an attacker's probing leaves no trace",
    ),
    (
        "mail.add_x_header",
        true,
        "Off",
        "every `mail()` carries `X-PHP-Originating-Script: <uid>:<script>`, telling each \
         recipient the script's name and its owner's uid",
    ),
];

impl Rule for PhpHardeningOff {
    fn check(&self, cx: &mut Context<'_>) {
        let instances = cx.fpm_instances();
        for &(name, weak, safe, why) in SETTINGS {
            for w in php_writes(cx.stack, instances, name) {
                if w.development || php_bool(&w.text) != weak {
                    continue;
                }
                let message = format!("{}`{}`: {why}", w.prefix(), w.written);
                let fix = Fix::unsafe_(
                    format!("Set {name} {safe}"),
                    vec![edits::replace_fpm_value(w.file, w.entry, safe)],
                );
                let d = cx.report(w.file, w.span, message);
                d.severity = Severity::Info;
                d.with_fix(fix);
            }
        }
    }
}
