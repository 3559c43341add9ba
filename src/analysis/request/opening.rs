//! Whether the `allow`/`deny` list and login in force in a block keep anyone out, as the
//! access phase runs them: the access module checks the rules in order and the first that
//! matches the client decides (`ngx_http_access_inet`), so an `allow all` (or `allow
//! 0.0.0.0/0` on an IPv4 server, `allow ::/0` on an IPv6 one) before `deny all` lets
//! everyone in; and under `satisfy any` an `allow` that matches is enough, so the same
//! `allow` makes `auth_basic` moot (`ngx_http_core_access_phase`). Both answered every
//! client on nginx 1.22.1.

use crate::analysis::access;
use crate::analysis::cursor::Directive;
use crate::stack::net::Addr;

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
    pub listen: Option<Directive<'a>>,
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
