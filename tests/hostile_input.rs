//! Inputs built to exhaust lemplint (issue #36): each run ends within a bound proportional
//! to its input, with the exit code the contract gives, never a panic, a hang or a silent
//! truncation. Sizes are counted, not timed; speed is measured by scripts/bench-hostile.sh.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Runs lemplint in `dir`; a run past `limit` is killed and fails the test (a hang is a
/// failure, not a stuck test run).
fn run(dir: &Path, args: &[&str], limit: Duration) -> Output {
    run_cmd(
        Command::new(env!("CARGO_BIN_EXE_lemplint")),
        dir,
        args,
        limit,
    )
}

/// [`run`] with at most `kib` KiB of address space (`ulimit -v`), on two threads so the
/// threads' stacks take the same room on every machine: an allocation past it aborts the run.
fn run_in_memory(dir: &Path, args: &[&str], kib: u64) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_lemplint"))
        .env("RAYON_NUM_THREADS", "2");
    run_cmd(cmd, dir, args, Duration::from_secs(60))
}

fn run_cmd(mut cmd: Command, dir: &Path, args: &[&str], limit: Duration) -> Output {
    let child = cmd
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("lemplint {args:?} did not finish within {limit:?}");
        }
    }
}

fn lint(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["lint", "--isolated", "--format", "concise"];
    args.extend_from_slice(extra);
    // Generous: each of these inputs lints in well under a second in a release build.
    run(dir, &args, Duration::from_secs(60))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn write(dir: &Path, rel: &str, body: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, body).unwrap();
}

fn assert_exit(out: &Output, code: i32, needle: &str) {
    let shown = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(code), "{shown}");
    assert!(shown.contains(needle), "wanted {needle:?} in:\n{shown}");
}

/// Item 2: ten files a level over eight levels, each including the next level by glob, is
/// 10⁸ copies of the last level. Past the budget the run fails (exit 2, whatever is
/// ignored), naming the chain, where it used to pass on a silently shortened expansion.
#[test]
fn an_include_fan_out_is_an_input_error() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "nginx.conf",
        "events {}\nhttp {\n    server_tokens off;\n    server {\n        listen 80;\n        location / {\n            include l1/*.conf;\n        }\n    }\n}\n",
    );
    let body: String = (0..20).map(|i| format!("add_header X-{i} v;\n")).collect();
    for level in 1..=8 {
        for i in 0..10 {
            let next = if level < 8 {
                format!("include l{}/*.conf;\n", level + 1)
            } else {
                String::new()
            };
            write(
                d.path(),
                &format!("l{level}/f{i}.conf"),
                &format!("{body}{next}"),
            );
        }
    }
    for extra in [&[][..], &["--ignore", "NGX020"], &["--fail-on", "error"]] {
        let mut args = extra.to_vec();
        args.push("nginx.conf");
        let out = lint(d.path(), &args);
        assert_exit(
            &out,
            2,
            "error[NGX020] the includes expand this configuration to",
        );
        assert_exit(
            &out,
            2,
            "expanded only in part: nginx.conf → l1/f0.conf → l2/f0.conf",
        );
    }
    // The same tree with one file a level included: no budget involved.
    for level in 1..8 {
        for i in 1..10 {
            write(d.path(), &format!("l{level}/f{i}.conf"), &body);
        }
    }
    let out = lint(d.path(), &["nginx.conf"]);
    assert!(
        !text(&out.stdout).contains("expanded only in part"),
        "{}",
        text(&out.stdout)
    );
}

/// Item 3: a 161-byte file whose rewrite multiplies the query by eight on each of the
/// eleven location searches (NGX140's simulation used to allocate gigabytes). Within 1 GiB
/// of address space the lint ends with its findings; the way that outgrows the bound is not
/// followed.
#[test]
fn a_rewrite_that_multiplies_the_query_stays_small() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "nginx.conf",
        "events {}\nhttp { server { listen 80; location / { rewrite ^ $request_uri;\nrewrite ^(.*)$ $1?$args$args$args$args$args$args$args$args;\nproxy_pass http://b; } } }\n",
    );
    let out = run_in_memory(
        d.path(),
        &["lint", "--isolated", "--format", "concise", "nginx.conf"],
        1 << 20,
    );
    assert_exit(&out, 1, "error[NGX140] after `rewrite ^ $request_uri`");
}

