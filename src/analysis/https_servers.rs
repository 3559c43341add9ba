//! What an http `server` is for, as the HSTS and redirect rules ask it: does it accept TLS,
//! and does it serve content or only redirect / refuse (a `return` at the server level, or
//! in every location that a request can reach, ACME challenges aside)?
//!
//! The rewrite module runs a server-level `return`/`rewrite … redirect` before any location
//! is chosen (the server rewrite phase), so such a server answers every request with it; a
//! server without `location /` serves files from its `root` for the paths no location takes.

use crate::analysis::cursor::Directive;
use crate::syntax::nginx::known;

/// The `listen … ssl` / `listen … quic` that makes `server` a TLS server, or its effective
/// `ssl on` (the directive nginx 1.25.1 removed).
pub fn tls_listen<'a>(server: Directive<'a>) -> Option<Directive<'a>> {
    let listen = server
        .children("listen")
        .find(|l| l.args().skip(1).any(|a| a.is("ssl") || a.is("quic")));
    listen.or_else(|| {
        server
            .effective("ssl")
            .last()
            .filter(|d| d.arg(0).is_some_and(|a| a.is("on")))
    })
}

/// Whether the server refuses TLS handshakes (`ssl_reject_handshake on`, in effect here):
/// a catch-all that serves nothing.
pub fn rejects_handshakes(server: Directive<'_>) -> bool {
    server
        .effective("ssl_reject_handshake")
        .last()
        .is_some_and(|d| d.arg(0).is_some_and(|a| a.is("on")))
}

/// How a server answers requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// It serves content for some requests (files, a proxy, PHP).
    Content,
    /// Every request is redirected; `https` when the target is an `https://` URL.
    Redirect { https: bool },
    /// Every request gets a fixed answer that is not a redirect (`return 444`, `return 404`).
    Refuse,
}

const REDIRECT_CODES: [&str; 5] = ["301", "302", "303", "307", "308"];

/// What a `return` answers: `None` when it is not a `return` with a code nginx accepts.
fn return_answer(ret: Directive<'_>) -> Answer {
    let code = ret
        .arg(0)
        .map(|a| a.value().into_owned())
        .unwrap_or_default();
    let url = ret.arg(1).map(|a| a.value().into_owned());
    let is_redirect = REDIRECT_CODES.contains(&code.as_str())
        || (ret.arg(1).is_none()
            && (code.starts_with("http://")
                || code.starts_with("https://")
                || code.starts_with("$scheme")));
    if !is_redirect {
        return Answer::Refuse;
    }
    let target = if ret.arg(1).is_none() {
        Some(code)
    } else {
        url
    };
    Answer::Redirect {
        https: target.is_some_and(|t| t.to_ascii_lowercase().starts_with("https://")),
    }
}

/// A `rewrite` whose regex matches every URI and whose replacement redirects.
fn rewrite_answer(rw: Directive<'_>) -> Option<Answer> {
    const ALL: &[&str] = &[
        "^", "^/", "^(.*)", "^(.*)$", "^/(.*)", "^/(.*)$", "(.*)", ".*", "^.*$", "^(.+)$",
        "^/?(.*)$", "^.*",
    ];
    let regex = rw.arg(0)?.value().into_owned();
    if !ALL.contains(&regex.as_str()) {
        return None;
    }
    let replacement = rw.arg(1)?.value().to_ascii_lowercase();
    let flag_redirect = rw
        .arg(2)
        .is_some_and(|f| f.is("redirect") || f.is("permanent"));
    let scheme = replacement.starts_with("http://")
        || replacement.starts_with("https://")
        || replacement.starts_with("$scheme");
    (flag_redirect || scheme).then_some(Answer::Redirect {
        https: replacement.starts_with("https://"),
    })
}

