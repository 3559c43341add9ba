//! The effective PHP settings of a pool (`PoolView::php`) against the real php-fpm8.2.
//!
//! One Debian-shaped tree sets directives at every level: PHP's compiled-in default (nothing
//! sets them), php.ini, two scan-directory files (alphabetical order, the later one wins),
//! the pool's `php_value`/`php_flag`, and its `php_admin_value`/`php_admin_flag` (written
//! *before* the `php_value` of the same directive, to show that admin values are applied
//! after, not in file order). php.ini also holds what PHP skips: an entry without a value,
//! a `[PATH=…]` section for another directory. php-fpm runs the tree (`-y` the master, `-c`
//! the php.ini, `PHP_INI_SCAN_DIR` the scan directory) and a small FastCGI client below asks
//! the pool for `ini_get()` of every directive; each must equal what lemplint computes from
//! the files alone. A second request checks what `php_admin_value` adds: `ini_set()` cannot
//! change an admin value, and can change a `php_value`.
//!
//! Needs php-fpm8.2 (`$LEMPLINT_PHP_FPM`, else `/usr/sbin/php-fpm8.2`); without it the test
//! says it was skipped, or fails when `CI=true`.

use lemplint::engine::{StackArgs, Workspace};
use lemplint::stack::instances::instances;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Every directive compared, with the level that sets it (for the failure message).
const SETTINGS: &[(&str, &str)] = &[
    // PHP's defaults: nothing sets these.
    ("default_socket_timeout", "default"),
    ("max_input_vars", "default"),
    (
        "serialize_precision",
        "default (a [PATH=] section sets it elsewhere)",
    ),
    ("session.name", "default"),
    ("pcre.backtrack_limit", "default"),
    ("cgi.fix_pathinfo", "default (the FPM SAPI's own)"),
    ("html_errors", "default"),
    ("auto_prepend_file", "default"),
    // php.ini.
    ("max_execution_time", "php.ini"),
    ("post_max_size", "php.ini"),
    ("session.gc_maxlifetime", "php.ini"),
    ("expose_php", "php.ini (Off)"),
    ("log_errors", "php.ini (after a line PHP skips)"),
    // The scan directory.
    ("precision", "php.ini, then 20-a.ini, then 30-b.ini"),
    ("max_input_time", "30-b.ini"),
    ("default_charset", "20-a.ini (quoted)"),
    ("error_reporting", "20-a.ini (E_ALL & ~E_NOTICE)"),
    // The pool.
    ("display_errors", "php_flag over php.ini"),
    ("allow_url_fopen", "php_value of a PHP_INI_SYSTEM directive"),
    ("date.timezone", "php_value"),
    ("short_open_tag", "php_flag off"),
    // Admin values, applied after php_value.
    ("memory_limit", "php_admin_value written before a php_value"),
    ("upload_max_filesize", "php_admin_value over php.ini"),
    ("open_basedir", "php_admin_value"),
    ("disable_functions", "php_admin_value"),
];

