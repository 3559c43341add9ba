//! The behaviour STK011 rests on, shown with the real php-fpm8.2 behind nginx in
//! private prefixes on 127.0.0.1 (issue #39), each setting in a pool of its own so that the
//! test contrasts the two values:
//!
//! * STK011: with `session.cookie_secure` off, php-fpm's `Set-Cookie` for the session has no
//!   `secure` attribute, with it on it has (php.net, session configuration), through an
//!   HTTPS-only nginx; lemplint reports that configuration's `off` line.
//!   (FPM111 is shown by `tests/hardening_binary/`.)
//!
//! Without nginx, php-fpm8.2 or openssl the tests say they were skipped, or fail under
//! `CI=true`.

mod common;

use common::free_port;
use std::path::Path;

const FILE: &str = "tests/premise_php_binary.rs";

const PROBE: &str = r#"<?php
if (isset($_GET['url'])) {
    $got = @file_get_contents('http://127.0.0.1:' . $_GET['url'] . '/');
    echo $got === false ? 'refused' : 'fetched: ' . $got;
} elseif (isset($_GET['err'])) {
    trigger_error('marker-' . $_GET['err'], E_USER_WARNING);
    echo 'done';
} elseif (isset($_GET['mail'])) {
    echo mail('someone@example.invalid', 'hello', 'body') ? 'sent' : 'not sent';
} elseif (isset($_GET['sess'])) {
    session_start();
    echo session_id();
}
"#;

/// A pool `name` on 127.0.0.1:`port` whose sessions go to `d`/sessions, with `lines` (one
/// setting a line).
fn pool(d: &Path, name: &str, port: u16, lines: &[String]) -> String {
    format!(
        "[{name}]\nlisten = 127.0.0.1:{port}\npm = static\npm.max_children = 1\n\
         php_admin_value[session.save_path] = {}/sessions\n{}\n",
        d.display(),
        lines.join("\n")
    )
}

/// The FastCGI location passing `/<name>/` to 127.0.0.1:`port`.
fn location(name: &str, port: u16) -> String {
    format!(
        "        location ^~ /{name}/ {{\n            \
         fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;\n            \
         fastcgi_param QUERY_STRING $query_string;\n            \
         fastcgi_param REQUEST_METHOD $request_method;\n            \
         fastcgi_pass 127.0.0.1:{port};\n        }}\n"
    )
}

/// A prefix with `www/<pool>/p.php` (the probe) for each of `pools`.
fn site(pools: &[&str]) -> tempfile::TempDir {
    let tmp = common::nginx_prefix(&["sessions"]);
    for name in pools {
        let dir = tmp.path().join("www").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("p.php"), PROBE).unwrap();
    }
    tmp
}

#[test]
fn the_session_cookie_is_secure_only_when_the_setting_says_so() {
    if !common::have_nginx_and_php_fpm("PHP rule premises") {
        return;
    }
    let Some(nginx) = common::required_nginx(FILE) else {
        return;
    };
    let _serial = common::serial();
    let tmp = site(&["plain", "secure"]);
    let d = tmp.path();
    let Some((cert, key)) = common::self_signed(FILE, d, "site", 2048) else {
        return;
    };
    let (plain_port, secure_port, port) = (free_port(), free_port(), free_port());
    let fpm_conf = d.join("php-fpm.conf");
    std::fs::write(
        &fpm_conf,
        format!(
            "[global]\npid = {d}/php-fpm.pid\nerror_log = {d}/php-fpm.log\ndaemonize = no\n{}{}",
            pool(
                d,
                "plain",
                plain_port,
                &["php_admin_flag[session.cookie_secure] = off".into()]
            ),
            pool(
                d,
                "secure",
                secure_port,
                &["php_admin_flag[session.cookie_secure] = on".into()]
            ),
            d = d.display()
        ),
    )
    .unwrap();
    // HTTPS only: the one server listens with `ssl`.
    let nginx_conf = d.join("nginx.conf");
    std::fs::write(
        &nginx_conf,
        format!(
            "{}    server {{\n        listen 127.0.0.1:{port} ssl;\n        ssl_certificate {};\n        \
             ssl_certificate_key {};\n        root {}/www;\n{}{}    }}\n}}\n",
            common::nginx_head(d),
            cert.display(),
            key.display(),
            d.display(),
            location("plain", plain_port),
            location("secure", secure_port)
        ),
    )
    .unwrap();
    let _fpm = common::start_php_fpm_on(&fpm_conf, &[plain_port, secure_port]);
    let _nginx = common::start_nginx(&nginx, d, &nginx_conf, port);

    let cookie = |pool: &str| {
        let request = d.join(format!("{pool}.req"));
        std::fs::write(
            &request,
            format!("GET /{pool}/p.php?sess=1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"),
        )
        .unwrap();
        let connect = format!("127.0.0.1:{port}");
        let (_, out) = common::openssl(
            FILE,
            &["s_client", "-connect", &connect, "-quiet", "-ign_eof"],
            Some(&request),
        )?;
        let line = out
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("set-cookie: phpsessid="))
            .unwrap_or_else(|| panic!("a session cookie from {pool}: {out}"));
        Some(line.trim_end().to_string())
    };
    let (Some(plain), Some(secure)) = (cookie("plain"), cookie("secure")) else {
        return;
    };
    let attributes = |c: &str| -> Vec<String> {
        c.split(';')
            .skip(1)
            .map(|a| a.trim().to_ascii_lowercase())
            .collect()
    };
    assert!(
        !attributes(&plain).contains(&"secure".to_string()),
        "{plain}"
    );
    assert!(
        attributes(&secure).contains(&"secure".to_string()),
        "{secure}"
    );

    // lemplint reports the `off` line of the pool an HTTPS-only server passes to.
    let out = common::run_lemplint(
        d,
        &["lint", ".", "--select", "STK011", "--format", "concise"],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let conf = std::fs::read_to_string(&fpm_conf).unwrap();
    let line = common::line_of(&conf, "cookie_secure] = off");
    assert!(
        text.contains(&format!("php-fpm.conf:{line}:")) && text.contains("STK011"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let on = common::line_of(&conf, "cookie_secure] = on");
    assert!(!text.contains(&format!("php-fpm.conf:{on}:")), "{text}");
}
