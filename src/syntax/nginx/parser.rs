//! Builds the [`Tree`] from tokens, with nginx's structural rules (`ngx_conf_parse`) and
//! error recovery: where nginx stops at the first error, we record it, repair locally and
//! go on, so one run reports every error in a file. Parsing is iterative (an explicit stack
//! of open blocks), so nesting depth cannot overflow the call stack.

use super::known::{self, Ctx};
use super::lexer::{Lexer, Token};
use super::lua;
use super::names::NameTable;
use super::tree::*;
use crate::source::Span;
use crate::syntax::error::SyntaxError;

/// Deepest block nesting read as a tree. nginx has no limit (it recurses until its stack
/// runs out); real configurations stay under 10 levels, and rules that walk a directive's
/// ancestors would be quadratic in a pathological one.
pub const MAX_NESTING: u32 = 256;

/// Block directives whose bodies are a module's own line syntax, not directives
/// (their handlers are set in the map, geo, split_clients, charset and core modules).
const WORD_LIST_BLOCKS: &[&str] = &["types", "map", "geo", "split_clients", "charset_map"];

/// The result of parsing one file: always a tree (possibly partial) and every error.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    pub tree: Tree,
    pub errors: Vec<SyntaxError>,
    /// `(offset, n)`, in order: from `offset` on, nginx's own line count is `n` lower, because
    /// OpenResty's Lua reader skipped LFs without counting them (see `lua.rs`; it takes a
    /// `*_by_lua_block` with 2 KiB+ of Lua holding no string, comment or brace). Almost
    /// always empty.
    pub line_drift: Vec<(u32, u32)>,
}

impl Parsed {
    /// How many lines too low nginx reports a position at `offset`. Our spans and lines are
    /// true; nginx says `line_of(offset) - nginx_line_shift(offset)`.
    pub fn nginx_line_shift(&self, offset: u32) -> u32 {
        self.line_drift
            .iter()
            .take_while(|(at, _)| *at <= offset)
            .map(|(_, n)| n)
            .sum()
    }
}

struct Frame {
    /// The node that owns this block, or `None` for a stray `{` (its contents are kept as
    /// ordinary children of the enclosing block, and its braces as error nodes).
    owner: Option<NodeId>,
    kind: BlockKind,
    open: Span,
    /// The contexts the block's directives may be in (see [`known`]).
    ctx: Ctx,
}

struct Pending {
    words_start: u32,
    /// A `{` after the statement's name was reported as `is not terminated by ";"`.
    reported: bool,
}

pub fn parse(src: &[u8]) -> Parsed {
    let mut parsed = parse_bytes(src);
    encoding_errors(src, &mut parsed);
    parsed
}

/// What nginx's reader makes of a file that is not text (see [`crate::syntax::encoding`]).
fn encoding_errors(src: &[u8], parsed: &mut Parsed) {
    use crate::syntax::encoding;
    if let Some(e) = encoding::not_text_error(src) {
        parsed.errors = vec![e];
    }
}

fn parse_bytes(src: &[u8]) -> Parsed {
    let (scratch, table) = SCRATCH.with(|s| s.take()).unwrap_or_default();
    if src.len() > SCRATCH_LIMIT {
        let (parsed, mut table) = Parser::new(src, Tree::default(), table).run();
        table.trim();
        SCRATCH.with(|s| s.set(Some((scratch, table))));
        return parsed;
    }
    let (mut parsed, mut table) = Parser::new(src, scratch, table).run();
    table.trim();
    // Hand back exactly-sized arrays and keep the grown ones for the next file: a vhost of
    // 2 KB would otherwise reserve (and half waste) arrays sized by guesswork, or grow
    // them by copying, thousands of times over.
    let exact = Tree {
        nodes: parsed.tree.nodes.as_slice().to_vec(),
        words: parsed.tree.words.as_slice().to_vec(),
        arg_comments: parsed.tree.arg_comments.as_slice().to_vec(),
        comment_owners: parsed.tree.comment_owners.as_slice().to_vec(),
        names: parsed.tree.names.as_slice().to_vec(),
        includes: parsed.tree.includes.as_slice().to_vec(),
    };
    let scratch = std::mem::replace(&mut parsed.tree, exact);
    SCRATCH.with(|s| s.set(Some((scratch, table))));
    parsed
}

