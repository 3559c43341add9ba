//! `lemplint bench` on a stranger's configuration, with the real nginx and php8.2-fpm: each
//! attack found against the private copy, run as root as a CI job would run it.
//!
//! Every case builds a tree beside decoys outside it (a file whose first line is a marker,
//! an environment variable holding another) and checks: the markers appear nowhere in what
//! bench prints, nothing outside the tree and bench's temporary directory changed, no
//! process of the run is left, no private prefix is left, and the exit code. Where the
//! attack would run, the case is built so that its running shows (a failed request, a
//! refused copy, a changed file), so the test fails if the defence does. Skipped with a note
//! when the servers are missing, unless `CI=true`.

mod common;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const FILE_MARKER: &str = "DECOY-FILE-SECRET-4f1c9a";
const ENV_MARKER: &str = "DECOY-ENV-TOKEN-77b2e0";

use common::serial;

fn have_servers() -> bool {
    common::have_nginx_and_php_fpm("hostile bench tests")
}

/// A tree (the field report's stack, to be made hostile) beside decoys, and the temporary
/// directory bench makes its private prefixes in (root's only, like a CI runner's).
struct Scene {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    outside: PathBuf,
    tmp: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let (repo, outside, tmp) = (base.join("repo"), base.join("outside"), base.join("tmp"));
        for d in [&repo, &outside, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        // Like a CI runner's private temporary directory: the sandbox's user cannot enter it,
        // so the sandbox must show it the prefix by other means.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o700)).unwrap();
        // nginx quotes the first line of a word list it cannot read: the marker is there.
        std::fs::write(
            outside.join("secret"),
            format!("{FILE_MARKER} 1;\n# {FILE_MARKER}\n"),
        )
        .unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/tune/field-report");
        for rel in [
            "etc/nginx/nginx.conf",
            "etc/php/8.2/fpm/php-fpm.conf",
            "etc/php/8.2/fpm/pool.d/www.conf",
        ] {
            let to = repo.join(rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(fixture.join(rel), to).unwrap();
        }
        Scene {
            _dir: dir,
            repo,
            outside,
            tmp,
        }
    }

    /// Replaces `from` (which must be there) in the tree's file `rel`.
    fn edit(&self, rel: &str, from: &str, to: &str) {
        let p = self.repo.join(rel);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{rel} has no {from:?}");
        std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    }

    fn write(&self, rel: &str, bytes: &[u8]) {
        std::fs::write(self.repo.join(rel), bytes).unwrap();
    }

    fn secret(&self) -> String {
        self.outside.join("secret").display().to_string()
    }

    /// Every file and directory outside the tree, with its bytes.
    fn outside_state(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut todo = vec![self.outside.clone()];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if std::fs::symlink_metadata(&p).unwrap().is_dir() {
                    todo.push(p.clone());
                    out.insert(p, b"<dir>".to_vec());
                } else {
                    out.insert(p.clone(), std::fs::read(&p).unwrap_or_default());
                }
            }
        }
        out
    }

    fn command(&self, extra: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_lemplint"));
        cmd.arg("bench")
            .arg(&self.repo)
            .args(["--cpus", "2", "--memory", "2GiB", "--runs", "1"])
            .args(["--concurrency", "2", "--current-only"])
            .args(extra)
            .env("TMPDIR", &self.tmp)
            .env("LEMPLINT_DECOY", ENV_MARKER)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// A one-second bench, JSON report.
    fn bench(&self) -> Output {
        let child = self
            .command(&["--duration", "1s", "--format", "json"])
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait_with_output());
        });
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(out) => out.unwrap(),
            Err(_) => {
                // SAFETY: signalling our own child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                panic!("lemplint bench did not finish within 120 s");
            }
        }
    }

    /// Processes of this scene's runs: their command lines name its temporary directory
    /// (the servers' prefix, the sandbox's helpers).
    fn processes(&self) -> Vec<(i32, String)> {
        let needle = self.tmp.display().to_string();
        let mut out = Vec::new();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
                let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                if cmd.contains(&needle) {
                    out.push((pid, cmd));
                }
            }
        }
        out
    }

    /// Nothing printed from outside, nothing outside changed, nothing left running or on
    /// disk.
    fn assert_safe(&self, what: &str, before: &BTreeMap<PathBuf, Vec<u8>>, out: &Output) {
        let printed = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
        for marker in [FILE_MARKER, ENV_MARKER] {
            assert!(
                !printed
                    .windows(marker.len())
                    .any(|w| w == marker.as_bytes()),
                "{what}: bench printed {marker}:\n{}",
                String::from_utf8_lossy(&printed)
            );
        }
        assert_eq!(
            &self.outside_state(),
            before,
            "{what}: a file outside the tree changed"
        );
        let deadline = Instant::now() + Duration::from_secs(5);
        while !self.processes().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(
            self.processes(),
            Vec::new(),
            "{what}: processes left behind"
        );
        let left: Vec<_> = std::fs::read_dir(&self.tmp)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(
            left.is_empty(),
            "{what}: private copies left behind: {left:?}"
        );
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The JSON report of a bench that must have succeeded, every request answered.
fn served(what: &str, out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what}: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["results"][0];
    assert!(r["ok"].as_u64().unwrap() > 0, "{what}: {r}");
    assert_eq!(r["failed"], 0, "{what}: {r}");
    assert!(
        v["sandbox"]
            .as_str()
            .unwrap()
            .starts_with("servers sandboxed: user, mount, PID and network"),
        "{v}"
    );
    v
}

