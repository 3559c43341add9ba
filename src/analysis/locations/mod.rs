//! Location matching: which `location` block nginx picks for a request in a server, so a
//! rule can ask which block serves `/.git/config`, `/uploads/x.php` or
//! `/static../etc/passwd`.
//!
//! Three steps, each as nginx 1.22 does it:
//!
//! 1. [`normalise`] turns the request target a client sends into the URI nginx matches
//!    (`$uri`): percent-decoded, slashes merged, `.` and `..` resolved, or refused with 400
//!    ([`Rejected`]). See [`uri`]; whose `merge_slashes` applies: [`default_server`].
//! 2. [`ServerLocations::build`] reads one `server { }` (includes expanded) into its
//!    location tree: the locations of the server and the nested ones, each with its
//!    [`Kind`] (`=`, prefix, `^~`, `~`, `~*`, `@name`), `internal`, and what nginx would
//!    refuse ([`Problem`], with nginx's message: a named location below the server level,
//!    a location inside an exact or named one, a nested prefix outside its parent, a
//!    duplicate, a location inside `if` or `limit_except`). [`Locations::of`] builds every
//!    server of a configuration once and shares it between rules.
//! 3. [`ServerLocations::select`] picks the location for a URI as
//!    `ngx_http_core_find_location` does:
//!    - at each level (the server, then inside the chosen location), the static tree of
//!      the exact and prefix locations is searched ([`static_tree`]): an exact match ends
//!      the search; otherwise the longest matching prefix is remembered and the search
//!      goes on inside it (its nested locations, prefix then regex);
//!    - if nothing inside settled it, the regex locations of this level are tried in
//!      configuration order (unless the longest prefix of this level is `^~`), and the
//!      first that matches wins — with its own nested locations searched the same way;
//!    - otherwise the longest prefix serves (or, with no location matching, the server).
//!
//!    So nested regexes of the chosen prefix come before the regexes beside it, a nested
//!    `^~` stops only the regexes of its own level, and an outer regex still beats a nested
//!    prefix. Inside a regex location only the nested regexes are searched: nginx builds
//!    no static tree there, so a prefix or exact location nested in a regex one is never
//!    selected ([`Location::selectable`]).
//!
//!    A [`Selection`] is the chain of chosen locations, outermost first, each with why
//!    ([`Why`]), the captures of the regex that matched, whether the serving location is
//!    `internal`, and an [`Outcome`]: served, a 301 (`auto_redirect`: the URI is a
//!    location's name without its final `/`, and the location has a `proxy_pass` or
//!    another `*_pass`; [`Location::escaped_name`] is where it points), or unknown when a
//!    regex could not be decided by [`crate::analysis::pcre`] (never a guess).
//!
//! Prefix comparisons are case-sensitive: nginx compares case-insensitively only when
//! built for a case-insensitive file system (macOS, Windows), where `~` regexes are
//! caseless too. This module models Linux.
//!
//! Not followed: `rewrite`, `try_files`, `error_page`, `return` and other internal
//! redirects, nor server-level `rewrite`s that run before the search. A rule that knows the
//! URI after such a change passes it to [`ServerLocations::select`] (which takes a
//! normalised URI; a rewrite's result is not normalised again) or names a location by
//! [`ServerLocations::named`]. An external request to an `internal` location gets 404:
//! [`Location::internal`] says so.
//!
//! Cost: building is linear in the server's locations plus one sort per level; a query
//! walks O(log n) tree nodes per nesting level and runs the regexes of the levels it
//! passes, each run bounded by the PCRE module's limits. Neither recurses, so nesting
//! deep through includes cannot exhaust the stack.
//!
//! Version: nginx before 1.23.4 keeps a tree node's name length in one byte, so a prefix
//! more than 255 bytes longer than its parent's is compared on its length modulo 256;
//! this module does the same (the binary test checks it against nginx 1.22.1, Debian 12's).

pub mod default_server;
mod select;
pub mod static_tree;
pub mod uri;

pub use select::{Outcome, Selection, Step, Unknown, Why};
pub use uri::{normalise, NormalisedUri, Reason, Rejected};

use crate::analysis::pass_target::PASSES;
use crate::analysis::pcre::{ParseError, Regex};
use crate::fxhash::FxHashMap;
use crate::stack::expanded::{NameId, OccId, View, NO_PARENT};
use crate::stack::model::NginxInstance;
use static_tree::StaticTree;
use std::sync::Arc;

