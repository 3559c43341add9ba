//! The simulation driver: an external request at a server, through the server's rewrite
//! phase, the location search, the location's rewrite phase, and the searches again while
//! rewrites change the URI, to where it ends.

use super::rewrite::{phase, set_caps};
use super::server::host_captures;
use super::state::{Flow, Gone, Req};
use super::value::{escape, Caps};
use super::{End, Model, Seed, MAX_PATHS};
use crate::analysis::cursor::Directive;
use crate::analysis::locations::{location_line, normalise, Kind, Outcome, ServerLocations};
use crate::analysis::pcre::{Captures, Regex};
use crate::stack::expanded::OccId;
use std::rc::Rc;

/// One request being followed: the model, the server, the location whose requests are
/// followed (`None`: every location), and the target as the client sent it.
pub(super) struct Walk<'a, 'm> {
    pub(super) model: &'m mut Model<'a>,
    server: Option<Directive<'a>>,
    watch: Option<Directive<'a>>,
    pub(super) target: &'m [u8],
    host: Option<&'m [u8]>,
    ends: Vec<End<'a>>,
    /// Ends that reached content or a cycle: the per-request budget counts these.
    settled: usize,
}

/// Which location a URI selects.
enum Sel<'a> {
    /// This location (`None`: the server level) serves it, with the captures of the
    /// location regex that matched.
    At(Option<Directive<'a>>, Option<Captures>),
    /// Another location than the watched one.
    Left(Option<Directive<'a>>),
    /// The search answers itself (a 301 to a location's name, a 404 for an external
    /// request to an `internal` location) or cannot be decided.
    Gone(Gone),
}

impl<'a> Model<'a> {
    pub(super) fn server_locs(&self, server: Option<Directive<'a>>) -> Option<&ServerLocations> {
        self.locs.as_ref()?.server(server?.occ())
    }

    /// The compiled regex of `rewrite`, `if` or a location at `o` (`None`: not modelled).
    pub(super) fn regex(
        &mut self,
        o: Directive<'_>,
        pattern: &[u8],
        caseless: bool,
    ) -> Option<Rc<Regex>> {
        self.regexes
            .entry(o.occ())
            .or_insert_with(|| Regex::parse_bytes(pattern, caseless).ok().map(Rc::new))
            .clone()
    }

    /// Follows an external request for `target` (as sent: path, `?`, arguments) with
    /// `host` (`None`: a Host no regex `server_name` captured from) at `server` (`None`:
    /// a snippet's location outside any server, of which only `watch` is known). With
    /// `watch`, a request that another location serves ends as [`End::Left`]; otherwise
    /// every location is followed. `None` when the ways multiply past [`MAX_PATHS`].
    pub fn follow(
        &mut self,
        server: Option<Directive<'a>>,
        watch: Option<Directive<'a>>,
        target: &[u8],
        host: Option<&[u8]>,
    ) -> Option<Vec<End<'a>>> {
        if server.is_some() && self.locs.is_none() {
            self.locs = Some(crate::analysis::locations::Locations::of(self.inst));
        }
        let mut walk = Walk {
            model: self,
            server,
            watch,
            target,
            host,
            ends: Vec::new(),
            settled: 0,
        };
        walk.example()?;
        Some(walk.ends)
    }

    /// Example request targets that `loc` serves, for each [`Seed`] one when the location
    /// takes it.
    pub fn examples(
        &mut self,
        server: Option<Directive<'a>>,
        loc: Directive<'a>,
    ) -> Vec<(Vec<u8>, Seed)> {
        if server.is_some() && self.locs.is_none() {
            self.locs = Some(crate::analysis::locations::Locations::of(self.inst));
        }
        let mut walk = Walk {
            model: self,
            server,
            watch: Some(loc),
            target: b"",
            host: None,
            ends: Vec::new(),
            settled: 0,
        };
        walk.examples(loc)
    }
}

impl<'a, 'm> Walk<'a, 'm> {
    /// A walk of `model` for `target` that watches no location, at no server.
    pub(super) fn new(model: &'m mut Model<'a>, target: &'m [u8]) -> Walk<'a, 'm> {
        Walk {
            model,
            server: None,
            watch: None,
            target,
            host: None,
            ends: Vec::new(),
            settled: 0,
        }
    }
}

