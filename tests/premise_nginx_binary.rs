//! The behaviour four nginx security rules rest on, shown with the real nginx (and openssl)
//! in private prefixes on 127.0.0.1 (issue #39):
//!
//! * NGX156: `auth_basic` on a plain-HTTP listener answers 401 with `WWW-Authenticate: Basic`,
//!   and the retry that nginx accepts carries `user:password` as base64 only, readable by
//!   anyone on the path (nginx.org, ngx_http_auth_basic_module; RFC 7617, section 4);
//! * NGX179: with `user root;` the worker processes run as uid 0; with an unprivileged `user`
//!   they switch to it; and when the master itself is not root, nginx ignores `user` with the
//!   warning the rule quotes (nginx.org, core module `user`; `ngx_worker_process_init`).
//!   Run unprivileged, the test shows the first part only, inside `unshare -Ur`;
//! * NGX182: with `ssl_early_data on` a TLS 1.3 0-RTT request (`openssl s_client -sess_in
//!   -early_data`) reaches the upstream; the client's first flight, recorded and sent twice
//!   by someone who cannot finish the handshake, reaches it twice; and the upstream learns
//!   that a request came in early data only when `proxy_set_header Early-Data
//!   $ssl_early_data` tells it (nginx.org, ngx_http_ssl_module `ssl_early_data`,
//!   `$ssl_early_data`; RFC 8470). The flag is "1" only while the handshake is incomplete,
//!   so a genuine client's request may carry it empty: only the replays' is asserted;
//! * NGX184: `@SECLEVEL=0` makes OpenSSL accept what the default level (and level 1) refuse:
//!   a certificate signed with SHA-1 and a 512-bit key load in nginx only at level 0, a
//!   1024-bit key only below level 2, and `ALL` keeps the unauthenticated (anonymous)
//!   suites only at level 0 (OpenSSL, `SSL_CTX_set_security_level`; nginx.org,
//!   `ssl_ciphers`).
//!
//! Where it is cheap, lemplint's report of the very configuration the test ran is checked
//! too. Without nginx or openssl the tests say they were skipped, and fail under `CI=true`.

mod common;

use common::{free_port, http_parts, http_raw};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

/// The group name of gid 65534 (`nogroup` on Debian, `nobody` elsewhere), from /etc/group.
fn nobody_group() -> String {
    std::fs::read_to_string("/etc/group")
        .unwrap_or_default()
        .lines()
        .find(|l| l.split(':').nth(2) == Some("65534"))
        .and_then(|l| l.split(':').next())
        .unwrap_or("nobody")
        .to_string()
}

/// The real uid of `pid` as the process itself sees it: `/proc/<pid>/status` gives it as
/// this test's user namespace sees it, and the process's `uid_map` translates that back into
/// its own namespace (identity outside any, `0 <test's uid> 1` under `unshare -Ur`).
fn uid_of(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let seen: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let map = std::fs::read_to_string(format!("/proc/{pid}/uid_map")).ok()?;
    map.lines().find_map(|l| {
        let f: Vec<u64> = l
            .split_whitespace()
            .filter_map(|n| n.parse().ok())
            .collect();
        let (inside, outside, count) = (*f.first()?, *f.get(1)?, *f.get(2)?);
        (outside..outside + count)
            .contains(&seen)
            .then(|| u32::try_from(inside + seen - outside).ok())?
    })
}

/// The processes whose parent is `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let status = std::fs::read_to_string(e.path().join("status")).unwrap_or_default();
        let ppid = status
            .lines()
            .find_map(|l| l.strip_prefix("PPid:"))
            .map(str::trim);
        if ppid == Some(parent.to_string().as_str()) {
            out.push(pid);
        }
    }
    out
}

/// An nginx master started in a process group of its own. Dropped, it is asked to stop
/// (SIGTERM: it reaps its workers, which would otherwise stay as zombies of init), and the
/// whole group is killed if it has not within two seconds.
struct Group(std::process::Child);

