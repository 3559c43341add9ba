//! NGX176 realip-trusts-everyone: `set_real_ip_from` trusts every address (`0.0.0.0/0`,
//! `::/0`, or ranges that add up to them) while `real_ip_header` reads a request header
//! (`X-Forwarded-For`, or the default `X-Real-IP`). The realip module then replaces the
//! client address with whatever that header says for every connection, so each client picks
//! its own `$remote_addr`: `allow`/`deny`, `limit_req`/`limit_conn` keyed on it, geo rules
//! and the logs all see the address the client wrote (tests/trust_tls_binary.rs shows an
//! `allow 10.0.0.0/8; deny all;` passed by `X-Forwarded-For: 10.0.0.1`).
//!
//! Judged per list: a `set_real_ip_from` list is the one in force in its block and in the
//! blocks below it that set none (the module's merge assigns the enclosing list only when a
//! block has none); the header is the `real_ip_header` in force in each of those blocks.
//! Silent for `real_ip_header proxy_protocol` (the PROXY protocol header comes from the
//! load balancer, and nginx accepts it only on a `listen … proxy_protocol`), and for a list
//! whose servers all listen on loopback or unix sockets only (their clients are local
//! processes, the proxy in front).

use crate::analysis::client_ip::families_covered;
use crate::analysis::cursor::Directive;
use crate::rules::{Context, Rule};
use crate::syntax::nginx::known;

declare_rule! {
    pub struct RealipTrustsEveryone;
    code: NGX176,
    name: "realip-trusts-everyone",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

/// The blocks that may hold a `real_ip_header` or `set_real_ip_from` of their own.
const BLOCKS: [&str; 5] = ["http", "server", "location", "if", "limit_except"];

impl Rule for RealipTrustsEveryone {
    fn check(&self, cx: &mut Context<'_>) {
        let http = known::HTTP | known::HTTP_SRV | known::HTTP_LOC;
        for d in cx.nginx_directives("set_real_ip_from") {
            // The stream and mail modules take the address only from the PROXY protocol.
            if d.contexts() & http == 0 {
                continue;
            }
            let list: Vec<Directive<'_>> = d.siblings("set_real_ip_from").collect();
            if list.first() != Some(&d) {
                continue;
            }
            let values: Vec<String> = list
                .iter()
                .filter_map(|s| s.arg(0).map(|a| a.value().into_owned()))
                .collect();
            if values.iter().any(|v| v.contains('$') || v.contains("{{")) {
                continue;
            }
            let families = families_covered(values.iter().map(String::as_str));
            if families.is_empty() {
                continue;
            }
            let Some(header) = header_in_force(d) else {
                continue;
            };
            if reached_only_locally(d) {
                continue;
            }
            // The directive whose range is the widest (the first of equals): the one to
            // point at.
            let widest = list
                .iter()
                .rev()
                .copied()
                .filter_map(|s| {
                    let a = s.arg(0)?;
                    let r = crate::analysis::client_ip::range(&a.value())?;
                    Some((r.last - r.first, s, a))
                })
                .max_by_key(|(w, _, _)| *w);
            let Some((_, at, arg)) = widest else { continue };
            let (what, verb) = if list.len() == 1 {
                (format!("`set_real_ip_from {}`", arg.value()), "trusts")
            } else {
                ("these `set_real_ip_from` ranges".to_string(), "trust")
            };
            let every = match families.as_slice() {
                [one] => format!("every {one} address"),
                _ => "every address".to_string(),
            };
            let diag = cx.report(
                at.file(),
                arg.raw(),
                format!(
                    "{what} {verb} {every} to say who the client is: with `real_ip_header {header}` \
                     any client sets its own `$remote_addr` by sending that header, so `allow`/`deny`, \
                     `limit_req`/`limit_conn` and the logs see the address the client chose"
                ),
            );
            for s in list.iter().filter(|s| **s != at) {
                if let Some(w) = s.arg(0) {
                    diag.label(s.file().clone(), w.raw(), "also trusted");
                }
            }
            diag.help = Some(
                "list only the addresses of the proxies or load balancers in front of nginx (a \
                 CDN publishes its ranges); trusting everyone is safe only if nothing but those \
                 proxies can connect to nginx, which a firewall outside this configuration would \
                 have to ensure"
                    .to_string(),
            );
        }
    }
}

/// The header the realip module reads in the blocks `d`'s list applies to, when one of them
/// reads a request header: `d`'s own level and every block below it that sets no list of its
/// own. `None` when all of them read `proxy_protocol`.
fn header_in_force(d: Directive<'_>) -> Option<String> {
    let header_at = |block: crate::analysis::cursor::Block<'_>| {
        block
            .effective("real_ip_header")
            .last()
            .and_then(|h| h.arg(0))
            .map_or_else(|| "X-Real-IP".to_string(), |a| a.value().into_owned())
    };
    let mut headers = vec![header_at(d.level())];
    let mut stack: Vec<Directive<'_>> = below(d);
    while let Some(b) = stack.pop() {
        if b.children("set_real_ip_from").next().is_some() {
            continue;
        }
        headers.push(header_at(b.into()));
        stack.extend(b.all_children().filter(|c| is_block(*c)));
    }
    headers
        .into_iter()
        .find(|h| !h.eq_ignore_ascii_case("proxy_protocol"))
}

fn is_block(d: Directive<'_>) -> bool {
    BLOCKS.contains(&d.name()) && d.has_block()
}

/// The blocks directly below the level `d` is written at.
fn below(d: Directive<'_>) -> Vec<Directive<'_>> {
    match d.parent() {
        Some(p) => p.all_children().filter(|c| is_block(*c)).collect(),
        None => BLOCKS
            .iter()
            .flat_map(|n| d.siblings(n))
            .filter(|c| c.has_block())
            .collect(),
    }
}

/// Whether every server the list applies to listens only on loopback addresses or unix
/// sockets: then only local processes (the proxy in front) connect.
fn reached_only_locally(d: Directive<'_>) -> bool {
    if let Some(server) = d.level().enclosing_or_self("server") {
        return crate::analysis::access::local_only(server);
    }
    let servers: Vec<Directive<'_>> = match d.parent() {
        Some(p) => p.children("server").collect(),
        None => d.siblings("server").collect(),
    };
    !servers.is_empty()
        && servers
            .iter()
            .all(|s| crate::analysis::access::local_only(*s))
}
