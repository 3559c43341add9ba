//! FPM010 hash-comment: a line starting with `#`. php-fpm's INI parser takes `;` for
//! comments; a `# note` line is a key with no value, and php-fpm refuses to start
//! (`value is NULL for a ZEND_INI_PARSER_ENTRY`).

use crate::analysis::ini_comments::hash_at;
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::Span;

declare_rule! {
    pub struct HashComment;
    code: FPM010,
    name: "hash-comment",
    lang: fpm,
    category: Correctness,
    severity: Error,
    fix: Always,
    group: Default,
}

impl Rule for HashComment {
    fn check(&self, cx: &mut Context<'_>) {
        for f in cx.stack.fpm_files() {
            let src = &f.source;
            for line in &f.parsed.file.lines {
                let Some(at) = hash_at(&src.text, line.span) else {
                    continue;
                };
                let end = line.span.end - line.eol.len();
                let fix = Fix::safe(
                    "Use `;` to start the comment",
                    vec![Edit::replace(src, Span::new(at, at + 1), ";")],
                );
                cx.report(
                    src,
                    Span::new(at, end),
                    "`#` does not start a comment in PHP-FPM files; php-fpm refuses to start",
                )
                .with_fix(fix)
                .help = Some("PHP-FPM reads INI syntax: comments start with `;`".into());
            }
        }
    }
}
