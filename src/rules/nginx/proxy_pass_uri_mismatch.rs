//! NGX140 proxy-pass-uri-mismatch: what URI `proxy_pass` sends upstream, computed the way
//! ngx_http_proxy_module builds it.
//!
//! * A URI part in a `proxy_pass` without variables is refused by nginx inside a regex
//!   location, a named location, `if` or `limit_except` (ngx_http_proxy_pass: there is no
//!   matched prefix to replace) — an Error: nginx does not start.
//! * In a prefix location, nginx replaces the matched prefix with the URI part. When one of
//!   them ends in `/` and the other does not, every path comes out wrong: `location /api` +
//!   `http://b/` sends `/api/v1` as `//v1` and `/api../x` as `/../x` (a traversal the
//!   backend resolves); `location /api/` + `http://b/v1` sends `/api/users` as `/v1users`.
//! * With variables in the URI part nginx sends it as evaluated, unescaped. `$uri`,
//!   `$document_uri` and regex captures are percent-decoded: `%3F`/`%2F` become `?`/`/`,
//!   moving path into query or across segments (Info). When a client's `%0d%0a` can become
//!   a line break in the request line (request splitting), NGX040 reports it and this rule
//!   stays silent on that argument.
//!
//! * After `rewrite ^ $request_uri` (or a location `rewrite` whose captures the address
//!   uses), the rewrite phases are run for example requests ([`crate::analysis::request`],
//!   at most [`crate::analysis::request::MAX_SIMULATED_PER_SERVER`] per server): a raw
//!   URI escaped again by a URI part (`%2F` → `%252F`), a raw rewrite under a condition
//!   whose other way sends a decoded capture, and a raw rewrite without `break` that
//!   cycles until nginx answers 500.
//!
//! Checked against nginx 1.22: the rewrites above are what a backend received.

use crate::analysis::cursor::Directive;
use crate::analysis::locations::{location_line, Kind};
use crate::analysis::pass_target::PassTarget;
use crate::analysis::request::upstream::Sent;
use crate::analysis::request::value::Decoded;
use crate::analysis::request::{block_has, raw_rewrite, show, text_of, Budget, End, Model, Seed};
use crate::analysis::rewrite_redirect::redirects;
use crate::analysis::variables::{Danger, PartKind, Provenance, Script};
use crate::diagnostic::Severity;
use crate::fxhash::FxHashMap;
use crate::rules::{Context, Rule};
use crate::stack::expanded::OccId;

declare_rule! {
    pub struct ProxyPassUriMismatch;
    code: NGX140,
    name: "proxy-pass-uri-mismatch",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
    uses_locations: true,
}

/// Whether a `rewrite` in the location (or an `if` in it) may change the URI: nginx then
/// sends the rewritten URI whole and ignores the URI part (valid_location is cleared).
fn rewrites(loc: Directive<'_>) -> bool {
    loc.children("rewrite").next().is_some()
        || loc
            .children("if")
            .any(|i| i.children("rewrite").next().is_some())
}

