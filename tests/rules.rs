//! The rule fixture harness.
//!
//! `fixtures/<lang>/<CODE>/<case>` is a file or a directory (a whole tree, for rules that
//! look across files). Each case is linted with its rule alone. Expected findings are marked
//! in the files themselves: a comment `expect: CODE` on the line where the finding starts, or
//! `expect: CODE@LINE` anywhere for a finding on another line (end of file, say). The harness
//! fails on any missing or unexpected finding, then snapshots the rendered diagnostics next to
//! the case (`<case>.snap`). A `<case>.toml` beside a case is used as its lemplint.toml
//! (options and host facts).

mod common;
use common::copy_tree;

use lemplint::engine::collect;
use lemplint::engine::fix_loop::{run as run_fixes, Request};
use lemplint::engine::StackArgs;
use lemplint::fix::Applicability;
use lemplint::rules::meta::FixAvailability;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Relative to the package root (cargo runs tests from there), so rendered diagnostics name
/// `fixtures/…` and wrap the same wherever the checkout lives.
fn fixtures_root() -> PathBuf {
    assert_eq!(
        std::env::current_dir().unwrap(),
        Path::new(env!("CARGO_MANIFEST_DIR")),
        "run from the package root"
    );
    PathBuf::from("fixtures")
}

const LANGS: [&str; 5] = ["nginx", "fpm", "sysctl", "stack", "lint"];

/// Every (code, case path) under fixtures/<lang>/<CODE>/.
pub fn cases() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for lang in LANGS {
        let Ok(dirs) = std::fs::read_dir(fixtures_root().join(lang)) else {
            continue;
        };
        for d in dirs.flatten() {
            let code = d.file_name().to_string_lossy().into_owned();
            for c in std::fs::read_dir(d.path()).unwrap().flatten() {
                let p = c.path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if name.ends_with(".snap") || name.ends_with(".toml") || name.ends_with(".snap.new")
                {
                    continue;
                }
                out.push((code.clone(), p));
            }
        }
    }
    out.sort();
    out
}

