//! What the rules across files (nginx, PHP-FPM, the kernel's sysctl settings) ask: which value of a
//! kernel setting applies (the stack's sysctl files, else the kernel's default), which PHP-FPM
//! pool an nginx `fastcgi_pass` reaches, which directive writes a target's address or a
//! `listen`'s backlog, and how to change a sysctl setting so that the change wins.

use crate::analysis::cursor::{self, Directive, Word};
use crate::fix::{edits, Edit};
use crate::host::HostFacts;
use crate::source::{Shared, Span};
use crate::stack::fpm::{FpmConfig, Listen, Pool, Setting};
use crate::stack::model::{NginxInstance, Stack};
use crate::stack::net::{self, Addr, FastcgiTarget};
use crate::stack::sizing;
use crate::stack::sysctl::Set;
use std::path::Path;

/// `path` relative to the stack's root, for messages.
pub fn shown(stack: &Stack, path: &Path) -> String {
    path.strip_prefix(&stack.root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Where the value of a kernel setting comes from.
#[derive(Clone, Debug)]
pub enum Origin {
    /// The assignment that wins in the stack's sysctl files.
    Set(Set),
    /// Not set: the kernel's default, with the words that say which.
    Default(String),
}

#[derive(Clone, Debug)]
pub struct KernelSetting {
    pub value: u64,
    pub origin: Origin,
}

impl KernelSetting {
    /// `net.core.somaxconn = 128 (etc/sysctl.d/60-web.conf:2)` or
    /// `net.core.somaxconn = 4096 (not set: the kernel default since Linux 5.4)`.
    pub fn describe(&self, stack: &Stack, key: &str) -> String {
        match &self.origin {
            Origin::Set(s) => {
                let f = &stack.sysctl.files[s.file].source;
                let line = stack
                    .sysctl
                    .assignment(*s)
                    .map_or(0, |a| f.line_of(a.key.start));
                format!("{key} = {} ({}:{line})", self.value, shown(stack, &f.path))
            }
            Origin::Default(why) => format!("{key} = {} ({why})", self.value),
        }
    }

    /// The file and span of the assignment, for a label.
    pub fn place(&self, stack: &Stack) -> Option<(Shared, Span)> {
        let Origin::Set(s) = &self.origin else {
            return None;
        };
        let a = stack.sysctl.assignment(*s)?;
        Some((
            stack.sysctl.files[s.file].source.clone(),
            a.key.cover(a.value),
        ))
    }
}

/// The value the stack's sysctl files give `key`: `None` when it cannot be known (the stack
/// has no sysctl file, so the server's settings are elsewhere; or the value is not a number),
/// `Some(None)` when the files do not set it (the kernel default applies).
pub fn sysctl_number(stack: &Stack, key: &str) -> Option<Option<(Set, u64)>> {
    if stack.sysctl.files.iter().all(|f| f.masked_by.is_some()) {
        return None;
    }
    match stack.sysctl.effective(key) {
        None => Some(None),
        Some((s, v)) => v.trim().parse().ok().map(|n| Some((s, n))),
    }
}

/// A kernel setting with a fixed default: the stack's value, else `default`.
pub fn kernel_setting(stack: &Stack, key: &str, default: u64, why: &str) -> Option<KernelSetting> {
    Some(match sysctl_number(stack, key)? {
        Some((s, value)) => KernelSetting {
            value,
            origin: Origin::Set(s),
        },
        None => KernelSetting {
            value: default,
            origin: Origin::Default(why.to_string()),
        },
    })
}

/// Which side of an unknown kernel version to assume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assume {
    /// The largest default any kernel has: a value above it is above the default everywhere.
    Largest,
    /// The smallest default any kernel has.
    Smallest,
}

/// `net.core.somaxconn`: the stack's value, else the kernel default (4096 since Linux 5.4, 128
/// before: ip-sysctl.rst, listen(2)); with no kernel version, the default on the `assume` side,
/// so that a finding holds on every kernel.
pub fn somaxconn(stack: &Stack, host: &HostFacts, assume: Assume) -> Option<KernelSetting> {
    let key = "net.core.somaxconn";
    let (value, why) = match &host.kernel {
        Some(k) => {
            let value = sizing::default_somaxconn(k.value);
            let when = if k.value >= sizing::SOMAXCONN_4096_SINCE {
                "since"
            } else {
                "before"
            };
            (
                value,
                format!(
                    "not set: the kernel default {when} Linux 5.4, host kernel {}",
                    k.value
                ),
            )
        }
        None if assume == Assume::Largest => (
            4096,
            "not set: the kernel default since Linux 5.4, 128 before".to_string(),
        ),
        None => (
            128,
            "not set: the kernel default before Linux 5.4, 4096 since".to_string(),
        ),
    };
    kernel_setting(stack, key, value, &why)
}

/// Whether a sysctl file may be edited by a fix: the admin's own files (`/etc`,
/// `/usr/local/lib`, a repository's layout), not the packages' (`/usr/lib`, `/lib`) nor the
/// runtime ones (`/run`).
fn editable(stack: &Stack, path: &Path) -> bool {
    let rel = path.strip_prefix(&stack.root).unwrap_or(path);
    let rel = rel.to_string_lossy();
    let rel = rel.trim_start_matches('/');
    !(rel.starts_with("usr/lib/") || rel.starts_with("lib/") || rel.starts_with("run/"))
}

/// Edits that make `key = value` the setting the kernel ends up with: the winning assignment
/// changed in place when it is in an editable file, else a line appended to the editable file
/// applied last (when no later file sets the key). `None` when no such edit exists.
pub fn set_sysctl(stack: &Stack, key: &str, value: u64) -> Option<Vec<Edit>> {
    let set = &stack.sysctl;
    let winner = set.effective(key).map(|(s, _)| s);
    if let Some(s) = winner {
        let f = &set.files[s.file];
        if editable(stack, &f.source.path) {
            let a = set.assignment(s)?;
            return Some(vec![Edit::replace(&f.source, a.value, value.to_string())]);
        }
    }
    let (idx, last) = set
        .files
        .iter()
        .enumerate()
        .rfind(|(_, f)| f.masked_by.is_none() && editable(stack, &f.source.path))?;
    if winner.is_some_and(|s| s.file > idx) {
        return None;
    }
    Some(vec![edits::append_line(
        &last.source,
        &format!("{key} = {value}"),
    )])
}

/// The PHP version of a PHP-FPM configuration: the `[host] php` fact, else the version in its
/// path (`/etc/php/8.2/fpm`, `/etc/php82`, `/usr/local/php74`, `php-fpm-7.4`).
pub fn php_version(host: &HostFacts, cfg: &FpmConfig) -> Option<(u32, u32)> {
    if let Some(f) = &host.php {
        let mut parts = f.value.split(|c: char| !c.is_ascii_digit());
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
        return Some((major, minor));
    }
    let path = &cfg.files.first()?.source.path;
    let parts: Vec<String> = path
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    for (i, part) in parts.iter().enumerate() {
        if part == "php" || part == "php-fpm" {
            if let Some(v) = parts.get(i + 1).and_then(|n| dotted_version(n)) {
                return Some(v);
            }
        }
        if let Some(rest) = part.strip_prefix("php") {
            let rest = rest.trim_start_matches("-fpm").trim_start_matches('-');
            if let Some(v) = dotted_version(rest).or_else(|| packed_version(rest)) {
                return Some(v);
            }
        }
    }
    None
}

/// `8.2` → (8, 2).
fn dotted_version(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.split_once('.')?;
    let major: u32 = a.parse().ok()?;
    let minor: u32 = b.parse().ok()?;
    (5..=9).contains(&major).then_some((major, minor))
}

/// `74` → (7, 4): the two-digit names of source builds and RHEL's SCL packages.
fn packed_version(s: &str) -> Option<(u32, u32)> {
    let b = s.as_bytes();
    (b.len() == 2 && b.iter().all(u8::is_ascii_digit) && (b'5'..=b'8').contains(&b[0]))
        .then(|| (u32::from(b[0] - b'0'), u32::from(b[1] - b'0')))
}

/// A unix socket path as the kernel resolves it: `/var/run` is a symlink to `/run` on every
/// current distribution, so `/var/run/php/x.sock` and `/run/php/x.sock` are one socket.
fn canonical_socket(path: &str) -> String {
    match path.strip_prefix("/var/run/") {
        Some(rest) => format!("/run/{rest}"),
        None => path.to_string(),
    }
}

/// [`net::reaches`], with `/var/run` and `/run` taken as one directory.
pub fn reaches(target: &Addr, listen: &Listen) -> bool {
    match (target, listen) {
        (Addr::Unix(a), Listen::Unix { path }) => net::reaches(
            &Addr::Unix(canonical_socket(a)),
            &Listen::Unix {
                path: canonical_socket(path),
            },
        ),
        _ => net::reaches(target, listen),
    }
}

/// Where a pool listens, when it is known for sure: not for `${VAR}` values (the server's
/// environment decides) nor for relative socket paths (php-fpm's prefix decides).
pub fn pool_listen(cfg: &FpmConfig, pool: &Pool) -> Option<(Setting, Listen)> {
    let (s, value) = cfg.get(pool, "listen")?;
    if value.contains("${") {
        return None;
    }
    let listen = Listen::parse(&value)?;
    match &listen {
        Listen::Unix { path } if !path.starts_with('/') => None,
        _ => Some((s, listen)),
    }
}

/// The nginx configurations that run: when the stack has a main `nginx.conf`, a file nothing
/// includes (a vhost left in `sites-available`, a snippet) is not part of the server's
/// configuration; only a repository of lone vhost files is judged file by file.
pub fn active_nginx(stack: &Stack) -> impl Iterator<Item = &NginxInstance> {
    let has_main = stack.nginx.iter().any(|i| !i.standalone);
    stack
        .nginx
        .iter()
        .filter(move |i| !has_main || !i.standalone)
}

/// Every directive named `name` in the configurations that run ([`active_nginx`]).
pub fn active_directives<'a>(
    stack: &'a Stack,
    name: &'a str,
) -> impl Iterator<Item = Directive<'a>> + 'a {
    active_nginx(stack).flat_map(move |inst| cursor::named(inst, name))
}

