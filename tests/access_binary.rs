//! Differential test: what the access-control and `if` rules claim nginx does, checked
//! against the real nginx on one configuration, and that lemplint reports each case.
//!
//! - NGX110: a location with only `allow 10.0.0.0/8;` still serves 127.0.0.1;
//! - NGX111: `deny all;` with `return 200` still answers 200 (rewrite phase first), and a
//!   `return 204` without text sends no body (nothing to protect);
//! - NGX113: a non-ending `if` makes the location skip its `try_files`; an `if` on
//!   `$sent_http_content_type` never holds (the header does not exist yet);
//! - NGX139: `$2` after a regex with one group is empty;
//! - NGX111 silent: a redirect from a map answered before `auth_basic` sends only its
//!   `Location`; a named location reached through `error_page 401` answers only a client
//!   already refused (status 401 kept); an `internal` location is 404 to a client.
//!
//! Without nginx the test is skipped with a note, or fails when `CI=true`.

mod common;
use common::free_port;

use std::path::Path;
use std::process::Command;

/// One HTTP/1.0 GET: the status and the body.
fn get(port: u16, target: &str) -> (String, String) {
    let (status, _, body) = common::http_parts(&common::http_get(port, target));
    (status, body)
}

/// One HTTP/1.0 GET: the status and the response head.
fn get_head(port: u16, target: &str) -> (String, String) {
    let (status, head, _) = common::http_parts(&common::http_get(port, target));
    (status, head)
}

fn config(prefix: &Path, port: u16, port2: u16) -> String {
    format!(
        r#"error_log {p}/error.log;
pid {p}/nginx.pid;
events {{}}
http {{
    access_log off;
    server_tokens off;
    client_body_temp_path {p}/tmp;
    proxy_temp_path {p}/tmp;
    fastcgi_temp_path {p}/tmp;
    uwsgi_temp_path {p}/tmp;
    scgi_temp_path {p}/tmp;
    server {{
        listen 127.0.0.1:{port};
        root {p}/html;
        location /a/ {{
            allow 10.0.0.0/8;
            return 200 "a";
        }}
        location /b/ {{
            deny all;
            return 200 "b";
        }}
        location /c/ {{
            try_files /exists.txt =404;
            if ($arg_x) {{
                set $seen 1;
            }}
        }}
        location ~ ^/d/(\w+)$ {{
            return 200 "[$1][$2]";
        }}
        location /e/ {{
            try_files /exists.txt =404;
            if ($sent_http_content_type) {{
                return 418;
            }}
        }}
        location /h/ {{
            deny all;
            return 204;
        }}
    }}
    map $uri $redirect {{
        /old https://example.test/new;
        default "";
    }}
    server {{
        listen 127.0.0.1:{port2};
        root {p}/html;
        auth_basic "staff";
        auth_basic_user_file {p}/htpasswd;
        error_page 401 @login;
        if ($redirect) {{
            return 301 $redirect;
        }}
        location / {{
            try_files $uri =404;
        }}
        location @login {{
            return 200 "log in";
        }}
        location /int/ {{
            internal;
            return 200 "int";
        }}
    }}
}}
"#,
        p = prefix.display()
    )
}

#[test]
fn access_and_if_rules_agree_with_nginx() {
    let Some(nginx) = common::required_nginx("tests/access_binary.rs") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path();
    std::fs::create_dir_all(prefix.join("html")).unwrap();
    std::fs::create_dir_all(prefix.join("tmp")).unwrap();
    std::fs::write(prefix.join("html/exists.txt"), "exists").unwrap();
    std::fs::write(prefix.join("htpasswd"), "u:{PLAIN}p\n").unwrap();
    let port = free_port();
    let port2 = free_port();
    let conf = prefix.join("nginx.conf");
    std::fs::write(&conf, config(prefix, port, port2)).unwrap();

    // lemplint's side: each rule reports its case.
    let out = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(["lint", "--isolated", "--format", "concise", "--select"])
        .arg("NGX110,NGX111,NGX113,NGX139")
        .arg(&conf)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    for (line, code) in [
        (16, "NGX110"),
        (21, "NGX111"),
        (25, "NGX113"),
        (30, "NGX139"),
        (34, "NGX113"),
    ] {
        let at = format!("nginx.conf:{line}:");
        assert!(
            report
                .lines()
                .any(|l| l.contains(&at) && l.contains(&format!("[{code}]"))),
            "{code} at line {line} missing:\n{report}"
        );
    }
    // The redirect, the login page, the internal location and the empty 204: NGX111 stays
    // silent.
    assert!(
        !report
            .lines()
            .any(|l| l.contains("[NGX111]") && !l.contains("nginx.conf:21:")),
        "NGX111 beyond line 21:\n{report}"
    );

    // nginx's side.
    let _running = common::start_nginx(&nginx, prefix, &conf, port);
    // NGX110: 127.0.0.1 is not in 10.0.0.0/8, and no rule refuses it.
    assert_eq!(get(port, "/a/"), ("200".to_string(), "a".to_string()));
    // NGX111: the return answers before the access phase's deny.
    assert_eq!(get(port, "/b/"), ("200".to_string(), "b".to_string()));
    // ... but a `return` without text sends no body: the deny protects nothing it skips.
    assert_eq!(get(port, "/h/"), ("204".to_string(), String::new()));
    // NGX113: try_files serves exists.txt, except when the if holds.
    assert_eq!(get(port, "/c/x"), ("200".to_string(), "exists".to_string()));
    assert_eq!(get(port, "/c/x?x=1").0, "404");
    // NGX113: `$sent_http_content_type` is empty when the `if` is tested (the rewrite
    // phase), so the file is served as text/plain and the `if` never returns 418.
    assert_eq!(get(port, "/e/x"), ("200".to_string(), "exists".to_string()));
    // NGX111 silent cases: the redirect carries only the map's target.
    let (status, head) = get_head(port2, "/old");
    assert_eq!(status, "301");
    assert!(
        head.contains("\r\nLocation: https://example.test/new"),
        "{head}"
    );
    // The named location answers only after the access phase refused (401 kept).
    assert_eq!(get(port2, "/x"), ("401".to_string(), "log in".to_string()));
    // A client cannot ask for an internal location.
    assert_eq!(get(port2, "/int/").0, "404");
    // NGX139: the one group is there, the second is empty.
    assert_eq!(
        get(port, "/d/abc"),
        ("200".to_string(), "[abc][]".to_string())
    );
}
