//! NGX133 valid-referers-none-or-blocked: `valid_referers none` accepts a request with no
//! `Referer` header and `blocked` one whose `Referer` lacks `http://`/`https://` (as a
//! firewall that strips it leaves it): `$invalid_referer` is then empty for any client that
//! simply does not send the header, or sends `Referer: x`, so a check built on it stops
//! only clients that cooperate.
//!
//! nginx's referer module (ngx_http_referer_variable) returns "valid" for a missing header
//! when `none` is set and for a value not starting with a scheme when `blocked` is set,
//! before any name is compared. Warning where the result guards content (an `if
//! ($invalid_referer)` in the same server that returns, rewrites or denies) in front of an
//! application (a pass to a backend); Info where it does not, and where it guards files:
//! that is nginx's documented hot-link idiom, which saves bandwidth and controls no access.

use crate::analysis::cursor::Directive;
use crate::analysis::pass_target::PASSES;
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use crate::stack::expanded::OccId;
use crate::stack::ids::NginxId;

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
        // Each with whether what it guards is an application (a pass to a backend), not
        // files.
        let mut guarded: Vec<(NginxId, Option<OccId>, bool)> = Vec::new();
        for d in cx.nginx_directives("if") {
            let mentions = d
                .args()
                .any(|a| a.value().to_ascii_lowercase().contains("$invalid_referer"));
            let acts = d
                .all_children()
                .any(|c| matches!(c.name(), "return" | "rewrite" | "deny"));
            if mentions && acts {
                guarded.push((d.instance().id, server_of(d), guards_application(d)));
            }
        }
        for d in cx.nginx_directives("valid_referers") {
            let key = (d.instance().id, server_of(d));
            let same = |g: &&(NginxId, Option<OccId>, bool)| (g.0, g.1) == key;
            let guards = guarded.iter().any(|g| same(&g));
            // A check in front of files is nginx's documented hot-link idiom
            // (`valid_referers none blocked server_names …;`): it saves bandwidth from
            // other sites' pages, which always send a Referer, and is no access control.
            let hotlink = guards && !guarded.iter().filter(same).any(|g| g.2);
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
                let message = if hotlink {
                    format!(
                        "`valid_referers {value}` accepts {what}: {who} gets the files by \
                         {bypass}; nginx's own hot-link example accepts that trade-off",
                        who = if value == "none" {
                            "a client (or a page embedding them with \
                             `referrerpolicy=\"no-referrer\"`)"
                        } else {
                            "a client"
                        }
                    )
                } else if guards {
                    format!(
                        "`valid_referers {value}` accepts {what}: the `$invalid_referer` check is \
                         bypassed by {bypass}"
                    )
                } else {
                    format!("`valid_referers {value}` accepts {what}")
                };
                let file = d.file().clone();
                let diag = cx.report(&file, arg.raw(), message);
                if !guards || hotlink {
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

/// Whether the `if` guards an application: its location (or server) passes requests to a
/// backend (`proxy_pass`, `fastcgi_pass`, …), in itself or a block inside. A check in front
/// of files, or in a snippet read alone, guards files.
fn guards_application(i: Directive<'_>) -> bool {
    fn passes(block: Directive<'_>, depth: usize) -> bool {
        depth < 64
            && block
                .all_children()
                .any(|c| PASSES.contains(&c.name()) || (c.has_block() && passes(c, depth + 1)))
    }
    i.parent().is_some_and(|b| passes(b, 0))
}
