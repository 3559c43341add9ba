//! NGX025 directive-not-allowed-here: a directive written in a block where no module allows
//! it (`proxy_pass` in a `server`, `worker_processes` in `http`): nginx refuses to start
//! with `"x" directive is not allowed here`. Reported only where the block is certain.

use crate::analysis::catalogue::check::{findings, Kind};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct DirectiveNotAllowed;
    code: NGX025,
    name: "directive-not-allowed-here",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: None,
}

impl Rule for DirectiveNotAllowed {
    fn check(&self, cx: &mut Context<'_>) {
        for f in findings(cx.stack, Kind::NotAllowed) {
            let d = cx.report(&f.file, f.span, f.message);
            d.help = f.help;
        }
    }
}
