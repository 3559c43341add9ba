//! Findings in a section of an `nginx -T` dump are shown at the dump's lines; when the file
//! the section names is in the tree with the same bytes (the dump was taken from the files
//! being linted, or piped on the server itself), they are shown at that file instead. A file
//! that differs from the dump (edited since) is not used: its lines are not the dump's. Their
//! fixes are left out: `fix` on a dump writes nothing, and the tree's files are fixed by
//! naming them.

use crate::diagnostic::Diagnostic;
use crate::source::Shared;
use crate::stack::fs::Fs;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The tree file holding exactly what `member` (a dump section) holds, if one does.
fn tree_file(fs: &dyn Fs, roots: &[PathBuf], member: &Shared) -> Option<Shared> {
    let m = member.member.as_ref()?;
    let name = &m.name;
    let relative = name.strip_prefix("/").unwrap_or(name);
    let mut candidates: Vec<PathBuf> = roots
        .iter()
        .filter(|r| !r.as_os_str().is_empty() && r.as_path() != Path::new("/"))
        .map(|r| r.join(relative))
        .collect();
    if name.is_absolute() && fs.contains(name) {
        candidates.push(name.clone());
    }
    let cwd = std::env::current_dir().ok();
    candidates.into_iter().find_map(|p| {
        let mut source = fs.source(&p).1.ok()?;
        if source.text != member.text {
            return None;
        }
        // Shown relative to the working directory, as paths the user names are.
        if let Some(rel) = cwd.as_ref().and_then(|c| p.strip_prefix(c).ok()) {
            source.path = rel.to_path_buf();
        }
        Some(std::sync::Arc::new(source))
    })
}

/// Moves findings, labels and fix edits from dump sections to the tree files they were
/// taken from, where those hold the same bytes.
pub fn apply(diagnostics: &mut [Diagnostic], fs: &dyn Fs, roots: &[PathBuf]) {
    // By the dump and the section's name: every finding in a section shares one answer.
    let mut found: HashMap<(PathBuf, PathBuf), Option<Shared>> = HashMap::new();
    let mut swap = |file: &mut Shared| {
        let Some(m) = file.member.as_ref() else {
            return;
        };
        let key = (m.container.clone(), m.name.clone());
        let tree = found
            .entry(key)
            .or_insert_with(|| tree_file(fs, roots, file))
            .clone();
        if let Some(t) = tree {
            *file = t;
        }
    };
    for d in diagnostics.iter_mut() {
        let was_member = d.file.member.is_some();
        swap(&mut d.file);
        for l in d.labels.iter_mut() {
            swap(&mut l.file);
        }
        if was_member && d.file.member.is_none() {
            d.fix = None;
        }
    }
}
