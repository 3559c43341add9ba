//! NGX157's premise against the real nginx: with `proxy_ignore_headers Cache-Control
//! Set-Cookie` and a `proxy_cache_valid` time, an answer the application marks private and
//! that sets a cookie is stored, and a second client receives the first one's page and
//! cookie; with the headers honoured, each client gets its own. lemplint reports the first
//! location and not the second.
//!
//! NGX163: a permanent redirect to `$http_x_forwarded_host` behind that cache is stored with
//! one client's host and sent to the next.
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

/// A private prefix (with nginx's temporary directory) and two free ports.
fn scratch() -> (tempfile::TempDir, u16, u16) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("tmp")).unwrap();
    (tmp, common::free_port(), common::free_port())
}

/// lemplint's one `code` finding on `conf`, which must be on the line of `text` that holds
/// `needle`.
fn only_finding(conf: &Path, text: &str, code: &str, needle: &str) -> String {
    let line = common::line_of(text, needle);
    let report = common::lint_concise(conf, code);
    let found: Vec<&str> = report
        .lines()
        .filter(|l| l.contains(&format!("[{code}]")))
        .collect();
    assert_eq!(found.len(), 1, "{report}");
    assert!(
        found[0].contains(&format!("nginx.conf:{line}:")),
        "{report}"
    );
    found[0].to_string()
}

#[test]
fn ignored_private_headers_share_one_visitors_page() {
    let Some(nginx) = common::required_nginx("tests/cache_binary.rs") else {
        return;
    };
    let (tmp, port, backend) = scratch();
    let prefix = tmp.path();
    let conf = prefix.join("nginx.conf");
    let text = config(prefix, port, backend);
    std::fs::write(&conf, &text).unwrap();
    only_finding(&conf, &text, "NGX157", "proxy_ignore_headers");

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

/// NGX163's cache-poisoning premise: a permanent redirect whose host comes from the
/// client's `X-Forwarded-Host`, behind a cache that keys on the URL (nginx's own
/// `proxy_cache`, the key `$scheme$proxy_host$request_uri`), is stored with the first
/// client's host and sent to the next client, who sent no such header. lemplint reports the
/// `return 301` and not the one to `$host`.
#[test]
fn a_redirect_to_x_forwarded_host_poisons_a_cache_in_front() {
    let Some(nginx) = common::required_nginx("tests/cache_binary.rs") else {
        return;
    };
    let (tmp, port, backend) = scratch();
    let prefix = tmp.path();
    let conf = prefix.join("nginx.conf");
    let text = format!(
        r#"error_log {p}/error.log;
pid {p}/nginx.pid;
events {{}}
http {{
    access_log off;
{temp}    proxy_cache_path {p}/cache keys_zone=pages:1m;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://127.0.0.1:{backend};
            proxy_cache pages;
            proxy_cache_valid 301 10m;
        }}
    }}
    server {{
        listen 127.0.0.1:{backend};
        server_name shop.example;
        location /moved/ {{
            return 301 https://$http_x_forwarded_host$request_uri;
        }}
        location /own/ {{
            return 301 https://$host$request_uri;
        }}
    }}
}}
"#,
        p = prefix.display(),
        temp = common::nginx_temp_paths(prefix),
    );
    std::fs::write(&conf, &text).unwrap();
    let found = only_finding(&conf, &text, "NGX163", "$http_x_forwarded_host");
    assert!(found.contains("cache poisoning"), "{found}");

    let _running = common::start_nginx_on(&nginx, prefix, &conf, &[port, backend]);
    let location = |request: &str| {
        let (status, head, _) = common::http_parts(&common::http_raw(port, request));
        assert_eq!(status, "301", "{head}");
        head.lines()
            .find_map(|l| l.strip_prefix("Location: "))
            .unwrap_or_default()
            .to_string()
    };
    let attacker =
        "GET /moved/login HTTP/1.0\r\nHost: shop.example\r\nX-Forwarded-Host: evil.example\r\n\r\n";
    let visitor = "GET /moved/login HTTP/1.0\r\nHost: shop.example\r\n\r\n";
    assert_eq!(location(attacker), "https://evil.example/moved/login");
    assert_eq!(
        location(visitor),
        "https://evil.example/moved/login",
        "the visitor gets the attacker's stored redirect"
    );
}
