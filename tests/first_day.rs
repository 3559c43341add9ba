//! Defects a new user hits on the first day (issue #41), each checked through the binary as
//! the user ran it: columns that differ between formats, a binary file framed as a syntax
//! error, `--memory 2` read as bytes, `lint /etc` without host facts, `stack -`, and a tree
//! with nothing to check.

mod common;

use common::run_lemplint as run;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn write(dir: &Path, rel: &str, body: &[u8]) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, body).unwrap();
}

/// `file:line:col` of every finding, as each format prints it, in the order printed.
fn places(dir: &Path, file: &str, format: &str) -> Vec<String> {
    let out = run(dir, &["lint", file, "--format", format], None);
    let stdout = text(&out.stdout);
    match format {
        "json" => {
            let doc: Value = serde_json::from_str(&stdout).unwrap();
            doc["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    format!(
                        "{}:{}:{}",
                        d["file"].as_str().unwrap(),
                        d["line"],
                        d["column"]
                    )
                })
                .collect()
        }
        "concise" => stdout
            .lines()
            .filter(|l| l.starts_with(file))
            .map(|l| l.splitn(4, ':').take(3).collect::<Vec<_>>().join(":"))
            .collect(),
        // The frame's header: `╭─[file:line:col]`.
        _ => stdout
            .lines()
            .filter_map(|l| l.split_once("╭─[").map(|(_, rest)| rest))
            .map(|rest| rest.trim_end_matches(']').to_string())
            .collect(),
    }
}

/// The full format printed miette's column (bytes of the shown text: `xx "ééé" }` at 2:13,
/// a control character as `\x01`, four columns) where concise and JSON printed 2:10.
#[test]
fn every_format_prints_the_same_line_and_column() {
    let d = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 4] = [
        (
            "utf8.conf",
            "http {\nxx \"ééé\" }\n".as_bytes(),
            "utf8.conf:2:10",
        ),
        (
            "control.conf",
            b"http {\nxx \"\x01\x02\" }\n",
            "control.conf:2:9",
        ),
        (
            "tab.conf",
            b"http {\n\txx\t\"\xc3\xa9\" }\n",
            "tab.conf:2:9",
        ),
        (
            "after.conf",
            "events {}\nhttp { add_header X \"ü→ä\"; server_tokens on; }\n".as_bytes(),
            "after.conf:2:42",
        ),
    ];
    for (name, body, want) in cases {
        write(d.path(), name, body);
        let json = places(d.path(), name, "json");
        assert!(json.iter().any(|p| p == want), "{name}: {json:?}");
        assert_eq!(places(d.path(), name, "concise"), json, "{name}: concise");
        assert_eq!(places(d.path(), name, "full"), json, "{name}: full");
    }
}

/// A compiled program: an ELF header, NULs, and 8 KB more of everything.
fn elf() -> Vec<u8> {
    let mut b = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0".to_vec();
    b.extend((0..8800u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8));
    b
}

/// A binary file printed 8.7 KB of control-character garbage as a syntax-error frame.
#[test]
fn a_binary_file_is_one_line_saying_so() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "lemplint.conf", &elf());
    for format in ["full", "concise"] {
        let out = run(
            d.path(),
            &["lint", "lemplint.conf", "--format", format],
            None,
        );
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{format}: {stdout}");
        let lines: Vec<&str> = stdout
            .lines()
            .filter(|l| l.contains("lemplint.conf"))
            .collect();
        assert_eq!(
            lines,
            ["lemplint.conf:1:1: error[NGX000] binary file, not a configuration"],
            "{format}: {stdout}"
        );
        assert!(
            !stdout.contains('╭') && stdout.len() < 600,
            "{format}: {stdout}"
        );
    }
    // Found by discovery, in each language: one line each, at the file.
    let tree = tempfile::tempdir().unwrap();
    write(tree.path(), "etc/nginx/nginx.conf", &elf());
    write(tree.path(), "etc/php/8.2/fpm/pool.d/www.conf", &elf());
    write(tree.path(), "etc/sysctl.d/99-x.conf", &elf());
    let out = run(tree.path(), &["lint", "."], None);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    let binary = stdout
        .lines()
        .filter(|l| l.ends_with("binary file, not a configuration"))
        .count();
    assert_eq!(binary, 3, "{stdout}");
    assert!(!stdout.contains('╭') && stdout.len() < 1500, "{stdout}");
}

fn assert_refused(out: &Output, needles: &[&str]) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{n:?} not in {stderr}");
    }
}

