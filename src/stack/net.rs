//! Network addresses as nginx writes them (`fastcgi_pass`, upstream `server`, `listen`) and
//! as php-fpm writes them (`listen`), and whether one reaches the other. The cross-file
//! rules (a `fastcgi_pass` must reach a pool; backlogs must agree) stand on this.

use super::expanded::{OccId, View, NO_PARENT};
use super::fpm::Listen;
use super::model::NginxInstance;
use std::collections::HashMap;

/// Where nginx connects or listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Addr {
    Unix(String),
    Tcp { host: Option<String>, port: u16 },
}

impl Addr {
    /// Parses an nginx address: `unix:/path`, `host:port`, `[v6]:port`, `port`, `host`
    /// (with `default_port`). `None` for values with variables, which are decided per request.
    pub fn parse(value: &str, default_port: u16) -> Option<Addr> {
        let v = value.trim();
        if v.contains('$') || v.is_empty() {
            return None;
        }
        if let Some(path) = v.strip_prefix("unix:") {
            return Some(Addr::Unix(path.to_string()));
        }
        let v = v.split_once("://").map_or(v, |(_, rest)| rest);
        let v = v.split('/').next().unwrap_or(v);
        if v.bytes().all(|b| b.is_ascii_digit()) {
            return v.parse().ok().map(|port| Addr::Tcp { host: None, port });
        }
        if let Some(rest) = v.strip_prefix('[') {
            let (host, tail) = rest.split_once(']')?;
            let port = match tail.strip_prefix(':') {
                Some(p) => p.parse().ok()?,
                None => default_port,
            };
            return Some(Addr::Tcp {
                host: Some(host.to_string()),
                port,
            });
        }
        match v.rsplit_once(':') {
            Some((host, port)) => {
                let port = port.parse().ok()?;
                let host = (host != "*" && host != "0.0.0.0").then(|| host.to_string());
                Some(Addr::Tcp { host, port })
            }
            None => Some(Addr::Tcp {
                host: Some(v.to_string()),
                port: default_port,
            }),
        }
    }

    /// A loopback TCP address (`127.0.0.0/8`, `localhost`, `::1`).
    pub fn is_loopback_tcp(&self) -> bool {
        matches!(self, Addr::Tcp { host: Some(h), .. } if is_loopback(h))
    }
}

impl std::fmt::Display for Addr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Addr::Unix(p) => write!(f, "unix:{p}"),
            Addr::Tcp { host: None, port } => write!(f, "*:{port}"),
            Addr::Tcp {
                host: Some(h),
                port,
            } if h.contains(':') => write!(f, "[{h}]:{port}"),
            Addr::Tcp {
                host: Some(h),
                port,
            } => write!(f, "{h}:{port}"),
        }
    }
}

pub fn is_loopback(host: &str) -> bool {
    host == "localhost" || host == "::1" || host.starts_with("127.")
}

fn normalize_path(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    for (i, part) in p.split('/').enumerate() {
        if part.is_empty() && i > 0 || part == "." {
            continue;
        }
        if i > 0 {
            out.push('/');
        }
        out.push_str(part);
    }
    out
}

/// Whether nginx connecting to `target` reaches a pool listening on `listen`.
/// `9000` (every address) accepts `127.0.0.1:9000`; `127.0.0.1:9000` accepts `localhost:9000`.
pub fn reaches(target: &Addr, listen: &Listen) -> bool {
    match (target, listen) {
        (Addr::Unix(a), Listen::Unix { path }) => normalize_path(a) == normalize_path(path),
        (
            Addr::Tcp { host, port },
            Listen::Tcp {
                host: lhost,
                port: lport,
            },
        ) => {
            if port != lport {
                return false;
            }
            match (host, lhost) {
                (_, None) => true,
                (None, Some(_)) => false,
                (Some(a), Some(b)) => {
                    a == b || (is_loopback(a) && is_loopback(b) && same_family(a, b))
                }
            }
        }
        _ => false,
    }
}

/// `localhost` resolves to both families, so it matches either loopback.
fn same_family(a: &str, b: &str) -> bool {
    let v6 = |h: &str| h.contains(':');
    a == "localhost" || b == "localhost" || v6(a) == v6(b)
}

/// One address a `fastcgi_pass` sends to: directly, or through an `upstream` server.
#[derive(Clone, Debug)]
pub struct FastcgiTarget {
    /// The `fastcgi_pass` occurrence.
    pub pass: OccId,
    /// The upstream `server` occurrence the address comes from, if any.
    pub server: Option<OccId>,
    pub addr: Addr,
}

/// Every address the configuration's `fastcgi_pass` directives connect to. A `fastcgi_pass`
/// naming an `upstream` yields one target per `server` of that upstream; one with variables
/// yields none (its target is decided per request). Found once per configuration.
pub fn fastcgi_targets(inst: &NginxInstance) -> std::sync::Arc<FastcgiTargets> {
    inst.memo.get(|| FastcgiTargets(find_fastcgi_targets(inst)))
}

/// The FastCGI targets of one configuration, in order.
pub struct FastcgiTargets(Vec<FastcgiTarget>);

