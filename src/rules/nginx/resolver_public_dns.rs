//! NGX142 resolver-public-dns: a `resolver` that sends nginx's DNS queries to a public
//! resolver (8.8.8.8, 1.1.1.1, 9.9.9.9, …) across the internet. nginx's resolver speaks
//! plain DNS over UDP with only a 16-bit query id to match answers, so an off-path attacker
//! who races the real answer can make nginx connect to an address of their choosing; nginx's
//! documentation advises a resolver "in a properly secured trusted local network". The
//! finding is a Warning where a `*_pass` with a variable host is resolved through it (every
//! request may be sent to the spoofed address), Info otherwise (OCSP stapling, upstream
//! `resolve`).

use crate::analysis::cursor::Directive;
use crate::analysis::pass_target::{PassTarget, PASSES};
use crate::diagnostic::Severity;
use crate::fxhash::FxHashMap;
use crate::rules::{Context, Rule};
use std::net::IpAddr;

declare_rule! {
    pub struct ResolverPublicDns;
    code: NGX142,
    name: "resolver-public-dns",
    lang: nginx,
    category: Security,
    severity: Info,
    fix: None,
    group: Hardening,
}

/// Well-known open resolvers reached over the internet, with who runs them. Only these are
/// reported: any other routable address may be the provider's resolver inside its network.
const PUBLIC: &[(&str, &str)] = &[
    ("8.8.8.8", "Google Public DNS"),
    ("8.8.4.4", "Google Public DNS"),
    ("2001:4860:4860::8888", "Google Public DNS"),
    ("2001:4860:4860::8844", "Google Public DNS"),
    ("1.1.1.1", "Cloudflare DNS"),
    ("1.0.0.1", "Cloudflare DNS"),
    ("2606:4700:4700::1111", "Cloudflare DNS"),
    ("2606:4700:4700::1001", "Cloudflare DNS"),
    ("9.9.9.9", "Quad9"),
    ("149.112.112.112", "Quad9"),
    ("2620:fe::fe", "Quad9"),
    ("2620:fe::9", "Quad9"),
    ("208.67.222.222", "OpenDNS"),
    ("208.67.220.220", "OpenDNS"),
    ("4.2.2.1", "Level 3 public DNS"),
    ("4.2.2.2", "Level 3 public DNS"),
    ("64.6.64.6", "Verisign Public DNS"),
    ("64.6.65.6", "Verisign Public DNS"),
    ("77.88.8.8", "Yandex DNS"),
    ("77.88.8.1", "Yandex DNS"),
    ("94.140.14.14", "AdGuard DNS"),
    ("94.140.15.15", "AdGuard DNS"),
    ("114.114.114.114", "114DNS"),
    ("114.114.115.115", "114DNS"),
    ("223.5.5.5", "AliDNS"),
    ("223.6.6.6", "AliDNS"),
    ("119.29.29.29", "DNSPod"),
    ("180.76.76.76", "Baidu DNS"),
    ("8.26.56.26", "Comodo Secure DNS"),
    ("185.228.168.9", "CleanBrowsing"),
];

/// Who runs the resolver at `addr` (`8.8.8.8`, `8.8.8.8:53`, `[2620:fe::fe]:53`), if it
/// is a well-known public one.
fn public(addr: &str) -> Option<&'static str> {
    let host = match addr.strip_prefix('[') {
        Some(inner) => inner.split(']').next().unwrap_or(inner),
        // A bare IPv6 address has several colons; an IPv4 one may carry `:port`.
        None if addr.matches(':').count() > 1 => addr,
        None => addr.split(':').next().unwrap_or(addr),
    };
    let ip: IpAddr = host.parse().ok()?;
    PUBLIC
        .iter()
        .find(|(a, _)| a.parse::<IpAddr>().is_ok_and(|p| p == ip))
        .map(|&(_, who)| who)
}

impl Rule for ResolverPublicDns {
    fn check(&self, cx: &mut Context<'_>) {
        // The resolvers a per-request address is resolved through: each such `*_pass`'s
        // effective `resolver`, collected once.
        // A directive hashes its configuration's address and occurrence, never the
        // configuration's lazily filled contents, so clippy's worry does not apply.
        #[allow(clippy::mutable_key_type)]
        let mut used: FxHashMap<Directive<'_>, Directive<'_>> = FxHashMap::default();
        // Every `*_pass` but `memcached_pass`, which takes no variables; `proxy_pass` may
        // carry a URI after the host.
        let passes = PASSES.iter().filter(|&&p| p != "memcached_pass");
        for (name, with_uri) in passes.map(|&p| (p, p == "proxy_pass")) {
            for d in cx.nginx_directives(name) {
                let Some(arg) = d.arg(0) else {
                    continue;
                };
                let value = arg.value();
                let target = PassTarget::parse(&value, with_uri);
                if target.unix || !target.host_has_variables() {
                    continue;
                }
                for r in d.inherited("resolver") {
                    used.entry(r).or_insert(d);
                }
            }
        }
        for d in cx.nginx_directives("resolver") {
            let found: Vec<_> = d
                .args()
                .filter(|a| !a.value().contains('='))
                .filter_map(|a| public(&a.value()).map(|who| (a, who)))
                .collect();
            let Some(&(first, _)) = found.first() else {
                continue;
            };
            let names: Vec<String> = found
                .iter()
                .map(|(a, who)| format!("{} ({who})", a.value()))
                .collect();
            let pass = used.get(&d).copied();
            let what = match pass {
                Some(p) => format!(
                    "`{}` resolves its host per request through it, so a spoofed answer sends those requests to an attacker's address",
                    p.name()
                ),
                None => "a spoofed answer can point nginx at an attacker's address".to_string(),
            };
            let found = cx.report(
                d.file(),
                first.raw(),
                format!(
                    "`resolver` sends nginx's DNS queries as plain UDP across the internet to {}: {what}",
                    names.join(", ")
                ),
            );
            if let Some(p) = pass {
                found.severity = Severity::Warning;
                let at = p.arg(0).map_or(p.span(), |a| a.raw());
                found.label(p.file().clone(), at, "host resolved per request");
            }
            found.help = Some(
                "use a caching resolver on this host or in your trusted network (`resolver 127.0.0.1;` with unbound/dnsmasq/systemd-resolved, `127.0.0.11` in Docker, the VPC resolver in a cloud)".into(),
            );
        }
    }
}