/// Item 4: eight links to `.` under ten wildcard levels were 8¹⁰ paths (a hang past two
/// minutes). A directory is not entered again from below itself, so the glob ends at once;
/// links that make a wide tree without a loop hit the glob's budget (proportional to the
/// distinct directories it reaches, with a floor: src/stack/glob.rs tests the proportion):
/// exit 2, naming the glob and the tree's size.
#[test]
fn directory_link_loops_and_wide_globs_end() {
    use std::os::unix::fs::symlink;
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("conf.d")).unwrap();
    for n in 1..=8 {
        symlink(".", d.path().join(format!("conf.d/l{n}"))).unwrap();
    }
    write(
        d.path(),
        "nginx.conf",
        "events {}\nhttp { server_tokens off; include conf.d/*/*/*/*/*/*/*/*/*/*/*.conf; }\n",
    );
    let out = lint(d.path(), &["nginx.conf"]);
    assert_exit(&out, 0, "No problems found in 1 file");
    // Eight directories, each linking to all eight: paths that never repeat a directory
    // are still 8! long, more than a glob may list.
    let w = d.path().join("wide");
    for i in 1..=8 {
        std::fs::create_dir_all(w.join(format!("conf.d/d{i}"))).unwrap();
        for j in 1..=8 {
            symlink(format!("../d{j}"), w.join(format!("conf.d/d{i}/x{j}"))).unwrap();
        }
    }
    write(
        &w,
        "nginx.conf",
        "events {}\nhttp { server_tokens off; include conf.d/*/*/*/*/*/*/*/*.conf; }\n",
    );
    let out = lint(&w, &["--ignore", "NGX020", "nginx.conf"]);
    assert_exit(
        &out,
        2,
        "error[NGX020] the glob \"conf.d/*/*/*/*/*/*/*/*.conf\" lists more than 10000 directories: links reach the tree's 9 distinct directories over and over (a glob may take 16 times the tree it walks); not followed",
    );
}

/// `lemplint server` with `input` on its stdin (written from a thread, so a large input and
/// the server's replies do not wait on each other).
fn serve(input: Vec<u8>) -> Output {
    let d = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .arg("server")
        .current_dir(d.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&input);
    });
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("lemplint server did not finish within 60 s");
        }
    };
    writer.join().unwrap();
    out
}

