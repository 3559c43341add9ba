//! NGX131 host-header-spoofing: the `Host` (or `X-Forwarded-Host`) sent upstream is a value
//! the client chose. `proxy_set_header Host $http_host` forwards the `Host` header exactly
//! as the client wrote it — any value nginx's syntax check lets through, with any port, and
//! nothing at all from an HTTP/1.0 client — where `$host` (the validated, lowercased name,
//! else the server's name) is what the backend should build its links, redirects and
//! password-reset mails from. `$http_x_forwarded_host`, any other request header
//! (`$http_x_real_host`), a query argument (`$arg_host`) or a cookie (`$cookie_host`) sent
//! as `Host` or `X-Forwarded-Host` passes a value the client invents outright, and so does a
//! `set` or `map` variable (or a regex capture) that copies one of those: the variables
//! analysis (analysis::variables) says where a value comes from. `$host`, `$server_name`,
//! `$ssl_server_name`, `$proxy_host`, literal names and a `map` whose values are fixed names
//! are left alone; `$http_host` is the validated `Host` header, fine as `X-Forwarded-Host`.
//!
//! As in NGX130, a client's value followed by a written name suffix (`$1.tenants.internal`)
//! is confined to it unless it can hold a `/` that ends the host early.
//!
//! Only a value some proxied request is sent with counts: a location with its own list does
//! not inherit the server's ([`reaches_a_pass`]). On a server that answers every name,
//! `$host` is as client-chosen as `$http_host`: Info, no fix.
//!
//! The directive's header name and value are read as nginx reads them (quotes, escapes,
//! `${name}`, variable names without case).

use crate::analysis::cursor::Directive;
use crate::analysis::variables::builtin::header_name;
use crate::analysis::variables::builtin::{self, Origin};
use crate::analysis::variables::{Answer, Danger, Part, PartKind, Provenance, Script, Step};
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::stack::ids::NginxId;

declare_rule! {
    pub struct HostHeaderSpoofing;
    code: NGX131,
    name: "host-header-spoofing",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

/// The directives that set a request header toward the upstream.
const SETTERS: [&str; 2] = ["proxy_set_header", "grpc_set_header"];

/// Where a value's host comes from, as far as this rule cares.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Source {
    /// Validated by nginx, or chosen by it: `$host`, `$ssl_server_name`, `$server_name`.
    Trusted,
    /// The client's `Host` header as sent (`$http_host`): validated, but raw.
    RawHost,
    /// A value the client writes freely: a header (`http_x_forwarded_host`), a query
    /// argument, a cookie, the URI. The built-in variable's name.
    Client(String),
}

