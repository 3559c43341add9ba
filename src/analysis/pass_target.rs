//! The parts of a `proxy_pass`-style address (`http://host:port/uri`, `unix:/path`,
//! `upstream_name`), split the way ngx_http_proxy_module and ngx_parse_url split them, so
//! rules can ask what a location talks to and which URI it sends.
//!
//! Variables are kept as written: a `$` in the host part means the address is evaluated per
//! request (and, unless it names an `upstream`, resolved through `resolver` then); a `$` in
//! the URI part means nginx sends that URI as evaluated, without replacing the location's
//! prefix.

/// The directives that hand a request to an upstream named by their first argument: the
/// one list every rule and analysis reads (a location whose name ends in `/` and has one
/// of these redirects its name without the `/`; each is a content handler; each may need
/// a `resolver`).
pub const PASSES: &[&str] = &[
    "proxy_pass",
    "fastcgi_pass",
    "uwsgi_pass",
    "scgi_pass",
    "memcached_pass",
    "grpc_pass",
];

/// One address, as written in the directive's argument (quotes resolved).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassTarget<'a> {
    /// `http://`, `https://`, `grpc://`, `grpcs://`; empty for fastcgi/uwsgi/scgi style.
    pub scheme: &'a str,
    /// Host and port, `[v6]:port` brackets kept; for `unix:` the socket path with `unix:`.
    pub authority: &'a str,
    /// The host name or address alone (brackets and port removed).
    pub host: &'a str,
    /// The URI part, from its first `/` (proxy_pass only); `None` when there is none.
    pub uri: Option<&'a str>,
    /// Whether it is a unix-domain socket.
    pub unix: bool,
}

impl<'a> PassTarget<'a> {
    /// Splits `value`. `with_uri` is true for `proxy_pass`, whose address may carry a URI
    /// part (for the others a `/` has no such meaning).
    pub fn parse(value: &'a str, with_uri: bool) -> PassTarget<'a> {
        let scheme_len = ["http://", "https://", "grpc://", "grpcs://"]
            .iter()
            .find(|s| {
                value.len() >= s.len()
                    && value.as_bytes()[..s.len()].eq_ignore_ascii_case(s.as_bytes())
            })
            .map_or(0, |s| s.len());
        let (scheme, rest) = value.split_at(scheme_len);
        if rest.len() >= 5 && rest.as_bytes()[..5].eq_ignore_ascii_case(b"unix:") {
            // ngx_parse_unix_domain_url: with a URI part, the path ends at the first `:`.
            let (authority, uri) = match rest[5..].find(':') {
                Some(i) if with_uri => (&rest[..5 + i], Some(&rest[5 + i + 1..])),
                _ => (rest, None),
            };
            return PassTarget {
                scheme,
                authority,
                host: authority,
                uri: uri.filter(|u| !u.is_empty()),
                unix: true,
            };
        }
        let end = if with_uri {
            let slash = rest.find('/').unwrap_or(rest.len());
            path_variable_at(&rest[..slash]).unwrap_or(slash)
        } else {
            rest.len()
        };
        let (authority, uri) = rest.split_at(end);
        let host = if let Some(inner) = authority.strip_prefix('[') {
            inner.split(']').next().unwrap_or(inner)
        } else {
            authority.split(':').next().unwrap_or(authority)
        };
        PassTarget {
            scheme,
            authority,
            host,
            uri: (!uri.is_empty()).then_some(uri),
            unix: false,
        }
    }

    /// Whether the host part holds a variable (evaluated per request).
    pub fn host_has_variables(&self) -> bool {
        self.authority.contains('$')
    }

    /// Whether the host is an IPv4 or IPv6 literal.
    pub fn host_is_ip(&self) -> bool {
        self.host.parse::<std::net::IpAddr>().is_ok()
    }
}

/// Where the first variable that always starts with `/` (the request's path: `$uri`,
/// `$document_uri`, `$request_uri`) stands in `text`: `http://app$uri` sends `$uri` as the
/// URI part of host `app`, just as `http://app/…` would.
fn path_variable_at(text: &str) -> Option<usize> {
    const PATHS: [&str; 3] = ["uri", "document_uri", "request_uri"];
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(off) = text[i..].find('$') {
        let at = i + off;
        let after = &text[at + 1..];
        let (name, braced) = match after.strip_prefix('{') {
            Some(inner) => (inner.split('}').next().unwrap_or(""), true),
            None => {
                let n = after
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                    .count();
                (&after[..n], false)
            }
        };
        if PATHS.iter().any(|p| p.eq_ignore_ascii_case(name)) && (braced || !name.is_empty()) {
            return Some(at);
        }
        i = at + 1;
        if i >= bytes.len() {
            break;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_scheme_host_port_and_uri_as_nginx_does() {
        let t = PassTarget::parse("http://backend:8080/api/", true);
        assert_eq!(
            (t.scheme, t.authority, t.host),
            ("http://", "backend:8080", "backend")
        );
        assert_eq!(t.uri, Some("/api/"));
        let t = PassTarget::parse("HTTPS://[::1]:8443", true);
        assert_eq!((t.host, t.uri), ("::1", None));
        assert!(t.host_is_ip());
        let t = PassTarget::parse("http://unix:/run/app.sock:/v1/", true);
        assert!(t.unix);
        assert_eq!((t.authority, t.uri), ("unix:/run/app.sock", Some("/v1/")));
        let t = PassTarget::parse("http://unix:/run/app.sock", true);
        assert_eq!(t.uri, None);
        // fastcgi_pass: no scheme and no URI part.
        let t = PassTarget::parse("127.0.0.1:9000", false);
        assert_eq!((t.scheme, t.host, t.uri), ("", "127.0.0.1", None));
        let t = PassTarget::parse("http://$backend$request_uri", true);
        assert!(t.host_has_variables());
        // `$uri` always starts with a slash: it is the URI part, not part of the host.
        let t = PassTarget::parse("http://app$uri$is_args$args", true);
        assert!(!t.host_has_variables());
        assert_eq!((t.host, t.uri), ("app", Some("$uri$is_args$args")));
        let t = PassTarget::parse("http://$up${request_uri}", true);
        assert_eq!((t.authority, t.uri), ("$up", Some("${request_uri}")));
        assert!(t.host_has_variables());
        let t = PassTarget::parse("http://app/$uri", true);
        assert!(!t.host_has_variables());
        assert_eq!(t.uri, Some("/$uri"));
    }
}
