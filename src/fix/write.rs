//! Writing a fixed file without ever leaving a damaged one.
//!
//! The new contents go to a temporary file in the same directory as the real target (a
//! symlink is followed, so `sites-enabled/x` stays a link to `sites-available/x`), which gets
//! the original's permissions and owner, is flushed to disk, and then renamed over the
//! target: a crash at any point leaves either the old file or the new one.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The file a path finally names, following symlinks.
pub fn target(path: &Path) -> std::io::Result<PathBuf> {
    std::fs::canonicalize(path)
}

pub fn atomic_write(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    if !path.exists() && std::fs::symlink_metadata(path).is_err() {
        return create(path, contents);
    }
    let target = target(path)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let meta = std::fs::metadata(&target)?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.lemplint-{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(contents)?;
        f.set_permissions(meta.permissions())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            // Keep the owner and group (lemplint often runs as root on files owned by
            // others); failing to chown as a normal user is fine: the user owns the file.
            let _ = std::os::unix::fs::fchown(&f, Some(meta.uid()), Some(meta.gid()));
        }
        f.sync_all()?;
        std::fs::rename(&tmp, &target)?;
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A new file (its directory must exist): written to a temporary name, then renamed, so it
/// appears whole or not at all. Mode 0644, like the configuration files around it.
fn create(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.lemplint-{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(contents)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            f.set_permissions(std::fs::Permissions::from_mode(0o644))?;
        }
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
