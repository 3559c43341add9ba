//! Differential test for NGX116 (header-lost-by-inheritance): what the rule claims about the
//! responses a level answers with, checked against the real nginx on one configuration.
//!
//! - a static location matched by asset extensions does drop the server's `add_header`
//!   list, and nginx types its file by the extension (`types`): the finding is information,
//!   not a warning;
//! - the static module refuses `OPTIONS` with 405 and without the server's CORS preflight
//!   headers: `Access-Control-Allow-Methods` lost there is not reported;
//! - a location with its own `proxy_set_header` still sends `Host $proxy_host` and
//!   `Connection close` (nginx's defaults): dropping those entries is not reported;
//! - a request `try_files` hands to another URI is answered with that location's headers:
//!   the server's list comes back, the first location's own `Cache-Control` is what is lost.
//!
//! Without nginx the test is skipped with a note, or fails when `CI=true`.

mod common;
use common::free_port;

use std::path::Path;
use std::process::Command;

/// One HTTP/1.0 request: the head (status line and headers) and the body.
fn request(port: u16, method: &str, target: &str) -> (String, String) {
    let response = common::http_raw(
        port,
        &format!(
            "{method} {target} HTTP/1.0\r\nHost: t\r\nOrigin: https://app.test\r\n\
             Access-Control-Request-Method: POST\r\n\r\n"
        ),
    );
    let (_, head, body) = common::http_parts(&response);
    (head.to_ascii_lowercase(), body)
}

fn config(prefix: &Path, port: u16, upstream: u16) -> String {
    format!(
        r#"error_log {p}/error.log;
pid {p}/nginx.pid;
events {{}}
http {{
    access_log off;
    client_body_temp_path {p}/tmp;
    proxy_temp_path {p}/tmp;
    fastcgi_temp_path {p}/tmp;
    uwsgi_temp_path {p}/tmp;
    scgi_temp_path {p}/tmp;
    types {{
        font/woff2 woff2;
        application/javascript js;
    }}
    server {{
        listen 127.0.0.1:{port};
        root {p}/html;
        add_header X-Frame-Options DENY always;
        add_header Access-Control-Allow-Methods "GET, POST" always;
        proxy_set_header Host $proxy_host;
        proxy_set_header Connection close;
        location ~* \.(?:woff2?|js)$ {{
            add_header Access-Control-Allow-Origin "*" always;
        }}
        location /p/ {{
            proxy_set_header X-Extra 1;
            proxy_pass http://127.0.0.1:{upstream}/;
        }}
        location / {{
            add_header Cache-Control "no-store";
            try_files $uri /front.php?$args;
        }}
        location = /front.php {{
            return 200 "front";
        }}
    }}
    server {{
        listen 127.0.0.1:{upstream};
        location / {{
            return 200 "host=$http_host connection=$http_connection extra=$http_x_extra";
        }}
    }}
}}
"#,
        p = prefix.display()
    )
}

#[test]
fn lost_headers_are_judged_by_what_nginx_answers() {
    let Some(nginx) = common::required_nginx("tests/header_inheritance_binary.rs") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path();
    std::fs::create_dir_all(prefix.join("html")).unwrap();
    std::fs::create_dir_all(prefix.join("tmp")).unwrap();
    std::fs::write(prefix.join("html/font.woff2"), "w").unwrap();
    std::fs::write(prefix.join("html/app.js"), "j").unwrap();
    let port = free_port();
    let upstream = free_port();
    let conf = prefix.join("nginx.conf");
    std::fs::write(&conf, config(prefix, port, upstream)).unwrap();

    // lemplint's side: one finding, at the asset location, as information; nothing at the
    // proxy location (only nginx's default entries are dropped there).
    let out = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args([
            "lint",
            "--isolated",
            "--format",
            "json",
            "--select",
            "NGX116",
        ])
        .arg(&conf)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
    let found: Vec<(u64, String, String)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["line"].as_u64().unwrap(),
                d["severity"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    let (line, severity, message) = &found[0];
    assert_eq!((*line, severity.as_str()), (23, "info"), "{message}");
    assert!(message.contains("X-Frame-Options"), "{message}");
    assert!(
        !message.contains("Access-Control-Allow-Methods"),
        "{message}"
    );
    // `location /`: the files it serves lose the server's list; what its try_files hands to
    // /front.php loses its own Cache-Control instead.
    let (line, severity, message) = &found[1];
    assert_eq!((*line, severity.as_str()), (30, "warning"), "{message}");
    assert!(
        message.contains("hands to `/front.php`") && message.contains("without `Cache-Control`"),
        "{message}"
    );

    // nginx's side.
    let _running = common::start_nginx(&nginx, prefix, &conf, port);
    // The asset location's own list replaces the server's, and the file is typed by its
    // extension.
    let (head, _) = request(port, "GET", "/font.woff2");
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("\r\ncontent-type: font/woff2"), "{head}");
    assert!(
        head.contains("\r\naccess-control-allow-origin: *"),
        "{head}"
    );
    assert!(!head.contains("x-frame-options"), "{head}");
    // A preflight to a static file: 405, and the server's Allow-Methods is not what answers.
    let (head, _) = request(port, "OPTIONS", "/app.js");
    assert!(head.starts_with("http/1.1 405"), "{head}");
    assert!(!head.contains("access-control-allow-methods"), "{head}");
    // A file `location /` serves itself: its own list only.
    std::fs::write(prefix.join("html/page.html"), "page").unwrap();
    let (head, body) = request(port, "GET", "/page.html");
    assert_eq!(body, "page");
    assert!(head.contains("\r\ncache-control: no-store"), "{head}");
    assert!(!head.contains("x-frame-options"), "{head}");
    // A request its try_files hands on: the front location's (the server's) list, without
    // `location /`'s Cache-Control.
    let (head, body) = request(port, "GET", "/some/route");
    assert_eq!(body, "front");
    assert!(head.contains("\r\nx-frame-options: deny"), "{head}");
    assert!(!head.contains("cache-control"), "{head}");
    // The proxy location's own list still carries nginx's Host and Connection defaults.
    let (head, body) = request(port, "GET", "/p/");
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert_eq!(
        body,
        format!("host=127.0.0.1:{upstream} connection=close extra=1")
    );
}

