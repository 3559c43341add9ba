//! FPM106 hash-comment-in-value: `key = value # note` in a PHP-FPM file or a php.ini. The
//! Zend INI scanner takes `;` for comments only, so an unquoted value keeps everything up to
//! the end of the line: `xdebug.client_host = 192.168.0.1 # your ip` sets the host to
//! `192.168.0.1 # your ip`, which resolves to nothing. Seen in public docker stacks, written
//! by habit from nginx and sysctl files.
//!
//! Only unquoted values are judged (a `#` inside quotes is the value's), and only a `#` after
//! a blank: `color = #fff` and `x = a#b` are values. The fix (unsafe: the value changes, to
//! what was surely meant) turns the `#` into `;`.

use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::{Shared, Span};
use crate::syntax::fpm::FpmFile;

declare_rule! {
    pub struct HashCommentInValue;
    code: FPM106,
    name: "hash-comment-in-value",
    lang: fpm,
    category: Correctness,
    severity: Warning,
    fix: Always,
    group: Default,
}

impl Rule for HashCommentInValue {
    fn check(&self, cx: &mut Context<'_>) {
        let files: Vec<(Shared, &FpmFile)> = cx
            .stack
            .fpm_files()
            .into_iter()
            .map(|f| (f.source.clone(), &f.parsed.file))
            .chain(
                cx.stack
                    .php_ini_files()
                    .map(|f| (f.source.clone(), &f.parsed.file)),
            )
            .collect();
        for (src, file) in files {
            for (_, e) in file.entries() {
                // A value that is one quoted string keeps its `#`.
                if e.value != e.raw_value || e.raw_value.is_empty() {
                    continue;
                }
                let raw = src.bytes(e.raw_value);
                let Some(at) = raw
                    .windows(2)
                    .position(|w| (w[0] == b' ' || w[0] == b'\t') && w[1] == b'#')
                    .map(|i| i + 1)
                else {
                    continue;
                };
                let hash = e.raw_value.start + at as u32;
                let intended = String::from_utf8_lossy(&raw[..at]).trim_end().to_string();
                let note = String::from_utf8_lossy(&raw[at..]).into_owned();
                let key = src.str(e.key).to_string();
                let d = cx.report(
                    &src,
                    Span::new(hash, e.raw_value.end),
                    format!(
                        "`{note}` is part of {key}'s value: INI comments start with `;`, so the \
                         value is `{}`, not `{intended}`",
                        String::from_utf8_lossy(raw)
                    ),
                );
                d.help = Some(format!("write `{key} = {intended} ;{}`", &note[1..]));
                d.with_fix(Fix::unsafe_(
                    "Start the comment with `;`",
                    vec![Edit::replace(&src, Span::new(hash, hash + 1), ";")],
                ));
            }
        }
    }
}
