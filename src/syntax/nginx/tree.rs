//! The lossless nginx syntax tree.
//!
//! The tree is a flat arena of [`Node`]s in document (pre-)order. A block directive's
//! descendants are the nodes `id + 1 .. node.end`, so walking every directive of a file is a
//! linear scan with no recursion, and a tree 200,000 blocks deep costs nothing extra.
//!
//! Every byte of the source belongs to a node or a word (names, arguments, `;`, braces,
//! comments, opaque Lua bodies, error fragments), or is whitespace between them (only space,
//! tab, CR and LF, as nginx defines it). [`Tree::print`] rebuilds the input from the tree
//! and its source; the round-trip tests check that it is byte-identical.

use crate::source::Span;
use std::borrow::Cow;

/// Index of a node in [`Tree::nodes`].
pub type NodeId = u32;

/// Parent of top-level nodes.
pub const ROOT: NodeId = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quote {
    None,
    Single,
    Double,
}

/// One token: a directive name or an argument.
///
/// Eight bytes, as a large configuration has millions: the raw span, with the top bit of
/// each end saying whether a quote sits there (an opening one; a closing one, which a file
/// that ends inside the quotes lacks). Sources are capped well below 2 GiB, so offsets
/// never reach that bit.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Word {
    start: u32,
    end: u32,
}

const QUOTE_BIT: u32 = 1 << 31;

impl std::fmt::Debug for Word {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Word")
            .field("raw", &self.raw())
            .field("inner", &self.inner())
            .finish()
    }
}

/// Bytes as text, invalid UTF-8 replaced: `from_utf8` checks valid text (nearly all of it)
/// much faster than the lossy conversion, which only the rest needs.
pub fn lossy_text(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

impl Word {
    /// A word from its raw span and the part inside its quotes (equal when unquoted).
    pub fn new(raw: Span, inner: Span) -> Word {
        debug_assert!(raw.end < QUOTE_BIT, "source offsets stay below 2 GiB");
        debug_assert!(inner.start - raw.start <= 1 && raw.end - inner.end <= 1);
        let open = if inner.start > raw.start {
            QUOTE_BIT
        } else {
            0
        };
        let close = if inner.end < raw.end { QUOTE_BIT } else { 0 };
        Word {
            start: raw.start | open,
            end: raw.end | close,
        }
    }

    /// The raw token, quotes included.
    pub fn raw(&self) -> Span {
        Span::new(self.start & !QUOTE_BIT, self.end & !QUOTE_BIT)
    }

    /// The token without its quotes (escapes not yet processed).
    pub fn inner(&self) -> Span {
        let raw = self.raw();
        Span::new(raw.start + (self.start >> 31), raw.end - (self.end >> 31))
    }

    pub fn quote(&self, src: &[u8]) -> Quote {
        if self.raw().start == self.inner().start {
            return Quote::None;
        }
        match src[self.raw().start as usize] {
            b'\'' => Quote::Single,
            _ => Quote::Double,
        }
    }

    /// The word's value as nginx sees it: quotes removed, `\"`, `\'`, `\\`, `\t`, `\r`, `\n`
    /// unescaped, every other `\x` kept as typed (in quoted and unquoted words alike).
    pub fn value<'a>(&self, src: &'a [u8]) -> Cow<'a, [u8]> {
        unescape(&src[self.inner().range()])
    }

    /// [`Word::value`] as text, invalid UTF-8 replaced.
    pub fn text<'a>(&self, src: &'a [u8]) -> Cow<'a, str> {
        match self.value(src) {
            Cow::Borrowed(b) => lossy_text(b),
            Cow::Owned(v) => match String::from_utf8(v) {
                Ok(s) => Cow::Owned(s),
                Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
            },
        }
    }

    /// Whether the raw token equals `s` (cheap check for names, which are never quoted in
    /// practice; a quoted name is compared by value).
    pub fn is(&self, src: &[u8], s: &str) -> bool {
        let raw = &src[self.inner().range()];
        // Unescaping only shortens a word: one shorter than `s` cannot equal it, and one
        // equal to `s` as written has nothing to unescape unless `s` has a backslash.
        if raw.len() < s.len() {
            return false;
        }
        if raw == s.as_bytes() && !s.contains('\\') {
            return true;
        }
        // Each escape turns two bytes into one, so the value is at least half as long as
        // the word: a word over twice as long as `s` is not it, and is not unescaped to see
        // (a regex key full of `\.`, asked whether it is `include`).
        if raw.len() > 2 * s.len() {
            return false;
        }
        has_backslash(raw) && self.value(src).as_ref() == s.as_bytes()
    }
}

