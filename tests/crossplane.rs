//! Differential test: our crossplane payload (`lemplint::syntax::nginx::crossplane`) against
//! the real crossplane 0.5.8, over every file of ../shared/corpus/nginx and a set of edge
//! cases.
//!
//! crossplane runs in one Python process for all files (`crossplane.parse(f, single=True,
//! check_ctx=False, check_args=False, comments=False)`, one JSON line per file). Python is
//! `$LEMPLINT_CROSSPLANE_PYTHON`, else `target/crossplane-venv/bin/python`, which
//! `scripts/crossplane-venv.sh` creates. Without it the tests are skipped with a note,
//! except under `CI=true`, where they fail.

mod common;
use common::files_under;

use lemplint::syntax::nginx::crossplane::{payload, CrossplaneFile};
use lemplint::syntax::nginx::parse;
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Reads one path per line on stdin, prints crossplane's payload for it as one JSON line.
const DRIVER: &str = r#"
import json, sys
import crossplane
for line in sys.stdin:
    path = line.rstrip("\n")
    try:
        out = crossplane.parse(path, single=True, check_ctx=False, check_args=False,
                               comments=False)
    except Exception as e:
        out = {"driver_error": repr(e)}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"#;

/// Corpus files (relative to ../shared/corpus/nginx) whose payload differs from
/// crossplane's, and why. Every entry must still differ (stale entries fail the test).
/// All are files nginx 1.22.1 rejects (`nginx -t`, run on the file or, where another error
/// comes first, on the quoted line); crossplane parses them with status "ok".
const KNOWN_MISMATCHES: &[(&str, &str)] = &[
    (
        "crossplane/tests/configs/missing-semicolon/broken-above.conf",
        "`proxy_pass x` ended by `}` (nginx: unexpected \"}\", line 5): crossplane takes the `}` \
         as its terminator, so the next location nests inside this one",
    ),
    (
        "crossplane/tests/configs/missing-semicolon/broken-below.conf",
        "`proxy_pass x` ended by `}` (nginx: unexpected \"}\", line 8): crossplane takes the `}` \
         as its terminator and closes each block one `}` late (http at EOF)",
    ),
    (
        "VVV/provision/core/nginx/config/site-fallback.conf",
        "template placeholders (nginx: directive \"server_name\" is not terminated by \";\", \
         line 4): crossplane splits `vvv_hosts}` at the `}`, reads `;` and `{` as directives; \
         we report nginx's error",
    ),
    (
        "ns1.grapheneos.org/nginx/nginx.conf",
        "template placeholder `/live/{{subdomain}}.grapheneos.org/…` (nginx: directive \
         \"ssl_certificate\" is not terminated by \";\", line 60): crossplane reads `{` as a \
         directive and splits words at `}`; we report nginx's error",
    ),
];

/// Least share of the files crossplane parses (status "ok") whose payload must be equal.
const MIN_PARITY: f64 = 0.995;

fn python() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/crossplane-venv/bin/python");
    let candidates: Vec<PathBuf> = std::env::var_os("LEMPLINT_CROSSPLANE_PYTHON")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .chain([venv])
        .collect();
    let works = |python: &Path| {
        Command::new(python)
            .args([
                "-c",
                "import crossplane, sys; sys.exit(crossplane.__version__ != '0.5.8')",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if let Some(found) = candidates.iter().find(|p| works(p)) {
        return Some(found.clone());
    }
    let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    let msg = format!(
        "crossplane 0.5.8 is not importable with {} (set LEMPLINT_CROSSPLANE_PYTHON, or run \
         scripts/crossplane-venv.sh to create target/crossplane-venv)",
        tried.join(" nor ")
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{msg}");
    }
    eprintln!("note: skipping the crossplane differential test: {msg}");
    None
}

/// crossplane's payload for each path, in order, from one Python process.
fn run_crossplane(python: &Path, paths: &[String]) -> Vec<Value> {
    let mut child = Command::new(python)
        .args(["-c", DRIVER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start python");
    let mut stdin = child.stdin.take().unwrap();
    let input: String = paths.iter().map(|p| format!("{p}\n")).collect();
    // Feed stdin from a thread so neither pipe can fill up and block the other side.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.expect("read driver output")).expect("driver JSON"))
        .collect();
    writer.join().unwrap().expect("write driver input");
    assert!(child.wait().unwrap().success(), "crossplane driver failed");
    assert_eq!(out.len(), paths.len(), "one JSON line per file");
    out
}

fn ours(path: &str, src: &[u8]) -> Value {
    let parsed = parse(src);
    let includes = HashMap::new();
    payload(&[CrossplaneFile {
        path: path.to_string(),
        src,
        parsed: &parsed,
        includes: &includes,
    }])
}

/// The first place two JSON values differ, as a JSON pointer with both sides.
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let (l, r) = (x.get(k), y.get(k));
                match (l, r) {
                    (Some(l), Some(r)) => first_difference(l, r, &format!("{at}/{k}")),
                    _ => Some(format!("{at}/{k}: ours {l:?}, crossplane {r:?}")),
                }
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            let diff = x
                .iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (l, r))| first_difference(l, r, &format!("{at}/{i}")));
            diff.or_else(|| {
                (x.len() != y.len()).then(|| {
                    format!(
                        "{at}: ours has {} items, crossplane {}; ours {}, crossplane {}",
                        x.len(),
                        y.len(),
                        abbreviate(a),
                        abbreviate(b)
                    )
                })
            })
        }
        _ if a == b => None,
        _ => Some(format!(
            "{at}: ours {}, crossplane {}",
            abbreviate(a),
            abbreviate(b)
        )),
    }
}

