//! PHP-FPM configurations: a master file (`php-fpm.conf`) with the pool files it includes,
//! and the pools they define. Sections with the same name (any case) are one pool, as in
//! php-fpm, and a later setting wins.

use super::confine::{refusal, Refusal};
use super::fs::{FileKey, Fs};
use super::paths::detect_root;
use super::paths::{is_glob, Resolved, Resolver};
use crate::source::{Shared, Span};
use crate::syntax::fpm::{self, Entry, LineKind, Parsed};
use crate::syntax::template;
use std::cell::Cell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub struct FpmFile {
    pub source: Shared,
    pub parsed: Parsed,
    /// The file and entry (line item) of the `include` that read it; `None` for an entry point.
    pub included_from: Option<(usize, usize)>,
}

/// One `include` that could not be followed.
#[derive(Clone, Debug)]
pub struct IncludeProblem {
    pub file: usize,
    pub span: Span,
    pub message: String,
    /// False when the path could not be checked (outside the repository): not a finding.
    pub verifiable: bool,
    /// Why the file was never opened, when it leads out of the linted tree (LINT004).
    pub refused: Option<Refusal>,
    /// A glob past the caps of [`super::glob::expand`]: an input error (FPM000).
    pub over_budget: bool,
}

/// A setting of a pool: where it is written.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    pub file: usize,
    /// Index into the file's `lines`.
    pub line: usize,
}

/// Where a pool listens (php-fpm's `listen`, after `$pool` substitution).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Listen {
    /// A unix socket path (as the server sees it).
    Unix { path: String },
    /// `host:port`, `[v6]:port`, or a bare port (`host` is `None`: every address).
    Tcp { host: Option<String>, port: u16 },
}

impl Listen {
    /// Parses a `listen` value as php-fpm does (`fpm_sockets.c`): a value with no `:` that is
    /// all digits is a port on every address; one containing `/` (or no `:`) is a unix socket.
    pub fn parse(value: &str) -> Option<Listen> {
        let v = value.trim();
        if v.is_empty() {
            return None;
        }
        if v.bytes().all(|b| b.is_ascii_digit()) {
            return v.parse().ok().map(|port| Listen::Tcp { host: None, port });
        }
        if v.starts_with('/') || !v.contains(':') {
            return Some(Listen::Unix {
                path: v.to_string(),
            });
        }
        let (host, port) = v.rsplit_once(':')?;
        let port: u16 = port.parse().ok()?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let host = (!host.is_empty() && host != "*" && host != "0.0.0.0" && host != "::")
            .then(|| host.to_string());
        Some(Listen::Tcp { host, port })
    }
}

impl std::fmt::Display for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Listen::Unix { path } => write!(f, "unix:{path}"),
            Listen::Tcp { host: None, port } => write!(f, "*:{port}"),
            Listen::Tcp {
                host: Some(h),
                port,
            } if h.contains(':') => write!(f, "[{h}]:{port}"),
            Listen::Tcp {
                host: Some(h),
                port,
            } => write!(f, "{h}:{port}"),
        }
    }
}

pub struct Pool {
    /// The name as written in the first header.
    pub name: String,
    /// Every header of the pool (file, line item).
    pub headers: Vec<Setting>,
    /// Every setting with its lowercased key (array keys keep their case), sorted by key
    /// and, within a key, in reading order: see [`Pool::occurrences`]. One list rather than
    /// a map of lists: a pool of four settings cost about 900 bytes that way (20,000 pools:
    /// 18 MB), this about 160.
    pub settings: Vec<(Box<str>, Setting)>,
}

impl Pool {
    /// The occurrences of `key` (lowercased already), in reading order: php-fpm uses the
    /// last.
    pub fn occurrences(&self, key: &str) -> impl DoubleEndedIterator<Item = Setting> + '_ {
        self.settings[key_range(&self.settings, key)]
            .iter()
            .map(|&(_, s)| s)
    }
}

/// Where `key`'s entries are in a list sorted by key ([`Pool::settings`], and the instance
/// view's per pool, which is sorted the same way by [`sort_by_key`]).
pub fn key_range<K: std::ops::Deref<Target = str>, V>(
    list: &[(K, V)],
    key: &str,
) -> std::ops::Range<usize> {
    let lo = list.partition_point(|(k, _)| &**k < key);
    let len = list[lo..].partition_point(|(k, _)| &**k == key);
    lo..lo + len
}

