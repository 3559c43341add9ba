//! The behaviour NGX156 rests on, shown with the real nginx (and openssl)
//! in private prefixes on 127.0.0.1 (issue #39):
//!
//! * NGX156: `auth_basic` on a plain-HTTP listener answers 401 with `WWW-Authenticate: Basic`,
//!   and the retry that nginx accepts carries `user:password` as base64 only, readable by
//!   anyone on the path (nginx.org, ngx_http_auth_basic_module; RFC 7617, section 4);
//!
//! (NGX179, NGX182 and NGX184 are shown by `tests/hardening_binary/`.)
//!
//! Where it is cheap, lemplint's report of the very configuration the test ran is checked
//! too. Without nginx or openssl the tests say they were skipped, and fail under `CI=true`.

mod common;

use common::{free_port, http_parts, http_raw};
use std::path::{Path, PathBuf};

const FILE: &str = "tests/premise_nginx_binary.rs";

/// `openssl` for these tests: (success, all its output); `None` skips (see
/// [`common::openssl`]).
fn openssl(args: &[&str], stdin: Option<&Path>) -> Option<(bool, String)> {
    common::openssl(FILE, args, stdin)
}

#[test]
fn basic_auth_over_plain_http_sends_the_password_as_base64() {
    let Some(nginx) = common::required_nginx(FILE) else {
        return;
    };
    let tmp = common::nginx_prefix(&["www"]);
    let p = tmp.path();
    std::fs::write(p.join("www/index.html"), "the statistics\n").unwrap();
    let Some((ok, hash)) = openssl(&["passwd", "-apr1", "hunter2"], None) else {
        return;
    };
    assert!(ok, "openssl passwd: {hash}");
    std::fs::write(p.join("htpasswd"), format!("admin:{}", hash.trim())).unwrap();
    let port = free_port();
    let listen = format!("listen 127.0.0.1:{port};");
    let conf = format!(
        "{}    server {{\n        {listen}\n        root {p}/www;\n        \
         auth_basic \"Statistics\";\n        auth_basic_user_file {p}/htpasswd;\n        \
         add_header X-Remote-User \"$remote_user\" always;\n    }}\n}}\n",
        common::nginx_head(p),
        p = p.display()
    );
    let path = p.join("nginx.conf");
    std::fs::write(&path, &conf).unwrap();
    let _nginx = common::start_nginx(&nginx, p, &path, port);

    let get = |auth: Option<&str>| {
        let header = auth.map_or(String::new(), |a| format!("Authorization: Basic {a}\r\n"));
        http_parts(&http_raw(
            port,
            &format!("GET / HTTP/1.0\r\nHost: t\r\n{header}\r\n"),
        ))
    };
    // The challenge: plain HTTP, the Basic scheme.
    let (status, head, _) = get(None);
    assert_eq!(status, "401", "{head}");
    assert!(
        head.contains("WWW-Authenticate: Basic realm=\"Statistics\""),
        "{head}"
    );
    // The browser's retry: base64 of user:password, which any reader of the connection
    // decodes with no key (openssl here, as anyone would).
    let Some((ok, encoded)) = openssl(&["base64", "-A"], Some(&write(p, "cred", "admin:hunter2")))
    else {
        return;
    };
    assert!(ok, "{encoded}");
    let encoded = encoded.trim().to_string();
    let Some((ok, decoded)) = openssl(&["base64", "-d", "-A"], Some(&write(p, "wire", &encoded)))
    else {
        return;
    };
    assert!(ok && decoded == "admin:hunter2", "{decoded}");
    let (status, head, body) = get(Some(&encoded));
    assert_eq!(
        (status.as_str(), body.as_str()),
        ("200", "the statistics\n")
    );
    assert!(head.contains("X-Remote-User: admin"), "{head}");
    // The password is what nginx checks: a wrong one is refused.
    let (status, _, _) = get(Some("YWRtaW46d3Jvbmc=")); // admin:wrong
    assert_eq!(status, "401");

    // The rule leaves a loopback listener alone (nothing crosses a network) and reports the
    // same server on port 80 (information: no TLS server in this configuration).
    assert!(!common::lint_concise(&path, "NGX156").contains("NGX156"));
    let public = p.join("public.conf");
    std::fs::write(&public, conf.replace(&listen, "listen 80;")).unwrap();
    let text = common::lint_concise(&public, "NGX156");
    let line = common::line_of(&conf, "auth_basic \"");
    assert!(
        text.contains(&format!("public.conf:{line}:")) && text.contains("NGX156"),
        "{text}"
    );
}

/// Writes `text` to `dir/name`; the path.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}
