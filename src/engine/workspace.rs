//! Everything a command needs before rules run: the config file, the stacks found under
//! the paths the user gave, and each stack's host facts.

use crate::config::{self, Loaded};
use crate::host::{HostFacts, HostSpec};
use crate::rules::RuleOptions;
use crate::stack::confine::{self, Confinement};
use crate::stack::discover::{self, StackFiles};
use crate::stack::fs::{Fs, OverlayFs, RealFs};
use crate::stack::model::{BuildOptions, Stack};
// Fx: sets of the run's own paths, asked for every file (see `crate::fxhash`).
use crate::fxhash::FxHashSet as HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

// Options shared by `lint`, `fix`, `stack` and `tune`. A plain comment: clap makes a doc
// comment here the description of every command that flattens these, once that command's
// arguments are added on demand (`cli::Command` defers them).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct StackArgs {
    /// Files or directories (default: the current directory)
    pub paths: Vec<PathBuf>,
    /// Use this config file instead of looking for lemplint.toml
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Ignore every config file (defaults only)
    #[arg(long, conflicts_with = "config")]
    pub isolated: bool,
    /// Number of CPUs of the server the configuration is for
    #[arg(long, value_name = "N")]
    pub cpus: Option<u32>,
    /// Memory of the server (613MiB, 2GiB, 2G, bytes; at least 16MiB)
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<String>,
    /// Kernel version of the server (e.g. 6.1)
    #[arg(long, value_name = "VERSION")]
    pub kernel: Option<String>,
    /// `local`: read host facts from this machine even when the files are not its /etc
    #[arg(long, value_name = "local")]
    pub host: Option<HostSource>,
    /// Directory relative nginx includes resolve against (default: the nginx.conf directory)
    #[arg(short = 'p', long)]
    pub prefix: Option<PathBuf>,
    /// Directory that stands for `/` (default: the directory above `etc/` in the paths)
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Also read files in DIR, outside the linted tree (a shared include directory)
    #[arg(long, value_name = "DIR")]
    pub allow_outside: Vec<PathBuf>,
    /// Value of a template placeholder (`nginx_port=8080`, `@PHP_MAX_CHILDREN=20`); repeatable
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Values of template placeholders from a file (TOML, YAML, or NAME=value lines); repeatable
    #[arg(long = "vars", value_name = "FILE")]
    pub var_files: Vec<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HostSource {
    /// Detect CPUs, memory and kernel on this machine
    Local,
}

/// How [`Workspace::load`]'s message begins when the paths hold no configuration of ours.
pub const NOTHING_FOUND: &str = "no configuration files found";

/// The name standard input goes by (`lemplint lint -` reads it into a file of this name).
pub const STDIN: &str = "<stdin>";