/// [`key_range`] for the key `parts` joined, without joining them (a pool's
/// `php_value[name]` asked for every setting a rule reads: no string formatted per question).
pub fn joined_key_range<K: std::ops::Deref<Target = str>, V>(
    list: &[(K, V)],
    parts: [&str; 4],
) -> std::ops::Range<usize> {
    let key = || parts.iter().flat_map(|p| p.bytes());
    let lo = list.partition_point(|(k, _)| k.bytes().cmp(key()).is_lt());
    let len = list[lo..].partition_point(|(k, _)| k.bytes().eq(key()));
    lo..lo + len
}

/// Sorts a settings list by key, keeping each key's occurrences in reading order (a stable
/// sort), and lets go of its spare capacity.
pub fn sort_by_key<K: Ord, V>(list: &mut Vec<(K, V)>) {
    list.sort_by(|a, b| a.0.cmp(&b.0));
    list.shrink_to_fit();
}

pub struct FpmConfig {
    pub files: Vec<FpmFile>,
    pub pools: Vec<Pool>,
    pub problems: Vec<IncludeProblem>,
    /// Loaded from a `php-fpm*.conf` master (false: a pool file nothing includes).
    pub has_master: bool,
    /// The docker-library php-fpm image whose stock master reads these pool files (see
    /// [`super::php_image`]): the master and the image's own pool files are synthetic.
    pub image: Option<String>,
    /// For an image's configuration: the ports its compose service publishes on the host, as
    /// written, and the compose file (see [`super::php_image::published_on_host`]).
    pub published: Vec<String>,
    pub compose: Option<PathBuf>,
    /// For an image's configuration: whether the Dockerfile or compose file may give PHP a
    /// php.ini ([`super::php_image::ImagePools::php_ini`]); without one PHP runs on its
    /// compiled-in defaults. True for a configuration that is not an image's.
    pub image_php_ini: bool,
}

impl FpmConfig {
    pub fn entry(&self, s: Setting) -> Option<&Entry> {
        match &self.files[s.file].parsed.file.lines.get(s.line)?.kind {
            LineKind::Entry(e) => Some(e),
            _ => None,
        }
    }

    pub fn source(&self, s: Setting) -> &Shared {
        &self.files[s.file].source
    }

    /// The setting php-fpm uses for `key` in `pool` (the last one), with its value
    /// (`$pool` substituted; `${VAR}` left as written, since the server's environment is
    /// unknown here).
    pub fn get(&self, pool: &Pool, key: &str) -> Option<(Setting, String)> {
        let s = pool.occurrences(&key.to_ascii_lowercase()).next_back()?;
        let e = self.entry(s)?;
        let src = &self.source(s).text;
        let raw = e.value_text(src, &|name| Some(format!("${{{name}}}")));
        let value = fpm::expand_pool(&raw, pool.name.as_bytes());
        Some((s, String::from_utf8_lossy(&value).into_owned()))
    }

    pub fn listen(&self, pool: &Pool) -> Option<(Setting, Listen)> {
        let (s, v) = self.get(pool, "listen")?;
        Listen::parse(&v).map(|l| (s, l))
    }
}

/// A placeholder an installer or a template engine fills in before deployment (see
/// [`crate::syntax::template`]): such a value is filled in later.
fn templated(raw: &[u8]) -> bool {
    !template::find(raw, template::Lang::Fpm).is_empty()
}

/// An entry's value as php-fpm receives it, and whether it is known (no `${VAR}`, no unknown
/// constant, no template placeholder).
pub fn eval_value(e: &Entry, src: &[u8]) -> (Vec<u8>, bool) {
    let env_used = Cell::new(false);
    let raw = e.value_text(src, &|_| {
        env_used.set(true);
        None
    });
    let sub_env = Cell::new(false);
    let _ = e.subkey_text(src, &|_| {
        sub_env.set(true);
        None
    });
    let written = src
        .get(e.key.start as usize..e.raw_value.end as usize)
        .unwrap_or_default();
    let known = !env_used.get()
        && !sub_env.get()
        && e.unresolved_constants(src).is_empty()
        && !templated(written);
    (raw, known)
}