/// The report names each of `names` as dropped at a line of `file`.
fn assert_dropped(v: &Value, file: &str, names: &[&str]) {
    let dropped: Vec<&str> = v["results"][0]["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    for name in names {
        assert!(
            dropped
                .iter()
                .any(|d| d.contains(file) && d.contains(&format!(": {name}"))),
            "{name} is not named as dropped: {dropped:#?}"
        );
    }
}

const NGINX: &str = "etc/nginx/nginx.conf";
const POOL: &str = "etc/php/8.2/fpm/pool.d/www.conf";

#[test]
fn modules_and_lua_are_dropped_not_loaded() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let s = Scene::new();
    // Not an ELF file: nginx would refuse to start if it tried to load it.
    s.write("evil.so", b"not a shared object\n");
    let evil = s.repo.join("evil.so").display().to_string();
    let lua = format!(
        "local f = io.open(\"{}\") error(f:read(\"*l\") .. os.getenv(\"LEMPLINT_DECOY\"))",
        s.secret()
    );
    s.edit(
        NGINX,
        "user www-data;",
        &format!(
            "load_module /usr/lib/nginx/modules/ndk_http_module.so;\nload_module /usr/lib/nginx/modules/ngx_http_lua_module.so;\nload_module {evil};\nuser www-data;"
        ),
    );
    s.edit(
        NGINX,
        "http {",
        // A name that would colour the terminal were it printed as is.
        &format!(
            "http {{\n    init_by_lua_block {{ {lua} }}\n    env_lua_marker_unknown on;\n    frob\x1b[31mred on;"
        ),
    );
    s.edit(
        NGINX,
        "        location ~ .php* {",
        "        location = /lua { content_by_lua_block { ngx.say(os.getenv(\"LEMPLINT_DECOY\")) } }\n        location ~ .php* {",
    );
    let before = s.outside_state();
    let out = s.bench();
    let v = served("modules and Lua", &out);
    assert_dropped(
        &v,
        NGINX,
        &[
            "load_module",
            "init_by_lua_block",
            "content_by_lua_block",
            "env_lua_marker_unknown",
            // Escaped (were it not, the report would hold the ESC byte itself).
            "frob\\x1b[31mred",
        ],
    );
    s.assert_safe("modules and Lua", &before, &out);
}

#[test]
fn php_code_and_extensions_named_by_the_files_never_run() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let s = Scene::new();
    s.write("evil.so", b"not a shared object\n");
    // Were any of these run, every request would fail (and the bench with it).
    let fail = "<?php http_response_code(500); echo getenv('LEMPLINT_DECOY'); exit;";
    s.write("prepend.php", fail.as_bytes());
    let b64 = {
        // base64 of `fail`, without a dependency.
        const T: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let b = fail.as_bytes();
        let mut o = String::new();
        for c in b.chunks(3) {
            let n = (c[0] as u32) << 16
                | (*c.get(1).unwrap_or(&0) as u32) << 8
                | *c.get(2).unwrap_or(&0) as u32;
            for i in 0..4 {
                if i <= c.len() {
                    o.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    o.push('=');
                }
            }
        }
        o
    };
    let repo = s.repo.display().to_string();
    s.edit(
        POOL,
        "pm = dynamic",
        &format!(
            "pm = dynamic\nphp_admin_value[extension] = {repo}/evil.so\nphp_admin_value[zend_extension] = {repo}/evil.so\nphp_admin_flag[allow_url_include] = On\nphp_value[auto_prepend_file] = \"data://text/plain;base64,{b64}\"\nphp_admin_value[auto_append_file] = {repo}/prepend.php\nenv[LEMPLINT_DECOY] = $LEMPLINT_DECOY\nphp_admin_value[memory_limit] = 256M"
        ),
    );
    s.edit(
        NGINX,
        "            fastcgi_pass",
        &format!("            fastcgi_param PHP_ADMIN_VALUE \"auto_prepend_file={repo}/prepend.php\";\n            fastcgi_param PHP_VALUE \"auto_prepend_file={repo}/prepend.php\";\n            fastcgi_pass"),
    );
    let before = s.outside_state();
    let out = s.bench();
    let v = served("PHP settings", &out);
    assert_dropped(
        &v,
        POOL,
        &[
            "php_admin_value[extension]",
            "php_admin_value[zend_extension]",
            "php_admin_flag[allow_url_include]",
            "php_value[auto_prepend_file]",
            "php_admin_value[auto_append_file]",
            "env[LEMPLINT_DECOY]",
        ],
    );
    assert_dropped(
        &v,
        NGINX,
        &["fastcgi_param PHP_ADMIN_VALUE", "fastcgi_param PHP_VALUE"],
    );
    let dropped = v["results"][0]["dropped"].to_string();
    assert!(!dropped.contains("memory_limit"), "kept: {dropped}");
    s.assert_safe("PHP settings", &before, &out);
}

