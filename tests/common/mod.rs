//! Helpers shared by the integration tests (each test file is its own crate, so not every
//! file uses every helper).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/corpus/<kind>`, read in place.
pub fn corpus_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(kind)
}

/// `../shared/corpus/<kind>` when it is there. A fresh clone of the repository has no
/// `../shared`: the test says it was skipped and why, and passes; under `CI=true` the corpus
/// is required and its absence fails the test.
pub fn corpus(kind: &str) -> Option<PathBuf> {
    let dir = corpus_dir(kind);
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{} is missing: the corpus is required when CI=true",
        dir.display()
    );
    eprintln!(
        "skipped: {} is missing (a fresh clone has no ../shared/corpus; with CI=true this fails)",
        dir.display()
    );
    None
}

/// The parser fixtures `fixtures/parser/<kind>/*.conf`, sorted by name, as (file stem,
/// contents).
pub fn parser_fixtures(kind: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/parser")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "conf"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(p).unwrap())
        })
        .collect()
}

/// Every regular file below `dir`, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let e = e.unwrap();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                todo.push(e.path());
            } else if ft.is_file() {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Copies a file or a tree, recreating symlinks as symlinks (a `sites-enabled` link must
/// stay a link in the copy).
pub fn copy_tree(from: &Path, to: &Path) {
    if from.is_file() && !from.is_symlink() {
        std::fs::copy(from, to).unwrap();
        return;
    }
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (p, t) = (e.path(), to.join(e.file_name()));
        let meta = std::fs::symlink_metadata(&p).unwrap();
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&p).unwrap(), &t).unwrap();
        } else if meta.is_dir() {
            copy_tree(&p, &t);
        } else {
            std::fs::copy(&p, &t).unwrap();
        }
    }
}
