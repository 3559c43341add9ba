//! NGX130 ssrf-proxy-target: a `proxy_pass` (or `fastcgi_pass`, `uwsgi_pass`, `scgi_pass`,
//! `grpc_pass`) whose host the client chooses — `proxy_pass http://$host$request_uri` in a
//! catch-all server, `proxy_pass http://$1` after `location ~ ^/p/(.*)$`, a `set` or `map`
//! copying `$arg_url` — makes nginx an open proxy into the internal network (cloud
//! metadata at 169.254.169.254, admin ports on localhost): server-side request forgery.
//!
//! Only the host part of the target is asked about (a capture in the path is not SSRF),
//! and what the client can put there is the variables analysis' answer
//! (analysis::variables, `Danger::Host`): a map whose values are literals, a capture whose
//! group cannot hold a `.`, `$host` in a server only its exact names reach carry no host.
//! A variable followed by a fixed host suffix (`http://$1.svc.internal`) is confined to it
//! unless it can hold a `/` that ends the host early.
//!
//! `internal` and named locations refuse requests from outside, but not those nginx itself
//! sends there: a `rewrite` (which marks the request internal: ngx_http_script_regex_start_code
//! sets `r->internal`), an `error_page` or the last argument of `try_files`
//! (ngx_http_internal_redirect, ngx_http_named_location) in the same server, or an
//! `error_page` inherited from `http`. Such a location is judged by what these redirects
//! carry into it: headers, cookies and `$host` survive every one; the arguments survive
//! unless the redirect replaces them (`error_page 404 /404.html` drops them); the URI — and
//! so the location's own captures — is the client's only when the redirect writes the
//! client's text into it. For a capture, the finding shows the client URI a `rewrite` turns
//! into one the location takes (`GET /internal-proxy/http/evil.example/some`, rewritten to
//! `/internal-proxy/http/evil.example/`), and stays silent when none can be built. A
//! location nothing sends requests to (a fixed `error_page` to another location, a
//! `try_files … @other`) is skipped. `X-Accel-Redirect` from a backend is not followed: the
//! backend, not the client, writes it.

use crate::analysis::cursor::{self, Directive};
use crate::analysis::locations::{normalise, Locations};
use crate::analysis::pcre::Regex;
use crate::analysis::variables::builtin::header_name;
use crate::analysis::variables::{Answer, Danger, Part, PartKind, Provenance, Script, Step};
use crate::fxhash::FxHashMap;
use crate::rules::{Context, Rule};
use crate::source::Span;
use crate::stack::expanded::OccId;
use crate::stack::model::NginxInstance;

declare_rule! {
    pub struct SsrfProxyTarget;
    code: NGX130,
    name: "ssrf-proxy-target",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
    uses_locations: true,
}

/// The directives that connect to an upstream named by their first argument.
const PASSES: [&str; 5] = [
    "proxy_pass",
    "fastcgi_pass",
    "uwsgi_pass",
    "scgi_pass",
    "grpc_pass",
];

/// The host a finding's example puts where the client chooses.
const EVIL: &str = "evil.example";

