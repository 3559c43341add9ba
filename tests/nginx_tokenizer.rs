//! Snapshots of what the nginx parser makes of each tokenizer/error case in
//! `fixtures/parser/nginx/*.conf` (plus a few generated ones: an empty file and tokens too long
//! to commit comfortably): every node of the tree and every error, in a readable dump. The
//! verdicts of the real nginx on the same cases are checked in `tests/nginx_binary.rs`.
//!
//! Dump format, one line per node, indented by depth:
//!
//! ```text
//! 2:1 directive `env` `"a\"b"`=`a"b` ;          words as `raw`, then `=value` when it differs
//! 3:1 directive `events` {directives} }3:9      block kind, and where it is closed
//!     4:5 entry `text/html` `html` ;            a line of a word list (`types`, `map`, …)
//! 4:1 comment `# text`
//! 5:1 error `;`
//! ```
//!
//! Control characters are shown as `␉` (TAB), `␊` (LF), `␍` (CR), `␋` (VT), `␌` (FF), other
//! bytes below 0x20 and invalid UTF-8 as `\xNN`, a BOM as `<BOM>`; tokens longer than 200
//! bytes are cut (`…(N bytes)`).

use lemplint::source::{SourceFile, Span};
use lemplint::syntax::nginx::{parse, BlockKind, NodeId, NodeKind, Word};
use std::fmt::Write;
use std::path::{Path, PathBuf};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/parser/nginx")
}

/// Cases generated here rather than committed (the same ones are run against nginx).
fn generated() -> Vec<(String, Vec<u8>)> {
    let long = |what: &str, body: Vec<u8>| {
        let mut v = format!("# generated: {what}\n").into_bytes();
        v.extend(body);
        v
    };
    let rep = |b: u8, n: usize| vec![b; n];
    let cat = |parts: &[&[u8]]| parts.concat();
    vec![
        ("empty_file".into(), Vec::new()),
        (
            "long_quoted_5000".into(),
            long(
                "a 5000-byte double-quoted word",
                cat(&[b"env \"", &rep(b'a', 5000), b"\";\n"]),
            ),
        ),
        (
            "long_single_quoted_5000".into(),
            long(
                "a 5000-byte single-quoted word",
                cat(&[b"env '", &rep(b'a', 5000), b"';\n"]),
            ),
        ),
        (
            "long_unquoted_5000".into(),
            long(
                "a 5000-byte unquoted word",
                cat(&[b"env ", &rep(b'a', 5000), b";\n"]),
            ),
        ),
        (
            "long_comment_5000".into(),
            long(
                "a 5000-byte comment",
                cat(&[b"#", &rep(b'c', 4999), b"\nenv a;\n"]),
            ),
        ),
    ]
}

fn cases() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .expect("fixtures/parser/nginx")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "conf"))
        .collect();
    files.sort();
    let mut out: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(p).unwrap())
        })
        .collect();
    out.extend(generated());
    out
}

/// Bytes for the dump: see the module docs.
fn show(bytes: &[u8]) -> String {
    let mut s = String::new();
    let text = String::from_utf8_lossy(bytes);
    let lossless = matches!(text, std::borrow::Cow::Borrowed(_));
    if !lossless {
        for &b in bytes {
            match b {
                0x20..=0x7e => s.push(b as char),
                _ => write!(s, "\\x{b:02X}").unwrap(),
            }
        }
        return s;
    }
    for ch in text.chars() {
        match ch {
            '\t' => s.push('␉'),
            '\n' => s.push('␊'),
            '\r' => s.push('␍'),
            '\x0b' => s.push('␋'),
            '\x0c' => s.push('␌'),
            '\u{feff}' => s.push_str("<BOM>"),
            c if (c as u32) < 0x20 || c == '\x7f' => write!(s, "\\x{:02X}", c as u32).unwrap(),
            c => s.push(c),
        }
    }
    s
}

fn cut(bytes: &[u8]) -> String {
    if bytes.len() > 200 {
        format!("{}…({} bytes)", show(&bytes[..20]), bytes.len())
    } else {
        show(bytes)
    }
}

fn word(src: &[u8], w: &Word) -> String {
    let raw = &src[w.raw().range()];
    let value = w.value(src);
    if value.as_ref() == raw {
        format!("`{}`", cut(raw))
    } else {
        format!("`{}`=`{}`", cut(raw), cut(&value))
    }
}

fn at(file: &SourceFile, span: Span) -> String {
    let lc = file.line_col(span.start);
    format!("{}:{}", lc.line, lc.column)
}

fn dump(name: &str, src: &[u8]) -> String {
    let file = SourceFile::new(format!("{name}.conf"), src.to_vec());
    let parsed = parse(src);
    let tree = &parsed.tree;
    let mut out = String::new();
    for (id, node) in tree.nodes.iter().enumerate() {
        let indent = "    ".repeat(tree.ancestors(id as u32).count());
        let pos = at(&file, node.span);
        match &node.kind {
            NodeKind::Comment => writeln!(
                out,
                "{indent}{pos} comment `{}`",
                cut(file.bytes(node.span))
            )
            .unwrap(),
            NodeKind::Error => {
                writeln!(out, "{indent}{pos} error `{}`", cut(file.bytes(node.span))).unwrap()
            }
            NodeKind::Directive(d) | NodeKind::Entry(d) => {
                let what = match node.kind {
                    NodeKind::Entry(_) => "entry",
                    _ => "directive",
                };
                write!(out, "{indent}{pos} {what} {}", word(src, &tree.name(d))).unwrap();
                for a in tree.args(d) {
                    write!(out, " {}", word(src, a)).unwrap();
                }
                for c in tree.comments_in(id as NodeId) {
                    write!(out, " comment({} `{}`)", at(&file, *c), cut(file.bytes(*c))).unwrap();
                }
                if d.semicolon().is_some() {
                    out.push_str(" ;");
                }
                match &d.block() {
                    Some(b) => {
                        match b.kind {
                            BlockKind::Directives => out.push_str(" {directives}"),
                            BlockKind::WordList => out.push_str(" {words}"),
                            BlockKind::Lua => {
                                let body = b.lua_body(&file.text).unwrap();
                                write!(
                                    out,
                                    " {{lua: {} bytes, {} LF}}",
                                    body.len(),
                                    file.bytes(body).iter().filter(|&&c| c == b'\n').count()
                                )
                                .unwrap()
                            }
                        }
                        match b.close() {
                            Some(c) => write!(out, " }}{}", at(&file, c)).unwrap(),
                            None => out.push_str(" (never closed)"),
                        }
                    }
                    None if d.semicolon().is_none() => out.push_str(" (unterminated)"),
                    None => {}
                }
                out.push('\n');
            }
        }
    }
    if parsed.errors.is_empty() {
        out.push_str("errors: none\n");
    } else {
        out.push_str("errors:\n");
        for e in &parsed.errors {
            write!(out, "    {} {}", at(&file, e.span), e.message).unwrap();
            if let Some((span, label)) = e.related {
                write!(out, " (related {}: {label})", at(&file, span)).unwrap();
            }
            out.push('\n');
        }
    }
    out
}

#[test]
fn every_case_round_trips() {
    for (name, src) in cases() {
        let parsed = parse(&src);
        assert!(
            parsed.tree.print(&src).as_deref() == Some(&src[..]),
            "{name}: tree.print() is not the input"
        );
    }
}

#[test]
fn snapshots() {
    let cases = cases();
    assert!(cases.len() > 50, "fixtures missing? found {}", cases.len());
    for (name, src) in cases {
        insta::assert_snapshot!(name.as_str(), dump(&name, &src));
    }
}
