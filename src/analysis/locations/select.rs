//! The search itself: `ngx_http_core_find_location` (nginx 1.22,
//! `src/http/ngx_http_core_module.c`), level by level.
//!
//! At a level: search its static tree. An exact match, or a redirect, ends everything. A
//! prefix match is searched again inside (its nested locations); if that settled nothing
//! (no exact match, no redirect, no nested regex), this level's regexes are tried in order
//! — unless the prefix found at this level is `^~` — and the first match is searched
//! inside the same way. A regex match is final.

use super::static_tree::Found;
use super::{Kind, LocId, ServerLocations};
use crate::analysis::pcre::{Captures, ParseError, Undecided};

/// Why a location of the chain was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// `location = …` equals the URI.
    Exact,
    /// The longest prefix that starts the URI, and no regex beside or inside it matched.
    Prefix,
    /// The longest prefix, a `^~` one: the regexes beside it were not tried.
    NoRegexPrefix,
    /// The `nth` (from 1) regex location of its level, in configuration order: the first
    /// that matched.
    Regex { nth: u32 },
    /// The URI is this location's name without the final `/` (and it has a `*_pass`).
    Slash,
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::Exact => f.write_str("exact"),
            Why::Prefix => f.write_str("prefix (longest)"),
            Why::NoRegexPrefix => f.write_str("prefix (longest); ^~ stops regex search"),
            Why::Regex { nth } => write!(f, "regex #{nth}"),
            Why::Slash => f.write_str("the URI with a final \"/\" added"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub location: LocId,
    pub why: Why,
}

/// Why nginx's choice could not be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// Running the regex did not finish within the PCRE module's bounds.
    Undecided(Undecided),
    /// The regex is outside what lemplint's PCRE module models (or PCRE2 refuses it, in
    /// which case nginx does not start).
    Unsupported(ParseError),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The last location of the chain serves the request (the server itself when the
    /// chain is empty). An `internal` one answers an external request with 404.
    Served,
    /// nginx answers 301 with `Location:` this location's name (plus the arguments).
    Redirect(LocId),
    /// This regex location could not be decided: nothing is known about the choice (the
    /// chain is where the search stood).
    Unknown { regex: LocId, why: Unknown },
}

/// The locations nginx selects for a URI, outermost first, and how it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The trace: each location the search settled on, outermost first, with why. Only
    /// the last serves; the ones before it are where the search went inside.
    pub chain: Vec<Step>,
    pub outcome: Outcome,
    /// The captures (`$1`…`$9`, named ones) of the last location regex that matched, as
    /// byte spans of the URI: nginx keeps them after a later regex fails to match.
    pub captures: Option<Captures>,
    /// The serving location is `internal`: an external request gets 404 instead (also
    /// instead of a [`Outcome::Redirect`]: nginx checks `internal` first).
    pub internal: bool,
}

impl Selection {
    /// The location whose configuration serves the request: `None` for the server's
    /// own, or when unknown.
    pub fn location(&self) -> Option<LocId> {
        match self.outcome {
            Outcome::Served | Outcome::Redirect(_) => self.chain.last().map(|s| s.location),
            Outcome::Unknown { .. } => None,
        }
    }

    /// Whether nginx's choice is known.
    pub fn is_decided(&self) -> bool {
        !matches!(self.outcome, Outcome::Unknown { .. })
    }

    /// A one-line account: `prefix (longest) /a/ > regex #1 ~ \.php$`.
    pub fn explain(&self, locs: &ServerLocations) -> String {
        let chain = self
            .chain
            .iter()
            .map(|s| format!("{} {}", s.why, locs.get(s.location).label()))
            .collect::<Vec<_>>()
            .join(" > ");
        let chain = if chain.is_empty() {
            "no location: server level".to_string()
        } else {
            chain
        };
        match &self.outcome {
            Outcome::Served => chain,
            Outcome::Redirect(l) => format!("{chain}: 301 to {}", locs.get(*l).label()),
            Outcome::Unknown { regex, why } => {
                let why = match why {
                    Unknown::Undecided(u) => format!("{u:?}"),
                    Unknown::Unsupported(e) => e.message.clone(),
                };
                format!(
                    "unknown: regex {} could not be decided ({why})",
                    locs.get(*regex).label()
                )
            }
        }
    }
}

