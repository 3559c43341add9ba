//! What four preview security rules (issue #39) say nginx, OpenSSL and PHP do, checked
//! against the real programs in private prefixes on 127.0.0.1, and that lemplint reports the
//! configuration that does it and not its look-alike that does not:
//!
//! - NGX179: with `user root;` nginx's workers run with uid 0 and serve a file only root may
//!   read; with an unprivileged `user` they run as that account and answer 403;
//! - NGX182: with `ssl_early_data on;` a POST sent as TLS 1.3 early data reaches the backend
//!   again each time its recorded bytes are replayed (within OpenSSL's ten seconds);
//!   `ssl_early_data off;` rejects it, and forwarding `$ssl_early_data` lets the application
//!   answer 425 to the replays;
//! - NGX184: what `@SECLEVEL=1` and `@SECLEVEL=0` in `ssl_ciphers` let nginx load and
//!   negotiate on this OpenSSL (1024-bit RSA and DH from level 1; 512-bit RSA and SHA-1 or
//!   MD5 signed certificates only at 0; DH groups under 1024 bits never);
//! - FPM111: `allow_url_fopen = On` lets file functions reach a local listener,
//!   `mail.add_x_header = On` names the script in each mail, `log_errors = Off` leaves the
//!   `error_log` file empty.
//!
//! A missing nginx, openssl, php, or (for NGX179) a test not run as root: the test is skipped
//! with a note, or fails under `CI=true`.

mod common;
use common::free_port;
use common::line_of;
use common::nginx_head as head;

/// A fresh private prefix for nginx.
fn prefix() -> tempfile::TempDir {
    common::nginx_prefix(&[])
}

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether the tests run under CI, where a missing program is a failure, not a skip.
fn ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// Fails under `CI=true`, else prints why the test is skipped.
fn skip(why: &str) {
    assert!(
        !ci(),
        "{why}: required under CI=true (tests/hardening_binary.rs)"
    );
    eprintln!("note: {why}; skipping (CI=true makes this an error)");
}

/// lemplint's concise report of `conf` with `select` selected: (file name, line, severity,
/// code) for each finding whose code starts with `code`.
fn lint(conf: &Path, select: &str, code: &str) -> Vec<(usize, String, String)> {
    let name = format!("{}:", conf.file_name().unwrap().to_string_lossy());
    common::lint_concise(conf, select)
        .lines()
        .filter_map(|l| {
            let (_, after) = l.split_once(&name)?;
            let line = after.split(':').next()?.parse().ok()?;
            let (severity, rest) = after.split_once(": ")?.1.split_once('[')?;
            let found = rest.split(']').next()?;
            found
                .starts_with(code)
                .then(|| (line, severity.to_string(), found.to_string()))
        })
        .collect()
}

/// `openssl <args>`: (success, stdout and stderr together); `None` (skip, or a failure under
/// `CI=true`) when openssl is not there.
fn openssl(args: &[&str], stdin: Option<&Path>) -> Option<(bool, String)> {
    let mut cmd = Command::new("openssl");
    cmd.args(args);
    cmd.stdin(match stdin {
        Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
        None => Stdio::null(),
    });
    match cmd.output() {
        Ok(o) => Some((
            o.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        )),
        Err(e) => {
            skip(&format!("openssl does not run ({e})"));
            None
        }
    }
}

/// `openssl req` for a self-signed certificate with an RSA key of `bits` in `dir`: (cert,
/// key).
fn self_signed(dir: &Path, name: &str, bits: u32) -> Option<(PathBuf, PathBuf)> {
    let (cert, key) = (
        dir.join(format!("{name}.pem")),
        dir.join(format!("{name}.key")),
    );
    let (ok, out) = openssl(
        &[
            "req",
            "-x509",
            "-newkey",
            &format!("rsa:{bits}"),
            "-nodes",
            "-days",
            "2",
            "-subj",
            &format!("/CN={name}"),
            "-keyout",
            key.to_str().unwrap(),
            "-out",
            cert.to_str().unwrap(),
        ],
        None,
    )?;
    assert!(ok, "openssl req: {out}");
    Some((cert, key))
}

// ---------------------------------------------------------------------------------------
// NGX179 user-root

