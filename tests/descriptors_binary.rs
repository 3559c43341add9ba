//! The premises of NGX007's arithmetic (and of `tune`'s `worker_rlimit_nofile`), shown with the
//! real nginx:
//!
//! 1. `worker_connections` counts upstream connections: with 4 connections (two listening
//!    sockets, the master's channel and one client), a request proxied to the same nginx gets
//!    500 and `4 worker_connections are not enough while connecting to upstream`. A proxied
//!    request takes two of a worker's connections; it does not need two descriptors per
//!    connection.
//! 2. Descriptors that are not connections (stdio, the logs, the event queue) take room too:
//!    with `worker_rlimit_nofile 32` and `worker_connections 32`, nginx serves fewer than 32
//!    clients and logs `accept4() failed (24: Too many open files)`; NGX007 reports it as a
//!    warning, and is silent when the limit leaves room for files.
//! 3. nginx's own warning (`worker_connections exceed open file resource limit`, at the `warn`
//!    level) comes only when the connections alone exceed both `worker_rlimit_nofile` and the
//!    limit the master runs with.
//!
//! nginx runs with a master and one worker (`worker_rlimit_nofile` is applied by workers) and
//! is stopped with `nginx -s stop`. Without nginx the tests are skipped with a note, or fail
//! when `CI=true`.

mod common;
use common::free_port;

use lemplint::diagnostic::Severity;
use lemplint::engine::collect;
use lemplint::engine::StackArgs;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn nginx() -> Option<PathBuf> {
    common::required_nginx("tests/descriptors_binary.rs")
}

/// A main configuration inside `dir`: one worker, the given limits, `servers` in `http`.
fn config(dir: &Path, nofile: u64, connections: u64, servers: &str) -> String {
    let d = dir.display();
    format!(
        "pid {d}/nginx.pid;\nerror_log {d}/error.log warn;\nworker_processes 1;\n\
         worker_rlimit_nofile {nofile};\nevents {{\n    worker_connections {connections};\n}}\n\
         http {{\n    access_log {d}/access.log;\n    client_body_temp_path {d}/body; \
         proxy_temp_path {d}/proxy;\n    fastcgi_temp_path {d}/fcgi; uwsgi_temp_path {d}/uwsgi; \
         scgi_temp_path {d}/scgi;\n{servers}\n}}\n"
    )
}

/// nginx in the foreground with its master, until dropped.
struct Running {
    nginx: PathBuf,
    dir: PathBuf,
    conf: PathBuf,
    child: Child,
}

impl Running {
    /// Starts nginx; with `soft`, under that soft open-files limit (`ulimit -Sn`).
    fn start(nginx: &Path, dir: &Path, conf: &Path, port: u16, soft: Option<u64>) -> Running {
        let ulimit = soft.map_or(String::new(), |n| format!("ulimit -Sn {n} && "));
        let child = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "{ulimit}exec \"$0\" -g 'daemon off;' -p \"$1/\" -c \"$2\""
            ))
            .arg(nginx)
            .arg(dir)
            .arg(conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx starts");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx did not listen: {}",
                log(dir)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Running {
            nginx: nginx.to_path_buf(),
            dir: dir.to_path_buf(),
            conf: conf.to_path_buf(),
            child,
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = Command::new(&self.nginx)
            .args(["-s", "stop", "-p"])
            .arg(format!("{}/", self.dir.display()))
            .arg("-c")
            .arg(&self.conf)
            .stderr(Stdio::null())
            .status();
        let _ = self.child.wait();
    }
}

fn log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
}

/// Sends `GET /` on `stream`, keeping the connection open.
fn ask(stream: &mut TcpStream) {
    let _ = stream.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
}

