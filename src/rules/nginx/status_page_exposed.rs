//! NGX112 status-page-exposed: a status page (`stub_status`, nginx Plus `status`,
//! `vhost_traffic_status_display`, or php-fpm's status/ping page reached through
//! `fastcgi_pass`) that any client can load: no `deny`, no authentication, not `internal`,
//! on a server that listens beyond loopback. Connection counts, pool sizes, request rates
//! and (for php-fpm's full status) client addresses and URIs help an attacker time and
//! aim a flood or read other users' requests.
//!
//! A written `deny` or login counts only as nginx runs it: the access module checks the
//! rules in order and the first that matches the client decides, so an `allow all` (or
//! `allow 0.0.0.0/0` on an IPv4 server, `allow ::/0` on an IPv6 one) before `deny all`
//! lets everyone in; and under `satisfy any` an `allow` that matches is enough, so the
//! same `allow` makes `auth_basic` moot (`ngx_http_core_access_phase`). Both answered
//! every client with the status page on nginx 1.22.1.
//!
//! Silent when the block itself holds an `include` that read nothing: the rules may be there.

use crate::analysis::access;
use crate::analysis::cursor::Directive;
use crate::analysis::fastcgi_params;
// The old path of these, which STK009 imports.
pub use crate::analysis::fpm_status::{fpm_status_path, FPM_PATHS};
use crate::rules::{Context, Rule};
use crate::stack::net::Addr;

declare_rule! {
    pub struct StatusPageExposed;
    code: NGX112,
    name: "status-page-exposed",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
}

/// nginx's own status handlers.
const HANDLERS: &[&str] = &["stub_status", "status", "vhost_traffic_status_display"];

impl Rule for StatusPageExposed {
    fn check(&self, cx: &mut Context<'_>) {
        for name in HANDLERS {
            for d in cx.nginx_directives(name) {
                // `status` is also a word inside other modules' blocks (upstream `check`
                // modules, maps); only the handler in a location or server counts.
                let Some(block) = d.parent() else { continue };
                if !matches!(block.name(), "location" | "server") {
                    continue;
                }
                if d.name() == "stub_status" && d.arg(0).is_some_and(|a| a.is("off")) {
                    continue;
                }
                if *name == "status" && d.args().len() != 0 {
                    continue;
                }
                report(cx, d, block, format!("`{}`", d.name()));
            }
        }
        for d in cx.nginx_directives("fastcgi_pass") {
            let Some(loc) = d.parent().filter(|p| p.name() == "location") else {
                continue;
            };
            let Some(path) = fpm_status_path(loc) else {
                continue;
            };
            // Without SCRIPT_FILENAME or SCRIPT_NAME php-fpm never answers its status page
            // (404 "Primary script unknown"): only when every include was read is that known.
            let missing = |name| fastcgi_params::param(loc, name).is_none();
            if (missing("SCRIPT_FILENAME") || missing("SCRIPT_NAME"))
                && fastcgi_params::params_known(loc)
            {
                continue;
            }
            report(cx, d, loc, format!("php-fpm's status page (`{path}`)"));
        }
    }
}

fn report(cx: &mut Context<'_>, d: Directive<'_>, block: Directive<'_>, what: String) {
    if is_internal(block) || guarded_by_if(block) {
        return;
    }
    // An include that read nothing (an allow list kept outside the tree, a snippet installed
    // beside the file at deployment), in the block or a level it inherits from, may hold the
    // `allow`/`deny` or login: whether the page is open depends on it.
    if access::unread_include_around(block) {
        return;
    }
    // A `return` in the block answers in the rewrite phase, before the status handler
    // (the content phase) ever runs: a health check that only looks like a status page.
    if block.children("return").next().is_some() {
        return;
    }
    let server = block
        .enclosing("server")
        .or((block.name() == "server").then_some(block));
    if server.is_some_and(access::local_only) {
        return;
    }
    let opening = match access::restriction(block) {
        None => {
            // `allow all` opens the page on purpose; that is a decision, not an oversight.
            if access::rules(block)
                .iter()
                .any(|r| r.name() == "allow" && r.arg(0).is_some_and(|a| a.is("all")))
            {
                return;
            }
            None
        }
        // A `deny` or a login is written, but the rules as nginx runs them let everyone in.
        Some(_) => match defeated(block, server) {
            Some(opening) => Some(opening),
            None => return,
        },
    };
    let place = if block.name() == "location" {
        let args: Vec<String> = block.args().map(|a| a.raw_text().into_owned()).collect();
        format!("`location {}`", args.join(" "))
    } else {
        "this server".to_string()
    };
    // The `listen` that receives the clients let in (the family's, for an opening).
    let listen = match &opening {
        Some(o) => server.map(|_| o.listen),
        None => server.map(|s| s.children("listen").next()),
    };
    let reach = match listen {
        Some(l) => match l {
            None => ", and the server listens on `*:80`".to_string(),
            Some(l) => {
                let addr: Vec<String> = l.args().take(1).map(|a| a.value().into_owned()).collect();
                format!(", and the server listens on `{}`", addr.join(""))
            }
        },
        None => String::new(),
    };
    let why = match &opening {
        None => "no `deny`, `auth_basic` or `auth_request` applies".to_string(),
        Some(o) => o.why(),
    };
    let diag = cx.report(
        d.file(),
        d.span(),
        format!("{what} at {place} answers any client: {why}{reach}"),
    );
    if block.name() == "location" {
        diag.label(
            block.file().clone(),
            block.span(),
            "reachable by every client",
        );
    }
    if let Some(o) = &opening {
        diag.label(o.allow.file().clone(), o.allow.span(), o.label());
    }
    diag.help = Some(match &opening {
        Some(o) => o.help(),
        None => "let only the monitoring hosts in: `allow 127.0.0.1; deny all;` in this block \
                 (or serve it on a server that listens on 127.0.0.1 only)"
            .to_string(),
    });
}

