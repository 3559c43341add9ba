//! NGX141 hostname-resolved-once: a backend given by host name in `proxy_pass` /
//! `grpc_pass`, or in an `upstream`'s `server` without `resolve`, is looked up once, when
//! nginx reads its configuration; nginx keeps connecting to those addresses until it is
//! reloaded, whatever DNS says later (a container restarted with a new address, a cloud load
//! balancer that moved). `resolver` is not used for such names: only addresses built from
//! variables, and `server … resolve` (open source nginx since 1.27.3, changes.xml), are
//! resolved at run time.
//!
//! Silent for an address with any variable (`http://$backend`, `http://api.example$request_uri`:
//! evaluated and resolved per request through `resolver`), IP addresses, unix sockets, `localhost`, Kubernetes Service names
//! (`api.default.svc.cluster.local`: a Service's virtual IP stays while the Service exists;
//! a pod's name under a headless Service is still reported), names of `upstream` blocks (anywhere
//! in the stack: a snippet may pass to an upstream defined in a file it is not read with),
//! and, in a snippet nothing includes, single-label names without a port (likely an upstream
//! defined elsewhere). A Warning for cloud load-balancer and platform names, whose addresses
//! are documented to change.

use crate::analysis::cursor::{named, Directive, Word};
use crate::analysis::pass_target::PassTarget;
use crate::diagnostic::Severity;
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::rules::{Context, Rule};
use crate::stack::expanded::OccId;

declare_rule! {
    pub struct HostnameResolvedOnce;
    code: NGX141,
    name: "hostname-resolved-once",
    lang: nginx,
    category: Reliability,
    severity: Info,
    fix: None,
    group: Default,
}

/// Domains whose addresses change under the name by design: load balancers and platforms
/// that move (AWS documents that ELB node addresses change; so do CDN and PaaS front ends).
const DYNAMIC: &[&str] = &[
    ".amazonaws.com",
    ".cloudfront.net",
    ".azurewebsites.net",
    ".cloudapp.azure.com",
    ".azureedge.net",
    ".herokuapp.com",
    ".appspot.com",
    ".run.app",
];

fn is_dynamic(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    DYNAMIC.iter().any(|d| h.ends_with(d))
}

/// Whether `host` can be a DNS host name at all: template placeholders (`%ip%`,
/// `<PHP_SOCKET>`, `IP_1`) are filled in before nginx reads the file, to whatever address.
fn is_host_name(host: &str) -> bool {
    !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
}

/// Names whose address does not move: resolved from the hosts file (`localhost`), or a
/// Kubernetes Service's cluster DNS name (`api.default.svc.cluster.local`, `api.default.svc`:
/// service and namespace), which answers with the Service's virtual IP for as long as the
/// Service exists however its pods come and go. A pod's name under a headless Service
/// (`db-0.db.default.svc.cluster.local`) answers with the pod's own address, which a
/// restarted pod changes: not stable.
fn is_stable(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    let service = h
        .strip_suffix(".svc.cluster.local")
        .or_else(|| h.strip_suffix(".svc"))
        .is_some_and(|name| name.split('.').count() == 2);
    h == "localhost" || h.ends_with(".localhost") || service
}