/// Whether `raw` holds a backslash. Words are mostly a few bytes long, where the call into
/// `memchr` costs more than the scan: those are read eight bytes at a time (a byte equal to
/// `\\` is a zero byte of `word ^ 0x5C…5C`, which the borrow trick finds exactly); long ones
/// use `memchr`. It runs on every word a rule reads.
fn has_backslash(raw: &[u8]) -> bool {
    if raw.len() >= 32 {
        return memchr::memchr(b'\\', raw).is_some();
    }
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    const SLASHES: u64 = u64::from_ne_bytes([b'\\'; 8]);
    let mut chunks = raw.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let v = u64::from_ne_bytes(word) ^ SLASHES;
        if v.wrapping_sub(ONES) & !v & HIGH != 0 {
            return true;
        }
    }
    // Up to seven bytes: a plain loop (`contains` would call into `memchr`).
    for &b in chunks.remainder() {
        if b == b'\\' {
            return true;
        }
    }
    false
}

/// nginx's escape processing (`ngx_conf_read_token`, the copy loop).
pub fn unescape(raw: &[u8]) -> Cow<'_, [u8]> {
    if !has_backslash(raw) {
        return Cow::Borrowed(raw);
    }
    // The runs between backslashes are copied whole (a regex word is mostly `\\.` escapes
    // nginx keeps as written, between plain runs).
    let mut out = Vec::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = memchr::memchr(b'\\', rest) {
        out.extend_from_slice(&rest[..i]);
        let unescaped = match rest.get(i + 1) {
            Some(&c @ (b'"' | b'\'' | b'\\')) => Some(c),
            Some(b't') => Some(b'\t'),
            Some(b'r') => Some(b'\r'),
            Some(b'n') => Some(b'\n'),
            _ => None,
        };
        match unescaped {
            Some(c) => {
                out.push(c);
                rest = &rest[i + 2..];
            }
            // Any other escape stays as written; the byte after it is read anew.
            None => {
                out.push(b'\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out.extend_from_slice(rest);
    Cow::Owned(out)
}

/// How the contents of a block are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// Ordinary directives (`http`, `server`, `location`, `if`, …).
    Directives,
    /// A module's own line syntax (`types`, `map`, `geo`, `split_clients`, `charset_map`):
    /// each entry is tokenized like a directive but is not one; `{` inside is an error.
    WordList,
    /// An OpenResty `*_by_lua_block`: the body is Lua, kept opaque (see [`Block::lua_body`]).
    Lua,
}

/// A directive's block. Braces are one byte each, so only their offsets are kept. A
/// directive stores the parts (see [`Directive::block`]); this is the view of them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Block {
    open: u32,
    /// [`ABSENT`] when the file ended before the block was closed.
    close: u32,
    pub kind: BlockKind,
}

/// An offset that is not there (a missing `}` or `;`). Offsets stay below 2 GiB (see
/// [`Word`]), so this one is never a real one, and the bit above it is free.
const ABSENT: u32 = (1 << 31) - 1;

/// The top bit of a [`Directive`]'s offsets, which holds part of its block kind.
const KIND_BIT: u32 = 1 << 31;

/// The one-byte span at `at`, unless it is [`ABSENT`].
fn byte_at(at: u32) -> Option<Span> {
    (at != ABSENT).then(|| Span::new(at, at + 1))
}

impl std::fmt::Debug for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Block")
            .field("open", &self.open())
            .field("close", &self.close())
            .field("kind", &self.kind)
            .finish()
    }
}