/// nginx with its master process (workers only exist with one), in a process group of its
/// own, killed with its workers when dropped.
struct MasterNginx(std::process::Child);

impl Drop for MasterNginx {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the process group this test started; no memory is involved.
        unsafe {
            libc::kill(-(self.0.id() as i32), libc::SIGKILL);
        }
        let _ = self.0.wait();
    }
}

/// The processes whose parent is `parent`, with the four uids of their `Uid:` line.
fn children_uids(parent: u32) -> Vec<(u32, [u32; 4])> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(e.path().join("status")) else {
            continue;
        };
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.split_whitespace().map(|n| n.parse().unwrap()).collect())
                .unwrap_or_else(Vec::new)
        };
        let ppid: Vec<u32> = field("PPid:");
        if ppid.first() != Some(&parent) {
            continue;
        }
        let uid: Vec<u32> = field("Uid:");
        out.push((pid, [uid[0], uid[1], uid[2], uid[3]]));
    }
    out
}

/// The uid of account `name` (getpwnam), if it exists.
fn uid_of(name: &str) -> Option<u32> {
    let c = std::ffi::CString::new(name).unwrap();
    // SAFETY: getpwnam reads a NUL-terminated name; the result is read at once, before any
    // other call could reuse its static buffer.
    let pw = unsafe { libc::getpwnam(c.as_ptr()) };
    // SAFETY: a non-null result points at a valid passwd record.
    (!pw.is_null()).then(|| unsafe { (*pw).pw_uid })
}

/// Whether group `name` exists (getgrnam).
fn group_exists(name: &str) -> bool {
    let c = std::ffi::CString::new(name).unwrap();
    // SAFETY: getgrnam reads a NUL-terminated name; only the pointer is looked at.
    !unsafe { libc::getgrnam(c.as_ptr()) }.is_null()
}