/// The boundary of a run (see [`crate::stack::confine`]): the root each given path
/// contributes (its repository's work tree, or outside one the server root or directory it
/// is), the live system when a path is `/` or under `/etc`, and what the command line adds.
/// A configuration file can narrow nothing and widen nothing: only flags add directories.
pub fn confinement(args: &StackArgs) -> Arc<Confinement> {
    let given: Vec<PathBuf> = if args.paths.is_empty()
        || args.paths == [PathBuf::from("-")]
        || args.paths == [PathBuf::from(STDIN)]
    {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut roots = Vec::new();
    let mut live = false;
    for p in &given {
        // Where the path is, not where a symlink in it leads (see `confine::lexical`).
        if confine::is_live_path(&confine::lexical(p)) {
            live = true;
        } else {
            roots.extend(confine::root_for(p));
        }
    }
    // What the command line grants is followed: the user named it.
    let granted = args
        .root
        .iter()
        .chain(&args.prefix)
        .chain(&args.allow_outside)
        .filter_map(|p| std::fs::canonicalize(p).ok());
    roots.extend(granted);
    Arc::new(Confinement::new(&roots, live, args.root.clone()))
}

/// The file system a run reads, confined to [`confinement`].
pub fn real_fs(args: &StackArgs) -> RealFs {
    RealFs::new(confinement(args))
}

/// Reads standard input into an overlay under [`STDIN`] when `paths` is `-`, and renames the
/// path so the rest of the run treats it as a file.
pub fn stdin_overlay(args: &mut StackArgs) -> Result<Option<crate::stack::fs::OverlayFs>, String> {
    if args.paths != [PathBuf::from("-")] {
        return Ok(None);
    }
    let buf =
        crate::stack::fs::read_stdin().map_err(|e| format!("cannot read standard input: {e}"))?;
    let mut fs = OverlayFs::new(real_fs(args));
    fs.insert(PathBuf::from(STDIN), buf);
    args.paths = vec![PathBuf::from(STDIN)];
    args.isolated =
        args.isolated || args.config.is_none() && config::find(Path::new(".")).is_none();
    Ok(Some(fs))
}

pub struct Workspace {
    pub config: Loaded,
    /// Every rule's options, read from `[rules.*]` and checked when the config loaded.
    pub options: RuleOptions,
    pub stacks: Vec<Stack>,
    /// The files the user named (pre-commit passes changed files): only diagnostics that
    /// concern them are reported. `None` when directories were given.
    pub focus: Option<HashSet<PathBuf>>,
    /// The device and inode of each named file, when every one could be asked: a file read
    /// with another identity is none of them, found without resolving its path.
    focus_ids: Option<HashSet<(u64, u64)>>,
}

impl Workspace {
    pub fn load(args: &StackArgs) -> Result<Workspace, String> {
        Workspace::load_with(args, &real_fs(args))
    }

    /// Like [`Workspace::load`], reading configuration files through `fs`.
    pub fn load_with(args: &StackArgs, fs: &dyn crate::stack::fs::Fs) -> Result<Workspace, String> {
        let paths = if args.paths.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            args.paths.clone()
        };
        let stdin = paths == [PathBuf::from(STDIN)];
        for p in &paths {
            if !p.exists() && !stdin {
                return Err(format!(
                    "{}: no such file or directory",
                    crate::escape::path(p)
                ));
            }
        }
        let (config, options) = load_config(args, &paths)?;
        let flags = HostSpec {
            cpus: args.cpus,
            memory: args.memory.clone().map(crate::host::SizeValue::Text),
            kernel: args.kernel.clone(),
            ..Default::default()
        };
        // Validate flags up front, with a message that names the flag.
        HostFacts::default()
            .fill_from(&flags, &crate::host::Provenance::Flag)
            .map_err(|e| format!("invalid host flag: {e}"))?;

        let all_files = stdin || paths.iter().all(|p| p.is_file());
        let t = std::time::Instant::now();
        let mut stack_files = if stdin {
            // Standard input is one file on its own; its content says what it is.
            let text = fs
                .head(Path::new(STDIN), discover::SNIFF_BYTES)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            let mut files = StackFiles::default();
            let kind = discover::sniff(&text).unwrap_or(discover::FileKind::Nginx);
            files.push(kind, PathBuf::from(STDIN));
            vec![files]
        } else if all_files {
            stacks_of_files(&paths, fs, &|p| config.excluded(p))
        } else {
            discover::discover(&paths, fs, &|p| config.excluded(p))
        };
        crate::timings::report(format_args!("discover"), t);
        // Files that pending fixes create (the fixer's overlay) join the stack they are in.
        for created in fs.created() {
            if let Some(kind) = discover::classify(&created) {
                if let Some(s) = stack_files
                    .iter_mut()
                    .rev()
                    .find(|s| created.starts_with(&s.root))
                {
                    s.push(kind, created);
                }
            }
        }
        if stack_files.iter().all(StackFiles::is_empty) {
            return Err(format!(
                "{NOTHING_FOUND} in {}",
                paths
                    .iter()
                    .map(|p| crate::escape::path(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let build = BuildOptions {
            prefix: args
                .prefix
                .clone()
                .or_else(|| config.config.paths.prefix.clone()),
            root: args
                .root
                .clone()
                .or_else(|| config.config.paths.root.clone()),
        };
        // Templates are rendered with the values known for them (see `stack::values`).
        let fs = &crate::stack::fs::WithValues {
            inner: fs,
            values: crate::stack::values::Values::from_args(&args.vars, &args.var_files)?,
        };
        let mut stacks = Vec::new();
        for files in stack_files.iter().filter(|s| !s.is_empty()) {
            let mut host = config.host_facts(&flags, &files.root)?;
            if args.host == Some(HostSource::Local) || is_live_system(&files.root) {
                host.fill_detected();
            }
            stacks.push(Stack::build(fs, files, &build, host));
        }
        let focus = all_files.then(|| paths.iter().map(|p| normalize(p)).collect());
        let focus_ids = if all_files && !stdin {
            file_ids(&paths)
        } else {
            None
        };
        release_freed_memory();
        Ok(Workspace {
            config,
            options,
            stacks,
            focus,
            focus_ids,
        })
    }

    /// The configuration `load` would use, without looking for stacks (`fmt -`).
    pub fn config_only(args: &StackArgs) -> Result<Loaded, String> {
        let paths = if args.paths.is_empty() || args.paths == [PathBuf::from("-")] {
            vec![PathBuf::from(".")]
        } else {
            args.paths.clone()
        };
        Ok(load_config(args, &paths)?.0)
    }

    /// Whether a diagnostic about `file` should be shown: its path is in focus, or the
    /// `nginx -T` dump holding it is (the dump is what was named; its sections carry the
    /// paths of the server that wrote it).
    pub fn file_in_focus(&self, file: &crate::source::SourceFile) -> bool {
        // Two paths that resolve to one file name one device and inode: a file read with
        // an identity no named file has is not one of them, and its path is not resolved
        // (a `realpath`, one `readlink` per component, for each of 5,600 files of a tree
        // linted through its main file). A section of a dump is asked by its paths.
        if let (Some(ids), Some(stamp), None) = (&self.focus_ids, &file.stamp, &file.member) {
            if !ids.contains(&(stamp.dev, stamp.ino)) {
                return false;
            }
        }
        self.in_focus(&file.path)
            || file
                .member
                .as_ref()
                .is_some_and(|m| self.in_focus(&m.container))
    }

    /// [`Workspace::file_in_focus`] with each file's answer kept: a path is resolved once per
    /// file, not once per finding and label (tens of thousands of `realpath`s otherwise).
    pub fn focus_memo(&self) -> FocusMemo<'_> {
        FocusMemo {
            ws: self,
            seen: Default::default(),
        }
    }

    /// Whether a diagnostic about `path` should be shown.
    pub fn in_focus(&self, path: &Path) -> bool {
        self.focus
            .as_ref()
            .is_none_or(|f| f.contains(&normalize(path)))
    }
}

/// Which files are in focus, each file asked once (see [`Workspace::focus_memo`]).
pub struct FocusMemo<'a> {
    ws: &'a Workspace,
    seen: crate::fxhash::FxHashMap<*const crate::source::SourceFile, bool>,
}

impl FocusMemo<'_> {
    pub fn file_in_focus(&mut self, file: &crate::source::Shared) -> bool {
        if self.ws.focus.is_none() {
            return true;
        }
        let ws = self.ws;
        *self
            .seen
            .entry(std::sync::Arc::as_ptr(file))
            .or_insert_with(|| ws.file_in_focus(file))
    }
}

/// The config file (found from the first path, or named) and its checked rule options.
fn load_config(args: &StackArgs, paths: &[PathBuf]) -> Result<(Loaded, RuleOptions), String> {
    let confine = confinement(args);
    let found = if args.isolated {
        None
    } else {
        args.config.clone().or_else(|| config::find(&paths[0]))
    };
    match found {
        Some(path) => {
            let text = read_config(&confine, &path, args.config.is_some())?;
            let loaded = config::parse(&path, text.clone()).map_err(|e| render_config_error(&e))?;
            // Options are checked now, before any file is read: a typo in one must not
            // silently turn a setting off, nor let a long run end in the error.
            let options = RuleOptions::from_tables(&loaded.config.rules).map_err(|e| {
                render_config_error(&config::ConfigError {
                    path: path.clone(),
                    text,
                    message: e.message,
                    span: e.span,
                    help: e.help,
                })
            })?;
            check_config_paths(&confine, &loaded)?;
            Ok((loaded, options))
        }
        None => Ok((Loaded::default(), RuleOptions::default())),
    }
}

/// The device and inode of each of `paths` (as `stat` follows links), or `None` when one
/// cannot be asked.
fn file_ids(paths: &[PathBuf]) -> Option<HashSet<(u64, u64)>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        paths
            .iter()
            .map(|p| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino())))
            .collect()
    }
    #[cfg(not(unix))]
    {
        let _ = paths;
        None
    }
}

