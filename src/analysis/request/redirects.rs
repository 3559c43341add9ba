//! Internal redirects nginx itself makes into a location: `rewrite` (which marks the
//! request internal), `error_page`, and the last argument of `try_files`
//! (ngx_http_internal_redirect, ngx_http_named_location), in the same server or inherited
//! from `http`. An `internal` or named location refuses requests from outside but not
//! these. Each [`Route`] says what the redirect carries into the location: headers,
//! cookies and `$host` survive every one; the arguments survive unless the redirect
//! replaces them (`error_page 404 /404.html` drops them); the URI is the client's only
//! when the redirect writes the client's text into it. [`client_uri_for_rewrite`] and
//! [`client_uri_for_redirect`] work backwards: the client URI a redirect turns into a
//! given URI that the location takes. (`X-Accel-Redirect` from a backend is not
//! followed: the backend, not the client, writes it.)

use crate::analysis::cursor::{self, Directive};
use crate::analysis::locations::{location_line, normalise, Kind, Locations};
use crate::analysis::pcre::Regex;
use crate::analysis::variables::{Danger, Part, PartKind, Provenance, Script, Step};
use crate::fxhash::FxHashMap;
use crate::source::Span;
use crate::stack::expanded::OccId;
use crate::stack::model::NginxInstance;

/// The directives of one configuration that the checks look up per server, found once:
/// looking them up among the whole configuration for every target made the rule quadratic
/// in servers.
pub struct Index<'a> {
    /// `rewrite`, `error_page` and `try_files` by enclosing server (`None`: outside any),
    /// each list in configuration order.
    redirects: FxHashMap<Option<OccId>, Vec<(Via, Directive<'a>)>>,
    /// `set $name …` by enclosing server and lowercase name.
    sets: FxHashMap<(Option<OccId>, String), Vec<Directive<'a>>>,
    /// `map … $name { … }` by lowercase name (maps live at `http` level, for every server).
    maps: FxHashMap<String, Vec<Directive<'a>>>,
}

impl<'a> Index<'a> {
    pub fn of(inst: &'a NginxInstance) -> Index<'a> {
        let server_of = |d: Directive<'_>| d.enclosing("server").map(|s| s.occ());
        let mut redirects: FxHashMap<Option<OccId>, Vec<(Via, Directive<'a>)>> =
            FxHashMap::default();
        for kind in [Via::Rewrite, Via::ErrorPage, Via::TryFiles] {
            for r in cursor::named(inst, kind.name()) {
                redirects.entry(server_of(r)).or_default().push((kind, r));
            }
        }
        let mut sets: FxHashMap<(Option<OccId>, String), Vec<Directive<'a>>> = FxHashMap::default();
        for set in cursor::named(inst, "set") {
            let Some(name) = set
                .arg(0)
                .and_then(|a| a.value().strip_prefix('$').map(|n| n.to_ascii_lowercase()))
            else {
                continue;
            };
            sets.entry((server_of(set), name)).or_default().push(set);
        }
        let mut maps: FxHashMap<String, Vec<Directive<'a>>> = FxHashMap::default();
        for map in cursor::named(inst, "map") {
            if let Some(name) = map
                .arg(1)
                .and_then(|a| a.value().strip_prefix('$').map(|n| n.to_ascii_lowercase()))
            {
                maps.entry(name).or_default().push(map);
            }
        }
        Index {
            redirects,
            sets,
            maps,
        }
    }

    /// The redirects of kind `kind` written in `server` (`None`: outside any), in order.
    pub fn redirects(
        &self,
        server: Option<OccId>,
        kind: Via,
    ) -> impl Iterator<Item = Directive<'a>> + '_ {
        self.redirects
            .get(&server)
            .into_iter()
            .flatten()
            .filter(move |(k, _)| *k == kind)
            .map(|&(_, d)| d)
    }

    /// The `map`s that make `$name` (lowercase).
    pub fn maps(&self, name: &str) -> &[Directive<'a>] {
        self.maps.get(name).map_or(&[], Vec::as_slice)
    }

    /// The `set`s of `$name` (lowercase) written in `server`.
    pub fn sets(&self, server: Option<OccId>, name: &str) -> &[Directive<'a>] {
        self.sets
            .get(&(server, name.to_string()))
            .map_or(&[], Vec::as_slice)
    }
}

/// The location `d` is in when only nginx itself enters it: a named one (`@x`), or one
/// marked `internal` (or inside one: nginx inherits the flag).
pub fn internal_only(d: Directive<'_>) -> Option<Directive<'_>> {
    let loc = d.enclosing("location")?;
    let mut cur = Some(loc);
    while let Some(l) = cur {
        if is_named(l) || l.children("internal").next().is_some() {
            return Some(loc);
        }
        cur = l.enclosing("location");
    }
    None
}

pub fn is_named(loc: Directive<'_>) -> bool {
    loc.arg(0).is_some_and(|a| a.value().starts_with('@'))
}

/// Where a value's client-chosen text comes from, as an internal redirect carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The URI (`$uri`, a capture of it): the client's after a redirect only where the
    /// redirect writes the client's text into the new URI, or keeps the URI (a named
    /// location).
    Uri,
    /// The query string (`$args`, `$arg_*`): the client's unless the redirect replaces it.
    Args,
    /// Headers, cookies, `$host`, `$request_uri`: every internal redirect keeps them.
    Request,
}

/// The source a chain ends at: its last step names the built-in variable ("`$uri` is …").
pub fn source_of(chain: &[Step]) -> Source {
    let Some(leaf) = chain.last() else {
        return Source::Request;
    };
    if leaf.note.starts_with("`merge_slashes") {
        return Source::Uri;
    }
    let name = leaf
        .note
        .strip_prefix("`$")
        .and_then(|r| r.split_once('`'))
        .map(|(n, _)| n.to_ascii_lowercase())
        .unwrap_or_default();
    match name.as_str() {
        "uri"
        | "document_uri"
        | "request_filename"
        | "fastcgi_script_name"
        | "fastcgi_path_info" => Source::Uri,
        "args" | "query_string" => Source::Args,
        n if n.starts_with("arg_") => Source::Args,
        _ => Source::Request,
    }
}

/// The directives that make nginx redirect a request internally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    Rewrite,
    ErrorPage,
    TryFiles,
}

impl Via {
    pub fn name(self) -> &'static str {
        match self {
            Via::Rewrite => "rewrite",
            Via::ErrorPage => "error_page",
            Via::TryFiles => "try_files",
        }
    }
}