/// A setting's value as php-fpm will read it, and whether it is known here.
#[derive(Clone, Debug)]
pub struct Value {
    pub setting: Setting,
    /// `$pool` substituted; `${VAR}` left as written.
    pub text: String,
    /// False when it depends on the server's environment (`${VAR}`), an undefined constant or
    /// a template placeholder: set at deployment or at runtime, so not lemplint's to change.
    pub known: bool,
}

impl FpmConfig {
    /// The setting php-fpm uses for `key` in `pool` (the last one), with whether its value
    /// is known.
    pub fn value(&self, pool: &Pool, key: &str) -> Option<Value> {
        let setting = pool.occurrences(&key.to_ascii_lowercase()).next_back()?;
        let e = self.entry(setting)?;
        let src = &self.source(setting).text;
        let (_, known) = eval_value(e, src);
        let (_, text) = self.get(pool, key)?;
        Some(Value {
            setting,
            text,
            known,
        })
    }
}

/// The glob an include whose path holds placeholders stands for: each placeholder inside
/// the path matches any name (`/etc/php/SEDPHPVER/fpm/pool.d/*.conf` reads
/// `/etc/php/*/fpm/pool.d/*.conf`, the pools the installer's version will name). `None` when
/// a placeholder starts the path: where it leads is not known at all.
fn placeholder_glob(source: &crate::source::SourceFile, value: Span) -> Option<PathBuf> {
    let text = &source.text;
    let mut out = Vec::new();
    let mut at = value.start as usize;
    for h in source
        .holes
        .iter()
        .filter(|h| h.span.start >= value.start && h.span.end <= value.end)
    {
        out.extend_from_slice(&text[at..h.span.start as usize]);
        if !out.contains(&b'/') {
            return None;
        }
        out.push(b'*');
        at = h.span.end as usize;
    }
    out.extend_from_slice(&text[at..value.end as usize]);
    let trimmed = out.trim_ascii();
    let unquoted = trimmed
        .strip_prefix(b"\"")
        .and_then(|t| t.strip_suffix(b"\""))
        .unwrap_or(trimmed);
    Some(super::paths::from_bytes(unquoted))
}

/// A php-fpm file's syntax, its placeholders read as holes (see
/// [`crate::syntax::template`]).
/// Known placeholders are rendered first when `fs` has values (see [`super::values`]).
fn parse_fpm(
    fs: &dyn Fs,
    mut source: crate::source::SourceFile,
) -> (crate::source::SourceFile, fpm::Parsed) {
    let masked = super::values::prepare(fs, &mut source, template::Lang::Fpm);
    let parsed = fpm::parse(masked.as_deref().unwrap_or(&source.text));
    (source, parsed)
}

/// Loads a master (`php-fpm.conf`) and the files it includes, or a lone pool file.
pub fn load(
    fs: &dyn Fs,
    path: &Path,
    root: Option<PathBuf>,
    master: bool,
) -> std::io::Result<FpmConfig> {
    let source = fs.source(path).1?;
    let root = root.or_else(|| detect_root(path));
    let prefix = match fpm_prefix(path) {
        Prefix::Local(p) => Some(p),
        Prefix::Server(p) => match &root {
            Some(root) => Some(super::paths::under_root(root, &p)),
            None if fs.contains(&p) => Some(p),
            None => None,
        },
    };
    let resolver = Resolver { prefix, root };
    let mut cfg = FpmConfig {
        files: Vec::new(),
        pools: Vec::new(),
        problems: Vec::new(),
        has_master: master,
        image: None,
        published: Vec::new(),
        compose: None,
        image_php_ini: true,
    };
    let mut seen: HashMap<FileKey, usize> = HashMap::new();
    seen.insert(fs.identity(path), 0);
    let (source, parsed) = parse_fpm(fs, source);
    cfg.files.push(FpmFile {
        source: Shared::new(source),
        parsed,
        included_from: None,
    });
    visit(fs, &resolver, &mut cfg, &mut seen, 0, 0);
    assemble_pools(&mut cfg);
    Ok(cfg)
}

