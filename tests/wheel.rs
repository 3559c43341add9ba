//! The Python wheel (pyproject.toml: maturin, `bindings = "bin"`) installs a working
//! `lemplint` with no Rust toolchain: maturin builds the wheel from this checkout, a fresh venv
//! `pip install`s it from the file alone (`--no-index`), and the installed `lemplint` lints the
//! field-report stack with `cargo` and `rustc` nowhere on PATH, printing what the binary built
//! by cargo prints.
//!
//! maturin is `$LEMPLINT_MATURIN`, else `target/maturin-venv/bin/maturin`, which
//! `scripts/maturin-venv.sh` creates (`scripts/test` runs it). Without it the test is skipped
//! with a note, except under `CI=true`, where it fails. The wheel is built with the `dev`
//! profile, whose binary `cargo test` has just built, so the build costs no compilation; a
//! release wheel is built with the `dist` profile (`maturin build`, the pyproject default).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn maturin() -> Option<PathBuf> {
    let candidate = std::env::var_os("LEMPLINT_MATURIN")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/maturin-venv/bin/maturin"));
    let works = Command::new(&candidate)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if works {
        return Some(candidate);
    }
    let msg = format!(
        "maturin is not runnable at {} (set LEMPLINT_MATURIN, or run scripts/maturin-venv.sh)",
        candidate.display()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{msg}");
    }
    eprintln!("note: skipping the wheel test: {msg}");
    None
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
    let Some(maturin) = maturin() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dist = tmp.path().join("dist");

    // The wheel, from this checkout (the dev binary `cargo test` built: no compilation).
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
        .arg(&dist));
    let built = started.elapsed();
    let wheels: Vec<PathBuf> = std::fs::read_dir(&dist)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    assert_eq!(
        wheels.len(),
        1,
        "one wheel in {}: {wheels:?}",
        dist.display()
    );
    let wheel = &wheels[0];
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
    eprintln!(
        "wheel {name}: {} MB, built in {:.1} s, installed in {:.1} s",
        std::fs::metadata(wheel).unwrap().len() / 1_000_000,
        built.as_secs_f64(),
        installed.as_secs_f64()
    );

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
