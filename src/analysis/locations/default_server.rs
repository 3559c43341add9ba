//! Which server's `merge_slashes` normalises a request: nginx parses the request line
//! before it has read `Host`, so it uses the configuration of the default server of the
//! address and port the connection came to (`ngx_http_process_request_uri`, with the
//! server configuration the connection starts with). A `merge_slashes off` in any other
//! server changes nothing. (Checked against nginx 1.22.1: a non-default server's setting
//! is ignored either way.)
//!
//! The default server of an address is the one whose `listen` for it says
//! `default_server` (or the old `default`), else the first server listening on it. A
//! server without `listen` listens on `*:80`. Addresses are compared as written after
//! nginx's own equivalences (`80`, `*:80` and `0.0.0.0:80` are one); a request to a
//! specific address is served by the servers listening on exactly that address, so
//! `127.0.0.1:80` and `*:80` are different.

use crate::fxhash::FxHashMap as HashMap;
use crate::stack::expanded::{OccId, View};
use crate::stack::net::Addr;

/// An address as nginx tells listening sockets apart: `None` is the wildcard host.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Unix(String),
    Tcp(Option<String>, u16),
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Unix(p) => write!(f, "unix:{p}"),
            Key::Tcp(None, port) => write!(f, "*:{port}"),
            Key::Tcp(Some(h), port) if h.contains(':') => write!(f, "[{h}]:{port}"),
            Key::Tcp(Some(h), port) => write!(f, "{h}:{port}"),
        }
    }
}

/// One server's addresses, each with whether its `listen` marks the server the default.
fn addresses(view: &View<'_>, server: OccId) -> Vec<(Key, bool)> {
    listens(view, server)
        .into_iter()
        .map(|(k, d, _)| (k, d))
        .collect()
}

/// One server's addresses with whether each marks the server the default and the
/// `listen` that says so (`None` for the implicit `*:80` of a server without one).
fn listens(view: &View<'_>, server: OccId) -> Vec<(Key, bool, Option<OccId>)> {
    let listens = view.expanded.children_named(server, "listen");
    if listens.is_empty() {
        return vec![(Key::Tcp(None, 80), false, None)];
    }
    listens
        .iter()
        .filter_map(|&l| {
            // Read without collecting: this runs for every `listen` of every server.
            let mut args = view.arg_iter(l);
            let addr = match Addr::parse(&args.next()?, 80)? {
                Addr::Tcp { host, port } => {
                    Key::Tcp(host.filter(|h| h != "*" && h != "0.0.0.0"), port)
                }
                Addr::Unix(path) => Key::Unix(path),
            };
            let default = args.any(|a| a == "default_server" || a == "default");
            Some((addr, default, Some(l)))
        })
        .collect()
}

/// An address several servers listen on while none is marked `default_server`: nginx
/// answers requests whose Host matches no `server_name` (and requests by bare IP address)
/// with the first of them.
pub struct Unmarked {
    /// The address as nginx tells sockets apart (`*:80`, `127.0.0.1:8080`, `[::]:443`).
    pub address: String,
    /// The servers on it in configuration order, each with its `listen` for the address
    /// (`None` for the implicit `*:80`): the first is the one nginx uses.
    pub servers: Vec<(OccId, Option<OccId>)>,
}

/// Every address of `servers` (in configuration order) shared by two or more of them with
/// no `default_server` among them. Addresses with variables are not read.
pub fn unmarked(view: &View<'_>, servers: &[OccId]) -> Vec<Unmarked> {
    let mut order: Vec<Key> = Vec::new();
    // Per address: whether a server marks it, and the servers on it with their `listen`.
    type OnAddress = (bool, Vec<(OccId, Option<OccId>)>);
    let mut by_key: HashMap<Key, OnAddress> = HashMap::default();
    for &server in servers {
        for (key, marked, listen) in listens(view, server) {
            let entry = by_key.entry(key.clone()).or_insert_with(|| {
                order.push(key);
                (false, Vec::new())
            });
            entry.0 |= marked;
            // A server listening twice on one address (`listen 80; listen 80 ssl;` is an
            // nginx error anyway) counts once.
            if entry.1.last().map(|&(s, _)| s) != Some(server) {
                entry.1.push((server, listen));
            }
        }
    }
    order
        .into_iter()
        .filter_map(|key| {
            let (marked, list) = by_key.remove(&key)?;
            (!marked && list.len() >= 2).then(|| Unmarked {
                address: key.to_string(),
                servers: list,
            })
        })
        .collect()
}

/// The addresses (shown as in [`Unmarked::address`]) on which one of `servers` is marked
/// `default_server`.
pub fn marked(view: &View<'_>, servers: &[OccId]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &server in servers {
        for (key, default) in addresses(view, server) {
            let shown = key.to_string();
            if default && !out.contains(&shown) {
                out.push(shown);
            }
        }
    }
    out
}

