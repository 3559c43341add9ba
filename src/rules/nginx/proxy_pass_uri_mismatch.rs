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
//!   uses), the rewrite phases are run for example requests (the simulation below): a raw
//!   URI escaped again by a URI part (`%2F` → `%252F`), a raw rewrite under a condition
//!   whose other way sends a decoded capture, and a raw rewrite without `break` that
//!   cycles until nginx answers 500.
//!
//! Checked against nginx 1.22: the rewrites above are what a backend received.

use crate::analysis::cursor::Directive;
use crate::analysis::pass_target::PassTarget;
use crate::analysis::variables::{Danger, PartKind, Provenance, Script};
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};

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

/// How nginx reads a `location`'s arguments, as far as this rule cares.
enum LocKind {
    Prefix(String),
    Exact(String),
    Regex(String),
    Named,
}

fn location_kind(loc: Directive<'_>) -> Option<LocKind> {
    let args: Vec<String> = loc.args().map(|a| a.value().into_owned()).collect();
    Some(match args.as_slice() {
        [m, name] => match m.as_str() {
            "=" => LocKind::Exact(name.clone()),
            "^~" => LocKind::Prefix(name.clone()),
            "~" | "~*" => LocKind::Regex(name.clone()),
            _ => return None,
        },
        [name] => {
            if let Some(rest) = name.strip_prefix('=') {
                LocKind::Exact(rest.to_string())
            } else if let Some(rest) = name.strip_prefix("^~") {
                LocKind::Prefix(rest.to_string())
            } else if let Some(rest) = name.strip_prefix("~*") {
                LocKind::Regex(rest.to_string())
            } else if let Some(rest) = name.strip_prefix('~') {
                LocKind::Regex(rest.to_string())
            } else if name.starts_with('@') {
                LocKind::Named
            } else {
                LocKind::Prefix(name.clone())
            }
        }
        _ => return None,
    })
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
            let mut regexes = RegexCache::default();
            let mut servers = FxHashMap::default();
            // Simulations run per server: each selects locations for its example requests,
            // which costs as much as the server has locations.
            let mut simulated: FxHashMap<OccId, usize> = FxHashMap::default();
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
                        "location" => match location_kind(parent) {
                            Some(LocKind::Regex(re)) => {
                                Some(format!("in the regex location `{re}`"))
                            }
                            Some(LocKind::Named) => Some("in a named location".to_string()),
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
                        if let Some(LocKind::Prefix(prefix)) = location_kind(parent) {
                            slash_mismatch(cx, d, arg, &prefix, uri, &target);
                        }
                    }
                }
                // A rewrite before it: what the backend receives is worked out by running
                // the rewrite phases for example requests.
                if parent.name() == "location"
                    && rewrite_matters(d, parent, &value, &mut servers)
                    && within_budget(&mut simulated, parent)
                {
                    let sim = Sim::new(inst, d, parent, &mut regexes);
                    if let Some(mut seen) = sim.and_then(|s| s.simulate(&value)) {
                        if seen.decoded.is_some() {
                            // Request splitting is NGX040's finding, as below.
                            let p = provenance.get_or_insert_with(|| Provenance::new(inst.view()));
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
                let p = provenance.get_or_insert_with(|| Provenance::new(inst.view()));
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
        "location" => match location_kind(parent) {
            Some(LocKind::Regex(re)) => Some(re),
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

// ---------------------------------------------------------------------------------------
// The rewrite phases, run for example requests.
//
// ngx_http_script.c and ngx_http_proxy_module.c (nginx 1.22), as followed here:
// - A `rewrite` matches its regex against `$uri` (`r->uri`). A failed match clears the
//   captures (`r->ncaptures = 0`); a match sets them, and named captures as variables.
// - Its replacement up to the first literal `?` becomes the URI, copied as evaluated: no
//   decoding, no escaping. `$request_uri` is the target as the client sent it, still
//   percent-encoded and with its query; `$uri` and captures of `$uri` are decoded. After
//   the `?`: the arguments (captures escaped there when the URI had a `%`).
// - Any URI rewrite marks the request internal and the unparsed URI invalid. `break`
//   stops the rewrite phase and clears `valid_location`; `last`, or no flag once the
//   phase ends, makes nginx search the locations again with the new URI (the server's
//   rewrites do not run again) — at most 10 times, then 500 ("rewrite or internal
//   redirection cycle").
// - `proxy_pass` with variables in its URI part sends that part as evaluated. Otherwise:
//   the unparsed URI as the client sent it when nothing rewrote it and there is no URI
//   part; else the URI part (when `valid_location`) in place of the location's name,
//   then the rest of `r->uri` escaped with NGX_ESCAPE_URI (the request is internal after
//   a rewrite, so always then: `%` becomes `%25`, `?` `%3F`), then `?` and the arguments.
// Conditions nginx evaluates from the request's URI are evaluated; others (`$arg_x`,
// `-f`) are followed both ways, and each way remembers its choice for the next round.
// ---------------------------------------------------------------------------------------

use crate::analysis::locations::{normalise, Outcome, ServerLocations};
use crate::analysis::pcre::{Captures, Regex};
use crate::analysis::rewrite_redirect::redirects;
use crate::fxhash::FxHashMap;
use crate::stack::expanded::OccId;
use crate::stack::model::NginxInstance;
use std::rc::Rc;

/// The most `proxy_pass` simulated per server. Each simulation selects locations for a
/// few example requests, at a cost that grows with the server's locations; the bound keeps
/// the rule linear in a server with thousands of locations (where the first ones are
/// followed and the rest get the checks that do not simulate).
const MAX_SIMULATED_PER_SERVER: usize = 32;

/// Whether another simulation fits the budget of the location's server (a snippet's
/// location, outside any server, selects nothing and is always simulated).
fn within_budget(simulated: &mut FxHashMap<OccId, usize>, loc: Directive<'_>) -> bool {
    let Some(server) = loc.enclosing("server") else {
        return true;
    };
    let n = simulated.entry(server.occ()).or_default();
    *n += 1;
    *n <= MAX_SIMULATED_PER_SERVER
}

/// The most ways through the rewrite phases followed for one example request.
const MAX_PATHS: usize = 64;
/// `NGX_HTTP_MAX_URI_CHANGES + 1`: how many location searches one request gets.
const URI_CHANGES: u8 = 11;
/// The longest URI, query or variable value a simulated request may build. The example
/// requests are short; a text grows past this only when a rewrite repeats it (`$1?$args$args`
/// on each of the eleven searches multiplies the query by 8¹¹), and that way is not
/// followed: silence for it rather than an input error, since nginx runs such a
/// configuration (it answers 414 or 500 once the text outgrows its buffers).
const MAX_TEXT: usize = 64 * 1024;

/// Parsed regexes of `rewrite` and `if`, by directive (`None`: not modelled).
#[derive(Default)]
struct RegexCache(FxHashMap<OccId, Option<Rc<Regex>>>);

/// A piece of text nginx built, and what it carries.
#[derive(Clone, Default)]
struct Val {
    bytes: Vec<u8>,
    /// The directive whose `$request_uri` (raw, still percent-encoded) is part of it.
    raw: Option<OccId>,
    /// The first reference whose percent-decoded text put a `?` into it.
    decoded: Option<Decoded>,
}

#[derive(Clone)]
struct Decoded {
    /// `$1`, `$name`, `$uri`.
    what: String,
    /// The regex (location, `rewrite`, `if`) that captured it.
    by: Option<OccId>,
}

impl Val {
    fn push(&mut self, v: Val) {
        self.bytes.extend_from_slice(&v.bytes);
        self.raw = self.raw.or(v.raw);
        if self.decoded.is_none() {
            self.decoded = v.decoded;
        }
    }

    /// Appends text of the URI or captured from it: raw when `raw`, else decoded.
    fn push_uri_text(&mut self, text: &[u8], raw: Option<OccId>, what: &str, by: Option<OccId>) {
        self.bytes.extend_from_slice(text);
        if raw.is_some() {
            self.raw = self.raw.or(raw);
        } else if text.contains(&b'?') && self.decoded.is_none() {
            self.decoded = Some(Decoded {
                what: what.to_string(),
                by,
            });
        }
    }
}

struct Capture {
    subject: Vec<u8>,
    spans: Vec<Option<(usize, usize)>>,
    raw: Option<OccId>,
    by: Option<OccId>,
}

#[derive(Clone)]
enum Caps {
    None,
    Unknown,
    Known(Rc<Capture>),
}

/// One request on one way through the rewrite phases.
#[derive(Clone)]
struct Req {
    uri: Vec<u8>,
    /// `r->uri` holds raw text from this directive's `$request_uri`.
    uri_raw: Option<OccId>,
    args: Vec<u8>,
    /// The target had a `%` (`r->quoted_uri`).
    quoted: bool,
    caps: Caps,
    /// `set` variables and named captures (`None`: value unknown).
    vars: Vars,
    internal: bool,
    valid_unparsed: bool,
    valid_location: bool,
    uri_changed: bool,
    /// Conditions followed both ways: the `if` and the way taken.
    decisions: Vec<(OccId, bool)>,
    /// Why a `rewrite … $request_uri` did not run on this way, and which one.
    skipped: Option<Skipped>,
    rounds: u8,
}

impl Req {
    fn var(&self, name: &str) -> Option<&Option<Val>> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    fn set_var(&mut self, name: String, v: Option<Val>) {
        self.vars.retain(|(n, _)| *n != name);
        self.vars.push((name, v));
    }
}

/// How a block's rewrite directives leave a request.
enum Flow {
    /// Goes on after the block.
    Go(Req),
    /// `break`: the rewrite phase ends here.
    Stop(Req),
    /// `rewrite … last`: the locations are searched again.
    Again(Req),
    /// Answered by something else (`return`, a redirect, another handler), or not
    /// followed (a value this model does not know).
    Gone,
}

/// Why a `rewrite … $request_uri` did not run on a way, and which one.
type Skipped = (String, OccId);

/// `set` variables and named captures, newest last (`None`: value unknown).
type Vars = Vec<(String, Option<Val>)>;

/// Where a request ends.
enum End {
    Content(Req),
    Cycle(Req),
}

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
    skipped: Option<Skipped>,
}

/// What an example request is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Plain,
    Slash,
    Question,
    Query,
}

/// A URI `rewrite` whose new URI holds `$request_uri`.
fn raw_rewrite(r: Directive<'_>) -> bool {
    if r.name() != "rewrite" || redirects(r) {
        return false;
    }
    let Some(repl) = r.arg(1) else {
        return false;
    };
    let bytes = repl.bytes();
    let (uri, _) = split_args(&bytes);
    Script::parse_value(&uri)
        .parts
        .iter()
        .any(|p| p.kind.key().as_deref() == Some("request_uri"))
}

/// The rewrite-phase directives of a block, in order.
fn phase<'a>(block: Directive<'a>) -> Vec<Directive<'a>> {
    block
        .all_children()
        .filter(|c| matches!(c.name(), "rewrite" | "if" | "set" | "return" | "break"))
        .collect()
}

