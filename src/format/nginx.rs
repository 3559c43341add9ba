//! The nginx formatter: the file's tokens, exactly as written, laid out again.
//!
//! Only the whitespace *between* tokens is decided here; every name, argument, comment and
//! Lua body is copied byte for byte, so quoting and escapes stay as the author typed them.
//! The layout:
//!
//! * one statement per line, indented by its depth (`[format] indent`: spaces or a tab);
//! * a blank line between statements is kept, a run of them becomes one; blank lines right
//!   after `{`, before `}` and at the start of the file go;
//! * an own-line comment is indented like a statement; a comment after a statement, `{` or
//!   `}` on the same line stays there, one space after it;
//! * within a line, a directive's words are one space apart; a line of a `map`, `types`,
//!   `geo`, `split_clients` or `charset_map` body keeps its spacing, since those bodies are
//!   usually aligned in columns by hand;
//! * a statement written over several lines keeps its line breaks; each continuation line
//!   keeps its column relative to the statement's name (so `log_format` strings stay aligned
//!   under the first one), or is indented one step when it sat left of the name;
//! * `{` follows its directive on the same line, an empty block is `{}`;
//! * a Lua body is kept as written, up to its `}` (or, with `indent-lua`, its lines move
//!   with the block, unless it holds a long string or a string continued over lines);
//! * the line ending is the file's own (CRLF when its first line ends so), and a file that
//!   did not end with a line break still does not.
//!
//! Columns are measured with tab stops every 8 columns, as terminals and git show them.
//!
//! Changing whitespace can matter to nginx in one corner: its 4 KiB read buffer decides
//! whether a token is "too long" by where the buffer happens to end (see the lexer). So the
//! output is parsed again and compared with the input, token for token and block for block;
//! a file whose output would read differently is left alone ([`FormatError::Unverified`]).

use crate::source::Span;
use crate::syntax::nginx::{parse, BlockKind, NodeId, NodeKind, Parsed, Tree, ROOT};

/// How to indent one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Indent {
    Spaces(u8),
    Tab,
}

impl Default for Indent {
    fn default() -> Self {
        Indent::Spaces(4)
    }
}

impl Indent {
    /// The columns one level takes.
    fn width(self) -> usize {
        match self {
            Indent::Spaces(n) => n as usize,
            Indent::Tab => TAB_STOP,
        }
    }
}

const TAB_STOP: usize = 8;

/// The layout choices a user can make (`[format]` in lemplint.toml).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    pub indent: Indent,
    /// Make every run of spaces between the words of a line one space. Off by default:
    /// columns aligned by hand (`fastcgi_param  NAME  value`, Debian's own files) stay.
    pub collapse_spaces: bool,
    /// Move the lines of a `*_by_lua_block` body with the block (see [`Writer::lua_body`]).
    /// Off by default: the body is then kept byte for byte, as crossplane and nginx read it.
    pub indent_lua: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub enum FormatError {
    /// The file has syntax errors: its tree may not be what nginx reads, so it is not
    /// touched.
    Syntax,
    /// The formatted text would not parse to the same tokens and blocks (a bug, or nginx's
    /// buffer corner): the file is left as it is.
    Unverified(String),
}

/// What one piece of the source is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A statement's first word.
    Name,
    /// Any later word of a statement.
    Arg,
    /// A comment between a statement's words.
    ArgComment,
    Semicolon,
    Open,
    /// A Lua block's body, `{` to `}` exclusive.
    LuaBody,
    Close,
    /// A comment node: on its own line, or after a statement, `{` or `}` on theirs.
    Comment,
}

#[derive(Clone, Copy, Debug)]
struct Piece {
    span: Span,
    kind: Kind,
    /// The statement (or comment node) the piece belongs to.
    node: NodeId,
}

