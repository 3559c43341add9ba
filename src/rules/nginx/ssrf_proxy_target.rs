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
//! unless it can hold a `/` that ends the host early. `internal` and named locations are
//! reachable only through nginx itself and are skipped.

use crate::analysis::cursor::Directive;
use crate::analysis::pcre::Regex;
use crate::analysis::variables::{Danger, Part, PartKind, Provenance, Script};
use crate::rules::{Context, Rule};
use crate::stack::model::NginxInstance;

declare_rule! {
    pub struct SsrfProxyTarget;
    code: NGX130,
    name: "ssrf-proxy-target",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
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
        for name in PASSES {
            let found: Vec<Directive<'_>> = cx.nginx_directives(name).collect();
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
                if reachable_only_internally(d) {
                    continue;
                }
                let inst = d.instance();
                if prov.as_ref().is_none_or(|(i, _)| !std::ptr::eq(*i, inst)) {
                    prov = Some((inst, Provenance::new(inst.view())));
                }
                let p = &prov.as_ref().expect("just built").1;
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
                    if dangerous {
                        found_part = Some((part.clone(), a));
                        break;
                    }
                }
                let Some((part, answer)) = found_part else {
                    continue;
                };
                let text = String::from_utf8_lossy(&value[part.value.range()]).into_owned();
                let example = example(d, &script, &value, &part);
                let message = match &example {
                    Some(e) => format!("the client chooses the upstream host: {e}"),
                    None => format!(
                        "the client chooses the host `{name}` connects to, through `{text}`"
                    ),
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
                help.push(
                    "pick the upstream from a fixed list: a `map` whose values are literal \
                     hosts (or `upstream` names), or a capture whose group cannot hold `.` or \
                     `/`; or mark the location `internal`"
                        .into(),
                );
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

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `${HOST}`: an envsubst placeholder of a template, which nginx never sees as written
/// (nginx's own variables are lowercase; it would read it as `$host`).
fn is_template_placeholder(part: &Part) -> bool {
    matches!(&part.kind, PartKind::Variable { name, braced: true }
        if name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'))
}

/// A location only nginx itself enters: `internal`, or a named one (`@x`).
fn reachable_only_internally(d: Directive<'_>) -> bool {
    let Some(loc) = d.enclosing("location") else {
        return false;
    };
    loc.arg(0).is_some_and(|a| a.value().starts_with('@')) || loc.children("internal").count() > 0
}

/// A request that sends the upstream connection to [`EVIL`], and where it goes, for the
/// sources a message can show as a request: `$host`/`$http_host`, a header, a query
/// argument, a cookie, or a capture of the enclosing location's regex.
fn example(d: Directive<'_>, script: &Script, value: &[u8], part: &Part) -> Option<String> {
    let render = |subst: &dyn Fn(&Part) -> Option<String>| -> String {
        let mut out = String::new();
        for p in &script.parts {
            match subst(p) {
                Some(s) => out.push_str(&s),
                None => out.push_str(&String::from_utf8_lossy(&value[p.value.range()])),
            }
        }
        out
    };
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
            } else {
                return capture_example(d, Group::Named(&key), &render);
            };
            // A `proxy_pass` value with no `://` written takes a whole URL from it.
            let whole = d.name() == "proxy_pass"
                && script.parts.first() == Some(part)
                && find(value, b"://").is_none();
            let injected = if whole {
                return Some(format!(
                    "{} reaches a URL of its choice",
                    request.replace(EVIL, &format!("http://{EVIL}/"))
                ));
            } else {
                EVIL.to_string()
            };
            let target = render(&|p| (p == part).then(|| injected.clone()));
            Some(format!("{request} connects to `{target}`"))
        }
        PartKind::Capture(k) => capture_example(d, Group::Number(*k), &render),
        PartKind::Literal => None,
    }
}

/// Writes the target with some parts replaced by what the example puts there.
type Render<'r> = dyn Fn(&dyn Fn(&Part) -> Option<String>) -> String + 'r;

/// A capture group, by number or name.
#[derive(Clone, Copy)]
enum Group<'s> {
    Number(u8),
    Named(&'s str),
}

/// [`example`] for a capture of the enclosing location's regex.
fn capture_example(d: Directive<'_>, group_of: Group<'_>, render: &Render<'_>) -> Option<String> {
    let loc = d.enclosing("location")?;
    let (modifier, pattern) = (loc.arg(0)?, loc.arg(1)?);
    let caseless = match modifier.value().as_ref() {
        "~" => false,
        "~*" => true,
        _ => return None,
    };
    // Only when the location's regex is the last one evaluated before the target.
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
    let prefix = String::from_utf8_lossy(&re.literal_prefix()).into_owned();
    let base = if prefix.starts_with('/') {
        prefix
    } else {
        "/".into()
    };
    for tail in [format!("{EVIL}/x"), EVIL.to_string()] {
        let uri = format!("{base}{tail}");
        let Ok(Some(caps)) = re.captures(uri.as_bytes()) else {
            continue;
        };
        let group = |n: usize| {
            caps.get(n)
                .map(|(s, e)| uri[s..e].to_string())
                .unwrap_or_default()
        };
        if !group(k).contains(EVIL) {
            continue;
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
        if !host.starts_with(EVIL) {
            continue;
        }
        return Some(format!("`GET {uri}` connects to `{target}`"));
    }
    None
}

/// `x_forwarded_host` as the header is written: `X-Forwarded-Host`.
fn header_name(var: &str) -> String {
    var.split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}
