//! The Python wheel (pyproject.toml: maturin, `bindings = "bin"`) installs a working
//! `lemplint` with no Rust toolchain: maturin builds the wheel from this checkout, a fresh venv
//! `pip install`s it from the file alone (`--no-index`), and the installed `lemplint` lints the
//! field-report stack with `cargo` and `rustc` nowhere on PATH, printing what the binary built
//! by cargo prints. The pre-commit hooks of `pre-commit-mirror/` (`language: python`) install
//! from that wheel in a scratch repository and block a commit with a finding.
//!
//! maturin is `$LEMPLINT_MATURIN`, else `target/maturin-venv/bin/maturin`, which
//! `scripts/maturin-venv.sh` creates; pre-commit and the setuptools wheel come from
//! `target/pre-commit-venv` (`scripts/pre-commit-venv.sh`); `scripts/test` runs both. Without
//! them the tests are skipped with a note, except under `CI=true`, where they fail. The wheel
//! is built once, with the `dev` profile, whose binary `cargo test` has just built, so the
//! build costs no compilation; a release wheel is built with the `dist` profile (`maturin
//! build`, the pyproject default).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `tool` when it runs (`--version`); else None with a note, or a failure under `CI=true`.
fn required(tool: PathBuf, how: &str) -> Option<PathBuf> {
    let works = Command::new(&tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if works {
        return Some(tool);
    }
    let msg = format!("{} is not runnable ({how})", tool.display());
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{msg}");
    }
    eprintln!("note: skipping: {msg}");
    None
}

fn maturin() -> Option<PathBuf> {
    let candidate = std::env::var_os("LEMPLINT_MATURIN")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/maturin-venv/bin/maturin"));
    required(
        candidate,
        "set LEMPLINT_MATURIN, or run scripts/maturin-venv.sh",
    )
}

/// The wheel, built once for all tests of this file.
fn wheel() -> Option<&'static Path> {
    static WHEEL: OnceLock<Option<(tempfile::TempDir, PathBuf)>> = OnceLock::new();
    WHEEL
        .get_or_init(|| {
            let maturin = maturin()?;
            let dist = tempfile::tempdir().unwrap();
            let started = std::time::Instant::now();
            run(Command::new(&maturin)
                .args([
                    "build",
                    "--profile",
                    "dev",
                    "--compression-method",
                    "stored",
                ])
                .arg("--manifest-path")
                .arg(root().join("Cargo.toml"))
                .arg("--out")
                .arg(dist.path()));
            let wheels: Vec<PathBuf> = std::fs::read_dir(dist.path())
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "whl"))
                .collect();
            assert_eq!(wheels.len(), 1, "one wheel: {wheels:?}");
            let wheel = wheels[0].clone();
            eprintln!(
                "wheel {}: {} MB, built in {:.1} s",
                wheel.file_name().unwrap().to_string_lossy(),
                std::fs::metadata(&wheel).unwrap().len() / 1_000_000,
                started.elapsed().as_secs_f64()
            );
            Some((dist, wheel))
        })
        .as_ref()
        .map(|(_, wheel)| wheel.as_path())
}

