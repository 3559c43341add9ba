//! Parse throughput: tokenize + build the tree for every file of a generated nginx tree.
//!
//!     cargo bench --bench parse                 # ~10 MB tree (9000 server blocks)
//!     LEMPLINT_BENCH_SERVERS=90000 cargo bench --bench parse
//!
//! The tree is made once by ../shared/tools/gen_nginx_corpus.py under target/. Reports the
//! median of several runs in MB/s (single thread). No assertions: numbers, not tests.

use std::path::Path;
use std::time::Instant;

#[path = "common/corpus.rs"]
mod generated;
use generated::corpus;

fn files(dir: &Path, out: &mut Vec<Vec<u8>>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(std::fs::read(&p).unwrap());
        }
    }
}

fn main() {
    let servers: usize = std::env::var("LEMPLINT_BENCH_SERVERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(9000);
    let dir = corpus(servers);
    let mut sources = Vec::new();
    files(&dir, &mut sources);
    let bytes: usize = sources.iter().map(Vec::len).sum();
    let mut times = Vec::new();
    let mut nodes = 0;
    for _ in 0..7 {
        let t = Instant::now();
        nodes = 0;
        for s in &sources {
            let parsed = lemplint::syntax::nginx::parse(s);
            nodes += parsed.tree.nodes.len();
            std::hint::black_box(&parsed);
        }
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!(
        "parse: {} files, {:.1} MB, {} nodes: median {:.1} ms = {:.0} MB/s (best {:.0} MB/s)",
        sources.len(),
        bytes as f64 / 1e6,
        nodes,
        median * 1e3,
        bytes as f64 / 1e6 / median,
        bytes as f64 / 1e6 / times[0],
    );
}
