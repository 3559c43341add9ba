//! NGX160 resolver-missing: a name nginx must resolve while it runs, with no `resolver` to
//! ask (or, for an `upstream`, no shared memory to keep the answers in).
//!
//! Two places make nginx resolve names at run time (ngx_http_upstream.c,
//! ngx_http_upstream_round_robin.c):
//!
//! - an `upstream`'s `server name resolve;` (open source nginx 1.27.3 and later). nginx
//!   refuses to start without a `zone` in the upstream ("resolving names at run time
//!   requires upstream … to be in shared memory") and without a `resolver` in the upstream
//!   or in `http` ("no resolver defined to resolve names at run time in upstream …"); a
//!   `resolver` in a `server` block is not the upstream's;
//! - a `*_pass` whose host is a variable: per request nginx looks the value up among the
//!   `upstream` blocks (and the backends other `*_pass` directives name literally), uses an
//!   address as it is, and asks the `resolver` in effect at the location for anything else.
//!   Without one, every such request fails with 502 ("no resolver defined to resolve …").
//!   Reported only when the variable's every definition in the configuration is a literal
//!   (`set $backend api.internal;`, a `map` of literal values), so the names it can hold
//!   are known, and one of them is a name no `upstream` or literal `*_pass` gives.
//!
//! Neither is judged where the enclosing `http` block was not read (a snippet linted on its
//! own): the `resolver` may be there.

use crate::analysis::cursor::{named, Directive};
use crate::analysis::pass_target::{PassTarget, PASSES};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::rules::{Context, Rule};
use crate::stack::model::NginxInstance;

declare_rule! {
    pub struct ResolverMissing;
    code: NGX160,
    name: "resolver-missing",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: None,
    group: Default,
}

impl Rule for ResolverMissing {
    fn check(&self, cx: &mut Context<'_>) {
        let version = cx.nginx_version();
        // Before 1.27.3 `resolve` is an unknown parameter in open source nginx (NGINX Plus
        // had it): what nginx says then is another matter than a missing resolver.
        if version.is_none_or(|v| v.at_least(1, 27, 3)) {
            for inst in &cx.stack.nginx {
                upstream_servers(cx, inst);
            }
        }
        for inst in &cx.stack.nginx {
            variable_passes(cx, inst);
        }
    }
}

/// `server … resolve` in an upstream without a `zone`, or without a resolver.
fn upstream_servers(cx: &mut Context<'_>, inst: &NginxInstance) {
    for upstream in named(inst, "upstream") {
        if upstream.enclosing("http").is_none() {
            continue; // a stream upstream, or one whose http block was not read
        }
        let Some(server) = upstream
            .children("server")
            .find(|s| s.args().skip(1).any(|a| a.is("resolve")))
        else {
            continue;
        };
        let name = upstream
            .arg(0)
            .map_or_else(String::new, |a| a.value().into_owned());
        let resolve = server
            .args()
            .skip(1)
            .find(|a| a.is("resolve"))
            .expect("found by its resolve parameter");
        if upstream.children("zone").next().is_none() {
            let d = cx.report(
                server.file(),
                resolve.raw(),
                format!(
                    "nginx will not start: resolving names at run time requires upstream \
                     `{name}` to be in shared memory, and it has no `zone`"
                ),
            );
            d.label(
                upstream.file().clone(),
                upstream.span(),
                "no `zone` in this upstream",
            );
            d.help = Some(format!(
                "add `zone {name} 64k;` to the upstream: the addresses it resolves are kept \
                 there for every worker"
            ));
            continue;
        }
        // The upstream's own `resolver` (1.27.3), else the one of `http` where it stands.
        let has_resolver = upstream.children("resolver").next().is_some()
            || upstream.inherited("resolver").next().is_some();
        if !has_resolver {
            let d = cx.report(
                server.file(),
                resolve.raw(),
                format!(
                    "nginx will not start: no resolver defined to resolve names at run time in \
                     upstream `{name}`"
                ),
            );
            d.help = Some(
                "add a `resolver` (your DNS server's address, e.g. `resolver 127.0.0.53;`) in \
                 the upstream or in `http`; one in a `server` block is not the upstream's"
                    .to_string(),
            );
        }
    }
}

/// What a variable may hold, when the configuration says so with literals only.
enum Values {
    /// Every definition is a literal: these.
    Literals(Vec<String>),
    /// A definition holds a variable, or the variable is nginx's own: not known.
    Unknown,
}