/// The source's pieces in document order.
fn pieces(tree: &Tree, src: &[u8]) -> Vec<Piece> {
    let mut out = Vec::with_capacity(tree.nodes.len() * 4);
    for (span, &node) in tree.arg_comments.iter().zip(&tree.comment_owners) {
        out.push(Piece {
            span: *span,
            kind: Kind::ArgComment,
            node,
        });
    }
    for (i, n) in tree.nodes.iter().enumerate() {
        let node = i as NodeId;
        let mut push = |span, kind| out.push(Piece { span, kind, node });
        match &n.kind {
            NodeKind::Directive(d) | NodeKind::Entry(d) => {
                push(tree.name(d).raw(), Kind::Name);
                for w in tree.args(d) {
                    push(w.raw(), Kind::Arg);
                }
                if let Some(s) = d.semicolon() {
                    push(s, Kind::Semicolon);
                }
                if let Some(b) = d.block() {
                    push(b.open(), Kind::Open);
                    if let Some(body) = b.lua_body(src) {
                        push(body, Kind::LuaBody);
                    }
                    if let Some(c) = b.close() {
                        push(c, Kind::Close);
                    }
                }
            }
            NodeKind::Comment => push(n.span, Kind::Comment),
            NodeKind::Error => push(n.span, Kind::Comment),
        }
    }
    out.sort_unstable_by_key(|p| p.span.start);
    out
}

/// The display column of `offset` in its line (tabs to the next multiple of 8; a UTF-8
/// character is one column).
fn column(src: &[u8], offset: usize) -> usize {
    let start = memchr::memrchr(b'\n', &src[..offset]).map_or(0, |i| i + 1);
    let mut col = 0;
    for &b in &src[start..offset] {
        match b {
            b'\t' => col = (col / TAB_STOP + 1) * TAB_STOP,
            0x80..=0xBF => {}
            _ => col += 1,
        }
    }
    col
}

struct Writer<'a> {
    src: &'a [u8],
    tree: &'a Tree,
    style: Style,
    newline: &'static [u8],
    depth: Vec<u32>,
    out: Vec<u8>,
    /// The words on the current statement's first line: their columns in the source and
    /// in the output, so a continuation line aligned under one of them stays under it.
    first_line: Vec<(usize, usize)>,
    /// The current statement has gone on to a second line.
    continued: bool,
}

impl Writer<'_> {
    fn line_break(&mut self, blank: bool) {
        self.out.extend_from_slice(self.newline);
        if blank {
            self.out.extend_from_slice(self.newline);
        }
    }

    /// Indentation for `levels` levels plus `extra` columns of alignment.
    fn indentation(&mut self, levels: usize, extra: usize) {
        match self.style.indent {
            Indent::Spaces(n) => {
                let n = levels * n as usize + extra;
                self.out.resize(self.out.len() + n, b' ');
            }
            Indent::Tab => {
                let tabs = levels + extra / TAB_STOP;
                self.out.resize(self.out.len() + tabs, b'\t');
                self.out.resize(self.out.len() + extra % TAB_STOP, b' ');
            }
        }
    }

    /// A new line for the statement or comment node `node`.
    fn statement_line(&mut self, node: NodeId, blank: bool) {
        self.line_break(blank);
        self.indentation(self.depth[node as usize] as usize, 0);
    }

    /// A continuation line of statement `node`, for the piece at `offset`. A piece that sat
    /// under a word of the statement's first line stays under it; any other keeps its
    /// column relative to the statement's name, or goes one level in when it was not right
    /// of the name.
    fn continuation_line(&mut self, node: NodeId, offset: usize) {
        let levels = self.depth[node as usize] as usize;
        let base = levels * self.style.indent.width();
        let col = column(self.src, offset);
        let under = self.first_line.iter().find(|(from, _)| *from == col);
        let extra = match under {
            Some(&(_, to)) if to > base => to - base,
            _ => {
                let (from, to) = self.first_line[0];
                let shift = col as isize - from as isize;
                if shift > 0 {
                    to - base + shift as usize
                } else {
                    self.style.indent.width()
                }
            }
        };
        self.continued = true;
        self.line_break(false);
        self.indentation(levels, extra);
    }

    /// Notes where a word of the current statement's first line went.
    fn first_line_word(&mut self, p: &Piece) {
        if p.kind == Kind::Name {
            self.first_line.clear();
            self.continued = false;
        }
        if !self.continued {
            let from = column(self.src, p.span.start as usize);
            let to = column(&self.out, self.out.len());
            self.first_line.push((from, to));
        }
    }

    /// The spaces between two pieces on one line: as written, or one space when
    /// `collapse_spaces` asks for it (always for a gap holding a lone CR).
    fn same_line(&mut self, gap: &[u8], node: NodeId) {
        let keep = (!self.style.collapse_spaces || self.is_entry(node))
            && !gap.is_empty()
            && !gap.contains(&b'\r');
        if keep {
            self.out.extend_from_slice(gap);
        } else {
            self.out.push(b' ');
        }
    }

    fn is_entry(&self, node: NodeId) -> bool {
        matches!(self.tree.node(node).kind, NodeKind::Entry(_))
    }

    /// Writes a piece's bytes: as written, except that a comment that ends the line in a
    /// CRLF file gives its CR to the line ending written after it.
    fn text(&mut self, p: &Piece) {
        let mut bytes = &self.src[p.span.range()];
        if matches!(p.kind, Kind::Comment | Kind::ArgComment)
            && self.newline == b"\r\n"
            && bytes.last() == Some(&b'\r')
        {
            bytes = &bytes[..bytes.len() - 1];
        }
        if p.kind == Kind::LuaBody && self.style.indent_lua && lua_can_move(bytes) {
            return self.lua_body(p.node, bytes);
        }
        self.out.extend_from_slice(bytes);
    }

    /// A Lua body written over several lines moves with its directive: each line's
    /// indentation shifts by as many columns as the directive's did, and the line of the
    /// closing `}` takes the directive's indentation.
    fn lua_body(&mut self, node: NodeId, body: &[u8]) {
        let (from, to) = self.first_line[0];
        let shift = to as isize - from as isize;
        let levels = self.depth[node as usize] as usize;
        let mut lines = body.split(|&b| b == b'\n');
        self.out.extend_from_slice(lines.next().unwrap_or_default());
        let mut rest: Vec<&[u8]> = lines.collect();
        let last = rest.pop();
        for line in rest {
            self.out.push(b'\n');
            let (width, code) = leading(line);
            if code.is_empty() || code == b"\r" {
                self.out.extend_from_slice(code);
            } else {
                let width = (width as isize + shift).max(0) as usize;
                self.indentation(0, width);
                self.out.extend_from_slice(code);
            }
        }
        if let Some(line) = last {
            self.out.push(b'\n');
            let (width, code) = leading(line);
            if code.is_empty() {
                self.indentation(levels, 0);
            } else {
                self.indentation(0, (width as isize + shift).max(0) as usize);
                self.out.extend_from_slice(code);
            }
        }
    }
}