impl Rule for HostHeaderSpoofing {
    fn check(&self, cx: &mut Context<'_>) {
        // One provenance index per configuration, built only when a value holds a
        // variable that is not a built-in one.
        let mut prov: Option<(NginxId, Provenance<'_>)> = None;
        for name in SETTERS {
            let found: Vec<Directive<'_>> = cx.nginx_directives(name).collect();
            for d in found {
                let (Some(header), Some(value)) = (d.arg(0), d.arg(1)) else {
                    continue;
                };
                let header_name = header.value().to_ascii_lowercase();
                let is_host = header_name == "host";
                if !is_host && header_name != "x-forwarded-host" {
                    continue;
                }
                let text = value.bytes();
                if !text.contains(&b'$') {
                    continue;
                }
                // A value no proxied request is sent with (every proxying location below
                // sets its own list, which replaces this one) puts nothing upstream. Asked
                // last: it walks the blocks below.
                if !reaches_a_pass(d) {
                    continue;
                }
                let script = value.variables();
                let shown = header.value().into_owned();
                for part in script.references() {
                    let direct = direct_source(part);
                    let (source, answer) = match direct {
                        Some(s) => (s, None),
                        None => {
                            let inst = d.instance();
                            if prov.as_ref().is_none_or(|(i, _)| *i != inst.id) {
                                prov = Some((inst.id, cx.provenance(inst)));
                            }
                            let p = &prov.as_ref().expect("just built").1;
                            let one = Script {
                                parts: vec![part.clone()],
                                error: None,
                            };
                            let a = p.script(d.occ(), d.file(), &one);
                            let Some((source, danger)) = traced_source(&a, is_host) else {
                                continue;
                            };
                            // A written name suffix confines what cannot end the host early.
                            if suffixed(&script, &text, part) && !a.can(Danger::Slash) {
                                continue;
                            }
                            (source, Some((a, danger)))
                        }
                    };
                    match &source {
                        Source::Trusted => continue,
                        Source::RawHost if !is_host => continue,
                        _ => {}
                    }
                    let traced = answer.as_ref().map(|(a, danger)| (a, *danger));
                    // The value with the client's text in place of the part (a `/` after it
                    // where a written suffix follows, which it ends early).
                    let injected = if suffixed(&script, &text, part) {
                        format!("{EVIL}/")
                    } else {
                        EVIL.to_string()
                    };
                    let sent: String = script
                        .parts
                        .iter()
                        .map(|p| {
                            if p == part {
                                injected.clone()
                            } else {
                                String::from_utf8_lossy(&text[p.value.range()]).into_owned()
                            }
                        })
                        .collect();
                    let header = Header {
                        shown: &shown,
                        is_host,
                        injected: &injected,
                        sent: &sent,
                    };
                    report(cx, d, part, &header, &source, traced);
                }
            }
        }
    }
}

/// The source of a built-in variable written directly; `None` for a variable the
/// configuration defines (or a capture), which the provenance analysis answers.
fn direct_source(part: &Part) -> Option<Source> {
    let key = part.kind.key()?;
    let b = builtin::lookup(&key)?;
    Some(match classify(&key, b) {
        // Written whole, a value that cannot hold a host name is no host (`$uri`).
        Source::Client(_) if !b.dangers.has(Danger::Host) => Source::Trusted,
        s => s,
    })
}

/// Where a built-in variable's value comes from, for this rule.
fn classify(key: &str, b: &builtin::Builtin) -> Source {
    if key == "http_host" {
        return Source::RawHost;
    }
    // The PROXY protocol's addresses come from the load balancer in front, not from the
    // client's request; `$host` and `$ssl_server_name` are validated names.
    let trusted = matches!(
        b.origin,
        Origin::Server | Origin::Upstream | Origin::Validated
    ) || key.starts_with("proxy_")
        || matches!(
            key,
            "host" | "remote_addr" | "binary_remote_addr" | "document_root" | "realpath_root"
        );
    if trusted {
        Source::Trusted
    } else {
        Source::Client(key.to_string())
    }
}

/// The source of the first chain that gives the value a host of the client's choosing,
/// and which danger's chain it is: the host's own chain, else the `..` chain (which only
/// free text has; `$host` never holds one). `None` when the value carries no host at all.
fn traced_source(a: &Answer, is_host: bool) -> Option<(Source, Danger)> {
    if !a.can(Danger::Host) {
        return None;
    }
    let mut best = None;
    for d in [Danger::Host, Danger::DotDot] {
        let Some(leaf) = a.why(d).and_then(<[Step]>::last) else {
            continue;
        };
        let Some(name) = leaf_variable(leaf) else {
            continue;
        };
        let Some(b) = builtin::lookup(&name) else {
            continue;
        };
        match classify(&name, b) {
            Source::Trusted => {}
            Source::RawHost if !is_host => {}
            Source::RawHost => {
                best.get_or_insert((Source::RawHost, d));
            }
            s @ Source::Client(_) => return Some((s, d)),
        }
    }
    best.or(Some((Source::Trusted, Danger::Host)))
}

/// The built-in variable a chain ends at: its last step says "`$name` is …".
fn leaf_variable(leaf: &Step) -> Option<String> {
    let rest = leaf.note.strip_prefix("`$")?;
    let (name, tail) = rest.split_once('`')?;
    tail.starts_with(" is ").then(|| name.to_ascii_lowercase())
}

/// Whether a written name (not a port) follows `part` in the value: `$1.tenants.internal`.
fn suffixed(script: &Script, value: &[u8], part: &Part) -> bool {
    let after = &value[part.value.end as usize..];
    let next_var = script
        .references()
        .find(|p| p.value.start >= part.value.end)
        .map_or(after.len(), |p| (p.value.start - part.value.end) as usize);
    let tail = &after[..next_var];
    !tail.is_empty() && tail[0] != b':'
}

/// The client's value, as a message names it.
fn describe(key: &str) -> String {
    if let Some(h) = key.strip_prefix("http_") {
        format!("the client's own `{}` header", header_name(h))
    } else if let Some(a) = key.strip_prefix("arg_") {
        format!("the client's `{a}` query argument (`?{a}=`)")
    } else if let Some(c) = key.strip_prefix("cookie_") {
        format!("the client's `{c}` cookie")
    } else if matches!(key, "args" | "query_string") {
        "the client's query string".into()
    } else if key == "request_uri" {
        "the client's request URI".into()
    } else if matches!(key, "uri" | "document_uri") {
        "the client's request path".into()
    } else {
        format!("`${key}`, which the client sends")
    }
}

/// The host a finding's example puts where the client chooses.
const EVIL: &str = "evil.example";

/// A request that puts `text` into a directly written variable.
fn request(key: &str, text: &str) -> Option<String> {
    if let Some(h) = key.strip_prefix("http_") {
        Some(format!("a request with `{}: {text}`", header_name(h)))
    } else if let Some(a) = key.strip_prefix("arg_") {
        Some(format!("a request for `?{a}={text}`"))
    } else {
        key.strip_prefix("cookie_")
            .map(|c| format!("a request with `Cookie: {c}={text}`"))
    }
}

/// The header a finding is about, and what the example sends in it.
struct Header<'h> {
    /// Its name as written.
    shown: &'h str,
    is_host: bool,
    /// What the example puts where the client chooses.
    injected: &'h str,
    /// The value sent with that in place.
    sent: &'h str,
}

