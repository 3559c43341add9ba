//! After `lemplint fix --unsafe-fixes`, every rule fixture that lemplint then finds free of
//! errors must be accepted by the real programs: `nginx -t` for nginx cases, `php-fpm8.2 -t`
//! for PHP-FPM cases. This ties our "no error" to theirs, and proves that fixes never produce
//! a file the real parser rejects.

mod common;
use common::copy_tree;

use lemplint::diagnostic::Severity;
use lemplint::engine::collect;
use lemplint::engine::fix_loop::{run as run_fixes, Request};
use lemplint::engine::StackArgs;
use lemplint::fix::Applicability;
use std::path::{Path, PathBuf};
use std::process::Command;

fn binary(candidates: &[&str]) -> Option<PathBuf> {
    let found = candidates.iter().map(PathBuf::from).find(|p| p.exists());
    if found.is_none() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "{} is required in CI (scripts/test installs it)",
            candidates[0]
        );
        eprintln!("{} not installed; skipping", candidates[0]);
    }
    found
}

/// Fixes a copy of `case` and returns it when lemplint then reports no error in it.
fn fixed_and_clean(case: &Path, tmp: &Path) -> Option<PathBuf> {
    // Keep the language directory in the path: it is how a lone `www.conf` is known to be a
    // PHP-FPM pool.
    let lang = case
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .unwrap();
    std::fs::create_dir_all(tmp.join(lang)).unwrap();
    let copy = tmp.join(lang).join(case.file_name().unwrap());
    copy_tree(case, &copy);
    let args = StackArgs {
        paths: vec![copy.clone()],
        isolated: true,
        ..Default::default()
    };
    let req = Request {
        stdin: None,
        args: &args,
        select: &[],
        ignore: &[],
        level: Applicability::Unsafe,
    };
    let outcome = run_fixes(&req).unwrap();
    assert!(
        outcome.bugs.is_empty(),
        "{}: {:?}",
        case.display(),
        outcome.bugs
    );
    for (path, change) in &outcome.changed {
        let new = &change.new;
        std::fs::write(path, new).unwrap();
    }
    let (ws, findings) = collect(&args, &[], &[], None).unwrap();
    let clean = !findings
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    // A placeholder is not a value until the deployment fills it in (lemplint is silent on
    // it), so a file holding one is not what the real program reads.
    let templated = ws
        .stacks
        .iter()
        .flat_map(|s| s.sources())
        .any(|(source, _, _)| !source.holes.is_empty());
    (clean && !templated).then_some(copy)
}

