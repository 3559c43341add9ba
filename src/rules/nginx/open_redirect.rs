//! NGX163 open-redirect: a redirect whose target host a link chooses — `return 302
//! https://$arg_host/…`, `return 302 $arg_next`, `rewrite ^ $arg_next redirect`, a capture
//! of the path at the start of the target — sends visitors from the site to any other site
//! (phishing behind a trusted link, OAuth codes carried to the attacker's page).
//!
//! Read: `return 301|302|303|307|308 target`, `return URL` (an implicit 302: nginx takes
//! one argument starting with `http://`, `https://` or `$scheme` as a URL), and a
//! redirecting `rewrite` (analysis::rewrite_redirect). The part of the target that decides
//! the host (analysis::upstream_host: after a written `://`, or a variable the target
//! starts with) is asked of the variables analysis (`Danger::Host`): `$arg_*`, captures of
//! the path or `$request_uri`, and `set`/`map` copies of these carry a host; a `map` of
//! literal targets or a capture that cannot hold a `.` do not. Hosts from request headers
//! (`$host`, `$http_x_forwarded_host`) are left out: a link cannot set them.
//!
//! A target that starts with `/` is made absolute by nginx with its own scheme and host
//! (`absolute_redirect`, on by default): `$request_uri` first, or a capture that opens a
//! start-anchored pattern, is safe then. With `absolute_redirect off` it is sent as it is,
//! and `GET //evil.example` gets the scheme-relative `Location: //evil.example`: reported.
//! A capture that can start elsewhere and hold `:` gives `http:/evil.example` (the path
//! merged the `//`), which browsers read as a new host.

use crate::analysis::cursor::Directive;
use crate::analysis::pcre::{Possible, Regex, Target};
use crate::analysis::rewrite_redirect;
use crate::analysis::upstream_host::host_parts;
use crate::analysis::variables::{Danger, Part, PartKind, Provenance};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct OpenRedirect;
    code: NGX163,
    name: "open-redirect",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

const CODES: [&str; 5] = ["301", "302", "303", "307", "308"];

impl Rule for OpenRedirect {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let mut prov: Option<Provenance<'_>> = None;
            let returns = crate::analysis::cursor::named(inst, "return");
            let rewrites = crate::analysis::cursor::named(inst, "rewrite");
            for d in returns.chain(rewrites) {
                let Some(target) = target(d) else { continue };
                if !target.bytes().contains(&b'$') {
                    continue;
                }
                let p = prov.get_or_insert_with(|| cx.provenance(inst));
                if let Some(found) = chosen_host(d, target, p) {
                    report(cx, d, target, &found);
                }
            }
        }
    }
}

