//! One model of how nginx processes a request, for the rules that ask "for request R at
//! server S: which location serves it, after which rewrites, with which variable values
//! and captures, behind which access checks, and what is sent upstream?"
//!
//! The phases, each in its own file, each as nginx 1.22 runs it:
//!
//! - [`server`]: server selection by address, port and Host (exact, wildcard and regex
//!   `server_name`, with the regex's captures; the default server).
//! - URI normalisation and location selection are [`crate::analysis::locations`]'s
//!   ([`crate::analysis::locations::normalise`], with the default server's
//!   `merge_slashes`; [`crate::analysis::locations::ServerLocations::select`]).
//! - [`rewrite`]: the server's rewrite phase, then the location's (`rewrite`, `if` taken
//!   both ways when its condition is not known, `set`, `return`, `break`, `last`), again
//!   after each location search a rewrite causes, at most [`state::URI_CHANGES`] times
//!   (then 500). Captures are those of the last regex evaluated, empty when it failed or
//!   none ran; `$uri` is decoded, `$request_uri` raw.
//! - [`access`]: the access phase of the block that serves the request; [`opening`]:
//!   whether its `allow`/`deny` list and login keep anyone out as nginx runs them.
//! - [`upstream`]: what `proxy_pass` sends.
//! - [`redirects`]: the internal redirects (`rewrite`, `error_page`, `try_files`) by
//!   which nginx itself sends requests into a location, and the client request behind
//!   one.
//!
//! [`Model::follow`] runs one request and answers with every way it can end ([`End`]):
//! the content phase of a location (or of the server level), a rewrite cycle (500), the
//! rewrite phase answering (`return`, a redirect, a 301 of the location search, 404 of an
//! `internal` location), or unknown — a value, a regex or a phase this model does not
//! follow. The content phase's internal redirects (`try_files` fallbacks, `error_page`,
//! `X-Accel-Redirect`, `echo_exec`) are not followed: [`End::redirects`] says a redirect
//! may follow, and a caller that needs where it goes must treat it as unknown. Variables
//! the request's own text does not give (`$arg_x`, `$http_*`, `$host`, `map`s, named
//! captures of a `server_name` regex) are unknown: a condition on one is followed both
//! ways, a URI built from one is [`Gone::Unknown`]. Nothing is guessed: every way this
//! model does not follow is an [`End::Gone`] with [`Gone::Unknown`] or an absent answer.
//!
//! Checked against nginx 1.22.1 with the echo module by `tests/request_model.rs`: random
//! servers, and the corpus's servers with rewrite-phase directives.
//!
//! Cost: a request follows at most [`MAX_PATHS`] ways (an `if` whose condition is not
//! known doubles them), each at most [`state::URI_CHANGES`] location searches; a text
//! grows to at most [`value::MAX_TEXT`]. A request past these bounds has no answer
//! (`None`), never a partial one. Rules that follow requests per `proxy_pass` keep to
//! [`MAX_SIMULATED_PER_SERVER`] per server with a [`Budget`], so the cost stays linear
//! in the configuration.

pub mod access;
pub mod no_capture;
pub mod opening;
pub mod redirects;
mod rewrite;
pub mod server;
mod sim;
pub mod state;
pub mod upstream;
pub mod value;

#[cfg(test)]
mod tests;

pub use rewrite::{block_has, phase, raw_rewrite, show, text_of};
pub use state::{Gone, Req};

use crate::analysis::cursor::Directive;
use crate::analysis::locations::Locations;
use crate::analysis::pcre::Regex;
use crate::fxhash::FxHashMap;
use crate::stack::expanded::OccId;
use crate::stack::model::NginxInstance;
use std::rc::Rc;
use std::sync::Arc;

/// The most ways through the rewrite phases followed for one request.
pub const MAX_PATHS: usize = 64;

/// The most requests followed per server by a rule that follows them for each of a
/// server's directives. Each follows the location search for a few example requests, at
/// a cost that grows with the server's locations; the bound keeps such a rule linear in a
/// server with thousands of locations (where the first ones are followed and the rest get
/// the checks that do not follow requests).
pub const MAX_SIMULATED_PER_SERVER: usize = 32;

/// The model of one configuration: its location trees and the regexes compiled so far.
pub struct Model<'a> {
    inst: &'a NginxInstance,
    locs: Option<Arc<Locations>>,
    /// Parsed regexes of `rewrite`, `if` and locations, by directive (`None`: not
    /// modelled).
    regexes: FxHashMap<OccId, Option<Rc<Regex>>>,
}

impl<'a> Model<'a> {
    pub fn new(inst: &'a NginxInstance) -> Model<'a> {
        Model {
            inst,
            locs: None,
            regexes: FxHashMap::default(),
        }
    }
}

/// What an example request is for (see [`Model::examples`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seed {
    /// `…/x`
    Plain,
    /// `…/a%2Fb`: an encoded slash.
    Slash,
    /// `…/a%3Fb/c`: an encoded question mark.
    Question,
    /// `…/a?x=1`: a query string.
    Query,
}

/// Where one way of a request ends.
#[derive(Debug)]
pub enum End<'a> {
    /// The content phase of `location` (`None`: the server level, no location matched)
    /// serves it, with the request as the rewrite phases left it.
    Content {
        location: Option<Directive<'a>>,
        req: Req,
    },
    /// The URI changed on every one of the location searches: nginx answers 500
    /// ("rewrite or internal redirection cycle").
    Cycle(Req),
    /// Another location than the watched one serves it (not followed further).
    Left(Option<Directive<'a>>),
    /// Answered before the content phase, or not followed.
    Gone(Gone),
}

impl End<'_> {
    /// For a content end: a directive of the serving block that may redirect the request
    /// internally in the content phase (`try_files`, whose fallback depends on the file
    /// system; `error_page`), which this model does not follow.
    pub fn redirects(&self) -> Option<Directive<'_>> {
        let End::Content {
            location: Some(l), ..
        } = self
        else {
            return None;
        };
        l.children("try_files")
            .next()
            .or_else(|| l.effective("error_page").next())
    }
}

/// Counts the requests followed per server against [`MAX_SIMULATED_PER_SERVER`].
#[derive(Default)]
pub struct Budget(FxHashMap<OccId, usize>);

impl Budget {
    /// Whether another request for `loc`'s server fits (a snippet's location, outside any
    /// server, selects nothing and always fits).
    pub fn take(&mut self, loc: Directive<'_>) -> bool {
        let Some(server) = sim::server_of(loc) else {
            return true;
        };
        let n = self.0.entry(server).or_default();
        *n += 1;
        *n <= MAX_SIMULATED_PER_SERVER
    }
}