impl std::ops::Deref for FastcgiTargets {
    type Target = [FastcgiTarget];
    fn deref(&self) -> &[FastcgiTarget] {
        &self.0
    }
}

fn find_fastcgi_targets(inst: &NginxInstance) -> Vec<FastcgiTarget> {
    let view = inst.view();
    let upstreams = upstreams(&view);
    let mut out = Vec::new();
    for pass in view.named("fastcgi_pass") {
        let Some(arg) = view.arg(pass, 0) else {
            continue;
        };
        if let Some(servers) = upstreams.get(arg.as_ref()) {
            for &(server, ref addr) in servers {
                out.push(FastcgiTarget {
                    pass,
                    server: Some(server),
                    addr: addr.clone(),
                });
            }
            continue;
        }
        // fastcgi has no default port in nginx: a bare host means port 80 (ngx_parse_url).
        if let Some(addr) = Addr::parse(&arg, 80) {
            out.push(FastcgiTarget {
                pass,
                server: None,
                addr,
            });
        }
    }
    out
}

/// `upstream NAME { server ADDR …; }` blocks of the http context: name → servers (the
/// first block of a name, as nginx refuses a second one).
pub fn upstreams(view: &View<'_>) -> HashMap<String, Vec<(OccId, Addr)>> {
    let mut out = HashMap::new();
    for up in view.named("upstream") {
        if view.context(up).last().map(|c| c.as_ref()) == Some("stream") {
            continue;
        }
        let Some(name) = view.arg(up, 0).map(|a| a.into_owned()) else {
            continue;
        };
        let servers = view
            .expanded
            .children_named(up, "server")
            .iter()
            .filter_map(|&c| {
                view.arg(c, 0)
                    .and_then(|a| Addr::parse(&a, 80))
                    .map(|a| (c, a))
            })
            .collect();
        out.entry(name).or_insert(servers);
    }
    out
}

/// A `listen` directive of an http `server`, with its backlog.
#[derive(Clone, Debug)]
pub struct ListenInfo {
    pub occ: OccId,
    pub addr: Addr,
    /// `backlog=N`, with the index of that argument.
    pub backlog: Option<(usize, u32)>,
}

/// nginx's default listen backlog on Linux (`NGX_LISTEN_BACKLOG`): 511.
pub const NGINX_DEFAULT_BACKLOG: u32 = 511;

pub fn http_listens(inst: &NginxInstance) -> Vec<ListenInfo> {
    let view = inst.view();
    let mut out = Vec::new();
    for l in view.named("listen") {
        // Directly in a `server` directly in `http`.
        let parent_named = |o: OccId, name: &str| {
            let p = view.expanded.get(o).parent;
            (p != NO_PARENT && view.name(p) == name).then_some(p)
        };
        if parent_named(l, "server")
            .and_then(|s| parent_named(s, "http"))
            .is_none()
        {
            continue;
        }
        let args = view.args(l);
        let Some(first) = args.first() else { continue };
        let Some(addr) = Addr::parse(first, 80) else {
            continue;
        };
        let backlog = args.iter().enumerate().find_map(|(i, a)| {
            a.strip_prefix("backlog=")
                .and_then(|n| n.parse().ok())
                .map(|n| (i, n))
        });
        out.push(ListenInfo {
            occ: l,
            addr,
            backlog,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nginx_addresses() {
        assert_eq!(
            Addr::parse("unix:/run/php/x.sock", 80),
            Some(Addr::Unix("/run/php/x.sock".into()))
        );
        assert_eq!(
            Addr::parse("127.0.0.1:9000", 80),
            Some(Addr::Tcp {
                host: Some("127.0.0.1".into()),
                port: 9000
            })
        );
        assert_eq!(
            Addr::parse("[::1]:9000", 80),
            Some(Addr::Tcp {
                host: Some("::1".into()),
                port: 9000
            })
        );
        assert_eq!(
            Addr::parse("8080", 80),
            Some(Addr::Tcp {
                host: None,
                port: 8080
            })
        );
        assert_eq!(
            Addr::parse("php", 80),
            Some(Addr::Tcp {
                host: Some("php".into()),
                port: 80
            })
        );
        assert_eq!(Addr::parse("$backend", 80), None);
    }

    #[test]
    fn reaching_pools() {
        let t = |s: &str| Addr::parse(s, 80).unwrap();
        let l = |s: &str| Listen::parse(s).unwrap();
        assert!(reaches(&t("127.0.0.1:9000"), &l("9000")));
        assert!(reaches(&t("localhost:9000"), &l("127.0.0.1:9000")));
        assert!(!reaches(&t("127.0.0.1:9001"), &l("9000")));
        assert!(!reaches(&t("10.0.0.5:9000"), &l("127.0.0.1:9000")));
        assert!(reaches(&t("unix:/run/php//x.sock"), &l("/run/php/x.sock")));
        assert!(!reaches(&t("unix:/run/php/x.sock"), &l("9000")));
        assert!(!reaches(&t("[::1]:9000"), &l("127.0.0.1:9000")));
    }
}
