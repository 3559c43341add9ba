//! Whether an `if` is entered only by requests whose `Origin` header names a site the
//! configuration trusts: the CORS branches of the widely copied recipe
//!
//! ```nginx
//! set $cors "";
//! if ($http_origin ~* ^https://(www\.)?example\.com$) { set $cors "true"; }
//! if ($request_method = OPTIONS) { set $cors "${cors}options"; }
//! if ($cors = "trueoptions") { add_header Access-Control-Allow-Origin $http_origin; … }
//! ```
//!
//! A browser sends `Origin` on CORS requests and on form posts, with the origin of the page
//! that makes them (fetch.spec.whatwg.org, "origin header"); a page of another site cannot
//! make it send a trusted one, and a navigation that frames a page (a `GET`) sends none. So
//! the responses such a branch changes are answers to the trusted sites' own requests:
//! headers that protect a document a third party frames or opens (`X-Frame-Options`, CSP)
//! are not lost where an attacker could use their absence (NGX116).
//!
//! An `if` qualifies when its condition is `$http_origin ~ regex` (or `~*`) with a regex
//! that matches none of [`STRANGERS`] nor `null` (sandboxed frames send `null`), or
//! `$var = text` where `$var`, followed through the `set`s and `if`s written before it in
//! the same block from the last `set` of a literal, cannot hold `text` unless such an origin
//! test was entered. Anything else (a `set` from another variable, `!=`, too many branches)
//! does not qualify.

use crate::analysis::cursor::Directive;
use crate::analysis::if_condition::{self, Test};
use crate::analysis::origin_regex::STRANGERS;
use crate::analysis::pcre::Regex;
use crate::analysis::variables::parse::{PartKind, Script};
use std::collections::BTreeSet;

/// How many values a variable may take across the branches before the question is left
/// unanswered (each `if` that appends can double them).
const MAX_VALUES: usize = 256;

/// Whether `block` (an `if`) is entered only by requests whose `Origin` the configuration
/// trusts (see the module's comment).
pub fn entered_only_from_trusted_origin(block: Directive<'_>) -> bool {
    if block.name() != "if" {
        return false;
    }
    let Some(cond) = if_condition::parse(block) else {
        return false;
    };
    if cond.negated {
        return false;
    }
    match &cond.test {
        Test::Matches { .. } if cond.var == "http_origin" => trusting(&cond),
        Test::Equals(text) if !text.is_empty() && cond.var != "http_origin" => {
            values_without_trusted_origin(block, &cond.var).is_some_and(|v| !v.contains(text))
        }
        _ => false,
    }
}

/// `if ($http_origin ~ regex)` with a regex no stranger's origin matches.
fn trusting_origin_test(block: Directive<'_>) -> bool {
    if_condition::parse(block).is_some_and(|c| trusting(&c))
}

/// The condition `$http_origin ~ regex` with a regex no stranger's origin matches.
fn trusting(cond: &if_condition::Condition) -> bool {
    let Test::Matches { pattern, caseless } = &cond.test else {
        return false;
    };
    if cond.var != "http_origin" || cond.negated {
        return false;
    }
    let Ok(re) = Regex::parse(pattern, *caseless) else {
        return false;
    };
    STRANGERS
        .iter()
        .chain(&["null"])
        .all(|s| re.is_match(s.as_bytes()) == Ok(false))
}

/// The values `$var` can hold when `at` is evaluated, for a request whose `Origin` is not
/// trusted: from the last `set $var <literal>` before `at` in the same block, through the
/// `set`s written directly in that block and in the `if`s beside it. `None` when it cannot
/// be told.
fn values_without_trusted_origin(at: Directive<'_>, var: &str) -> Option<BTreeSet<String>> {
    let before: Vec<Directive<'_>> = at
        .level()
        .directive()?
        .all_children()
        .take_while(|d| d.occ() != at.occ())
        .collect();
    // Start from the last plain assignment of a literal.
    let start = before
        .iter()
        .rposition(|d| d.name() == "set" && sets(*d, var) && literal_value(*d).is_some())?;
    let mut values: BTreeSet<String> = BTreeSet::from([literal_value(before[start])?]);
    for d in &before[start + 1..] {
        match d.name() {
            "set" if sets(*d, var) => values = assign(*d, var, &values)?,
            "if" => {
                let inner: Vec<Directive<'_>> =
                    d.children("set").filter(|s| sets(*s, var)).collect();
                if inner.is_empty() || trusting_origin_test(*d) {
                    continue;
                }
                // Entered or not: both outcomes are possible for an untrusted origin.
                let mut entered = values.clone();
                for s in inner {
                    entered = assign(s, var, &entered)?;
                }
                values.extend(entered);
            }
            // The variable set by something this reading does not follow.
            _ if d.has_block()
                && d.name() != "location"
                && d.all_children().any(|c| c.name() == "set" && sets(c, var)) =>
            {
                return None;
            }
            _ => {}
        }
        if values.len() > MAX_VALUES {
            return None;
        }
    }
    Some(values)
}

/// Whether `set` assigns `$var`.
fn sets(set: Directive<'_>, var: &str) -> bool {
    set.arg(0)
        .and_then(|w| w.value().strip_prefix('$').map(str::to_ascii_lowercase))
        .is_some_and(|n| n == var)
}

/// The value of `set $var value` when it is a literal.
fn literal_value(set: Directive<'_>) -> Option<String> {
    let value = set.arg(1)?.value().into_owned();
    Script::parse_value(value.as_bytes())
        .is_literal()
        .then_some(value)
}

/// Each value `set $var value` gives, for each value `$var` had: literal text and `$var`
/// itself only (any other variable is not followed).
fn assign(set: Directive<'_>, var: &str, values: &BTreeSet<String>) -> Option<BTreeSet<String>> {
    let value = set.arg(1)?.value().into_owned();
    let script = Script::parse_value(value.as_bytes());
    if script.error.is_some() {
        return None;
    }
    let mut out = BTreeSet::new();
    for old in values {
        let mut new = String::new();
        for part in &script.parts {
            match &part.kind {
                PartKind::Literal => new.push_str(&value[part.value.range()]),
                PartKind::Variable { .. } if part.kind.key().as_deref() == Some(var) => {
                    new.push_str(old)
                }
                _ => return None,
            }
        }
        out.insert(new);
    }
    Some(out)
}