pub(super) fn select(locs: &ServerLocations, uri: &[u8]) -> Selection {
    let mut search = Search {
        chain: Vec::new(),
        captures: None,
    };
    let outcome = find(locs, uri, &mut search);
    let mut out = Selection {
        chain: search.chain,
        outcome,
        captures: search.captures,
        internal: false,
    };
    out.internal = out.location().is_some_and(|l| locs.get(l).internal);
    out
}

/// Where a search stands: the chain so far and the captures of the last regex matched.
struct Search {
    chain: Vec<Step>,
    captures: Option<Captures>,
}

/// nginx's recursive search, unrolled so that nesting deep through includes cannot
/// exhaust the stack (the cost stays one tree search and one regex pass per level):
///
/// 1. down: each level's static tree, from the server into the longest prefix found, until
///    a level finds none (an exact match or a redirect ends everything here);
/// 2. up: from the deepest level back to the server, each level whose prefix is not `^~`
///    tries its regexes, in order (what nginx does when a nested search returns);
/// 3. the first regex that matches is searched inside: its nested regexes only (below a
///    regex location nginx has no static tree), the first match each time, and then the
///    search is over.
fn find(locs: &ServerLocations, uri: &[u8], search: &mut Search) -> Outcome {
    // (level, chain length before its prefix, its prefix is `^~`)
    let mut levels: Vec<(usize, usize, bool)> = Vec::new();
    let mut level = 0;
    loop {
        let base = search.chain.len();
        let step = |location, why| Step { location, why };
        match locs.level(level).tree.find(uri, &locs.locations) {
            Found::Declined => {
                levels.push((level, base, false));
                break;
            }
            Found::Exact(l) => {
                search.chain.push(step(l, Why::Exact));
                return Outcome::Served;
            }
            Found::Redirect(l) => {
                search.chain.push(step(l, Why::Slash));
                return Outcome::Redirect(l);
            }
            Found::Prefix(l) => {
                let no_regex = locs.get(l).kind == Kind::NoRegexPrefix;
                let why = if no_regex {
                    Why::NoRegexPrefix
                } else {
                    Why::Prefix
                };
                search.chain.push(step(l, why));
                levels.push((level, base, no_regex));
                level = l as usize + 1;
            }
        }
    }
    let mut matched = None;
    while let Some((level, base, no_regex)) = levels.pop() {
        if no_regex {
            continue;
        }
        match first_regex(locs, level, uri) {
            Err(unknown) => return unknown,
            Ok(None) => {}
            Ok(Some((r, nth, caps))) => {
                search.chain.truncate(base);
                matched = Some((r, nth, caps));
                break;
            }
        }
    }
    while let Some((r, nth, caps)) = matched.take() {
        search.captures = Some(caps);
        search.chain.push(Step {
            location: r,
            why: Why::Regex { nth },
        });
        match first_regex(locs, r as usize + 1, uri) {
            Err(unknown) => return unknown,
            Ok(next) => matched = next,
        }
    }
    Outcome::Served
}

/// The first regex location of `level` that matches `uri`: its id, its place (from 1)
/// and its captures; `Err` with the outcome when one before it cannot be decided.
fn first_regex(
    locs: &ServerLocations,
    level: usize,
    uri: &[u8],
) -> Result<Option<(LocId, u32, Captures)>, Outcome> {
    for (i, &r) in locs.level(level).regexes.iter().enumerate() {
        let found = match locs.get(r).regex() {
            Some(Ok(re)) => re.captures(uri).map_err(Unknown::Undecided),
            Some(Err(e)) => Err(Unknown::Unsupported(e.clone())),
            None => Ok(None),
        };
        match found {
            Ok(None) => continue,
            Ok(Some(caps)) => return Ok(Some((r, i as u32 + 1, caps))),
            Err(why) => return Err(Outcome::Unknown { regex: r, why }),
        }
    }
    Ok(None)
}
