//! NGX040 header-crlf-injection: a response header whose value can hold a line break the
//! client chose — `add_header X $uri`, `return 302 https://x$uri`, a redirecting `rewrite`
//! with a named capture — lets a request such as `/%0d%0aSet-Cookie:%20x=y` write headers of
//! its own (response splitting).
//!
//! Whether a value can hold one is the variables analysis' answer (analysis::variables):
//! `$uri` and its captures are percent-decoded, `$1` is URL-escaped where the rewrite module
//! quotes it, a `(.*)` capture holds no LF… each checked against nginx by
//! tests/variables_binary.rs. The finding names the chain from the value to the client.
//!
//! Toward the upstream the same holds (request splitting): nginx writes a `proxy_set_header`
//! value and a `proxy_pass` URI built from variables into the HTTP/1.x request as they are
//! (ngx_http_proxy_create_request copies `ctx->vars.uri` and the header scripts' output
//! without escaping), so a decoded `%0a` there starts a header — or a whole request — of
//! the client's. `fastcgi_param`, `uwsgi_param`, `scgi_param` and `grpc_set_header` are
//! left out: FastCGI, uwsgi and SCGI frame each value by its length and gRPC is HTTP/2,
//! where a line break splits nothing.

use crate::analysis::access;
use crate::analysis::cursor::{self, Directive};
use crate::analysis::rewrite_redirect::redirects;
use crate::analysis::variables::quick::Quick;
use crate::analysis::variables::Danger;
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct HeaderCrlfInjection;
    code: NGX040,
    name: "header-crlf-injection",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
}

/// `return` codes whose text is the `Location` header (ngx_http_rewrite_return).
const REDIRECTS: [&str; 5] = ["301", "302", "303", "307", "308"];

