//! The texts a simulated request carries (its URI, arguments, variables and captures), and
//! what each remembers of where it came from: raw `$request_uri` text (still
//! percent-encoded) or a percent-decoded reference that put a `?` into it.

use crate::analysis::pcre::Captures;
use crate::analysis::variables::{PartKind, Script};
use crate::stack::expanded::OccId;
use std::rc::Rc;

/// The longest URI, query or variable value a simulated request may build. The example
/// requests are short; a text grows past this only when a rewrite repeats it (`$1?$args$args`
/// on each of the eleven searches multiplies the query by 8¹¹), and that way is not
/// followed: silence for it rather than an input error, since nginx runs such a
/// configuration (it answers 414 or 500 once the text outgrows its buffers).
pub const MAX_TEXT: usize = 64 * 1024;

/// A piece of text nginx built, and what it carries.
#[derive(Clone, Debug, Default)]
pub struct Val {
    pub bytes: Vec<u8>,
    /// The directive whose `$request_uri` (raw, still percent-encoded) is part of it.
    pub raw: Option<OccId>,
    /// The first reference whose percent-decoded text put a `?` into it.
    pub decoded: Option<Decoded>,
}

/// A reference whose value nginx had percent-decoded.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// `$1`, `$name`, `$uri`.
    pub what: String,
    /// The regex (location, `rewrite`, `if`) that captured it.
    pub by: Option<OccId>,
}

impl Val {
    pub fn push(&mut self, v: Val) {
        self.bytes.extend_from_slice(&v.bytes);
        self.raw = self.raw.or(v.raw);
        if self.decoded.is_none() {
            self.decoded = v.decoded;
        }
    }

    /// Appends text of the URI or captured from it: raw when `raw`, else decoded.
    pub fn push_uri_text(
        &mut self,
        text: &[u8],
        raw: Option<OccId>,
        what: &str,
        by: Option<OccId>,
    ) {
        self.bytes.extend_from_slice(text);
        if raw.is_some() {
            self.raw = self.raw.or(raw);
        } else if text.contains(&b'?') && self.decoded.is_none() {
            self.decoded = Some(Decoded {
                what: what.to_string(),
                by,
            });
        }
    }
}

/// The captures of the last regex that matched, with the text they index.
#[derive(Debug)]
pub struct Capture {
    pub subject: Vec<u8>,
    pub spans: Vec<Option<(usize, usize)>>,
    pub raw: Option<OccId>,
    pub by: Option<OccId>,
}

/// `$1`…`$9` as nginx holds them (`r->captures`, `r->ncaptures`).
#[derive(Clone, Debug)]
pub enum Caps {
    /// No regex matched yet, or the last one evaluated failed: `$1` is empty.
    None,
    /// A regex this model could not run (or a condition followed both ways) set them.
    Unknown,
    Known(Rc<Capture>),
}

impl Caps {
    /// The captures of a regex that matched `subject`.
    pub fn of(c: &Captures, subject: Vec<u8>, raw: Option<OccId>, by: Option<OccId>) -> Caps {
        Caps::Known(Rc::new(Capture {
            subject,
            spans: c.as_slice().to_vec(),
            raw,
            by,
        }))
    }
}

/// A replacement split at its first literal `?` (ngx_http_script_compile with
/// `compile_args`): the URI, and the arguments when there is a `?`.
pub fn split_args(repl: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    let script = Script::parse_value(repl);
    for p in &script.parts {
        if p.kind == PartKind::Literal {
            let r = p.value.range();
            if let Some(i) = repl[r.clone()].iter().position(|&b| b == b'?') {
                let at = r.start + i;
                return (repl[..at].to_vec(), Some(repl[at + 1..].to_vec()));
            }
        }
    }
    (repl.to_vec(), None)
}

/// `ngx_escape_uri` with NGX_ESCAPE_URI (`args`: NGX_ESCAPE_ARGS).
pub fn escape(text: &[u8], args: bool, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in text {
        let special: &[u8] = if args {
            b" \"#%&+;<>?\\^`{|}"
        } else {
            b" \"#%<>?\\^`{|}"
        };
        if !(0x20..0x7f).contains(&b) || special.contains(&b) {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        } else {
            out.push(b);
        }
    }
}
