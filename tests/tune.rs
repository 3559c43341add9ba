//! `lemplint tune`: after applying its diff, `lemplint lint` with the same host facts reports
//! none of the sizing rules, on every fixture stack and several host sizes; and the output a
//! user reads is pinned by snapshots.

mod common;
use common::copy_tree;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Every rule a value tune writes can touch: worker counts and CPU binding, connections and
/// open-files limits, the process manager, pool sizes, spares and recycling, backlogs.
const SIZING_RULES: &str =
    "NGX005,NGX006,NGX007,FPM001,FPM004,FPM005,FPM105,FPM109,STK001,STK002,STK005";
const HOSTS: [(&str, &str); 4] = [
    ("1", "613MiB"),
    ("2", "2GiB"),
    ("8", "16GiB"),
    ("64", "256GiB"),
];

fn lemplint(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn stacks() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/stacks");
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// The sizing options tune and lint must agree on: none (the defaults), and others.
const OPTIONS: [&str; 2] = [
    "",
    "[rules.FPM004]\nreserve = \"60%\"\nworker-rss = \"96MiB\"\n",
];

#[test]
fn lint_is_silent_on_sizing_after_tune() {
    let mut failures = Vec::new();
    for stack in stacks() {
        for ((cpus, memory), options) in HOSTS.iter().flat_map(|h| OPTIONS.map(|o| (*h, o))) {
            let tmp = tempfile::tempdir().unwrap();
            let copy = tmp.path().join("stack");
            copy_tree(&stack, &copy);
            let config = tmp.path().join("lemplint.toml");
            std::fs::write(&config, options).unwrap();
            let host = [
                "--cpus",
                cpus,
                "--memory",
                memory,
                "--kernel",
                "6.1",
                "--config",
                config.to_str().unwrap(),
            ];
            let mut args = vec!["tune", "--write", "stack"];
            args.extend(host);
            let out = lemplint(tmp.path(), &args);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            // When the memory holds fewer than two workers per pool, tune says so and leaves
            // the pool sizes: the memory rules may still speak, nothing else may.
            let untuned = String::from_utf8_lossy(&out.stdout).contains("not tuned");
            let mut args = vec![
                "lint",
                "--format",
                "concise",
                "--select",
                SIZING_RULES,
                "stack",
            ];
            args.extend(host);
            let out = lemplint(tmp.path(), &args);
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            if stdout.lines().any(|l| {
                (l.contains(": error[") || l.contains(": warning["))
                    && !(untuned && (l.contains("[FPM004]") || l.contains("[FPM105]")))
            }) {
                failures.push(format!(
                    "{} on {cpus} CPUs / {memory} with {options:?}:\n{stdout}",
                    stack.display()
                ));
            }
            // A second tune finds nothing more to change.
            let mut args = vec!["tune", "--diff", "stack"];
            args.extend(host);
            let out = lemplint(tmp.path(), &args);
            if !out.stdout.is_empty() {
                failures.push(format!(
                    "{} on {cpus} CPUs / {memory}: tune is not idempotent:\n{}",
                    stack.display(),
                    String::from_utf8_lossy(&out.stdout)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn field_report_stack_text_and_json() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args = [
        "tune",
        "--isolated",
        "fixtures/tune/field-report",
        "--cpus",
        "1",
        "--memory",
        "613MiB",
    ];
    let out = lemplint(dir, &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    insta::assert_snapshot!("field_report_text", String::from_utf8_lossy(&out.stdout));
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let out = lemplint(dir, &json_args);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["host"]["cpus"], 1);
    assert_eq!(v["host"]["memory"], 613u64 << 20);
    assert_eq!(v["assumptions"]["php_worker_rss"], 64u64 << 20);
    let children = v["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["setting"] == "[www] pm.max_children")
        .unwrap();
    assert_eq!(
        children["recommended"], "7",
        "(613 MiB − 25 %) / 64 MiB = 7"
    );
    insta::assert_snapshot!(
        "field_report_diff",
        String::from_utf8_lossy(&lemplint(dir, &[&args[..], &["--diff"]].concat()).stdout)
    );
}

#[test]
fn tiny_host_says_so_instead_of_recommending_zero() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = lemplint(
        dir,
        &[
            "tune",
            "--isolated",
            "fixtures/tune/field-report",
            "--cpus",
            "1",
            "--memory",
            "64MiB",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("not even one PHP worker fits"), "{stdout}");
    assert!(
        !stdout.contains("pm.max_children       160 → 0"),
        "{stdout}"
    );
}

#[test]
fn sample_reads_real_php_fpm_workers() {
    let Some(fpm) = ["/usr/sbin/php-fpm8.2"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
    else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "php-fpm8.2 is required in CI"
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let conf = d.join("php-fpm.conf");
    std::fs::write(
        &conf,
        format!(
            "[global]\npid = {0}/fpm.pid\nerror_log = {0}/fpm.log\ndaemonize = no\n[www]\nuser = nobody\ngroup = nogroup\nlisten = {0}/php.sock\npm = static\npm.max_children = 3\n",
            d.display()
        ),
    )
    .unwrap();
    // Its own process group: php-fpm signals its group on shutdown, which must not reach
    // the test runner.
    use std::os::unix::process::CommandExt;
    let mut child = Command::new(fpm)
        .args(["-n", "-R", "-F", "-y"])
        .arg(&conf)
        .process_group(0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the workers (bounded).
    let mut sample = None;
    for _ in 0..50 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        if let Ok(s) = lemplint::tune::rss::sample() {
            if s.workers >= 3 {
                sample = Some(s);
                break;
            }
        }
    }
    // A graceful stop of the master and its workers, then make sure nothing is left.
    let pgid = format!("-{}", child.id());
    // `kill` complains when the group is already gone: that is not the test's business.
    let quiet_kill = |signal: &str| {
        let _ = Command::new("kill")
            .args([signal, "--", &pgid])
            .stderr(std::process::Stdio::null())
            .status();
    };
    quiet_kill("-QUIT");
    for _ in 0..50 {
        if child.try_wait().ok().flatten().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    quiet_kill("-KILL");
    let _ = child.wait();
    let s = sample.expect("sampled the 3 workers of the test pool");
    assert!(s.p95 >= s.mean && s.mean > 1 << 20, "{s:?}");
}

/// The limit nginx's systemd unit gives it is never lowered: with `LimitNOFILE=65535` and
/// 8192 connections (16384 descriptors), tune adds no `worker_rlimit_nofile`; with
/// `LimitNOFILE=4096` and 4096 connections it adds 8192.
#[test]
fn tune_keeps_the_units_open_files_limit() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let diff = |case: &str| {
        let out = lemplint(
            dir,
            &[
                "tune",
                "--isolated",
                "--cpus",
                "2",
                "--memory",
                "2GiB",
                "--diff",
                &format!("fixtures/nginx/NGX007/{case}"),
            ],
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(!diff("systemd_unit_limit").contains("worker_rlimit_nofile"));
    assert!(diff("systemd_unit_low").contains("+worker_rlimit_nofile 8192;"));
}

/// Values set by the environment (`${VAR}`) are reported with the recommendation and never
/// rewritten; the pool's name from the environment is shown as written.
#[test]
fn tune_never_rewrites_a_value_set_at_runtime() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "tune",
            "--isolated",
            "--cpus",
            "2",
            "--memory",
            "2GiB",
            "fixtures/stacks/env-sized-pool",
        ];
        a.extend(extra);
        a
    };
    let text = String::from_utf8_lossy(&lemplint(dir, &args(&[])).stdout).into_owned();
    assert!(
        text.contains("[${POOL_NAME}] pm.max_children  ${PHP_FPM_PM_MAX_CHILDREN:-50} → 24")
            && text.contains("set by the environment, so not changed here"),
        "{text}"
    );
    let diff = lemplint(dir, &args(&["--diff"]));
    let diff = String::from_utf8_lossy(&diff.stdout);
    assert!(!diff.contains("-pm"), "{diff}");
}

/// A stack is tuned unless a file the tuner reads is broken: a snippet nothing includes may
/// be broken without stopping the tune of the nginx.conf beside it, but a syntax error in a
/// file nginx.conf includes stops it (exit 2, nothing written), and says why.
#[test]
fn a_broken_file_stops_only_the_tune_that_reads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let conf = tmp.path().join("etc/nginx");
    std::fs::create_dir_all(conf.join("conf.d")).unwrap();
    std::fs::create_dir_all(conf.join("snippets")).unwrap();
    std::fs::write(
        conf.join("nginx.conf"),
        "worker_processes 1;\nevents { worker_connections 512; }\nhttp { include conf.d/*.conf; }\n",
    )
    .unwrap();
    std::fs::write(conf.join("conf.d/site.conf"), "server { listen 80; }\n").unwrap();
    std::fs::write(
        conf.join("snippets/old.conf"),
        "location / {\n    rewrite ^/(\\d{6})$ /x.php?id=$1 last;\n}\n",
    )
    .unwrap();
    let tune = || {
        lemplint(
            tmp.path(),
            &[
                "tune",
                "--isolated",
                "--cpus",
                "4",
                "--memory",
                "4GiB",
                "--diff",
                ".",
            ],
        )
    };
    let out = tune();
    let diff = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{diff}");
    assert!(diff.contains("-worker_processes 1;"), "{diff}");

    std::fs::write(conf.join("conf.d/site.conf"), "server { listen 80 }\n").unwrap();
    let out = tune();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert!(
        err.contains("site.conf:1:")
            && err.contains("error: stack . has errors that must be fixed first; it was not tuned"),
        "{err}"
    );
}

/// tune leaves the pools no master reads, gives a pool at least two workers, and takes a
/// `memory_limit` below lemplint's default worker size as no evidence of a smaller worker.
#[test]
fn tune_sizes_only_loaded_pools_and_never_below_two_workers() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("stack");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/stacks/small-pools"),
        &copy,
    );
    let leftover = copy.join("etc/php/8.1/fpm/pool.d/www.conf");
    let before = std::fs::read(&leftover).unwrap();
    let host = ["--cpus", "1", "--memory", "613MiB", "--isolated"];
    let mut args = vec!["tune", "stack"];
    args.extend(host);
    let out = lemplint(tmp.path(), &args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("PHP worker 64MiB (default)"), "{text}");
    assert!(!text.contains("8.1"), "{text}");
    let mut args = vec!["tune", "--write", "stack"];
    args.extend(host);
    assert_eq!(lemplint(tmp.path(), &args).status.code(), Some(0));
    assert_eq!(std::fs::read(&leftover).unwrap(), before);
    let www = std::fs::read_to_string(copy.join("etc/php/8.2/fpm/pool.d/www.conf")).unwrap();
    assert!(www.contains("pm.max_children = 7"), "{www}");
    let mut args = vec![
        "lint",
        "--format",
        "concise",
        "--select",
        "FPM105,FPM004",
        "stack",
    ];
    args.extend(host);
    let out = lemplint(tmp.path(), &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // A host that holds one worker: tune says why and writes no pool of one.
    let args = [
        "tune",
        "stack",
        "--cpus",
        "1",
        "--memory",
        "128MiB",
        "--isolated",
    ];
    let out = lemplint(tmp.path(), &args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("only 1 PHP worker fits"), "{text}");
    assert!(!text.contains("→ 1 "), "{text}");
}

/// A `memory_limit` above the default is the worker's size, and the arithmetic says it is an
/// assumption.
#[test]
fn memory_limit_as_worker_size_is_stated() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("stack");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/stacks/small-pools"),
        &copy,
    );
    let www = copy.join("etc/php/8.2/fpm/pool.d/www.conf");
    let text = std::fs::read_to_string(&www)
        .unwrap()
        .replace("32M", "256M");
    std::fs::write(&www, text).unwrap();
    let out = lemplint(
        tmp.path(),
        &[
            "tune",
            "stack",
            "--cpus",
            "2",
            "--memory",
            "4GiB",
            "--isolated",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("256MiB per worker (memory_limit, assumed to be the most a worker holds)"),
        "{text}"
    );
}
