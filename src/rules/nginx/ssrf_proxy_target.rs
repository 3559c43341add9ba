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

use crate::analysis::cursor::Directive;
use crate::analysis::pass_target::PASSES;
use crate::analysis::pcre::Regex;
use crate::analysis::request::redirects::{
    client_uri_for_redirect, client_uri_for_rewrite, internal_only, is_named, reaches, routes_into,
    source_of, Index, Route, Source, Via,
};
use crate::analysis::upstream_host::{find, host_parts, without_path_variables};
use crate::analysis::variables::builtin::header_name;
use crate::analysis::variables::{Answer, Danger, Part, PartKind, Provenance, Script};
use crate::rules::{Context, Rule};

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

/// The host a finding's example puts where the client chooses.
const EVIL: &str = "evil.example";

impl Rule for SsrfProxyTarget {
    fn check(&self, cx: &mut Context<'_>) {
        // One provenance index and one directive index per configuration (by its position
        // in the stack), built only when a target has a variable in its host.
        let stack = cx.stack;
        let mut prov: Option<(usize, Provenance<'_>)> = None;
        let mut index: Option<(usize, Index<'_>)> = None;
        // `memcached_pass` takes no variables: nginx resolves its address at start.
        for name in PASSES.iter().filter(|&&p| p != "memcached_pass") {
            // One finding per place: a snippet included both where clients reach it and in
            // a location only nginx enters is reported as the former (the plainer story).
            // (Kept per configuration: the provenance index is built once for each.)
            let mut found: Vec<(usize, Directive<'_>)> = stack
                .nginx
                .iter()
                .enumerate()
                .flat_map(|(ci, inst)| {
                    crate::analysis::cursor::named(inst, name).map(move |d| (ci, d))
                })
                .collect();
            found.sort_by_cached_key(|&(ci, d)| (ci, internal_only(d).is_some()));
            for (ci, d) in found {
                let Some(word) = d.arg(0) else {
                    continue;
                };
                let value = word.bytes();
                if !value.contains(&b'$') || only_existing_files(d) {
                    continue;
                }
                let script = word.variables();
                let Some(host) = host_parts(&script, &value) else {
                    continue;
                };
                let inst = d.instance();
                if index.as_ref().is_none_or(|(i, _)| *i != ci) {
                    index = Some((ci, Index::of(inst)));
                }
                let servers = &index.as_ref().expect("just built").1;
                let Some(host) = without_path_variables(d, host, &value, servers) else {
                    continue;
                };
                if prov.as_ref().is_none_or(|(i, _)| *i != ci) {
                    prov = Some((ci, cx.provenance(inst)));
                }
                let p = &prov.as_ref().expect("just built").1;
                // A location only nginx enters, and the redirects that send requests there
                // (worked out once, when a part is found dangerous).
                let inner = internal_only(d);
                let mut routes: Option<Vec<Route<'_>>> = None;
                let mut found_part = None;
                for (part, a) in host.client_chosen(p, d) {
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
    servers: &'t Index<'t>,
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
    let uri = client_uri_for_rewrite(loc, r, &rewritten, t.servers)?;
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
    let key = part.kind.key();
    let group_of = Group::of(part, key.as_deref())?;
    let (re_l, k) = location_group(loc, group_of)?;
    let render = |subst: &dyn Fn(&Part) -> Option<String>| render_target(t.script, t.value, subst);
    let sent = re_l.sample_with(&[(k as u32, EVIL.as_bytes().to_vec())])?;
    let target = target_for(&re_l, k, &sent, &render)?;
    let uri = client_uri_for_redirect(loc, r, &sent)?;
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

/// Whether the block of `d` is reached only by URIs that name an existing file: a
/// `try_files` whose every check is built from `$uri` (`$uri`, `$uri/`, `$uri.html`) ends
/// the request with its last argument otherwise (`=404`, or a redirect elsewhere), so a
/// capture of the URI can only be the name of a file under the root, which the client
/// does not choose (checked with nginx 1.22.1: `try_files $uri =404;` before `fastcgi_pass
/// $1` answers 404 to `/fpm/status/evil.example/x` and connects nowhere).
fn only_existing_files(d: Directive<'_>) -> bool {
    let Some(block) = d.parent() else {
        return false;
    };
    block.children("try_files").last().is_some_and(|t| {
        let args: Vec<String> = t.args().map(|a| a.value().into_owned()).collect();
        args.len() >= 2 && args[..args.len() - 1].iter().all(|a| a.contains("$uri"))
    })
}
