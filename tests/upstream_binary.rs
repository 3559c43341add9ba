//! Differential tests of NGX140 (proxy-pass-uri-mismatch) against the real nginx.
//!
//! 1. `nginx -t` refuses a URI part in `proxy_pass` exactly where NGX140 reports an error:
//!    each case is one location (regex, named, prefix, exact, `if`, `limit_except`) with
//!    one `proxy_pass` (with and without a URI part, with variables, over a unix socket).
//! 2. nginx serving the slash-mismatch cases sends the backend exactly the paths NGX140's
//!    message names (`/api/v1` → `//v1`, `/app/users` → `/v2users`, …), and `$uri` in the
//!    URI part carries a decoded `%0d%0a` into the request line: a `TcpListener` in the test
//!    is the backend and records each request's first line.
//!
//! Without nginx the tests are skipped with a note, or fail when `CI=true`.

mod common;
use common::free_port;

use lemplint::diagnostic::Severity;
use lemplint::engine::collect;
use lemplint::engine::StackArgs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn nginx() -> Option<PathBuf> {
    let found = common::nginx_binary();
    if found.is_none() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "nginx is required in CI"
        );
        eprintln!("nginx not installed; skipping");
    }
    found
}

/// The NGX140 findings for a configuration file.
fn findings(conf: &Path) -> Vec<(Severity, String)> {
    findings_of(conf, "NGX140")
}

/// The findings of rule `code` for a configuration file.
fn findings_of(conf: &Path, code: &str) -> Vec<(Severity, String)> {
    let args = StackArgs {
        paths: vec![conf.to_path_buf()],
        isolated: true,
        ..Default::default()
    };
    let (_, f) = collect(&args, &[code.to_string()], &[], None).unwrap();
    f.diagnostics
        .iter()
        .filter(|d| d.code == code)
        .map(|d| (d.severity, d.message.clone()))
        .collect()
}

/// A configuration nginx can test and serve inside `dir`, with `body` in one server.
fn config(dir: &Path, port: u16, body: &str) -> String {
    let d = dir.display();
    format!(
        "pid {d}/nginx.pid;\nerror_log {d}/error.log;\nevents {{}}\nhttp {{\n    access_log off;\n    client_body_temp_path {d}/body; proxy_temp_path {d}/proxy;\n    fastcgi_temp_path {d}/fcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;\n    server {{\n        listen 127.0.0.1:{port};\n{body}\n    }}\n}}\n"
    )
}

