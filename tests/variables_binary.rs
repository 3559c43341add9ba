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
         location ~ ^/c/([^?]*)$ {{ return 200 \"<cap>$1</cap>\"; }}\n  \
         location ~ ^/d/(.*)$ {{ return 200 \"<cap>$1</cap>\"; }}\n  \
         location ~ ^/dots(.*)$ {{ return 200 \"<cap>$1</cap>\"; }}\n  \
         location ~ ^/g/(.*)\\.php$ {{ return 200 \"<cap>$1</cap>\"; }}\n  \
         {ESCAPES}\n }}\n}}\n",
        p = prefix.display()
    )
}

/// Where nginx URL-escapes a capture and where it copies it as it is: each location
/// answers `/X/a%0d%0ab`; the directive that puts the value in the response is the one
/// [`ESCAPE_CASES`] asks lemplint about.
const ESCAPES: &str = "\
    location ~ ^/s/([^/]*)$ { set $p $1; return 200 \"<v>$p</v>\"; }
    location ~ ^/t/([^/]*)$ { rewrite ^/t/([^/]*)$ /u/$1; set $p $1; return 200 \"<v>$p</v>\"; }
    location ~ ^/r/([^/]*)$ { rewrite ^/r/([^/]*)$ http://x/$1 redirect; }
    location ~ ^/n/([^/]*)$ { rewrite ^/n/(?<q>[^/]*)$ http://x/$q redirect; }
    location ~ ^/h/([^/]*)$ { add_header X-A \"<v>$1</v>\"; return 200 ok; }
    location ~ ^/z/([^/]*)$ { return 302 \"http://x/$1\"; }
    location ~ ^/v/(?<v>[^/]*)$ { set $p $v; return 200 \"<v>$p</v>\"; }";

/// (path letter, directive, argument index, the directive's first argument).
const ESCAPE_CASES: &[(&str, &str, usize, &str)] = &[
    ("s", "return", 1, "200"),
    ("t", "return", 1, "200"),
    ("r", "rewrite", 1, "^/r/"),
    ("n", "rewrite", 1, "^/n/"),
    ("h", "add_header", 1, "X-A"),
    ("z", "return", 1, "302"),
    ("v", "return", 1, "200"),
];

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
    // Only an LF splits a header (`Danger::CrLf`).
    if value.contains(&b'\n') {
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
    let resp = request(port, "GET /c/a%0d%0ab%2fc HTTP/1.0\r\nHost: h\r\n\r\n");
    assert_eq!(between(&resp, "cap"), b"a\r\nb/c");
    // `.` takes no LF (no `(?s)`), in nginx as in lemplint's PCRE model.
    let resp = request(port, "GET /d/a%0ab HTTP/1.0\r\nHost: h\r\n\r\n");
    assert_eq!(
        between(&resp, "uri"),
        b"/d/a\nb",
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
    let view = p.view();
    let in_location = |letter: &str, directive: &str, first: &str| {
        let location = view
            .named("location")
            .find(|l| {
                view.arg(*l, 1)
                    .is_some_and(|a| a.starts_with(&format!("^/{letter}/")))
            })
            .unwrap();
        view.named(directive)
            .find(|o| {
                view.expanded.get(*o).parent == location
                    && view.arg(*o, 0).is_some_and(|a| a.starts_with(first))
            })
            .unwrap()
    };
    let capture = p.argument(in_location("c", "return", "200"), 1);
    let why = capture.explain(Danger::CrLf).join("\n");
    assert!(why.contains("`location` regex `^/c/([^?]*)$`"), "{why}");
    assert!(capture.can(Danger::CrLf) && capture.can(Danger::Slash));
    assert!(
        !capture.can(Danger::DotDot),
        "$uri has no `..` segment, nor its captures"
    );
    let dot = p.argument(in_location("d", "return", "200"), 1);
    assert!(!dot.can(Danger::CrLf), "`(.*)` holds no LF");

    // A capture cut inside a segment can be a `..` segment that `$uri` never has.
    for (letter, probe, cap) in [
        ("dots", "/dots..", &b".."[..]),
        ("g", "/g/a/...php", b"a/.."),
    ] {
        let resp = request(port, &format!("GET {probe} HTTP/1.0\r\nHost: h\r\n\r\n"));
        assert_eq!(between(&resp, "cap"), cap, "{probe}");
        let location = view
            .named("location")
            .find(|l| {
                view.arg(*l, 1)
                    .is_some_and(|a| a.starts_with(&format!("^/{letter}")))
            })
            .unwrap();
        let ret = view.expanded.children_named(location, "return")[0];
        assert!(p.argument(ret, 1).can(Danger::DotDot), "{probe}");
    }

    // Escaped or not: nginx's response has the raw line break exactly when lemplint says
    // the argument can hold one.
    for (letter, directive, index, first) in ESCAPE_CASES {
        let resp = request(
            port,
            &format!("GET /{letter}/a%0d%0ab HTTP/1.0\r\nHost: h\r\n\r\n"),
        );
        let raw = resp.windows(4).any(|w| w == b"a\r\nb");
        let escaped = resp.windows(8).any(|w| w == b"a%0D%0Ab");
        assert!(
            raw != escaped,
            "/{letter}/: {:?}",
            String::from_utf8_lossy(&resp)
        );
        let occ = in_location(letter, directive, first);
        let says = p.argument(occ, *index).can(Danger::CrLf);
        assert_eq!(
            says, raw,
            "/{letter}/: nginx copied it raw: {raw}; lemplint says CR/LF: {says}"
        );
    }
}
