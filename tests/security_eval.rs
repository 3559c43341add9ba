//! The blind security evaluation of issue #39: `tests/security_eval/cases/` holds vulnerable
//! configurations and safe look-alikes written from public security writing before anyone
//! looked at which rule fires, frozen by `tests/security_eval/FROZEN.sha256`.
//!
//! The test (1) recomputes every case file's SHA-256 and fails on any difference, so changing a
//! case is a visible, deliberate re-freeze; (2) lints each case with the built binary, once with
//! `--select default,hardening,preview` and once with `default` alone; a vulnerable case is
//! caught when a warning or error starts on one of the case's `lines` in its `file`, a safe case
//! is a false alarm when one does; (3) prints the table and the rates (`cargo test --test
//! security_eval -- --nocapture`); (4) holds both selections to `THRESHOLDS.toml`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

fn eval_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/security_eval")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseToml {
    kind: Kind,
    title: String,
    source: String,
    why: String,
    file: String,
    lines: Vec<usize>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Vulnerable,
    Safe,
}

struct Case {
    id: String,
    dir: PathBuf,
    meta: CaseToml,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Thresholds {
    all: Threshold,
    default: Threshold,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Threshold {
    /// Percent of the vulnerable cases that must be caught.
    min_recall: f64,
    /// Percent of the safe cases that may be false alarms.
    max_false_alarms: f64,
}

#[derive(Deserialize)]
struct Report {
    diagnostics: Vec<Diagnostic>,
}

#[derive(Deserialize)]
struct Diagnostic {
    code: String,
    severity: String,
    file: String,
    line: usize,
}

fn load_cases() -> Vec<Case> {
    let root = eval_dir().join("cases");
    let mut ids: Vec<String> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    ids.into_iter()
        .map(|id| {
            let dir = root.join(&id);
            let path = dir.join("case.toml");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let meta: CaseToml =
                toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(
                dir.join(&meta.file).is_file() && !meta.lines.is_empty(),
                "{id}: `file` must name a file of the case and `lines` must not be empty"
            );
            assert!(
                !meta.title.is_empty()
                    && meta.source.starts_with("https://")
                    && !meta.why.is_empty(),
                "{id}: title, an https source and why are required"
            );
            Case { id, dir, meta }
        })
        .collect()
}

/// Every file under `dir`, as paths relative to `base` with `/` separators.
fn files_under(dir: &Path, base: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, base, out);
        } else {
            let rel = path.strip_prefix(base).unwrap();
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn the_cases_are_the_frozen_ones() {
    let base = eval_dir();
    let frozen_path = base.join("FROZEN.sha256");
    let frozen_text = std::fs::read_to_string(&frozen_path).unwrap();
    let frozen: BTreeMap<&str, &str> = frozen_text
        .lines()
        .map(|line| {
            let (hash, path) = line
                .split_once("  ")
                .unwrap_or_else(|| panic!("FROZEN.sha256: `{line}` is not `<sha256>  <path>`"));
            (path, hash)
        })
        .collect();
    let mut files = Vec::new();
    files_under(&base.join("cases"), &base, &mut files);
    files.sort();
    let mut problems = String::new();
    for file in &files {
        let bytes = std::fs::read(base.join(file)).unwrap();
        match frozen.get(file.as_str()) {
            None => writeln!(problems, "new file: {file}").unwrap(),
            Some(hash) if *hash != sha256::hex(&bytes) => {
                writeln!(problems, "changed: {file}").unwrap()
            }
            Some(_) => {}
        }
    }
    for path in frozen.keys() {
        if !files.iter().any(|f| f == path) {
            writeln!(problems, "missing: {path}").unwrap();
        }
    }
    assert!(
        problems.is_empty(),
        "the evaluation cases differ from tests/security_eval/FROZEN.sha256; a deliberate \
         change is a re-freeze in its own commit that says why \
         (cd tests/security_eval && find cases -type f | LC_ALL=C sort | xargs sha256sum > FROZEN.sha256):\n{problems}"
    );
}

/// The findings at warning or error, and every code at the case's lines (for the table).
struct Outcome {
    flagged: bool,
    codes: Vec<String>,
}

fn lint(case: &Case, select: &str) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lemplint"));
    cmd.current_dir(&case.dir)
        .args(["lint", ".", "--select", select, "--format", "json"]);
    // Host facts only from the case itself, never from a lemplint.toml above the repository.
    if case.dir.join("lemplint.toml").is_file() {
        cmd.args(["--config", "lemplint.toml"]);
    } else {
        cmd.arg("--isolated");
    }
    let out = cmd.output().expect("the lemplint binary runs");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}: lemplint exited with {:?}:\n{}",
        case.id,
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{}: the JSON report does not parse: {e}", case.id));
    let mut flagged = false;
    let mut codes = Vec::new();
    for d in &report.diagnostics {
        let file = d.file.strip_prefix("./").unwrap_or(&d.file);
        if file != case.meta.file || !case.meta.lines.contains(&d.line) {
            continue;
        }
        let counts = matches!(d.severity.as_str(), "warning" | "error");
        flagged |= counts;
        let mark = if counts { "" } else { "(info)" };
        let code = format!("{}{mark}", d.code);
        if !codes.contains(&code) {
            codes.push(code);
        }
    }
    Outcome { flagged, codes }
}

