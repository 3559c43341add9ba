//! NGX010 gzip-types-duplicate-html: `text/html` listed in `gzip_types`.
//!
//! nginx always compresses `text/html`: the first `gzip_types` of a block starts its list
//! with it (`ngx_http_types_slot` seeds the list with the directive's default). Listing it
//! again makes nginx warn `duplicate MIME type "text/html"` at every start and reload, and
//! changes nothing. The comparison ignores case, as nginx lowercases the types. After a `*`
//! (every type) nginx stops reading the block's types, so nothing after it is a duplicate.
//!
//! The fix removes the word. When `text/html` is the directive's only type it removes the
//! directive, except where that `gzip_types text/html;` overrides a list inherited from an
//! enclosing block: there it is the only way to say "just HTML" and the rule stays silent.

use crate::analysis::cursor::Directive;
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::{Shared, Span};
use std::collections::BTreeMap;
use std::path::PathBuf;

declare_rule! {
    pub struct GzipTypesDuplicateHtml;
    code: NGX010,
    name: "gzip-types-duplicate-html",
    lang: nginx,
    category: Correctness,
    severity: Warning,
    fix: Always,
    group: Default,
}

/// What one occurrence of a `gzip_types` directive says about one of its words.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Not a duplicate here (after a `*`), or an override nginx needs.
    Keep,
    /// A duplicate; removing it keeps the meaning.
    Duplicate,
}

/// One written `gzip_types` directive (the first occurrence that reached it), with the
/// verdicts of every occurrence about each of its `text/html` words.
struct Found<'a> {
    directive: Directive<'a>,
    /// Argument indexes that are `text/html`, with the verdict of every occurrence.
    verdicts: BTreeMap<usize, Vec<Verdict>>,
}

impl Rule for GzipTypesDuplicateHtml {
    fn check(&self, cx: &mut Context<'_>) {
        // A file included in several blocks is judged in each; it is reported only when
        // `text/html` is a removable duplicate in all of them. Written directives are told
        // apart by file path and the span of their name.
        let mut found: BTreeMap<(PathBuf, Span), Found<'_>> = BTreeMap::new();
        for d in cx.nginx_directives("gzip_types") {
            // Each block is judged once, from its first `gzip_types`.
            if d.siblings("gzip_types").next() == Some(d) {
                judge_block(d, &mut found);
            }
        }
        for f in found.into_values() {
            report(cx, f);
        }
    }
}

/// Walks the `gzip_types` of the block `first` stands in, in order, as nginx builds its
/// list.
fn judge_block<'a>(first: Directive<'a>, found: &mut BTreeMap<(PathBuf, Span), Found<'a>>) {
    let count = first.siblings("gzip_types").count();
    let overrides_inherited = first
        .parent()
        .is_some_and(|block| block.inherited("gzip_types").next().is_some());
    let mut star = false;
    for d in first.siblings("gzip_types") {
        let only_html = d.args().len() == 1 && count == 1;
        for (i, a) in d.args().enumerate() {
            if star {
                break;
            }
            if a.bytes().as_ref() == b"*" {
                star = true;
                break;
            }
            if !a.is("text/html") {
                continue;
            }
            let verdict = if only_html && overrides_inherited {
                Verdict::Keep
            } else {
                Verdict::Duplicate
            };
            let entry = found
                .entry((d.file().path.clone(), d.span()))
                .or_insert_with(|| Found {
                    directive: d,
                    verdicts: BTreeMap::new(),
                });
            entry.verdicts.entry(i).or_default().push(verdict);
        }
    }
}

fn report(cx: &mut Context<'_>, f: Found<'_>) {
    let d = f.directive;
    let file = d.file();
    let only_word = d.args().len() == 1;
    let dups = f
        .verdicts
        .iter()
        .filter(|(_, v)| v.iter().all(|&x| x == Verdict::Duplicate))
        .map(|(&i, _)| i);
    for i in dups {
        let Some(word) = d.arg(i) else { continue };
        let edit = if only_word {
            d.delete()
        } else {
            remove_word(file, word.raw())
        };
        let title = if only_word {
            "Remove `gzip_types text/html;` (text/html is always compressed)"
        } else {
            "Remove `text/html` from `gzip_types`"
        };
        // Deleting the directive's line also deletes a comment after it: not safe then.
        let drops_comment = file.text[edit.range.range()].contains(&b'#');
        let fix = if drops_comment {
            Fix::unsafe_(title, vec![edit])
        } else {
            Fix::safe(title, vec![edit])
        };
        let diag = cx
            .report(
                file,
                word.raw(),
                "`text/html` in `gzip_types` is a duplicate: nginx always compresses it and \
                 warns `duplicate MIME type \"text/html\"`",
            )
            .with_fix(fix);
        diag.help = Some("list only the other types; `text/html` is implied".into());
    }
}

/// Removes one argument word with one neighbouring run of blanks, keeping the line tidy:
/// a word alone on its line takes the line; a word followed by another on its line takes the
/// blanks after it; otherwise (last on its line) the blanks before it.
fn remove_word(file: &Shared, raw: Span) -> Edit {
    let text = &file.text;
    let (s, e) = (raw.start as usize, raw.end as usize);
    let is_blank = |b: u8| b == b' ' || b == b'\t';
    let mut before = s;
    while before > 0 && is_blank(text[before - 1]) {
        before -= 1;
    }
    let mut after = e;
    while after < text.len() && is_blank(text[after]) {
        after += 1;
    }
    let at_line_start = before == 0 || text[before - 1] == b'\n';
    let next = text.get(after).copied();
    let at_line_end = matches!(next, None | Some(b'\n') | Some(b'\r'));
    if at_line_start && at_line_end {
        let end = match next {
            Some(b'\r') if text.get(after + 1) == Some(&b'\n') => after + 2,
            Some(_) => after + 1,
            None => after,
        };
        return Edit::delete(file, Span::new(before as u32, end as u32));
    }
    if !at_line_end && next != Some(b';') {
        return Edit::delete(file, Span::new(s as u32, after as u32));
    }
    Edit::delete(file, Span::new(before as u32, e as u32))
}
