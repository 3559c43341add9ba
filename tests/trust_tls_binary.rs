//! What the client-trust, upstream-TLS, typo and DH rules (NGX176–NGX183) claim nginx,
//! php-fpm and OpenSSL do, checked against the real programs, and that lemplint reports the
//! same configuration:
//!
//! - NGX176: `set_real_ip_from 0.0.0.0/0` with `real_ip_header X-Forwarded-For` lets a
//!   request from 127.0.0.1 through `allow 10.0.0.0/8; deny all;` by sending
//!   `X-Forwarded-For: 10.0.0.1`; with only a proxy's range trusted the header is ignored;
//! - NGX177: `fastcgi_param REMOTE_ADDR $http_x_forwarded_for` makes PHP's
//!   `$_SERVER['REMOTE_ADDR']` whatever the client sent;
//! - NGX178: `proxy_pass https://` accepts a self-signed certificate for another name
//!   (`proxy_ssl_verify` off by default) and refuses it with `proxy_ssl_verify on`;
//! - NGX180: a relative `try_files` fallback is looked up at `root` joined without a slash
//!   and reaches a `\.php$` location as `index.php`; `= 404` serves the file `<root>=`;
//! - NGX181: `nginx -t` warns "server name … has suspicious symbols" and the merged `root`
//!   is not set;
//! - NGX183: the prime sizes `tls::dhparam` reads agree with `openssl dhparam -text`, the
//!   RFC 5114 prime is OpenSSL's `dh_1024_160`, and nginx refuses a 512-bit group.
//!
//! Without nginx, php-fpm8.2 or openssl the tests are skipped with a note, or fail when
//! `CI=true`.

mod common;
use common::free_port;
use common::line_of;
use common::nginx_head as head;

/// A fresh private prefix for nginx.
fn prefix() -> tempfile::TempDir {
    common::nginx_prefix(&["html"])
}

use std::path::Path;

/// lemplint's concise report of `conf` with only `codes` selected: (line, code) pairs.
fn lint(conf: &Path, codes: &str) -> Vec<(usize, String)> {
    let report = common::lint_concise(conf, codes);
    report
        .lines()
        .filter_map(|l| {
            let (_, after) = l.split_once("nginx.conf:")?;
            let line = after.split(':').next()?.parse().ok()?;
            let code = l.split_once("[")?.1.split(']').next()?.to_string();
            Some((line, code))
        })
        .collect()
}

fn get(port: u16, target: &str, extra: &str) -> (String, String) {
    let (status, _, body) = common::http_parts(&common::http_raw(
        port,
        &format!("GET {target} HTTP/1.0\r\nHost: t\r\n{extra}\r\n"),
    ));
    (status, body)
}

#[test]
fn realip_trusting_everyone_lets_a_header_through_allow_lists() {
    let Some(nginx) = common::required_nginx("tests/trust_tls_binary.rs") else {
        return;
    };
    let tmp = prefix();
    let p = tmp.path();
    std::fs::create_dir_all(p.join("html/admin")).unwrap();
    std::fs::write(p.join("html/admin/index.html"), "secret").unwrap();
    let (everyone, proxies) = (free_port(), free_port());
    let text = format!(
        "{head}    root {p}/html;\n    server {{\n        listen {everyone};\n        \
         set_real_ip_from 0.0.0.0/0;\n        real_ip_header X-Forwarded-For;\n        \
         location /admin/ {{ allow 10.0.0.0/8; deny all; }}\n    }}\n    server {{\n        \
         listen {proxies};\n        set_real_ip_from 192.0.2.0/24;\n        \
         real_ip_header X-Forwarded-For;\n        \
         location /admin/ {{ allow 10.0.0.0/8; deny all; }}\n    }}\n}}\n",
        head = head(p),
        p = p.display()
    );
    // `listen <port>` is every address: the servers are reachable from anywhere, as the
    // rule assumes; the test talks to them over loopback.
    let conf = p.join("nginx.conf");
    std::fs::write(&conf, &text).unwrap();

    let _running = common::start_nginx_on(&nginx, p, &conf, &[everyone, proxies]);
    let spoof = "X-Forwarded-For: 10.0.0.1\r\n";
    assert_eq!(get(everyone, "/admin/", "").0, "403");
    assert_eq!(
        get(everyone, "/admin/", spoof),
        ("200".to_string(), "secret".to_string()),
        "the header chose the client address"
    );
    // Only the proxies' range trusted: a client's header changes nothing.
    assert_eq!(get(proxies, "/admin/", spoof).0, "403");

    let found = lint(&conf, "NGX176");
    assert_eq!(
        found,
        [(line_of(&text, "0.0.0.0/0"), "NGX176".to_string())],
        "NGX176 reports the server that trusts everyone, and only it"
    );
}

