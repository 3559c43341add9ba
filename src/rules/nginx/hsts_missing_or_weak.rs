//! NGX117 hsts-missing-or-weak: a TLS server that serves content without a
//! `Strict-Transport-Security` header (warning), or one whose HSTS is weak (information): a
//! `max-age` under six months, or set without `always`, so error responses lack it.
//!
//! Without HSTS a browser that is sent (or types) `http://` makes a plain-text request first,
//! which an attacker on the path answers (SSL stripping, RFC 6797 §2.3). The header counts
//! wherever nginx sends it from for the server: the server's own `add_header` list as nginx
//! merges it (analysis::header_lists, `add_header_inherit` included), headers-more's
//! `more_set_headers` at any level above, or any location or `if` inside the server (a
//! browser needs to see it once). Servers that only redirect or refuse
//! (analysis::https_servers) and `ssl_reject_handshake` catch-alls serve nothing to protect.
//! A server with no site name (`_`, `localhost`, an address) is reported at info: HSTS
//! belongs where the site's name is answered.
//!
//! A header lost in a location by inheritance is NGX116's finding (it names the lost
//! headers and where they are set); this rule does not repeat it.

use crate::analysis::cursor::Directive;
use crate::analysis::header_lists::{
    more_set_anywhere_above, more_set_header_names, sent, unread_includes, Level,
};
use crate::analysis::https_servers::{
    answer, is_http_server, names, rejects_handshakes, tls_listen, Answer,
};
use crate::diagnostic::Severity;
use crate::fix::Fix;
use crate::rules::{Context, Rule};
use crate::source::{FileId, Span};
use crate::stack::ids::{NginxId, ServerId};
use std::collections::{HashMap, HashSet};

declare_rule! {
    pub struct HstsMissingOrWeak;
    code: NGX117,
    name: "hsts-missing-or-weak",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Sometimes,
    group: Hardening,
}

const HSTS: &str = "strict-transport-security";
/// Six months: 180 days, the value guides write for "six months" (15552000; the
/// 182.5-day 15768000 would flag them for five days).
const MIN_AGE: u64 = 15_552_000;
const SUGGESTED: &str =
    "add_header Strict-Transport-Security \"max-age=63072000; includeSubDomains\" always;";

type Key = ServerId;

fn key(d: Directive<'_>) -> Key {
    d.server_id()
}

impl Rule for HstsMissingOrWeak {
    fn check(&self, cx: &mut Context<'_>) {
        // Servers that send HSTS from somewhere inside them, and the add_header ones to judge.
        let mut inside: HashSet<Key> = HashSet::new();
        let mut written: Vec<Directive<'_>> = Vec::new();
        for d in cx.nginx_directives("add_header") {
            if d.arg(0).is_some_and(|a| a.is(HSTS)) {
                if let Some(s) = d.enclosing("server") {
                    inside.insert(key(s));
                }
                written.push(d);
            }
        }
        for d in cx.nginx_directives("more_set_headers") {
            if more_set_header_names(d)
                .iter()
                .any(|n| n.eq_ignore_ascii_case(HSTS))
            {
                if let Some(s) = d.enclosing("server") {
                    inside.insert(key(s));
                }
            }
        }
        let servers: Vec<Directive<'_>> = cx.nginx_directives("server").collect();
        let mut unread: HashMap<NginxId, HashSet<(FileId, Span)>> = HashMap::new();
        for server in servers {
            if !is_http_server(server) || inside.contains(&key(server)) {
                continue;
            }
            let Some(listen) = tls_listen(server) else {
                continue;
            };
            if rejects_handshakes(server) || answer(server) != Answer::Content {
                continue;
            }
            let level = Level::of(server);
            let list = sent(level, "add_header", "add_header_inherit");
            if list.iter().any(|d| d.arg(0).is_some_and(|a| a.is(HSTS)))
                || more_set_anywhere_above(level, HSTS)
                // `security_headers on` (ngx_security_headers) sends HSTS on TLS itself.
                || crate::analysis::header_relevance::module_sends(server, HSTS)
                || unread_include_above(
                    server,
                    unread
                        .entry(server.instance().id)
                        .or_insert_with(|| unread_includes(server.instance())),
                )
            {
                continue;
            }
            let server_names = names(server);
            let who = server_names.first().map_or_else(
                || "this TLS server".to_string(),
                |(_, n)| format!("TLS server `{n}`"),
            );
            // A server whose written names say it is no site (the catch-all `_`,
            // `localhost`, an address) answers whatever name a client used: HSTS there would
            // pin every such name (browsers ignore it for addresses, RFC 6797 §8.1), and such
            // servers usually carry an image's self-signed certificate, whose warning HSTS
            // makes impossible to click through. The site's own server is where it belongs.
            // A server with no `server_name` at all is an unnamed site, still judged.
            let nameless = server.children("server_name").next().is_some()
                && server_names.iter().all(|(_, n)| !is_site_name(n));
            let fix = add_fix(server, &list).filter(|_| !nameless);
            let message = if nameless {
                format!("{who} serves content without a `Strict-Transport-Security` header; it has no site name of its own, so HSTS belongs on the server (or the proxy in front) that answers the site's name")
            } else {
                format!("{who} serves content without a `Strict-Transport-Security` header")
            };
            let f = cx.report(listen.file(), listen.span(), message);
            if nameless {
                f.severity = Severity::Info;
                f.help = Some(
                    "give the site its own server (`server_name example.com;`) with HSTS, and keep this one for unknown names (`return 444;`)"
                        .to_string(),
                );
            } else {
                f.help = Some(format!(
                    "without HSTS a browser's first `http://` request can be intercepted and kept on plain HTTP (SSL stripping); add `{SUGGESTED}` to the server"
                ));
            }
            if let Some(fix) = fix {
                f.with_fix(fix);
            }
        }
        for d in written {
            judge_value(cx, d);
        }
    }
}

