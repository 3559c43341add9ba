//! Loading an nginx configuration the way nginx does: the main file, then every
//! `include` in document order, resolved against the configuration prefix, globs sorted,
//! each file parsed once and cycles refused.

use super::confine::{refusal, Refusal};
use super::fs::{FileKey, Fs};
use super::paths::{Resolved, Resolver};
use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use crate::source::{FileId, Shared, SourceFile, Span};
use crate::syntax::nginx::{NodeId, Parsed, Word};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How include paths are resolved.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// nginx's configuration prefix, against which relative includes resolve
    /// (default: the directory of the main file, as nginx's `conf_prefix`).
    pub prefix: Option<PathBuf>,
    /// Where absolute paths point when the files mirror a server inside a repository:
    /// `include /etc/nginx/x.conf` reads `ROOT/etc/nginx/x.conf`. `None`: detect it (the
    /// directory above the nearest `etc` component of the main file's path).
    pub root: Option<PathBuf>,
    /// Do not follow includes (`--single-file`).
    pub single_file: bool,
    /// At most this many files are read (0: [`MAX_FILES`]).
    pub max_files: usize,
}

/// At most this many files per configuration, so a runaway glob (`include /**`) cannot
/// exhaust memory. Far above real fleets: 200,000 vhosts of 2 KB are 400 MB of
/// configuration, which still lints in seconds.
pub const MAX_FILES: usize = 200_000;
/// nginx has no include depth limit, but a real configuration never nests this deep.
pub const MAX_INCLUDE_DEPTH: usize = 64;

/// How a file became part of the configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reached {
    /// The main file (given by the user, or found by discovery).
    Entry,
    /// By an `include` directive (`glob` when its argument was a pattern).
    Include {
        from: FileId,
        node: NodeId,
        glob: bool,
    },
}

pub struct NginxFile {
    /// What identifies the file on disk (see `Fs::identity`), for callers that dedupe.
    pub identity: FileKey,
    pub source: Shared,
    /// Shared so the editor can keep the tree of a file that did not change between two
    /// lints ([`Fs::nginx_tree`]).
    pub parsed: Arc<Parsed>,
    pub reached: Reached,
}

/// Something that stopped a file from being read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadProblemKind {
    /// A plain (non-glob) include whose file cannot be opened.
    IncludeNotFound { path: PathBuf, io: String },
    /// An include that leads back to a file that is including it.
    IncludeCycle { chain: Vec<PathBuf> },
    /// More than [`MAX_FILES`] files.
    TooManyIncludes { limit: usize },
    /// A glob past the caps of [`super::glob::expand`]: not followed at all.
    GlobTooLarge { pattern: PathBuf, why: String },
    /// Includes nested deeper than [`MAX_INCLUDE_DEPTH`]: the files being read, outermost
    /// first, and the one not read.
    TooDeep { chain: Vec<PathBuf> },
    /// A file matched by a glob that could not be read.
    Unreadable { path: PathBuf, io: String },
    /// An absolute path of the server the repository describes, with no root to map it
    /// into: not followed, and not judged (`--root` maps it).
    Unmapped { path: PathBuf },
    /// A path that leads out of the linted tree (or to a secret): never opened.
    Refused { path: PathBuf, refusal: Refusal },
    /// A plain include whose file is not in the tree, but which the deployment supplies: a
    /// script of the tree names it (a Dockerfile downloads it, an entrypoint writes it),
    /// certbot writes it, or an Ansible role's tasks put the including template in place
    /// beside files the role does not hold. Not missing; its content is unknown. `by` says
    /// who, in words (paths escaped).
    Supplied { path: PathBuf, by: String },
    /// An include whose path holds a placeholder the deployment fills in (see
    /// [`crate::syntax::template`]): which file it reads is not known here.
    Placeholder { written: String },
    /// A template whose conditionals cannot be read both ways (see
    /// [`crate::syntax::template::needs_rendering`]): not followed, and not judged.
    Template { path: PathBuf },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadProblem {
    /// The file holding the `include` directive.
    pub file: FileId,
    /// The include directive's argument.
    pub span: Span,
    pub kind: LoadProblemKind,
}