#[test]
fn a_relative_try_files_fallback_is_not_the_uri_it_names() {
    let Some(nginx) = common::required_nginx("tests/trust_tls_binary.rs") else {
        return;
    };
    let tmp = prefix();
    let p = tmp.path();
    std::fs::write(p.join("html/index.html"), "index").unwrap();
    // `=` as a file name, joined to `root` without a slash like any try_files argument
    // that does not start with `/`.
    std::fs::write(p.join("html="), "a file named =").unwrap();
    let port = free_port();
    let text = format!(
        "{head}    server {{\n        listen 127.0.0.1:{port};\n        root {p}/html/;\n        \
         location /static/ {{ try_files $uri index.html; }}\n        \
         location /app/ {{ try_files $uri index.php?$args; }}\n        \
         location /files/ {{ try_files $uri = 404; }}\n        \
         location ~ \\.php$ {{ return 200 \"php $uri\"; }}\n    }}\n}}\n",
        head = head(p),
        p = p.display()
    );
    let conf = p.join("nginx.conf");
    std::fs::write(&conf, &text).unwrap();
    let _running = common::start_nginx(&nginx, p, &conf, port);

    // `index.html` exists, but the fallback is looked up at `root` + `index.html` without a
    // slash (nginx strips the `/` that ends `root`).
    assert_eq!(get(port, "/static/x", "").0, "404");
    let log = std::fs::read_to_string(p.join("error.log")).unwrap();
    assert!(log.contains("htmlindex.html\" failed"), "{log}");
    // A regex location sees the relative URI.
    assert_eq!(
        get(port, "/app/x", ""),
        ("200".to_string(), "php index.php".to_string())
    );
    // `= 404`: `<root>=` is tried as a file (and served).
    assert_eq!(
        get(port, "/files/x", ""),
        ("200".to_string(), "a file named =".to_string())
    );

    let found = lint(&conf, "NGX180");
    let want: Vec<(usize, String)> = ["index.html;", "index.php?", "= 404"]
        .iter()
        .map(|n| (line_of(&text, n), "NGX180".to_string()))
        .collect();
    assert_eq!(found, want);
}

#[test]
fn a_missing_semicolon_in_server_name_is_what_nginx_warns_about() {
    let Some(nginx) = common::required_nginx("tests/trust_tls_binary.rs") else {
        return;
    };
    let tmp = prefix();
    let p = tmp.path();
    std::fs::create_dir_all(p.join("srv")).unwrap();
    std::fs::write(p.join("srv/index.html"), "meant").unwrap();
    std::fs::write(p.join("html/index.html"), "default root").unwrap();
    let port = free_port();
    let text = format!(
        "{head}    root {p}/html;\n    server {{\n        listen 127.0.0.1:{port};\n        \
         server_name t root {p}/srv;\n    }}\n}}\n",
        head = head(p),
        p = p.display()
    );
    let conf = p.join("nginx.conf");
    std::fs::write(&conf, &text).unwrap();
    let t = common::nginx_test(&nginx, p);
    let stderr = String::from_utf8_lossy(&t.stderr);
    assert!(t.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "server name \"{}/srv\" has suspicious symbols",
            p.display()
        )),
        "{stderr}"
    );
    // The `root` meant for the server was never set.
    let _running = common::start_nginx(&nginx, p, &conf, port);
    assert_eq!(
        get(port, "/", ""),
        ("200".to_string(), "default root".to_string())
    );

    let found = lint(&conf, "NGX181");
    assert_eq!(
        found,
        [(line_of(&text, "server_name"), "NGX181".to_string())]
    );
}

/// A self-signed certificate for `name` (see common::self_signed).
fn self_signed(dir: &Path, name: &str) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    common::self_signed("tests/trust_tls_binary.rs", dir, name, 2048)
}