/// The CORS recipe's branches (`fixtures/nginx/NGX116/trusted_origin.conf`'s `/api/`): nginx
/// drops the server's `X-Frame-Options` only for a request whose `Origin` the regex trusts;
/// without an `Origin` (what a framed page's request sends) or with another site's, the
/// server's list is what answers. lemplint reports the branch as information.
#[test]
fn a_trusted_origin_branch_drops_headers_only_for_trusted_origins() {
    let Some(nginx) = common::required_nginx("tests/header_inheritance_binary.rs") else {
        return;
    };
    let tmp = common::nginx_prefix(&[]);
    let p = tmp.path();
    let port = free_port();
    let conf = p.join("nginx.conf");
    std::fs::write(
        &conf,
        format!(
            r#"{head}    server {{
        listen 127.0.0.1:{port};
        add_header X-Frame-Options DENY always;
        location /api/ {{
            set $cors "";
            if ($http_origin ~* ^https://(www\.)?example\.com$) {{
                set $cors "true";
            }}
            if ($request_method = OPTIONS) {{
                set $cors "${{cors}}options";
            }}
            if ($cors = "true") {{
                add_header Access-Control-Allow-Origin $http_origin always;
            }}
            if ($cors = "trueoptions") {{
                add_header Access-Control-Allow-Origin $http_origin always;
                return 204;
            }}
            return 200 "api";
        }}
    }}
}}
"#,
            head = common::nginx_head(p)
        ),
    )
    .unwrap();
    let text = common::lint_concise(&conf, "NGX116");
    assert_eq!(text.matches("info[NGX116]").count(), 2, "{text}");
    assert!(!text.contains("warning[NGX116]"), "{text}");

    let _running = common::start_nginx(&nginx, p, &conf, port);
    let get = |method: &str, origin: Option<&str>| {
        let origin = origin
            .map(|o| format!("Origin: {o}\r\n"))
            .unwrap_or_default();
        let response = common::http_raw(
            port,
            &format!("{method} /api/ HTTP/1.0\r\nHost: t\r\n{origin}\r\n"),
        );
        let (_, head, _) = common::http_parts(&response);
        head.to_ascii_lowercase()
    };
    let trusted = get("GET", Some("https://www.example.com"));
    assert!(
        trusted.contains("access-control-allow-origin: https://www.example.com"),
        "{trusted}"
    );
    assert!(!trusted.contains("x-frame-options"), "{trusted}");
    let preflight = get("OPTIONS", Some("https://example.com"));
    assert!(preflight.starts_with("http/1.1 204"), "{preflight}");
    assert!(!preflight.contains("x-frame-options"), "{preflight}");
    for origin in [None, Some("https://attacker.example"), Some("null")] {
        for method in ["GET", "POST", "OPTIONS"] {
            let head = get(method, origin);
            assert!(
                head.contains("x-frame-options: deny"),
                "{method} {origin:?}: {head}"
            );
            assert!(!head.contains("access-control-allow-origin"), "{head}");
        }
    }
}
