//! Language-server latency: a keystroke in a generated stack, from `didChange` to the
//! diagnostics of that file, minus the debounce the server waits for the user to pause.
//!
//!     cargo bench --bench lsp                    # ~1 MB tree (900 server blocks)
//!     LEMPLINT_BENCH_SERVERS=9000 cargo bench --bench lsp
//!
//! The tree is made by ../shared/tools/gen_nginx_corpus.py under target/. Prints the
//! median, 90th percentile and worst of 40 keystrokes. No assertions: numbers, not tests.

#[path = "common/corpus.rs"]
mod generated;
#[path = "../tests/common/lsp_client.rs"]
mod lsp_client;

use lsp_client::{uri, Client};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

/// `lemplint::server::DEBOUNCE`.
const DEBOUNCE: Duration = Duration::from_millis(150);

fn main() {
    let servers: usize = std::env::var("LEMPLINT_BENCH_SERVERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(900);
    let tree = generated::corpus(servers);
    let tree = std::fs::canonicalize(&tree).unwrap();
    let bytes: u64 = walk(&tree);
    let file = tree.join("nginx.conf");
    let text = std::fs::read_to_string(&file).unwrap();
    let file_uri = uri(&file);

    let mut c = Client::start(Path::new(env!("CARGO_BIN_EXE_lemplint")), &tree);
    c.request(
        "initialize",
        json!({"processId": null, "capabilities": {},
               "workspaceFolders": [{"uri": uri(&tree), "name": "bench"}]}),
    );
    c.notify("initialized", json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": file_uri, "languageId": "nginx", "version": 1, "text": text}}),
    );
    c.wait(
        |m| lsp_client::is_diagnostics_for(m, &file_uri),
        "first diagnostics",
    );

    let mut samples = Vec::new();
    for version in 2..42 {
        // Type a comment character at the end of the first line, or take it back.
        let change = if version % 2 == 0 {
            json!({"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "#"})
        } else {
            json!({"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "text": ""})
        };
        let sent = Instant::now();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": file_uri, "version": version}, "contentChanges": [change]}),
        );
        c.wait(
            |m| lsp_client::is_diagnostics_for(m, &file_uri) && m["params"]["version"] == version,
            "diagnostics after a keystroke",
        );
        samples.push(sent.elapsed().saturating_sub(DEBOUNCE));
    }
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "lsp keystroke → diagnostics, {servers} servers ({:.1} MB), after the {} ms debounce: median {:.1} ms, p90 {:.1} ms, max {:.1} ms",
        bytes as f64 / 1e6,
        DEBOUNCE.as_millis(),
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() * 9 / 10]),
        ms(*samples.last().unwrap()),
    );
    c.request("shutdown", serde_json::Value::Null);
    c.notify("exit", serde_json::Value::Null);
    let _ = c.child.wait();
}

fn walk(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                walk(&p)
            } else {
                e.metadata().map_or(0, |m| m.len())
            }
        })
        .sum()
}
