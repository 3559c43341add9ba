//! NGX003 ssl-legacy-protocols: `ssl_protocols` (or nginx's default for the version)
//! includes SSLv2, SSLv3, TLSv1 or TLSv1.1.
//!
//! SSLv2 and SSLv3 are broken (DROWN, POODLE; RFC 6176, RFC 7568) and TLS 1.0/1.1 are
//! deprecated (RFC 8996: SHA-1/MD5 handshake hashes, no AEAD suites; browsers removed them in
//! 2020). Whether a listed protocol is actually offered depends on OpenSSL: SSLv2 is not built
//! since 1.0.2g, SSLv3 not since 1.1.0 (`Configure` disables `ssl3` by default), and OpenSSL
//! 3.0 refuses SSLv3, TLS 1.0 and 1.1 below security level 0 (migration guide: "no longer
//! working at the default security level of 1"). A protocol the server really offers is a
//! warning; one that is listed but refused is reported at info level (the words do nothing
//! here, and would turn the protocol on with an older OpenSSL or `@SECLEVEL=0`).
//!
//! The fix removes the legacy protocols, leaving `TLSv1.2 TLSv1.3` when nothing else
//! remains; for servers on nginx's default it adds `ssl_protocols TLSv1.2 TLSv1.3` to `http`.

use crate::analysis::cursor::{Block, Directive};
use crate::analysis::tls_findings::{join_and, label_users};
use crate::analysis::tls_settings::{
    arg_values, ciphers_of, fix_in_http, modern_protocols, tls_settings, CipherCache, Setting,
    Versions,
};
use crate::diagnostic::Severity;
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::Span;
use crate::tls::OpenSslVersion;

declare_rule! {
    pub struct SslLegacyProtocols;
    code: NGX003,
    name: "ssl-legacy-protocols",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

const LEGACY: [&str; 4] = ["SSLv2", "SSLv3", "TLSv1", "TLSv1.1"];

impl Rule for SslLegacyProtocols {
    fn check(&self, cx: &mut Context<'_>) {
        let v = Versions::of(cx.host);
        let mut cache = CipherCache::default();
        let overrides = ["Protocol", "MinProtocol", "MaxProtocol"];
        for inst in &cx.stack.nginx {
            for setting in tls_settings(inst, "ssl_protocols", &overrides) {
                judge(cx, &setting, v, &mut cache);
            }
        }
    }
}

/// The canonical name of a legacy protocol (nginx compares case-insensitively).
fn legacy_name(word: &str) -> Option<&'static str> {
    LEGACY.into_iter().find(|l| l.eq_ignore_ascii_case(word))
}

/// Why OpenSSL does not offer `proto` at security level `level`, or `None` if it does.
fn refused_because(proto: &str, openssl: OpenSslVersion, level: u8) -> Option<String> {
    match (proto, openssl) {
        ("SSLv2", _) => Some("not built into OpenSSL since 1.0.2g".into()),
        ("SSLv3", OpenSslVersion::V1_0_2) => None,
        ("SSLv3", _) => Some("not built into OpenSSL since 1.1.0".into()),
        (_, OpenSslVersion::V1_0_2) => None,
        ("TLSv1", OpenSslVersion::V1_1_1) if level >= 3 => Some(format!(
            "refused by OpenSSL 1.1.1 at security level {level}"
        )),
        ("TLSv1.1", OpenSslVersion::V1_1_1) if level >= 4 => Some(format!(
            "refused by OpenSSL 1.1.1 at security level {level}"
        )),
        (_, OpenSslVersion::V3_0) if level >= 1 => Some(format!(
            "refused by OpenSSL 3.0 at security level {level} (it needs `@SECLEVEL=0`)"
        )),
        _ => None,
    }
}

fn danger(proto: &str) -> &'static str {
    match proto {
        "SSLv2" => "SSLv2 is broken (DROWN, RFC 6176)",
        "SSLv3" => "SSLv3 is broken (POODLE, RFC 7568)",
        _ => "",
    }
}