/// The [`Directive::name_id`] of a word-list entry (other than `include`): its first word is
/// a key (a map's source value, a MIME type), not a name, and numbering them cost a
/// name-table slot and a [`Tree::names`] word per key; a 2.5M-key map spent 40% of its lint
/// time probing a name table far larger than the cache.
pub const NO_NAME: u32 = u32::MAX;

/// A statement: a directive, or a line of a word-list block ([`NodeKind::Entry`]), which is
/// tokenized and stored the same way. 20 bytes (a node, 40), as a large configuration has
/// millions: the name is the word before the arguments ([`Tree::name`]), the `;` and the `{`
/// share a field, since a statement ends with one or the other, the block's kind lives in the
/// top bits of the two offsets (which stay below 2 GiB), and the comments written between its
/// arguments (rare) are found through [`Tree::comments_in`].
#[derive(Clone, PartialEq, Eq)]
pub struct Directive {
    /// The name's index in [`Tree::names`]: directives with equal names (by value) share it.
    /// [`NO_NAME`] for a word-list entry other than `include`.
    pub name_id: u32,
    /// Range into [`Tree::words`]; the name is the word just before it.
    pub args: (u32, u32),
    /// The offset of the `;` or, for a block, the `{`; or [`ABSENT`] (unterminated). The
    /// top bit is the high bit of the block kind (see [`Directive::block_kind`]).
    end_mark: u32,
    /// The block's `}`, or [`ABSENT`] (no block, or one the file never closed). The top bit
    /// is the low bit of the block kind.
    close: u32,
}

impl std::fmt::Debug for Directive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Directive")
            .field("name_id", &self.name_id)
            .field("args", &self.args)
            .field("semicolon", &self.semicolon())
            .field("block", &self.block())
            .finish()
    }
}

impl Block {
    pub fn new(open: Span, close: Option<Span>, kind: BlockKind) -> Block {
        debug_assert!(open.len() == 1 && close.is_none_or(|c| c.len() == 1));
        Block {
            open: open.start,
            close: close.map_or(ABSENT, |c| c.start),
            kind,
        }
    }

    /// The `{`.
    pub fn open(&self) -> Span {
        Span::new(self.open, self.open + 1)
    }

    /// The `}`; `None` when the file ended before the block was closed.
    pub fn close(&self) -> Option<Span> {
        byte_at(self.close)
    }

    /// A Lua block's body: everything between its braces (to the end of the file when the
    /// block never closes).
    pub fn lua_body(&self, src: &[u8]) -> Option<Span> {
        (self.kind == BlockKind::Lua).then(|| {
            Span::new(
                self.open + 1,
                self.close().map_or(src.len() as u32, |c| c.start),
            )
        })
    }
}

impl Directive {
    /// A directive ended by `semicolon`, or by `block`'s `{` (one or neither, not both).
    /// `args` starts one past the name's word.
    pub fn new(
        name_id: u32,
        args: (u32, u32),
        semicolon: Option<Span>,
        block: Option<Block>,
    ) -> Directive {
        debug_assert!(semicolon.is_none_or(|s| s.len() == 1));
        debug_assert!(semicolon.is_none() || block.is_none());
        debug_assert!(args.0 >= 1 && args.0 <= args.1);
        let (end_mark, close, kind) = match block {
            Some(b) => (b.open, b.close, kind_code(b.kind)),
            None => (semicolon.map_or(ABSENT, |s| s.start), ABSENT, 0),
        };
        debug_assert!(
            end_mark <= ABSENT && close <= ABSENT,
            "offsets stay below 2 GiB"
        );
        Directive {
            name_id,
            args,
            end_mark: end_mark | (kind >> 1) << 31,
            close: close | (kind & 1) << 31,
        }
    }