impl Rule for ProxyPassUriMismatch {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let mut provenance: Option<Provenance<'_>> = None;
            let mut model = Model::new(inst);
            let mut servers = FxHashMap::default();
            // Simulations run per server: each selects locations for its example requests,
            // which costs as much as the server has locations.
            let mut budget = Budget::default();
            for d in crate::analysis::cursor::named(inst, "proxy_pass") {
                let Some(arg) = d.arg(0) else {
                    continue;
                };
                let value = arg.value().into_owned();
                let target = PassTarget::parse(&value, true);
                let Some(parent) = d.parent() else {
                    continue;
                };
                if let (false, Some(uri)) = (value.contains('$'), target.uri) {
                    let context = match parent.name() {
                        "if" => Some("inside `if`".to_string()),
                        "limit_except" => Some("inside `limit_except`".to_string()),
                        "location" => match location_line(parent) {
                            Some((Kind::Regex { .. }, re)) => Some(format!(
                                "in the regex location `{}`",
                                String::from_utf8_lossy(&re)
                            )),
                            Some((Kind::Named, _)) => Some("in a named location".to_string()),
                            _ => None,
                        },
                        _ => None,
                    };
                    if let Some(context) = context {
                        let found = cx.report(
                            d.file(),
                            arg.raw(),
                            format!(
                                "\"proxy_pass\" cannot have URI part in location given by regular expression, or inside named location, or inside \"if\" statement, or inside \"limit_except\" block: nginx refuses `{uri}` {context}"
                            ),
                        );
                        found.severity = Severity::Error;
                        found.help = Some(format!(
                            "drop the URI part (`proxy_pass {}{};` sends the request's URI as it is), or build it from captures or variables (`{}{}$1`), or `rewrite … break` to the URI first",
                            target.scheme, target.authority, target.scheme, target.authority
                        ));
                        continue;
                    }
                    if parent.name() == "location" && !rewrites(parent) {
                        if let Some((Kind::Prefix | Kind::NoRegexPrefix, prefix)) =
                            location_line(parent)
                        {
                            let prefix = String::from_utf8_lossy(&prefix);
                            slash_mismatch(cx, d, arg, &prefix, uri, &target);
                        }
                    }
                }
                // A rewrite before it: what the backend receives is worked out by running
                // the rewrite phases for example requests.
                if parent.name() == "location"
                    && rewrite_matters(d, parent, &value, &mut servers)
                    && budget.take(parent)
                {
                    if let Some(mut seen) = simulate(&mut model, d, parent) {
                        if seen.decoded.is_some() {
                            // Request splitting is NGX040's finding, as below.
                            let p = provenance.get_or_insert_with(|| cx.provenance(inst));
                            if p.argument(d.occ(), 0).why(Danger::CrLf).is_some() {
                                seen.decoded = None;
                            }
                        }
                        report_seen(cx, d, arg, &seen, &target);
                        if seen.decided {
                            continue;
                        }
                    }
                }
                // Variables in the URI part: sent as evaluated.
                let Some(uri) = target.uri else {
                    continue;
                };
                if !value.contains('$') || !uri.contains('$') {
                    continue;
                }
                let p = provenance.get_or_insert_with(|| cx.provenance(inst));
                let answer = p.argument(d.occ(), 0);
                // A client-chosen line break here is request splitting, NGX040's finding
                // (header-crlf-injection follows the same chains); one report is enough.
                if answer.why(Danger::CrLf).is_some() {
                    continue;
                }
                if let Some(what) = decoded_reference(p, d, uri, parent) {
                    let found = cx.report(
                        d.file(),
                        arg.raw(),
                        format!(
                            "`{what}` is sent upstream percent-decoded: a client's `%2F` and `%3F` reach the backend as `/` and `?`, changing its path and query"
                        ),
                    );
                    found.severity = Severity::Info;
                    found.help = Some(
                        "use `$request_uri` (kept encoded) or leave the URI part out; in a prefix location `proxy_pass http://b/prefix/;` replaces the location prefix and re-encodes the rest".into(),
                    );
                }
            }
        }
    }
}

