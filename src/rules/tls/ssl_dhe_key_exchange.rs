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
use crate::fix::Fix;
use crate::rules::{Context, Rule};
use crate::tls::{permitted_at_seclevel, Expansion, Kx, Suite};

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

fn help(dhe: &[&'static Suite], e: &Expansion, contexts: &[Block<'_>], v: Versions) -> String {
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
    let prefer = contexts.iter().any(|&c| {
        c.effective("ssl_prefer_server_ciphers")
            .last()
            .is_some_and(|p| p.arg(0).is_some_and(|a| a.is("on")))
    });
    let first_fs = e
        .suites
        .iter()
        .find(|s| negotiable(s) && matches!(s.kx, Kx::Dhe | Kx::Ecdhe) && !s.anonymous());
    if let Some(first) = first_fs.filter(|s| s.kx == Kx::Dhe && prefer) {
        text.push_str(&format!(
            " With `ssl_prefer_server_ciphers on` and {} ranked before every ECDHE suite, \
             each client that offers DHE gets it.",
            first.name_in(v.openssl)
        ));
    }
    text
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
    let help = help(&dhe, e, &setting.contexts, v);
    let d = cx
        .report(
            file,
            word.raw(),
            cost_message(dhe.len(), "`ssl_ciphers` enables", &why),
        )
        .with_fix(fix);
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
        let help = help(&dhe, e, &servers, v);
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
                let d = cx
                    .report(
                        file,
                        span,
                        cost_message(
                            dhe.len(),
                            &what,
                            "this `ssl_dhparam` makes nginx use {them}",
                        ),
                    )
                    .with_fix(fix);
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
                let d = cx
                    .report(file, span, cost_message(dhe.len(), &what, why))
                    .with_fix(fix);
                let users: Vec<Directive> = servers.iter().filter_map(|b| b.directive()).collect();
                label_users(d, &users, "uses the default cipher list");
                d.help = Some(help);
            }
        }
    }
}
