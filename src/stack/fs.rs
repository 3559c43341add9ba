//! Where configuration files are read from: the real file system, or the files of an
//! `nginx -T` dump held in memory. Include resolution goes through [`Fs`] so both behave
//! the same way.

use super::confine::{refusal, Confinement};
use super::glob::{Entry, Listing};
use crate::source::{Shared, SourceFile, Stamp};
use crate::syntax::nginx::Parsed;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The largest file read as a flattened symlink (see `RealFs::flattened_target`): a path.
const FLATTENED_LINK_MAX: u64 = 512;

/// An nginx file's shared source and its syntax tree, parsed now.
/// Placeholders a deployment fills in are read as holes (see [`crate::syntax::template`]).
pub fn parse_nginx(source: SourceFile) -> (Shared, Arc<Parsed>) {
    parse_nginx_with(None, source)
}

/// [`parse_nginx`], with the known placeholders rendered first when `fs` has values (see
/// [`super::values`]).
pub fn parse_nginx_with(fs: Option<&dyn Fs>, mut source: SourceFile) -> (Shared, Arc<Parsed>) {
    use crate::syntax::template;
    let masked = match fs {
        Some(fs) => super::values::prepare(fs, &mut source, template::Lang::Nginx),
        None => template::prepare(&mut source, template::Lang::Nginx),
    };
    let parsed = crate::syntax::nginx::parse(masked.as_deref().unwrap_or(&source.text));
    (Shared::new(source), Arc::new(parsed))
}

/// [`parse_nginx`] of a file in which [`crate::syntax::template::has_marker`] already found
/// no placeholder marker: it has no holes, and is not scanned for them a second time.
pub fn parse_nginx_unmarked(mut source: SourceFile) -> (Shared, Arc<Parsed>) {
    use crate::syntax::template;
    let masked = template::prepare_found(&mut source, Vec::new(), template::Lang::Nginx);
    debug_assert!(masked.is_none());
    let parsed = crate::syntax::nginx::parse(&source.text);
    (Shared::new(source), Arc::new(parsed))
}

/// A file system whose reads render templates with `values` (see [`super::values`]).
pub struct WithValues<'a> {
    pub inner: &'a dyn Fs,
    pub values: super::values::Values,
}

impl Fs for WithValues<'_> {
    fn load(&self, path: &Path) -> (FileKey, io::Result<Loaded>) {
        self.inner.load(path)
    }
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.inner.read(path)
    }
    fn read_keyed(&self, path: &Path) -> (FileKey, io::Result<Vec<u8>>) {
        self.inner.read_keyed(path)
    }
    fn head(&self, path: &Path, limit: usize) -> io::Result<Vec<u8>> {
        self.inner.head(path, limit)
    }
    fn source(&self, path: &Path) -> (FileKey, io::Result<SourceFile>) {
        self.inner.source(path)
    }
    fn nginx_tree(&self, source: SourceFile) -> (Shared, Arc<Parsed>) {
        // The editor's file system keeps trees of unchanged files; rendering is a whole
        // run's, so a file with placeholders is parsed here.
        // A file with no placeholder marker at all (nearly every file) is the inner file
        // system's to parse, without scanning it for holes twice.
        if !crate::syntax::template::has_marker(&source.text, crate::syntax::template::Lang::Nginx)
        {
            return self.inner.nginx_tree_unmarked(source);
        }
        parse_nginx_with(Some(self), source)
    }
    fn nginx_tree_unmarked(&self, source: SourceFile) -> (Shared, Arc<Parsed>) {
        self.inner.nginx_tree_unmarked(source)
    }
    fn values(&self) -> Option<&super::values::Values> {
        Some(&self.values)
    }
    fn glob(&self, pattern: &Path) -> io::Result<Vec<PathBuf>> {
        self.inner.glob(pattern)
    }
    fn created(&self) -> Vec<PathBuf> {
        self.inner.created()
    }
    fn identity(&self, path: &Path) -> FileKey {
        self.inner.identity(path)
    }
    fn exists(&self, path: &Path) -> bool {
        self.inner.exists(path)
    }
    fn check_dir(&self, path: &Path) -> io::Result<()> {
        self.inner.check_dir(path)
    }
    fn contains(&self, path: &Path) -> bool {
        self.inner.contains(path)
    }
}

