//! nginx's tokenizer, ported rule for rule from `ngx_conf_read_token()`
//! (src/core/ngx_conf_file.c). See ../shared/reference/domain.md §1 for the facts.
//!
//! This is a hand-written byte state machine rather than a nom grammar on purpose: nginx's
//! tokenizer is itself a state machine with context (`need_space` after a closing quote,
//! `variable` after `$`, a backslash that hides the next byte, a 4096-byte buffer rule), and a
//! one-to-one port is the only way to be sure we accept and reject exactly what nginx does.
//! It also scans at memory speed, with no allocation per token.

use crate::syntax::error::SyntaxError;
use super::tree::Word;
use crate::source::Span;

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
}

#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a [u8]) -> Self {
        Lexer {
            src,
            pos: 0,
            ended_in_token: false,
            errors: Vec::new(),
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    /// nginx checks a token's length only when its read buffer runs dry, so a token is
    /// rejected once `NGX_CONF_BUFFER` bytes of it (counted from its first byte, after an
    /// opening quote) have been read and more input follows. Callers decide that condition;
    /// this reports it with nginx's message (`quote` is set while still inside quotes).
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

    /// For a token (or comment) whose last byte read by nginx is at index `last` (its
    /// terminator, or the end of input).
    fn check_length(&mut self, start: usize, last: usize) {
        let limit = start + NGX_CONF_BUFFER;
        if limit <= last && limit < self.src.len() {
            self.too_long(start, None);
        }
    }

    pub fn next_token(&mut self) -> Token {
        let src = self.src;
        while self.pos < src.len() && is_space(src[self.pos]) {
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
            b';' => {
                self.pos += 1;
                Token::Semicolon(one)
            }
            b'{' => {
                self.pos += 1;
                Token::Open(one)
            }
            b'}' => {
                self.pos += 1;
                Token::Close(one)
            }
            b'#' => {
                let end = memchr(b'\n', &src[start..]).map_or(src.len(), |i| start + i);
                // nginx reads the LF that ends the comment with `start` still at `#`.
                self.check_length(start, end);
                self.pos = end;
                Token::Comment(Span::new(start as u32, end as u32))
            }
            b'"' | b'\'' => self.quoted_word(start, c),
            _ => self.plain_word(start),
        }
    }

    fn quoted_word(&mut self, open: usize, q: u8) -> Token {
        let src = self.src;
        let start = open + 1;
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
        let limit = start + NGX_CONF_BUFFER;
        if i >= src.len() {
            // The file ended inside the quotes.
            if limit < src.len() {
                self.too_long(start, Some(q));
            }
            self.pos = src.len();
            self.ended_in_token = true;
            return Token::Word(Word {
                raw: Span::new(open as u32, src.len() as u32),
                inner: Span::new(start as u32, src.len() as u32),
            });
        }
        let close = i;
        let after = close + 1;
        self.pos = after;
        let word = Word {
            raw: Span::new(open as u32, after as u32),
            inner: Span::new(start as u32, close as u32),
        };
        // nginx reads the closing quote and then one more byte (`need_space`) with `start`
        // still at the first byte after the opening quote.
        if limit <= close {
            self.too_long(start, Some(q));
        } else if limit == after && after < src.len() {
            self.too_long(start, None);
        } else if after >= src.len() {
            self.ended_in_token = true;
        } else {
            let n = src[after];
            if !(is_space(n) || n == b';' || n == b'{' || n == b')') {
                self.errors.push(SyntaxError::new(
                    format!("unexpected \"{}\"", char_for_message(src, after)),
                    Span::new(after as u32, after as u32 + 1),
                ));
            }
        }
        Token::Word(word)
    }

    fn plain_word(&mut self, start: usize) -> Token {
        let src = self.src;
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
        self.check_length(start, end);
        self.pos = end;
        if end >= src.len() {
            self.ended_in_token = true;
        }
        Token::Word(Word {
            raw: Span::new(start as u32, end as u32),
            inner: Span::new(start as u32, end as u32),
        })
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

impl<'a> Lexer<'a> {
    /// A lexer that continues at `pos` (after an opaque Lua body).
    pub fn resume(src: &'a [u8], pos: usize) -> Self {
        Lexer {
            src,
            pos,
            ended_in_token: false,
            errors: Vec::new(),
        }
    }
}
