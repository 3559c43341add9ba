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
//! Two `if`s whose conditions cannot both hold ([`if_condition::Condition::excludes`]) are
//! never both entered, and what a later block repeats word for word is not lost.
//!
//! An `if` on `$sent_http_…` is its own finding, in any block: it is evaluated before the
//! response has headers, so its answer is fixed (see [`decided_before_response`]).
//!
//! An `add_header` inside the `if` that drops the location's headers is NGX116's finding
//! (header-lost-by-inheritance judges every level alike), not reported here twice.
//!
//! An `if` whose block ends the request in the rewrite phase (`return`, `rewrite … last`,
//! `break`, `redirect`, `permanent`) is safe for the first and third; `if` in a `server` is
//! not a location and is never reported.

use crate::analysis::cursor::Directive;
use crate::analysis::if_condition;
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
            // A condition on a response header is decided before there is one: a finding
            // of its own, and the claims below would be about a block that never runs.
            if decided_before_response(cx, d) {
                continue;
            }
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
    let cond = if_condition::parse(i);
    // A `set` or `rewrite` in the first block may change what the later one tests.
    let changes = i.children("rewrite").next().is_some()
        || i.children("set").any(|d| {
            cond.as_ref().is_some_and(|c| {
                d.arg(0)
                    .is_some_and(|a| a.value().eq_ignore_ascii_case(&format!("${}", c.var)))
            })
        });
    // Conditions that cannot both hold (`~ \.css$` and `~ \.png$` on one name, two
    // different addresses) never meet.
    let apart = |l: Directive<'_>| {
        !changes
            && cond
                .as_ref()
                .zip(if_condition::parse(l))
                .is_some_and(|(a, b)| a.excludes(&b))
    };
    let Some(later) = loc
        .children("if")
        .find(|l| i.is_before(*l) && !ends_request(*l) && !apart(*l))
    else {
        return;
    };
    // What the later block repeats word for word is not lost when it wins.
    let words = |d: Directive<'_>| -> Vec<String> {
        std::iter::once(d.name().to_string())
            .chain(d.args().map(|a| a.value().into_owned()))
            .collect()
    };
    let repeated: Vec<Vec<String>> = later.all_children().map(words).collect();
    let own: Vec<Directive<'_>> = i
        .all_children()
        .filter(|c| !REWRITE_MODULE.contains(&c.name()) && !repeated.contains(&words(*c)))
        .collect();
    let Some(first) = own.first().copied() else {
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

/// Reports an `if` on `$sent_http_…` (or `$sent_trailer_…`): nginx evaluates it in the
/// rewrite phase, before any response header exists, so the variable is always empty
/// there and the condition always has the same answer (nginx 1.22.1 with the echo module:
/// `if ($sent_http_content_type)` never holds for a file that is sent as `text/plain`).
/// Returns whether it reported.
fn decided_before_response(cx: &mut Context<'_>, i: Directive<'_>) -> bool {
    let Some(cond) = if_condition::parse(i) else {
        return false;
    };
    if !(cond.var.starts_with("sent_http_") || cond.var.starts_with("sent_trailer_")) {
        return false;
    }
    let Some(holds) = cond.holds_when_empty() else {
        return false;
    };
    let outcome = if holds {
        "always holds: its block runs for every request"
    } else {
        "never holds: its block never runs"
    };
    let diag = cx.report(
        i.file(),
        i.span(),
        format!(
            "`{}` {outcome}. nginx tests it in the rewrite phase, before the response has any header, so `${}` is always empty there",
            condition(i),
            cond.var
        ),
    );
    diag.help = Some(
        "to act on a response header, feed it through a `map` to a directive that reads it when the response is sent (`add_header`, `expires`, `charset`, `access_log … if=`)"
            .to_string(),
    );
    true
}
