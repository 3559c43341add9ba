//! The URI nginx matches locations against (`$uri`), from the request target a client
//! sends: what `ngx_http_parse_request_line` refuses in the target, then
//! `ngx_http_parse_complex_uri` (nginx 1.22, `src/http/ngx_http_parse.c`).
//!
//! - Percent escapes are decoded, and a decoded byte is read as if it had been sent as is:
//!   `%2e%2e` is a `..` segment, `%2F` a slash (merged with its neighbours). Only a decoded
//!   `%`, `#` and `?` are plain bytes (`%3F` does not start the arguments).
//! - With `merge_slashes on` (the default) a run of slashes is one slash.
//! - A `.` segment is removed, a `..` segment removes the one before it; a `..` above the
//!   root is refused (400), as are `%00`, a `%` without two hex digits after it, and the
//!   bytes the request line refuses (below 0x20, and 0x7F).
//! - The arguments start at the first `?` that is not an escape; a `#` ends the path (and
//!   the arguments). Neither `?` nor `#` is in the result's path.
//!
//! nginx skips this step for a target with no `%`, `#`, `//` or `/.` in it (it uses the
//! bytes as sent): the result is the same. Not modelled: absolute-form targets
//! (`GET http://host/p`, whose path nginx reads the same way once the host is parsed off —
//! pass the path), request lines longer than `large_client_header_buffers` (414), and
//! Windows builds (`\` as a separator, trailing dots). HTTP/2 and HTTP/3 paths are read by
//! the same function.

/// A request target after nginx's normalisation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NormalisedUri {
    /// What locations are matched against, and `$uri` holds: decoded, without arguments.
    pub path: Vec<u8>,
    /// `$args`: the bytes after the first `?` (as sent, not decoded), up to a `#`. `None`
    /// when there are none (nginx does not tell `/a?` from `/a`).
    pub args: Option<Vec<u8>>,
}

/// Why a target is not served: nginx answers 400 to it, except for
/// [`Reason::NotOriginForm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rejected {
    pub reason: Reason,
    /// Byte offset in the target where it was found.
    pub at: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The target does not start with `/`. nginx refuses most such targets (`*`, `x`),
    /// but reads an absolute-form `http://host/path` (not modelled here).
    NotOriginForm,
    /// A byte below 0x20 or 0x7F: nginx refuses it in a request line (CR and LF end the
    /// line instead, which cannot be what the caller meant).
    ControlByte,
    /// A space ends the target on the request line; the word after it is not `HTTP/…`.
    Space,
    /// A `%` not followed by two hex digits.
    BadEscape,
    /// `%00`.
    EncodedNul,
    /// A `..` segment above the root (`/..`, `/a/../..`).
    AboveRoot,
}

impl Rejected {
    /// Whether nginx answers `400 Bad Request` (everything but an absolute-form target).
    pub fn is_bad_request(&self) -> bool {
        self.reason != Reason::NotOriginForm
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reason::NotOriginForm => "the target does not start with \"/\"",
            Reason::ControlByte => "a control byte in the target (400)",
            Reason::Space => "a space ends the target",
            Reason::BadEscape => "\"%\" is not followed by two hex digits (400)",
            Reason::EncodedNul => "\"%00\" (400)",
            Reason::AboveRoot => "\"..\" above the root (400)",
        })
    }
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.at)
    }
}

/// Where the normaliser is in the current segment (the states of
/// `ngx_http_parse_complex_uri` outside an escape).
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Inside a segment.
    Usual,
    /// Just after a `/`.
    Slash,
    /// After `/.`.
    Dot,
    /// After `/..`.
    DotDot,
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The URI nginx matches locations against for a request target as the client sends it
/// (`/a/%2e%2e/b?x`), with `merge_slashes` as set in the default server of the address
/// the request came to (nginx reads the target before it knows the `Host`).
pub fn normalise(target: &[u8], merge_slashes: bool) -> Result<NormalisedUri, Rejected> {
    let reject = |reason, at| Err(Rejected { reason, at });
    if target.first() != Some(&b'/') {
        return reject(Reason::NotOriginForm, 0);
    }
    // The request line's own checks come first: they see the whole target.
    if let Some(at) = target.iter().position(|&b| b < 0x20 || b == 0x7f) {
        return reject(Reason::ControlByte, at);
    }
    if let Some(at) = memchr::memchr(b' ', target) {
        return reject(Reason::Space, at);
    }
    let mut out: Vec<u8> = Vec::with_capacity(target.len());
    let mut state = State::Usual;
    let mut i = 0;
    // Where the arguments start, when a `?` ends the path.
    let mut args_at = None;
    while i < target.len() {
        let at = i;
        let mut ch = target[i];
        i += 1;
        if ch == b'%' {
            let (Some(hi), Some(lo)) = (
                target.get(i).copied().and_then(hex),
                target.get(i + 1).copied().and_then(hex),
            ) else {
                return reject(Reason::BadEscape, at);
            };
            i += 2;
            ch = hi << 4 | lo;
            match ch {
                0 => return reject(Reason::EncodedNul, at),
                // Plain bytes, whatever the state: they end a `.`/`..` segment too.
                b'%' | b'#' | b'?' => {
                    out.push(ch);
                    state = State::Usual;
                    continue;
                }
                _ => {}
            }
        }
        // From here `?` and `#` are as sent: their escapes were handled above.
        match (state, ch) {
            (State::Usual, b'/') => {
                out.push(b'/');
                state = State::Slash;
            }
            (State::Slash, b'/') => {
                if !merge_slashes {
                    out.push(b'/');
                }
            }
            (State::Slash, b'.') => {
                out.push(b'.');
                state = State::Dot;
            }
            (State::Dot, b'.') => {
                out.push(b'.');
                state = State::DotDot;
            }
            (State::Dot, b'/' | b'?' | b'#') => {
                out.pop();
                state = State::Slash;
                if ch != b'/' {
                    args_at = (ch == b'?').then_some(i);
                    break;
                }
            }
            (State::DotDot, b'/' | b'?' | b'#') => {
                if !up(&mut out) {
                    return reject(Reason::AboveRoot, at);
                }
                state = State::Slash;
                if ch != b'/' {
                    args_at = (ch == b'?').then_some(i);
                    break;
                }
            }
            (_, b'?') => {
                args_at = Some(i);
                break;
            }
            (_, b'#') => break,
            _ => {
                out.push(ch);
                state = State::Usual;
            }
        }
        if i == target.len() {
            // The target ends in a `.` or `..` segment.
            match state {
                State::Dot => {
                    out.pop();
                }
                State::DotDot if !up(&mut out) => return reject(Reason::AboveRoot, at),
                _ => {}
            }
        }
    }
    let args = args_at.and_then(|start| {
        let rest = &target[start..];
        let end = memchr::memchr(b'#', rest).unwrap_or(rest.len());
        (end > 0).then(|| rest[..end].to_vec())
    });
    Ok(NormalisedUri { path: out, args })
}

/// Resolves a `..` segment: `out` ends with `/..`; drops it and the segment before it,
/// keeping that segment's leading `/`. False when there is none (above the root).
fn up(out: &mut Vec<u8>) -> bool {
    // The byte before the `/` of `/..`, then back to the previous `/`.
    let Some(mut k) = out.len().checked_sub(4) else {
        return false;
    };
    loop {
        if out[k] == b'/' {
            out.truncate(k + 1);
            return true;
        }
        if k == 0 {
            return false;
        }
        k -= 1;
    }
}
