//! The boundary every read and write stays inside.
//!
//! lemplint runs on pull requests from people the repository's owner does not trust, and its
//! output is often a public CI log. So every path it opens — found by discovery, named by an
//! `include`, matched by a glob, reached through a symlink at any depth, or `lemplint.toml` —
//! is resolved first (symlinks and `..` included) and must land inside the *linted roots*:
//! the repository's work tree (or the directories given, outside one), plus what the command
//! line adds (`--root`, `--prefix`, `--allow-outside`). What lands outside is refused before
//! it is opened, so no byte of it can reach a diagnostic.
//!
//! Resolution follows symlinks the way the server would: inside a repository that mirrors a
//! server (`hosts/web1/etc/nginx/…`), a link to `/etc/nginx/sites-available/x` means that
//! server's file, so an absolute link target is read under the server root, and `..` cannot
//! climb above it (as under `chroot`). Only the live system (`lemplint lint /`, paths under
//! `/etc`) resolves absolute targets on this machine.
//!
//! Inside the roots some paths are refused too: version-control metadata (`.git/config` holds
//! the CI job's token when a checkout persists credentials), dotenv and credential files, and
//! the kernel's pseudo-filesystems (`/proc/self/environ` is the job's environment).

use crate::fxhash::FxHashMap;
use std::ffi::OsStr;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

/// Why a path was not opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// It resolves outside the linted roots.
    Outside,
    /// Version-control metadata or a credentials file: never read, wherever it is.
    Secret,
    /// `/proc`, `/sys` or `/dev`: no configuration lives there, secrets and devices do.
    PseudoFs,
}

impl Refusal {
    pub fn describe(self) -> &'static str {
        match self {
            Refusal::Outside => "it is outside the linted tree",
            Refusal::Secret => {
                "it is version-control metadata or a credentials file, which lemplint never reads"
            }
            Refusal::PseudoFs => "it is in /proc, /sys or /dev, which lemplint never reads",
        }
    }
}

/// The error a refused path gives (inside an [`io::Error`], so every reader handles it where it
/// handles a missing file, and callers tell it apart with [`refusal`]).
#[derive(Debug)]
pub struct Refused(pub Refusal);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not read: {}", self.0.describe())
    }
}

impl std::error::Error for Refused {}

/// The refusal inside `e`, when `e` is one.
pub fn refusal(e: &io::Error) -> Option<Refusal> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<Refused>())
        .map(|r| r.0)
}

fn refused(r: Refusal) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, Refused(r))
}

/// Directories whose files are never read: version-control metadata (credentials, hooks) and
/// per-user key stores.
const SECRET_DIRS: &[&str] = &[
    ".git", ".hg", ".svn", ".bzr", "_darcs", ".ssh", ".gnupg", ".aws",
];

/// File names that hold credentials by convention.
fn is_secret_file(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    matches!(
        name,
        ".env" | ".envrc" | ".netrc" | ".git-credentials" | ".npmrc" | ".pypirc" | ".pgpass"
    ) || name.starts_with(".env.")
}

/// Real paths that are never read, even on the live system.
const PSEUDO_FS: &[&str] = &["/proc", "/sys", "/dev"];

/// How many symlinks one resolution may follow (the kernel's limit is 40).
const MAX_LINKS: u32 = 40;

/// The linted roots and the rules for resolving paths inside them.
#[derive(Debug)]
pub struct Confinement {
    /// Canonical directories inside which files may be read and written.
    roots: Vec<PathBuf>,
    /// The live system: every path but the pseudo-filesystems and secrets.
    live: bool,
    /// `/` of the server the files describe, when given (`--root`): absolute link targets
    /// resolve under it. Otherwise each link's own server root is detected.
    server_root: Option<PathBuf>,
    /// The current directory, resolved once.
    cwd: PathBuf,
    /// Directories already resolved (absolute lexical path → real path), so a directory of
    /// thousands of vhosts is resolved once, not once per file.
    dirs: RwLock<FxHashMap<PathBuf, PathBuf>>,
}

