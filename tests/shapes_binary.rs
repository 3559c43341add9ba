//! Shapes of findings checked against the real nginx.
//!
//! NGX141: a `proxy_pass` whose address has a variable anywhere (here
//! only in the URI part) is not resolved when nginx reads its configuration (`nginx -t`
//! passes with a name that does not exist), while a fixed address is (`host not found in
//! upstream`). lemplint reports the fixed one and not the other.
//!
//! NGX134: `if ($1)` is refused when nginx reads the file (`unknown "1" variable`), while a
//! capture in an `=` operand or a `-f` path, and `$1` inside a `~` pattern, are accepted.
//!
//! Without nginx the tests are skipped with a note, or fail when `CI=true`.

mod common;

use std::process::Command;

fn conf(dir: &std::path::Path, target: &str) -> std::path::PathBuf {
    let d = dir.display();
    let path = dir.join(format!("nginx{}.conf", target.len()));
    std::fs::write(
        &path,
        format!(
            "error_log {d}/error.log;\npid {d}/nginx.pid;\nevents {{}}\nhttp {{\n    \
             access_log off;\n    resolver 127.0.0.1;\n    server {{\n        \
             listen 127.0.0.1:8;\n        location / {{\n            \
             proxy_pass {target};\n        }}\n    }}\n}}\n"
        ),
    )
    .unwrap();
    path
}

fn lemplint_ngx141(conf: &std::path::Path) -> bool {
    let out = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args([
            "lint",
            "--isolated",
            "--format",
            "concise",
            "--select",
            "NGX141",
        ])
        .arg(conf)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).contains("[NGX141]")
}

fn nginx() -> Option<std::path::PathBuf> {
    common::required_nginx("tests/shapes_binary.rs")
}

#[test]
fn capture_if_shapes_nginx_accepts() {
    let Some(nginx) = nginx() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().display();
    let check = |cond: &str| {
        let c = tmp.path().join("if.conf");
        std::fs::write(
            &c,
            format!(
                "error_log {d}/error.log;\npid {d}/nginx.pid;\nevents {{}}\nhttp {{\n    \
                 access_log off;\n    server {{\n        listen 127.0.0.1:8;\n        \
                 location ~ ^/(.*)$ {{\n            if ({cond}) {{\n                \
                 return 403;\n            }}\n        }}\n    }}\n}}\n"
            ),
        )
        .unwrap();
        let out = Command::new(&nginx)
            .arg("-p")
            .arg(tmp.path())
            .arg("-c")
            .arg(&c)
            .arg("-t")
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, err) = check("$1");
    assert!(!ok && err.contains("unknown \"1\" variable"), "{err}");
    for accepted in [
        "$arg_user = $1",
        "!-f $document_root/$1",
        "$request_uri ~ ^/a$1",
    ] {
        let (ok, err) = check(accepted);
        assert!(ok, "`if ({accepted})`: {err}");
    }
}

#[test]
fn variable_address_is_resolved_per_request() {
    let Some(nginx) = nginx() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let test = |c: &std::path::Path| {
        Command::new(&nginx)
            .arg("-p")
            .arg(tmp.path())
            .arg("-c")
            .arg(c)
            .arg("-t")
            .output()
            .unwrap()
    };
    let fixed = conf(tmp.path(), "http://nonexistent.invalid/");
    let out = test(&fixed);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("host not found in upstream"));
    assert!(lemplint_ngx141(&fixed), "the fixed address is reported");

    let variable = conf(tmp.path(), "http://nonexistent.invalid$request_uri");
    let out = test(&variable);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!lemplint_ngx141(&variable), "the variable address is not");
}

/// NGX130: a variable host whose every value starts with `/` gives nginx no host: it
/// answers 500 (`no host in upstream`) and connects nowhere, so lemplint stays silent.
#[test]
fn path_only_variable_host_connects_nowhere() {
    use std::io::{Read, Write};
    let Some(nginx) = nginx() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().display();
    std::fs::create_dir_all(tmp.path().join("tmp")).unwrap();
    let port = common::free_port();
    let c = tmp.path().join("map.conf");
    std::fs::write(
        &c,
        format!(
            "error_log {d}/error.log;\npid {d}/nginx.pid;\nevents {{}}\nhttp {{\n    \
             access_log off;\n    proxy_temp_path {d}/tmp;\n    client_body_temp_path {d}/tmp;\n    \
             resolver 127.0.0.1;\n    map $arg_v $path {{\n        default /index;\n        \
             ~^(?<rest>.*)$ /$rest;\n    }}\n    server {{\n        listen 127.0.0.1:{port};\n        \
             location / {{\n            proxy_pass http://$path;\n        }}\n    }}\n}}\n"
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args([
            "lint",
            "--isolated",
            "--format",
            "concise",
            "--select",
            "NGX130",
        ])
        .arg(&c)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(!report.contains("[NGX130]"), "{report}");
    let mut child = Command::new(&nginx)
        .arg("-p")
        .arg(tmp.path())
        .arg("-c")
        .arg(&c)
        .args(["-g", "daemon off; master_process off;"])
        .spawn()
        .expect("start nginx");
    let start = std::time::Instant::now();
    let mut s = loop {
        match std::net::TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => break s,
            Err(_) if start.elapsed() < std::time::Duration::from_secs(10) => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            Err(e) => panic!("nginx did not start: {e}"),
        }
    };
    s.write_all(b"GET /?v=evil.example HTTP/1.0\r\nHost: t\r\n\r\n")
        .unwrap();
    let mut resp = String::new();
    let _ = s.read_to_string(&mut resp);
    let _ = child.kill();
    let _ = child.wait();
    assert!(resp.starts_with("HTTP/1.1 500"), "{resp}");
    let log = std::fs::read_to_string(tmp.path().join("error.log")).unwrap_or_default();
    assert!(
        log.contains("no host in upstream \"/evil.example\""),
        "{log}"
    );
}