/// What a value is written into.
#[derive(Clone, Copy)]
enum Into {
    /// A response header (the text names it).
    Response(&'static str),
    /// A request header sent upstream: the directive's first argument names it.
    UpstreamHeader,
    /// The request line sent upstream.
    UpstreamLine,
}

impl Into {
    fn what(self, d: Directive<'_>) -> String {
        match self {
            Into::Response(w) => w.to_string(),
            Into::UpstreamHeader => {
                let h = d.arg(0).map(|h| h.value().into_owned()).unwrap_or_default();
                format!("the `{h}` header sent upstream")
            }
            Into::UpstreamLine => "the request line sent upstream".into(),
        }
    }
}

impl Rule for HeaderCrlfInjection {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            // (directive, argument, what it is written into); only arguments with a `$`
            // are worth a question (kept as they are found: most values have none), and the
            // index is built only when one is asked.
            let mut asked: Vec<(Directive<'_>, usize, Into)> = Vec::new();
            let mut ask = |d, i, into| {
                if Directive::arg(d, i)
                    .is_some_and(|a| memchr::memchr(b'$', a.raw_bytes()).is_some())
                {
                    asked.push((d, i, into));
                }
            };
            for d in cursor::named(inst, "add_header") {
                ask(d, 1, Into::Response("this header"));
            }
            for d in cursor::named(inst, "return") {
                let redirect = d.arg(2).is_none()
                    && d.arg(0)
                        .is_some_and(|c| REDIRECTS.contains(&c.value().as_ref()));
                if redirect {
                    ask(d, 1, Into::Response("the `Location` header"));
                }
            }
            for d in cursor::named(inst, "rewrite") {
                ask(d, 1, Into::Response("the `Location` header"));
            }
            for d in cursor::named(inst, "proxy_set_header") {
                if d.arg(0).is_some() {
                    ask(d, 1, Into::UpstreamHeader);
                }
            }
            for d in cursor::named(inst, "proxy_pass") {
                ask(d, 0, Into::UpstreamLine);
            }
            if asked.is_empty() {
                continue;
            }
            let view = inst.view();
            // Most values hold only variables no client can put a line break into: those
            // need no provenance at all.
            let quick = Quick::new(&view);
            // The same value is written in many vhosts (`https://$host$request_uri`): its
            // verdict depends only on its text (raw, quotes and all) and on whether
            // captures are escaped, so it is worked out once.
            let mut verdicts: crate::fxhash::FxHashMap<(&[u8], bool), bool> = Default::default();
            asked.retain(|(d, i, _)| {
                let src = &d.file().text;
                // A redirecting rewrite URL-escapes `$1`…`$9` (ngx_http_rewrite).
                let escaped = d.name() == "rewrite" && redirects(*d);
                d.arg(*i).is_some_and(|w| {
                    !*verdicts.entry((w.raw_bytes(), escaped)).or_insert_with(|| {
                        quick.certainly_without_crlf(&w.tree_word(), src, escaped)
                    })
                })
            });
            if asked.is_empty() {
                continue;
            }
            let p = cx.provenance(inst);
            let mut found: Vec<Found<'_>> = Vec::new();
            for (d, index, into) in asked {
                if d.name() == "rewrite" && !p.is_redirect(d.occ()) {
                    continue;
                }
                let Some(word) = d.arg(index) else {
                    continue;
                };
                let src = d.file().clone();
                // A file read by several configurations, or included in several places, is
                // asked about once per argument.
                if !cx.claim(&src, word.raw()) {
                    continue;
                }
                let answer = p.argument(d.occ(), index);
                let Some(chain) = answer.why(Danger::CrLf) else {
                    continue;
                };
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
                help.push(match into {
                    Into::Response(_) => "use a variable nginx keeps encoded (`$request_uri`; \
                         `$1` in a redirecting `rewrite`), or a capture whose group cannot \
                         match a line break"
                        .into(),
                    _ => "use a variable nginx keeps encoded (`$request_uri`), a capture whose \
                          group cannot match a line break, or `proxy_pass` without a URI, \
                          which sends the request's own URI escaped"
                        .to_string(),
                });
                found.push(Found {
                    d,
                    span: word.raw(),
                    src,
                    message: format!("a client-chosen line break can reach {}", into.what(d)),
                    labels,
                    help: help.join("\n"),
                });
            }
            for f in &found {
                let front = answered_in_front(f.d, &found);
                let diag = cx.report(&f.src, f.span, f.message.clone());
                for (span, note) in &f.labels {
                    diag.label(f.src.clone(), *span, note.clone());
                }
                diag.help = Some(f.help.clone());
                if let Some((front, socket)) = front {
                    let fr = &found[front];
                    diag.severity = Severity::Info;
                    diag.message = format!(
                        "{}, but its requests come from the server that proxies to \
                         `unix:{socket}` (the only address this one listens on), whose identical \
                         `{} {}` answers them first and is reported there; this one matters only \
                         if another local process connects to the socket",
                        f.message.replacen("can reach", "could reach", 1),
                        fr.d.name(),
                        fr.d.arg(0)
                            .map(|a| a.value().into_owned())
                            .unwrap_or_default(),
                    );
                    diag.label(
                        fr.src.clone(),
                        fr.span,
                        "the front server answers first here",
                    );
                }
            }
        }
    }
}

/// One finding, kept until every finding of the configuration is known (a backend's is told
/// in the light of its front server's).
struct Found<'a> {
    d: Directive<'a>,
    span: crate::source::Span,
    src: crate::source::Shared,
    message: String,
    labels: Vec<(crate::source::Span, String)>,
    help: String,
}

/// The finding, among `found`, that answers every request `d` would see before it reaches
/// `d`: `d` is in a server that listens only on unix sockets, and another server of the same
/// configuration that proxies to one of them has, at its own server level (its server
/// rewrite phase, before any location or `proxy_pass`), the same directive with the same
/// pattern, itself reported. The backend's alert then adds nothing the front's does not say;
/// it is told as info, not lost (amimoto's `wp-singlesite`, behind `default.conf`).
fn answered_in_front(d: Directive<'_>, found: &[Found<'_>]) -> Option<(usize, String)> {
    let server = d.enclosing("server")?;
    let sockets = access::unix_only(server)?;
    let fronts = access::proxied_from(server, &sockets);
    let pattern = d.arg(0)?.value();
    let at = found.iter().position(|f| {
        f.d.name() == d.name()
            && f.d.arg(0).is_some_and(|a| a.value() == pattern)
            && f.d.parent().is_some_and(|p| fronts.contains(&p))
    })?;
    Some((at, sockets.join("`, `unix:")))
}
