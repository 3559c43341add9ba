//! crossplane's JSON payload, built from our tree.
//!
//! [crossplane](https://github.com/nginxinc/crossplane) 0.5.8 is the de-facto interchange
//! format for parsed nginx configs (`crossplane parse` output, NGINX Agent, several tools).
//! [`payload`] emits exactly what `crossplane.parse(path, comments=False, check_ctx=False,
//! check_args=False)` returns, so its consumers can read our parse. `tests/crossplane.rs`
//! checks parity against the real crossplane over the whole corpus.
//!
//! Shape: `{"status", "errors": [{"file", "error", "line"}], "config": [{"file", "status",
//! "errors": [{"error", "line"}], "parsed": [{"directive", "line", "args", "includes"?,
//! "block"?}]}]}`.
//!
//! crossplane reads a file differently from nginx. Where it is cheap and local we reproduce
//! crossplane's view of our tokens:
//!
//! * Text: bytes are decoded as UTF-8 with invalid sequences replaced by U+FFFD
//!   (`errors='replace'`), and in universal-newline mode (CR LF and a lone CR read as LF;
//!   lone CRs also count as line breaks).
//! * Escapes: crossplane never unescapes an unquoted word (`a\"b` stays `a\"b`, nginx gives
//!   `a"b`). In a quoted word it turns only `\` + the enclosing quote into the quote; `\\`,
//!   `\n`, `\t`, `\r` and the other quote's escape stay as typed (nginx unescapes them).
//! * `if`: `_prepare_if_args` strips a leading `(` and trailing `)` (then Python
//!   whitespace) from the first and last argument, and drops them if they became empty.
//! * `*_by_lua_block`: the body becomes the last argument (exact text between the braces)
//!   and the statement has no `block`.
//! * Comments between a directive's arguments are emitted, even with `comments=False`, as
//!   `{"directive": "#", "line": <directive line>, "args": [], "comment": …}` right after
//!   the directive (after its block) — crossplane appends them unconditionally. Standalone
//!   comments are dropped. A comment ending in an unpaired `\` before the LF loses that
//!   backslash (crossplane reads `\`+LF as one character that ends the comment).
//! * `${name}` followed by whitespace: crossplane's parameter-expansion loop appends the
//!   whitespace to the word, which then runs on through the next word(s) up to a
//!   terminator (`set $a ${b} c;` has the arguments `$a` and `${b} c`). We merge the words
//!   the same way.
//! * Syntax errors: crossplane stops at the first one; the file gets `status: failed`, the
//!   one error, and `parsed: []`. We report our first error that crossplane also fails on.
//!   Its text is crossplane's when crossplane has an equivalent (`unexpected "}"`,
//!   `unexpected end of file, expecting "}"` on the line of the last token read, and an
//!   empty message with `line: null` when the file ends inside a statement outside any
//!   block — a Python `StopIteration`), nginx's otherwise; always `"<message> in
//!   <file>:<line>"`.
//! * Errors crossplane does not detect, where our tree is what it reads anyway, are not
//!   reported (crossplane's result: the file parses): a quoted word followed by something
//!   other than a space (`"a"b`: two words for both), an over-long token, a `{` inside a
//!   `map`/`types`-like block, a block directive ended by `;` (`directive "if" has no
//!   opening "{"`), and a simple directive ended by a `{` that opens a block for us too
//!   (`directive "root" is not terminated by ";"`; crossplane checks neither with
//!   `check_args=False`). Where we read that `{` as part of an argument instead (`\d{6}`,
//!   `{{template}}`), our tree is not crossplane's and the error is reported.
//!
//! Known differences, not mirrored (crossplane disagrees with nginx, and following it
//! would mean re-tokenizing or re-nesting the file): crossplane splits words at `}` and at
//! every Python `isspace()` character (also VT, FF, U+001C–U+001F, NBSP and other Unicode
//! spaces); it reads a stray `;` or `{` as a directive name that takes the following words
//! as arguments, and a `}` that ends a statement (`proxy_pass x }`) as its terminator, so
//! the block stays open and swallows what follows — we report nginx's error instead; its
//! Lua lexer knows 13 `*_by_lua_block` names (we treat every `*_by_lua_block`), needs
//! whitespace between the name and `{`, and counts braces inside Lua long brackets; a lone
//! CR inside a comment ends the comment for crossplane.