/// Files up to this size are parsed into per-thread scratch arrays and copied out; larger
/// ones get arrays of their own (whose unused tail is never touched, so costs no memory).
const SCRATCH_LIMIT: usize = 1 << 20;

thread_local! {
    static SCRATCH: std::cell::Cell<Option<(Tree, NameTable)>> =
        const { std::cell::Cell::new(None) };
}

struct Parser<'a> {
    src: &'a [u8],
    lexer: Lexer<'a>,
    tree: Tree,
    errors: Vec<SyntaxError>,
    stack: Vec<Frame>,
    /// Frames of `stack` that belong to a directive: the current nesting depth.
    owned: u32,
    /// Their owners, innermost last (stray `{` frames between them are skipped, so finding
    /// the parent is O(1) however many strays are open).
    owners: Vec<NodeId>,
    /// The nesting limit was reported (once per file).
    too_deep: bool,
    /// Own-line comments seen inside a statement before its first word are emitted as
    /// nodes right away; this tracks the statement being collected.
    pending: Pending,
    /// An error was already reported for reaching the end of the file (a Lua block that
    /// never ends); don't report the enclosing blocks' missing `}` again.
    eof_reported: bool,
    line_drift: Vec<(u32, u32)>,
    /// Directive names seen so far (by value) → index in `tree.names`.
    names: NameTable,
    /// The id of `include` among them, once seen.
    include_name: Option<u32>,
}

impl<'a> Parser<'a> {
    /// Parses into `tree`'s arrays (emptied first, their capacity kept).
    fn new(src: &'a [u8], mut tree: Tree, mut names: NameTable) -> Self {
        names.reset();
        tree.nodes.clear();
        tree.words.clear();
        tree.arg_comments.clear();
        tree.comment_owners.clear();
        tree.names.clear();
        tree.includes.clear();
        // About one node per 30 bytes and 2.5 words per node in real configs.
        tree.nodes.reserve(src.len() / 28 + 4);
        tree.words.reserve(src.len() / 10 + 8);
        Parser {
            src,
            lexer: Lexer::new(src),
            tree,
            errors: Vec::new(),
            stack: Vec::new(),
            owned: 0,
            owners: Vec::new(),
            too_deep: false,
            pending: Pending {
                words_start: 0,
                reported: false,
            },
            eof_reported: false,
            line_drift: Vec::new(),
            names,
            include_name: None,
        }
    }

    /// The index of `name`'s value among the file's distinct names.
    fn intern(&mut self, name: Word) -> u32 {
        let src = self.src;
        let value = name.value(src);
        let seen = &self.tree.names;
        let (id, new) = self.names.find_or_insert(&value, seen.len() as u32, |id| {
            seen[id as usize].value(src) == value
        });
        if new {
            if value.as_ref() == b"include" {
                self.include_name = Some(id);
            }
            self.tree.names.push(name);
            // Once per distinct name and file: what nginx's table knows of it.
            self.names.info.push(known::lookup(&value));
        }
        id
    }

    /// The collected statement's name, interned; [`NO_NAME`] for a word-list entry, whose
    /// first word is a key, unless it is `include` (which nginx follows there too).
    fn pending_name(&mut self) -> u32 {
        let name = self.tree.words[self.pending.words_start as usize];
        if self.kind() == BlockKind::WordList && !name.is(self.src, "include") {
            return NO_NAME;
        }
        self.intern(name)
    }

    /// What [`known`] says of name `name_id` ([`known::lookup`]); nothing of a word-list
    /// entry's key.
    fn known_info(&self, name_id: u32) -> u8 {
        self.names
            .info
            .get(name_id as usize)
            .copied()
            .unwrap_or(known::NONE)
    }

    /// The contexts a directive here may be in.
    fn ctx(&self) -> Ctx {
        self.stack.last().map_or(known::ANY, |f| f.ctx)
    }