/// A family of client addresses a server receives connections from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    V4,
    V6,
    /// IPv4 clients of an `ipv6only=off` IPv6 socket (`::ffff:a.b.c.d`): nginx checks them
    /// against the IPv4 rules when there are any, else against the IPv6 ones.
    Mapped,
}

impl Family {
    fn name(self) -> &'static str {
        match self {
            Family::V4 | Family::Mapped => "IPv4",
            Family::V6 => "IPv6",
        }
    }
}

/// The families of the clients beyond loopback that reach `server`: one per `listen` that
/// is not a loopback address or a unix socket (`*:80` without any `listen`). A fragment
/// whose server is not seen is taken to listen on IPv4, as nearly every server does.
/// Each with the first `listen` that receives them (`None`: the implicit `*:80`).
fn remote_families(server: Option<Directive<'_>>) -> Vec<(Family, Option<Directive<'_>>)> {
    let Some(server) = server else {
        return vec![(Family::V4, None)];
    };
    let mut out: Vec<(Family, Option<Directive<'_>>)> = Vec::new();
    let mut add = |f, l| {
        if !out.iter().any(|&(g, _)| g == f) {
            out.push((f, Some(l)));
        }
    };
    let mut any = false;
    for l in server.children("listen") {
        any = true;
        let Some(a) = l.arg(0) else { continue };
        match Addr::parse(&a.value(), 80) {
            Some(Addr::Unix(_)) => {}
            Some(addr) if addr.is_loopback_tcp() => {}
            Some(Addr::Tcp { host: Some(h), .. }) if h.contains(':') => {
                add(Family::V6, l);
                if l.args().any(|p| p.is("ipv6only=off")) {
                    add(Family::Mapped, l);
                }
            }
            _ => add(Family::V4, l),
        }
    }
    if !any {
        out.push((Family::V4, None));
    }
    out
}

/// Which clients an `allow`/`deny` argument names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Clients {
    /// `all`: every client of every family (and of unix sockets).
    All,
    /// An address or network of one family; `whole` for `/0` (`0.0.0.0/0`, `::/0`).
    Net { v6: bool, whole: bool },
    /// `unix:`: clients of unix sockets only.
    Unix,
}

fn clients(rule: Directive<'_>) -> Option<Clients> {
    let v = rule.arg(0)?.value();
    if v == "all" {
        return Some(Clients::All);
    }
    if v.starts_with("unix:") {
        return Some(Clients::Unix);
    }
    let whole = v
        .split_once('/')
        .is_some_and(|(_, len)| len.parse::<u8>() == Ok(0));
    Some(Clients::Net {
        v6: v.contains(':'),
        whole,
    })
}

/// Whether `rule` is in the list nginx checks clients of `family` against (`all` is in
/// every list), and whether it then matches every client of that family.
fn applies(rule: Directive<'_>, family: Family) -> Option<bool> {
    let v6 = family == Family::V6;
    match clients(rule)? {
        Clients::All => Some(true),
        Clients::Net { v6: r, whole } if r == v6 => Some(whole),
        _ => None,
    }
}