/// What a path resolved to.
#[derive(Debug)]
pub struct Resolution {
    /// The real path (no symlink, `.` or `..` left), which may not exist.
    pub real: PathBuf,
    /// The real path's own metadata (not following a symlink), when it exists.
    pub meta: Option<std::fs::Metadata>,
}

impl Confinement {
    /// A boundary of `roots` (each resolved now; a root that does not exist is dropped).
    pub fn new(roots: &[PathBuf], live: bool, server_root: Option<PathBuf>) -> Confinement {
        let cwd = std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .unwrap_or_else(|_| PathBuf::from("/"));
        let mut real: Vec<PathBuf> = roots
            .iter()
            .filter_map(|r| real_root(&cwd.join(r)))
            .collect();
        real.sort();
        real.dedup();
        let server_root = server_root.and_then(|r| std::fs::canonicalize(cwd.join(r)).ok());
        Confinement {
            roots: real,
            live,
            server_root,
            cwd,
            dirs: RwLock::new(FxHashMap::default()),
        }
    }

    /// Everything on this machine but the pseudo-filesystems and secrets (the live system,
    /// and tests that read fixtures by absolute path).
    pub fn live() -> Arc<Confinement> {
        Arc::new(Confinement::new(&[], true, None))
    }

    pub fn is_live(&self) -> bool {
        self.live
    }

    /// The linted roots (canonical), for messages and for locking writers out of each other.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Whether the real path `real` may be opened.
    pub fn permit(&self, real: &Path) -> Result<(), Refusal> {
        if PSEUDO_FS.iter().any(|p| real.starts_with(p)) {
            return Err(Refusal::PseudoFs);
        }
        let base = if self.live {
            Some(Path::new("/"))
        } else {
            // The innermost root holding it: secrets are judged below it, so a repository
            // checked out under a dot-directory (`~/.cache/ci/repo`) is still readable.
            self.roots
                .iter()
                .filter(|r| real.starts_with(r))
                .max_by_key(|r| r.as_os_str().len())
                .map(PathBuf::as_path)
        };
        let Some(base) = base else {
            return Err(Refusal::Outside);
        };
        let rel = real.strip_prefix(base).unwrap_or(real);
        let secret_dir = rel.components().any(|c| match c {
            Component::Normal(name) => SECRET_DIRS.iter().any(|d| name == OsStr::new(d)),
            _ => false,
        });
        if secret_dir || rel.file_name().is_some_and(is_secret_file) {
            return Err(Refusal::Secret);
        }
        Ok(())
    }

