//! NGX130's `try_files` guard against the real nginx: with `try_files $uri =404` before
//! `fastcgi_pass $1`, a URI naming a host the client picks is answered 404 and nginx
//! connects nowhere; without it, nginx tries the client's address (502 from a closed
//! port). lemplint is silent on the first location and reports the second.
//!
//! Without nginx the test is skipped with a note, or fails when `CI=true`.

mod common;

#[test]
fn try_files_keeps_client_hosts_from_the_pass() {
    let Some(nginx) = common::required_nginx("tests/ssrf_guard_binary.rs") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path();
    std::fs::create_dir_all(prefix.join("tmp")).unwrap();
    std::fs::create_dir_all(prefix.join("html")).unwrap();
    let (port, closed) = (common::free_port(), common::free_port());
    let text = format!(
        "error_log {p}/error.log;\npid {p}/nginx.pid;\nevents {{}}\nhttp {{\n    access_log off;\n{temp}    server {{\n        listen 127.0.0.1:{port};\n        root {p}/html;\n        location ~ ^/guarded/(.*)$ {{\n            try_files $uri =404;\n            fastcgi_pass $1;\n        }}\n        location ~ ^/open/(.*)$ {{\n            fastcgi_pass $1;\n        }}\n    }}\n}}\n",
        p = prefix.display(),
        temp = common::nginx_temp_paths(prefix),
    );
    let conf = prefix.join("nginx.conf");
    std::fs::write(&conf, &text).unwrap();
    let line_of = |needle: &str| 1 + text.lines().position(|l| l.contains(needle)).unwrap();

    let report = common::lint_concise(&conf, "NGX130");
    let found: Vec<&str> = report.lines().filter(|l| l.contains("[NGX130]")).collect();
    assert_eq!(found.len(), 1, "{report}");
    let open = line_of("location ~ ^/open/") + 1;
    assert!(
        found[0].contains(&format!("nginx.conf:{open}:")),
        "{report}"
    );

    let _running = common::start_nginx(&nginx, prefix, &conf, port);
    let target = |loc: &str| format!("/{loc}/127.0.0.1:{closed}");
    let (status, _, _) = common::http_parts(&common::http_get(port, &target("guarded")));
    assert_eq!(status, "404");
    let (status, _, _) = common::http_parts(&common::http_get(port, &target("open")));
    assert_eq!(status, "502", "nginx connected to the client's address");
}
