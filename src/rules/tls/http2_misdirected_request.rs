//! NGX153 http2-misdirected-request: a TLS default server that refuses unknown names with
//! `ssl_reject_handshake on`, on an HTTP/2 listener, but answers requests that still reach
//! it with content.
//!
//! `ssl_reject_handshake` only sees the TLS handshake's SNI. Over HTTP/2 a browser reuses a
//! connection opened for one name for other names the certificate also covers (RFC 9113
//! §9.1.1); nginx then picks the server by the request's `:authority`, and a name no server
//! has lands on the default server — the one meant to refuse it — which serves its `root`.
//! RFC 9113 §9.1.2 has the answer for it: 421 Misdirected Request, which makes the client
//! open a new connection for that name. Reported only when the default server does not
//! already answer every request with a `return`.

use crate::analysis::cursor::Directive;
use crate::analysis::https_servers::{answer, is_http_server, rejects_handshakes, Answer};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct Http2MisdirectedRequest;
    code: NGX153,
    name: "http2-misdirected-request",
    lang: nginx,
    category: Security,
    severity: Info,
    fix: None,
    group: Default,
}

impl Rule for Http2MisdirectedRequest {
    fn check(&self, cx: &mut Context<'_>) {
        let servers: Vec<Directive<'_>> = cx.nginx_directives("server").collect();
        for server in servers {
            if !is_http_server(server) || !rejects_handshakes(server) {
                continue;
            }
            let http2_on = server
                .effective("http2")
                .last()
                .is_some_and(|d| d.arg(0).is_some_and(|a| a.is("on")));
            // The TLS listener this server is the default of, with HTTP/2 on it.
            let Some(listen) = server.children("listen").find(|l| {
                let params: Vec<_> = l.args().skip(1).collect();
                let default = params
                    .iter()
                    .any(|a| a.is("default_server") || a.is("default"));
                let ssl = params.iter().any(|a| a.is("ssl"));
                let h2 = http2_on || params.iter().any(|a| a.is("http2"));
                default && ssl && h2
            }) else {
                continue;
            };
            if answer(server) != Answer::Content {
                continue;
            }
            let f = cx.report(
                listen.file(),
                listen.span(),
                "this HTTP/2 default server rejects unknown names at the handshake, but requests for them can still reach it over a reused connection and are served",
            );
            f.help = Some(
                "HTTP/2 clients reuse a connection for every name its certificate covers (RFC 9113 §9.1.1), and nginx routes a name no server has to this default server; add `location / { return 421; }` so they retry on a connection of their own (RFC 9113 §9.1.2)"
                    .into(),
            );
        }
    }
}