impl Drop for Group {
    fn drop(&mut self) {
        let pid = self.0.id() as i32;
        // SAFETY: kill(2) on the process and group this test started; no memory is involved.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let asked = Instant::now();
        while asked.elapsed() < Duration::from_secs(2) {
            if let Ok(Some(_)) = self.0.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // SAFETY: as above.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = self.0.wait();
    }
}

/// nginx with a master process (`daemon off`), started by `launcher` (empty: directly) with
/// `conf` written for `user_line`; returns (uid of the master, uid of its one worker, its
/// standard error and error log).
fn master_and_worker(nginx: &Path, launcher: &[&str], user_line: &str) -> (u32, u32, String) {
    let tmp = common::nginx_prefix(&[]);
    let p = tmp.path();
    let port = free_port();
    let conf = format!(
        "{user_line}\nworker_processes 1;\n{}    server {{\n        listen 127.0.0.1:{port};\n        \
         return 200 ok;\n    }}\n}}\n",
        common::nginx_head(p)
    );
    let path = write(p, "nginx.conf", &conf);
    // A master the test (as root) starts unprivileged must write its prefix.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        for d in [p.to_path_buf(), p.join("tmp")] {
            std::os::unix::fs::chown(&d, Some(65534), Some(65534)).unwrap();
        }
    }
    let mut cmd = match launcher.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(nginx);
            c
        }
        None => Command::new(nginx),
    };
    let master = cmd
        .arg("-p")
        .arg(p)
        .arg("-c")
        .arg(&path)
        .args(["-g", "daemon off;"])
        .stdout(Stdio::null())
        // Warnings about the configuration come before the error log is open.
        .stderr(std::fs::File::create(p.join("stderr.log")).unwrap())
        .process_group(0)
        .spawn()
        .expect("start nginx");
    let master = Group(master);
    let started = Instant::now();
    let worker = loop {
        // The master's socket accepts before the worker has switched users: wait for the
        // worker's own answer, which comes after its set-up (`ngx_worker_process_init`).
        if let Some(&w) = children_of(master.0.id()).first() {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
                && http_parts(&common::http_get(port, "/")).0 == "200"
            {
                break w;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "nginx ({user_line}) did not start a worker: {}",
            std::fs::read_to_string(p.join("error.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let uids = (uid_of(master.0.id()).unwrap(), uid_of(worker).unwrap());
    drop(master);
    let log = ["stderr.log", "error.log"]
        .map(|f| std::fs::read_to_string(p.join(f)).unwrap_or_default())
        .concat();
    (uids.0, uids.1, log)
}

#[test]
fn user_root_keeps_the_workers_root() {
    let Some(nginx) = common::required_nginx(FILE) else {
        return;
    };
    // lemplint reports the line, whatever starts nginx.
    let tmp = tempfile::tempdir().unwrap();
    let conf = write(tmp.path(), "nginx.conf", "user root;\nevents {}\nhttp {}\n");
    let text = common::lint_concise(&conf, "NGX179");
    assert!(text.contains("nginx.conf:1:6: warning[NGX179]"), "{text}");

    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        // Unprivileged, a user namespace makes nginx "root" and its workers stay uid 0 there.
        // `unshare -Ur` maps only uid 0, so `user nobody` (setuid to an unmapped uid) and the
        // unprivileged master cannot be shown there.
        let (master, worker, log) = master_and_worker(&nginx, &["unshare", "-Ur"], "user root;");
        assert_eq!((master, worker), (0, 0), "{log}");
        return;
    }
    let (master, worker, log) = master_and_worker(&nginx, &[], "user root;");
    assert_eq!((master, worker), (0, 0), "user root: {log}");
    let nobody = format!("user nobody {};", nobody_group());
    let (master, worker, log) = master_and_worker(&nginx, &[], &nobody);
    assert_eq!((master, worker), (0, 65534), "{nobody}: {log}");
    // A master that is not root cannot switch: `user root` is ignored, with a warning.
    let (master, worker, log) = master_and_worker(
        &nginx,
        &[
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ],
        "user root;",
    );
    assert_eq!((master, worker), (65534, 65534), "{log}");
    assert!(
        log.contains(
            "the \"user\" directive makes sense only if the master process runs with \
             super-user privileges, ignored"
        ),
        "{log}"
    );
}

/// The front server of the NGX182 test: TLS 1.3 with early data, proxying to `upstream`,
/// which answers with the `Early-Data` header it received and logs it to `upstream.log`;
/// `flag` is the location's extra line.
fn early_data_conf(
    p: &Path,
    port: u16,
    upstream: u16,
    cert: &Path,
    key: &Path,
    flag: &str,
) -> String {
    format!(
        "{}    log_format upstream '$request_uri [$http_early_data]';\n    \
         server {{\n        listen 127.0.0.1:{port} ssl;\n        \
         ssl_certificate {};\n        ssl_certificate_key {};\n        \
         ssl_protocols TLSv1.3;\n        ssl_early_data on;\n        \
         location / {{\n            {flag}\n            proxy_pass http://127.0.0.1:{upstream};\n        }}\n    }}\n    \
         server {{\n        listen 127.0.0.1:{upstream};\n        \
         access_log {}/upstream.log upstream;\n        \
         return 200 \"upstream got $request_uri Early-Data=[$http_early_data]\\n\";\n    }}\n}}\n",
        common::nginx_head(p),
        cert.display(),
        key.display(),
        p.display()
    )
}

/// One `openssl s_client` exchange with 127.0.0.1:`port` over TLS 1.3; `args` add the
/// session and early-data options. Its whole output.
fn s_client(port: u16, args: &[&str], stdin: Option<&Path>) -> Option<String> {
    let connect = format!("127.0.0.1:{port}");
    let mut all = vec!["s_client", "-connect", &connect, "-tls1_3", "-ign_eof"];
    all.extend_from_slice(args);
    let (_, out) = openssl(&all, stdin)?;
    Some(out)
}

/// What a client resuming `session` with `early` as early data sends before the server
/// answers (its ClientHello and the early data): `openssl s_client` talks to a listener that
/// records and never answers, as an eavesdropper on the path would record it. `None` as for
/// [`openssl`].
fn record_first_flight(session: &str, early: &str) -> Option<Vec<u8>> {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::scope(|scope| {
        let client =
            scope.spawn(|| s_client(port, &["-sess_in", session, "-early_data", early], None));
        let (mut conn, _) = listener.accept().unwrap();
        conn.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut flight = Vec::new();
        let mut buf = [0u8; 16384];
        // The client sends its whole first flight at once, then waits for the server: read
        // until it has been quiet for half a second.
        while let Ok(n) = conn.read(&mut buf) {
            if n == 0 {
                break;
            }
            flight.extend_from_slice(&buf[..n]);
        }
        drop(conn);
        client.join().unwrap()?;
        Some(flight)
    })
}

/// Sends the recorded `flight` to 127.0.0.1:`port` as a replayer would (it cannot finish the
/// handshake) and keeps the connection open until `log` has `lines` lines (three seconds at
/// most).
fn replay(port: u16, flight: &[u8], log: &Path, lines: usize) {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(flight).unwrap();
    let sent = Instant::now();
    while std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .count()
        < lines
        && sent.elapsed() < Duration::from_secs(3)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn early_data_reaches_the_upstream_which_is_told_only_by_the_flag() {
    let Some(nginx) = common::required_nginx(FILE) else {
        return;
    };
    let tmp = common::nginx_prefix(&[]);
    let p = tmp.path();
    let Some((cert, key)) = common::self_signed(FILE, p, "site", 2048) else {
        return;
    };
    let request = |uri: &str, close: &str| {
        write(
            p,
            &uri[1..],
            &format!("GET {uri} HTTP/1.1\r\nHost: t\r\n{close}\r\n"),
        )
    };
    let close = "Connection: close\r\n";
    let (first, early) = (request("/first", close), request("/early", close));
    let replayed = request("/replayed", "");
    let session = p.join("session.pem");
    let session = session.to_str().unwrap();
    let log = p.join("upstream.log");
    // The upstream's log writes a header it did not get as `-`.
    for (flag, seen) in [
        ("", "[-]"),
        ("proxy_set_header Early-Data $ssl_early_data;", "[1]"),
    ] {
        let (port, upstream) = (free_port(), free_port());
        let conf = early_data_conf(p, port, upstream, &cert, &key, flag);
        let path = write(p, "nginx.conf", &conf);
        let _ = std::fs::remove_file(&log);
        let _nginx = common::start_nginx_on(&nginx, p, &path, &[port, upstream]);
        // A full handshake first, for the session ticket; no early data then.
        let Some(out) = s_client(port, &["-sess_out", session], Some(&first)) else {
            return;
        };
        assert!(
            out.contains("Early data was not sent")
                && out.contains("upstream got /first Early-Data=[]"),
            "{out}"
        );
        // The client resumes with its request in early data: accepted and passed on. (The
        // flag itself is "1" only while the handshake is incomplete, nginx's documentation
        // says, so for this client, whose Finished may already be in, it can be empty.)
        let Some(out) = s_client(
            port,
            &["-sess_in", session, "-early_data", early.to_str().unwrap()],
            None,
        ) else {
            return;
        };
        assert!(
            out.contains("Early data was accepted") && out.contains("upstream got /early"),
            "{flag:?}: {out}"
        );
        // A recorded first flight, sent twice by someone who cannot finish the handshake:
        // the request reaches the upstream each time, and the upstream learns it came in
        // early data only when the configuration forwards the flag.
        let Some(flight) = record_first_flight(session, replayed.to_str().unwrap()) else {
            return;
        };
        replay(port, &flight, &log, 3);
        replay(port, &flight, &log, 4);
        let lines = std::fs::read_to_string(&log).unwrap_or_default();
        let replays: Vec<&str> = lines
            .lines()
            .filter(|l| l.starts_with("/replayed"))
            .collect();
        assert_eq!(
            replays,
            [format!("/replayed {seen}"), format!("/replayed {seen}")],
            "{flag:?}: {lines}"
        );
        // lemplint reports the configuration that does not forward the flag, only that one.
        let text = common::lint_concise(&path, "NGX182");
        let line = common::line_of(&conf, "ssl_early_data on");
        assert_eq!(
            text.contains(&format!("nginx.conf:{line}:")) && text.contains("NGX182"),
            flag.is_empty(),
            "{flag:?}: {text}"
        );
    }
}

/// `nginx -t` of a TLS server with `cert`/`key` and `ssl_ciphers ciphers`: `Ok` or the
/// error.
fn loads(nginx: &Path, p: &Path, cert: &Path, key: &Path, ciphers: &str) -> Result<(), String> {
    let conf = format!(
        "{}    server {{\n        listen 127.0.0.1:{} ssl;\n        ssl_certificate {};\n        \
         ssl_certificate_key {};\n        ssl_ciphers \"{ciphers}\";\n    }}\n}}\n",
        common::nginx_head(p),
        free_port(),
        cert.display(),
        key.display()
    );
    write(p, "nginx.conf", &conf);
    let out = common::nginx_test(nginx, p);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() {
        Ok(())
    } else {
        Err(err)
    }
}

#[test]
fn seclevel_zero_accepts_what_the_default_level_refuses() {
    let Some(nginx) = common::required_nginx(FILE) else {
        return;
    };
    let tmp = common::nginx_prefix(&[]);
    let p = tmp.path();
    let path = |n: &str| p.join(n).to_str().unwrap().to_string();
    // A 1024-bit key (self-signed) and a 2048-bit leaf a CA signed with SHA-1.
    let Some((small_cert, small_key)) = common::self_signed(FILE, p, "small", 1024) else {
        return;
    };
    let Some((ca, ca_key)) = common::self_signed(FILE, p, "ca", 2048) else {
        return;
    };
    let steps: [&[&str]; 2] = [
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=leaf",
            "-keyout",
            &path("leaf.key"),
            "-out",
            &path("leaf.csr"),
        ],
        &[
            "x509",
            "-req",
            "-in",
            &path("leaf.csr"),
            "-CA",
            ca.to_str().unwrap(),
            "-CAkey",
            ca_key.to_str().unwrap(),
            "-CAcreateserial",
            "-sha1",
            "-days",
            "2",
            "-out",
            &path("leaf.pem"),
        ],
    ];
    for args in steps {
        let Some((ok, out)) = openssl(args, None) else {
            return;
        };
        assert!(ok, "openssl {args:?}: {out}");
    }
    let (sha1_cert, sha1_key) = (p.join("leaf.pem"), p.join("leaf.key"));
    let Some((tiny_cert, tiny_key)) = common::self_signed(FILE, p, "tiny", 512) else {
        return;
    };

    let level = |cert: &Path, key: &Path, suffix: &str| {
        loads(&nginx, p, cert, key, &format!("DEFAULT{suffix}"))
    };
    // The default level (2 on Debian's OpenSSL 3) refuses all three; level 1 the 512-bit
    // key and the SHA-1 signature; level 0 none.
    let refused = level(&small_cert, &small_key, "").unwrap_err();
    assert!(refused.contains("ee key too small"), "{refused}");
    assert_eq!(level(&small_cert, &small_key, ":@SECLEVEL=1"), Ok(()));
    for suffix in ["", ":@SECLEVEL=1"] {
        let refused = level(&sha1_cert, &sha1_key, suffix).unwrap_err();
        assert!(refused.contains("ca md too weak"), "{suffix}: {refused}");
        let refused = level(&tiny_cert, &tiny_key, suffix).unwrap_err();
        assert!(refused.contains("ee key too small"), "{suffix}: {refused}");
    }
    assert_eq!(level(&tiny_cert, &tiny_key, ":@SECLEVEL=0"), Ok(()));
    assert_eq!(level(&sha1_cert, &sha1_key, ":@SECLEVEL=0"), Ok(()));
    let conf = std::fs::read_to_string(p.join("nginx.conf")).unwrap();
    let text = common::lint_concise(&p.join("nginx.conf"), "NGX184");
    let line = common::line_of(&conf, "@SECLEVEL=0");
    assert!(
        text.contains(&format!("nginx.conf:{line}:")) && text.contains("warning[NGX184]"),
        "{text}"
    );

    // The suites OpenSSL keeps (`-s`: those the level allows): `ALL` takes the anonymous
    // ones (no certificate, so no authentication) only at level 0.
    let suites = |spec: &str| {
        openssl(&["ciphers", "-s", "-v", spec], None).map(|(ok, out)| {
            assert!(ok, "{out}");
            out.lines()
                .filter_map(|l| l.split_whitespace().next().map(str::to_string))
                .collect::<Vec<_>>()
        })
    };
    let (Some(default), Some(one), Some(zero)) = (
        suites("ALL"),
        suites("ALL:@SECLEVEL=1"),
        suites("ALL:@SECLEVEL=0"),
    ) else {
        return;
    };
    let added: Vec<&String> = zero.iter().filter(|s| !default.contains(s)).collect();
    assert_eq!(default, one);
    assert!(
        !added.is_empty()
            && added
                .iter()
                .all(|s| s.starts_with("ADH-") || s.starts_with("AECDH-")),
        "{added:?}"
    );
}
