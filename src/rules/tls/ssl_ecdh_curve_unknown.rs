//! NGX152 ssl-ecdh-curve-unknown: `ssl_ecdh_curve` names a group the OpenSSL nginx is
//! linked with does not know. nginx passes the list to `SSL_CTX_set1_curves_list`, which
//! refuses the whole list for one unknown name, and nginx then does not start
//! (`SSL_CTX_set1_curves_list("…") failed … group 'X25519MLKEM768' cannot be set`).
//!
//! Names come from analysis::openssl_groups (checked against the installed openssl). A name
//! no library knows (a typo) is an error whatever the version. A name only newer releases
//! know (`X25519MLKEM768`, 3.5), one in another case (`p-256`), or one of another library
//! (BoringSSL's `X25519Kyber768Draft00`) is an error when `[host] openssl` says the release
//! lacks it, and information when no release is given.

use crate::analysis::openssl_groups::{known, names, nearest, release, Known};
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct SslEcdhCurveUnknown;
    code: NGX152,
    name: "ssl-ecdh-curve-unknown",
    lang: nginx,
    category: Reliability,
    severity: Error,
    fix: None,
    group: Default,
}

impl Rule for SslEcdhCurveUnknown {
    fn check(&self, cx: &mut Context<'_>) {
        let host = cx.host.openssl.as_ref().and_then(|f| release(&f.value));
        let label = host.map(|(a, b)| format!("OpenSSL {a}.{b} (`[host] openssl`)"));
        let directives: Vec<_> = cx.nginx_directives("ssl_ecdh_curve").collect();
        for d in directives {
            let Some(arg) = d.arg(0) else {
                continue;
            };
            let value = arg.value().into_owned();
            // `auto` is nginx's own keyword; a variable is not a list nginx could read.
            if value.eq_ignore_ascii_case("auto") || value.contains('$') {
                continue;
            }
            let mut errors = Vec::new();
            let mut infos = Vec::new();
            for (name, new_syntax) in names(&value) {
                if new_syntax {
                    match host {
                        Some(r) if r < (3, 5) => errors.push(format!("`{name}` is written with OpenSSL 3.5's list syntax (`?`, `*`, `/`), which {} refuses", label.as_deref().unwrap_or(""))),
                        Some(_) => {}
                        None => infos.push(format!("`{name}` is written with OpenSSL 3.5's list syntax (`?`, `*`, `/`); older releases refuse the list")),
                    }
                    if matches!(known(&name), Known::Unknown) {
                        errors.push(unknown(&name));
                    }
                    continue;
                }
                match known(&name) {
                    Known::Always => {}
                    Known::Unknown => errors.push(unknown(&name)),
                    Known::Since(since) => match host {
                        Some(r) if r < since => errors.push(format!(
                            "`{name}` needs OpenSSL {}.{} or later; {} does not know it",
                            since.0,
                            since.1,
                            label.as_deref().unwrap_or("")
                        )),
                        Some(_) => {}
                        None => infos.push(format!(
                            "`{name}` needs OpenSSL {}.{} or later (set `[host] openssl` to check)",
                            since.0, since.1
                        )),
                    },
                    Known::OtherCase(right) => {
                        let text = format!("`{name}` is not an OpenSSL group name (names are case-sensitive: `{right}`)");
                        if host.is_some() {
                            errors.push(text)
                        } else {
                            infos.push(text)
                        }
                    }
                    Known::Elsewhere(lib) => {
                        let text = format!("`{name}` is a group name of {lib}, not of OpenSSL");
                        if host.is_some() {
                            errors.push(text)
                        } else {
                            infos.push(text)
                        }
                    }
                }
            }
            let (problems, severity) = if !errors.is_empty() {
                (errors, Severity::Error)
            } else if !infos.is_empty() {
                (infos, Severity::Info)
            } else {
                continue;
            };
            let message = if severity == Severity::Error {
                format!("nginx will not start: {}", problems.join("; "))
            } else {
                format!(
                    "`ssl_ecdh_curve` may stop nginx from starting: {}",
                    problems.join("; ")
                )
            };
            let f = cx.report(d.file(), arg.raw(), message);
            f.severity = severity;
            f.help = Some(
                "OpenSSL refuses the whole list for one name it does not know, and nginx stops with `SSL_CTX_set1_curves_list(…) failed`; keep to names of your OpenSSL (`openssl list -tls-groups` on 3.x), e.g. `X25519:prime256v1:secp384r1`, or leave `ssl_ecdh_curve auto`"
                    .into(),
            );
        }
    }
}

fn unknown(name: &str) -> String {
    match nearest(name) {
        Some(n) => format!("no OpenSSL knows the group `{name}` (did you mean `{n}`?)"),
        None => format!("no OpenSSL knows the group `{name}`"),
    }
}