#[test]
fn nginx_refuses_a_uri_part_where_ngx140_reports_an_error() {
    let Some(nginx) = nginx() else { return };
    let cases = [
        (
            "location ~ ^/api/ { proxy_pass http://127.0.0.1:9/api/; }",
            true,
        ),
        (
            "location ~* \\.php$ { proxy_pass http://127.0.0.1:9/; }",
            true,
        ),
        (
            "location ~ ^/api/ { proxy_pass http://127.0.0.1:9; }",
            false,
        ),
        (
            "location ~ ^/api/(.*)$ { proxy_pass http://127.0.0.1:9/x/$1; }",
            false,
        ),
        ("location @named { proxy_pass http://127.0.0.1:9/; }", true),
        ("location @named { proxy_pass http://127.0.0.1:9; }", false),
        (
            "location / { if ($arg_a) { proxy_pass http://127.0.0.1:9/a; } }",
            true,
        ),
        (
            "location / { if ($arg_a) { proxy_pass http://127.0.0.1:9; } }",
            false,
        ),
        (
            "location / { limit_except GET { proxy_pass http://127.0.0.1:9/w; } }",
            true,
        ),
        ("location /api { proxy_pass http://127.0.0.1:9/; }", false),
        (
            "location = /api { proxy_pass http://127.0.0.1:9/x; }",
            false,
        ),
        (
            "location ~ ^/s/ { proxy_pass http://unix:/tmp/lemplint-none.sock:/u; }",
            true,
        ),
        (
            "location ~ ^/s/ { proxy_pass http://unix:/tmp/lemplint-none.sock; }",
            false,
        ),
        (
            "location ~ ^/v/ { proxy_pass http://127.0.0.1:9$request_uri; }",
            false,
        ),
    ];
    let mut disagreements = Vec::new();
    for (body, refused) in cases {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("nginx.conf");
        std::fs::write(&conf, config(dir.path(), 9, &format!("        {body}"))).unwrap();
        let out = Command::new(&nginx)
            .args(["-t", "-q", "-p"])
            .arg(format!("{}/", dir.path().display()))
            .arg("-c")
            .arg(&conf)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let nginx_refused = !out.status.success() && err.contains("cannot have URI part");
        assert!(
            out.status.success() || nginx_refused,
            "{body}: nginx failed for another reason: {err}"
        );
        let lemplint_refused = findings(&conf)
            .iter()
            .any(|(s, m)| *s == Severity::Error && m.contains("cannot have URI part"));
        assert_eq!(
            nginx_refused, refused,
            "{body}: the case's expectation is wrong"
        );
        if nginx_refused != lemplint_refused {
            disagreements.push(format!(
                "{body}: nginx refused {nginx_refused}, NGX140 error {lemplint_refused}"
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// A backend that answers 200 to each request and records its request line.
fn backend() -> (u16, std::sync::mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut s = stream;
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            let text = String::from_utf8_lossy(&buf[..n]).into_owned();
            let line = text.split("\r\n").next().unwrap_or("").to_string();
            let _ = s.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n");
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (port, rx)
}

/// Sends `target` to nginx on `port` and returns what status line it answered.
fn get(port: u16, target: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            write!(s, "GET {target} HTTP/1.0\r\nHost: t\r\n\r\n").unwrap();
            let mut out = String::new();
            let _ = s.read_to_string(&mut out);
            return out.lines().next().unwrap_or("").to_string();
        }
        assert!(Instant::now() < deadline, "nginx did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_rewritten_paths_ngx140_names_are_what_the_backend_receives() {
    let Some(nginx) = nginx() else { return };
    let (bport, seen) = backend();
    let b = format!("127.0.0.1:{bport}");
    // (location, proxy_pass URI part, the request, the path the message must name).
    let cases = [
        ("/api", "/", "/api/v1", "//v1"),
        ("/api", "/", "/api../secret", "/../secret"),
        ("/app/", "/v2", "/app/users", "/v2users"),
        ("/old", "/new/", "/old/v1", "/new//v1"),
        ("/old", "/new/", "/old../secret", "/new/../secret"),
    ];
    let mut body = String::new();
    let mut seen_locations = std::collections::HashSet::new();
    for (loc, uri, _, _) in cases {
        if seen_locations.insert(loc) {
            body.push_str(&format!(
                "        location {loc} {{ proxy_pass http://{b}{uri}; }}\n"
            ));
        }
    }
    body.push_str(&format!(
        "        location /raw/ {{ proxy_pass http://{b}$uri; }}\n"
    ));
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("nginx.conf");
    let port = free_port();
    std::fs::write(&conf, config(dir.path(), port, &body)).unwrap();
    let messages: Vec<String> = findings(&conf).into_iter().map(|(_, m)| m).collect();
    let mut child = Command::new(&nginx)
        .args(["-g", "daemon off; master_process off;", "-p"])
        .arg(format!("{}/", dir.path().display()))
        .arg("-c")
        .arg(&conf)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut failures = Vec::new();
    for (loc, uri, request, sent) in cases {
        let status = get(port, request);
        let got = seen
            .recv_timeout(Duration::from_secs(5))
            .unwrap_or_else(|_| format!("nothing (nginx answered {status})"));
        if got != format!("GET {sent} HTTP/1.0") {
            failures.push(format!(
                "{loc} + {uri}: {request} reached the backend as {got:?}"
            ));
        }
        // "`/api/v1` is sent as `//v1` and `/api../secret` as `/../secret`"
        let named = messages.iter().any(|m| {
            m.contains(&format!("`{request}` is sent as `{sent}`"))
                || m.contains(&format!("`{request}` as `{sent}`"))
        });
        if !named {
            failures.push(format!(
                "{loc} + {uri}: no NGX140 message says `{request}` is sent as `{sent}`: {messages:?}"
            ));
        }
    }
    // `$uri` in the URI part goes out decoded: `%0d%0a` ends the request line early and
    // starts a header of the client's choosing: request splitting, NGX040's warning (NGX140
    // leaves that argument to it).
    let status = get(port, "/raw/a%0d%0aX-Injected:%201");
    let got = seen
        .recv_timeout(Duration::from_secs(5))
        .unwrap_or_else(|_| format!("nothing (nginx answered {status})"));
    if got != "GET /raw/a" {
        failures.push(format!("$uri: the backend's first line was {got:?}"));
    }
    let splitting = findings_of(&conf, "NGX040");
    if !splitting
        .iter()
        .any(|(_, m)| m.contains("line break can reach the request line"))
    {
        failures.push(format!("no NGX040 warning for `$uri`: {splitting:?}"));
    }
    if messages.iter().any(|m| m.contains("line break")) {
        failures.push(format!("NGX140 repeats NGX040's finding: {messages:?}"));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
