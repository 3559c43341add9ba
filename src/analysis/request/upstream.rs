//! What `proxy_pass` sends upstream for a request that reached it
//! (ngx_http_proxy_create_request, nginx 1.22).
//!
//! With variables in its URI part nginx sends that part as evaluated (the first `/` or `?`
//! after the host starts it). Otherwise: the unparsed URI as the client sent it when nothing
//! rewrote it and there is no URI part; else the URI part (when `valid_location`) in place
//! of the location's name, then the rest of `r->uri` escaped with NGX_ESCAPE_URI when the
//! request is internal or its target had a `%` (`%` becomes `%25`, `?` `%3F`), then `?`
//! and the arguments.

use super::sim::Walk;
use super::state::Req;
use super::value::{escape, Decoded, Val};
use super::Model;
use crate::analysis::cursor::Directive;
use crate::analysis::locations::{location_line, Kind};
use crate::analysis::variables::{PartKind, Script};
use crate::stack::expanded::OccId;

/// The URI (path and arguments) a `proxy_pass` sends.
#[derive(Clone, Debug)]
pub struct Sent {
    pub uri: Vec<u8>,
    /// The rewrite whose raw `$request_uri` text nginx escaped again.
    pub double: Option<OccId>,
    /// A percent-decoded reference in a URI part of variables that put a `?` there.
    pub decoded: Option<Decoded>,
}

impl<'a> Model<'a> {
    /// What `pass` (a `proxy_pass` in location `loc`) sends for request `r`, which the
    /// client sent as `target`. `None` when not known: not `http(s)://`, a `unix:`
    /// socket, a variable this model does not know, or a location kind whose name
    /// nginx does not replace.
    pub fn upstream(
        &mut self,
        pass: Directive<'a>,
        loc: Directive<'a>,
        r: &Req,
        target: &[u8],
    ) -> Option<Sent> {
        let value = pass.arg(0)?.bytes().into_owned();
        let walk = Walk::new(self, target);
        walk.sent(&value, pass.occ(), loc, r)
    }
}

impl Walk<'_, '_> {
    fn sent(&self, value: &[u8], site: OccId, loc: Directive<'_>, r: &Req) -> Option<Sent> {
        let target = self.target;
        let scheme = [&b"http://"[..], b"https://"]
            .into_iter()
            .find(|s| value.len() >= s.len() && value[..s.len()].eq_ignore_ascii_case(s))?;
        let rest = &value[scheme.len()..];
        if rest.len() >= 5 && rest[..5].eq_ignore_ascii_case(b"unix:") {
            return None;
        }
        let mut part: &[u8] = b"";
        if value.contains(&b'$') {
            // nginx evaluates the address, then reads its URI part from the first `/` or
            // `?` after the host.
            let script = Script::parse_value(rest);
            let mut uri: Option<Val> = None;
            for p in &script.parts {
                let t = &rest[p.value.range()];
                if let Some(u) = &mut uri {
                    u.push(self.eval(t, r, site, false)?);
                    continue;
                }
                let v = match p.kind {
                    PartKind::Literal => Val {
                        bytes: t.to_vec(),
                        ..Val::default()
                    },
                    // A variable of the host part that this model does not know.
                    _ => match self.eval(t, r, site, false) {
                        Some(v) => v,
                        None => continue,
                    },
                };
                if let Some(i) = v.bytes.iter().position(|&b| b == b'/' || b == b'?') {
                    let mut u = Val {
                        bytes: Vec::new(),
                        raw: v.raw,
                        decoded: v.decoded.clone(),
                    };
                    u.bytes.extend_from_slice(&v.bytes[i..]);
                    uri = Some(u);
                }
            }
            if let Some(mut u) = uri {
                if u.bytes.first() == Some(&b'?') {
                    u.bytes.insert(0, b'/');
                }
                if !u.bytes.is_empty() {
                    return Some(Sent {
                        uri: u.bytes,
                        double: None,
                        decoded: u.decoded,
                    });
                }
            }
        } else if let Some(i) = rest.iter().position(|&b| b == b'/') {
            part = &rest[i..];
        }
        if part.is_empty() && r.valid_unparsed {
            return Some(Sent {
                uri: target.to_vec(),
                double: None,
                decoded: None,
            });
        }
        let loc_len = if r.valid_location && !part.is_empty() {
            match location_line(loc)? {
                (Kind::Prefix | Kind::NoRegexPrefix | Kind::Exact, name) => name.len(),
                _ => return None,
            }
        } else {
            0
        };
        let mut out = if r.valid_location {
            part.to_vec()
        } else {
            Vec::new()
        };
        let tail = &r.uri[loc_len.min(r.uri.len())..];
        let escaped = r.quoted || r.internal;
        let mut double = None;
        if escaped {
            let before = out.len();
            escape(tail, false, &mut out);
            if out.len() - before != tail.len() {
                double = r.uri_raw;
            }
        } else {
            out.extend_from_slice(tail);
        }
        if !r.args.is_empty() {
            out.push(b'?');
            out.extend_from_slice(&r.args);
        }
        Some(Sent {
            uri: out,
            double,
            decoded: None,
        })
    }
}
