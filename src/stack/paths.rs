//! Resolving paths written in configuration files the way the program reading them would,
//! but inside the tree being linted: relative paths against the program's prefix, absolute
//! ones through the server root when the files mirror a server in a repository.
//!
//! The server's paths are resolved as the server resolves them, lexically first: `..` never
//! climbs above the server's `/`, so `include ../../../../proc/self/environ;` in
//! `hosts/web1/etc/nginx/nginx.conf` means `hosts/web1/proc/self/environ`, the server's file,
//! and never the machine running lemplint. Symlinks are then followed by the confinement
//! ([`super::confine`]), which refuses whatever still leads out of the linted tree.

use super::fs::Fs;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

#[derive(Clone, Debug)]
pub struct Resolver {
    /// What relative paths are relative to, as a path of this machine (`None`: the prefix is
    /// a path of a server with no root to map it, so relative paths cannot be followed).
    pub prefix: Option<PathBuf>,
    /// Where `/` is: `hosts/web1` for `hosts/web1/etc/nginx/nginx.conf`.
    pub root: Option<PathBuf>,
}

pub enum Resolved {
    Path(PathBuf),
    /// A path of the server a repository describes, with no root to map it into the tree:
    /// not lemplint's to read or to judge.
    Unmapped(PathBuf),
}

/// Where nginx's configuration directory is on servers: a repository whose main file sits
/// at its top is often that directory itself.
const NGINX_CONF_DIRS: &[&str] = &[
    "/etc/nginx",
    "/usr/local/nginx/conf",
    "/usr/local/etc/nginx",
    "/usr/local/openresty/nginx/conf",
    "/opt/nginx/conf",
];

impl Resolver {
    pub fn resolve(&self, written: &Path, fs: &dyn Fs) -> Resolved {
        if written.is_absolute() {
            let server = normalize(written);
            return match &self.root {
                Some(root) => {
                    // A top-level directory the tree does not have at all (`/config`, a
                    // container's volume filled at start): that part of the server is not in
                    // the repository, so nothing can be said about it.
                    let top = server.components().nth(1).map(|c| c.as_os_str());
                    match top {
                        Some(top) if !fs.exists(&under_root(root, &Path::new("/").join(top))) => {
                            Resolved::Unmapped(server)
                        }
                        _ => Resolved::Path(under_root(root, &server)),
                    }
                }
                // A path of this machine that lies in the tree (a tree linted outside any
                // repository by absolute path), or the live system's own file.
                None if fs.contains(&server) => Resolved::Path(server),
                // A repository that is nginx's directory itself (`nginx.conf` at its top):
                // `/etc/nginx/fastcgi.conf` is the file beside it, when it is there.
                None => match self.in_conf_dir(&server, fs) {
                    Some(local) => Resolved::Path(local),
                    None => Resolved::Unmapped(server),
                },
            };
        }
        let Some(prefix) = &self.prefix else {
            return Resolved::Unmapped(written.to_path_buf());
        };
        match &self.root {
            Some(root) => match to_server(root, prefix) {
                Some(server_prefix) => {
                    Resolved::Path(under_root(root, &normalize(&server_prefix.join(written))))
                }
                None => Resolved::Path(prefix.join(written)),
            },
            None => Resolved::Path(prefix.join(written)),
        }
    }
}

impl Resolver {
    /// `server` as a file of the prefix, when it names one under a usual nginx configuration
    /// directory and the file (or a glob's directory) exists there.
    fn in_conf_dir(&self, server: &Path, fs: &dyn Fs) -> Option<PathBuf> {
        let prefix = self.prefix.as_ref()?;
        let rest = NGINX_CONF_DIRS
            .iter()
            .find_map(|d| server.strip_prefix(d).ok())?;
        let local = prefix.join(rest);
        let probe = if is_glob(&local) {
            local.parent()?.to_path_buf()
        } else {
            local.clone()
        };
        fs.exists(&probe).then_some(local)
    }
}

/// A configuration argument as a path, byte for byte (a name that is not UTF-8 stays exact).
pub fn from_bytes(value: &[u8]) -> PathBuf {
    PathBuf::from(OsStr::from_bytes(value))
}

/// Whether a path is a glob pattern (`*`, `?` or `[`), as nginx and php-fpm decide.
pub fn is_glob(path: &Path) -> bool {
    super::glob::is_pattern(path.as_os_str().as_bytes())
}

/// An absolute server path with `.` and `..` resolved lexically, as the kernel resolves them
/// at `/`: `..` of `/` is `/`.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// The server path of a local path below the server root (`hosts/web1/etc/nginx` →
/// `/etc/nginx`); `None` when it is not below it.
pub fn to_server(root: &Path, local: &Path) -> Option<PathBuf> {
    let rel = if root == Path::new(".") && !local.is_absolute() {
        local.to_path_buf()
    } else {
        match local.strip_prefix(root) {
            Ok(rel) => rel.to_path_buf(),
            // One absolute and one relative (`cd etc/nginx && lemplint lint nginx.conf`).
            Err(_) => {
                let local = std::path::absolute(local).ok()?;
                let root = std::path::absolute(root).ok()?;
                local.strip_prefix(root).ok()?.to_path_buf()
            }
        }
    };
    if rel.components().any(|c| matches!(c, Component::ParentDir)) {
        return None;
    }
    Some(Path::new("/").join(rel))
}

