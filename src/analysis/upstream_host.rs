//! The host part of an upstream address with variables (`proxy_pass http://$host$uri`,
//! `fastcgi_pass $backend:9000`): which of its parts make up the host nginx connects to,
//! and whether a written suffix confines them. Shared by the rules that ask who chooses
//! the upstream.

use crate::analysis::cursor::Directive;
use crate::analysis::request::redirects::Index;
use crate::analysis::variables::{Part, PartKind, Script};

/// The variable parts of a target's host, and whether a literal host suffix follows them.
pub struct HostParts {
    pub parts: Vec<Part>,
    pub suffixed: bool,
}

/// The non-literal parts that make up the host (or scheme and host) of a target: after a
/// literal `://` (a part before it may hold a whole URL only when no `://` is written),
/// up to the first literal `/` or `?`. `None` for a target with no variable there, and
/// for a `unix:` socket path.
pub fn host_parts(script: &Script, value: &[u8]) -> Option<HostParts> {
    if value.starts_with(b"unix:") {
        return None;
    }
    let literal = |p: &Part| p.kind == PartKind::Literal;
    let mut start = 0;
    let mut end = value.len();
    let mut scheme = false;
    for p in &script.parts {
        if literal(p) {
            let text = &value[p.value.range()];
            if let Some(i) = find(text, b"://") {
                start = p.value.start as usize + i + 3;
                scheme = true;
                break;
            }
        }
    }
    // No `://` written: a `proxy_pass $url` takes scheme and host from its first part
    // (what follows it, `$url$rest`, is the path); an address (`fastcgi_pass $b:9000`) is
    // all host.
    if !scheme {
        if let Some(first) = script.parts.first().filter(|p| !literal(p)) {
            if script.parts.len() > 1 && !value[first.value.end as usize..].starts_with(b":") {
                end = first.value.end as usize;
            }
        }
    }
    for p in &script.parts {
        // These always start with `/`: the host ends where they begin.
        let path = p
            .kind
            .key()
            .is_some_and(|k| matches!(k.as_str(), "uri" | "request_uri" | "document_uri"));
        if path && (p.value.start as usize) >= start {
            end = end.min(p.value.start as usize);
            break;
        }
        if literal(p) && (p.value.end as usize) > start {
            let from = (p.value.start as usize).max(start);
            if let Some(i) = value[from..p.value.end as usize]
                .iter()
                .position(|b| *b == b'/' || *b == b'?')
            {
                end = end.min(from + i);
                break;
            }
        }
    }
    let parts: Vec<Part> = script
        .parts
        .iter()
        .filter(|p| !literal(p) && (p.value.start as usize) < end && (p.value.end as usize) > start)
        .cloned()
        .collect();
    let last = parts.last()?;
    // What is written after the last variable of the host: a name suffix confines it
    // (`$1.svc.internal`, `$1-api`); a port (`:8080`) does not.
    let tail = &value[(last.value.end as usize).min(end)..end];
    let suffixed = !tail.is_empty() && tail[0] != b':';
    Some(HostParts { parts, suffixed })
}

/// The host parts up to the first variable that always starts the path or the arguments:
/// one whose every `set` in the server and every `map` that makes it gives it nothing or a
/// value written to start with `/` or `?` (`set $suffix ?$query_string;` after
/// `http://octane`). `None` when no part is left: then nginx finds no host at all and
/// answers 500 (`no host in upstream "/index"`, nginx 1.22.1), it connects nowhere.
pub fn without_path_variables(
    d: Directive<'_>,
    host: HostParts,
    value: &[u8],
    servers: &Index<'_>,
) -> Option<HostParts> {
    let server = d.enclosing("server").map(|s| s.occ());
    let starts_path = |part: &Part| -> bool {
        let Some(key) = part.kind.key() else {
            return false;
        };
        let key = key.to_ascii_lowercase();
        let mut any = false;
        for &map in servers.maps(&key) {
            any = true;
            if !map_values_start_path(map) {
                return false;
            }
        }
        for &set in servers.sets(server, &key) {
            any = true;
            let starts = set
                .arg(1)
                .is_some_and(|v| v.bytes().first().is_none_or(|b| *b == b'/' || *b == b'?'));
            if !starts {
                return false;
            }
        }
        any
    };
    let Some(cut) = host.parts.iter().position(starts_path) else {
        return Some(host);
    };
    let mut parts = host.parts;
    let end = parts[cut].value.start as usize;
    parts.truncate(cut);
    let last = parts.last()?;
    let tail = &value[last.value.end as usize..end];
    // As in `host_parts`: a name suffix confines the last variable, a port does not.
    let suffixed = !tail.is_empty() && tail[0] != b':';
    Some(HostParts { parts, suffixed })
}

/// Whether every value `map` can give starts with `/` or `?` (or is empty, as is the value
/// of a `map` with no `default`); an `include` lemplint cannot read may hold any value.
fn map_values_start_path(map: Directive<'_>) -> bool {
    if map.has_unread_include() {
        return false;
    }
    map.entries()
        .iter()
        .filter(|(k, _)| !matches!(k.value().as_ref(), "hostnames" | "volatile"))
        .all(|(_, v)| v.is_some_and(|v| v.bytes().first().is_none_or(|b| *b == b'/' || *b == b'?')))
}

pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `${HOST}`: an envsubst placeholder of a template, which nginx never sees as written
/// (nginx's own variables are lowercase; it would read it as `$host`).
pub fn is_template_placeholder(part: &Part) -> bool {
    matches!(&part.kind, PartKind::Variable { name, braced: true }
        if name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'))
}

impl HostParts {
    /// The parts of the host a client can choose, as the variables analysis answers for
    /// each at `d`, in order: a part that can hold a host of the client's (and, when a
    /// literal follows it in the host, a `/` that ends the host there); template
    /// placeholders are not nginx's variables and are left out.
    pub fn client_chosen<'s>(
        &'s self,
        p: &'s crate::analysis::variables::Provenance<'_>,
        d: Directive<'s>,
    ) -> impl Iterator<Item = (&'s Part, crate::analysis::variables::Answer)> + 's {
        use crate::analysis::variables::Danger;
        self.parts
            .iter()
            .filter(|part| !is_template_placeholder(part))
            .filter_map(move |part| {
                let one = Script {
                    parts: vec![part.clone()],
                    error: None,
                };
                let a = p.script(d.occ(), d.file(), &one);
                (a.can(Danger::Host) && (!self.suffixed || a.can(Danger::Slash)))
                    .then_some((part, a))
            })
    }
}