/// The pool files a Dockerfile copies into a docker-library php-fpm image, read as that
/// image's php-fpm does: its stock master includes `php-fpm.d/*.conf` in name order, the
/// image's own `docker.conf`, `www.conf` and `zz-docker.conf` (each unless a tree file takes
/// its name) among the tree's. The image's files are synthetic, at their paths in the image.
pub fn load_image(fs: &dyn Fs, image: &super::php_image::ImagePools) -> FpmConfig {
    use super::php_image::{MASTER, MASTER_PATH, POOL_DIR, STOCK};
    let synthetic = |path: PathBuf, text: &str| {
        let mut s = crate::source::SourceFile::new(path, text.as_bytes().to_vec());
        s.synthetic = true;
        s
    };
    let mut cfg = FpmConfig {
        files: Vec::new(),
        pools: Vec::new(),
        problems: Vec::new(),
        has_master: true,
        image: Some(image.image.clone()),
        published: image.published.clone(),
        compose: image.compose.clone(),
        image_php_ini: image.php_ini,
    };
    // The tree's file where the Dockerfile copies one over the master; else the stock one.
    let tree_master = image.master.as_ref().and_then(|p| fs.source(p).1.ok());
    let replaced = tree_master.is_some();
    let (master, parsed) = parse_fpm(
        fs,
        tree_master.unwrap_or_else(|| synthetic(PathBuf::from(MASTER_PATH), MASTER)),
    );
    let include = parsed.file.includes(&master.text).map(|(i, _)| i).next();
    // A master of the tree's without an `include` reads nothing else: the image's
    // `php-fpm.d/` files are not read.
    let reads_pool_dir = include.is_some();
    let include = include.unwrap_or(0);
    cfg.files.push(FpmFile {
        source: Shared::new(master),
        parsed,
        included_from: None,
    });
    let mut members: Vec<(String, crate::source::SourceFile)> = Vec::new();
    for (name, text) in STOCK {
        if reads_pool_dir && !image.replaces_dir && !image.files.iter().any(|(_, n)| n == name) {
            members.push((
                name.to_string(),
                synthetic(Path::new(POOL_DIR).join(name), text),
            ));
        }
    }
    for (path, name) in image.files.iter().filter(|_| reads_pool_dir || !replaced) {
        match fs.source(path).1 {
            Ok(source) => members.push((name.clone(), source)),
            Err(e) => cfg.problems.push(IncludeProblem {
                file: 0,
                span: Span::new(0, 0),
                message: format!("\"{}\" was not read: {e}", path.display()),
                verifiable: true,
                refused: refusal(&e),
                over_budget: false,
            }),
        }
    }
    // php-fpm's glob(3) reads them sorted by name, byte by byte.
    members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    for (_, source) in members {
        let (source, parsed) = parse_fpm(fs, source);
        cfg.files.push(FpmFile {
            source: Shared::new(source),
            parsed,
            included_from: Some((0, include)),
        });
    }
    assemble_pools(&mut cfg);
    // Findings about a pool as a whole are reported at its first header: the tree's, not
    // the image's (where nothing is reported).
    for pool in &mut cfg.pools {
        let files = &cfg.files;
        pool.headers.sort_by_key(|h| files[h.file].source.synthetic);
    }
    cfg
}

/// Where php-fpm's prefix is: a directory of the tree, or a path of the server.
enum Prefix {
    Local(PathBuf),
    Server(PathBuf),
}

/// php-fpm resolves relative `include` paths against its prefix (`-p`, else the install
/// prefix). A master at `PREFIX/etc/php-fpm.conf` (source builds, the official Docker images)
/// gives that prefix; otherwise `/usr`, Debian's, which is a path of the server (never this
/// machine's `/usr`, unless this machine is the server).
fn fpm_prefix(master: &Path) -> Prefix {
    match master.parent() {
        Some(dir) if dir.file_name().is_some_and(|n| n == "etc") => {
            Prefix::Local(dir.parent().map(Path::to_path_buf).unwrap_or_default())
        }
        _ => Prefix::Server(PathBuf::from("/usr")),
    }
}

const MAX_DEPTH: usize = 16;