/// A line's indentation in columns, and the rest of it.
fn leading(line: &[u8]) -> (usize, &[u8]) {
    let n = line
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    let width = line[..n].iter().fold(0, |col, &b| match b {
        b'\t' => (col / TAB_STOP + 1) * TAB_STOP,
        _ => col + 1,
    });
    (width, &line[n..])
}

/// Whether a Lua body's line indentation can change without changing the program: it has
/// several lines, and no long bracket (`[[`, `[==[`: a string or comment whose text would
/// change) and no string continued over a line break with `\`.
fn lua_can_move(body: &[u8]) -> bool {
    if memchr::memchr(b'\n', body).is_none() {
        return false;
    }
    let long_bracket = body.windows(2).enumerate().any(|(i, w)| {
        w[0] == b'[' && {
            let eq = body[i + 1..].iter().take_while(|&&b| b == b'=').count();
            body.get(i + 1 + eq) == Some(&b'[')
        }
    });
    let continued = body.windows(2).any(|w| w == b"\\\n" || w == b"\\\r");
    !long_bracket && !continued
}

/// A Lua body as [`Writer::lua_body`] may lay it out: its lines without their indentation.
fn lua_shape(body: &[u8]) -> Vec<&[u8]> {
    body.split(|&b| b == b'\n').map(|l| leading(l).1).collect()
}

