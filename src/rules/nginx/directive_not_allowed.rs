//! NGX025 directive-not-allowed-here: a directive written in a block where no module allows
//! it (`proxy_pass` in a `server`, `worker_processes` in `http`): nginx refuses to start
//! with `"x" directive is not allowed here`. Reported only where the block is certain.

use crate::analysis::catalogue::check::{findings, Kind};
use crate::analysis::cursor::Directive;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct DirectiveNotAllowed;
    code: NGX025,
    name: "directive-not-allowed-here",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: None,
    group: Default,
}

impl Rule for DirectiveNotAllowed {
    fn check(&self, cx: &mut Context<'_>) {
        let found = findings(cx.stack, Kind::NotAllowed, cx.host);
        for f in found.iter() {
            let here = Directive::new(&cx.stack.nginx[f.instance], f.occ);
            let d = cx.report(&f.file, f.span, f.message.clone());
            d.help = f.help.clone();
            // The block it is in, which an include may have put in another file: that is
            // where the mistake usually is (a snippet meant for `http` included in a server).
            if let Some(block) = here.parent() {
                let path = here.block_path().join(" > ");
                let through = if std::sync::Arc::ptr_eq(block.file(), here.file()) {
                    String::new()
                } else {
                    " (through an include)".to_string()
                };
                d.label(
                    block.file().clone(),
                    block.span(),
                    format!("in `{path}`{through}"),
                );
            }
        }
    }
}
