//! What four preview security rules (issue #39) say nginx, OpenSSL and PHP do, checked
//! against the real programs in private prefixes on 127.0.0.1, and that lemplint reports the
//! configuration that does it and not its look-alike that does not:
//!
//! - NGX179: with `user root;` nginx's workers run with uid 0 and serve a file only root may
//!   read; with an unprivileged `user` they run as that account and answer 403;
//! - NGX182: with `ssl_early_data on;` a POST sent as TLS 1.3 early data reaches the backend
//!   again each time its recorded bytes are replayed (within OpenSSL's ten seconds);
//!   `ssl_early_data off;` rejects it, and forwarding `$ssl_early_data` lets the application
//!   answer 425 to the replays;
//! - NGX184: what `@SECLEVEL=1` and `@SECLEVEL=0` in `ssl_ciphers` let nginx load and
//!   negotiate on this OpenSSL (1024-bit RSA and DH from level 1; 512-bit RSA and SHA-1 or
//!   MD5 signed certificates only at 0; DH groups under 1024 bits never);
//! - FPM111: `allow_url_fopen = On` lets file functions reach a local listener,
//!   `mail.add_x_header = On` names the script in each mail, `log_errors = Off` leaves the
//!   `error_log` file empty.
//!
//! A missing nginx, openssl, php, or (for NGX179) a test not run as root: the test is skipped
//! with a note, or fails under `CI=true`.

#[path = "../common/mod.rs"]
mod common;

mod fpm111;
mod ngx179;
mod ngx182;
mod ngx184;
use common::free_port;
use common::line_of;
use common::nginx_head as head;

/// A fresh private prefix for nginx.
fn prefix() -> tempfile::TempDir {
    common::nginx_prefix(&[])
}

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether the tests run under CI, where a missing program is a failure, not a skip.
fn ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// Fails under `CI=true`, else prints why the test is skipped.
fn skip(why: &str) {
    assert!(
        !ci(),
        "{why}: required under CI=true (tests/hardening_binary/)"
    );
    eprintln!("note: {why}; skipping (CI=true makes this an error)");
}

/// lemplint's concise report of `conf` with `select` selected: (file name, line, severity,
/// code) for each finding whose code starts with `code`.
fn lint(conf: &Path, select: &str, code: &str) -> Vec<(usize, String, String)> {
    let name = format!("{}:", conf.file_name().unwrap().to_string_lossy());
    common::lint_concise(conf, select)
        .lines()
        .filter_map(|l| {
            let (_, after) = l.split_once(&name)?;
            let line = after.split(':').next()?.parse().ok()?;
            let (severity, rest) = after.split_once(": ")?.1.split_once('[')?;
            let found = rest.split(']').next()?;
            found
                .starts_with(code)
                .then(|| (line, severity.to_string(), found.to_string()))
        })
        .collect()
}

/// `openssl <args>` (see common::openssl).
fn openssl(args: &[&str], stdin: Option<&Path>) -> Option<(bool, String)> {
    common::openssl(TEST, args, stdin)
}

/// A self-signed certificate with an RSA key of `bits` (see common::self_signed).
fn self_signed(dir: &Path, name: &str, bits: u32) -> Option<(PathBuf, PathBuf)> {
    common::self_signed(TEST, dir, name, bits)
}

/// This test binary, as failures name it.
const TEST: &str = "tests/hardening_binary/";