fn visit(
    fs: &dyn Fs,
    resolver: &Resolver,
    cfg: &mut FpmConfig,
    seen: &mut HashMap<FileKey, usize>,
    file: usize,
    depth: usize,
) {
    let includes: Vec<(usize, Span, Option<PathBuf>)> = {
        let f = &cfg.files[file];
        let src = &f.source.text;
        f.parsed
            .file
            .includes(src)
            .map(|(i, e)| {
                let path = if template::touches(&f.source.holes, src, e.raw_value) {
                    placeholder_glob(&f.source, e.raw_value)
                } else {
                    Some(super::paths::from_bytes(&e.value_text_no_env(src)))
                };
                (i, e.raw_value, path)
            })
            .collect()
    };
    for (line, span, written_path) in includes {
        let Some(written_path) = written_path else {
            cfg.problems.push(IncludeProblem {
                file,
                span,
                message: "the path holds a placeholder the deployment fills in; not read".into(),
                verifiable: false,
                refused: None,
                over_budget: false,
            });
            continue;
        };
        let path = match resolver.resolve(&written_path, fs) {
            Resolved::Path(p) => p,
            Resolved::Unmapped(p) => {
                cfg.problems.push(IncludeProblem {
                    file,
                    span,
                    message: format!(
                        "\"{}\" is a path of the server with no root to map it into the tree; not read",
                        p.display()
                    ),
                    verifiable: false,
                    refused: None,
                    over_budget: false,
                });
                continue;
            }
        };
        let glob = is_glob(&written_path);
        let targets = if glob {
            match fs.glob(&path) {
                Ok(t) => t,
                // A glob past its caps is an input error, like a missing include.
                Err(e) => {
                    if let Some(cap) = super::nginx::too_large(&e) {
                        cfg.problems.push(IncludeProblem {
                            file,
                            span,
                            message: format!("the glob \"{}\" {cap}; not followed", path.display()),
                            verifiable: true,
                            refused: None,
                            over_budget: true,
                        });
                    }
                    continue;
                }
            }
        } else {
            vec![path]
        };
        for target in targets {
            let id = fs.identity(&target);
            if seen.contains_key(&id) || depth >= MAX_DEPTH {
                continue;
            }
            match fs.source(&target).1 {
                Ok(source) => {
                    let idx = cfg.files.len();
                    seen.insert(id, idx);
                    let (source, parsed) = parse_fpm(fs, source);
                    cfg.files.push(FpmFile {
                        source: Shared::new(source),
                        parsed,
                        included_from: Some((file, line)),
                    });
                    visit(fs, resolver, cfg, seen, idx, depth + 1);
                }
                // php-fpm's glob marks and skips directories.
                Err(e) if glob && e.kind() == std::io::ErrorKind::IsADirectory => {}
                Err(e) => cfg.problems.push(IncludeProblem {
                    file,
                    span,
                    message: match refusal(&e) {
                        Some(r) => {
                            format!("\"{}\" was not read: {}", target.display(), r.describe())
                        }
                        None => format!(
                            "Unable to include {}: {}",
                            target.display(),
                            super::nginx::io_message(&e)
                        ),
                    },
                    verifiable: true,
                    refused: refusal(&e),
                    over_budget: false,
                }),
            }
        }
    }
}

/// Merges sections into pools in the order php-fpm reads them: each file line by line, an
/// included file at its `include` line. php-fpm's current section carries through an
/// include and out of it, so entries before the first header of an included file belong to
/// the includer's current pool.
fn assemble_pools(cfg: &mut FpmConfig) {
    let mut included: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    for (i, f) in cfg.files.iter().enumerate() {
        if let Some(at) = f.included_from {
            included.entry(at).or_default().push(i);
        }
    }
    // Sized for every header at once: grown by doubling, a table of 240,000 pools was
    // rehashed at each doubling (every name hashed again, the table read and written whole).
    let headers = (cfg.files.iter())
        .flat_map(|f| &f.parsed.file.lines)
        .filter(|l| matches!(l.kind, LineKind::Section(_)))
        .count();
    let mut state = Assembly {
        pools: Vec::with_capacity(headers),
        by_name: HashMap::with_capacity(headers),
        current: None,
    };
    state.walk(cfg, &included, 0, 0);
    for p in &mut state.pools {
        sort_by_key(&mut p.settings);
    }
    cfg.pools = state.pools;
}

