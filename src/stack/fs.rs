//! Where configuration files are read from: the real file system, or the files of an
//! `nginx -T` dump held in memory. Include resolution goes through [`Fs`] so both behave
//! the same way.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

pub trait Fs: Sync {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;

    /// Expands a glob the way nginx does (`glob(3)` with no flags): sorted, `*` does not
    /// match a leading dot, a pattern matching nothing is an empty list.
    fn glob(&self, pattern: &Path) -> io::Result<Vec<PathBuf>>;

    /// Files that exist only here (created by pending fixes), so discovery can see them.
    fn created(&self) -> Vec<PathBuf> {
        Vec::new()
    }

    /// A stable identity for cycle detection (the canonical path where there is one), so
    /// a file reached through a symlink and through its real name is the same file.
    fn identity(&self, path: &Path) -> FileKey;

    /// [`Fs::read`] and [`Fs::identity`] together: the real file system answers both from
    /// one open file (one `fstat` instead of a `stat` per question), which is most of the
    /// cost of reading thousands of small vhost files.
    fn read_keyed(&self, path: &Path) -> (FileKey, io::Result<Vec<u8>>) {
        (self.identity(path), self.read(path))
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

/// The most standard input may hold: an `nginx -T` dump of a large fleet fits easily, and
/// source offsets stay within 31 bits.
pub const MAX_STDIN: u64 = 1 << 30;

/// Reads standard input, refusing more than [`MAX_STDIN`].
pub fn read_stdin() -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::io::stdin().take(MAX_STDIN + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > MAX_STDIN {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "it is larger than the 1 GiB limit",
        ));
    }
    Ok(buf)
}

pub fn glob_options() -> glob::MatchOptions {
    glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: true,
    }
}

/// The machine's file system.
pub struct RealFs {
    /// Files larger than this are refused with a diagnostic instead of being read.
    pub max_file_size: u64,
}

impl Default for RealFs {
    fn default() -> Self {
        RealFs {
            max_file_size: 64 << 20,
        }
    }
}

impl RealFs {
    fn too_large(&self) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "file is larger than the {} MiB limit",
                self.max_file_size >> 20
            ),
        )
    }

    /// Refuses what is not a regular file of a sane size, from its metadata.
    fn check(&self, meta: &std::fs::Metadata) -> io::Result<()> {
        if meta.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "Is a directory",
            ));
        }
        // A FIFO would block forever and /dev/zero never ends; both say their size is 0.
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        if meta.len() > self.max_file_size {
            return Err(self.too_large());
        }
        Ok(())
    }

    /// Opens without blocking: opening a FIFO for reading would otherwise wait for a
    /// writer before `fstat` could tell us it is not a regular file.
    fn open(path: &Path) -> io::Result<std::fs::File> {
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NONBLOCK);
        }
        options.open(path)
    }

    fn read_open(&self, mut file: std::fs::File, meta: &std::fs::Metadata) -> io::Result<Vec<u8>> {
        use std::io::Read;
        self.check(meta)?;
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
                    return Err(self.too_large());
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
}

#[cfg(unix)]
fn key_of(meta: &std::fs::Metadata) -> FileKey {
    use std::os::unix::fs::MetadataExt;
    FileKey::Inode(meta.dev(), meta.ino())
}

impl Fs for RealFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.read_keyed(path).1
    }

    fn read_keyed(&self, path: &Path) -> (FileKey, io::Result<Vec<u8>>) {
        let opened = Self::open(path).and_then(|f| {
            let meta = f.metadata()?;
            Ok((f, meta))
        });
        match opened {
            #[cfg(unix)]
            Ok((file, meta)) => (key_of(&meta), self.read_open(file, &meta)),
            #[cfg(not(unix))]
            Ok((file, meta)) => (self.identity(path), self.read_open(file, &meta)),
            Err(e) => (self.identity(path), Err(e)),
        }
    }

    fn glob(&self, pattern: &Path) -> io::Result<Vec<PathBuf>> {
        let text = pattern.to_string_lossy();
        let paths = glob::glob_with(&text, glob_options())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.msg))?;
        let mut out: Vec<PathBuf> = paths.filter_map(Result::ok).collect();
        out.sort();
        Ok(out)
    }

    fn identity(&self, path: &Path) -> FileKey {
        // The device and inode name a file whatever the path (a symlink, `..`), with one
        // stat instead of canonicalize's readlink per component. A dangling link has
        // neither; its absolute spelling still identifies it.
        #[cfg(unix)]
        if let Ok(meta) = std::fs::metadata(path) {
            return key_of(&meta);
        }
        FileKey::Path(
            std::fs::canonicalize(path)
                .or_else(|_| std::path::absolute(path))
                .unwrap_or_else(|_| path.to_path_buf()),
        )
    }
}

/// The disk with some files replaced by new contents (the fixer's work in progress), so a
/// stack can be re-read and re-linted after each pass without writing anything.
#[derive(Default)]
pub struct OverlayFs {
    pub base: RealFs,
    files: std::collections::HashMap<PathBuf, Vec<u8>>,
    /// Which of `files` are not on disk: asked by every glob, found once per change.
    created: std::sync::OnceLock<Vec<PathBuf>>,
}

impl OverlayFs {
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
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self.files.get(path) {
            Some(text) => Ok(text.clone()),
            None => self.base.read(path),
        }
    }

    fn glob(&self, pattern: &Path) -> io::Result<Vec<PathBuf>> {
        let mut out = self.base.glob(pattern)?;
        let pat = glob::Pattern::new(&pattern.to_string_lossy()).ok();
        let before = out.len();
        for p in self.created() {
            if pat
                .as_ref()
                .is_some_and(|g| g.matches_path_with(&p, glob_options()))
                && !out.contains(&p)
            {
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

    fn read_keyed(&self, path: &Path) -> (FileKey, io::Result<Vec<u8>>) {
        match self.files.get(path) {
            Some(text) => (self.identity(path), Ok(text.clone())),
            None => self.base.read_keyed(path),
        }
    }

    fn created(&self) -> Vec<PathBuf> {
        self.created
            .get_or_init(|| {
                let mut out: Vec<PathBuf> =
                    self.files.keys().filter(|p| !p.exists()).cloned().collect();
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
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "No such file or directory"))
    }

    fn glob(&self, pattern: &Path) -> io::Result<Vec<PathBuf>> {
        let pat = glob::Pattern::new(&pattern.to_string_lossy())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.msg))?;
        Ok(self
            .files
            .keys()
            .filter(|p| pat.matches_path_with(p, glob_options()))
            .cloned()
            .collect())
    }

    fn identity(&self, path: &Path) -> FileKey {
        FileKey::Path(path.to_path_buf())
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
