//! `lemplint doctor` against real servers: a starved stack run by `lemplint bench` in a
//! private prefix shows its symptoms, doctor ties them to the backlog and the pool and
//! recommends what `tune` recommends; after `tune --write` and the same load they are gone.
//! Drift: a sysctl file never applied (in a network namespace of its own), an nginx file
//! changed after nginx read it, workers whose open-files limit is below
//! `worker_connections`. Under `CI=true` missing servers fail the tests.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::serial;

fn have_servers() -> bool {
    common::have_nginx_and_php_fpm("doctor tests")
}

fn lemplint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(args)
        .output()
        .unwrap()
}

const HOST: [&str; 4] = ["--cpus", "2", "--memory", "2GiB"];

/// `lemplint bench` of `stack` as it is, its private prefix kept under `tmp`: the prefix,
/// and bench's report.
fn bench_kept(tmp: &Path, stack: &Path) -> (PathBuf, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .arg("bench")
        .arg(stack)
        .args([
            "--current-only",
            "--keep",
            "--runs",
            "1",
            "--duration",
            "2s",
        ])
        .args(["--concurrency", "16", "--allow-root", "--format", "json"])
        .args(HOST)
        .env("TMPDIR", tmp)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let kept = err
        .lines()
        .find_map(|l| l.strip_prefix("kept: "))
        .unwrap_or_else(|| panic!("no kept prefix: {err}"));
    (
        PathBuf::from(kept),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

fn doctor_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["doctor"];
    all.extend(args);
    all.extend(["--format", "json"]);
    all.extend(HOST);
    let out = lemplint(&all);
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.code().unwrap(),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

fn symptom<'a>(v: &'a Value, id: &str) -> Option<&'a Value> {
    v["stacks"][0]["symptoms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["symptom"] == id)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// `tune`'s recommended value for `setting` on `dir`.
fn tune_says(dir: &Path, setting: &str) -> String {
    tune_says_with(dir, setting, &[])
}

fn tune_says_with(dir: &Path, setting: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "tune",
        dir.to_str().unwrap(),
        "--format",
        "json",
        "--cpus",
        "2",
        "--memory",
        "2GiB",
    ];
    args.extend(extra);
    let out = lemplint(&args);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["setting"] == setting)
        .unwrap_or_else(|| panic!("tune recommends no {setting}: {v}"))["recommended"]
        .as_str()
        .unwrap()
        .to_string()
}

