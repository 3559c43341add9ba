//! NGX110 allow-without-deny: a block whose access rules are only `allow`s. The access
//! module lets through every client no rule matches, so `allow 10.0.0.0/8;` alone
//! restricts nothing — and, since a block that sets any `allow`/`deny` replaces the list
//! it would inherit, a `deny all` in the enclosing server does not help either.

use crate::analysis::cursor::Directive;
use crate::fix::Fix;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct AllowWithoutDeny;
    code: NGX110,
    name: "allow-without-deny",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

impl Rule for AllowWithoutDeny {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("allow") {
            // One finding per block, at its first `allow`: the block's list is what nginx
            // uses (the access module's merge takes the enclosing list only when a block
            // sets no rule at all), so that list alone decides.
            let allows: Vec<Directive<'_>> = d.siblings("allow").collect();
            if allows.first() != Some(&d) {
                continue;
            }
            // A file of bare `allow` lines is a list meant to be included into a block we
            // cannot see, which may go on with `deny all`.
            if d.parent().is_none() {
                continue;
            }
            if d.siblings("deny").next().is_some() {
                continue;
            }
            // `allow all` says in so many words that everyone may pass.
            if allows.iter().any(|a| a.arg(0).is_some_and(|w| w.is("all"))) {
                continue;
            }
            if satisfied_by_auth(d) {
                continue;
            }
            let Some(arg) = d.arg(0) else { continue };
            let last = *allows.last().expect("d is one of them");
            let what = if allows.len() == 1 {
                format!("`allow {}`", arg.value())
            } else {
                format!("these {} `allow` rules", allows.len())
            };
            let inherited_deny = d
                .parent()
                .is_some_and(|p| p.inherited("deny").next().is_some());
            let verb = if allows.len() == 1 {
                "restricts"
            } else {
                "restrict"
            };
            let mut message = format!(
                "{what} {verb} nothing: no `deny` is in this block, and the access module lets through every client no rule matches"
            );
            if inherited_deny {
                message.push_str(" (the enclosing block's `deny` is not inherited once this block sets a rule of its own)");
            }
            let fix = Fix::unsafe_(
                "Add `deny all;` after the last `allow`",
                vec![last.insert_after("deny all;")],
            );
            let diag = cx.report(d.file(), arg.raw(), message);
            for a in allows.iter().skip(1) {
                if let Some(w) = a.arg(0) {
                    diag.label(a.file().clone(), w.raw(), "also only allows");
                }
            }
            diag.help = Some(
                "end the list with `deny all;` so that only the allowed addresses get through"
                    .to_string(),
            );
            diag.with_fix(fix);
        }
    }
}

/// Whether `satisfy any` is in force together with an authentication check, so that a
/// client no `allow` matches still has to authenticate: the access phase then passes a
/// request when any one module allows it, and the auth module refuses the rest.
fn satisfied_by_auth(allow: Directive<'_>) -> bool {
    let Some(block) = allow.parent() else {
        return false;
    };
    let last_arg = |name: &str| {
        block
            .effective(name)
            .last()
            .and_then(|d| d.arg(0))
            .map(|w| w.value().to_ascii_lowercase())
    };
    if last_arg("satisfy").as_deref() != Some("any") {
        return false;
    }
    crate::analysis::access::AUTH
        .iter()
        .any(|name| last_arg(name).is_some_and(|v| v != "off"))
}