pub trait Fs: Sync {
    /// Reads a file: what identifies it (see [`Fs::identity`]), and its bytes with the stamp
    /// of the file on disk they came from. The real file system answers all of it from one
    /// open file (one `fstat` instead of a `stat` per question), which is most of the cost of
    /// reading thousands of small vhost files.
    fn load(&self, path: &Path) -> (FileKey, io::Result<Loaded>);

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.load(path).1.map(|l| l.text)
    }

    /// [`Fs::load`] without the stamp.
    fn read_keyed(&self, path: &Path) -> (FileKey, io::Result<Vec<u8>>) {
        let (key, read) = self.load(path);
        (key, read.map(|l| l.text))
    }

    /// At most the first `limit` bytes of a file, to tell what kind of file it is.
    fn head(&self, path: &Path, limit: usize) -> io::Result<Vec<u8>> {
        let mut text = self.read(path)?;
        text.truncate(limit);
        Ok(text)
    }

    /// A source file for `path`: its bytes and stamp.
    fn source(&self, path: &Path) -> (FileKey, io::Result<SourceFile>) {
        let (key, read) = self.load(path);
        (
            key,
            read.map(|l| {
                let mut source = SourceFile::new(path, l.text).with_stamp(l.stamp);
                source.through_link = l.through_link;
                source
            }),
        )
    }

    /// The shared source and syntax tree of an nginx file just read. The editor's file
    /// system keeps both for a file whose bytes did not change since its last lint, so a
    /// keystroke parses one file, not the stack; everywhere else it parses.
    fn nginx_tree(&self, source: SourceFile) -> (Shared, Arc<Parsed>) {
        parse_nginx(source)
    }

    /// [`Fs::nginx_tree`] of a file known to hold no placeholder marker (see
    /// [`parse_nginx_unmarked`]): the marker scan, a pass over every byte, is not repeated.
    fn nginx_tree_unmarked(&self, source: SourceFile) -> (Shared, Arc<Parsed>) {
        parse_nginx_unmarked(source)
    }

    /// The values templates are rendered with (see [`super::values`]): none but where a
    /// run wraps its file system in [`WithValues`].
    fn values(&self) -> Option<&super::values::Values> {
        None
    }

    /// Expands a glob the way nginx does (`glob(3)` with no flags, see [`super::glob`]):
    /// sorted, `*` does not match a leading dot, a pattern matching nothing is an empty list.
    /// A directory that may not be read (outside the linted tree) gives one placeholder path
    /// whose reading reports why.
    fn glob(&self, pattern: &Path) -> io::Result<Vec<PathBuf>>;

    /// Files that exist only here (created by pending fixes), so discovery can see them.
    fn created(&self) -> Vec<PathBuf> {
        Vec::new()
    }

    /// A stable identity for cycle detection (the device and inode where there is one), so
    /// a file reached through a symlink and through its real name is the same file.
    fn identity(&self, path: &Path) -> FileKey;

    /// Whether something exists at `path` (a file or a directory, inside what may be read).
    fn exists(&self, path: &Path) -> bool {
        self.read(path).is_ok()
            || self.check_dir(path).is_ok()
                && !self.glob(&path.join("*")).unwrap_or_default().is_empty()
    }

    /// Whether the directory `path` may be listed (it resolves inside the boundary): the
    /// error is the refusal when it does not.
    fn check_dir(&self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    /// Whether an absolute path of this machine lies inside what may be read (an absolute
    /// include with no server root to map it is followed only then).
    fn contains(&self, path: &Path) -> bool;
}

/// A file as read: its bytes, the stamp of the file on disk they came from (none for standard
/// input, a dump or pending edits), and the file a symlink in its path led to (shown relative
/// to the current directory), when one did.
#[derive(Debug)]
pub struct Loaded {
    pub text: Vec<u8>,
    pub stamp: Option<Stamp>,
    pub through_link: Option<PathBuf>,
}

impl Loaded {
    fn bytes(text: Vec<u8>) -> Loaded {
        Loaded {
            text,
            stamp: None,
            through_link: None,
        }
    }
}

/// What identifies a file whatever the path it was reached by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileKey {
    /// Device and inode (the real file system).
    Inode(u64, u64),
    /// An absolute or canonical path (a dangling link, a file of an `nginx -T` dump).
    Path(PathBuf),
}

