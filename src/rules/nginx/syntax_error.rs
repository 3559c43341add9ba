//! NGX000 syntax-error: what nginx's tokenizer and block parser reject.

use crate::rules::{Context, Rule};

pub struct SyntaxError;

impl Rule for SyntaxError {
    fn check(&self, cx: &mut Context<'_>) {
        for file in cx.stack.nginx_files() {
            for e in &file.parsed.errors {
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
