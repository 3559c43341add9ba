//! NGX040 against the real nginx: a backend server that listens only on a unix socket and is
//! reached through a front server proxying to it, both with `rewrite /wp-admin$ … $uri/
//! permanent`. The front's rewrite answers the injecting request itself (with the injected
//! header: the true finding, a warning), so the backend never sees it; the backend's
//! finding is info. Without nginx the test is skipped with a note, or fails when `CI=true`.

mod common;
use common::free_port;

use std::process::Command;

use common::http_get as get;

#[test]
fn front_server_answers_the_backends_injection_first() {
    let Some(nginx) = common::required_nginx("tests/crlf_backend_binary.rs") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    std::fs::create_dir_all(p.join("tmp")).unwrap();
    let port = free_port();
    let conf = p.join("nginx.conf");
    let d = p.display();
    std::fs::write(
        &conf,
        format!(
            r#"error_log {d}/error.log;
pid {d}/nginx.pid;
events {{}}
http {{
    access_log off;
    client_body_temp_path {d}/tmp;
    proxy_temp_path {d}/tmp;
    fastcgi_temp_path {d}/tmp;
    uwsgi_temp_path {d}/tmp;
    scgi_temp_path {d}/tmp;
    upstream backend {{
        server unix:{d}/backend.sock;
    }}
    server {{
        listen 127.0.0.1:{port};
        rewrite /wp-admin$ $scheme://$host$uri/ permanent;
        location / {{
            proxy_pass http://backend;
        }}
    }}
    server {{
        listen unix:{d}/backend.sock;
        rewrite /wp-admin$ $uri/ permanent;
        location / {{
            return 200 "backend $uri";
        }}
    }}
}}
"#
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
            "NGX040",
        ])
        .arg(&conf)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report
            .lines()
            .any(|l| l.contains("nginx.conf:16:") && l.contains("warning[NGX040]")),
        "the front's rewrite is a warning:\n{report}"
    );
    assert!(
        report.lines().any(|l| l.contains("nginx.conf:23:")
            && l.contains("info[NGX040]")
            && l.contains("answers them first")),
        "the backend's rewrite is info, saying why:\n{report}"
    );

    let _running = common::start_nginx(&nginx, p, &conf, port);
    // Everything else reaches the backend through the socket.
    assert!(get(port, "/x").ends_with("backend /x"));
    // The injecting request: the front answers it, with the injected header (its finding
    // is true), and the backend never runs its own rewrite for it.
    let resp = get(port, "/%0d%0aSet-Cookie:%20a=b/wp-admin");
    let head = resp.split("\r\n\r\n").next().unwrap_or_default();
    assert!(head.starts_with("HTTP/1.1 301"), "{resp}");
    assert!(head.contains("\r\nSet-Cookie: a=b/wp-admin/"), "{resp}");
    assert!(!resp.contains("backend"), "{resp}");
}
