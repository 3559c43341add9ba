//! The variable catalogue's claims against a running nginx.
//!
//! nginx serves `return 200` with the variables' values on a localhost port, and raw HTTP
//! requests (std::net::TcpStream, so nothing normalises them on the way) probe each one. For
//! every variable: what a probe made it hold (a CR or LF, a `/`, a `..` segment) must be a
//! danger the catalogue claims — the catalogue is never too optimistic — and every such
//! claim must be shown by some probe — it is never a guess. The host danger cannot be
//! observed in a value; nginx refusing hosts with `/` or `..` (400) is checked instead.
//! The same configuration is then read by lemplint: a location regex capture answers as
//! the decoded `$uri` it comes from, and nginx indeed decodes it.
//!
//! Without nginx the test is skipped with a note, or fails when `CI=true`. Verified with
//! Debian's nginx 1.22.1.

use lemplint::analysis::variables::builtin::lookup;
use lemplint::analysis::variables::{Danger, Dangers, Provenance};
use lemplint::stack::expanded::{Expanded, View};
use lemplint::stack::nginx::{load, LoadOptions};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const VARS: &[&str] = &[
    "uri",
    "document_uri",
    "request_uri",
    "request",
    "args",
    "query_string",
    "arg_a",
    "http_x",
    "cookie_c",
    "remote_user",
    "host",
    "http_host",
];

/// `Basic` credentials whose user name is `../x` CR LF `/y`.
const AUTH: &str = "Li4veA0KL3k6cA==";

fn probes() -> Vec<String> {
    vec![
        format!(
            "GET /a%0d%0ab/c?a=../../x&q=1 HTTP/1.0\r\nHost: Ex.com\r\nX: ../v/w\r\n\
             Cookie: c=../d/e\r\nAuthorization: Basic {AUTH}\r\n\r\n"
        ),
        "GET /p/../q/%2e%2e/r?a=%0d%0a HTTP/1.0\r\nHost: h\r\n\r\n".into(),
        "GET //evil.com/x%2f..%2fy HTTP/1.0\r\nHost: h\r\n\r\n".into(),
    ]
}

fn config(port: u16, prefix: &Path) -> String {
    let body: String = VARS.iter().map(|v| format!("<{v}>${v}</{v}>")).collect();
    format!(
        "pid {p}/nginx.pid;\nerror_log {p}/error.log;\ndaemon off;\nmaster_process off;\n\
         events {{ worker_connections 16; }}\nhttp {{\n access_log off;\n \
         client_body_temp_path {p}/body;\n proxy_temp_path {p}/proxy;\n \
         fastcgi_temp_path {p}/fastcgi;\n uwsgi_temp_path {p}/uwsgi;\n scgi_temp_path {p}/scgi;\n \
         server {{\n  listen 127.0.0.1:{port};\n  \
         location / {{ return 200 \"{body}\"; }}\n  \
         location ~ ^/c/(.*)$ {{ return 200 \"<cap>$1</cap>\"; }}\n }}\n}}\n",
        p = prefix.display()
    )
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn request(port: u16, raw: &str) -> Vec<u8> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(raw.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

fn between<'a>(body: &'a [u8], name: &str) -> &'a [u8] {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let find = |hay: &[u8], pat: &[u8]| hay.windows(pat.len()).position(|w| w == pat);
    let a = find(body, open.as_bytes()).unwrap_or_else(|| panic!("no {open}")) + open.len();
    let b = a + find(&body[a..], close.as_bytes()).unwrap();
    &body[a..b]
}

fn observed(value: &[u8]) -> Dangers {
    let mut d = Dangers::NONE;
    if value.iter().any(|b| *b == b'\r' || *b == b'\n') {
        d = d.with(Danger::CrLf);
    }
    if value.contains(&b'/') {
        d = d.with(Danger::Slash);
    }
    // A `..` segment: between slashes, or at an end (`a=..` counts as text, not a segment).
    if value
        .split(|b| *b == b'/' || *b == b' ' || *b == b'?' || *b == b'&' || *b == b'=')
        .any(|seg| seg == b"..")
    {
        d = d.with(Danger::DotDot);
    }
    d
}

fn start() -> Option<(Server, u16, tempfile::TempDir)> {
    if Command::new("nginx").arg("-v").output().is_err() {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("nginx is required on CI (CI=true) for tests/variables_binary.rs");
        }
        eprintln!("note: nginx not found; skipping (set CI=true to make this an error)");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    // A free port: bind, read it, release it for nginx.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let conf = dir.path().join("nginx.conf");
    std::fs::write(&conf, config(port, dir.path())).unwrap();
    let child = Command::new("nginx")
        .arg("-p")
        .arg(dir.path())
        .arg("-c")
        .arg(&conf)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server(child);
    let t = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(t.elapsed() < Duration::from_secs(10), "nginx did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Some((server, port, dir))
}

#[test]
fn catalogue_claims_hold_against_nginx() {
    let Some((_server, port, dir)) = start() else {
        return;
    };
    let mut seen = vec![Dangers::NONE; VARS.len()];
    for probe in &probes() {
        let resp = request(port, probe);
        assert!(
            resp.starts_with(b"HTTP/1.1 200"),
            "{probe:?}: {:?}",
            String::from_utf8_lossy(&resp)
        );
        for (i, v) in VARS.iter().enumerate() {
            seen[i] = seen[i].union(observed(between(&resp, v)));
        }
    }
    for (i, v) in VARS.iter().enumerate() {
        let claimed = lookup(v).unwrap().dangers.without(Danger::Host);
        assert_eq!(
            seen[i], claimed,
            "${v}: nginx showed {:?}, the catalogue claims {:?}",
            seen[i], claimed
        );
    }

    // Hosts nginx refuses (ngx_http_validate_host): a `/`, two dots in a row. (1.22 still
    // takes a `\`, which recent versions refuse: the catalogue claims only what both do.)
    for host in ["a/b", "a..b", "/..", "a/../b"] {
        let resp = request(port, &format!("GET / HTTP/1.0\r\nHost: {host}\r\n\r\n"));
        assert!(resp.starts_with(b"HTTP/1.1 400"), "Host: {host}");
    }

    // A location regex capture holds the decoded URI, as lemplint answers.
    // `.` takes the CR but not the LF (no `(?s)`), in nginx as in lemplint's PCRE model.
    let resp = request(port, "GET /c/a%0db%2fc HTTP/1.0\r\nHost: h\r\n\r\n");
    assert_eq!(between(&resp, "cap"), b"a\rb/c");
    let resp = request(port, "GET /c/a%0ab HTTP/1.0\r\nHost: h\r\n\r\n");
    assert_eq!(
        between(&resp, "uri"),
        b"/c/a\nb",
        "the regex location did not match"
    );
    let path = dir.path().join("nginx.conf");
    let mut fs = lemplint::stack::fs::DumpFs::default();
    fs.files.insert(path.clone(), std::fs::read(&path).unwrap());
    let config = load(&fs, &path, &LoadOptions::default()).unwrap();
    let expanded = Expanded::build(&config);
    let p = Provenance::new(View {
        config: &config,
        expanded: &expanded,
    });
    let ret: Vec<_> = p.view().named("return").collect();
    let capture = p.argument(ret[1], 1);
    let why = capture.explain(Danger::CrLf).join("\n");
    assert!(why.contains("`location` regex `^/c/(.*)$`"), "{why}");
    assert!(capture.can(Danger::CrLf) && capture.can(Danger::Slash));
    assert!(
        !capture.can(Danger::DotDot),
        "$uri has no `..` segment, nor its captures"
    );
}
