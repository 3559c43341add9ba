//! NGX113 if-in-location-misbehaves: the documented ways an `if` inside a `location`
//! changes what the location does ("If is Evil"). When its condition holds, the request
//! goes on with the `if` block's own configuration, an implicit nested location: what is
//! not inherited into it is gone, and what it sets replaces the location's. Reported only
//! where that is certain to differ from the location without the `if`:
//!
//! - `try_files` in the location and an `if` that does not end the request: the try_files
//!   module has no merge function, so the `if` block has no `try_files` and skips it;
//! - two `if`s that both go on: when both hold, only the last one's configuration is used,
//!   so the first one's directives (other than the rewrite module's, which already ran) are
//!   ignored.
//!
//! An `add_header` inside the `if` that drops the location's headers is NGX116's finding
//! (header-lost-by-inheritance judges every level alike), not reported here twice.
//!
//! An `if` whose block ends the request in the rewrite phase (`return`, `rewrite … last`,
//! `break`, `redirect`, `permanent`) is safe for the first and third; `if` in a `server` is
//! not a location and is never reported.

use crate::analysis::cursor::Directive;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct IfInLocationMisbehaves;
    code: NGX113,
    name: "if-in-location-misbehaves",
    lang: nginx,
    category: Reliability,
    severity: Warning,
    fix: None,
    group: Default,
}

/// The rewrite module's directives: they run in the rewrite phase, when the `if` is
/// evaluated, so they take effect whichever configuration the request ends with.
const REWRITE_MODULE: &[&str] = &[
    "set",
    "rewrite",
    "return",
    "break",
    "if",
    "rewrite_log",
    "uninitialized_variable_warn",
];

impl Rule for IfInLocationMisbehaves {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("if") {
            let Some(loc) = d.parent().filter(|p| p.name() == "location") else {
                continue;
            };
            lost_try_files(cx, d, loc);
            shadowed_by_later_if(cx, d, loc);
        }
    }
}

/// Whether the `if` block ends the request in the rewrite phase whenever it is entered.
fn ends_request(i: Directive<'_>) -> bool {
    i.children("return").next().is_some()
        || i.children("rewrite").any(|r| {
            let flag = r.arg(2).map(|f| f.value().to_ascii_lowercase());
            match flag.as_deref() {
                Some("last" | "break" | "redirect" | "permanent") => true,
                Some(_) => false,
                None => r.arg(1).is_some_and(|t| {
                    let t = t.value();
                    t.starts_with("http://")
                        || t.starts_with("https://")
                        || t.starts_with("$scheme")
                }),
            }
        })
}

/// The `if` and its condition as written (`if ($arg_a)`).
fn condition(i: Directive<'_>) -> String {
    let mut args = i.args();
    let (Some(first), Some(last)) = (args.next(), i.args().last()) else {
        return "if".to_string();
    };
    let text = i.file().str(first.raw().cover(last.raw()));
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("if {text}")
}

fn lost_try_files(cx: &mut Context<'_>, i: Directive<'_>, loc: Directive<'_>) {
    if ends_request(i) {
        return;
    }
    let Some(tf) = loc.children("try_files").next() else {
        return;
    };
    let diag = cx.report(
        i.file(),
        i.span(),
        format!(
            "when `{}` holds, the request runs with the `if` block's configuration, which has no `try_files` (it is not inherited): the location's `try_files` is skipped for those requests",
            condition(i)
        ),
    );
    diag.label(
        tf.file().clone(),
        tf.span(),
        "skipped when the `if` matches",
    );
    diag.help = Some(
        "end the `if` with `return` or `rewrite … last`, or move the condition out of the location (a `map` feeding the directive, or an `if` in the server)"
            .to_string(),
    );
}

fn shadowed_by_later_if(cx: &mut Context<'_>, i: Directive<'_>, loc: Directive<'_>) {
    if ends_request(i) {
        return;
    }
    let own: Vec<Directive<'_>> = i
        .all_children()
        .filter(|c| !REWRITE_MODULE.contains(&c.name()))
        .collect();
    let Some(first) = own.first().copied() else {
        return;
    };
    let Some(later) = loc
        .children("if")
        .find(|l| i.is_before(*l) && !ends_request(*l))
    else {
        return;
    };
    let diag = cx.report(
        i.file(),
        i.span(),
        format!(
            "when both `{}` and the later `{}` hold, only the later block's configuration is used: `{}` here is ignored",
            condition(i),
            condition(later),
            first.name()
        ),
    );
    diag.label(
        later.file().clone(),
        later.span(),
        "its configuration wins when it also holds",
    );
    diag.help = Some(
        "combine the conditions into one variable (a `map`), so that one block decides".to_string(),
    );
}
