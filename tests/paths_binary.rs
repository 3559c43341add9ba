//! Differential test of the path rules against the real nginx: what NGX100
//! (alias-path-traversal) and NGX102 (secret-file-exposed) claim a request reads, nginx
//! really serves — and where they stay silent, nginx refuses.
//!
//! One configuration, two servers on free ports of 127.0.0.1, files in a temporary
//! prefix: the first server has `location /static` over `alias …/static/` and an empty
//! `location ~ /\.git { }`; the second writes the same with matching slashes and denies
//! hidden files. lemplint (the built binary) lints the file; nginx serves it and answers
//! the URIs the findings name.
//!
//! Without nginx the test is skipped with a note, or fails when `CI=true`.

mod common;
use common::free_port;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn nginx_binary() -> Option<PathBuf> {
    common::required_nginx("tests/paths_binary.rs")
}

/// One raw HTTP/1.0 request: the status and the body.
fn get(port: u16, target: &str) -> (String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to nginx");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {target} HTTP/1.0\r\nHost: t\r\n\r\n").unwrap();
    let mut resp = Vec::new();
    s.read_to_end(&mut resp).expect("read the answer");
    let text = String::from_utf8_lossy(&resp).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).unwrap_or("?").to_string();
    (status, body.to_string())
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn path_findings_are_what_nginx_serves() {
    let Some(nginx) = nginx_binary() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path();
    let p = |s: &str| prefix.join(s).display().to_string();
    write(&prefix.join("srv/secret.txt"), "PARENT-SECRET");
    write(&prefix.join("srv/static/a.txt"), "STATIC");
    write(&prefix.join("site/.git/config"), "GIT-CONFIG");
    write(&prefix.join("site/.env"), "DB_PASSWORD=x");
    let (open, closed) = (free_port(), free_port());
    let conf = format!(
        "worker_processes 1;\npid {pid};\nerror_log {log};\nevents {{ worker_connections 64; }}\n\
         http {{\n    access_log off;\n    client_body_temp_path {tmp}/b;\n    proxy_temp_path {tmp}/p;\n    \
         fastcgi_temp_path {tmp}/f;\n    uwsgi_temp_path {tmp}/u;\n    scgi_temp_path {tmp}/s;\n\
         \n    server {{\n        listen 127.0.0.1:{open};\n        root {site};\n        \
         location /static {{\n            alias {srv}/static/;\n        }}\n        \
         location ~ /\\.git {{\n        }}\n    }}\n\
         \n    server {{\n        listen 127.0.0.1:{closed};\n        root {site};\n        \
         location ~ /\\.(?!well-known) {{\n            deny all;\n        }}\n        \
         location /static/ {{\n            alias {srv}/static/;\n        }}\n    }}\n}}\n",
        pid = p("nginx.pid"),
        log = p("error.log"),
        tmp = p("tmp"),
        site = p("site"),
        srv = p("srv"),
    );
    let conf_path = prefix.join("nginx.conf");
    std::fs::write(&conf_path, &conf).unwrap();
    std::fs::create_dir_all(prefix.join("tmp")).unwrap();

    // lemplint's findings, as `file:line:col: severity[CODE] message`.
    let out = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(["lint", "--select", "NGX100,NGX102", "--format", "concise"])
        .arg(&conf_path)
        .output()
        .unwrap();
    let findings = String::from_utf8_lossy(&out.stdout).into_owned();
    let line_of = |needle: &str| {
        conf.lines()
            .position(|l| l.contains(needle))
            .map(|i| i + 1)
            .unwrap()
    };
    let at = |code: &str, line: usize| {
        findings
            .lines()
            .filter(|f| f.contains(&format!("[{code}]")))
            .any(|f| f.contains(&format!("nginx.conf:{line}:")))
    };
    let alias_line = line_of(&format!("alias {}/static/;", p("srv")));
    let git_line = line_of("location ~ /\\.git {");
    assert!(at("NGX100", alias_line), "NGX100 on the alias:\n{findings}");
    assert!(
        at("NGX102", git_line),
        "NGX102 on `location ~ /\\.git`:\n{findings}"
    );
    assert_eq!(
        findings.lines().filter(|f| f.contains("[NGX10")).count(),
        2,
        "nothing about the second server:\n{findings}"
    );
    assert!(findings.contains("`/static../`"), "{findings}");
    assert!(findings.contains("`/.git/config`") && findings.contains("`/.env`"));

    let _nginx = common::start_nginx_on(&nginx, prefix, &conf_path, &[open, closed]);
    // What the findings say is read, is.
    assert_eq!(
        get(open, "/static../secret.txt"),
        ("200".into(), "PARENT-SECRET".into())
    );
    assert_eq!(
        get(open, "/.git/config"),
        ("200".into(), "GIT-CONFIG".into())
    );
    assert_eq!(get(open, "/.env"), ("200".into(), "DB_PASSWORD=x".into()));
    // Where lemplint is silent, nginx serves none of it (and the files still are served).
    assert_eq!(get(closed, "/static../secret.txt").0, "404");
    assert_eq!(
        get(closed, "/static/a.txt"),
        ("200".into(), "STATIC".into())
    );
    assert_eq!(get(closed, "/.git/config").0, "403");
    assert_eq!(get(closed, "/.env").0, "403");
}
