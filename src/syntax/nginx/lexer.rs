//! nginx's tokenizer, ported rule for rule from `ngx_conf_read_token()`
//! (src/core/ngx_conf_file.c). See ../shared/reference/domain.md §1 for the facts.
//!
//! This is a hand-written byte state machine rather than a nom grammar on purpose: nginx's
//! tokenizer is itself a state machine with context (`need_space` after a closing quote,
//! `variable` after `$`, a backslash that hides the next byte, a 4096-byte buffer rule), and a
//! one-to-one port is the only way to be sure we accept and reject exactly what nginx does.
//! It also scans at memory speed, with no allocation per token.
//!
//! ## The read buffer
//!
//! nginx reads a file through one 4096-byte buffer. When the buffer is used up it keeps the
//! bytes from `start` (the first byte of the token being read) and refills the rest; if
//! `start` is the first byte of a full buffer, the token is "too long". Two things follow,
//! and both are modelled here by tracking nginx's `start` and its buffer window exactly:
//!
//! * Which token is too long depends on *when* nginx moves `start`, not only on the token's
//!   length: a word that ends at whitespace keeps `start` until the byte after that
//!   whitespace is read, a word that ends at `;` or `{` releases it at once, a quoted word
//!   keeps it through the byte after its closing quote (and one more if that is whitespace),
//!   a comment keeps it through its LF. So `4095 bytes + space + more` is too long, while
//!   `4095 bytes + ;` is not (verified with nginx 1.22.1, `tests/nginx_binary.rs`).
//!   (Fixed: this port used to measure only up to the byte that ends a token, so it accepted
//!   a 4095-byte word followed by whitespace, and a 4094-byte quoted word followed by
//!   whitespace, both of which nginx rejects as too long.)
//! * OpenResty's `*_by_lua_block` reader continues in the same buffer, and what it accepts
//!   depends on where that buffer ends (see `lua.rs`), so the parser hands it
//!   [`Lexer::buffer`].

use super::tree::Word;
use crate::source::Span;
use crate::syntax::error::SyntaxError;

/// nginx's `NGX_CONF_BUFFER`: a token that fills the whole read buffer is rejected.
pub const NGX_CONF_BUFFER: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    Word(Word),
    Comment(Span),
    Semicolon(Span),
    Open(Span),
    Close(Span),
    /// End of input. `in_token` is nginx's `!last_space`: the file ended inside a word, right
    /// after a closing quote, or after a lone backslash.
    Eof {
        in_token: bool,
    },
}

pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    /// The input ended inside a token (nginx's `!last_space` at end of file).
    ended_in_token: bool,
    /// Lexical errors, in order.
    pub errors: Vec<SyntaxError>,
    /// nginx's `start`: where the token it is reading began (after an opening quote), or the
    /// last whitespace byte it read between tokens.
    start: usize,
    /// nginx has read every byte before this offset.
    read_to: usize,
    /// nginx's buffer (`b->start .. b->last`) as file offsets.
    buf: (usize, usize),
    /// The `start` for which "too long parameter" was reported (once per token).
    too_long_at: Option<usize>,
}

