//! Differential test of the access-and-routing rules (issue #39) against the real nginx:
//! each rule reports its case on one configuration, and nginx does what the finding says.
//!
//! - NGX161: `/admin/x.php` is taken by the regex location beside `location /admin/`, so
//!   it reaches the FastCGI backend (502 from the closed port) without the 401 that
//!   `/admin/x` gets; `/admin/x.txt` comes off the disk from an asset regex; with
//!   `merge_slashes off`, `//secret/x.txt` is served by `location /` while `/secret/x.txt`
//!   is 403. A PHP regex nested in the prefix inherits the login (401) while the asset
//!   regex beside it still serves `/nested/x.txt`; a `^~` prefix stays closed (silent).
//!   `location /backup/ { deny all; }` answers 403 while `~* \.(zip|gz|sql)$` beside it
//!   serves `/backup/db.sql` (a warning: a data file, not an asset).
//!
//! - NGX185: `location /protected/` without `internal` hands `/protected/invoice.pdf` to a
//!   client (200); with `internal` the client gets 404 while an upstream's
//!   `X-Accel-Redirect: /protected2/invoice.pdf` still serves it.
//!
//! - NGX162: `GET /auth` reaches the service behind the `auth_request` location (200);
//!   with `internal` the same location is 404 to a client and the subrequest still works.
//!
//! - NGX163: `?next=https://evil.example` becomes the `Location`; a capture after
//!   `/cgi-bin` starts it (`http:/evil.example`); with `absolute_redirect off`,
//!   `GET //evil.example` gets `Location: //evil.example`, and with it on nginx puts its
//!   own scheme and host first (silent).
//!
//! - NGX164: `Host: evil.example` reaches the PHP location of the catch-all default
//!   server while the named site on the same address answers only its own name.
//!
//! - NGX139 (extended): `$1` in a prefix location no regex reached, and in `if ($uri !~
//!   re)`, is empty.
//!
//! Without nginx the test is skipped with a note, or fails when `CI=true`.

mod common;
use common::free_port;

use std::path::Path;

/// One HTTP/1.0 GET: the status and the body.
fn get(port: u16, target: &str) -> (String, String) {
    let (status, _, body) = common::http_parts(&common::http_get(port, target));
    (status, body)
}

