//! Hostile repositories: what a pull request from someone the repository's owner does not
//! trust can add, run through every command as a CI gate runs it.
//!
//! Each case builds a small repository (a git work tree) in a temporary directory, beside
//! decoy secrets outside it: a file holding a marker, and an environment variable holding
//! another (so `/proc/self/environ` of the lemplint process holds it). For every command and
//! output format, the markers must appear nowhere in what lemplint prints, no file outside
//! the tree may change, nothing may panic or hang, and a route out of the tree must fail the
//! run (exit 2) rather than pass it silently.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const FILE_MARKER: &str = "DECOY-FILE-SECRET-4f1c9a";
const ENV_MARKER: &str = "DECOY-ENV-TOKEN-77b2e0";
const GIT_MARKER: &str = "DECOY-GIT-TOKEN-a81d33";

/// A repository beside decoys outside it.
struct Scene {
    _dir: tempfile::TempDir,
    /// The repository (a git work tree).
    repo: PathBuf,
    /// Outside the repository: decoy files, and victims of writes.
    outside: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let repo = base.join("repo");
        let outside = base.join("outside");
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::create_dir_all(outside.join("dir")).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        // actions/checkout persists the job's token here by default.
        std::fs::write(
            repo.join(".git/config"),
            format!("[http]\n\textraheader = AUTHORIZATION: basic {GIT_MARKER}\n"),
        )
        .unwrap();
        for name in ["secret", "victim.conf", "dir/x.conf"] {
            std::fs::write(
                outside.join(name),
                format!(
                    "server_tokens on;\nworker_processes 2;\n# {FILE_MARKER}\n{FILE_MARKER} = 1\n"
                ),
            )
            .unwrap();
        }
        Scene {
            _dir: dir,
            repo,
            outside,
        }
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.repo.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    fn link(&self, rel: &str, target: impl AsRef<Path>) {
        let p = self.repo.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        symlink(target, p).unwrap();
    }

    /// A `..` path from `from_dir` (relative to the repository) to `to` (absolute).
    fn climb(&self, from_dir: &str, to: &Path) -> String {
        let depth = self.repo.join(from_dir).components().count();
        format!(
            "{}{}",
            "../".repeat(depth + 2),
            to.display().to_string().trim_start_matches('/')
        )
    }

    /// Every file outside the repository with its bytes, and what each outside symlink or
    /// directory holds, to compare before and after.
    fn outside_state(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut todo = vec![self.outside.clone()];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                let meta = std::fs::symlink_metadata(&p).unwrap();
                if meta.is_dir() {
                    todo.push(p.clone());
                    out.insert(p, b"<dir>".to_vec());
                } else {
                    out.insert(p.clone(), std::fs::read(&p).unwrap_or_default());
                }
            }
        }
        out
    }
}

/// Runs lemplint in the repository with the decoy environment; kills it after a while (a
/// hang is a failure, not a stuck test run).
fn run(scene: &Scene, args: &[&str]) -> Output {
    run_in(&scene.repo, args, &[])
}

fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lemplint"));
    cmd.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("LEMPLINT_DECOY", ENV_MARKER)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-9", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
            panic!("lemplint {args:?} did not finish within 60 s");
        }
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every command a CI gate runs, with every output format of `lint`.
fn commands() -> Vec<Vec<&'static str>> {
    let mut out: Vec<Vec<&str>> = [
        "full",
        "concise",
        "json",
        "sarif",
        "github",
        "gitlab",
        "checkstyle",
        "junit",
    ]
    .iter()
    .map(|f| vec!["lint", "--format", f, "."])
    .collect();
    out.push(vec!["stack", "."]);
    out.push(vec!["stack", "--format", "json", "."]);
    out.push(vec!["fix", "--diff", "."]);
    out.push(vec![
        "tune", "--cpus", "2", "--memory", "2GiB", "--diff", ".",
    ]);
    out.push(vec!["fix", "--unsafe-fixes", "."]);
    out.push(vec![
        "tune", "--cpus", "2", "--memory", "2GiB", "--write", ".",
    ]);
    out
}

