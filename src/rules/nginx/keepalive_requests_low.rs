//! NGX143 keepalive-requests-low: a `keepalive_requests` below 100 closes keep-alive
//! connections after a handful of requests, so clients (or nginx, towards an upstream)
//! reconnect — and renegotiate TLS — over and over.
//!
//! The threshold is nginx's own floor: 100 was the default until 1.19.10, which raised it to
//! 1000 (changes.xml; HTTP/2 connections count every stream as a request, and a page load
//! easily makes a hundred). A value below what nginx ever defaulted to is a deliberate
//! limit that costs a new connection every few requests.

use crate::rules::{Context, Rule};

declare_rule! {
    pub struct KeepaliveRequestsLow;
    code: NGX143,
    name: "keepalive-requests-low",
    lang: nginx,
    category: Performance,
    severity: Info,
    fix: None,
}

/// nginx's default before 1.19.10; below it a limit is tighter than nginx ever shipped.
const FLOOR: u64 = 100;

impl Rule for KeepaliveRequestsLow {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("keepalive_requests") {
            let Some(arg) = d.arg(0) else {
                continue;
            };
            // ngx_conf_set_num_slot: a plain decimal number; anything else nginx refuses
            // (NGX026 and friends say so).
            let Ok(n) = arg.value().parse::<u64>() else {
                continue;
            };
            if n >= FLOOR {
                continue;
            }
            let in_upstream = d.parent().is_some_and(|p| p.name() == "upstream");
            // With keep-alive switched off (`keepalive_timeout 0`) the count never matters.
            let timeout = if in_upstream {
                d.siblings("keepalive_timeout").last()
            } else {
                d.inherited("keepalive_timeout").last()
            };
            if timeout.and_then(|t| t.arg(0)).is_some_and(|a| a.is("0")) {
                continue;
            }
            let (who, whom) = if in_upstream {
                ("nginx", "this upstream's servers")
            } else {
                ("clients", "nginx")
            };
            let found = cx.report(
                d.file(),
                arg.raw(),
                format!(
                    "`keepalive_requests {n}` closes each keep-alive connection after {n} request{}: {who} reconnect to {whom} every {n} requests",
                    if n == 1 { "" } else { "s" }
                ),
            );
            found.help = Some(
                "remove it to get nginx's default of 1000 (since 1.19.10; 100 before), or set at least 100".into(),
            );
        }
    }
}
