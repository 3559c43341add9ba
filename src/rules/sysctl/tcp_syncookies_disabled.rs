//! SYS011 tcp-syncookies-disabled: `net.ipv4.tcp_syncookies = 0` on a host whose nginx
//! accepts connections from the network.
//!
//! With SYN cookies (the kernel's default, `1`) a listen queue whose SYN backlog
//! (`net.ipv4.tcp_max_syn_backlog`) overflows answers new SYNs with a cookie instead of
//! dropping them, so a SYN flood from spoofed addresses does not lock real clients out.
//! With `0` the kernel drops every SYN once the queue is full (`TCP: request_sock_TCP:
//! Possible SYN flooding on port 443. Dropping request.`). Only the effective assignment (the
//! last one `sysctl --system` applies) is judged, and a stack whose nginx listens on loopback
//! or unix sockets alone (behind a proxy on the same host) is left alone.

use crate::analysis::stack_links::active_directives;
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::stack::net::Addr;

declare_rule! {
    pub struct TcpSyncookiesDisabled;
    code: SYS011,
    name: "tcp-syncookies-disabled",
    lang: sysctl,
    category: Security,
    severity: Warning,
    fix: Always,
    group: Default,
}

const KEY: &str = "net.ipv4.tcp_syncookies";

/// Whether every `listen` of the stack's nginx is on loopback or a unix socket (and there is
/// at least one): then no SYN from the network reaches this host's nginx.
fn loopback_only(cx: &Context<'_>) -> bool {
    let mut any = false;
    for l in active_directives(cx.stack, "listen") {
        if l.parent().is_none_or(|p| p.name() != "server") {
            continue;
        }
        any = true;
        let arg = l.arg(0).map(|a| a.value()).unwrap_or_default();
        match Addr::parse(&arg, 80) {
            Some(Addr::Unix(_)) => {}
            Some(a) if a.is_loopback_tcp() => {}
            _ => return false,
        }
    }
    any
}

impl Rule for TcpSyncookiesDisabled {
    fn check(&self, cx: &mut Context<'_>) {
        let Some((set, value)) = cx.stack.sysctl.effective(KEY) else {
            return;
        };
        // The first word: a trailing `# note` is SYS010's to judge.
        if value.split_whitespace().next() != Some("0") || loopback_only(cx) {
            return;
        }
        let Some(a) = cx.stack.sysctl.assignment(set) else {
            return;
        };
        let key = a.key;
        let span = crate::source::Span::new(a.value.start, a.value.start + 1);
        let src = cx.stack.sysctl.files[set.file].source.clone();
        let d = cx.report(
            &src,
            key,
            format!(
                "`{KEY} = 0` turns SYN cookies off: once the SYN queue is full, the kernel drops \
                 every new connection, so a SYN flood from spoofed addresses locks real clients \
                 out"
            ),
        );
        d.help = Some(
            "remove the line or set it to 1 (the kernel's default: cookies are sent only when \
             the queue overflows); for more room before that, raise \
             net.ipv4.tcp_max_syn_backlog"
                .into(),
        );
        d.with_fix(Fix::unsafe_(
            "Set `net.ipv4.tcp_syncookies` to 1",
            vec![Edit::replace(&src, span, "1")],
        ));
    }
}