impl LoadProblem {
    /// The message, worded as nginx words it where nginx has one.
    pub fn message(&self) -> String {
        match &self.kind {
            LoadProblemKind::IncludeNotFound { path, io } => {
                format!("open() \"{}\" failed ({io})", path.display())
            }
            LoadProblemKind::IncludeCycle { chain } => {
                let names: Vec<String> = chain.iter().map(|p| p.display().to_string()).collect();
                format!("include cycle: {}", names.join(" → "))
            }
            LoadProblemKind::TooManyIncludes { limit } => {
                format!("too many included files (limit {limit}); not followed")
            }
            LoadProblemKind::TooDeep { chain } => {
                // The two ends of the chain: where it starts and where it loops down.
                let names: Vec<String> = chain.iter().map(|p| p.display().to_string()).collect();
                let shown = if names.len() > 6 {
                    format!(
                        "{} → … → {}",
                        names[..3].join(" → "),
                        names[names.len() - 2..].join(" → ")
                    )
                } else {
                    names.join(" → ")
                };
                format!(
                    "includes nested deeper than {MAX_INCLUDE_DEPTH} levels: {shown}; not followed"
                )
            }
            LoadProblemKind::GlobTooLarge { pattern, why } => {
                format!("the glob \"{}\" {why}; not followed", pattern.display())
            }
            LoadProblemKind::Unreadable { path, io } => {
                format!("cannot read \"{}\" ({io})", path.display())
            }
            LoadProblemKind::Unmapped { path } => format!(
                "\"{}\" is a path of the server with no root to map it into the tree; not read (use --root to map /)",
                path.display()
            ),
            LoadProblemKind::Refused { path, refusal } => {
                format!("\"{}\" was not read: {}", path.display(), refusal.describe())
            }
            LoadProblemKind::Supplied { path, by } => format!(
                "\"{}\" is not in the tree; supplied at deployment ({by}); not read",
                crate::escape::path(path),
            ),
            LoadProblemKind::Placeholder { written } => format!(
                "\"{}\" holds a placeholder the deployment fills in; not followed",
                crate::escape::text(written)
            ),
            LoadProblemKind::Template { path } => {
                format!(
                    "\"{}\" is a template that must be rendered to be read; not followed",
                    path.display()
                )
            }
        }
    }
}

/// A whole nginx configuration: the main file is `files[0]`.
pub struct NginxConfig {
    pub files: Vec<NginxFile>,
    /// For each `include` directive that was followed: the files it read, in order.
    pub includes: Includes,
    pub problems: Vec<LoadProblem>,
    /// The prefix and root used, for display (`lemplint stack`).
    pub prefix: PathBuf,
    pub root: Option<PathBuf>,
}

/// The files each followed `include` directive read. One flat list of targets and a range
/// per directive: a configuration of 50,000 vhosts has hundreds of thousands of includes,
/// nearly all reading one file, and a vector each would cost more than its contents.
#[derive(Debug, Default)]
pub struct Includes {
    ranges: HashMap<(FileId, NodeId), (u32, u32)>,
    targets: Vec<FileId>,
}

impl Includes {
    /// The files the `include` at `node` of `file` read, if it was followed.
    pub fn get(&self, file: FileId, node: NodeId) -> Option<&[FileId]> {
        let &(from, to) = self.ranges.get(&(file, node))?;
        Some(&self.targets[from as usize..to as usize])
    }

    fn insert(&mut self, file: FileId, node: NodeId, targets: &[FileId]) {
        let from = self.targets.len() as u32;
        self.targets.extend_from_slice(targets);
        self.ranges
            .insert((file, node), (from, self.targets.len() as u32));
    }

    /// Every followed include with the files it read, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = ((FileId, NodeId), &[FileId])> {
        self.ranges
            .iter()
            .map(|(&at, &(from, to))| (at, &self.targets[from as usize..to as usize]))
    }
}

impl NginxConfig {
    pub fn file(&self, id: FileId) -> &NginxFile {
        &self.files[id.0 as usize]
    }

    pub fn ids(&self) -> impl Iterator<Item = FileId> {
        (0..self.files.len() as u32).map(FileId)
    }
}

/// Reads and parses `main` and (unless `single_file`) everything it includes.
pub fn load(fs: &dyn Fs, main: &Path, opts: &LoadOptions) -> std::io::Result<NginxConfig> {
    let source = fs.source(main).1?;
    Ok(load_from(fs, source, opts))
}

