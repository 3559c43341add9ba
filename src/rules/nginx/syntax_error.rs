//! NGX000 syntax-error: what nginx's tokenizer and block parser reject.

use crate::rules::{Context, Rule};

pub struct SyntaxError;

impl Rule for SyntaxError {
    fn check(&self, cx: &mut Context<'_>) {
        for file in cx.stack.nginx_files() {
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
