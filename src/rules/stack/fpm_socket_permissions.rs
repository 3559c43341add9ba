//! STK004 fpm-socket-permissions: a pool's unix socket that nginx's workers may not open.
//!
//! connect(2) on a unix socket needs write permission on the socket file. php-fpm creates the
//! socket in its master process and then sets it up (`fpm_unix_resolve_socket_permissions`,
//! PHP 8.2 `fpm_unix.c`):
//!
//! * mode `listen.mode`, default 0660 (0666 before PHP 5.5.12, so older versions are not
//!   judged on the default);
//! * owner `listen.owner`, which by name also sets the group to that user's primary group; when
//!   unset, the owner and group stay the master's. A master that runs as root is the only kind
//!   that honours a pool's `user` (and it refuses to start a pool without one), so a pool with
//!   `user` and no `listen.owner` gets a `root:root` socket; a pool without `user` runs under
//!   an unprivileged master whose name is unknown here, and is not judged;
//! * group `listen.group`;
//! * `listen.acl_users` / `listen.acl_groups`, when set, replace owner and group with POSIX ACL
//!   entries for the listed users and groups.
//!
//! nginx's workers run as the main-context `user` (its group: the second argument, else the
//! group named like the user). Without a `user` directive the workers' identity depends on how
//! nginx was built and started: not judged.
//!
//! The rule reports only when access is denied whatever the unknown facts are: group
//! membership beyond nginx's own group is unknown (no /etc/group), so a socket whose group is
//! some other group counts as denied only when neither its group nor its "other" bits allow
//! writing. One assumption: a service user is not a member of group `root`.

