//! NGX134 rewrite-args-capture-overflow (CVE-2026-42945): a `rewrite` whose replacement
//! has arguments (`/new?c=1`) sets the script engine's args flag and, before nginx 1.31.0
//! / 1.30.1, never clears it: a later `set` or `if` of the same block that copies `$1`…`$9`
//! escapes them into a buffer sized without escaping — a heap overflow a request with
//! characters to escape triggers (nginx commit "Rewrite: fixed escaping and possible
//! buffer overrun").
//!
//! The later directives are those the same run of the rewrite module reaches: the rest of
//! the block after the `rewrite` (its enclosing `if` blocks' rest included), until a
//! `return`, `break` or a `rewrite` that stops processing. A `rewrite` with `last`,
//! `break`, `redirect`, `permanent` or a scheme ends that run itself. Version-aware through
//! `[host] nginx` (analysis::nginx_advisories).

use crate::analysis::advisory_report::verdict;
use crate::analysis::cursor::{self, Directive};
use crate::analysis::nginx_advisories::{by_cve, Advisory};
use crate::analysis::rewrite_redirect::redirects;
use crate::analysis::variables::PartKind;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct RewriteArgsCaptureOverflow;
    code: NGX134,
    name: "rewrite-args-capture-overflow",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
}

impl Rule for RewriteArgsCaptureOverflow {
    fn check(&self, cx: &mut Context<'_>) {
        let Some((severity, version_note)) = verdict(advisory(), cx.host) else {
            return;
        };
        let found: Vec<(Directive<'_>, Directive<'_>)> = cx
            .nginx_directives("rewrite")
            .filter(|r| sets_args_and_continues(*r))
            .filter_map(|r| later_capture_use(r).map(|u| (r, u)))
            .collect();
        for (r, user) in found {
            let file = r.file().clone();
            let Some(replacement) = r.arg(1) else {
                continue;
            };
            let diag = cx.report(
                &file,
                replacement.raw(),
                format!(
                    "this `rewrite` has arguments and a later `{}` copies a capture: the \
                     capture is escaped into a buffer sized without escaping (heap overflow); {}",
                    user.name(),
                    version_note
                ),
            );
            diag.severity = severity;
            diag.label(
                user.file().clone(),
                user.span(),
                "copies `$N` after the rewrite".to_string(),
            );
            diag.help = Some(format!(
                "upgrade nginx to {} or later; until then, copy the capture before the \
                 `rewrite` (`set $v $1;` first), or use a named capture",
                advisory().fixes()
            ));
        }
    }
}

/// A `rewrite` whose replacement has arguments (a `?` that is not the last byte: a
/// trailing `?` only drops the request's arguments) and after which the rewrite module
/// goes on with the next directive (no flag, not a redirect).
fn sets_args_and_continues(r: Directive<'_>) -> bool {
    let Some(replacement) = r.arg(1) else {
        return false;
    };
    let v = replacement.value();
    let has_args = v.find('?').is_some_and(|i| i + 1 < v.len());
    has_args && !redirects(r) && r.arg(2).is_none()
}

/// Whether a directive copies `$1`…`$9` through the rewrite module's script engine: a
/// `set` value, or the operand of an `if` nginx compiles as a value (see [`if_values`]).
fn copies_capture(d: Directive<'_>) -> bool {
    let words: Vec<_> = match d.name() {
        "set" => d.arg(1).into_iter().collect(),
        "if" => if_values(d),
        _ => return false,
    };
    words.iter().any(|w| {
        w.variables()
            .parts
            .iter()
            .any(|p| matches!(p.kind, PartKind::Capture(_)))
    })
}

/// The words of an `if` condition that nginx compiles as a value evaluated per request
/// (ngx_http_rewrite_if_condition): the operand of `=` / `!=` and the path of `-f`, `-d`,
/// `-e`, `-x` (or their `!` forms). Not the tested variable: `if ($1)` is refused when nginx
/// reads the configuration (`unknown "1" variable`, nginx 1.22.1), a configuration error and
/// not this overflow; not a `~` pattern, compiled once as a regex where `$1` is literal text.
fn if_values(d: Directive<'_>) -> Vec<crate::analysis::cursor::Word<'_>> {
    // The words as nginx splits them: `(` opens the first, `)` closes the last, and either
    // may stand alone.
    let words: Vec<_> = d
        .args()
        .filter(|w| {
            w.is_quoted()
                || !w
                    .value()
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .is_empty()
        })
        .collect();
    let bare = |i: usize| {
        words.get(i).map(|w| {
            w.value()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .to_string()
        })
    };
    match (words.len(), bare(0).as_deref(), bare(1).as_deref()) {
        (2, Some("-f" | "!-f" | "-d" | "!-d" | "-e" | "!-e" | "-x" | "!-x"), _) => vec![words[1]],
        (3, _, Some("=" | "!=")) => vec![words[2]],
        _ => Vec::new(),
    }
}

/// Whether `d` ends the rewrite module's run of its block.
fn stops(d: Directive<'_>) -> bool {
    match d.name() {
        "return" | "break" => true,
        "rewrite" => d.arg(2).is_some() || redirects(d),
        _ => false,
    }
}

/// The first `set`/`if` after `r` in the same run that copies a capture.
fn later_capture_use(r: Directive<'_>) -> Option<Directive<'_>> {
    let mut scope = r;
    loop {
        let siblings: Vec<Directive<'_>> = match scope.parent() {
            Some(p) => p.all_children().collect(),
            None => cursor::top_level(scope.instance()).collect(),
        };
        for s in siblings.into_iter().filter(|s| scope.is_before(*s)) {
            if let Some(u) = first_use(s, 0) {
                return Some(u);
            }
            if stops(s) {
                return None;
            }
        }
        // The rest of the block around an `if` runs after it.
        match scope.parent() {
            Some(p) if p.name() == "if" => scope = p,
            _ => return None,
        }
    }
}

/// `d` itself when it copies a capture, else the first such directive inside it when it
/// is an `if` (its block runs in the same run).
fn first_use(d: Directive<'_>, depth: usize) -> Option<Directive<'_>> {
    if copies_capture(d) {
        return Some(d);
    }
    if d.name() != "if" || depth > 32 {
        return None;
    }
    for c in d.all_children() {
        if let Some(u) = first_use(c, depth + 1) {
            return Some(u);
        }
        if stops(c) {
            return None;
        }
    }
    None
}

/// CVE-2026-42945, from the advisories table (scripts/gen-nginx-advisories.py).
fn advisory() -> &'static Advisory {
    by_cve("CVE-2026-42945").expect("the advisories table lists CVE-2026-42945")
}
