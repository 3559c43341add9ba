//! Every nginx file in ../shared/corpus must come back byte-for-byte from its tree.

mod common;
use common::{corpus, files_under};

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn nginx_corpus_round_trips() {
    let Some(dir) = corpus("nginx") else { return };
    let files = files_under(&dir);
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