/// Index into [`ServerLocations::locations`].
pub type LocId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `location = /x`
    Exact,
    /// `location /x`
    Prefix,
    /// `location ^~ /x`: when it is the longest prefix, regexes are not tried.
    NoRegexPrefix,
    /// `location ~ re`, or `location ~* re` (caseless).
    Regex { caseless: bool },
    /// `location @x`: only reached by name (`try_files`, `error_page`…), never by a URI.
    Named,
}

impl Kind {
    /// The modifier as written (`=`, `^~`, `~`, `~*`; empty for prefix and named).
    pub fn modifier(&self) -> &'static str {
        match self {
            Kind::Exact => "=",
            Kind::Prefix | Kind::Named => "",
            Kind::NoRegexPrefix => "^~",
            Kind::Regex { caseless: false } => "~",
            Kind::Regex { caseless: true } => "~*",
        }
    }
}

/// One `location` block.
pub struct Location {
    pub occ: OccId,
    pub kind: Kind,
    /// The name after the modifier: the prefix, the regex, or `@name`.
    pub name: Box<[u8]>,
    /// The enclosing location, `None` at the server level.
    pub parent: Option<LocId>,
    /// The nested locations, in configuration order.
    pub children: Vec<LocId>,
    /// `internal;` is set here or in an enclosing location (nginx inherits it): an
    /// external request that selects it gets 404, before any redirect.
    pub internal: bool,
    /// Its name ends with `/` and it has a `proxy_pass` (or `fastcgi_pass`, `uwsgi_pass`,
    /// `scgi_pass`, `memcached_pass`, `grpc_pass`): the name without the `/` is redirected.
    pub auto_redirect: bool,
    /// A request URI can select it: false for a named location, and for a prefix or
    /// exact location nested in a regex location (nginx accepts it, but never searches
    /// it) and everything inside such a one.
    pub selectable: bool,
    /// nginx builds the static tree of its nested locations: it and every enclosing
    /// location are prefix or exact ones.
    children_tree: bool,
    /// The compiled regex of a regex location (shared between servers with the same one).
    regex: Option<Arc<Result<Regex, ParseError>>>,
}

impl Location {
    /// The compiled regex (`Err` when PCRE2 refuses it, or lemplint's PCRE module does not
    /// model it); `None` for other kinds.
    pub fn regex(&self) -> Option<&Result<Regex, ParseError>> {
        self.regex.as_deref()
    }

    /// The path of nginx's 301 to this location ([`Outcome::Redirect`]; the request's
    /// arguments follow after a `?`): the name with the bytes URIs cannot hold as they are
    /// percent-encoded, as `ngx_escape_uri(NGX_ESCAPE_URI)` does — controls, space, `"`,
    /// `#`, `%`, `<`, `>`, `?`, `\`, `^`, `` ` ``, `{`, `|`, `}`, and bytes from 0x7F.
    pub fn escaped_name(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.name.len());
        for &b in self.name.iter() {
            let escape = !(0x20..0x7f).contains(&b) || b" \"#%<>?\\^`{|}".contains(&b);
            if escape {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
            } else {
                out.push(b);
            }
        }
        out
    }

    /// `location ~ \.php$` as written (modifier and name).
    pub fn label(&self) -> String {
        let name = String::from_utf8_lossy(&self.name);
        match self.kind.modifier() {
            "" => name.into_owned(),
            m => format!("{m} {name}"),
        }
    }
}

/// What nginx would refuse in a server's locations (its message), and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub occ: OccId,
    pub message: String,
}

/// The locations directly in one block (the server, or a location): nginx's static tree
/// of the exact and prefix ones, and the regex ones in configuration order.
struct Level {
    tree: StaticTree,
    regexes: Vec<LocId>,
}

/// [`ServerLocations::level_of`] for a level without locations.
const NO_LEVEL: u32 = u32::MAX;

/// The level of a block without locations.
static EMPTY_LEVEL: Level = Level {
    tree: StaticTree::empty(),
    regexes: Vec::new(),
};