/// The first rule that a client of `family` no rule names in particular (an attacker's
/// address) matches: nginx checks the rules in order and the first match decides
/// (`ngx_http_access_inet`). `None` when no rule matches it: the access module declines.
fn first_for_anyone(rules: &[Directive<'_>], family: Family) -> Option<usize> {
    rules.iter().position(|&r| applies(r, family) == Some(true))
}

/// The list nginx checks clients of `family` against: a mapped IPv4 client is checked
/// against the IPv4 rules when there are any (`all` is one), else the IPv6 ones.
fn checked_as(rules: &[Directive<'_>], family: Family) -> Family {
    match family {
        Family::Mapped if rules.iter().any(|&r| applies(r, Family::V4).is_some()) => Family::V4,
        Family::Mapped => Family::V6,
        f => f,
    }
}

/// The access-phase checks nginx cannot skip under `satisfy all`: authentication
/// ([`access::auth`]) and the scripted checks [`access::restriction`] counts.
fn login(block: Directive<'_>) -> Option<Directive<'_>> {
    access::auth(block).or_else(|| {
        ["access_by_lua", "access_by_lua_block", "access_by_lua_file"]
            .iter()
            .find_map(|n| block.effective(n).next())
    })
}

/// What the `allow` that lets everyone in makes useless.
enum Bypassed<'a> {
    /// A `deny` after it that would refuse everyone else: never reached.
    Deny(Directive<'a>),
    /// Under `satisfy any`, the login the `allow` makes unnecessary.
    Login(Directive<'a>),
}

/// A `deny` or login is written, but an `allow` lets every client of a family in first.
pub struct Opening<'a> {
    pub allow: Directive<'a>,
    family: Family,
    /// Whether the `allow` names every family (`all`), so the family goes unsaid.
    all: bool,
    bypassed: Bypassed<'a>,
    /// A `listen` of the server that receives such clients (`None`: `*:80`).
    listen: Option<Directive<'a>>,
}

impl Opening<'_> {
    fn allow_text(&self) -> String {
        let arg = self.allow.arg(0).map(|a| a.value().into_owned());
        format!("`allow {}`", arg.unwrap_or_default())
    }

    pub fn why(&self) -> String {
        let every = if self.all {
            "every client".to_string()
        } else {
            format!("every {} client", self.family.name())
        };
        match &self.bypassed {
            Bypassed::Deny(deny) => format!(
                "{} matches {every} and comes before `deny {}` (the first rule that matches \
                 decides), so the `deny` refuses none of them",
                self.allow_text(),
                deny.arg(0)
                    .map(|a| a.value().into_owned())
                    .unwrap_or_default()
            ),
            Bypassed::Login(login) => format!(
                "under `satisfy any`, {} lets {every} in without `{}`",
                self.allow_text(),
                login.name()
            ),
        }
    }

    pub fn help(&self) -> String {
        match &self.bypassed {
            Bypassed::Deny(_) => format!(
                "drop {}: allow only the monitoring hosts before the `deny` \
                 (`allow 127.0.0.1; deny all;`)",
                self.allow_text()
            ),
            Bypassed::Login(_) => format!(
                "drop {} (under `satisfy any` a client that an `allow` matches needs no \
                 credentials), or use `satisfy all`",
                self.allow_text()
            ),
        }
    }

    pub fn label(&self) -> String {
        match &self.bypassed {
            Bypassed::Deny(_) => "matches first".to_string(),
            Bypassed::Login(_) => "enough under `satisfy any`".to_string(),
        }
    }
}

/// Whether the `deny` and login in force in `block` fail to keep anyone out, as nginx
/// runs them: for some family of clients the server receives, the first rule that matches
/// a client no rule names in particular is an `allow` of the whole family, and either a
/// `deny` of the whole family comes after it (written to refuse everyone else, never
/// reached), or `satisfy any` is in force with a login (the `allow` is enough). Silent
/// for an `allow all` that bypasses nothing: written on purpose. A `deny` of some
/// addresses only, with no `allow` of everyone, is taken as protection (a block list).
pub fn defeated<'a>(block: Directive<'a>, server: Option<Directive<'a>>) -> Option<Opening<'a>> {
    let rules = access::rules(block);
    let login = login(block);
    let any = block
        .effective("satisfy")
        .last()
        .and_then(|s| s.arg(0))
        .is_some_and(|a| a.is("any"));
    for (family, listen) in remote_families(server) {
        let family = checked_as(&rules, family);
        let Some(i) = first_for_anyone(&rules, family) else {
            continue;
        };
        let allow = rules[i];
        if allow.name() != "allow" {
            continue;
        }
        let all = clients(allow) == Some(Clients::All);
        let dead_deny = rules[i + 1..]
            .iter()
            .find(|&&r| r.name() == "deny" && applies(r, family) == Some(true));
        let bypassed = match (dead_deny, login) {
            (Some(&deny), _) => Bypassed::Deny(deny),
            (None, Some(login)) if any => Bypassed::Login(login),
            _ => continue,
        };
        return Some(Opening {
            allow,
            family,
            all,
            bypassed,
            listen,
        });
    }
    None
}

/// `internal;` here or in an enclosing location: external requests get 404.
pub fn is_internal(block: Directive<'_>) -> bool {
    let mut at = Some(block);
    while let Some(b) = at {
        if b.name() != "location" && b.name() != "if" {
            return false;
        }
        if b.children("internal").next().is_some() {
            return true;
        }
        at = b.parent();
    }
    false
}

/// An `if` in the block that refuses some requests (`if ($remote_addr != …) { return 403; }`):
/// a hand-written access check this cannot evaluate, taken as a restriction.
pub fn guarded_by_if(block: Directive<'_>) -> bool {
    block.children("if").any(|i| {
        i.children("return").any(|r| {
            r.arg(0)
                .and_then(|c| c.value().parse::<u16>().ok())
                .is_some_and(|c| c >= 400)
        })
    })
}