/// An absolute path of the server, inside the tree rooted at `root` (`.` adds nothing, so
/// paths read `etc/nginx/x.conf`, not `./etc/nginx/x.conf`).
pub fn under_root(root: &Path, absolute: &Path) -> PathBuf {
    let rel = absolute.strip_prefix("/").unwrap_or(absolute);
    if root == Path::new(".") {
        if rel.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            rel.to_path_buf()
        }
    } else {
        root.join(rel)
    }
}

/// The directory above the nearest `etc` component of `path`: a repository that mirrors a
/// server (`hosts/web1/etc/nginx/nginx.conf`) has its `/` at `hosts/web1`. Returns `None`
/// for the live system (`/etc/...`), where no mapping is needed.
pub fn detect_root(path: &Path) -> Option<PathBuf> {
    if let Some(root) = detect_root_of(path) {
        return Some(root);
    }
    if path.is_absolute() {
        return None;
    }
    // `cd hosts/web1/etc/nginx && lemplint lint nginx.conf`: look at the absolute path, and
    // show the result relative to the current directory when it is below it.
    let abs = std::path::absolute(path).ok()?;
    let root = detect_root_of(&abs)?;
    Some(relative_to_cwd(&root))
}

/// The directory of a named file's stack when no server root (`etc/`) says it: the
/// nearest of the file's directory and its three parents that holds an `nginx.conf`
/// (`config/conf.d/site.conf` belongs with `config/nginx.conf`). `allowed` bounds the walk
/// upward: the confinement stops at the current directory.
pub fn stack_dir_of(dir: &Path, allowed: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    dir.ancestors()
        .take(4)
        .take_while(|d| !d.as_os_str().is_empty() && allowed(d))
        .find(|d| d.join("nginx.conf").is_file())
        .map(Path::to_path_buf)
}

/// `path` relative to the current directory when it lies below it.
pub fn relative_to_cwd(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(&cwd).ok().map(Path::to_path_buf))
        .map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p
            }
        })
        .unwrap_or_else(|| path.to_path_buf())
}

fn detect_root_of(path: &Path) -> Option<PathBuf> {
    let comps: Vec<Component> = path.components().collect();
    let named = |c: &Component, name: &str| matches!(c, Component::Normal(n) if *n == name);
    // The nearest `etc` (`hosts/web1/etc/nginx`), but above a `usr` or `opt` that holds it
    // (`srv1/usr/local/php/etc/php-fpm.conf` is rooted at `srv1`); with no `etc`, above the
    // first `usr` (`srv1/usr/local/nginx/conf/nginx.conf`).
    let i = match comps.iter().rposition(|c| named(c, "etc")) {
        Some(e) => comps[..e]
            .iter()
            .rposition(|c| named(c, "usr") || named(c, "opt"))
            .unwrap_or(e),
        None => comps.iter().position(|c| named(c, "usr"))?,
    };
    let root: PathBuf = comps[..i].iter().collect();
    if root == Path::new("/") {
        return None;
    }
    // `etc/nginx/nginx.conf` from the repository root: the root is `.`.
    if root.as_os_str().is_empty() {
        return Some(PathBuf::from("."));
    }
    Some(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_paths_never_climb_above_the_root() {
        assert_eq!(
            normalize(Path::new("/../../../proc/self/environ")),
            Path::new("/proc/self/environ")
        );
        let r = Resolver {
            prefix: Some(PathBuf::from("hosts/web1/etc/nginx")),
            root: Some(PathBuf::from("hosts/web1")),
        };
        let mut fs = super::super::fs::DumpFs::default();
        fs.files
            .insert(PathBuf::from("hosts/web1/etc/nginx/nginx.conf"), Vec::new());
        let got = |w: &str| match r.resolve(Path::new(w), &fs) {
            Resolved::Path(p) => p,
            Resolved::Unmapped(p) => panic!("unmapped {}", p.display()),
        };
        assert_eq!(
            got("../../../../../../proc/self/environ"),
            Path::new("hosts/web1/proc/self/environ")
        );
        assert_eq!(got("/../../etc/x"), Path::new("hosts/web1/etc/x"));
        // A top-level directory the tree does not have (a container's volume): not mapped.
        assert!(matches!(
            r.resolve(Path::new("/config/nginx/site.conf"), &fs),
            Resolved::Unmapped(_)
        ));
        assert_eq!(
            got("conf.d/*.conf"),
            Path::new("hosts/web1/etc/nginx/conf.d/*.conf")
        );
        let dot = Resolver {
            prefix: Some(PathBuf::from("etc/nginx")),
            root: Some(PathBuf::from(".")),
        };
        match dot.resolve(Path::new("../../../x"), &fs) {
            Resolved::Path(p) => assert_eq!(p, Path::new("x")),
            Resolved::Unmapped(_) => panic!(),
        }
    }
}
