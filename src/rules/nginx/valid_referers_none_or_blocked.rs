//! NGX133 valid-referers-none-or-blocked: `valid_referers none` accepts a request with no
//! `Referer` header and `blocked` one whose `Referer` lacks `http://`/`https://` (as a
//! firewall that strips it leaves it): `$invalid_referer` is then empty for any client that
//! simply does not send the header, or sends `Referer: x`, so a check built on it stops
//! only clients that cooperate.
//!
//! nginx's referer module (ngx_http_referer_variable) returns "valid" for a missing header
//! when `none` is set and for a value not starting with a scheme when `blocked` is set,
//! before any name is compared. Warning where the result guards content (an `if
//! ($invalid_referer)` in the same server that returns, rewrites or denies); Info where
//! it does not.

use crate::analysis::cursor::Directive;
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use crate::stack::expanded::OccId;
use crate::stack::model::NginxInstance;

declare_rule! {
    pub struct ValidReferersNoneOrBlocked;
    code: NGX133,
    name: "valid-referers-none-or-blocked",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Hardening,
}

impl Rule for ValidReferersNoneOrBlocked {
    fn check(&self, cx: &mut Context<'_>) {
        // The servers (by configuration) where `$invalid_referer` guards something: found
        // once from the `if`s, so each `valid_referers` is one lookup.
        let mut guarded: Vec<(*const NginxInstance, Option<OccId>)> = Vec::new();
        for d in cx.nginx_directives("if") {
            let mentions = d
                .args()
                .any(|a| a.value().to_ascii_lowercase().contains("$invalid_referer"));
            let acts = d
                .all_children()
                .any(|c| matches!(c.name(), "return" | "rewrite" | "deny"));
            if mentions && acts {
                guarded.push((d.instance(), server_of(d)));
            }
        }
        for d in cx.nginx_directives("valid_referers") {
            let key = (d.instance() as *const NginxInstance, server_of(d));
            let guards = guarded
                .iter()
                .any(|g| std::ptr::eq(g.0, key.0) && g.1 == key.1);
            for arg in d.args() {
                let value = arg.value().to_ascii_lowercase();
                let (what, bypass) = match value.as_str() {
                    "none" => (
                        "a request with no `Referer` header",
                        "leaving the header out",
                    ),
                    "blocked" => (
                        "a request whose `Referer` does not start with `http://` or `https://`",
                        "sending `Referer: x`",
                    ),
                    _ => continue,
                };
                let message = if guards {
                    format!(
                        "`valid_referers {value}` accepts {what}: the `$invalid_referer` check is \
                         bypassed by {bypass}"
                    )
                } else {
                    format!("`valid_referers {value}` accepts {what}")
                };
                let file = d.file().clone();
                let diag = cx.report(&file, arg.raw(), message);
                if !guards {
                    diag.severity = Severity::Info;
                }
                diag.help = Some(
                    "a Referer check only keeps honest browsers from embedding the content; \
                     protect content that matters with authentication or signed URLs \
                     (`secure_link`), and drop `none`/`blocked` where the check must hold"
                        .into(),
                );
            }
        }
    }
}

/// The `server` a directive is in; `None` in a fragment outside any.
fn server_of(d: Directive<'_>) -> Option<OccId> {
    d.enclosing("server").map(Directive::occ)
}
