//! `lemplint parse --format json`: the lossless tree as JSON, with byte spans and 1-based
//! lines and columns.
//!
//! The JSON is written straight into a byte buffer, not built as `serde_json::Value`s first:
//! a value per node and argument made allocation the main cost of `parse` on large trees.
//! The output is byte-for-byte what `serde_json` (with `preserve_order`) printed for the
//! same values, so the format did not change. The tree is walked iteratively (not through
//! nested values), so a very deeply nested file cannot overflow the stack.

use super::tree::{BlockKind, Directive, Node, NodeId, NodeKind, Tree};
use crate::source::{FileId, SourceFile, Span};
use std::io::{self, Write};

/// Buffered JSON output: small pieces are appended to `buf`, which goes to `out` in large
/// chunks, so a writer behind `dyn Write` is called once per chunk, not once per token.
pub struct JsonOut<'a> {
    buf: Vec<u8>,
    out: &'a mut dyn Write,
}

/// How much is gathered before it is handed to the writer. Large enough that the
/// per-write cost vanishes, small enough not to matter for peak memory.
const CHUNK: usize = 32 * 1024;

impl<'a> JsonOut<'a> {
    pub fn new(out: &'a mut dyn Write) -> Self {
        JsonOut {
            // Headroom past a chunk: the value that crosses the mark seldom reallocates.
            buf: Vec::with_capacity(CHUNK + CHUNK / 4),
            out,
        }
    }

    /// Appends bytes that are already JSON (punctuation, keys, literals).
    pub fn raw(&mut self, json: &[u8]) {
        self.buf.extend_from_slice(json);
    }

    /// Appends a JSON string holding `s`.
    pub fn string(&mut self, s: &str) {
        self.buf.push(b'"');
        escape_text(&mut self.buf, s.as_bytes());
        self.buf.push(b'"');
    }

    /// Appends a JSON string holding `bytes` decoded as `String::from_utf8_lossy` decodes
    /// them: each invalid sequence becomes one U+FFFD. Nothing is allocated.
    pub fn lossy(&mut self, bytes: &[u8]) {
        self.buf.push(b'"');
        // Nearly all text is ASCII, which needs no UTF-8 check: escaping it is one pass.
        // The ASCII prefix ends on a character boundary, so decoding the rest on its own
        // replaces exactly what decoding the whole would.
        let rest = &bytes[escape_ascii(&mut self.buf, bytes)..];
        for chunk in rest.utf8_chunks() {
            escape_text(&mut self.buf, chunk.valid().as_bytes());
            if !chunk.invalid().is_empty() {
                self.buf.extend_from_slice("\u{FFFD}".as_bytes());
            }
        }
        self.buf.push(b'"');
    }

