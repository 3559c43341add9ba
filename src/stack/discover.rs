//! Finding the stacks in what the user pointed at.
//!
//! Operators lay a server out the way the distribution does (`etc/nginx/nginx.conf`,
//! `etc/php/8.2/fpm/pool.d/www.conf`, `etc/sysctl.d/*.conf`), and infrastructure repositories
//! mirror that per host (`hosts/web1/etc/...`). So files are classified by their names and
//! directories, and grouped by their server root: the directory holding `etc/`, or else the
//! directory the user gave. Each root is one stack.

use super::fs::Fs;
use super::nginx::detect_root;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    Nginx,
    FpmMaster,
    FpmPool,
    Sysctl,
}

/// The files of one stack, by kind, in sorted order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackFiles {
    /// The server root (`/` for the live system).
    pub root: PathBuf,
    pub nginx: Vec<PathBuf>,
    pub fpm_masters: Vec<PathBuf>,
    pub fpm_pools: Vec<PathBuf>,
    pub sysctl: Vec<PathBuf>,
    /// Files the user named: always checked, whatever their content looks like.
    pub explicit: Vec<PathBuf>,
    /// Why discovery took each file for what it is (its name, its directory, its content),
    /// for `lemplint stack`. Files read through an include are what their includer is.
    pub why: BTreeMap<PathBuf, String>,
}

impl StackFiles {
    pub fn is_empty(&self) -> bool {
        self.nginx.is_empty()
            && self.fpm_masters.is_empty()
            && self.fpm_pools.is_empty()
            && self.sysctl.is_empty()
    }

    pub fn push(&mut self, kind: FileKind, path: PathBuf) {
        match kind {
            FileKind::Nginx => self.nginx.push(path),
            FileKind::FpmMaster => self.fpm_masters.push(path),
            FileKind::FpmPool => self.fpm_pools.push(path),
            FileKind::Sysctl => self.sysctl.push(path),
        }
    }

    /// Whether `path` is one of this stack's files.
    pub fn contains(&self, path: &Path) -> bool {
        [
            &self.nginx,
            &self.fpm_masters,
            &self.fpm_pools,
            &self.sysctl,
        ]
        .iter()
        .any(|list| list.iter().any(|p| p == path))
    }
}

/// Directories never worth descending into.
const SKIP_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "target",
    "node_modules",
    "__pycache__",
    ".venv",
];

/// Editor and package-manager leftovers that nginx globs would also skip in practice.
fn is_backup(name: &str) -> bool {
    name.ends_with('~')
        || name.starts_with('.')
        || [
            ".bak",
            ".orig",
            ".swp",
            ".dpkg-old",
            ".dpkg-dist",
            ".dpkg-new",
            ".rpmnew",
            ".rpmsave",
            ".disabled",
        ]
        .iter()
        .any(|s| name.ends_with(s))
}

/// What a file is, from its path alone; `None` when the path says nothing.
pub fn classify(path: &Path) -> Option<FileKind> {
    guess(path).map(|g| g.kind)
}

/// A file's kind as its path suggests it, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guess {
    pub kind: FileKind,
    pub why: String,
    /// The path is not enough: the content decides, and this is the kind when the content
    /// says nothing. A PHP-FPM name under an nginx directory (`etc/nginx/php-fpm.conf`, nearly
    /// always an nginx snippet for PHP), or any file of a PHP-FPM directory (demos keep nginx
    /// vhosts in `php-fpm/`), whose content reads like nginx.
    pub ambiguous: bool,
}

impl Guess {
    fn sure(kind: FileKind, why: impl Into<String>) -> Option<Guess> {
        Some(Guess {
            kind,
            why: why.into(),
            ambiguous: false,
        })
    }
}

/// The nearest directory of `path` that names a kind of configuration, with its name.
fn directory_kind<'p>(dirs: &[&'p str]) -> Option<(FileKind, &'p str)> {
    dirs.iter().rev().find_map(|&d| {
        let kind = match d {
            "sysctl.d" => FileKind::Sysctl,
            "pool.d" | "php-fpm.d" => FileKind::FpmPool,
            "sites-enabled" | "sites-available" | "snippets" => FileKind::Nginx,
            "fpm" | "php" | "php-fpm" => FileKind::FpmPool,
            _ if d.contains("nginx") || d.contains("openresty") => FileKind::Nginx,
            _ if d.contains("php-fpm") || d.contains("phpfpm") => FileKind::FpmPool,
            _ if d.contains("sysctl") => FileKind::Sysctl,
            _ => return None,
        };
        Some((kind, d))
    })
}

