//! Reading an OpenResty `*_by_lua_block { … }` body the way lua-nginx-module does.
//!
//! lua-nginx-module does not use nginx's tokenizer for these bodies. It has its own reader,
//! `ngx_http_lua_conf_lua_block_parse()` + `ngx_http_lua_conf_read_lua_token()`
//! (src/ngx_http_lua_directive.c; identical in v0.10.23, the version Debian ships, and at
//! HEAD bbed32a6), over a lexer generated from eight regexes (`util/gen-lexer-c`):
//!
//! ```text
//! {   }   \[=*\[   --\[=*\[   \]=*\]   --[^\n]*   "(?:\\[^\n]|[^"\n\\])*"   '(?:\\[^\n]|[^'\n\\])*'
//! ```
//!
//! The lexer returns the leftmost match, the earlier pattern winning at the same position
//! (`--[[` is a block comment, not a line comment; checked by compiling
//! `src/ngx_http_lua_lex.c`). Braces are counted from level 1 and the block ends when the
//! level reaches 0. Everything else is skipped. So braces inside Lua strings, comments and
//! long brackets do not count — but note what the regexes say: a string cannot span lines,
//! not even with a backslash before the LF (`"a\` LF `}"` is not a string, and its `}`
//! counts), and a quote that does not close on its line is an ordinary byte.
//!
//! The reader shares nginx's 4096-byte read buffer, and some of its answers depend on where
//! that buffer ends. We model it exactly (the buffer state comes from the nginx lexer):
//!
//! * Before each token, when less than half the buffer is left and the file goes on, the
//!   buffer is refilled from the current position.
//! * The lexer only sees the buffer. A long bracket must close inside it, else: `Lua code
//!   block missing the closing long bracket "]=]", the inlined Lua code may be too long`
//!   (a `[[…]]` string of 2 to 4 KiB passes or fails depending on where it starts; a
//!   longer one always fails).
//! * When the buffer holds no token at all, it is refilled and lexing resumes at the old
//!   buffer end, not where the unmatched bytes began. 4096 bytes without a token: `too long
//!   lua code block, probably missing terminating characters`. The skipped bytes' LFs are
//!   never counted, so from there on nginx reports every line too low (for the rest of the
//!   file). Our spans stay true; the shortfall is returned (`drift`) so that nginx's line can
//!   be computed (`Parsed::nginx_line_shift`).
//! * At the end of the file: `unexpected end of file, expecting terminating characters for
//!   lua code block`, reported on the line of the last `{` read (the block's own `{` if
//!   none).

/// nginx's `NGX_CONF_BUFFER`, the size of the read buffer the Lua reader shares.
const BUF: usize = super::lexer::NGX_CONF_BUFFER;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    LeftCurly,
    RightCurly,
    LongString,
    LongComment,
    RightLongBracket,
    LineComment,
    DoubleQuoted,
    SingleQuoted,
}

/// A Lua block read to its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LuaBlock {
    /// Offset of the `}` that closes the block.
    pub close: usize,
    /// nginx's read buffer afterwards (`b->start .. b->last`, as file offsets).
    pub buffer: (usize, usize),
    /// `(offset, n)`: from `offset` on, nginx's line count is `n` lower (LFs it skipped).
    pub drift: Vec<(usize, usize)>,
}

/// lua-nginx-module's error for a block it cannot read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LuaError {
    pub message: String,
    /// Where nginx reports it: the last `{` read (end of file), the start of the token it was
    /// reading (too long), the opening long bracket (never closed).
    pub at: usize,
    /// As in [`LuaBlock::drift`].
    pub drift: Vec<(usize, usize)>,
}