/// The first `return` or catch-all redirecting `rewrite` written directly in `block` (not
/// inside an `if`): what the block answers with, when it has one.
fn block_answer(block: Directive<'_>) -> Option<Answer> {
    // In the rewrite phase, directives run in order; a catch-all rewrite or a return
    // decides. `all_children` keeps the order.
    for d in block.all_children() {
        match d.name() {
            "return" => return Some(return_answer(d)),
            "rewrite" => {
                if let Some(a) = rewrite_answer(d) {
                    return Some(a);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether a location is there only for ACME (Let's Encrypt) HTTP-01 challenges.
pub fn is_acme(location: Directive<'_>) -> bool {
    location
        .args()
        .any(|a| a.value().contains("acme-challenge") || a.value().contains("well-known"))
}

/// How `server` answers: a server-level return or catch-all redirect decides; else its
/// locations do when every one of them answers with a `return` (ACME locations aside) and a
/// `location /` exists; otherwise it serves content.
pub fn answer(server: Directive<'_>) -> Answer {
    if let Some(a) = block_answer(server) {
        return a;
    }
    let mut root: Option<Answer> = None;
    let mut others_refuse = true;
    let mut any = false;
    for loc in server.children("location") {
        if is_acme(loc) {
            continue;
        }
        any = true;
        let Some(a) = block_answer(loc) else {
            return Answer::Content;
        };
        use crate::analysis::locations::{location_line, Kind};
        let is_root = matches!(
            location_line(loc),
            Some((Kind::Prefix | Kind::NoRegexPrefix, name)) if name == b"/"
        );
        if is_root {
            root = Some(a);
        } else if !matches!(a, Answer::Redirect { .. } | Answer::Refuse) {
            others_refuse = false;
        }
    }
    match (any, root) {
        (true, Some(a)) if others_refuse => a,
        _ => Answer::Content,
    }
}

/// The names a server answers to, lowercased (`server_name`'s arguments; `_` and `""` are
/// nobody's name).
pub fn names(server: Directive<'_>) -> Vec<(Directive<'_>, String)> {
    let mut out = Vec::new();
    for sn in server.children("server_name") {
        for a in sn.args() {
            let v = a.value().to_ascii_lowercase();
            if v.is_empty() || v == "_" {
                continue;
            }
            out.push((sn, v));
        }
    }
    out
}

/// Whether `server` is an http `server` block: not an upstream's `server` line, and not a
/// stream server (at the top of a snippet, where either may stand, only a block holding
/// what stream servers cannot have counts).
pub fn is_http_server(server: Directive<'_>) -> bool {
    if !server.has_block() {
        return false;
    }
    let ctx = server.contexts();
    if ctx & known::HTTP == 0 {
        return false;
    }
    if ctx & known::STREAM == 0 {
        return true;
    }
    const HTTP_ONLY: &[&str] = &[
        "location",
        "root",
        "index",
        "add_header",
        "try_files",
        "fastcgi_pass",
        "return",
        "rewrite",
        // Stream servers have had one only since nginx 1.25.5, and rarely use it.
        "server_name",
    ];
    HTTP_ONLY
        .iter()
        .any(|n| server.children(n).next().is_some())
        || server
            .children("proxy_pass")
            .any(|p| p.arg(0).is_some_and(|a| a.value().contains("://")))
}

/// Whether the server listens on port 80 of a public address (no `listen` means `*:80`).
pub fn public_port_80(server: Directive<'_>) -> bool {
    let mut listens = server.children("listen").peekable();
    if listens.peek().is_none() {
        return true;
    }
    listens.any(|l| {
        let Some(a) = l.arg(0) else {
            return false;
        };
        let v = a.value();
        let v = v.as_ref();
        if v.len() >= 5 && v[..5].eq_ignore_ascii_case("unix:") {
            return false;
        }
        // Slices of the value, no copies: this runs for every `listen` of every server.
        let (host, port): (&str, &str) = if let Some(rest) = v.strip_prefix('[') {
            let (h, p) = rest.split_once(']').unwrap_or((rest, ""));
            (h, p.strip_prefix(':').unwrap_or("80"))
        } else if let Some((h, p)) = v.rsplit_once(':') {
            (h, p)
        } else if v.bytes().all(|b| b.is_ascii_digit()) {
            ("*", v)
        } else {
            (v, "80")
        };
        let internal =
            host.eq_ignore_ascii_case("localhost") || host.starts_with("127.") || host == "::1";
        port == "80" && !internal
    })
}