    /// The kind of the directive's block, if it has one.
    fn block_kind(&self) -> Option<BlockKind> {
        match (self.end_mark >> 31) << 1 | self.close >> 31 {
            0 => None,
            1 => Some(BlockKind::Directives),
            2 => Some(BlockKind::WordList),
            _ => Some(BlockKind::Lua),
        }
    }

    /// The `;` or `{` offset (or [`ABSENT`]).
    fn end_offset(&self) -> u32 {
        self.end_mark & !KIND_BIT
    }

    /// The `;` that ends the statement, if it has one.
    pub fn semicolon(&self) -> Option<Span> {
        match self.block_kind() {
            Some(_) => None,
            None => byte_at(self.end_offset()),
        }
    }

    /// The directive's block, if it has one.
    pub fn block(&self) -> Option<Block> {
        self.block_kind().map(|kind| Block {
            open: self.end_offset(),
            close: self.close & !KIND_BIT,
            kind,
        })
    }

    /// Records the `}` that closes the directive's block.
    pub fn set_close(&mut self, close: Span) {
        debug_assert!(close.len() == 1 && self.block_kind().is_some());
        debug_assert!(close.start < ABSENT);
        self.close = (self.close & KIND_BIT) | close.start;
    }

    /// True when the statement was ended by neither `;` nor `{` (a syntax error was reported).
    pub fn is_unterminated(&self) -> bool {
        self.end_offset() == ABSENT
    }
}

