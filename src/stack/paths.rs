//! Resolving paths written in configuration files the way the program reading them would,
//! but inside the tree being linted: relative paths against the program's prefix, absolute
//! ones through the server root when the files mirror a server in a repository.

use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct Resolver {
    /// What relative paths are relative to.
    pub prefix: PathBuf,
    /// Where `/` is: `hosts/web1` for `hosts/web1/etc/nginx/nginx.conf`.
    pub root: Option<PathBuf>,
    /// Absolute paths name files of this machine (the live system, a dump).
    pub absolute_ok: bool,
}

pub enum Resolved {
    Path(PathBuf),
    /// An absolute path of the server a repository describes, with no root to map it.
    OutsideTree(PathBuf),
}

impl Resolver {
    pub fn resolve(&self, written: &Path) -> Resolved {
        if written.is_absolute() {
            match &self.root {
                Some(root) => Resolved::Path(under_root(root, written)),
                None if self.absolute_ok => Resolved::Path(written.to_path_buf()),
                None => Resolved::OutsideTree(written.to_path_buf()),
            }
        } else {
            Resolved::Path(self.prefix.join(written))
        }
    }

    /// The real path an absolute path of the server maps to, for display and lookups
    /// (`/run/php/www.sock` stays as is: sockets are compared as the server sees them).
    pub fn map_absolute(&self, written: &Path) -> PathBuf {
        match (&self.root, written.is_absolute()) {
            (Some(root), true) => under_root(root, written),
            _ => written.to_path_buf(),
        }
    }
}

/// Whether a path is a glob pattern (`*`, `?` or `[`), as nginx and php-fpm decide.
pub fn is_glob(path: &Path) -> bool {
    path.to_string_lossy().contains(['*', '?', '['])
}

/// An absolute path of the server, inside the tree rooted at `root` (`.` adds nothing, so
/// paths read `etc/nginx/x.conf`, not `./etc/nginx/x.conf`).
pub fn under_root(root: &Path, absolute: &Path) -> PathBuf {
    let rel = absolute.strip_prefix("/").unwrap_or(absolute);
    if root == Path::new(".") {
        rel.to_path_buf()
    } else {
        root.join(rel)
    }
}