/// The location tree of one `server { }`.
pub struct ServerLocations {
    pub server: OccId,
    /// Every location, in configuration order (so by occurrence id).
    locations: Vec<Location>,
    /// The levels that hold locations: see [`ServerLocations::level`].
    levels: Vec<Level>,
    /// Level 0 is the server's, level `i + 1` location `i`'s nested ones: the index of each
    /// in `levels`, [`NO_LEVEL`] for one without locations. Most locations nest none, and
    /// an empty level in place cost 56 bytes a location (48,000 regex locations: 5 MB of a
    /// 95 MB peak, heaptrack), its index 4.
    level_of: Vec<u32>,
    /// Named locations, sorted by name (first of equal names first, as nginx finds them).
    named: Vec<LocId>,
    /// The `merge_slashes` that normalises requests to this server. nginx applies the
    /// value of the default server of the address a request arrives on
    /// ([`default_server`]): [`Locations::build`] sets that one; [`ServerLocations::build`]
    /// alone knows only the server's own setting (or the one it inherits from `http`).
    pub merge_slashes: bool,
    /// The default servers of this server's addresses disagree on `merge_slashes` (or an
    /// address could not be read): [`ServerLocations::merge_slashes`] is then the server's
    /// own value, and a request on some address is normalised the other way.
    pub merge_slashes_varies: bool,
    pub problems: Vec<Problem>,
}

/// Regexes already compiled, by (pattern, caseless): vhosts share a handful.
/// Compiled regexes by pattern, case-sensitive ones at `[0]`, caseless at `[1]` (two maps,
/// so that a lookup borrows the pattern instead of allocating a key).
type RegexCache = [FxHashMap<Box<[u8]>, Arc<Result<Regex, ParseError>>>; 2];

/// What building every server of a configuration shares: the compiled regexes (one per
/// distinct pattern) and the name ids of the directives asked about in each location
/// (resolved once, not per query).
struct BuildCache {
    regexes: RegexCache,
    if_: Option<NameId>,
    limit_except: Option<NameId>,
    location: Option<NameId>,
    internal: Option<NameId>,
    passes: Vec<NameId>,
}

impl BuildCache {
    fn new(view: &View<'_>) -> BuildCache {
        let ex = view.expanded;
        BuildCache {
            regexes: RegexCache::default(),
            if_: ex.name_id("if"),
            limit_except: ex.name_id("limit_except"),
            location: ex.name_id("location"),
            internal: ex.name_id("internal"),
            passes: PASSES.iter().filter_map(|p| ex.name_id(p)).collect(),
        }
    }
}

/// The children of `block` named by `id` (none when the configuration has no such name).
fn children<'v>(view: &View<'v>, block: OccId, id: Option<NameId>) -> &'v [OccId] {
    match id {
        Some(id) => view.expanded.children_with(block, id),
        None => &[],
    }
}

/// The kind and name of a `location` directive as nginx reads its line (modifier and
/// pattern, `ngx_http_core_location`): the one reading every rule uses. `None` for a line
/// nginx refuses (an unknown modifier, too many arguments).
pub fn location_line(loc: crate::analysis::cursor::Directive<'_>) -> Option<(Kind, Vec<u8>)> {
    let args: Vec<Vec<u8>> = loc.args().map(|a| a.bytes().into_owned()).collect();
    read_location(&args).ok()
}

/// The kind and name of a `location`'s arguments (`ngx_http_core_location`), or nginx's
/// message refusing them.
pub fn read_location(args: &[Vec<u8>]) -> Result<(Kind, Vec<u8>), String> {
    match args {
        [m, name] => {
            let kind = match m.as_slice() {
                b"=" => Kind::Exact,
                b"^~" => Kind::NoRegexPrefix,
                b"~" => Kind::Regex { caseless: false },
                b"~*" => Kind::Regex { caseless: true },
                _ => {
                    return Err(format!(
                        "invalid location modifier \"{}\"",
                        String::from_utf8_lossy(m)
                    ))
                }
            };
            Ok((kind, name.clone()))
        }
        [name] => Ok(if let Some(rest) = name.strip_prefix(b"=") {
            (Kind::Exact, rest.to_vec())
        } else if let Some(rest) = name.strip_prefix(b"^~") {
            (Kind::NoRegexPrefix, rest.to_vec())
        } else if let Some(rest) = name.strip_prefix(b"~*") {
            (Kind::Regex { caseless: true }, rest.to_vec())
        } else if let Some(rest) = name.strip_prefix(b"~") {
            (Kind::Regex { caseless: false }, rest.to_vec())
        } else if name.starts_with(b"@") {
            (Kind::Named, name.clone())
        } else {
            (Kind::Prefix, name.clone())
        }),
        _ => Err("invalid number of arguments in \"location\" directive".into()),
    }
}