use super::parser::Parsed;
use super::tree::{BlockKind, Directive, NodeId, NodeKind, Quote, Word, ROOT};
use super::SyntaxError;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// One file of the payload.
pub struct CrossplaneFile<'a> {
    /// The path as crossplane would print it (the `file` field and error messages).
    pub path: String,
    pub src: &'a [u8],
    pub parsed: &'a Parsed,
    /// For each `include` directive: the indexes, in the payload's `config` list, of the
    /// files it includes. A directive listed here gets an `includes` field (crossplane adds
    /// one, possibly empty, to every `include` unless parsing with `single=True`); leave the
    /// map empty for single-file payloads.
    pub includes: &'a HashMap<NodeId, Vec<usize>>,
}

/// crossplane's parse payload for `files` (in `config` order).
/// Deepest block nesting the crossplane payload is built for.
pub const MAX_DEPTH: u32 = 256;

fn lines_of(src: &[u8], offset: u32) -> usize {
    src[..(offset as usize).min(src.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

pub fn payload(files: &[CrossplaneFile]) -> Value {
    let mut errors = Vec::new();
    let mut configs = Vec::with_capacity(files.len());
    for f in files {
        let config = file_payload(f);
        if let Some(e) = config["errors"].as_array().and_then(|e| e.first()) {
            errors.push(json!({"file": f.path, "error": e["error"], "line": e["line"]}));
        }
        configs.push(config);
    }
    let status = if errors.is_empty() { "ok" } else { "failed" };
    json!({"status": status, "errors": errors, "config": configs})
}

fn file_payload(f: &CrossplaneFile) -> Value {
    let lines = Lines::new(f.src);
    if let Some(err) = f.parsed.errors.iter().find(|e| crossplane_sees(f, e)) {
        let (message, line) = crossplane_error(f, &lines, &err.message, err.span.start);
        let text = match line {
            Some(l) if !message.is_empty() => format!("{message} in {}:{l}", f.path),
            _ => message,
        };
        return json!({
            "file": f.path,
            "status": "failed",
            "errors": [{"error": text, "line": line}],
            "parsed": [],
        });
    }
    // crossplane builds its payload recursively (and so do we, and serde_json): past this
    // depth both would exhaust the stack, so the file is refused instead.
    if let Some(deep) = f.parsed.tree.first_deeper_than(MAX_DEPTH) {
        let line = lines_of(f.src, f.parsed.tree.node(deep).span.start);
        return json!({
            "file": f.path,
            "status": "failed",
            "errors": [{"error": format!("blocks nested deeper than {MAX_DEPTH} levels in {}:{line}", f.path), "line": line}],
            "parsed": [],
        });
    }
    let cx = Cx { f, lines };
    json!({
        "file": f.path,
        "status": "ok",
        "errors": [],
        "parsed": cx.block(ROOT),
    })
}

/// Whether crossplane fails on this error of ours. It does not see those where nginx is
/// stricter but the tokens and tree are what crossplane reads anyway: an over-long token,
/// a quoted word not followed by a space (`"a"b` is two words for both), a `{` inside a
/// `map`/`types`-like block (a nested block for both). For those we emit crossplane's
/// result, as if the file were fine.
fn crossplane_sees(f: &CrossplaneFile, e: &SyntaxError) -> bool {
    let m = e.message.as_str();
    if m.starts_with("too long parameter") || m.ends_with(" has no opening \"{\"") {
        return false;
    }
    if m.ends_with(" is not terminated by \";\"") {
        // The parser kept the `{` as a word (not crossplane's tree) or opened a block with
        // it (crossplane's).
        let tree = &f.parsed.tree;
        let at = tree.words.partition_point(|w| w.raw().start < e.span.start);
        return tree.words.get(at).is_some_and(|w| w.raw() == e.span);
    }
    if m == "unexpected \"{\"" {
        let tree = &f.parsed.tree;
        let in_word_list = tree.statements().any(|(id, d)| {
            d.block().is_some_and(|b| b.open() == e.span)
                && tree.node(id).parent != ROOT
                && tree
                    .statement(tree.node(id).parent)
                    .and_then(|p| p.block())
                    .is_some_and(|b| b.kind == BlockKind::WordList)
        });
        return !in_word_list;
    }
    // The lexer's "need space" error after a closing quote; `unexpected "}"` there is
    // reported by the parser too, at the same place, and kept.
    let need_space =
        m.starts_with("unexpected \"") && m != "unexpected \";\"" && m != "unexpected \"}\"";
    !need_space
}

/// Maps one of our errors to crossplane's message and line.
fn crossplane_error(
    f: &CrossplaneFile,
    lines: &Lines,
    message: &str,
    at: u32,
) -> (String, Option<u32>) {
    if message.starts_with("unexpected end of file") {
        // crossplane's lexer drops what it was reading; its brace counter then fails at EOF
        // if a block is open, on the line of the last token it saw; otherwise the parser
        // runs out of tokens inside a statement: `StopIteration`, printed as "".
        let (depth, last) = token_scan(f);
        return if depth > 0 {
            (
                "unexpected end of file, expecting \"}\"".to_string(),
                Some(last.map_or(1, |p| lines.line_of(p))),
            )
        } else {
            (String::new(), None)
        };
    }
    (message.to_string(), Some(lines.line_of(at)))
}

/// crossplane's brace depth at the end of the file, and the start of the last token its
/// lexer yields (words cut off by EOF and a comment without a final LF are not yielded).
fn token_scan(f: &CrossplaneFile) -> (i64, Option<u32>) {
    let src = f.src;
    let tree = &f.parsed.tree;
    let eof = src.len() as u32;
    let mut depth = 0i64;
    let mut last: Option<u32> = None;
    let mut see = |p: u32| last = Some(last.map_or(p, |l| l.max(p)));
    for c in &tree.arg_comments {
        if c.end < eof {
            see(c.start);
        }
    }
    for node in &tree.nodes {
        match &node.kind {
            NodeKind::Comment => {
                if node.span.end < eof {
                    see(node.span.start)
                }
            }
            NodeKind::Error => {
                match src[node.span.start as usize] {
                    b'{' => depth += 1,
                    b'}' => depth -= 1,
                    _ => {}
                }
                see(node.span.start);
            }
            // crossplane knows no word lists: their entries are directives to it.
            NodeKind::Directive(d) | NodeKind::Entry(d) => {
                for w in std::iter::once(&tree.name(d)).chain(tree.args(d)) {
                    let cut = if w.raw().start == w.inner().start {
                        w.raw().end == eof
                    } else {
                        w.inner().end == w.raw().end
                    };
                    if !cut {
                        see(w.raw().start);
                    }
                }
                if let Some(s) = d.semicolon() {
                    see(s.start);
                }
                if let Some(b) = &d.block() {
                    match b.kind {
                        // The Lua lexer swallows the braces and yields the body and a `;`
                        // on the line of the closing brace.
                        BlockKind::Lua => {
                            if let Some(c) = b.close() {
                                see(c.start);
                            }
                        }
                        _ => {
                            depth += 1;
                            see(b.open().start);
                            if let Some(c) = b.close() {
                                depth -= 1;
                                see(c.start);
                            }
                        }
                    }
                }
            }
        }
    }
    (depth, last)
}

struct Cx<'a> {
    f: &'a CrossplaneFile<'a>,
    lines: Lines,
}

impl Cx<'_> {
    fn block(&self, parent: NodeId) -> Vec<Value> {
        let tree = &self.f.parsed.tree;
        let mut out = Vec::new();
        for id in tree.children(parent) {
            // Word-list entries are directives to crossplane (it has no word lists).
            let Some(d) = tree.statement(id) else {
                continue;
            };
            self.directive(id, d, &mut out);
        }
        out
    }

    fn directive(&self, id: NodeId, d: &Directive, out: &mut Vec<Value>) {
        let src = self.f.src;
        let tree = &self.f.parsed.tree;
        let name = word_text(src, &tree.name(d));
        let line = self.lines.line_of(tree.name(d).raw().start);
        let mut args = self.args(tree.args(d));
        let mut block = None;
        if let Some(b) = &d.block() {
            match b.lua_body(src) {
                Some(body) => args.push(text(&src[body.range()])),
                None => block = Some(self.block(id)),
            }
        }
        if name == "if" {
            prepare_if_args(&mut args);
        }
        let mut stmt = Map::new();
        stmt.insert("directive".into(), Value::String(name));
        stmt.insert("line".into(), line.into());
        stmt.insert(
            "args".into(),
            Value::Array(args.into_iter().map(Value::String).collect()),
        );
        if let Some(inc) = self.f.includes.get(&id) {
            stmt.insert("includes".into(), json!(inc));
        }
        if let Some(b) = block {
            stmt.insert("block".into(), Value::Array(b));
        }
        out.push(Value::Object(stmt));
        for c in tree.comments_in(id) {
            out.push(json!({
                "directive": "#",
                "line": line,
                "args": [],
                "comment": comment_text(&src[c.start as usize + 1..c.end as usize]),
            }));
        }
    }

    /// Argument texts, with crossplane's `${…}` quirk: when a word ends with the `}` of a
    /// `${` its lexer reads specially and the next byte is whitespace, that whitespace
    /// character is appended to the word and the word goes on (next words included) until
    /// whitespace, `;`, `{` or `}` ends it normally.
    fn args(&self, words: &[Word]) -> Vec<String> {
        let src = self.f.src;
        let mut out: Vec<String> = Vec::with_capacity(words.len() + 1);
        let mut glue = false;
        for (k, w) in words.iter().enumerate() {
            if glue {
                // The word goes on through the next word as typed, quotes included.
                let t = text(&src[w.raw().range()]);
                if let Some(last) = out.last_mut() {
                    last.push_str(&t);
                }
            } else {
                out.push(word_text(src, w));
            }
            glue = false;
            if w.quote(src) != Quote::None || !ends_in_expansion(&src[w.raw().range()]) {
                continue;
            }
            let after = w.raw().end as usize;
            if let Some(&c) = src.get(after) {
                if matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
                    if let Some(last) = out.last_mut() {
                        last.push(if c == b'\r' { '\n' } else { c as char });
                    }
                    glue = words
                        .get(k + 1)
                        .is_some_and(|n| n.raw().start as usize == after + 1);
                }
            }
        }
        out
    }
}

