//! FPM000 syntax-error: what php-fpm's INI parser rejects (lines starting with `#` are
//! FPM010's, which can fix them), and what PHP's rejects in php.ini. PHP reads php.ini with
//! the same grammar, but it ignores an entry without a value (`foo` alone, a `#` comment
//! line without `=`) where php-fpm stops, and at the first error it keeps what it read
//! before and drops the rest of the file (`PHP:  syntax error, unexpected … in php.ini on
//! line N`): the message says so.

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
    group: Default,
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
        // Includes not followed because a glob went past its caps: the pools read are
        // only part of the configuration.
        for cfg in &cx.stack.fpm {
            for p in cfg.problems.iter().filter(|p| p.over_budget) {
                let src = cfg.files[p.file].source.clone();
                cx.report(&src, p.span, p.message.clone());
            }
        }
        for f in cx.stack.php_ini_files() {
            if let Some(e) = crate::stack::php_ini::first_error(&f.parsed) {
                let message = format!(
                    "{}: PHP stops reading {} here, and ignores every setting after this line",
                    e.message,
                    file_name(&f.source.path)
                );
                cx.report(&f.source, e.span, message);
            }
        }
    }
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| crate::escape::line(&n.to_string_lossy()).into_owned())
        .unwrap_or_default()
}