    fn parent(&self) -> NodeId {
        self.owners.last().copied().unwrap_or(ROOT)
    }

    fn kind(&self) -> BlockKind {
        self.stack.last().map_or(BlockKind::Directives, |f| f.kind)
    }

    fn has_words(&self) -> bool {
        self.tree.words.len() as u32 > self.pending.words_start
    }

    fn push_leaf(&mut self, kind: NodeKind, span: Span) {
        let id = self.tree.nodes.len() as NodeId;
        let parent = self.parent();
        self.tree.nodes.push(Node {
            kind,
            span,
            parent,
            end: id + 1,
        });
    }

    fn error(&mut self, msg: impl Into<String>, span: Span) {
        self.errors.push(SyntaxError::new(msg, span));
    }

    /// Turns the collected words into a directive node (an entry inside a word list);
    /// returns its id. `name_id` is the name's [`Parser::pending_name`].
    fn finish_statement(
        &mut self,
        name_id: u32,
        semicolon: Option<Span>,
        block: Option<Block>,
    ) -> NodeId {
        let ws = self.pending.words_start;
        let we = self.tree.words.len() as u32;
        let name = self.tree.words[ws as usize];
        let args = (ws + 1, we);
        let last = if we > ws + 1 {
            self.tree.words[we as usize - 1].raw()
        } else {
            name.raw()
        };
        let end = semicolon.or(block.map(|b| b.open())).unwrap_or(last);
        let id = self.tree.nodes.len() as NodeId;
        let parent = self.parent();
        if Some(name_id) == self.include_name {
            self.tree.includes.push(id);
        }
        // The comments collected with the words are this directive's.
        let comments = self.tree.arg_comments.len();
        self.tree.comment_owners.resize(comments, id);
        let statement = Directive::new(name_id, args, semicolon, block);
        let kind = match self.kind() {
            BlockKind::WordList => NodeKind::Entry(statement),
            _ => NodeKind::Directive(statement),
        };
        self.tree.nodes.push(Node {
            kind,
            span: name.raw().cover(end),
            parent,
            end: id + 1,
        });
        self.reset_pending();
        id
    }

    fn reset_pending(&mut self) {
        self.pending.words_start = self.tree.words.len() as u32;
        self.pending.reported = false;
    }

    /// Finishes the collected words as an unterminated statement (a syntax error was
    /// reported).
    fn finish_unterminated(&mut self) {
        let name_id = self.pending_name();
        self.finish_statement(name_id, None, None);
    }

    /// Parses the file; hands the name table back for the next one.
    fn run(mut self) -> (Parsed, NameTable) {
        loop {
            let tok = self.lexer.next_token();
            self.errors.append(&mut self.lexer.errors);
            match tok {
                Token::Word(w) => self.tree.words.push(w),
                Token::Comment(span) => {
                    if self.has_words() {
                        self.tree.arg_comments.push(span);
                    } else {
                        self.push_leaf(NodeKind::Comment, span);
                        self.reset_pending();
                    }
                }
                Token::Semicolon(span) => {
                    if self.has_words() {
                        let name_id = self.pending_name();
                        self.check_semicolon(name_id, span);
                        self.finish_statement(name_id, Some(span), None);
                    } else {
                        self.error("unexpected \";\"", span);
                        self.push_leaf(NodeKind::Error, span);
                    }
                }
                Token::Open(span) => self.open_block(span),
                Token::Close(span) => self.close_block(span),
                Token::Eof { in_token } => {
                    self.finish_file(in_token);
                    break;
                }
            }
        }
        let parsed = Parsed {
            tree: self.tree,
            errors: self.errors,
            line_drift: self.line_drift,
        };
        (parsed, self.names)
    }

    /// nginx's `directive "…" has no opening "{"` for a block directive ended by `;`, when
    /// [`known`] says it is one in every context this statement may be in. The statement
    /// stays a simple one (nginx stops here anyway).
    #[inline]
    fn check_semicolon(&mut self, name_id: u32, semicolon: Span) {
        let info = self.known_info(name_id);
        // Nearly every statement stops at the first test.
        if info & known::TAKES_BLOCK == 0 || self.kind() != BlockKind::Directives {
            return;
        }
        let Some(k) = known::get(info) else {
            return;
        };
        if let Some(v) = k.verdict(self.ctx(), false) {
            self.error(v.message(k.name), semicolon);
        }
    }