/// What a file is from its path: the file name decides first (`nginx.conf`, `php-fpm*.conf`,
/// `sysctl.conf`), then the nearest directory that names a kind (`sysctl.d`, `pool.d`,
/// `php-fpm.d`, `*nginx*`, `sites-enabled`, `fpm`…): the nearest one wins, so
/// `docker-php-nginx/config/php-fpm.d/www.conf` is a pool. A PHP-FPM name inside an nginx
/// directory is not enough: such files are nearly always nginx snippets for PHP, so the
/// content decides.
pub fn guess(path: &Path) -> Option<Guess> {
    let name = path.file_name()?.to_string_lossy();
    if is_backup(&name) {
        return None;
    }
    // `devilbox-fpm.conf-default`: a `.conf` with a variant suffix.
    let conf = name.ends_with(".conf") || name.contains(".conf-");
    if name == "nginx.conf" || name.ends_with(".nginx") || name.ends_with(".vhost") {
        return Guess::sure(FileKind::Nginx, format!("named {name}"));
    }
    if name == "sysctl.conf" {
        return Guess::sure(FileKind::Sysctl, "named sysctl.conf");
    }
    let parent = path.parent()?;
    let dirs: Vec<&str> = parent.iter().filter_map(|c| c.to_str()).collect();
    let near = directory_kind(&dirs);
    let in_nginx_dir = near.is_some_and(|(k, _)| k == FileKind::Nginx);
    let by_name = |kind: FileKind, what: &str| {
        Some(Guess {
            kind,
            why: if in_nginx_dir {
                format!("named like a PHP-FPM {what}, but in an nginx directory")
            } else {
                format!("named {name}")
            },
            ambiguous: in_nginx_dir,
        })
    };
    if name.starts_with("php-fpm") && conf {
        return by_name(FileKind::FpmMaster, "master");
    }
    // Other servers' configuration that mentions PHP-FPM (Debian's
    // `apache2/conf-available/php8.2-fpm.conf`) is not ours.
    if dirs.iter().any(|d| {
        matches!(
            *d,
            "apache2" | "httpd" | "lighttpd" | "supervisor" | "systemd"
        )
    }) {
        return None;
    }
    // `fpm-pool.conf`, `laravel.pool.conf`: the name says it is a pool wherever it lives.
    if conf
        && name.contains("pool")
        && (name.contains("fpm") || name.contains("php") || name.ends_with(".pool.conf"))
    {
        return by_name(FileKind::FpmPool, "pool");
    }
    match near {
        // Inside nginx trees every file counts (mime.types, fastcgi_params, vhosts).
        Some((FileKind::Nginx, d)) => Guess::sure(FileKind::Nginx, format!("in {d}/")),
        Some((FileKind::FpmPool, d)) if conf => Some(Guess {
            kind: FileKind::FpmPool,
            why: format!("in {d}/"),
            ambiguous: true,
        }),
        Some((kind, d)) if conf => Guess::sure(kind, format!("in {d}/")),
        _ => None,
    }
}

/// How much of a file [`sniff`] looks at.
pub const SNIFF_BYTES: usize = 4096;

/// What an unclassified file is, from its first bytes read through `fs` (so a link out of
/// the tree, a FIFO or `/dev/zero` is never opened here). A file that may not be read is
/// taken as nginx, so that loading it reports why.
fn sniff_file(fs: &dyn Fs, path: &Path) -> Option<(FileKind, &'static str)> {
    match fs.head(path, SNIFF_BYTES) {
        Ok(text) => sniff(&text).map(|k| (k, content_evidence(k))),
        Err(e) if super::confine::refusal(&e).is_some() => Some((FileKind::Nginx, "not read")),
        Err(_) => None,
    }
}

