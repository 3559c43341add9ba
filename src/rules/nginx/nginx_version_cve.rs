//! NGX138 nginx-version-cve: the nginx version in `[host] nginx` has a published security
//! advisory that this configuration can reach — the resolver bugs need `resolver`, the mp4
//! ones `mp4`, the HTTP/2 and HTTP/3 ones those protocols enabled, the mail ones the mail
//! directives. One finding per advisory and configuration, at the first directive that
//! enables it; nothing without `[host] nginx`, nothing on fixed versions.
//!
//! The table (analysis::nginx_advisories) is generated from nginx.org's
//! security_advisories.xml by scripts/gen-nginx-advisories.py.

use crate::analysis::cursor::{named, Directive};
use crate::analysis::nginx_advisories::{has_nested_captures, Cond, ADVISORIES, V};

/// The advisories a rule of their own judges from the exact pattern that triggers them
/// (NGX134 rewrite-args-capture-overflow, NGX135 overlapping-captures-overflow, NGX136
/// map-unnamed-capture): reported there, once, rather than here for any `rewrite` or `map`.
const JUDGED_ELSEWHERE: [&str; 3] = ["CVE-2026-42945", "CVE-2026-9256", "CVE-2026-42533"];
use crate::analysis::tls_settings::NginxVersion;
use crate::rules::{Context, Rule};
use crate::stack::model::NginxInstance;

declare_rule! {
    pub struct NginxVersionCve;
    code: NGX138,
    name: "nginx-version-cve",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
}

/// The first directive of `inst` that meets `cond`.
fn meets<'a>(inst: &'a NginxInstance, cond: Cond) -> Option<Directive<'a>> {
    let not_off = |d: &Directive<'_>| d.arg(0).is_none_or(|a| !a.is("off"));
    match cond {
        Cond::Directive(name) => named(inst, name).find(not_off),
        Cond::Argument(name, value) => named(inst, name).find(|d| d.args().any(|a| a.is(value))),
        Cond::Inside(name, block) => {
            named(inst, name).find(|d| not_off(d) && d.enclosing(block).is_some())
        }
        Cond::Http2 => listen_with(inst, "http2")
            .or_else(|| named(inst, "http2").find(|d| d.arg(0).is_some_and(|a| a.is("on")))),
        Cond::Http3 => listen_with(inst, "quic")
            .or_else(|| named(inst, "http3").find(|d| d.arg(0).is_some_and(|a| a.is("on")))),
        Cond::Listen(param) => listen_with(inst, param),
        Cond::TlsUpstream => named(inst, "proxy_pass")
            .find(|d| {
                d.arg(0)
                    .is_some_and(|a| starts_with_ci(&a.value(), "https://"))
            })
            .or_else(|| {
                named(inst, "grpc_pass").find(|d| {
                    d.arg(0)
                        .is_some_and(|a| starts_with_ci(&a.value(), "grpcs://"))
                })
            }),
        Cond::NestedRewriteCaptures => named(inst, "rewrite")
            .find(|d| d.arg(0).is_some_and(|a| has_nested_captures(&a.bytes()))),
        // Whatever serves HTTP: the `http` block, or a server of a snippet.
        Cond::Any => named(inst, "http").next().or_else(|| {
            named(inst, "server").find(|s| s.parent().is_none_or(|p| p.name() == "http"))
        }),
    }
}

fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// A `listen` in http with this parameter.
fn listen_with<'a>(inst: &'a NginxInstance, param: &str) -> Option<Directive<'a>> {
    named(inst, "listen").find(|l| {
        l.enclosing("stream").is_none()
            && l.enclosing("mail").is_none()
            && l.args().skip(1).any(|a| a.is(param))
    })
}

impl Rule for NginxVersionCve {
    fn check(&self, cx: &mut Context<'_>) {
        let Some(fact) = cx.host.nginx.as_ref() else {
            return;
        };
        let Some(NginxVersion(a, b, c)) = NginxVersion::parse(&fact.value) else {
            return;
        };
        let version = V(a, b, c);
        for inst in &cx.stack.nginx {
            for adv in ADVISORIES
                .iter()
                .filter(|adv| adv.affects(version) && !JUDGED_ELSEWHERE.contains(&adv.cve))
            {
                let hit = adv.triggers.iter().find_map(|all| {
                    let found: Option<Vec<Directive<'_>>> =
                        all.iter().map(|&c| meets(inst, c)).collect();
                    found
                });
                let Some(directives) = hit else { continue };
                let Some(&first) = directives.first() else {
                    continue;
                };
                let names: Vec<String> = directives
                    .iter()
                    .map(|d| format!("`{}`", d.name()))
                    .collect();
                let fixed = adv
                    .fixed_for(version)
                    .map_or_else(String::new, |f| format!("; fixed in {f}"));
                let found = cx.report(
                    first.file(),
                    first.span(),
                    format!(
                        "nginx {version} is affected by {} ({}, {} severity), which this configuration reaches through {}{fixed}",
                        adv.cve,
                        adv.name,
                        adv.severity,
                        names.join(" and ")
                    ),
                );
                for d in directives.iter().skip(1) {
                    found.label(d.file().clone(), d.span(), "also needed");
                }
                found.help = Some(format!(
                    "upgrade nginx (or apply the distribution's patched package){}; advisory: {}",
                    adv.fixed_for(version)
                        .map_or_else(String::new, |f| format!(" to {f} or later")),
                    if adv.url.is_empty() {
                        "https://nginx.org/en/security_advisories.html"
                    } else {
                        adv.url
                    }
                ));
            }
        }
    }
}