impl Rule for HostnameResolvedOnce {
    fn check(&self, cx: &mut Context<'_>) {
        let version = cx.nginx_version();
        // `resolve` in open source nginx's `upstream` `server` since 1.27.3.
        let has_resolve = version.is_none_or(|v| v.at_least(1, 27, 3));
        // Every upstream name of the stack, lowercase.
        let upstreams: FxHashSet<String> = cx
            .nginx_directives("upstream")
            .filter_map(|u| u.arg(0).map(|a| a.value().to_ascii_lowercase()))
            .collect();
        for inst in &cx.stack.nginx {
            // (server, host) → the first pass and how many more.
            let mut groups: FxHashMap<(Option<OccId>, String), usize> = FxHashMap::default();
            let mut found: Vec<(Directive<'_>, Word<'_>, String, usize)> = Vec::new();
            for name in ["proxy_pass", "grpc_pass"] {
                for d in named(inst, name) {
                    let Some(arg) = d.arg(0) else { continue };
                    let value = arg.value();
                    let target = PassTarget::parse(&value, name == "proxy_pass");
                    // `proxy_pass` in `stream` has no scheme and takes an upstream name
                    // or address; only http's is read here.
                    if target.scheme.is_empty() && name == "proxy_pass" {
                        continue;
                    }
                    // Any variable in the address makes nginx evaluate it per request and
                    // look the host up then, through `resolver` (ngx_http_proxy_eval;
                    // `nginx -t` does not resolve `http://name$request_uri` at all): the
                    // host is not resolved once even when only the URI part is variable.
                    if target.unix
                        || value.contains('$')
                        || !is_host_name(target.host)
                        || target.host_is_ip()
                        || is_stable(target.host)
                    {
                        continue;
                    }
                    let host = target.host.to_ascii_lowercase();
                    let has_port = target.authority.len() > target.host.len();
                    if upstreams.contains(&host) {
                        continue;
                    }
                    if inst.standalone && !host.contains('.') && !has_port {
                        continue;
                    }
                    let key = (d.enclosing("server").map(|s| s.occ()), host.clone());
                    match groups.get(&key) {
                        Some(&i) => found[i].3 += 1,
                        None => {
                            groups.insert(key, found.len());
                            found.push((d, arg, target.host.to_string(), 0));
                        }
                    }
                }
            }
            for (d, arg, host, more) in found {
                let resolver = d.inherited("resolver").next().is_some();
                let also = match more {
                    0 => String::new(),
                    n => format!(" (and {n} more `{}` to it in this server)", d.name()),
                };
                let unused = if resolver {
                    "; the `resolver` here is not used for it"
                } else {
                    ""
                };
                let dynamic = is_dynamic(&host);
                let moving = if dynamic {
                    ": this platform's addresses change, and nginx keeps connecting to the old ones until reloaded"
                } else {
                    ": if its address changes, nginx keeps connecting to the old one until reloaded"
                };
                let r = cx.report(
                    d.file(),
                    arg.raw(),
                    format!("`{host}` is resolved once, when nginx starts{moving}{unused}{also}"),
                );
                if dynamic {
                    r.severity = Severity::Warning;
                }
                r.help = Some(format!(
                    "put it in an `upstream` with `zone` and `server {host} resolve;`{} and a `resolver`, or set it in a variable (`set $backend {host}; {} http://$backend…`) so `resolver` looks it up as its TTL expires",
                    if has_resolve { " (nginx 1.27.3 and later)" } else { " (needs nginx 1.27.3)" },
                    d.name()
                ));
            }
        }
        for d in cx.nginx_directives("server") {
            if d.parent().is_none_or(|p| p.name() != "upstream") {
                continue;
            }
            let Some(addr) = d.arg(0) else { continue };
            // `resolve` asks for run-time resolution; `service=` (SRV) implies it.
            if d.args()
                .skip(1)
                .any(|a| a.is("resolve") || a.value().starts_with("service="))
            {
                continue;
            }
            let value = addr.value();
            let target = PassTarget::parse(&value, false);
            if target.unix
                || !is_host_name(target.host)
                || target.host_is_ip()
                || is_stable(target.host)
                || value.contains('$')
            {
                continue;
            }
            let host = target.host.to_string();
            let upstream = d
                .parent()
                .and_then(|u| u.arg(0))
                .map_or_else(String::new, |a| a.value().into_owned());
            let zone = d.siblings("zone").next().is_some();
            let dynamic = is_dynamic(&host);
            let moving = if dynamic {
                ": this platform's addresses change, and nginx keeps connecting to the old ones until reloaded"
            } else {
                ": if its address changes, nginx keeps connecting to the old one until reloaded"
            };
            let r = cx.report(
                d.file(),
                addr.raw(),
                format!(
                    "`{host}` in upstream `{upstream}` is resolved once, when nginx starts{moving}"
                ),
            );
            if dynamic {
                r.severity = Severity::Warning;
            }
            let zone = if zone {
                ""
            } else {
                ", a `zone` in the upstream"
            };
            r.help = Some(if has_resolve {
                format!("add the `resolve` parameter (`server {value} resolve;`){zone} and a `resolver` (open source nginx 1.27.3 and later)")
            } else {
                format!("nginx 1.27.3 added `server {value} resolve;` (with a `zone` and a `resolver`); before it, pass to a variable (`set $backend {host}; proxy_pass http://$backend;`) with a `resolver`")
            });
        }
    }
}
