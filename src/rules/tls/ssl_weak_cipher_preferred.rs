//! NGX155 ssl-weak-cipher-preferred: the order of the cipher list lets a weak suite win
//! over a strong one the same server offers.
//!
//! Who decides the suite of a TLS ≤ 1.2 handshake is `ssl_prefer_server_ciphers`: `on` sets
//! OpenSSL's `SSL_OP_CIPHER_SERVER_PREFERENCE`, and the server takes the first suite of its
//! own list that the client also offers; `off` (nginx's default) takes the client's first.
//!
//! * Warning: server preference on, and the expanded list (OpenSSL's order, as `openssl
//!   ciphers -v` prints it) ranks a weak suite above a strong one of the same
//!   authentication (an RSA certificate only serves aRSA suites, an ECDSA one aECDSA), so
//!   every client that offers both (and none of the suites ranked above the weak one) gets
//!   the weak one. A weak suite ranked below an ECDHE-AES-GCM suite does not count: nearly
//!   every client with an AEAD suite has that one, so only clients without it (browsers from
//!   before 2014, Internet Explorer on Windows 7) can get the weak suite
//!   (`widely_supported`); below ChaCha20, AES-CCM, ARIA or DHE suites it does count.
//! * Info: server preference off, and the list offers weak suites next to strong ones of
//!   the same authentication: a client that ranks a legacy suite first gets it. The unsafe
//!   fix turns server preference on, only when the list ranks a strong suite first for each
//!   authentication that has one and no weak suite above a strong one (so the fixed
//!   configuration is not the warning above, and no client gets a weaker suite than before).
//!
//! *Weak*: a weakness of level insecure or weak ([`crate::tls::weaknesses`]: 3DES, CBC with
//! SHA-1, static RSA key exchange, …). *Strong*: none of those and an AEAD cipher, i.e.
//! ECDHE/DHE with AES-GCM, ChaCha20-Poly1305, AES-CCM or ARIA-GCM. The CBC suites with
//! SHA-256/384 MACs are neither: ranking `ECDHE-RSA-AES128-SHA` above
//! `ECDHE-RSA-AES256-SHA384`, as Mozilla's old profile does, costs nothing worth reporting.
//!
//! Only suites nginx can negotiate count: no PSK/SRP/fixed-DH ones, none refused at the
//! security level, DHE ones only where DHE is on (an `ssl_dhparam`, or nginx before
//! 1.11.0), and no anonymous ones (NGX002 reports those as errors). Judged: each explicit
//! `ssl_ciphers` (never nginx's default list) in the servers that use it, where TLS 1.2 is
//! enabled (the strong suites are TLS 1.2 suites) and no `ssl_conf_command Options` may
//! change the preference. A server whose `ssl_prefer_server_ciphers` is unknown (a snippet
//! linted alone that does not set it) is not judged.

use crate::analysis::cursor::{Block, Directive};
use crate::analysis::tls_findings::negotiable;
use crate::analysis::tls_settings::{
    cipher_settings, ciphers_of, conf_command, dhe_enabler, protocols_of, single_arg, source,
    tls_servers, uses_cipher_string, written_in, CipherCache, DheEnabler, Setting, Source,
    Versions, MOZILLA_INTERMEDIATE,
};
use crate::diagnostic::Severity;
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::tls::{
    permitted_at_seclevel, weaknesses, Enc, Expansion, Kx, Level, Mac, Suite, Weakness,
};

