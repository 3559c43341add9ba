//! SYS000 syntax-error: lines `sysctl --system` cannot read.

use crate::rules::{Context, Rule};

declare_rule! {
    pub struct SyntaxError;
    code: SYS000,
    name: "sysctl-syntax-error",
    lang: sysctl,
    category: Correctness,
    severity: Error,
    fix: None,
    group: Default,
    input_error: true,
}

impl Rule for SyntaxError {
    fn check(&self, cx: &mut Context<'_>) {
        for f in &cx.stack.sysctl.files {
            for e in &f.parsed.errors {
                cx.report(&f.source, e.span, e.message.clone());
            }
        }
    }
}