/// The largest file lemplint reads, standard input included: far above any real
/// configuration (a larger file is a log or a dump put in the wrong place), and source
/// offsets stay well within 31 bits.
pub const MAX_FILE_SIZE: u64 = 64 << 20;

fn too_large(limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("file is larger than the {} MiB limit", limit >> 20),
    )
}

/// Reads standard input, refusing more than [`MAX_FILE_SIZE`].
pub fn read_stdin() -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::io::stdin()
        .take(MAX_FILE_SIZE + 1)
        .read_to_end(&mut buf)?;
    if buf.len() as u64 > MAX_FILE_SIZE {
        return Err(too_large(MAX_FILE_SIZE));
    }
    Ok(buf)
}

/// The machine's file system, seen through the boundary of the linted tree (see
/// [`super::confine`]): every path is resolved and checked before it is opened, and only
/// regular files are ever opened.
pub struct RealFs {
    /// Files larger than this are refused with a diagnostic instead of being read.
    pub max_file_size: u64,
    confine: Arc<Confinement>,
}

impl RealFs {
    pub fn new(confine: Arc<Confinement>) -> RealFs {
        RealFs {
            max_file_size: MAX_FILE_SIZE,
            confine,
        }
    }

    /// Everything on this machine but secrets and pseudo-files (the live system; tests).
    pub fn live() -> RealFs {
        RealFs::new(Confinement::live())
    }

    pub fn confinement(&self) -> &Arc<Confinement> {
        &self.confine
    }

    /// Resolves and checks `path`, and opens it only when it is a regular file of a sane
    /// size inside the boundary: a FIFO would block, a device could act on being opened,
    /// `/dev/zero` never ends.
    pub fn open_checked(&self, path: &Path) -> io::Result<(std::fs::File, std::fs::Metadata)> {
        self.open_resolved(path).map(|(f, m, _)| (f, m))
    }

    /// [`RealFs::open_checked`], with the real path it opened.
    /// The file a *flattened symlink* names: a checkout made without symlinks (git's
    /// `core.symlinks=false`, an archive or copy that does not keep them) writes a link as a
    /// small file holding the link's target (`../sites-available/example.com`). No
    /// configuration is one word with no `;` or `=`, so such a file is read as the link it
    /// stands for, when its target is a file of the tree.
    fn flattened_target(
        &self,
        path: &Path,
        meta: &std::fs::Metadata,
        text: &[u8],
    ) -> Option<PathBuf> {
        if meta.len() > FLATTENED_LINK_MAX {
            return None;
        }
        let word = text.strip_suffix(b"\n").unwrap_or(text);
        let plain = |b: &u8| b.is_ascii_graphic() && !b";=#{}\"'$\\*?[".contains(b);
        if word.is_empty() || !word.iter().all(plain) || !word.contains(&b'/') {
            return None;
        }
        // `sites-enabled/../sites-available/x` as `sites-available/x`, lexically (as the
        // link would have been followed, the path is inside the tree either way).
        let mut target = PathBuf::new();
        for c in path
            .parent()?
            .join(std::str::from_utf8(word).ok()?)
            .components()
        {
            match c {
                std::path::Component::ParentDir
                    if matches!(
                        target.components().next_back(),
                        Some(std::path::Component::Normal(_))
                    ) =>
                {
                    target.pop();
                }
                std::path::Component::CurDir => {}
                c => target.push(c),
            }
        }
        let r = self.confine.check(&target).ok()?;
        let m = r.meta.filter(|m| m.is_file())?;
        // One step only: a target that is itself such a file (a loop, a chain) is not one.
        if m.len() <= FLATTENED_LINK_MAX {
            let again = std::fs::read(&r.real).ok()?;
            let word = again.strip_suffix(b"\n").unwrap_or(&again);
            if !word.is_empty() && word.iter().all(plain) && word.contains(&b'/') {
                return None;
            }
        }
        Some(target)
    }

    fn open_resolved(
        &self,
        path: &Path,
    ) -> io::Result<(std::fs::File, std::fs::Metadata, PathBuf)> {
        let r = self.confine.check(path)?;
        let Some(meta) = r.meta else {
            return Err(io::Error::from_raw_os_error(libc::ENOENT));
        };
        check_type(&meta)?;
        if meta.len() > self.max_file_size {
            return Err(too_large(self.max_file_size));
        }
        let file = open_nofollow(&r.real)?;
        let now = file.metadata()?;
        // Swapped between the check and the open: refuse rather than read something else.
        if key_of(&now) != key_of(&meta) || !now.is_file() {
            return Err(io::Error::other(
                "the file changed while it was being opened",
            ));
        }
        Ok((file, now, r.real))
    }