/// Reads a Lua block whose `{` is at `open`, as lua-nginx-module does; `buffer` is nginx's
/// read buffer after that `{` was read ([`super::lexer::Lexer::buffer`]).
pub fn read_block(src: &[u8], open: usize, buffer: (usize, usize)) -> Result<LuaBlock, LuaError> {
    let mut r = Reader {
        src,
        pos: open + 1,
        buf: buffer,
        drift: Vec::new(),
    };
    let mut level = 1usize;
    // The block parser's `ctx.start_line`: the line of the last `{` read.
    let mut last_open = open;
    loop {
        match r.token(last_open) {
            Err((message, at)) => {
                return Err(LuaError {
                    message,
                    at,
                    drift: r.drift,
                })
            }
            Ok(Tok::LeftCurly) => {
                last_open = r.pos - 1;
                level += 1;
            }
            Ok(Tok::RightCurly) => {
                level -= 1;
                if level == 0 {
                    return Ok(LuaBlock {
                        close: r.pos - 1,
                        buffer: r.buf,
                        drift: r.drift,
                    });
                }
            }
            Ok(_) => {}
        }
    }
}

/// The `}` closing a Lua block whose `{` is at `open`, read with the same lexer but with no
/// buffer limits; `None` if the input ends first. For error recovery, after [`read_block`]
/// failed.
pub fn find_block_end(src: &[u8], open: usize) -> Option<usize> {
    read_block(src, open, (0, src.len())).ok().map(|b| b.close)
}

struct Reader<'a> {
    src: &'a [u8],
    pos: usize,
    /// nginx's buffer, `b->start .. b->last`, as file offsets.
    buf: (usize, usize),
    drift: Vec<(usize, usize)>,
}

impl Reader<'_> {
    /// `ngx_http_lua_conf_read_lua_token()`. `last_open` is where the block parser's
    /// `ctx.start_line` points. An error is its message and the offset nginx reports.
    fn token(&mut self, last_open: usize) -> Result<Tok, (String, usize)> {
        let len = self.src.len();
        let eof = || {
            (
                "unexpected end of file, expecting terminating characters for lua code block"
                    .to_string(),
                last_open,
            )
        };
        let token_start = self.pos;
        let too_long = || {
            (
                "too long lua code block, probably missing terminating characters".to_string(),
                token_start,
            )
        };
        let mut start = self.pos;
        loop {
            let (_, end) = self.buf;
            if self.pos >= end || (end - self.pos < BUF / 2 && end < len) {
                if end >= len {
                    return Err(eof());
                }
                if end - start == BUF {
                    return Err(too_long());
                }
                self.buf = (start, (start + BUF).min(len));
            }
            let Some((tok, s, e)) = lex(&self.src[self.pos..self.buf.1]) else {
                let end = self.buf.1;
                if end >= len {
                    return Err(eof());
                }
                if end - self.pos == BUF {
                    return Err(too_long());
                }
                // Keep the unmatched bytes, read more, and lex from the old buffer end: the
                // unmatched bytes are not lexed again, nor their LFs counted.
                let lfs = count_lf(&self.src[self.pos..end]);
                if lfs > 0 {
                    self.drift.push((end, lfs));
                }
                self.buf = (self.pos, (self.pos + BUF).min(len));
                start = self.pos;
                self.pos = end;
                continue;
            };
            let (s, mut e) = (self.pos + s, self.pos + e);
            if matches!(tok, Tok::LongString | Tok::LongComment) {
                // The opening `[=*[` (after `--`), and its closer `]=*]`, found in the buffer.
                let opener = if tok == Tok::LongComment { s + 2 } else { s };
                let n = e - opener;
                let hay = &self.src[e..self.buf.1];
                let found = hay.windows(n).position(|w| {
                    w[0] == b']' && w[n - 1] == b']' && w[1..n - 1].iter().all(|&c| c == b'=')
                });
                match found {
                    Some(q) => e += q + n,
                    None => {
                        return Err((
                            format!(
                                "Lua code block missing the closing long bracket \"]{}]\", \
                                 the inlined Lua code may be too long",
                                "=".repeat(n - 2)
                            ),
                            s,
                        ))
                    }
                }
            }
            self.pos = e;
            return Ok(tok);
        }
    }
}