fn framed(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

const INITIALIZE: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;

/// Item 6: announced lengths the server cannot hold (one aborted on allocation, one
/// panicked on capacity overflow) and a real 64 MiB + 1 message: refused with a JSON-RPC
/// error, and the session goes on to a clean shutdown.
#[test]
fn the_language_server_refuses_huge_messages() {
    for len in ["99999999999999", "18446744073709551615"] {
        let mut input = framed(INITIALIZE);
        input.extend(framed(INITIALIZED));
        input.extend_from_slice(format!("Content-Length: {len}\r\n\r\n{{}}").as_bytes());
        let out = serve(input);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let mut input = framed(INITIALIZE);
    input.extend(framed(INITIALIZED));
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"x","params":"{}"}}"#,
        "a".repeat(64 << 20)
    );
    input.extend(framed(&big));
    drop(big);
    input.extend(framed(r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#));
    input.extend(framed(r#"{"jsonrpc":"2.0","method":"exit"}"#));
    let out = serve(input);
    let shown = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        shown.contains(r#""id":null"#) && shown.contains("larger than the 64 MiB limit"),
        "{shown}"
    );
    assert!(shown.contains(r#""id":2,"result":null"#), "{shown}");
    // Framing that cannot be followed ends the server with a message, not a panic.
    let mut input = framed(INITIALIZE);
    input.extend(framed(INITIALIZED));
    input.extend_from_slice(b"Content-Length: 999999999999999999999\r\n\r\n");
    let out = serve(input);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is not a length; the stream cannot be resynchronised"),
        "{}",
        text(&out.stderr)
    );
}

/// Item 6: a reader that stops early ends every command quietly (SIGPIPE, as `ls | head`),
/// never a panic (exit 101) or an I/O error (exit 2).
#[test]
fn a_closed_pipe_ends_commands_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let d = tempfile::tempdir().unwrap();
    // Enough servers that the report outgrows a pipe's buffer.
    let servers: String = (0..3000)
        .map(|i| format!("server {{ listen {}; server_tokens on; }}\n", 10_000 + i))
        .collect();
    write(
        d.path(),
        "nginx.conf",
        &format!("events {{}}\nhttp {{\n{servers}}}\n"),
    );
    for args in [
        &["rules"][..],
        &["stack", "nginx.conf"],
        &["lint", "--isolated", "nginx.conf"],
        &["parse", "nginx.conf"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lemplint"))
            .args(args)
            .current_dir(d.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // stdout is closed here (the handle was dropped).
        let out = child.wait_with_output().unwrap();
        let quiet = out.status.code() == Some(0) || out.status.signal() == Some(libc_sigpipe());
        assert!(
            quiet && out.stderr.is_empty(),
            "{args:?}: {:?} {}",
            out.status,
            text(&out.stderr)
        );
    }
}

/// SIGPIPE's number on Linux.
fn libc_sigpipe() -> i32 {
    13
}

/// Item 5: shapes whose cost grew faster than the input. Each lints in a few seconds in a
/// debug build and took minutes before (60,000 map keys sharing a prefix: the name table's
/// hash ignored the high bytes of each word; 40,000 servers without `root`: NGX102 scanned
/// `http` per server; the `full` report of a 2.7 MB file with a thousand findings: each
/// frame scanned the file). The limit is far from both; scripts/bench-hostile.sh measures.
#[test]
fn costs_grow_with_the_input_not_faster() {
    let d = tempfile::tempdir().unwrap();
    let keys: String = (0..60_000)
        .map(|i| format!("/prefix/{i:08} 1;\n"))
        .collect();
    write(
        d.path(),
        "map.conf",
        &format!(
            "events {{}}\nhttp {{ server_tokens off; map $uri $x {{\ndefault 0;\n{keys}}} }}\n"
        ),
    );
    let out = run(
        d.path(),
        &["lint", "--isolated", "--format", "concise", "map.conf"],
        Duration::from_secs(60),
    );
    assert_exit(&out, 0, "No problems found");
    let servers: String = (0..40_000)
        .map(|i| format!("server {{ listen {}; location / {{ }} }}\n", 10_000 + i))
        .collect();
    write(
        d.path(),
        "servers.conf",
        &format!("events {{}}\nhttp {{ server_tokens off;\n{servers}}}\n"),
    );
    let out = run(
        d.path(),
        &["lint", "--isolated", "--format", "concise", "servers.conf"],
        Duration::from_secs(60),
    );
    assert_exit(&out, 0, "No problems found");
    write(
        d.path(),
        "gzip.conf",
        &format!("events {{}}\nhttp {{\n{}}}\n", "gzip on;\n".repeat(300_000)),
    );
    let out = run(
        d.path(),
        &["lint", "--isolated", "--format", "full", "gzip.conf"],
        Duration::from_secs(60),
    );
    assert_exit(&out, 1, "first set here");
}

/// Item 7: a 50 MB `fail-on` value is quoted as a short excerpt (it was written back to
/// stderr five times over: 251 MB), and numbers `nginx -t` refuses are reported in its words.
#[test]
fn huge_config_values_are_quoted_briefly_and_refused_numbers_reported() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "lemplint.toml",
        &format!("fail-on = \"{}\"\n", "x".repeat(50 << 20)),
    );
    write(
        d.path(),
        "nginx.conf",
        "events {}\nhttp { server_tokens off; }\n",
    );
    let out = run(d.path(), &["lint", "."], Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(2));
    let shown = text(&out.stderr);
    assert!(shown.len() < 1000, "{} bytes on stderr", shown.len());
    assert!(shown.contains("… (52428800 bytes)"), "{shown}");
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "nginx.conf",
        "worker_processes 99999999999999999999;\nevents {}\nhttp {\n    server_tokens off;\n    client_max_body_size 99999999999999999999G;\n    server {\n        listen 65536;\n        return 9999999999;\n    }\n}\n",
    );
    let out = lint(d.path(), &["nginx.conf"]);
    for message in [
        "nginx.conf:1:18: error[NGX029] \"worker_processes\" directive invalid value",
        "nginx.conf:5:26: error[NGX029] \"client_max_body_size\" directive invalid value",
        "nginx.conf:7:16: error[NGX029] invalid port in \"65536\" of the \"listen\" directive",
        "nginx.conf:8:16: error[NGX029] invalid return code \"9999999999\"",
    ] {
        assert_exit(&out, 1, message);
    }
}
