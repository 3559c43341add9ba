//! Tells the integration tests whether the configuration corpus (and the judged stacks of
//! `../shared/field`) are there.
//!
//! The corpus tests read `../shared/corpus` (see `tests/common/mod.rs`), which a fresh clone
//! does not have. Without it they are marked ignored, so that the summary line of
//! `cargo test` counts them as ignored (with the reason) instead of as passed; under
//! `CI=true` they run and fail, since CI must check the corpus. `LEMPLINT_CORPUS` names
//! another corpus directory.

use std::path::PathBuf;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(lemplint_no_corpus)");
    println!("cargo:rustc-check-cfg=cfg(lemplint_no_field)");
    println!("cargo:rerun-if-env-changed=CI");
    println!("cargo:rerun-if-env-changed=LEMPLINT_CORPUS");
    println!("cargo:rerun-if-changed=build.rs");
    let corpus = std::env::var_os("LEMPLINT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/corpus"));
    // Its going away is noticed through a file it always has. Its coming is not (cargo would
    // run this script on every build to watch a path that does not exist, and watching a
    // directory scans all of it): after adding the corpus, `touch build.rs`, as the ignore
    // reason says.
    let sources = corpus.join("SOURCES.md");
    if sources.is_file() {
        println!("cargo:rerun-if-changed={}", sources.display());
    }
    let ci = std::env::var("CI").as_deref() == Ok("true");
    if !corpus.is_dir() && !ci {
        println!("cargo:rustc-cfg=lemplint_no_corpus");
    }
    // The judged stacks `tests/precision.rs` measures against, alike.
    let expected = std::path::Path::new("../shared/field/EXPECTED.tsv");
    if expected.is_file() {
        println!("cargo:rerun-if-changed={}", expected.display());
    } else if !ci {
        println!("cargo:rustc-cfg=lemplint_no_field");
    }
}