/// Formats an nginx file. `Ok(None)`: already formatted.
pub fn format(src: &[u8], parsed: &Parsed, style: Style) -> Result<Option<Vec<u8>>, FormatError> {
    if !parsed.errors.is_empty() {
        return Err(FormatError::Syntax);
    }
    let tree = &parsed.tree;
    let pieces = pieces(tree, src);
    if pieces.is_empty() {
        // Nothing but whitespace: nothing to lay out.
        return Ok(None);
    }
    let mut depth = Vec::with_capacity(tree.nodes.len());
    for n in &tree.nodes {
        depth.push(if n.parent == ROOT {
            0
        } else {
            depth[n.parent as usize] + 1
        });
    }
    let mut w = Writer {
        src,
        tree,
        style,
        newline: crate::fix::edits::line_ending(src).as_bytes(),
        depth,
        out: Vec::with_capacity(src.len() + src.len() / 8),
        first_line: Vec::new(),
        continued: false,
    };
    let mut prev: Option<Piece> = None;
    for p in &pieces {
        if let Some(q) = prev {
            separate(&mut w, &q, p);
        }
        if matches!(p.kind, Kind::Name | Kind::Arg) {
            w.first_line_word(p);
        }
        w.text(p);
        prev = Some(*p);
    }
    let last = prev.expect("pieces is not empty").span.end as usize;
    if memchr::memchr(b'\n', &src[last..]).is_some() {
        w.line_break(false);
    }
    let out = w.out;
    if out == src {
        return Ok(None);
    }
    verify(src, parsed, &out)?;
    Ok(Some(out))
}

/// Writes the whitespace between `prev` and `cur`.
fn separate(w: &mut Writer, prev: &Piece, cur: &Piece) {
    let gap = &w.src[prev.span.end as usize..cur.span.start as usize];
    let breaks = memchr::memchr_iter(b'\n', gap).count();
    let after_comment = matches!(prev.kind, Kind::Comment | Kind::ArgComment);
    match cur.kind {
        Kind::Name => {
            let first_in_block = prev.kind == Kind::Open;
            w.statement_line(cur.node, breaks >= 2 && !first_in_block);
        }
        Kind::Comment => {
            let trails = breaks == 0 && !after_comment;
            if trails {
                w.same_line(gap, cur.node);
            } else {
                w.statement_line(cur.node, breaks >= 2 && prev.kind != Kind::Open);
            }
        }
        Kind::Arg | Kind::ArgComment => {
            if breaks > 0 || after_comment {
                w.continuation_line(cur.node, cur.span.start as usize);
            } else {
                w.same_line(gap, cur.node);
            }
        }
        Kind::Semicolon => {
            if after_comment {
                w.continuation_line(cur.node, cur.span.start as usize);
            }
        }
        Kind::Open => {
            if after_comment {
                w.continuation_line(cur.node, cur.span.start as usize);
            } else {
                w.out.push(b' ');
            }
        }
        Kind::LuaBody => {}
        Kind::Close => {
            let empty = prev.kind == Kind::Open && prev.node == cur.node;
            if !empty && prev.kind != Kind::LuaBody {
                w.statement_line(cur.node, false);
            }
        }
    }
}

/// Checks that `out` parses without errors to the tokens and blocks of the original.
fn verify(src: &[u8], parsed: &Parsed, out: &[u8]) -> Result<(), FormatError> {
    let again = parse(out);
    if let Some(e) = again.errors.first() {
        return Err(FormatError::Unverified(format!(
            "the formatted text would not parse ({})",
            e.message
        )));
    }
    match first_difference(src, &parsed.tree, out, &again.tree) {
        None => Ok(()),
        Some(what) => Err(FormatError::Unverified(format!(
            "the formatted text would read differently ({what})"
        ))),
    }
}

/// A comment's text without the CR of a CRLF line ending.
fn comment_text(src: &[u8], span: Span) -> &[u8] {
    let b = &src[span.range()];
    b.strip_suffix(b"\r").unwrap_or(b)
}