declare_rule! {
    pub struct SslWeakCipherPreferred;
    code: NGX155,
    name: "ssl-weak-cipher-preferred",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

const PREFER: &str = "ssl_prefer_server_ciphers";

impl Rule for SslWeakCipherPreferred {
    fn check(&self, cx: &mut Context<'_>) {
        let v = Versions::of(cx.host);
        let mut cache = CipherCache::default();
        let mut reach = None;
        for inst in &cx.stack.nginx {
            for setting in &cipher_settings(inst) {
                if let Some(occ) = setting.occ {
                    judge(cx, setting, occ, v, &mut cache, &mut reach);
                }
            }
        }
    }
}

/// Who picks the suite in a block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Preference<'a> {
    /// `ssl_prefer_server_ciphers on`: the server's order.
    Server(Directive<'a>),
    /// `ssl_prefer_server_ciphers off`, written: the client's order.
    ClientWritten(Directive<'a>),
    /// Not written up to `http`: nginx's default, off.
    ClientDefault,
}

/// `None` when not known (a snippet linted alone) or not a flag nginx accepts.
fn preference(block: Block<'_>) -> Option<Preference<'_>> {
    match source(block, PREFER) {
        Source::Set(d) => {
            let arg = d.arg(0).filter(|_| d.args().len() == 1)?;
            if arg.is("on") {
                Some(Preference::Server(d))
            } else if arg.is("off") {
                Some(Preference::ClientWritten(d))
            } else {
                None
            }
        }
        Source::Default => Some(Preference::ClientDefault),
        Source::Unknown => None,
    }
}

/// Whether the cipher order matters in `block` and is the one `ssl_ciphers` sets: a
/// cipher-string suite can be negotiated, TLS 1.2 is on (unknown: assumed), and no
/// `ssl_conf_command Options` may turn server preference (or ChaCha20 priority) on or off.
fn order_matters(block: Block<'_>, v: Versions) -> bool {
    let protocols = protocols_of(block, v.nginx);
    uses_cipher_string(protocols.as_deref())
        && protocols
            .as_ref()
            .is_none_or(|p| p.iter().any(|p| p.eq_ignore_ascii_case("TLSv1.2")))
        && !conf_command(block, &["Options"])
}

fn is_weak(s: &Suite) -> bool {
    weaknesses(s)
        .iter()
        .any(|w| matches!(w.level(), Level::Insecure | Level::Weak))
}

/// An AEAD suite with ephemeral key exchange and nothing weak about it.
fn is_strong(s: &Suite) -> bool {
    s.mac == Mac::Aead && s.forward_secret() && !is_weak(s)
}

/// The suites a server can negotiate from `e`, in the server's order: negotiable through
/// the cipher string, authenticated, permitted at the security level, and DHE only when
/// `dhe`.
fn usable(e: &Expansion, v: Versions, dhe: bool) -> Vec<&'static Suite> {
    let level = e.seclevel.unwrap_or(v.default_seclevel());
    e.suites
        .iter()
        .copied()
        .filter(|s| negotiable(s) && !s.anonymous() && permitted_at_seclevel(s, level))
        .filter(|s| dhe || s.kx != Kx::Dhe)
        .collect()
}

/// Whether nearly every client that has an AEAD suite offers `s`: ECDHE with AES-GCM
/// (RFC 7525 §4.2 has clients propose ECDHE-RSA-AES128-GCM-SHA256 first; every current
/// browser, Java 8+, OpenSSL 1.0.1+ and Windows 10's Schannel have it). ChaCha20, AES-CCM,
/// ARIA and DHE suites are not: Schannel has no ChaCha20 for TLS 1.2, and current browsers
/// dropped DHE.
fn widely_supported(s: &Suite) -> bool {
    s.kx == Kx::Ecdhe && matches!(s.enc, Enc::Aes128Gcm | Enc::Aes256Gcm) && is_strong(s)
}

/// A weak suite ranked above a strong one of the same authentication.
struct Outranked {
    weak: &'static Suite,
    /// The first strong suite of the same authentication after it.
    strong: &'static Suite,
    /// The suites of the same authentication ranked above the weak one.
    above: Vec<&'static Suite>,
}

/// The first weak suite ranked above a strong one of the same authentication. Unless
/// `strict`, a weak suite ranked below a widely supported strong one does not count: the
/// only clients that get it are those without ECDHE-AES-GCM (browsers from before 2014).
fn outranked(suites: &[&'static Suite], strict: bool) -> Option<Outranked> {
    suites.iter().enumerate().find_map(|(i, &w)| {
        if !is_weak(w) {
            return None;
        }
        let above: Vec<&'static Suite> = suites[..i]
            .iter()
            .copied()
            .filter(|s| s.au == w.au)
            .collect();
        if !strict && above.iter().any(|s| widely_supported(s)) {
            return None;
        }
        let strong = suites[i + 1..]
            .iter()
            .copied()
            .find(|s| s.au == w.au && is_strong(s))?;
        Some(Outranked {
            weak: w,
            strong,
            above,
        })
    })
}

/// The weak suites that share their authentication with a strong one: what a client may
/// pick while the server offers it something strong.
fn avoidable(suites: &[&'static Suite]) -> Vec<&'static Suite> {
    suites
        .iter()
        .copied()
        .filter(|w| is_weak(w) && suites.iter().any(|s| s.au == w.au && is_strong(s)))
        .collect()
}

/// Whether server preference gives the best: for every authentication with a strong
/// suite, the first suite is strong, and no weak suite outranks a strong one.
fn server_order_is_sound(suites: &[&'static Suite]) -> bool {
    outranked(suites, true).is_none()
        && suites.iter().filter(|s| is_strong(s)).all(|strong| {
            suites
                .iter()
                .find(|s| s.au == strong.au)
                .is_some_and(|first| is_strong(first))
        })
}

/// A suite's weaknesses that make it weak, in a few words each.
fn reasons(s: &Suite) -> String {
    let words: Vec<&str> = weaknesses(s)
        .into_iter()
        .filter(|w| matches!(w.level(), Level::Insecure | Level::Weak))
        .map(|w| match w {
            Weakness::NoForwardSecrecy if s.kx == Kx::Rsa => "static RSA key exchange",
            w => w.short(),
        })
        .collect();
    words.join(", ")
}

/// Whether two directives are the same place of the same file (one occurrence per
/// configuration that reads it).
fn same_place(a: Directive<'_>, b: Directive<'_>) -> bool {
    a.span() == b.span() && a.file().path == b.file().path
}

/// A block judged: who picks, and whether DHE suites are on.
struct Judged<'a> {
    pref: Preference<'a>,
    dhe: Option<DheEnabler<'a>>,
}

fn judge(
    cx: &mut Context<'_>,
    setting: &Setting<'_>,
    occ: Directive<'_>,
    v: Versions,
    cache: &mut CipherCache,
    reach: &mut Option<Reach>,
) {
    let Some((word, spec)) = single_arg(occ) else {
        return;
    };
    let Ok(e) = cache.expand(&spec, v.openssl) else {
        return; // NGX011
    };
    let (with_dhe, without_dhe) = (usable(e, v, true), usable(e, v, false));
    let suites_for = |j: &Judged| {
        if j.dhe.is_some() {
            &with_dhe
        } else {
            &without_dhe
        }
    };
    let judged: Vec<Judged> = setting
        .contexts
        .iter()
        .filter(|&&c| order_matters(c, v))
        .filter_map(|&c| {
            Some(Judged {
                pref: preference(c)?,
                dhe: dhe_enabler(c, v),
            })
        })
        .collect();
    let file = word.file();

    // Server preference with a weak suite first.
    let mut worst: Option<(Outranked, Option<DheEnabler>)> = None;
    let mut on: Vec<Directive> = Vec::new();
    for j in &judged {
        let Preference::Server(d) = j.pref else {
            continue;
        };
        let Some(found) = outranked(suites_for(j), false) else {
            continue;
        };
        worst.get_or_insert((found, j.dhe));
        if !on.iter().any(|&o| same_place(o, d)) {
            on.push(d);
        }
    }
    if let Some((found, dhe)) = worst {
        if !cx.claim(file, word.raw()) {
            return;
        }
        let (w, s) = (found.weak, found.strong);
        let (wn, sn) = (w.name_in(v.openssl), s.name_in(v.openssl));
        let who = match found.above.len() {
            0 => "every client that offers both gets the weak one".to_string(),
            n => {
                let names: Vec<&str> = found.above.iter().map(|s| s.name_in(v.openssl)).collect();
                let mut listed = names.iter().take(2).copied().collect::<Vec<_>>().join(", ");
                if n > 2 {
                    listed.push_str(", …");
                }
                let those = if n == 1 {
                    "not the suite".to_string()
                } else {
                    format!("none of the {n} suites")
                };
                format!(
                    "a client that offers both but {those} ranked above it ({listed}) gets the \
                     weak one"
                )
            }
        };
        let d = cx.report(
            file,
            word.raw(),
            format!(
                "with `ssl_prefer_server_ciphers on`, the server ranks {wn} ({}) above {sn}: {who}",
                reasons(w)
            ),
        );
        for o in on.iter().take(3) {
            d.label(
                o.file().clone(),
                o.span(),
                "the server's order decides the suite",
            );
        }
        if let (Kx::Dhe, Some(DheEnabler::Dhparam(p))) = (w.kx, dhe) {
            d.label(
                p.file().clone(),
                p.span(),
                "DHE suites are enabled by this group",
            );
        }
        d.help = Some(format!(
            "With server preference (OpenSSL's SSL_OP_CIPHER_SERVER_PREFERENCE), the server \
             takes the first suite of its own list that the client offers. Put the ECDHE \
             suites with AES-GCM or ChaCha20-Poly1305 first, or use Mozilla's intermediate \
             list, whose suites are all strong (server preference can then be off): \
             `ssl_ciphers {MOZILLA_INTERMEDIATE};`"
        ));
        return;
    }

    // Client preference with weak suites on offer next to strong ones.
    let client: Vec<&Judged> = judged
        .iter()
        .filter(|j| !matches!(j.pref, Preference::Server(_)))
        .collect();
    let Some(weak) = client
        .iter()
        .map(|j| avoidable(suites_for(j)))
        .find(|w| !w.is_empty())
    else {
        return;
    };
    let mut off: Vec<Directive> = Vec::new();
    let mut by_default = false;
    for j in &client {
        match j.pref {
            Preference::ClientWritten(d) if !off.iter().any(|&o| same_place(o, d)) => off.push(d),
            Preference::ClientDefault => by_default = true,
            _ => {}
        }
    }
    // Server preference is an improvement where this list ranks strong suites first.
    let sound = client.iter().all(|j| server_order_is_sound(suites_for(j)));
    if !cx.claim(file, word.raw()) {
        return;
    }
    let fix = if sound {
        let reach = reach.get_or_insert_with(|| Reach::of(cx, v, cache));
        turn_on(reach, occ, &off, by_default)
    } else {
        None
    };
    let names: Vec<&str> = weak.iter().map(|s| s.name_in(v.openssl)).collect();
    let n = names.len();
    let mut listed = names.iter().take(3).copied().collect::<Vec<_>>().join(", ");
    if n > 3 {
        listed.push_str(", …");
    }
    let who = if off.is_empty() {
        "`ssl_prefer_server_ciphers` is off (nginx's default), so the client picks"
    } else {
        "`ssl_prefer_server_ciphers off` lets the client pick"
    };
    let message = format!(
        "{who} from a list with {n} weak {} ({listed}) next to strong ones: a client that ranks \
         a legacy suite first gets it although a strong one is on offer",
        if n == 1 { "suite" } else { "suites" }
    );
    let d = cx.report(file, word.raw(), message);
    d.severity = Severity::Info;
    for o in off.iter().take(3) {
        d.label(
            o.file().clone(),
            o.span(),
            "the client's order decides the suite",
        );
    }
    let mut help = format!(
        "Without server preference, OpenSSL takes the first suite of the client's list that \
         the server allows. Drop the legacy suites (Mozilla's intermediate list has only strong \
         ones: `ssl_ciphers {MOZILLA_INTERMEDIATE};`), or let the server's order decide with \
         `ssl_prefer_server_ciphers on`, as Mozilla's old profile does"
    );
    if sound && fix.is_some() {
        help.push_str(" (this list ranks a strong suite first).");
    } else if sound {
        help.push_str(
            " (this list ranks a strong suite first; no fix is offered because the setting \
             would also reach a server whose own list does not).",
        );
    } else {
        help.push_str(
            " after moving the ECDHE suites with AES-GCM or ChaCha20-Poly1305 to the front \
             (this list does not rank a strong suite first).",
        );
    }
    d.help = Some(help);
    if let Some(fix) = fix {
        d.with_fix(fix);
    }
}

/// The fix turning server preference on for the blocks that use `occ` with client
/// preference: `off` becomes `on` where written, and `ssl_prefer_server_ciphers on;` goes
/// after the `ssl_ciphers` where nothing is written. `None` when a TLS server that the edits
/// reach (through another configuration or with its own cipher list) would then rank a weak
/// suite first or above a strong one, or its list is not known.
fn turn_on(
    reach: &Reach,
    occ: Directive<'_>,
    off: &[Directive<'_>],
    by_default: bool,
) -> Option<Fix> {
    let mut edits: Vec<Edit> = Vec::new();
    for &d in off {
        if reach.prefer.get(&Place::of(d)) == Some(&false) {
            return None;
        }
        edits.push(d.arg(0)?.replace("on"));
    }
    if by_default {
        // The servers on nginx's default within the blocks this `ssl_ciphers` is written in,
        // in every configuration that reads it.
        let blocks = reach
            .ciphers
            .get(&Place::of(occ))
            .map_or(&[][..], Vec::as_slice);
        if blocks
            .iter()
            .any(|b| reach.default_within.get(b) == Some(&false))
        {
            return None;
        }
        edits.push(occ.insert_after(&format!("{PREFER} on;")));
    }
    let title = if by_default && off.is_empty() {
        "Add `ssl_prefer_server_ciphers on` after `ssl_ciphers`"
    } else {
        "Turn `ssl_prefer_server_ciphers` on"
    };
    Some(Fix::unsafe_(title, edits))
}

/// A directive's place: its file's path and its span (one place, one occurrence per
/// configuration that reads it).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Place(std::path::PathBuf, crate::source::Span);

impl Place {
    fn of(d: Directive<'_>) -> Place {
        Place(d.file().path.clone(), d.span())
    }
}

/// A block of one configuration: the configuration's index and the block's occurrence.
type BlockKey = (usize, crate::stack::expanded::OccId);

/// Which TLS servers the fix's edits would reach, and whether server preference would be
/// sound in each, worked out once per run for every TLS server (not once per finding: a
/// finding in each of thousands of vhosts would make that quadratic).
struct Reach {
    /// Per `ssl_prefer_server_ciphers`: whether every TLS server whose value it is would be.
    prefer: std::collections::HashMap<Place, bool>,
    /// Per block: whether every TLS server within it on nginx's default would be.
    default_within: std::collections::HashMap<BlockKey, bool>,
    /// Per `ssl_ciphers`: the blocks it is written in, per configuration that reads it.
    ciphers: std::collections::HashMap<Place, Vec<BlockKey>>,
}

impl Reach {
    fn of(cx: &Context<'_>, v: Versions, cache: &mut CipherCache) -> Reach {
        let mut reach = Reach {
            prefer: Default::default(),
            default_within: Default::default(),
            ciphers: Default::default(),
        };
        let key = |i: usize, b: Block<'_>| {
            (
                i,
                b.directive()
                    .map_or(crate::stack::expanded::NO_PARENT, |d| d.occ()),
            )
        };
        for (i, inst) in cx.stack.nginx.iter().enumerate() {
            for o in crate::analysis::cursor::named(inst, "ssl_ciphers") {
                if let Some(b) = written_in(o) {
                    reach
                        .ciphers
                        .entry(Place::of(o))
                        .or_default()
                        .push(key(i, b));
                }
            }
            for server in tls_servers(inst) {
                let block: Block = server.server.into();
                let sound = sound_with_server_order(block, v, cache);
                match source(block, PREFER) {
                    Source::Set(p) => *reach.prefer.entry(Place::of(p)).or_insert(true) &= sound,
                    Source::Default => {
                        // The server and every block around it, up to the main context.
                        let mut at = Some(server.server);
                        while let Some(d) = at {
                            *reach.default_within.entry(key(i, d.into())).or_insert(true) &= sound;
                            at = d.parent();
                        }
                        *reach
                            .default_within
                            .entry(key(i, Block::main(inst)))
                            .or_insert(true) &= sound;
                    }
                    Source::Unknown => {}
                }
            }
        }
        reach
    }
}

/// Whether a server would negotiate soundly with server preference on.
fn sound_with_server_order(block: Block<'_>, v: Versions, cache: &mut CipherCache) -> bool {
    let protocols = protocols_of(block, v.nginx);
    if !uses_cipher_string(protocols.as_deref()) {
        return true; // TLS 1.3 only: the order of the cipher string is never used
    }
    if conf_command(block, &["Options", "CipherString"]) {
        return false;
    }
    let Some((spec, _)) = ciphers_of(block, v.nginx) else {
        return false;
    };
    let Ok(e) = cache.expand(&spec, v.openssl) else {
        return false;
    };
    server_order_is_sound(&usable(e, v, dhe_enabler(block, v).is_some()))
}