/// Reports a prefix location and URI part that disagree on the trailing slash.
fn slash_mismatch(
    cx: &mut Context<'_>,
    d: Directive<'_>,
    arg: crate::analysis::cursor::Word<'_>,
    prefix: &str,
    uri: &str,
    target: &PassTarget<'_>,
) {
    let (loc_slash, uri_slash) = (prefix.ends_with('/'), uri.ends_with('/'));
    // `location /robots.txt { proxy_pass http://b/; }` names one file, not a tree: what
    // would follow the prefix is not a path the author serves.
    let file_like = prefix
        .rsplit('/')
        .next()
        .is_some_and(|last| last.contains('.'));
    if file_like && !loc_slash {
        return;
    }
    let message = match (loc_slash, uri_slash) {
        (false, true) => format!(
            "`location {prefix}` has no trailing slash but `proxy_pass` replaces it with `{uri}`: `{prefix}/v1` is sent as `{uri}/v1` and `{prefix}../secret` as `{uri}../secret`"
        ),
        (true, false) => format!(
            "`location {prefix}` ends with a slash but `proxy_pass` replaces it with `{uri}`, which does not: `{prefix}users` is sent as `{uri}users`"
        ),
        _ => return,
    };
    let fixed_uri = if uri_slash {
        uri.trim_end_matches('/').to_string()
    } else {
        format!("{uri}/")
    };
    let fixed_prefix = if loc_slash {
        prefix.to_string()
    } else {
        format!("{prefix}/")
    };
    let found = cx.report(d.file(), arg.raw(), message);
    found.label(
        d.file().clone(),
        d.parent()
            .map_or(d.span(), |p| p.arg(0).map_or(p.span(), |a| a.raw())),
        "the prefix nginx replaces",
    );
    found.help = Some(if loc_slash {
        format!(
            "end both with a slash: `proxy_pass {}{}{fixed_uri};`",
            target.scheme, target.authority
        )
    } else if fixed_uri.is_empty() {
        // `http://b` would stop stripping the prefix: not what `http://b/` meant.
        format!(
            "end both with a slash: `location {fixed_prefix}`, so `{prefix}/v1` is sent as `/v1`"
        )
    } else {
        format!(
            "end both with a slash (`location {fixed_prefix}` with `proxy_pass {}{}{uri};`), or neither (`proxy_pass {}{}{fixed_uri};`)",
            target.scheme, target.authority, target.scheme, target.authority
        )
    });
}

/// The first reference in the URI part whose value nginx has percent-decoded: `$uri`,
/// `$document_uri`, or a capture of the location's regex that can hold a `/` (a `(\d+)`
/// cannot, nor can the decoding then matter).
fn decoded_reference(
    p: &Provenance<'_>,
    d: Directive<'_>,
    uri: &str,
    parent: Directive<'_>,
) -> Option<String> {
    let script = Script::parse_value(uri.as_bytes());
    let regex = match parent.name() {
        "location" => match location_line(parent) {
            Some((Kind::Regex { .. }, re)) => Some(String::from_utf8_lossy(&re).into_owned()),
            _ => None,
        },
        _ => None,
    };
    for part in script.references() {
        let text = &uri[part.value.range()];
        match &part.kind {
            PartKind::Variable { name, .. } => {
                let name = name.to_ascii_lowercase();
                if name == "uri" || name == "document_uri" {
                    return Some(text.to_string());
                }
                // A named capture of the location's own regex.
                let named = regex.as_deref().is_some_and(|re| {
                    re.contains(&format!("<{name}>")) || re.contains(&format!("'{name}'"))
                });
                if named && can_hold_slash(p, d, text) {
                    return Some(text.to_string());
                }
            }
            PartKind::Capture(_) => {
                if regex.is_some() && can_hold_slash(p, d, text) {
                    return Some(text.to_string());
                }
            }
            PartKind::Literal => {}
        }
    }
    None
}

fn can_hold_slash(p: &Provenance<'_>, d: Directive<'_>, text: &str) -> bool {
    let script = Script::parse_value(text.as_bytes());
    p.script(d.occ(), d.file(), &script).can(Danger::Slash)
}

// The rewrite phases, run for example requests ([`crate::analysis::request`]).

/// What the example requests showed for one `proxy_pass`.
#[derive(Default)]
struct Seen {
    /// Some way reached the `proxy_pass` (or cycled): the model's answer replaces the
    /// general one.
    decided: bool,
    /// Raw text escaped again: (request, what arrives, the rewrite that put it there).
    double: Option<(Vec<u8>, Vec<u8>, OccId)>,
    /// The same for a request with a query string.
    double_query: Option<(Vec<u8>, Vec<u8>, OccId)>,
    /// A decoded `?` sent as it is: (request, what arrives, the reference, why raw text
    /// was not there).
    decoded: Option<DecodedSent>,
    /// A rewrite cycle: (request, the rewrite of `$request_uri`).
    cycle: Option<(Vec<u8>, OccId)>,
}

