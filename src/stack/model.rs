//! The stack: everything one server runs, read and connected.
//!
//! Built from the files discovery found for one server root: the nginx configurations (each
//! main file with its includes, expanded), PHP-FPM masters and pools, the effective sysctl
//! values, and the host facts. Rules read a `Stack`; they never touch the file system.

use super::discover::StackFiles;
use super::expanded::Expanded;
use super::fs::{FileKey, Fs};
use super::memo::Memo;
use super::nginx::{self, LoadOptions, NginxConfig};
use crate::host::HostFacts;
use crate::source::FileId;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// One nginx configuration: a main file with everything it includes.
pub struct NginxInstance {
    pub config: NginxConfig,
    pub expanded: Expanded,
    /// True for a file nothing includes that is not an `nginx.conf` (a vhost kept in
    /// `sites-available`, a snippet): it is checked on its own, without a context.
    pub standalone: bool,
    /// Facts rules derive from this configuration, computed once (see [`Memo`]).
    pub memo: Memo,
}

impl NginxInstance {
    pub fn view(&self) -> super::expanded::View<'_> {
        super::expanded::View {
            config: &self.config,
            expanded: &self.expanded,
        }
    }
}

pub struct Stack {
    pub root: PathBuf,
    pub nginx: Vec<NginxInstance>,
    /// PHP-FPM masters with their pools, then pool files no master includes.
    pub fpm: Vec<super::fpm::FpmConfig>,
    pub sysctl: super::sysctl::SysctlSet,
    pub host: HostFacts,
    /// Files found but not read (permissions, size cap, a directory, outside the tree).
    pub unreadable: Vec<Unread>,
    /// Each distinct nginx file once: (configuration, file) of its first reading.
    distinct_nginx: Vec<(usize, FileId)>,
}

/// A file found but not read.
#[derive(Clone, Debug)]
pub struct Unread {
    pub path: PathBuf,
    /// Why, worded as nginx words errno (`13: Permission denied`).
    pub why: String,
    /// Set when it was never opened because it leads out of the linted tree (LINT004);
    /// otherwise reading it failed (LINT003).
    pub refused: Option<super::confine::Refusal>,
}

impl Unread {
    pub fn new(path: &Path, e: &std::io::Error) -> Unread {
        Unread {
            path: path.to_path_buf(),
            why: nginx::io_message(e),
            refused: super::confine::refusal(e),
        }
    }
}

/// Options shared by every stack of a run.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    pub prefix: Option<PathBuf>,
    /// Overrides the detected server root for absolute includes.
    pub root: Option<PathBuf>,
}

impl Stack {
    /// Reads and connects a stack's files through `fs` (the disk, or the disk with the
    /// fixer's pending edits laid over it).
    pub fn build(fs: &dyn Fs, files: &StackFiles, opts: &BuildOptions, host: HostFacts) -> Stack {
        let mut unreadable = Vec::new();
        let t = std::time::Instant::now();
        let nginx = load_nginx(fs, files, opts, &mut unreadable);
        crate::timings::report(format_args!("nginx files"), t);
        let distinct_nginx = distinct_files(&nginx);
        let fpm = load_fpm(fs, files, opts, &mut unreadable);
        let sysctl = super::sysctl::load(fs, &files.root, &files.sysctl, &mut unreadable);
        Stack {
            root: files.root.clone(),
            nginx,
            fpm,
            sysctl,
            host,
            unreadable,
            distinct_nginx,
        }
    }

    /// Every nginx file of the stack once, even when several configurations read it.
    pub fn nginx_files(&self) -> Vec<&nginx::NginxFile> {
        self.distinct_nginx
            .iter()
            .map(|&(i, f)| self.nginx[i].config.file(f))
            .collect()
    }

    /// Every PHP-FPM file of the stack once.
    pub fn fpm_files(&self) -> Vec<&super::fpm::FpmFile> {
        let mut seen = HashSet::new();
        self.fpm
            .iter()
            .flat_map(|c| c.files.iter())
            .filter(|f| seen.insert(f.source.path.as_path()))
            .collect()
    }

    /// Every pool with its configuration.
    pub fn pools(&self) -> impl Iterator<Item = (&super::fpm::FpmConfig, &super::fpm::Pool)> {
        self.fpm
            .iter()
            .flat_map(|c| c.pools.iter().map(move |p| (c, p)))
    }

    /// Every source of the stack with its nginx tree when it is an nginx file.
    pub fn sources(&self) -> Vec<(crate::source::Shared, Option<&crate::syntax::nginx::Tree>)> {
        let mut out: Vec<_> = self
            .nginx_files()
            .into_iter()
            .map(|f| (f.source.clone(), Some(&f.parsed.tree)))
            .collect();
        out.extend(
            self.fpm_files()
                .into_iter()
                .map(|f| (f.source.clone(), None)),
        );
        out.extend(self.sysctl.files.iter().map(|f| (f.source.clone(), None)));
        out
    }

    /// Number of distinct files read.
    pub fn file_count(&self) -> usize {
        self.nginx_files().len() + self.fpm_files().len() + self.sysctl.files.len()
    }

    /// Every file read for this stack, for `lemplint stack` and for pre-commit filtering.
    pub fn nginx_paths(&self) -> impl Iterator<Item = &Path> {
        self.nginx
            .iter()
            .flat_map(|i| i.config.files.iter().map(|f| f.source.path.as_path()))
    }
}

