//! NGX002 ssl-insecure-ciphers: the cipher list enables broken or obsolete suites.
//!
//! The list is expanded exactly as the configured OpenSSL does ([`crate::tls::expand`]):
//! `RC4` in a string means ten suites on OpenSSL 1.0.2 and nothing on 3.0, which does not
//! have RC4 any more. Only suites nginx can negotiate count (not PSK, SRP, fixed-DH or
//! Kerberos ones, which need setups nginx has no directives for).
//!
//! * Error: NULL encryption, anonymous (EC)DH, EXPORT, RC4, single DES, RC2 suites that the
//!   server can negotiate at its security level.
//! * Warning: 3DES, IDEA, SEED, MD5-MAC suites; a list whose every suite is CBC with SHA-1
//!   (no AEAD suite at all); and insecure suites that OpenSSL lists but refuses at its
//!   default security level (anonymous and MD5 suites on OpenSSL 1.1.1/3.0): the string
//!   asks for them, and `@SECLEVEL=0` or another build hands them out.
//!
//! The rule's default severity is error; the warning cases set it per finding. A list that
//! only TLS-1.3-only servers use is not judged (the cipher string does not apply to TLS 1.3).
//! The fix replaces the list with Mozilla's intermediate one.

use crate::analysis::tls_findings::{join_and, label_users, negotiable, suite_list};
use crate::analysis::tls_settings::{
    cipher_settings, fix_in_http, protocols_of, single_arg, uses_cipher_string, CipherCache,
    Setting, Versions, MOZILLA_INTERMEDIATE,
};
use crate::diagnostic::Severity;
use crate::fix::Fix;
use crate::rules::{Context, Rule};
use crate::tls::{
    self, permitted_at_seclevel, weaknesses, Expansion, Kx, Level, OpenSslVersion, Suite, Weakness,
};

declare_rule! {
    pub struct SslInsecureCiphers;
    code: NGX002,
    name: "ssl-insecure-ciphers",
    lang: nginx,
    category: Security,
    severity: Error,
    fix: Always,
    group: Default,
}

impl Rule for SslInsecureCiphers {
    fn check(&self, cx: &mut Context<'_>) {
        let v = Versions::of(cx.host);
        let mut cache = CipherCache::default();
        for inst in &cx.stack.nginx {
            for setting in &cipher_settings(inst) {
                let used = setting
                    .contexts
                    .iter()
                    .any(|&c| uses_cipher_string(protocols_of(c, v.nginx).as_deref()));
                if used {
                    judge(cx, setting, v, &mut cache);
                }
            }
        }
    }
}

/// The weaknesses this rule reports, in the order they are listed.
const CLASSES: [Weakness; 10] = [
    Weakness::NullCipher,
    Weakness::Anonymous,
    Weakness::Export,
    Weakness::Rc4,
    Weakness::Des,
    Weakness::Rc2,
    Weakness::TripleDes,
    Weakness::Idea,
    Weakness::Seed,
    Weakness::Md5Mac,
];

/// Suites of one weakness class.
struct Class {
    weakness: Weakness,
    suites: Vec<&'static Suite>,
    /// Whether the server can negotiate at least one of them at its security level.
    usable: bool,
}

impl Class {
    fn label(&self) -> &'static str {
        match self.weakness {
            Weakness::Anonymous if self.suites.iter().all(|s| s.kx == Kx::Ecdhe) => {
                "anonymous ECDH"
            }
            Weakness::Anonymous if self.suites.iter().all(|s| s.kx == Kx::Dhe) => "anonymous DH",
            w if CLASSES.contains(&w) => w.short(),
            _ => "weak",
        }
    }

    fn describe(&self, v: Versions) -> String {
        let names: Vec<&str> = self.suites.iter().map(|s| s.name_in(v.openssl)).collect();
        format!("{} ({})", self.label(), suite_list(&names, 2))
    }
}

/// Groups the negotiable suites of `e` by their first reportable weakness.
fn classify(e: &Expansion, level: u8) -> Vec<Class> {
    let mut out: Vec<Class> = Vec::new();
    for &s in e.suites.iter().filter(|s| negotiable(s)) {
        let Some(w) = weaknesses(s).into_iter().find(|w| CLASSES.contains(w)) else {
            continue;
        };
        let ok = permitted_at_seclevel(s, level);
        match out.iter_mut().find(|c| c.weakness == w) {
            Some(c) => {
                c.suites.push(s);
                c.usable |= ok;
            }
            None => out.push(Class {
                weakness: w,
                suites: vec![s],
                usable: ok,
            }),
        }
    }
    out.sort_by_key(|c| CLASSES.iter().position(|w| *w == c.weakness));
    out
}

/// The negotiable suites at `level` when every one is CBC with SHA-1 (no AEAD or SHA-2
/// suite to fall back on); empty otherwise.
fn cbc_sha1_only(e: &Expansion, level: u8) -> Vec<&'static Suite> {
    let usable: Vec<&'static Suite> = e
        .suites
        .iter()
        .copied()
        .filter(|s| negotiable(s) && permitted_at_seclevel(s, level))
        .collect();
    let all = !usable.is_empty()
        && usable
            .iter()
            .all(|s| weaknesses(s).contains(&Weakness::CbcSha1));
    if all {
        usable
    } else {
        Vec::new()
    }
}

fn level_text(e: &Expansion, v: Versions, level: u8) -> String {
    match e.seclevel {
        Some(_) => format!("security level {level} (set by `@SECLEVEL={level}`)"),
        None => format!(
            "security level {level}, the default of {}",
            v.openssl_label()
        ),
    }
}