/// What [`sniff`] saw, in words.
fn content_evidence(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Nginx => "its content reads like nginx: `directive …;`, `{` blocks",
        FileKind::FpmMaster | FileKind::FpmPool => "its content is INI: `[section]`, `key = value`",
        FileKind::Sysctl => "its content is sysctl: `dotted.key = value`",
    }
}

/// A file's kind by its path, and by its content where the path is ambiguous or says
/// nothing (only where `sniff_unknown`: a repository's own layout, not an `etc` tree).
fn identify(fs: &dyn Fs, path: &Path, sniff_unknown: bool) -> Option<(FileKind, String)> {
    decide(path, sniff_unknown, || sniff_file(fs, path))
}

/// The kind of one file named on its own (`lemplint parse FILE`), from its path and its
/// first bytes, decided as [`discover`] decides it for a file named on the command line;
/// `None` when neither says anything.
pub fn identify_text(path: &Path, head: &[u8]) -> Option<FileKind> {
    decide(path, true, || sniff(head).map(|k| (k, content_evidence(k)))).map(|(k, _)| k)
}

/// [`identify`], with the content read (by `sniff_file`) only when the path leaves it open.
fn decide(
    path: &Path,
    sniff_unknown: bool,
    sniff_file: impl FnOnce() -> Option<(FileKind, &'static str)>,
) -> Option<(FileKind, String)> {
    match guess(path) {
        Some(g) if !g.ambiguous => Some((g.kind, g.why)),
        // In a PHP-FPM directory only nginx content overrides the directory (a headerless
        // pool fragment's dotted keys would read as sysctl).
        Some(g) if g.kind == FileKind::FpmPool && !g.why.starts_with("named") => {
            Some(match sniff_file() {
                Some((FileKind::Nginx, why)) => (FileKind::Nginx, format!("{}, but {why}", g.why)),
                _ => (g.kind, g.why),
            })
        }
        Some(g) => Some(match sniff_file() {
            Some((FileKind::FpmMaster | FileKind::FpmPool, why)) => {
                (g.kind, format!("{}; {why}", g.why))
            }
            Some((kind, why)) => (kind, format!("{}; {why}", g.why)),
            None => (FileKind::Nginx, format!("{}; it says nothing else", g.why)),
        }),
        None if sniff_unknown => sniff_file().map(|(k, why)| (k, why.to_string())),
        None => None,
    }
}

/// Reads a file's start to tell an unclassified `.conf` apart: a `[section]` line means
/// PHP-FPM, `{` or a `;`-terminated statement means nginx, `a.b = c` lines mean sysctl.
pub fn sniff(text: &[u8]) -> Option<FileKind> {
    let head = &text[..text.len().min(SNIFF_BYTES)];
    if super::fs::DumpFs::looks_like_dump(head) {
        return Some(FileKind::Nginx);
    }
    let head = String::from_utf8_lossy(head);
    if head.starts_with("#!") {
        return None; // a script
    }
    for line in head.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        // `[www] ; the pool` is a section header with a comment.
        let header = line.split(';').next().unwrap_or(line).trim_end();
        if header.starts_with('[') && header.ends_with(']') {
            return Some(FileKind::FpmPool);
        }
        if line.ends_with('{') || line.ends_with(';') || line.ends_with('}') {
            return Some(FileKind::Nginx);
        }
        // A directive whose arguments continue on the next lines: a lowercase name.
        let first = line.split_whitespace().next().unwrap_or("");
        if line.contains(char::is_whitespace)
            && first
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            && !line.contains('=')
        {
            return Some(FileKind::Nginx);
        }
        if let Some((k, _)) = line.split_once('=') {
            let k = k.trim().trim_start_matches('-');
            if k.contains('.') || k.contains('/') {
                return Some(FileKind::Sysctl);
            }
        }
        return None;
    }
    None
}

/// Where configuration lives on a live system: walking all of `/` would read `/proc`,
/// `/home` and every log, so `lemplint lint /` looks only here.
const LIVE_SYSTEM_DIRS: &[&str] = &[
    "etc",
    "usr/local/etc",
    "usr/local/nginx",
    "usr/local/openresty",
    "opt",
    "usr/local",
];

