//! `lemplint parse --format json`: the lossless tree as JSON, with byte spans and 1-based
//! lines and columns. Written iteratively (not through nested `serde_json::Value`s), so a
//! very deeply nested file cannot overflow the stack.

use super::tree::{BlockKind, NodeKind, Tree};
use crate::source::{SourceFile, Span};
use serde_json::json;
use std::io::{self, Write};

fn span(s: Span) -> serde_json::Value {
    json!([s.start, s.end])
}

fn text(src: &SourceFile, s: Span) -> String {
    src.str(s).into_owned()
}

/// Writes the nodes of `tree` as a JSON array; `includes` gives, for an include directive,
/// the indexes of the files it read.
pub fn write_nodes(
    out: &mut dyn Write,
    src: &SourceFile,
    tree: &Tree,
    includes: &dyn Fn(u32) -> Option<Vec<usize>>,
) -> io::Result<()> {
    // `closers[i]` is the node index at which the i-th open block ends.
    let mut closers: Vec<u32> = Vec::new();
    let mut first_in_list = true;
    out.write_all(b"[")?;
    for (i, node) in tree.nodes.iter().enumerate() {
        let i = i as u32;
        while closers.last() == Some(&i) {
            closers.pop();
            out.write_all(b"]}}")?;
            first_in_list = false;
        }
        if !first_in_list {
            out.write_all(b",")?;
        }
        first_in_list = false;
        let lc = src.line_col(node.span.start);
        match &node.kind {
            NodeKind::Comment | NodeKind::Error => {
                let kind = if node.kind == NodeKind::Comment {
                    "comment"
                } else {
                    "error"
                };
                let v = json!({"type": kind, "text": text(src, node.span), "line": lc.line,
                               "column": lc.column, "span": span(node.span)});
                serde_json::to_writer(&mut *out, &v)?;
            }
            NodeKind::Directive(d) => {
                let args: Vec<_> = tree
                    .args(d)
                    .iter()
                    .map(|w| {
                        json!({"raw": text(src, w.raw),
                                    "value": String::from_utf8_lossy(&w.value(&src.text)),
                                    "span": span(w.raw)})
                    })
                    .collect();
                let comments: Vec<_> = tree.comments_in(d).iter().map(|c| text(src, *c)).collect();
                let mut head = json!({
                    "type": "directive",
                    "name": d.name.text(&src.text),
                    "line": lc.line,
                    "column": lc.column,
                    "span": span(node.span),
                    "args": args,
                    "terminator": if d.semicolon.is_some() { json!(";") }
                                  else if d.block.is_some() { json!("{") } else { json!(null) },
                });
                if !comments.is_empty() {
                    head["comments"] = json!(comments);
                }
                if let Some(files) = includes(i) {
                    head["includes"] = json!(files);
                }
                let Some(b) = &d.block else {
                    serde_json::to_writer(&mut *out, &head)?;
                    continue;
                };
                let kind = match b.kind {
                    BlockKind::Directives => "directives",
                    BlockKind::WordList => "words",
                    BlockKind::Lua { .. } => "lua",
                };
                let mut block = json!({"kind": kind, "open": span(b.open),
                                       "close": b.close.map(span)});
                if let BlockKind::Lua { body } = b.kind {
                    block["lua"] = json!(text(src, body));
                }
                // Write the head without its closing braces, then the children.
                let mut head_text = serde_json::to_vec(&head)?;
                head_text.pop(); // '}'
                let mut block_text = serde_json::to_vec(&block)?;
                block_text.pop();
                out.write_all(&head_text)?;
                out.write_all(b",\"block\":")?;
                out.write_all(&block_text)?;
                out.write_all(b",\"children\":[")?;
                if node.end == i + 1 {
                    out.write_all(b"]}}")?;
                } else {
                    closers.push(node.end);
                    first_in_list = true;
                }
            }
        }
    }
    for _ in closers {
        out.write_all(b"]}}")?;
    }
    out.write_all(b"]")?;
    Ok(())
}