/// True when crossplane's lexer, reading this unquoted word, is still in (or has just
/// left, on the word's last character) its `${` parameter-expansion loop. That loop reads
/// up to a `}` or whitespace and does not treat the whitespace after it as a separator.
fn ends_in_expansion(raw: &[u8]) -> bool {
    let mut i = 0;
    // crossplane checks `token[-1] == '$'`: the last character of the previous unit
    // (`\$` is a unit ending in `$`).
    let mut prev_dollar = false;
    let mut looping = false;
    let mut last_in_loop = false;
    while i < raw.len() {
        // `\` + next character is one unit for crossplane.
        let unit = if raw[i] == b'\\' { 2 } else { 1 };
        let last = raw[(i + unit - 1).min(raw.len() - 1)];
        if looping {
            last_in_loop = true;
            looping = last != b'}';
        } else {
            looping = unit == 1 && raw[i] == b'{' && prev_dollar;
            last_in_loop = looping;
        }
        prev_dollar = last == b'$';
        i += unit;
    }
    last_in_loop
}

/// `_prepare_if_args`: strip `(` from the first and `)` from the last argument.
fn prepare_if_args(args: &mut Vec<String>) {
    let (Some(first), Some(last)) = (args.first(), args.last()) else {
        return;
    };
    if !(first.starts_with('(') && last.ends_with(')')) {
        return;
    }
    let first = args[0][1..].trim_start_matches(py_isspace).to_string();
    args[0] = first;
    let n = args.len() - 1;
    let last = args[n][..args[n].len() - 1]
        .trim_end_matches(py_isspace)
        .to_string();
    args[n] = last;
    let start = usize::from(args[0].is_empty());
    let end = args.len() - usize::from(args[n].is_empty());
    if start >= end {
        args.clear();
    } else {
        args.truncate(end);
        args.drain(..start);
    }
}