fn cases(lang: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(lang);
    let mut out = Vec::new();
    for rule in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for c in std::fs::read_dir(rule.path()).unwrap().flatten() {
            let p = c.path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if !(name.ends_with(".snap") || name.ends_with(".toml") || name.ends_with(".new")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Whether any file of a case loads an absolute path (include, certificate, key, dhparam).
fn names_server_paths(dir: &Path) -> bool {
    let mut todo = vec![dir.to_path_buf()];
    while let Some(p) = todo.pop() {
        if p.is_dir() {
            todo.extend(std::fs::read_dir(&p).unwrap().flatten().map(|e| e.path()));
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        for line in text.lines() {
            let mut words = line.split_whitespace();
            let (Some(name), Some(arg)) = (words.next(), words.next()) else {
                continue;
            };
            if matches!(
                name,
                "include"
                    | "ssl_certificate"
                    | "ssl_certificate_key"
                    | "ssl_dhparam"
                    | "ssl_trusted_certificate"
            ) && arg.trim_matches(['"', '\'']).starts_with('/')
            {
                return true;
            }
        }
    }
    false
}

/// A version as `(major, minor, patch)` from text such as `1.27.3`.
fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().split('.').map(|p| p.parse::<u32>().ok());
    Some((
        parts.next()??,
        parts.next()??,
        parts.next().flatten().unwrap_or(0),
    ))
}

/// The nginx version this machine's binary reports (`nginx version: nginx/1.22.1`).
fn local_nginx_version(nginx: &Path) -> (u32, u32, u32) {
    let out = Command::new(nginx).arg("-v").output().unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    let version = text.rsplit('/').next().unwrap_or_default();
    parse_version(version).unwrap_or_else(|| panic!("cannot read the version in {text:?}"))
}

/// The nginx version a case describes in its sidecar `<case>.toml` (`[host] nginx = "…"`).
fn described_nginx_version(case: &Path) -> Option<(u32, u32, u32)> {
    let sidecar = case.with_extension("toml");
    let text = std::fs::read_to_string(sidecar).ok()?;
    let table: toml::Table = text.parse().ok()?;
    parse_version(table.get("host")?.get("nginx")?.as_str()?)
}

/// Whether nginx rejected a directive of a third-party or commercial module this build lacks
/// (OpenResty's Lua handlers, NGINX Plus's `auth_jwt` and OpenID Connect): the case is valid
/// for the server it describes, not for nginx-light.
fn third_party_directive(err: &str) -> bool {
    err.split("unknown directive \"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .any(|name| {
            name.contains("_by_lua")
                || name.starts_with("lua_")
                || name.starts_with("auth_jwt")
                || name.starts_with("oidc_")
                || name == "auth_oidc"
        })
}

fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    if dir.is_file() {
        return Some(dir.to_path_buf());
    }
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() && !p.is_symlink() {
            if let Some(f) = find_file(&p, name) {
                return Some(f);
            }
        } else if p.file_name().is_some_and(|n| n == name) {
            return Some(p);
        }
    }
    None
}

/// RFC 7919's ffdhe2048 group as PEM (what `openssl genpkey -genparam -algorithm DH -pkeyopt
/// group:ffdhe2048` prints, and Mozilla's `ffdhe2048.txt`): generating DH parameters is slow.
const FFDHE2048: &str = "-----BEGIN DH PARAMETERS-----
MIIBCAKCAQEA//////////+t+FRYortKmq/cViAnPTzx2LnFg84tNpWp4TZBFGQz
+8yTnc4kmz75fS/jY2MMddj2gbICrsRhetPfHtXV/WVhJDP1H18GbtCFY2VVPe0a
87VXE15/V8k1mE8McODmi3fipona8+/och3xWKE2rec1MKzKT0g6eXq8CrGCsyT7
YdEIqUuyyOP7uWrat2DX9GgdT0Kj3jlN9K5W7edjcrsZCwenyO4KbXCeAvzhzffi
7MA0BM0oNC9hkXL+nOmFg/+OTxIy7vKBg8P+OxtMb61zO7X8vC7CIAXFjvGDfRaD
ssbzSibBsu/6iGtCOGEoXJf//////////wIBAg==
-----END DH PARAMETERS-----
";

/// A self-signed certificate and its key (PEM), made once per test run with `openssl req`.
fn test_certificate() -> &'static (Vec<u8>, Vec<u8>) {
    static PAIR: std::sync::OnceLock<(Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();
    PAIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        let out = Command::new("openssl")
            .args([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=test",
            ])
            .args(["-days", "1", "-keyout"])
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .output()
            .expect("openssl is needed to make a test certificate");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (std::fs::read(&cert).unwrap(), std::fs::read(&key).unwrap())
    })
}

/// Writes the certificate, key and DH parameter files a fixed case names with relative paths
/// (`ssl_certificate cert.pem;` resolves against the prefix), so `nginx -t` can load them.
/// Absolute paths belong to the described server and are left alone.
fn provide_tls_files(case: &Path, prefix: &Path) {
    let files = if case.is_file() {
        vec![case.to_path_buf()]
    } else {
        let mut all = Vec::new();
        let mut todo = vec![case.to_path_buf()];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() && !p.is_symlink() {
                    todo.push(p);
                } else if p.is_file() {
                    all.push(p);
                }
            }
        }
        all
    };
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for line in text.lines() {
            let line = line.trim_start();
            let mut words = line.split_whitespace();
            let (Some(name), Some(arg)) = (words.next(), words.next()) else {
                continue;
            };
            let arg = arg.trim_end_matches(';').trim_matches(['"', '\'']);
            if arg.is_empty() || arg.starts_with('/') || arg.contains('$') {
                continue;
            }
            let content: Vec<u8> = match name {
                "ssl_certificate" => test_certificate().0.clone(),
                "ssl_certificate_key" => test_certificate().1.clone(),
                "ssl_dhparam" => FFDHE2048.as_bytes().to_vec(),
                _ => continue,
            };
            let path = prefix.join(arg);
            if !path.exists() {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, content).unwrap();
            }
        }
    }
}