/// Like [`load`] for a main file already in memory (stdin).
pub fn load_from(fs: &dyn Fs, main: SourceFile, opts: &LoadOptions) -> NginxConfig {
    let prefix = opts.prefix.clone().unwrap_or_else(|| {
        main.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    });
    let root = opts
        .root
        .clone()
        .or_else(|| super::paths::detect_root(&main.path));
    let main_identity = fs.identity(&main.path);
    let (main, parsed) = fs.nginx_tree(main);
    let mut loader = Loader {
        max_files: if opts.max_files == 0 {
            MAX_FILES
        } else {
            opts.max_files
        },
        included: HashMap::default(),
        paths: HashMap::from_iter([(main.path.clone(), FileId(0))]),
        templates: HashSet::default(),
        fs,
        resolver: Resolver {
            prefix: Some(prefix),
            root,
        },
        config_files: vec![NginxFile {
            identity: main_identity.clone(),
            source: main,
            parsed,
            reached: Reached::Entry,
        }],
        identities: HashMap::from_iter([(main_identity.clone(), FileId(0))]),
        includes: Includes::default(),
        problems: Vec::new(),
        chain: vec![FileId(0)],
    };
    if !opts.single_file {
        loader.visit(FileId(0));
    }
    NginxConfig {
        files: loader.config_files,
        includes: loader.includes,
        problems: loader.problems,
        prefix: loader.resolver.prefix.unwrap_or_default(),
        root: loader.resolver.root,
    }
}

/// A file read ahead of its turn: its identity, and its source and tree (or why it failed).
type Prefetched = (FileKey, std::io::Result<(Shared, Arc<Parsed>)>);

/// Reads and parses one file (on any thread).
fn read_parsed(fs: &dyn Fs, path: &Path) -> Prefetched {
    let (key, source) = fs.source(path);
    (key, source.map(|source| fs.nginx_tree(source)))
}

struct Loader<'a> {
    max_files: usize,
    /// A plain include's argument (its value) → the file it read: every later include
    /// written the same way reads the same file, since paths resolve the same way.
    included: HashMap<Box<[u8]>, FileId>,
    /// Paths already entered, so a snippet included by every vhost (`include
    /// snippets/php.conf`) is not opened once per include.
    paths: HashMap<PathBuf, FileId>,
    /// Templates met, so one included by every vhost is read once.
    templates: HashSet<PathBuf>,
    fs: &'a dyn Fs,
    resolver: Resolver,
    config_files: Vec<NginxFile>,
    identities: HashMap<FileKey, FileId>,
    includes: Includes,
    problems: Vec<LoadProblem>,
    /// The files being expanded, outermost first (for cycle detection).
    chain: Vec<FileId>,
}