fn report(
    cx: &mut Context<'_>,
    d: Directive<'_>,
    part: &Part,
    header: &Header<'_>,
    source: &Source,
    answer: Option<(&Answer, Danger)>,
) {
    let (shown, is_host) = (header.shown, header.is_host);
    let file = d.file().clone();
    let key = part.kind.key();
    let through = match (answer, &part.kind) {
        (None, _) => None,
        (Some(_), PartKind::Variable { .. }) => key.clone().map(|k| format!("`${k}`")),
        (Some(_), PartKind::Capture(n)) => Some(format!("`${n}`")),
        (Some(_), PartKind::Literal) => None,
    };
    let (message, help, fix) = match (source, through) {
        (Source::RawHost, None) => (
            format!(
                "`{shown}` is sent as the client wrote it: `$http_host` is the raw `Host` \
                 header (any port, empty from HTTP/1.0 clients)"
            ),
            "use `$host`: the validated host name, or the server's name when the request has \
             none (it drops the port; write `$host:$server_port` if the backend needs it)"
                .to_string(),
            true,
        ),
        (Source::RawHost, Some(via)) => (
            format!(
                "`{shown}` is sent as the client wrote it: {via} holds the raw `Host` header \
                 (any port, empty from HTTP/1.0 clients)"
            ),
            "use `$host`: the validated host name, or the server's name when the request has \
             none"
                .to_string(),
            false,
        ),
        (Source::Client(k), None) if k == "http_x_forwarded_host" => (
            format!(
                "`{shown}` is taken from the client's own `X-Forwarded-Host` header, which any \
                 client can send with any value"
            ),
            "use `$host`; forward a client's `X-Forwarded-Host` only from a trusted proxy \
             (check `$remote_addr`, or map it from a list)"
                .to_string(),
            is_host,
        ),
        (Source::Client(k), None) => {
            let what = describe(k);
            let example = request(k, header.injected)
                .map(|r| format!(": {r} sends `{shown}: {}` upstream", header.sent))
                .unwrap_or_default();
            (
                format!(
                    "`{shown}` is taken from {what}, which any client can set to any host{example}"
                ),
                "send `$host` (the host nginx validated), a fixed name, or a `map` of the \
                 client's value to the names you allow"
                    .to_string(),
                false,
            )
        }
        (Source::Client(k), Some(via)) => (
            format!("`{shown}` is taken from {}, through {via}", describe(k)),
            "send `$host` (the host nginx validated), a fixed name, or a `map` whose values \
             are the names you allow"
                .to_string(),
            false,
        ),
        (Source::Trusted, _) => return,
    };
    // Each link of the chain is labelled where it is written but the last, which the help
    // names; links in other files are named in the help too.
    let mut lines = Vec::new();
    let mut labels = Vec::new();
    if let Some((a, danger)) = answer {
        let chain = a.why(danger).unwrap_or_default();
        let explained = a.explain(danger);
        if let Some((leaf, links)) = chain.split_last() {
            lines.push(leaf.note.clone());
            for (step, line) in links.iter().zip(&explained) {
                if !std::sync::Arc::ptr_eq(&step.file, &file) {
                    lines.push(line.clone());
                } else if step.span != part.span {
                    labels.push((step.span, step.note.clone()));
                }
            }
        }
    }
    // On a server that answers every name (no `server_name`, or only `_`/`""`), `$host` is
    // the client's choice as well: what is raw is only the port and the case. Info, and no
    // fix that would not change that.
    let catch_all =
        *source == Source::RawHost && d.enclosing("server").is_some_and(answers_any_name);
    let (message, help, fix) = if catch_all {
        (
            format!(
                "{message}; but this server answers every host name (it has no `server_name`), \
                 so `$host` would be the client's choice too"
            ),
            "the backend must check the host it is given; or give this server its names \
             (`server_name example.com;`), answer other hosts with a catch-all \
             (`server_name _; return 444;`) and send `$host`"
                .to_string(),
            false,
        )
    } else {
        (message, help, fix)
    };
    lines.push(help);
    // `${http_host}x` keeps its meaning only with the braces kept.
    let braced = matches!(part.kind, PartKind::Variable { braced: true, .. });
    let with = if braced { "${host}" } else { "$host" };
    // One finding per place: a snippet included in several servers, where a variable of
    // the same name may come from different sources, is reported as first met.
    if !cx.claim(&file, part.span) {
        return;
    }
    let diag = cx.report(&file, part.span, message);
    if catch_all {
        diag.severity = crate::diagnostic::Severity::Info;
    }
    for (span, note) in labels {
        diag.label(file.clone(), span, note);
    }
    diag.help = Some(lines.join("\n"));
    if fix {
        // Unsafe: `$host` has no port and is lowercased, which a backend building absolute
        // URLs may notice.
        diag.fix = Some(Fix::unsafe_(
            "Send `$host` instead",
            vec![Edit::replace(&file, part.span, with)],
        ));
    }
}