/// [`Directive::block_kind`]'s encoding: 0 is no block.
fn kind_code(kind: BlockKind) -> u32 {
    match kind {
        BlockKind::Directives => 1,
        BlockKind::WordList => 2,
        BlockKind::Lua => 3,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Directive(Directive),
    /// A line of a word-list block (`types`, `map`, `geo`, `split_clients`, `charset_map`;
    /// see [`BlockKind::WordList`]), or of a block opened inside one: tokenized like a
    /// directive and stored like one, but an entry the module's own handler reads (a MIME
    /// type and its extensions, a key and its value), not a directive. An `include` among
    /// them is nginx's include all the same (the map, geo and types handlers call it), so it
    /// is listed in [`Tree::includes`] and followed.
    Entry(Directive),
    /// A `#` comment on its own (not between the arguments of a directive), up to but
    /// excluding the LF.
    Comment,
    /// Bytes that could not be placed in a directive (a stray `;`, `{` or `}`).
    Error,
}

impl NodeKind {
    /// The statement's parts, for a directive or a word-list entry.
    pub fn statement(&self) -> Option<&Directive> {
        match self {
            NodeKind::Directive(d) | NodeKind::Entry(d) => Some(d),
            NodeKind::Comment | NodeKind::Error => None,
        }
    }

    /// [`NodeKind::statement`], mutable.
    pub fn statement_mut(&mut self) -> Option<&mut Directive> {
        match self {
            NodeKind::Directive(d) | NodeKind::Entry(d) => Some(d),
            NodeKind::Comment | NodeKind::Error => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub kind: NodeKind,
    /// From the first byte of the name (or comment) to the end of the `;`, the closing
    /// brace, or the last word when the statement is unterminated.
    pub span: Span,
    pub parent: NodeId,
    /// One past the last descendant: descendants are `id + 1 .. end`.
    pub end: NodeId,
}

/// A parsed nginx file. Spans point into the source it was parsed from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    pub nodes: Vec<Node>,
    pub words: Vec<Word>,
    /// Comments written between the arguments of a directive, in order, and beside them
    /// the directive each belongs to.
    pub arg_comments: Vec<Span>,
    pub comment_owners: Vec<NodeId>,
    /// Each distinct directive name of the file (the word of its first occurrence), so a
    /// configuration-wide index can name directives by number instead of hashing every one.
    /// Word-list entries are not numbered (see [`NO_NAME`]), except `include`.
    pub names: Vec<Word>,
    /// Every `include` statement (directive or word-list entry), in order: where nginx reads
    /// other files, so loading a configuration need not scan every node for them.
    pub includes: Vec<NodeId>,
}

impl Tree {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The directive at `id` (not a word-list entry: see [`Tree::statement`]).
    pub fn directive(&self, id: NodeId) -> Option<&Directive> {
        match &self.nodes[id as usize].kind {
            NodeKind::Directive(d) => Some(d),
            _ => None,
        }
    }

    /// The directive or word-list entry at `id`: what was written there, whatever nginx
    /// makes of it.
    pub fn statement(&self, id: NodeId) -> Option<&Directive> {
        self.nodes[id as usize].kind.statement()
    }

    /// The directive's name as written.
    pub fn name(&self, d: &Directive) -> Word {
        self.words[d.args.0 as usize - 1]
    }

    pub fn args(&self, d: &Directive) -> &[Word] {
        &self.words[d.args.0 as usize..d.args.1 as usize]
    }

    /// The comments written between the arguments of directive `id`.
    pub fn comments_in(&self, id: NodeId) -> &[Span] {
        if self.comment_owners.is_empty() {
            return &[];
        }
        let from = self.comment_owners.partition_point(|&o| o < id);
        let to = from + self.comment_owners[from..].partition_point(|&o| o == id);
        &self.arg_comments[from..to]
    }

    /// Every directive and word-list entry of the file, in document order, with its id.
    pub fn statements(&self) -> impl Iterator<Item = (NodeId, &Directive)> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| Some((i as NodeId, n.kind.statement()?)))
    }

    /// Every directive of the file (not word-list entries), in document order, with its id.
    pub fn directives(&self) -> impl Iterator<Item = (NodeId, &Directive)> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| match &n.kind {
                NodeKind::Directive(d) => Some((i as NodeId, d)),
                _ => None,
            })
    }

    /// Every directive named `name` (by value), in document order: one comparison of
    /// [`Directive::name_id`] per node, and nothing at all when the file has no such name.
    pub fn directives_named<'a>(
        &'a self,
        src: &[u8],
        name: &str,
    ) -> impl Iterator<Item = (NodeId, &'a Directive)> + 'a {
        let id = self.names.iter().position(|w| w.is(src, name));
        self.directives()
            .take_while(move |_| id.is_some())
            .filter(move |(_, d)| Some(d.name_id as usize) == id)
    }

    /// Direct children of `parent` (`ROOT` for the top level).
    pub fn children(&self, parent: NodeId) -> Children<'_> {
        let (next, end) = if parent == ROOT {
            (0, self.nodes.len() as NodeId)
        } else {
            (parent + 1, self.nodes[parent as usize].end)
        };
        Children {
            tree: self,
            next,
            end,
        }
    }

    /// The first node nested more than `limit` blocks deep, if any.
    pub fn first_deeper_than(&self, limit: u32) -> Option<NodeId> {
        // Parents come before their children, so one pass fills every depth.
        let mut depth: Vec<u32> = Vec::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            let d = if n.parent == ROOT {
                0
            } else {
                depth[n.parent as usize] + 1
            };
            if d > limit {
                return Some(i as NodeId);
            }
            depth.push(d);
        }
        None
    }

    /// Enclosing block directives, innermost first.
    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let mut cur = self.nodes[id as usize].parent;
        std::iter::from_fn(move || {
            if cur == ROOT {
                None
            } else {
                let out = cur;
                cur = self.nodes[cur as usize].parent;
                Some(out)
            }
        })
    }

    /// Rebuilds the file from the tree: every token and comment at its span, and the
    /// whitespace between them taken from the source. Panics in debug builds (and returns
    /// `None` otherwise) if a gap holds anything but whitespace, i.e. if the tree lost a byte.
    pub fn print(&self, src: &[u8]) -> Option<Vec<u8>> {
        let mut pieces: Vec<Span> = Vec::with_capacity(self.nodes.len() * 4);
        pieces.extend_from_slice(&self.arg_comments);
        for node in &self.nodes {
            match &node.kind {
                NodeKind::Directive(d) | NodeKind::Entry(d) => {
                    pieces.push(self.name(d).raw());
                    pieces.extend(self.args(d).iter().map(|w| w.raw()));
                    if let Some(s) = d.semicolon() {
                        pieces.push(s);
                    }
                    if let Some(b) = d.block() {
                        pieces.push(b.open());
                        if let Some(body) = b.lua_body(src) {
                            pieces.push(body);
                        }
                        if let Some(c) = b.close() {
                            pieces.push(c);
                        }
                    }
                }
                NodeKind::Comment | NodeKind::Error => pieces.push(node.span),
            }
        }
        pieces.sort_unstable();
        let mut out = Vec::with_capacity(src.len());
        let mut pos = 0usize;
        for p in pieces {
            let (s, e) = (p.start as usize, p.end as usize);
            if s < pos
                || !src[pos..s]
                    .iter()
                    .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            {
                return None;
            }
            out.extend_from_slice(&src[pos..s]);
            out.extend_from_slice(&src[s..e]);
            pos = e;
        }
        if !src[pos..]
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        {
            return None;
        }
        out.extend_from_slice(&src[pos..]);
        Some(out)
    }
}

