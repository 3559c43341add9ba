//! NGX154 quic-bpf-reuseport: `quic_bpf on` with a `listen … quic reuseport` socket and
//! several worker processes. After each reload the BPF program that steers QUIC packets to
//! the worker owning the connection is left with a stale socket map, so packets of existing
//! and new connections reach the wrong worker and about half the QUIC connections are
//! dropped until a restart (nginx/nginx#425). With one worker there is nothing to steer.

use crate::analysis::cursor::Directive;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct QuicBpfReuseport;
    code: NGX154,
    name: "quic-bpf-reuseport",
    lang: nginx,
    category: Reliability,
    severity: Warning,
    fix: None,
    group: Default,
}

impl Rule for QuicBpfReuseport {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let Some(bpf) = crate::analysis::cursor::named(inst, "quic_bpf")
                .filter(|d| d.parent().is_none())
                .last()
            else {
                continue;
            };
            if !bpf.arg(0).is_some_and(|a| a.is("on")) {
                continue;
            }
            // worker_processes defaults to 1.
            let workers: Option<Directive<'_>> =
                crate::analysis::cursor::named(inst, "worker_processes")
                    .filter(|d| d.parent().is_none())
                    .last();
            let Some(workers) = workers else {
                continue;
            };
            let Some(count) = workers.arg(0) else {
                continue;
            };
            let many = count.is("auto") || count.value().parse::<u32>().is_ok_and(|n| n > 1);
            if !many {
                continue;
            }
            let Some(listen) = crate::analysis::cursor::named(inst, "listen").find(|l| {
                let mut quic = false;
                let mut reuseport = false;
                for a in l.args().skip(1) {
                    quic |= a.is("quic");
                    reuseport |= a.is("reuseport");
                }
                quic && reuseport
            }) else {
                continue;
            };
            let f = cx.report(
                bpf.file(),
                bpf.span(),
                format!(
                    "`quic_bpf on` with a `quic reuseport` listener and `worker_processes {}`: after a reload about half the QUIC connections are dropped",
                    count.raw_text()
                ),
            );
            f.label(
                listen.file().clone(),
                listen.span(),
                "QUIC socket with `reuseport`",
            );
            f.label(workers.file().clone(), workers.span(), "several workers");
            f.help = Some(
                "the BPF steering map goes stale on reload (nginx/nginx#425): set `quic_bpf off;` (clients then migrate less gracefully) or restart instead of reloading"
                    .into(),
            );
        }
    }
}