fn fixed(s: &Value, setting: &str) -> String {
    s["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["setting"] == setting)
        .unwrap_or_else(|| panic!("no fix for {setting}: {s}"))["recommended"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_starved_stack_shows_its_symptoms_and_tunes_them_away() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let stack = tempfile::tempdir().unwrap();
    common::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench/starved"),
        stack.path(),
    );
    let tmp = tempfile::tempdir().unwrap();

    // As it is: one worker behind a queue of one.
    let (kept, bench) = bench_kept(tmp.path(), stack.path());
    let queue_full = bench["results"][0]["nginx_queue_full"].as_u64().unwrap();
    assert!(queue_full > 0, "{bench}");
    let (code, v) = doctor_json(&[kept.to_str().unwrap()]);
    assert_eq!(code, 1, "{v}");
    let eagain = symptom(&v, "upstream_queue_full").unwrap_or_else(|| panic!("{v}"));
    // doctor counts what bench counted in the same log.
    assert_eq!(eagain["count"].as_u64(), Some(queue_full), "{eagain}");
    let sock = eagain["subject"].as_str().unwrap();
    assert!(
        sock.starts_with(&format!("unix:{}", kept.display())),
        "{sock}"
    );
    let causes = strings(&eagain["causes"]);
    assert!(
        causes
            .iter()
            .any(|c| c.ends_with("[benchstarved] listen.backlog = 1")),
        "{causes:?}"
    );
    assert!(
        causes.iter().any(|c| c.contains("fastcgi_pass")),
        "{causes:?}"
    );
    let children = symptom(&v, "max_children_reached").unwrap_or_else(|| panic!("{v}"));
    assert!(children["count"].as_u64().unwrap() >= 1, "{children}");
    assert_eq!(children["subject"], "benchstarved");
    assert!(
        strings(&children["causes"])
            .iter()
            .any(|c| c.ends_with("[benchstarved] pm.max_children = 1")),
        "{children}"
    );
    // The fixes are tune's, value for value.
    for setting in [
        "[benchstarved] listen.backlog",
        "[benchstarved] pm.max_children",
    ] {
        assert_eq!(
            fixed(eagain, setting),
            tune_says(&kept, setting),
            "{setting}"
        );
    }
    assert_eq!(
        fixed(children, "[benchstarved] pm.max_children"),
        tune_says(&kept, "[benchstarved] pm.max_children")
    );
    // No client data by default: the request line and the client's address stay out.
    let text = v.to_string();
    assert!(
        !text.contains("GET /index.php") && !text.contains("client: "),
        "{text}"
    );
    // The same for a person: the count, the cause and tune's fix, on their lines.
    let mut args = vec!["doctor", kept.to_str().unwrap()];
    args.extend(HOST);
    let out = lemplint(&args);
    assert_eq!(out.status.code(), Some(1));
    let human = String::from_utf8(out.stdout).unwrap();
    let count = eagain["count"].as_u64().unwrap();
    let line = |prefix: &str| human.lines().any(|l| l.trim_start().starts_with(prefix));
    assert!(
        human.contains(&format!(
            "× connect() to … failed (11: Resource temporarily unavailable) while connecting to upstream on {sock}"
        )),
        "{human}"
    );
    assert!(
        human.contains(&format!(
            "{} ×",
            lemplint::doctor::diagnose::thousands(count)
        )),
        "{human}"
    );
    assert!(
        line("because: ") && line("fix (") && line("confirm: lemplint bench"),
        "{human}"
    );
    assert!(
        !human.contains("GET /index.php") && !human.contains("client: "),
        "{human}"
    );

    // With tune's change applied and the same load: the symptoms are gone.
    let out = lemplint(&[
        "tune",
        stack.path().to_str().unwrap(),
        "--write",
        "--cpus",
        "2",
        "--memory",
        "2GiB",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (kept, bench) = bench_kept(tmp.path(), stack.path());
    assert_eq!(bench["results"][0]["nginx_queue_full"], 0, "{bench}");
    let (code, v) = doctor_json(&[kept.to_str().unwrap()]);
    assert!(symptom(&v, "upstream_queue_full").is_none(), "{v}");
    assert!(symptom(&v, "max_children_reached").is_none(), "{v}");
    // Anything else php-fpm says under the load (a pool forking fast enough to be "busy")
    // is a symptom too, and then the exit code says so; nothing at all is exit 0.
    let none = v["stacks"][0]["symptoms"].as_array().unwrap().is_empty();
    assert_eq!(code, if none { 0 } else { 1 }, "{v}");
    // The logs were read (what was read is said), and they hold the run.
    let logs = v["stacks"][0]["logs"].as_array().unwrap();
    assert_eq!(logs.len(), 2, "{v}");
}

/// A minimal nginx configuration listening on `port`, its pid and log in `dir` (the log
/// relative to the prefix nginx is started with, `dir`).
fn nginx_conf(dir: &Path, port: u16, extra_main: &str, connections: u32) -> PathBuf {
    let conf = dir.join("etc/nginx/nginx.conf");
    std::fs::create_dir_all(conf.parent().unwrap()).unwrap();
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    std::fs::write(
        &conf,
        format!(
            "pid {d}/nginx.pid;\nerror_log logs/error.log;\nworker_processes 1;\n{extra_main}events {{\n    worker_connections {connections};\n}}\nhttp {{\n    access_log off;\n    server {{\n        listen 127.0.0.1:{port};\n        return 204;\n    }}\n}}\n",
            d = dir.display()
        ),
    )
    .unwrap();
    conf
}

/// nginx with a master and a worker, its soft open-files limit set to `nofile` (none:
/// inherited) under the hard limit it has, up to which nginx may raise it unprivileged.
struct Nginx(std::process::Child);

impl Drop for Nginx {
    fn drop(&mut self) {
        stop_group(&mut self.0);
    }
}

/// Stops a master started in a process group of its own, with its workers: SIGKILL to the
/// master alone would leave them running, orphaned.
fn stop_group(master: &mut std::process::Child) {
    let group = -(master.id() as i32);
    // SAFETY: kill(2) on the test's own process group; no memory is involved.
    unsafe {
        libc::kill(group, libc::SIGKILL);
    }
    let _ = master.wait();
}

fn start_nginx(dir: &Path, conf: &Path, port: u16, nofile: Option<u64>) -> Nginx {
    use std::os::unix::process::CommandExt;
    let bin = common::required_nginx("doctor_binary").unwrap();
    let mut cmd = Command::new(bin);
    cmd.process_group(0);
    cmd.arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(conf)
        .args(["-g", "daemon off;"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(n) = nofile {
        let mut now = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct it is given.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut now) }, 0);
        let hard = now.rlim_max;
        assert!(
            hard >= 1024,
            "the tests need a hard open-files limit of 1024"
        );
        // SAFETY: setrlimit is async-signal-safe; the closure touches nothing else.
        unsafe {
            cmd.pre_exec(move || {
                let lim = libc::rlimit {
                    rlim_cur: n,
                    rlim_max: hard,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let n = Nginx(cmd.spawn().unwrap());
    let ready = Instant::now();
    // The master listens before it forks its worker: ready once both are there.
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() || !has_worker(n.0.id()) {
        assert!(
            ready.elapsed() < Duration::from_secs(10),
            "nginx did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    n
}

/// Whether process `master` has a child titled as an nginx worker.
fn has_worker(master: u32) -> bool {
    children(master, "worker process") > 0
}

/// How many children of `master` have `title` in their command line.
fn children(master: u32, title: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok());
            ppid == Some(master)
                && std::fs::read(e.path().join("cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains(title))
        })
        .count()
}

fn drift_kinds(v: &Value) -> Vec<String> {
    v["stacks"][0]["drift"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_nginx_file_changed_after_start_is_not_what_runs() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let conf = nginx_conf(dir.path(), port, "", 512);
    let _nginx = start_nginx(dir.path(), &conf, port, None);
    let d = dir.path().to_str().unwrap();

    let (_, v) = doctor_json(&[d]);
    assert_eq!(v["stacks"][0]["running"][0]["kind"], "nginx", "{v}");
    // `error_log logs/error.log` is relative to the running master's `-p`.
    assert_eq!(
        v["stacks"][0]["logs"][0]["path"],
        format!("{}/logs/error.log", dir.path().display()),
        "{v}"
    );
    assert!(
        !drift_kinds(&v).contains(&"changed-since-start".into()),
        "{v}"
    );

    std::thread::sleep(Duration::from_millis(100));
    let text = std::fs::read_to_string(&conf).unwrap();
    std::fs::write(&conf, text.replace("return 204;", "return 200;")).unwrap();
    let (code, v) = doctor_json(&[d]);
    assert_eq!(code, 1);
    let drift = &v["stacks"][0]["drift"];
    let changed = drift
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["kind"] == "changed-since-start")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(changed["at"], format!("{}:1", conf.display()));
}

#[test]
fn a_worker_limit_below_worker_connections_is_found() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();

    let port = common::free_port();
    let conf = nginx_conf(dir.path(), port, "", 1024);
    let nginx = start_nginx(dir.path(), &conf, port, Some(256));
    let (code, v) = doctor_json(&[d]);
    drop(nginx);
    assert_eq!(code, 1, "{v}");
    let found = v["stacks"][0]["drift"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["kind"] == "nofile-below-connections")
        .unwrap_or_else(|| panic!("{v}"));
    assert!(
        found["message"]
            .as_str()
            .unwrap()
            .contains("may open 256 files"),
        "{found}"
    );
    assert_eq!(found["at"], format!("{}:5", conf.display()));
    // With tune's value for the limit, from tune's plan.
    let tuned = tune_says(dir.path(), "worker_rlimit_nofile");
    assert!(
        found["message"]
            .as_str()
            .unwrap()
            .contains(&format!("tune: worker_rlimit_nofile {tuned} at")),
        "{found}"
    );

    // worker_rlimit_nofile lifts the worker's own limit: nothing to say.
    let port = common::free_port();
    let conf = nginx_conf(dir.path(), port, "worker_rlimit_nofile 1024;\n", 1024);
    let _nginx = start_nginx(dir.path(), &conf, port, Some(256));
    let (_, v) = doctor_json(&[d]);
    assert!(
        !drift_kinds(&v).contains(&"nofile-below-connections".into()),
        "{v}"
    );
}

/// `unshare` with a user and a network namespace of its own: its `net.core` values are
/// its own, and writing them changes nothing of the machine's.
fn in_netns(script: &str) -> Output {
    Command::new("unshare")
        .args(["--user", "--map-root-user", "--net", "sh", "-c", script])
        .output()
        .unwrap()
}

#[test]
fn a_sysctl_file_never_applied_is_found_in_a_namespace() {
    if !have_servers() {
        return;
    }
    let probe = in_netns("cat /proc/sys/net/core/somaxconn");
    if !probe.status.success() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "unshare --user --net is required under CI=true: {}",
            String::from_utf8_lossy(&probe.stderr)
        );
        eprintln!("note: skipping: no user and network namespaces here");
        return;
    }
    let now: u64 = String::from_utf8_lossy(&probe.stdout)
        .trim()
        .parse()
        .unwrap();
    let want = now * 2;
    let dir = tempfile::tempdir().unwrap();
    nginx_conf(dir.path(), common::free_port(), "", 512);
    let sysctl = dir.path().join("etc/sysctl.d/60-web.conf");
    std::fs::create_dir_all(sysctl.parent().unwrap()).unwrap();
    std::fs::write(
        &sysctl,
        format!("# the web tier\nnet.core.somaxconn = {want}\n"),
    )
    .unwrap();
    let doctor = format!(
        "{} doctor {} --format json --cpus 2 --memory 2GiB",
        env!("CARGO_BIN_EXE_lemplint"),
        dir.path().display()
    );

    let out = in_netns(&format!("exec {doctor}"));
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    let found = v["stacks"][0]["drift"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["kind"] == "sysctl-not-applied")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(found["at"], format!("{}:2", sysctl.display()));
    assert!(
        found["message"].as_str().unwrap().contains(&format!(
            "net.core.somaxconn = {want} in the file, but the kernel has {now}"
        )),
        "{found}"
    );

    // Applied (in the namespace, as `sysctl --system` would): nothing to say.
    let out = in_netns(&format!(
        "echo {want} > /proc/sys/net/core/somaxconn && exec {doctor}"
    ));
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    assert!(
        !drift_kinds(&v).iter().any(|k| k.starts_with("sysctl")),
        "{v}"
    );
}

/// php-fpm8.2 from `dir`/php-fpm.conf: `global` settings, then pool `www` on `www.sock` in
/// `dir` with `pool` settings; returns once the socket exists.
fn start_fpm(dir: &Path, global: &str, pool: &str) -> (common::RunningFpm, PathBuf) {
    let sock = dir.join("www.sock");
    let conf = dir.join("php-fpm.conf");
    std::fs::write(
        &conf,
        format!(
            "[global]\npid = {d}/php-fpm.pid\nerror_log = {d}/php-fpm.log\ndaemonize = no\n{global}\n[www]\nlisten = {s}\n{pool}",
            d = dir.display(),
            s = sock.display()
        ),
    )
    .unwrap();
    let fpm = common::start_php_fpm(&conf, false, || sock.exists());
    (fpm, sock)
}

#[test]
fn the_status_page_and_the_accept_queue_are_read_live() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (fpm, sock) = start_fpm(
        d,
        "",
        "listen.backlog = 7\npm = static\npm.max_children = 2\npm.status_path = /status\n",
    );
    // Both static workers forked.
    let forked = Instant::now();
    while children(fpm.0.id(), "pool www") < 2 {
        assert!(
            forked.elapsed() < Duration::from_secs(10),
            "php-fpm forked no workers"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    let (code, v) = doctor_json(&[d.to_str().unwrap()]);
    assert_eq!(code, 0, "{v}");
    let s = &v["stacks"][0];
    assert_eq!(s["running"][0]["kind"], "php-fpm", "{v}");
    assert_eq!(s["running"][0]["workers"], 2, "{v}");
    let pool = &s["counters"]["pools"][0];
    let field = |name: &str| {
        pool["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f[0] == name)
            .unwrap_or_else(|| panic!("no {name}: {pool}"))[1]
            .clone()
    };
    assert_eq!(field("pool"), "www");
    assert_eq!(field("process manager"), "static");
    assert_eq!(field("total processes"), "2");
    // The kernel's own account of the pool's queue: the backlog the file sets.
    let queue = s["counters"]["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["owner"] == "pool www")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(queue["addr"], format!("unix:{}", sock.display()));
    assert_eq!(queue["backlog"], 7, "{queue}");
    assert_eq!(s["counters"]["worker_rss"]["workers"], 2, "{v}");

    let out = lemplint(&[
        "doctor",
        d.to_str().unwrap(),
        "--format",
        "prometheus",
        "--cpus",
        "2",
        "--memory",
        "2GiB",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    // Each sample follows its own family's TYPE line (the exposition format's rule).
    let mut family = "";
    for line in text.lines() {
        if let Some(t) = line.strip_prefix("# TYPE ") {
            family = t.split(' ').next().unwrap();
        } else if !line.starts_with('#') {
            let name = line.split(['{', ' ']).next().unwrap();
            assert_eq!(name, family, "{line}\n{text}");
        }
    }
    assert!(
        text.contains("lemplint_doctor_fpm_status{pool=\"www\",field=\"total_processes\"} 2"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "lemplint_doctor_accept_backlog{{addr=\"unix:{}\",owner=\"pool www\"}} 7",
            sock.display()
        )),
        "{text}"
    );
}

#[test]
fn a_pool_at_its_limit_is_seen_on_its_status_page_when_its_log_is_silent() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // `log_level = error`: the pool's "server reached pm.max_children" warning is not logged.
    let (_fpm, sock) = start_fpm(
        d,
        "log_level = error\n",
        "pm = ondemand\npm.max_children = 1\npm.status_path = /status\n",
    );
    let script = d.join("slow.php");
    std::fs::write(&script, "<?php usleep(300000); echo 'ok';\n").unwrap();
    // Three requests at once on the pool's socket, with doctor's own FastCGI client: the
    // second finds the one worker busy. On a loaded machine the requests may not overlap, or
    // a queued one may outwait the client: a few rounds, each answered at least once.
    let mut seen = None;
    for _ in 0..4 {
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let (sock, script) = (sock.clone(), script.display().to_string());
                std::thread::spawn(move || {
                    lemplint::doctor::fastcgi::get(
                        &lemplint::doctor::fastcgi::Target::Unix(&sock),
                        &script,
                        "",
                    )
                })
            })
            .collect();
        let answers: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(
            answers.iter().any(|a| a.as_deref() == Ok("ok")),
            "{answers:?}"
        );
        let (code, v) = doctor_json(&[d.to_str().unwrap()]);
        if symptom(&v, "max_children_reached").is_some() {
            seen = Some((code, v));
            break;
        }
    }
    let (code, v) = seen.expect("the status page never counted max children reached");
    assert_eq!(code, 1, "{v}");
    let s = symptom(&v, "max_children_reached").unwrap_or_else(|| panic!("{v}"));
    assert_eq!(s["source"], "status page", "{s}");
    assert!(s["count"].as_u64().unwrap() >= 1, "{s}");
    assert!(
        strings(&s["causes"])
            .iter()
            .any(|c| c.ends_with("[www] pm.max_children = 1")),
        "{s}"
    );
    // The running worker was measured, as `tune --sample` measures: the fix is tune's with
    // that size.
    let p95 = v["stacks"][0]["counters"]["worker_rss"]["p95"]
        .as_u64()
        .unwrap_or_else(|| panic!("{v}"))
        .to_string();
    assert_eq!(
        fixed(s, "[www] pm.max_children"),
        tune_says_with(d, "[www] pm.max_children", &["--worker-rss", &p95])
    );
    assert!(
        std::fs::read_to_string(d.join("php-fpm.log"))
            .unwrap_or_default()
            .find("pm.max_children")
            .is_none(),
        "the log was to be silent"
    );
}

#[test]
fn a_unit_limit_the_running_master_does_not_have_is_found() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let conf = nginx_conf(dir.path(), port, "", 1024);
    // The unit the tree holds gives nginx more than the running master has.
    let unit = dir.path().join("etc/systemd/system/nginx.service");
    std::fs::create_dir_all(unit.parent().unwrap()).unwrap();
    std::fs::write(&unit, "[Service]\nLimitNOFILE=4096\n").unwrap();
    let nginx = start_nginx(dir.path(), &conf, port, Some(256));
    let (code, v) = doctor_json(&[dir.path().to_str().unwrap()]);
    drop(nginx);
    assert_eq!(code, 1, "{v}");
    let found = v["stacks"][0]["drift"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["kind"] == "limit-not-applied")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(found["at"], format!("{}:2", unit.display()));
    assert!(
        found["message"]
            .as_str()
            .unwrap()
            .contains("LimitNOFILE=4096 in the unit, but the running nginx master"),
        "{found}"
    );

    // Started with what the unit says: nothing to say.
    let port = common::free_port();
    let conf = nginx_conf(dir.path(), port, "", 1024);
    let _nginx = start_nginx(dir.path(), &conf, port, Some(4096));
    let (_, v) = doctor_json(&[dir.path().to_str().unwrap()]);
    assert!(
        !drift_kinds(&v).contains(&"limit-not-applied".into()),
        "{v}"
    );
}

#[test]
fn too_few_worker_connections_are_tied_to_the_setting_and_tunes_fix() {
    if !have_servers() {
        return;
    }
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    // nginx reuses idle connections before it refuses one, and says so at `warn`:
    // "8 worker_connections are not enough, reusing connections".
    let conf = nginx_conf(dir.path(), port, "error_log logs/error.log warn;\n", 8);
    let _nginx = start_nginx(dir.path(), &conf, port, None);
    // Twenty idle connections held open: more than eight connections of the one worker.
    let held: Vec<_> = (0..20)
        .filter_map(|_| std::net::TcpStream::connect(("127.0.0.1", port)).ok())
        .collect();
    // Until nginx has said it (it accepts at its own pace on a loaded machine).
    let log = dir.path().join("logs/error.log");
    let said = Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("worker_connections are not enough")
    {
        assert!(
            said.elapsed() < Duration::from_secs(10),
            "nginx never ran out of connections"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(held);

    let (code, v) = doctor_json(&[dir.path().to_str().unwrap()]);
    assert_eq!(code, 1, "{v}");
    let s = symptom(&v, "worker_connections_not_enough").unwrap_or_else(|| panic!("{v}"));
    assert!(s["count"].as_u64().unwrap() >= 1, "{s}");
    assert!(
        strings(&s["causes"])
            .iter()
            .any(|c| c == &format!("{}:6: worker_connections 8", conf.display())),
        "{s}"
    );
    assert_eq!(
        fixed(s, "worker_connections"),
        tune_says(dir.path(), "worker_connections")
    );
}