/// The security level each context's cipher string sets (OpenSSL's default when none, or
/// when unknown).
fn levels(contexts: &[Block<'_>], v: Versions, cache: &mut CipherCache) -> Vec<(u8, bool)> {
    contexts
        .iter()
        .map(|&c| {
            let set = ciphers_of(c, v.nginx).and_then(|(spec, _)| {
                cache
                    .expand(&spec, v.openssl)
                    .as_ref()
                    .ok()
                    .and_then(|e| e.seclevel)
            });
            (set.unwrap_or(v.default_seclevel()), set.is_some())
        })
        .collect()
}

fn judge(cx: &mut Context<'_>, setting: &Setting<'_>, v: Versions, cache: &mut CipherCache) {
    let listed: Vec<String> = match setting.occ {
        Some(occ) => arg_values(occ),
        None => crate::analysis::tls_settings::default_protocols(v.nginx)
            .iter()
            .map(|p| p.to_string())
            .collect(),
    };
    let legacy: Vec<&'static str> = listed.iter().filter_map(|p| legacy_name(p)).collect();
    if legacy.is_empty() {
        return;
    }
    let levels = levels(&setting.contexts, v, cache);
    let mut live: Vec<String> = Vec::new();
    let mut inert: Vec<(String, String)> = Vec::new();
    for p in &legacy {
        let reasons: Vec<Option<String>> = levels
            .iter()
            .map(|&(l, _)| refused_because(p, v.openssl, l))
            .collect();
        match reasons.iter().find_map(|r| r.clone()) {
            Some(why) if reasons.iter().all(Option::is_some) => inert.push((p.to_string(), why)),
            _ => live.push(p.to_string()),
        }
    }
    // "`ssl_protocols` enables …" / "the TLS servers here use …'s default (…), which enables …"
    let (subject, joiner) = match setting.occ {
        Some(_) => ("`ssl_protocols`".to_string(), " "),
        None => (
            format!(
                "the TLS servers here use {}'s default `ssl_protocols` ({})",
                v.nginx_label(),
                listed.join(" ")
            ),
            ", which ",
        ),
    };
    let (message, severity) = if !live.is_empty() {
        let mut reasons: Vec<String> = live
            .iter()
            .filter_map(|p| match danger(p) {
                "" => None,
                d => Some(d.to_string()),
            })
            .collect();
        if live.iter().any(|p| p.starts_with("TLSv1")) {
            reasons.push(
                "TLS 1.0 and 1.1 are deprecated by RFC 8996 (MD5/SHA-1 handshake hashes, no \
                 AEAD suites)"
                    .into(),
            );
        }
        let m = format!(
            "{subject}{joiner}enables {}: {}",
            join_and(&live),
            reasons.join("; ")
        );
        (m, Severity::Warning)
    } else {
        let names: Vec<String> = inert.iter().map(|(p, _)| p.clone()).collect();
        let m = format!(
            "{subject}{joiner}lists {}, but {} does not offer {}: the words do nothing here, \
             and would enable {} with an older OpenSSL or `@SECLEVEL=0`",
            join_and(&names),
            v.openssl_label(),
            if names.len() == 1 { "it" } else { "them" },
            if names.len() == 1 { "it" } else { "them" },
        );
        (m, Severity::Info)
    };
    // One sentence per reason: "TLSv1 and TLSv1.1: refused by …".
    let mut help: Vec<String> = Vec::new();
    let mut reasons: Vec<&String> = inert.iter().map(|(_, why)| why).collect();
    reasons.dedup();
    for why in reasons {
        let names: Vec<String> = inert
            .iter()
            .filter(|(_, w)| w == why)
            .map(|(p, _)| p.clone())
            .collect();
        help.push(format!("{}: {why}.", join_and(&names)));
    }
    if levels.iter().any(|&(l, set)| set && l == 0) {
        help.push(
            "`@SECLEVEL=0` in `ssl_ciphers` is only needed for these protocols; drop it too, \
             since it also allows SHA-1 signatures and short keys."
                .into(),
        );
    }
    help.push("Every browser since 2020 and every current client speaks TLS 1.2.".into());
    match setting.occ {
        Some(occ) => explicit(cx, occ, v, message, severity, help),
        None => defaults(cx, setting, v, message, severity, help),
    }
}

fn explicit(
    cx: &mut Context<'_>,
    occ: Directive<'_>,
    v: Versions,
    message: String,
    severity: Severity,
    help: Vec<String>,
) {
    let file = occ.file();
    let (Some(first), Some(last)) = (occ.arg(0), occ.args().last()) else {
        return;
    };
    if !cx.claim(file, first.raw()) {
        return;
    }
    let keep: Vec<String> = occ
        .args()
        .map(|w| w.raw_text().into_owned())
        .filter(|raw| legacy_name(raw.trim_matches(['"', '\''])).is_none())
        .collect();
    let new = if keep.is_empty() {
        modern_protocols(v.nginx).to_string()
    } else {
        keep.join(" ")
    };
    let span = Span::new(first.raw().start, last.raw().end);
    let has_comments = occ.has_comments();
    let d = cx.report(file, span, message);
    d.severity = severity;
    if !has_comments {
        d.with_fix(Fix::unsafe_(
            format!("Set `ssl_protocols {new}`"),
            vec![Edit::replace(file, span, new.clone())],
        ));
    }
    d.help = Some(help.join(" "));
}

fn defaults(
    cx: &mut Context<'_>,
    setting: &Setting<'_>,
    v: Versions,
    message: String,
    severity: Severity,
    help: Vec<String>,
) {
    let Some(http) = setting.http else { return };
    let (file, span) = (http.file(), http.span());
    if !cx.claim(file, span) {
        return;
    }
    let new = modern_protocols(v.nginx);
    let Some(fix) = fix_in_http(
        http,
        format!("ssl_protocols {new};"),
        format!("Add `ssl_protocols {new}` to `http`"),
    ) else {
        return;
    };
    let d = cx.report(file, span, message).with_fix(fix);
    d.severity = severity;
    label_users(d, &setting.users, "uses the default protocols");
    d.help = Some(help.join(" "));
}