    /// Appends an unsigned integer in decimal. (Every number in the output is a u32.)
    pub fn uint(&mut self, n: u32) {
        let mut digits = [0u8; 10]; // u32::MAX has 10 digits
        let mut at = digits.len();
        let mut rest = n as usize;
        // Two digits per division, from a table of "00" to "99".
        while rest >= 100 {
            let pair = rest % 100 * 2;
            rest /= 100;
            at -= 2;
            digits[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        }
        if rest >= 10 {
            at -= 2;
            digits[at..at + 2].copy_from_slice(&DIGIT_PAIRS[rest * 2..rest * 2 + 2]);
        } else {
            at -= 1;
            digits[at] = b'0' + rest as u8;
        }
        self.buf.extend_from_slice(&digits[at..]);
    }

    /// Appends a span as `[start,end]`.
    pub fn span(&mut self, s: Span) {
        self.buf.push(b'[');
        self.uint(s.start);
        self.buf.push(b',');
        self.uint(s.end);
        self.buf.push(b']');
    }

    /// How many bytes are buffered: a position for [`JsonOut::repeat`].
    pub fn position(&self) -> usize {
        self.buf.len()
    }

    /// Appends again what was appended at `range` (positions from [`JsonOut::position`], with
    /// no flush in between).
    pub fn repeat(&mut self, range: std::ops::Range<usize>) {
        self.buf.extend_from_within(range);
    }

    /// Hands the buffer to the writer once it holds a chunk's worth. Call between values;
    /// the buffer may grow past a chunk inside one large value (a long comment), which
    /// costs no more than the source text itself.
    pub fn maybe_flush(&mut self) -> io::Result<()> {
        if self.buf.len() >= CHUNK {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// Hands everything buffered to the writer (not flushing the writer itself).
    pub fn flush_buf(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }

    /// Hands everything buffered to the writer and flushes it.
    pub fn flush(&mut self) -> io::Result<()> {
        self.flush_buf()?;
        self.out.flush()
    }
}

/// "00" to "99", for writing integers two digits at a time.
const DIGIT_PAIRS: [u8; 200] = digit_pairs();

const fn digit_pairs() -> [u8; 200] {
    let mut t = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
}

/// What a byte becomes inside a JSON string: [`PLAIN`] for itself, `u` for `\u00xx`, else
/// the letter after the backslash, and [`NON_ASCII`] for bytes from 0x80 (copied as they
/// are, but the ASCII fast path stops there). The escaped bytes are exactly those
/// serde_json escapes: `"`, `\` and the controls below 0x20 (not DEL, `/` or non-ASCII).
const ESCAPES: [u8; 256] = escape_table();
const PLAIN: u8 = 0;
const NON_ASCII: u8 = 1;

const fn escape_table() -> [u8; 256] {
    let mut t = [PLAIN; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    b = 0x80;
    while b < 0x100 {
        t[b] = NON_ASCII;
        b += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0a] = b'n';
    t[0x0c] = b'f';
    t[0x0d] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
}

/// Appends valid UTF-8 `text` with JSON escapes.
fn escape_text(buf: &mut Vec<u8>, mut text: &[u8]) {
    loop {
        text = &text[escape_ascii(buf, text)..];
        // Multi-byte characters are copied as they are (serde_json does not escape them).
        let run = text.iter().position(u8::is_ascii).unwrap_or(text.len());
        buf.extend_from_slice(&text[..run]);
        text = &text[run..];
        if text.is_empty() {
            return;
        }
    }
}

/// Appends `bytes` with JSON escapes up to their first non-ASCII byte, copying unescaped
/// runs whole; returns how many bytes it consumed.
fn escape_ascii(buf: &mut Vec<u8>, bytes: &[u8]) -> usize {
    let mut run_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time while none needs a look (nearly all text): a byte at a time
        // only around the ones that do.
        if let Some(word) = bytes.get(i..i + 8) {
            let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
            if is_plain_ascii(word) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let esc = ESCAPES[b as usize];
        if esc == PLAIN {
            i += 1;
            continue;
        }
        buf.extend_from_slice(&bytes[run_start..i]);
        if esc == NON_ASCII {
            return i;
        }
        i += 1;
        run_start = i;
        if esc == b'u' {
            // serde_json writes these with lowercase hex digits.
            const HEX: &[u8; 16] = b"0123456789abcdef";
            buf.extend_from_slice(b"\\u00");
            buf.push(HEX[(b >> 4) as usize]);
            buf.push(HEX[(b & 0xf) as usize]);
        } else {
            buf.push(b'\\');
            buf.push(esc);
        }
    }
    buf.extend_from_slice(&bytes[run_start..]);
    bytes.len()
}

/// Whether none of the eight bytes of `word` is escaped or non-ASCII: no byte from 0x80,
/// below 0x20, `"` or `\`. (The classic "has a zero byte" and "has a byte less than n"
/// tests: each is exact about whether such a byte exists, which is all that is asked.)
fn is_plain_ascii(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = has_zero(word ^ (ONES * u64::from(b'"')));
    let backslash = has_zero(word ^ (ONES * u64::from(b'\\')));
    (word | below_space | quote | backslash) & HIGHS == 0
}

/// Writes the nodes of `tree` as a JSON array. `includes` lists, sorted by node, the include
/// directives that read files and the indexes of those files.
pub fn write_nodes(
    o: &mut JsonOut<'_>,
    src: &SourceFile,
    tree: &Tree,
    includes: &[(NodeId, &[FileId])],
) -> io::Result<()> {
    // `closers[i]` is the node index at which the i-th open block ends.
    let mut closers: Vec<NodeId> = Vec::new();
    // Nodes come in document order, so the include list is consumed front to back.
    let mut includes = includes.iter().peekable();
    let mut first_in_list = true;
    o.raw(b"[");
    for (i, node) in tree.nodes.iter().enumerate() {
        let i = i as NodeId;
        while closers.last() == Some(&i) {
            closers.pop();
            o.raw(b"]}}");
            first_in_list = false;
        }
        if !first_in_list {
            o.raw(b",");
        }
        first_in_list = false;
        let Some(d) = node.kind.statement() else {
            write_leaf(o, src, node);
            o.maybe_flush()?;
            continue;
        };
        let files = includes
            .next_if(|(at, _)| *at == i)
            .map(|(_, files)| *files);
        write_directive_head(o, src, tree, (i, node), d, files);
        let Some(b) = &d.block() else {
            o.raw(b"}");
            o.maybe_flush()?;
            continue;
        };
        // The block object stays open: its last key is `children`, and the children are
        // the nodes that follow, up to `node.end`.
        write_block_head(o, src, b);
        o.raw(b",\"children\":[");
        if node.end == i + 1 {
            o.raw(b"]}}");
        } else {
            closers.push(node.end);
            first_in_list = true;
        }
        o.maybe_flush()?;
    }
    for _ in closers {
        o.raw(b"]}}");
    }
    o.raw(b"]");
    Ok(())
}

/// A comment or an error node, as a complete object.
fn write_leaf(o: &mut JsonOut<'_>, src: &SourceFile, node: &Node) {
    o.raw(if node.kind == NodeKind::Comment {
        b"{\"type\":\"comment\",\"text\":"
    } else {
        b"{\"type\":\"error\",\"text\":"
    });
    o.lossy(src.bytes(node.span));
    write_position(o, src, node.span);
    o.raw(b"}");
}

/// `,"line":…,"column":…,"span":[…]` for a node or an error at `span`.
pub fn write_position(o: &mut JsonOut<'_>, src: &SourceFile, span: Span) {
    let lc = src.line_col(span.start);
    o.raw(b",\"line\":");
    o.uint(lc.line);
    o.raw(b",\"column\":");
    o.uint(lc.column);
    o.raw(b",\"span\":");
    o.span(span);
}

/// A directive's (or word-list entry's) object up to (not including) its `block` key and
/// closing brace. Entries have the same fields, with `"type":"entry"`.
fn write_directive_head(
    o: &mut JsonOut<'_>,
    src: &SourceFile,
    tree: &Tree,
    (id, node): (NodeId, &Node),
    d: &Directive,
    includes: Option<&[FileId]>,
) {
    o.raw(if matches!(node.kind, NodeKind::Entry(_)) {
        b"{\"type\":\"entry\",\"name\":"
    } else {
        b"{\"type\":\"directive\",\"name\":"
    });
    o.lossy(&tree.name(d).value(&src.text));
    write_position(o, src, node.span);
    o.raw(b",\"args\":[");
    for (n, w) in tree.args(d).iter().enumerate() {
        if n > 0 {
            o.raw(b",");
        }
        let raw = src.bytes(w.raw());
        o.raw(b"{\"raw\":");
        let raw_json = o.position();
        o.lossy(raw);
        let raw_json = raw_json..o.position();
        o.raw(b",\"value\":");
        // Allocates only for a word with a backslash in it.
        let value = w.value(&src.text);
        if *value == *raw {
            // Most words are unquoted and unescaped: reuse the string just written.
            o.repeat(raw_json);
        } else {
            o.lossy(&value);
        }
        o.raw(b",\"span\":");
        o.span(w.raw());
        o.raw(b"}");
    }
    o.raw(if d.semicolon().is_some() {
        b"],\"terminator\":\";\""
    } else if d.block().is_some() {
        b"],\"terminator\":\"{\""
    } else {
        b"],\"terminator\":null"
    });
    let comments = tree.comments_in(id);
    if !comments.is_empty() {
        o.raw(b",\"comments\":[");
        for (n, c) in comments.iter().enumerate() {
            if n > 0 {
                o.raw(b",");
            }
            o.lossy(src.bytes(*c));
        }
        o.raw(b"]");
    }
    if let Some(files) = includes {
        o.raw(b",\"includes\":[");
        for (n, f) in files.iter().enumerate() {
            if n > 0 {
                o.raw(b",");
            }
            o.uint(f.0);
        }
        o.raw(b"]");
    }
}

/// `,"block":{"kind":…,"open":…,"close":…` and, for Lua, `,"lua":…`; the object is left
/// open for its children.
fn write_block_head(o: &mut JsonOut<'_>, src: &SourceFile, b: &super::tree::Block) {
    o.raw(match b.kind {
        BlockKind::Directives => b",\"block\":{\"kind\":\"directives\",\"open\":",
        BlockKind::WordList => b",\"block\":{\"kind\":\"words\",\"open\":",
        BlockKind::Lua => b",\"block\":{\"kind\":\"lua\",\"open\":",
    });
    o.span(b.open());
    o.raw(b",\"close\":");
    match b.close() {
        Some(close) => o.span(close),
        None => o.raw(b"null"),
    }
    if let Some(body) = b.lua_body(&src.text) {
        o.raw(b",\"lua\":");
        o.lossy(src.bytes(body));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn via<F: FnOnce(&mut JsonOut<'_>)>(f: F) -> Vec<u8> {
        let mut sink = Vec::new();
        let mut o = JsonOut::new(&mut sink);
        f(&mut o);
        o.flush_buf().unwrap();
        sink
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let all: String = (0u32..0x80)
            .chain([0xe9, 0x2028, 0xfffd, 0x1f600])
            .filter_map(char::from_u32)
            .collect();
        assert_eq!(via(|o| o.string(&all)), serde_json::to_vec(&all).unwrap());
    }

    #[test]
    fn invalid_utf8_is_replaced_like_from_utf8_lossy() {
        let bytes = b"a\xff\xfeb\xc3\xa9\xc3\"\xe2\x82\n\xf0\x9f\x98\x80\xf0";
        let lossy = String::from_utf8_lossy(bytes);
        assert_eq!(via(|o| o.lossy(bytes)), serde_json::to_vec(&lossy).unwrap());
    }

    #[test]
    fn integers_are_decimal() {
        for n in [
            0,
            7,
            9,
            10,
            99,
            100,
            101,
            999,
            1000,
            65_536,
            1_000_000_007,
            u32::MAX,
        ] {
            assert_eq!(via(|o| o.uint(n)), n.to_string().into_bytes());
        }
    }
}