/// `--memory 2` was read as 2 bytes ("1.2 GiB > 1 B available"); `--reserve 512` as 512.
#[test]
fn a_memory_or_reserve_without_a_unit_is_refused_with_a_suggestion() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "nginx.conf",
        b"events {}\nhttp { server_tokens off; }\n",
    );
    for cmd in ["lint", "tune", "stack"] {
        let out = run(d.path(), &[cmd, ".", "--cpus", "1", "--memory", "2"], None);
        assert_refused(&out, &["memory \"2\"", "2GiB"]);
        let out = run(
            d.path(),
            &[cmd, ".", "--cpus", "1", "--memory", "2KiB"],
            None,
        );
        assert_refused(&out, &["16 MiB"]);
    }
    write(d.path(), "lemplint.toml", b"[host]\nmemory = \"2\"\n");
    let out = run(d.path(), &["lint", "."], None);
    assert_refused(&out, &["memory", "2GiB"]);
    std::fs::remove_file(d.path().join("lemplint.toml")).unwrap();
    let out = run(
        d.path(),
        &[
            "tune",
            ".",
            "--cpus",
            "1",
            "--memory",
            "2GiB",
            "--reserve",
            "512",
        ],
        None,
    );
    assert_refused(&out, &["512MiB", "25%"]);
    for ok in [["--memory", "2GiB"], ["--memory", "2147483648"]] {
        let out = run(d.path(), &["lint", ".", "--cpus", "1", ok[0], ok[1]], None);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let out = run(
        d.path(),
        &[
            "tune",
            ".",
            "--cpus",
            "1",
            "--memory",
            "2GiB",
            "--reserve",
            "512MiB",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// `lemplint lint /etc` on a server detected no host facts (only `lint /` did). Reads the
/// machine's /etc, never writes it; a machine whose /etc holds nothing of ours has nothing
/// to check.
#[test]
fn lint_etc_detects_the_hosts_facts() {
    let out = run(Path::new("/"), &["lint", "/etc", "--format", "json"], None);
    let doc: Value = match serde_json::from_slice(&out.stdout) {
        Ok(doc) => doc,
        Err(e) => panic!("{e}: {}", text(&out.stderr)),
    };
    if doc["summary"]["files"].as_u64().unwrap_or(0) == 0 {
        eprintln!("skipped: this machine's /etc holds no nginx, PHP-FPM or sysctl file");
        return;
    }
    let host: Vec<&str> = doc["summary"]["host"]
        .as_array()
        .unwrap_or_else(|| panic!("no host facts: {}", doc["summary"]))
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for fact in ["cpus:", "memory:"] {
        assert!(
            host.iter()
                .any(|h| h.starts_with(fact) && h.contains("detected on this machine")),
            "{fact} {host:?}"
        );
    }
    assert_eq!(doc["summary"]["skipped_for_host"], serde_json::json!([]));
}

/// `lemplint stack -` failed ("-: no such file or directory").
#[test]
fn stack_reads_standard_input() {
    let d = tempfile::tempdir().unwrap();
    let out = run(
        d.path(),
        &["stack", "-"],
        Some(b"events {}\nhttp { server_tokens on; }\n"),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        stdout.contains("nginx") && stdout.contains("<stdin>"),
        "{stdout}"
    );
    let out = run(
        d.path(),
        &["stack", "--format", "json", "-"],
        Some(b"net.core.somaxconn = 4096\n"),
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["stacks"][0]["sysctl"]["net.core.somaxconn"]["value"],
        "4096"
    );
}

/// A tree that holds no configuration of ours: every command warns on stderr and exits 0,
/// as ruff does for a tree without Python (lint already did; the others exited 2).
#[test]
fn a_tree_with_nothing_of_ours_warns_and_passes_in_every_command() {
    let empty = tempfile::tempdir().unwrap();
    for cmd in [
        &["lint", "."][..],
        &["fix", "."],
        &["fix", "--diff", "."],
        &["fmt", "."],
        &["fmt", "--check", "."],
        &["tune", "."],
        &["stack", "."],
    ] {
        let out = run(empty.path(), cmd, None);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{cmd:?}: {stderr}");
        assert!(
            stderr.starts_with("warning: no configuration files found"),
            "{cmd:?}: {stderr}"
        );
    }
    let out = run(empty.path(), &["stack", ".", "--format", "json"], None);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["stacks"], serde_json::json!([]));
    // A path that does not exist is still an error.
    let out = run(empty.path(), &["stack", "missing"], None);
    assert_eq!(out.status.code(), Some(2));
}

/// `scripts/test` run as root installed libnginx-mod-http-lua, whose package enables the
/// module in the machine's own /etc/nginx (a symlink in modules-enabled/). What the scripts
/// install with apt must hold no nginx module package, nor one that depends on one
/// (lua-resty-core); the modules are unpacked under target/ instead.
#[test]
fn the_test_scripts_install_no_nginx_module_package() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut installed = Vec::new();
    for script in ["scripts/test", "scripts/nginx-modules.sh"] {
        let body = std::fs::read_to_string(root.join(script)).unwrap();
        for line in body.lines().map(str::trim) {
            if let Some(pkg) = line
                .split("missing+=(")
                .nth(1)
                .and_then(|r| r.split(')').next())
            {
                installed.push(pkg.to_string());
            }
            if let Some(rest) = line.split("apt-get install").nth(1) {
                installed.extend(
                    rest.split_whitespace()
                        .filter(|w| {
                            !w.starts_with('-') && !w.starts_with('"') && *w != ">/dev/null"
                        })
                        .map(str::to_string),
                );
            }
        }
    }
    assert!(
        installed.iter().any(|p| p == "nginx-light"),
        "{installed:?}"
    );
    for p in &installed {
        assert!(
            !p.starts_with("libnginx-mod")
                && !p.starts_with("lua-resty")
                && !p.contains("nginx-extras"),
            "{p} would enable a module in /etc/nginx: {installed:?}"
        );
    }
    let modules = std::fs::read_to_string(root.join("scripts/nginx-modules.sh")).unwrap();
    assert!(modules.contains("apt-get download") && modules.contains("dpkg-deb -x"));
}

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The first `lemplint …` command of the README that starts with `prefix`, as words (up to
/// the end of its line or its closing backquote).
fn readme_command(readme: &str, prefix: &str) -> Vec<String> {
    let at = readme
        .find(prefix)
        .unwrap_or_else(|| panic!("README: no `{prefix}`"));
    let rest = &readme[at..];
    let end = rest.find(['\n', '`']).unwrap_or(rest.len());
    rest[..end]
        .split_whitespace()
        .skip(1)
        .map(str::to_string)
        .collect()
}

fn run_args(args: &[String]) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(Path::new(env!("CARGO_MANIFEST_DIR")), &args, None)
}

/// What the README says about its first commands holds: the Debian stack it calls clean has
/// no problem (it had three), the first command exits 1 as the README now says, and tune
/// takes a pool's `memory_limit` as the worker size, as quoted.
#[test]
fn the_readmes_first_commands_do_what_it_says() {
    let readme = readme();
    let clean = readme_command(&readme, "lemplint lint fixtures/stacks/debian-php");
    let at = readme
        .find("lemplint lint fixtures/stacks/debian-php")
        .unwrap();
    assert!(readme[at..at + 150].contains("for a clean Debian stack (no\nproblems found, exit 0)"));
    let out = run_args(&clean);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{clean:?}: {stdout}");
    assert!(
        stdout.starts_with("No problems found"),
        "{clean:?}: {stdout}"
    );

    let first = readme_command(&readme, "lemplint lint fixtures/tune/field-report");
    let out = run_args(&first);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{first:?}: {}",
        text(&out.stdout)
    );
    assert!(
        readme.contains("It reports what the field reports found")
            && readme.contains(
                "and exits 1, as\nit does whenever there are findings at warning or above"
            )
    );

    // The worker size a pool's memory_limit gives, in the words the README quotes.
    let quoted = readme
        .split("is larger (`")
        .nth(1)
        .and_then(|r| r.split("…`").next())
        .expect("README quotes tune's assumed worker size");
    let d = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/tune/field-report");
    common::copy_tree(&fixture, d.path());
    let pool = d.path().join("etc/php/8.2/fpm/pool.d/www.conf");
    let mut body = std::fs::read_to_string(&pool).unwrap();
    body.push_str("php_admin_value[memory_limit] = 256M\n");
    std::fs::write(&pool, body).unwrap();
    let out = run(
        d.path(),
        &["tune", ".", "--cpus", "1", "--memory", "613MiB"],
        None,
    );
    let stdout = text(&out.stdout).replace('\n', " ");
    assert!(
        stdout.contains(quoted.replace('\n', " ").trim()),
        "{quoted:?} not in: {stdout}"
    );
}