fn files_of(case: &Path) -> Vec<PathBuf> {
    if case.is_file() {
        return vec![case.to_path_buf()];
    }
    let mut out = Vec::new();
    let mut todo = vec![case.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() && !p.is_symlink() {
                todo.push(p);
            } else if p.is_file() && !p.is_symlink() {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// (path, line) → codes expected there.
fn expectations(case: &Path) -> BTreeMap<(PathBuf, u32), Vec<String>> {
    let mut out: BTreeMap<(PathBuf, u32), Vec<String>> = BTreeMap::new();
    for f in files_of(case) {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        for (i, line) in text.lines().enumerate() {
            for (pos, _) in line.match_indices("expect: ") {
                for item in line[pos + 8..].split([',', ' ']).filter(|s| !s.is_empty()) {
                    let (code, at) = match item.split_once('@') {
                        Some((c, l)) => (c, l.parse().expect("expect: CODE@LINE")),
                        None => (item, i as u32 + 1),
                    };
                    if code.is_empty() || !code.chars().all(|c| c.is_ascii_alphanumeric()) {
                        break;
                    }
                    let key = (std::fs::canonicalize(&f).unwrap(), at);
                    out.entry(key).or_default().push(code.to_string());
                }
            }
        }
    }
    for v in out.values_mut() {
        v.sort();
    }
    out
}

fn sidecar(case: &Path) -> Option<PathBuf> {
    let s = case.with_extension("toml");
    let s = if case.is_dir() {
        PathBuf::from(format!("{}.toml", case.display()))
    } else {
        s
    };
    s.is_file().then_some(s)
}

/// One test per case, named `<CODE>::<case>` (`cargo test --test rules NGX022` runs one
/// rule's cases; a failure names its case).
fn main() -> std::process::ExitCode {
    let args = libtest_mimic::Arguments::from_args();
    let cases = cases();
    if cases.is_empty() {
        eprintln!("no fixtures found under {}", fixtures_root().display());
        return std::process::ExitCode::FAILURE;
    }
    let trials = cases
        .into_iter()
        .map(|(code, case)| {
            let name = format!("{code}::{}", case.file_name().unwrap().to_string_lossy());
            libtest_mimic::Trial::test(name, move || {
                check_case(&code, &case).map_err(|failures| failures.join("\n").into())
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}

/// Lints one case with its rule alone and compares the findings with the case's `expect:`
/// marks, checks the fixes and the declared fix availability, then snapshots the rendered
/// findings (a snapshot mismatch panics, which libtest-mimic reports as the case failing).
fn check_case(code: &str, case: &Path) -> Result<(), Vec<String>> {
    let mut failures = Vec::new();
    let config = sidecar(case);
    let args = StackArgs {
        paths: vec![case.to_path_buf()],
        isolated: config.is_none(),
        config,
        ..Default::default()
    };
    // Suppression rules judge the other rules' findings, so they run with all rules.
    let select = if code.starts_with("LINT") {
        vec![]
    } else {
        vec![code.to_string()]
    };
    let (_, mut findings) =
        collect(&args, &select, &[], None).map_err(|e| vec![format!("{}: {e}", case.display())])?;
    // Input errors always run (nothing may hide a broken file); a case judges its rule.
    findings.diagnostics.retain(|d| d.code == code);
    let mut got: BTreeMap<(PathBuf, u32), Vec<String>> = BTreeMap::new();
    for d in &findings.diagnostics {
        let line = d.file.line_of(d.span.start);
        let shown = d.file.shown_path();
        let path = std::fs::canonicalize(shown).unwrap_or_else(|_| shown.to_path_buf());
        got.entry((path, line))
            .or_default()
            .push(d.code.to_string());
    }
    for v in got.values_mut() {
        v.sort();
    }
    let want = expectations(case);
    if got != want {
        failures.push(format!(
            "{}:\n  expected {want:?}\n  got      {got:?}",
            case.display()
        ));
    }
    // Snapshot the rendered findings, with paths relative to the fixture.
    let mut rendered = String::new();
    let mut frames = lemplint::report::full::Frames::default();
    for d in &findings.diagnostics {
        rendered.push_str(&lemplint::report::full::render(d, false, &mut frames));
        rendered.push('\n');
    }
    match check_fixes(code, case) {
        Ok(diff) if !diff.is_empty() => {
            rendered.push_str("--- fixes (with --unsafe-fixes) ---\n");
            rendered.push_str(&diff);
        }
        Ok(_) => {}
        Err(e) => failures.push(format!("{}: {e}", case.display())),
    }
    match lemplint::rules::by_code(code) {
        Some(rule) => {
            let with_fix = findings
                .diagnostics
                .iter()
                .filter(|d| d.fix.is_some())
                .count();
            match rule.fix {
                FixAvailability::None if with_fix > 0 => failures.push(format!(
                    "{}: {code} declares fix: None but offers fixes",
                    case.display()
                )),
                FixAvailability::Always if with_fix < findings.diagnostics.len() => {
                    failures.push(format!(
                        "{}: {code} declares fix: Always but {} findings have none",
                        case.display(),
                        findings.diagnostics.len() - with_fix
                    ))
                }
                _ => {}
            }
        }
        None => failures.push(format!(
            "{}: {code} is not a registered rule",
            case.display()
        )),
    }
    // The marks and the fixes say more than a snapshot diff: report them first.
    if !failures.is_empty() {
        return Err(failures);
    }
    let name = case.file_name().unwrap().to_string_lossy().into_owned();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join(case.parent().unwrap()));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_input_file(case);
    settings.bind(|| insta::assert_snapshot!(name, rendered));
    Ok(())
}

/// Copies a case to a temporary directory, fixes it to a fixpoint with its rule alone
/// (unsafe fixes included), checks the fixer converged and that a second run changes
/// nothing, and returns the diff with paths relative to the case.
fn check_fixes(code: &str, case: &Path) -> Result<String, String> {
    if code.starts_with("LINT") {
        return Ok(String::new());
    }
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let copy = tmp.path().join(case.file_name().unwrap());
    copy_tree(case, &copy);
    let config = sidecar(case);
    let args = StackArgs {
        paths: vec![copy.clone()],
        isolated: config.is_none(),
        config,
        ..Default::default()
    };
    let select = vec![code.to_string()];
    let req = Request {
        stdin: None,
        args: &args,
        select: &select,
        ignore: &[],
        level: Applicability::Unsafe,
    };
    let first = run_fixes(&req)?;
    if !first.bugs.is_empty() {
        return Err(first.bugs.join("; "));
    }
    let mut diff = String::new();
    for (path, change) in &first.changed {
        let rel = path.strip_prefix(tmp.path()).unwrap_or(path);
        let name = rel.as_os_str().as_encoded_bytes();
        diff.push_str(&String::from_utf8_lossy(&lemplint::fix::diff::unified(
            name,
            &change.original,
            &change.new,
            change.creates(),
        )));
        std::fs::write(path, &change.new).map_err(|e| e.to_string())?;
    }
    let second = run_fixes(&req)?;
    if !second.changed.is_empty() {
        return Err(format!(
            "a second fix run still changes {:?}",
            second.changed.keys().collect::<Vec<_>>()
        ));
    }
    Ok(diff)
}
