//! NGX027 invalid-flag-value: an on/off directive given another value (`gzip yes`,
//! `sendfile true`): nginx refuses to start with `invalid value "yes" in "gzip" directive,
//! it must be "on" or "off"`.

use crate::analysis::catalogue::check::{findings, Kind};
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct InvalidFlagValue;
    code: NGX027,
    name: "invalid-flag-value",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: Sometimes,
    group: Default,
}

impl Rule for InvalidFlagValue {
    fn check(&self, cx: &mut Context<'_>) {
        let found = findings(cx.stack, Kind::FlagValue, cx.host);
        for f in found.iter() {
            let d = cx.report(&f.file, f.span, f.message.clone());
            if let Some(flag) = f.suggestion {
                // Unsafe: `yes` most likely means `on`, but the author should confirm.
                d.with_fix(Fix::unsafe_(
                    format!("Write `{flag}`"),
                    vec![Edit::replace(&f.file, f.span, flag)],
                ));
            }
        }
    }
}
