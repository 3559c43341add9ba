//! NGX026 invalid-argument-count: a directive with more or fewer arguments than every
//! module defining it there takes: nginx refuses to start with `invalid number of
//! arguments in "x" directive`.

use crate::analysis::catalogue::check::{findings, Kind};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct InvalidArgumentCount;
    code: NGX026,
    name: "invalid-argument-count",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: None,
    group: Default,
}

impl Rule for InvalidArgumentCount {
    fn check(&self, cx: &mut Context<'_>) {
        let found = findings(cx.stack, Kind::ArgCount, cx.host);
        for f in found.iter() {
            cx.report(&f.file, f.span, f.message.clone()).help = f.help.clone();
        }
    }
}