fn quoted(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

/// The argument values of an occurrence, as bytes.
fn arg_bytes(view: &View<'_>, occ: OccId) -> Vec<Vec<u8>> {
    let o = view.expanded.get(occ);
    let f = view.config.file(o.file);
    f.parsed
        .tree
        .args(view.directive(occ))
        .iter()
        .map(|w| w.value(&f.source.text).into_owned())
        .collect()
}

impl ServerLocations {
    /// The location tree of the `server` block at `server`.
    pub fn build(view: &View<'_>, server: OccId) -> ServerLocations {
        ServerLocations::build_with(view, server, &mut BuildCache::new(view))
    }

    fn build_with(view: &View<'_>, server: OccId, cache: &mut BuildCache) -> ServerLocations {
        let merge_slashes = view
            .effective(server, "merge_slashes")
            .first()
            .and_then(|&m| view.arg(m, 0))
            .is_none_or(|v| v != "off");
        let mut out = ServerLocations {
            server,
            locations: Vec::new(),
            levels: Vec::new(),
            level_of: Vec::new(),
            named: Vec::new(),
            merge_slashes,
            merge_slashes_varies: false,
            problems: Vec::new(),
        };
        // The locations directly in each level (0: the server's), in configuration order.
        let mut members: Vec<Vec<LocId>> = vec![Vec::new()];
        // Depth first in document order, so ids follow occurrence order: (a `location`
        // occurrence, the location it is in).
        let mut todo: Vec<(OccId, Option<LocId>)> = Vec::new();
        out.push_children(view, cache, server, None, &mut todo);
        while let Some((occ, parent)) = todo.pop() {
            let Some(id) = out.add(view, occ, parent, cache) else {
                continue;
            };
            members.push(Vec::new());
            match parent {
                Some(p) => {
                    out.locations[p as usize].children.push(id);
                    members[p as usize + 1].push(id);
                }
                None => members[0].push(id),
            }
            out.push_children(view, cache, occ, Some(id), &mut todo);
        }
        // Sized exactly: the tree lives as long as the configuration, and grown by
        // doubling each server kept room for levels and locations it does not have.
        out.locations.shrink_to_fit();
        out.level_of.reserve_exact(members.len());
        for (i, level) in members.iter().enumerate() {
            if level.is_empty() {
                // Most locations have no nested ones: nothing to build or check.
                out.level_of.push(NO_LEVEL);
                continue;
            }
            out.level_of.push(out.levels.len() as u32);
            // nginx builds the static tree of a level only on a path of prefix and exact
            // locations from the server: the prefix and exact locations nested in a regex
            // location are never searched (nor checked for duplicates).
            let builds = i == 0 || out.locations[i - 1].children_tree;
            if !builds {
                let regexes = level
                    .iter()
                    .copied()
                    .filter(|&id| matches!(out.locations[id as usize].kind, Kind::Regex { .. }))
                    .collect();
                out.levels.push(Level {
                    tree: StaticTree::empty(),
                    regexes,
                });
                continue;
            }
            let (tree, dups) = StaticTree::build(level, &out.locations);
            for static_tree::Duplicate(id) in dups {
                let loc = &out.locations[id as usize];
                let message = format!("duplicate location \"{}\"", quoted(&loc.name));
                let occ = loc.occ;
                out.problem(occ, message);
            }
            let regexes = level
                .iter()
                .copied()
                .filter(|&id| matches!(out.locations[id as usize].kind, Kind::Regex { .. }))
                .collect();
            out.levels.push(Level { tree, regexes });
        }
        out.levels.shrink_to_fit();
        let mut named: Vec<LocId> = members[0]
            .iter()
            .copied()
            .filter(|&id| out.locations[id as usize].kind == Kind::Named)
            .collect();
        named.sort_by(|&a, &b| {
            out.locations[a as usize]
                .name
                .cmp(&out.locations[b as usize].name)
        });
        out.named = named;
        out
    }

    /// Queues the `location`s directly in `block` (through includes), first on top; a
    /// `location` inside an `if` or `limit_except` there is a problem.
    fn push_children(
        &mut self,
        view: &View<'_>,
        cache: &BuildCache,
        block: OccId,
        parent: Option<LocId>,
        todo: &mut Vec<(OccId, Option<LocId>)>,
    ) {
        for wrapper in [cache.if_, cache.limit_except] {
            for &w in children(view, block, wrapper) {
                for &l in children(view, w, cache.location) {
                    self.problem(l, "\"location\" directive is not allowed here".into());
                }
            }
        }
        let children = children(view, block, cache.location);
        todo.extend(children.iter().rev().map(|&l| (l, parent)));
    }

    fn problem(&mut self, occ: OccId, message: String) {
        self.problems.push(Problem { occ, message });
    }

    /// Reads the `location` at `occ` under `parent`; `None` (with a problem) when nginx
    /// refuses it there.
    fn add(
        &mut self,
        view: &View<'_>,
        occ: OccId,
        parent: Option<LocId>,
        cache: &mut BuildCache,
    ) -> Option<LocId> {
        view.directive(occ).block()?;
        let (kind, name) = match read_location(&arg_bytes(view, occ)) {
            Ok(k) => k,
            Err(message) => {
                self.problem(occ, message);
                return None;
            }
        };
        if let Some(p) = parent {
            let p = &self.locations[p as usize];
            let refused = match (p.kind, kind) {
                (Kind::Exact, _) => Some(format!(
                    "location \"{}\" cannot be inside the exact location \"{}\"",
                    quoted(&name),
                    quoted(&p.name)
                )),
                (Kind::Named, _) => Some(format!(
                    "location \"{}\" cannot be inside the named location \"{}\"",
                    quoted(&name),
                    quoted(&p.name)
                )),
                (_, Kind::Named) => Some(format!(
                    "named location \"{}\" can be on the server level only",
                    quoted(&name)
                )),
                (_, Kind::Regex { .. }) => None,
                // Even inside a regex location, a nested prefix must start with the
                // parent's name (its regex, as text).
                _ if static_tree::filename_cmp(&name, &p.name, p.name.len())
                    != std::cmp::Ordering::Equal =>
                {
                    Some(format!(
                        "location \"{}\" is outside location \"{}\"",
                        quoted(&name),
                        quoted(&p.name)
                    ))
                }
                _ => None,
            };
            if let Some(message) = refused {
                self.problem(occ, message);
                return None;
            }
        }
        let regex = match kind {
            Kind::Regex { caseless } => {
                let map = &mut cache.regexes[usize::from(caseless)];
                Some(match map.get(name.as_slice()) {
                    Some(re) => re.clone(),
                    None => {
                        let re = Arc::new(Regex::parse_bytes(&name, caseless));
                        map.insert(name.clone().into_boxed_slice(), re.clone());
                        re
                    }
                })
            }
            _ => None,
        };
        if let Some(Err(e)) = regex.as_deref() {
            if e.is_syntax() {
                // nginx does not start: the location is not one (its nested ones neither).
                self.problem(
                    occ,
                    format!(
                        "pcre2_compile() failed: {} in \"{}\"",
                        e.message,
                        quoted(&name)
                    ),
                );
                return None;
            }
        }
        let ex = view.expanded;
        // nginx merges `internal` into nested locations (and there is no `internal off`).
        let internal = !children(view, occ, cache.internal).is_empty()
            || parent.is_some_and(|p| self.locations[p as usize].internal);
        let auto_redirect = name.last() == Some(&b'/')
            && cache
                .passes
                .iter()
                .any(|&p| !ex.children_with(occ, p).is_empty());
        let is_static = matches!(kind, Kind::Exact | Kind::Prefix | Kind::NoRegexPrefix);
        let (parent_tree, parent_selectable) = match parent {
            None => (true, true),
            Some(p) => {
                let p = &self.locations[p as usize];
                (p.children_tree, p.selectable)
            }
        };
        let selectable = parent_selectable
            && match kind {
                Kind::Named => false,
                Kind::Regex { .. } => true,
                _ => parent_tree,
            };
        let id = self.locations.len() as LocId;
        self.locations.push(Location {
            occ,
            kind,
            selectable,
            children_tree: is_static && parent_tree,
            name: name.into_boxed_slice(),
            parent,
            children: Vec::new(),
            internal,
            auto_redirect,
            regex,
        });
        Some(id)
    }

    /// Level 0 is the server's, level `i + 1` location `i`'s nested ones.
    fn level(&self, level: usize) -> &Level {
        match self.level_of.get(level) {
            Some(&i) if i != NO_LEVEL => &self.levels[i as usize],
            _ => &EMPTY_LEVEL,
        }
    }

    /// Every location, in configuration order.
    pub fn locations(&self) -> &[Location] {
        &self.locations
    }

    /// Every location with its id, in configuration order, for rules that look at each
    /// one: its [`Kind`] as nginx reads the modifier (`=/x` is exact, `^x` a prefix),
    /// whether a URI can select it ([`Location::selectable`]), `internal` as inherited.
    pub fn iter(&self) -> impl Iterator<Item = (LocId, &Location)> {
        self.locations
            .iter()
            .enumerate()
            .map(|(i, l)| (i as LocId, l))
    }

    pub fn get(&self, id: LocId) -> &Location {
        &self.locations[id as usize]
    }

    /// The locations directly in the server, in configuration order.
    pub fn top(&self) -> impl Iterator<Item = LocId> + '_ {
        self.locations
            .iter()
            .enumerate()
            .filter(|(_, l)| l.parent.is_none())
            .map(|(i, _)| i as LocId)
    }

    /// The location whose `location` directive is `occ`.
    pub fn location_of(&self, occ: OccId) -> Option<LocId> {
        let i = self.locations.binary_search_by_key(&occ, |l| l.occ).ok()?;
        Some(i as LocId)
    }

    /// The named location `name` (with its `@`), as `try_files … @x` finds it.
    pub fn named(&self, name: &[u8]) -> Option<LocId> {
        let i = self
            .named
            .partition_point(|&id| &*self.locations[id as usize].name < name);
        let &id = self.named.get(i)?;
        (&*self.locations[id as usize].name == name).then_some(id)
    }

    /// The locations from the server down to `id`, outermost first.
    pub fn path(&self, id: LocId) -> Vec<LocId> {
        let mut out = vec![id];
        let mut cur = id;
        while let Some(p) = self.locations[cur as usize].parent {
            out.push(p);
            cur = p;
        }
        out.reverse();
        out
    }

    /// The location nginx selects for a request target as sent (`/a/%2e%2e/b?x`),
    /// normalised with [`ServerLocations::merge_slashes`].
    pub fn select_request(&self, target: &[u8]) -> Result<Selection, Rejected> {
        let uri = normalise(target, self.merge_slashes)?;
        Ok(self.select(&uri.path))
    }

    /// The location nginx selects for a URI that is already normalised (`$uri`: after
    /// [`normalise`], or after a `rewrite`).
    pub fn select(&self, uri: &[u8]) -> Selection {
        select::select(self, uri)
    }
}

