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
            Cow::Borrowed(b) => String::from_utf8_lossy(b),
            Cow::Owned(v) => Cow::Owned(String::from_utf8_lossy(&v).into_owned()),
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
        memchr::memchr(b'\\', raw).is_some() && self.value(src).as_ref() == s.as_bytes()
    }
}

/// nginx's escape processing (`ngx_conf_read_token`, the copy loop).
pub fn unescape(raw: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr(b'\\', raw).is_none() {
        return Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c == b'\\' && i + 1 < raw.len() {
            match raw[i + 1] {
                b'"' | b'\'' | b'\\' => {
                    out.push(raw[i + 1]);
                    i += 2;
                    continue;
                }
                b't' => {
                    out.push(b'\t');
                    i += 2;
                    continue;
                }
                b'r' => {
                    out.push(b'\r');
                    i += 2;
                    continue;
                }
                b'n' => {
                    out.push(b'\n');
                    i += 2;
                    continue;
                }
                _ => {}
            }
        }
        out.push(c);
        i += 1;
    }
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

/// A directive's block. Braces are one byte each, so only their offsets are kept.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Block {
    open: u32,
    /// [`ABSENT`] when the file ended before the block was closed.
    close: u32,
    pub kind: BlockKind,
}

/// An offset that is not there (a missing `}` or `;`).
const ABSENT: u32 = u32::MAX;

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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    pub name: Word,
    /// The name's index in [`Tree::names`]: directives with equal names (by value) share it.
    pub name_id: u32,
    /// Range into [`Tree::words`].
    pub args: (u32, u32),
    /// Comments written between the arguments; range into [`Tree::arg_comments`].
    pub comments: (u32, u32),
    /// The `;` offset, or [`ABSENT`] (see [`Directive::semicolon`]).
    semicolon: u32,
    pub block: Option<Block>,
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

    pub fn set_close(&mut self, close: Span) {
        debug_assert!(close.len() == 1);
        self.close = close.start;
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
    pub fn new(
        name: Word,
        name_id: u32,
        args: (u32, u32),
        comments: (u32, u32),
        semicolon: Option<Span>,
        block: Option<Block>,
    ) -> Directive {
        debug_assert!(semicolon.is_none_or(|s| s.len() == 1));
        Directive {
            name,
            name_id,
            args,
            comments,
            semicolon: semicolon.map_or(ABSENT, |s| s.start),
            block,
        }
    }

    /// The `;` that ends the statement, if it has one.
    pub fn semicolon(&self) -> Option<Span> {
        byte_at(self.semicolon)
    }

    /// True when the statement was ended by neither `;` nor `{` (a syntax error was reported).
    pub fn is_unterminated(&self) -> bool {
        self.semicolon == ABSENT && self.block.is_none()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Directive(Directive),
    /// A `#` comment on its own (not between the arguments of a directive), up to but
    /// excluding the LF.
    Comment,
    /// Bytes that could not be placed in a directive (a stray `;`, `{` or `}`).
    Error,
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
    pub arg_comments: Vec<Span>,
    /// Each distinct directive name of the file (the word of its first occurrence), so a
    /// configuration-wide index can name directives by number instead of hashing every one.
    pub names: Vec<Word>,
    /// Every `include` directive, in order: where nginx reads other files, so loading a
    /// configuration need not scan every node for them.
    pub includes: Vec<NodeId>,
}

impl Tree {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn directive(&self, id: NodeId) -> Option<&Directive> {
        match &self.nodes[id as usize].kind {
            NodeKind::Directive(d) => Some(d),
            _ => None,
        }
    }

    pub fn args(&self, d: &Directive) -> &[Word] {
        &self.words[d.args.0 as usize..d.args.1 as usize]
    }

    pub fn comments_in(&self, d: &Directive) -> &[Span] {
        &self.arg_comments[d.comments.0 as usize..d.comments.1 as usize]
    }

    /// Every directive of the file, in document order, with its id.
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
        for node in &self.nodes {
            match &node.kind {
                NodeKind::Directive(d) => {
                    pieces.push(d.name.raw());
                    pieces.extend(self.args(d).iter().map(|w| w.raw()));
                    pieces.extend_from_slice(self.comments_in(d));
                    if let Some(s) = d.semicolon() {
                        pieces.push(s);
                    }
                    if let Some(b) = &d.block {
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
