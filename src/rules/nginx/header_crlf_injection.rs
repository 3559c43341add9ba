//! NGX040 header-crlf-injection: a response header whose value can hold a line break the
//! client chose — `add_header X $uri`, `return 302 https://x$uri`, a redirecting `rewrite`
//! with a named capture — lets a request such as `/%0d%0aSet-Cookie:%20x=y` write headers of
//! its own (response splitting).
//!
//! Whether a value can hold one is the variables analysis' answer (analysis::variables):
//! `$uri` and its captures are percent-decoded, `$1` is URL-escaped where the rewrite module
//! quotes it, a `(.*)` capture holds no LF… each checked against nginx by
//! tests/variables_binary.rs. The finding names the chain from the value to the client.

use crate::analysis::variables::quick::Quick;
use crate::analysis::variables::{Danger, Provenance};
use crate::rules::{Context, Rule};
use crate::stack::expanded::OccId;
use std::collections::HashSet;

declare_rule! {
    pub struct HeaderCrlfInjection;
    code: NGX040,
    name: "header-crlf-injection",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
}

/// `return` codes whose text is the `Location` header (ngx_http_rewrite_return).
const REDIRECTS: [&str; 5] = ["301", "302", "303", "307", "308"];

impl Rule for HeaderCrlfInjection {
    fn check(&self, cx: &mut Context<'_>) {
        // A file read by several configurations, or included in several places, is
        // reported once per argument.
        let mut seen = HashSet::new();
        for inst in &cx.stack.nginx {
            let view = inst.view();
            // (directive, argument, what the header is); only arguments with a `$` are
            // worth a question, and the index is built only when one is asked.
            let mut asked: Vec<(OccId, usize, &str)> = Vec::new();
            for occ in view.named("add_header") {
                asked.push((occ, 1, "this header"));
            }
            for occ in view.named("return") {
                let redirect = view.arg(occ, 2).is_none()
                    && view
                        .arg(occ, 0)
                        .is_some_and(|c| REDIRECTS.contains(&c.as_ref()));
                if redirect {
                    asked.push((occ, 1, "the `Location` header"));
                }
            }
            for occ in view.named("rewrite") {
                asked.push((occ, 1, "the `Location` header"));
            }
            asked.retain(|(occ, i, _)| view.arg(*occ, *i).is_some_and(|a| a.contains('$')));
            if asked.is_empty() {
                continue;
            }
            // Most values hold only variables no client can put a line break into: those
            // need no provenance at all.
            let quick = Quick::new(&view);
            asked.retain(|&(occ, i, _)| {
                let o = inst.expanded.get(occ);
                let file = inst.config.file(o.file);
                let args = file.parsed.tree.args(view.directive(occ));
                let src = &file.source.text;
                // nginx's own test (ngx_http_rewrite): a replacement starting with a scheme
                // or `$scheme`, or the `redirect`/`permanent` flag, redirects; there it
                // URL-escapes `$1`…`$9`.
                let escaped = view.is(occ, "rewrite")
                    && (args
                        .get(2)
                        .is_some_and(|f| f.is(src, "redirect") || f.is(src, "permanent"))
                        || args.get(1).is_some_and(|r| {
                            let v = r.value(src);
                            v.starts_with(b"http://")
                                || v.starts_with(b"https://")
                                || v.starts_with(b"$scheme")
                        }));
                args.get(i)
                    .is_some_and(|w| !quick.certainly_without_crlf(w, src, escaped))
            });
            if asked.is_empty() {
                continue;
            }
            let p = Provenance::new(inst.view());
            for (occ, index, what) in asked {
                if view.is(occ, "rewrite") && !p.is_redirect(occ) {
                    continue;
                }
                let o = inst.expanded.get(occ);
                let file = inst.config.file(o.file);
                let Some(word) = file.parsed.tree.args(view.directive(occ)).get(index) else {
                    continue;
                };
                if !seen.insert((file.source.path.clone(), o.node, index)) {
                    continue;
                }
                let answer = p.argument(occ, index);
                let Some(chain) = answer.why(Danger::CrLf) else {
                    continue;
                };
                let src = file.source.clone();
                // Each link of the chain is labelled where it is written, but its end (what
                // the client controls and why), which the help says; links in other files
                // are named in the help too.
                let Some((leaf, links)) = chain.split_last() else {
                    continue;
                };
                let mut help = vec![leaf.note.clone()];
                let mut labels = Vec::new();
                let lines = answer.explain(Danger::CrLf);
                for (step, line) in links.iter().zip(&lines) {
                    if !std::sync::Arc::ptr_eq(&step.file, &src) {
                        help.push(line.clone());
                    } else if step.span != word.raw() {
                        labels.push((step.span, step.note.clone()));
                    }
                }
                help.push(
                    "use a variable nginx keeps encoded (`$request_uri`; `$1` in a \
                     redirecting `rewrite`), or a capture whose group cannot match a line break"
                        .into(),
                );
                let d = cx.report(
                    &src,
                    word.raw(),
                    format!("a client-chosen line break can reach {what}"),
                );
                for (span, note) in labels {
                    d.label(src.clone(), span, note);
                }
                let help = help.join("\n");
                d.help = Some(help);
            }
        }
    }
}
