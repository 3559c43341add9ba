//! The files as the editor has them: open documents over the disk.
//!
//! Documents are keyed by their real path; a file reached through a symlink
//! (`sites-enabled/x` → `sites-available/x`) is served from the document of its target, so a
//! stack never reads stale disk content for a file the user is editing.
//!
//! It also keeps the nginx trees of the last lint ([`Trees`]): every file is still read
//! each time (the disk or the document is what counts), but one whose bytes are those the
//! last lint parsed gets that lint's source and tree back, so a keystroke parses one file,
//! and the files that did not change are the same [`Shared`] from one lint to the next.

use crate::source::{Shared, SourceFile};
use crate::stack::fs::{FileKey, Fs, Loaded, RealFs};
use crate::syntax::nginx::Parsed;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub struct EditorFs<'a> {
    pub base: RealFs,
    /// Open documents by real path.
    pub docs: &'a HashMap<PathBuf, super::Document>,
    /// The trees of the last lint, and those of this one as they are asked for.
    pub trees: &'a Trees,
}

/// nginx files parsed by one lint, by path, for the next.
#[derive(Default)]
pub struct Trees {
    /// Each is handed out once: a file two configurations include gets its own source in
    /// the second, as `lint` gives it (findings are counted and deduplicated per source).
    last: Mutex<HashMap<PathBuf, Tree>>,
    /// What this lint parsed or reused: it becomes `last` when the lint ends, so files no
    /// longer read are dropped.
    used: Mutex<HashMap<PathBuf, Tree>>,
}

type Tree = (Shared, Arc<Parsed>);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Trees {
    /// Called when a lint has finished: what it parsed is what the next one can reuse.
    pub fn finish(&mut self) {
        self.last = std::mem::take(&mut self.used);
    }

    /// Called when a lint was cancelled part way: what it took stays for the next one, with
    /// what it did not get to.
    pub fn keep_all(&mut self) {
        let used = std::mem::take(self.used.get_mut().unwrap_or_else(|e| e.into_inner()));
        self.last
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .extend(used);
    }

    /// The last lint's source and tree when `source` is that file as it was then, byte for
    /// byte (same path, text, disk stamp, link and dump section).
    fn take(&self, source: &SourceFile) -> Option<Tree> {
        let (old, parsed) = lock(&self.last).remove(&source.path)?;
        let same = old.text == source.text
            && old.stamp == source.stamp
            && old.through_link == source.through_link
            && old.member == source.member;
        same.then_some((old, parsed))
    }
}

impl EditorFs<'_> {
    fn doc(&self, path: &Path) -> Option<&[u8]> {
        self.docs.get(path).map(|d| &d.text[..])
    }

    /// The tree kept from the last lint when the file's bytes are unchanged, else `parse`'s;
    /// kept for the next lint either way.
    fn kept_tree(
        &self,
        source: SourceFile,
        parse: fn(SourceFile) -> (Shared, Arc<Parsed>),
    ) -> (Shared, Arc<Parsed>) {
        let path = source.path.clone();
        let tree = match self.trees.take(&source) {
            Some(tree) => tree,
            None => parse(source),
        };
        lock(&self.trees.used)
            .entry(path)
            .or_insert_with(|| tree.clone());
        tree
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
                text: text.to_vec(),
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
                            text: text.to_vec(),
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

    fn nginx_tree(&self, source: SourceFile) -> (Shared, Arc<Parsed>) {
        self.kept_tree(source, crate::stack::fs::parse_nginx)
    }

    fn nginx_tree_unmarked(&self, source: SourceFile) -> (Shared, Arc<Parsed>) {
        self.kept_tree(source, crate::stack::fs::parse_nginx_unmarked)
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