/// A redirect nginx itself makes, which an `internal` or named location does not refuse.
pub struct Route<'a> {
    pub via: Directive<'a>,
    pub kind: Via,
    /// The named location it sends requests to (`@fallback`).
    pub named: Option<String>,
    /// The new URI's path (up to its arguments): parts of `value`.
    pub path: Vec<Part>,
    pub value: Vec<u8>,
    /// The location it leads to, for messages: `the `internal` location on line 12`.
    pub into: String,
    /// The new URI holds the client's text (a named location keeps the client's URI).
    pub uri: bool,
    /// The request's arguments are still the client's after it.
    pub args: bool,
}

impl Route<'_> {
    /// Where it sends requests: `to `@fallback``, `to `/err``, `into the `internal`
    /// location on line 12`.
    pub fn to(&self) -> String {
        if let Some(n) = &self.named {
            return format!("to `{n}`");
        }
        if self.path.iter().all(|p| p.kind == PartKind::Literal) {
            return format!("to `{}`", String::from_utf8_lossy(&self.path_text()));
        }
        format!("into {}", self.into)
    }

    /// `that `try_files` sends to `@fallback``: what a request goes through.
    pub fn clause(&self) -> String {
        format!("that `{}` sends {}", self.kind.name(), self.to())
    }

    /// `` `try_files` sends requests to ``: what the location is.
    pub fn sends(&self) -> String {
        format!("`{}` sends requests to", self.kind.name())
    }

    /// The note at the redirect.
    pub fn label(&self) -> String {
        let what = if self.uri && self.named.is_none() {
            "client-chosen URIs"
        } else {
            "requests"
        };
        format!("`{}` sends {what} {}", self.kind.name(), self.to())
    }

    /// The path's literal text (for a path with no variable, the whole path).
    pub fn path_text(&self) -> Vec<u8> {
        self.path
            .iter()
            .take_while(|p| p.kind == PartKind::Literal)
            .flat_map(|p| self.value[p.value.range()].iter().copied())
            .collect()
    }
}