/// The first way the two trees differ in what nginx (or a reader) sees: structure, words
/// as written, comments' text, Lua bodies. Whitespace between tokens is not compared.
pub fn first_difference(a_src: &[u8], a: &Tree, b_src: &[u8], b: &Tree) -> Option<String> {
    if a.nodes.len() != b.nodes.len() {
        return Some(format!(
            "{} nodes instead of {}",
            b.nodes.len(),
            a.nodes.len()
        ));
    }
    if a.comment_owners != b.comment_owners {
        return Some("comments between arguments moved".into());
    }
    for (x, y) in a.arg_comments.iter().zip(&b.arg_comments) {
        if comment_text(a_src, *x) != comment_text(b_src, *y) {
            return Some("a comment between arguments changed".into());
        }
    }
    for (i, (x, y)) in a.nodes.iter().zip(&b.nodes).enumerate() {
        if x.parent != y.parent || x.end != y.end {
            return Some(format!("block structure at node {i}"));
        }
        match (&x.kind, &y.kind) {
            (NodeKind::Directive(d), NodeKind::Directive(e))
            | (NodeKind::Entry(d), NodeKind::Entry(e)) => {
                let words = |t: &Tree, d| {
                    std::iter::once(t.name(d))
                        .chain(t.args(d).iter().copied())
                        .collect::<Vec<_>>()
                };
                let (dw, ew) = (words(a, d), words(b, e));
                if dw.len() != ew.len()
                    || dw
                        .iter()
                        .zip(&ew)
                        .any(|(p, q)| a_src[p.raw().range()] != b_src[q.raw().range()])
                {
                    return Some(format!("the words of statement {i}"));
                }
                let (db, eb) = (d.block(), e.block());
                if db.map(|b| b.kind) != eb.map(|b| b.kind)
                    || d.semicolon().is_some() != e.semicolon().is_some()
                {
                    return Some(format!("how statement {i} ends"));
                }
                if let (Some(p), Some(q)) = (db, eb) {
                    let body = |b: crate::syntax::nginx::Block, src: &[u8]| {
                        b.lua_body(src).map(|s| src[s.range()].to_vec())
                    };
                    let (x, y) = (body(p, a_src), body(q, b_src));
                    let moved_only = |x: &[u8], y: &[u8]| {
                        x == y || lua_can_move(x) && lua_shape(x) == lua_shape(y)
                    };
                    if p.kind == BlockKind::Lua
                        && !matches!((&x, &y), (Some(x), Some(y)) if moved_only(x, y))
                    {
                        return Some(format!("the Lua body of statement {i}"));
                    }
                }
            }
            (NodeKind::Comment, NodeKind::Comment) | (NodeKind::Error, NodeKind::Error) => {
                if comment_text(a_src, x.span) != comment_text(b_src, y.span) {
                    return Some(format!("comment {i}"));
                }
            }
            _ => return Some(format!("the kind of node {i}")),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(src: &str) -> String {
        fmt_with(src, Style::default())
    }

    fn lua(src: &str) -> String {
        fmt_with(
            src,
            Style {
                indent_lua: true,
                ..Style::default()
            },
        )
    }

    fn collapsed(src: &str) -> String {
        fmt_with(
            src,
            Style {
                collapse_spaces: true,
                ..Style::default()
            },
        )
    }

    fn fmt_with(src: &str, style: Style) -> String {
        let parsed = parse(src.as_bytes());
        match format(src.as_bytes(), &parsed, style).unwrap() {
            Some(out) => String::from_utf8(out).unwrap(),
            None => src.to_string(),
        }
    }

    #[test]
    fn statements_go_one_per_line_indented_by_depth() {
        assert_eq!(
            fmt("http { server { listen 80; location / { return 200; } } }\n"),
            "http {\n    server {\n        listen 80;\n        location / {\n            return 200;\n        }\n    }\n}\n"
        );
    }

    #[test]
    fn spacing_within_a_line_is_kept_unless_collapsed_but_map_bodies_always_keep_it() {
        let src = "add_header   X-A\t\"b\" ;  # c\nmap $a $b {\n  default   0;\n  ~x      1;\n}\n";
        assert_eq!(
            fmt(src),
            "add_header   X-A\t\"b\";  # c\nmap $a $b {\n    default   0;\n    ~x      1;\n}\n"
        );
        assert_eq!(
            collapsed(src),
            "add_header X-A \"b\"; # c\nmap $a $b {\n    default   0;\n    ~x      1;\n}\n"
        );
    }

    #[test]
    fn a_continuation_under_a_word_of_the_first_line_stays_under_it() {
        let src = "log_format  main  '$a'\n                  '$b';\n";
        assert_eq!(
            collapsed(src),
            "log_format main '$a'\n                '$b';\n"
        );
        assert_eq!(fmt(src), src);
        // A tab between the words: `main` is at column 16 before and after indenting (the
        // tab absorbs the indentation), so `'$b'` stays at 16, not 16 + 4.
        let src = "http {\nlog_format\tmain '$a'\n                '$b';\n}\n";
        assert_eq!(
            fmt(src),
            "http {\n    log_format\tmain '$a'\n                '$b';\n}\n"
        );
    }

    #[test]
    fn blank_lines_collapse_and_vanish_at_block_edges() {
        assert_eq!(
            fmt("\n\nevents {\n\n\n  worker_connections 1;\n\n\n\n  use epoll;\n\n}\n\n\n"),
            "events {\n    worker_connections 1;\n\n    use epoll;\n}\n"
        );
    }

    #[test]
    fn comments_stay_on_their_lines() {
        assert_eq!(
            fmt("http { # main\n# own line\n   gzip on;   # trailing\n} # end\n"),
            "http { # main\n    # own line\n    gzip on;   # trailing\n} # end\n"
        );
    }

    #[test]
    fn continuation_lines_keep_their_alignment_under_the_name() {
        let src =
            "http {\nlog_format main '$a'\n                '$b';\n  proxy_set_header X\nY;\n}\n";
        assert_eq!(
            fmt(src),
            "http {\n    log_format main '$a'\n                    '$b';\n    proxy_set_header X\n        Y;\n}\n"
        );
    }

    #[test]
    fn lua_bodies_move_with_their_directive_unless_a_long_string_would_change() {
        let src = "http {\ncontent_by_lua_block {\n  ngx.say(1)\n}\n}\n";
        assert_eq!(
            fmt(src),
            "http {\n    content_by_lua_block {\n  ngx.say(1)\n}\n}\n"
        );
        assert_eq!(
            lua("http {\ncontent_by_lua_block {\n  ngx.say(1)\n\n  ngx.exit(200)\n}\n}\n"),
            "http {\n    content_by_lua_block {\n      ngx.say(1)\n\n      ngx.exit(200)\n    }\n}\n"
        );
        let long = "http {\ncontent_by_lua_block {\n  ngx.say([[\n  a]])\n}\n}\n";
        assert_eq!(
            lua(long),
            "http {\n    content_by_lua_block {\n  ngx.say([[\n  a]])\n}\n}\n"
        );
        let continued = "http {\ncontent_by_lua_block {\n  ngx.say(\"a\\\n  b\")\n}\n}\n";
        assert_eq!(
            lua(continued),
            "http {\n    content_by_lua_block {\n  ngx.say(\"a\\\n  b\")\n}\n}\n"
        );
    }

    #[test]
    fn empty_blocks_and_brace_lines() {
        assert_eq!(fmt("events\n{\n}\n"), "events {}\n");
    }

    #[test]
    fn line_endings_and_a_missing_final_newline_are_kept() {
        assert_eq!(
            fmt("events {\r\n# c\r\nuse epoll;}"),
            "events {\r\n    # c\r\n    use epoll;\r\n}"
        );
    }

    #[test]
    fn comments_between_words_keep_the_line_break_after_them() {
        assert_eq!(
            fmt("server_name a # first\nb;\n"),
            "server_name a # first\n    b;\n"
        );
        assert_eq!(fmt("listen 80 # x\n;\n"), "listen 80 # x\n    ;\n");
    }

    #[test]
    fn tabs_indent_and_align() {
        let src = "http {\nserver {\nlisten 80;\n}\n}\n";
        let parsed = parse(src.as_bytes());
        let style = Style {
            indent: Indent::Tab,
            ..Style::default()
        };
        let out = format(src.as_bytes(), &parsed, style).unwrap().unwrap();
        assert_eq!(out, b"http {\n\tserver {\n\t\tlisten 80;\n\t}\n}\n");
    }

    #[test]
    fn files_with_syntax_errors_are_not_formatted() {
        let src = b"http { listen 80 }";
        assert_eq!(
            format(src, &parse(src), Style::default()),
            Err(FormatError::Syntax)
        );
    }

    #[test]
    fn formatting_twice_changes_nothing_more() {
        for style in [
            Style::default(),
            Style {
                collapse_spaces: true,
                indent: Indent::Tab,
                indent_lua: true,
            },
        ] {
            for src in [
                "http {\n\tlog_format x 'a'\n\t\t\t'b';\n\tserver { listen 80; }\n}\n",
                "a b # c\n\n\n  d;\n",
                "log_format  m  '$a'\n\t\t  '$b';\nx\ty\tz\n  w;\n",
                "content_by_lua_block {\n  ngx.say('x')\n}\nx y;",
                "http {\n\tcontent_by_lua_block {\n\t\tngx.say(1)\n\t  end }\n}\n",
            ] {
                let once = fmt_with(src, style);
                assert_eq!(fmt_with(&once, style), once, "{src:?}");
            }
        }
    }
}