#[test]
fn fixed_nginx_fixtures_pass_nginx_t() {
    let Some(nginx) = binary(&["/usr/sbin/nginx"]) else {
        return;
    };
    let local = local_nginx_version(&nginx);
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in cases("nginx").into_iter().chain(cases("stack")) {
        if described_nginx_version(&case).is_some_and(|v| v > local) {
            continue; // written for a newer nginx than this machine's (e.g. upstream `resolve`)
        }
        let tmp = tempfile::tempdir().unwrap();
        let Some(fixed) = fixed_and_clean(&case, tmp.path()) else {
            continue;
        };
        let main = find_file(&fixed, "nginx.conf").unwrap_or(fixed.clone());
        let text = std::fs::read_to_string(&main).unwrap_or_default();
        if !text.contains("events") {
            continue; // a snippet, not a configuration nginx can load on its own
        }
        if names_server_paths(&fixed) {
            // `include /etc/nginx/...` means the described server's file; the nginx here
            // would read this machine's /etc instead.
            continue;
        }
        // Absolute includes of the mirrored server resolve under the case's root.
        let prefix = main.parent().unwrap();
        provide_tls_files(&fixed, prefix);
        let out = Command::new(&nginx)
            .arg("-t")
            .arg("-q")
            .arg("-p")
            .arg(format!("{}/", prefix.display()))
            .arg("-c")
            .arg(&main)
            .output()
            .unwrap();
        checked += 1;
        let err = String::from_utf8_lossy(&out.stderr);
        // Absolute paths of the described server (includes under /etc/nginx) cannot be
        // loaded here; such cases only prove lemplint's side.
        // Users, modules and absolute paths of the described server (`user nginx;`, `stream`
        // without its module, includes under /etc/nginx) may not exist on this machine; such
        // cases only prove lemplint's side.
        let environmental = [
            "failed (2: No such file",
            "getpwnam(",
            "getgrnam(",
            "unknown directive \"stream\"",
            "host not found in upstream",
        ]
        .iter()
        .any(|m| err.contains(m))
            || third_party_directive(&err);
        if !out.status.success() && !environmental {
            failures.push(format!("{}: {err}", case.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{checked} fixed nginx fixtures checked with nginx -t");
}

#[test]
fn fixed_fpm_fixtures_pass_php_fpm_t() {
    let Some(fpm) = binary(&["/usr/sbin/php-fpm8.2"]) else {
        return;
    };
    let mut failures = Vec::new();
    for case in cases("fpm") {
        let tmp = tempfile::tempdir().unwrap();
        let Some(fixed) = fixed_and_clean(&case, tmp.path()) else {
            continue;
        };
        let Some(pool) = find_file(&fixed, "").or_else(|| fixed.is_file().then(|| fixed.clone()))
        else {
            continue;
        };
        let text = std::fs::read_to_string(&pool).unwrap_or_default();
        let master = tmp.path().join("php-fpm-test.conf");
        let body = if text.contains("[global]") {
            text
        } else {
            format!(
                "[global]\npid = {0}/fpm.pid\nerror_log = {0}/fpm.log\n{text}",
                tmp.path().display()
            )
        };
        std::fs::write(&master, body).unwrap();
        let out = Command::new(&fpm)
            .args(["-t", "-R", "-y"])
            .arg(&master)
            .output()
            .unwrap();
        if !out.status.success() {
            failures.push(format!(
                "{}: {}",
                case.display(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