/// The redirects that can send a client's request into `loc`'s server: `rewrite`,
/// `error_page` and `try_files` in the server (at its level, or in a location a client's
/// request can be in), and `error_page` of the `http` block around it when the server
/// sets none. In a fragment (a file of locations), those outside any server.
pub fn routes_into<'a>(
    loc: Directive<'a>,
    p: &Provenance<'_>,
    servers: &Index<'a>,
) -> Vec<Route<'a>> {
    let server = loc.enclosing("server");
    let http = server.and_then(|s| s.enclosing("http"));
    let line = loc.file().line_col(loc.span().start).line;
    let here = format!("the `internal` location on line {line}");
    let there = format!(
        "the `internal` location at {}:{line}",
        loc.file().path.display()
    );
    let mut out = Vec::new();
    for kind in [Via::Rewrite, Via::ErrorPage, Via::TryFiles] {
        // The server's own, and (for `error_page`) those outside any server, in
        // configuration order.
        let mut candidates: Vec<Directive<'a>> =
            servers.redirects(server.map(|s| s.occ()), kind).collect();
        if server.is_some() && kind == Via::ErrorPage {
            candidates.extend(servers.redirects(None, kind));
            candidates.sort_by_key(|d| d.occ());
        }
        for r in candidates {
            let in_scope = match (server, r.enclosing("server")) {
                (Some(s), Some(t)) => s == t,
                (None, None) => true,
                // The `http` block's `error_page`s apply in a server that sets none of its
                // own (a level that sets one replaces them all).
                (Some(s), None) => {
                    kind == Via::ErrorPage
                        && http.is_some()
                        && r.enclosing("http") == http
                        && r.enclosing("location").is_none()
                        && s.children("error_page").next().is_none()
                }
                (None, Some(_)) => false,
            };
            // A redirect inside a location only nginx enters (this one included) runs
            // only for requests already redirected.
            if !in_scope || internal_only(r).is_some() {
                continue;
            }
            let route = match kind {
                Via::Rewrite => rewrite_route(r, p),
                Via::ErrorPage | Via::TryFiles => redirect_route(r, kind, p),
            };
            if let Some(mut route) = route {
                let same = std::sync::Arc::ptr_eq(r.file(), loc.file());
                route.into.clone_from(if same { &here } else { &there });
                out.push(route);
            }
        }
    }
    out
}

/// A `rewrite` that leads to a location search with its result: not a redirect, and in a
/// location not `break` (which keeps the request where it is; at the server level the
/// search follows anyway).
fn rewrite_route<'a>(r: Directive<'a>, p: &Provenance<'_>) -> Option<Route<'a>> {
    if p.is_redirect(r.occ()) {
        return None;
    }
    if r.enclosing("location").is_some() && r.arg(2).is_some_and(|f| f.is("break")) {
        return None;
    }
    let word = r.arg(1)?;
    let value = word.bytes().into_owned();
    let script = word.variables();
    let (path, args_part) = split_args(&script, &value);
    // Without a `?` the arguments stay; with one they follow the written ones, unless the
    // replacement ends with `?`.
    let args = match &args_part {
        None => true,
        Some(a) => !value.ends_with(b"?") || client_text(p, r, a).1,
    };
    let uri = client_text(p, r, &path).0;
    Some(Route {
        via: r,
        kind: Via::Rewrite,
        named: None,
        path,
        value,
        into: String::new(),
        uri,
        args,
    })
}

/// The redirect of an `error_page` or of the last argument of `try_files`: to a named
/// location (which keeps the URI and the arguments), or to a URI (whose arguments are the
/// ones written after its `?`: ngx_http_send_error_page, ngx_http_split_args).
fn redirect_route<'a>(r: Directive<'a>, kind: Via, p: &Provenance<'_>) -> Option<Route<'a>> {
    let word = r.args().last()?;
    let value = word.bytes().into_owned();
    if let Some(name) = value.strip_prefix(b"@") {
        return Some(Route {
            via: r,
            kind,
            named: Some(format!("@{}", String::from_utf8_lossy(name))),
            path: Vec::new(),
            value,
            into: String::new(),
            uri: true,
            args: true,
        });
    }
    if !value.starts_with(b"/") && !value.starts_with(b"$") {
        return None;
    }
    let script = word.variables();
    let (path, args_part) = split_args(&script, &value);
    // `try_files … $uri` (or `error_page 404 $uri`) in a location sends the URI that
    // chose this location back to the search, which chooses it again.
    let identity = path.len() == 1
        && path[0]
            .kind
            .key()
            .is_some_and(|k| k == "uri" || k == "document_uri");
    if identity && r.enclosing("location").is_some() {
        return None;
    }
    let args = args_part.is_some_and(|a| client_text(p, r, &a).1);
    let uri = client_text(p, r, &path).0;
    Some(Route {
        via: r,
        kind,
        named: None,
        path,
        value,
        into: String::new(),
        uri,
        args,
    })
}

