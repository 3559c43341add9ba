//! Helpers shared by the integration tests (each test file is its own crate, so not every
//! file uses every helper).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/corpus/<kind>` (or `$LEMPLINT_CORPUS/<kind>`), read in place.
pub fn corpus_dir(kind: &str) -> PathBuf {
    let root = match std::env::var_os("LEMPLINT_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
    };
    root.join(kind)
}

/// `../shared/corpus/<kind>` when it is there. A fresh clone of the repository has no
/// `../shared`: `build.rs` then sets `lemplint_no_corpus`, and the tests that need the corpus
/// are marked ignored with [`NO_CORPUS`] (`cargo test`'s summary counts them); a test that
/// reads it anyway says it was skipped. Under `CI=true` the corpus is required and its
/// absence fails the test.
pub fn corpus(kind: &str) -> Option<PathBuf> {
    let dir = corpus_dir(kind);
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{} is missing: the corpus is required when CI=true",
        dir.display()
    );
    eprintln!(
        "skipped: {} is missing (a fresh clone has no ../shared/corpus; with CI=true this fails)",
        dir.display()
    );
    None
}

/// Why a corpus test is ignored (see [`corpus`]).
pub const NO_CORPUS: &str =
    "../shared/corpus is missing (a fresh clone; see the README's \"The corpus\"); CI=true requires it";

/// The parser fixtures `fixtures/parser/<kind>/*.conf`, sorted by name, as (file stem,
/// contents).
pub fn parser_fixtures(kind: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/parser")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "conf"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(p).unwrap())
        })
        .collect()
}

