//! DESIGN.md, "Layers": the analysis layer reads the syntax, the model (`stack`), `source`
//! and small utilities, never the layers above it.

mod common;

use std::path::Path;

#[test]
fn analysis_imports_nothing_above_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/analysis");
    let above = [
        "rules",
        "cli",
        "report",
        "fix",
        "tune",
        "workspace",
        "server",
        "engine",
    ];
    let mut bad = Vec::new();
    let files = common::files_under(&dir);
    assert!(files.len() >= 5, "src/analysis has {} files", files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for layer in above {
                if line.contains(&format!("crate::{layer}::"))
                    || line.contains(&format!("crate::{layer};"))
                    || line.contains(&format!("crate::{{{layer}"))
                {
                    bad.push(format!("{}:{}: {line}", f.display(), n + 1));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "analysis imports from a layer above it:\n{}",
        bad.join("\n")
    );
}