/// A redirect target's parts before its arguments, and those after the `?` (a literal
/// `?`, or `$is_args`, which nginx splits at once it is evaluated).
fn split_args(script: &Script, value: &[u8]) -> (Vec<Part>, Option<Vec<Part>>) {
    let mut path = Vec::new();
    for (i, part) in script.parts.iter().enumerate() {
        if part.kind.key().is_some_and(|k| k == "is_args") {
            return (path, Some(script.parts[i + 1..].to_vec()));
        }
        if part.kind == PartKind::Literal {
            if let Some(at) = value[part.value.range()].iter().position(|&b| b == b'?') {
                if at > 0 {
                    let mut head = part.clone();
                    head.value = Span::new(part.value.start, part.value.start + at as u32);
                    if part.span.len() == part.value.len() {
                        head.span = Span::new(part.span.start, part.span.start + at as u32);
                    }
                    path.push(head);
                }
                return (path, Some(script.parts[i + 1..].to_vec()));
            }
        }
        path.push(part.clone());
    }
    (path, None)
}

/// Whether the parts, evaluated at `r`, hold the client's text: (text that can make a URI
/// of its choosing — a `/` or a host name —, anything at all).
fn client_text(p: &Provenance<'_>, r: Directive<'_>, parts: &[Part]) -> (bool, bool) {
    if parts.iter().all(|p| p.kind == PartKind::Literal) {
        return (false, false);
    }
    let script = Script {
        parts: parts.to_vec(),
        error: None,
    };
    let a = p.script(r.occ(), r.file(), &script);
    (
        a.can(Danger::Host) || a.can(Danger::Slash),
        !a.dangers().is_empty(),
    )
}

/// Whether a request `r` sends can be served by `loc`: a named location by its name; a
/// URI location by the written URI (as nginx's search picks), or, for a URI with variables,
/// when its written start can begin a URI the location takes.
pub fn reaches(r: &Route<'_>, loc: Directive<'_>) -> bool {
    let Some((kind, name)) = location_line(loc) else {
        return false;
    };
    if kind == Kind::Named {
        return r.named.as_deref().map(str::as_bytes) == Some(name.as_slice());
    }
    if r.named.is_some() {
        return false;
    }
    let prefix = r.path_text();
    if r.path.iter().all(|p| p.kind == PartKind::Literal) {
        return selects(loc, &prefix);
    }
    match kind {
        Kind::Exact => name.starts_with(&prefix),
        Kind::Prefix | Kind::NoRegexPrefix => {
            name.starts_with(&prefix) || prefix.starts_with(&name)
        }
        Kind::Regex { caseless } => {
            let Ok(re) = Regex::parse_bytes(&name, caseless) else {
                return false;
            };
            if !re.anchored_start() {
                return true;
            }
            let mut q = re.literal_prefix();
            let mut prefix = prefix;
            if caseless {
                q.make_ascii_lowercase();
                prefix.make_ascii_lowercase();
            }
            q.starts_with(&prefix) || prefix.starts_with(&q)
        }
        Kind::Named => false,
    }
}

/// Whether nginx serves the (normalised) URI `uri` from `loc`: its search in the server
/// when the server is known; in a fragment, `loc`'s own test.
pub fn selects(loc: Directive<'_>, uri: &[u8]) -> bool {
    if let Some(server) = loc.enclosing("server") {
        let all = Locations::of(loc.instance());
        if let Some(s) = all.server(server.occ()) {
            if let Some(id) = s.location_of(loc.occ()) {
                return s.select(uri).location() == Some(id);
            }
        }
    }
    match location_line(loc) {
        Some((Kind::Exact, name)) => name == uri,
        Some((Kind::Prefix | Kind::NoRegexPrefix, name)) => uri.starts_with(&name),
        Some((Kind::Regex { caseless }, pattern)) => Regex::parse_bytes(&pattern, caseless)
            .ok()
            .and_then(|re| re.is_match(uri).ok())
            .unwrap_or(false),
        Some((Kind::Named, _)) | None => false,
    }
}

