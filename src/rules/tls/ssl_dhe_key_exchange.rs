//! NGX001 ssl-dhe-key-exchange: the cipher list enables finite-field DHE suites and nginx
//! actually uses them.
//!
//! nginx only offers DHE when `ssl_dhparam` names a group (since 1.11.0; before, it used a
//! built-in 1024-bit group). A DHE handshake costs the server a modular exponentiation in
//! that group: with 2048 bits, about 10× the CPU of an X25519 key exchange (`openssl speed`,
//! OpenSSL 3.0: 1,804 FFDH-2048 derivations/s against 17,272 X25519), 23× with 3072 bits.
//! Every browser and TLS library of the last decade supports ECDHE, so DHE buys nothing
//! (short of a known client that lacks ECDHE); Mozilla removed it from its intermediate
//! profile in guidelines 5.8.
//!
//! Judged: each `ssl_ciphers` with the servers that use it (or, unused, with the
//! `ssl_dhparam` in effect where it is written), and each `ssl_dhparam` that turns on the
//! DHE suites of nginx's default cipher list. The fix appends `:!kDHE` to an explicit list
//! (it works on every nginx and OpenSSL version, and keeps the list's intent readable);
//! with the default list it deletes the `ssl_dhparam` that is the only thing enabling DHE.

use crate::analysis::cursor::{Block, Directive};
use crate::analysis::tls_findings::{label_users, negotiable};
use crate::analysis::tls_settings::{
    cipher_settings, dhe_enabler, fix_in_http, http_of, single_arg, CipherCache, DheEnabler,
    Setting, Versions,
};
use crate::diagnostic::Severity;
use crate::fix::Fix;
use crate::rules::{Context, Rule};
use crate::tls::{permitted_at_seclevel, Au, Enc, Expansion, Kx, Suite};

declare_rule! {
    pub struct SslDheKeyExchange;
    code: NGX001,
    name: "ssl-dhe-key-exchange",
    lang: nginx,
    category: Performance,
    severity: Warning,
    fix: Always,
    group: Default,
}

impl Rule for SslDheKeyExchange {
    fn check(&self, cx: &mut Context<'_>) {
        let v = Versions::of(cx.host);
        let mut cache = CipherCache::default();
        for inst in &cx.stack.nginx {
            for setting in &cipher_settings(inst) {
                match setting.occ {
                    Some(occ) => explicit(cx, setting, occ, v, &mut cache),
                    None => default_list(cx, setting, v, &mut cache),
                }
            }
        }
    }
}

/// The authenticated DHE suites a server can negotiate from an expansion.
fn dhe_suites(e: &Expansion, v: Versions) -> Vec<&'static Suite> {
    let level = e.seclevel.unwrap_or(v.default_seclevel());
    e.suites
        .iter()
        .copied()
        .filter(|s| negotiable(s) && s.kx == Kx::Dhe && !s.anonymous())
        .filter(|s| permitted_at_seclevel(s, level))
        .collect()
}

/// `why` may say `{them}`, replaced by `it` or `them`.
fn cost_message(n: usize, what: &str, why: &str) -> String {
    let suites = if n == 1 { "suite" } else { "suites" };
    let why = why.replace("{them}", if n == 1 { "it" } else { "them" });
    format!(
        "{what} {n} DHE {suites}, and {why}: each DHE handshake costs the server a \
         finite-field exponentiation, about 10× the CPU of an X25519 key exchange with a \
         2048-bit group"
    )
}