fn run(cmd: &mut Command) -> Output {
    let shown = format!("{cmd:?}");
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{shown}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{shown} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// PATH without any directory that holds `cargo`, `rustc` or `rustup`, and with `first` in
/// front.
fn path_without_rust(first: &Path) -> OsString {
    let current = std::env::var_os("PATH").unwrap_or_default();
    let kept = std::env::split_paths(&current).filter(|dir| {
        !["cargo", "rustc", "rustup"]
            .iter()
            .any(|tool| dir.join(tool).exists())
    });
    std::env::join_paths(std::iter::once(first.to_path_buf()).chain(kept)).unwrap()
}

#[test]
fn wheel_installs_a_working_lemplint_without_rust() {
    let Some(wheel) = wheel() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        name.starts_with(&format!("lemplint-{version}-py3-none-")),
        "the wheel is lemplint {version}, for any Python 3: {name}"
    );

    // A fresh venv; pip installs from the wheel file alone.
    let venv = tmp.path().join("venv");
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv));
    let started = std::time::Instant::now();
    run(Command::new(venv.join("bin/python"))
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--disable-pip-version-check",
        ])
        .arg(wheel));
    let installed = started.elapsed();
    let bin = venv.join("bin/lemplint");
    assert!(bin.is_file(), "pip put lemplint in {}", bin.display());
    eprintln!("pip installed {name} in {:.1} s", installed.as_secs_f64());

    // The installed lemplint, found on a PATH with no Rust toolchain, run from the checkout.
    let path = path_without_rust(&venv.join("bin"));
    for tool in ["cargo", "rustc", "rustup"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            !found.status.success(),
            "{tool} is still on PATH: {}",
            String::from_utf8_lossy(&found.stdout)
        );
    }
    let which = Command::new("sh")
        .args(["-c", "command -v lemplint"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&which.stdout).trim(),
        bin.to_str().unwrap(),
        "`lemplint` on PATH is the venv's"
    );
    let args = [
        "lint",
        "fixtures/tune/field-report",
        "--cpus",
        "1",
        "--memory",
        "613MiB",
        "--format",
        "json",
    ];
    let from_wheel = Command::new("lemplint")
        .args(args)
        .current_dir(root())
        .env_clear()
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(
        from_wheel.status.code(),
        Some(1),
        "the field report has warnings: exit 1\n{}",
        String::from_utf8_lossy(&from_wheel.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&from_wheel.stdout).unwrap();
    let codes: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    for code in ["NGX007", "STK001", "FPM004"] {
        assert!(codes.contains(&code), "{code} among {codes:?}");
    }
    // Exactly what the binary cargo built prints.
    let from_cargo = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&from_wheel.stdout),
        String::from_utf8_lossy(&from_cargo.stdout)
    );

    // `lemplint --version` names the wheel's version.
    let shown = Command::new("lemplint")
        .arg("--version")
        .env_clear()
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&shown.stdout).trim(),
        format!("lemplint {version}")
    );
}