/// The directive that writes a FastCGI target's address (its first argument): the upstream
/// `server` it comes from, else the `fastcgi_pass` itself.
pub fn target_directive<'a>(inst: &'a NginxInstance, t: &FastcgiTarget) -> Directive<'a> {
    Directive::new(inst, t.server.unwrap_or(t.pass))
}

/// The `backlog=N` parameter of a `listen`, with its value: digits only, as `ngx_atoi`
/// reads it (anything else is nginx's error, not a backlog).
pub fn listen_backlog(listen: Directive<'_>) -> Option<(Word<'_>, u64)> {
    listen.args().find_map(|a| {
        let value = a.value();
        let n = value.strip_prefix("backlog=")?;
        let n = n
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| n.parse::<u64>().ok())
            .flatten()?;
        Some((a, n))
    })
}

/// Top-level directories of a server's file system: files under them belong to one machine.
const SERVER_DIRS: &[&str] = &["etc", "usr", "opt", "srv", "var", "run", "home"];

/// Whether an nginx configuration and a PHP-FPM configuration of the stack describe the same
/// machine. Under a server layout (`etc/nginx`, `etc/php`, `usr/local/…`) they do. A
/// repository without one (a collection of examples, a compose project with a directory per
/// container) pairs them when both live in the same top-level directory (`config/nginx.conf`
/// with `config/fpm-pool.conf`, not `demo-a/nginx.conf` with `demo-b/www.conf`), or when nginx
/// passes to a unix socket one of the configuration's pools listens on (`nginx/nginx.conf`
/// with `php/php-fpm.d/www.conf`); a shared `127.0.0.1:9000` is too common to tell.
pub fn same_server(stack: &Stack, nginx: &NginxInstance, cfg: &FpmConfig) -> bool {
    let (Some(a), Some(b)) = (nginx.config.files.first(), cfg.files.first()) else {
        return false;
    };
    // The first directory of the file's path under the root ("" for a file at the root).
    // Asked for every (nginx, pool) pair, tens of thousands of times on a large tree: it
    // borrows instead of collecting the path's components as strings.
    fn top<'p>(root: &Path, p: &'p Path) -> (bool, std::borrow::Cow<'p, str>) {
        let rel = under_root(root, p).unwrap_or(p);
        let mut parts = rel.components();
        let first = match (parts.next(), parts.next()) {
            (Some(dir), Some(_)) => dir.as_os_str().to_string_lossy(),
            _ => "".into(),
        };
        (SERVER_DIRS.contains(&first.as_ref()), first)
    }
    let (a_server, a_top) = top(&stack.root, &a.source.path);
    let (b_server, b_top) = top(&stack.root, &b.source.path);
    if (a_server && b_server) || a_top == b_top {
        return true;
    }
    let sockets: Vec<Listen> = cfg
        .pools
        .iter()
        .filter_map(|p| pool_listen(cfg, p).map(|(_, l)| l))
        .filter(|l| matches!(l, Listen::Unix { .. }))
        .collect();
    net::fastcgi_targets(nginx)
        .iter()
        .any(|t| sockets.iter().any(|l| reaches(&t.addr, l)))
}

