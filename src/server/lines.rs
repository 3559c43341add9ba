//! Byte offsets and LSP positions (line, UTF-16 code unit), which is what clients count in
//! unless they negotiate otherwise.

use lsp_types::Position;

/// Where each line starts, for one text.
pub struct LineIndex<'a> {
    text: &'a [u8],
    starts: Vec<u32>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a [u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i as u32 + 1));
        LineIndex { text, starts }
    }

    pub fn position(&self, offset: u32) -> Position {
        let offset = offset.min(self.text.len() as u32);
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line] as usize;
        let character = String::from_utf8_lossy(&self.text[start..offset as usize])
            .encode_utf16()
            .count();
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, span: crate::source::Span) -> lsp_types::Range {
        lsp_types::Range::new(self.position(span.start), self.position(span.end))
    }

    /// The byte offset of a position; one past a line's end is its end, a line past the
    /// last is the end of the text.
    pub fn offset(&self, pos: Position) -> u32 {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return self.text.len() as u32;
        };
        let end = self
            .starts
            .get(pos.line as usize + 1)
            .map_or(self.text.len(), |&e| e as usize);
        let line = &self.text[start as usize..end];
        let mut units = 0u32;
        for (i, ch) in String::from_utf8_lossy(line).char_indices() {
            if units >= pos.character {
                return start + i as u32;
            }
            units += ch.len_utf16() as u32;
        }
        end as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_both_ways() {
        let text = "a;\ncafé 𝄞 x;\n".as_bytes();
        let idx = LineIndex::new(text);
        let x = text.iter().position(|&b| b == b'x').unwrap() as u32;
        // c a f é ␠ 𝄞(2 units) ␠ → x at 8.
        assert_eq!(idx.position(x), Position::new(1, 8));
        assert_eq!(idx.offset(Position::new(1, 8)), x);
        assert_eq!(idx.offset(Position::new(0, 99)), 3);
        assert_eq!(idx.offset(Position::new(9, 0)), text.len() as u32);
        assert_eq!(idx.position(0), Position::new(0, 0));
    }
}
