//! OCSP stapling as a TLS server has it: whether `ssl_stapling on` is in effect, how nginx
//! gets the response (a `ssl_stapling_file`, an `ssl_stapling_responder`, or the responder
//! URL in the certificate's AIA extension), and which certificates it staples for.
//!
//! ngx_event_openssl_stapling.c: with `ssl_stapling_file` nginx reads the response from the
//! file and never asks a responder. Otherwise the responder is `ssl_stapling_responder` or
//! the certificate's AIA URL (none there: `"ssl_stapling" ignored, no OCSP responder URL in
//! the certificate`); its host is resolved once at start-up by the system resolver, and at
//! each refresh through `resolver` — without one nginx logs `no resolver defined to resolve
//! …` and keeps the start-up addresses. An IP address needs no resolving.

use crate::analysis::cursor::Directive;

/// The stapling settings in effect for one TLS server.
pub struct Stapling<'a> {
    /// The `ssl_stapling on` in effect.
    pub on: Directive<'a>,
    pub file: Option<Directive<'a>>,
    pub responder: Option<Directive<'a>>,
    /// The `ssl_certificate`s in effect.
    pub certificates: Vec<Directive<'a>>,
}

fn last<'a>(server: Directive<'a>, name: &str) -> Option<Directive<'a>> {
    server.effective(name).last()
}

/// The server's stapling, when `ssl_stapling on` is in effect there.
pub fn of(server: Directive<'_>) -> Option<Stapling<'_>> {
    let on = last(server, "ssl_stapling").filter(|d| d.arg(0).is_some_and(|a| a.is("on")))?;
    Some(Stapling {
        on,
        file: last(server, "ssl_stapling_file"),
        responder: last(server, "ssl_stapling_responder"),
        certificates: server.effective("ssl_certificate").collect(),
    })
}

/// Whether a certificate path is one certbot (or another ACME client) keeps for Let's
/// Encrypt: `/etc/letsencrypt/live/<name>/fullchain.pem` and the like.
pub fn is_letsencrypt(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    !p.contains('$') && (p.contains("/letsencrypt/") || p.starts_with("letsencrypt/"))
}

/// Whether every certificate the server staples for is a Let's Encrypt one (and there is
/// at least one).
pub fn all_letsencrypt(st: &Stapling<'_>) -> bool {
    !st.certificates.is_empty()
        && st
            .certificates
            .iter()
            .all(|c| c.arg(0).is_some_and(|a| is_letsencrypt(&a.value())))
}

/// The host of an `http://host[:port]/…` responder URL.
pub fn responder_host(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("HTTP://"))?;
    let authority = rest.split('/').next()?;
    if let Some(v6) = authority.strip_prefix('[') {
        return v6.split(']').next();
    }
    Some(authority.rsplit_once(':').map_or(authority, |(h, _)| h))
}

/// Whether `host` is an IP address literal (no resolving needed).
pub fn is_ip(host: &str) -> bool {
    host.parse::<std::net::IpAddr>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responder_hosts_and_letsencrypt_paths() {
        assert_eq!(
            responder_host("http://ocsp.example.com/"),
            Some("ocsp.example.com")
        );
        assert_eq!(
            responder_host("http://10.0.0.5:8080/ocsp"),
            Some("10.0.0.5")
        );
        assert_eq!(
            responder_host("http://[2001:db8::1]:80/"),
            Some("2001:db8::1")
        );
        assert_eq!(responder_host("https://ocsp.example.com/"), None);
        assert!(is_ip("10.0.0.5") && is_ip("2001:db8::1") && !is_ip("ocsp.example.com"));
        assert!(is_letsencrypt(
            "/etc/letsencrypt/live/example.com/fullchain.pem"
        ));
        assert!(!is_letsencrypt(
            "/etc/letsencrypt/live/$ssl_server_name/fullchain.pem"
        ));
        assert!(!is_letsencrypt("/etc/ssl/certs/example.pem"));
    }
}