/// A request whose percent-decoded `?` reached the backend as it is.
struct DecodedSent {
    request: Vec<u8>,
    sent: Vec<u8>,
    reference: Decoded,
    /// Why raw text was not there instead.
    skipped: Option<(String, OccId)>,
}

/// Whether the rewrite phases can change what this `proxy_pass` sends in a way the model
/// follows: a `rewrite` of `$request_uri` in its server or location, or a `rewrite` in its
/// location while the address uses captures. `servers` remembers the answer per server, so
/// a server with many locations is read once, not once per `proxy_pass`.
fn rewrite_matters(
    d: Directive<'_>,
    loc: Directive<'_>,
    value: &str,
    servers: &mut FxHashMap<OccId, bool>,
) -> bool {
    if block_has(loc, &raw_rewrite) {
        return true;
    }
    if let Some(server) = loc.enclosing("server") {
        if *servers
            .entry(server.occ())
            .or_insert_with(|| block_has(server, &raw_rewrite))
        {
            return true;
        }
    }
    let uses_capture = Script::parse_value(value.as_bytes())
        .parts
        .iter()
        .any(|p| matches!(p.kind, PartKind::Capture(_)) || named_capture_of(loc, p));
    uses_capture
        && block_has(loc, &|r: Directive<'_>| {
            r.name() == "rewrite" && !redirects(r)
        })
        && d.parent().is_some()
}

/// Whether `part` names a named group of a `rewrite` regex in `loc`.
fn named_capture_of(loc: Directive<'_>, part: &crate::analysis::variables::Part) -> bool {
    let Some(name) = part.kind.key() else {
        return false;
    };
    block_has(loc, &|r: Directive<'_>| {
        r.name() == "rewrite"
            && r.arg(0).is_some_and(|re| {
                let re = re.value();
                re.contains(&format!("<{name}>")) || re.contains(&format!("'{name}'"))
            })
    })
}

/// Runs the rewrite phases for example requests that location `loc` serves, and what its
/// `proxy_pass` `d` then sends; `None` when the location is reached another way than by a
/// URI (named, `internal`, `try_files` first) or the ways multiply past the model's bound.
fn simulate<'a>(model: &mut Model<'a>, d: Directive<'a>, loc: Directive<'a>) -> Option<Seen> {
    if matches!(location_line(loc), None | Some((Kind::Named, _)))
        || loc.children("try_files").next().is_some()
        || loc.children("internal").next().is_some()
    {
        return None;
    }
    let server = loc.enclosing("server");
    let mut seen = Seen::default();
    for (target, purpose) in model.examples(server, loc) {
        for end in model.follow(server, Some(loc), &target, None)? {
            match end {
                End::Cycle(r) => {
                    seen.decided = true;
                    if let Some(o) = r.uri_raw {
                        if seen.cycle.is_none() || purpose == Seed::Plain {
                            seen.cycle.get_or_insert((target.clone(), o));
                        }
                    }
                }
                End::Content { req: r, .. } => {
                    seen.decided = true;
                    let Some(Sent {
                        uri: sent,
                        double,
                        decoded,
                    }) = model.upstream(d, loc, &r, &target)
                    else {
                        continue;
                    };
                    if let Some(o) = double {
                        let slot = if purpose == Seed::Query {
                            &mut seen.double_query
                        } else {
                            &mut seen.double
                        };
                        // The `%2F` example says it best.
                        if slot.is_none() || purpose == Seed::Slash {
                            *slot = Some((target.clone(), sent.clone(), o));
                        }
                    }
                    if let (Some(dec), Seed::Question) = (decoded, purpose) {
                        seen.decoded.get_or_insert(DecodedSent {
                            request: target.clone(),
                            sent,
                            reference: dec,
                            skipped: r.skipped.clone(),
                        });
                    }
                }
                End::Left(_) | End::Gone(_) => {}
            }
        }
    }
    if seen.double.is_none() {
        // Only the query example showed it (an exact location): say so with that one.
        seen.double = seen.double_query.take();
    }
    Some(seen)
}

