//! FPM110 session-hardening-weakened: a pool or a php.ini writes a session setting that makes
//! PHP's own session handling easier to hijack or fixate.
//!
//! Two kinds, by what the value does wherever it runs:
//! * warnings, values that undo PHP's safe defaults: `session.use_only_cookies = 0` (PHP
//!   accepts the session id from the URL, so a link fixes a victim's session) and
//!   `session.use_trans_sid = 1` (PHP writes the id into URLs, from where it leaks through
//!   `Referer`, logs and shared links);
//! * info, hardening PHP's defaults and php.ini-production leave off, written off:
//!   `session.use_strict_mode = 0` (PHP adopts an id it never issued: a fixation needs no
//!   URL; a warning where someone chose it, in a pool or in a php.ini that is not a copy of
//!   the template, which writes `0`: `stack::php_template`), `session.cookie_httponly =` left
//!   blank (scripts read the cookie; a warning when someone typed it off, `= 0`, `= Off`: the
//!   stock files leave it blank, so a typed value is a choice to let scripts read the cookie,
//!   not a copied default), `session.cookie_samesite`
//!   empty (the cookie rides cross-site requests), and a session id of fewer than 128 bits
//!   (`sid_length × sid_bits_per_character`, PHP's default 32 × 4; php.ini-production's
//!   26 × 5 is 130). PHP's own minimum (22 × 4 = 88 bits) is still far from guessable, hence
//!   info.
//!
//! Only written values count (`php_writes`), as for STK011: frameworks set these themselves
//! (`session_set_cookie_params`, `ini_set` in Symfony's session storage), which the
//! configuration does not show. A development configuration is not reported (FPM103's rule).

use crate::analysis::php_writes::{php_writes, PhpWrite};
use crate::diagnostic::Severity;
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::instances::php_bool;
use crate::stack::php_settings::php_quantity;

declare_rule! {
    pub struct SessionHardeningWeakened;
    code: FPM110,
    name: "session-hardening-weakened",
    lang: fpm,
    category: Security,
    severity: Warning,
    fix: Always,
    group: Preview,
}

/// A boolean session setting: its name, the value that is weak, the severity, what the weak
/// value does.
const FLAGS: &[(&str, bool, Severity, &str)] = &[
    (
        "session.use_only_cookies",
        false,
        Severity::Warning,
        "PHP also takes the session id from the URL (`?PHPSESSID=…`): a link an attacker \
         sends fixes the victim's session to an id the attacker knows",
    ),
    (
        "session.use_trans_sid",
        true,
        Severity::Warning,
        "PHP writes the session id into links and forms, from where it leaks through the \
         `Referer` header, access logs and shared URLs",
    ),
    (
        "session.use_strict_mode",
        false,
        Severity::Info,
        "PHP adopts a session id it never issued, so an attacker who plants a cookie (a \
         sibling subdomain, a crafted link) chooses the victim's id; php.net calls strict mode \
         mandatory for general session security",
    ),
    (
        "session.cookie_httponly",
        false,
        Severity::Info,
        "the session cookie is readable from JavaScript: one XSS hands over the session",
    ),
];

/// Whether the weak value of `name` in `w` is someone's choice rather than the copied
/// template. The templates leave `session.cookie_httponly` blank, so a typed `0` or `Off`
/// (the evaluated value of `Off` is blank too: read `written`) is a choice; they write
/// `session.use_strict_mode = 0`, so only a line outside a copy of them is.
fn chosen_weak(name: &str, w: &PhpWrite<'_>) -> bool {
    match name {
        "session.cookie_httponly" => {
            let value = w.written.split_once('=').map_or("", |(_, v)| v);
            !value.trim().trim_matches('"').is_empty()
        }
        "session.use_strict_mode" => w.chosen,
        _ => false,
    }
}

/// The bits of a session id PHP's defaults give (32 characters of 4 bits).
const DEFAULT_BITS: u64 = 128;

impl Rule for SessionHardeningWeakened {
    fn check(&self, cx: &mut Context<'_>) {
        let instances = cx.fpm_instances();
        for &(name, weak, severity, why) in FLAGS {
            for w in php_writes(cx.stack, instances, name) {
                if w.development || php_bool(&w.text) != weak {
                    continue;
                }
                let safe = if weak { "Off" } else { "On" };
                let message = format!("{}`{}`: {why}", w.prefix(), w.written);
                let fix = Fix::unsafe_(
                    format!("Set {name} {safe}"),
                    vec![edits::replace_fpm_value(w.file, w.entry, safe)],
                );
                let d = cx.report(w.file, w.span, message);
                d.severity = if chosen_weak(name, &w) {
                    Severity::Warning
                } else {
                    severity
                };
                d.with_fix(fix);
            }
        }
        for w in php_writes(cx.stack, instances, "session.cookie_samesite") {
            if w.development || !w.text.trim().is_empty() {
                continue;
            }
            let message = format!(
                "{}`{}` leaves the session cookie without `SameSite`: browsers that do not \
                 default to `Lax` send it with cross-site requests (CSRF); `Lax` keeps links \
                 from other sites working",
                w.prefix(),
                w.written
            );
            let fix = Fix::unsafe_(
                "Set session.cookie_samesite Lax",
                vec![edits::replace_fpm_value(w.file, w.entry, "Lax")],
            );
            let d = cx.report(w.file, w.span, message);
            d.severity = Severity::Info;
            d.with_fix(fix);
        }
        // The id's entropy, at the length (the bits alone cannot weaken it: 32 characters of
        // at least 4 bits are 128).
        for w in php_writes(cx.stack, instances, "session.sid_length") {
            if w.development {
                continue;
            }
            let other = "session.sid_bits_per_character";
            let Some(o) = w.scope.php(other).filter(|o| o.known) else {
                continue; // the server's php.ini may set more bits per character
            };
            let (Some(length), Some(bits)) = (php_quantity(&w.text), php_quantity(&o.text)) else {
                continue;
            };
            // PHP refuses a value out of range at startup and keeps its default
            // (22..=256, 4..=6): no entropy claim on one.
            if !(22..=256).contains(&length) || !(4..=6).contains(&bits) {
                continue;
            }
            let total = length * bits;
            if total >= DEFAULT_BITS {
                continue;
            }
            let needed = DEFAULT_BITS.div_ceil(bits);
            let message = format!(
                "{}`{}` with {other} = {} gives session ids of {total} bits, below PHP's \
                 default of {DEFAULT_BITS} (32 × 4): {needed} characters of {bits} bits reach it",
                w.prefix(),
                w.written,
                o.shown()
            );
            let fix = Fix::unsafe_(
                format!("Set session.sid_length {needed}"),
                vec![edits::replace_fpm_value(
                    w.file,
                    w.entry,
                    &needed.to_string(),
                )],
            );
            let d = cx.report(w.file, w.span, message);
            d.severity = Severity::Info;
            d.with_fix(fix);
        }
    }
}