/// What the file the case points at configures: nginx, PHP (php.ini or a pool) or sysctl.
fn area(case: &Case) -> &'static str {
    let file = &case.meta.file;
    if file.contains("sysctl") {
        "sysctl"
    } else if file.contains("/php/") {
        "php"
    } else {
        "nginx"
    }
}

struct Measure {
    caught: usize,
    vulnerable: usize,
    false_alarms: usize,
    safe: usize,
}

impl Measure {
    fn recall(&self) -> f64 {
        100.0 * self.caught as f64 / self.vulnerable.max(1) as f64
    }
    fn false_alarm_rate(&self) -> f64 {
        100.0 * self.false_alarms as f64 / self.safe.max(1) as f64
    }
}

fn measure(cases: &[Case], select: &str, table: &mut String) -> Measure {
    let mut m = Measure {
        caught: 0,
        vulnerable: 0,
        false_alarms: 0,
        safe: 0,
    };
    let mut per_area: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    writeln!(table, "\n--select {select}").unwrap();
    writeln!(
        table,
        "{:<52} {:<10} {:<6} {:<12} codes at the lines",
        "case", "kind", "area", "result"
    )
    .unwrap();
    for case in cases {
        let outcome = lint(case, select);
        let counts = per_area.entry(area(case)).or_default();
        let result = match case.meta.kind {
            Kind::Vulnerable => {
                m.vulnerable += 1;
                counts[1] += 1;
                if outcome.flagged {
                    m.caught += 1;
                    counts[0] += 1;
                    "caught"
                } else {
                    "MISSED"
                }
            }
            Kind::Safe => {
                m.safe += 1;
                counts[3] += 1;
                if outcome.flagged {
                    m.false_alarms += 1;
                    counts[2] += 1;
                    "FALSE ALARM"
                } else {
                    "silent"
                }
            }
        };
        writeln!(
            table,
            "{:<52} {:<10} {:<6} {:<12} {}",
            case.id,
            format!("{:?}", case.meta.kind).to_lowercase(),
            area(case),
            result,
            outcome.codes.join(" ")
        )
        .unwrap();
    }
    for (area, [caught, vulnerable, false_alarms, safe]) in &per_area {
        writeln!(
            table,
            "  {area}: caught {caught}/{vulnerable}, false alarms {false_alarms}/{safe}"
        )
        .unwrap();
    }
    writeln!(
        table,
        "recall {}/{} = {:.1}%, false alarms {}/{} = {:.1}%",
        m.caught,
        m.vulnerable,
        m.recall(),
        m.false_alarms,
        m.safe,
        m.false_alarm_rate()
    )
    .unwrap();
    m
}

#[test]
fn recall_and_false_alarms_meet_the_thresholds() {
    let cases = load_cases();
    let vulnerable = cases
        .iter()
        .filter(|c| c.meta.kind == Kind::Vulnerable)
        .count();
    assert!(
        vulnerable >= 40 && cases.len() - vulnerable >= 20,
        "the evaluation needs at least 40 vulnerable and 20 safe cases"
    );
    let path = eval_dir().join("THRESHOLDS.toml");
    let thresholds: Thresholds = toml::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));

    let mut table = String::new();
    let all = measure(&cases, "default,hardening,preview", &mut table);
    let default = measure(&cases, "default", &mut table);
    println!("{table}");

    let mut failures = String::new();
    for (name, m, t) in [
        ("default,hardening,preview", &all, &thresholds.all),
        ("default", &default, &thresholds.default),
    ] {
        if m.recall() < t.min_recall {
            writeln!(
                failures,
                "--select {name}: recall {:.1}% is below {}%",
                m.recall(),
                t.min_recall
            )
            .unwrap();
        }
        if m.false_alarm_rate() > t.max_false_alarms {
            writeln!(
                failures,
                "--select {name}: false alarms {:.1}% are above {}%",
                m.false_alarm_rate(),
                t.max_false_alarms
            )
            .unwrap();
        }
    }
    assert!(
        failures.is_empty(),
        "{failures}(THRESHOLDS.toml; the table above says which cases)\n{table}"
    );
}

/// The hex SHA-256 of `data`, as `sha256sum` writes it in `FROZEN.sha256`.
mod sha256 {
    use sha2::{Digest, Sha256};

    pub fn hex(data: &[u8]) -> String {
        Sha256::digest(data)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}
