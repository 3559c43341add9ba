//! Whether no regex can have run for a request by the time a directive runs, so that
//! `$1`…`$9` are empty there. nginx keeps the captures of the last regex that matched
//! (`ngx_http_regex_exec` stores them in the request; a failed match leaves them as they
//! were), and a request starts with none. Regexes that can run before a directive of a
//! block:
//!
//! - a regex `server_name` that took the Host (its captures are the request's);
//! - a regex `location` on the way to the block (the search ran it and it matched);
//! - the server's rewrite phase (`rewrite`, `if` with a regex, an `if` holding a
//!   `rewrite`), then the location's, up to the directive (all of it for a directive of a
//!   later phase), and `fastcgi_split_path_info`;
//! - a `map` with regex keys whose variable is read (evaluating it runs the regex);
//! - an internal redirect into the location (`rewrite … last`, `error_page`, the fallback
//!   of `try_files`): the captures of the regexes before it are kept; asked of
//!   [`super::redirects`].
//!
//! Anything this cannot see (an unread include, an `internal` or named location, which
//! only redirects enter) counts as a regex that may have run: the answer is "nothing ran"
//! only when that is certain.

use super::redirects::{reaches, routes_into, Index};
use crate::analysis::cursor::Directive;
use crate::analysis::variables::Provenance;

/// What the caller knows about the configuration: whether a directive reads the variable
/// of a `map` with regex keys, and the indexes the redirect search needs.
pub struct Seen<'a, 'p> {
    pub reads_regex_map: &'p dyn Fn(Directive<'_>) -> bool,
    pub provenance: &'p Provenance<'a>,
    pub index: &'p Index<'a>,
}

/// Whether `c` may set the request's captures: a `rewrite`, a regex `if`, a plain `if`
/// holding a `rewrite`, or `fastcgi_split_path_info`.
pub fn sets_captures(c: Directive<'_>) -> bool {
    match c.name() {
        "rewrite" | "fastcgi_split_path_info" => true,
        "if" => is_regex_if(c) || c.children("rewrite").next().is_some(),
        _ => false,
    }
}

/// Whether an `if`'s condition is a regex match (`~`, `~*`, `!~`, `!~*`).
pub fn is_regex_if(i: Directive<'_>) -> bool {
    i.args()
        .any(|a| matches!(&*a.value(), "~" | "~*" | "!~" | "!~*"))
}

/// The directives of the rewrite module, which run in the rewrite phase in order.
const REWRITE_PHASE: &[&str] = &["set", "rewrite", "return", "if", "break"];

/// Whether no regex can have run for any request by the time `d` runs in `block` (its
/// parent, or for a directive in an `if`, the block around the `if`, with `skip` the `if`
/// itself, whose own condition the caller judges).
pub fn nothing_ran<'a>(
    d: Directive<'a>,
    block: Directive<'a>,
    skip: Option<Directive<'a>>,
    seen: &Seen<'a, '_>,
) -> bool {
    if (seen.reads_regex_map)(d) {
        return false;
    }
    let rewrite_phase = REWRITE_PHASE.contains(&d.name());
    // The directive's position in its block: the `if` it is in, or itself.
    let at = skip.unwrap_or(d);
    let ran_in = |b: Directive<'a>, all: bool| {
        b.all_children().any(|c| {
            Some(c) != skip
                && (all || !rewrite_phase || c.is_before(at))
                && (sets_captures(c) || (seen.reads_regex_map)(c))
        }) || b.has_unread_include()
    };
    let mut location = None;
    let mut cur = Some(block);
    while let Some(b) = cur {
        match b.name() {
            "location" => {
                let modifier = b.arg(0).map(|a| a.value().into_owned()).unwrap_or_default();
                if matches!(modifier.as_str(), "~" | "~*")
                    || modifier.starts_with('@')
                    || b.children("internal").next().is_some()
                {
                    return false;
                }
                // Only the location that serves the request runs its rewrite phase; an
                // enclosing one is counted too (its directives are checked the same way,
                // which errs towards "may have run").
                if ran_in(b, location.is_some()) {
                    return false;
                }
                location.get_or_insert(b);
            }
            "if" => {
                if is_regex_if(b) || ran_in(b, false) {
                    return false;
                }
            }
            "server" => {
                let regex_name = b
                    .children("server_name")
                    .flat_map(|n| n.args())
                    .any(|a| a.value().starts_with('~'));
                // The server's rewrite phase runs before any location's: all of it.
                if regex_name || ran_in(b, location.is_some()) {
                    return false;
                }
                let Some(loc) = location else {
                    return true;
                };
                // An internal redirect into the location keeps the captures it carries.
                let routes = routes_into(loc, seen.provenance, seen.index);
                return !routes.iter().any(|r| reaches(r, loc));
            }
            // A fragment's block whose server is not seen, `limit_except`, …: unknown.
            _ => return false,
        }
        cur = b.parent();
    }
    false
}