/// `p.strip_prefix(root)` for the usual case, `p` spelled as `root` + `/` + the rest, by
/// comparing bytes: `Path::strip_prefix` compares component by component (1,400
/// instructions for a corpus path), and [`same_server`] asks it for every (nginx, pool)
/// pair. `None` where the two could differ (a rest that starts with `/` or `./`, which
/// components would skip after the root but not at the start of a path; a root ending in
/// `/`) or where the bytes do not match: the caller then strips by components.
fn under_root<'p>(root: &Path, p: &'p Path) -> Option<&'p Path> {
    use std::os::unix::ffi::OsStrExt;
    let r = root.as_os_str().as_bytes();
    if r.is_empty() || r.ends_with(b"/") {
        return None;
    }
    let rest = p
        .as_os_str()
        .as_bytes()
        .strip_prefix(r)?
        .strip_prefix(b"/")?;
    if rest.starts_with(b"/") || rest.starts_with(b"./") || rest == b"." {
        return None;
    }
    Some(Path::new(std::ffi::OsStr::from_bytes(rest)))
}

/// One `fastcgi_pass` target that reaches a pool of the stack.
pub struct PoolLink<'a> {
    /// The `fastcgi_pass` (of one configuration) the target comes from.
    pub pass: Directive<'a>,
    pub target: FastcgiTarget,
    pub cfg: &'a FpmConfig,
    pub pool: &'a Pool,
    pub listen: Setting,
}