/// Reports what the example requests showed.
fn report_seen(
    cx: &mut Context<'_>,
    d: Directive<'_>,
    arg: crate::analysis::cursor::Word<'_>,
    seen: &Seen,
    target: &PassTarget<'_>,
) {
    let inst = d.instance();
    let sa = format!("{}{}", target.scheme, target.authority);
    let when = |o: Directive<'_>| match o.parent() {
        Some(p) if p.name() == "if" => format!("when `{}` is true, ", text_of(p)),
        _ => String::new(),
    };
    if let Some((t, o)) = &seen.cycle {
        let rw = Directive::new(inst, *o);
        let found = cx.report(
            d.file(),
            arg.raw(),
            format!(
                "{}after `{}` nginx searches the locations again with the new URI, comes back to this one and rewrites again, until it gives up with 500 (\"rewrite or internal redirection cycle\"): `{}` never reaches the backend",
                when(rw),
                text_of(rw),
                show(t)
            ),
        );
        found.severity = Severity::Error;
        found.label(
            rw.file().clone(),
            rw.span(),
            "changes the URI without `break`",
        );
        found.help = Some(format!(
            "to send the raw URI, put it in a URI part made of variables, which nginx sends as it is: `proxy_pass {sa}$request_uri;` without the rewrite, or `proxy_pass {sa}$1;` after a `rewrite … break` that captures `$1` from `$request_uri`"
        ));
    }
    if let Some((t, s, o)) = &seen.double {
        let rw = Directive::new(inst, *o);
        let query = seen
            .double_query
            .as_ref()
            .map(|(tq, sq, _)| format!(", and `{}` as `{}`", show(tq), show(sq)))
            .unwrap_or_default();
        let found = cx.report(
            d.file(),
            arg.raw(),
            format!(
                "{}`{}` puts the raw request URI, still percent-encoded, into the URI, and `proxy_pass` escapes it again: `{}` reaches the backend as `{}`{query}",
                when(rw),
                text_of(rw),
                show(t),
                show(s)
            ),
        );
        found.label(
            rw.file().clone(),
            rw.span(),
            "the raw `$request_uri` becomes the URI",
        );
        found.help = Some(format!(
            "nginx sends a URI part made of variables as it is: `proxy_pass {sa}$1;` with `$1` captured from `$request_uri` by a `rewrite … break` (and `return 400;` after it for what it does not match), or `proxy_pass {sa}$request_uri;` without the rewrites"
        ));
    }
    if let Some(DecodedSent {
        request: t,
        sent: s,
        reference: dec,
        skipped,
    }) = &seen.decoded
    {
        let by = dec.by.map(|o| Directive::new(inst, o));
        let message = match skipped {
            Some((why, _)) => format!(
                "{why}, and then `{}` holds the percent-decoded URI and is sent as it is: `{}` reaches the backend as `{}`, its `%3F` now a `?` that starts the query",
                dec.what,
                show(t),
                show(s)
            ),
            None => format!(
                "`{}`{} holds the percent-decoded URI and is sent as it is: `{}` reaches the backend as `{}`, its `%3F` now a `?` that starts the query",
                dec.what,
                by.map(|b| format!(" (captured by `{}`)", text_of(b)))
                    .unwrap_or_default(),
                show(t),
                show(s)
            ),
        };
        let found = cx.report(d.file(), arg.raw(), message);
        if let Some((_, o)) = skipped {
            let rw = Directive::new(inst, *o);
            found.label(
                rw.file().clone(),
                rw.span(),
                "does not run for this request",
            );
            found.help = Some(format!(
                "run `{}` for every request (not under a condition), so that the capture holds the raw URI, or send `proxy_pass {sa}$request_uri;`",
                text_of(rw)
            ));
        } else {
            found.severity = Severity::Info;
            found.help = Some(format!(
                "capture from `$request_uri` instead (`rewrite ^ $request_uri;` first), or send `proxy_pass {sa}$request_uri;`"
            ));
        }
        if let Some(b) = by {
            found.label(b.file().clone(), b.span(), "captures from the decoded URI");
        }
    }
}