    fn open_block(&mut self, open: Span) {
        if !self.has_words() {
            self.error("unexpected \"{\"", open);
            self.push_leaf(NodeKind::Error, open);
            self.stack.push(Frame {
                owner: None,
                kind: self.kind(),
                open,
                ctx: self.ctx(),
            });
            return;
        }
        let in_word_list = self.kind() == BlockKind::WordList;
        if in_word_list {
            // nginx: a module's line handler never takes a block.
            self.error("unexpected \"{\"", open);
        }
        let name_id = self.pending_name();
        let name = self.tree.words[self.pending.words_start as usize];
        let name_bytes = &self.src[name.inner().range()];
        if name_bytes.ends_with(b"_by_lua_block") {
            self.lua_block(name_id, open);
            return;
        }
        // What a word list nests (after the error above) is not directives either.
        let kind = if in_word_list || WORD_LIST_BLOCKS.iter().any(|n| n.as_bytes() == name_bytes) {
            BlockKind::WordList
        } else {
            BlockKind::Directives
        };
        // The contexts inside: what the table says, or anything for a name it does not know.
        let mut ctx = known::ANY;
        let info = if in_word_list {
            known::NONE
        } else {
            self.known_info(name_id)
        };
        if let Some(k) = known::get(info) {
            let here = self.ctx();
            match k.verdict(here, true) {
                Some(v) => {
                    if !self.pending.reported {
                        self.pending.reported = true;
                        self.error(v.message(k.name), open);
                    }
                    if self.brace_is_text(open) {
                        // `rewrite ^/(\d{6})$ …;`, `server_name {{host}};`: the brace is
                        // part of what was meant as an argument, so the statement goes on
                        // to its `;`, as its author meant (the brace is kept as a word of
                        // its own, so every byte is still there).
                        self.tree.words.push(Word::new(open, open));
                        return;
                    }
                    // `root /srv` with its `;` forgotten before `location / {`: the brace
                    // opens a block, so the braces still pair up.
                }
                None => ctx = k.inner(here),
            }
        }
        if self.owned >= MAX_NESTING {
            // Past any real configuration: the statement stays, its braces become error
            // nodes, and its contents count as the enclosing block's (bytes are all kept).
            if !self.too_deep {
                self.too_deep = true;
                self.error(
                    format!("blocks nested deeper than {MAX_NESTING} levels are not supported"),
                    open,
                );
            }
            self.finish_statement(name_id, None, None);
            self.push_leaf(NodeKind::Error, open);
            self.stack.push(Frame {
                owner: None,
                kind,
                open,
                ctx: known::ANY,
            });
            return;
        }
        let block = Block::new(open, None, kind);
        let id = self.finish_statement(name_id, None, Some(block));
        self.stack.push(Frame {
            owner: Some(id),
            kind,
            open,
            ctx,
        });
        self.owned += 1;
        self.owners.push(id);
    }

    /// After nginx's `is not terminated by ";"`, whether the `{` reads as text rather than
    /// as a block: written against the word before it (a regex quantifier `\d{6}`, a
    /// template `/live/{{name}}`), or with no space after it (`{{name}}`, `{name}`). A `{`
    /// after a space and before a line break, a space, a `}` or a comment is a block.
    fn brace_is_text(&self, open: Span) -> bool {
        let space = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
        let before = open.start.checked_sub(1).map(|i| self.src[i as usize]);
        let after = self.src.get(open.end as usize).copied();
        before.is_some_and(|b| !space(b))
            || after.is_some_and(|b| !space(b) && b != b'}' && b != b'#')
    }

