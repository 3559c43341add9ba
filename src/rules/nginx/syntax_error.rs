//! NGX000 syntax-error: what nginx's tokenizer and block parser reject, and a UTF-8 byte
//! order mark, which nginx reads as part of the first directive's name.

use crate::rules::{Context, Rule};
use crate::syntax::encoding::BOM;

declare_rule! {
    pub struct SyntaxError;
    code: NGX000,
    name: "syntax-error",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: None,
    group: Default,
    input_error: true,
}

/// nginx's error for a file that starts with a byte order mark: the mark is the start of
/// the first word, so the first directive is unknown (a tokenizer like crossplane's does not
/// know directives, so this is not a parse error of the tree).
fn bom_error(file: &crate::stack::nginx::NginxFile) -> Option<(crate::source::Span, String)> {
    let src = &file.source.text;
    if !src.starts_with(BOM) {
        return None;
    }
    let tree = &file.parsed.tree;
    let word = tree
        .directives()
        .map(|(_, d)| tree.name(d))
        .find(|w| w.raw().start == 0)?;
    let rest = String::from_utf8_lossy(&src[BOM.len()..word.raw().end as usize]);
    Some((
        word.raw(),
        format!(
            "unknown directive \"\\xEF\\xBB\\xBF{}\" (the file starts with a UTF-8 byte order mark, which nginx reads as part of the first word: save it without one)",
            crate::escape::line(&rest)
        ),
    ))
}

impl Rule for SyntaxError {
    fn check(&self, cx: &mut Context<'_>) {
        for file in cx.stack.nginx_files() {
            if let Some((span, message)) = bom_error(file) {
                cx.report(&file.source, span, message);
            }
            // One error per line: after the first, the rest of a line (a `{{template}}`
            // placeholder repeated ten times) is usually the same mistake again.
            let mut last_line = 0;
            for e in &file.parsed.errors {
                let line = file.source.line_of(e.span.start);
                if line == last_line {
                    continue;
                }
                last_line = line;
                let d = cx.report(&file.source, e.span, e.message.clone());
                if let Some((span, label)) = e.related {
                    let src = d.file.clone();
                    d.labels.push(crate::diagnostic::Label {
                        file: src,
                        span,
                        text: label.into(),
                    });
                }
            }
        }
    }
}
