//! NGX187's premise against the real nginx: an access check on `$request_uri` (the URI as the
//! client wrote it) and the location/file chosen by the normalised URI disagree on requests
//! that spell a path another way. Each request lemplint's finding names is sent (raw, as
//! `curl --path-as-is` would) to the configuration of `fixtures/nginx/NGX187/fires.conf`,
//! with a docroot holding the files:
//!
//! - the exemption: `/admin/config` gets 401, `/user/login/../../admin/config` the file;
//! - the denylist: `/admin/x` gets 403, `/./admin/x` and `/%61dmin/x` the file;
//! - the allowlist: `/secret/x` gets 404, `/public/../secret/x` the file.
//!
//! Without nginx the test says it was skipped, or fails under `CI=true`.

mod common;

use common::free_port;

#[test]
fn raw_uri_checks_are_walked_past_as_lemplint_says() {
    let Some(nginx) = common::required_nginx("tests/raw_uri_binary.rs") else {
        return;
    };
    let tmp = common::nginx_prefix(&[]);
    let p = tmp.path();
    for (file, text) in [
        ("html/admin/config", "admin config"),
        ("html/admin/x", "admin x"),
        ("html/secret/x", "secret x"),
        ("html/public/x", "public x"),
    ] {
        let path = p.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::write(p.join("htpasswd"), "u:{PLAIN}p\n").unwrap();
    let ports = [free_port(), free_port(), free_port()];
    // The fixture, with the test's prefix, ports, docroot and password file.
    let fixture = std::fs::read_to_string("fixtures/nginx/NGX187/fires.conf").unwrap();
    let conf_text = fixture
        .replace("listen 8081;", &format!("listen 127.0.0.1:{};", ports[0]))
        .replace("listen 8082;", &format!("listen 127.0.0.1:{};", ports[1]))
        .replace("listen 8083;", &format!("listen 127.0.0.1:{};", ports[2]))
        .replace("/srv/site", &p.join("html").display().to_string())
        .replace(
            "/etc/nginx/htpasswd",
            &p.join("htpasswd").display().to_string(),
        )
        .replace("events {}\nhttp {\n", &common::nginx_head(p));
    let conf = p.join("nginx.conf");
    std::fs::write(&conf, conf_text).unwrap();

    // lemplint names the three requests.
    let text = common::lint_concise(&conf, "NGX187");
    for witness in [
        "`/user/login/../../secret`",
        "`/./admin`",
        "`/public/../secret`",
    ] {
        assert!(text.contains(witness), "{witness} missing:\n{text}");
    }

    let _running = common::start_nginx(&nginx, p, &conf, ports[0]);
    let get = |port: u16, target: &str| {
        let response = common::http_raw(port, &format!("GET {target} HTTP/1.0\r\nHost: t\r\n\r\n"));
        let (status, _, body) = common::http_parts(&response);
        (status, body)
    };
    let status = |port, target| get(port, target).0;
    // The exemption.
    assert_eq!(status(ports[0], "/admin/config"), "401");
    assert_eq!(
        get(ports[0], "/user/login/../../admin/config"),
        ("200".to_string(), "admin config".to_string())
    );
    // The denylist.
    assert_eq!(status(ports[1], "/admin/x"), "403");
    for disguised in ["/./admin/x", "/%61dmin/x"] {
        assert_eq!(
            get(ports[1], disguised),
            ("200".to_string(), "admin x".to_string()),
            "{disguised}"
        );
    }
    // The allowlist.
    assert_eq!(status(ports[2], "/secret/x"), "404");
    assert_eq!(status(ports[2], "/public/x"), "200");
    assert_eq!(
        get(ports[2], "/public/../secret/x"),
        ("200".to_string(), "secret x".to_string())
    );
}