    fn read_open(&self, mut file: std::fs::File, meta: &std::fs::Metadata) -> io::Result<Vec<u8>> {
        use std::io::Read;
        if meta.len() > self.max_file_size {
            return Err(too_large(self.max_file_size));
        }
        // Room for the size `fstat` told plus one byte, so one `read` normally does it: a
        // regular file's read comes back short only at its end, so a short read that
        // reached the known size needs no second read to see EOF (`read_to_end` would make
        // one per file, and `File`'s own would also `fstat` and `lseek` again). A file
        // that grew meanwhile fills the buffer and is read on, to the cap.
        let size = meta.len() as usize;
        let cap = self.max_file_size as usize + 1;
        let mut text = vec![0u8; size + 1];
        let mut filled = 0;
        loop {
            if filled == text.len() {
                if filled >= cap {
                    return Err(too_large(self.max_file_size));
                }
                text.resize((filled * 2).clamp(filled + 1, cap), 0);
            }
            let n = match file.read(&mut text[filled..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let short = filled + n < text.len();
            filled += n;
            if n == 0 || (short && filled >= size) {
                break;
            }
        }
        // Past the cap the loop has already refused it.
        text.truncate(filled);
        Ok(text)
    }

    /// Lists a directory for a glob, through the boundary.
    fn list(&self, dir: &Path) -> Listing {
        let r = match self.confine.check(dir) {
            Ok(r) => r,
            Err(e) if refusal(&e).is_some() => return Listing::Refused,
            Err(_) => return Listing::Missing,
        };
        if !r.meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
            return Listing::Missing;
        }
        let Ok(read) = std::fs::read_dir(&r.real) else {
            return Listing::Missing;
        };
        let id = r.meta.as_ref().map(|m| {
            use std::os::unix::fs::MetadataExt;
            (m.dev(), m.ino())
        });
        Listing::Entries(
            read.filter_map(Result::ok)
                .map(|e| {
                    let dir = match e.file_type() {
                        Ok(t) if t.is_symlink() => None,
                        Ok(t) => Some(t.is_dir()),
                        Err(_) => None,
                    };
                    Entry {
                        name: e.file_name(),
                        dir,
                    }
                })
                .collect(),
            id,
        )
    }
}

/// Refuses what is not a regular file, from its metadata (taken without opening it).
fn check_type(meta: &std::fs::Metadata) -> io::Result<()> {
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "Is a directory",
        ));
    }
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(())
}

/// Opens a real path for reading without following a symlink in its last component and
/// without blocking (a FIFO swapped in would otherwise wait for a writer).
fn open_nofollow(real: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY);
    }
    options.open(real)
}

#[cfg(unix)]
fn key_of(meta: &std::fs::Metadata) -> FileKey {
    use std::os::unix::fs::MetadataExt;
    FileKey::Inode(meta.dev(), meta.ino())
}

impl Fs for RealFs {
    fn exists(&self, path: &Path) -> bool {
        self.confine.check(path).is_ok_and(|r| r.meta.is_some())
    }

    fn check_dir(&self, path: &Path) -> io::Result<()> {
        self.confine.check(path).map(|_| ())
    }

    fn head(&self, path: &Path, limit: usize) -> io::Result<Vec<u8>> {
        use std::io::Read;
        let (file, _) = self.open_checked(path)?;
        let mut out = Vec::with_capacity(limit.min(1 << 16));
        file.take(limit as u64).read_to_end(&mut out)?;
        Ok(out)
    }

    fn load(&self, path: &Path) -> (FileKey, io::Result<Loaded>) {
        match self.open_resolved(path) {
            Ok((file, meta, real)) => {
                let through_link = self.confine.through_link(path, &real);
                let read = self.read_open(file, &meta);
                if let Ok(text) = &read {
                    if let Some(target) = self.flattened_target(path, &meta, text) {
                        // Shown as reached, read (and named by code-scanning formats) as
                        // the file the link names. A fix is never written through it: the
                        // writer finds the link file, not the file read, and refuses.
                        let (key, read) = self.load(&target);
                        let read = read.map(|mut l| {
                            l.through_link = Some(target);
                            l
                        });
                        return (key, read);
                    }
                }
                (
                    key_of(&meta),
                    read.map(|text| Loaded {
                        text,
                        stamp: Some(Stamp::of(&meta)),
                        through_link,
                    }),
                )
            }
            Err(e) => (self.identity(path), Err(e)),
        }
    }

