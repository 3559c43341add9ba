//! Every nginx file in ../shared/corpus must come back byte-for-byte from its tree.

use std::path::{Path, PathBuf};

pub fn corpus_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(kind)
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
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

#[test]
fn nginx_corpus_round_trips() {
    let files = files_under(&corpus_dir("nginx"));
    assert!(files.len() > 1000, "corpus missing? found {}", files.len());
    let mut failed = Vec::new();
    for f in &files {
        let src = std::fs::read(f).unwrap();
        let parsed = lemplint::syntax::nginx::parse(&src);
        if parsed.tree.print(&src).as_deref() != Some(&src[..]) {
            failed.push(f.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "{} files did not round-trip: {failed:#?}",
        failed.len()
    );
}