    /// Resolves `path` (relative to the current directory) to its real path, following
    /// symlinks as the server would (see the module docs).
    pub fn resolve(&self, path: &Path) -> io::Result<Resolution> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            // `/`, or a path ending in `..`: resolve it as a directory.
            let real = self.resolve_dir(&self.absolute(path))?;
            let meta = std::fs::symlink_metadata(&real).ok();
            return Ok(Resolution { real, meta });
        };
        // Nearly every path is a file in a directory seen before: its directory is looked up
        // as written (the current directory does not change during a run), without joining
        // or allocating anything but the result.
        let known = self
            .dirs
            .read()
            .ok()
            .and_then(|dirs| dirs.get(parent).map(|d| d.join(name)));
        let candidate = match known {
            Some(c) => c,
            None => {
                let real = self.resolve_dir(&self.absolute(parent))?;
                let candidate = real.join(name);
                if let Ok(mut dirs) = self.dirs.write() {
                    dirs.insert(parent.to_path_buf(), real);
                }
                candidate
            }
        };
        let mut links = 0;
        self.follow(candidate, &mut links)
    }

    /// Resolves `path` and checks it: the real path, or why it may not be opened.
    pub fn check(&self, path: &Path) -> io::Result<Resolution> {
        let r = self.resolve(path)?;
        self.permit(&r.real).map_err(refused)?;
        Ok(r)
    }

    /// `path` made absolute against the current directory, with `.` dropped (`..` is kept:
    /// it is resolved against the real directory it follows).
    fn absolute(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.cwd.join(path)
        }
    }

    /// The real path of directory `abs` (absolute, possibly with `..` and symlinks), cached.
    fn resolve_dir(&self, abs: &Path) -> io::Result<PathBuf> {
        if let Some(real) = self.cached(abs) {
            return Ok(real);
        }
        let real = match (abs.parent(), abs.components().next_back()) {
            (None, _) => PathBuf::from("/"),
            (Some(parent), Some(last)) => {
                let parent = self.resolve_dir(parent)?;
                match last {
                    Component::CurDir => parent,
                    // A local path's `..` is the real parent: the loaders have already
                    // mapped the server's paths (where `..` stops at `/`) into the tree.
                    Component::ParentDir => parent.parent().unwrap_or(Path::new("/")).to_path_buf(),
                    Component::Normal(name) => {
                        let mut links = 0;
                        self.follow(parent.join(name), &mut links)?.real
                    }
                    Component::RootDir | Component::Prefix(_) => PathBuf::from("/"),
                }
            }
            (Some(_), None) => PathBuf::from("/"),
        };
        if let Ok(mut dirs) = self.dirs.write() {
            dirs.insert(abs.to_path_buf(), real.clone());
        }
        Ok(real)
    }

    fn cached(&self, abs: &Path) -> Option<PathBuf> {
        self.dirs.read().ok()?.get(abs).cloned()
    }

    /// The server root above `real` whose `/` absolute link targets mean: none on the live
    /// system (they mean this machine's own files).
    fn floor_of(&self, real: &Path) -> Option<PathBuf> {
        if self.live {
            return None;
        }
        if let Some(root) = &self.server_root {
            if real.starts_with(root) {
                return Some(root.clone());
            }
        }
        let root = super::paths::detect_root(real)?;
        // Only a server root inside the linted tree maps links; above it, nothing does.
        self.roots
            .iter()
            .any(|r| root.starts_with(r))
            .then_some(root)
    }

    /// Resolves `candidate` (a name inside a real directory), following it when it is a
    /// symlink.
    fn follow(&self, candidate: PathBuf, links: &mut u32) -> io::Result<Resolution> {
        let meta = match std::fs::symlink_metadata(&candidate) {
            Ok(m) => m,
            Err(e)
                if e.kind() == io::ErrorKind::NotFound
                    || e.raw_os_error() == Some(libc::ENOTDIR) =>
            {
                return Ok(Resolution {
                    real: candidate,
                    meta: None,
                })
            }
            Err(e) => return Err(e),
        };
        if !meta.file_type().is_symlink() {
            return Ok(Resolution {
                real: candidate,
                meta: Some(meta),
            });
        }
        *links += 1;
        if *links > MAX_LINKS {
            return Err(io::Error::from_raw_os_error(libc::ELOOP));
        }
        let target = std::fs::read_link(&candidate)?;
        let dir = candidate.parent().unwrap_or(Path::new("/")).to_path_buf();
        // The server resolves its links on its own file system: an absolute target starts
        // at its `/`, and `..` never climbs above it.
        let floor = self.floor_of(&dir);
        let mut at = match (&floor, target.is_absolute()) {
            (Some(f), true) => f.clone(),
            (None, true) => PathBuf::from("/"),
            (_, false) => dir.clone(),
        };
        let mut comps: Vec<&OsStr> = Vec::new();
        for c in target.components() {
            match c {
                Component::Normal(n) => comps.push(n),
                Component::ParentDir => comps.push(OsStr::new("..")),
                _ => {}
            }
        }
        let last = comps.len();
        for (i, c) in comps.into_iter().enumerate() {
            if c == ".." {
                at = match &floor {
                    Some(f) if at == *f => at,
                    _ => at.parent().unwrap_or(Path::new("/")).to_path_buf(),
                };
                if i + 1 == last {
                    let meta = std::fs::symlink_metadata(&at).ok();
                    return Ok(Resolution { real: at, meta });
                }
                continue;
            }
            let r = self.follow(at.join(c), links)?;
            if i + 1 == last {
                return Ok(r);
            }
            at = r.real;
        }
        // A link to `/` or to its own directory.
        let meta = std::fs::symlink_metadata(&at).ok();
        Ok(Resolution { real: at, meta })
    }

    /// The real file `path` was opened as, shown relative to the current directory, when a
    /// symlink on the way led elsewhere than the path's own spelling (`sites-enabled/x`
    /// read as `sites-available/x`); `None` when the path is the file's own name.
    pub fn through_link(&self, path: &Path, real: &Path) -> Option<PathBuf> {
        let mut plain = if path.is_absolute() {
            PathBuf::from("/")
        } else {
            self.cwd.clone()
        };
        for c in path.components() {
            match c {
                Component::Normal(n) => plain.push(n),
                Component::ParentDir => {
                    plain.pop();
                }
                _ => {}
            }
        }
        (plain != real).then(|| self.shown(real))
    }

    /// The real path shown for `real`: relative to the current directory when below it.
    pub fn shown(&self, real: &Path) -> PathBuf {
        match real.strip_prefix(&self.cwd) {
            Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
            Ok(rel) => rel.to_path_buf(),
            Err(_) => real.to_path_buf(),
        }
    }
}

