//! One request on one way through the rewrite phases: what nginx holds in `r` while it
//! runs them, and how a block of rewrite-module directives leaves it.

use super::value::{Caps, Val};
use crate::stack::expanded::OccId;

/// `NGX_HTTP_MAX_URI_CHANGES + 1`: how many location searches one request gets.
pub const URI_CHANGES: u8 = 11;

/// One request on one way through the rewrite phases.
#[derive(Clone, Debug)]
pub struct Req {
    /// `$uri` (`r->uri`): normalised from the request line, then as rewrites left it.
    pub uri: Vec<u8>,
    /// `r->uri` holds raw text from this directive's `$request_uri`.
    pub uri_raw: Option<OccId>,
    /// `$args`.
    pub args: Vec<u8>,
    /// The target had a `%` (`r->quoted_uri`).
    pub quoted: bool,
    pub caps: Caps,
    /// `set` variables and named captures (`None`: value unknown).
    pub vars: Vars,
    /// A rewrite marked the request internal (`r->internal`).
    pub internal: bool,
    /// The request line's URI still stands (`r->valid_unparsed_uri`).
    pub valid_unparsed: bool,
    /// The URI still begins with the serving location's name (`r->valid_location`).
    pub valid_location: bool,
    /// A rewrite changed the URI in this phase (`r->uri_changed`).
    pub uri_changed: bool,
    /// Conditions followed both ways: the `if` and the way taken.
    pub decisions: Vec<(OccId, bool)>,
    /// Why a `rewrite … $request_uri` did not run on this way, and which one.
    pub skipped: Option<Skipped>,
    /// Location searches left before nginx answers 500.
    pub rounds: u8,
    /// The rewrites that changed the URI, in order.
    pub rewrites: Vec<OccId>,
}

/// Why a `rewrite … $request_uri` did not run on a way, and which one.
pub type Skipped = (String, OccId);

/// `set` variables and named captures, newest last (`None`: value unknown).
pub type Vars = Vec<(String, Option<Val>)>;

impl Req {
    /// A request as nginx holds it before the server's rewrite phase.
    pub fn new(uri: Vec<u8>, args: Vec<u8>, quoted: bool, caps: Caps) -> Req {
        Req {
            uri,
            uri_raw: None,
            args,
            quoted,
            caps,
            vars: Vec::new(),
            internal: false,
            valid_unparsed: true,
            valid_location: true,
            uri_changed: false,
            decisions: Vec::new(),
            skipped: None,
            rounds: URI_CHANGES,
            rewrites: Vec::new(),
        }
    }

    /// A `set` variable or named capture: `Some(None)` when its value is not known.
    pub fn var(&self, name: &str) -> Option<&Option<Val>> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    pub fn set_var(&mut self, name: String, v: Option<Val>) {
        self.vars.retain(|(n, _)| *n != name);
        self.vars.push((name, v));
    }
}

/// Why a way through the rewrite phases ends before the content phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gone {
    /// Answered there: `return`, a redirecting `rewrite`, a content handler inside `if`,
    /// or a rewrite to an empty URI (500).
    Answered(OccId),
    /// Not followed: a value or regex this model does not know at this directive.
    Unknown(OccId),
}

/// How a block's rewrite directives leave a request.
pub(super) enum Flow {
    /// Goes on after the block.
    Go(Req),
    /// `break`: the rewrite phase ends here.
    Stop(Req),
    /// `rewrite … last`: the locations are searched again.
    Again(Req),
    Gone(Gone),
}