/// The first line of an answer already sent on `stream`, or "" when none came.
fn answer(stream: &mut TcpStream, wait: Duration) -> String {
    let _ = stream.set_read_timeout(Some(wait));
    let mut buf = [0u8; 64];
    let n = stream.read(&mut buf).unwrap_or(0);
    String::from_utf8_lossy(&buf[..n])
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

/// NGX007's findings for a configuration file.
fn ngx007(conf: &Path) -> Vec<(Severity, String)> {
    let args = StackArgs {
        paths: vec![conf.to_path_buf()],
        isolated: true,
        ..Default::default()
    };
    let (_, f) = collect(&args, &["NGX007".to_string()], &[], None).unwrap();
    f.diagnostics
        .iter()
        .filter(|d| d.code == "NGX007")
        .map(|d| (d.severity, d.message.clone()))
        .collect()
}

#[test]
fn upstream_connections_are_counted_in_worker_connections() {
    let Some(nginx) = nginx() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (front, back) = (free_port(), free_port());
    let conf = dir.path().join("nginx.conf");
    let servers = format!(
        "    server {{ listen 127.0.0.1:{front}; location / {{ proxy_pass http://127.0.0.1:{back}; }} }}\n\
         \x20   server {{ listen 127.0.0.1:{back}; location / {{ return 200 ok; }} }}"
    );
    std::fs::write(&conf, config(dir.path(), 64, 4, &servers)).unwrap();
    let status = {
        let _nginx = Running::start(&nginx, dir.path(), &conf, front, None);
        let mut s = TcpStream::connect(("127.0.0.1", front)).unwrap();
        ask(&mut s);
        answer(&mut s, Duration::from_secs(5))
    };
    assert!(status.contains(" 500 "), "{status}\n{}", log(dir.path()));
    assert!(
        log(dir.path())
            .contains("4 worker_connections are not enough while connecting to upstream"),
        "{}",
        log(dir.path())
    );
    // 64 descriptors and 4 connections: plenty of room, nothing to report.
    assert_eq!(ngx007(&conf), vec![]);
}

#[test]
fn a_limit_equal_to_worker_connections_cannot_hold_them() {
    let Some(nginx) = nginx() else { return };
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let conf = dir.path().join("nginx.conf");
    let servers =
        format!("    server {{ listen 127.0.0.1:{port}; location / {{ return 200 ok; }} }}");
    std::fs::write(&conf, config(dir.path(), 32, 32, &servers)).unwrap();
    let served = {
        let _nginx = Running::start(&nginx, dir.path(), &conf, port, None);
        // Connect them all and ask on each, keeping every connection open: the worker holds
        // them at once.
        let mut streams: Vec<TcpStream> = (0..40)
            .filter_map(|_| TcpStream::connect(("127.0.0.1", port)).ok())
            .collect();
        streams.iter_mut().for_each(ask);
        std::thread::sleep(Duration::from_millis(500));
        streams
            .iter_mut()
            .map(|s| answer(s, Duration::from_millis(100)))
            .filter(|first| first.starts_with("HTTP/1.1 200"))
            .count()
    };
    // 32 connections less the listening socket and the channel would be 30 clients; the
    // descriptors that are not connections take the rest.
    assert!(served < 30, "served {served}\n{}", log(dir.path()));
    assert!(
        log(dir.path()).contains("(24: Too many open files)"),
        "{}",
        log(dir.path())
    );
    // Not nginx's own warning: the connections alone fit.
    assert!(!log(dir.path()).contains("exceed open file resource limit"));
    let found = ngx007(&conf);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Severity::Warning, "{found:?}");
}

#[test]
fn nginx_warns_only_when_connections_alone_exceed_the_limit() {
    let Some(nginx) = nginx() else { return };
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let conf = dir.path().join("nginx.conf");
    let servers =
        format!("    server {{ listen 127.0.0.1:{port}; location / {{ return 200 ok; }} }}");
    std::fs::write(&conf, config(dir.path(), 32, 64, &servers)).unwrap();
    // nginx compares with the limit the master runs with too: under 48, it warns about 64.
    {
        let _nginx = Running::start(&nginx, dir.path(), &conf, port, Some(48));
    }
    assert!(
        log(dir.path()).contains("64 worker_connections exceed open file resource limit: 32"),
        "{}",
        log(dir.path())
    );
    let found = ngx007(&conf);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Severity::Warning, "{found:?}");
}