/// Whether a block (or an `if` in it) has a directive satisfying `f`.
fn block_has(block: Directive<'_>, f: &dyn Fn(Directive<'_>) -> bool) -> bool {
    phase(block)
        .into_iter()
        .any(|c| f(c) || (c.name() == "if" && phase(c).into_iter().any(f)))
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

/// A replacement split at its first literal `?` (ngx_http_script_compile with
/// `compile_args`): the URI, and the arguments when there is a `?`.
fn split_args(repl: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    let script = Script::parse_value(repl);
    for p in &script.parts {
        if p.kind == PartKind::Literal {
            let r = p.value.range();
            if let Some(i) = repl[r.clone()].iter().position(|&b| b == b'?') {
                let at = r.start + i;
                return (repl[..at].to_vec(), Some(repl[at + 1..].to_vec()));
            }
        }
    }
    (repl.to_vec(), None)
}

/// `ngx_escape_uri` with NGX_ESCAPE_URI (`args`: NGX_ESCAPE_ARGS).
fn escape(text: &[u8], args: bool, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in text {
        let special: &[u8] = if args {
            b" \"#%&+;<>?\\^`{|}"
        } else {
            b" \"#%<>?\\^`{|}"
        };
        if !(0x20..0x7f).contains(&b) || special.contains(&b) {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        } else {
            out.push(b);
        }
    }
}

/// A directive as written, without its `;` (for messages).
fn text_of(d: Directive<'_>) -> String {
    let mut s = d.name().to_string();
    for a in d.args() {
        s.push(' ');
        s.push_str(&a.raw_text());
    }
    s
}

fn show(b: &[u8]) -> String {
    let mut out = String::new();
    for c in String::from_utf8_lossy(b).chars() {
        if c.is_control() || c == '`' {
            out.push_str(&format!("\\x{:02x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Which location a URI selects, as far as this rule needs it.
enum Sel {
    This(Option<Captures>),
    Other,
}

struct Sim<'a, 'c> {
    d: Directive<'a>,
    loc: Directive<'a>,
    server: Option<Directive<'a>>,
    locs: Option<std::sync::Arc<crate::analysis::locations::Locations>>,
    regexes: &'c mut RegexCache,
}

impl<'a, 'c> Sim<'a, 'c> {
    fn new(
        inst: &'a NginxInstance,
        d: Directive<'a>,
        loc: Directive<'a>,
        regexes: &'c mut RegexCache,
    ) -> Option<Sim<'a, 'c>> {
        // Reached another way than by a URI, or served by `try_files` first: not modelled.
        if matches!(location_kind(loc), None | Some(LocKind::Named))
            || loc.children("try_files").next().is_some()
            || loc.children("internal").next().is_some()
        {
            return None;
        }
        let server = loc.enclosing("server");
        let locs = server.map(|_| crate::analysis::locations::Locations::of(inst));
        Some(Sim {
            d,
            loc,
            server,
            locs,
            regexes,
        })
    }

    fn server_locs(&self) -> Option<&ServerLocations> {
        self.locs.as_ref()?.server(self.server?.occ())
    }

    fn regex(&mut self, o: Directive<'_>, pattern: &[u8], caseless: bool) -> Option<Rc<Regex>> {
        self.regexes
            .0
            .entry(o.occ())
            .or_insert_with(|| Regex::parse_bytes(pattern, caseless).ok().map(Rc::new))
            .clone()
    }

    /// Example request targets that this location serves.
    fn examples(&mut self) -> Vec<(Vec<u8>, Purpose)> {
        let seeds: [(&[u8], Purpose); 4] = [
            (b"x", Purpose::Plain),
            (b"a%2Fb", Purpose::Slash),
            (b"a%3Fb/c", Purpose::Question),
            (b"a?x=1", Purpose::Query),
        ];
        let mut bases: Vec<Vec<u8>> = Vec::new();
        match location_kind(self.loc) {
            Some(LocKind::Prefix(p)) => {
                let mut b = Vec::new();
                escape(p.as_bytes(), false, &mut b);
                if !b.ends_with(b"/") {
                    b.push(b'/');
                }
                bases.push(b);
            }
            Some(LocKind::Exact(name)) => {
                let mut b = Vec::new();
                escape(name.as_bytes(), false, &mut b);
                let mut q = b.clone();
                q.extend_from_slice(b"?x=1");
                return vec![(b, Purpose::Plain), (q, Purpose::Query)]
                    .into_iter()
                    .filter(|(t, _)| self.serves(t))
                    .collect();
            }
            Some(LocKind::Regex(re)) => {
                let caseless = self
                    .loc
                    .args()
                    .next()
                    .is_some_and(|a| a.value().contains('*'));
                let Some(sample) = self
                    .regex(self.loc, re.as_bytes(), caseless)
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
            _ => return Vec::new(),
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
                if purpose == Purpose::Query {
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

    /// Whether an external request for `target` is served by this location.
    fn serves(&mut self, target: &[u8]) -> bool {
        let merge = self.server_locs().is_none_or(|l| l.merge_slashes);
        let Ok(n) = normalise(target, merge) else {
            return false;
        };
        matches!(self.select(&n.path, true), Some(Sel::This(_)))
    }

    /// The location `uri` selects (`None`: not known).
    fn select(&mut self, uri: &[u8], external: bool) -> Option<Sel> {
        let loc = self.loc;
        if let Some(locs) = self.server_locs() {
            let s = locs.select(uri);
            if s.outcome != Outcome::Served || (external && s.internal) {
                return s.is_decided().then_some(Sel::Other);
            }
            let id = locs.location_of(loc.occ())?;
            return Some(if s.location() == Some(id) {
                Sel::This(s.captures)
            } else {
                Sel::Other
            });
        }
        // A snippet: only its own match is known, and only for the request as sent.
        if !external {
            return None;
        }
        match location_kind(loc)? {
            LocKind::Prefix(p) => Some(if uri.starts_with(p.as_bytes()) {
                Sel::This(None)
            } else {
                Sel::Other
            }),
            LocKind::Exact(n) => Some(if uri == n.as_bytes() {
                Sel::This(None)
            } else {
                Sel::Other
            }),
            LocKind::Regex(re) => {
                let caseless = loc.args().next().is_some_and(|a| a.value().contains('*'));
                let r = self.regex(loc, re.as_bytes(), caseless)?;
                match r.captures(uri).ok()? {
                    Some(c) => Some(Sel::This(Some(c))),
                    None => Some(Sel::Other),
                }
            }
            LocKind::Named => None,
        }
    }

    fn simulate(mut self, value: &str) -> Option<Seen> {
        let mut seen = Seen::default();
        for (target, purpose) in self.examples() {
            let mut ends = Vec::new();
            self.example(&target, &mut ends)?;
            for end in ends {
                seen.decided = true;
                match end {
                    End::Cycle(r) => {
                        if let Some(o) = r.uri_raw {
                            if seen.cycle.is_none() || purpose == Purpose::Plain {
                                seen.cycle.get_or_insert((target.clone(), o));
                            }
                        }
                    }
                    End::Content(r) => {
                        let Some((sent, double, decoded)) =
                            self.sent(value.as_bytes(), &r, &target)
                        else {
                            continue;
                        };
                        if let Some(o) = double {
                            let slot = if purpose == Purpose::Query {
                                &mut seen.double_query
                            } else {
                                &mut seen.double
                            };
                            // The `%2F` example says it best.
                            if slot.is_none() || purpose == Purpose::Slash {
                                *slot = Some((target.clone(), sent.clone(), o));
                            }
                        }
                        if let (Some(dec), Purpose::Question) = (decoded, purpose) {
                            seen.decoded.get_or_insert(DecodedSent {
                                request: target.clone(),
                                sent,
                                reference: dec,
                                skipped: r.skipped.clone(),
                            });
                        }
                    }
                }
            }
        }
        if seen.double.is_none() {
            // Only the query example showed it (an exact location): say so with that one.
            seen.double = seen.double_query.take();
        }
        Some(seen)
    }

    /// Follows one request through the server's and the location's rewrite phases.
    fn example(&mut self, target: &[u8], ends: &mut Vec<End>) -> Option<()> {
        let merge = self.server_locs().is_none_or(|l| l.merge_slashes);
        let Ok(n) = normalise(target, merge) else {
            return Some(());
        };
        let path_part = target.split(|&b| b == b'?').next().unwrap_or(target);
        // A regex server name may have left captures.
        let caps = match self.server {
            Some(s)
                if s.children("server_name")
                    .any(|n| n.args().any(|a| a.value().starts_with('~'))) =>
            {
                Caps::Unknown
            }
            _ => Caps::None,
        };
        let req = Req {
            uri: n.path,
            uri_raw: None,
            args: n.args.unwrap_or_default(),
            quoted: path_part.contains(&b'%'),
            caps,
            vars: Vec::new(),
            internal: false,
            valid_unparsed: true,
            valid_location: true,
            uri_changed: false,
            decisions: Vec::new(),
            skipped: None,
            rounds: URI_CHANGES,
        };
        let flows = match self.server {
            Some(s) => self.run(&phase(s), vec![req], target)?,
            None => vec![Flow::Go(req)],
        };
        for f in flows {
            if let Flow::Go(mut r) | Flow::Stop(mut r) | Flow::Again(mut r) = f {
                r.uri_changed = false;
                self.enter(r, true, target, ends)?;
            }
        }
        Some(())
    }

    /// The location search, then the location's rewrite phase, again while it changes
    /// the URI.
    fn enter(
        &mut self,
        mut r: Req,
        external: bool,
        target: &[u8],
        ends: &mut Vec<End>,
    ) -> Option<()> {
        match self.select(&r.uri.clone(), external) {
            Some(Sel::This(c)) => {
                if let Some(c) = c {
                    let loc = self.loc;
                    let names = match location_kind(loc) {
                        Some(LocKind::Regex(re)) => {
                            let caseless =
                                loc.args().next().is_some_and(|a| a.value().contains('*'));
                            self.regex(loc, re.as_bytes(), caseless)
                                .map(|x| x.capture_table().names().to_vec())
                                .unwrap_or_default()
                        }
                        _ => Vec::new(),
                    };
                    let subject = r.uri.clone();
                    let raw = r.uri_raw;
                    set_caps(&mut r, &names, &c, subject, raw, Some(loc.occ()));
                }
            }
            _ => return Some(()),
        }
        let flows = self.run(&phase(self.loc), vec![r], target)?;
        for f in flows {
            match f {
                Flow::Stop(r) => ends.push(End::Content(r)),
                Flow::Go(r) if !r.uri_changed => ends.push(End::Content(r)),
                Flow::Go(mut r) | Flow::Again(mut r) => {
                    r.rounds -= 1;
                    if r.rounds == 0 {
                        ends.push(End::Cycle(r));
                        continue;
                    }
                    r.uri_changed = false;
                    self.enter(r, false, target, ends)?;
                }
                Flow::Gone => {}
            }
            if ends.len() > MAX_PATHS {
                return None;
            }
        }
        Some(())
    }

    /// Runs rewrite-phase directives for each request; `None` when the ways multiply
    /// past [`MAX_PATHS`].
    fn run(&mut self, dirs: &[Directive<'a>], reqs: Vec<Req>, target: &[u8]) -> Option<Vec<Flow>> {
        let mut live = reqs;
        let mut done = Vec::new();
        for &o in dirs {
            if live.is_empty() {
                break;
            }
            let mut next = Vec::new();
            for mut r in std::mem::take(&mut live) {
                match o.name() {
                    "rewrite" => match self.rewrite(o, r, target) {
                        Flow::Go(r) => next.push(r),
                        other => done.push(other),
                    },
                    "if" => self.if_block(o, r, target, &mut next, &mut done)?,
                    "return" => done.push(Flow::Gone),
                    "break" => {
                        if r.uri_changed {
                            r.valid_location = false;
                            r.uri_changed = false;
                        }
                        done.push(Flow::Stop(r));
                    }
                    "set" => {
                        if let (Some(name), Some(v)) = (o.arg(0), o.arg(1)) {
                            let name = name.value().trim_start_matches('$').to_ascii_lowercase();
                            let v = self.eval(&v.bytes(), &r, o.occ(), false, target);
                            r.set_var(name, v);
                        }
                        next.push(r);
                    }
                    _ => next.push(r),
                }
            }
            live = next;
            if live.len() + done.len() > MAX_PATHS {
                return None;
            }
        }
        done.extend(live.into_iter().map(Flow::Go));
        Some(done)
    }

    fn rewrite(&mut self, o: Directive<'a>, mut r: Req, target: &[u8]) -> Flow {
        let (Some(re), Some(repl)) = (o.arg(0), o.arg(1)) else {
            return Flow::Gone;
        };
        let Some(regex) = self.regex(o, &re.bytes(), false) else {
            return Flow::Gone;
        };
        let Ok(m) = regex.captures(&r.uri) else {
            return Flow::Gone;
        };
        let Some(c) = m else {
            r.caps = Caps::None;
            if raw_rewrite(o) && r.skipped.is_none() {
                r.skipped = Some((
                    format!("`{}` does not match `{}`", text_of(o), show(&r.uri)),
                    o.occ(),
                ));
            }
            return Flow::Go(r);
        };
        let subject = r.uri.clone();
        let raw = r.uri_raw;
        set_caps(
            &mut r,
            regex.capture_table().names(),
            &c,
            subject,
            raw,
            Some(o.occ()),
        );
        if redirects(o) {
            return Flow::Gone;
        }
        let repl = repl.bytes().into_owned();
        let (body, add_args) = match repl.strip_suffix(b"?") {
            Some(b) => (b.to_vec(), false),
            None => (repl, true),
        };
        let (uri, args) = split_args(&body);
        let Some(uri) = self.eval(&uri, &r, o.occ(), false, target) else {
            return Flow::Gone;
        };
        let new_args = match args {
            Some(a) => {
                let Some(mut v) = self.eval(&a, &r, o.occ(), true, target) else {
                    return Flow::Gone;
                };
                if add_args && !r.args.is_empty() {
                    v.bytes.push(b'&');
                    v.bytes.extend_from_slice(&r.args);
                }
                if v.bytes.len() > MAX_TEXT {
                    return Flow::Gone;
                }
                Some(v.bytes)
            }
            None => (!add_args).then(Vec::new),
        };
        if uri.bytes.is_empty() {
            // "the rewritten URI has a zero length": 500.
            return Flow::Gone;
        }
        r.internal = true;
        r.valid_unparsed = false;
        r.uri = uri.bytes;
        r.uri_raw = uri.raw;
        if uri.raw.is_some() {
            r.skipped = None;
        }
        if let Some(a) = new_args {
            r.args = a;
        }
        match o.arg(2).map(|f| f.value().into_owned()).as_deref() {
            Some("break") => {
                r.valid_location = false;
                r.uri_changed = false;
                Flow::Stop(r)
            }
            Some("last") => {
                r.uri_changed = true;
                Flow::Again(r)
            }
            _ => {
                r.uri_changed = true;
                Flow::Go(r)
            }
        }
    }

    fn if_block(
        &mut self,
        o: Directive<'a>,
        r: Req,
        target: &[u8],
        next: &mut Vec<Req>,
        done: &mut Vec<Flow>,
    ) -> Option<()> {
        for (taken, mut r) in self.condition(o, r, target) {
            if !taken {
                if r.skipped.is_none() && phase(o).into_iter().any(raw_rewrite) {
                    let rw = phase(o).into_iter().find(|&c| raw_rewrite(c))?;
                    r.skipped = Some((
                        format!(
                            "`{}` does not run when `{}` is false",
                            text_of(rw),
                            text_of(o)
                        ),
                        rw.occ(),
                    ));
                }
                next.push(r);
                continue;
            }
            // An `if` block with its own content handler answers the request itself.
            if crate::analysis::serving::CONTENT
                .iter()
                .any(|h| o.children(h).next().is_some())
            {
                done.push(Flow::Gone);
                continue;
            }
            for f in self.run(&phase(o), vec![r], target)? {
                match f {
                    Flow::Go(r) => next.push(r),
                    other => done.push(other),
                }
            }
        }
        Some(())
    }

    /// The ways an `if` can go for this request: one when nginx's answer follows from
    /// what is known, both otherwise.
    fn condition(&mut self, o: Directive<'a>, r: Req, target: &[u8]) -> Vec<(bool, Req)> {
        let mut words: Vec<Vec<u8>> = o.args().map(|a| a.bytes().into_owned()).collect();
        if let Some(first) = words.first_mut() {
            if first.first() == Some(&b'(') {
                first.remove(0);
            }
        }
        if let Some(last) = words.last_mut() {
            if last.last() == Some(&b')') {
                last.pop();
            }
        }
        words.retain(|w| !w.is_empty());
        // Whether the test is a positive (`Some(true)`) or negative regex match.
        let mut regex_test: Option<bool> = None;
        let known: Option<(bool, Caps, Vars)> = match words.as_slice() {
            [v] if v.first() == Some(&b'$') => self.eval(v, &r, o.occ(), false, target).map(|v| {
                (
                    !(v.bytes.is_empty() || v.bytes == b"0"),
                    r.caps.clone(),
                    Vec::new(),
                )
            }),
            [v, op, rhs] if op == b"=" || op == b"!=" => {
                match (
                    self.eval(v, &r, o.occ(), false, target),
                    self.eval(rhs, &r, o.occ(), false, target),
                ) {
                    (Some(a), Some(b)) => Some((
                        (a.bytes == b.bytes) == (op == b"="),
                        r.caps.clone(),
                        Vec::new(),
                    )),
                    _ => None,
                }
            }
            [v, op, re] if matches!(op.as_slice(), b"~" | b"~*" | b"!~" | b"!~*") => {
                let positive = op[0] == b'~';
                regex_test = Some(positive);
                let caseless = op.ends_with(b"*");
                let subject = self.eval(v, &r, o.occ(), false, target);
                let regex = self.regex(o, re, caseless);
                match (subject, regex) {
                    (Some(s), Some(regex)) => match regex.captures(&s.bytes) {
                        Ok(Some(c)) => {
                            let mut t = r.clone();
                            set_caps(
                                &mut t,
                                regex.capture_table().names(),
                                &c,
                                s.bytes.clone(),
                                s.raw,
                                Some(o.occ()),
                            );
                            Some((positive, t.caps, t.vars))
                        }
                        Ok(None) => Some((!positive, Caps::None, Vec::new())),
                        Err(_) => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some((taken, caps, vars)) = known {
            let mut r = r;
            r.caps = caps;
            for (n, v) in vars {
                r.set_var(n, v);
            }
            return vec![(taken, r)];
        }
        let remembered = r
            .decisions
            .iter()
            .find(|(x, _)| *x == o.occ())
            .map(|&(_, t)| t);
        let ways: Vec<bool> = match remembered {
            Some(t) => vec![t],
            None => vec![true, false],
        };
        ways.into_iter()
            .map(|taken| {
                let mut r = r.clone();
                if remembered.is_none() {
                    r.decisions.push((o.occ(), taken));
                }
                if let Some(positive) = regex_test {
                    // A match sets captures this model does not know; a failure clears them.
                    r.caps = if taken == positive {
                        Caps::Unknown
                    } else {
                        Caps::None
                    };
                }
                (taken, r)
            })
            .collect()
    }

    /// A script's value for this request (`None`: a variable this model does not know).
    fn eval(&self, text: &[u8], r: &Req, site: OccId, in_args: bool, target: &[u8]) -> Option<Val> {
        let script = Script::parse_value(text);
        if script.error.is_some() {
            return None;
        }
        let mut out = Val::default();
        for p in &script.parts {
            let t = &text[p.value.range()];
            match &p.kind {
                PartKind::Literal => out.bytes.extend_from_slice(t),
                PartKind::Capture(n) => match &r.caps {
                    Caps::None => {}
                    Caps::Unknown => return None,
                    Caps::Known(c) => {
                        if let Some(&Some((a, b))) = c.spans.get(usize::from(*n)) {
                            let piece = &c.subject[a..b];
                            if in_args && r.quoted {
                                let mut esc = Vec::new();
                                escape(piece, true, &mut esc);
                                out.push_uri_text(&esc, c.raw, &format!("${n}"), c.by);
                            } else {
                                out.push_uri_text(piece, c.raw, &format!("${n}"), c.by);
                            }
                        }
                    }
                },
                PartKind::Variable { .. } => {
                    let key = p.kind.key().unwrap_or_default();
                    match key.as_str() {
                        "request_uri" => {
                            out.bytes.extend_from_slice(target);
                            out.raw = out.raw.or(Some(site));
                        }
                        "uri" | "document_uri" => {
                            out.push_uri_text(&r.uri, r.uri_raw, &format!("${key}"), None)
                        }
                        "args" | "query_string" => out.bytes.extend_from_slice(&r.args),
                        "is_args" => {
                            if !r.args.is_empty() {
                                out.bytes.push(b'?');
                            }
                        }
                        _ => match r.var(&key) {
                            Some(Some(v)) => out.push(v.clone()),
                            _ => return None,
                        },
                    }
                }
            }
            // Each part adds at most one bounded text, so checking after each one keeps
            // every value within twice the bound.
            if out.bytes.len() > MAX_TEXT {
                return None;
            }
        }
        Some(out)
    }

    /// What the backend receives for this request: the URI, the rewrite whose raw
    /// `$request_uri` nginx escaped again, and a decoded reference sent as it is.
    fn sent(
        &self,
        value: &[u8],
        r: &Req,
        target: &[u8],
    ) -> Option<(Vec<u8>, Option<OccId>, Option<Decoded>)> {
        let scheme = [&b"http://"[..], b"https://"]
            .into_iter()
            .find(|s| value.len() >= s.len() && value[..s.len()].eq_ignore_ascii_case(s))?;
        let rest = &value[scheme.len()..];
        if rest.len() >= 5 && rest[..5].eq_ignore_ascii_case(b"unix:") {
            return None;
        }
        let site = self.d.occ();
        let mut part: &[u8] = b"";
        if value.contains(&b'$') {
            // nginx evaluates the address, then reads its URI part from the first `/` or
            // `?` after the host.
            let script = Script::parse_value(rest);
            let mut uri: Option<Val> = None;
            for p in &script.parts {
                let t = &rest[p.value.range()];
                if let Some(u) = &mut uri {
                    u.push(self.eval(t, r, site, false, target)?);
                    continue;
                }
                let v = match p.kind {
                    PartKind::Literal => Val {
                        bytes: t.to_vec(),
                        ..Val::default()
                    },
                    // A variable of the host part that this model does not know.
                    _ => match self.eval(t, r, site, false, target) {
                        Some(v) => v,
                        None => continue,
                    },
                };
                if let Some(i) = v.bytes.iter().position(|&b| b == b'/' || b == b'?') {
                    let mut u = Val {
                        bytes: Vec::new(),
                        raw: v.raw,
                        decoded: v.decoded.clone(),
                    };
                    u.bytes.extend_from_slice(&v.bytes[i..]);
                    uri = Some(u);
                }
            }
            if let Some(mut u) = uri {
                if u.bytes.first() == Some(&b'?') {
                    u.bytes.insert(0, b'/');
                }
                if !u.bytes.is_empty() {
                    return Some((u.bytes, None, u.decoded));
                }
            }
        } else if let Some(i) = rest.iter().position(|&b| b == b'/') {
            part = &rest[i..];
        }
        if part.is_empty() && r.valid_unparsed {
            return Some((target.to_vec(), None, None));
        }
        let loc_len = if r.valid_location && !part.is_empty() {
            match location_kind(self.loc)? {
                LocKind::Prefix(p) => p.len(),
                LocKind::Exact(n) => n.len(),
                _ => return None,
            }
        } else {
            0
        };
        let mut out = if r.valid_location {
            part.to_vec()
        } else {
            Vec::new()
        };
        let tail = &r.uri[loc_len.min(r.uri.len())..];
        let escaped = r.quoted || r.internal;
        let mut double = None;
        if escaped {
            let before = out.len();
            escape(tail, false, &mut out);
            if out.len() - before != tail.len() {
                double = r.uri_raw;
            }
        } else {
            out.extend_from_slice(tail);
        }
        if !r.args.is_empty() {
            out.push(b'?');
            out.extend_from_slice(&r.args);
        }
        Some((out, double, None))
    }
}

/// Sets the captures of a regex that matched `subject`, and its named captures.
fn set_caps(
    r: &mut Req,
    names: &[(String, u32)],
    c: &Captures,
    subject: Vec<u8>,
    raw: Option<OccId>,
    by: Option<OccId>,
) {
    for (name, k) in names {
        let mut v = Val::default();
        if let Some((a, b)) = c.get(*k as usize) {
            v.push_uri_text(&subject[a..b], raw, &format!("${name}"), by);
        }
        r.set_var(name.to_ascii_lowercase(), Some(v));
    }
    r.caps = Caps::Known(Rc::new(Capture {
        subject,
        spans: c.as_slice().to_vec(),
        raw,
        by,
    }));
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
