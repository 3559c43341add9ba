//! NGX022 server-tokens-on: `server_tokens on` (or `build`) puts nginx's version in every
//! `Server` header and error page, telling scanners which CVEs to try.
//!
//! When nothing sets it in `http` (and not every server sets it), the default `on` is in
//! force: reported once per configuration at Info, at the `http` block, with a safe fix
//! that adds `server_tokens off;` as its first line. A fragment without `http` (a lone
//! `server { … }` file) is silent: the `http` it is included in cannot be seen.
//!
//! Read through the expanded configuration, so a map entry that happens to be named
//! `server_tokens` (in the `map` itself or in a file included inside it) is not mistaken for
//! the directive.

use crate::analysis::cursor::Directive;
use crate::diagnostic::Severity;
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
    group: Default,
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
        for http in cx.nginx_directives("http") {
            implicit_default(cx, http);
        }
    }
}

/// Reports the default `on` once for the configuration this `http` block belongs to.
fn implicit_default(cx: &mut Context<'_>, http: Directive<'_>) {
    // `http` is only a block in the main context; anything else named so is not it.
    if http.parent().is_some() || !http.has_block() {
        return;
    }
    if http.children("server_tokens").next().is_some() {
        return;
    }
    let inst = http.instance();
    // An include of `http` that read nothing (missing here, or a glob over files this
    // tree does not hold) may be where `server_tokens off` is: unsure, so silent.
    let unread = http.children("include").any(|i| {
        let o = inst.expanded.get(i.occ());
        inst.config
            .includes
            .get(o.file, o.node)
            .is_none_or(|targets| targets.is_empty())
    });
    if unread {
        return;
    }
    let servers: Vec<Directive<'_>> = http.children("server").collect();
    if !servers.is_empty()
        && servers
            .iter()
            .all(|s| s.children("server_tokens").next().is_some())
    {
        return;
    }
    let occ = inst.expanded.get(http.occ());
    let tree = &inst.config.file(occ.file).parsed.tree;
    let edit = edits::insert_at_block_start(http.file(), tree, occ.node, "server_tokens off;");
    let diag = cx.report(
        http.file(),
        http.span(),
        "`server_tokens` is not set, so its default `on` discloses the nginx version in every `Server` header and error page",
    );
    diag.severity = Severity::Info;
    diag.help = Some("add `server_tokens off;` to the `http` block".to_string());
    diag.with_fix(Fix::safe("Add `server_tokens off;` to `http`", vec![edit]));
}
