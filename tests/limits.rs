//! Hostile and broken input: every case ends with a clear diagnostic and the right exit
//! code, never a panic, a hang or a damaged file.

use std::path::Path;
use std::process::{Command, Output};

fn lemplint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `lemplint lint --isolated --format concise ARGS…` in `dir`.
fn lint_concise(dir: &Path, args: &[&str]) -> Output {
    let all: Vec<&str> = ["lint", "--isolated", "--format", "concise"]
        .iter()
        .chain(args)
        .copied()
        .collect();
    lemplint(dir, &all)
}

/// The run ended with exit code `code` and printed `needle`.
fn assert_reported(out: &Output, code: i32, needle: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains(needle), "{}", text(&out.stdout));
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let d = tempfile::tempdir().unwrap();
    let n = 200_000;
    let body = format!(
        "events {{}}\nhttp {{{}{}}}\n",
        "location / {".repeat(n),
        "}".repeat(n)
    );
    std::fs::write(d.path().join("nginx.conf"), body).unwrap();
    let out = lint_concise(d.path(), &["nginx.conf"]);
    assert_reported(
        &out,
        2,
        "error[NGX000] blocks nested deeper than 256 levels are not supported",
    );
    let out = lemplint(d.path(), &["parse", "nginx.conf"]);
    assert_eq!(out.status.code(), Some(2));
    let out = lemplint(d.path(), &["parse", "--format", "crossplane", "nginx.conf"]);
    assert!(
        text(&out.stdout).starts_with("{\"status\":\"failed\""),
        "{}",
        text(&out.stdout)
    );
    // Unclosed, on one 600,000-byte line: reported without a code frame.
    std::fs::write(d.path().join("open.conf"), "a {".repeat(n)).unwrap();
    let out = lemplint(d.path(), &["lint", "--isolated", "open.conf"]);
    assert_reported(&out, 2, "(line 1 is 600000 bytes long; not shown)");
}

#[test]
fn random_bytes_get_syntax_errors_not_a_crash() {
    let d = tempfile::tempdir().unwrap();
    // A fixed pseudo-random file, NUL bytes and invalid UTF-8 included.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let bytes: Vec<u8> = (0..200_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(d.path().join("site.conf"), &bytes).unwrap();
    let out = lint_concise(d.path(), &["site.conf"]);
    assert_reported(&out, 2, ": error[");
    // `fix` never writes a file that does not parse.
    let out = lemplint(d.path(), &["fix", "--isolated", "site.conf"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(d.path().join("site.conf")).unwrap(), bytes);
}

#[test]
fn a_directory_of_symlinks_to_itself_terminates() {
    let d = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(".", d.path().join("self")).unwrap();
    std::fs::write(
        d.path().join("nginx.conf"),
        "events {}\nhttp { include self/*.conf; include self/self/self/*.conf; }\n",
    )
    .unwrap();
    let out = lint_concise(d.path(), &["."]);
    assert_reported(
        &out,
        2,
        "error[NGX021] include cycle: nginx.conf → self/nginx.conf",
    );
}

#[test]
fn fifos_and_devices_are_refused_not_read() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("etc/nginx")).unwrap();
    let fifo = d.path().join("etc/nginx/pipe.conf");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    std::fs::write(
        d.path().join("etc/nginx/nginx.conf"),
        "events {}\ninclude /etc/nginx/pipe.conf;\ninclude /dev/zero;\n",
    )
    .unwrap();
    let out = lint_concise(d.path(), &["--root", ".", "etc/nginx/nginx.conf"]);
    assert_reported(&out, 2, "pipe.conf\" failed (not a regular file)");
}

#[test]
fn files_over_the_size_cap_are_reported() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("etc/nginx")).unwrap();
    std::fs::write(
        d.path().join("etc/nginx/nginx.conf"),
        "events {}\ninclude big.conf;\n",
    )
    .unwrap();
    let big = std::fs::File::create(d.path().join("etc/nginx/big.conf")).unwrap();
    big.set_len(65 << 20).unwrap(); // sparse: no disk used
    let out = lint_concise(d.path(), &["etc/nginx/nginx.conf"]);
    assert_reported(&out, 2, "file is larger than the 64 MiB limit");
}

#[test]
fn a_read_only_file_is_reported_and_left_alone() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("etc/nginx");
    std::fs::create_dir_all(&dir).unwrap();
    let conf = dir.join("nginx.conf");
    let body = "events {}\nhttp { server_tokens on; }\n";
    std::fs::write(&conf, body).unwrap();
    // A read-only directory: the temporary file cannot be created (root ignores file modes).
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let probe = dir.join("probe");
    let root_can_write = std::fs::write(&probe, "").is_ok();
    let _ = std::fs::remove_file(&probe);
    let out = lemplint(d.path(), &["fix", "--isolated", "etc/nginx/nginx.conf"]);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    if root_can_write {
        return; // running as root on a filesystem that ignores the mode: nothing to prove
    }
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("cannot write"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&conf).unwrap(), body);
}

#[test]
fn ten_thousand_included_files_are_all_read() {
    // A fleet's `sites-enabled/*` of thousands of vhosts is a real configuration, not a
    // runaway glob (the cap is tested in `stack::nginx`).
    let d = tempfile::tempdir().unwrap();
    let conf = d.path().join("conf.d");
    std::fs::create_dir_all(&conf).unwrap();
    // One port each (servers sharing one with no `default_server` are NGX115's), and
    // `server_tokens off` (its default `on` is NGX022's): a configuration with nothing to
    // report.
    for i in 0..10_001 {
        std::fs::write(
            conf.join(format!("s{i:05}.conf")),
            format!("server {{ listen {}; }}\n", 10_000 + i),
        )
        .unwrap();
    }
    std::fs::write(
        d.path().join("nginx.conf"),
        "events {}\nhttp { server_tokens off; include conf.d/*.conf; }\n",
    )
    .unwrap();
    let out = lint_concise(d.path(), &["nginx.conf"]);
    assert_reported(&out, 0, "No problems found in 10002 files");
}

/// Past the per-file cap, duplicates are counted rather than built (a generated file can hold
/// millions): the thousand shown and the count of the rest add up to every duplicate, and a
/// file two configurations read is not counted twice.
#[test]
fn duplicates_past_the_cap_are_counted_exactly() {
    let d = tempfile::tempdir().unwrap();
    let body = "sendfile on;\n".repeat(2501);
    std::fs::write(d.path().join("dups.conf"), &body).unwrap();
    // One configuration, then two: 2,500 duplicates either way.
    for name in ["a", "b"] {
        std::fs::create_dir(d.path().join(name)).unwrap();
        std::fs::write(
            d.path().join(name).join("nginx.conf"),
            "events {}\nhttp { include ../dups.conf; }\n",
        )
        .unwrap();
        let out = lint_concise(d.path(), &["--select", "NGX023", "."]);
        assert_reported(
            &out,
            1,
            "1500 more NGX023 findings in this file are not shown (at most 1000 per rule and file)",
        );
        let stdout = text(&out.stdout);
        let shown = stdout
            .matches("\"sendfile\" directive is duplicate")
            .count();
        assert_eq!(shown % 1000, 0, "{stdout}");
        assert!(shown > 0, "{stdout}");
    }
}
