//! After `lemplint fix --unsafe-fixes`, every rule fixture that lemplint then finds free of
//! errors must be accepted by the real programs: `nginx -t` for nginx cases, `php-fpm8.2 -t`
//! for PHP-FPM cases. This ties our "no error" to theirs, and proves that fixes never produce
//! a file the real parser rejects.

use lemplint::cli::lint::collect;
use lemplint::diagnostic::Severity;
use lemplint::fix::run::{run as run_fixes, Request};
use lemplint::fix::Applicability;
use lemplint::workspace::StackArgs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn binary(candidates: &[&str]) -> Option<PathBuf> {
    let found = candidates.iter().map(PathBuf::from).find(|p| p.exists());
    if found.is_none() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "{} is required in CI (scripts/test installs it)",
            candidates[0]
        );
        eprintln!("{} not installed; skipping", candidates[0]);
    }
    found
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_file() {
        std::fs::copy(from, to).unwrap();
        return;
    }
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (p, t) = (e.path(), to.join(e.file_name()));
        let meta = std::fs::symlink_metadata(&p).unwrap();
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&p).unwrap(), &t).unwrap();
        } else if meta.is_dir() {
            copy_tree(&p, &t);
        } else {
            std::fs::copy(&p, &t).unwrap();
        }
    }
}

/// Fixes a copy of `case` and returns it when lemplint then reports no error in it.
fn fixed_and_clean(case: &Path, tmp: &Path) -> Option<PathBuf> {
    let copy = tmp.join(case.file_name().unwrap());
    copy_tree(case, &copy);
    let args = StackArgs {
        paths: vec![copy.clone()],
        isolated: true,
        ..Default::default()
    };
    let req = Request {
        stdin: None,
        args: &args,
        select: &[],
        ignore: &[],
        level: Applicability::Unsafe,
    };
    let outcome = run_fixes(&req).unwrap();
    assert!(
        outcome.bugs.is_empty(),
        "{}: {:?}",
        case.display(),
        outcome.bugs
    );
    for (path, (_, new)) in &outcome.changed {
        std::fs::write(path, new).unwrap();
    }
    let (_, findings) = collect(&args, &[], &[], None).unwrap();
    let clean = !findings
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    clean.then_some(copy)
}

fn cases(lang: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(lang);
    let mut out = Vec::new();
    for rule in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for c in std::fs::read_dir(rule.path()).unwrap().flatten() {
            let p = c.path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if !(name.ends_with(".snap") || name.ends_with(".toml") || name.ends_with(".new")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    if dir.is_file() {
        return Some(dir.to_path_buf());
    }
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() && !p.is_symlink() {
            if let Some(f) = find_file(&p, name) {
                return Some(f);
            }
        } else if p.file_name().is_some_and(|n| n == name) {
            return Some(p);
        }
    }
    None
}

#[test]
fn fixed_nginx_fixtures_pass_nginx_t() {
    let Some(nginx) = binary(&["/usr/sbin/nginx"]) else {
        return;
    };
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in cases("nginx").into_iter().chain(cases("stack")) {
        let tmp = tempfile::tempdir().unwrap();
        let Some(fixed) = fixed_and_clean(&case, tmp.path()) else {
            continue;
        };
        let main = find_file(&fixed, "nginx.conf").unwrap_or(fixed.clone());
        let text = std::fs::read_to_string(&main).unwrap_or_default();
        if !text.contains("events") {
            continue; // a snippet, not a configuration nginx can load on its own
        }
        // Absolute includes of the mirrored server resolve under the case's root.
        let prefix = main.parent().unwrap();
        let out = Command::new(&nginx)
            .arg("-t")
            .arg("-q")
            .arg("-p")
            .arg(format!("{}/", prefix.display()))
            .arg("-c")
            .arg(&main)
            .arg("-g")
            .arg(format!(
                "pid {}/nginx.pid; error_log stderr;",
                tmp.path().display()
            ))
            .output()
            .unwrap();
        checked += 1;
        let err = String::from_utf8_lossy(&out.stderr);
        // Absolute paths of the described server (includes under /etc/nginx) cannot be
        // loaded here; such cases only prove lemplint's side.
        if !out.status.success() && !err.contains("failed (2: No such file") {
            failures.push(format!("{}: {err}", case.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{checked} fixed nginx fixtures checked with nginx -t");
}

#[test]
fn fixed_fpm_fixtures_pass_php_fpm_t() {
    let Some(fpm) = binary(&["/usr/sbin/php-fpm8.2"]) else {
        return;
    };
    let mut failures = Vec::new();
    for case in cases("fpm") {
        let tmp = tempfile::tempdir().unwrap();
        let Some(fixed) = fixed_and_clean(&case, tmp.path()) else {
            continue;
        };
        let Some(pool) = find_file(&fixed, "").or_else(|| fixed.is_file().then(|| fixed.clone()))
        else {
            continue;
        };
        let text = std::fs::read_to_string(&pool).unwrap_or_default();
        let master = tmp.path().join("php-fpm-test.conf");
        let body = if text.contains("[global]") {
            text
        } else {
            format!(
                "[global]\npid = {0}/fpm.pid\nerror_log = {0}/fpm.log\n{text}",
                tmp.path().display()
            )
        };
        std::fs::write(&master, body).unwrap();
        let out = Command::new(&fpm)
            .args(["-t", "-R", "-y"])
            .arg(&master)
            .output()
            .unwrap();
        if !out.status.success() {
            failures.push(format!(
                "{}: {}",
                case.display(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