    fn glob(&self, pattern: &Path) -> io::Result<Vec<PathBuf>> {
        super::glob::expand(pattern, &mut |dir| self.list(dir)).map_err(io::Error::other)
    }

    fn contains(&self, path: &Path) -> bool {
        self.confine.is_live()
            || self.confine.resolve(path).is_ok_and(|r| {
                self.confine
                    .roots()
                    .iter()
                    .any(|root| r.real.starts_with(root))
            })
    }

    fn identity(&self, path: &Path) -> FileKey {
        // The device and inode name a file whatever the path (a symlink, `..`); a path that
        // leads nowhere is identified by where it would be.
        match self.confine.resolve(path) {
            Ok(r) => match &r.meta {
                Some(m) if !m.file_type().is_symlink() => key_of(m),
                _ => FileKey::Path(r.real),
            },
            Err(_) => {
                FileKey::Path(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
            }
        }
    }
}

/// The disk with some files replaced by new contents (the fixer's work in progress, or
/// standard input), so a stack can be re-read and re-linted after each pass without writing
/// anything.
pub struct OverlayFs {
    pub base: RealFs,
    files: std::collections::HashMap<PathBuf, Vec<u8>>,
    /// Which of `files` are not on disk: asked by every glob, found once per change.
    created: std::sync::OnceLock<Vec<PathBuf>>,
}

impl OverlayFs {
    pub fn new(base: RealFs) -> OverlayFs {
        OverlayFs {
            base,
            files: std::collections::HashMap::new(),
            created: std::sync::OnceLock::new(),
        }
    }

    /// Lays `text` over `path`.
    pub fn insert(&mut self, path: PathBuf, text: Vec<u8>) {
        self.files.insert(path, text);
        self.created = std::sync::OnceLock::new();
    }

    /// Takes back what lies over `path`.
    pub fn remove(&mut self, path: &Path) -> Option<Vec<u8>> {
        self.created = std::sync::OnceLock::new();
        self.files.remove(path)
    }
}

impl Fs for OverlayFs {
    fn head(&self, path: &Path, limit: usize) -> io::Result<Vec<u8>> {
        match self.files.get(path) {
            Some(text) => Ok(text[..text.len().min(limit)].to_vec()),
            None => self.base.head(path, limit),
        }
    }

    fn load(&self, path: &Path) -> (FileKey, io::Result<Loaded>) {
        match self.files.get(path) {
            // Pending contents have no file on disk behind them; the fixer keeps the stamp
            // of the version its edits started from.
            Some(text) => (self.identity(path), Ok(Loaded::bytes(text.clone()))),
            None => self.base.load(path),
        }
    }

    fn glob(&self, pattern: &Path) -> io::Result<Vec<PathBuf>> {
        let mut out = self.base.glob(pattern)?;
        let before = out.len();
        for p in self.created() {
            if super::glob::matches_path(pattern, &p) && !out.contains(&p) {
                out.push(p);
            }
        }
        // The disk's matches come sorted; only new files need placing among them.
        if out.len() > before {
            out.sort();
        }
        Ok(out)
    }

    fn identity(&self, path: &Path) -> FileKey {
        self.base.identity(path)
    }

    fn contains(&self, path: &Path) -> bool {
        self.files.contains_key(path) || self.base.contains(path)
    }

    fn check_dir(&self, path: &Path) -> io::Result<()> {
        self.base.check_dir(path)
    }

    fn exists(&self, path: &Path) -> bool {
        self.files.contains_key(path) || self.base.exists(path)
    }