/// `merge_slashes` for requests to `loc`'s server (as its default server sets it).
fn merge_slashes(loc: Directive<'_>) -> bool {
    loc.enclosing("server")
        .and_then(|server| {
            Locations::of(loc.instance())
                .server(server.occ())
                .map(|s| s.merge_slashes)
        })
        .unwrap_or(true)
}

/// The client URI that rewrite `r` turns into `rewritten`, a URI location `loc` takes: the
/// captures of the rewrite's regex its replacement must copy ([`solve`]), that regex's
/// sample with them in place, then checked — the regex captures them from the URI,
/// nginx's normalisation keeps it, the search serves it from the rewrite's location (for
/// one in a location) and `rewritten` from `loc`, and the request model follows the
/// client's request to `loc` through `r` on every way ([`arrives`]; in a fragment, no
/// other written rewrite changes the request on its way, [`runs_alone`]).
pub fn client_uri_for_rewrite(
    loc: Directive<'_>,
    r: &Route<'_>,
    rewritten: &[u8],
    index: &Index<'_>,
) -> Option<Vec<u8>> {
    let re_r = Regex::parse(&r.via.arg(0)?.value(), false).ok()?;
    let values = solve(r, &re_r, rewritten)?;
    let uri = re_r.sample_with(&values)?;
    let caps = re_r.captures(&uri).ok()??;
    for (g, v) in &values {
        if caps.get(*g as usize).map(|(s, e)| &uri[s..e]) != Some(v.as_slice()) {
            return None;
        }
    }
    let n = normalise(&uri, merge_slashes(loc)).ok()?;
    if n.path != uri || n.args.is_some() {
        return None;
    }
    if let Some(at) = r.via.enclosing("location") {
        if !selects(at, &uri) {
            return None;
        }
    }
    if !selects(loc, rewritten) {
        return None;
    }
    let arrives = match loc.enclosing("server") {
        Some(server) => arrives(server, loc, r.via, &uri, rewritten),
        // A fragment's locations are not searched: the written rewrites are read instead.
        None => runs_alone(r.via, &uri, rewritten, index),
    };
    arrives.then_some(uri)
}

/// Whether the client's request for `uri` ends in `loc`'s content phase with the URI
/// `rewritten`, on every way the request model follows it through the server's and the
/// locations' rewrite phases (a condition it cannot evaluate is followed both ways, and
/// each way must arrive; a way it cannot follow fails), and through rewrite `r` on one.
fn arrives(
    server: Directive<'_>,
    loc: Directive<'_>,
    r: Directive<'_>,
    uri: &[u8],
    rewritten: &[u8],
) -> bool {
    let mut model = super::Model::new(loc.instance());
    let Some(ends) = model.follow(Some(server), None, uri, None) else {
        return false;
    };
    let arrived = |e: &super::End<'_>| match e {
        super::End::Content {
            location: Some(l),
            req,
        } => *l == loc && req.uri == rewritten,
        _ => false,
    };
    let through_r = |e: &super::End<'_>| match e {
        super::End::Content { req, .. } => req.rewrites.contains(&r.occ()),
        _ => false,
    };
    !ends.is_empty() && ends.iter().all(arrived) && ends.iter().any(through_r)
}

/// The client URI that an `error_page` or `try_files` in a location, whose target is the
/// URI with written text around it (`/proxy$uri`), sends on as `sent`, a URI location
/// `loc` takes. Checked as for a `rewrite`: the search serves the URI from the redirect's
/// location and `sent` from `loc`, and nginx's normalisation keeps the URI.
pub fn client_uri_for_redirect(loc: Directive<'_>, r: &Route<'_>, sent: &[u8]) -> Option<Vec<u8>> {
    let at = r.via.enclosing("location")?;
    // The target: written text, `$uri`, written text.
    let at_uri = r.path.iter().position(|p| p.kind != PartKind::Literal)?;
    let is_uri = r.path[at_uri]
        .kind
        .key()
        .is_some_and(|k| k == "uri" || k == "document_uri");
    if !is_uri
        || r.path[at_uri + 1..]
            .iter()
            .any(|p| p.kind != PartKind::Literal)
    {
        return None;
    }
    let text = |parts: &[Part]| -> Vec<u8> {
        parts
            .iter()
            .flat_map(|p| r.value[p.value.range()].iter().copied())
            .collect()
    };
    let (before, after) = (text(&r.path[..at_uri]), text(&r.path[at_uri + 1..]));
    if sent.len() < before.len() + after.len()
        || !sent.starts_with(&before)
        || !sent.ends_with(&after)
    {
        return None;
    }
    let uri = sent[before.len()..sent.len() - after.len()].to_vec();
    let n = normalise(&uri, merge_slashes(loc)).ok()?;
    if n.path != uri || n.args.is_some() || !selects(at, &uri) || !selects(loc, sent) {
        return None;
    }
    Some(uri)
}