/// Whether the server or a level above it holds an include lemplint could not read, or one
/// of a deploy-time file: it may set the header.
fn unread_include_above(server: Directive<'_>, unread: &HashSet<(FileId, Span)>) -> bool {
    let inst = server.instance();
    let mut level = Some(server);
    while let Some(b) = level {
        let unread = b.children("include").any(|inc| {
            let file = inst.expanded.get(inc.occ()).file;
            inc.arg(0).is_some_and(|arg| {
                // A path the deployment fills in (`%domain%/nginx.hsts.conf*`, a template
                // variable) or a header snippet a glob does not find here: written at
                // deploy time, it may well hold the header.
                let path = arg.value().to_ascii_lowercase();
                let deployed = ["%", "{{", "${", "hsts", "header", "security"]
                    .iter()
                    .any(|m| path.contains(m));
                deployed || unread.contains(&(file, arg.raw()))
            })
        });
        if unread {
            return true;
        }
        level = b.parent();
    }
    false
}

/// `add_header Strict-Transport-Security …` where the server's own `add_header`s are (so
/// the server's list grows by one), or after its TLS `listen` when it inherits none.
fn add_fix(server: Directive<'_>, list: &[Directive<'_>]) -> Option<Fix> {
    let own: Vec<Directive<'_>> = server.children("add_header").collect();
    let anchor = if let Some(last) = own.iter().rev().find(|d| d.same_file(server)) {
        *last
    } else if own.is_empty() && list.is_empty() {
        tls_listen(server).filter(|l| l.name() == "listen" && l.same_file(server))?
    } else {
        // Adding one to a server that inherits a list would drop the inherited ones.
        return None;
    };
    let text = &anchor.file().text;
    let last = anchor.args().last().map_or(anchor.span(), |a| a.raw());
    let rest = &text[last.end as usize..];
    let line = &rest[..rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())];
    let line = String::from_utf8_lossy(line);
    let after = line.trim_start().strip_prefix(';')?.trim();
    if !(after.is_empty() || after.starts_with('#')) {
        return None;
    }
    Some(Fix::unsafe_(
        "Add a two-year HSTS header",
        vec![anchor.insert_after(SUGGESTED)],
    ))
}

/// `max-age` of an HSTS value; `None` when it has none (or it is not a number).
fn max_age(value: &str) -> Option<u64> {
    value.split(';').find_map(|part| {
        let (k, v) = part.split_once('=')?;
        if !k.trim().eq_ignore_ascii_case("max-age") {
            return None;
        }
        v.trim().trim_matches('"').parse().ok()
    })
}

/// Reports a weak `add_header Strict-Transport-Security` in a TLS server (or above one).
fn judge_value(cx: &mut Context<'_>, d: Directive<'_>) {
    if let Some(server) = d.enclosing("server") {
        if tls_listen(server).is_none() {
            // Browsers ignore HSTS received over plain HTTP (RFC 6797 §8.1).
            return;
        }
    }
    let Some(value) = d.arg(1) else {
        return;
    };
    let v = value.value();
    if v.contains('$') {
        return;
    }
    let mut problems = Vec::new();
    match max_age(&v) {
        // `max-age=0` is how a site withdraws HSTS: deliberate.
        Some(0) => return,
        Some(age) if age < MIN_AGE => problems.push(format!(
            "`max-age={age}` is under six months ({MIN_AGE} seconds)"
        )),
        Some(_) => {}
        None => problems.push("it has no `max-age`, so browsers ignore it".to_string()),
    }
    let always = d.arg(2).is_some_and(|a| a.is("always"));
    if !always {
        problems
            .push("without `always` nginx leaves it off error responses (4xx, 5xx)".to_string());
    }
    if problems.is_empty() {
        return;
    }
    let f = cx.report(
        d.file(),
        value.raw(),
        format!("weak `Strict-Transport-Security`: {}", problems.join("; ")),
    );
    f.severity = Severity::Info;
    f.help = Some(format!("use `{SUGGESTED}`"));
}

/// A name that belongs to a site (`example.com`, `*.example.org`), not a placeholder
/// (`localhost`, a regex) or an address, which browsers never pin (RFC 6797 §8.1).
fn is_site_name(name: &str) -> bool {
    // Names under a special-use domain never reach the public DNS (RFC 6761 `.test`,
    // `.localhost`, `.invalid`; mDNS `.local`; `.internal`, `.home.arpa`): a development
    // host on a self-signed certificate, where HSTS only makes the warning unclickable.
    const PRIVATE: &[&str] = &[
        ".test",
        ".localhost",
        ".invalid",
        ".local",
        ".internal",
        ".home.arpa",
    ];
    let lower = name.trim_end_matches('.').to_ascii_lowercase();
    !name.starts_with('~')
        && name.contains('.')
        && !PRIVATE.iter().any(|t| lower.ends_with(t))
        && name != "localhost"
        && name
            .trim_start_matches('[')
            .parse::<std::net::IpAddr>()
            .is_err()
        && name.parse::<std::net::Ipv4Addr>().is_err()
        && !name.contains(':')
}
