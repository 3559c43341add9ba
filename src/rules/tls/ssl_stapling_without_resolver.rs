//! NGX150 ssl-stapling-without-resolver: `ssl_stapling on` for a server whose OCSP
//! responder is a host name, with no `resolver` in effect.
//!
//! nginx (ngx_event_openssl_stapling.c) resolves the responder's host once at start-up with
//! the system resolver; at every refresh it asks `resolver`, and without one logs `no
//! resolver defined to resolve <host>` and connects to the start-up addresses. When the
//! responder (a CDN) moves, refreshes fail and stapling silently stops; when DNS was not up
//! at start-up, stapling is ignored from the start. Not reported: an `ssl_stapling_file`
//! (nothing is fetched), an `ssl_stapling_responder` given as an IP address, and servers
//! whose certificates are all Let's Encrypt ones (they have no responder at all: NGX151).

use crate::analysis::cursor::Directive;
use crate::analysis::https_servers::{is_http_server, tls_listen};
use crate::analysis::ocsp_stapling::{self, all_letsencrypt, is_ip, responder_host};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct SslStaplingWithoutResolver;
    code: NGX150,
    name: "ssl-stapling-without-resolver",
    lang: nginx,
    category: Reliability,
    severity: Warning,
    fix: None,
    group: Default,
}

impl Rule for SslStaplingWithoutResolver {
    fn check(&self, cx: &mut Context<'_>) {
        let servers: Vec<Directive<'_>> = cx.nginx_directives("server").collect();
        for server in servers {
            if !is_http_server(server) || tls_listen(server).is_none() {
                continue;
            }
            let Some(st) = ocsp_stapling::of(server) else {
                continue;
            };
            if st.file.is_some()
                || all_letsencrypt(&st)
                || server.effective("resolver").next().is_some()
            {
                continue;
            }
            let host = match st.responder.and_then(|r| r.arg(0)) {
                Some(url) => match responder_host(&url.value()) {
                    Some(h) if is_ip(h) => continue,
                    Some(h) => format!("the responder `{h}`"),
                    // Not an http:// URL: nginx ignores stapling with a warning of its own.
                    None => continue,
                },
                None => "the OCSP responder named in the certificate".to_string(),
            };
            let f = cx.report(
                st.on.file(),
                st.on.span(),
                format!("`ssl_stapling on` without a `resolver`: nginx resolves {host} only at start-up"),
            );
            f.help = Some(
                "each refresh logs `no resolver defined to resolve …` and uses the start-up addresses, so stapling stops when the responder moves; add `resolver 127.0.0.53 valid=300s;` (a resolver you trust) to the server or `http`, or staple from `ssl_stapling_file`"
                    .into(),
            );
            f.label(
                server.file().clone(),
                server.span(),
                "this TLS server staples without a resolver",
            );
        }
    }
}