/// A root's real path: its directory resolved, its own name not followed when it is a
/// symlink (a link to elsewhere must not make elsewhere part of the tree; reading through it
/// is then refused, and the message says so).
fn real_root(abs: &Path) -> Option<PathBuf> {
    let meta = std::fs::symlink_metadata(abs).ok()?;
    if !meta.file_type().is_symlink() {
        return std::fs::canonicalize(abs).ok();
    }
    let parent = std::fs::canonicalize(abs.parent()?).ok()?;
    Some(parent.join(abs.file_name()?))
}

/// The work tree holding `abs` (the nearest ancestor with a `.git` directory or file).
pub fn work_tree_of(abs: &Path) -> Option<PathBuf> {
    abs.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Where the live system's configuration lives: paths given under these (or `/` itself) are
/// this machine's own files, read as the server reads them.
const LIVE_PREFIXES: &[&str] = &[
    "/etc",
    "/usr/local/etc",
    "/usr/local/nginx",
    "/usr/local/openresty",
];

/// Whether the real path `abs` is the live system's configuration.
pub fn is_live_path(abs: &Path) -> bool {
    abs == Path::new("/") || LIVE_PREFIXES.iter().any(|p| abs.starts_with(p))
}

/// A given path made absolute without following any symlink in it: the current directory
/// (resolved) joined with it, `.` and `..` applied to the names. What the tree is must not
/// depend on where a symlink inside it points: a pull request can turn `nginx/` into a link
/// to `/etc/nginx`.
pub fn lexical(given: &Path) -> PathBuf {
    lexical_from(&real_cwd(), given)
}

/// The current directory, resolved (`/` when there is none).
fn real_cwd() -> PathBuf {
    std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .unwrap_or_else(|_| PathBuf::from("/"))
}

/// [`lexical`] from the resolved current directory `cwd`.
fn lexical_from(cwd: &Path, given: &Path) -> PathBuf {
    let mut out = if given.is_absolute() {
        PathBuf::from("/")
    } else {
        cwd.to_path_buf()
    };
    for c in given.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

/// The root a given path contributes, from where the path is (see [`lexical`]): its work
/// tree; outside one, the server root it sits in (the directory above `etc/`), or the
/// directory itself. A named file's directory widens to its stack's (the nearest holding an
/// `nginx.conf`, as discovery finds the stack: `config/conf.d/site.conf` includes
/// `config/fastcgi_params`), but never above the current directory nor through a symlink:
/// naming a file there grants no more than naming `.` would, and a file named elsewhere, or
/// by a path through a link, keeps its directory.
pub fn root_for(given: &Path) -> Option<PathBuf> {
    let cwd = real_cwd();
    let abs = lexical_from(&cwd, given);
    if let Some(tree) = work_tree_of(&abs) {
        return Some(tree);
    }
    let is_dir = std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_dir());
    let dir = if is_dir {
        abs.clone()
    } else {
        abs.parent()?.to_path_buf()
    };
    match super::paths::detect_root(&abs) {
        Some(root) if root.is_absolute() && dir.starts_with(&root) => Some(root),
        _ if is_dir => Some(dir),
        _ => {
            // From `/` (or with no current directory), nothing is widened; nor through a
            // symlink: the root is made real (`Confinement::new`), and `pr/s -> ../victim`
            // would make `pr/s/nginx`, below the current directory as written, the victim's.
            let within = |d: &Path| {
                cwd != Path::new("/")
                    && d.starts_with(&cwd)
                    && std::fs::canonicalize(d).is_ok_and(|real| real == d)
            };
            Some(super::paths::stack_dir_of(&dir, within).unwrap_or(dir))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir_all(root.join("repo/etc/nginx/sites-available")).unwrap();
        std::fs::create_dir_all(root.join("repo/etc/nginx/sites-enabled")).unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::fs::write(root.join("outside/secret"), "TOKEN").unwrap();
        std::fs::write(root.join("repo/etc/nginx/sites-available/x"), "server {}").unwrap();
        (d, root)
    }

    #[test]
    fn symlinks_and_dotdot_are_resolved_before_the_check() {
        let (_d, root) = tree();
        let c = Confinement::new(&[root.join("repo")], false, None);
        let nginx = root.join("repo/etc/nginx");
        symlink(
            "../../../../outside/secret",
            nginx.join("sites-enabled/rel"),
        )
        .unwrap();
        symlink(
            root.join("outside/secret"),
            nginx.join("sites-enabled/abs-out"),
        )
        .unwrap();
        symlink("../sites-available/x", nginx.join("sites-enabled/ok")).unwrap();
        // An absolute target is the server's own path: under the server root `repo`.
        symlink(
            "/etc/nginx/sites-available/x",
            nginx.join("sites-enabled/abs"),
        )
        .unwrap();
        symlink(
            "/../../../../outside/secret",
            nginx.join("sites-enabled/climb"),
        )
        .unwrap();
        let check = |p: &str| c.check(&nginx.join(p)).map(|r| r.real);
        // `..` in a link stops at the server root, as on the server: `/outside/secret` there.
        assert_eq!(
            check("sites-enabled/rel").unwrap(),
            root.join("repo/outside/secret")
        );
        assert_eq!(
            check("sites-enabled/ok").unwrap(),
            nginx.join("sites-available/x")
        );
        assert_eq!(
            check("sites-enabled/abs").unwrap(),
            nginx.join("sites-available/x")
        );
        assert_eq!(
            check("sites-enabled/climb").unwrap(),
            root.join("repo/outside/secret")
        );
        // The path itself climbing out with `..`.
        let out = c.check(&nginx.join("../../../outside/secret")).unwrap_err();
        assert_eq!(refusal(&out), Some(Refusal::Outside));
        // An absolute link target in a tree with no server layout resolves on this machine,
        // which is outside.
        std::fs::create_dir_all(root.join("flat/sites")).unwrap();
        symlink(root.join("outside/secret"), root.join("flat/sites/out")).unwrap();
        let flat = Confinement::new(&[root.join("flat")], false, None);
        let e = flat.check(&root.join("flat/sites/out")).unwrap_err();
        assert_eq!(refusal(&e), Some(Refusal::Outside));
    }

    #[test]
    fn secrets_and_pseudo_files_are_refused_inside_the_tree() {
        let (_d, root) = tree();
        let c = Confinement::new(&[root.join("repo")], false, None);
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        for p in [".git/config", ".env", "etc/.env.production", ".git"] {
            let e = c.check(&root.join("repo").join(p)).unwrap_err();
            assert_eq!(refusal(&e), Some(Refusal::Secret), "{p}");
        }
        assert!(c.check(&root.join("repo/.docker/nginx.conf")).is_ok());
        let live = Confinement::new(&[], true, None);
        assert_eq!(
            refusal(&live.check(Path::new("/proc/self/environ")).unwrap_err()),
            Some(Refusal::PseudoFs)
        );
        assert!(live.check(Path::new("/etc/hostname")).is_ok());
    }

    #[test]
    fn link_loops_end() {
        let (_d, root) = tree();
        let c = Confinement::new(&[root.join("repo")], false, None);
        let a = root.join("repo/a");
        symlink("b", &a).unwrap();
        symlink("a", root.join("repo/b")).unwrap();
        assert!(c.check(&a).is_err());
    }
}