/// Whether rewrite `r` is the only rewrite-module directive that changes the request on
/// its way: no `rewrite` that runs before it (at the server level, or earlier in its own
/// location) matches `uri`, and — unless its flag ends the rewrites (`last`, `break`) —
/// no later `rewrite` of its block matches `rewritten`, and no `return` follows in it.
/// `if` conditions are not evaluated: a `rewrite` inside one counts as running. Used for
/// a fragment, whose locations the request model cannot search; in a server,
/// [`arrives`] follows the request instead.
fn runs_alone(r: Directive<'_>, uri: &[u8], rewritten: &[u8], servers: &Index<'_>) -> bool {
    let location = r.enclosing("location");
    let server = r.enclosing("server");
    let ends = r.arg(2).is_some_and(|f| f.is("last") || f.is("break"));
    let matches = |o: Directive<'_>, subject: &[u8]| {
        o.arg(0)
            .and_then(|p| Regex::parse(&p.value(), false).ok())
            .is_none_or(|re| re.is_match(subject).unwrap_or(true))
    };
    for o in servers.redirects(server.map(|s| s.occ()), Via::Rewrite) {
        if o == r {
            continue;
        }
        let o_location = o.enclosing("location");
        let before = match o_location {
            None => o.is_before(r) || location.is_some(),
            Some(l) => Some(l) == location && o.is_before(r),
        };
        if before && matches(o, uri) {
            return false;
        }
        let after = o_location == location && r.is_before(o);
        if !ends && after && matches(o, rewritten) {
            return false;
        }
    }
    if !ends {
        let block = location.or(server);
        let returns = block.is_some_and(|b| b.children("return").next().is_some())
            || block.is_none() && r.siblings("return").next().is_some();
        if returns {
            return false;
        }
    }
    true
}

/// The captures of the rewrite's regex its replacement must copy to write `want`: the
/// replacement's literal text in place, each capture what lies between (up to the next
/// literal's first occurrence, the last one up to the closing literal). `None` when the
/// replacement holds a variable, two captures side by side, or does not fit.
fn solve(r: &Route<'_>, re: &Regex, want: &[u8]) -> Option<Vec<(u32, Vec<u8>)>> {
    enum Piece<'v> {
        Lit(&'v [u8]),
        Cap(u32),
    }
    let pieces: Vec<Piece<'_>> = r
        .path
        .iter()
        .map(|p| match &p.kind {
            PartKind::Literal => Some(Piece::Lit(&r.value[p.value.range()])),
            PartKind::Capture(n) => Some(Piece::Cap(u32::from(*n))),
            PartKind::Variable { name, .. } => re
                .capture_table()
                .index(&name.to_ascii_lowercase())
                .map(Piece::Cap),
        })
        .collect::<Option<_>>()?;
    let mut out: Vec<(u32, Vec<u8>)> = Vec::new();
    let mut pos = 0;
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Lit(l) => {
                if !want[pos..].starts_with(l) {
                    return None;
                }
                pos += l.len();
            }
            Piece::Cap(g) => {
                let end = match pieces.get(i + 1) {
                    None => want.len(),
                    Some(Piece::Lit(l)) if i + 2 == pieces.len() => {
                        if want.len() < pos + l.len() || !want.ends_with(l) {
                            return None;
                        }
                        want.len() - l.len()
                    }
                    Some(Piece::Lit(l)) => pos + find(&want[pos..], l)?,
                    Some(Piece::Cap(_)) => return None,
                };
                let v = want[pos..end].to_vec();
                match out.iter().find(|(h, _)| h == g) {
                    Some((_, prev)) if *prev != v => return None,
                    Some(_) => {}
                    None => out.push((*g, v)),
                }
                pos = end;
            }
        }
    }
    (pos == want.len()).then_some(out)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
