//! The search itself: `ngx_http_core_find_location` (nginx 1.22,
//! `src/http/ngx_http_core_module.c`), level by level.
//!
//! At a level: search its static tree. An exact match, or a redirect, ends everything. A
//! prefix match is searched again inside (its nested locations); if that settled nothing
//! (no exact match, no redirect, no nested regex), this level's regexes are tried in order
//! — unless the prefix found at this level is `^~` — and the first match is searched
//! inside the same way. A regex match is final: below it, a redirect is served rather than
//! sent (nginx returns `NGX_OK` whatever the nested search said).

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

/// How a level's search ended (`NGX_OK`, `NGX_DONE`, `NGX_AGAIN`, `NGX_DECLINED`).
enum Rc {
    /// Settled: an exact match, or a regex matched (at this level or inside).
    Done,
    /// A redirect, to be sent unless a regex level above turns it into a match.
    Redirect(LocId),
    /// A prefix matched (or nothing): regexes of the levels above may still win.
    Open,
    Unknown(LocId, Unknown),
}

pub(super) fn select(locs: &ServerLocations, uri: &[u8]) -> Selection {
    let mut search = Search {
        chain: Vec::new(),
        captures: None,
    };
    let outcome = match find(locs, 0, uri, &mut search) {
        Rc::Done | Rc::Open => Outcome::Served,
        Rc::Redirect(l) => Outcome::Redirect(l),
        Rc::Unknown(regex, why) => Outcome::Unknown { regex, why },
    };
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

/// The search at one level (0: the server; `l + 1`: inside location `l`). Recursion depth
/// is the nesting depth of locations, which the parser caps.
fn find(locs: &ServerLocations, level: usize, uri: &[u8], search: &mut Search) -> Rc {
    let chain = &mut search.chain;
    let base = chain.len();
    let lv = &locs.levels[level];
    let mut no_regex = false;
    let mut rc = match lv.tree.find(uri, &locs.locations) {
        Found::Declined => Rc::Open,
        Found::Exact(l) => {
            chain.push(Step {
                location: l,
                why: Why::Exact,
            });
            return Rc::Done;
        }
        Found::Redirect(l) => {
            chain.push(Step {
                location: l,
                why: Why::Slash,
            });
            return Rc::Redirect(l);
        }
        Found::Prefix(l) => {
            no_regex = locs.get(l).kind == Kind::NoRegexPrefix;
            chain.push(Step {
                location: l,
                why: if no_regex {
                    Why::NoRegexPrefix
                } else {
                    Why::Prefix
                },
            });
            find(locs, l as usize + 1, uri, search)
        }
    };
    if !matches!(rc, Rc::Open) || no_regex {
        return rc;
    }
    for (i, &r) in lv.regexes.iter().enumerate() {
        let matched = match locs.get(r).regex() {
            Some(Ok(re)) => re.captures(uri).map_err(Unknown::Undecided),
            Some(Err(e)) => Err(Unknown::Unsupported(e.clone())),
            None => Ok(None),
        };
        match matched {
            Ok(None) => continue,
            Ok(Some(caps)) => {
                search.captures = Some(caps);
                search.chain.truncate(base);
                search.chain.push(Step {
                    location: r,
                    why: Why::Regex { nth: i as u32 + 1 },
                });
                rc = match find(locs, r as usize + 1, uri, search) {
                    Rc::Unknown(l, why) => Rc::Unknown(l, why),
                    _ => Rc::Done,
                };
                return rc;
            }
            Err(why) => return Rc::Unknown(r, why),
        }
    }
    rc
}