/// Python's `str.isspace()`: Unicode White_Space plus the separators U+001C..U+001F.
fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// A word as crossplane yields it.
fn word_text(src: &[u8], w: &Word) -> String {
    let t = text(&src[w.inner().range()]);
    let q = match w.quote(src) {
        Quote::None => return t,
        Quote::Single => '\'',
        Quote::Double => '"',
    };
    if !t.contains('\\') {
        return t;
    }
    let mut out = String::with_capacity(t.len());
    let mut chars = t.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n) if n == q => out.push(q),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A comment's text after `#`, as crossplane keeps it.
fn comment_text(body: &[u8]) -> String {
    let mut t = text(body);
    if t.ends_with('\n') {
        // Was CR LF.
        t.pop();
    }
    let trailing = t.len() - t.trim_end_matches('\\').len();
    if trailing % 2 == 1 {
        // `\` + LF is one character for crossplane, and it ends the comment unrecorded.
        t.pop();
    }
    t
}

/// Bytes decoded as Python's `open(encoding='utf-8', errors='replace')` in text mode does:
/// invalid UTF-8 replaced, CR LF and lone CR turned into LF.
fn text(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    if !s.contains('\r') {
        return s.into_owned();
    }
    s.replace("\r\n", "\n").replace('\r', "\n")
}