/// The redirect target of a `return` or `rewrite`, when it redirects.
fn target(d: Directive<'_>) -> Option<crate::analysis::cursor::Word<'_>> {
    match d.name() {
        "return" => {
            let first = d.arg(0)?;
            if d.args().len() == 1 {
                let v = first.bytes();
                let url = [&b"http://"[..], b"https://", b"$scheme"]
                    .iter()
                    .any(|p| v.starts_with(p));
                return url.then_some(first);
            }
            CODES.iter().any(|c| first.is(c)).then(|| d.arg(1))?
        }
        "rewrite" if rewrite_redirect::redirects(d) => d.arg(1),
        _ => None,
    }
}

/// How the client picks the host.
struct Chosen {
    /// The part of the target, as written (`$arg_next`).
    text: String,
    /// What a client sends for it, when it can be said simply.
    example: Option<String>,
    /// The variables analysis' reason, one line per step.
    why: Vec<String>,
    /// A `/`-leading value sent as it is under `absolute_redirect off`.
    scheme_relative: bool,
    /// The request header (`X-Forwarded-Host`) a permanent redirect takes its host from.
    unkeyed_header: Option<String>,
}

fn chosen_host(
    d: Directive<'_>,
    target: crate::analysis::cursor::Word<'_>,
    p: &Provenance<'_>,
) -> Option<Chosen> {
    let value = target.bytes();
    let script = target.variables();
    if let Some(first) = script.parts.first() {
        if let Some(c) = scheme_relative(d, first, &value) {
            return Some(c);
        }
    }
    let host = host_parts(&script, &value)?;
    let mut poisoned = None;
    for (part, a) in host.client_chosen(p, d) {
        if let Some(name) = from_header(&a) {
            if poisoned.is_none() && permanent(d) {
                poisoned = unkeyed(&name).map(|header| Chosen {
                    text: String::from_utf8_lossy(&value[part.value.range()]).into_owned(),
                    example: Some(format!("`{header}: evil.example`")),
                    why: Vec::new(),
                    scheme_relative: false,
                    unkeyed_header: Some(header),
                });
            }
            continue;
        }
        let whole_url = part.value.start == 0;
        if whole_url && !url_start(d, part) {
            continue;
        }
        if !whole_url && !host_start(&value, part) {
            continue;
        }
        let text = String::from_utf8_lossy(&value[part.value.range()]).into_owned();
        let example = match part.kind {
            PartKind::Capture(k) => capture_example(d, k, whole_url),
            _ => example(part, whole_url, host.suffixed),
        };
        return Some(Chosen {
            example,
            text,
            why: a.explain(Danger::Host),
            scheme_relative: false,
            unkeyed_header: None,
        });
    }
    poisoned
}

/// Whether `d` redirects permanently (`return 301|308`, `rewrite … permanent`): a response
/// shared caches store without being told to (RFC 9111 §4.2.2: 301 and 308 are
/// heuristically cacheable; 302, 303 and 307 are not).
fn permanent(d: Directive<'_>) -> bool {
    match d.name() {
        "return" => d.arg(0).is_some_and(|c| c.is("301") || c.is("308")),
        "rewrite" => d.args().last().is_some_and(|f| f.is("permanent")),
        _ => false,
    }
}

/// The header a cache does not key on, as a client writes it (`X-Forwarded-Host`), for the
/// variable `http_x_forwarded_host`; `None` for `Host` (caches key on it) and non-headers.
fn unkeyed(variable: &str) -> Option<String> {
    let field = variable.strip_prefix("http_")?;
    if field == "host" {
        return None;
    }
    Some(header_name(field))
}

/// A header as a client writes it (`X-Forwarded-Host`) from its variable's field name
/// (`x_forwarded_host`).
fn header_name(field: &str) -> String {
    field
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// Whether the client's bytes come from a request header (`Host`, `X-Forwarded-Host`, a
/// cookie): the end of the variables analysis' chain names the variable read. A link on
/// another site cannot set a visitor's headers (the browser sends the link's own host as
/// `Host`), so such a redirect moves only the client that forged the header: what it
/// harms is a shared cache (web cache poisoning) or an application that trusts the header
/// (NGX134), not a visitor who follows a link. Returns the variable read (`http_x_forwarded_host`).
fn from_header(a: &crate::analysis::variables::Answer) -> Option<String> {
    let leaf = a.why(Danger::Host).and_then(<[_]>::last)?;
    let mut text = leaf.file.text.get(leaf.span.range()).unwrap_or_default();
    // A capture's chain ends at the `if` whose regex captured it: the variable it tests
    // follows (`if ($host ~* ^www\.(.*)$)`).
    if text == b"if" {
        let rest = leaf
            .file
            .text
            .get(leaf.span.end as usize..)
            .unwrap_or_default();
        let start = rest
            .iter()
            .position(|b| !b.is_ascii_whitespace() && *b != b'(')
            .unwrap_or(rest.len());
        text = &rest[start..];
    }
    let name = String::from_utf8_lossy(&text[..text.len().min(64)]).to_ascii_lowercase();
    let name = name.trim_start_matches('$').trim_start_matches('{');
    let name: String = name
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .map(char::from)
        .collect();
    (name.starts_with("http_")
        || name.starts_with("cookie_")
        || name.starts_with("host")
        || name.starts_with("ssl_server_name"))
    .then_some(name)
}

/// Variables whose value is one field of the request as the client wrote it: any byte
/// the field allows can start them (`@evil.example`, `https://evil.example`).
fn raw_field(part: &Part) -> bool {
    part.kind.key().is_some_and(|k| {
        k.starts_with("arg_")
            || k.starts_with("http_")
            || k.starts_with("cookie_")
            || matches!(k.as_str(), "args" | "query_string")
    })
}

/// Whether a host part that follows written text (`https://app.example$x`) can still move
/// the host: a raw request field can start with `@` (`https://app.example@evil.example/`
/// makes the written name a user name). Other values (a capture of the path, `$host`) add
/// to the written name, which the site's owner controls.
fn host_start(value: &[u8], part: &Part) -> bool {
    let before = &value[..part.value.start as usize];
    let host_begins = before.ends_with(b"://");
    host_begins || raw_field(part)
}

/// Whether a target that starts with `part` can start with a URL of another host. A `/`
/// at the start is safe while `absolute_redirect` is on (nginx puts its own scheme and
/// host before it), so a capture is reported only when its group can start elsewhere and
/// hold a `:` (`http:/evil.example` from `^/cgi-bin(.*)$`: the merged slash does not stop
/// a browser, which reads `http:` followed by any slashes as a new host): not one that
/// opens a start-anchored pattern (`^(.*)$` on the path begins with its `/`).
fn url_start(d: Directive<'_>, part: &Part) -> bool {
    let PartKind::Capture(k) = part.kind else {
        return true;
    };
    let Some((pattern, caseless)) = capture_regex(d) else {
        return false;
    };
    if k == 1 && pattern.starts_with("^(") && !pattern.starts_with("^(?") {
        return false;
    }
    Regex::parse(&pattern, caseless)
        .is_ok_and(|re| re.can_contain(Target::Group(u32::from(k)), b':') == Possible::Maybe)
}

/// The regex whose captures a `rewrite` or `return` reads, when it matches the path: the
/// `rewrite`'s own; for a `return`, an enclosing `if ($uri ~ …)` or regex location.
fn capture_regex(d: Directive<'_>) -> Option<(String, bool)> {
    if d.name() == "rewrite" {
        return Some((d.arg(0)?.value().into_owned(), false));
    }
    let parent = d.parent()?;
    if parent.name() == "if" {
        let subject = parent.arg(0)?.value();
        let subject = subject.trim_start_matches('(');
        if !matches!(subject, "$uri" | "$document_uri" | "$request_uri") {
            return None;
        }
        let op = parent.arg(1)?.value();
        let pattern = parent.arg(2)?.value();
        let pattern = pattern.strip_suffix(')').unwrap_or(&pattern).to_string();
        return match &*op {
            "~" => Some((pattern, false)),
            "~*" => Some((pattern, true)),
            _ => None,
        };
    }
    let loc = d.enclosing("location")?;
    match &*loc.arg(0)?.value() {
        "~" => Some((loc.arg(1)?.value().into_owned(), false)),
        "~*" => Some((loc.arg(1)?.value().into_owned(), true)),
        _ => None,
    }
}

/// `$request_uri` (or `$uri` with slashes kept) at the start of the target, where
/// `absolute_redirect off` sends the `Location` as it is: `GET //evil.example`.
fn scheme_relative(d: Directive<'_>, first: &Part, value: &[u8]) -> Option<Chosen> {
    let name = first.kind.key()?;
    if first.value.start != 0 {
        return None;
    }
    let slashes_kept = match name.as_str() {
        "request_uri" => true,
        "uri" | "document_uri" => crate::analysis::locations::default_server::written_off(d),
        _ => false,
    };
    let absolute_off = d
        .effective("absolute_redirect")
        .last()
        .and_then(|a| a.arg(0))
        .is_some_and(|a| a.is("off"));
    if !slashes_kept || !absolute_off {
        return None;
    }
    Some(Chosen {
        text: String::from_utf8_lossy(&value[first.value.range()]).into_owned(),
        example: Some("`GET //evil.example` gets `Location: //evil.example`".to_string()),
        why: Vec::new(),
        scheme_relative: true,
        unkeyed_header: None,
    })
}

/// The request whose capture `k` carries the host: the regex's sample with the group
/// holding `evil.example` (or, at the start of the target, `http:/evil.example`: the path
/// merges `//`, and browsers read `http:` and any slashes as the start of a new host).
fn capture_example(d: Directive<'_>, k: u8, whole_url: bool) -> Option<String> {
    let (pattern, caseless) = capture_regex(d)?;
    let re = Regex::parse(&pattern, caseless).ok()?;
    let text: &[u8] = if whole_url {
        b"http:/evil.example"
    } else {
        b"evil.example"
    };
    let uri = re.sample_with(&[(u32::from(k), text.to_vec())])?;
    let confirmed = re
        .captures(&uri)
        .ok()
        .flatten()
        .and_then(|c| c.get(usize::from(k)))
        .is_some_and(|(a, b)| &uri[a..b] == text);
    (confirmed && uri.starts_with(b"/")).then(|| format!("`GET {}`", String::from_utf8_lossy(&uri)))
}

/// What a client sends to choose the host through `part`, for the variables whose source
/// is one field of the request.
/// Before a written domain (`$arg_tenant.app.example`) the value ends the host with a `/`.
fn example(part: &Part, whole_url: bool, suffixed: bool) -> Option<String> {
    let name = part.kind.key()?;
    let value = match (whole_url, suffixed) {
        (true, _) => "https://evil.example",
        (false, true) => "evil.example/",
        (false, false) => "evil.example",
    };
    if let Some(arg) = name.strip_prefix("arg_") {
        return Some(format!("`?{arg}={value}`"));
    }
    if let Some(cookie) = name.strip_prefix("cookie_") {
        return Some(format!("`Cookie: {cookie}={value}`"));
    }
    let header = match name.as_str() {
        "host" | "http_host" => "host".to_string(),
        h => h.strip_prefix("http_")?.to_string(),
    };
    Some(format!("`{}: {value}`", header_name(&header)))
}

fn report(
    cx: &mut Context<'_>,
    d: Directive<'_>,
    target: crate::analysis::cursor::Word<'_>,
    c: &Chosen,
) {
    let shown = String::from_utf8_lossy(&target.bytes()).into_owned();
    let whom = if shown == c.text {
        format!("the client chooses the whole target `{shown}`")
    } else {
        format!(
            "the client chooses the host of `{shown}` through `{}`",
            c.text
        )
    };
    let message = if let Some(header) = &c.unkeyed_header {
        format!(
            "cache poisoning: the host of this permanent redirect `{shown}` comes from the \
             `{header}` request header, which any client sends (a request with `{header}: \
             evil.example` is redirected there); a cache in front (a CDN, Varnish, a \
             `proxy_cache`) stores a 301/308 under its URL without that header and then sends \
             every visitor to that host. Without such a cache only the sender is redirected"
        )
    } else if c.scheme_relative {
        format!(
            "open redirect: the target `{shown}` starts with `{}` and `absolute_redirect off` \
             sends it as it is, so {}, a link to another host",
            c.text,
            c.example.as_deref().unwrap_or_default()
        )
    } else {
        match &c.example {
            Some(e) => format!("open redirect: {whom} (a request with {e} is sent there)"),
            None => format!("open redirect: {whom}"),
        }
    };
    let diag = cx.report(d.file(), d.span(), message);
    diag.label(target.file().clone(), target.raw(), "the redirect target");
    let mut help: Vec<String> = c.why.clone();
    help.push(if c.unkeyed_header.is_some() {
        "redirect to a fixed host or to `$host` (the request's own `Host`, which caches key \
         on); if a proxy in front sets the header, make it overwrite what the client sent"
            .to_string()
    } else if c.scheme_relative {
        "leave `absolute_redirect` on (the default: nginx then puts its own scheme and host \
         before a `/`-leading target), or redirect to a fixed host"
            .to_string()
    } else {
        "redirect to a fixed host, or pick the target from a `map` whose values are the \
         allowed URLs (with a fixed `default`)"
            .to_string()
    });
    diag.help = Some(help.join("\n"));
}
