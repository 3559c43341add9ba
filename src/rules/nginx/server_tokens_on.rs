//! NGX022 server-tokens-on: `server_tokens on` (or `build`) puts nginx's version in every
//! `Server` header and error page, telling scanners which CVEs to try.
//!
//! Read through the expanded configuration, so a map entry that happens to be named
//! `server_tokens` (in the `map` itself or in a file included inside it) is not mistaken for
//! the directive.

use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use std::collections::HashSet;

declare_rule! {
    pub struct ServerTokensOn;
    code: NGX022,
    name: "server-tokens-on",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Always,
}

impl Rule for ServerTokensOn {
    fn check(&self, cx: &mut Context<'_>) {
        // A file read by several configurations, or included in several places, is
        // reported once per directive.
        let mut seen = HashSet::new();
        for inst in &cx.stack.nginx {
            let view = inst.view();
            for occ in view.named("server_tokens") {
                let o = inst.expanded.get(occ);
                let file = inst.config.file(o.file);
                if !seen.insert((file.source.path.clone(), o.node)) {
                    continue;
                }
                let src = &file.source;
                let [arg] = file.parsed.tree.args(view.directive(occ)) else {
                    continue;
                };
                let value = arg.text(&src.text).to_ascii_lowercase();
                if value != "on" && value != "build" {
                    continue;
                }
                let fix = Fix::safe(
                    "Set `server_tokens off`",
                    vec![edits::replace_arg(src, arg, "off")],
                );
                cx.report(
                    src,
                    arg.raw(),
                    format!("`server_tokens {value}` discloses the nginx version"),
                )
                .with_fix(fix);
            }
        }
    }
}
