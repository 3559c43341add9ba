//! STK011 session-cookie-not-secure: `session.cookie_secure` written off for a pool that nginx
//! reaches only from servers that accept nothing but TLS.
//!
//! Without the `Secure` attribute the browser also sends PHP's session cookie over plain HTTP:
//! to the `http://` address a link, a typo or an attacker on the network makes it visit, where
//! the HTTP server's redirect comes too late, because the cookie travelled with the request.
//! Whoever reads that request holds the session. On a site served only over HTTPS, `Secure`
//! costs nothing. Only a value written off counts (php.ini or the pool): PHP's default is off
//! too, but frameworks set the flag themselves (`session_set_cookie_params`, Laravel's and
//! Symfony's session configuration), which lemplint cannot see; writing it off is a choice.

use crate::analysis::php_writes::{php_writes, Scope};
use crate::analysis::stack_links::{pool_links, pool_view};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::ids::PoolId;
use crate::stack::instances::php_bool;
use crate::stack::instances::PoolView;
use std::collections::HashMap;

declare_rule! {
    pub struct SessionCookieNotSecure;
    code: STK011,
    name: "session-cookie-not-secure",
    lang: stack,
    category: Security,
    severity: Warning,
    fix: Always,
    group: Default,
}

/// Whether every `listen` of the server takes TLS (`ssl` or `quic`), and there is one.
fn tls_only(server: crate::analysis::cursor::Directive<'_>) -> bool {
    let mut listens = server.children("listen").peekable();
    listens.peek().is_some()
        && listens.all(|l| l.args().skip(1).any(|a| a.is("ssl") || a.is("quic")))
}

impl Rule for SessionCookieNotSecure {
    fn check(&self, cx: &mut Context<'_>) {
        let links = pool_links(cx.stack);
        let instances = cx.fpm_instances();
        // Per pool, whether every server reaching it accepts only TLS: one pass over the
        // links.
        let mut tls_only_of: HashMap<PoolId, bool> = HashMap::new();
        for l in &links {
            let Some(pool) = pool_view(instances, l) else {
                continue;
            };
            let tls = l.pass.enclosing("server").is_some_and(tls_only);
            *tls_only_of.entry(pool.id).or_insert(true) &= tls;
        }
        let https_only = |p: &PoolView<'_>| tls_only_of.get(&p.id).copied().unwrap_or(false);
        for w in php_writes(cx.stack, instances, "session.cookie_secure") {
            if php_bool(&w.text) {
                continue;
            }
            // The pools this value applies to: the writing pool, or every pool reading the
            // php.ini set without a value of its own.
            let applies: Vec<_> = match w.scope {
                Scope::Pool(p) => vec![p],
                Scope::Ini(set) => instances
                    .iter()
                    .filter(|i| i.ini.is_some_and(|s| std::ptr::eq(s, set)))
                    .flat_map(|i| i.pools.iter())
                    .filter(|p| p.php_setting("session.cookie_secure").is_none())
                    .collect(),
            };
            if applies.is_empty() || !applies.iter().all(|p| https_only(p)) {
                continue;
            }
            let pools: Vec<&str> = applies.iter().map(|p| p.name.as_str()).collect();
            let message = format!(
                "{}`{}` lets the browser send the session cookie over plain HTTP, but nginx \
                 serves pool{} `{}` only over HTTPS: the first `http://` request carries the \
                 session to anyone on the network",
                w.prefix(),
                w.written,
                if pools.len() == 1 { "" } else { "s" },
                pools.join("`, `")
            );
            let d = cx.report(w.file, w.span, message);
            d.help = Some(
                "turn it on (`session.cookie_secure = On`): the site is HTTPS only, so the \
                 cookie loses nothing"
                    .into(),
            );
            d.with_fix(Fix::unsafe_(
                "Turn session.cookie_secure on",
                vec![edits::replace_fpm_value(w.file, w.entry, "On")],
            ));
        }
    }
}
