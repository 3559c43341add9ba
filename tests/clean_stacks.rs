//! Correct stacks stay silent: every directory under `fixtures/clean/` is linted as a user
//! runs lemplint (the default group, host facts given), and no finding at warning or error
//! may appear. Each is written from the framework's and the distribution's own documentation;
//! a finding here is a false alarm on a team's first run.

mod common;

use std::path::Path;

#[test]
fn clean_stacks_have_no_warning_or_error() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/clean");
    let mut stacks: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    stacks.sort();
    assert!(!stacks.is_empty(), "no stack under {}", dir.display());
    for stack in stacks {
        let out = common::run_lemplint(
            &stack,
            &[
                "lint",
                ".",
                "--isolated",
                "--cpus",
                "2",
                "--memory",
                "4GiB",
                "--format",
                "concise",
            ],
            None,
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let loud: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(": warning[") || l.contains(": error["))
            .collect();
        assert!(
            loud.is_empty() && out.status.code() == Some(0),
            "{}: {loud:#?}\n{}",
            stack.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
