//! Server selection (ngx_http_find_virtual_server, nginx 1.22): the servers a connection
//! to an address and port reaches, then the one whose `server_name` matches the Host —
//! an exact name first, then the longest leading wildcard (`*.example.com`, and
//! `.example.com` which also takes `example.com`), the longest trailing wildcard
//! (`www.example.*`), the regexes in configuration order (their captures become `$1`…
//! and named variables) — else the address's default server (`listen … default_server`,
//! else the first). The Host is compared lowercased, without its port and final dot;
//! a regex with an uppercase letter is caseless (ngx_http_core_server_name).

use super::value::Caps;
use crate::analysis::cursor::Directive;
use crate::analysis::locations::default_server::on_address;
use crate::analysis::locations::Locations;
use crate::analysis::pcre::{Captures, Regex};
use crate::stack::model::NginxInstance;

/// The server that serves a request, and how its name matched.
pub struct Chosen<'a> {
    pub server: Directive<'a>,
    /// The regex `server_name` that matched, with its captures (of the normalised Host).
    pub regex: Option<(Directive<'a>, Captures)>,
}

/// The Host as nginx compares it: lowercased, without `:port` and a final `.`.
pub fn normalise_host(host: &[u8]) -> Vec<u8> {
    let mut h: Vec<u8> = if host.first() == Some(&b'[') {
        let end = host
            .iter()
            .position(|&b| b == b']')
            .map_or(host.len(), |i| i + 1);
        host[..end].to_vec()
    } else {
        host.split(|&b| b == b':').next().unwrap_or(host).to_vec()
    };
    if h.last() == Some(&b'.') {
        h.pop();
    }
    h.make_ascii_lowercase();
    h
}

/// How a server's names take `host` (normalised): the best kind of match and, for a
/// wildcard, its length (longer wins); `None` when no name takes it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Rank {
    Trailing(usize),
    Leading(usize),
    Exact,
}

fn name_rank(name: &[u8], host: &[u8]) -> Option<Rank> {
    let name = name.to_ascii_lowercase();
    if name.first() == Some(&b'~') {
        return None;
    }
    if let Some(rest) = name.strip_prefix(b"*") {
        return host.ends_with(rest).then_some(Rank::Leading(rest.len()));
    }
    if let Some(rest) = name.strip_prefix(b".") {
        let takes = host == rest || host.ends_with(&name);
        return takes.then_some(Rank::Leading(name.len()));
    }
    if let Some(stem) = name.strip_suffix(b"*") {
        return host.starts_with(stem).then_some(Rank::Trailing(stem.len()));
    }
    (name == host).then_some(Rank::Exact)
}

fn regex_of(name: &str) -> Option<Regex> {
    let re = name.strip_prefix('~')?;
    let caseless = re.bytes().any(|b| b.is_ascii_uppercase());
    Regex::parse_bytes(re.as_bytes(), caseless).ok()
}

/// The server that serves a request to `ip:port` (`None`: the wildcard address) with
/// Host `host`. `None` when no server listens there, or a regex name could not be run
/// (the answer would be a guess).
pub fn select<'a>(
    inst: &'a NginxInstance,
    ip: Option<&str>,
    port: u16,
    host: &[u8],
) -> Option<Chosen<'a>> {
    let locs = Locations::of(inst);
    let all: Vec<_> = locs.servers().iter().map(|s| s.server).collect();
    let on = on_address(&inst.view(), &all, ip, port);
    let host = normalise_host(host);
    let mut best: Option<(Rank, Directive<'a>)> = None;
    for &(occ, _) in &on {
        let s = Directive::new(inst, occ);
        for n in s.children("server_name") {
            for a in n.args() {
                if let Some(rank) = name_rank(&a.bytes(), &host) {
                    if best.is_none_or(|(b, _)| rank > b) {
                        best = Some((rank, s));
                    }
                }
            }
        }
    }
    if let Some((_, server)) = best {
        return Some(Chosen {
            server,
            regex: None,
        });
    }
    for &(occ, _) in &on {
        let s = Directive::new(inst, occ);
        for n in s.children("server_name") {
            for a in n.args() {
                let Some(re) = regex_of(&a.value()) else {
                    if a.value().starts_with('~') {
                        return None;
                    }
                    continue;
                };
                match re.captures(&host) {
                    Ok(Some(c)) => {
                        return Some(Chosen {
                            server: s,
                            regex: Some((n, c)),
                        })
                    }
                    Ok(None) => {}
                    Err(_) => return None,
                }
            }
        }
    }
    let default = on.iter().find(|(_, d)| *d).or(on.first())?;
    Some(Chosen {
        server: Directive::new(inst, default.0),
        regex: None,
    })
}

/// The captures a request for `host` starts with at `server`: none when no name of the
/// server is a regex, or another name (or being the default) took the Host; the regex's
/// when one did; unknown without a Host or when the regex could not be run.
pub fn host_captures(server: Directive<'_>, host: Option<&[u8]>) -> Caps {
    let regexes = server
        .children("server_name")
        .any(|n| n.args().any(|a| a.value().starts_with('~')));
    if !regexes {
        return Caps::None;
    }
    let Some(host) = host else {
        return Caps::Unknown;
    };
    let host = normalise_host(host);
    let plain = server
        .children("server_name")
        .any(|n| n.args().any(|a| name_rank(&a.bytes(), &host).is_some()));
    if plain {
        return Caps::None;
    }
    for n in server.children("server_name") {
        for a in n.args() {
            if !a.value().starts_with('~') {
                continue;
            }
            let Some(re) = regex_of(&a.value()) else {
                return Caps::Unknown;
            };
            match re.captures(&host) {
                Ok(Some(c)) => return Caps::of(&c, host, None, Some(n.occ())),
                Ok(None) => {}
                Err(_) => return Caps::Unknown,
            }
        }
    }
    Caps::None
}