#[test]
fn proxy_pass_https_accepts_any_certificate_until_verification_is_on() {
    let Some(nginx) = common::required_nginx("tests/trust_tls_binary.rs") else {
        return;
    };
    let tmp = prefix();
    let p = tmp.path();
    // The upstream shows a self-signed certificate for another name: an interceptor's.
    let Some((cert, key)) = self_signed(p, "interceptor.example") else {
        return;
    };
    let Some((ca, _)) = self_signed(p, "the-real-ca.example") else {
        return;
    };
    let (front, upstream) = (free_port(), free_port());
    let text = format!(
        "{head}    server {{\n        listen 127.0.0.1:{upstream} ssl;\n        \
         ssl_certificate {cert};\n        ssl_certificate_key {key};\n        \
         return 200 \"upstream\";\n    }}\n    server {{\n        listen 127.0.0.1:{front};\n        \
         location /default/ {{ proxy_pass https://api.example.com; }}\n        \
         location /verified/ {{\n            proxy_ssl_verify on;\n            \
         proxy_ssl_trusted_certificate {ca};\n            \
         proxy_pass https://api.example.com;\n        }}\n    }}\n    \
         upstream api.example.com {{ server 127.0.0.1:{upstream}; }}\n}}\n",
        head = head(p),
        cert = cert.display(),
        key = key.display(),
        ca = ca.display()
    );
    let conf = p.join("nginx.conf");
    std::fs::write(&conf, &text).unwrap();
    let _running = common::start_nginx_on(&nginx, p, &conf, &[front, upstream]);

    assert_eq!(
        get(front, "/default/", ""),
        ("200".to_string(), "upstream".to_string()),
        "without proxy_ssl_verify any certificate is accepted"
    );
    assert_eq!(get(front, "/verified/", "").0, "502");
    let log = std::fs::read_to_string(p.join("error.log")).unwrap();
    assert!(
        log.contains("upstream SSL certificate verify error"),
        "{log}"
    );

    // lemplint: the test's `upstream` (there to reach the local server under a public
    // name) is local, so silent; without it the name is public, and the default location,
    // not the verified one, is reported.
    assert_eq!(lint(&conf, "NGX178"), []);
    let public = text.replace(
        &format!("    upstream api.example.com {{ server 127.0.0.1:{upstream}; }}\n"),
        "",
    );
    assert_ne!(public, text);
    std::fs::write(&conf, &public).unwrap();
    assert_eq!(
        lint(&conf, "NGX178"),
        [(line_of(&public, "/default/"), "NGX178".to_string())]
    );
}

/// `openssl <args>`: its output; `None` (a note, or a failure under `CI=true`) when openssl
/// cannot run; a run that fails fails the test.
fn openssl(args: &[&str]) -> Option<String> {
    let (ok, out) = common::openssl("tests/trust_tls_binary.rs", args, None)?;
    assert!(ok, "openssl {args:?}: {out}");
    Some(out)
}

