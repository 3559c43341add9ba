//! NGX022 server-tokens-on: `server_tokens on` (or `build`) puts nginx's version in every
//! `Server` header and error page, telling scanners which CVEs to try.

use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};

pub struct ServerTokensOn;

impl Rule for ServerTokensOn {
    fn check(&self, cx: &mut Context<'_>) {
        for file in cx.stack.nginx_files() {
            let src = &file.source;
            let tree = &file.parsed.tree;
            for (_, d) in tree.directives_named(&src.text, "server_tokens") {
                let [arg] = tree.args(d) else { continue };
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
