//! NGX178 upstream-tls-unverified: `proxy_pass https://…` (or `grpc_pass grpcs://…`,
//! `uwsgi_pass suwsgi://…`) to a host that is not on this machine, with
//! `proxy_ssl_verify` (`grpc_ssl_verify`, `uwsgi_ssl_verify`) off — its default. nginx then
//! encrypts the connection but accepts any certificate the other end shows, so whoever can
//! intercept the path to the upstream (ARP or DNS spoofing on the way, a hijacked name)
//! reads and alters the traffic, passwords and session cookies included.
//!
//! The severity follows where the upstream is, as written: a public address or a dotted
//! host name is a warning; a private address (RFC 1918, RFC 4193, link-local, shared
//! address space) or a single-label name (a container service, an `/etc/hosts` entry) is
//! info, since on a network nginx trusts the check buys less — a judgement the message
//! states. Silent for loopback and unix sockets, for a host with variables (known per
//! request), and for an `upstream` whose servers are all local.

use crate::analysis::cursor::Directive;
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use crate::stack::net::{is_loopback, Addr};
use std::net::IpAddr;

declare_rule! {
    pub struct UpstreamTlsUnverified;
    code: NGX178,
    name: "upstream-tls-unverified",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

/// Each pass directive, the scheme that makes it TLS, and the directive that turns
/// verification on.
const PASSES: [(&str, &str, &str); 3] = [
    ("proxy_pass", "https://", "proxy_ssl_verify"),
    ("grpc_pass", "grpcs://", "grpc_ssl_verify"),
    ("uwsgi_pass", "suwsgi://", "uwsgi_ssl_verify"),
];

/// Where an upstream host is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    Local,
    Private,
    Public,
}

impl Rule for UpstreamTlsUnverified {
    fn check(&self, cx: &mut Context<'_>) {
        for (name, scheme, verify) in PASSES {
            for d in cx.nginx_directives(name) {
                let Some(arg) = d.arg(0) else { continue };
                if arg.is_templated() {
                    continue;
                }
                let value = arg.value();
                let Some(rest) = strip_prefix_ci(&value, scheme) else {
                    continue;
                };
                let verified = d
                    .level()
                    .effective(verify)
                    .last()
                    .and_then(|v| v.arg(0))
                    .is_some_and(|v| v.value().eq_ignore_ascii_case("on"));
                if verified {
                    continue;
                }
                let authority = rest.split('/').next().unwrap_or(rest);
                if authority.contains('$') || authority.is_empty() {
                    continue;
                }
                let Some(place) = place_of(d, authority) else {
                    continue;
                };
                if place == Place::Local {
                    continue;
                }
                let mut message = format!(
                    "`{name} {scheme}{authority}` encrypts but does not check the upstream's \
                     certificate (`{verify}` is off, its default): anyone who can intercept \
                     the way to it can read and change the traffic"
                );
                if place == Place::Private {
                    message.push_str(
                        "; the upstream is on a private network, so whether that matters \
                         depends on who else is on it",
                    );
                }
                let diag = cx.report(d.file(), arg.raw(), message);
                if place == Place::Private {
                    diag.severity = Severity::Info;
                }
                let prefix = verify.trim_end_matches("_verify");
                diag.help = Some(format!(
                    "add `{verify} on;` with `{prefix}_trusted_certificate` naming the CA \
                     that signed the upstream's certificate (and `{prefix}_name` if the \
                     certificate is for another name)"
                ));
            }
        }
    }
}

fn strip_prefix_ci<'v>(value: &'v str, prefix: &str) -> Option<&'v str> {
    let head = value.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &value[prefix.len()..])
}

/// Where `authority` (`host[:port]`, or an `upstream` name) is: the farthest of an
/// upstream's servers. `None` when it cannot be told (an upstream without readable servers).
fn place_of(d: Directive<'_>, authority: &str) -> Option<Place> {
    let host = host_of(authority);
    let upstream = crate::analysis::cursor::named(d.instance(), "upstream").find(|u| {
        u.arg(0).is_some_and(|a| a.value() == authority) && !u.block_path().contains(&"stream")
    });
    let Some(up) = upstream else {
        return Some(place_of_host(&host));
    };
    up.children("server")
        .map(|s| match Addr::parse(&s.arg(0)?.value(), 443)? {
            Addr::Unix(_) => Some(Place::Local),
            Addr::Tcp { host: None, .. } => Some(Place::Local),
            Addr::Tcp { host: Some(h), .. } => Some(place_of_host(&h)),
        })
        .collect::<Option<Vec<Place>>>()?
        .into_iter()
        .max()
}

fn host_of(authority: &str) -> String {
    if let Some(inner) = authority.strip_prefix('[') {
        return inner.split(']').next().unwrap_or(inner).to_string();
    }
    if authority.starts_with("unix:") {
        return authority.to_string();
    }
    authority
        .rsplit_once(':')
        .map_or(authority, |(h, _)| h)
        .to_string()
}

fn place_of_host(host: &str) -> Place {
    if host.starts_with("unix:") || is_loopback(host) {
        return Place::Local;
    }
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(a)) => {
            let [a0, a1, ..] = a.octets();
            // RFC 1918, link-local (RFC 3927), shared address space (RFC 6598).
            let shared = a0 == 100 && (64..128).contains(&a1);
            if a.is_private() || a.is_link_local() || shared {
                Place::Private
            } else if a.is_unspecified() {
                Place::Local
            } else {
                Place::Public
            }
        }
        Ok(IpAddr::V6(a)) => {
            let s = a.segments()[0];
            // Unique local (fc00::/7) and link-local (fe80::/10) addresses.
            if s & 0xfe00 == 0xfc00 || s & 0xffc0 == 0xfe80 {
                Place::Private
            } else if a.is_loopback() {
                Place::Local
            } else {
                Place::Public
            }
        }
        // A name without a dot is resolved inside the machine's own network (a container
        // service, an /etc/hosts entry); a dotted one may be anywhere.
        Err(_) if !host.contains('.') => Place::Private,
        Err(_) => Place::Public,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_hosts_by_address() {
        assert!(place_of_host("127.0.0.1") == Place::Local);
        assert!(place_of_host("localhost") == Place::Local);
        assert!(place_of_host("10.1.2.3") == Place::Private);
        assert!(place_of_host("172.20.0.5") == Place::Private);
        assert!(place_of_host("100.64.0.1") == Place::Private);
        assert!(place_of_host("fd00::1") == Place::Private);
        assert!(place_of_host("backend") == Place::Private);
        assert!(place_of_host("203.0.113.9") == Place::Public);
        assert!(place_of_host("api.example.com") == Place::Public);
        assert_eq!(host_of("[2001:db8::1]:8443"), "2001:db8::1");
        assert_eq!(host_of("api.example.com:8443"), "api.example.com");
    }
}