struct Assembly {
    pools: Vec<Pool>,
    /// Pools by lowercased name: php-fpm compares names ignoring case.
    by_name: HashMap<String, usize>,
    current: Option<usize>,
}

impl Assembly {
    fn walk(
        &mut self,
        cfg: &FpmConfig,
        included: &HashMap<(usize, usize), Vec<usize>>,
        file: usize,
        depth: usize,
    ) {
        let f = &cfg.files[file];
        let src = &f.source.text;
        for (i, line) in f.parsed.file.lines.iter().enumerate() {
            match &line.kind {
                LineKind::Section(s) => {
                    if s.is_global(src) {
                        self.current = None;
                        continue;
                    }
                    // A name from the environment (`[${POOL}]`) is shown as written.
                    let name =
                        String::from_utf8_lossy(&s.name_text(src, &|n| Some(format!("${{{n}}}"))))
                            .into_owned();
                    let pools = &mut self.pools;
                    let idx = *self
                        .by_name
                        .entry(name.to_ascii_lowercase())
                        .or_insert_with(|| {
                            pools.push(Pool {
                                name,
                                headers: Vec::new(),
                                settings: Vec::new(),
                            });
                            pools.len() - 1
                        });
                    self.pools[idx].headers.push(Setting { file, line: i });
                    self.current = Some(idx);
                }
                LineKind::Entry(e) if e.is_include(src) => {
                    for &child in included.get(&(file, i)).into_iter().flatten() {
                        if depth < MAX_DEPTH {
                            self.walk(cfg, included, child, depth + 1);
                        }
                    }
                }
                LineKind::Entry(e) => {
                    if let Some(p) = self.current {
                        let key = String::from_utf8_lossy(&src[e.key.range()]).into_owned();
                        let key = if e.subkey.is_some() {
                            key
                        } else {
                            key.to_ascii_lowercase()
                        };
                        self.pools[p]
                            .settings
                            .push((key.into(), Setting { file, line: i }));
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_joined_key_is_found_as_the_formatted_one() {
        let mut list: Vec<(&str, u8)> = [
            "php_admin_value[memory_limit]",
            "php_value[memory_limit]",
            "php_value[memory_limit]",
            "php_value[memory_limit2]",
            "php_value[memory_limi]",
            "php_flag[display_errors]",
            "pm",
            "php_value[Memory_limit]",
        ]
        .iter()
        .enumerate()
        .map(|(i, k)| (*k, i as u8))
        .collect();
        super::sort_by_key(&mut list);
        for kind in ["php_value", "php_admin_value", "php_flag", "php_admin_flag"] {
            for name in [
                "memory_limit",
                "memory_limi",
                "Memory_limit",
                "display_errors",
                "x",
                "",
            ] {
                let formatted = &list[super::key_range(&list, &format!("{kind}[{name}]"))];
                assert_eq!(
                    &list[super::joined_key_range(&list, [kind, "[", name, "]"])],
                    formatted
                );
            }
        }
    }

    use super::*;

    #[test]
    fn listen_addresses() {
        assert_eq!(
            Listen::parse("/run/php/php8.2-fpm.sock"),
            Some(Listen::Unix {
                path: "/run/php/php8.2-fpm.sock".into()
            })
        );
        assert_eq!(
            Listen::parse("9000"),
            Some(Listen::Tcp {
                host: None,
                port: 9000
            })
        );
        assert_eq!(
            Listen::parse("127.0.0.1:9000"),
            Some(Listen::Tcp {
                host: Some("127.0.0.1".into()),
                port: 9000
            })
        );
        assert_eq!(
            Listen::parse("[::1]:9000"),
            Some(Listen::Tcp {
                host: Some("::1".into()),
                port: 9000
            })
        );
        assert_eq!(
            Listen::parse("0.0.0.0:9000"),
            Some(Listen::Tcp {
                host: None,
                port: 9000
            })
        );
        assert_eq!(
            Listen::parse("php.sock"),
            Some(Listen::Unix {
                path: "php.sock".into()
            })
        );
        assert_eq!(Listen::parse(""), None);
    }
}
