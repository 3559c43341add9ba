//! STK009 against the real thing: each fixture of `fixtures/stack/STK009` is served by nginx
//! (Debian's 1.22) in front of php-fpm 8.2, and `/<pm.status_path>` is requested on every
//! server. The rule must fire on exactly the fixtures where a client gets php-fpm's status
//! page back.
//!
//! The copy nginx serves differs from the fixture only where it must to run here: its
//! `listen` ports become free loopback ports (lemplint judges the fixture itself, which
//! listens on the network), TLS is dropped (no certificates; the request is plain HTTP) and the
//! socket moves into the temporary directory. An `allow 10.0.0.5; deny all;` then still refuses
//! the test's client, as it would any other.
//!
//! Skipped with a note without nginx or php-fpm8.2; under `CI=true` that fails the test.

mod common;

use common::{copy_tree, free_port, nginx_binary, run_lemplint};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A process stopped when dropped: with SIGTERM, so that php-fpm's master ends its workers
/// (SIGKILL would leave them running, holding the socket).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

fn php_fpm() -> Option<PathBuf> {
    std::env::var_os("LEMPLINT_PHP_FPM")
        .map(PathBuf::from)
        .or_else(|| {
            ["/usr/sbin/php-fpm8.2", "/usr/local/sbin/php-fpm8.2"]
                .iter()
                .map(PathBuf::from)
                .find(|p| p.is_file())
        })
}

fn wait_for(what: &str, ready: impl Fn() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what} did not come up"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The body nginx answers `GET path` with on `port`.
fn get(port: u16, path: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: example.org\r\n\r\n").unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether STK009 fires on the fixture, as a user runs lemplint on it.
fn fires(case: &Path) -> bool {
    let out = run_lemplint(
        case,
        &["lint", ".", "--select", "STK009", "--format", "concise"],
        None,
    );
    String::from_utf8_lossy(&out.stdout).contains("[STK009]")
}

/// Serves a copy of the fixture and asks each server for the status path: whether any
/// answered with php-fpm's status page.
fn exposed(case: &Path, nginx: &Path, fpm: &Path) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    copy_tree(case, root);
    let sock = root.join("php.sock");
    let pool_file = root.join("etc/php/8.2/fpm/pool.d/www.conf");
    let pool = std::fs::read_to_string(&pool_file).unwrap();
    let status = pool
        .lines()
        .find_map(|l| l.strip_prefix("pm.status_path = "))
        .expect("the fixture's pool sets pm.status_path")
        .trim()
        .to_string();
    std::fs::write(
        &pool_file,
        pool.replace("/run/php/php8.2-fpm.sock", &sock.display().to_string()),
    )
    .unwrap();
    let master = root.join("php-fpm.conf");
    std::fs::write(
        &master,
        format!(
            "[global]\nerror_log = {r}/fpm.log\npid = {r}/fpm.pid\ninclude = {}\n",
            pool_file.display(),
            r = root.display()
        ),
    )
    .unwrap();
    let conf = root.join("etc/nginx/nginx.conf");
    let mut ports = Vec::new();
    let text: String = std::fs::read_to_string(&conf)
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("ssl_certificate"))
        .map(|l| {
            let t = l.trim_start();
            if t.starts_with("listen ") {
                let port = free_port();
                ports.push(port);
                format!("listen 127.0.0.1:{port};")
            } else {
                l.replace("/run/php/php8.2-fpm.sock", &sock.display().to_string())
            }
        })
        .map(|l| l + "\n")
        .collect();
    std::fs::write(&conf, text).unwrap();
    std::fs::create_dir_all(root.join("etc/nginx/logs")).unwrap();
    let _fpm = Running(
        Command::new(fpm)
            .args(["--nodaemonize", "--allow-to-run-as-root", "-y"])
            .arg(&master)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start php-fpm"),
    );
    wait_for("php-fpm", || sock.exists());
    let prefix = root.join("etc/nginx");
    let _nginx = Running(
        Command::new(nginx)
            .arg("-p")
            .arg(&prefix)
            .arg("-c")
            .arg(&conf)
            .args(["-e", "stderr", "-g"])
            .arg(format!(
                "daemon off; master_process off; pid {}/nginx.pid;",
                root.display()
            ))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx"),
    );
    wait_for("nginx", || {
        ports
            .iter()
            .all(|&p| TcpStream::connect(("127.0.0.1", p)).is_ok())
    });
    ports.iter().any(|&p| {
        let body = get(p, &status);
        eprintln!("{}: {}", case.display(), body.lines().next().unwrap_or(""));
        body.contains("process manager:")
    })
}

#[test]
fn stk009_fires_exactly_where_php_fpm_serves_its_status_page() {
    let (Some(nginx), Some(fpm)) = (nginx_binary(), php_fpm()) else {
        let msg = "nginx or php-fpm8.2 not found (install nginx-light and php8.2-fpm)";
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{msg}: the status-page test cannot run on CI without them");
        }
        eprintln!("skipped: {msg}");
        return;
    };
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/stack/STK009");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    let (mut open, mut closed) = (0, 0);
    for case in &cases {
        let (rule, real) = (fires(case), exposed(case, &nginx, &fpm));
        assert_eq!(
            rule,
            real,
            "{}: STK009 {} but php-fpm's status page {}",
            case.display(),
            if rule { "fires" } else { "is silent" },
            if real { "is served" } else { "is not served" }
        );
        if real {
            open += 1;
        } else {
            closed += 1;
        }
    }
    // Both kinds are there, so the comparison can fail either way.
    assert!(open >= 2 && closed >= 3, "{open} exposed, {closed} not");
}
