//! `lemplint fix --diff | git apply` gives exactly what `lemplint fix` writes, whatever the
//! file names (tabs, newlines, quotes, backslashes, escape sequences, bytes that are not
//! UTF-8) and contents (Latin-1 comments, CRLF, CR-only line ends, no final newline).

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(24);
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x0d1f_fa99),
        failure_persistence: None,
        max_shrink_iters: 256,
        ..Config::default()
    }
}

/// A file name component: any of the bytes that need quoting, never a leading dot (the
/// include glob skips those) and never `/` or NUL.
fn name() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"a".to_vec()),
        Just(b"site".to_vec()),
        Just(b" ".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\\".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"\x1b[2J".to_vec()),
        Just(b"caf\xc3\xa9".to_vec()),
        Just(b"\xe9".to_vec()),
        Just(b"\x7f".to_vec()),
        Just(b"::error file=x::".to_vec()),
    ];
    proptest::collection::vec(piece, 1..5).prop_map(|parts| {
        let mut n = b"v".to_vec();
        n.extend(parts.concat());
        n.extend_from_slice(b".conf");
        n
    })
}

/// A vhost with one fixable problem (`server_tokens on;`) among lines of odd bytes.
fn content() -> impl Strategy<Value = Vec<u8>> {
    let eol = prop_oneof![Just(&b"\n"[..]), Just(&b"\r\n"[..]), Just(&b"\r"[..])];
    let filler = prop_oneof![
        Just(b"# caf\xe9 latin-1".to_vec()),
        Just(b"# \xc3\xa9t\xc3\xa9".to_vec()),
        Just(b"    root /srv/www;".to_vec()),
        Just(b"\tlisten 80;".to_vec()),
        Just(b"# \x1b[31mred\x1b[0m".to_vec()),
    ];
    (
        proptest::collection::vec((filler, eol.clone()), 0..4),
        eol,
        any::<bool>(),
    )
        .prop_map(|(lines, end, final_eol)| {
            let mut out = b"server {".to_vec();
            out.extend_from_slice(end);
            for (l, e) in lines {
                // A comment runs to the next LF (a CR does not end it, for nginx either).
                let e = if l.starts_with(b"#") && e == b"\r" {
                    &b"\n"[..]
                } else {
                    e
                };
                out.extend(l);
                out.extend_from_slice(e);
            }
            out.extend_from_slice(b"    server_tokens on;");
            out.extend_from_slice(end);
            out.extend_from_slice(b"}");
            if final_eol {
                out.extend_from_slice(end);
            }
            out
        })
}

fn tree(dir: &Path, files: &[(Vec<u8>, Vec<u8>)]) {
    std::fs::create_dir_all(dir.join("conf.d")).unwrap();
    std::fs::write(
        dir.join("nginx.conf"),
        "events {}\nhttp {\n    server_tokens off;\n    include conf.d/*.conf;\n}\n",
    )
    .unwrap();
    for (name, text) in files {
        std::fs::write(dir.join("conf.d").join(OsStr::from_bytes(name)), text).unwrap();
    }
}

fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    std::fs::read_dir(dir.join("conf.d"))
        .unwrap()
        .flatten()
        .map(|e| (e.path(), std::fs::read(e.path()).unwrap()))
        .map(|(p, t)| (p.strip_prefix(dir).unwrap().to_path_buf(), t))
        .collect()
}

fn lemplint(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_diff_applies_and_gives_what_fix_writes(
        files in proptest::collection::btree_map(name(), content(), 1..4)
    ) {
        let files: Vec<(Vec<u8>, Vec<u8>)> = files.into_iter().collect();
        let d = tempfile::tempdir().unwrap();
        let (fixed, patched) = (d.path().join("fixed"), d.path().join("patched"));
        tree(&fixed, &files);
        tree(&patched, &files);
        let diff = lemplint(&fixed, &["fix", "--isolated", "--diff", "--select", "NGX022", "."]);
        prop_assert_eq!(diff.status.code(), Some(1), "{}", String::from_utf8_lossy(&diff.stderr));
        let patch = d.path().join("fix.patch");
        std::fs::write(&patch, &diff.stdout).unwrap();
        let applied = Command::new("git")
            .args(["apply", "--whitespace=nowarn"])
            .arg(&patch)
            .current_dir(&patched)
            .output()
            .unwrap();
        prop_assert!(
            applied.status.success(),
            "git apply refused:\n{}\n{}",
            String::from_utf8_lossy(&applied.stderr),
            String::from_utf8_lossy(&diff.stdout)
        );
        let fix = lemplint(&fixed, &["fix", "--isolated", "--select", "NGX022", "."]);
        prop_assert!(fix.status.code() != Some(2), "{}", String::from_utf8_lossy(&fix.stderr));
        let (want, got) = (contents(&fixed), contents(&patched));
        prop_assert_eq!(&want, &got);
        // And fix did fix every file.
        for text in want.values() {
            prop_assert!(text.windows(17).any(|w| w == b"server_tokens off"));
        }
    }
}