pub struct Children<'a> {
    tree: &'a Tree,
    next: NodeId,
    end: NodeId,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let id = self.next;
        self.next = self.tree.nodes[id as usize].end;
        Some(id)
    }
}

// A large configuration has millions of nodes: keep them from growing unnoticed.
const _: () = assert!(std::mem::size_of::<Directive>() == 20);
const _: () = assert!(std::mem::size_of::<Node>() == 40);

#[cfg(test)]
mod tests {
    use super::*;

    /// The block kind shares the offsets' top bits: every kind, closed or not, and the
    /// largest offsets, read back as they were made.
    #[test]
    fn statements_keep_their_terminator_and_block_kind() {
        let max = ABSENT - 1;
        for at in [0, 7, max] {
            let semi = Directive::new(3, (1, 2), Some(Span::new(at, at + 1)), None);
            assert_eq!(semi.semicolon(), Some(Span::new(at, at + 1)));
            assert!(semi.block().is_none() && !semi.is_unterminated());
            for kind in [BlockKind::Directives, BlockKind::WordList, BlockKind::Lua] {
                let open = Span::new(at, at + 1);
                let mut d = Directive::new(3, (1, 2), None, Some(Block::new(open, None, kind)));
                let b = d.block().unwrap();
                assert_eq!((b.open(), b.close(), b.kind), (open, None, kind));
                assert!(d.semicolon().is_none() && !d.is_unterminated());
                let close = Span::new(max, max + 1);
                d.set_close(close);
                let b = d.block().unwrap();
                assert_eq!((b.open(), b.close(), b.kind), (open, Some(close), kind));
            }
        }
        let open = Directive::new(0, (1, 1), None, None);
        assert!(open.is_unterminated() && open.semicolon().is_none() && open.block().is_none());
    }

