//! NGX147 scheme-less-redirect: a server that answers over TLS redirects clients to
//! `http://` — each such redirect takes a visitor off HTTPS (a downgrade an attacker on the
//! path can then keep: cookies without `Secure`, the next request and its credentials in
//! clear text).
//!
//! Read: `return 301|302|303|307|308 http://…` and `rewrite … http://…` (nginx redirects
//! when the replacement starts with a scheme) in a `server` with a `listen … ssl` /
//! `listen … quic` (or the old `ssl on;`), at the server level or in its locations. Left
//! alone: targets on the loopback (`localhost`, `127.0.0.1`, `[::1]`), redirects inside an
//! `if` that tests the scheme or port (`$scheme`, `$https`, `$server_port`,
//! `$http_x_forwarded_proto`: the author handles the plain-HTTP side), and servers nothing
//! says serve TLS (a location snippet).

use crate::analysis::cursor::Directive;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct SchemeLessRedirect;
    code: NGX147,
    name: "scheme-less-redirect",
    lang: nginx,
    category: Security,
    severity: Info,
    fix: None,
    group: Default,
}

const REDIRECTS: [&str; 5] = ["301", "302", "303", "307", "308"];

/// Whether the server listens with TLS.
fn serves_tls(server: Directive<'_>) -> bool {
    server
        .children("listen")
        .any(|l| l.args().skip(1).any(|a| a.is("ssl") || a.is("quic")))
        || server
            .children("ssl")
            .any(|s| s.arg(0).is_some_and(|a| a.is("on")))
}

/// The host of an `http://` URL (`http://$host…` gives `$host`).
fn http_host(url: &str) -> Option<&str> {
    if url.len() < 7 || !url.as_bytes()[..7].eq_ignore_ascii_case(b"http://") {
        return None;
    }
    let rest = &url[7..];
    let mut end = rest.find(['/', '?']).unwrap_or(rest.len());
    // A variable after the host (`http://example.com$request_uri`) starts the path; one
    // at the start is the host (`http://$host`).
    if let Some(i) = rest.get(1..end).and_then(|r| r.find('$')) {
        end = i + 1;
    }
    Some(&rest[..end])
}

fn is_loopback(host: &str) -> bool {
    let h = host.to_ascii_lowercase();
    let name = match h.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6).to_string(),
        None => h.split(':').next().unwrap_or(&h).to_string(),
    };
    name == "localhost"
        || name.ends_with(".localhost")
        || name == "::1"
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether an enclosing `if` tests how the request arrived.
fn guarded_by_scheme(d: Directive<'_>) -> bool {
    let mut at = d.parent();
    while let Some(p) = at {
        if p.name() == "server" {
            return false;
        }
        if p.name() == "if" {
            let tests = p.args().any(|a| {
                let v = a.value().to_ascii_lowercase();
                [
                    "$scheme",
                    "$https",
                    "$server_port",
                    "$http_x_forwarded_proto",
                    "$http_x_forwarded_ssl",
                ]
                .iter()
                .any(|s| v.contains(s))
            });
            if tests {
                return true;
            }
        }
        at = p.parent();
    }
    false
}

impl Rule for SchemeLessRedirect {
    fn check(&self, cx: &mut Context<'_>) {
        for name in ["return", "rewrite"] {
            for d in cx.nginx_directives(name) {
                let url = if name == "return" {
                    match (d.arg(0), d.arg(1)) {
                        (Some(code), Some(url)) if REDIRECTS.iter().any(|c| code.is(c)) => url,
                        // `return http://…;` is a 302.
                        (Some(url), None) => url,
                        _ => continue,
                    }
                } else {
                    let Some(url) = d.arg(1) else { continue };
                    url
                };
                let value = url.value();
                let Some(host) = http_host(&value) else {
                    continue;
                };
                if host.is_empty() || is_loopback(host) {
                    continue;
                }
                let Some(server) = d.enclosing("server") else {
                    continue;
                };
                if !serves_tls(server) || guarded_by_scheme(d) {
                    continue;
                }
                let found = cx.report(
                    d.file(),
                    url.raw(),
                    format!(
                        "this server answers over TLS, but `{}` sends its clients to plain `http://{host}`: the redirect takes them off HTTPS",
                        value
                    ),
                );
                let listen = server
                    .children("listen")
                    .find(|l| l.args().skip(1).any(|a| a.is("ssl") || a.is("quic")));
                if let Some(l) = listen {
                    let at = l.arg(0).map_or(l.span(), |a| a.raw());
                    found.label(l.file().clone(), at, "TLS here");
                }
                found.help = Some(format!(
                    "redirect to `https://{}` (or `$scheme://…` to keep the client's scheme)",
                    &value[7..]
                ));
            }
        }
    }
}
