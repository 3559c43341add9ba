//! The generated nginx tree the benchmarks read (benches/parse.rs, benches/lsp.rs): made
//! once per size by ../shared/tools/gen_nginx_corpus.py under target/.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `target/bench-corpus-SERVERS`, generated when missing.
pub fn corpus(servers: usize) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = root.join(format!("target/bench-corpus-{servers}"));
    if !out.join("nginx.conf").exists() {
        let status = Command::new("python3")
            .arg(root.join("../shared/tools/gen_nginx_corpus.py"))
            .arg(&out)
            .args(["-n", &servers.to_string(), "--seed", "1"])
            .status()
            .expect("python3 runs gen_nginx_corpus.py");
        assert!(status.success(), "gen_nginx_corpus.py failed");
    }
    out
}