fn help(dhe: &[&'static Suite], reach: &Reach, v: Versions) -> String {
    let names: Vec<&str> = dhe.iter().map(|s| s.name_in(v.openssl)).collect();
    let listed = match names.len() {
        n if n > 3 => format!("{} and {} more", names[..3].join(", "), n - 3),
        _ => crate::analysis::tls_findings::join_and(
            &names.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
        ),
    };
    let mut text = format!(
        "The DHE {}: {listed}. Measured with `openssl speed` (OpenSSL 3.0): 1,804 FFDH-2048 \
         key derivations/s against 17,272 X25519 (3072-bit groups: 735/s, ≈23×). Every \
         browser and TLS library of the last decade supports ECDHE (keep DHE only for a known \
         client that lacks it), and Mozilla dropped DHE from its intermediate profile \
         (guidelines 5.8).",
        if names.len() == 1 { "suite" } else { "suites" }
    );
    match reach {
        Reach::Modern(why) => {
            text.push(' ');
            text.push_str(why);
        }
        Reach::LegacyOnly(_) => text.push_str(
            " Here the cost is paid only for clients without ECDHE (Java 6, OpenSSL 0.9.8, \
             old embedded stacks): if none connect, the DHE suites and `ssl_dhparam` are dead \
             weight; if some do, they are what these suites are for.",
        ),
    }
    text
}

/// Who negotiates the DHE suites: a client that supports ECDHE too (the cost is real for
/// today's traffic), or only clients without ECDHE.
enum Reach {
    /// The sentence that says how a client with ECDHE ends up on DHE.
    Modern(String),
    /// The reason only clients without ECDHE get DHE (part of the message).
    LegacyOnly(&'static str),
}

/// Ciphers every TLS 1.2 client that supports ECDHE offers with it.
fn common_enc(enc: Enc) -> bool {
    matches!(
        enc,
        Enc::Aes128 | Enc::Aes256 | Enc::Aes128Gcm | Enc::Aes256Gcm | Enc::Chacha20Poly1305
    )
}

/// OpenSSL picks the suite by the server's order with `SSL_OP_CIPHER_SERVER_PREFERENCE`
/// (`ssl_prefer_server_ciphers on`), by the client's otherwise; clients that support ECDHE
/// list it before DHE. So a client with ECDHE gets DHE when the list has no ECDHE suite for
/// the RSA certificate the DHE suites need, or, under server preference, when a DHE suite is
/// ranked before every ECDHE-RSA suite such a client offers.
fn reach(dhe: &[&'static Suite], e: &Expansion, contexts: &[Block<'_>], v: Versions) -> Reach {
    let level = e.seclevel.unwrap_or(v.default_seclevel());
    let usable = |s: &&Suite| negotiable(s) && permitted_at_seclevel(s, level);
    let dhe_rsa: Vec<&Suite> = dhe.iter().copied().filter(|s| s.au == Au::Rsa).collect();
    if dhe_rsa.is_empty() {
        // DHE-DSS needs a DSA certificate: no current client uses one.
        return Reach::LegacyOnly("they need a DSA certificate, which no current client asks for");
    }
    let ecdhe_rsa: Vec<usize> = e
        .suites
        .iter()
        .enumerate()
        .filter(|(_, s)| usable(s) && s.kx == Kx::Ecdhe && s.au == Au::Rsa && common_enc(s.enc))
        .map(|(i, _)| i)
        .collect();
    let Some(&first_ecdhe) = ecdhe_rsa.first() else {
        return Reach::Modern(
            "No ECDHE suite for an RSA certificate is enabled, so with an RSA certificate \
             every client that offers DHE gets it, including those that support ECDHE."
                .to_string(),
        );
    };
    let prefer = |c: &Block<'_>| {
        c.effective("ssl_prefer_server_ciphers")
            .last()
            .is_some_and(|p| p.arg(0).is_some_and(|a| a.is("on")))
    };
    let (on, off) = contexts.iter().fold((0, 0), |(on, off), c| {
        if prefer(c) {
            (on + 1, off)
        } else {
            (on, off + 1)
        }
    });
    if on > 0 {
        let first_dhe = e.suites.iter().position(|s| dhe_rsa.contains(s));
        if let Some(i) = first_dhe.filter(|&i| i < first_ecdhe) {
            return Reach::Modern(format!(
                "With `ssl_prefer_server_ciphers on` and {} ranked before {}, the first \
                 ECDHE-RSA suite, a client that offers both gets DHE.",
                e.suites[i].name_in(v.openssl),
                e.suites[first_ecdhe].name_in(v.openssl)
            ));
        }
    }
    Reach::LegacyOnly(match (on, off) {
        (_, 0) => {
            "with `ssl_prefer_server_ciphers on`, nginx ranks ECDHE suites that every current \
             client offers before them"
        }
        (0, _) => {
            "with `ssl_prefer_server_ciphers off` the client's order decides, and clients that \
             support ECDHE list it before DHE"
        }
        _ => {
            "whichever side's order decides, ECDHE comes before them for a client that supports it"
        }
    })
}

/// The message and severity for `n` DHE suites: `what` is the list, `why` what enables them.
fn message(n: usize, what: &str, why: &str, reach: &Reach) -> (String, Option<Severity>) {
    match reach {
        Reach::Modern(_) => (cost_message(n, what, why), None),
        Reach::LegacyOnly(order) => {
            let suites = if n == 1 { "suite" } else { "suites" };
            let why = why.replace("{them}", if n == 1 { "it" } else { "them" });
            (
                format!(
                    "{what} {n} DHE {suites}, and {why}, but only clients without ECDHE \
                     negotiate {}: {order}",
                    if n == 1 { "it" } else { "them" }
                ),
                Some(Severity::Info),
            )
        }
    }
}

fn explicit(
    cx: &mut Context<'_>,
    setting: &Setting<'_>,
    occ: Directive<'_>,
    v: Versions,
    cache: &mut CipherCache,
) {
    let Some((word, spec)) = single_arg(occ) else {
        return;
    };
    let file = word.file();
    let Ok(e) = cache.expand(&spec, v.openssl) else {
        return; // NGX011
    };
    let dhe = dhe_suites(e, v);
    if dhe.is_empty() {
        return;
    }
    let mut enablers: Vec<DheEnabler> = Vec::new();
    for &c in &setting.contexts {
        if let Some(en) = dhe_enabler(c, v) {
            if !enablers.contains(&en) {
                enablers.push(en);
            }
        }
    }
    if enablers.is_empty() || !cx.claim(file, word.raw()) {
        return;
    }
    let why = if enablers.contains(&DheEnabler::BuiltinGroup) {
        format!(
            "{} (before 1.11.0) uses {{them}} even without `ssl_dhparam`",
            v.nginx_label()
        )
    } else {
        "`ssl_dhparam` makes nginx use {them}".to_string()
    };
    let sep = if spec.is_empty() || spec.ends_with([':', ',', ' ']) {
        ""
    } else {
        ":"
    };
    let fix = Fix::unsafe_(
        "Append `:!kDHE` to `ssl_ciphers`",
        vec![word.replace(&format!("{spec}{sep}!kDHE"))],
    );
    let reach = reach(&dhe, e, &setting.contexts, v);
    let help = help(&dhe, &reach, v);
    let (msg, severity) = message(dhe.len(), "`ssl_ciphers` enables", &why, &reach);
    let d = cx.report(file, word.raw(), msg).with_fix(fix);
    if let Some(s) = severity {
        d.severity = s;
    }
    for en in &enablers {
        if let DheEnabler::Dhparam(p) = *en {
            d.label(p.file().clone(), p.span(), "DHE is enabled by this group");
        }
    }
    d.help = Some(help);
}

/// Servers on nginx's default cipher list, which has DHE suites: judged per `ssl_dhparam`.
fn default_list(cx: &mut Context<'_>, setting: &Setting<'_>, v: Versions, cache: &mut CipherCache) {
    let spec = crate::analysis::tls_settings::default_ciphers(v.nginx);
    let Ok(e) = cache.expand(spec, v.openssl) else {
        return;
    };
    let dhe = dhe_suites(e, v);
    if dhe.is_empty() {
        return;
    }
    let mut groups: Vec<(DheEnabler, Vec<Block>)> = Vec::new();
    for &c in &setting.contexts {
        let Some(en) = dhe_enabler(c, v) else {
            continue;
        };
        match groups.iter_mut().find(|(g, _)| *g == en) {
            Some((_, list)) => list.push(c),
            None => groups.push((en, vec![c])),
        }
    }
    for (en, servers) in groups {
        let reach = reach(&dhe, e, &servers, v);
        let help = help(&dhe, &reach, v);
        match en {
            DheEnabler::Dhparam(p) => {
                let (file, span) = (p.file(), p.span());
                if !cx.claim(file, span) {
                    continue;
                }
                let fix = Fix::unsafe_(
                    "Delete `ssl_dhparam` (nginx then offers no DHE suite)",
                    vec![p.delete()],
                );
                let what = format!("nginx's default `ssl_ciphers` ({spec}) has");
                let (msg, severity) = message(
                    dhe.len(),
                    &what,
                    "this `ssl_dhparam` makes nginx use {them}",
                    &reach,
                );
                let d = cx.report(file, span, msg).with_fix(fix);
                if let Some(s) = severity {
                    d.severity = s;
                }
                d.help = Some(help);
            }
            DheEnabler::BuiltinGroup => {
                let Some(http) = setting.http.or_else(|| http_of(servers[0])) else {
                    continue;
                };
                let (file, span) = (http.file(), http.span());
                if !cx.claim(file, span) {
                    continue;
                }
                let Some(fix) = fix_in_http(
                    http,
                    format!("ssl_ciphers {spec}:!kDHE;"),
                    format!("Add `ssl_ciphers {spec}:!kDHE` to `http`"),
                ) else {
                    continue;
                };
                let what = format!(
                    "the TLS servers here use {}'s default `ssl_ciphers` ({spec}), with",
                    v.nginx_label()
                );
                let why = "nginx before 1.11.0 uses {them} even without `ssl_dhparam`";
                let (msg, severity) = message(dhe.len(), &what, why, &reach);
                let d = cx.report(file, span, msg).with_fix(fix);
                if let Some(s) = severity {
                    d.severity = s;
                }
                let users: Vec<Directive> = servers.iter().filter_map(|b| b.directive()).collect();
                label_users(d, &users, "uses the default cipher list");
                d.help = Some(help);
            }
        }
    }
}