/// Whether `server` answers requests for any host name: it has no `server_name`, or only the
/// placeholders `_` and `""` (which match no real name; such a server gets the names no other
/// server claims when it is the default, and nginx's default server name is `""`).
fn answers_any_name(server: Directive<'_>) -> bool {
    server
        .children("server_name")
        .flat_map(|d| d.args().map(|a| a.value().into_owned()).collect::<Vec<_>>())
        .all(|n| n.is_empty() || n == "_")
}

/// Whether a `proxy_set_header` (`grpc_set_header`) can be what a request is proxied with:
/// a `proxy_pass` (`grpc_pass`) in its block or below, with no block in between that sets
/// its own list (nginx inherits these lists only into a level that sets none). An `include`
/// below that read nothing may hold such a pass; a snippet read alone is not known.
fn reaches_a_pass(d: Directive<'_>) -> bool {
    let (setter, pass) = if d.name() == "grpc_set_header" {
        ("grpc_set_header", "grpc_pass")
    } else {
        ("proxy_set_header", "proxy_pass")
    };
    let Some(block) = d.parent() else {
        return true;
    };
    fn walk(block: Directive<'_>, setter: &str, pass: &str, depth: usize) -> bool {
        // nginx caps nesting long before this.
        if depth > 64 || block.has_unread_include() {
            return true;
        }
        block.all_children().any(|c| {
            c.name() == pass
                || (c.has_block()
                    && c.children(setter).next().is_none()
                    && walk(c, setter, pass, depth + 1))
        })
    }
    walk(block, setter, pass, 0)
}
