//! Finding the end of an OpenResty `*_by_lua_block { … }` body.
//!
//! lua-nginx-module reads these bodies with its own Lua-aware lexer
//! (`ngx_http_lua_conf_lua_block_parse`): braces count only outside Lua strings, long
//! brackets and comments. We do the same, keep the body as one opaque span, and never try
//! to read it as nginx directives.

/// Returns the index of the `}` that closes a Lua block whose body starts at `from`,
/// or `None` when the input ends first.
pub fn find_block_end(src: &[u8], from: usize) -> Option<usize> {
    let mut level = 1usize;
    let mut i = from;
    while i < src.len() {
        match src[i] {
            b'{' => {
                level += 1;
                i += 1;
            }
            b'}' => {
                level -= 1;
                if level == 0 {
                    return Some(i);
                }
                i += 1;
            }
            b'-' if src.get(i + 1) == Some(&b'-') => {
                if let Some(end) = long_bracket(src, i + 2) {
                    i = end?;
                } else {
                    i = src[i..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(src.len(), |p| i + p);
                }
            }
            b'[' => match long_bracket(src, i) {
                Some(end) => i = end?,
                None => i += 1,
            },
            q @ (b'"' | b'\'') => i = short_string(src, i, q).unwrap_or(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// If a long bracket (`[[`, `[==[`) opens at `at`, returns `Some(Some(end))` with the index
/// just past its closing bracket, `Some(None)` if it never closes, `None` if none opens.
fn long_bracket(src: &[u8], at: usize) -> Option<Option<usize>> {
    if src.get(at) != Some(&b'[') {
        return None;
    }
    let level = src[at + 1..].iter().take_while(|&&b| b == b'=').count();
    if src.get(at + 1 + level) != Some(&b'[') {
        return None;
    }
    let mut closer = Vec::with_capacity(level + 2);
    closer.push(b']');
    closer.extend(std::iter::repeat_n(b'=', level));
    closer.push(b']');
    let body = at + level + 2;
    if let Some(p) = src[body.min(src.len())..]
        .windows(closer.len())
        .position(|w| w == closer.as_slice())
    {
        return Some(Some(body + p + closer.len()));
    }
    Some(None)
}

/// A Lua short string: ends at the matching quote; a backslash escapes the next byte; an
/// unescaped newline means this was not a string (the quote is an ordinary byte).
fn short_string(src: &[u8], at: usize, q: u8) -> Option<usize> {
    let mut i = at + 1;
    while i < src.len() {
        match src[i] {
            b'\\' => i += 2,
            b'\n' => return None,
            c if c == q => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces_in_strings_and_comments_do_not_count() {
        let body = b" local t = {a = \"}{;\", b = '}'} -- } ;\n --[[ } ]] x = [==[ ]] } ]==] }rest";
        let end = find_block_end(body, 0).unwrap();
        assert_eq!(&body[end..], b"}rest");
    }

    #[test]
    fn unbalanced_lua_runs_to_eof() {
        assert_eq!(find_block_end(b" if x then { end ", 0), None);
    }
}