/// Line numbers as crossplane counts them (universal newlines).
struct Lines {
    starts: Vec<u32>,
}

impl Lines {
    fn new(src: &[u8]) -> Self {
        let mut starts = vec![0];
        for (i, &b) in src.iter().enumerate() {
            if b == b'\n' || (b == b'\r' && src.get(i + 1) != Some(&b'\n')) {
                starts.push(i as u32 + 1);
            }
        }
        Lines { starts }
    }

    fn line_of(&self, offset: u32) -> u32 {
        match self.starts.binary_search(&offset) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    /// The payload of one file named `t.conf`, without includes.
    fn one(src: &str) -> Value {
        let parsed = parse(src.as_bytes());
        let includes = HashMap::new();
        payload(&[CrossplaneFile {
            path: "t.conf".into(),
            src: src.as_bytes(),
            parsed: &parsed,
            includes: &includes,
        }])
    }

    fn parsed(src: &str) -> Value {
        let p = one(src);
        assert_eq!(p["status"], "ok", "{p}");
        p["config"][0]["parsed"].clone()
    }

    fn args(src: &str) -> Vec<Value> {
        parsed(src)
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["args"].clone())
            .collect()
    }

    #[test]
    fn payload_shape() {
        assert_eq!(
            one("events {}\nhttp {\n  server { listen 80; }\n}\n"),
            json!({"status": "ok", "errors": [], "config": [{
                "file": "t.conf", "status": "ok", "errors": [],
                "parsed": [
                    {"directive": "events", "line": 1, "args": [], "block": []},
                    {"directive": "http", "line": 2, "args": [], "block": [
                        {"directive": "server", "line": 3, "args": [], "block": [
                            {"directive": "listen", "line": 3, "args": ["80"]}
                        ]}
                    ]}
                ]
            }]})
        );
    }

    #[test]
    fn if_parentheses_are_stripped() {
        assert_eq!(
            args("if ( $a = b ) {}\nif ($a){}\nif (){}\nif ( ) {}\nif (a) {}\nif ($a = \"(x)\") {}\nif ($a ~ ^(b)) {}\nset ($a) (b);\n"),
            vec![
                json!(["$a", "=", "b"]),
                json!(["$a"]),
                json!([]),
                json!([]),
                json!(["a"]),
                json!(["$a", "=", "(x)"]),
                json!(["$a", "~", "^(b)"]),
                json!(["($a)", "(b)"]),
            ]
        );
    }

    #[test]
    fn lua_block_body_is_one_argument() {
        let src = "content_by_lua_block {\n ngx.say(\"}\") -- }\n}\nset_by_lua_block $x { return 1 }\nhttp { init_by_lua_block { a = {} } }\n";
        assert_eq!(
            parsed(src),
            json!([
                {"directive": "content_by_lua_block", "line": 1, "args": ["\n ngx.say(\"}\") -- }\n"]},
                {"directive": "set_by_lua_block", "line": 4, "args": ["$x", " return 1 "]},
                {"directive": "http", "line": 5, "args": [], "block": [
                    {"directive": "init_by_lua_block", "line": 5, "args": [" a = {} "]}
                ]}
            ])
        );
    }