    /// An OpenResty `*_by_lua_block`: lua-nginx-module reads the body with its own reader
    /// (see `lua.rs`), from where nginx's lexer stopped and in the same read buffer.
    ///
    /// Fixed to match nginx + lua-nginx-module 0.10.23 (tests/nginx_binary.rs): the end of
    /// the body used to be found with a simplified scan (strings could continue past a
    /// backslash-LF, long brackets could be any length) and a block running to the end of
    /// the file was reported as `unexpected end of file, expecting "}"` at the end; the
    /// module's own errors (`…expecting terminating characters for lua code block` on the
    /// line of the last `{`, `…missing the closing long bracket…`, `too long lua code
    /// block…`) are now reported where it reports them. Where the module's reader leaves
    /// nginx's line count short, that is recorded in [`Parsed::line_drift`].
    fn lua_block(&mut self, name_id: u32, open: Span) {
        let src = self.src;
        let read = lua::read_block(src, open.start as usize, self.lexer.buffer());
        let drift = match &read {
            Ok(b) => &b.drift,
            Err(e) => &e.drift,
        };
        let drift = drift.iter().map(|&(at, n)| (at as u32, n as u32));
        self.line_drift.extend(drift);
        let (close, buffer) = match read {
            Ok(b) => (Some(b.close), Some(b.buffer)),
            Err(e) => {
                self.errors.push(
                    SyntaxError::new(e.message, Span::new(e.at as u32, e.at as u32 + 1))
                        .with_related(open, "in this Lua block"),
                );
                // Recover: find the end without the buffer limits; nginx has stopped anyway,
                // so the buffer state no longer matters.
                let close = lua::find_block_end(src, open.start as usize);
                self.eof_reported |= close.is_none();
                (close, None)
            }
        };
        let block = Block::new(
            open,
            close.map(|c| Span::new(c as u32, c as u32 + 1)),
            BlockKind::Lua,
        );
        let id = self.finish_statement(name_id, None, Some(block));
        let resume = close.map_or(src.len(), |c| c + 1);
        self.tree.nodes[id as usize].span.end = resume as u32;
        self.lexer = Lexer::resume(src, resume, buffer.unwrap_or((resume, resume)));
    }

    fn close_block(&mut self, close: Span) {
        if self.has_words() {
            // `worker_connections 512 }`: nginx stops here; we keep the statement as an
            // unterminated directive and let the `}` close the block. (After a closing quote,
            // `"x"}`, the lexer has reported this `}` already.)
            if self.errors.last().map(|e| e.span) != Some(close) {
                self.error("unexpected \"}\"", close);
            }
            self.finish_unterminated();
        }
        let Some(frame) = self.stack.pop() else {
            if self.errors.last().map(|e| e.span) != Some(close) {
                self.error("unexpected \"}\"", close);
            }
            self.push_leaf(NodeKind::Error, close);
            return;
        };
        match frame.owner {
            Some(id) => {
                self.owned -= 1;
                self.owners.pop();
                let end = self.tree.nodes.len() as NodeId;
                let node = &mut self.tree.nodes[id as usize];
                node.end = end;
                node.span.end = close.end;
                if let Some(d) = node.kind.statement_mut() {
                    if d.block().is_some() {
                        d.set_close(close);
                    }
                }
            }
            None => self.push_leaf(NodeKind::Error, close),
        }
    }

    fn finish_file(&mut self, in_token: bool) {
        let eof = Span::empty(self.src.len() as u32);
        let in_token = in_token && !self.eof_reported;
        if self.has_words() || in_token {
            self.error("unexpected end of file, expecting \";\" or \"}\"", eof);
            if self.has_words() {
                self.finish_unterminated();
            }
        }
        if let Some(innermost) = self.stack.last() {
            let open = innermost.open;
            if !(self.has_words() || in_token || self.eof_reported) {
                self.errors.push(
                    SyntaxError::new("unexpected end of file, expecting \"}\"", eof)
                        .with_related(open, "this block is never closed"),
                );
            }
        }
        let end = self.tree.nodes.len() as NodeId;
        while let Some(frame) = self.stack.pop() {
            if let Some(id) = frame.owner {
                let node = &mut self.tree.nodes[id as usize];
                node.end = end;
                node.span.end = eof.end;
            }
        }
    }
}
