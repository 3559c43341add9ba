//! Who may reach a block: the access module's list in force there (a level that sets any
//! `allow`/`deny` replaces the inherited list, `ngx_http_access_merge_loc_conf`), the
//! authentication that applies, and whether the server can be reached from outside at all.
//! Shared by the rules about access control (allow without deny, responses that bypass it,
//! status pages left open).

use crate::analysis::cursor::Directive;
use crate::stack::net::Addr;

/// The `allow`/`deny` rules in force in `block` (a `location`, `server`, `if`, …), in the
/// order nginx checks them: those of the nearest level that has any. At the top of a
/// fragment the file's own top-level rules count (they are the includer's).
pub fn rules(block: Directive<'_>) -> Vec<Directive<'_>> {
    let mut all: Vec<Directive<'_>> = in_force(block, "allow")
        .chain(in_force(block, "deny"))
        .collect();
    all.sort_by_key(|d| d.occ());
    all
}

/// The first `deny` of the rules in force in `block`: something a response that skips the
/// access phase would bypass. (The first of the level's `deny` children: no list is built,
/// this is asked for every `return`.)
pub fn first_deny(block: Directive<'_>) -> Option<Directive<'_>> {
    in_force(block, "deny").next()
}

/// The `name` (`allow` or `deny`) entries of the level whose rules are in force in
/// `block`: the nearest level with any `allow` or `deny`, or the top of the file.
fn in_force<'a>(block: Directive<'a>, name: &str) -> Box<dyn Iterator<Item = Directive<'a>> + 'a> {
    let mut at = block;
    loop {
        if at.children("allow").next().is_some() || at.children("deny").next().is_some() {
            return Box::new(at.children(name));
        }
        match at.parent() {
            Some(p) => at = p,
            None => return Box::new(at.siblings(name)),
        }
    }
}

/// The authentication directives an access-phase module checks, each switched off by `off`
/// (`auth_oidc` is NGINX Plus's OpenID Connect module, `auth_oidc name | off`, which asks
/// the identity provider like `auth_jwt` checks a token). Every rule that asks whether a
/// login is required reads this one list.
pub const AUTH: &[&str] = &[
    "auth_basic",
    "auth_request",
    "auth_jwt",
    "auth_oidc",
    "auth_pam",
    "auth_digest",
    "auth_ldap",
];

/// The authentication in force in `block` (`auth_basic "…"`, `auth_request /auth`), if any.
pub fn auth(block: Directive<'_>) -> Option<Directive<'_>> {
    AUTH.iter().find_map(|name| {
        let d = block.effective(name).last()?;
        let on = d.arg(0).is_some_and(|v| !v.is("off"));
        on.then_some(d)
    })
}

/// Access-phase handlers of third-party modules that decide per request (`access_by_lua`),
/// which this cannot read: treated as a restriction.
const SCRIPTED: &[&str] = &["access_by_lua", "access_by_lua_block", "access_by_lua_file"];

/// Something in force in `block` that refuses some clients: a `deny`, authentication, or a
/// scripted access check.
pub fn restriction(block: Directive<'_>) -> Option<Directive<'_>> {
    first_deny(block)
        .or_else(|| auth(block))
        .or_else(|| SCRIPTED.iter().find_map(|n| block.effective(n).next()))
}

/// An `include` in `block` or a level around it (its `server`, `http`) that lemplint could
/// not read: it may hold `allow`/`deny` or a login that the block inherits, so whether the
/// block is open to everyone is unknown. Around the block, a file named for PHP
/// (`enable-php.conf`, `proxy-pass-php.conf`) is taken to hold the PHP `location` its name
/// says, which does not reach a sibling location.
pub fn unread_include_around(block: Directive<'_>) -> bool {
    if block.has_unread_include() {
        return true;
    }
    let mut at = block.parent();
    while let Some(level) = at {
        let opaque = level.unread_includes().any(|i| {
            !i.arg(0).is_some_and(|a| {
                let v = a.value();
                let name = v.rsplit('/').next().unwrap_or(&v).to_ascii_lowercase();
                name.contains("php")
            })
        });
        if opaque {
            return true;
        }
        at = level.parent();
    }
    false
}

/// Whether every `listen` of `server` is a loopback address or a unix socket, so that only
/// local clients reach it. A server without `listen` listens on `*:80`; an address with
/// variables, or a `server` we cannot see (a location fragment), is not known to be local.
pub fn local_only(server: Directive<'_>) -> bool {
    let mut any = false;
    for l in server.children("listen") {
        any = true;
        let Some(a) = l.arg(0) else { return false };
        match Addr::parse(&a.value(), 80) {
            Some(Addr::Unix(_)) => {}
            Some(addr) if addr.is_loopback_tcp() => {}
            _ => return false,
        }
    }
    any
}

/// The unix sockets `server` listens on, when it listens on nothing else: such a server is
/// reached only by local processes, often only through another server of the same nginx
/// that proxies to it. `None` for a server with any TCP `listen` (or none, `*:80`).
pub fn unix_only(server: Directive<'_>) -> Option<Vec<String>> {
    let mut paths = Vec::new();
    for l in server.children("listen") {
        match Addr::parse(&l.arg(0)?.value(), 80)? {
            Addr::Unix(p) => paths.push(p),
            _ => return None,
        }
    }
    (!paths.is_empty()).then_some(paths)
}

/// The `server` blocks of `server`'s configuration that `proxy_pass` to one of `sockets`:
/// `http://unix:/path:…` written out, or an `upstream` whose `server` is `unix:/path`.
pub fn proxied_from<'a>(server: Directive<'a>, sockets: &[String]) -> Vec<Directive<'a>> {
    let mut out: Vec<Directive<'a>> = Vec::new();
    for p in proxy_passes_to(server, sockets) {
        if let Some(front) = p.enclosing("server") {
            if !out.contains(&front) {
                out.push(front);
            }
        }
    }
    out
}

/// The `proxy_pass` directives of `server`'s configuration, outside `server`, that reach
/// one of `sockets` (see [`proxied_from`]): where the request headers `server` receives are
/// set.
pub fn proxy_passes_to<'a>(server: Directive<'a>, sockets: &[String]) -> Vec<Directive<'a>> {
    use crate::analysis::pass_target::PassTarget;
    let is_socket = |addr: &str| {
        addr.strip_prefix("unix:")
            .is_some_and(|p| sockets.iter().any(|s| s == p))
    };
    // The upstreams with a server on one of the sockets.
    let upstreams: Vec<String> = crate::analysis::cursor::named(server.instance(), "upstream")
        .filter(|u| {
            u.children("server")
                .any(|s| s.arg(0).is_some_and(|a| is_socket(&a.value())))
        })
        .filter_map(|u| u.arg(0).map(|a| a.value().into_owned()))
        .collect();
    crate::analysis::cursor::named(server.instance(), "proxy_pass")
        .filter(|p| {
            let Some(value) = p.arg(0).map(|a| a.value().into_owned()) else {
                return false;
            };
            let target = PassTarget::parse(&value, true);
            let hit = if target.unix {
                is_socket(target.authority)
            } else {
                upstreams.iter().any(|u| u == target.host)
            };
            hit && p.enclosing("server").is_some_and(|f| f != server)
        })
        .collect()
}