/// Walks `paths` (files or directories) and groups what it finds into stacks.
/// A file named explicitly is always taken (sniffed when its path says nothing).
pub fn discover(paths: &[PathBuf], fs: &dyn Fs) -> Vec<StackFiles> {
    let mut by_root: BTreeMap<PathBuf, StackFiles> = BTreeMap::new();
    let mut explicit: Vec<PathBuf> = Vec::new();
    for given in paths {
        let mut found = Vec::new();
        if given == Path::new("/") {
            for d in LIVE_SYSTEM_DIRS
                .iter()
                .map(|d| Path::new("/").join(d))
                .filter(|d| d.is_dir())
            {
                // `usr/local` last and shallow: source builds live one or two levels down.
                let depth = if d.ends_with("usr/local") { 29 } else { 0 };
                walk(fs, &d, &mut found, depth);
            }
            found.sort();
            found.dedup();
        } else if given.is_dir() {
            // A directory that leads out of the tree (a symlink) is not listed: the one
            // entry for it makes loading report why.
            match fs.check_dir(given) {
                Ok(()) => walk(fs, given, &mut found, 0),
                Err(_) => found.push((given.clone(), FileKind::Nginx, "not read".into())),
            }
        } else {
            let (kind, why) = identify(fs, given, true).unwrap_or((
                FileKind::Nginx,
                "named on the command line; its path and content say nothing else".into(),
            ));
            found.push((given.clone(), kind, why));
            explicit.push(given.clone());
        }
        let given_is_dir = given.is_dir();
        // The root depends on the directories only (unless the file itself is named like
        // one): look it up once per directory, not once per vhost. The walk lists a
        // directory's files together, so the last directory's answer is the one to keep.
        let mut last: Option<(PathBuf, Option<PathBuf>)> = None;
        for (path, kind, why) in found {
            let named_like_root = path
                .file_name()
                .is_some_and(|n| n == "etc" || n == "usr" || n == "opt");
            let detected = match path.parent() {
                Some(dir) if !named_like_root => match &last {
                    Some((d, root)) if d == dir => root.clone(),
                    _ => {
                        let root = detect_root(&path);
                        last = Some((dir.to_path_buf(), root.clone()));
                        root
                    }
                },
                _ => detect_root(&path),
            };
            let root = detected.unwrap_or_else(|| {
                if given_is_dir {
                    given.clone()
                } else {
                    given.parent().map(Path::to_path_buf).unwrap_or_default()
                }
            });
            let stack = by_root.entry(root.clone()).or_insert_with(|| StackFiles {
                root,
                ..Default::default()
            });
            stack.why.insert(path.clone(), why);
            stack.push(kind, path);
        }
    }
    let mut stacks: Vec<StackFiles> = by_root.into_values().collect();
    for s in &mut stacks {
        s.explicit = explicit.iter().filter(|p| s.contains(p)).cloned().collect();
    }
    for s in &mut stacks {
        for list in [
            &mut s.nginx,
            &mut s.fpm_masters,
            &mut s.fpm_pools,
            &mut s.sysctl,
        ] {
            list.sort();
            list.dedup();
        }
    }
    stacks
}

