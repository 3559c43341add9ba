//! NGX020 include-not-found: an `include` of a plain file that cannot be read. nginx
//! refuses to start (`open() "…" failed`); a glob that matches nothing is fine.

use crate::rules::{Context, Rule};
use crate::stack::nginx::LoadProblemKind;

pub struct IncludeNotFound;

impl Rule for IncludeNotFound {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            for p in &inst.config.problems {
                if matches!(p.kind, LoadProblemKind::IncludeCycle { .. }) {
                    continue;
                }
                let src = inst.config.file(p.file).source.clone();
                let root = inst.config.root.clone();
                let d = cx.report(&src, p.span, p.message());
                if let (Some(root), LoadProblemKind::IncludeNotFound { .. }) = (root, &p.kind) {
                    d.help = Some(format!(
                        "absolute paths are read under {} (the server root); use --root to change it",
                        root.display()
                    ));
                }
            }
        }
    }
}