/// Runs every command on the scene; checks that no marker is printed, nothing outside
/// changes, nothing panics. Returns the `lint` exit code.
fn attack(scene: &Scene, what: &str) -> i32 {
    let before = scene.outside_state();
    let mut lint_code = None;
    let mut cmds = commands();
    if scene.repo.join("etc/nginx/nginx.conf").exists() {
        cmds.push(vec!["parse", "etc/nginx/nginx.conf"]);
        cmds.push(vec![
            "parse",
            "--format",
            "crossplane",
            "etc/nginx/nginx.conf",
        ]);
    }
    for args in cmds {
        let out = run(scene, &args);
        let printed = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
        for marker in [FILE_MARKER, ENV_MARKER, GIT_MARKER] {
            assert!(
                !printed
                    .windows(marker.len())
                    .any(|w| w == marker.as_bytes()),
                "{what}: `lemplint {}` printed {marker}:\n{}",
                args.join(" "),
                text(&printed)
            );
        }
        assert_ne!(
            out.status.code(),
            Some(101),
            "{what}: `lemplint {}` panicked:\n{}",
            args.join(" "),
            text(&out.stderr)
        );
        if args[..2] == ["lint", "--format"] && args[2] == "full" {
            lint_code = out.status.code();
        }
        assert_eq!(
            scene.outside_state(),
            before,
            "{what}: `lemplint {}` changed a file outside the tree",
            args.join(" ")
        );
    }
    lint_code.unwrap_or(-1)
}

const NGINX_MAIN: &str =
    "events {}\nhttp {\n    server_tokens on;\n    include conf.d/*.conf;\n}\n";

#[test]
fn symlinks_out_of_the_tree_are_reported_not_read() {
    // A repository that mirrors a server: an absolute link target is the server's own file,
    // looked for in the tree (and `..` in a link stops at the server's `/`), never on the
    // machine running lemplint.
    let s = Scene::new();
    s.write("etc/nginx/nginx.conf", NGINX_MAIN);
    s.link("etc/sysctl.d/99.conf", s.outside.join("secret"));
    s.link("etc/nginx/conf.d/env.conf", "/proc/self/environ");
    s.link("etc/nginx/conf.d/rel.conf", "../../../../outside/secret");
    s.link("etc/php/8.2/fpm/pool.d/www.conf", "../../../../../.env");
    s.write(".env", &format!("DB_PASSWORD={FILE_MARKER}\n"));
    assert_eq!(attack(&s, "symlinks in a server layout"), 2);
    let out = run(&s, &["lint", "--format", "concise", "."]);
    let shown = text(&out.stdout);
    assert!(
        shown.contains(
            "pool.d/www.conf was not read: it is version-control metadata or a credentials file"
        ),
        "{shown}"
    );
    // A repository with its own layout: the links lead out of the tree.
    let s = Scene::new();
    s.write("nginx/nginx.conf", NGINX_MAIN);
    s.link("sysctl.d/99.conf", s.outside.join("secret"));
    s.link("nginx/conf.d/env.conf", "/proc/self/environ");
    s.link("nginx/conf.d/rel.conf", "../../../outside/secret");
    s.link("nginx/conf.d/git.conf", "../../.git/config");
    assert_eq!(attack(&s, "symlinks in a flat layout"), 2);
    let out = run(&s, &["lint", "--format", "concise", "."]);
    let shown = text(&out.stdout);
    for (path, why) in [
        ("sysctl.d/99.conf", "outside the linted tree"),
        ("conf.d/env.conf", "in /proc, /sys or /dev"),
        ("conf.d/rel.conf", "outside the linted tree"),
        ("conf.d/git.conf", "version-control metadata"),
    ] {
        assert!(
            shown
                .lines()
                .any(|l| l.contains("LINT004") && l.contains(path) && l.contains(why)),
            "{path}: {shown}"
        );
    }
}

