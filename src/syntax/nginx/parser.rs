//! Builds the [`Tree`] from tokens, with nginx's structural rules (`ngx_conf_parse`) and
//! error recovery: where nginx stops at the first error, we record it, repair locally and
//! go on, so one run reports every error in a file. Parsing is iterative (an explicit stack
//! of open blocks), so nesting depth cannot overflow the call stack.

use crate::syntax::error::SyntaxError;
use super::lexer::{Lexer, Token};
use super::lua;
use super::tree::*;
use crate::source::Span;

/// Block directives whose bodies are a module's own line syntax, not directives
/// (their handlers are set in the map, geo, split_clients, charset and core modules).
const WORD_LIST_BLOCKS: &[&str] = &["types", "map", "geo", "split_clients", "charset_map"];

/// The result of parsing one file: always a tree (possibly partial) and every error.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    pub tree: Tree,
    pub errors: Vec<SyntaxError>,
}

struct Frame {
    /// The node that owns this block, or `None` for a stray `{` (its contents are kept as
    /// ordinary children of the enclosing block, and its braces as error nodes).
    owner: Option<NodeId>,
    kind: BlockKind,
    open: Span,
}

struct Pending {
    words_start: u32,
    comments_start: u32,
}

pub fn parse(src: &[u8]) -> Parsed {
    Parser::new(src).run()
}

struct Parser<'a> {
    src: &'a [u8],
    lexer: Lexer<'a>,
    tree: Tree,
    errors: Vec<SyntaxError>,
    stack: Vec<Frame>,
    /// Own-line comments seen inside a statement before its first word are emitted as
    /// nodes right away; this tracks the statement being collected.
    pending: Pending,
}

impl<'a> Parser<'a> {
    fn new(src: &'a [u8]) -> Self {
        let mut tree = Tree::default();
        // About one node per 30 bytes and 2.5 words per node in real configs.
        tree.nodes.reserve(src.len() / 40);
        tree.words.reserve(src.len() / 12);
        Parser {
            src,
            lexer: Lexer::new(src),
            tree,
            errors: Vec::new(),
            stack: Vec::new(),
            pending: Pending {
                words_start: 0,
                comments_start: 0,
            },
        }
    }

    fn parent(&self) -> NodeId {
        self.stack
            .iter()
            .rev()
            .find_map(|f| f.owner)
            .unwrap_or(ROOT)
    }

    fn depth(&self) -> u32 {
        self.stack.iter().filter(|f| f.owner.is_some()).count() as u32
    }

    fn kind(&self) -> BlockKind {
        self.stack.last().map_or(BlockKind::Directives, |f| f.kind)
    }

    fn has_words(&self) -> bool {
        self.tree.words.len() as u32 > self.pending.words_start
    }

    fn push_leaf(&mut self, kind: NodeKind, span: Span) {
        let id = self.tree.nodes.len() as NodeId;
        let (parent, depth) = (self.parent(), self.depth());
        self.tree.nodes.push(Node {
            kind,
            span,
            parent,
            end: id + 1,
            depth,
        });
    }

    fn error(&mut self, msg: impl Into<String>, span: Span) {
        self.errors.push(SyntaxError::new(msg, span));
    }

    /// Turns the collected words into a directive node; returns its id.
    fn finish_statement(&mut self, semicolon: Option<Span>, block: Option<Block>) -> NodeId {
        let ws = self.pending.words_start;
        let we = self.tree.words.len() as u32;
        let name = self.tree.words[ws as usize];
        let args = (ws + 1, we);
        let comments = (
            self.pending.comments_start,
            self.tree.arg_comments.len() as u32,
        );
        let last = if we > ws + 1 {
            self.tree.words[we as usize - 1].raw
        } else {
            name.raw
        };
        let end = semicolon.or(block.map(|b| b.open)).unwrap_or(last);
        let id = self.tree.nodes.len() as NodeId;
        let (parent, depth) = (self.parent(), self.depth());
        self.tree.nodes.push(Node {
            kind: NodeKind::Directive(Directive {
                name,
                args,
                comments,
                semicolon,
                block,
            }),
            span: name.raw.cover(end),
            parent,
            end: id + 1,
            depth,
        });
        self.reset_pending();
        id
    }

    fn reset_pending(&mut self) {
        self.pending.words_start = self.tree.words.len() as u32;
        self.pending.comments_start = self.tree.arg_comments.len() as u32;
    }

    fn run(mut self) -> Parsed {
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
                        self.finish_statement(Some(span), None);
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
        Parsed {
            tree: self.tree,
            errors: self.errors,
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
            });
            return;
        }
        if self.kind() == BlockKind::WordList {
            // nginx: a module's line handler never takes a block.
            self.error("unexpected \"{\"", open);
        }
        let name = self.tree.words[self.pending.words_start as usize];
        let name_bytes = &self.src[name.inner.range()];
        if name_bytes.ends_with(b"_by_lua_block") {
            let body_start = open.end as usize;
            match lua::find_block_end(self.src, body_start) {
                Some(close) => {
                    let block = Block {
                        open,
                        close: Some(Span::new(close as u32, close as u32 + 1)),
                        kind: BlockKind::Lua {
                            body: Span::new(open.end, close as u32),
                        },
                    };
                    let id = self.finish_statement(None, Some(block));
                    self.tree.nodes[id as usize].span.end = close as u32 + 1;
                    self.lexer_skip_to(close + 1);
                }
                None => {
                    let end = self.src.len() as u32;
                    self.errors.push(
                        SyntaxError::new(
                            "unexpected end of file, expecting \"}\"",
                            Span::empty(end),
                        )
                        .with_related(open, "this Lua block is never closed"),
                    );
                    let block = Block {
                        open,
                        close: None,
                        kind: BlockKind::Lua {
                            body: Span::new(open.end, end),
                        },
                    };
                    let id = self.finish_statement(None, Some(block));
                    self.tree.nodes[id as usize].span.end = end;
                    self.lexer_skip_to(end as usize);
                }
            }
            return;
        }
        let kind = if WORD_LIST_BLOCKS.iter().any(|n| n.as_bytes() == name_bytes) {
            BlockKind::WordList
        } else {
            BlockKind::Directives
        };
        let block = Block {
            open,
            close: None,
            kind,
        };
        let id = self.finish_statement(None, Some(block));
        self.stack.push(Frame {
            owner: Some(id),
            kind,
            open,
        });
    }

    fn lexer_skip_to(&mut self, pos: usize) {
        self.lexer = Lexer::resume(self.src, pos);
    }

    fn close_block(&mut self, close: Span) {
        if self.has_words() {
            // `worker_connections 512 }`: nginx stops here; we keep the statement as an
            // unterminated directive and let the `}` close the block.
            self.error("unexpected \"}\"", close);
            self.finish_statement(None, None);
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
                let end = self.tree.nodes.len() as NodeId;
                let node = &mut self.tree.nodes[id as usize];
                node.end = end;
                node.span.end = close.end;
                if let NodeKind::Directive(d) = &mut node.kind {
                    if let Some(b) = &mut d.block {
                        b.close = Some(close);
                    }
                }
            }
            None => self.push_leaf(NodeKind::Error, close),
        }
    }

    fn finish_file(&mut self, in_token: bool) {
        let eof = Span::empty(self.src.len() as u32);
        if self.has_words() || in_token {
            self.error("unexpected end of file, expecting \";\" or \"}\"", eof);
            if self.has_words() {
                self.finish_statement(None, None);
            }
        }
        if let Some(innermost) = self.stack.last() {
            let open = innermost.open;
            if !(self.has_words() || in_token) {
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