fn php_fpm() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os("LEMPLINT_PHP_FPM") {
        return Some(bin.into());
    }
    ["/usr/sbin/php-fpm8.2", "/usr/local/sbin/php-fpm8.2"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The tree: `<root>/etc/php/8.2/fpm/…` and a document root with the probe script.
fn tree(root: &Path, sock: &Path) -> PathBuf {
    let fpm = root.join("etc/php/8.2/fpm");
    write(
        &fpm.join("php-fpm.conf"),
        &format!(
            "[global]\npid = {0}/fpm.pid\nerror_log = {0}/fpm.log\ninclude = {1}/pool.d/*.conf\n",
            root.display(),
            fpm.display()
        ),
    );
    write(
        &fpm.join("pool.d/www.conf"),
        &format!(
            "[www]\nlisten = {}\npm = static\npm.max_children = 1\n\
             php_admin_value[memory_limit] = 111M\n\
             php_value[memory_limit] = 99M\n\
             php_flag[display_errors] = on\n\
             php_value[allow_url_fopen] = Off\n\
             php_value[date.timezone] = Europe/Paris\n\
             php_flag[short_open_tag] = off\n\
             php_admin_value[upload_max_filesize] = 5M\n\
             php_admin_value[open_basedir] = {}:/tmp\n\
             php_admin_value[disable_functions] = exec,passthru\n",
            sock.display(),
            root.display()
        ),
    );
    write(
        &fpm.join("php.ini"),
        "[PHP]\nmax_execution_time = 17\nprecision = 11\npost_max_size = 9M\n\
         upload_max_filesize = 3M\nmemory_limit = 77M\ndisplay_errors = Off\nexpose_php = Off\n\
         this_line_has_no_value\nlog_errors = On\n[Session]\nsession.gc_maxlifetime = 999\n\
         [PATH=/nonexistent/elsewhere]\nserialize_precision = 3\n",
    );
    write(
        &fpm.join("conf.d/20-a.ini"),
        "precision = 12\ndefault_charset = \"ISO-8859-1\"\nerror_reporting = E_ALL & ~E_NOTICE\n",
    );
    write(
        &fpm.join("conf.d/30-b.ini"),
        "precision = 13\nmax_input_time = 33\n",
    );
    let names: Vec<String> = SETTINGS.iter().map(|(n, _)| format!("'{n}'")).collect();
    write(
        &root.join("www/probe.php"),
        &format!(
            "<?php\nif (isset($_GET['set'])) {{\n\
             echo json_encode([ini_set('memory_limit', '55M'), ini_set('date.timezone', 'UTC')]);\n\
             exit;\n}}\n$out = [];\nforeach ([{}] as $n) {{ $out[$n] = ini_get($n); }}\n\
             echo json_encode($out);\n",
            names.join(", ")
        ),
    );
    fpm
}

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One FastCGI record.
fn record(kind: u8, body: &[u8]) -> Vec<u8> {
    let len = body.len() as u16;
    let mut r = vec![1, kind, 0, 1, (len >> 8) as u8, len as u8, 0, 0];
    r.extend_from_slice(body);
    r
}

/// FastCGI name-value pairs (all shorter than 128 bytes here).
fn params(pairs: &[(&str, String)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (k, v) in pairs {
        out.push(k.len() as u8);
        out.push(v.len() as u8);
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(v.as_bytes());
    }
    out
}

/// A GET of `script` with `query` through the socket: the response body.
fn fastcgi_get(sock: &Path, script: &Path, query: &str) -> String {
    let mut s = UnixStream::connect(sock).expect("php-fpm listens");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = record(1, &[0, 1, 0, 0, 0, 0, 0, 0]); // BEGIN_REQUEST, responder
    let p = params(&[
        ("SCRIPT_FILENAME", script.display().to_string()),
        ("SCRIPT_NAME", "/probe.php".into()),
        ("REQUEST_METHOD", "GET".into()),
        ("QUERY_STRING", query.into()),
        ("SERVER_PROTOCOL", "HTTP/1.1".into()),
    ]);
    req.extend(record(4, &p));
    req.extend(record(4, &[]));
    req.extend(record(5, &[]));
    s.write_all(&req).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let mut stdout = Vec::new();
    let mut at = 0;
    while at + 8 <= raw.len() {
        let kind = raw[at + 1];
        let len = usize::from(raw[at + 4]) << 8 | usize::from(raw[at + 5]);
        let pad = usize::from(raw[at + 6]);
        if kind == 6 {
            stdout.extend_from_slice(&raw[at + 8..at + 8 + len]);
        }
        at += 8 + len + pad;
    }
    let text = String::from_utf8_lossy(&stdout).into_owned();
    match text.split_once("\r\n\r\n") {
        Some((_, body)) => body.to_string(),
        None => panic!("no FastCGI response body: {text:?}"),
    }
}

/// `"key":"value"` pairs of the probe's flat JSON object (values are strings or false).
fn flat_json(body: &str) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    v.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("<false>").to_string()))
        .collect()
}

