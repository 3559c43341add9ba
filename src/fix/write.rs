//! Writing a fixed file without ever leaving a damaged one, losing an edit, or writing
//! outside the linted tree.
//!
//! A file is replaced only when, at the moment of writing, its real path is still inside the
//! boundary and it is still the file that was read: same device and inode, size,
//! modification time and bytes. Otherwise it is skipped ("changed on disk since it was
//! read") and the run fails, so an edit made meanwhile — by a person or by a second
//! lemplint — is never overwritten, and a deleted file is never recreated.
//!
//! Everything happens relative to one open handle on the file's real directory (checked to
//! be where it should be), with no symlink followed in the last component: swapping the file
//! or a directory for a symlink during the run cannot redirect the write elsewhere. The new
//! contents go to a temporary file created there (`O_EXCL`, owner-only), which is given the
//! original's owner and then its mode before any byte is written, flushed, re-checked and
//! renamed over the target: a crash at any point leaves either the old file or the new one.
//! A symlink is followed to its target (`sites-enabled/x` stays a link to
//! `sites-available/x`).

use crate::source::Stamp;
use crate::stack::confine::{refusal, Confinement, Refusal};
use rustix::fs::{AtFlags, FlockOperation, Mode, OFlags};
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

/// Why a file was not written.
#[derive(Debug)]
pub enum WriteError {
    /// It leads out of the linted tree (or to a secret).
    Refused(Refusal),
    /// Its bytes or its identity changed since lemplint read it.
    Changed,
    /// It no longer exists.
    Removed,
    /// A file now exists where lemplint meant to create one.
    Appeared,
    /// Its owner could not be kept (a non-root user fixing a file someone else owns).
    Owner {
        uid: u32,
        gid: u32,
        io: io::Error,
    },
    Io(io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Refused(r) => write!(f, "not written: {}", r.describe()),
            WriteError::Changed => write!(
                f,
                "it changed on disk since it was read; not overwritten (run lemplint again)"
            ),
            WriteError::Removed => write!(f, "it was removed since it was read; not recreated"),
            WriteError::Appeared => write!(
                f,
                "a file of that name appeared since the run began; not overwritten"
            ),
            WriteError::Owner { uid, gid, io } => write!(
                f,
                "cannot keep its owner ({uid}:{gid}): {io}; not written (run as its owner or as root)"
            ),
            WriteError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<io::Error> for WriteError {
    fn from(e: io::Error) -> Self {
        match refusal(&e) {
            Some(r) => WriteError::Refused(r),
            None => WriteError::Io(e),
        }
    }
}

impl From<rustix::io::Errno> for WriteError {
    fn from(e: rustix::io::Errno) -> Self {
        WriteError::Io(e.into())
    }
}

fn stamp_of(st: &rustix::fs::Stat) -> Stamp {
    Stamp {
        dev: st.st_dev,
        ino: st.st_ino,
        size: st.st_size as u64,
        mtime: st.st_mtime,
        mtime_nsec: st.st_mtime_nsec as i64,
        mode: st.st_mode,
        uid: st.st_uid,
        gid: st.st_gid,
    }
}

/// The file a path finally names, through the boundary's resolution of symlinks (for the
/// diff's file names, which must be the files `fix` writes).
pub fn target(confine: &Confinement, path: &Path) -> io::Result<PathBuf> {
    Ok(confine.check(path)?.real)
}

/// An open handle on the real directory `real_dir`, checked to be that directory: opened
/// without following a final symlink, and its path as the kernel sees it compared with the
/// one resolved (a directory swapped for a link to elsewhere fails the comparison).
fn open_dir(confine: &Confinement, real_dir: &Path) -> Result<OwnedFd, WriteError> {
    let fd = rustix::fs::open(
        real_dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let seen = std::fs::read_link(format!(
        "/proc/self/fd/{}",
        std::os::fd::AsRawFd::as_raw_fd(&fd)
    ));
    match seen {
        Ok(seen) if seen != real_dir => return Err(WriteError::Changed),
        Ok(seen) => confine.permit(&seen).map_err(WriteError::Refused)?,
        // No /proc: the open itself refused a final symlink, and the path was just resolved.
        Err(_) => {}
    }
    Ok(fd)
}

/// The temporary file's name, beside the target, unique to this process.
fn temp_name(name: &std::ffi::OsStr) -> PathBuf {
    let mut tmp = std::ffi::OsString::from(".");
    tmp.push(name);
    tmp.push(format!(".lemplint-{}.tmp", std::process::id()));
    PathBuf::from(tmp)
}

/// Creates the temporary file in `dir` owner-only, gives it `uid:gid` when they are not
/// ours, then exactly `mode`, and writes `contents`: nobody but the owner can read them
/// before the file has the original's mode.
fn write_temp(
    dir: &OwnedFd,
    tmp: &Path,
    contents: &[u8],
    mode: u32,
    owner: Option<(u32, u32)>,
) -> Result<(), WriteError> {
    let fd = rustix::fs::openat(
        dir,
        tmp,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?;
    let result = (|| {
        if let Some((uid, gid)) = owner {
            let st = rustix::fs::fstat(&fd)?;
            if (st.st_uid, st.st_gid) != (uid, gid) {
                let (u, g) = (
                    rustix::fs::Uid::from_raw(uid),
                    rustix::fs::Gid::from_raw(gid),
                );
                if let Err(e) = rustix::fs::fchown(&fd, Some(u), Some(g)) {
                    return Err(WriteError::Owner {
                        uid,
                        gid,
                        io: e.into(),
                    });
                }
            }
        }
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode & 0o7777))?;
        let mut file = std::fs::File::from(fd.try_clone()?);
        file.write_all(contents)?;
        file.sync_all()?;
        Ok(())
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(dir, tmp, AtFlags::empty());
    }
    result
}

/// A pause between the last check and the write, for the tests that edit a file while
/// lemplint holds it: with `LEMPLINT_PAUSE_BEFORE_WRITE=F`, lemplint creates `F.ready` and
/// waits (up to a minute) until `F` exists. Nothing else reads this variable.
fn test_pause() {
    let Some(gate) = std::env::var_os("LEMPLINT_PAUSE_BEFORE_WRITE") else {
        return;
    };
    let gate = PathBuf::from(gate);
    let mut ready = gate.clone().into_os_string();
    ready.push(".ready");
    let _ = std::fs::write(&ready, b"");
    for _ in 0..6000 {
        if gate.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Replaces the file at `path`, which was read as `original` with `stamp`, by `contents`.
pub fn replace(
    confine: &Confinement,
    path: &Path,
    original: &[u8],
    stamp: Option<Stamp>,
    contents: &[u8],
) -> Result<(), WriteError> {
    let resolved = confine.check(path)?;
    let Some(meta) = resolved.meta else {
        return Err(WriteError::Removed);
    };
    if !meta.is_file() {
        return Err(WriteError::Changed);
    }
    let Some(stamp) = stamp else {
        return Err(WriteError::Changed);
    };
    let real = resolved.real;
    let (Some(real_dir), Some(name)) = (real.parent(), real.file_name()) else {
        return Err(WriteError::Changed);
    };
    let dir = open_dir(confine, real_dir)?;
    // Still the file read, with the bytes read.
    let unchanged = |dir: &OwnedFd| -> Result<Stamp, WriteError> {
        let st = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => st,
            Err(rustix::io::Errno::NOENT) => return Err(WriteError::Removed),
            Err(e) => return Err(e.into()),
        };
        let now = stamp_of(&st);
        if rustix::fs::FileType::from_raw_mode(st.st_mode) != rustix::fs::FileType::RegularFile
            || !stamp.same_file_unchanged(&now)
        {
            return Err(WriteError::Changed);
        }
        Ok(now)
    };
    let now = unchanged(&dir)?;
    let fd = rustix::fs::openat(
        &dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mut current = Vec::with_capacity(original.len());
    std::io::Read::read_to_end(&mut std::fs::File::from(fd), &mut current)?;
    if current != original {
        return Err(WriteError::Changed);
    }
    let tmp = temp_name(name);
    write_temp(&dir, &tmp, contents, now.mode, Some((now.uid, now.gid)))?;
    test_pause();
    // The last look before the rename: an edit made while the temporary file was written.
    let result = unchanged(&dir).and_then(|_| {
        rustix::fs::renameat(&dir, &tmp, &dir, name)?;
        Ok(())
    });
    if result.is_err() {
        let _ = rustix::fs::unlinkat(&dir, &tmp, AtFlags::empty());
    }
    result?;
    let _ = rustix::fs::fsync(&dir);
    Ok(())
}

/// Creates a new file at `path` (its directory must exist inside the boundary), mode 0644
/// like the configuration files around it. It appears whole or not at all, and never over a
/// file that exists.
pub fn create(confine: &Confinement, path: &Path, contents: &[u8]) -> Result<(), WriteError> {
    let parent = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Some(name) = path.file_name() else {
        return Err(WriteError::Io(io::Error::other("not a file name")));
    };
    let dir_real = confine.check(parent)?;
    if !dir_real.meta.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(WriteError::Io(io::Error::from_raw_os_error(libc::ENOENT)));
    }
    confine
        .permit(&dir_real.real.join(name))
        .map_err(WriteError::Refused)?;
    let dir = open_dir(confine, &dir_real.real)?;
    match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Err(rustix::io::Errno::NOENT) => {}
        Ok(_) => return Err(WriteError::Appeared),
        Err(e) => return Err(e.into()),
    }
    let tmp = temp_name(name);
    write_temp(&dir, &tmp, contents, 0o644, None)?;
    test_pause();
    let result =
        match rustix::fs::renameat_with(&dir, &tmp, &dir, name, rustix::fs::RenameFlags::NOREPLACE)
        {
            Ok(()) => Ok(()),
            Err(rustix::io::Errno::EXIST) => Err(WriteError::Appeared),
            // A file system without RENAME_NOREPLACE: a hard link fails just the same on an
            // existing name.
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                match rustix::fs::linkat(&dir, &tmp, &dir, name, AtFlags::empty()) {
                    Ok(()) => Ok(()),
                    Err(rustix::io::Errno::EXIST) => Err(WriteError::Appeared),
                    Err(e) => Err(e.into()),
                }
            }
            Err(e) => Err(e.into()),
        };
    let _ = rustix::fs::unlinkat(&dir, &tmp, AtFlags::empty());
    result?;
    let _ = rustix::fs::fsync(&dir);
    Ok(())
}

/// Writes every change (creating the files that are new), each checked on its own: a file
/// that changed since it was read is skipped, never overwritten. Returns the files written
/// and the ones that were not, with why.
pub fn commit(
    confine: &Confinement,
    changes: &super::Changes,
) -> (usize, Vec<(PathBuf, WriteError)>) {
    let mut written = 0;
    let mut failed = Vec::new();
    for (path, change) in changes {
        let result = if change.creates() {
            create(confine, path, &change.new)
        } else {
            replace(confine, path, &change.original, change.stamp, &change.new)
        };
        match result {
            Ok(()) => written += 1,
            Err(e) => failed.push((path.clone(), e)),
        }
    }
    (written, failed)
}

/// Held while a command writes: an exclusive lock on each root of the linted tree, so two
/// lemplint writers on one tree (`fix` and `tune --write`) run one after the other instead
/// of interleaving. Taken before anything is read, so the second reads what the first wrote.
pub struct WriteLock {
    _held: Vec<OwnedFd>,
}

impl WriteLock {
    pub fn acquire(confine: &Confinement) -> io::Result<WriteLock> {
        let roots: Vec<PathBuf> = if confine.roots().is_empty() {
            vec![PathBuf::from("/")]
        } else {
            confine.roots().to_vec()
        };
        let mut held = Vec::new();
        for root in roots {
            let fd = rustix::fs::open(
                &root,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            if rustix::fs::flock(fd.as_fd(), FlockOperation::NonBlockingLockExclusive).is_err() {
                eprintln!(
                    "lemplint: waiting for another lemplint writing in {} …",
                    crate::escape::path(&root)
                );
                rustix::fs::flock(fd.as_fd(), FlockOperation::LockExclusive)?;
            }
            held.push(fd);
        }
        Ok(WriteLock { _held: held })
    }
}

/// Writes a file the user named on the command line (`--output-file`, a baseline) whole or
/// not at all: a temporary file beside it (`O_EXCL`), flushed, then renamed over it. An
/// existing file keeps its mode; a new one gets 0644 less the umask. Not confined to the
/// linted tree: the path is the user's own choice, as a shell redirection would be.
pub fn output(path: &Path, contents: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("not a file name"))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mode = std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.permissions().mode() & 0o7777);
    let tmp = dir.join(temp_name(name));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(&tmp)?;
        if let Some(mode) = mode {
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        file.write_all(contents)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn setup() -> (tempfile::TempDir, std::sync::Arc<Confinement>, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let c = std::sync::Arc::new(Confinement::new(std::slice::from_ref(&root), false, None));
        (d, c, root)
    }

    fn read(c: &Confinement, p: &Path) -> (Vec<u8>, Option<Stamp>) {
        use crate::stack::fs::Fs;
        let l = crate::stack::fs::RealFs::new(std::sync::Arc::new(Confinement::new(
            c.roots(),
            false,
            None,
        )))
        .load(p)
        .1
        .unwrap();
        (l.text, l.stamp)
    }

    #[test]
    fn replaces_keeping_the_mode_and_refuses_a_changed_file() {
        let (_d, c, root) = setup();
        let f = root.join("pool.conf");
        std::fs::write(&f, "env[DB_PASSWORD] = x\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        let (text, stamp) = read(&c, &f);
        replace(&c, &f, &text, stamp, b"new\n").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"new\n");
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600);
        // The old stamp and bytes no longer describe the file.
        assert!(matches!(
            replace(&c, &f, &text, stamp, b"again\n"),
            Err(WriteError::Changed)
        ));
        assert_eq!(std::fs::read(&f).unwrap(), b"new\n");
        std::fs::remove_file(&f).unwrap();
        let (_, stamp2) = (text.clone(), stamp);
        assert!(matches!(
            replace(&c, &f, &text, stamp2, b"x"),
            Err(WriteError::Removed)
        ));
        assert!(!f.exists());
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0);
    }

    #[test]
    fn never_writes_through_a_link_out_of_the_tree() {
        let (_d, c, root) = setup();
        let out = tempfile::tempdir().unwrap();
        let victim = out.path().join("victim.conf");
        std::fs::write(&victim, "root's\n").unwrap();
        let link = root.join("site.conf");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let r = replace(&c, &link, b"root's\n", None, b"pwned\n");
        assert!(
            matches!(r, Err(WriteError::Refused(Refusal::Outside))),
            "{r:?}"
        );
        assert!(matches!(
            create(&c, &root.join("../x.conf"), b"x"),
            Err(WriteError::Refused(_))
        ));
        assert_eq!(std::fs::read(&victim).unwrap(), b"root's\n");
    }

    #[test]
    fn creates_only_what_does_not_exist() {
        let (_d, c, root) = setup();
        let f = root.join("60-lemplint.conf");
        create(&c, &f, b"net.core.somaxconn = 4096\n").unwrap();
        assert!(matches!(
            create(&c, &f, b"again"),
            Err(WriteError::Appeared)
        ));
        assert_eq!(std::fs::read(&f).unwrap(), b"net.core.somaxconn = 4096\n");
    }
}
