//! The files as the editor has them: open documents over the disk.
//!
//! Documents are keyed by their real path; a file reached through a symlink
//! (`sites-enabled/x` → `sites-available/x`) is served from the document of its target, so a
//! stack never reads stale disk content for a file the user is editing.

use crate::stack::fs::{FileKey, Fs, Loaded, RealFs};
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

pub struct EditorFs<'a> {
    pub base: RealFs,
    /// Open documents by real path.
    pub docs: &'a HashMap<PathBuf, super::Document>,
}

impl EditorFs<'_> {
    fn doc(&self, path: &Path) -> Option<&Vec<u8>> {
        self.docs.get(path).map(|d| &d.text)
    }
}

impl Fs for EditorFs<'_> {
    fn load(&self, path: &Path) -> (FileKey, io::Result<Loaded>) {
        if let Some(text) = self.doc(path) {
            // The base decides what may be read: an open document outside the tree is not.
            if let Err(e) = self.base.check_dir(path.parent().unwrap_or(path)) {
                return (self.base.identity(path), Err(e));
            }
            let loaded = Loaded {
                text: text.clone(),
                stamp: None,
                through_link: None,
            };
            return (self.base.identity(path), Ok(loaded));
        }
        let (key, read) = self.base.load(path);
        match read {
            Ok(loaded) => {
                // Reached through a link: the document of its target, if open.
                let target = loaded
                    .through_link
                    .as_ref()
                    .and_then(|t| std::fs::canonicalize(t).ok());
                match target.as_ref().and_then(|t| self.doc(t)) {
                    Some(text) => {
                        let loaded = Loaded {
                            text: text.clone(),
                            stamp: None,
                            through_link: loaded.through_link,
                        };
                        (key, Ok(loaded))
                    }
                    None => (key, Ok(loaded)),
                }
            }
            Err(e) => (key, Err(e)),
        }
    }

    fn head(&self, path: &Path, limit: usize) -> io::Result<Vec<u8>> {
        let mut text = self.read(path)?;
        text.truncate(limit);
        Ok(text)
    }

    fn glob(&self, pattern: &Path) -> io::Result<Vec<PathBuf>> {
        self.base.glob(pattern)
    }

    fn identity(&self, path: &Path) -> FileKey {
        self.base.identity(path)
    }

    fn exists(&self, path: &Path) -> bool {
        self.docs.contains_key(path) || self.base.exists(path)
    }

    fn check_dir(&self, path: &Path) -> io::Result<()> {
        self.base.check_dir(path)
    }

    fn contains(&self, path: &Path) -> bool {
        self.base.contains(path)
    }
}