/// `user root;` (nginx.org, core module, `user`: "Defines user and group credentials used by
/// worker processes") keeps the workers at uid 0: they serve a mode-0600 file owned by root.
/// An unprivileged `user` makes the same file answer 403, while a world-readable one next to
/// it is still served (the 403 is the file's mode, not the directory).
#[test]
fn user_root_workers_run_as_root_and_serve_root_only_files() {
    let Some(nginx) = common::required_nginx("tests/hardening_binary.rs") else {
        return;
    };
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        skip("NGX179's test starts nginx's master as root, and this test is not root");
        return;
    }
    let Some(nobody) = uid_of("nobody") else {
        skip("no account `nobody`");
        return;
    };
    let group = ["nogroup", "nobody"]
        .into_iter()
        .find(|g| group_exists(g))
        .expect("a group nogroup or nobody");

    let tmp = prefix();
    let p = tmp.path();
    // The workers must be able to walk to the files whichever account they run as (a
    // tempdir is 0700).
    use std::os::unix::fs::PermissionsExt;
    let html = p.join("html");
    std::fs::create_dir(&html).unwrap();
    for dir in [p, html.as_path()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::write(html.join("secret.txt"), "root only").unwrap();
    std::fs::set_permissions(
        html.join("secret.txt"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::fs::write(html.join("public.txt"), "anyone").unwrap();
    std::fs::set_permissions(
        html.join("public.txt"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();

    for (user, uid, secret) in [
        ("root".to_string(), 0, "200"),
        (format!("nobody {group}"), nobody, "403"),
    ] {
        let port = free_port();
        let text = format!(
            "user {user};\nworker_processes 1;\n{head}    server {{\n        \
             listen 127.0.0.1:{port};\n        root {html};\n    }}\n}}\n",
            head = head(p),
            html = html.display()
        );
        let conf = p.join("nginx.conf");
        std::fs::write(&conf, &text).unwrap();
        use std::os::unix::process::CommandExt;
        let master = MasterNginx(
            Command::new(&nginx)
                .process_group(0)
                .arg("-p")
                .arg(p)
                .arg("-c")
                .arg(&conf)
                .args(["-g", "daemon off;"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start nginx"),
        );
        let started = Instant::now();
        let workers = loop {
            let w = children_uids(master.0.id());
            if !w.is_empty() && TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break w;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx did not start: {}",
                std::fs::read_to_string(p.join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        // Real, effective, saved and filesystem uid of every worker.
        for (pid, uids) in &workers {
            assert_eq!(uids, &[uid; 4], "user {user}: worker {pid}");
        }
        let (status, _, body) = common::http_parts(&common::http_get(port, "/secret.txt"));
        assert_eq!(status, secret, "user {user}: {body}");
        if secret == "200" {
            assert_eq!(body, "root only");
        }
        let (status, _, _) = common::http_parts(&common::http_get(port, "/public.txt"));
        assert_eq!(status, "200", "user {user}");
        drop(master);

        let found = lint(&conf, "NGX179", "NGX179");
        let want = if uid == 0 {
            vec![(
                line_of(&text, "user root"),
                "warning".to_string(),
                "NGX179".to_string(),
            )]
        } else {
            vec![]
        };
        assert_eq!(found, want, "user {user}");
    }
}

// ---------------------------------------------------------------------------------------
// NGX182 ssl-early-data-replayable

/// The POST each front sends as early data: a request that must not run twice.
fn transfer(front: &str) -> String {
    format!(
        "POST /transfer?front={front} HTTP/1.0\r\nHost: t\r\nContent-Length: 9\r\n\r\namount=10"
    )
}

/// Records what a TLS client sends before it hears from the server: a listener on a free
/// port that accepts one connection, answers nothing, and keeps the bytes that arrive until
/// the client has been quiet for half a second. For a client resuming a session with
/// `-early_data` that is its ClientHello (with the PSK) and the early data: what an attacker
/// on the path records and can replay.
fn record_first_flight(client: impl FnOnce(u16)) -> Vec<u8> {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let recorder = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        conn.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 16384];
        while let Ok(n) = conn.read(&mut buf) {
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        got
    });
    client(port);
    recorder.join().unwrap()
}

/// Sends `flight` to `port` as a new connection, as an attacker replaying it would, and
/// waits until nginx closes the connection or is quiet for two seconds (the replayer cannot
/// finish the handshake, so it reads nothing it could use).
fn replay(port: u16, flight: &[u8]) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(flight).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut sink = Vec::new();
    let _ = s.read_to_end(&mut sink);
}

/// The backend's access log (`$request_method $request_uri $http_early_data $status`),
/// line by line.
fn backend_log(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p.join("backend.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Polls the backend log until `want` lines of it mention `front` (five seconds); returns
/// those lines.
fn backend_lines(p: &Path, front: &str, want: usize) -> Vec<String> {
    let started = Instant::now();
    loop {
        let lines: Vec<String> = backend_log(p)
            .into_iter()
            .filter(|l| l.contains(&format!("front={front} ")))
            .collect();
        if lines.len() >= want || started.elapsed() > Duration::from_secs(5) {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `openssl s_client` resuming the session in `sess` with `early` as 0-RTT data; its
/// "Early data was …" line.
fn send_early(port: u16, sess: &Path, early: &Path) -> Option<String> {
    let (_, out) = openssl(
        &[
            "s_client",
            "-connect",
            &format!("127.0.0.1:{port}"),
            "-tls1_3",
            "-ign_eof",
            "-sess_in",
            sess.to_str().unwrap(),
            "-early_data",
            early.to_str().unwrap(),
        ],
        None,
    )?;
    Some(
        out.lines()
            .find(|l| l.starts_with("Early data was"))
            .unwrap_or_else(|| panic!("no early data status from s_client:\n{out}"))
            .to_string(),
    )
}

/// TLS 1.3 early data can be replayed, and nginx hands each replay to the backend
/// (nginx.org, `ssl_early_data`: "Requests sent within early data are subject to replay
/// attacks": nginx 1.22 with OpenSSL 3.0 accepts the same recorded early data again and
/// again, the session's ticket being valid until it expires). The replay here
/// is the attacker's: the recorded ClientHello and early data, sent again without the
/// client's keys (it cannot finish the handshake). `ssl_early_data off` rejects the early
/// data of the same session. Forwarding `$ssl_early_data` ("1" while the handshake is not
/// complete, nginx.org) lets an RFC 8470 application answer 425 Too Early to every replay.
/// lemplint reports only the first configuration.
#[test]
fn early_data_replays_reach_the_backend_until_refused_or_flagged() {
    let Some(nginx) = common::required_nginx("tests/hardening_binary.rs") else {
        return;
    };
    let tmp = prefix();
    let p = tmp.path();
    let Some((cert, key)) = self_signed(p, "t", 2048) else {
        return;
    };
    // One ticket key for every front: a session from the first is resumed by the others,
    // as it would be across a reload that keeps the key.
    std::fs::write(p.join("ticket.key"), [7u8; 80]).unwrap();

    // The applications, in an nginx of their own (not part of the fronts' configurations):
    // one that handles whatever comes, one that follows RFC 8470 (425 to `Early-Data: 1`).
    // Each server names its log: `access_log off` in the head cancels any at http level.
    let (plain_app, aware_app) = (free_port(), free_port());
    let backend_prefix = p.join("backend");
    std::fs::create_dir_all(backend_prefix.join("tmp")).unwrap();
    let backend_conf = backend_prefix.join("nginx.conf");
    std::fs::write(
        &backend_conf,
        format!(
            "{head}    log_format app \"$request_method $request_uri $http_early_data $status\";\n    \
             server {{\n        listen 127.0.0.1:{plain_app};\n        \
             access_log {p}/backend.log app;\n        \
             location / {{ return 200 \"done\\n\"; }}\n    }}\n    \
             server {{\n        listen 127.0.0.1:{aware_app};\n        \
             access_log {p}/backend.log app;\n        \
             location / {{\n            if ($http_early_data = \"1\") {{ return 425; }}\n            \
             return 200 \"done\\n\";\n        }}\n    }}\n}}\n",
            head = head(&backend_prefix),
            p = p.display()
        ),
    )
    .unwrap();
    let _backend = common::start_nginx_on(
        &nginx,
        &backend_prefix,
        &backend_conf,
        &[plain_app, aware_app],
    );

    // The fronts: early data on and passed as is; off; on with the flag forwarded. A client
    // whose early data was rejected sends nothing more: nginx closes its connection after
    // `client_header_timeout`, short here so that s_client returns.
    let front = |name: &str, early: &str, location: &str| {
        let dir = p.join(name);
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        let port = free_port();
        let text = format!(
            "{head}    server {{\n        listen 127.0.0.1:{port} ssl;\n        \
             ssl_certificate {cert};\n        ssl_certificate_key {key};\n        \
             ssl_protocols TLSv1.3;\n        ssl_session_ticket_key {p}/ticket.key;\n        \
             ssl_early_data {early};\n        client_header_timeout 2s;\n        \
             location / {{\n{location}        }}\n    }}\n}}\n",
            head = head(&dir),
            cert = cert.display(),
            key = key.display(),
            p = p.display()
        );
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, &text).unwrap();
        (dir, conf, text, port)
    };
    let pass = format!("            proxy_pass http://127.0.0.1:{plain_app};\n");
    let flagged = format!(
        "            proxy_set_header Early-Data $ssl_early_data;\n            \
         proxy_pass http://127.0.0.1:{aware_app};\n"
    );
    let fronts = [
        ("replayable", front("replayable", "on", &pass)),
        ("off", front("off", "off", &pass)),
        ("flagged", front("flagged", "on", &flagged)),
    ];
    let running: Vec<common::RunningNginx> = fronts
        .iter()
        .map(|(_, (dir, conf, _, port))| common::start_nginx(&nginx, dir, conf, *port))
        .collect();

    // A session (with a ticket that allows early data) from the first front.
    let sess = p.join("sess.pem");
    std::fs::write(p.join("hello.txt"), "GET / HTTP/1.0\r\nHost: t\r\n\r\n").unwrap();
    let hello = p.join("hello.txt");
    let Some((_, out)) = openssl(
        &[
            "s_client",
            "-connect",
            &format!("127.0.0.1:{}", fronts[0].1 .3),
            "-tls1_3",
            "-ign_eof",
            "-sess_out",
            sess.to_str().unwrap(),
        ],
        Some(&hello),
    ) else {
        return;
    };
    assert!(out.contains("Max Early Data: 16384"), "{out}");

    let mut verdicts = Vec::new();
    let mut late_replay = None;
    for (name, (_, conf, text, port)) in &fronts {
        let early = p.join(format!("{name}.txt"));
        std::fs::write(&early, transfer(name)).unwrap();
        // The client itself sending the request in early data, twice, with the one session.
        let said: Vec<String> = (0..2)
            .map(|_| send_early(*port, &sess, &early).unwrap())
            .collect();
        // An attacker replaying what the client sent: recorded once, sent twice.
        let flight = record_first_flight(|rec| {
            // The recorder never answers: s_client gives up, with no early data status.
            openssl(
                &[
                    "s_client",
                    "-connect",
                    &format!("127.0.0.1:{rec}"),
                    "-tls1_3",
                    "-sess_in",
                    sess.to_str().unwrap(),
                    "-early_data",
                    early.to_str().unwrap(),
                ],
                None,
            );
        });
        let recorded = Instant::now();
        assert!(flight.len() > transfer(name).len(), "{}", flight.len());
        replay(*port, &flight);
        replay(*port, &flight);
        if *name == "replayable" {
            late_replay = Some((flight, recorded, *port));
        }
        let handled = backend_lines(p, name, if *name == "off" { 0 } else { 4 });
        verdicts.push((name, said, handled));

        let found = lint(conf, "NGX182", "NGX182");
        let want = if *name == "replayable" {
            vec![(
                line_of(text, "ssl_early_data on"),
                "warning".to_string(),
                "NGX182".to_string(),
            )]
        } else {
            vec![]
        };
        assert_eq!(found, want, "{name}");
    }
    // OpenSSL bounds the window: it takes early data only while the ticket age the
    // ClientHello claims is within ten seconds of its own count (`TICKET_AGE_ALLOWANCE`,
    // ssl/ssl_local.h), so the same recording sent eleven seconds after it was made resumes
    // the session but its early data is not handled.
    let (flight, recorded, port) = late_replay.unwrap();
    std::thread::sleep(
        (recorded + Duration::from_secs(11)).saturating_duration_since(Instant::now()),
    );
    replay(port, &flight);
    let late = backend_lines(p, "replayable", 5).len();
    drop(running);

    let accepted = [
        "Early data was accepted".to_string(),
        "Early data was accepted".to_string(),
    ];
    let rejected = [
        "Early data was rejected".to_string(),
        "Early data was rejected".to_string(),
    ];
    let post = |front: &str, early: &str, status: &str| {
        format!("POST /transfer?front={front} {early} {status}")
    };
    let (name, said, handled) = &verdicts[0];
    assert_eq!(**name, "replayable");
    assert_eq!(said, &accepted);
    // The client's two sends and the attacker's two replays: the POST ran four times, and
    // the application could not tell (no Early-Data header reaches it).
    assert_eq!(handled, &vec![post("replayable", "-", "200"); 4]);
    assert_eq!(late, 4, "a replay after eleven seconds is not handled");

    let (name, said, handled) = &verdicts[1];
    assert_eq!(**name, "off");
    assert_eq!(said, &rejected);
    assert_eq!(
        handled,
        &Vec::<String>::new(),
        "early data off: nothing ran"
    );

    let (name, said, handled) = &verdicts[2];
    assert_eq!(**name, "flagged");
    assert_eq!(said, &accepted);
    // The attacker's replays never finish the handshake: `$ssl_early_data` is "1" and the
    // application answers 425 to both. The client's own sends finish it, and nginx may read
    // the request after the client's Finished (`$ssl_early_data` then empty, the request
    // not replayable by anyone without the session's keys): those two are 425 or 200.
    assert_eq!(handled.len(), 4, "{handled:?}");
    for line in &handled[..2] {
        assert!(
            *line == post("flagged", "1", "425") || *line == post("flagged", "-", "200"),
            "{line}"
        );
    }
    assert_eq!(
        handled[2..],
        [post("flagged", "1", "425"), post("flagged", "1", "425")]
    );
}

// ---------------------------------------------------------------------------------------
// NGX184 ssl-seclevel-lowered

/// The security level in `ssl_ciphers` decides what nginx loads (OpenSSL's
/// `SSL_CTX_set_security_level`, 3.0: level 1 is 80 bits and refuses "signatures using SHA1
/// and MD5"; level 0 permits the rest, but `ssl_security_default_callback` keeps DH groups
/// under 1024 bits out "even at level 0"). The table is what `nginx -t` says with no level,
/// level 2, 1 and 0; this OpenSSL's default is Debian's 2. Then a running nginx negotiates
/// a 1024-bit DH group at level 1 and a 512-bit RSA key at level 0 with a client that lowers
/// its own level too, and lemplint reports the lowered strings (0 a warning, 1 info).
#[test]
fn seclevel_decides_which_weak_keys_nginx_loads_and_negotiates() {
    let Some(nginx) = common::required_nginx("tests/hardening_binary.rs") else {
        return;
    };
    let tmp = prefix();
    let p = tmp.path();
    let Some((c2048, k2048)) = self_signed(p, "rsa2048", 2048) else {
        return;
    };
    let (c1024, k1024) = self_signed(p, "rsa1024", 1024).unwrap();
    let (c512, k512) = self_signed(p, "rsa512", 512).unwrap();
    // A leaf signed with SHA-1 and one with MD5 by a CA of its own.
    let (ca, ca_key) = self_signed(p, "ca", 2048).unwrap();
    let leaf_key = p.join("leaf.key");
    let csr = p.join("leaf.csr");
    let (ok, out) = openssl(
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=t",
            "-keyout",
            leaf_key.to_str().unwrap(),
            "-out",
            csr.to_str().unwrap(),
        ],
        None,
    )
    .unwrap();
    assert!(ok, "{out}");
    let leaf = |md: &str| {
        let cert = p.join(format!("leaf-{md}.pem"));
        let (ok, out) = openssl(
            &[
                "x509",
                "-req",
                "-in",
                csr.to_str().unwrap(),
                "-CA",
                ca.to_str().unwrap(),
                "-CAkey",
                ca_key.to_str().unwrap(),
                "-CAcreateserial",
                "-days",
                "2",
                &format!("-{md}"),
                "-out",
                cert.to_str().unwrap(),
            ],
            None,
        )
        .unwrap();
        assert!(ok, "{out}");
        cert
    };
    let (sha1, md5) = (leaf("sha1"), leaf("md5"));
    // The DH groups NGX183's fixtures hold (generated once with `openssl dhparam N`).
    let groups = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nginx/NGX183/groups");
    let dh = |bits: u32| {
        format!(
            "ssl_dhparam {};",
            groups.join(format!("dh{bits}.pem")).display()
        )
    };
    let cert = |c: &Path, k: &Path| {
        format!(
            "ssl_certificate {};\n        ssl_certificate_key {};",
            c.display(),
            k.display()
        )
    };
    let cases = [
        ("1024-bit RSA key", cert(&c1024, &k1024)),
        (
            "1024-bit DH group",
            format!("{}\n        {}", cert(&c2048, &k2048), dh(1024)),
        ),
        ("SHA-1 signed certificate", cert(&sha1, &leaf_key)),
        ("MD5 signed certificate", cert(&md5, &leaf_key)),
        ("512-bit RSA key", cert(&c512, &k512)),
        (
            "512-bit DH group",
            format!("{}\n        {}", cert(&c2048, &k2048), dh(512)),
        ),
    ];
    let levels = [
        "",
        "ssl_ciphers DEFAULT:@SECLEVEL=2;",
        "ssl_ciphers DEFAULT:@SECLEVEL=1;",
        "ssl_ciphers DEFAULT:@SECLEVEL=0;",
    ];
    let mut table = Vec::new();
    for (what, lines) in &cases {
        let mut row = Vec::new();
        for level in levels {
            let text = format!(
                "{head}    server {{\n        listen 127.0.0.1:{port} ssl;\n        {lines}\n        \
                 {level}\n    }}\n}}\n",
                head = head(p),
                port = free_port()
            );
            std::fs::write(p.join("nginx.conf"), &text).unwrap();
            let t = common::nginx_test(&nginx, p);
            let stderr = String::from_utf8_lossy(&t.stderr);
            // nginx's words for each refusal.
            let verdict = if t.status.success() {
                "loads"
            } else if stderr.contains("ee key too small") {
                "ee key too small"
            } else if stderr.contains("ca md too weak") {
                "ca md too weak"
            } else if stderr.contains("dh key too small") {
                "dh key too small"
            } else {
                panic!("{what} {level}: {stderr}")
            };
            row.push(verdict);
        }
        table.push((*what, row));
    }
    let want = [
        (
            "1024-bit RSA key",
            ["ee key too small", "ee key too small", "loads", "loads"],
        ),
        (
            "1024-bit DH group",
            ["dh key too small", "dh key too small", "loads", "loads"],
        ),
        (
            "SHA-1 signed certificate",
            [
                "ca md too weak",
                "ca md too weak",
                "ca md too weak",
                "loads",
            ],
        ),
        (
            "MD5 signed certificate",
            [
                "ca md too weak",
                "ca md too weak",
                "ca md too weak",
                "loads",
            ],
        ),
        (
            "512-bit RSA key",
            [
                "ee key too small",
                "ee key too small",
                "ee key too small",
                "loads",
            ],
        ),
        ("512-bit DH group", ["dh key too small"; 4]),
    ];
    let want: Vec<(&str, Vec<&str>)> = want.iter().map(|(w, r)| (*w, r.to_vec())).collect();
    assert_eq!(
        table, want,
        "columns: no @SECLEVEL (this OpenSSL's default), @SECLEVEL=2, 1, 0"
    );

    // The handshakes: a DHE-only server at level 1 with the 1024-bit group, a server at
    // level 0 with the 512-bit RSA key, and one at the default level.
    let (one, zero, default) = (free_port(), free_port(), free_port());
    let text = format!(
        "{head}    server {{\n        listen 127.0.0.1:{one} ssl;\n        {c2048}\n        {dh1024}\n        \
         ssl_protocols TLSv1.2;\n        ssl_ciphers DHE-RSA-AES128-GCM-SHA256:@SECLEVEL=1;\n        \
         return 200;\n    }}\n    server {{\n        listen 127.0.0.1:{zero} ssl;\n        {c512}\n        \
         ssl_ciphers DEFAULT:@SECLEVEL=0;\n        return 200;\n    }}\n    server {{\n        \
         listen 127.0.0.1:{default} ssl;\n        {c2048}\n        return 200;\n    }}\n}}\n",
        head = head(p),
        c2048 = cert(&c2048, &k2048),
        c512 = cert(&c512, &k512),
        dh1024 = dh(1024)
    );
    let conf = p.join("nginx.conf");
    std::fs::write(&conf, &text).unwrap();
    let _running = common::start_nginx_on(&nginx, p, &conf, &[one, zero, default]);
    let connect = |port: u16, cipher: Option<&str>| {
        let target = format!("127.0.0.1:{port}");
        let mut args = vec!["s_client", "-connect", &target];
        if let Some(c) = cipher {
            args.extend(["-cipher", c]);
        }
        openssl(&args, None).unwrap().1
    };
    // The client at its own default level refuses the 1024-bit group nginx offers at 1.
    let out = connect(one, None);
    assert!(out.contains("dh key too small"), "{out}");
    let out = connect(one, Some("DHE-RSA-AES128-GCM-SHA256:@SECLEVEL=1"));
    assert!(
        out.contains("Server Temp Key: DH, 1024 bits")
            && out.contains("Cipher is DHE-RSA-AES128-GCM-SHA256"),
        "{out}"
    );
    let out = connect(zero, Some("DEFAULT:@SECLEVEL=0"));
    assert!(
        out.contains("Server public key is 512 bit") && out.contains(", TLSv1.2, Cipher is ECDHE-"),
        "{out}"
    );

    let found = lint(&conf, "NGX184", "NGX184");
    assert_eq!(
        found,
        [
            (
                line_of(&text, "@SECLEVEL=1"),
                "info".to_string(),
                "NGX184".to_string()
            ),
            (
                line_of(&text, "@SECLEVEL=0"),
                "warning".to_string(),
                "NGX184".to_string()
            ),
        ]
    );
}

// ---------------------------------------------------------------------------------------
// FPM111 php-hardening-off

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