/// The location nginx selects in `server` for a normalised URI (`$uri`); see
/// [`ServerLocations::select`].
pub fn select(server: &ServerLocations, uri: &[u8]) -> Selection {
    server.select(uri)
}

/// The location trees of every `server { }` of one configuration (http servers only).
pub struct Locations {
    servers: Vec<ServerLocations>,
}

impl Locations {
    /// Built once per configuration and shared by every rule that asks.
    pub fn of(inst: &NginxInstance) -> Arc<Locations> {
        inst.memo.get(|| Locations::build(&inst.view()))
    }

    pub fn build(view: &View<'_>) -> Locations {
        use rayon::prelude::*;
        let occs: Vec<OccId> = view
            .named("server")
            .filter(|&s| is_http_server(view, s))
            .collect();
        // Servers are independent: built in parallel, each job with its own regex cache.
        let mut servers: Vec<ServerLocations> = occs
            .par_iter()
            .map_init(
                || BuildCache::new(view),
                |cache, &s| ServerLocations::build_with(view, s, cache),
            )
            .collect();
        let own: Vec<(OccId, bool)> = servers
            .iter()
            .map(|s| (s.server, s.merge_slashes))
            .collect();
        for (s, applied) in servers.iter_mut().zip(default_server::applied(view, &own)) {
            match applied {
                Some(v) => s.merge_slashes = v,
                None => s.merge_slashes_varies = true,
            }
        }
        Locations { servers }
    }

    /// Every http server, in configuration order.
    pub fn servers(&self) -> &[ServerLocations] {
        &self.servers
    }

    /// The server whose `server` directive is `occ`.
    pub fn server(&self, occ: OccId) -> Option<&ServerLocations> {
        let i = self.servers.binary_search_by_key(&occ, |s| s.server).ok()?;
        Some(&self.servers[i])
    }
}

/// A `server { }` of the http module (or at the top of a snippet, which is included into
/// `http`), not an `upstream`'s `server` line.
fn is_http_server(view: &View<'_>, occ: OccId) -> bool {
    if view.directive(occ).block().is_none() {
        return false;
    }
    let parent = view.expanded.get(occ).parent;
    parent == NO_PARENT || view.is(parent, "http")
}

#[cfg(test)]
mod tests;