impl Loader<'_> {
    fn visit(&mut self, file: FileId) {
        // Collect first: the tree is borrowed from `config_files`, which grows below (the
        // source is shared, so its bytes stay readable through our own handle).
        let source = self.config_files[file.0 as usize].source.clone();
        let wanted: Vec<(NodeId, Word)> = {
            let tree = &self.config_files[file.0 as usize].parsed.tree;
            tree.includes
                .iter()
                // An `include` in a word list too: the map, geo and types handlers call
                // nginx's include for it.
                .filter_map(|&id| Some((id, tree.statement(id)?)))
                .filter(|(_, d)| d.semicolon().is_some())
                .filter_map(|(id, d)| match tree.args(d) {
                    [arg] => Some((id, *arg)),
                    _ => None,
                })
                .collect()
        };
        for (node, word) in wanted {
            let span = word.raw();
            let value = word.value(&source.text);
            if crate::syntax::template::touches(&source.holes, &source.text, span) {
                let written = String::from_utf8_lossy(&value).into_owned();
                self.problem(file, span, LoadProblemKind::Placeholder { written });
                self.includes.insert(file, node, &[]);
                continue;
            }
            // The same snippet included by thousands of vhosts: resolved once.
            if let Some(&id) = self.included.get(value.as_ref()) {
                if !self.chain.contains(&id) {
                    self.includes.insert(file, node, &[id]);
                    continue;
                }
            }
            let arg = super::paths::from_bytes(&value);
            let path = match self.resolver.resolve(&arg, self.fs) {
                Resolved::Path(p) => p,
                Resolved::Unmapped(path) => {
                    self.problem(file, span, LoadProblemKind::Unmapped { path });
                    self.includes.insert(file, node, &[]);
                    continue;
                }
            };
            let is_glob = super::paths::is_glob(&arg);
            let targets = if is_glob {
                match self.fs.glob(&path) {
                    Ok(paths) => paths,
                    Err(e) if too_large(&e).is_some() => {
                        let why = too_large(&e).map(ToString::to_string).unwrap_or_default();
                        let kind = LoadProblemKind::GlobTooLarge { pattern: path, why };
                        self.problem(file, span, kind);
                        self.includes.insert(file, node, &[]);
                        continue;
                    }
                    Err(e) => {
                        self.problem(
                            file,
                            span,
                            LoadProblemKind::Unreadable {
                                path,
                                io: e.to_string(),
                            },
                        );
                        continue;
                    }
                }
            } else {
                vec![path]
            };
            let ids = self.enter_all(file, node, span, &targets, is_glob);
            if let (false, [id]) = (is_glob, ids.as_slice()) {
                self.included
                    .insert(value.into_owned().into_boxed_slice(), *id);
            }
            self.includes.insert(file, node, &ids);
        }
    }

    fn problem(&mut self, file: FileId, span: Span, kind: LoadProblemKind) {
        self.problems.push(LoadProblem { file, span, kind });
    }

    /// Enters an include's targets in order; returns the ids of those read. Many targets
    /// (a `sites-enabled/*` of thousands of vhosts) are read and parsed ahead on the other
    /// cores while the walk goes on (see [`super::ahead`]).
    fn enter_all(
        &mut self,
        from: FileId,
        node: NodeId,
        span: Span,
        targets: &[PathBuf],
        glob: bool,
    ) -> Vec<FileId> {
        if targets.len() < 8 {
            return targets
                .iter()
                .filter_map(|t| self.enter(from, node, span, t.clone(), glob, None))
                .collect();
        }
        // Reading a file we already have (a glob that matches an included file again) is
        // wasted but harmless: `enter` finds its identity known.
        let fs = self.fs;
        let read = |i: usize| read_parsed(fs, &targets[i]);
        super::ahead::read_ahead(targets.len(), &read, |ahead| {
            (0..targets.len())
                .filter_map(|i| {
                    let target = targets[i].clone();
                    self.enter(from, node, span, target, glob, Some(ahead.take(i)))
                })
                .collect()
        })
    }

    /// Enters one include target: reads it (unless `prefetched` or already known), expands
    /// its includes, and returns its id.
    fn enter(
        &mut self,
        from: FileId,
        node: NodeId,
        span: Span,
        path: PathBuf,
        glob: bool,
        prefetched: Option<Prefetched>,
    ) -> Option<FileId> {
        // A path entered before is not read again, nor is a file known by another path (a
        // symlink): both are the file already loaded, unless that means a cycle.
        if let Some(&id) = self.paths.get(&path) {
            return self.reenter(from, span, path, id);
        }
        if self.templates.contains(&path) {
            self.problem(from, span, LoadProblemKind::Template { path });
            return None;
        }
        let (identity, read) = prefetched.unwrap_or_else(|| read_parsed(self.fs, &path));
        if let Some(&id) = self.identities.get(&identity) {
            return self.reenter(from, span, path, id);
        }
        if self.chain.len() >= MAX_INCLUDE_DEPTH {
            let mut chain: Vec<PathBuf> = self
                .chain
                .iter()
                .map(|c| self.config_files[c.0 as usize].source.path.clone())
                .collect();
            chain.push(path);
            self.problem(from, span, LoadProblemKind::TooDeep { chain });
            return None;
        }
        if self.config_files.len() >= self.max_files {
            let limit = self.max_files;
            self.problem(from, span, LoadProblemKind::TooManyIncludes { limit });
            return None;
        }
        let (source, parsed) = match read {
            Ok((source, parsed))
                if crate::syntax::template::needs_rendering(&source.holes, parsed.errors.len()) =>
            {
                self.templates.insert(path.clone());
                self.problem(from, span, LoadProblemKind::Template { path });
                return None;
            }
            Ok(t) => t,
            Err(e) => {
                let io = io_message(&e);
                let kind = if let Some(refusal) = refusal(&e) {
                    LoadProblemKind::Refused { path, refusal }
                } else if glob {
                    LoadProblemKind::Unreadable { path, io }
                } else {
                    LoadProblemKind::IncludeNotFound { path, io }
                };
                self.problem(from, span, kind);
                return None;
            }
        };
        let id = FileId(self.config_files.len() as u32);
        self.config_files.push(NginxFile {
            identity: identity.clone(),
            source,
            parsed,
            reached: Reached::Include { from, node, glob },
        });
        self.identities.insert(identity, id);
        self.paths
            .insert(self.config_files[id.0 as usize].source.path.clone(), id);
        self.chain.push(id);
        self.visit(id);
        self.chain.pop();
        Some(id)
    }

    /// An include of a file already loaded: its id, or a cycle reported when the file is
    /// one of those being read.
    fn reenter(&mut self, from: FileId, span: Span, path: PathBuf, id: FileId) -> Option<FileId> {
        let Some(pos) = self.chain.iter().position(|&c| c == id) else {
            return Some(id);
        };
        let mut chain: Vec<PathBuf> = self.chain[pos..]
            .iter()
            .map(|c| self.config_files[c.0 as usize].source.path.clone())
            .collect();
        chain.push(path);
        self.problem(from, span, LoadProblemKind::IncludeCycle { chain });
        None
    }
}