/// Symlinked directories are not followed (a `sites-enabled` link to a file is), which
/// also keeps a link to `..` from looping.
fn walk(fs: &dyn Fs, dir: &Path, out: &mut Vec<(PathBuf, FileKind, String)>, depth: usize) {
    if depth > 32 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // Each name once: sorting by `file_name()` would allocate one per comparison.
    let mut entries: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| (e.file_name(), e))
        .collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (name, e) in entries {
        // `lemplint lint .` shows `etc/nginx/…`, not `./etc/nginx/…`.
        let path = if dir == Path::new(".") {
            PathBuf::from(&name)
        } else {
            e.path()
        };
        let Ok(ft) = e.file_type() else { continue };
        let name = name.to_string_lossy();
        if ft.is_dir() {
            if !SKIP_DIRS.contains(&name.as_ref()) && !name.starts_with('.') {
                walk(fs, &path, out, depth + 1);
            }
            continue;
        }
        if ft.is_symlink() && path.is_dir() {
            continue;
        }
        // Sniffing unknown `.conf` files helps in a repository's own layout; under an `etc`
        // tree the layout is the distribution's, and `ld.so.conf` is not nginx.
        let in_etc = path.components().any(|c| c.as_os_str() == "etc");
        if let Some((kind, why)) = identify(fs, &path, name.ends_with(".conf") && !in_etc) {
            out.push((path, kind, why));
        } else if name.ends_with(".txt") || name.ends_with(".dump") || name.contains("nginx") {
            // An `nginx -T` dump committed to snapshot a server can have any name; the usual
            // ones are looked at, and taken only when they are one.
            let dump = fs
                .head(&path, SNIFF_BYTES)
                .is_ok_and(|h| super::fs::DumpFs::looks_like_dump(&h));
            if dump {
                out.push((path, FileKind::Nginx, "an nginx -T dump".into()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(p: &str) -> Option<FileKind> {
        classify(Path::new(p))
    }

    #[test]
    fn classification_by_layout() {
        assert_eq!(kind("etc/nginx/nginx.conf"), Some(FileKind::Nginx));
        assert_eq!(
            kind("etc/nginx/sites-enabled/example.org"),
            Some(FileKind::Nginx)
        );
        assert_eq!(kind("etc/nginx/mime.types"), Some(FileKind::Nginx));
        assert_eq!(
            kind("etc/php/8.2/fpm/php-fpm.conf"),
            Some(FileKind::FpmMaster)
        );
        assert_eq!(
            kind("etc/php/8.2/fpm/pool.d/www.conf"),
            Some(FileKind::FpmPool)
        );
        assert_eq!(
            kind("usr/local/php/etc/php-fpm.d/www.conf"),
            Some(FileKind::FpmPool)
        );
        assert_eq!(
            kind("usr/local/php/etc/php-fpm.conf"),
            Some(FileKind::FpmMaster)
        );
        assert_eq!(kind("etc/sysctl.conf"), Some(FileKind::Sysctl));
        assert_eq!(kind("etc/sysctl.d/99-web.conf"), Some(FileKind::Sysctl));
        assert_eq!(kind("etc/nginx/sites-enabled/example.org~"), None);
        assert_eq!(kind("etc/php/8.2/fpm/php.ini"), None);
        assert_eq!(kind("README.md"), None);
        assert_eq!(kind("config/fpm-pool.conf"), Some(FileKind::FpmPool));
        assert_eq!(kind("php-fpm/xlaravel.pool.conf"), Some(FileKind::FpmPool));
        assert_eq!(kind("etc/apache2/conf-available/php8.2-fpm.conf"), None);
    }

    #[test]
    fn sniffing() {
        assert_eq!(sniff(b"; pool\n[www]\nuser = x\n"), Some(FileKind::FpmPool));
        assert_eq!(sniff(b"# x\nserver {\n"), Some(FileKind::Nginx));
        assert_eq!(
            sniff(b"net.core.somaxconn = 1024\n"),
            Some(FileKind::Sysctl)
        );
        assert_eq!(sniff(b"hello\n"), None);
    }

    #[test]
    fn one_file_by_path_then_content() {
        let id = |p: &str, text: &[u8]| identify_text(Path::new(p), text);
        let ini = b"[www]\nuser = www-data\n";
        // The path decides when it is sure, whatever the content.
        assert_eq!(id("etc/sysctl.d/10-x.conf", ini), Some(FileKind::Sysctl));
        assert_eq!(
            id("etc/php/8.2/fpm/pool.d/www.conf", b"x"),
            Some(FileKind::FpmPool)
        );
        // A PHP-FPM name in an nginx directory: the content decides.
        let snippet = b"fastcgi_pass unix:/run/php/php8.2-fpm.sock;\n";
        assert_eq!(
            id("etc/nginx/snippets/php-fpm.conf", snippet),
            Some(FileKind::Nginx)
        );
        assert_eq!(
            id("etc/nginx/snippets/php-fpm.conf", ini),
            Some(FileKind::FpmMaster)
        );
        // A name that says nothing: the content alone.
        assert_eq!(id("app.conf", ini), Some(FileKind::FpmPool));
        assert_eq!(
            id("app.conf", b"vm.swappiness = 10\n"),
            Some(FileKind::Sysctl)
        );
        assert_eq!(id("app.conf", b"hello\n"), None);
    }
}