fn config(
    prefix: &Path,
    [port, port2, port3, port4, port5, port6, port7, port8, closed]: [u16; 9],
) -> String {
    format!(
        r#"error_log {p}/error.log;
pid {p}/nginx.pid;
events {{}}
http {{
    access_log off;
    client_body_temp_path {p}/tmp;
    proxy_temp_path {p}/tmp;
    fastcgi_temp_path {p}/tmp;
    uwsgi_temp_path {p}/tmp;
    scgi_temp_path {p}/tmp;
    server {{
        listen 127.0.0.1:{port};
        root {p}/html;
        location /admin/ {{
            auth_basic "staff";
            auth_basic_user_file {p}/htpasswd;
        }}
        location /nested/ {{
            auth_basic "staff";
            auth_basic_user_file {p}/htpasswd;
            location ~ \.php$ {{
                fastcgi_pass 127.0.0.1:{closed};
            }}
        }}
        location ^~ /stop/ {{
            auth_basic "staff";
            auth_basic_user_file {p}/htpasswd;
        }}
        location ~ \.php$ {{
            fastcgi_pass 127.0.0.1:{closed};
        }}
        location ~* \.(txt|css)$ {{
            expires 1d;
        }}
    }}
    server {{
        listen 127.0.0.1:{port2};
        root {p}/html;
        merge_slashes off;
        location /secret/ {{
            deny all;
        }}
        location / {{
            try_files $uri =404;
        }}
    }}
    server {{
        listen 127.0.0.1:{port3};
        root {p}/html;
        location /app/ {{
            auth_request /auth;
        }}
        location = /auth {{
            proxy_pass http://127.0.0.1:{port3}/verify;
        }}
        location /app2/ {{
            auth_request /auth2;
        }}
        location = /auth2 {{
            internal;
            proxy_pass http://127.0.0.1:{port3}/verify;
        }}
        location = /verify {{
            return 200 "authsvc";
        }}
    }}
    server {{
        listen 127.0.0.1:{port4};
        absolute_redirect off;
        location /go {{
            return 302 $arg_next;
        }}
        location /cgi-bin {{
            rewrite ^/cgi-bin(.*)$ $1 permanent;
        }}
        location /abs/ {{
            absolute_redirect on;
            return 301 $request_uri;
        }}
        location / {{
            return 301 $request_uri;
        }}
    }}
    server {{
        listen 127.0.0.1:{port5};
        server_name _;
        location ~ \.php$ {{
            fastcgi_pass 127.0.0.1:{closed};
        }}
    }}
    server {{
        listen 127.0.0.1:{port5};
        server_name shop.example;
        return 200 "shop";
    }}
    server {{
        listen 127.0.0.1:{port6};
        location /old/ {{
            return 200 "[$1]";
        }}
        location /neg {{
            if ($uri !~ ^/neg/(\w+)$) {{
                return 200 "[$1]";
            }}
        }}
    }}
    server {{
        listen 127.0.0.1:{port7};
        root {p}/html;
        location /backup/ {{
            deny all;
        }}
        location ~* \.(zip|gz|sql)$ {{
            expires 1h;
        }}
    }}
    server {{
        listen 127.0.0.1:{port8};
        root {p}/html;
        location /protected/ {{
            alias {p}/invoices/;
        }}
        location /protected2/ {{
            internal;
            alias {p}/invoices/;
        }}
        location = /download {{
            proxy_pass http://127.0.0.1:{port8}/backend;
        }}
        location = /backend {{
            add_header X-Accel-Redirect /protected2/invoice.pdf;
            return 200 "";
        }}
    }}
}}
"#,
        p = prefix.display()
    )
}

