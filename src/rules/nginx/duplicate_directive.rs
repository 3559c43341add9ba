//! NGX023 duplicate-directive: a directive nginx accepts only once per block, written twice
//! in the same block (directly or through an `include`). nginx refuses to start:
//! `"root" directive is duplicate`. Which directives: those whose every handler, in the
//! catalogue, rejects a second value ("is duplicate").

use crate::analysis::catalogue::check::{findings, Kind};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct DuplicateDirective;
    code: NGX023,
    name: "duplicate-directive",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: Sometimes,
    group: Default,
}

impl Rule for DuplicateDirective {
    fn check(&self, cx: &mut Context<'_>) {
        let found = findings(cx.stack, Kind::Duplicate, cx.host);
        for f in found.iter() {
            let inst = &cx.stack.nginx[f.instance];
            let name = inst.view().name(f.occ);
            // Past the per-file cap a finding is only counted: no words, no fix.
            if cx.is_full(&f.file) {
                cx.report(&f.file, f.span, String::new());
                continue;
            }
            let occ = inst.expanded.get(f.occ);
            let tree = &inst.config.file(occ.file).parsed.tree;
            let fix = Fix::unsafe_(
                format!("Delete the second `{name}`"),
                vec![edits::delete_directive(&f.file, tree, f.node)],
            );
            let d = cx.report(
                &f.file,
                f.span,
                format!("\"{name}\" directive is duplicate"),
            );
            if let Some((file, span)) = f.earlier.clone() {
                d.label(file, span, "first set here");
            }
            d.with_fix(fix);
            d.help = Some(format!("nginx refuses to start; keep one `{name}`"));
        }
        for (file, n) in found.counted() {
            cx.count_more(file, *n);
        }
    }
}
