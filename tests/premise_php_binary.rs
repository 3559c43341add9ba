//! The behaviour two PHP rules rest on, shown with the real php-fpm8.2 behind nginx in
//! private prefixes on 127.0.0.1 (issue #39), each setting in a pool of its own so that the
//! test contrasts the two values:
//!
//! * FPM111: with `allow_url_fopen` on, `file_get_contents('http://…')` fetches from a
//!   listener the test runs, and with it off it refuses (php.net, filesystem configuration);
//!   with `log_errors` off an error reaches no log, with it on the pool's `error_log` holds it
//!   (php.net, error handling configuration); with `mail.add_x_header` on, `mail()` hands the
//!   sendmail program an `X-PHP-Originating-Script: <uid>:<script>` header, with it off not
//!   (php.net, mail configuration). lemplint reports the first pool's three lines, not the
//!   second's;
//! * STK011: with `session.cookie_secure` off, php-fpm's `Set-Cookie` for the session has no
//!   `secure` attribute, with it on it has (php.net, session configuration), through an
//!   HTTPS-only nginx; lemplint reports that configuration's `off` line.
//!
//! Without nginx, php-fpm8.2 or openssl the tests say they were skipped, or fail under
//! `CI=true`.

mod common;

use common::{free_port, http_get, http_parts};
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

/// php-fpm8.2 on `conf` without php.ini, once it listens on every one of `ports`.
fn start_fpm(conf: &Path, ports: &[u16]) -> common::RunningFpm {
    common::start_php_fpm(conf, true, || {
        ports
            .iter()
            .all(|&p| std::net::TcpStream::connect(("127.0.0.1", p)).is_ok())
    })
}

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

/// A loopback HTTP listener that answers every request with `body`, in a thread of its own
/// (left running until the test ends); its port.
fn answering(body: &'static str) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = write!(
                s,
                "HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

/// A sendmail stand-in for pool `name`: a script in `d` that writes the message it is given
/// to `d`/`name`-mail.eml (absolute paths: php-fpm clears the environment, PATH with it).
fn sendmail(d: &Path, name: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let script = d.join(format!("sendmail-{name}"));
    std::fs::write(
        &script,
        format!("#!/bin/sh\n/bin/cat > {}/{name}-mail.eml\n", d.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script.display().to_string()
}

#[test]
fn url_fopen_error_log_and_mail_header_follow_the_pool() {
    if !common::have_nginx_and_php_fpm("PHP rule premises") {
        return;
    }
    let Some(nginx) = common::required_nginx(FILE) else {
        return;
    };
    let _serial = common::serial();
    let tmp = site(&["open", "closed"]);
    let d = tmp.path();
    let (open_port, closed_port, port) = (free_port(), free_port(), free_port());
    let settings = |name: &str, on: &str, off: &str| {
        vec![
            format!("php_admin_flag[allow_url_fopen] = {on}"),
            format!("php_admin_flag[log_errors] = {off}"),
            format!("php_admin_flag[mail.add_x_header] = {on}"),
            "php_admin_flag[display_errors] = off".to_string(),
            format!(
                "php_admin_value[error_log] = {}/{name}-errors.log",
                d.display()
            ),
            format!("php_admin_value[sendmail_path] = {}", sendmail(d, name)),
        ]
    };
    let fpm_conf_text = format!(
        "[global]\npid = {d}/php-fpm.pid\nerror_log = {d}/php-fpm.log\ndaemonize = no\n{}{}",
        pool(d, "open", open_port, &settings("open", "on", "off")),
        pool(d, "closed", closed_port, &settings("closed", "off", "on")),
        d = d.display()
    );
    let fpm_conf = d.join("php-fpm.conf");
    std::fs::write(&fpm_conf, &fpm_conf_text).unwrap();
    let nginx_conf = d.join("nginx.conf");
    std::fs::write(
        &nginx_conf,
        format!(
            "{}    server {{\n        listen 127.0.0.1:{port};\n        root {}/www;\n{}{}    }}\n}}\n",
            common::nginx_head(d),
            d.display(),
            location("open", open_port),
            location("closed", closed_port)
        ),
    )
    .unwrap();
    let _fpm = start_fpm(&fpm_conf, &[open_port, closed_port]);
    let _nginx = common::start_nginx(&nginx, d, &nginx_conf, port);
    let body = |target: &str| {
        let (status, _, body) = http_parts(&http_get(port, target));
        assert_eq!(status, "200", "{target}: {body}");
        body
    };

    // allow_url_fopen: the file functions open http:// URLs only when it is on.
    let listener = answering("from the listener");
    let fetch = |pool: &str| body(&format!("/{pool}/p.php?url={listener}"));
    assert_eq!(fetch("open"), "fetched: from the listener");
    assert_eq!(fetch("closed"), "refused");

    // log_errors: off, the warning is in no log (and, with display_errors off, not in the
    // answer either); on, the pool's error_log has it.
    for pool in ["open", "closed"] {
        assert_eq!(body(&format!("/{pool}/p.php?err={pool}")), "done");
    }
    let read = |name: &str| std::fs::read_to_string(d.join(name)).unwrap_or_default();
    // php-fpm's own log may be written a moment late: give it the time an error would take.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let all_logs = format!(
        "{}{}{}",
        read("open-errors.log"),
        read("closed-errors.log"),
        read("php-fpm.log")
    );
    assert!(!all_logs.contains("marker-open"), "{all_logs}");
    assert!(
        read("closed-errors.log").contains("PHP Warning:  marker-closed"),
        "{all_logs}"
    );

    // mail.add_x_header: the header names the script's owner and file, to every recipient.
    for pool in ["open", "closed"] {
        assert_eq!(body(&format!("/{pool}/p.php?mail=1")), "sent");
    }
    // SAFETY: getuid has no preconditions; the probe belongs to the test's user.
    let uid = unsafe { libc::getuid() };
    let header = format!("X-PHP-Originating-Script: {uid}:p.php");
    let (open_mail, closed_mail) = (read("open-mail.eml"), read("closed-mail.eml"));
    assert!(open_mail.contains(&header), "{open_mail}");
    assert!(
        closed_mail.contains("Subject: hello") && !closed_mail.contains("X-PHP-Originating-Script"),
        "{closed_mail}"
    );

    // lemplint reports the open pool's three lines, and nothing of the closed pool.
    let out = common::run_lemplint(
        d,
        &[
            "lint",
            "php-fpm.conf",
            "--select",
            "FPM111",
            "--format",
            "concise",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let closed_start = common::line_of(&fpm_conf_text, "[closed]");
    let reported: Vec<usize> = text
        .lines()
        .filter(|l| l.contains("FPM111"))
        .filter_map(|l| l.split(':').nth(1)?.parse().ok())
        .collect();
    // The open pool comes first: each key's first line is the open pool's.
    let expected: Vec<usize> = ["allow_url_fopen", "log_errors", "mail.add_x_header"]
        .iter()
        .map(|k| common::line_of(&fpm_conf_text, k))
        .collect();
    assert_eq!(reported, expected, "{text}");
    assert!(reported.iter().all(|&l| l < closed_start));
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
    let _fpm = start_fpm(&fpm_conf, &[plain_port, secure_port]);
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
