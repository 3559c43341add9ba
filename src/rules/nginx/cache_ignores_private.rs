//! NGX157 cache-ignores-private: a location caches what its application answers
//! (`proxy_cache`, `fastcgi_cache`, `uwsgi_cache`, `scgi_cache`) while
//! `*_ignore_headers` tells nginx to disregard `Set-Cookie` or `Cache-Control` (and
//! `Expires`), with nothing that keeps per-user answers out of the cache.
//!
//! nginx does not store a response that sets a cookie, nor one whose `Cache-Control` says
//! `private`, `no-cache` or `no-store` (ngx_http_upstream_process_cache_control,
//! `proxy_cache_valid`: "If the header includes the Set-Cookie field, such a response will
//! not be cached"); `proxy_ignore_headers` turns those checks off. Then the first visitor's
//! page, logged in or not, is stored under a key that does not name the visitor and served
//! to everyone after, with its `Set-Cookie` header (the session) unless that header is
//! hidden. A location that caches by file extension (`~ \.(css|js)$`) in front of PHP makes it
//! web cache deception: a link to `/account.php/x.css` makes the victim's account page
//! public (PortSwigger, "Web cache deception").
//!
//! Only where a `*_cache_valid` time is set: with `Cache-Control` and `Expires` ignored, an
//! answer has no other caching time and nginx stores nothing. Silent when the cache key
//! names the visitor (`$cookie_…`, `$http_cookie`,
//! `$http_authorization`, `$remote_user`), when `*_no_cache` is set (someone decides which
//! answers are stored: WordPress' `$skip_cache` for logged-in cookies), for `Set-Cookie`
//! when `*_hide_header Set-Cookie` keeps the cookie from clients, and for a location that
//! passes nowhere (no application behind it).
//!
//! A snippet nothing in the tree includes that caches at its top level and passes nowhere
//! itself (a panel's `proxy_cache.conf`, included beside the `proxy_pass` of every site it
//! writes) is judged as it reads: its cache settings apply to whatever pass it is included
//! with, and the message says so.

use crate::analysis::cursor::{Block, Directive};
use crate::analysis::request::access::is_internal;
use crate::analysis::variables::{PartKind, Script};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct CacheIgnoresPrivate;
    code: NGX157,
    name: "cache-ignores-private",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

/// The modules whose cache stores what their `*_pass` answers.
const MODULES: [(&str, &str); 4] = [
    ("proxy", "proxy_pass"),
    ("fastcgi", "fastcgi_pass"),
    ("uwsgi", "uwsgi_pass"),
    ("scgi", "scgi_pass"),
];

/// Variables a cache key may hold that are the same for every visitor of a URL: a key
/// with any other (`$cookie_…`, `$http_authorization`, a `map` of either, `$access_token`)
/// may name the visitor, which the files alone cannot rule out.
const SHARED_BY_ALL: [&str; 14] = [
    "scheme",
    "proxy_host",
    "host",
    "http_host",
    "server_name",
    "server_port",
    "request_uri",
    "uri",
    "document_uri",
    "args",
    "query_string",
    "is_args",
    "request_method",
    "fastcgi_script_name",
];

impl Rule for CacheIgnoresPrivate {
    fn check(&self, cx: &mut Context<'_>) {
        for (module, pass) in MODULES {
            let passes: Vec<Directive<'_>> = cx.nginx_directives(pass).collect();
            for d in passes {
                let Some(block) = d.parent() else {
                    continue;
                };
                if let Some((ignore, what)) =
                    ignored_private(Block::from(block), is_internal(block), module)
                {
                    report(cx, module, ignore, &what, Some(d));
                }
            }
            // A snippet included beside the pass elsewhere (see the module's comment).
            for inst in cx.stack.nginx.iter().filter(|i| i.standalone) {
                let main = Block::main(inst);
                if main.children(&format!("{module}_cache")).next().is_none()
                    || crate::analysis::cursor::named(inst, pass).next().is_some()
                {
                    continue;
                }
                if let Some((ignore, what)) = ignored_private(main, false, module) {
                    report(cx, module, ignore, &what, None);
                }
            }
        }
    }
}

/// The finding at the `*_ignore_headers`, with the pass whose answers are cached, or, for a
/// snippet, the pass it is meant to stand beside.
fn report(
    cx: &mut Context<'_>,
    module: &str,
    ignore: Directive<'_>,
    what: &str,
    pass: Option<Directive<'_>>,
) {
    let whose = match pass {
        Some(_) => String::new(),
        None => format!(
            " (in every location this file is included in beside a `{module}_pass`: nothing \
             else in it keeps per-visitor answers out)"
        ),
    };
    let f = cx.report(
        ignore.file(),
        ignore.span(),
        format!(
            "`{module}_ignore_headers {what}` makes nginx store what the application marks \
             private or answers with a cookie, and the cache key does not name the visitor: one \
             visitor's page (and session cookie) is served to the next; behind a location that \
             caches by extension, a link to `/account.php/x.css` publishes anyone's page (web \
             cache deception){whose}"
        ),
    );
    if let Some(d) = pass {
        f.label(
            d.file().clone(),
            d.span(),
            "the answers cached come from here",
        );
    }
    f.help = Some(format!(
        "keep `Cache-Control` and `Set-Cookie` honoured, or decide what is stored: \
         `{module}_no_cache $cookie_session;` (and `{module}_cache_bypass` alike) for visitors \
         with a session"
    ));
}

/// The `*_ignore_headers` in effect at `block` that drops a private-answer check, and the
/// headers it names, when the block caches and nothing else keeps private answers out.
fn ignored_private<'a>(
    block: Block<'a>,
    internal: bool,
    module: &str,
) -> Option<(Directive<'a>, String)> {
    let cache = block.effective(&format!("{module}_cache")).last()?;
    if cache.arg(0).is_none_or(|a| a.is("off")) {
        return None;
    }
    // Without a `*_cache_valid` time, an answer whose `Cache-Control`/`Expires` is ignored
    // has no caching time and is not stored at all.
    if block
        .effective(&format!("{module}_cache_valid"))
        .next()
        .is_none()
        || block
            .effective(&format!("{module}_no_cache"))
            .next()
            .is_some()
    {
        return None;
    }
    if let Some(key) = block.effective(&format!("{module}_cache_key")).last() {
        let key = key
            .arg(0)
            .map(|a| a.value().into_owned())
            .unwrap_or_default();
        let script = Script::parse_value(key.as_bytes());
        let per_visitor = script.references().any(|part| match &part.kind {
            PartKind::Variable { name, .. } => {
                !SHARED_BY_ALL.contains(&name.to_ascii_lowercase().as_str())
            }
            _ => true,
        });
        if per_visitor {
            return None;
        }
    }
    // A subrequest's location (auth, a key set fetched from an identity provider) is not
    // one a client names: nobody is served its cache by a link.
    if internal {
        return None;
    }
    let cookie_hidden = block.effective(&format!("{module}_hide_header")).any(|h| {
        h.arg(0)
            .is_some_and(|a| a.value().eq_ignore_ascii_case("set-cookie"))
    });
    let ignore = block
        .effective(&format!("{module}_ignore_headers"))
        .last()?;
    let named: Vec<String> = ignore
        .args()
        .map(|a| a.value().into_owned())
        .filter(|h| {
            h.eq_ignore_ascii_case("cache-control")
                || (h.eq_ignore_ascii_case("set-cookie") && !cookie_hidden)
        })
        .collect();
    (!named.is_empty()).then(|| (ignore, named.join(" ")))
}
