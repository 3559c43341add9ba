//! NGX137's attacks on location regexes, sent to the real nginx. nginx matches locations
//! against the URI after normalising it (`merge_slashes on`, the default, merges a run of
//! slashes; `.` segments are removed), so an attack whose pump is `/` never reaches the
//! regex as written: the message's URI must be one that nginx passes through unchanged and
//! that makes PCRE2 give up (`pcre2_match() failed: -47`, nginx answers 500), and a pattern
//! whose only attack is a run of slashes is left alone unless `merge_slashes off` keeps it.
//!
//! Without nginx the test is skipped with a note, or fails when `CI=true`.

mod common;
use common::{free_port, http_get, http_parts, nginx_head, required_nginx, run_lemplint};
use std::time::{Duration, Instant};

/// The URI in NGX137's message for `pattern` (what follows "on the URI: `").
fn attack_uri(stdout: &str, pattern: &str) -> Option<String> {
    let line = stdout
        .lines()
        .find(|l| l.contains("[NGX137]") && l.contains(pattern))?;
    let rest = line.split_once("on the URI: `")?.1;
    Some(rest.split_once('`')?.0.to_string())
}

/// The status nginx answers `target` with, and how long it took.
fn status(port: u16, target: &str) -> (String, Duration) {
    let t = Instant::now();
    let (code, _, _) = http_parts(&http_get(port, target));
    (code, t.elapsed())
}

#[test]
fn location_attacks_survive_nginxs_uri_normalisation() {
    let Some(nginx) = required_nginx("tests/redos_uri_binary.rs") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("tmp")).unwrap();
    let (merged, kept) = (free_port(), free_port());
    // The exponential `(\/.*)*` (from a public LNMP stack), and a quadratic `.*/*` whose
    // two repeats share only `/`: on one port with nginx's default `merge_slashes on`,
    // on the other with `merge_slashes off` (the default server's setting applies).
    let server = |port: u16, merge: &str| {
        format!(
            "    server {{\n        listen 127.0.0.1:{port} default_server;\n        \
             merge_slashes {merge};\n        \
             location ~ .*\\.php(\\/.*)*$ {{ return 200 \"php\"; }}\n        \
             location ~ ^/templates/.*/*.tpl {{ return 200 \"tpl\"; }}\n        \
             location / {{ return 200 \"other\"; }}\n    }}\n"
        )
    };
    let conf = format!(
        "{}{}{}}}\n",
        nginx_head(p),
        server(merged, "on"),
        server(kept, "off")
    );
    std::fs::write(p.join("nginx.conf"), &conf).unwrap();
    let out = run_lemplint(
        p,
        &[
            "lint",
            "nginx.conf",
            "--select",
            "NGX137",
            "--format",
            "concise",
        ],
        None,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let _nginx = common::start_nginx_on(&nginx, p, &p.join("nginx.conf"), &[merged, kept]);

    // The exponential pattern: its message's URI pumps `/a`, which nginx keeps, and gets
    // the 500 of PCRE2's match limit on both ports; the same attack pumping `/` alone is
    // merged into one slash under `merge_slashes on` and matched at once.
    let uri = attack_uri(&stdout, r".*\.php(\/.*)*$").expect(&stdout);
    assert!(uri.contains("/a/a/a"), "{uri}");
    assert_eq!(status(merged, &uri).0, "500", "{uri}");
    assert_eq!(status(kept, &uri).0, "500", "{uri}");
    let slashes = format!("/.php{}%0Ab.php", "/".repeat(32));
    let (code, took) = status(merged, &slashes);
    assert_eq!(code, "200", "{slashes}");
    assert_eq!(status(kept, &slashes).0, "500", "{slashes}");

    // The quadratic one: reported once, for the server that keeps doubled slashes, where
    // 8 KB of them reach the match limit; where they are merged, the same request is
    // answered as fast as the one above.
    let tpl: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("[NGX137]") && l.contains("templates"))
        .collect();
    assert_eq!(tpl.len(), 1, "{stdout}");
    let kept_line = conf
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("templates"))
        .nth(1)
        .unwrap()
        .0
        + 1;
    assert!(
        tpl[0].starts_with(&format!("nginx.conf:{kept_line}:")),
        "{stdout}"
    );
    let long = format!("/templates/{}%0Ab", "/".repeat(8000));
    assert_eq!(status(kept, &long).0, "500");
    let (code, fast) = status(merged, &long);
    assert_eq!(code, "200");
    assert!(
        fast < Duration::from_secs(1) && took < Duration::from_secs(1),
        "{fast:?} {took:?}"
    );
}

/// A rewrite collection beside the `nginx.conf` that sets `pcre_jit on` (an installer's
/// layout: the snippets are included where a site picks them, not by the main file in the
/// tree): NGX137 judges the snippets under the JIT, whose attack holds the byte the JIT
/// requires, and leaves alone the chain with a lookahead the JIT fails at once; without such
/// a main file, the lookahead chain is reported with what it depends on.
#[test]
fn snippets_beside_a_main_file_with_pcre_jit_are_judged_under_the_jit() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("rewrite")).unwrap();
    std::fs::write(
        p.join("rewrite/shop.conf"),
        "rewrite ^/goods-([0-9]+)(.*)\\.html /goods.php last;\n\
         location ~ ^/storage/.*\\.((?!(jpg|png)).)*$ { return 404; }\n",
    )
    .unwrap();
    let lint = || {
        let out = run_lemplint(
            p,
            &["lint", ".", "--select", "NGX137", "--format", "concise"],
            None,
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let unknown = lint();
    assert!(
        unknown.contains("storage") && unknown.contains("with `pcre_jit off`, nginx's default"),
        "{unknown}"
    );
    std::fs::write(p.join("nginx.conf"), "pcre_jit on;\nevents {}\nhttp {\n}\n").unwrap();
    let jit = lint();
    assert!(!jit.contains("storage"), "{jit}");
    let goods = jit
        .lines()
        .find(|l| l.contains("goods"))
        .unwrap_or_else(|| panic!("{jit}"));
    // The JIT's subject holds the `l` of `\.html`; the message says the JIT is on.
    assert!(goods.contains("l%0Ab`") || goods.contains("l!`"), "{goods}");
    assert!(
        goods.contains("`pcre_jit on` makes each attempt"),
        "{goods}"
    );
}