    #[test]
    fn quotes_and_escapes_as_crossplane_keeps_them() {
        // Unquoted: nothing unescaped. Quoted: only the enclosing quote.
        let src = r#"a "x\"y\\z\n\t\'" 'p\'q\"' u\"v\\w "" '';"#;
        assert_eq!(
            args(src),
            vec![json!([r#"x"y\\z\n\t\'"#, r#"p'q\""#, r#"u\"v\\w"#, "", ""])]
        );
        // Multi-line quoted strings and CR LF files: newlines read as LF.
        assert_eq!(args("a 'x\r\ny' b\r\n;"), vec![json!(["x\ny", "b"])]);
    }

    #[test]
    fn quoted_directive_name_and_braces_in_quotes() {
        assert_eq!(
            parsed("\"a\" '{' \"}\" ';';"),
            json!([{"directive": "a", "line": 1, "args": ["{", "}", ";"]}])
        );
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let src = b"a caf\xe9 \"\xff\";\n";
        let p = parse(src);
        let includes = HashMap::new();
        let v = payload(&[CrossplaneFile {
            path: "t.conf".into(),
            src,
            parsed: &p,
            includes: &includes,
        }]);
        assert_eq!(
            v["config"][0]["parsed"][0]["args"],
            json!(["caf\u{fffd}", "\u{fffd}"])
        );
    }

    #[test]
    fn comments_between_arguments_follow_the_directive() {
        assert_eq!(
            parsed("# top\na b # c1\n # c2\n c;\nd { # c3\n e; } # c4\n"),
            json!([
                {"directive": "a", "line": 2, "args": ["b", "c"]},
                {"directive": "#", "line": 2, "args": [], "comment": " c1"},
                {"directive": "#", "line": 2, "args": [], "comment": " c2"},
                {"directive": "d", "line": 5, "args": [], "block": [
                    {"directive": "e", "line": 6, "args": []}
                ]}
            ])
        );
        // `\` + LF ends the comment and is not part of it; `\\` + LF keeps both.
        assert_eq!(
            parsed("a # x \\\r\n b # y \\\\\n;"),
            json!([
                {"directive": "a", "line": 1, "args": ["b"]},
                {"directive": "#", "line": 1, "args": [], "comment": " x "},
                {"directive": "#", "line": 1, "args": [], "comment": " y \\\\"}
            ])
        );
    }

    #[test]
    fn parameter_expansion_followed_by_space_runs_on() {
        assert_eq!(
            args("set $a ${b} c;\nset $a ${b}c d;\nset $a x${b}\n;\nset \"${b}\" c;\n"),
            vec![
                json!(["$a", "${b} c"]),
                json!(["$a", "${b}c", "d"]),
                json!(["$a", "x${b}\n"]),
                json!(["${b}", "c"]),
            ]
        );
    }

    #[test]
    fn includes_are_listed_for_the_nodes_given() {
        let src = "include a.conf;\ninclude b/*.conf;\n";
        let p = parse(src.as_bytes());
        let includes = HashMap::from([(0, vec![1]), (1, vec![])]);
        let v = payload(&[CrossplaneFile {
            path: "t.conf".into(),
            src: src.as_bytes(),
            parsed: &p,
            includes: &includes,
        }]);
        assert_eq!(v["config"][0]["parsed"][0]["includes"], json!([1]));
        assert_eq!(v["config"][0]["parsed"][1]["includes"], json!([]));
    }

    fn error(src: &str) -> (Value, Value) {
        let p = one(src);
        assert_eq!(p["status"], "failed");
        assert_eq!(p["config"][0]["status"], "failed");
        assert_eq!(p["config"][0]["parsed"], json!([]));
        let e = &p["config"][0]["errors"];
        assert_eq!(e.as_array().unwrap().len(), 1);
        assert_eq!(
            p["errors"],
            json!([{"file": "t.conf", "error": e[0]["error"], "line": e[0]["line"]}])
        );
        (e[0]["error"].clone(), e[0]["line"].clone())
    }

    #[test]
    fn syntax_errors_as_crossplane_reports_them() {
        assert_eq!(
            error("a;\n}\n"),
            (json!("unexpected \"}\" in t.conf:2"), json!(2))
        );
        // Unclosed block: the line of the last token read (here a comment).
        assert_eq!(
            error("http {\n a b;\n # c\n\n"),
            (
                json!("unexpected end of file, expecting \"}\" in t.conf:3"),
                json!(3)
            )
        );
        // A word cut off by EOF is not a token for crossplane.
        assert_eq!(
            error("http {\n a b"),
            (
                json!("unexpected end of file, expecting \"}\" in t.conf:2"),
                json!(2)
            )
        );
        // An unterminated statement outside any block: crossplane's StopIteration.
        assert_eq!(error("a b\n"), (json!(""), Value::Null));
        assert_eq!(error("a 'b"), (json!(""), Value::Null));
        assert_eq!(
            error("x { content_by_lua_block {\n ngx.say('a')\n"),
            (
                json!("unexpected end of file, expecting \"}\" in t.conf:1"),
                json!(1)
            )
        );
        // Errors crossplane has no equivalent for keep nginx's wording.
        assert_eq!(
            error("a;\n;b;\n"),
            (json!("unexpected \";\" in t.conf:2"), json!(2))
        );
        // A `{` we read as part of an argument (crossplane nests a block there and splits
        // the words at `}`: a tree we do not build).
        assert_eq!(
            error("server {\n rewrite ^/(\\d{6})$ /x last;\n}\n"),
            (
                json!("directive \"rewrite\" is not terminated by \";\" in t.conf:2"),
                json!(2)
            )
        );
        assert_eq!(
            error("http { a b }\n"),
            (json!("unexpected \"}\" in t.conf:1"), json!(1))
        );
        assert_eq!(
            error("a \"b\"}\n"),
            (json!("unexpected \"}\" in t.conf:1"), json!(1))
        );
    }

    #[test]
    fn errors_crossplane_does_not_see_are_dropped() {
        assert_eq!(
            args("a \"b\"c 'd'#e\n;\n"),
            vec![json!(["b", "c", "d"]), json!([])]
        );
        let long = format!("a {};\n", "x".repeat(5000));
        assert_eq!(parsed(&long)[0]["args"][0].as_str().unwrap().len(), 5000);
        assert_eq!(
            parsed("map $a $b { x { y; } }\n"),
            json!([{"directive": "map", "line": 1, "args": ["$a", "$b"], "block": [
                {"directive": "x", "line": 1, "args": [], "block": [
                    {"directive": "y", "line": 1, "args": []}
                ]}
            ]}])
        );
        // nginx: `directive "if" has no opening "{"`, `directive "root" is not terminated by
        // ";"`; crossplane 0.5.8 (check_args=False) gives these payloads.
        assert_eq!(
            parsed("server { if ($a) return 403; }\n"),
            json!([{"directive": "server", "line": 1, "args": [], "block": [
                {"directive": "if", "line": 1, "args": ["($a)", "return", "403"]}
            ]}])
        );
        assert_eq!(
            parsed("server {\n    root /x\n    location / { }\n}\n"),
            json!([{"directive": "server", "line": 1, "args": [], "block": [
                {"directive": "root", "line": 2, "args": ["/x", "location", "/"], "block": []}
            ]}])
        );
    }

    #[test]
    fn lines_count_universal_newlines() {
        assert_eq!(
            parsed("a;\r\nb;\rc;\n"),
            json!([
                {"directive": "a", "line": 1, "args": []},
                {"directive": "b", "line": 2, "args": []},
                {"directive": "c", "line": 3, "args": []}
            ])
        );
    }

    #[test]
    fn word_lists_are_directives() {
        assert_eq!(
            parsed("map $a $b { default 0; ~^x 1; }\ntypes { text/html html htm; }\n"),
            json!([
                {"directive": "map", "line": 1, "args": ["$a", "$b"], "block": [
                    {"directive": "default", "line": 1, "args": ["0"]},
                    {"directive": "~^x", "line": 1, "args": ["1"]}
                ]},
                {"directive": "types", "line": 2, "args": [], "block": [
                    {"directive": "text/html", "line": 2, "args": ["html", "htm"]}
                ]}
            ])
        );
    }
}