impl Rule for SsrfProxyTarget {
    fn check(&self, cx: &mut Context<'_>) {
        // One provenance index per configuration, built only when a target has a variable
        // in its host.
        let mut prov: Option<(*const NginxInstance, Provenance<'_>)> = None;
        // The directives looked up per server, indexed once per configuration.
        let mut index: Option<(*const NginxInstance, ServerIndex<'_>)> = None;
        for name in PASSES {
            let mut found: Vec<Directive<'_>> = cx.nginx_directives(name).collect();
            // One finding per place: a snippet included both where clients reach it and in
            // a location only nginx enters is reported as the former (the plainer story).
            // (Kept per configuration: the provenance index is built once for each.)
            let stack = cx.stack;
            found.sort_by_cached_key(|d| {
                let config = stack
                    .nginx
                    .iter()
                    .position(|i| std::ptr::eq(i, d.instance()));
                (config, internal_only(*d).is_some())
            });
            for d in found {
                let Some(word) = d.arg(0) else {
                    continue;
                };
                let value = word.bytes();
                if !value.contains(&b'$') {
                    continue;
                }
                let script = word.variables();
                let Some(host) = host_parts(&script, &value) else {
                    continue;
                };
                let inst = d.instance();
                if index.as_ref().is_none_or(|(i, _)| !std::ptr::eq(*i, inst)) {
                    index = Some((inst, ServerIndex::of(inst)));
                }
                let servers = &index.as_ref().expect("just built").1;
                let Some(host) = without_path_variables(d, host, &value, servers) else {
                    continue;
                };
                if prov.as_ref().is_none_or(|(i, _)| !std::ptr::eq(*i, inst)) {
                    prov = Some((inst, Provenance::new(inst.view())));
                }
                let p = &prov.as_ref().expect("just built").1;
                // A location only nginx enters, and the redirects that send requests there
                // (worked out once, when a part is found dangerous).
                let inner = internal_only(d);
                let mut routes: Option<Vec<Route<'_>>> = None;
                let mut found_part = None;
                for part in &host.parts {
                    if is_template_placeholder(part) {
                        continue;
                    }
                    let one = Script {
                        parts: vec![part.clone()],
                        error: None,
                    };
                    let a = p.script(d.occ(), d.file(), &one);
                    let dangerous = a.can(Danger::Host) && (!host.suffixed || a.can(Danger::Slash));
                    if !dangerous {
                        continue;
                    }
                    let entry = match inner {
                        None => None,
                        Some(loc) => {
                            let routes = routes.get_or_insert_with(|| routes_into(loc, p, servers));
                            let ctx = Target {
                                script: &script,
                                value: &value,
                                servers,
                            };
                            match entry(&ctx, loc, routes, part, &a) {
                                Some(e) => Some(e),
                                None => continue,
                            }
                        }
                    };
                    found_part = Some((part.clone(), a, entry));
                    break;
                }
                let Some((part, answer, entry)) = found_part else {
                    continue;
                };
                // The redirect into a location only nginx enters, and its example.
                let entry = entry.and_then(|e| {
                    let route = routes.as_ref()?.get(e.route)?;
                    Some((route, e.example))
                });
                let text = String::from_utf8_lossy(&value[part.value.range()]).into_owned();
                let message = match &entry {
                    None => match example(d, &script, &value, &part, true) {
                        Some(e) => format!("the client chooses the upstream host: {e}"),
                        None => format!(
                            "the client chooses the host `{name}` connects to, through `{text}`"
                        ),
                    },
                    Some((route, shown)) => match shown {
                        Some(shown) => format!("the client chooses the upstream host: {shown}"),
                        None => match example(d, &script, &value, &part, false) {
                            Some(ex) => format!(
                                "the client chooses the upstream host: {} {} {}",
                                ex.request,
                                route.clause(),
                                ex.outcome
                            ),
                            None => format!(
                                "the client chooses the host `{name}` connects to, through \
                                 `{text}`, in a location {}",
                                route.sends()
                            ),
                        },
                    },
                };
                let file = d.file().clone();
                let lines = answer.explain(Danger::Host);
                let chain = answer.why(Danger::Host).unwrap_or_default();
                let mut help = Vec::new();
                let mut labels = Vec::new();
                let links = &chain[..chain.len().saturating_sub(1)];
                for (step, line) in links.iter().zip(&lines) {
                    if !std::sync::Arc::ptr_eq(&step.file, &file) {
                        help.push(line.clone());
                    } else if step.span != part.span {
                        labels.push((step.span, step.note.clone()));
                    }
                }
                if let Some(leaf) = chain.last() {
                    help.insert(0, leaf.note.clone());
                }
                match &entry {
                    None => help.push(
                        "pick the upstream from a fixed list: a `map` whose values are literal \
                         hosts (or `upstream` names), or a capture whose group cannot hold `.` or \
                         `/`; or mark the location `internal`"
                            .into(),
                    ),
                    Some((route, _)) => {
                        let via = route.via;
                        let note = route.label();
                        if std::sync::Arc::ptr_eq(via.file(), &file) {
                            labels.push((via.span(), note));
                        } else {
                            let lc = via.file().line_col(via.span().start);
                            help.push(format!("{}:{}: {note}", via.file().path.display(), lc.line));
                        }
                        let why = if inner.is_some_and(is_named) {
                            "a named location serves every request sent to it by name"
                        } else {
                            "`internal` refuses only requests from outside, not those nginx \
                             sends here itself"
                        };
                        help.push(format!(
                            "{why}: pick the upstream from a fixed list (a `map` whose values \
                             are literal hosts or `upstream` names, or a capture whose group \
                             cannot hold `.` or `/`)"
                        ));
                    }
                }
                if !cx.claim(&file, part.span) {
                    continue;
                }
                let diag = cx.report(&file, part.span, message);
                for (span, note) in labels {
                    diag.label(file.clone(), span, note);
                }
                diag.help = Some(help.join("\n"));
            }
        }
    }
}

/// The variable parts of a target's host, and whether a literal host suffix follows them.
struct HostParts {
    parts: Vec<Part>,
    suffixed: bool,
}

/// The non-literal parts that make up the host (or scheme and host) of a target: after a
/// literal `://` (a part before it may hold a whole URL only when no `://` is written),
/// up to the first literal `/` or `?`. `None` for a target with no variable there, and
/// for a `unix:` socket path.
fn host_parts(script: &Script, value: &[u8]) -> Option<HostParts> {
    if value.starts_with(b"unix:") {
        return None;
    }
    let literal = |p: &Part| p.kind == PartKind::Literal;
    let mut start = 0;
    let mut end = value.len();
    let mut scheme = false;
    for p in &script.parts {
        if literal(p) {
            let text = &value[p.value.range()];
            if let Some(i) = find(text, b"://") {
                start = p.value.start as usize + i + 3;
                scheme = true;
                break;
            }
        }
    }
    // No `://` written: a `proxy_pass $url` takes scheme and host from its first part
    // (what follows it, `$url$rest`, is the path); an address (`fastcgi_pass $b:9000`) is
    // all host.
    if !scheme {
        if let Some(first) = script.parts.first().filter(|p| !literal(p)) {
            if script.parts.len() > 1 && !value[first.value.end as usize..].starts_with(b":") {
                end = first.value.end as usize;
            }
        }
    }
    for p in &script.parts {
        // These always start with `/`: the host ends where they begin.
        let path = p
            .kind
            .key()
            .is_some_and(|k| matches!(k.as_str(), "uri" | "request_uri" | "document_uri"));
        if path && (p.value.start as usize) >= start {
            end = end.min(p.value.start as usize);
            break;
        }
        if literal(p) && (p.value.end as usize) > start {
            let from = (p.value.start as usize).max(start);
            if let Some(i) = value[from..p.value.end as usize]
                .iter()
                .position(|b| *b == b'/' || *b == b'?')
            {
                end = end.min(from + i);
                break;
            }
        }
    }
    let parts: Vec<Part> = script
        .parts
        .iter()
        .filter(|p| !literal(p) && (p.value.start as usize) < end && (p.value.end as usize) > start)
        .cloned()
        .collect();
    let last = parts.last()?;
    // What is written after the last variable of the host: a name suffix confines it
    // (`$1.svc.internal`, `$1-api`); a port (`:8080`) does not.
    let tail = &value[(last.value.end as usize).min(end)..end];
    let suffixed = !tail.is_empty() && tail[0] != b':';
    Some(HostParts { parts, suffixed })
}

/// The host parts up to the first variable that always starts the path or the arguments:
/// one whose every `set` in the server and every `map` that makes it gives it nothing or a
/// value written to start with `/` or `?` (`set $suffix ?$query_string;` after
/// `http://octane`). `None` when no part is left: then nginx finds no host at all and
/// answers 500 (`no host in upstream "/index"`, nginx 1.22.1), it connects nowhere.
fn without_path_variables(
    d: Directive<'_>,
    host: HostParts,
    value: &[u8],
    servers: &ServerIndex<'_>,
) -> Option<HostParts> {
    let server = d.enclosing("server").map(|s| s.occ());
    let starts_path = |part: &Part| -> bool {
        let Some(key) = part.kind.key() else {
            return false;
        };
        let key = key.to_ascii_lowercase();
        let mut any = false;
        for &map in servers.maps.get(&key).into_iter().flatten() {
            any = true;
            if !map_values_start_path(map) {
                return false;
            }
        }
        for &set in servers.sets(server, &key) {
            any = true;
            let starts = set
                .arg(1)
                .is_some_and(|v| v.bytes().first().is_none_or(|b| *b == b'/' || *b == b'?'));
            if !starts {
                return false;
            }
        }
        any
    };
    let Some(cut) = host.parts.iter().position(starts_path) else {
        return Some(host);
    };
    let mut parts = host.parts;
    let end = parts[cut].value.start as usize;
    parts.truncate(cut);
    let last = parts.last()?;
    let tail = &value[last.value.end as usize..end];
    // As in `host_parts`: a name suffix confines the last variable, a port does not.
    let suffixed = !tail.is_empty() && tail[0] != b':';
    Some(HostParts { parts, suffixed })
}

/// Whether every value `map` can give starts with `/` or `?` (or is empty, as is the value
/// of a `map` with no `default`); an `include` lemplint cannot read may hold any value.
fn map_values_start_path(map: Directive<'_>) -> bool {
    if map.has_unread_include() {
        return false;
    }
    map.entries()
        .iter()
        .filter(|(k, _)| !matches!(k.value().as_ref(), "hostnames" | "volatile"))
        .all(|(_, v)| v.is_some_and(|v| v.bytes().first().is_none_or(|b| *b == b'/' || *b == b'?')))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `${HOST}`: an envsubst placeholder of a template, which nginx never sees as written
/// (nginx's own variables are lowercase; it would read it as `$host`).
fn is_template_placeholder(part: &Part) -> bool {
    matches!(&part.kind, PartKind::Variable { name, braced: true }
        if name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'))
}

/// A request that sends the upstream connection to [`EVIL`], and where it goes.
struct Example {
    /// `a request with `Host: evil.example``, `` `GET /p/evil.example/x` ``.
    request: String,
    /// `connects to `http://evil.example/x``.
    outcome: String,
}

impl std::fmt::Display for Example {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.request, self.outcome)
    }
}

/// A request that sends the upstream connection to [`EVIL`], and where it goes, for the
/// sources a message can show as a request: `$host`/`$http_host`, a header, a query
/// argument, a cookie, or (with `captures`) a capture of the enclosing location's regex.
fn example(
    d: Directive<'_>,
    script: &Script,
    value: &[u8],
    part: &Part,
    captures: bool,
) -> Option<Example> {
    let render = |subst: &dyn Fn(&Part) -> Option<String>| render_target(script, value, subst);
    match &part.kind {
        PartKind::Variable { .. } => {
            let key = part.kind.key()?;
            let request = if key == "host" || key == "http_host" {
                format!("a request with `Host: {EVIL}`")
            } else if let Some(h) = key.strip_prefix("http_") {
                format!("a request with `{}: {EVIL}`", header_name(h))
            } else if let Some(a) = key.strip_prefix("arg_") {
                format!("a request for `?{a}={EVIL}`")
            } else if let Some(c) = key.strip_prefix("cookie_") {
                format!("a request with `Cookie: {c}={EVIL}`")
            } else if captures {
                return capture_example(d, Group::Named(&key), &render);
            } else {
                return None;
            };
            // A `proxy_pass` value with no `://` written takes a whole URL from it.
            let whole = d.name() == "proxy_pass"
                && script.parts.first() == Some(part)
                && find(value, b"://").is_none();
            if whole {
                return Some(Example {
                    request: request.replace(EVIL, &format!("http://{EVIL}/")),
                    outcome: "reaches a URL of its choice".into(),
                });
            }
            let target = render(&|p| (p == part).then(|| EVIL.to_string()));
            Some(Example {
                request,
                outcome: format!("connects to `{target}`"),
            })
        }
        PartKind::Capture(k) if captures => capture_example(d, Group::Number(*k), &render),
        PartKind::Capture(_) | PartKind::Literal => None,
    }
}

/// Writes the target with some parts replaced by what the example puts there.
type Render<'r> = dyn Fn(&dyn Fn(&Part) -> Option<String>) -> String + 'r;

/// The target `value` (parsed as `script`) with the parts `subst` answers replaced.
fn render_target(script: &Script, value: &[u8], subst: &dyn Fn(&Part) -> Option<String>) -> String {
    let mut out = String::new();
    for p in &script.parts {
        match subst(p) {
            Some(s) => out.push_str(&s),
            None => out.push_str(&String::from_utf8_lossy(&value[p.value.range()])),
        }
    }
    out
}

/// A capture group, by number or name.
#[derive(Clone, Copy)]
enum Group<'s> {
    Number(u8),
    Named(&'s str),
}

impl<'s> Group<'s> {
    /// The group a part of a value refers to: `$1`, or `$name` (its `key`) as a named one.
    fn of(part: &Part, key: Option<&'s str>) -> Option<Group<'s>> {
        match &part.kind {
            PartKind::Capture(n) => Some(Group::Number(*n)),
            PartKind::Variable { .. } => Some(Group::Named(key?)),
            PartKind::Literal => None,
        }
    }
}

/// [`example`] for a capture of the enclosing location's regex.
fn capture_example(d: Directive<'_>, group_of: Group<'_>, render: &Render<'_>) -> Option<Example> {
    let loc = d.enclosing("location")?;
    let (re, k) = location_group(loc, group_of)?;
    let prefix = String::from_utf8_lossy(&re.literal_prefix()).into_owned();
    let base = if prefix.starts_with('/') {
        prefix
    } else {
        "/".into()
    };
    for tail in [format!("{EVIL}/x"), EVIL.to_string()] {
        let uri = format!("{base}{tail}");
        if let Some(target) = target_for(&re, k, uri.as_bytes(), render) {
            return Some(Example {
                request: format!("`GET {uri}`"),
                outcome: format!("connects to `{target}`"),
            });
        }
    }
    None
}

/// The regex of location `loc` and the number of group `group_of` in it, when that regex
/// is the last one evaluated before the directives inside it (no `rewrite` or `if` there).
fn location_group(loc: Directive<'_>, group_of: Group<'_>) -> Option<(Regex, usize)> {
    let (modifier, pattern) = (loc.arg(0)?, loc.arg(1)?);
    let caseless = match modifier.value().as_ref() {
        "~" => false,
        "~*" => true,
        _ => return None,
    };
    let has_other_regex = loc
        .all_children()
        .any(|c| matches!(c.name(), "rewrite" | "if"));
    if has_other_regex {
        return None;
    }
    let re = Regex::parse(&pattern.value(), caseless).ok()?;
    let k = match group_of {
        Group::Number(n) => n as usize,
        Group::Named(name) => re.capture_table().index(name)? as usize,
    };
    Some((re, k))
}

/// The target rendered for `uri` matched by the location regex `re`, when group `k` holds
/// [`EVIL`] and the host starts with it.
fn target_for(re: &Regex, k: usize, uri: &[u8], render: &Render<'_>) -> Option<String> {
    let caps = re.captures(uri).ok()??;
    let group = |n: usize| {
        caps.get(n)
            .map(|(s, e)| String::from_utf8_lossy(&uri[s..e]).into_owned())
            .unwrap_or_default()
    };
    if !group(k).contains(EVIL) {
        return None;
    }
    let target = render(&|p| match &p.kind {
        PartKind::Capture(n) => Some(group(*n as usize)),
        PartKind::Variable { name, .. } => re
            .capture_table()
            .index(&name.to_ascii_lowercase())
            .map(|i| group(i as usize)),
        PartKind::Literal => None,
    });
    let host = target.split_once("://").map_or(target.as_str(), |(_, h)| h);
    host.starts_with(EVIL).then_some(target)
}

/// The target of the pass directive a finding is about, for building examples.
struct Target<'t> {
    script: &'t Script,
    value: &'t [u8],
    servers: &'t ServerIndex<'t>,
}

/// The directives of one configuration that the checks look up per server, found once:
/// looking them up among the whole configuration for every target made the rule quadratic
/// in servers.
struct ServerIndex<'a> {
    /// `rewrite`, `error_page` and `try_files` by enclosing server (`None`: outside any),
    /// each list in configuration order.
    redirects: FxHashMap<Option<OccId>, Vec<(Via, Directive<'a>)>>,
    /// `set $name …` by enclosing server and lowercase name.
    sets: FxHashMap<(Option<OccId>, String), Vec<Directive<'a>>>,
    /// `map … $name { … }` by lowercase name (maps live at `http` level, for every server).
    maps: FxHashMap<String, Vec<Directive<'a>>>,
}

impl<'a> ServerIndex<'a> {
    fn of(inst: &'a NginxInstance) -> ServerIndex<'a> {
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
        ServerIndex {
            redirects,
            sets,
            maps,
        }
    }

    /// The redirects of kind `kind` written in `server` (`None`: outside any), in order.
    fn redirects(
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

    /// The `set`s of `$name` (lowercase) written in `server`.
    fn sets(&self, server: Option<OccId>, name: &str) -> &[Directive<'a>] {
        self.sets
            .get(&(server, name.to_string()))
            .map_or(&[], Vec::as_slice)
    }
}

/// The location `d` is in when only nginx itself enters it: a named one (`@x`), or one
/// marked `internal` (or inside one: nginx inherits the flag).
fn internal_only(d: Directive<'_>) -> Option<Directive<'_>> {
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

fn is_named(loc: Directive<'_>) -> bool {
    loc.arg(0).is_some_and(|a| a.value().starts_with('@'))
}

/// Where a value's client-chosen text comes from, as an internal redirect carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
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
fn source_of(chain: &[Step]) -> Source {
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
enum Via {
    Rewrite,
    ErrorPage,
    TryFiles,
}

impl Via {
    fn name(self) -> &'static str {
        match self {
            Via::Rewrite => "rewrite",
            Via::ErrorPage => "error_page",
            Via::TryFiles => "try_files",
        }
    }
}

/// A redirect nginx itself makes, which an `internal` or named location does not refuse.
struct Route<'a> {
    via: Directive<'a>,
    kind: Via,
    /// The named location it sends requests to (`@fallback`).
    named: Option<String>,
    /// The new URI's path (up to its arguments): parts of `value`.
    path: Vec<Part>,
    value: Vec<u8>,
    /// The location it leads to, for messages: `the `internal` location on line 12`.
    into: String,
    /// The new URI holds the client's text (a named location keeps the client's URI).
    uri: bool,
    /// The request's arguments are still the client's after it.
    args: bool,
}

impl Route<'_> {
    /// Where it sends requests: `to `@fallback``, `to `/err``, `into the `internal`
    /// location on line 12`.
    fn to(&self) -> String {
        if let Some(n) = &self.named {
            return format!("to `{n}`");
        }
        if self.path.iter().all(|p| p.kind == PartKind::Literal) {
            return format!("to `{}`", String::from_utf8_lossy(&self.path_text()));
        }
        format!("into {}", self.into)
    }

    /// `that `try_files` sends to `@fallback``: what a request goes through.
    fn clause(&self) -> String {
        format!("that `{}` sends {}", self.kind.name(), self.to())
    }

    /// `` `try_files` sends requests to ``: what the location is.
    fn sends(&self) -> String {
        format!("`{}` sends requests to", self.kind.name())
    }

    /// The note at the redirect.
    fn label(&self) -> String {
        let what = if self.uri && self.named.is_none() {
            "client-chosen URIs"
        } else {
            "requests"
        };
        format!("`{}` sends {what} {}", self.kind.name(), self.to())
    }

    /// The path's literal text (for a path with no variable, the whole path).
    fn path_text(&self) -> Vec<u8> {
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
fn routes_into<'a>(
    loc: Directive<'a>,
    p: &Provenance<'_>,
    servers: &ServerIndex<'a>,
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

/// How requests that carry what `part` needs get into `loc`: the route (an index into
/// `routes`), and the request to show when it is a client URI a `rewrite` turns into one
/// the location takes.
struct Entry {
    route: usize,
    example: Option<String>,
}

fn entry(
    t: &Target<'_>,
    loc: Directive<'_>,
    routes: &[Route<'_>],
    part: &Part,
    a: &Answer,
) -> Option<Entry> {
    let source = source_of(a.why(Danger::Host)?);
    if source == Source::Uri && !is_named(loc) {
        // The location's own URI: the client's only through a rewrite that writes the
        // client's text into it, shown with a request.
        return routes.iter().enumerate().find_map(|(i, r)| {
            if !r.uri || r.named.is_some() {
                return None;
            }
            let example = match r.kind {
                Via::Rewrite => rewrite_example(t, loc, r, part)?,
                Via::ErrorPage | Via::TryFiles => redirect_example(t, loc, r, part)?,
            };
            Some(Entry {
                route: i,
                example: Some(example),
            })
        });
    }
    let i = routes.iter().position(|r| {
        reaches(r, loc)
            && match source {
                Source::Request => true,
                Source::Args => r.args,
                Source::Uri => r.uri,
            }
    })?;
    Some(Entry {
        route: i,
        example: None,
    })
}

/// How a `location` matches, as its arguments say.
enum LocMatch {
    Exact(Vec<u8>),
    Prefix(Vec<u8>),
    Regex(Vec<u8>, bool),
    Named(Vec<u8>),
}

fn loc_match(loc: Directive<'_>) -> Option<LocMatch> {
    let args: Vec<Vec<u8>> = loc.args().map(|a| a.bytes().into_owned()).collect();
    Some(match args.as_slice() {
        [m, name] => match m.as_slice() {
            b"=" => LocMatch::Exact(name.clone()),
            b"^~" => LocMatch::Prefix(name.clone()),
            b"~" => LocMatch::Regex(name.clone(), false),
            b"~*" => LocMatch::Regex(name.clone(), true),
            _ => return None,
        },
        [name] => {
            if let Some(r) = name.strip_prefix(b"=") {
                LocMatch::Exact(r.to_vec())
            } else if let Some(r) = name.strip_prefix(b"^~") {
                LocMatch::Prefix(r.to_vec())
            } else if let Some(r) = name.strip_prefix(b"~*") {
                LocMatch::Regex(r.to_vec(), true)
            } else if let Some(r) = name.strip_prefix(b"~") {
                LocMatch::Regex(r.to_vec(), false)
            } else if name.starts_with(b"@") {
                LocMatch::Named(name.clone())
            } else {
                LocMatch::Prefix(name.clone())
            }
        }
        _ => return None,
    })
}

/// Whether a request `r` sends can be served by `loc`: a named location by its name; a
/// URI location by the written URI (as nginx's search picks), or, for a URI with variables,
/// when its written start can begin a URI the location takes.
fn reaches(r: &Route<'_>, loc: Directive<'_>) -> bool {
    let Some(m) = loc_match(loc) else {
        return false;
    };
    if let LocMatch::Named(name) = &m {
        return r.named.as_deref().map(str::as_bytes) == Some(name.as_slice());
    }
    if r.named.is_some() {
        return false;
    }
    let prefix = r.path_text();
    if r.path.iter().all(|p| p.kind == PartKind::Literal) {
        return selects(loc, &prefix);
    }
    match m {
        LocMatch::Exact(name) => name.starts_with(&prefix),
        LocMatch::Prefix(name) => name.starts_with(&prefix) || prefix.starts_with(&name),
        LocMatch::Regex(pattern, caseless) => {
            let Ok(re) = Regex::parse_bytes(&pattern, caseless) else {
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
        LocMatch::Named(_) => false,
    }
}

/// Whether nginx serves the (normalised) URI `uri` from `loc`: its search in the server
/// when the server is known; in a fragment, `loc`'s own test.
fn selects(loc: Directive<'_>, uri: &[u8]) -> bool {
    if let Some(server) = loc.enclosing("server") {
        let all = Locations::of(loc.instance());
        if let Some(s) = all.server(server.occ()) {
            if let Some(id) = s.location_of(loc.occ()) {
                return s.select(uri).location() == Some(id);
            }
        }
    }
    match loc_match(loc) {
        Some(LocMatch::Exact(name)) => name == uri,
        Some(LocMatch::Prefix(name)) => uri.starts_with(&name),
        Some(LocMatch::Regex(pattern, caseless)) => Regex::parse_bytes(&pattern, caseless)
            .ok()
            .and_then(|re| re.is_match(uri).ok())
            .unwrap_or(false),
        Some(LocMatch::Named(_)) | None => false,
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

/// For a host taken from a capture of the `internal` location `loc`'s regex: a client URI
/// that rewrite `r` turns into one `loc` takes with [`EVIL`] in that group — `GET U`,
/// rewritten to `T`, connects to the target. Built from the location's regex (its sample,
/// with `evil.example` in the group), the rewrite's replacement (its literal text, and the
/// captures between) and the rewrite's regex (its sample with those captures in place),
/// then checked: the rewrite's regex captures them from `U`, nginx's normalisation keeps
/// `U`, the search serves `U` from the rewrite's location (for one in a location) and `T`
/// from `loc`.
fn rewrite_example(
    t: &Target<'_>,
    loc: Directive<'_>,
    r: &Route<'_>,
    part: &Part,
) -> Option<String> {
    let key = part.kind.key();
    let group_of = Group::of(part, key.as_deref())?;
    let (re_l, k) = location_group(loc, group_of)?;
    let render = |subst: &dyn Fn(&Part) -> Option<String>| render_target(t.script, t.value, subst);
    let evil = EVIL.as_bytes().to_vec();
    let rewritten = re_l.sample_with(&[(k as u32, evil)])?;
    let target = target_for(&re_l, k, &rewritten, &render)?;
    let re_r = Regex::parse(&r.via.arg(0)?.value(), false).ok()?;
    let values = solve(r, &re_r, &rewritten)?;
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
    if !selects(loc, &rewritten) || !runs_alone(r.via, &uri, &rewritten, t.servers) {
        return None;
    }
    let shown = String::from_utf8_lossy(&uri);
    if uri == rewritten {
        return Some(format!(
            "`GET {shown}`, which `rewrite` leaves as it is but marks internal, connects to \
             `{target}`"
        ));
    }
    Some(format!(
        "`GET {shown}`, rewritten to `{}`, connects to `{target}`",
        String::from_utf8_lossy(&rewritten)
    ))
}

/// Whether rewrite `r` is the only rewrite-module directive that changes the request on
/// its way: no `rewrite` that runs before it (at the server level, or earlier in its own
/// location) matches `uri`, and — unless its flag ends the rewrites (`last`, `break`) —
/// no later `rewrite` of its block matches `rewritten`, and no `return` follows in it.
/// `if` conditions are not evaluated: a `rewrite` inside one counts as running.
fn runs_alone(r: Directive<'_>, uri: &[u8], rewritten: &[u8], servers: &ServerIndex<'_>) -> bool {
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

/// For a host taken from a capture of the `internal` location `loc`'s regex: a client URI
/// that an `error_page` or `try_files` (in a location) whose target is the URI with written
/// text around it (`/proxy$uri`) sends to one `loc` takes with [`EVIL`] in that group —
/// `GET U`, which it sends to `T`, connects to the target. Checked as for a `rewrite`: the
/// search serves `U` from the redirect's location and `T` from `loc`, and nginx's
/// normalisation keeps `U`.
fn redirect_example(
    t: &Target<'_>,
    loc: Directive<'_>,
    r: &Route<'_>,
    part: &Part,
) -> Option<String> {
    let at = r.via.enclosing("location")?;
    let key = part.kind.key();
    let group_of = Group::of(part, key.as_deref())?;
    let (re_l, k) = location_group(loc, group_of)?;
    let render = |subst: &dyn Fn(&Part) -> Option<String>| render_target(t.script, t.value, subst);
    let sent = re_l.sample_with(&[(k as u32, EVIL.as_bytes().to_vec())])?;
    let target = target_for(&re_l, k, &sent, &render)?;
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
    if n.path != uri || n.args.is_some() || !selects(at, &uri) || !selects(loc, &sent) {
        return None;
    }
    let on = match r.kind {
        Via::ErrorPage => {
            let codes: Vec<String> = r
                .via
                .args()
                .filter(|a| a.bytes().iter().all(u8::is_ascii_digit))
                .map(|a| a.value().into_owned())
                .collect();
            if codes.is_empty() {
                String::new()
            } else {
                format!(" on {}", codes.join(", "))
            }
        }
        _ => String::new(),
    };
    Some(format!(
        "`GET {}`, which `{}` sends to `{}`{on}, connects to `{target}`",
        String::from_utf8_lossy(&uri),
        r.kind.name(),
        String::from_utf8_lossy(&sent)
    ))
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
