//! `nginx -T | lemplint lint -`: a dump written by the real nginx gives the findings the
//! tree it was written from gives (a dump saved to a file too), at the tree's files where they
//! hold the dump's bytes and at the dump's own lines where they do not.
//! Without nginx the test is skipped with a note, or fails when `CI=true`.

mod common;

use common::{copy_tree, nginx_binary, run_lemplint};
use std::path::Path;

/// (code, message) of each finding of a concise report, in order.
fn findings(stdout: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once(": ")?;
            let (sev_code, message) = rest.split_once("] ")?;
            let code = sev_code.split_once('[')?.1;
            Some((code.to_string(), message.to_string()))
        })
        .collect()
}

#[test]
fn a_dump_of_the_real_nginx_gives_the_trees_findings() {
    let Some(nginx) = nginx_binary() else {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("nginx is required on CI (CI=true) for tests/dump_binary.rs");
        }
        eprintln!("note: nginx not found; skipping (set CI=true to make this an error)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let conf = tmp.path().join("nginx");
    copy_tree(&root.join("fixtures/dump/nginx"), &conf);
    // The prefix makes every relative include resolve inside the copy: nothing of the
    // machine's own configuration is read.
    let out = std::process::Command::new(&nginx)
        .arg("-T")
        .arg("-p")
        .arg(format!("{}/", conf.display()))
        .args(["-c", "nginx.conf", "-e", "stderr"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dump = out.stdout;
    assert!(dump.starts_with(b"# configuration file "), "a dump");
    let args = ["--format", "concise", "--cpus", "2", "--memory", "2GiB"];
    let tree = run_lemplint(tmp.path(), &[&["lint", "nginx"][..], &args].concat(), None);
    let piped = run_lemplint(
        tmp.path(),
        &[&["lint", "-"][..], &args].concat(),
        Some(&dump),
    );
    std::fs::write(tmp.path().join("nginx-T.txt"), &dump).unwrap();
    let saved = run_lemplint(
        tmp.path(),
        &[&["lint", "nginx-T.txt"][..], &args].concat(),
        None,
    );
    let want = findings(&tree.stdout);
    assert!(
        want.iter().any(|(c, _)| c == "NGX104") && want.iter().any(|(c, _)| c == "NGX003"),
        "the tree's findings: {}",
        String::from_utf8_lossy(&tree.stdout)
    );
    for (name, run) in [("stdin", &piped), ("saved dump", &saved)] {
        assert_eq!(
            findings(&run.stdout),
            want,
            "{name}:\n{}\ntree:\n{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&tree.stdout)
        );
        assert_eq!(run.status.code(), tree.status.code(), "{name}");
    }
    // The dump's files are in the tree with the same bytes: findings are shown there.
    let saved_text = String::from_utf8_lossy(&saved.stdout).into_owned();
    assert!(!saved_text.contains("nginx-T.txt:"), "{saved_text}");
    assert!(saved_text.contains("nginx/sites-enabled/"), "{saved_text}");
    // A file edited since the dump is not the dump's: its findings stay at the dump's lines.
    let main = tmp.path().join("nginx/nginx.conf");
    let mut text = std::fs::read(&main).unwrap();
    text.extend_from_slice(b"# edited after the dump\n");
    std::fs::write(&main, text).unwrap();
    let edited = run_lemplint(
        tmp.path(),
        &[&["lint", "nginx-T.txt"][..], &args].concat(),
        None,
    );
    let edited = String::from_utf8_lossy(&edited.stdout);
    assert!(edited.contains("nginx-T.txt:"), "{edited}");
    assert!(edited.contains("nginx/sites-enabled/"), "{edited}");
}