#[test]
fn effective_settings_agree_with_php_fpm() {
    let Some(bin) = php_fpm() else {
        let msg = "php-fpm8.2 not found (install php8.2-fpm, or set LEMPLINT_PHP_FPM)";
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{msg}: the precedence test cannot run on CI without it");
        }
        eprintln!("skipped: {msg}");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let sock = root.join("fpm.sock");
    let fpm = tree(root, &sock);
    let child = Command::new(&bin)
        .args(["-F", "-O", "-R", "-y"])
        .arg(fpm.join("php-fpm.conf"))
        .arg("-c")
        .arg(fpm.join("php.ini"))
        .env("PHP_INI_SCAN_DIR", fpm.join("conf.d"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("php-fpm starts");
    let mut running = Running(child);
    let start = Instant::now();
    while !sock.exists() {
        if let Ok(Some(status)) = running.0.try_wait() {
            let mut err = String::new();
            running
                .0
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!("php-fpm exited ({status}): {err}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "php-fpm did not listen"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let script = root.join("www/probe.php");
    let theirs = flat_json(&fastcgi_get(&sock, &script, ""));

    let ws = Workspace::load(&StackArgs {
        paths: vec![root.to_path_buf()],
        isolated: true,
        ..Default::default()
    })
    .unwrap();
    let stack = &ws.stacks[0];
    let insts = instances(stack);
    let pool = insts
        .iter()
        .flat_map(|i| i.pools.iter())
        .find(|p| p.name == "www")
        .expect("the pool");
    assert!(pool.ini.is_some(), "the pool reads the tree's php.ini");
    let mut wrong = Vec::new();
    for (name, level) in SETTINGS {
        let php = theirs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap();
        let ours = pool.php(name).map(|e| e.text);
        if ours.as_deref() != Some(php.as_str()) {
            wrong.push(format!(
                "{name} ({level}): php-fpm {php:?}, lemplint {ours:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "disagreements:\n{}", wrong.join("\n"));

    // What admin adds: ini_set() fails on an admin value (false), works on a php_value (the
    // old value back).
    let set = fastcgi_get(&sock, &script, "set=1");
    assert_eq!(
        set, "[false,\"Europe\\/Paris\"]",
        "ini_set on admin / php_value"
    );
}

/// `php8.2` (the CLI reads php.ini with the same scanner as php-fpm's SAPI).
fn php_cli() -> Option<PathBuf> {
    ["/usr/bin/php8.2", "/usr/local/bin/php8.2"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// Every `fixtures/parser/phpini` file round-trips byte for byte, and PHP reports a syntax
/// error in it exactly when lemplint does, with the same message: `PHP:  <message> in <file>
/// on line N`. PHP counts an `END_OF_LINE` error on the line after it (it has read the line
/// end); every other error is on our line.
#[test]
fn php_ini_fixtures_parse_as_php_does() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/parser/phpini");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 6, "the php.ini fixtures are there");
    let php = php_cli();
    if php.is_none() {
        let msg = "php8.2 not found (install php8.2-cli)";
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{msg}: the php.ini differential cannot run on CI without it");
        }
        eprintln!("skipped the PHP half: {msg}");
    }
    for f in files {
        let src = std::fs::read(&f).unwrap();
        let parsed = lemplint::syntax::phpini::parse(&src);
        assert_eq!(
            parsed.file.print(&src).as_deref(),
            Some(&src[..]),
            "{}",
            f.display()
        );
        let ours = lemplint::stack::php_ini::first_error(&parsed).map(|e| {
            let line = 1 + src[..e.span.start as usize]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            (e.message.clone(), line)
        });
        let Some(php) = &php else { continue };
        let out = Command::new(php)
            .arg("-c")
            .arg(&f)
            .args(["-r", "echo 'ran';"])
            .env("PHP_INI_SCAN_DIR", "")
            .output()
            .unwrap();
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        let theirs = text.lines().find_map(|l| {
            let rest = l.strip_prefix("PHP:  ")?;
            let (message, line) = rest.rsplit_once(" on line ")?;
            let message = message.rsplit_once(" in ")?.0.to_string();
            Some((message, line.trim().parse::<usize>().ok()?))
        });
        match (&ours, &theirs) {
            (None, None) => {}
            (Some((m, l)), Some((pm, pl))) => {
                let shift = usize::from(m.ends_with("unexpected END_OF_LINE"));
                assert_eq!((m, l + shift), (pm, *pl), "{}", f.display());
            }
            _ => panic!(
                "{}: lemplint {ours:?}, PHP {theirs:?} ({text})",
                f.display()
            ),
        }
    }
}
