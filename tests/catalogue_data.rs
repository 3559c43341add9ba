//! The checked-in catalogue (`src/analysis/catalogue/data.rs`) is what
//! `scripts/gen-nginx-catalogue.py` generates from the nginx and module sources, when those
//! mirrors are on this machine (`/work/.mirror`, or `$LEMPLINT_MIRRORS`). Elsewhere (a fresh
//! clone, CI), or with only some of the mirrors (nginx's own fetched to read its source),
//! the test says it was skipped: the sources are not part of the repository.

use std::path::Path;
use std::process::Command;

#[test]
fn generated_catalogue_is_up_to_date() {
    let mirrors = std::env::var("LEMPLINT_MIRRORS").unwrap_or_else(|_| "/work/.mirror".into());
    let nginx = Path::new(&mirrors).join("nginx+nginx");
    if !nginx.is_dir() {
        eprintln!(
            "skipped: no nginx source mirror at {} (set LEMPLINT_MIRRORS)",
            nginx.display()
        );
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen-nginx-catalogue.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg("--check")
        .env("LEMPLINT_MIRRORS", &mirrors)
        .output()
        .expect("python3 runs");
    // The script's EXIT_CANNOT_CHECK: a module mirror is missing, so nothing was generated.
    if out.status.code() == Some(3) {
        eprintln!("skipped: {}", String::from_utf8_lossy(&out.stderr).trim());
        return;
    }
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