fn git(dir: &Path, args: &[&str], path: &OsString) -> Output {
    Command::new("git")
        .args([
            "-c",
            "user.name=lemplint test",
            "-c",
            "user.email=test@lemplint.invalid",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap()
}

fn ok(out: Output, what: &str) -> Output {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// pre-commit-mirror/ as the hook repository a team points at (tagged `v<version>`), a
/// scratch project using its `lemplint` hook, and pip restricted to a wheelhouse holding only
/// the lemplint wheel and setuptools: the hook's environment installs without an index and
/// without a Rust toolchain, and `git commit` of a file with a warning is refused.
#[test]
fn pre_commit_python_hook_installs_from_the_wheel_and_blocks_a_bad_commit() {
    let venv = root().join("target/pre-commit-venv");
    let Some(pre_commit) = required(
        venv.join("bin/pre-commit"),
        "run scripts/pre-commit-venv.sh",
    ) else {
        return;
    };
    let Some(wheel) = wheel() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let path = path_without_rust(pre_commit.parent().unwrap());
    let version = env!("CARGO_PKG_VERSION");

    // The wheelhouse: the lemplint wheel and setuptools (the hook project's build backend).
    let wheelhouse = tmp.path().join("wheelhouse");
    std::fs::create_dir(&wheelhouse).unwrap();
    let linked = wheelhouse.join(wheel.file_name().unwrap());
    if std::fs::hard_link(wheel, &linked).is_err() {
        std::fs::copy(wheel, &linked).unwrap();
    }
    let setuptools: Vec<PathBuf> = std::fs::read_dir(venv.join("wheelhouse"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(setuptools.len(), 1, "the setuptools wheel: {setuptools:?}");
    std::fs::copy(
        &setuptools[0],
        wheelhouse.join(setuptools[0].file_name().unwrap()),
    )
    .unwrap();

    // The hook repository, tagged as a release is.
    let hooks = tmp.path().join("hooks");
    std::fs::create_dir(&hooks).unwrap();
    for entry in std::fs::read_dir(root().join("pre-commit-mirror")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), hooks.join(entry.file_name())).unwrap();
    }
    ok(git(&hooks, &["init", "-q"], &path), "git init");
    ok(git(&hooks, &["add", "-A"], &path), "git add");
    ok(
        git(&hooks, &["commit", "-q", "-m", "hooks"], &path),
        "git commit",
    );
    let tag = format!("v{version}");
    ok(git(&hooks, &["tag", &tag], &path), "git tag");

    // The project that uses the hook.
    let project = tmp.path().join("project");
    std::fs::create_dir_all(project.join("etc/nginx")).unwrap();
    ok(git(&project, &["init", "-q"], &path), "git init");
    std::fs::write(
        project.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {tag}\n    hooks:\n      - id: lemplint\n",
            hooks.display()
        ),
    )
    .unwrap();
    let pre_commit_cmd = |args: &[&str]| {
        Command::new(&pre_commit)
            .args(args)
            .current_dir(&project)
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", tmp.path().join("cache"))
            .env("PIP_NO_INDEX", "1")
            .env("PIP_FIND_LINKS", &wheelhouse)
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .env_remove("GIT_DIR")
            .output()
            .unwrap()
    };
    ok(pre_commit_cmd(&["install"]), "pre-commit install");
    let started = std::time::Instant::now();
    ok(
        pre_commit_cmd(&["install-hooks"]),
        "pre-commit install-hooks",
    );
    eprintln!(
        "pre-commit installed the lemplint hook from the wheel in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // A bad commit is refused, with the finding.
    let conf = project.join("etc/nginx/nginx.conf");
    std::fs::write(
        &conf,
        "events {}\nhttp {\n    server_tokens on;\n    server {\n        listen 80;\n    }\n}\n",
    )
    .unwrap();
    ok(git(&project, &["add", "-A"], &path), "git add");
    let commit = |message: &str| {
        Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@lemplint.invalid"])
            .args(["commit", "-m", message])
            .current_dir(&project)
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", tmp.path().join("cache"))
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap()
    };
    let refused = commit("bad");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&refused.stdout),
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(
        !refused.status.success(),
        "the commit went through:\n{said}"
    );
    assert!(
        said.contains("lemplint") && said.contains("Failed") && said.contains("NGX022"),
        "the hook failed with the finding:\n{said}"
    );
    let log = git(&project, &["rev-parse", "--verify", "-q", "HEAD"], &path);
    assert!(!log.status.success(), "no commit was made");

    // Fixed, it goes through.
    std::fs::write(
        &conf,
        "events {}\nhttp {\n    server_tokens off;\n    server {\n        listen 80;\n    }\n}\n",
    )
    .unwrap();
    ok(git(&project, &["add", "-A"], &path), "git add");
    let accepted = commit("good");
    ok(accepted, "the commit of the fixed file");
}

/// The mirror's hooks are the main repository's, installed from the wheel: same ids, entries
/// and patterns, `language: python` for `language: rust`; its pin follows Cargo.toml.
#[test]
fn pre_commit_mirror_agrees_with_the_main_hooks() {
    let hooks = |path: &str| -> String {
        let text = std::fs::read_to_string(root().join(path)).unwrap();
        let start = text.find("\n- id:").unwrap();
        text[start + 1..].to_string()
    };
    let main = hooks(".pre-commit-hooks.yaml");
    let mirror = hooks("pre-commit-mirror/.pre-commit-hooks.yaml");
    assert!(main.contains("language: rust"));
    assert_eq!(
        mirror,
        main.replace("language: rust", "language: python"),
        "pre-commit-mirror/.pre-commit-hooks.yaml follows .pre-commit-hooks.yaml"
    );
    let version = env!("CARGO_PKG_VERSION");
    let project = std::fs::read_to_string(root().join("pre-commit-mirror/pyproject.toml")).unwrap();
    assert!(
        project.contains(&format!("\nversion = \"{version}\"\n"))
            && project.contains(&format!("dependencies = [\"lemplint=={version}\"]")),
        "pre-commit-mirror/pyproject.toml pins lemplint {version}:\n{project}"
    );
}

/// action.yml as JSON, read by PyYAML (pre-commit's dependency, in target/pre-commit-venv).
fn action() -> Option<serde_json::Value> {
    let python = required(
        root().join("target/pre-commit-venv/bin/python"),
        "run scripts/pre-commit-venv.sh",
    )?;
    let out = run(Command::new(python)
        .args([
            "-c",
            "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
        ])
        .arg(root().join("action.yml")));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// A runner's view of one composite action run: the files and variables GitHub sets.
struct Runner {
    action: serde_json::Value,
    workspace: PathBuf,
    temp: PathBuf,
    github_path: PathBuf,
    summary: PathBuf,
    inputs: Vec<(String, String)>,
    /// Outputs of the steps run so far, by step id.
    outputs: std::collections::HashMap<String, Vec<(String, String)>>,
}

impl Runner {
    fn new(action: serde_json::Value, dir: &Path) -> Runner {
        let workspace = dir.join("workspace");
        let temp = dir.join("runner-temp");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::create_dir_all(&temp).unwrap();
        Runner {
            action,
            github_path: dir.join("github_path"),
            summary: dir.join("step_summary"),
            workspace,
            temp,
            inputs: Vec::new(),
            outputs: Default::default(),
        }
    }

    fn step(&self, id_or_name: &str) -> &serde_json::Value {
        self.action["runs"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id_or_name || s["name"] == id_or_name)
            .unwrap_or_else(|| panic!("no step {id_or_name} in action.yml"))
    }

    /// The value of `${{ … }}` as the runner would give it: an input (its default when the
    /// workflow gives none) or an earlier step's output. Anything else is not expected.
    fn expression(&self, text: &str) -> String {
        let Some(inner) = text
            .strip_prefix("${{")
            .and_then(|t| t.strip_suffix("}}"))
            .map(str::trim)
        else {
            return text.to_string();
        };
        if let Some(name) = inner.strip_prefix("inputs.") {
            let declared = &self.action["inputs"][name];
            assert!(declared.is_object(), "input {name} is declared");
            return self
                .inputs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| declared["default"].as_str().unwrap_or("").to_string());
        }
        if let Some(rest) = inner.strip_prefix("steps.") {
            let (id, output) = rest.split_once(".outputs.").unwrap();
            return self
                .outputs
                .get(id)
                .and_then(|o| o.iter().find(|(k, _)| k == output))
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
        }
        panic!("an expression the test does not model: {text}");
    }

    /// Runs a `run:` step as GitHub does (`bash --noprofile --norc -eo pipefail`, in the
    /// workspace, its env from the step, PATH with what earlier steps added to GITHUB_PATH),
    /// and records its outputs. Returns its exit code and what it printed.
    fn run_step(&mut self, id_or_name: &str) -> (i32, String) {
        let step = self.step(id_or_name).clone();
        assert_eq!(step["shell"], "bash", "{id_or_name}: a bash step");
        let script = step["run"].as_str().unwrap();
        assert!(
            !script.contains("${{"),
            "{id_or_name}: no expression inside the script (inputs come through env)"
        );
        let script_file = self.temp.join("step.sh");
        std::fs::write(&script_file, script).unwrap();
        let output_file = self.temp.join(format!("output-{id_or_name}"));
        std::fs::write(&output_file, "").unwrap();
        let added = std::fs::read_to_string(&self.github_path).unwrap_or_default();
        let mut path: Vec<PathBuf> = added.lines().rev().map(PathBuf::from).collect();
        path.extend(std::env::split_paths(&path_without_rust(Path::new(
            "/usr/bin",
        ))));
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script_file)
            .current_dir(&self.workspace)
            .env_clear()
            .env("PATH", std::env::join_paths(path).unwrap())
            .env("HOME", self.temp.join("home"))
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_WORKSPACE", &self.workspace)
            .env("RUNNER_TEMP", &self.temp)
            .env("GITHUB_OUTPUT", &output_file)
            .env("GITHUB_PATH", &self.github_path)
            .env("GITHUB_STEP_SUMMARY", &self.summary)
            .env("GITHUB_ACTION_PATH", root())
            // The test's pip reads only the wheel it is given.
            .env("PIP_NO_INDEX", "1");
        if let Some(env) = step["env"].as_object() {
            for (k, v) in env {
                cmd.env(k, self.expression(v.as_str().unwrap()));
            }
        }
        let out = cmd.output().unwrap();
        let outputs: Vec<(String, String)> = std::fs::read_to_string(&output_file)
            .unwrap()
            .lines()
            .map(|l| {
                let (k, v) = l.split_once('=').expect("name=value");
                (k.to_string(), v.to_string())
            })
            .collect();
        if let Some(id) = step["id"].as_str() {
            self.outputs.insert(id.to_string(), outputs);
        }
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code().unwrap_or(-1), said)
    }

    fn output(&self, id: &str, name: &str) -> Option<String> {
        let value = self.expression(&format!("${{{{ steps.{id}.outputs.{name} }}}}"));
        (!value.is_empty()).then_some(value)
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The composite action's shell steps, run in order with the variables a runner sets: the
/// install step puts the wheel's lemplint on GITHUB_PATH, the lint step writes SARIF where
/// the upload step reads it and fails only on errors of use, the last step gates on findings.
#[test]
fn github_action_steps_run_as_on_a_runner() {
    let Some(action) = action() else { return };
    let Some(wheel) = wheel() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut runner = Runner::new(action, tmp.path());
    copy_tree(
        &root().join("fixtures/tune/field-report"),
        &runner.workspace,
    );
    assert_eq!(runner.action["runs"]["using"], "composite");

    // The upload step reads the lint step's report.
    let upload = runner.step("Upload to code scanning").clone();
    assert!(upload["uses"]
        .as_str()
        .unwrap()
        .starts_with("github/codeql-action/upload-sarif@"));
    assert_eq!(
        upload["with"]["sarif_file"],
        "${{ steps.lint.outputs.sarif-file }}"
    );
    assert_eq!(upload["if"], "${{ inputs.upload == 'true' }}");

    // Install.
    runner
        .inputs
        .push(("package".into(), wheel.to_str().unwrap().into()));
    let (code, said) = runner.run_step("install");
    assert_eq!(code, 0, "install:\n{said}");
    assert_eq!(
        runner.output("install", "version").as_deref(),
        Some(env!("CARGO_PKG_VERSION"))
    );

    // Findings: the report is written, the lint step passes (so the upload runs), the gate
    // fails with lemplint's exit code.
    runner
        .inputs
        .push(("args".into(), "--cpus 1  --memory 613MiB".into()));
    let (code, said) = runner.run_step("lint");
    assert_eq!(code, 0, "lint:\n{said}");
    let sarif = runner.temp.join("lemplint.sarif");
    assert_eq!(
        runner.output("lint", "sarif-file"),
        Some(sarif.to_str().unwrap().to_string())
    );
    assert_eq!(runner.output("lint", "exit-code").as_deref(), Some("1"));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
    assert_eq!(report["version"], "2.1.0");
    let rules: Vec<&str> = report["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(rules.len(), 9, "the field report's 9 findings: {rules:?}");
    assert!(
        rules.contains(&"FPM004"),
        "the host facts reached lemplint: {rules:?}"
    );
    assert!(
        said.contains("lemplint: 9 finding(s), exit code 1"),
        "{said}"
    );
    assert!(std::fs::read_to_string(&runner.summary)
        .unwrap()
        .contains("### lemplint: 9 finding(s)"));
    let (code, said) = runner.run_step("Fail on findings");
    assert_eq!(code, 1, "the gate fails:\n{said}");
    assert!(said.contains("::error title=lemplint::"), "{said}");

    // Several paths, a report path of one's own, a gate at errors: exit 0, the gate passes;
    // with fail-on-findings false, findings do not fail the job either.
    runner.inputs.clear();
    runner.inputs.extend([
        (
            "paths".to_string(),
            "etc/nginx/nginx.conf\n  etc/sysctl.d\n".to_string(),
        ),
        ("args".to_string(), "--fail-on error".to_string()),
        ("sarif-file".to_string(), "report.sarif".to_string()),
    ]);
    let (code, said) = runner.run_step("lint");
    assert_eq!(code, 0, "lint:\n{said}");
    assert_eq!(runner.output("lint", "exit-code").as_deref(), Some("0"));
    assert_eq!(
        runner.output("lint", "sarif-file").as_deref(),
        Some("report.sarif")
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(runner.workspace.join("report.sarif")).unwrap())
            .unwrap();
    let files: std::collections::BTreeSet<&str> = report["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(
        files.iter().all(|f| f.contains("nginx.conf")),
        "only the named nginx file's findings: {files:?}"
    );
    let (code, said) = runner.run_step("Fail on findings");
    assert_eq!(code, 0, "the gate passes:\n{said}");
    runner
        .inputs
        .push(("fail-on-findings".into(), "false".into()));
    runner
        .outputs
        .insert("lint".into(), vec![("exit-code".into(), "1".into())]);
    let (code, said) = runner.run_step("Fail on findings");
    assert_eq!(code, 0, "fail-on-findings: false:\n{said}");

    // An error of use (a path that does not exist) fails the lint step: nothing to upload.
    runner.inputs.clear();
    runner
        .inputs
        .push(("paths".into(), "no-such-directory".into()));
    let (code, said) = runner.run_step("lint");
    assert_eq!(code, 2, "lint of a missing path:\n{said}");
    assert!(
        said.contains("::error title=lemplint::lemplint lint exited with 2"),
        "{said}"
    );
    assert_eq!(runner.output("lint", "sarif-file"), None);
}
