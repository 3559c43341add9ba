//! NGX120 content-type-via-add-header: `add_header Content-Type …` does not replace the
//! `Content-Type` nginx sends (from `default_type`, `types` or the upstream): the headers
//! filter appends a second one, and clients pick either.

use crate::rules::{Context, Rule};

declare_rule! {
    pub struct ContentTypeViaAddHeader;
    code: NGX120,
    name: "content-type-via-add-header",
    lang: nginx,
    category: Reliability,
    severity: Info,
    fix: None,
    group: Default,
}

impl Rule for ContentTypeViaAddHeader {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("add_header") {
            let Some(name) = d.arg(0) else { continue };
            if !name.is("Content-Type") {
                continue;
            }
            // `default_type ""` leaves nginx's own Content-Type empty, and an empty one is
            // not sent: then the added header is the only one (unless `types` maps the
            // file's extension, which this cannot see; silence is the safe side).
            let own_empty = d.parent().is_some_and(|b| {
                b.effective("default_type")
                    .last()
                    .and_then(|t| t.arg(0))
                    .is_some_and(|t| t.bytes().is_empty())
            });
            // A hidden upstream Content-Type is not copied to the response, so the added
            // one stands alone there.
            let hidden = d.parent().is_some_and(|b| {
                [
                    "proxy_hide_header",
                    "fastcgi_hide_header",
                    "uwsgi_hide_header",
                    "scgi_hide_header",
                    "grpc_hide_header",
                ]
                .iter()
                .any(|h| {
                    b.effective(h)
                        .any(|x| x.arg(0).is_some_and(|a| a.is("Content-Type")))
                })
            });
            // A 204 response carries no Content-Type of nginx's own (the header filter
            // clears it), so a block that answers `return 204` sends the added one alone:
            // the usual CORS preflight.
            let no_content = d
                .siblings("return")
                .any(|r| r.arg(0).is_some_and(|c| c.is("204")));
            if own_empty || hidden || no_content {
                continue;
            }
            let value = d.arg(1).map(|v| v.value().into_owned()).unwrap_or_default();
            let diag = cx.report(
                d.file(),
                name.raw(),
                "`add_header Content-Type` adds a second Content-Type header next to the one nginx sets from `default_type`/`types` (or the upstream's); clients may use either",
            );
            diag.help = Some(format!(
                "set the type with `default_type {value};` (and `types {{ }}` to stop the extension mapping), or replace it with headers-more: `more_set_headers 'Content-Type: {value}';`"
            ));
        }
    }
}
