//! NGX021 include-cycle: files that include each other. nginx has no guard and would
//! recurse until it runs out of resources; lemplint reads each cycle once.

use crate::rules::{Context, Rule};
use crate::stack::nginx::LoadProblemKind;

declare_rule! {
    pub struct IncludeCycle;
    code: NGX021,
    name: "include-cycle",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: None,
    group: Default,
    input_error: true,
}

impl Rule for IncludeCycle {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            for p in &inst.config.problems {
                if let LoadProblemKind::IncludeCycle { .. } = p.kind {
                    let src = inst.config.file(p.file).source.clone();
                    cx.report(&src, p.span, p.message()).help =
                        Some("remove one of the includes; nginx cannot load a cycle".into());
                }
            }
        }
    }
}