/// For each server (by index in `servers`), the `merge_slashes` nginx applies to
/// requests that reach it, given each server's own value: `Some` when the default
/// servers of all its addresses agree, `None` when they differ (a request is normalised
/// one way or the other depending on the address it came to) or its addresses cannot be
/// read (variables).
pub(super) fn applied(view: &View<'_>, servers: &[(OccId, bool)]) -> Vec<Option<bool>> {
    // Every server's addresses in one list, server `i`'s at `addrs[ends[i - 1]..ends[i]]`:
    // a list per server cost an allocation each, with room for four addresses where nearly
    // every server has one (80,000 servers: 13 MB).
    let mut addrs: Vec<(Key, bool)> = Vec::with_capacity(servers.len());
    let mut ends: Vec<usize> = Vec::with_capacity(servers.len());
    for &(occ, _) in servers {
        addrs.extend(addresses(view, occ));
        ends.push(addrs.len());
    }
    let list = |i: usize| &addrs[if i == 0 { 0 } else { ends[i - 1] }..ends[i]];
    // Each address's default server: the first marked, else the first listed.
    let mut default: HashMap<&Key, (usize, bool)> = HashMap::default();
    for i in 0..servers.len() {
        for (addr, marked) in list(i) {
            match default.get(addr) {
                None => {
                    default.insert(addr, (i, *marked));
                }
                Some(&(_, false)) if *marked => {
                    default.insert(addr, (i, true));
                }
                Some(_) => {}
            }
        }
    }
    (0..servers.len())
        .map(|i| {
            let mut values = list(i).iter().map(|(a, _)| servers[default[a].0].1);
            let first = values.next()?;
            values.all(|v| v == first).then_some(first)
        })
        .collect()
}

/// The servers (of `servers`, in configuration order) that a connection to `ip:port`
/// reaches, each with whether its `listen` there says `default_server`: those listening on
/// exactly that address when any does, else those on the wildcard `*:port` (nginx binds
/// the specific address apart and hands it only its own servers).
pub fn on_address(
    view: &View<'_>,
    servers: &[OccId],
    ip: Option<&str>,
    port: u16,
) -> Vec<(OccId, bool)> {
    let collect = |want: &Key| -> Vec<(OccId, bool)> {
        let mut out: Vec<(OccId, bool)> = Vec::new();
        for &server in servers {
            let marks: Vec<bool> = addresses(view, server)
                .into_iter()
                .filter(|(k, _)| k == want)
                .map(|(_, d)| d)
                .collect();
            if !marks.is_empty() {
                out.push((server, marks.contains(&true)));
            }
        }
        out
    };
    let specific = ip
        .map(|h| collect(&Key::Tcp(Some(h.to_string()), port)))
        .unwrap_or_default();
    if specific.is_empty() {
        collect(&Key::Tcp(None, port))
    } else {
        specific
    }
}

/// The servers of one address (a listening socket) and the one nginx answers a Host no
/// `server_name` takes with.
pub struct Socket {
    /// The address as nginx tells sockets apart (`*:80`, `127.0.0.1:8080`).
    pub address: String,
    /// The servers listening on it, in configuration order.
    pub servers: Vec<OccId>,
    /// The default server: the first marked `default_server`, else the first.
    pub default: OccId,
    /// Whether a `listen` marks it (`false`: it is the default by being first).
    pub marked: bool,
}

/// Every TCP address of `servers` (in configuration order) with its servers and default
/// server. Unix sockets are left out (only local processes reach them), and so are
/// addresses with variables.
pub fn sockets(view: &View<'_>, servers: &[OccId]) -> Vec<Socket> {
    let mut out: Vec<Socket> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::default();
    for &server in servers {
        for (key, marked) in addresses(view, server) {
            if matches!(key, Key::Unix(_)) {
                continue;
            }
            let i = *index.entry(key.clone()).or_insert_with(|| {
                out.push(Socket {
                    address: key.to_string(),
                    servers: Vec::new(),
                    default: server,
                    marked: false,
                });
                out.len() - 1
            });
            let s = &mut out[i];
            if s.servers.last() != Some(&server) {
                s.servers.push(server);
            }
            if marked && !s.marked {
                s.default = server;
                s.marked = true;
            }
        }
    }
    out
}

/// Whether the server around `d` writes `merge_slashes off` (the setting in force where `d`
/// is written). nginx applies the default server's setting instead (what
/// `ServerLocations::merge_slashes` holds); in the single-server shapes the rules that ask
/// this look at, it is that server's.
pub fn written_off(d: crate::analysis::cursor::Directive<'_>) -> bool {
    d.effective("merge_slashes")
        .last()
        .and_then(|a| a.arg(0))
        .is_some_and(|a| a.is("off"))
}
