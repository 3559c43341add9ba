//! FPM000 syntax-error: what php-fpm's INI parser rejects (lines starting with `#` are
//! FPM010's, which can fix them).

use crate::analysis::ini_comments::hash_at;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct SyntaxError;
    code: FPM000,
    name: "fpm-syntax-error",
    lang: fpm,
    category: Correctness,
    severity: Error,
    fix: None,
    input_error: true,
}

impl Rule for SyntaxError {
    fn check(&self, cx: &mut Context<'_>) {
        for f in cx.stack.fpm_files() {
            let src = &f.source;
            let lines = &f.parsed.file.lines;
            for e in &f.parsed.errors {
                let on_hash_line = lines
                    .iter()
                    .find(|l| {
                        l.span.start <= e.span.start
                            && e.span.start < l.span.end.max(l.span.start + 1)
                    })
                    .is_some_and(|l| hash_at(&src.text, l.span).is_some());
                if !on_hash_line {
                    cx.report(src, e.span, e.message.clone());
                }
            }
        }
    }
}
