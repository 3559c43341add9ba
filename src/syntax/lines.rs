//! What the two line-based parsers ([`super::fpm`], [`super::sysctl`]) share: a file cut into
//! physical lines, each item of the result covering its bytes, and the lossless print that
//! checks no byte was lost.

use crate::source::Span;

pub mod json;

/// One item of a line-based file. What `kind` says, and which terminators end a line, is
/// the parser's business; the items of a file are contiguous and cover every byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line<K> {
    /// Every byte of the item, including its line terminator when it ends the line.
    pub span: Span,
    /// The terminator at the end of `span`, empty if none.
    pub eol: Span,
    pub kind: K,
}

impl<K> Line<K> {
    /// The item `start..end` whose last `eol_len` bytes are its terminator.
    pub fn new(start: usize, end: usize, eol_len: usize, kind: K) -> Self {
        Line {
            span: Span::new(start as u32, end as u32),
            eol: Span::new((end - eol_len) as u32, end as u32),
            kind,
        }
    }
}

/// The physical lines of `src` as `(start, end)`: each up to and including its `\n` (the
/// last one may have none), as `getline()` returns them.
pub fn physical_lines(src: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut start = 0usize;
    std::iter::from_fn(move || {
        if start >= src.len() {
            return None;
        }
        let end = src[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(src.len(), |i| start + i + 1);
        let line = (start, end);
        start = end;
        Some(line)
    })
}

/// The bytes of `span`; empty when it is out of range.
pub fn slice(src: &[u8], span: Span) -> &[u8] {
    src.get(span.range()).unwrap_or_default()
}

/// Rebuilds `src` from its items (`what` names them in the debug message: `fpm items`).
/// Returns `None`, and panics in debug builds, if they are not contiguous or leave bytes out,
/// i.e. if the parser lost a byte.
pub fn print<K>(lines: &[Line<K>], src: &[u8], what: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(src.len());
    let mut pos = 0u32;
    for line in lines {
        if line.span.start != pos || line.span.end < pos {
            debug_assert!(false, "{what} not contiguous at {pos}: {:?}", line.span);
            return None;
        }
        out.extend_from_slice(src.get(line.span.range())?);
        pos = line.span.end;
    }
    if pos as usize != src.len() {
        debug_assert!(false, "{what} end at {pos}, file has {} bytes", src.len());
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn physical_lines_keep_their_terminator() {
        let lines: Vec<_> = physical_lines(b"a\nb\r\n\nc").collect();
        assert_eq!(lines, [(0, 2), (2, 5), (5, 6), (6, 7)]);
        assert_eq!(physical_lines(b"").count(), 0);
    }

    #[test]
    fn print_rebuilds_the_file() {
        let src = b"ab\n";
        let whole = [Line::new(0, 3, 1, ())];
        assert_eq!(print(&whole, src, "test lines").as_deref(), Some(&src[..]));
    }
}
