//! NGX151 ssl-stapling-letsencrypt: `ssl_stapling on` for a server whose certificates are
//! all Let's Encrypt ones. Let's Encrypt stopped putting an OCSP URL in its certificates
//! (May 2025) and shut its OCSP responders down on 2025-08-06, so nginx has nothing to staple
//! and logs `"ssl_stapling" ignored, no OCSP responder URL in the certificate` at every
//! start. The directive does nothing but add that warning.
//!
//! Not reported with an `ssl_stapling_file` or an `ssl_stapling_responder` (nginx then
//! does not look for the certificate's URL), or when a certificate of the server is not a
//! Let's Encrypt one. The fix (safe: stapling is already ignored) turns it off, when the
//! `ssl_stapling on` is the server's own.

use crate::analysis::cursor::Directive;
use crate::analysis::https_servers::{is_http_server, tls_listen};
use crate::analysis::ocsp_stapling::{self, all_letsencrypt};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct SslStaplingLetsencrypt;
    code: NGX151,
    name: "ssl-stapling-letsencrypt",
    lang: nginx,
    category: Reliability,
    severity: Info,
    fix: Sometimes,
    group: Default,
}

impl Rule for SslStaplingLetsencrypt {
    fn check(&self, cx: &mut Context<'_>) {
        let servers: Vec<Directive<'_>> = cx.nginx_directives("server").collect();
        for server in servers {
            if !is_http_server(server) || tls_listen(server).is_none() {
                continue;
            }
            let Some(st) = ocsp_stapling::of(server) else {
                continue;
            };
            if st.file.is_some() || st.responder.is_some() || !all_letsencrypt(&st) {
                continue;
            }
            let Some(arg) = st.on.arg(0) else {
                continue;
            };
            let fix = (st.on.parent() == Some(server)).then(|| {
                Fix::safe(
                    "Set `ssl_stapling off`",
                    vec![edits::replace_arg(st.on.file(), &arg.tree_word(), "off")],
                )
            });
            let f = cx.report(
                st.on.file(),
                arg.raw(),
                "OCSP stapling for a Let's Encrypt certificate: it has no OCSP responder since 2025, so nginx ignores `ssl_stapling`",
            );
            if let Some(cert) = st.certificates.first() {
                f.label(
                    cert.file().clone(),
                    cert.span(),
                    "a Let's Encrypt certificate",
                );
            }
            f.help = Some(
                "nginx logs `\"ssl_stapling\" ignored, no OCSP responder URL in the certificate`; set `ssl_stapling off;` (and drop `ssl_stapling_verify`)"
                    .into(),
            );
            if let Some(fix) = fix {
                f.with_fix(fix);
            }
        }
    }
}
