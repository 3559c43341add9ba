//! NGX144 proxy-buffering-off: `proxy_buffering off` makes nginx hand the backend's
//! response to the client as it arrives, with at most `proxy_buffer_size` in hand, so the
//! backend connection (and its worker, thread or PHP process) stays busy until the slowest
//! client has read the whole response. A slow or deliberately slow reader pins backend
//! capacity (a Slowloris on the backend's side), which buffering exists to prevent.
//!
//! Streaming is the reason to turn it off, so locations that show they stream are left
//! alone: a forwarded `Upgrade` (WebSocket), a long `proxy_read_timeout` (an hour or more),
//! a name that says so (`/ws`, `/socket.io`, `/events`, `/sse`, `/stream`, `/live`,
//! `/subscribe`, `/notifications`, `/chat`, …), or a server name that does (`webchat.…`).
//! Where a `proxy_cache` is in effect the message adds that it stores nothing: nginx frees
//! the cache entry of an unbuffered response (ngx_http_upstream_send_response). Info only: the
//! backend may stream in ways the configuration does not show (`X-Accel-Buffering: no` is
//! the per-response alternative).

use crate::analysis::cursor::Directive;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct ProxyBufferingOff;
    code: NGX144,
    name: "proxy-buffering-off",
    lang: nginx,
    category: Performance,
    severity: Info,
    fix: None,
    group: Default,
}

/// Words in a location's name that say it streams.
const STREAMING: &[&str] = &[
    "ws",
    "wss",
    "websocket",
    "socket",
    "sse",
    "event",
    "stream",
    "live",
    "push",
    "subscribe",
    "sub",
    "notif",
    "realtime",
    "hub",
    "cable",
    "poll",
    "chat",
    "completion",
    "generate",
    "download",
    "upload",
    "tail",
    "log",
    "feed",
    "watch",
    "grpc",
    "mjpeg",
    "video",
    "audio",
    "media",
    "hls",
    "dash",
    "rtmp",
    "ollama",
    "llm",
    "api/v1/chat",
    "signalr",
    "sockjs",
    "pubsub",
    "comet",
    "graphql",
    "ai",
];

/// Whether a location's name holds one of [`STREAMING`] as a word (`/ws/`, `/api/events`,
/// `~ ^/socket\.io/`), not inside another (`/news` is not `ws`).
fn name_streams(loc: Directive<'_>) -> bool {
    let name: String = loc
        .args()
        .map(|a| a.value().to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    let words: Vec<&str> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().any(|w| {
        STREAMING
            .iter()
            .any(|s| w == s || (s.len() > 3 && w.starts_with(s)))
    })
}

/// `proxy_read_timeout` of an hour or more (`3600`, `3600s`, `60m`, `1h`, `1d`).
fn long_timeout(value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    let (num, unit) = v.split_at(v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len()));
    let Ok(n) = num.parse::<u64>() else {
        return false;
    };
    let secs = match unit {
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86400,
        "w" => n * 604800,
        "y" => n * 31_536_000,
        _ => return false,
    };
    secs >= 3600
}

/// Parts of a server's names that say the whole site streams (`webchat.example.org`,
/// `irc.example.net`, `live.example.com`, `ws.example.com`).
const STREAMING_SITES: &[&str] = &[
    "chat", "irc", "stream", "socket", "live", "push", "events", "realtime", "ws.",
];

/// Whether the block (a location, server or http) shows it streams.
fn streams(block: Directive<'_>) -> bool {
    if block.name() == "location" && name_streams(block) {
        return true;
    }
    let server = if block.name() == "server" {
        Some(block)
    } else {
        block.enclosing("server")
    };
    let site_streams = server.is_some_and(|s| {
        s.children("server_name").any(|n| {
            n.args().any(|a| {
                let v = a.value().to_ascii_lowercase();
                STREAMING_SITES.iter().any(|w| v.contains(w))
            })
        })
    });
    if site_streams {
        return true;
    }
    let upgrade = block
        .effective("proxy_set_header")
        .any(|h| h.arg(0).is_some_and(|a| a.is("upgrade")));
    let long = block
        .effective("proxy_read_timeout")
        .last()
        .and_then(|t| t.arg(0))
        .is_some_and(|a| long_timeout(&a.value()));
    upgrade || long
}

/// Whether a `proxy_cache` is in effect in the block.
fn caches(block: Directive<'_>) -> bool {
    block
        .effective("proxy_cache")
        .last()
        .and_then(|c| c.arg(0))
        .is_some_and(|a| !a.is("off"))
}

impl Rule for ProxyBufferingOff {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("proxy_buffering") {
            let Some(arg) = d.arg(0) else { continue };
            if !arg.is("off") {
                continue;
            }
            // The block it applies to; an `if` counts as its location.
            let Some(mut block) = d.parent() else {
                continue;
            };
            if block.name() == "if" {
                match block.parent() {
                    Some(p) => block = p,
                    None => continue,
                }
            }
            if !matches!(block.name(), "location" | "server" | "http") || streams(block) {
                continue;
            }
            let scope = match block.name() {
                "location" => format!(
                    "`location {}`",
                    block
                        .args()
                        .map(|a| a.value().into_owned())
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                "server" => "every location of this server".to_string(),
                _ => "every proxied location".to_string(),
            };
            let cache = if caches(block) {
                ", and the `proxy_cache` in effect stores nothing (nginx caches only buffered responses)"
            } else {
                ""
            };
            let found = cx.report(
                d.file(),
                arg.raw(),
                format!(
                    "`proxy_buffering off` in {scope}: each backend connection stays busy until the client has read the whole response, so slow clients pin backend capacity{cache}"
                ),
            );
            found.help = Some(
                "keep buffering on and turn it off per response where the backend streams (`X-Accel-Buffering: no`), or only in the streaming location (SSE, WebSocket, long polling)".into(),
            );
        }
    }
}