    /// A word list's keys are not numbered as names, its `include` is (and is listed with
    /// the file's includes); directives keep their ids, shared by value.
    #[test]
    fn word_list_keys_are_not_names() {
        let src = b"map $uri $x {\n  /a 1;\n  include m.conf;\n  \"/b\" 2;\n  x { }\n  \
                    default 0;\n}\ninclude a.conf;\ntypes { text/html html; }\nmap $a $b { }\n";
        let tree = crate::syntax::nginx::parse(src).tree;
        let names: Vec<String> = tree.names.iter().map(|w| w.text(src).into()).collect();
        assert_eq!(names, ["map", "include", "types"]);
        let mut entries = 0;
        for (id, node) in tree.nodes.iter().enumerate() {
            let Some(d) = node.kind.statement() else {
                continue;
            };
            let name = tree.name(d).text(src).into_owned();
            let expected = match (&node.kind, name.as_str()) {
                (NodeKind::Entry(_), "include") => 1,
                (NodeKind::Entry(_), _) => {
                    entries += 1;
                    NO_NAME
                }
                _ => names.iter().position(|n| *n == name).unwrap() as u32,
            };
            assert_eq!(d.name_id, expected, "node {id} ({name})");
        }
        assert_eq!(entries, 5);
        let includes: Vec<String> = (tree.includes.iter())
            .map(|&i| tree.name(tree.statement(i).unwrap()).text(src).into())
            .collect();
        assert_eq!(includes, ["include", "include"]);
        assert_eq!(tree.directives_named(src, "include").count(), 1);
    }

    /// `is` answers as comparing the unescaped value would, at the length bounds too (a
    /// word of only escapes is exactly twice its value's length).
    #[test]
    fn is_agrees_with_the_value() {
        let words: [&[u8]; 9] = [
            b"include",
            br"\\\\\\",
            br"\\\\\\\\",
            br"in\clude",
            br"\i\n\c\l\u\d\e",
            br"~*(bot|\.php)",
            br"\t",
            b"",
            b"includes",
        ];
        let names = ["include", r"\\", r"\\\", r"\\\\\", "\t", "\t\t", "x"];
        for raw in words {
            let w = Word::new(
                Span::new(0, raw.len() as u32),
                Span::new(0, raw.len() as u32),
            );
            for s in names {
                assert_eq!(
                    w.is(raw, s),
                    w.value(raw).as_ref() == s.as_bytes(),
                    "{:?} {s:?}",
                    String::from_utf8_lossy(raw)
                );
            }
        }
    }

    /// The run-copying [`unescape`] and the eight-byte backslash test give what nginx's copy
    /// loop gives, byte by byte, on every word of up to six bytes over an alphabet of the
    /// escapes, a plain byte and a UTF-8 lead byte, and on words around the 8- and 32-byte
    /// boundaries with one backslash at each position.
    #[test]
    fn unescape_is_nginx_copy_loop() {
        fn copy_loop(raw: &[u8]) -> Vec<u8> {
            let mut out = Vec::new();
            let mut i = 0;
            while i < raw.len() {
                let c = raw[i];
                if c == b'\\' && i + 1 < raw.len() {
                    let next = match raw[i + 1] {
                        b'"' | b'\'' | b'\\' => Some(raw[i + 1]),
                        b't' => Some(b'\t'),
                        b'r' => Some(b'\r'),
                        b'n' => Some(b'\n'),
                        _ => None,
                    };
                    if let Some(n) = next {
                        out.push(n);
                        i += 2;
                        continue;
                    }
                }
                out.push(c);
                i += 1;
            }
            out
        }
        let alphabet = [b'\\', b'"', b'\'', b't', b'n', b'r', b'x', 0xC3];
        let mut words: Vec<Vec<u8>> = vec![Vec::new()];
        for len in 1..=6u32 {
            for mut k in 0..alphabet.len().pow(len) {
                let mut w = Vec::new();
                for _ in 0..len {
                    w.push(alphabet[k % alphabet.len()]);
                    k /= alphabet.len();
                }
                words.push(w);
            }
        }
        for len in [7, 8, 9, 15, 16, 17, 31, 32, 33, 40] {
            for at in 0..len {
                let mut w = vec![b'a'; len];
                w[at] = b'\\';
                words.push(w);
            }
            words.push(vec![b'a'; len]);
        }
        for w in &words {
            assert_eq!(unescape(w).as_ref(), copy_loop(w).as_slice(), "{w:?}");
            assert_eq!(has_backslash(w), w.contains(&b'\\'), "{w:?}");
        }
    }
}
