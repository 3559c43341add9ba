//! NGX183 ssl-dhparam-weak: the `ssl_dhparam` file in the tree holds a DH group of 1024
//! bits or fewer, or one that is not a DH group at all.
//!
//! DHE handshakes use the group the file holds. 1024-bit groups are within reach of the
//! precomputation the Logjam paper describes (weakdh.org, "Imperfect Forward Secrecy",
//! 2015: one precomputation per prime breaks every handshake that uses it), and published
//! primes (RFC 2409's Oakley groups, RFC 5114's) are the first targets; the paper
//! recommends 2048 bits or more. Smaller groups are also refused by OpenSSL's security
//! levels, which nginx reports as `SSL_CTX_set_tmp_dh() failed (dh key too small)` and
//! does not start: below 1024 bits at level 1 (OpenSSL 1.1.0 and later), below 2048 at
//! level 2 (Debian's and Ubuntu's OpenSSL 3 builds) — checked with nginx 1.22 on OpenSSL
//! 3.0 by tests/trust_tls_binary.rs. Which OpenSSL is meant comes from `[host] openssl`;
//! the message says so when it is assumed.
//!
//! The file is read from the tree (see `stack::side_files`); a path with variables, a
//! server path the tree does not hold, or an unreadable file is silent.

use crate::analysis::tls_settings::Versions;
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use crate::stack::side_files::SideFile;
use crate::tls::dhparam::{read_pem, DhError};

declare_rule! {
    pub struct SslDhparamWeak;
    code: NGX183,
    name: "ssl-dhparam-weak",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

impl Rule for SslDhparamWeak {
    fn check(&self, cx: &mut Context<'_>) {
        let v = Versions::of(cx.host);
        for (i, inst) in cx.stack.nginx.iter().enumerate() {
            for d in crate::analysis::cursor::named(inst, "ssl_dhparam") {
                let Some(arg) = d.arg(0) else { continue };
                let Some(SideFile::Read { bytes, .. }) = cx.stack.side_files.get(i, d.occ()) else {
                    continue;
                };
                let group = match read_pem(bytes) {
                    Ok(g) => g,
                    Err(e) => {
                        let why = match e {
                            DhError::NoBlock => {
                                "it holds no `BEGIN DH PARAMETERS` block".to_string()
                            }
                            DhError::Malformed(what) => {
                                format!("its DH parameters are unreadable ({what})")
                            }
                        };
                        let diag = cx.report(
                            d.file(),
                            arg.raw(),
                            format!(
                                "`ssl_dhparam {}` names a file nginx cannot load: {why}; \
                                 nginx stops with `PEM_read_bio_DHparams() failed`",
                                arg.value()
                            ),
                        );
                        diag.severity = Severity::Error;
                        diag.help = Some(
                            "generate a group with `openssl dhparam -out dhparam.pem 2048`, or \
                             remove `ssl_dhparam` (without it nginx 1.11.0 and later offer no \
                             DHE suites, which ECDHE replaces)"
                                .to_string(),
                        );
                        continue;
                    }
                };
                if group.bits > 1024 {
                    continue;
                }
                let bits = group.bits;
                let mut message =
                    format!("`ssl_dhparam {}` holds a {bits}-bit DH group", arg.value());
                if let Some(known) = group.known() {
                    message.push_str(&format!(
                        ", {} ({}), a published prime",
                        known.name, known.source
                    ));
                }
                let refused = v.openssl.modern() && bits < 1024;
                if refused {
                    message.push_str(&format!(
                        ": {} refuses a group this small at its default security level, so \
                         nginx does not start (`SSL_CTX_set_tmp_dh() failed (dh key too small)`)",
                        v.openssl_label()
                    ));
                } else {
                    message.push_str(
                        ": DHE handshakes with it are within reach of the precomputation \
                         attack Logjam describes (one computation per prime breaks every \
                         handshake that uses it)",
                    );
                    if v.openssl.modern() {
                        message.push_str(&format!(
                            "; with {} at security level 2 (Debian's and Ubuntu's default) \
                             nginx refuses it and does not start",
                            v.openssl_label()
                        ));
                    }
                }
                let diag = cx.report(d.file(), arg.raw(), message);
                if refused {
                    diag.severity = Severity::Error;
                }
                diag.help = Some(
                    "generate a 2048-bit group (`openssl dhparam -out dhparam.pem 2048`) or use \
                     RFC 7919's ffdhe2048; or remove `ssl_dhparam`, which turns the DHE suites \
                     off (nginx 1.11.0 and later), since ECDHE serves every current client"
                        .to_string(),
                );
            }
        }
    }
}
