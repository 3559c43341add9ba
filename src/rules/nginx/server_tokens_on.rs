//! NGX022 server-tokens-on: `server_tokens on` (or `build`) puts nginx's version in every
//! `Server` header and error page, telling scanners which CVEs to try.
//!
//! Read through the expanded configuration, so a map entry that happens to be named
//! `server_tokens` (in the `map` itself or in a file included inside it) is not mistaken for
//! the directive.

use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};

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
        for d in cx.nginx_directives("server_tokens") {
            let mut args = d.args();
            let (Some(arg), None) = (args.next(), args.next()) else {
                continue;
            };
            let value = arg.value().to_ascii_lowercase();
            if value != "on" && value != "build" {
                continue;
            }
            let fix = Fix::safe(
                "Set `server_tokens off`",
                vec![edits::replace_arg(d.file(), &arg.tree_word(), "off")],
            );
            cx.report(
                d.file(),
                arg.raw(),
                format!("`server_tokens {value}` discloses the nginx version"),
            )
            .with_fix(fix);
        }
    }
}