/// The cap a glob hit, when that is why it failed.
pub fn too_large(e: &std::io::Error) -> Option<&super::glob::TooLarge> {
    e.get_ref()?.downcast_ref()
}

/// `2: No such file or directory`, as nginx prints errno and strerror.
pub fn io_message(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => {
            let full = e.to_string();
            // std formats "No such file or directory (os error 2)".
            let text = full.split(" (os error").next().unwrap_or(&full);
            format!("{code}: {text}")
        }
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::fs::DumpFs;

    fn dump(files: &[(&str, &str)]) -> DumpFs {
        let mut fs = DumpFs::default();
        for (path, text) in files {
            fs.files
                .insert(PathBuf::from(path), text.as_bytes().to_vec());
        }
        fs
    }

    #[test]
    fn files_past_the_cap_are_not_read_and_say_so() {
        let fs = dump(&[
            ("/n/nginx.conf", "http { include /n/conf.d/*.conf; }\n"),
            ("/n/conf.d/a.conf", "server { }\n"),
            ("/n/conf.d/b.conf", "server { }\n"),
            ("/n/conf.d/c.conf", "server { }\n"),
        ]);
        let opts = LoadOptions {
            max_files: 3,
            ..LoadOptions::default()
        };
        let config = load(&fs, Path::new("/n/nginx.conf"), &opts).unwrap();
        let paths: Vec<_> = config.files.iter().map(|f| f.source.path.clone()).collect();
        assert_eq!(
            paths,
            ["/n/nginx.conf", "/n/conf.d/a.conf", "/n/conf.d/b.conf"].map(PathBuf::from)
        );
        assert_eq!(config.problems.len(), 1);
        assert_eq!(
            config.problems[0].message(),
            "too many included files (limit 3); not followed"
        );
    }

    #[test]
    fn includes_too_deep_name_their_chain() {
        let mut files: Vec<(String, String)> = (0..70)
            .map(|i| {
                (
                    format!("/n/f{i}.conf"),
                    format!("include /n/f{}.conf;\n", i + 1),
                )
            })
            .collect();
        files.push(("/n/f70.conf".into(), "gzip on;\n".into()));
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let config = load(
            &dump(&refs),
            Path::new("/n/f0.conf"),
            &LoadOptions::default(),
        )
        .unwrap();
        assert_eq!(config.files.len(), MAX_INCLUDE_DEPTH);
        assert_eq!(config.problems.len(), 1);
        assert_eq!(
            config.problems[0].message(),
            "includes nested deeper than 64 levels: /n/f0.conf → /n/f1.conf → /n/f2.conf → … → \
             /n/f63.conf → /n/f64.conf; not followed"
        );
    }

    #[test]
    fn a_snippet_included_many_times_is_read_once() {
        let fs = dump(&[
            (
                "/n/nginx.conf",
                "http { server { include /n/p; } server { include /n/p; } }\n",
            ),
            ("/n/p", "fastcgi_param A b;\n"),
        ]);
        let opts = LoadOptions {
            ..LoadOptions::default()
        };
        let config = load(&fs, Path::new("/n/nginx.conf"), &opts).unwrap();
        assert_eq!(config.files.len(), 2);
        let reads: Vec<_> = config.includes.iter().map(|(_, t)| t.len()).collect();
        assert_eq!(reads, [1, 1]);
    }
}
