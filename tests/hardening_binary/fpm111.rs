//! FPM111 php-hardening-off: see the crate comment in main.rs.

use super::*;

/// A local HTTP listener on a free port that answers every request with `from the
/// listener` and keeps each request line, until dropped.
struct Listener {
    port: u16,
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Listener {
    fn start() -> Listener {
        use std::sync::atomic::Ordering;
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        let port = l.local_addr().unwrap().port();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (s, st) = (seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !st.load(Ordering::Relaxed) {
                let Ok((mut conn, _)) = l.accept() else {
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                };
                conn.set_nonblocking(false).unwrap();
                conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut buf = [0u8; 4096];
                let n = conn.read(&mut buf).unwrap_or(0);
                let request = String::from_utf8_lossy(&buf[..n]).into_owned();
                s.lock()
                    .unwrap()
                    .push(request.lines().next().unwrap_or("").to_string());
                let _ = conn.write_all(b"HTTP/1.0 200 OK\r\n\r\nfrom the listener");
            }
        });
        Listener {
            port,
            seen,
            stop,
            thread: Some(thread),
        }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The PHP CLI, or `None` (skip, or a failure under `CI=true`).
fn php() -> Option<&'static str> {
    let found = ["/usr/bin/php8.2", "/usr/bin/php"]
        .into_iter()
        .find(|p| Path::new(p).is_file());
    if found.is_none() {
        skip("php (the CLI, /usr/bin/php8.2 or /usr/bin/php) is not installed");
    }
    found
}

/// Each setting FPM111 reports does what php.net says, with the php.ini lemplint lints:
/// `allow_url_fopen` ("enables the URL-aware fopen wrappers", filesystem configuration):
/// On, `file_get_contents('http://…')` reaches a local listener; Off, PHP warns "http://
/// wrapper is disabled in the server configuration by allow_url_fopen=0". `mail.add_x_header`
/// ("Add X-PHP-Originating-Script that will include UID of the script followed by the
/// filename", mail configuration): On, the header is in what sendmail receives. `log_errors`
/// ("Tells whether script error messages should be logged to the server's error log or
/// error_log"): Off, the `error_log` file gets nothing. `sendmail_path` is a script this
/// test writes (it copies its standard input to a file). No php.ini of the machine is read
/// (`-c` and an empty `PHP_INI_SCAN_DIR`).
#[test]
fn php_hardening_settings_do_what_fpm111_says() {
    let Some(php) = php() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let sendmail = d.join("sendmail.sh");
    std::fs::write(
        &sendmail,
        format!("#!/bin/sh\ncat > {}/mail.txt\n", d.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&sendmail, std::fs::Permissions::from_mode(0o755)).unwrap();
    let listener = Listener::start();
    std::fs::write(
        d.join("probe.php"),
        format!(
            "<?php\n$r = file_get_contents('http://127.0.0.1:{}/from-php');\n\
             echo 'fetched=', var_export($r, true), \"\\n\";\n\
             mail('to@example.com', 'report', 'body');\n\
             trigger_error('probe: an error to log', E_USER_WARNING);\n",
            listener.port
        ),
    )
    .unwrap();

    for hardened in [false, true] {
        let ini = d.join("php.ini");
        let (fopen, log, header) = if hardened {
            ("Off", "On", "Off")
        } else {
            ("On", "Off", "On")
        };
        let text = format!(
            "display_errors = Off\nallow_url_fopen = {fopen}\nlog_errors = {log}\n\
             mail.add_x_header = {header}\nerror_log = {d}/php_errors.log\n\
             sendmail_path = {s}\n",
            d = d.display(),
            s = sendmail.display()
        );
        std::fs::write(&ini, &text).unwrap();
        let _ = std::fs::remove_file(d.join("php_errors.log"));
        let _ = std::fs::remove_file(d.join("mail.txt"));
        let before = listener.seen().len();
        let out = Command::new(php)
            .arg("-c")
            .arg(&ini)
            .arg("probe.php")
            .current_dir(d)
            .env("PHP_INI_SCAN_DIR", "")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let seen = listener.seen()[before..].to_vec();
        let log = std::fs::read_to_string(d.join("php_errors.log")).unwrap_or_default();
        let mail = std::fs::read_to_string(d.join("mail.txt"))
            .unwrap_or_else(|e| panic!("the sendmail script did not run ({e}): {stdout}"));
        // SAFETY: geteuid has no preconditions.
        let uid = unsafe { libc::geteuid() };
        let x_header = format!("X-PHP-Originating-Script: {uid}:probe.php");
        if hardened {
            assert_eq!(seen, Vec::<String>::new());
            assert!(stdout.contains("fetched=false"), "{stdout}");
            assert!(
                log.contains(
                    "file_get_contents(): http:// wrapper is disabled in the server \
                     configuration by allow_url_fopen=0"
                ) && log.contains("probe: an error to log"),
                "{log}"
            );
            assert!(!mail.contains("X-PHP-Originating-Script"), "{mail}");
        } else {
            assert_eq!(seen, ["GET /from-php HTTP/1.1"]);
            assert!(stdout.contains("fetched='from the listener'"), "{stdout}");
            assert_eq!(log, "", "log_errors = Off: nothing logged");
            assert!(mail.contains(&x_header), "{mail}");
        }

        let found = lint(&ini, "preview", "FPM111");
        let want: Vec<(usize, String, String)> = if hardened {
            vec![]
        } else {
            ["allow_url_fopen", "log_errors", "mail.add_x_header"]
                .iter()
                .map(|n| (line_of(&text, n), "info".to_string(), "FPM111".to_string()))
                .collect()
        };
        assert_eq!(found, want, "{text}");
    }
}