#[test]
fn a_given_path_that_is_a_link_out_is_not_followed() {
    let s = Scene::new();
    s.link("nginx.conf", s.outside.join("secret"));
    s.link("conf", s.outside.join("dir"));
    s.link("shadow.conf", "/etc/shadow");
    for args in [
        &["parse", "nginx.conf"][..],
        &["parse", "shadow.conf"],
        &["lint", "nginx.conf"],
        &["lint", "--format", "json", "shadow.conf"],
        &["lint", "conf"],
        &["lint", "conf/x.conf"],
        &["stack", "conf"],
        &["fix", "nginx.conf"],
        &["fix", "--diff", "conf"],
    ] {
        let before = s.outside_state();
        let out = run(&s, args);
        let printed = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
        assert!(
            !printed
                .windows(FILE_MARKER.len())
                .any(|w| w == FILE_MARKER.as_bytes())
                && !printed
                    .windows(6)
                    .any(|w| w == b"root:*" || w == b"root:!" || w == b"root:$"),
            "{args:?} printed what it should not have read:\n{}",
            text(&printed)
        );
        assert_eq!(s.outside_state(), before, "{args:?} wrote outside");
        // Not the names of files out there either.
        assert!(
            !text(&printed).contains("conf/x.conf") || args.contains(&"conf/x.conf"),
            "{args:?}: {}",
            text(&printed)
        );
        if args[0] != "stack" {
            assert_ne!(out.status.code(), Some(0), "{args:?} passed");
        } else {
            assert!(
                text(&out.stdout).contains("outside the linted tree"),
                "{}",
                text(&out.stdout)
            );
        }
    }
}

#[test]
fn includes_that_climb_out_are_reported_not_read() {
    let s = Scene::new();
    // A repository that does not mirror a server (no etc/): `..` leads out.
    let up = s.climb("nginx", &s.outside.join("secret"));
    let glob = s.climb("nginx", &s.outside.join("dir"));
    s.write(
        "nginx/nginx.conf",
        &format!(
            "events {{}}\nhttp {{\n    include {up};\n    include {glob}/*;\n    include ../.git/config;\n    include /proc/self/environ;\n}}\n"
        ),
    );
    assert_eq!(attack(&s, "climbing includes"), 2);
    // In a server layout, `..` stops at the server's `/`: the server's own files, never this
    // machine's.
    let s = Scene::new();
    s.write(
        "etc/nginx/nginx.conf",
        "events {}\nhttp {\n    include ../../../../../../../../proc/self/environ;\n    include /../../../proc/self/environ;\n    include ../../../../../../tmp/*;\n}\n",
    );
    attack(&s, "rooted includes");
}

#[test]
fn php_fpm_includes_resolve_on_the_server_not_this_machine() {
    let s = Scene::new();
    // Debian's prefix is /usr: `../etc/*` is the server's /etc, mapped into the tree.
    s.write(
        "etc/php/8.2/fpm/php-fpm.conf",
        "[global]\ninclude=../etc/*\ninclude=../../../../../../proc/self/*\n",
    );
    let glob = s.climb("fpm", &s.outside.join("dir"));
    s.write("fpm/php-fpm.conf", &format!("[global]\ninclude={glob}/*\n"));
    attack(&s, "php-fpm includes");
}