#[test]
fn word_lists_cannot_include_files_from_elsewhere() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let s = Scene::new();
    let secret = s.secret();
    s.edit(
        NGINX,
        "http {",
        &format!(
            "http {{\n    geo $g {{ include {secret}; default 0; }}\n    map $uri $m {{ include {secret}; default 0; }}\n    types {{ include {secret}; text/html html; application/octet-stream bin; }}"
        ),
    );
    let before = s.outside_state();
    let out = s.bench();
    let v = served("word-list includes", &out);
    assert_dropped(
        &v,
        NGINX,
        &[
            "include (in `geo`)",
            "include (in `map`)",
            "include (in `types`)",
        ],
    );
    s.assert_safe("word-list includes", &before, &out);
}

#[test]
fn cache_paths_are_moved_into_the_prefix() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let s = Scene::new();
    let (fcache, pcache) = (s.outside.join("fcache"), s.outside.join("pcache"));
    s.edit(
        NGINX,
        "http {",
        &format!(
            "http {{\n    fastcgi_cache_path {} levels=1:2 keys_zone=fc:1m;\n    proxy_cache_path {} keys_zone=pc:1m;",
            fcache.display(),
            pcache.display()
        ),
    );
    s.edit(
        NGINX,
        "            fastcgi_pass",
        "            fastcgi_cache fc;\n            fastcgi_cache_key $uri;\n            fastcgi_cache_valid 200 1s;\n            fastcgi_pass",
    );
    let before = s.outside_state();
    let out = s.bench();
    // Served with the cache on (a cache nginx could not create would stop it starting).
    served("cache paths", &out);
    assert!(!fcache.exists() && !pcache.exists());
    s.assert_safe("cache paths", &before, &out);
}

#[test]
fn a_script_in_the_sandbox_writes_only_the_prefix() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let s = Scene::new();
    // The PHP that bench runs answers 500 if it can write outside the prefix, read the
    // decoy, or see lemplint's environment.
    let probe = s.outside.join("written");
    let script = s.outside.join("probe.php");
    std::fs::write(
        &script,
        format!(
            "<?php\n$bad = @file_put_contents('{}', 'x') !== false\n  || @file_put_contents('/tmp/lemplint-bench-probe', 'x') !== false\n  || @file_get_contents('{}') !== false\n  || getenv('LEMPLINT_DECOY') !== false;\nif ($bad) {{ http_response_code(500); }}\necho \"ok\\n\";\n",
            probe.display(),
            s.secret()
        ),
    )
    .unwrap();
    let before = s.outside_state();
    let child = s
        .command(&[
            "--duration",
            "1s",
            "--format",
            "json",
            "--script",
            script.to_str().unwrap(),
        ])
        .spawn()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    served("a script in the sandbox", &out);
    assert!(!probe.exists());
    assert!(!Path::new("/tmp/lemplint-bench-probe").exists());
    s.assert_safe("a script in the sandbox", &before, &out);
}

#[test]
fn sigkill_of_bench_takes_the_servers_and_the_prefix_with_it() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let s = Scene::new();
    let before = s.outside_state();
    let mut child = s.command(&["--duration", "60s"]).spawn().unwrap();
    // Both masters (a php-fpm worker bears its master's title for a moment after its fork:
    // any two "master process" lines are not enough).
    let masters = |s: &Scene| {
        let p = s.processes();
        ["nginx: master process", "php-fpm: master process"]
            .iter()
            .filter(|m| p.iter().any(|(_, c)| c.starts_with(*m)))
            .count()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while masters(&s) < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let running = s.processes();
    assert!(masters(&s) >= 2, "the servers did not start: {running:?}");
    std::thread::sleep(Duration::from_millis(500));
    child.kill().unwrap(); // SIGKILL: no handler, no cleanup of lemplint's own.
    let out = child.wait_with_output().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(libc::SIGKILL));
    s.assert_safe("SIGKILL", &before, &out);
    // The processes seen running are gone (not merely renamed or re-parented).
    for (pid, cmd) in running {
        let now = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        assert!(
            now.is_empty() || !text(&now).replace('\0', " ").eq(&cmd),
            "still running: {pid} {cmd}"
        );
    }
}