use crate::analysis::cursor::{self, Directive};
use crate::analysis::stack_links::{pool_links, pool_listen, setting_place};
use crate::fix::{edits, Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::Shared;
use crate::stack::fpm::{FpmConfig, Listen, Pool, Setting};
use crate::stack::model::NginxInstance;
use crate::syntax::fpm::LineKind;

declare_rule! {
    pub struct FpmSocketPermissions;
    code: STK004,
    name: "fpm-socket-permissions",
    lang: stack,
    category: Correctness,
    severity: Error,
    fix: Sometimes,
    group: Default,
}

/// A user or group name (or numeric id), when known.
type Id = Option<String>;

fn is_numeric(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn is_root(s: &str) -> bool {
    s == "root" || s == "0"
}

/// Whether two ids are the same: `None` when one is a name and the other a number (the
/// server's passwd/group files decide).
fn same(a: &str, b: &str) -> Option<bool> {
    if a == b || is_root(a) && is_root(b) {
        return Some(true);
    }
    (is_numeric(a) == is_numeric(b)).then_some(false)
}

/// The socket as php-fpm sets it up.
struct Socket {
    owner: Id,
    group: Id,
    mode: u32,
    /// ACL users and groups, when ACLs are configured.
    acl: Option<(Vec<String>, Vec<String>)>,
}

/// `strtoul(value, 0, 8)`: the leading octal digits.
fn parse_mode(v: &str) -> u32 {
    v.trim()
        .bytes()
        .take_while(|b| (b'0'..=b'7').contains(b))
        .fold(0u32, |m, b| {
            m.wrapping_mul(8).wrapping_add(u32::from(b - b'0'))
        })
}

fn list(v: &str) -> Vec<String> {
    v.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn socket(cx: &Context<'_>, cfg: &FpmConfig, pool: &Pool) -> Option<Socket> {
    let get = |k: &str| {
        cfg.get(pool, k)
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let values = [
        "listen.owner",
        "listen.group",
        "listen.mode",
        "listen.acl_users",
        "listen.acl_groups",
        "user",
    ]
    .map(get);
    if values.iter().flatten().any(|v| v.contains("${")) {
        return None;
    }
    let [owner, group, mode, acl_users, acl_groups, user] = values;
    // The master runs as root exactly when the pool's `user` is honoured; see the module docs.
    let master: Id = user.is_some().then(|| "root".to_string());
    let mode = match mode {
        Some(m) => parse_mode(&m),
        None => match crate::analysis::stack_links::php_version(cx.host, cfg) {
            Some(v) if v < (5, 6) => return None,
            _ => 0o660,
        },
    };
    let acl = (acl_users.is_some() || acl_groups.is_some()).then(|| {
        (
            list(acl_users.as_deref().unwrap_or_default()),
            list(acl_groups.as_deref().unwrap_or_default()),
        )
    });
    if acl.is_some() {
        // Owner and group are ignored: the master's.
        return Some(Socket {
            owner: master.clone(),
            group: master,
            mode,
            acl,
        });
    }
    let group = match (&group, &owner) {
        (Some(g), _) => Some(g.clone()),
        // By name, listen.owner also sets the owner's primary group, whose name is unknown.
        (None, Some(o)) if !is_numeric(o) => None,
        (None, _) => master.clone(),
    };
    Some(Socket {
        owner: owner.or(master),
        group,
        mode,
        acl: None,
    })
}

/// `Some(false)` when nginx (`user`, `group`) certainly cannot write to the socket.
fn allowed(user: &str, group: &str, s: &Socket) -> Option<bool> {
    if is_root(user) {
        return Some(true);
    }
    let group_w = s.mode & 0o020 != 0;
    let other_w = s.mode & 0o002 != 0;
    if let Some((users, groups)) = &s.acl {
        if users.iter().any(|u| same(u, user) == Some(true))
            || groups.iter().any(|g| same(g, group) == Some(true))
        {
            return Some(true);
        }
        if !groups.is_empty() {
            // nginx may belong to one of the named groups.
            return None;
        }
    }
    let owner = s.owner.as_deref()?;
    if same(owner, user)? {
        return Some(s.mode & 0o200 != 0);
    }
    match s.group.as_deref() {
        Some(g) if same(g, group) == Some(true) => Some(group_w),
        Some(g) if is_root(g) => Some(other_w),
        // Membership unknown: decided only when group and other agree.
        _ if group_w == other_w => Some(group_w),
        _ => None,
    }
}

/// nginx's worker user and group, with the `user` directive's place.
fn nginx_user(inst: &NginxInstance) -> Option<(String, String, Directive<'_>)> {
    let d = cursor::named(inst, "user")
        .filter(|d| d.parent().is_none())
        .last()?;
    let user = d.arg(0)?.value().into_owned();
    let group = d
        .arg(1)
        .map_or_else(|| user.clone(), |g| g.value().into_owned());
    if user.contains('$') || group.contains('$') {
        return None;
    }
    Some((user, group, d))
}

fn describe(id: &Id, what: &str) -> String {
    id.clone().unwrap_or_else(|| format!("<{what}>"))
}

/// Inserts `entries` as lines after the entry at `line`, with its indentation.
fn insert_after_entry(
    file: &Shared,
    cfg: &FpmConfig,
    at: Setting,
    entries: &[(&str, &str)],
) -> Option<Edit> {
    let line = cfg.files[at.file].parsed.file.lines.get(at.line)?;
    if !matches!(line.kind, LineKind::Entry(_)) {
        return None;
    }
    let text = &file.text;
    let nl = edits::line_ending(text);
    let start = line.span.start as usize;
    let indent: String = text[start..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .map(|&b| b as char)
        .collect();
    let body: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{indent}{k} = {v}"))
        .collect();
    let content = if line.eol.is_empty() {
        format!("{nl}{}", body.join(nl))
    } else {
        format!("{}{nl}", body.join(nl))
    };
    Some(Edit::insert(file, line.span.end, content))
}

impl Rule for FpmSocketPermissions {
    fn check(&self, cx: &mut Context<'_>) {
        // A pool reached from several configurations (or `fastcgi_pass`es) with the same
        // nginx user is one finding: `Context::report` keeps one per place and message.
        for link in pool_links(cx.stack) {
            let Some((_, Listen::Unix { path })) = pool_listen(link.cfg, link.pool) else {
                continue;
            };
            let inst = link.pass.instance();
            if inst.standalone {
                continue;
            }
            let Some((user, group, user_at)) = nginx_user(inst) else {
                continue;
            };
            let Some(sock) = socket(cx, link.cfg, link.pool) else {
                continue;
            };
            if allowed(&user, &group, &sock) != Some(false) {
                continue;
            }
            let Some((file, span)) = setting_place(link.cfg, link.listen) else {
                continue;
            };
            let how = match &sock.acl {
                Some((users, groups)) => format!(
                    "is {}:{} with mode {:04o} and ACL entries for {}",
                    describe(&sock.owner, "master's user"),
                    describe(&sock.group, "master's group"),
                    sock.mode,
                    users
                        .iter()
                        .chain(groups)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => format!(
                    "is {}:{} with mode {:04o}",
                    describe(&sock.owner, "master's user"),
                    describe(&sock.group, "owner's group"),
                    sock.mode
                ),
            };
            let d = cx.report(
                &file,
                span,
                format!(
                    "nginx's workers run as {user}:{group} but pool `{}`'s socket {path} {how}: \
                     nginx's connect() fails with (13: Permission denied) and PHP requests get \
                     502 Bad Gateway",
                    link.pool.name
                ),
            );
            d.label(
                user_at.file().clone(),
                user_at.span(),
                "nginx's workers run as this user",
            );
            for key in [
                "listen.owner",
                "listen.group",
                "listen.mode",
                "listen.acl_users",
            ] {
                if let Some((s, _)) = link.cfg.get(link.pool, key) {
                    if let Some((f, sp)) = setting_place(link.cfg, s) {
                        d.label(f, sp, "sets the socket's permissions");
                    }
                }
            }
            let unset = ["listen.owner", "listen.group"]
                .iter()
                .all(|k| link.cfg.get(link.pool, k).is_none());
            d.help = Some(if unset && sock.acl.is_none() {
                format!(
                    "without listen.owner/listen.group the socket belongs to php-fpm's master \
                     (root); set `listen.owner = {user}` and `listen.group = {group}`"
                )
            } else {
                format!(
                    "give nginx's user or group ({user}/{group}) write permission: \
                     listen.owner, listen.group and listen.mode (or listen.acl_users)"
                )
            });
            if unset && sock.acl.is_none() && sock.mode & 0o200 != 0 {
                let src = link.cfg.source(link.listen).clone();
                if let Some(e) = insert_after_entry(
                    &src,
                    link.cfg,
                    link.listen,
                    &[("listen.owner", &user), ("listen.group", &group)],
                ) {
                    d.with_fix(Fix::unsafe_(
                        format!("Set listen.owner = {user} and listen.group = {group}"),
                        vec![e],
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sock(owner: &str, group: &str, mode: u32) -> Socket {
        let id = |s: &str| (!s.is_empty()).then(|| s.to_string());
        Socket {
            owner: id(owner),
            group: id(group),
            mode,
            acl: None,
        }
    }

    #[test]
    fn access() {
        // Debian: www-data both sides.
        assert_eq!(
            allowed("www-data", "www-data", &sock("www-data", "www-data", 0o660)),
            Some(true)
        );
        // Master as root, nothing set.
        assert_eq!(
            allowed("www-data", "www-data", &sock("root", "root", 0o660)),
            Some(false)
        );
        assert_eq!(
            allowed("www-data", "www-data", &sock("root", "root", 0o666)),
            Some(true)
        );
        // Group www-data, nginx runs as nginx: membership unknown.
        assert_eq!(
            allowed("nginx", "nginx", &sock("root", "www-data", 0o660)),
            None
        );
        // Neither group nor other may write: denied for anyone but the owner.
        assert_eq!(
            allowed("nginx", "nginx", &sock("www-data", "www-data", 0o600)),
            Some(false)
        );
        // Owner's primary group unknown, mode 0660: unknown.
        assert_eq!(
            allowed("nginx", "nginx", &sock("www-data", "", 0o660)),
            None
        );
        // Numeric vs name: unknown.
        assert_eq!(
            allowed("www-data", "www-data", &sock("33", "33", 0o600)),
            None
        );
        assert_eq!(
            allowed("root", "root", &sock("www-data", "www-data", 0o600)),
            Some(true)
        );
        assert_eq!(parse_mode("0660"), 0o660);
        assert_eq!(parse_mode("666"), 0o666);
    }
}