/// Every regular file below `dir`, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let e = e.unwrap();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                todo.push(e.path());
            } else if ft.is_file() {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Copies a file or a tree, recreating symlinks as symlinks (a `sites-enabled` link must
/// stay a link in the copy).
pub fn copy_tree(from: &Path, to: &Path) {
    if from.is_file() && !from.is_symlink() {
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

/// xorshift64*: a small seeded generator, so the random cases of a differential test are
/// the same on every run (and a failing seed can be replayed).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 for an empty range).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// True with probability `percent` percent.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The nginx binary the differential tests run: `$LEMPLINT_NGINX`, else `/usr/sbin/nginx`,
/// else the first `nginx` on `PATH`.
pub fn nginx_binary() -> Option<PathBuf> {
    std::env::var_os("LEMPLINT_NGINX")
        .map(PathBuf::from)
        .or_else(|| {
            let mut dirs = vec![PathBuf::from("/usr/sbin")];
            if let Some(path) = std::env::var_os("PATH") {
                dirs.extend(std::env::split_paths(&path));
            }
            dirs.into_iter()
                .map(|d| d.join("nginx"))
                .find(|p| p.is_file())
        })
}

/// Where `bin` loads dynamic modules from (its `--modules-path`, from `nginx -V`).
pub fn nginx_modules_path(bin: &Path) -> Option<PathBuf> {
    let v = std::process::Command::new(bin).arg("-V").output().ok()?;
    let info = String::from_utf8_lossy(&v.stderr).into_owned();
    Some(PathBuf::from(
        info.split_whitespace()
            .find_map(|a| a.strip_prefix("--modules-path="))
            .unwrap_or("/usr/lib/nginx/modules"),
    ))
}

/// Where `scripts/nginx-modules.sh` (run by `scripts/test`) unpacks Debian's ndk, lua and
/// echo modules, and the Lua libraries the lua module needs (`lua/`):
/// `$LEMPLINT_NGINX_MODULES`, else `target/nginx-modules`. The packages are unpacked there,
/// never installed, so the tests never enable a module in the machine's own /etc/nginx.
pub fn test_modules_dir() -> PathBuf {
    std::env::var_os("LEMPLINT_NGINX_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/nginx-modules"))
}

/// The dynamic module `name` (`ngx_http_echo_module.so`) for `bin`: the tests' own copy
/// (see [`test_modules_dir`]), else one installed where `bin` loads modules from.
pub fn nginx_module(bin: &Path, name: &str) -> Option<PathBuf> {
    let own = test_modules_dir().join(name);
    if own.is_file() {
        return Some(own);
    }
    nginx_modules_path(bin)
        .map(|d| d.join(name))
        .filter(|p| p.is_file())
}

/// Sets `LUA_PATH` for an nginx that may load the lua module, so that the module finds
/// `resty.core` in the tests' own copy before the machine's.
pub fn lua_env(cmd: &mut std::process::Command) -> &mut std::process::Command {
    let lua = test_modules_dir().join("lua");
    if lua.is_dir() {
        cmd.env("LUA_PATH", format!("{}/?.lua;;", lua.display()));
    }
    cmd
}

/// `nginx -t` on `<prefix>/nginx.conf`, errors to stderr: its output.
pub fn nginx_test(bin: &Path, prefix: &Path) -> std::process::Output {
    lua_env(&mut std::process::Command::new(bin))
        .arg("-t")
        .arg("-p")
        .arg(format!("{}/", prefix.display()))
        .args(["-c", "nginx.conf", "-e", "stderr"])
        .output()
        .expect("nginx runs")
}

/// A loopback port nothing listens on now, for a server a test starts.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Runs the lemplint binary in `dir` (no colour), feeding it `stdin` when given.
pub fn run_lemplint(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

/// The nginx binary for a test that checks a claim against the real program: under
/// `CI=true` its absence fails the test (`test` names the test file); elsewhere it is
/// skipped, and says so.
pub fn required_nginx(test: &str) -> Option<PathBuf> {
    let found = nginx_binary().filter(|b| {
        std::process::Command::new(b)
            .arg("-v")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        let what = "nginx (/usr/sbin/nginx, PATH, or $LEMPLINT_NGINX)";
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{what} is required on CI (CI=true) for {test}");
        }
        eprintln!("note: {what} not found; skipping (set CI=true to make this an error)");
    }
    found
}

/// nginx in the foreground, one process, killed when dropped.
pub struct RunningNginx(std::process::Child);

impl Drop for RunningNginx {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `bin` with prefix `prefix` and configuration `conf` in the foreground (no
/// master), and waits until it accepts on `port` (ten seconds, then the error log is the
/// failure).
pub fn start_nginx(bin: &Path, prefix: &Path, conf: &Path, port: u16) -> RunningNginx {
    start_nginx_on(bin, prefix, conf, &[port])
}

/// [`start_nginx`], ready once it listens on every one of `ports`.
pub fn start_nginx_on(bin: &Path, prefix: &Path, conf: &Path, ports: &[u16]) -> RunningNginx {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let running = RunningNginx(
        Command::new(bin)
            .arg("-p")
            .arg(prefix)
            .arg("-c")
            .arg(conf)
            .args(["-g", "daemon off; master_process off;"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx"),
    );
    let ready = Instant::now();
    while ports
        .iter()
        .any(|&p| std::net::TcpStream::connect(("127.0.0.1", p)).is_err())
    {
        assert!(
            ready.elapsed() < Duration::from_secs(10),
            "nginx did not start: {}",
            std::fs::read_to_string(prefix.join("error.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    running
}

/// Sends `request` (a whole HTTP/1.0 request) to 127.0.0.1:`port`; the whole response.
pub fn http_raw(port: u16, request: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect to nginx");
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut resp = Vec::new();
    s.read_to_end(&mut resp).expect("read the answer");
    String::from_utf8_lossy(&resp).into_owned()
}

/// One HTTP/1.0 GET with `Host: t`: the whole response.
pub fn http_get(port: u16, target: &str) -> String {
    http_raw(port, &format!("GET {target} HTTP/1.0\r\nHost: t\r\n\r\n"))
}

/// A response's status code, head (status line and headers) and body.
pub fn http_parts(response: &str) -> (String, String, String) {
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((response, ""));
    let status = head.split(' ').nth(1).unwrap_or("?").to_string();
    (status, head.to_string(), body.to_string())
}

/// Whether nginx and php-fpm8.2 are installed (the tests that start a whole stack need
/// both); under `CI=true` their absence fails the test instead. `tests` names the tests
/// skipped, for the note.
pub fn have_nginx_and_php_fpm(tests: &str) -> bool {
    let found = |n: &str| {
        ["/usr/sbin", "/usr/bin", "/usr/local/sbin"]
            .iter()
            .any(|d| Path::new(d).join(n).is_file())
    };
    if found("nginx") && found("php-fpm8.2") {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "nginx and php-fpm8.2 are required under CI=true (apt-get install nginx-light php8.2-fpm)"
    );
    eprintln!("note: skipping the {tests}: nginx or php-fpm8.2 is not installed");
    false
}

/// Tests that drive load run one at a time (two cores shared by the servers): each holds
/// this guard for its run.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The `*_temp_path` lines (http level) that keep a test nginx's temporary files in
/// `prefix`/tmp, each on its own line, indented for an `http` block.
pub fn nginx_temp_paths(prefix: &Path) -> String {
    [
        "client_body_temp_path",
        "proxy_temp_path",
        "fastcgi_temp_path",
        "uwsgi_temp_path",
        "scgi_temp_path",
    ]
    .iter()
    .map(|d| format!("    {d} {}/tmp;\n", prefix.display()))
    .collect()
}

/// The head of a test nginx configuration up to the inside of `http`: a private prefix
/// under `p` (error log at `info`, pid), an empty `events`, no access log, and the
/// temporary paths of [`nginx_temp_paths`].
pub fn nginx_head(p: &Path) -> String {
    format!(
        "error_log {p}/error.log info;\npid {p}/nginx.pid;\nevents {{}}\nhttp {{\n    access_log off;\n{}",
        nginx_temp_paths(p),
        p = p.display()
    )
}

/// The 1-based line of `text` holding `needle` (a test configuration's own line).
pub fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle} not in the configuration"))
        + 1
}

/// A fresh prefix directory holding `tmp/` (nginx's temporary files) and `dirs`.
pub fn nginx_prefix(dirs: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for d in std::iter::once("tmp").chain(dirs.iter().copied()) {
        std::fs::create_dir_all(tmp.path().join(d)).unwrap();
    }
    tmp
}

/// lemplint's concise report (standard output) of `conf` with only `codes` selected.
pub fn lint_concise(conf: &Path, codes: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args([
            "lint",
            "--isolated",
            "--format",
            "concise",
            "--select",
            codes,
        ])
        .arg(conf)
        .env("NO_COLOR", "1")
        .output()
        .expect("lemplint runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// php-fpm in the foreground, in a process group of its own, killed with its workers when
/// dropped.
pub struct RunningFpm(pub std::process::Child);

impl Drop for RunningFpm {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the process group this test started; no memory is involved.
        unsafe {
            libc::kill(-(self.0.id() as i32), libc::SIGKILL);
        }
        let _ = self.0.wait();
    }
}

/// php-fpm8.2 on `conf` without php.ini, once it listens on every one of `ports` (TCP on
/// 127.0.0.1).
pub fn start_php_fpm_on(conf: &Path, ports: &[u16]) -> RunningFpm {
    start_php_fpm(conf, true, || {
        ports
            .iter()
            .all(|&p| std::net::TcpStream::connect(("127.0.0.1", p)).is_ok())
    })
}

/// Debian's php-fpm8.2 on `conf` in the foreground (`-n` too when `no_ini`: no php.ini, so
/// the machine's own cannot change what is measured; `-R` when run as root); returns once
/// `ready()` holds, or fails after ten seconds.
pub fn start_php_fpm(conf: &Path, no_ini: bool, ready: impl Fn() -> bool) -> RunningFpm {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut cmd = Command::new("/usr/sbin/php-fpm8.2");
    cmd.process_group(0).arg("-F");
    if no_ini {
        cmd.arg("-n");
    }
    cmd.arg("-y")
        .arg(conf)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        cmd.arg("-R");
    }
    let fpm = RunningFpm(cmd.spawn().expect("php-fpm starts"));
    let started = Instant::now();
    while !ready() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "php-fpm did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    fpm
}

/// The echo module for a test that checks a claim against nginx with it: under `CI=true`
/// its absence fails the test (`test` names the test file); elsewhere it is skipped, and
/// says so.
pub fn required_echo_module(nginx: &Path, test: &str) -> Option<PathBuf> {
    let found = nginx_module(nginx, "ngx_http_echo_module.so");
    if found.is_none() {
        let what = "the echo module (scripts/nginx-modules.sh)";
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{what} is required on CI (CI=true) for {test}"
        );
        eprintln!("note: {what} not found; skipping");
    }
    found
}

/// `openssl <args>` (stdin from `stdin`, else nothing): (success, stdout and stderr
/// together). `None` only when openssl cannot run at all: under `CI=true` that fails the
/// test (`test` names the test file), elsewhere the test is skipped and says so. A run
/// that fails is the caller's to judge (`ok` false), never a skip.
pub fn openssl(test: &str, args: &[&str], stdin: Option<&Path>) -> Option<(bool, String)> {
    use std::process::{Command, Stdio};
    let mut cmd = Command::new("openssl");
    cmd.args(args).stdin(match stdin {
        Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
        None => Stdio::null(),
    });
    match cmd.output() {
        Ok(o) => Some((
            o.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        )),
        Err(e) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "openssl is required on CI (CI=true) for {test}: {e}"
            );
            eprintln!("note: openssl does not run ({e}); skipping");
            None
        }
    }
}

/// `openssl req` for a self-signed certificate for `name` with an RSA key of `bits` in
/// `dir`: (cert, key); `None` as for [`openssl`].
pub fn self_signed(test: &str, dir: &Path, name: &str, bits: u32) -> Option<(PathBuf, PathBuf)> {
    let (cert, key) = (
        dir.join(format!("{name}.pem")),
        dir.join(format!("{name}.key")),
    );
    let (ok, out) = openssl(
        test,
        &[
            "req",
            "-x509",
            "-newkey",
            &format!("rsa:{bits}"),
            "-nodes",
            "-days",
            "2",
            "-subj",
            &format!("/CN={name}"),
            "-keyout",
            key.to_str().unwrap(),
            "-out",
            cert.to_str().unwrap(),
        ],
        None,
    )?;
    assert!(ok, "openssl req: {out}");
    Some((cert, key))
}

/// Whether the programs (absolute paths) are here; under `CI=true` their absence fails the
/// test (`test` names it).
pub fn have_programs(programs: &[&str], test: &str) -> bool {
    let missing: Vec<&&str> = programs
        .iter()
        .filter(|p| !Path::new(p).is_file())
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{test}: {missing:?} missing; CI=true requires them"
    );
    eprintln!("skipped {test}: {missing:?} missing");
    false
}

/// Runs `script` with `sh` under `unshare <flags>` (which must make a new user and network
/// namespace: `-Urn`, `-Urnm` for a private mount namespace too) and returns its output. The
/// script is refused (exit 99) if the network namespace is the test's own: a test that runs
/// as root maps to the machine's root inside, so only keys of the new network namespace may
/// be written there.
pub fn in_new_netns(flags: &str, script: &str) -> String {
    let outer = std::fs::read_link("/proc/self/ns/net").expect("own network namespace");
    let guarded = format!(
        "[ \"$(readlink /proc/self/ns/net)\" != '{}' ] || exit 99\nset -e\n{script}",
        outer.display()
    );
    let out = std::process::Command::new("/usr/bin/unshare")
        .args([flags, "sh", "-c", &guarded])
        .output()
        .expect("run unshare");
    assert!(
        out.status.success(),
        "unshare {flags} failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
