//! Language-server latency: a keystroke in a generated stack, from `didChange` to the
//! diagnostics of that file, minus the debounce the server waits for the user to pause
//! (the lint itself starts at the keystroke, and runs during the pause). And the whole
//! lint's cost, undisguised: a request sent right after a keystroke is answered only once
//! the stack is linted at the new text, so the time to its answer is the lint's.
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
    let mut c = Client::start(Path::new(env!("CARGO_BIN_EXE_lemplint")), &tree);
    c.request(
        "initialize",
        json!({"processId": null, "capabilities": {},
               "workspaceFolders": [{"uri": uri(&tree), "name": "bench"}]}),
    );
    c.notify("initialized", json!({}));
    let mb = bytes as f64 / 1e6;

    // A comment typed in nginx.conf: a character at the start of its first line (a
    // comment), then taken back.
    let main = tree.join("nginx.conf");
    let comment = |v| if v % 2 == 0 { "#" } else { "" };
    let samples = keystrokes(&mut c, &main, 0, 0, comment, |v| v % 2 == 0);
    print(servers, mb, "a comment in nginx.conf", samples);

    // A directive's argument changed in a vhost: the first digit of `client_max_body_size`
    // changed and changed back (`1m` ↔ `2m`).
    let site = first_site(&tree);
    let text = std::fs::read_to_string(&site).unwrap();
    const NAME: &str = "client_max_body_size ";
    let (line, col, first) = text
        .lines()
        .enumerate()
        .find_map(|(i, l)| {
            let c = l.find(NAME)? + NAME.len();
            Some((i, c, l.as_bytes()[c]))
        })
        .expect("the generated vhost sets client_max_body_size");
    let (original, other) = if first == b'1' {
        ("1", "2")
    } else {
        ("2", "1")
    };
    let digit = move |v| if v % 2 == 0 { original } else { other };
    let samples = keystrokes(&mut c, &site, line, col, digit, |_| false);
    print(servers, mb, "an argument in a vhost", samples);
    let samples = keystroke_then_request(&mut c, &site, line, col, digit);
    print_request(servers, mb, samples);

    c.request("shutdown", serde_json::Value::Null);
    c.notify("exit", serde_json::Value::Null);
    let _ = c.child.wait();
}

/// Opens `file` and types 40 keystrokes at `line`:`col`: `text(version)` inserted when
/// `insert(version)`, else put in place of the character there. Each sample is the time from the
/// change to the file's diagnostics for that version, minus the debounce.
fn keystrokes(
    c: &mut Client,
    file: &Path,
    line: usize,
    col: usize,
    text: impl Fn(i32) -> &'static str,
    insert: impl Fn(i32) -> bool,
) -> Vec<Duration> {
    let file_uri = open(c, file);
    let mut samples = Vec::new();
    for version in 2..42 {
        let end = if insert(version) { col } else { col + 1 };
        let change = json!({"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": end}}, "text": text(version)});
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
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": file_uri}}),
    );
    samples
}

/// Opens `file` as version 1 and waits for its first diagnostics; its URI.
fn open(c: &mut Client, file: &Path) -> String {
    let file_uri = uri(file);
    let content = std::fs::read_to_string(file).unwrap();
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": file_uri, "languageId": "nginx", "version": 1, "text": content}}),
    );
    c.wait(
        |m| lsp_client::is_diagnostics_for(m, &file_uri),
        "first diagnostics",
    );
    file_uri
}

/// The same keystrokes, each followed at once by a hover request on the changed line: the
/// time from the change to the answer, which waits for the lint of the new text.
fn keystroke_then_request(
    c: &mut Client,
    file: &Path,
    line: usize,
    col: usize,
    text: impl Fn(i32) -> &'static str,
) -> Vec<Duration> {
    let file_uri = open(c, file);
    let mut samples = Vec::new();
    for version in 2..42 {
        let change = json!({"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col + 1}}, "text": text(version)});
        let sent = Instant::now();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": file_uri, "version": version}, "contentChanges": [change]}),
        );
        c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": file_uri}, "position": {"line": line, "character": 6}}),
        );
        samples.push(sent.elapsed());
    }
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": file_uri}}),
    );
    samples
}

fn print_request(servers: usize, mb: f64, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "lsp keystroke → hover answered at the new text (the whole lint, no debounce), {servers} servers ({mb:.1} MB): median {:.1} ms, p90 {:.1} ms, max {:.1} ms",
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() * 9 / 10]),
        ms(*samples.last().unwrap()),
    );
}

fn print(servers: usize, mb: f64, what: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "lsp keystroke → diagnostics ({what}), {servers} servers ({mb:.1} MB), after the {} ms debounce: median {:.1} ms, p90 {:.1} ms, max {:.1} ms",
        DEBOUNCE.as_millis(),
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() * 9 / 10]),
        ms(*samples.last().unwrap()),
    );
}

/// The first vhost file of the generated tree.
fn first_site(tree: &Path) -> std::path::PathBuf {
    let mut sites: Vec<_> = std::fs::read_dir(tree.join("sites-enabled"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    sites.sort();
    std::fs::canonicalize(&sites[0]).unwrap()
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
