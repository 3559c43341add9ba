//! NGX156 credentials-over-plain-http: `auth_basic` asks for a password on a plain-HTTP
//! server of an nginx that serves other sites over TLS.
//!
//! Basic authentication sends `user:password` base64-encoded in the `Authorization` header
//! of every request (RFC 7617 section 4: "the user's password ... is transmitted in
//! cleartext"); without TLS anyone on the path reads it. Whether a plain-HTTP server is
//! reached over the network in clear text is only known when this nginx terminates TLS
//! itself: a configuration with no TLS server at all is usually behind a proxy or load
//! balancer that does. So the rule warns only where the same nginx has a TLS server, and
//! otherwise says, as information, that it depends on what is in front; both for a server that listens on port 80 of a public address (or has no
//! `listen`: `*:80`; analysis::https_servers), serves content (a server that redirects or
//! refuses every request sends no challenge), and reaches the `auth_basic` (a location that
//! answers with `return` first, in the rewrite phase, never asks: tests/access_binary.rs
//! shows the redirect answered before `auth_basic`), nor where `deny` keeps the block to
//! some networks.

use crate::analysis::cursor::{named, Directive};
use crate::analysis::https_servers::{
    answer, is_http_server, names, public_port_80, tls_listen, Answer,
};
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct CredentialsOverPlainHttp;
    code: NGX156,
    name: "credentials-over-plain-http",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

impl Rule for CredentialsOverPlainHttp {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let mut auth = named(inst, "auth_basic").peekable();
            if auth.peek().is_none() {
                continue;
            }
            // Without a TLS server here, TLS may end at a proxy in front of this nginx,
            // which the files do not show: information that says so.
            let tls = named(inst, "server")
                .filter(|s| is_http_server(*s))
                .find_map(tls_listen);
            for d in auth {
                if d.arg(0).is_none_or(|a| a.is("off")) {
                    continue;
                }
                // The servers this `auth_basic` applies to: its own, or, at the http level,
                // every server that does not set its own.
                let servers: Vec<Directive<'_>> = match d.enclosing("server") {
                    Some(s) => vec![s],
                    None => named(inst, "server")
                        .filter(|s| is_http_server(*s) && s.children("auth_basic").next().is_none())
                        .collect(),
                };
                let Some(server) = servers.into_iter().find(|s| exposed(*s)) else {
                    continue;
                };
                // A block open only to some networks (`allow …; deny all;`) keeps the
                // password off the open Internet: the help's own alternative.
                if answers_first(d)
                    || d.parent()
                        .is_some_and(|b| b.effective("deny").next().is_some())
                {
                    continue;
                }
                let who = names(server)
                    .first()
                    .map(|(_, n)| format!("`{n}`"))
                    .unwrap_or_else(|| "this server".to_string());
                let message = match tls {
                    Some(_) => format!(
                        "`auth_basic` asks for a password over plain HTTP ({who}, port 80) while \
                         this nginx serves other sites over TLS: browsers send the user name and \
                         password, only base64-encoded, with every request"
                    ),
                    None => format!(
                        "`auth_basic` asks for a password over plain HTTP ({who}, port 80), and \
                         this nginx has no TLS server: unless a proxy in front of it terminates \
                         TLS, browsers send the user name and password, only base64-encoded, \
                         with every request"
                    ),
                };
                let f = cx.report(d.file(), d.span(), message);
                match tls {
                    Some(t) => {
                        f.label(t.file().clone(), t.span(), "this nginx terminates TLS here");
                    }
                    None => f.severity = Severity::Info,
                }
                f.help = Some(
                    "serve the site over TLS and redirect port 80 to it (`return 301 \
                     https://$host$request_uri;`), or keep it to a trusted network with \
                     `allow`/`deny`"
                        .into(),
                );
            }
        }
    }
}

/// A plain-HTTP server on a public port 80 that serves content.
fn exposed(server: Directive<'_>) -> bool {
    tls_listen(server).is_none() && public_port_80(server) && answer(server) == Answer::Content
}

/// Whether the block holding `auth` (or a block between it and its server) answers with
/// `return` in the rewrite phase, before the access phase would ask for a password.
fn answers_first(auth: Directive<'_>) -> bool {
    let mut at = auth.parent();
    while let Some(b) = at {
        if b.name() == "server" || b.name() == "http" {
            return false;
        }
        if b.children("return").next().is_some() {
            return true;
        }
        at = b.parent();
    }
    false
}
