//! NGX157's premise against the real nginx: with `proxy_ignore_headers Cache-Control
//! Set-Cookie` and a `proxy_cache_valid` time, an answer the application marks private and
//! that sets a cookie is stored, and a second client receives the first one's page and
//! cookie; with the headers honoured, each client gets its own. lemplint reports the first
//! location and not the second.
//!
//! Without nginx the test is skipped with a note, or fails when `CI=true`.

mod common;

use std::path::Path;

fn config(prefix: &Path, port: u16, backend: u16) -> String {
    format!(
        r#"error_log {p}/error.log;
pid {p}/nginx.pid;
events {{}}
http {{
    access_log off;
{temp}    proxy_cache_path {p}/cache keys_zone=pages:1m;
    server {{
        listen 127.0.0.1:{port};
        location /ignored/ {{
            proxy_pass http://127.0.0.1:{backend};
            proxy_cache pages;
            proxy_cache_valid 200 10m;
            proxy_ignore_headers Cache-Control Set-Cookie;
        }}
        location /honoured/ {{
            proxy_pass http://127.0.0.1:{backend};
            proxy_cache pages;
            proxy_cache_valid 200 10m;
        }}
    }}
    server {{
        listen 127.0.0.1:{backend};
        location / {{
            add_header Cache-Control "private, no-store";
            add_header Set-Cookie "session=$request_id";
            return 200 "page of $request_id";
        }}
    }}
}}
"#,
        p = prefix.display(),
        temp = common::nginx_temp_paths(prefix),
    )
}

/// The body and the `Set-Cookie` header of one GET.
fn get(port: u16, target: &str) -> (String, String) {
    let (status, head, body) = common::http_parts(&common::http_get(port, target));
    assert_eq!(status, "200", "{target}: {head}");
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("Set-Cookie: "))
        .unwrap_or_default()
        .to_string();
    (body, cookie)
}

#[test]
fn ignored_private_headers_share_one_visitors_page() {
    let Some(nginx) = common::required_nginx("tests/cache_binary.rs") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path();
    std::fs::create_dir_all(prefix.join("tmp")).unwrap();
    let (port, backend) = (common::free_port(), common::free_port());
    let conf = prefix.join("nginx.conf");
    let text = config(prefix, port, backend);
    std::fs::write(&conf, &text).unwrap();
    let line = 1 + text
        .lines()
        .position(|l| l.contains("proxy_ignore_headers"))
        .unwrap();

    let report = common::lint_concise(&conf, "NGX157");
    let found: Vec<&str> = report.lines().filter(|l| l.contains("[NGX157]")).collect();
    assert_eq!(found.len(), 1, "{report}");
    assert!(
        found[0].contains(&format!("nginx.conf:{line}:")),
        "{report}"
    );

    let _running = common::start_nginx_on(&nginx, prefix, &conf, &[port, backend]);
    // Ignored: the second client gets the first one's page and session cookie.
    let first = get(port, "/ignored/account");
    let second = get(port, "/ignored/account");
    assert!(first.1.starts_with("session="), "{first:?}");
    assert_eq!(first, second);
    // Honoured: nothing is stored, each client gets its own.
    let first = get(port, "/honoured/account");
    let second = get(port, "/honoured/account");
    assert_ne!(first.0, second.0);
    assert_ne!(first.1, second.1);
}