#[test]
fn access_routing_rules_agree_with_nginx() {
    let Some(nginx) = common::required_nginx("tests/access_routing_binary.rs") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path();
    for dir in [
        "html/admin",
        "html/app2",
        "html/nested",
        "html/secret",
        "html/stop",
        "html/backup",
        "invoices",
        "tmp",
    ] {
        std::fs::create_dir_all(prefix.join(dir)).unwrap();
    }
    std::fs::write(prefix.join("html/admin/x.txt"), "admin file").unwrap();
    std::fs::write(prefix.join("html/secret/x.txt"), "secret file").unwrap();
    std::fs::write(prefix.join("html/stop/x.txt"), "stopped").unwrap();
    std::fs::write(prefix.join("html/nested/x.txt"), "nested file").unwrap();
    std::fs::write(prefix.join("html/app2/x.txt"), "app file").unwrap();
    std::fs::write(prefix.join("html/backup/db.sql"), "dump").unwrap();
    std::fs::write(prefix.join("invoices/invoice.pdf"), "invoice").unwrap();
    std::fs::write(prefix.join("htpasswd"), "u:{PLAIN}p\n").unwrap();
    let ports = [(); 9].map(|()| free_port());
    let [port, port2, port3, port4, port5, port6, port7, port8, _] = ports;
    let conf = prefix.join("nginx.conf");
    std::fs::write(&conf, config(prefix, ports)).unwrap();

    // lemplint's side.
    let report = common::lint_concise(&conf, "NGX139,NGX161,NGX162,NGX163,NGX164,NGX185");
    let at = |line: u32| {
        report
            .lines()
            .filter(|l| l.contains(&format!("nginx.conf:{line}:")))
            .collect::<Vec<_>>()
    };
    let admin = at(14);
    assert!(
        admin.len() == 1 && admin[0].contains("`/admin/index.php` is passed on"),
        "NGX161 on location /admin/:\n{report}"
    );
    // The nested PHP regex inherits the login, the asset regex beside it does not.
    let nested = at(18);
    assert!(
        nested.len() == 1 && nested[0].contains("info[NGX161] `/nested/x.css` is served as a file"),
        "NGX161 on location /nested/:\n{report}"
    );
    let secret = at(40);
    assert!(
        secret.len() == 1 && secret[0].contains("`//secret/x`"),
        "NGX161 on location /secret/:\n{report}"
    );
    // A dump under a `deny all` prefix, served by an extension regex: a warning (the
    // file is the kind the `deny` keeps in), where the asset above is information.
    let backup = at(110);
    assert!(
        backup.len() == 1
            && backup[0]
                .contains("warning[NGX161] `/backup/x.sql` is served as a file (a data file"),
        "NGX161 on location /backup/:\n{report}"
    );
    assert_eq!(
        report.lines().filter(|l| l.contains("[NGX161]")).count(),
        4,
        "NGX161 beyond /admin/, /nested/, /secret/ and /backup/ (`^~` is silent):\n{report}"
    );

    let auth = at(53);
    assert!(
        auth.len() == 1
            && auth[0].contains("[NGX162] `location = /auth` answers the `auth_request /auth`"),
        "NGX162 on location = /auth:\n{report}"
    );
    assert_eq!(
        report.lines().filter(|l| l.contains("[NGX162]")).count(),
        1,
        "NGX162 beyond /auth (the internal /auth2 is silent):\n{report}"
    );
    for (line, text) in [
        (71, "the client chooses the whole target `$arg_next`"),
        (74, "`GET /cgi-binhttp:/evil.example`"),
        (81, "`GET //evil.example` gets `Location: //evil.example`"),
    ] {
        let found = at(line);
        assert!(
            found.len() == 1 && found[0].contains("[NGX163]") && found[0].contains(text),
            "NGX163 at line {line}:\n{report}"
        );
    }
    assert_eq!(
        report.lines().filter(|l| l.contains("[NGX163]")).count(),
        3,
        "NGX163 beyond its three (`absolute_redirect on` is silent):\n{report}"
    );
    let catch_all = at(84);
    assert!(
        catch_all.len() == 1 && catch_all[0].contains("info[NGX164] any Host reaches the PHP"),
        "NGX164 on the catch-all server:\n{report}"
    );
    assert_eq!(
        report.lines().filter(|l| l.contains("[NGX164]")).count(),
        1,
        "NGX164 beyond the catch-all:\n{report}"
    );
    for line in [99, 103] {
        assert!(
            at(line)
                .iter()
                .any(|l| l.contains("[NGX139]") && l.contains("`$1` is always empty")),
            "NGX139 at line {line}:\n{report}"
        );
    }

    // NGX185: the X-Accel-Redirect target without `internal`; the one with it is silent.
    let protected = at(120);
    assert!(
        protected.len() == 1
            && protected[0].contains("warning[NGX185] `location /protected/` is named `protected`"),
        "NGX185 on location /protected/:\n{report}"
    );
    assert_eq!(
        report.lines().filter(|l| l.contains("[NGX185]")).count(),
        1,
        "NGX185 beyond /protected/ (the internal /protected2/ is silent):\n{report}"
    );

    // nginx's side.
    let _running = common::start_nginx_on(
        &nginx,
        prefix,
        &conf,
        &[port, port2, port3, port4, port5, port6, port7, port8],
    );
    // The prefix itself asks for a password…
    assert_eq!(get(port, "/admin/x").0, "401");
    // …but a script under it goes to the regex location: the FastCGI port is closed, so
    // nginx answers 502 — it got past the access phase without credentials.
    assert_eq!(get(port, "/admin/index.php").0, "502");
    // The asset regex serves the file under the protected prefix.
    assert_eq!(
        get(port, "/admin/x.txt"),
        ("200".to_string(), "admin file".to_string())
    );
    // Silent look-alikes: the nested regex inherits the login, `^~` stops the regexes.
    assert_eq!(get(port, "/nested/index.php").0, "401");
    assert_eq!(
        get(port, "/nested/x.txt"),
        ("200".to_string(), "nested file".to_string())
    );
    assert_eq!(get(port, "/stop/x.txt").0, "401");
    // merge_slashes off: the doubled slash is not under `/secret/`.
    assert_eq!(get(port2, "/secret/x.txt").0, "403");
    assert_eq!(
        get(port2, "//secret/x.txt"),
        ("200".to_string(), "secret file".to_string())
    );
    // NGX162: a client asks the authorization endpoint directly…
    assert_eq!(
        get(port3, "/auth"),
        ("200".to_string(), "authsvc".to_string())
    );
    // …unless it is `internal`, which still answers nginx's subrequest.
    assert_eq!(get(port3, "/auth2").0, "404");
    // NGX163: the argument is the whole `Location`.
    let location = |target: &str| {
        let (status, head, _) = common::http_parts(&common::http_get(port4, target));
        let loc = head
            .lines()
            .find_map(|l| l.strip_prefix("Location: "))
            .map(str::to_string);
        (status, loc)
    };
    assert_eq!(
        location("/go?next=https://evil.example"),
        ("302".to_string(), Some("https://evil.example".to_string()))
    );
    // The capture after `/cgi-bin` starts the `Location` (the path merged `//`).
    assert_eq!(
        location("/cgi-binhttp://evil.example"),
        ("301".to_string(), Some("http:/evil.example".to_string()))
    );
    // `absolute_redirect off` sends the raw `//evil.example`; on, nginx adds its host.
    assert_eq!(
        location("//evil.example"),
        ("301".to_string(), Some("//evil.example".to_string()))
    );
    // NGX164: a Host no server names reaches the catch-all's PHP location (502 from the
    // closed FastCGI port); the named site answers its own Host.
    let with_host = |host: &str| {
        let r = common::http_raw(
            port5,
            &format!("GET /x.php HTTP/1.0\r\nHost: {host}\r\n\r\n"),
        );
        let (status, _, body) = common::http_parts(&r);
        (status, body)
    };
    assert_eq!(with_host("evil.example").0, "502");
    assert_eq!(
        with_host("shop.example"),
        ("200".to_string(), "shop".to_string())
    );
    // NGX139: no regex ran (a prefix location), or only a negated one that failed.
    assert_eq!(get(port6, "/old/x"), ("200".to_string(), "[]".to_string()));
    assert_eq!(
        get(port6, "/neg/a-b"),
        ("200".to_string(), "[]".to_string())
    );
    let (status, abs) = location("/abs//evil.example");
    assert_eq!(status, "301");
    assert!(
        abs.as_deref()
            .is_some_and(|l| l.starts_with("http://t") && l.ends_with("/abs//evil.example")),
        "{abs:?}"
    );
    assert_eq!(
        get(port3, "/app2/x.txt"),
        ("200".to_string(), "app file".to_string())
    );
    // NGX161, data file: the prefix refuses, the extension regex hands out the dump.
    assert_eq!(get(port7, "/backup/").0, "403");
    assert_eq!(
        get(port7, "/backup/db.sql"),
        ("200".to_string(), "dump".to_string())
    );
    // NGX185: without `internal` a client downloads the invoice directly; with it the
    // client gets 404 and the application's `X-Accel-Redirect` still serves the file.
    assert_eq!(
        get(port8, "/protected/invoice.pdf"),
        ("200".to_string(), "invoice".to_string())
    );
    assert_eq!(get(port8, "/protected2/invoice.pdf").0, "404");
    assert_eq!(
        get(port8, "/download"),
        ("200".to_string(), "invoice".to_string())
    );
}
