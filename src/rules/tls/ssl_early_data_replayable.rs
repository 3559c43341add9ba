//! NGX182 ssl-early-data-replayable: `ssl_early_data on` in a TLS server that hands requests
//! to an application (`proxy_pass`, `fastcgi_pass`, …) while nothing in the configuration
//! reads `$ssl_early_data`. TLS 1.3 early data (0-RTT) can be replayed by anyone who
//! recorded it: nginx's documentation says "requests sent within early data are subject to
//! replay attacks. To protect against such attacks at the application layer, the
//! `$ssl_early_data` variable should be used". A replayed POST to PHP runs twice (a
//! payment, a password change, a message sent).
//!
//! Silent when any directive of the configuration uses `$ssl_early_data` (forwarded as
//! `Early-Data` so the application can answer 425, or checked in an `if`/`map`), when the
//! server's `ssl_protocols` leave out TLSv1.3 (no early data then), and for a server that
//! only serves files or `return`s.

use crate::analysis::cursor::{self, Block, Directive};
use crate::analysis::pass_target::PASSES;
use crate::analysis::tls_settings::{protocols_of, tls_servers, Versions};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct SslEarlyDataReplayable;
    code: NGX182,
    name: "ssl-early-data-replayable",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

impl Rule for SslEarlyDataReplayable {
    fn check(&self, cx: &mut Context<'_>) {
        let v = Versions::of(cx.host);
        for inst in &cx.stack.nginx {
            // The whole configuration is searched for `$ssl_early_data` only where early
            // data is set at all.
            if cursor::named(inst, "ssl_early_data").next().is_none()
                || reads_early_data_variable(inst)
            {
                continue;
            }
            for tls in tls_servers(inst) {
                let block = Block::from(tls.server);
                let Some(on) = block.effective("ssl_early_data").last() else {
                    continue;
                };
                let Some(arg) = on.arg(0).filter(|a| a.value().eq_ignore_ascii_case("on")) else {
                    continue;
                };
                let tls13 = protocols_of(block, v.nginx)
                    .is_none_or(|p| p.iter().any(|p| p.eq_ignore_ascii_case("TLSv1.3")));
                if !tls13 {
                    continue;
                }
                let Some(pass) = first_pass(tls.server) else {
                    continue;
                };
                // One finding per `ssl_early_data`, naming the first server it applies to.
                if !cx.claim(on.file(), arg.raw()) {
                    continue;
                }
                let target = pass
                    .arg(0)
                    .map(|a| a.value().into_owned())
                    .unwrap_or_default();
                let diag = cx.report(
                    on.file(),
                    arg.raw(),
                    format!(
                        "`ssl_early_data on` lets TLS 1.3 clients send requests in 0-RTT data, \
                         which an attacker who recorded them can replay; this server hands \
                         requests to `{} {target}` and nothing reads `$ssl_early_data`, so the \
                         application cannot tell a replayed POST from a new one",
                        pass.name()
                    ),
                );
                diag.label(
                    pass.file().clone(),
                    pass.span(),
                    "requests go to the application here",
                );
                diag.help = Some(
                    "turn it off (`ssl_early_data off;`), or forward the flag so the application \
                     can refuse non-idempotent requests with 425 Too Early \
                     (`proxy_set_header Early-Data $ssl_early_data;`, `fastcgi_param \
                     HTTP_EARLY_DATA $ssl_early_data;`)"
                        .to_string(),
                );
            }
        }
    }
}

/// Whether any argument of the configuration uses `$ssl_early_data` (the bytes are looked
/// at first: parsing every argument as a script would cost more than the rule).
fn reads_early_data_variable(inst: &crate::stack::model::NginxInstance) -> bool {
    (0..inst.expanded.occurrences.len() as u32).any(|occ| {
        Directive::new(inst, occ).args().any(|a| {
            let raw = a.raw_bytes();
            raw.windows(14)
                .any(|w| w.eq_ignore_ascii_case(b"ssl_early_data"))
                && a.variables()
                    .parts
                    .iter()
                    .any(|p| p.kind.key().as_deref() == Some("ssl_early_data"))
        })
    })
}

/// The first directive inside `server` that hands requests to an application.
fn first_pass(server: Directive<'_>) -> Option<Directive<'_>> {
    let inst = server.instance();
    let within = Block::from(server);
    PASSES
        .iter()
        .flat_map(|name| cursor::named(inst, name))
        .filter(|p| Block::from(*p).is_within(within))
        .min_by_key(|p| p.occ())
}
