//! NGX184 ssl-seclevel-lowered: `@SECLEVEL=0` or `@SECLEVEL=1` in `ssl_ciphers` lowers
//! OpenSSL's security level for the servers that use the string.
//!
//! The security level decides the smallest keys, DH groups and signature hashes OpenSSL
//! accepts, and which suites it drops (OpenSSL's `SSL_CTX_set_security_level`): level 0
//! accepts RSA keys and certificate signatures under 80 bits of security (a 512-bit key, an
//! MD5- or, on OpenSSL 3, a SHA-1-signed certificate) and the suites a higher level
//! removes, but never a DH group under 1024 bits (`ssl_security_default_callback`); level 1
//! (80 bits) accepts 1024-bit RSA keys and DH groups, which level 2 — Debian's and Ubuntu's
//! OpenSSL 3 default — refuses. tests/hardening_binary/ measures each of these with
//! nginx. Level 0 is a
//! warning; level 1 is info (it is upstream OpenSSL's own default). OpenSSL 1.0.2 has no
//! levels, so nothing is reported for `[host] openssl = "1.0.2…"`; the OpenSSL assumed
//! otherwise is named in the message.

use crate::analysis::tls_settings::{cipher_settings, single_arg, CipherCache, Versions};
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct SslSeclevelLowered;
    code: NGX184,
    name: "ssl-seclevel-lowered",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

impl Rule for SslSeclevelLowered {
    fn check(&self, cx: &mut Context<'_>) {
        let v = Versions::of(cx.host);
        if !v.openssl.modern() {
            return;
        }
        let mut cache = CipherCache::default();
        for inst in &cx.stack.nginx {
            for setting in cipher_settings(inst) {
                let Some(occ) = setting.occ else { continue };
                let Some((word, spec)) = single_arg(occ) else {
                    continue;
                };
                let Ok(e) = cache.expand(&spec, v.openssl) else {
                    continue;
                };
                let level = match e.seclevel {
                    Some(l @ (0 | 1)) => l,
                    _ => continue,
                };
                if !cx.claim(word.file(), word.raw()) {
                    continue;
                }
                let openssl = v.openssl_label();
                let (message, severity) = if level == 0 {
                    (
                        format!(
                            "`@SECLEVEL=0` turns off the security level of {openssl} for this \
                             cipher list: RSA keys and certificate signatures under 80 bits of \
                             security (a 512-bit key, an MD5- or SHA-1-signed certificate) and \
                             the suites a higher level drops are accepted"
                        ),
                        Severity::Warning,
                    )
                } else {
                    (
                        format!(
                            "`@SECLEVEL=1` lowers {openssl} to 80-bit security for this cipher \
                             list: 1024-bit RSA keys and DH groups are accepted, which level 2 \
                             (Debian's and Ubuntu's default) refuses"
                        ),
                        Severity::Info,
                    )
                };
                let diag = cx.report(word.file(), word.raw(), message);
                diag.severity = severity;
                diag.help = Some(
                    "remove `@SECLEVEL=…` (or raise it to 2) once no client needs the old \
                     keys or suites; if one does, keep it in a server of its own"
                        .to_string(),
                );
            }
        }
    }
}
