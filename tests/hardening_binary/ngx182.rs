//! NGX182 ssl-early-data-replayable: see the crate comment in main.rs.

use super::*;

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
    let Some(nginx) = common::required_nginx("tests/hardening_binary/") else {
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
