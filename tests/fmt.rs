//! `lemplint fmt` end to end: a snapshot per style case (fixtures/fmt), and the command's
//! contract: `--check` and `--diff` exit 1 when a file would change, `--diff | git apply`
//! gives what `fmt` writes, a file with syntax errors is left alone (exit 2), `[format]` in
//! lemplint.toml is read, standard input goes to standard output.

mod common;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn run(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    common::run_lemplint(dir, args, stdin)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/fmt")
            .join(name),
    )
    .unwrap()
}

/// Tabs and CRs made visible in a snapshot.
fn visible(b: &[u8]) -> String {
    text(b).replace('\t', "<TAB>").replace('\r', "<CR>")
}

/// `fmt -` on a fixture, in a directory with `config` as its lemplint.toml (`""`: none).
fn format_fixture(name: &str, config: &str, extra: &[&str]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["fmt", "-"];
    if config.is_empty() {
        args.push("--isolated");
    } else {
        std::fs::write(dir.path().join("lemplint.toml"), config).unwrap();
    }
    args.extend_from_slice(extra);
    let out = run(dir.path(), &args, Some(&fixture(name)));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    out.stdout
}

#[test]
fn style_cases() {
    for (snapshot, name, config, extra) in [
        ("nesting", "nesting.conf", "", &[][..]),
        ("comments", "comments.conf", "", &[]),
        ("lua", "lua.conf", "", &[]),
        (
            "lua-indented",
            "lua.conf",
            "[format]\nindent-lua = true\n",
            &[],
        ),
        ("map", "map.conf", "", &[]),
        (
            "map-collapsed",
            "map.conf",
            "[format]\ncollapse-spaces = true\n",
            &[],
        ),
        ("crlf", "crlf.conf", "", &[]),
        ("tabs", "tabs.conf", "", &["--indent", "tab"]),
    ] {
        let once = format_fixture(name, config, extra);
        insta::assert_snapshot!(format!("fmt_{snapshot}"), visible(&once));
        // The output is formatted already.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lemplint.toml"), config).unwrap();
        let mut args = vec!["fmt", "-", "--check"];
        args.extend_from_slice(extra);
        let again = run(dir.path(), &args, Some(&once));
        assert_eq!(again.status.code(), Some(0), "{name}: not idempotent");
    }
}

/// A Debian-like tree with a symlinked site and an unformatted file.
fn tree() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let nginx = d.path().join("etc/nginx");
    std::fs::create_dir_all(nginx.join("sites-available")).unwrap();
    std::fs::create_dir_all(nginx.join("sites-enabled")).unwrap();
    std::fs::write(
        nginx.join("nginx.conf"),
        "events {}\nhttp {\n    include /etc/nginx/sites-enabled/*;\n}\n",
    )
    .unwrap();
    std::fs::write(
        nginx.join("sites-available/site"),
        "server {\nlisten 80;\n  location / { return 204; }\n}\n",
    )
    .unwrap();
    std::fs::set_permissions(
        nginx.join("sites-available/site"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    std::os::unix::fs::symlink("../sites-available/site", nginx.join("sites-enabled/site"))
        .unwrap();
    d
}

const SITE_FORMATTED: &str =
    "server {\n    listen 80;\n    location / {\n        return 204;\n    }\n}\n";

#[test]
fn check_reports_diff_applies_and_fmt_writes_through_the_link() {
    let d = tree();
    let site = d.path().join("etc/nginx/sites-available/site");
    let before = std::fs::read(&site).unwrap();

    let check = run(d.path(), &["fmt", "--check", "."], None);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stderr));
    assert!(
        text(&check.stdout).contains("Would reformat: "),
        "{}",
        text(&check.stdout)
    );
    assert!(text(&check.stderr).contains("1 file would be reformatted, 1 file already formatted"));
    assert_eq!(std::fs::read(&site).unwrap(), before, "--check wrote");

    let diff = run(d.path(), &["fmt", "--diff", "."], None);
    assert_eq!(diff.status.code(), Some(1));
    assert_eq!(std::fs::read(&site).unwrap(), before, "--diff wrote");
    let applied = tempfile::tempdir().unwrap();
    common::copy_tree(d.path(), applied.path());
    let mut git = Command::new("git")
        .args(["apply", "-"])
        .current_dir(applied.path())
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    git.stdin.take().unwrap().write_all(&diff.stdout).unwrap();
    assert!(
        git.wait().unwrap().success(),
        "git apply refused:\n{}",
        text(&diff.stdout)
    );

    let fmt = run(d.path(), &["fmt", "."], None);
    assert_eq!(fmt.status.code(), Some(0), "{}", text(&fmt.stderr));
    assert_eq!(
        text(&fmt.stdout),
        "1 file reformatted, 1 file left unchanged\n"
    );
    assert_eq!(text(&std::fs::read(&site).unwrap()), SITE_FORMATTED);
    assert_eq!(
        std::fs::read(applied.path().join("etc/nginx/sites-available/site")).unwrap(),
        std::fs::read(&site).unwrap(),
        "git apply of --diff differs from what fmt wrote"
    );
    let link = d.path().join("etc/nginx/sites-enabled/site");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let mode = std::fs::metadata(&site).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "permissions not kept");

    let again = run(d.path(), &["fmt", "--check", "."], None);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
}

#[test]
fn a_file_with_syntax_errors_is_left_as_it_is() {
    let d = tempfile::tempdir().unwrap();
    let conf = d.path().join("nginx.conf");
    let broken = "events {}\nhttp {\n  server { listen 80 }\n}\n";
    std::fs::write(&conf, broken).unwrap();
    let out = run(d.path(), &["fmt", "nginx.conf"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("nginx.conf:3:22: unexpected \"}\"; not formatted"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(text(&std::fs::read(&conf).unwrap()), broken);
    let out = run(d.path(), &["fmt", "--check", "nginx.conf"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_config_file_sets_the_indent_and_the_command_line_overrides_it() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("lemplint.toml"),
        "[format]\nindent = 2\ncollapse-spaces = true\n",
    )
    .unwrap();
    let src = b"http {\nserver {\nlisten   80;\n}\n}\n";
    let out = run(d.path(), &["fmt", "-"], Some(src));
    assert_eq!(
        text(&out.stdout),
        "http {\n  server {\n    listen 80;\n  }\n}\n"
    );
    let out = run(d.path(), &["fmt", "-", "--indent", "tab"], Some(src));
    assert_eq!(
        text(&out.stdout),
        "http {\n\tserver {\n\t\tlisten 80;\n\t}\n}\n"
    );

    std::fs::write(d.path().join("lemplint.toml"), "[format]\nindent = 40\n").unwrap();
    let out = run(d.path(), &["fmt", "-"], Some(src));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("expected a number of spaces from 1 to 16, or \"tab\""),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn standard_input_check_and_diff() {
    let d = tempfile::tempdir().unwrap();
    let src = b"events{ }\n";
    let out = run(d.path(), &["fmt", "-", "--isolated", "--check"], Some(src));
    assert_eq!((out.status.code(), out.stdout.len()), (Some(1), 0));
    let out = run(d.path(), &["fmt", "-", "--isolated", "--diff"], Some(src));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "--- a/<stdin>\n+++ b/<stdin>\n@@ -1 +1 @@\n-events{ }\n+events {}\n"
    );
    let out = run(d.path(), &["fmt", "-", "--isolated"], Some(b"events {}\n"));
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "events {}\n".into())
    );
}