/// Every (nginx `fastcgi_pass` target, pool) pair where the target reaches the pool.
pub fn pool_links(stack: &Stack) -> Vec<PoolLink<'_>> {
    let pools: Vec<(&FpmConfig, &Pool, Setting, Listen)> = stack
        .pools()
        .filter_map(|(c, p)| pool_listen(c, p).map(|(s, l)| (c, p, s, l)))
        .collect();
    let mut out = Vec::new();
    for inst in active_nginx(stack) {
        for t in net::fastcgi_targets(inst).iter() {
            for (cfg, pool, s, l) in &pools {
                if reaches(&t.addr, l) && same_server(stack, inst, cfg) {
                    out.push(PoolLink {
                        pass: Directive::new(inst, t.pass),
                        target: t.clone(),
                        cfg,
                        pool,
                        listen: *s,
                    });
                }
            }
        }
    }
    out
}

/// The merged pool (with its php.ini and effective PHP settings) a link reaches.
pub fn pool_view<'a>(
    instances: &'a [crate::stack::instances::Instance<'a>],
    link: &PoolLink<'_>,
) -> Option<&'a crate::stack::instances::PoolView<'a>> {
    instances.iter().find_map(|i| {
        if !i.configs.iter().any(|c| std::ptr::eq(*c, link.cfg)) {
            return None;
        }
        i.pools
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(&link.pool.name))
    })
}

/// A pool setting's value span, for reports and labels.
pub fn setting_place(cfg: &FpmConfig, s: Setting) -> Option<(Shared, Span)> {
    let e = cfg.entry(s)?;
    Some((cfg.source(s).clone(), e.key.cover(e.raw_value)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_root_strips_as_components_do() {
        let roots = ["/w/corpus", ".", "./a", "a/.", "a", "/", "a//b", ""];
        let paths = [
            "/w/corpus/etc/nginx.conf",
            "/w/corpus//etc/x",
            "/w/corpus/./etc/x",
            "/w/corpus/",
            "/w/corpusx/etc",
            "./x/y",
            "./a/x",
            "a/./x/y",
            "a/x",
            "a/b/x",
            "a//b/x",
            "/etc/x",
            "x",
        ];
        for r in roots {
            for p in paths {
                let (r, p) = (Path::new(r), Path::new(p));
                let by_components = p.strip_prefix(r).ok();
                if let Some(fast) = under_root(r, p) {
                    let want = by_components.expect("bytes matched where components did not");
                    assert!(fast.components().eq(want.components()), "{r:?} {p:?}");
                }
            }
        }
    }

    #[test]
    fn socket_aliases() {
        let t = Addr::Unix("/var/run/php/php8.2-fpm.sock".into());
        let l = Listen::parse("/run/php/php8.2-fpm.sock").unwrap();
        assert!(reaches(&t, &l));
        let l = Listen::parse("/run/php/php8.1-fpm.sock").unwrap();
        assert!(!reaches(&t, &l));
    }

    #[test]
    fn versions_in_paths() {
        assert_eq!(dotted_version("8.2"), Some((8, 2)));
        assert_eq!(packed_version("74"), Some((7, 4)));
        assert_eq!(packed_version("7"), None);
        assert_eq!(dotted_version("1.2"), None);
    }
}