#[test]
fn a_config_file_cannot_widen_what_is_read() {
    let s = Scene::new();
    s.write("etc/nginx/nginx.conf", NGINX_MAIN);
    s.write("lemplint.toml", "[paths]\nroot = \"/\"\n");
    let out = run(&s, &["lint", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("outside the linted tree"),
        "{}",
        text(&out.stderr)
    );
    attack(&s, "[paths] root");
    // lemplint.toml itself a link to the runner's environment: named, not quoted.
    std::fs::remove_file(s.repo.join("lemplint.toml")).unwrap();
    s.link("lemplint.toml", "/proc/self/environ");
    let out = run(&s, &["lint", "--format", "json", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("lemplint.toml"),
        "{}",
        text(&out.stderr)
    );
    attack(&s, "lemplint.toml link");
}

#[test]
fn writes_never_leave_the_tree() {
    let s = Scene::new();
    s.write(
        "etc/nginx/nginx.conf",
        "events {}\nhttp {\n    include sites-enabled/*;\n}\n",
    );
    s.link(
        "etc/nginx/sites-enabled/victim",
        s.outside.join("victim.conf"),
    );
    // tune would create 60-lemplint.conf in a sysctl.d that is a link to elsewhere.
    s.link("etc/sysctl.d", s.outside.join("dir"));
    s.write(
        "etc/nginx/conf.d/listen.conf",
        "server { listen 80 backlog=65535; }\n",
    );
    attack(&s, "writes");
    let out = run(&s, &["fix", "--diff", "."]);
    assert!(
        !text(&out.stdout).contains("outside"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn devices_fifos_and_odd_names_neither_hang_nor_crash() {
    let s = Scene::new();
    s.write("etc/nginx/nginx.conf", NGINX_MAIN);
    s.link("big.conf", "/dev/zero");
    s.link("etc/nginx/conf.d/zero.conf", "/dev/zero");
    let fifo = s.repo.join("etc/nginx/conf.d/fifo.conf");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let fifo2 = s.repo.join("x.conf");
    assert!(Command::new("mkfifo")
        .arg(&fifo2)
        .status()
        .unwrap()
        .success());
    // A name that is not UTF-8, in a directory a glob scans.
    use std::os::unix::ffi::OsStrExt;
    let odd = s
        .repo
        .join("etc/nginx/conf.d")
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9.conf"));
    std::fs::write(&odd, "server_tokens on;\n").unwrap();
    // Names that would forge a GitHub Actions command or act on a terminal.
    s.write(
        "etc/nginx/conf.d/x\n::error file=README.md,line=1::forged.conf",
        "server_tokens on;\n",
    );
    s.write("etc/nginx/conf.d/\x1b[2Jclear.conf", "server_tokens on;\n");
    attack(&s, "devices and names");
    for format in ["github", "concise", "full"] {
        let out = run(&s, &["lint", "--format", format, "."]);
        let shown = text(&out.stdout);
        assert!(
            !shown
                .lines()
                .any(|l| l.starts_with("::error file=README.md")),
            "{format}: {shown}"
        );
        assert!(
            !out.stdout.contains(&0x1b),
            "{format} printed a raw ESC: {shown}"
        );
    }
}

#[test]
fn suppressions_cannot_hide_a_broken_file() {
    let s = Scene::new();
    s.write(
        "etc/nginx/nginx.conf",
        "# lemplint: ignore-file NGX000 -- hide it\nevents {\nhttp {}\n",
    );
    let out = run(&s, &["lint", "--format", "concise", "--ignore", "NGX", "."]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let shown = text(&out.stdout);
    assert!(shown.contains("NGX000"), "{shown}");
    assert!(shown.contains("NGX000 cannot be suppressed"), "{shown}");
    for args in [
        &["fix", "--diff", "."][..],
        &["tune", "--cpus", "2", "--memory", "2GiB", "--diff", "."],
        &["tune", "--cpus", "2", "--memory", "2GiB", "--write", "."],
    ] {
        let before = std::fs::read(s.repo.join("etc/nginx/nginx.conf")).unwrap();
        let out = run(&s, args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            std::fs::read(s.repo.join("etc/nginx/nginx.conf")).unwrap(),
            before
        );
    }
}

/// `fix` paused between its last check and its write (see `LEMPLINT_PAUSE_BEFORE_WRITE`),
/// while `during` acts on the tree; returns fix's output.
fn fix_paused(repo: &Path, args: &[&str], during: impl FnOnce()) -> Output {
    let gate = repo.parent().unwrap().join("gate");
    let mut ready = gate.clone().into_os_string();
    ready.push(".ready");
    let ready = PathBuf::from(ready);
    let gate_s = gate.to_str().unwrap().to_string();
    let repo2 = repo.to_path_buf();
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let handle = std::thread::spawn(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        run_in(&repo2, &a, &[("LEMPLINT_PAUSE_BEFORE_WRITE", &gate_s)])
    });
    for _ in 0..3000 {
        if ready.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(ready.exists(), "fix never reached its write");
    during();
    std::fs::write(&gate, b"").unwrap();
    let out = handle.join().unwrap();
    let _ = std::fs::remove_file(&gate);
    let _ = std::fs::remove_file(&ready);
    out
}

#[test]
fn an_edit_made_while_fix_runs_is_kept_and_reported() {
    let s = Scene::new();
    let conf = s.write("etc/nginx/nginx.conf", NGINX_MAIN);
    let edited = format!("{NGINX_MAIN}# the operator's edit\n");
    let out = fix_paused(&s.repo, &["fix", "."], || {
        std::fs::write(&conf, &edited).unwrap();
    });
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("changed on disk since it was read"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&conf).unwrap(), edited);
    // Deleted meanwhile: not recreated.
    let out = fix_paused(&s.repo, &["fix", "."], || {
        std::fs::remove_file(&conf).unwrap();
    });
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("removed since it was read"));
    assert!(!conf.exists());
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(s.repo.join("etc/nginx"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn fix_and_tune_write_at_once_lose_nothing() {
    let s = Scene::new();
    let conf = s.write(
        "etc/nginx/nginx.conf",
        "worker_processes 2;\nevents {}\nhttp {\n    server_tokens on;\n}\n",
    );
    let repo = s.repo.clone();
    let mut tune = None;
    let fixed = fix_paused(&s.repo, &["fix", "."], || {
        let repo = repo.clone();
        tune = Some(std::thread::spawn(move || {
            run_in(
                &repo,
                &["tune", "--cpus", "1", "--memory", "1GiB", "--write", "."],
                &[],
            )
        }));
        // tune is now waiting for fix's lock (give it time to reach it).
        std::thread::sleep(Duration::from_millis(300));
    });
    let tuned = tune.unwrap().join().unwrap();
    assert!(fixed.status.code() != Some(2), "{}", text(&fixed.stderr));
    assert_eq!(tuned.status.code(), Some(0), "{}", text(&tuned.stderr));
    let result = std::fs::read_to_string(&conf).unwrap();
    assert!(
        result.contains("server_tokens off;"),
        "fix's edit lost:\n{result}"
    );
    assert!(
        result.contains("worker_processes auto;"),
        "tune's edit lost:\n{result}"
    );
}

/// As a user who is not root: a file another user owns is never handed over silently, and a
/// private pool keeps its mode.
#[test]
fn ownership_is_kept_or_the_write_refused() {
    if !is_root() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run this as root: it creates a file another user owns"
        );
        eprintln!("skipped: needs root to create a file another user owns");
        return;
    }
    if Command::new("setpriv").arg("--version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "setpriv is missing");
        eprintln!("skipped: setpriv is missing");
        return;
    }
    let d = tempfile::tempdir_in("/tmp").unwrap();
    let repo = d.path().join("repo");
    std::fs::create_dir_all(repo.join("etc/nginx")).unwrap();
    let conf = repo.join("etc/nginx/nginx.conf");
    std::fs::write(&conf, NGINX_MAIN).unwrap();
    let pool = repo.join("etc/php/8.2/fpm/pool.d/www.conf");
    std::fs::create_dir_all(pool.parent().unwrap()).unwrap();
    std::fs::write(&pool, "[www]\nuser = www-data\nlisten = /run/php/www.sock\npm = static\npm.max_children = 5\nenv[DB_PASSWORD] = s3cret\n").unwrap();
    // nobody owns the tree (so it can rename in it) and the pool; root owns nginx.conf.
    let chown = |p: &Path| {
        assert!(Command::new("chown")
            .args(["-R", "nobody:nogroup"])
            .arg(p)
            .status()
            .unwrap()
            .success())
    };
    chown(d.path());
    assert!(Command::new("chown")
        .args(["root:root"])
        .arg(&conf)
        .status()
        .unwrap()
        .success());
    std::fs::set_permissions(&pool, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let out = Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_lemplint"))
        .args(["fix", "--unsafe-fixes", "."])
        .current_dir(&repo)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot keep its owner"), "{err}");
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(&conf).unwrap();
    assert_eq!(meta.uid(), 0, "nginx.conf changed owner");
    assert_eq!(std::fs::read_to_string(&conf).unwrap(), NGINX_MAIN);
    // The pool nobody owns was written (pm.max_requests added) and kept its 0600.
    assert!(std::fs::read_to_string(&pool)
        .unwrap()
        .contains("pm.max_requests"));
    let mode = std::fs::metadata(&pool).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o600);
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}