fn abbreviate(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 300 {
        format!("{}…", s.chars().take(300).collect::<String>())
    } else {
        s
    }
}

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn corpus_payloads_match_crossplane() {
    let Some(python) = python() else { return };
    let Some(dir) = common::corpus("nginx") else {
        return;
    };
    let files = files_under(&dir);
    assert!(files.len() > 1000, "corpus missing? found {}", files.len());
    let paths: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let theirs = run_crossplane(&python, &paths);

    let known: HashMap<&str, &str> = KNOWN_MISMATCHES.iter().copied().collect();
    let (mut ok, mut equal, mut failed, mut failed_equal) = (0usize, 0usize, 0usize, 0usize);
    let mut unexpected = Vec::new();
    let mut stale = Vec::new();
    let mut seen_known = Vec::new();
    for ((file, path), theirs) in files.iter().zip(&paths).zip(&theirs) {
        let rel = file
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            theirs.get("driver_error").is_none(),
            "{rel}: crossplane raised {}",
            theirs["driver_error"]
        );
        let src = std::fs::read(file).unwrap();
        let mine = ours(path, &src);
        let same = &mine == theirs;
        if theirs["status"] == "ok" {
            ok += 1;
            equal += usize::from(same);
        } else {
            failed += 1;
            failed_equal += usize::from(same);
        }
        match (same, known.get(rel.as_str())) {
            (true, Some(_)) => stale.push(rel),
            (true, None) => {}
            (false, Some(reason)) => seen_known.push(format!("{rel}: {reason}")),
            (false, None) => {
                let d = first_difference(&mine, theirs, "").unwrap_or_default();
                unexpected.push(format!("{rel}: {d}"));
            }
        }
    }
    let parity = equal as f64 / ok.max(1) as f64;
    eprintln!(
        "crossplane parity: {equal}/{ok} files crossplane parses ok are equal ({:.2}%); \
         {failed_equal}/{failed} files it rejects get the same payload; {} known mismatches",
        parity * 100.0,
        seen_known.len()
    );
    for k in &seen_known {
        eprintln!("  known: {k}");
    }
    assert!(
        unexpected.is_empty(),
        "{} unexpected mismatches (add to KNOWN_MISMATCHES with a reason, or fix):\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert!(
        stale.is_empty(),
        "KNOWN_MISMATCHES entries that now match crossplane (remove them): {stale:#?}"
    );
    assert!(
        parity >= MIN_PARITY,
        "parity {:.2}% is below {:.1}%",
        parity * 100.0,
        MIN_PARITY * 100.0
    );
}