#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a [u8]) -> Self {
        Self::resume(src, 0, (0, 0))
    }

    /// A lexer that continues at `pos` (after an opaque Lua body) with nginx's read buffer in
    /// the state the Lua reader left it (`buffer`, as file offsets). Like nginx after any
    /// block reader returns, the next token starts at `pos`.
    pub fn resume(src: &'a [u8], pos: usize, buffer: (usize, usize)) -> Self {
        Lexer {
            src,
            pos,
            ended_in_token: false,
            errors: Vec::new(),
            start: pos,
            read_to: pos,
            buf: buffer,
            too_long_at: None,
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    /// nginx's read buffer (`b->start .. b->last`, as file offsets) after the last token.
    pub fn buffer(&self) -> (usize, usize) {
        self.buf
    }

    /// nginx reads the bytes `read_to..to` with `start` where it is now. Reading the byte at
    /// the end of the buffer refills it from `start`, unless `start` is the first byte of a
    /// full buffer: then the token is too long (`ngx_conf_read_token`, the `len ==
    /// NGX_CONF_BUFFER` check). `quote` is set while nginx is inside quotes, which picks the
    /// message. Returns whether this reported "too long".
    fn read(&mut self, to: usize, quote: Option<u8>) -> bool {
        let len = self.src.len();
        let to = to.min(len);
        let mut reported = false;
        while self.buf.1 < to && self.buf.1 >= self.read_to {
            let p = self.buf.1;
            if p - self.start >= NGX_CONF_BUFFER {
                if self.too_long_at != Some(self.start) {
                    self.too_long_at = Some(self.start);
                    self.too_long(self.start, quote);
                    reported = true;
                }
                // nginx stops here; we go on with a fresh buffer.
                self.buf = (p, (p + NGX_CONF_BUFFER).min(len));
            } else {
                self.buf = (self.start, (self.start + NGX_CONF_BUFFER).min(len));
            }
        }
        self.read_to = self.read_to.max(to);
        reported
    }

    /// Reports "too long parameter" with nginx's message (`quote` is set while still inside
    /// quotes). The span is the token's first byte: nginx reports the line the token started on.
    fn too_long(&mut self, start: usize, quote: Option<u8>) {
        let msg = match quote {
            Some(q) => format!(
                "too long parameter, probably missing terminating \"{}\" character",
                q as char
            ),
            None => {
                let head = &self.src[start..(start + 10).min(self.src.len())];
                format!(
                    "too long parameter \"{}...\" started",
                    String::from_utf8_lossy(head)
                )
            }
        };
        self.errors.push(SyntaxError::new(
            msg,
            Span::new(start as u32, start as u32 + 1),
        ));
    }

    pub fn next_token(&mut self) -> Token {
        let src = self.src;
        // A run of whitespace inside the current buffer: reading it byte by byte (below)
        // would only move `read_to` and `start` to its last byte, so that is done at once.
        // A run that reaches the buffer's end is read byte by byte, refills and all.
        let mut end = self.pos;
        while end < src.len() && is_space(src[end]) {
            end += 1;
        }
        if end > self.pos && end <= self.buf.1 {
            if end > self.read_to {
                self.read_to = end;
                self.start = end - 1;
            }
            self.pos = end;
        }
        while self.pos < src.len() && is_space(src[self.pos]) {
            let q = self.pos;
            // Whitespace that ended a word, or followed a closing quote, was read already and
            // did not move `start`; any other is read between tokens and becomes `start`.
            if q >= self.read_to {
                self.read(q + 1, None);
                self.start = q;
            }
            self.pos += 1;
        }
        let start = self.pos;
        let Some(&c) = src.get(start) else {
            return Token::Eof {
                in_token: self.ended_in_token,
            };
        };
        let one = Span::new(start as u32, start as u32 + 1);
        match c {
            b';' | b'{' | b'}' => {
                if start >= self.read_to {
                    self.read(start + 1, None);
                }
                // nginx returns here; its next call starts at the next byte.
                self.start = start + 1;
                self.pos += 1;
                match c {
                    b';' => Token::Semicolon(one),
                    b'{' => Token::Open(one),
                    _ => Token::Close(one),
                }
            }
            b'#' => {
                self.read(start + 1, None);
                self.start = start;
                let end = memchr(b'\n', &src[start..]).map_or(src.len(), |i| start + i);
                // The comment's bytes are read with `start` at `#`; the LF that ends it is
                // read the same way, by the whitespace loop above.
                self.read(end, None);
                self.pos = end;
                Token::Comment(Span::new(start as u32, end as u32))
            }
            b'"' | b'\'' => self.quoted_word(start, c),
            _ => self.plain_word(start),
        }
    }

    fn quoted_word(&mut self, open: usize, q: u8) -> Token {
        let src = self.src;
        if open >= self.read_to {
            self.read(open + 1, None);
        }
        let start = open + 1;
        // nginx: `start++` skips the opening quote.
        self.start = start;
        let mut i = start;
        let mut variable = false;
        while i < src.len() {
            let c = src[i];
            if c == b'{' && variable {
                i += 1;
                continue;
            }
            variable = false;
            match c {
                b'\\' => i += 2,
                b'$' => {
                    variable = true;
                    i += 1
                }
                _ if c == q => break,
                _ => i += 1,
            }
        }
        if i >= src.len() {
            // The file ended inside the quotes.
            self.read(src.len(), Some(q));
            self.pos = src.len();
            self.ended_in_token = true;
            return Token::Word(Word::new(
                Span::new(open as u32, src.len() as u32),
                Span::new(start as u32, src.len() as u32),
            ));
        }
        let close = i;
        let after = close + 1;
        self.pos = after;
        let word = Word::new(
            Span::new(open as u32, after as u32),
            Span::new(start as u32, close as u32),
        );
        // Up to and including the closing quote, nginx is inside the quotes.
        let mut too_long = self.read(after, Some(q));
        if after >= src.len() {
            self.ended_in_token = true;
            return Token::Word(word);
        }
        // `need_space`: the byte after the closing quote is read with `start` unchanged.
        too_long |= self.read(after + 1, None);
        match src[after] {
            // Read as `need_space`: `start` stays (the whitespace loop skips this byte).
            b' ' | b'\t' | b'\r' | b'\n' => {}
            // nginx returns; its next call starts after this byte.
            b';' | b'{' => self.start = after + 1,
            // Read again as the first byte of a new word `)…`.
            b')' => self.start = after,
            _ if too_long => {}
            _ => self.errors.push(SyntaxError::new(
                format!("unexpected \"{}\"", char_for_message(src, after)),
                Span::new(after as u32, after as u32 + 1),
            )),
        }
        Token::Word(word)
    }

    fn plain_word(&mut self, start: usize) -> Token {
        let src = self.src;
        // A `)` right after a closing quote was read already.
        if start >= self.read_to {
            self.read(start + 1, None);
        }
        self.start = start;
        let mut i = start;
        let mut variable = false;
        while i < src.len() {
            let c = src[i];
            if c == b'{' && variable {
                i += 1;
                continue;
            }
            variable = false;
            match c {
                b'\\' => i += 2,
                b'$' => {
                    variable = true;
                    i += 1
                }
                b' ' | b'\t' | b'\r' | b'\n' | b';' | b'{' => break,
                _ => i += 1,
            }
        }
        let end = i.min(src.len());
        // The word and the byte that ends it are read with `start` at the word.
        self.read(end + 1, None);
        match src.get(end) {
            // nginx returns at `;` and `{`; its next call starts after them.
            Some(b';' | b'{') => self.start = end + 1,
            // Whitespace ends the word without moving `start`.
            Some(_) => {}
            None => self.ended_in_token = true,
        }
        self.pos = end;
        Token::Word(Word::new(
            Span::new(start as u32, end as u32),
            Span::new(start as u32, end as u32),
        ))
    }
}

/// The character nginx prints in `unexpected "%c"`: one byte.
fn char_for_message(src: &[u8], at: usize) -> String {
    let b = src[at];
    if b.is_ascii() {
        (b as char).to_string()
    } else {
        // nginx prints the raw byte; show the whole UTF-8 character when there is one.
        let tail = &src[at..src.len().min(at + 4)];
        match std::str::from_utf8(tail) {
            Ok(s) => s.chars().next().map(String::from).unwrap_or_default(),
            Err(e) if e.valid_up_to() > 0 => std::str::from_utf8(&tail[..e.valid_up_to()])
                .ok()
                .and_then(|s| s.chars().next())
                .map(String::from)
                .unwrap_or_default(),
            Err(_) => format!("\\x{b:02X}"),
        }
    }
}

pub(crate) fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&b| b == needle)
}