/// The message, severity and help for an expansion, or `None` when nothing is wrong.
fn verdict(e: &Expansion, v: Versions, subject: &str) -> Option<(String, Severity, String)> {
    let level = e.seclevel.unwrap_or(v.default_seclevel());
    let classes = classify(e, level);
    let insecure = |c: &&Class| c.weakness.level() == Level::Insecure;
    let usable_insecure: Vec<&Class> = classes
        .iter()
        .filter(|c| c.usable)
        .filter(insecure)
        .collect();
    let usable_weak: Vec<&Class> = classes
        .iter()
        .filter(|c| c.usable && !insecure(c))
        .collect();
    let refused: Vec<&Class> = classes.iter().filter(|c| !c.usable).collect();
    let cbc = cbc_sha1_only(e, level);
    let list = |cs: &[&Class]| join_and(&cs.iter().map(|c| c.describe(v)).collect::<Vec<_>>());
    let (message, severity) = if !usable_insecure.is_empty() {
        let mut m = format!(
            "{subject} enables insecure cipher suites: {}",
            list(&usable_insecure)
        );
        if !usable_weak.is_empty() {
            m.push_str(&format!("; and weak ones: {}", list(&usable_weak)));
        }
        (m, Severity::Error)
    } else if !usable_weak.is_empty() {
        (
            format!(
                "{subject} enables weak cipher suites: {}",
                list(&usable_weak)
            ),
            Severity::Warning,
        )
    } else if !refused.is_empty() {
        let m = format!(
            "{subject} asks for insecure cipher suites that OpenSSL refuses only because of its \
             security level: {}",
            list(&refused)
        );
        (m, Severity::Warning)
    } else if !cbc.is_empty() {
        let names: Vec<&str> = cbc.iter().map(|s| s.name_in(v.openssl)).collect();
        let m = format!(
            "{subject} enables only CBC suites with SHA-1 MACs ({}), no AEAD suite",
            suite_list(&names, 3)
        );
        (m, Severity::Warning)
    } else {
        return None;
    };
    let mut help: Vec<String> = Vec::new();
    let shown: Vec<&Class> = classes.iter().collect();
    for c in &shown {
        help.push(format!("{} — {}.", c.label(), c.weakness.reason()));
    }
    if !cbc.is_empty() && classes.is_empty() {
        help.push(format!("CBC-SHA1 — {}.", Weakness::CbcSha1.reason()));
    }
    if !refused.is_empty() {
        help.push(format!(
            "{} {} listed but refused at {}; `@SECLEVEL=0` or an OpenSSL built with a lower \
             level would offer them.",
            join_and(
                &refused
                    .iter()
                    .map(|c| c.label().to_string())
                    .collect::<Vec<_>>()
            ),
            if refused.len() == 1 { "is" } else { "are" },
            level_text(e, v, level),
        ));
    }
    let elsewhere: Vec<&String> = e
        .unknown
        .iter()
        .filter(|w| !tls::recognised_in(w).is_empty())
        .collect();
    if !elsewhere.is_empty() {
        let mut versions: Vec<OpenSslVersion> = elsewhere
            .iter()
            .flat_map(|w| tls::recognised_in(w))
            .collect();
        versions.sort();
        versions.dedup();
        let words: Vec<String> = elsewhere.iter().map(|w| format!("`{w}`")).collect();
        let labels: Vec<String> = versions.iter().map(|v| v.label().to_string()).collect();
        help.push(format!(
            "OpenSSL {} skips {} (known to OpenSSL {}), where the same string selects other \
             suites.",
            v.openssl,
            join_and(&words),
            join_and(&labels),
        ));
    }
    help.push(
        "Mozilla's intermediate list keeps only ECDHE with AES-GCM or ChaCha20-Poly1305."
            .to_string(),
    );
    Some((message, severity, help.join(" ")))
}

fn judge(cx: &mut Context<'_>, setting: &Setting<'_>, v: Versions, cache: &mut CipherCache) {
    match setting.occ {
        Some(occ) => {
            let Some((word, spec)) = single_arg(occ) else {
                return;
            };
            let file = word.file();
            let Ok(e) = cache.expand(&spec, v.openssl) else {
                return; // NGX011
            };
            let Some((message, severity, help)) = verdict(e, v, "`ssl_ciphers`") else {
                return;
            };
            if !cx.claim(file, word.raw()) {
                return;
            }
            let fix = Fix::unsafe_(
                "Use Mozilla's intermediate cipher list",
                vec![word.replace(MOZILLA_INTERMEDIATE)],
            );
            let d = cx.report(file, word.raw(), message).with_fix(fix);
            d.severity = severity;
            d.help = Some(help);
        }
        None => {
            let Some(http) = setting.http else { return };
            let spec = crate::analysis::tls_settings::default_ciphers(v.nginx);
            let Ok(e) = cache.expand(spec, v.openssl) else {
                return;
            };
            let subject = format!("{}'s default `ssl_ciphers` ({spec})", v.nginx_label());
            let Some((message, severity, help)) = verdict(e, v, &subject) else {
                return;
            };
            let (file, span) = (http.file(), http.span());
            if !cx.claim(file, span) {
                return;
            }
            let Some(fix) = fix_in_http(
                http,
                format!("ssl_ciphers {MOZILLA_INTERMEDIATE};"),
                "Add Mozilla's intermediate `ssl_ciphers` to `http`",
            ) else {
                return;
            };
            let d = cx.report(file, span, message).with_fix(fix);
            label_users(d, &setting.users, "uses the default cipher list");
            d.severity = severity;
            d.help = Some(help);
        }
    }
}