/// Edge cases of crossplane's lexer and parser that the corpus may not hold.
const SNIPPETS: &[&[u8]] = &[
    b"events {}\nhttp {\n  server { listen 80; }\n}\n",
    b"if ( $a = b ) {}\nif ($a){}\nif (){}\nif ( ) {}\nif (a) {}\nif ($a = \"(x)\") {}\nif ($a ~ ^(b)) {}\nset ($a) (b);\n",
    b"content_by_lua_block {\n ngx.say(\"}\") -- }\n}\nset_by_lua_block $x { return 1 }\nhttp { init_by_lua_block { a = {} } }\n",
    b"access_by_lua_block {\n local s = '{' .. \"}}\" -- '\n if x then return end }\n",
    br#"a "x\"y\\z\n\t\'" 'p\'q\"' u\"v\\w "" '';"#,
    b"a 'x\r\ny' b\r\n;\r\nc d;\r\n",
    b"\"a\" '{' \"}\" ';';",
    b"a caf\xe9 \"\xff\xfe\" \xe2\x82x;\n# \xc3\n",
    b"# top\na b # c1\n # c2\n c;\nd { # c3\n e; } # c4\n",
    b"a # x \\\r\n b # y \\\\\n;",
    b"set $a ${b} c;\nset $a ${b}c d;\nset $a x${b}\n;\nset \"${b}\" c;\nset $a ${b}\t\"c\";\n",
    b"map $a $b { default 0; ~^x 1; }\ntypes { text/html html htm; }\n",
    b"a;\r\nb;\rc;\n",
    b"root /var/www/${host}/public;\nreturn 301 https://$host$request_uri;\n",
    b"a;\n}\n",
    b"http {\n a b;\n # c\n\n",
    b"http {\n a b",
    b"a b\n",
    b"a 'b",
    b"x { content_by_lua_block {\n ngx.say('a')\n",
    b"http {\n server {\n",
    b"",
    b"# only a comment",
    b"\xef\xbb\xbfuser nginx;\n",
    b"a \"multi\nline\" 'q' x;\n",
    b"location ~* \\.(gif|jpg)$ { expires 30d; }\n",
    // Errors nginx reports and crossplane does not, on the same tokens.
    b"a \"b\"c 'd'#e\n;\n\"outer\" \"left\"-q right-\"q\" in\"-\"q;\n",
    b"map $a $b { x { y; } }\n",
];

#[test]
fn snippets_match_crossplane() {
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let long = format!("a {};\nb '{}';\n", "x".repeat(5000), "y".repeat(5000)).into_bytes();
    let snippets: Vec<&[u8]> = SNIPPETS.iter().copied().chain([&long[..]]).collect();
    let mut paths = Vec::new();
    for (i, s) in snippets.iter().enumerate() {
        let p = dir.path().join(format!("{i}.conf"));
        std::fs::write(&p, s).unwrap();
        paths.push(p.display().to_string());
    }
    let theirs = run_crossplane(&python, &paths);
    let mut diffs = Vec::new();
    for ((i, s), (path, theirs)) in snippets.iter().enumerate().zip(paths.iter().zip(&theirs)) {
        let mine = ours(path, s);
        if let Some(d) = first_difference(&mine, theirs, "") {
            diffs.push(format!("snippet {i} {:?}: {d}", String::from_utf8_lossy(s)));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// `lemplint fmt` keeps what crossplane reads: every corpus file it formats gives the real
/// crossplane the same payload as before (directives, arguments, blocks, comments between
/// arguments), line numbers and file names aside.
#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn formatted_corpus_reads_the_same_to_crossplane() {
    use lemplint::format::{nginx::format, Style};
    let Some(python) = python() else { return };
    let Some(dir) = common::corpus("nginx") else {
        return;
    };
    let out_dir = tempfile::tempdir().unwrap();
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (i, f) in files_under(&dir).iter().enumerate() {
        let src = std::fs::read(f).unwrap();
        if let Ok(Some(new)) = format(&src, &parse(&src), Style::default()) {
            let to = out_dir.path().join(format!("{i}.conf"));
            std::fs::write(&to, new).unwrap();
            pairs.push((f.display().to_string(), to.display().to_string()));
        }
    }
    assert!(pairs.len() > 500, "only {} files formatted", pairs.len());
    let paths: Vec<String> = pairs
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .collect();
    let payloads = run_crossplane(&python, &paths);
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("line");
                m.remove("file");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut differ = Vec::new();
    for (pair, two) in pairs.iter().zip(payloads.chunks(2)) {
        let (mut before, mut after) = (two[0].clone(), two[1].clone());
        strip(&mut before);
        strip(&mut after);
        if let Some(d) = first_difference(&after, &before, "") {
            differ.push(format!("{}: {d}", pair.0));
        }
    }
    eprintln!(
        "fmt × crossplane: {} formatted files, {} read differently",
        pairs.len(),
        differ.len()
    );
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