/// A `*_pass` to a variable that names a host nginx must resolve, with no `resolver`.
fn variable_passes(cx: &mut Context<'_>, inst: &NginxInstance) {
    // Built on first need: most configurations have no variable in a pass target.
    let mut known: Option<Known> = None;
    for &name in PASSES {
        for d in named(inst, name) {
            let Some(arg) = d.arg(0) else { continue };
            let value = arg.value();
            let target = PassTarget::parse(&value, name == "proxy_pass");
            if target.unix || !target.host_has_variables() {
                continue;
            }
            // `proxy_pass $scheme://…`: with no literal scheme the parts are not known.
            if matches!(name, "proxy_pass" | "grpc_pass") && target.scheme.is_empty() {
                continue;
            }
            // Only a host that is one variable (with a literal port at most) is read.
            let Some(var) = sole_variable(target.host) else {
                continue;
            };
            if d.enclosing("http").is_none() || d.inherited("resolver").next().is_some() {
                continue;
            }
            let known = known.get_or_insert_with(|| Known::of(inst));
            let Values::Literals(values) = known.values(&var) else {
                continue;
            };
            let Some(host) = values.iter().find(|v| known.needs_resolver(v)) else {
                continue;
            };
            let diag = cx.report(
                d.file(),
                arg.raw(),
                format!(
                    "every request here fails with 502: `${var}` can be `{host}`, a name nginx \
                     must resolve per request, and no `resolver` is defined for this location"
                ),
            );
            for &def in known.definitions(&var).iter().take(2) {
                diag.label(
                    def.file().clone(),
                    def.span(),
                    format!("`${var}` is set here"),
                );
            }
            diag.help = Some(format!(
                "add a `resolver` (your DNS server's address) in this location, its server or \
                 `http`; or name an `upstream {host} {{ … }}`, which nginx uses without asking DNS"
            ));
        }
    }
}

/// `$name` (or `${name}`) when `host` is that variable alone.
fn sole_variable(host: &str) -> Option<String> {
    let rest = host.strip_prefix('$')?;
    let name = match rest.strip_prefix('{') {
        Some(inner) => inner.strip_suffix('}')?,
        None => rest,
    };
    let ok = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    ok.then(|| name.to_ascii_lowercase())
}

/// What one configuration says about variables and backends, for all its pass targets.
struct Known<'a> {
    /// `set $name …` and `map … $name` definitions, by lowercase name.
    defs: FxHashMap<String, Vec<Directive<'a>>>,
    /// Names nginx finds without DNS: `upstream` blocks and the hosts literal `*_pass`
    /// targets name (implicit upstreams), lowercase.
    upstreams: FxHashSet<String>,
}

impl<'a> Known<'a> {
    fn of(inst: &'a NginxInstance) -> Known<'a> {
        let mut defs: FxHashMap<String, Vec<Directive<'a>>> = FxHashMap::default();
        for d in named(inst, "set") {
            if let Some(v) = d.arg(0).and_then(|a| sole_variable(&a.value())) {
                defs.entry(v).or_default().push(d);
            }
        }
        for d in named(inst, "map") {
            if let Some(v) = d.arg(1).and_then(|a| sole_variable(&a.value())) {
                defs.entry(v).or_default().push(d);
            }
        }
        let mut upstreams: FxHashSet<String> = named(inst, "upstream")
            .filter_map(|u| u.arg(0).map(|a| a.value().to_ascii_lowercase()))
            .collect();
        for &name in PASSES {
            for d in named(inst, name) {
                if let Some(a) = d.arg(0) {
                    let value = a.value();
                    let t = PassTarget::parse(&value, name == "proxy_pass");
                    if !t.unix && !t.host_has_variables() {
                        upstreams.insert(t.host.to_ascii_lowercase());
                    }
                }
            }
        }
        Known { defs, upstreams }
    }

    fn definitions(&self, var: &str) -> &[Directive<'a>] {
        self.defs.get(var).map_or(&[], Vec::as_slice)
    }

    /// The literal values `$var` can hold (a `map`'s values, `default` included).
    fn values(&self, var: &str) -> Values {
        let defs = self.definitions(var);
        if defs.is_empty() {
            return Values::Unknown; // nginx's own variable, or set by a module
        }
        let mut out = Vec::new();
        for d in defs {
            let literal = |text: &str| (!text.contains('$')).then(|| text.to_string());
            match d.name() {
                "set" => match d.arg(1).and_then(|a| literal(&a.value())) {
                    Some(v) => out.push(v),
                    None => return Values::Unknown,
                },
                _ => {
                    let entries = d.entries();
                    let mut has_default = false;
                    for (key, value) in entries {
                        let key = key.value();
                        if matches!(key.as_ref(), "hostnames" | "volatile") {
                            continue;
                        }
                        has_default |= key == "default";
                        match value.and_then(|v| literal(&v.value())) {
                            Some(v) => out.push(v),
                            None => return Values::Unknown,
                        }
                    }
                    if !has_default {
                        // Unmatched requests get the empty string: no name to resolve.
                        out.push(String::new());
                    }
                }
            }
        }
        Values::Literals(out)
    }

    /// Whether a value used as a pass host sends nginx to DNS: a host name that is no
    /// `upstream` and no literal backend (an address, empty or a template is not).
    fn needs_resolver(&self, value: &str) -> bool {
        let t = PassTarget::parse(value, false);
        let host = t.host;
        !host.is_empty()
            && !t.unix
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
            && host.bytes().any(|b| b.is_ascii_alphabetic())
            && !t.host_is_ip()
            && !self.upstreams.contains(&host.to_ascii_lowercase())
    }
}
