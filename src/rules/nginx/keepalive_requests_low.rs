//! NGX143 keepalive-requests-low: a client-facing `keepalive_requests` of 100 or less
//! closes keep-alive connections after a handful of requests, so clients reconnect — and
//! renegotiate TLS — over and over.
//!
//! 100 was nginx's default until 1.19.10, which raised it to 1000 (changes.xml): with HTTP/2
//! every stream counts as a request, and a page load easily makes a hundred. A value at or
//! below the old default, written out, keeps that cost on every HTTP/2 client.
//!
//! In a `location` the value applies to HTTP/1.x requests that end there (HTTP/2 reads the
//! server's), and the message says so; in an exact-match location (`location =
//! /generate_204`) it is one endpoint's deliberate choice (a connectivity probe whose
//! clients should not linger) and is left alone.
//!
//! An `upstream`'s `keepalive_requests` is left alone: recycling backend connections after
//! a few requests is a balancing choice (spreading load over backends that come and go),
//! and no client waits on a handshake for it.

use crate::rules::{Context, Rule};

declare_rule! {
    pub struct KeepaliveRequestsLow;
    code: NGX143,
    name: "keepalive-requests-low",
    lang: nginx,
    category: Performance,
    severity: Info,
    fix: None,
    group: Default,
}

/// nginx's default before 1.19.10: a limit at or below it makes HTTP/2 clients reconnect
/// every page or two.
const OLD_DEFAULT: u64 = 100;

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
            if n > OLD_DEFAULT || d.parent().is_some_and(|p| p.name() == "upstream") {
                continue;
            }
            let location = d.parent().filter(|p| p.name() == "location");
            if location.is_some_and(|l| {
                l.arg(0)
                    .is_some_and(|m| m.value() == "=" || m.value().starts_with('='))
            }) {
                continue;
            }
            // With keep-alive switched off (`keepalive_timeout 0`) the count never matters.
            let timeout = d.inherited("keepalive_timeout").last();
            if timeout.and_then(|t| t.arg(0)).is_some_and(|a| a.is("0")) {
                continue;
            }
            let found = cx.report(
                d.file(),
                arg.raw(),
                format!(
                    "`keepalive_requests {n}` closes each keep-alive connection after {}: clients reconnect to nginx {}{}",
                    if n == 1 { "1 request".to_string() } else { format!("{n} requests") },
                    if n == 1 { "for every request".to_string() } else { format!("every {n} requests") },
                    if location.is_some() {
                        " (counting the HTTP/1.x requests that end in this location; HTTP/2 connections follow the server's value)"
                    } else {
                        ", and an HTTP/2 page load can make that many"
                    }
                ),
            );
            found.help = Some(
                "remove it to get nginx's default of 1000 (since 1.19.10; 100 before), or set 1000 or more".into(),
            );
        }
    }
}
