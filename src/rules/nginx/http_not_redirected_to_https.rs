//! NGX118 http-not-redirected-to-https: a plain-HTTP server on port 80 answers for a name a
//! TLS server of the same configuration also serves, and serves content instead of
//! redirecting to `https://`. Visitors who type the name, or follow an old `http://` link,
//! stay on the unencrypted site (and never receive the TLS server's HSTS).
//!
//! Only public port-80 listeners are judged (not `127.0.0.1`, `localhost`, a unix socket
//! or another port, which are usually a proxy's backend), and only names the two servers
//! share. A server that redirects or refuses everything, an ACME challenge location aside,
//! is fine (analysis::https_servers).

use crate::analysis::cursor::Directive;
use crate::analysis::https_servers::{
    answer, is_http_server, names, public_port_80, tls_listen, Answer,
};
use crate::fxhash::FxHashMap;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct HttpNotRedirectedToHttps;
    code: NGX118,
    name: "http-not-redirected-to-https",
    lang: nginx,
    category: Security,
    severity: Info,
    fix: None,
    group: Hardening,
}

impl Rule for HttpNotRedirectedToHttps {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            // Each http server, and whether it listens with TLS (asked once).
            let servers: Vec<(Directive<'_>, bool)> =
                crate::analysis::cursor::named(inst, "server")
                    .filter(|s| is_http_server(*s))
                    .map(|s| (s, tls_listen(s).is_some()))
                    .collect();
            // Names served over TLS, with the server_name that says so.
            let mut tls: FxHashMap<String, Directive<'_>> = FxHashMap::default();
            for &(s, _) in servers.iter().filter(|(_, t)| *t) {
                for (sn, name) in names(s) {
                    tls.entry(name).or_insert(sn);
                }
            }
            if tls.is_empty() {
                continue;
            }
            for (s, with_tls) in servers {
                if with_tls || !public_port_80(s) {
                    continue;
                }
                // A name without a dot (`localhost`, `symfony2`, a container's name) is an
                // internal one: nobody types it into a browser from outside.
                let shared: Vec<(Directive<'_>, String, Directive<'_>)> = names(s)
                    .into_iter()
                    .filter(|(_, n)| n.contains('.') && !n.starts_with("localhost"))
                    .filter_map(|(sn, n)| tls.get(&n).map(|t| (sn, n, *t)))
                    .collect();
                let Some((sn, first, tls_sn)) = shared.first().cloned() else {
                    continue;
                };
                if answer(s) != Answer::Content {
                    continue;
                }
                let list: Vec<&str> = shared.iter().map(|(_, n, _)| n.as_str()).collect();
                let at = s.children("listen").next().unwrap_or(sn);
                let f = cx.report(
                    at.file(),
                    at.span(),
                    format!(
                        "this plain-HTTP server serves `{}` instead of redirecting to the TLS server for the same name",
                        list.join("`, `")
                    ),
                );
                f.label(
                    tls_sn.file().clone(),
                    tls_sn.span(),
                    format!("`{first}` is served over TLS here"),
                );
                f.help = Some(
                    "answer every request with `return 301 https://$host$request_uri;` (keep a \
                     `location /.well-known/acme-challenge/` if certificates are issued over HTTP)"
                        .into(),
                );
            }
        }
    }
}
