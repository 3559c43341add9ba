//! The access phase for the block that serves a request: the `allow`/`deny` list in force
//! (ngx_http_access_module: the nearest level with any replaces the inherited list), the
//! authentication in force (`auth_basic`, `auth_request`, … unless `off`), and `satisfy`
//! (`all`: every check must pass; `any`: one is enough). A request answered in the rewrite
//! phase (`return`, a redirect) never gets here: that is what [`super::End::Gone`] means.

use crate::analysis::access::{auth, rules, unread_include_around};
use crate::analysis::cursor::Directive;

/// The checks nginx runs before it serves a request from a block.
pub struct Access<'a> {
    /// `allow`/`deny` in the order nginx tries them (the first that matches decides).
    pub rules: Vec<Directive<'a>>,
    /// The authentication in force, if any.
    pub auth: Option<Directive<'a>>,
    /// `satisfy any`: passing either the address list or the authentication is enough.
    pub satisfy_any: bool,
    /// An include lemplint could not read may add checks here: the lists above are then a
    /// lower bound.
    pub incomplete: bool,
}

impl<'a> Access<'a> {
    /// The checks in force in `block` (a `location`, or the `server` for a request no
    /// location takes).
    pub fn of(block: Directive<'a>) -> Access<'a> {
        let satisfy_any = block
            .effective("satisfy")
            .last()
            .and_then(|d| d.arg(0))
            .is_some_and(|a| a.value().eq_ignore_ascii_case("any"));
        Access {
            rules: rules(block),
            auth: auth(block),
            satisfy_any,
            incomplete: unread_include_around(block),
        }
    }

    /// Whether some check can refuse a request here.
    pub fn restricts(&self) -> bool {
        self.auth.is_some() || self.rules.iter().any(|d| d.name() == "deny")
    }
}

/// `internal;` here or in an enclosing location: external requests get 404.
pub fn is_internal(block: Directive<'_>) -> bool {
    let mut at = Some(block);
    while let Some(b) = at {
        if b.name() != "location" && b.name() != "if" {
            return false;
        }
        if b.children("internal").next().is_some() {
            return true;
        }
        at = b.parent();
    }
    false
}

/// An `if` in the block that refuses some requests (`if ($remote_addr != …) { return 403; }`):
/// a hand-written access check this cannot evaluate, taken as a restriction.
pub fn guarded_by_if(block: Directive<'_>) -> bool {
    block.children("if").any(|i| {
        i.children("return").any(|r| {
            r.arg(0)
                .and_then(|c| c.value().parse::<u16>().ok())
                .is_some_and(|c| c >= 400)
        })
    })
}

/// What keeps every client out of `block`, when something does: `internal` (here or on an
/// enclosing location), a login in force (`auth_basic`, `auth_request`, … not `off`), or a
/// `deny` of everyone (`all`, `0.0.0.0/0`, `::/0`) in the list in force. A list that denies
/// some addresses only (a block list) keeps out only those, and is not counted.
pub fn keeps_out(block: Directive<'_>) -> Option<Directive<'_>> {
    let mut at = Some(block);
    while let Some(b) = at.filter(|b| matches!(b.name(), "location" | "if")) {
        if let Some(i) = b.children("internal").next() {
            return Some(i);
        }
        at = b.parent();
    }
    let access = Access::of(block);
    access.auth.or_else(|| {
        access.rules.iter().copied().find(|r| {
            r.name() == "deny"
                && r.arg(0)
                    .is_some_and(|a| matches!(&*a.value(), "all" | "0.0.0.0/0" | "::/0"))
        })
    })
}

/// Whether some check of the access phase (or a hand-written `if … { return 4xx; }`) can
/// refuse a request served by `block`: anything [`keeps_out`] counts, a `deny` of some
/// addresses, an access script. A block with any of these repeats a restriction, and is not
/// taken as an open way around one.
pub fn refuses_some(block: Directive<'_>) -> bool {
    is_internal(block)
        || Access::of(block).restricts()
        || crate::analysis::access::restriction(block).is_some()
        || guarded_by_if(block)
}