    fn created(&self) -> Vec<PathBuf> {
        self.created
            .get_or_init(|| {
                let mut out: Vec<PathBuf> = self
                    .files
                    .keys()
                    .filter(|p| std::fs::symlink_metadata(p).is_err())
                    .cloned()
                    .collect();
                out.sort();
                out
            })
            .clone()
    }
}

/// The files of an `nginx -T` dump, by the absolute paths nginx printed.
#[derive(Default, Debug)]
pub struct DumpFs {
    pub files: BTreeMap<PathBuf, Vec<u8>>,
    /// Where each file's bytes start in the dump, for placing findings in the dump itself.
    pub starts: BTreeMap<PathBuf, usize>,
}

/// The header nginx writes before each file in `nginx -T` output.
const DUMP_MARKER: &[u8] = b"# configuration file ";

impl DumpFs {
    /// Recognises `nginx -T` output: it starts with a dump marker line (possibly after
    /// nginx's own "syntax is ok" lines when stderr was captured too).
    pub fn looks_like_dump(text: &[u8]) -> bool {
        text.split(|&b| b == b'\n')
            .take(4)
            .any(|line| line.starts_with(DUMP_MARKER) && line.trim_ascii_end().ends_with(b":"))
    }

    /// Splits a dump into files. nginx writes `# configuration file PATH:` LF, the file's
    /// bytes, then one LF of its own, which is removed so each file is exactly as on disk.
    /// Returns the files in dump order (the first is the main file).
    pub fn parse(text: &[u8]) -> (DumpFs, Vec<PathBuf>) {
        let mut fs = DumpFs::default();
        let mut order = Vec::new();
        let mut current: Option<(PathBuf, usize)> = None;
        let mut pos = 0;
        let finish = |cur: Option<(PathBuf, usize)>, end: usize, fs: &mut DumpFs| {
            if let Some((path, start)) = cur {
                let mut body = &text[start.min(end)..end];
                if let Some(stripped) = body.strip_suffix(b"\n") {
                    body = stripped;
                }
                fs.starts.entry(path.clone()).or_insert(start.min(end));
                fs.files.entry(path).or_insert_with(|| body.to_vec());
            }
        };
        while pos < text.len() {
            let line_end = text[pos..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(text.len(), |i| pos + i);
            let line = &text[pos..line_end];
            let next = (line_end + 1).min(text.len());
            if let Some(rest) = line.strip_prefix(DUMP_MARKER) {
                let rest = rest.strip_suffix(b"\r").unwrap_or(rest);
                if let Some(path) = rest.strip_suffix(b":") {
                    finish(current.take(), pos, &mut fs);
                    let path = PathBuf::from(String::from_utf8_lossy(path).into_owned());
                    order.push(path.clone());
                    current = Some((path, next));
                }
            }
            pos = next;
        }
        finish(current, text.len(), &mut fs);
        order.dedup();
        (fs, order)
    }
}

impl Fs for DumpFs {
    fn load(&self, path: &Path) -> (FileKey, io::Result<Loaded>) {
        let read = self
            .files
            .get(path)
            .map(|text| Loaded::bytes(text.clone()))
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "No such file or directory"));
        (self.identity(path), read)
    }

    fn glob(&self, pattern: &Path) -> io::Result<Vec<PathBuf>> {
        Ok(self
            .files
            .keys()
            .filter(|p| super::glob::matches_path(pattern, p))
            .cloned()
            .collect())
    }

    fn identity(&self, path: &Path) -> FileKey {
        FileKey::Path(path.to_path_buf())
    }

    /// The dump's paths are the files it holds.
    fn contains(&self, _path: &Path) -> bool {
        true
    }

    fn exists(&self, path: &Path) -> bool {
        self.files.contains_key(path) || self.files.keys().any(|k| k.starts_with(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dump_is_split_into_the_original_files() {
        let dump = b"# configuration file /etc/nginx/nginx.conf:\nevents {}\nhttp { include conf.d/*.conf; }\n\n# configuration file /etc/nginx/conf.d/a.conf:\nserver { }\n";
        assert!(DumpFs::looks_like_dump(dump));
        let (fs, order) = DumpFs::parse(dump);
        assert_eq!(order.len(), 2);
        assert_eq!(
            fs.files[Path::new("/etc/nginx/nginx.conf")],
            b"events {}\nhttp { include conf.d/*.conf; }\n"
        );
        assert_eq!(
            fs.files[Path::new("/etc/nginx/conf.d/a.conf")],
            b"server { }"
        );
        let g = fs.glob(Path::new("/etc/nginx/conf.d/*.conf")).unwrap();
        assert_eq!(g, vec![PathBuf::from("/etc/nginx/conf.d/a.conf")]);
    }
}
