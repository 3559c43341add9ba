//! `lemplint bench`'s sandbox where it cannot be made, and for a user who is not root, with
//! the real nginx-light and php8.2-fpm and the real kernel mechanisms (no variable only a
//! test sets):
//! - in a user namespace whose `user.max_user_namespaces` is 0 (a per-namespace limit, so
//!   the machine's own stays as it is), bench refuses before writing anything, and says to
//!   pass `--no-sandbox`;
//! - run as `nobody` (through `setpriv` when the tests run as root, as CI does; as the
//!   test's own user otherwise), the servers get a network namespace of their own.
//!
//! Skipped with a note when a binary is missing, unless `CI=true`.

mod common;

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::serial;

/// Whether every program named is installed (a failure under CI=true when one is not).
fn have(programs: &[&str]) -> bool {
    let missing: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|n| {
            !["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/bin", "/sbin"]
                .iter()
                .any(|d| Path::new(d).join(n).is_file())
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{missing:?} required under CI=true (apt-get install nginx-light php8.2-fpm util-linux)"
    );
    eprintln!("note: skipping: {missing:?} not installed");
    false
}

fn is_root() -> bool {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/tune/field-report")
}

fn path_env() -> String {
    format!(
        "{}:/usr/sbin:/sbin",
        std::env::var("PATH").unwrap_or_default()
    )
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect()
}

#[test]
fn without_user_namespaces_bench_refuses_unless_told_not_to_sandbox() {
    if !have(&["unshare", "nginx", "php-fpm8.2"]) {
        return;
    }
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    // A user namespace (root inside it, so its own limits are writable) whose limit on
    // further user namespaces is 0: unshare(2) there fails with ENOSPC, as where a host
    // sets max_user_namespaces = 0.
    let bench = |extra: &str| {
        Command::new("unshare")
            .args(["--user", "--map-root-user", "sh", "-c"])
            .arg(format!(
                "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" bench \"$1\" --cpus 2 --memory 2GiB --duration 1s --runs 1 --current-only {extra}"
            ))
            .arg(env!("CARGO_BIN_EXE_lemplint"))
            .arg(fixture())
            .env("TMPDIR", tmp.path())
            .env("PATH", path_env())
            .output()
            .unwrap()
    };
    let out = bench("");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "error: cannot set up the sandbox (user, mount, PID and network namespaces): unshare: No space left on device (os error 28); run bench where namespaces are allowed, or pass --no-sandbox"
        ),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing measured, nothing reported");
    assert_eq!(
        entries(tmp.path()),
        Vec::<PathBuf>::new(),
        "nothing written"
    );
    // The refusal is the sandbox's alone: with --no-sandbox bench goes past it (what it
    // then does as the namespace's root is another matter: its ids are not the host's).
    let out = bench("--no-sandbox --allow-root");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("cannot set up the sandbox"), "{err}");
    assert_eq!(entries(tmp.path()), Vec::<PathBuf>::new(), "nothing left");
}

/// The network namespace of a process (`net:[inode]`).
fn net_of(pid: &str) -> Option<String> {
    std::fs::read_link(format!("/proc/{pid}/ns/net"))
        .ok()
        .map(|l| l.display().to_string())
}

/// The servers' masters running from a prefix under `tmp`: (pid, title).
fn masters(tmp: &Path) -> Vec<(String, String)> {
    let needle = tmp.display().to_string();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = e.file_name().to_string_lossy().into_owned();
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(&needle)
                && (cmd.starts_with("nginx: master process")
                    || cmd.starts_with("php-fpm: master process"))
            {
                out.push((pid, cmd));
            }
        }
    }
    out
}

#[test]
fn a_user_who_is_not_root_gets_a_network_namespace_for_the_servers() {
    if !have(&["setpriv", "nginx", "php-fpm8.2"]) {
        return;
    }
    let _serial = serial();
    // Everything the user reads or writes in a directory of theirs: the binary, the tree,
    // the temporary directory (the checkout may sit where `nobody` cannot enter).
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let (bin, tree, tmp) = (base.join("lemplint"), base.join("tree"), base.join("tmp"));
    std::fs::copy(env!("CARGO_BIN_EXE_lemplint"), &bin).unwrap();
    let copied = Command::new("cp")
        .arg("-r")
        .arg(fixture())
        .arg(&tree)
        .status()
        .unwrap();
    assert!(copied.success());
    std::fs::create_dir(&tmp).unwrap();
    let mut cmd = if is_root() {
        let chown = Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(&base)
            .status()
            .unwrap();
        assert!(chown.success());
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
        c.arg(&bin);
        c
    } else {
        Command::new(&bin)
    };
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut child = cmd
        .arg("bench")
        .arg(&tree)
        .args(["--cpus", "2", "--memory", "2GiB", "--duration", "3s"])
        .args(["--runs", "1", "--current-only", "--format", "json"])
        .env_clear()
        .env("PATH", path_env())
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // While it runs: both masters, each in a network namespace that is not this one's.
    let deadline = Instant::now() + Duration::from_secs(60);
    let seen = loop {
        let m = masters(&tmp);
        if m.len() >= 2 || Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            break m;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let nets: Vec<Option<String>> = seen.iter().map(|(pid, _)| net_of(pid)).collect();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        seen.len() >= 2,
        "the servers were not seen running: {seen:?}"
    );
    let here = net_of("self").unwrap();
    for (net, (_, title)) in nets.iter().zip(&seen) {
        let net = net.as_deref().expect("the server's namespace readable");
        assert_ne!(net, here, "{title} runs in the host's network");
    }
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let line = v["sandbox"].as_str().unwrap();
    assert!(
        line.contains("user, mount, PID and network (loopback only) namespaces"),
        "{line}"
    );
    assert!(!line.contains("no network namespace"), "{line}");
    let ok = v["results"][0]["ok"].as_u64().unwrap_or(0);
    assert!(ok > 0, "no request answered through the namespace: {v}");
    assert_eq!(entries(&tmp), Vec::<PathBuf>::new(), "prefix left behind");
}