#[test]
fn dh_group_sizes_agree_with_openssl_and_small_ones_stop_nginx() {
    use lemplint::tls::dhparam::{read_pem, KNOWN_GROUPS};
    // The fixtures' groups (generated once with `openssl dhparam N`) and one written by
    // OpenSSL now from RFC 5114's named group.
    let dir = Path::new("fixtures/nginx/NGX183/groups");
    for name in ["dh512.pem", "dh1024.pem", "dh2048.pem", "oakley2.pem"] {
        let path = dir.join(name);
        let Some(text) = openssl(&["dhparam", "-in", path.to_str().unwrap(), "-text", "-noout"])
        else {
            return;
        };
        let group = read_pem(&std::fs::read(&path).unwrap()).unwrap();
        assert!(
            text.contains(&format!("DH Parameters: ({} bit)", group.bits)),
            "{name}: we read {} bits, openssl says:\n{text}",
            group.bits
        );
    }
    let tmp = prefix();
    let p = tmp.path();
    let rfc5114 = p.join("rfc5114.pem");
    let args = [
        "genpkey",
        "-genparam",
        "-algorithm",
        "DH",
        "-pkeyopt",
        "group:dh_1024_160",
        "-out",
        rfc5114.to_str().unwrap(),
    ];
    if openssl(&args).is_none() {
        return;
    }
    let group = read_pem(&std::fs::read(&rfc5114).unwrap()).unwrap();
    assert_eq!(group.bits, 1024);
    assert_eq!(
        group.known().map(|k| k.source),
        Some("RFC 5114 §2.1"),
        "{:?}",
        KNOWN_GROUPS.iter().map(|k| k.source).collect::<Vec<_>>()
    );

    // nginx refuses a 512-bit group at start-up (OpenSSL 1.1.0 and later, any level ≥ 1).
    let Some(nginx) = common::required_nginx("tests/trust_tls_binary.rs") else {
        return;
    };
    let Some((cert, key)) = self_signed(p, "t.example") else {
        return;
    };
    std::fs::copy(dir.join("dh512.pem"), p.join("dh512.pem")).unwrap();
    let port = free_port();
    let text = format!(
        "{head}    server {{\n        listen 127.0.0.1:{port} ssl;\n        ssl_certificate {cert};\n        \
         ssl_certificate_key {key};\n        ssl_dhparam {p}/dh512.pem;\n    }}\n}}\n",
        head = head(p),
        cert = cert.display(),
        key = key.display(),
        p = p.display()
    );
    std::fs::write(p.join("nginx.conf"), &text).unwrap();
    let t = common::nginx_test(&nginx, p);
    let stderr = String::from_utf8_lossy(&t.stderr);
    assert!(!t.status.success(), "{stderr}");
    assert!(stderr.contains("dh key too small"), "{stderr}");
    // lemplint says so, at the directive, as an error (OpenSSL 3.0 assumed).
    let found = lint(&p.join("nginx.conf"), "NGX183");
    assert_eq!(
        found,
        [(line_of(&text, "ssl_dhparam"), "NGX183".to_string())]
    );
}

#[test]
fn remote_addr_from_a_header_is_what_php_sees() {
    if !common::have_nginx_and_php_fpm("tests/trust_tls_binary.rs (php-fpm)") {
        return;
    }
    let Some(nginx) = common::required_nginx("tests/trust_tls_binary.rs") else {
        return;
    };
    let tmp = prefix();
    let p = tmp.path();
    std::fs::write(p.join("html/ip.php"), "<?php echo $_SERVER['REMOTE_ADDR'];").unwrap();
    let sock = p.join("fpm.sock");
    let fpm_conf = p.join("php-fpm.conf");
    std::fs::write(
        &fpm_conf,
        format!(
            "[global]\npid = {d}/php-fpm.pid\nerror_log = {d}/php-fpm.log\ndaemonize = no\n\
             [www]\nlisten = {s}\npm = static\npm.max_children = 1\n",
            d = p.display(),
            s = sock.display()
        ),
    )
    .unwrap();
    let _fpm = common::start_php_fpm(&fpm_conf, true, || sock.exists());
    let port = free_port();
    let text = format!(
        "{head}    server {{\n        listen {port};\n        root {p}/html;\n        \
         location ~ \\.php$ {{\n            \
         fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;\n            \
         fastcgi_param REQUEST_METHOD $request_method;\n            \
         fastcgi_param REMOTE_ADDR $http_x_forwarded_for;\n            \
         fastcgi_pass unix:{s};\n        }}\n    }}\n}}\n",
        head = head(p),
        p = p.display(),
        s = sock.display()
    );
    let conf = p.join("nginx.conf");
    std::fs::write(&conf, &text).unwrap();
    let _running = common::start_nginx(&nginx, p, &conf, port);
    assert_eq!(
        get(port, "/ip.php", "X-Forwarded-For: 203.0.113.7\r\n"),
        ("200".to_string(), "203.0.113.7".to_string()),
        "PHP's REMOTE_ADDR is what the client wrote"
    );

    // Listening on every address, the header can come from any client: reported. On
    // loopback only, a local proxy is what connects: silent.
    let found = lint(&conf, "NGX177");
    assert_eq!(
        found,
        [(line_of(&text, "REMOTE_ADDR"), "NGX177".to_string())]
    );
    let local = text.replace(
        &format!("listen {port};"),
        &format!("listen 127.0.0.1:{port};"),
    );
    assert_ne!(local, text);
    std::fs::write(&conf, &local).unwrap();
    assert_eq!(lint(&conf, "NGX177"), []);
}