/// Each file of the configurations once (by path), in order.
fn distinct_files(nginx: &[NginxInstance]) -> Vec<(usize, FileId)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, inst) in nginx.iter().enumerate() {
        for id in inst.config.ids() {
            if seen.insert(inst.config.file(id).source.path.as_path()) {
                out.push((i, id));
            }
        }
    }
    out
}

/// Loads the nginx entry points of a stack: every `nginx.conf`, then every other nginx file
/// that no loaded configuration includes.
fn load_nginx(
    fs: &dyn Fs,
    files: &StackFiles,
    opts: &BuildOptions,
    unreadable: &mut Vec<Unread>,
) -> Vec<NginxInstance> {
    let load_opts = |path: &Path| LoadOptions {
        prefix: opts.prefix.clone(),
        root: opts.root.clone().or_else(|| nginx::detect_root(path)),
        single_file: false,
        max_files: 0,
    };
    let mut reached: HashSet<FileKey> = HashSet::new();
    let mut reached_paths: HashSet<PathBuf> = HashSet::new();
    let mut out = Vec::new();
    let is_main = |p: &Path| p.file_name().is_some_and(|n| n == "nginx.conf");
    let (mains, others): (Vec<&PathBuf>, Vec<&PathBuf>) =
        files.nginx.iter().partition(|p| is_main(p));
    for path in mains {
        match nginx::load(fs, path, &load_opts(path)) {
            Ok(config) => {
                for f in &config.files {
                    reached.insert(f.identity.clone());
                    reached_paths.insert(f.source.path.clone());
                }
                // A file an include could not read is that include's finding (NGX020),
                // not a second one of its own.
                for p in &config.problems {
                    if let nginx::LoadProblemKind::Unreadable { path, .. }
                    | nginx::LoadProblemKind::IncludeNotFound { path, .. } = &p.kind
                    {
                        reached.insert(fs.identity(path));
                    }
                }
                out.push(config_instance(config, false));
            }
            Err(e) => unreadable.push(Unread::new(path, &e)),
        }
    }
    // Files no main file reaches: load each, then keep those no other candidate reaches.
    let candidates: Vec<(FileKey, NginxConfig)> = others
        .into_iter()
        // Most files were reached under the very path discovery found: no stat needed.
        .filter(|p| !reached_paths.contains(*p) && !reached.contains(&fs.identity(p)))
        .filter(|p| files.explicit.contains(p) || looks_like_nginx(fs, p))
        .filter_map(|p| {
            let o = LoadOptions {
                prefix: opts.prefix.clone().or_else(|| nearest_main_dir(p)),
                ..load_opts(p)
            };
            match nginx::load(fs, p, &o) {
                Ok(c) => Some((fs.identity(p), c)),
                Err(e) => {
                    unreadable.push(Unread::new(p, &e));
                    None
                }
            }
        })
        .collect();
    let mut included_by_other: HashSet<FileKey> = HashSet::new();
    for (_, c) in &candidates {
        for f in c.files.iter().skip(1) {
            included_by_other.insert(f.identity.clone());
        }
    }
    for (identity, config) in candidates {
        if !included_by_other.contains(&identity) {
            out.push(config_instance(config, true));
        }
    }
    out
}

/// Loads every PHP-FPM master, then every pool file no master read.
fn load_fpm(
    fs: &dyn Fs,
    files: &StackFiles,
    opts: &BuildOptions,
    unreadable: &mut Vec<Unread>,
) -> Vec<super::fpm::FpmConfig> {
    let mut out = Vec::new();
    let mut reached: HashSet<FileKey> = HashSet::new();
    for m in &files.fpm_masters {
        match super::fpm::load(fs, m, opts.root.clone(), true) {
            Ok(cfg) => {
                reached.extend(cfg.files.iter().map(|f| fs.identity(&f.source.path)));
                out.push(cfg);
            }
            Err(e) => unreadable.push(Unread::new(m, &e)),
        }
    }
    for p in &files.fpm_pools {
        if reached.contains(&fs.identity(p)) {
            continue;
        }
        match super::fpm::load(fs, p, opts.root.clone(), false) {
            Ok(cfg) => {
                reached.extend(cfg.files.iter().map(|f| fs.identity(&f.source.path)));
                out.push(cfg);
            }
            Err(e) => unreadable.push(Unread::new(p, &e)),
        }
    }
    out
}

/// Files in nginx directories that nothing includes are linted on their own only when their
/// content reads like nginx: a collectd or shell script kept beside the configs (as in many
/// repositories) is not ours to report on.
fn looks_like_nginx(fs: &dyn Fs, path: &Path) -> bool {
    fs.read(path)
        .map(|t| super::discover::sniff(&t) == Some(super::discover::FileKind::Nginx))
        .unwrap_or(true)
}

/// The directory of an `nginx.conf` next to or above `path` (up to the server root): the
/// prefix a snippet's relative includes are written against.
fn nearest_main_dir(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .take(4)
        .find(|d| d.join("nginx.conf").is_file())
        .map(Path::to_path_buf)
}

fn config_instance(config: NginxConfig, standalone: bool) -> NginxInstance {
    let t = std::time::Instant::now();
    let expanded = Expanded::build(&config);
    crate::timings::report(
        format_args!(
            "expand ({} files, {} directive occurrences)",
            config.files.len(),
            expanded.occurrences.len()
        ),
        t,
    );
    NginxInstance {
        config,
        expanded,
        standalone,
        memo: Memo::default(),
    }
}