/// `ngx_http_lua_lex()`: the leftmost token in `w` (start, end), the earlier pattern winning
/// at the same position. Tokens must end inside `w`.
fn lex(w: &[u8]) -> Option<(Tok, usize, usize)> {
    for (i, &c) in w.iter().enumerate() {
        let found = match c {
            b'{' => Some((Tok::LeftCurly, i + 1)),
            b'}' => Some((Tok::RightCurly, i + 1)),
            b'[' => bracket(w, i, b'[').map(|e| (Tok::LongString, e)),
            b']' => bracket(w, i, b']').map(|e| (Tok::RightLongBracket, e)),
            b'-' if w.get(i + 1) == Some(&b'-') => match bracket(w, i + 2, b'[') {
                Some(e) => Some((Tok::LongComment, e)),
                None => {
                    let e = w[i..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(w.len(), |p| i + p);
                    Some((Tok::LineComment, e))
                }
            },
            b'"' => short_string(w, i, b'"').map(|e| (Tok::DoubleQuoted, e)),
            b'\'' => short_string(w, i, b'\'').map(|e| (Tok::SingleQuoted, e)),
            _ => None,
        };
        if let Some((tok, e)) = found {
            return Some((tok, i, e));
        }
    }
    None
}

/// `\[=*\[` (or `\]=*\]` when `b` is `]`) at `at`: the end of the match.
fn bracket(w: &[u8], at: usize, b: u8) -> Option<usize> {
    if w.get(at) != Some(&b) {
        return None;
    }
    let eq = w[at + 1..].iter().take_while(|&&c| c == b'=').count();
    (w.get(at + 1 + eq) == Some(&b)).then_some(at + eq + 2)
}

/// `"(?:\\[^\n]|[^"\n\\])*"` at `at`: the end of the match. No LF inside, not even escaped.
fn short_string(w: &[u8], at: usize, q: u8) -> Option<usize> {
    let mut i = at + 1;
    loop {
        match *w.get(i)? {
            b'\\' => match w.get(i + 1) {
                Some(&c) if c != b'\n' => i += 2,
                _ => return None,
            },
            b'\n' => return None,
            c if c == q => return Some(i + 1),
            _ => i += 1,
        }
    }
}

fn count_lf(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'\n').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end_of(body: &[u8]) -> Option<usize> {
        let mut src = b"{".to_vec();
        src.extend_from_slice(body);
        find_block_end(&src, 0).map(|e| e - 1)
    }

    #[test]
    fn braces_in_strings_and_comments_do_not_count() {
        let body = b" local t = {a = \"}{;\", b = '}'} -- } ;\n --[[ } ]] x = [==[ ]] } ]==] }rest";
        let end = end_of(body).unwrap();
        assert_eq!(&body[end..], b"}rest");
    }

    #[test]
    fn unbalanced_lua_runs_to_eof() {
        assert_eq!(end_of(b" if x then { end "), None);
    }

    #[test]
    fn a_string_never_spans_lines() {
        // `"a\` LF is not a string, so the `}` on the next line closes the block.
        let body = b" s = \"a\\\n}\" }";
        assert_eq!(end_of(body), Some(9));
    }

    #[test]
    fn dash_dash_bracket_is_a_block_comment() {
        assert_eq!(end_of(b" --[[ }\n ]] }"), Some(12));
        // `---[[` is a line comment: the `}` on the next line counts.
        assert_eq!(end_of(b" ---[[ x\n } ]] }"), Some(10));
    }

    #[test]
    fn long_bracket_must_close_inside_the_buffer() {
        let mut src = b"{ s = [[".to_vec();
        src.extend(std::iter::repeat_n(b'x', 5000));
        src.extend_from_slice(b"]] }");
        let err = read_block(&src, 0, (0, BUF)).unwrap_err();
        assert_eq!(
            err.message,
            "Lua code block missing the closing long bracket \"]]\", the inlined Lua code may be too long"
        );
        assert_eq!(find_block_end(&src, 0), Some(src.len() - 1));
    }
}