impl<'a> Walk<'a, '_> {
    fn examples(&mut self, loc: Directive<'a>) -> Vec<(Vec<u8>, Seed)> {
        let seeds: [(&[u8], Seed); 4] = [
            (b"x", Seed::Plain),
            (b"a%2Fb", Seed::Slash),
            (b"a%3Fb/c", Seed::Question),
            (b"a?x=1", Seed::Query),
        ];
        let mut bases: Vec<Vec<u8>> = Vec::new();
        let Some((kind, name)) = location_line(loc) else {
            return Vec::new();
        };
        match kind {
            Kind::Prefix | Kind::NoRegexPrefix => {
                let mut b = Vec::new();
                escape(&name, false, &mut b);
                if !b.ends_with(b"/") {
                    b.push(b'/');
                }
                bases.push(b);
            }
            Kind::Exact => {
                let mut b = Vec::new();
                escape(&name, false, &mut b);
                let mut q = b.clone();
                q.extend_from_slice(b"?x=1");
                return vec![(b, Seed::Plain), (q, Seed::Query)]
                    .into_iter()
                    .filter(|(t, _)| self.serves(t))
                    .collect();
            }
            Kind::Regex { caseless } => {
                let Some(sample) = self
                    .model
                    .regex(loc, &name, caseless)
                    .and_then(|r| r.sample())
                else {
                    return Vec::new();
                };
                let mut b = Vec::new();
                escape(&sample, false, &mut b);
                bases.push(b.clone());
                if !b.ends_with(b"/") {
                    let mut s = b.clone();
                    s.push(b'/');
                    bases.push(s);
                }
            }
            Kind::Named => return Vec::new(),
        }
        let mut out = Vec::new();
        for (seed, purpose) in seeds {
            let found = bases.iter().find_map(|base| {
                // After the base, or as a first segment before the rest of it.
                let mut after = base.clone();
                after.extend_from_slice(seed);
                let mut before = b"/".to_vec();
                before.extend_from_slice(seed.split(|&b| b == b'?').next().unwrap_or(seed));
                before.extend_from_slice(base);
                if purpose == Seed::Query {
                    before.extend_from_slice(b"?x=1");
                }
                [after, before].into_iter().find(|t| self.serves(t))
            });
            if let Some(t) = found {
                out.push((t, purpose));
            }
        }
        out
    }

    fn merge_slashes(&self) -> bool {
        self.model
            .server_locs(self.server)
            .is_none_or(|l| l.merge_slashes)
    }

    /// Whether an external request for `target` is served by the watched location.
    fn serves(&mut self, target: &[u8]) -> bool {
        let Ok(n) = normalise(target, self.merge_slashes()) else {
            return false;
        };
        matches!(self.select(&n.path, true), Some(Sel::At(Some(_), _)))
    }

    /// The location `uri` selects (`None`: not known).
    fn select(&mut self, uri: &[u8], external: bool) -> Option<Sel<'a>> {
        let inst = self.model.inst;
        let watch = self.watch;
        if let Some(locs) = self.model.server_locs(self.server) {
            let s = locs.select(uri);
            let at = |id: Option<u32>| id.map(|id| Directive::new(inst, locs.get(id).occ));
            match (&s.outcome, watch) {
                (Outcome::Unknown { regex, .. }, None) => {
                    return Some(Sel::Gone(Gone::Unknown(locs.get(*regex).occ)))
                }
                (Outcome::Redirect(l), None) if !(external && s.internal) => {
                    return Some(Sel::Gone(Gone::Answered(locs.get(*l).occ)))
                }
                (Outcome::Served, _) if !(external && s.internal) => {}
                (_, Some(_)) => return s.is_decided().then_some(Sel::Left(None)),
                (_, None) => {
                    // An external request to an `internal` location: 404 (which an
                    // `error_page` may send elsewhere: not followed).
                    let l = s.location().map_or(locs.server, |l| locs.get(l).occ);
                    return Some(Sel::Gone(Gone::Answered(l)));
                }
            }
            let chosen = s.location();
            if let Some(w) = watch {
                let id = locs.location_of(w.occ())?;
                if chosen != Some(id) {
                    return Some(Sel::Left(at(chosen)));
                }
            }
            return Some(Sel::At(at(chosen), s.captures));
        }
        // A snippet: only the watched location's own match is known, and only for the
        // request as sent.
        let loc = watch?;
        if !external {
            return None;
        }
        let (kind, name) = location_line(loc)?;
        let this = |yes: bool| {
            if yes {
                Sel::At(Some(loc), None)
            } else {
                Sel::Left(None)
            }
        };
        match kind {
            Kind::Prefix | Kind::NoRegexPrefix => Some(this(uri.starts_with(&name))),
            Kind::Exact => Some(this(uri == &name[..])),
            Kind::Regex { caseless } => {
                let r = self.model.regex(loc, &name, caseless)?;
                match r.captures(uri).ok()? {
                    Some(c) => Some(Sel::At(Some(loc), Some(c))),
                    None => Some(Sel::Left(None)),
                }
            }
            Kind::Named => None,
        }
    }

    /// Follows the request through the server's and the location's rewrite phases.
    fn example(&mut self) -> Option<()> {
        let target = self.target;
        let Ok(n) = normalise(target, self.merge_slashes()) else {
            return Some(());
        };
        let path_part = target.split(|&b| b == b'?').next().unwrap_or(target);
        let caps = match self.server {
            Some(s) => host_captures(s, self.host),
            None => Caps::None,
        };
        let req = Req::new(
            n.path,
            n.args.unwrap_or_default(),
            path_part.contains(&b'%'),
            caps,
        );
        let flows = match self.server {
            Some(s) => self.run(&phase(s), vec![req])?,
            None => vec![Flow::Go(req)],
        };
        for f in flows {
            match f {
                Flow::Go(mut r) | Flow::Stop(mut r) | Flow::Again(mut r) => {
                    r.uri_changed = false;
                    // A server-level rewrite marks the request internal: it may then
                    // enter an `internal` location (checked against nginx 1.22.1).
                    let external = !r.internal;
                    self.enter(r, external)?;
                }
                Flow::Gone(g) => self.ends.push(End::Gone(g)),
            }
        }
        Some(())
    }

    /// The location search, then the location's rewrite phase, again while it changes
    /// the URI.
    fn enter(&mut self, mut r: Req, external: bool) -> Option<()> {
        let loc = match self.select(&r.uri.clone(), external) {
            Some(Sel::At(loc, c)) => {
                if let (Some(c), Some(l)) = (c, loc) {
                    let names = match location_line(l) {
                        Some((Kind::Regex { caseless }, re)) => self
                            .model
                            .regex(l, &re, caseless)
                            .map(|x| x.capture_table().names().to_vec())
                            .unwrap_or_default(),
                        _ => Vec::new(),
                    };
                    let subject = r.uri.clone();
                    let raw = r.uri_raw;
                    set_caps(&mut r, &names, &c, subject, raw, Some(l.occ()));
                }
                loc
            }
            Some(Sel::Left(l)) => {
                self.ends.push(End::Left(l));
                return Some(());
            }
            Some(Sel::Gone(g)) => {
                self.ends.push(End::Gone(g));
                return Some(());
            }
            None => return Some(()),
        };
        // The server level (no location matched) has no location rewrite phase: nginx
        // skips it for the server's own configuration.
        let Some(l) = loc else {
            self.settle(End::Content {
                location: None,
                req: r,
            });
            return Some(());
        };
        let flows = self.run(&phase(l), vec![r])?;
        for f in flows {
            match f {
                Flow::Stop(r) => self.settle(End::Content {
                    location: loc,
                    req: r,
                }),
                Flow::Go(r) if !r.uri_changed => self.settle(End::Content {
                    location: loc,
                    req: r,
                }),
                Flow::Go(mut r) | Flow::Again(mut r) => {
                    r.rounds -= 1;
                    if r.rounds == 0 {
                        self.settle(End::Cycle(r));
                        continue;
                    }
                    r.uri_changed = false;
                    self.enter(r, false)?;
                }
                Flow::Gone(g) => self.ends.push(End::Gone(g)),
            }
            if self.settled > MAX_PATHS {
                return None;
            }
        }
        Some(())
    }

    fn settle(&mut self, end: End<'a>) {
        self.settled += 1;
        self.ends.push(end);
    }
}

/// The occurrence whose requests a budget counts: the location's server.
pub(super) fn server_of(loc: Directive<'_>) -> Option<OccId> {
    loc.enclosing("server").map(|s| s.occ())
}