fn normalize(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The live system: files under the real `/etc`.
fn is_live_system(root: &Path) -> bool {
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .unwrap_or_else(|_| PathBuf::from("/"));
    is_live_root(root, &cwd)
}

/// Whether a stack's root, relative to `cwd` when it is not absolute, is this machine's
/// own configuration: `/`, or `/etc` or a directory in it (`lemplint lint /etc`,
/// `lemplint lint /etc/nginx`), named without following symlinks (as
/// [`confine::lexical`] names it). A copy of `/etc` elsewhere (`./etc`, `/srv/backup/etc`)
/// is not.
pub fn is_live_root(root: &Path, cwd: &Path) -> bool {
    use std::path::Component;
    let mut abs = if root.is_absolute() {
        PathBuf::from("/")
    } else {
        cwd.to_path_buf()
    };
    for c in root.components() {
        match c {
            Component::Normal(n) => abs.push(n),
            Component::ParentDir => {
                abs.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    abs == Path::new("/") || abs.starts_with("/etc")
}

/// Named files (pre-commit): each file's whole stack, found from its server root (the
/// directory above `etc/`) or the nearest directory holding an `nginx.conf`.
fn stacks_of_files(
    files: &[PathBuf],
    fs: &dyn Fs,
    skip: &dyn Fn(&Path) -> bool,
) -> Vec<StackFiles> {
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut loose: Vec<PathBuf> = Vec::new();
    for f in files {
        let dir = match f.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let root = crate::stack::paths::detect_root(f)
            .or_else(|| crate::stack::paths::stack_dir_of(dir, |_| true));
        match root {
            Some(r) if !roots.contains(&r) => roots.push(r),
            Some(_) => {}
            None => loose.push(f.clone()),
        }
    }
    let mut out = if roots.is_empty() {
        Vec::new()
    } else {
        discover::discover(&roots, fs, skip)
    };
    // A named file that discovery did not classify still belongs to the run. Discovery
    // names a file as root + the path under it, which is mostly how the file was named: a
    // path found as written is known without resolving anything. The discovered paths are
    // resolved (a `realpath` each: a `readlink` per component and a `getcwd`, 35 ms for
    // the 5,600 files of a tree linted through its main file) only when a named file is
    // not among them as written.
    let discovered: Vec<PathBuf> = out.iter().flat_map(all_paths).collect();
    let as_written: HashSet<&Path> = discovered.iter().map(PathBuf::as_path).collect();
    let mut resolved: Option<HashSet<PathBuf>> = None;
    for f in files {
        if as_written.contains(f.as_path()) || loose.contains(f) {
            continue;
        }
        let known =
            resolved.get_or_insert_with(|| discovered.iter().map(|p| normalize(p)).collect());
        if !known.contains(&normalize(f)) {
            loose.push(f.clone());
        }
    }
    if !loose.is_empty() {
        out.extend(discover::discover(&loose, fs, skip));
    }
    out
}

fn all_paths(s: &StackFiles) -> Vec<PathBuf> {
    [
        &s.nginx,
        &s.fpm_masters,
        &s.fpm_pools,
        &s.sysctl,
        &s.php_ini,
    ]
    .into_iter()
    .flatten()
    .cloned()
    .collect()
}

/// Reads `lemplint.toml`. One found by looking (not named with `--config`) is read through
/// the boundary when it lies in the linted tree: a pull request cannot make it a symlink to
/// the runner's files. One above the tree was put there by the machine's owner.
fn read_config(confine: &Arc<Confinement>, path: &Path, named: bool) -> Result<String, String> {
    let shown = crate::escape::path(path);
    let fail = |why: String| format!("cannot read {shown}: {why}");
    let fs = RealFs::new(if named || !in_tree(confine, path) {
        Confinement::live()
    } else {
        confine.clone()
    });
    let text = match fs.read(path) {
        Ok(t) => t,
        Err(e) => {
            let why = match confine::refusal(&e) {
                Some(r) => r.describe().to_string(),
                None => crate::stack::nginx::io_message(&e),
            };
            return Err(fail(why));
        }
    };
    String::from_utf8(text).map_err(|_| fail("it is not UTF-8 text".into()))
}

/// Whether a path (as written, not followed) lies in the linted tree.
fn in_tree(confine: &Confinement, path: &Path) -> bool {
    if confine.is_live() {
        return true;
    }
    let Ok(abs) = std::path::absolute(path) else {
        return true;
    };
    let dir = abs.parent().unwrap_or(&abs);
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    confine.roots().iter().any(|r| dir.starts_with(r))
}

/// `[paths] root` and `prefix` may only point inside the tree: a configuration file that a
/// pull request can change must not widen what lemplint reads.
fn check_config_paths(confine: &Confinement, loaded: &Loaded) -> Result<(), String> {
    if confine.is_live() {
        return Ok(());
    }
    let paths = &loaded.config.paths;
    for (key, value) in [("root", &paths.root), ("prefix", &paths.prefix)] {
        let Some(value) = value else { continue };
        let inside = std::fs::canonicalize(value)
            .map(|real| confine.roots().iter().any(|r| real.starts_with(r)))
            .unwrap_or(false);
        if !inside {
            return Err(format!(
                "{}: [paths] {key} = {} is outside the linted tree; a configuration file cannot widen what lemplint reads (use --root or --allow-outside on the command line)",
                crate::escape::path(loaded.path.as_deref().unwrap_or(Path::new("lemplint.toml"))),
                crate::escape::path(value)
            ));
        }
    }
    Ok(())
}

/// The longest config error message shown, in characters.
const MAX_CONFIG_MESSAGE: usize = 400;
/// The longest config line framed, in bytes.
const MAX_CONFIG_LINE: usize = 4000;

fn render_config_error(e: &config::ConfigError) -> String {
    use miette::{
        GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource,
    };
    // Bounded: a message may quote the value (toml's own errors do), and a value may be
    // megabytes long.
    let message = match e.message.char_indices().nth(MAX_CONFIG_MESSAGE) {
        None => crate::escape::text(&e.message).into_owned(),
        Some(_) => crate::escape::excerpt(&e.message, MAX_CONFIG_MESSAGE),
    };
    let Some(span) = e.span.clone() else {
        return format!("{}: {message}", crate::escape::path(&e.path));
    };
    // A line too long to frame is named by its number alone.
    let bytes = e.text.as_bytes();
    let at = span.start.min(bytes.len());
    let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    let line_end =
        memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i);
    if line_end - line_start > MAX_CONFIG_LINE {
        let line = memchr::memchr_iter(b'\n', &bytes[..line_start]).count() + 1;
        return format!(
            "{}:{line}: invalid config: {message}",
            crate::escape::path(&e.path)
        );
    }
    let (text, shifts) = crate::escape::display_text(e.text.as_bytes());
    let span = shifts.map(span.start)..shifts.map(span.end);
    let mut diag = MietteDiagnostic::new(format!("invalid config: {message}"))
        .with_label(LabeledSpan::new_primary_with_span(None, span));
    if let Some(help) = &e.help {
        diag = diag.with_help(crate::escape::text(help));
    }
    let report = miette::Report::new(diag)
        .with_source_code(NamedSource::new(crate::escape::path(&e.path), text));
    let mut out = String::new();
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    if handler.render_report(&mut out, report.as_ref()).is_err() {
        return format!("{}: {message}", crate::escape::path(&e.path));
    }
    out
}

/// Hands the memory freed while loading (the loader's caches, the expansion's working
/// arrays) back to the system before the rules run. glibc keeps freed chunks that sit below
/// live ones, and the rules allocate on worker threads, whose arenas cannot reuse the main
/// thread's: without this a 100 MB configuration carries about 25 MiB of dead pages through
/// the rules, which then allocate on top of them.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages to the kernel; no live allocation moves.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::is_live_root;
    use std::path::Path;

    /// `lemplint lint /etc` on a server detected no host facts: only `/` did.
    #[test]
    fn the_machines_own_etc_or_root_is_the_live_host() {
        let cwd = Path::new("/home/me/repo");
        for live in [
            "/",
            "/etc",
            "/etc/",
            "/etc/nginx",
            "/etc/php/8.2/fpm",
            "/etc/../etc",
        ] {
            assert!(is_live_root(Path::new(live), cwd), "{live}");
        }
        // Relative to where lemplint runs.
        assert!(is_live_root(Path::new("etc"), Path::new("/")));
        assert!(is_live_root(Path::new(""), Path::new("/")));
        assert!(is_live_root(Path::new("nginx"), Path::new("/etc")));
        assert!(is_live_root(Path::new("../.."), Path::new("/home/me")));
        // Copies of a server's /etc, and names that only begin like it.
        for not in [
            "etc",
            "./etc",
            "/srv/backup/etc",
            "/etcetera",
            "/home/me/etc/nginx",
            "",
        ] {
            assert!(!is_live_root(Path::new(not), cwd), "{not}");
        }
        assert!(!is_live_root(Path::new("/etc/../srv"), cwd));
    }
}
