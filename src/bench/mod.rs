//! `lemplint bench`: run the stack's nginx and PHP-FPM from private copies of its
//! configuration on loopback, drive load through them, and show the configuration as it is
//! beside the one `lemplint tune` would write.
//!
//! Nothing of the running services is touched: each run has its own prefix (configuration,
//! sockets, pid and log files, generated site) in a temporary directory, processes in their
//! own process groups, stopped on exit, on error and on Ctrl-C. See [`prefix`] for what the
//! copy keeps and what it refuses, [`allowlist`] for the directives it lets through,
//! [`sandbox`] for the namespaces the servers run in, and [`classify`] for how their output
//! is told (never echoed).

mod allowlist;
mod classify;
mod explain;
mod load;
mod netns;
mod plot;
mod prefix;
mod procs;
pub mod sandbox;

use crate::engine::{StackArgs, Workspace};
use crate::exit::{EXIT_ERROR, EXIT_OK};
use clap::{Args, ValueEnum};
use procs::{Proc, INTERRUPTED};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    pub stack: StackArgs,
    /// How long each run drives load (e.g. 5s, 500ms)
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Stop each run after this many requests instead (like ab -n)
    #[arg(long)]
    pub requests: Option<u64>,
    /// Connections at once (like ab -c)
    #[arg(long, default_value_t = 50)]
    pub concurrency: usize,
    /// Connections rising linearly, FROM-TO:DURATION (like the field report's 1-250:60s)
    #[arg(long, value_name = "FROM-TO:DURATION", value_parser = parse_ramp, conflicts_with_all = ["requests", "concurrency", "duration"])]
    pub ramp: Option<(usize, usize, Duration)>,
    /// Also draw throughput and p99 latency over time into an SVG file
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Runs per configuration, to tell a difference from the noise
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// A new connection for every request
    #[arg(long)]
    pub no_keep_alive: bool,
    /// What to request: the PHP script or the static file
    #[arg(long, value_enum, default_value_t = Target::Php)]
    pub target: Target,
    /// The PHP script to run (default: a CPU-bound string workload)
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Measure only the configuration as it is
    #[arg(long)]
    pub current_only: bool,
    /// Instead of current vs tuned, change one setting of the stack as it is
    #[arg(long, value_enum, conflicts_with = "current_only")]
    pub experiment: Option<Experiment>,
    /// Keep the private copies (printed) instead of removing them, to look at them
    #[arg(long)]
    pub keep: bool,
    /// With --no-sandbox: let PHP-FPM run its workers as root (php-fpm -R) when lemplint
    /// runs as root (in the sandbox the servers never run as root)
    #[arg(long)]
    pub allow_root: bool,
    /// Run the servers without the sandbox (user, mount, PID and network namespaces), as
    /// lemplint's own user: only for configurations you trust, where namespaces are not
    /// available
    #[arg(long)]
    pub no_sandbox: bool,
    #[arg(long, value_enum, default_value_t = BenchFormat::Text)]
    pub format: BenchFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Target {
    Php,
    Static,
}

/// The field reports' experiments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Experiment {
    /// PHP-FPM on a unix socket vs on loopback TCP
    UnixVsTcp,
    /// nginx worker_processes at 1× and 2× the CPUs
    Workers,
    /// The nginx and PHP-FPM listen queues at 511 (the defaults), 1024, 2048 and 4096
    Backlog,
    /// 1 to 4 PHP-FPM masters, the pool's workers split across them, behind an upstream
    FpmMasters,
    /// TLS handshakes/s: the report's `ALL:!kEDH!ADH:…`, DHE with `ssl_dhparam`, Mozilla
    /// intermediate (a new connection per handshake, `openssl s_time -new`)
    Dhe,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BenchFormat {
    Text,
    Json,
}

fn parse_ramp(s: &str) -> Result<(usize, usize, Duration), String> {
    let bad = || format!("not a ramp: {s} (use FROM-TO:DURATION, e.g. 1-250:60s)");
    let (range, dur) = s.split_once(':').ok_or_else(bad)?;
    let (from, to) = range.split_once('-').ok_or_else(bad)?;
    let (from, to): (usize, usize) = (
        from.parse().map_err(|_| bad())?,
        to.parse().map_err(|_| bad())?,
    );
    if from == 0 || to < from || to > 10_000 {
        return Err(format!("{s}: connections from 1 up to 10000, rising"));
    }
    Ok((from, to, parse_duration(dur)?))
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    let (n, unit) = s
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .map_or((s, "s"), |i| (&s[..i], &s[i..]));
    let n: f64 = n.parse().map_err(|_| format!("not a duration: {s}"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        _ => return Err(format!("not a duration: {s} (use ms, s or m)")),
    };
    if !(0.05..=3600.0).contains(&secs) {
        return Err("a duration from 50ms to 60m".into());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// One configuration's runs.
struct Measured {
    label: String,
    runs: Vec<load::Outcome>,
    /// nginx's `connect() … (11: Resource temporarily unavailable)` and php-fpm's `server
    /// reached pm.max_children`, counted in the prefix's logs.
    queue_full: u64,
    max_children: u64,
    notes: Vec<String>,
    /// What the allowlist left out of the copy, by file:line.
    dropped: Vec<String>,
    /// The TCP sockets the copy listened on (all on loopback).
    listening: Vec<String>,
    /// PHP-FPM masters the copy ran.
    fpm_masters: usize,
    /// What `tune` changed to make this configuration (the tuned one), as the report says it.
    changes: Vec<String>,
}

impl Measured {
    fn new(label: String) -> Measured {
        Measured {
            label,
            runs: Vec::new(),
            queue_full: 0,
            max_children: 0,
            notes: Vec::new(),
            dropped: Vec::new(),
            listening: Vec::new(),
            fpm_masters: 0,
            changes: Vec::new(),
        }
    }
}

struct Binaries {
    nginx: PathBuf,
    fpm: PathBuf,
}

pub fn run(mut args: BenchArgs) -> i32 {
    procs::install_signal_handlers();
    let bins = match (
        procs::find(&["nginx"]),
        procs::find(&["php-fpm8.2", "php-fpm8.3", "php-fpm8.1", "php-fpm"]),
    ) {
        (Some(nginx), Some(fpm)) => Binaries { nginx, fpm },
        (n, f) => {
            let mut missing = Vec::new();
            if n.is_none() {
                missing.push("nginx (apt-get install nginx-light)");
            }
            if f.is_none() {
                missing.push("php-fpm (apt-get install php8.2-fpm)");
            }
            eprintln!(
                "error: lemplint bench runs the real servers; not found: {}",
                missing.join(", ")
            );
            return EXIT_ERROR;
        }
    };
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if root && args.no_sandbox && !args.allow_root {
        eprintln!("error: lemplint runs as root with --no-sandbox: pass --allow-root to let PHP-FPM run its workers as root in the private prefix (php-fpm -R), or run as another user");
        return EXIT_ERROR;
    }
    // Refused before anything is written when the namespaces cannot be made (a container
    // without user namespaces, max_user_namespaces = 0).
    if !args.no_sandbox {
        if let Err(e) = sandbox::probe() {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    }
    // The load runs here: the host is this machine unless the command line says otherwise.
    if args.stack.cpus.is_none() && args.stack.memory.is_none() && args.stack.host.is_none() {
        args.stack.host = Some(crate::engine::workspace::HostSource::Local);
    }
    match measure(&args, &bins, root) {
        Ok(results) => {
            report(&args, &results);
            if INTERRUPTED.load(Ordering::SeqCst) {
                130
            } else {
                EXIT_OK
            }
        }
        Err(msg) => {
            eprintln!("error: {msg}");
            if INTERRUPTED.load(Ordering::SeqCst) {
                130
            } else {
                EXIT_ERROR
            }
        }
    }
}

fn measure(args: &BenchArgs, bins: &Binaries, root: bool) -> Result<Vec<Measured>, String> {
    let ws = Workspace::load(&args.stack)?;
    let stack = ws
        .stacks
        .iter()
        .find(|s| !s.nginx.is_empty())
        .ok_or("no nginx configuration in the paths")?;
    let script = match &args.script {
        Some(p) => std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?,
        None => prefix::DEFAULT_SCRIPT.to_string(),
    };
    let run = |label: String, stack: &crate::stack::model::Stack, over: prefix::Overrides| {
        measure_one(label, stack, &over, args, bins, root, &script)
    };
    let mut out = Vec::new();
    match args.experiment {
        Some(Experiment::UnixVsTcp) => {
            out.push(run(
                "unix socket".into(),
                stack,
                prefix::Overrides::default(),
            )?);
            let tcp = prefix::Overrides {
                fastcgi_tcp: true,
                ..Default::default()
            };
            out.push(run("loopback TCP".into(), stack, tcp)?);
        }
        Some(Experiment::Workers) => {
            let cpus = stack.host.cpus.as_ref().map_or(1, |c| c.value);
            for n in [cpus, 2 * cpus] {
                let over = prefix::Overrides {
                    worker_processes: Some(n.to_string()),
                    ..Default::default()
                };
                out.push(run(format!("{n} workers"), stack, over)?);
            }
        }
        Some(Experiment::Dhe) => return dhe(args, bins, stack),
        Some(Experiment::FpmMasters) => {
            for n in 1..=4 {
                let over = prefix::Overrides {
                    fpm_masters: n,
                    ..Default::default()
                };
                let label = format!("{n} master{}", if n == 1 { "" } else { "s" });
                out.push(run(label, stack, over)?);
            }
        }
        Some(Experiment::Backlog) => {
            for n in [511, 1024, 2048, 4096] {
                let over = prefix::Overrides {
                    nginx_backlog: Some(n),
                    fpm_backlog: Some(n),
                    ..Default::default()
                };
                out.push(run(format!("backlog {n}"), stack, over)?);
            }
        }
        None => {
            out.push(run("current".into(), stack, prefix::Overrides::default())?);
            if !args.current_only && !INTERRUPTED.load(Ordering::SeqCst) {
                let (tuned_ws, changes) = tuned(args, &ws, stack)?;
                let tuned_stack = tuned_ws
                    .stacks
                    .iter()
                    .find(|s| !s.nginx.is_empty())
                    .ok_or("the tuned stack has no nginx configuration")?;
                let mut m = run("tuned".into(), tuned_stack, prefix::Overrides::default())?;
                m.changes = changes;
                out.push(m);
            }
        }
    }
    Ok(out)
}

/// The workspace as `tune --write` would leave it (in memory only), and what it changed.
fn tuned(
    args: &BenchArgs,
    ws: &Workspace,
    stack: &crate::stack::model::Stack,
) -> Result<(Workspace, Vec<String>), String> {
    let a = crate::tune::assumptions(&crate::tune::Overrides::default(), ws, stack)?;
    let plan = crate::tune::plan(stack, &a)?;
    let said = plan
        .recommendations
        .iter()
        .filter(|r| !r.edits.is_empty())
        .map(explain::change)
        .collect();
    let changes = crate::tune::apply(std::slice::from_ref(&plan));
    let mut fs = crate::stack::fs::OverlayFs::new(crate::engine::real_fs(&args.stack));
    for (path, change) in changes {
        fs.insert(path, change.new);
    }
    Ok((Workspace::load_with(&args.stack, &fs)?, said))
}

/// A fresh private directory under the system's temporary directory.
fn private_dir(label: &str) -> Result<PathBuf, String> {
    let base = std::env::temp_dir();
    for n in 0..100u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = base.join(format!(
            "lemplint-bench-{label}-{}-{nanos:x}-{n}",
            std::process::id()
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
    }
    Err("cannot create a private directory".into())
}

/// Removes the private directory when the run ends, however it ends.
struct Cleanup(PathBuf, bool);

impl Drop for Cleanup {
    fn drop(&mut self) {
        if self.1 {
            eprintln!("kept: {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn measure_one(
    label: String,
    stack: &crate::stack::model::Stack,
    over: &prefix::Overrides,
    args: &BenchArgs,
    bins: &Binaries,
    root: bool,
    script: &str,
) -> Result<Measured, String> {
    let mut m = Measured::new(label);
    for k in 1..=args.runs.max(1) {
        if INTERRUPTED.load(Ordering::SeqCst) {
            break;
        }
        let status = format!("{}: run {k}/{}", m.label, args.runs.max(1));
        // A free port can be taken by someone else between lemplint finding it and nginx
        // binding it: such a run starts again on other ports.
        let mut attempt = 0;
        let (private, (outcome, queue_full, max_children, listening)) = loop {
            attempt += 1;
            let dir = private_dir(if m.label == "tuned" { "tuned" } else { "run" })?;
            let _cleanup = Cleanup(dir.clone(), args.keep);
            let private = prefix::build(stack, &dir, &mut procs::free_port, over)?;
            prefix::write_site(&private, script)?;
            match run_once(&private, args, bins, root, &status) {
                Err(e) if attempt < 3 && e.contains("Address already in use") => continue,
                result => {
                    let result = result.map_err(|e| with_dropped(e, &private.dropped))?;
                    break (private, result);
                }
            }
        };
        m.notes = private.notes.clone();
        m.dropped = private.dropped.clone();
        m.fpm_masters = private.fpm_conf.len();
        m.listening = listening;
        m.runs.push(outcome);
        m.queue_full += queue_full;
        m.max_children += max_children;
    }
    if m.runs.is_empty() {
        return Err("interrupted before a run finished".into());
    }
    Ok(m)
}

fn run_once(
    p: &prefix::Private,
    args: &BenchArgs,
    bins: &Binaries,
    root: bool,
    status: &str,
) -> Result<(load::Outcome, u64, u64, Vec<String>), String> {
    // Declared first, dropped last: the servers stop before their namespace goes.
    let sb = sandboxed(p, args, &[])?;
    let net = net_of(sb.as_ref());
    let mut running: Vec<Proc> = Vec::new();
    for (k, conf) in p.fpm_conf.iter().enumerate() {
        let log = p.dir.join(format!("php-fpm-{k}.stderr"));
        let mut cmd = server_command(sb.as_ref(), &bins.fpm);
        cmd.arg("-F").arg("-y").arg(conf).arg("-p").arg(&p.dir);
        // PHP's temporary files and opcache's lock go to the prefix, the one writable place.
        let tmp = p.dir.join("tmp");
        for setting in ["sys_temp_dir", "upload_tmp_dir", "opcache.lockfile_path"] {
            cmd.arg("-d").arg(format!("{setting}={}", tmp.display()));
        }
        if root && sb.is_none() {
            cmd.arg("-R");
        }
        running.push(Proc::start("php-fpm", cmd, &log)?);
    }
    if let Some(fpm) = running.first_mut() {
        let log = p.dir.join("php-fpm-0.stderr");
        procs::wait_ready(fpm, || {
            in_net(sb.as_ref(), || p.pools.iter().all(|(_, a)| a.ready(&net)))
        })
        .map_err(|e| told(p, e, "php-fpm", &[&log, &p.dir.join("php-fpm.log")]))?;
    }
    let log = p.dir.join("nginx.stderr");
    let mut nginx = start_nginx(p, bins, sb.as_ref())?;
    let port = p.port;
    procs::wait_ready(&mut nginx, || in_net(sb.as_ref(), || connects(&net, port)))
        .map_err(|e| told(p, e, "nginx", &[&log, &p.dir.join("error.log")]))?;
    running.push(nginx);
    // What the copy really listens on: loopback only, or the run stops here.
    let groups: Vec<i32> = running.iter().map(Proc::group).collect();
    let listening = procs::listening(&groups);
    if !procs::all_loopback(&listening) {
        return Err(format!(
            "the private copy listens outside loopback ({}); stopped",
            listening.join(", ")
        ));
    }
    let path = match args.target {
        Target::Php => prefix::SCRIPT,
        Target::Static => prefix::STATIC,
    };
    let mut l = load::Load {
        port,
        host: p.host.clone(),
        path: path.to_string(),
        concurrency: args.ramp.map_or(args.concurrency, |r| r.0),
        requests: None,
        duration: Duration::from_millis(300),
        keep_alive: !args.no_keep_alive,
        timeout: Duration::from_secs(10),
        ramp_from: None,
        net: net.clone(),
    };
    // One request first: a copy that does not serve the target would only measure errors.
    let probe = load::run(
        &load::Load {
            concurrency: 1,
            requests: Some(1),
            ..l.clone()
        },
        &INTERRUPTED,
    );
    if probe.ok == 0 {
        let why = probe.errors.keys().next().copied().unwrap_or("no answer");
        let e = format!(
            "the private copy does not serve GET {} (answer: {why}); nothing to measure",
            l.path
        );
        return Err(told(
            p,
            e,
            "nginx",
            &[&p.dir.join("error.log"), &p.dir.join("php-fpm.log")],
        ));
    }
    // Warm-up: workers started, opcache filled. The logs count from after it (both
    // servers append to them).
    load::run(&l, &INTERRUPTED);
    for log in ["error.log", "php-fpm.log"] {
        if let Ok(f) = std::fs::OpenOptions::new()
            .write(true)
            .open(p.dir.join(log))
        {
            let _ = f.set_len(0);
        }
    }
    l.requests = args.requests;
    l.duration = if args.requests.is_some() {
        Duration::from_secs(600)
    } else {
        args.duration
    };
    if let Some((from, to, duration)) = args.ramp {
        l.concurrency = to;
        l.ramp_from = Some(from);
        l.duration = duration;
    }
    // With `--requests` the length is not known in advance: elapsed time only.
    let total = if l.requests.is_some() {
        Duration::ZERO
    } else {
        l.duration
    };
    let outcome = with_progress(status, total, || load::run(&l, &INTERRUPTED));
    for mut proc in running.into_iter().rev() {
        proc.stop();
    }
    drop(sb);
    let count = |file: &str, needle: &str| {
        std::fs::read_to_string(p.dir.join(file)).map_or(0, |t| t.matches(needle).count() as u64)
    };
    let queue_full = count("error.log", "(11: Resource temporarily unavailable)");
    let max_children = count("php-fpm.log", "server reached pm.max_children");
    Ok((outcome, queue_full, max_children, listening))
}

/// The `dhe` experiment: the stack's nginx with one TLS server added, three cipher
/// configurations, handshakes counted by `openssl s_time -new` clients.
fn dhe(
    args: &BenchArgs,
    bins: &Binaries,
    stack: &crate::stack::model::Stack,
) -> Result<Vec<Measured>, String> {
    let openssl = procs::find(&["openssl"])
        .ok_or("the dhe experiment needs openssl (apt-get install openssl)")?;
    let material = private_dir("tls")?;
    let _keep_material = Cleanup(material.clone(), args.keep);
    let openssl_dir = material.clone();
    let (cert, key, dh) = (
        material.join("cert.pem"),
        material.join("key.pem"),
        material.join("dh.pem"),
    );
    let made = |what: &str, out: std::io::Result<std::process::Output>| -> Result<(), String> {
        match out {
            Ok(o) if o.status.success() => Ok(()),
            Ok(o) => Err(format!(
                "openssl {what} failed: {}",
                String::from_utf8_lossy(&o.stderr).trim_end()
            )),
            Err(e) => Err(format!("cannot run openssl: {e}")),
        }
    };
    made(
        "req",
        Command::new(&openssl)
            .args([
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=localhost",
                "-days",
                "2",
                "-keyout",
            ])
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .output(),
    )?;
    made(
        "dhparam",
        Command::new(&openssl)
            .args(["dhparam", "-dsaparam", "-out"])
            .arg(&dh)
            .arg("2048")
            .output(),
    )?;
    let variants = [
        ("report !kEDH", "TLSv1.2", "ALL:!kEDH!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP", false),
        ("DHE + dhparam", "TLSv1.2", "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384", true),
        (
            "Mozilla interm.",
            "TLSv1.2 TLSv1.3",
            "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384",
            true,
        ),
    ];
    let clients = args.concurrency.clamp(1, 8);
    let mut out = Vec::new();
    for (label, protocols, ciphers, dhparam) in variants {
        let mut m = Measured::new(label.to_string());
        for _ in 0..args.runs.max(1) {
            if INTERRUPTED.load(Ordering::SeqCst) {
                break;
            }
            let dir = private_dir("run")?;
            let _cleanup = Cleanup(dir.clone(), args.keep);
            // The key material goes into the prefix: the sandbox's user reads nothing else.
            let tls_dir = dir.join("tls");
            std::fs::create_dir_all(&tls_dir).map_err(|e| e.to_string())?;
            let copy = |from: &Path| -> Result<PathBuf, String> {
                let to = tls_dir.join(from.file_name().unwrap_or_default());
                std::fs::copy(from, &to).map_err(|e| e.to_string())?;
                Ok(to)
            };
            let tls = prefix::TlsServer {
                port: procs::free_port()?,
                cert: copy(&cert)?,
                key: copy(&key)?,
                protocols: protocols.into(),
                ciphers: ciphers.into(),
                dhparam: if dhparam { Some(copy(&dh)?) } else { None },
            };
            let port = tls.port;
            let over = prefix::Overrides {
                tls: Some(tls),
                ..Default::default()
            };
            let private = prefix::build(stack, &dir, &mut procs::free_port, &over)?;
            m.dropped = private.dropped.clone();
            m.notes = private.notes.clone();
            let sb = sandboxed(&private, args, std::slice::from_ref(&openssl_dir))?;
            let net = net_of(sb.as_ref());
            let mut nginx = start_nginx(&private, bins, sb.as_ref())?;
            let log = private.dir.join("nginx.stderr");
            procs::wait_ready(&mut nginx, || in_net(sb.as_ref(), || connects(&net, port)))
                .map_err(|e| {
                    told(
                        &private,
                        e,
                        "nginx",
                        &[&log, &private.dir.join("error.log")],
                    )
                })?;
            let listening = procs::listening(&[nginx.group()]);
            if !procs::all_loopback(&listening) {
                return Err(format!(
                    "the private copy listens outside loopback ({}); stopped",
                    listening.join(", ")
                ));
            }
            m.listening = listening;
            let started = std::time::Instant::now();
            let children: Vec<std::process::Child> = (0..clients)
                .map(|_| {
                    let mut c = Command::new(&openssl);
                    if let Some(sb) = &sb {
                        sb.child_in_net(&mut c);
                    }
                    c.args(["s_time", "-new", "-connect"])
                        .arg(format!("127.0.0.1:{port}"))
                        .arg("-time")
                        .arg(args.duration.as_secs().max(1).to_string())
                        .stdout(std::process::Stdio::piped())
                        .stderr(std::process::Stdio::null())
                        .spawn()
                        .map_err(|e| format!("cannot run openssl s_time: {e}"))
                })
                .collect::<Result<_, _>>()?;
            let mut handshakes = 0u64;
            let outputs = with_progress(label, args.duration, || {
                children
                    .into_iter()
                    .map(|c| c.wait_with_output())
                    .collect::<Vec<_>>()
            });
            for o in outputs {
                let o = o.map_err(|e| e.to_string())?;
                let text = String::from_utf8_lossy(&o.stdout);
                // "N connections in T real seconds, …"
                handshakes += text
                    .lines()
                    .find(|l| l.contains("real seconds"))
                    .and_then(|l| l.split_whitespace().next())
                    .and_then(|n| n.parse::<u64>().ok())
                    .unwrap_or(0);
            }
            let elapsed = started.elapsed();
            nginx.stop();
            drop(sb);
            if handshakes == 0 {
                return Err(format!(
                    "{label}: no TLS handshake succeeded (openssl s_time against {ciphers})"
                ));
            }
            m.runs.push(load::Outcome {
                latency: hdrhistogram::Histogram::new_with_bounds(1, 120_000_000, 3)
                    .expect("bounds"),
                ok: handshakes,
                errors: Default::default(),
                elapsed,
                series: Vec::new(),
            });
        }
        if m.runs.is_empty() {
            return Err("interrupted before a run finished".into());
        }
        out.push(m);
    }
    Ok(out)
}

/// nginx on a private copy, after `nginx -t` accepted it.
fn start_nginx(
    p: &prefix::Private,
    bins: &Binaries,
    sb: Option<&sandbox::Sandbox>,
) -> Result<Proc, String> {
    let check = server_command(sb, &bins.nginx)
        .arg("-t")
        .arg("-q")
        .arg("-p")
        .arg(&p.dir)
        .arg("-e")
        .arg(p.dir.join("error.log"))
        .arg("-c")
        .arg(&p.nginx_conf)
        .output()
        .map_err(|e| format!("cannot run nginx: {e}"))?;
    if !check.status.success() {
        let output = String::from_utf8_lossy(&check.stderr);
        return Err(format!(
            "nginx rejects the private copy ({}):\n{}",
            crate::escape::path(&p.nginx_conf),
            classify::summarize("nginx", &output, &copy_of(p))
        ));
    }
    let mut cmd = server_command(sb, &bins.nginx);
    cmd.arg("-p")
        .arg(&p.dir)
        .arg("-e")
        .arg(p.dir.join("error.log"))
        .arg("-c")
        .arg(&p.nginx_conf);
    Proc::start("nginx", cmd, &p.dir.join("nginx.stderr"))
}

/// Runs `work`, showing on a terminal's stderr how far along it is (nothing when stderr
/// is not a terminal: CI logs and `--format json` stay clean).
fn with_progress<T>(status: &str, total: Duration, work: impl FnOnce() -> T) -> T {
    use std::io::{IsTerminal, Write};
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let done = std::sync::atomic::AtomicBool::new(false);
    let started = std::time::Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                let t = started.elapsed().as_secs_f64();
                if total.is_zero() {
                    eprint!("\r{status} {t:.1} s ");
                    let _ = std::io::stderr().flush();
                    std::thread::sleep(Duration::from_millis(200));
                    continue;
                }
                let frac = (t / total.as_secs_f64()).min(1.0);
                let filled = (frac * 20.0) as usize;
                eprint!(
                    "\r{status} [{}{}] {t:.1}/{:.0} s ",
                    "#".repeat(filled),
                    "-".repeat(20 - filled),
                    total.as_secs_f64()
                );
                let _ = std::io::stderr().flush();
                std::thread::sleep(Duration::from_millis(200));
            }
            eprint!("\r\x1b[2K");
        });
        let out = work();
        done.store(true, Ordering::Relaxed);
        out
    })
}

/// An error, with what the allowlist left out of the copy (which may be why).
fn with_dropped(e: String, dropped: &[String]) -> String {
    if dropped.is_empty() {
        return e;
    }
    format!(
        "{e}\ndropped from the private copy (bench runs only directives it understands):\n  {}",
        dropped.join("\n  ")
    )
}

/// The sandbox for a run (none with `--no-sandbox`), the prefix handed to its user first.
/// `also` is removed with the prefix should lemplint be killed.
fn sandboxed(
    p: &prefix::Private,
    args: &BenchArgs,
    also: &[PathBuf],
) -> Result<Option<sandbox::Sandbox>, String> {
    if args.no_sandbox {
        return Ok(None);
    }
    sandbox::hand_over(&p.dir)?;
    sandbox::Sandbox::start(&p.dir, also, args.keep).map(Some)
}

/// A command that runs a server: in the sandbox, or (with `--no-sandbox`) as is, with an
/// environment that holds nothing of lemplint's either way.
fn server_command(sb: Option<&sandbox::Sandbox>, program: &Path) -> Command {
    match sb {
        Some(sb) => sb.command(program),
        None => {
            let mut cmd = Command::new(program);
            cmd.env_clear().env(
                "PATH",
                "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            );
            cmd
        }
    }
}

/// How this process reaches the servers' network.
fn net_of(sb: Option<&sandbox::Sandbox>) -> netns::Net {
    sb.map_or(netns::Net::Here, sandbox::Sandbox::net)
}

/// Whether a connection to the loopback `port` of the servers' network succeeds (from a
/// thread [`in_net`] runs).
fn connects(net: &netns::Net, port: u16) -> bool {
    net.connect(([127, 0, 0, 1], port).into(), Duration::from_secs(2))
        .is_ok()
}

/// `f` inside the sandbox's network (where the servers' loopback is).
fn in_net<T: Send>(sb: Option<&sandbox::Sandbox>, f: impl FnOnce() -> T + Send) -> T {
    match sb {
        Some(sb) => sb.in_net(f),
        None => f(),
    }
}

/// The private copy as the classifier needs it: the configuration bench wrote.
fn copy_of(p: &prefix::Private) -> classify::Copy<'_> {
    let mut text = std::fs::read_to_string(&p.nginx_conf).unwrap_or_default();
    for c in &p.fpm_conf {
        text.push_str(&std::fs::read_to_string(c).unwrap_or_default());
    }
    text.push_str(&p.dir.display().to_string());
    classify::Copy {
        dir: &p.dir,
        text,
        nginx_conf: &p.nginx_conf,
        origin: &p.origin,
    }
}

/// An error with what the servers' logs say about it, classified (never echoed).
fn told(p: &prefix::Private, e: String, server: &str, logs: &[&Path]) -> String {
    let mut out = e;
    for log in logs {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.trim().is_empty() {
            continue;
        }
        let name = log
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let server = if name.starts_with("php-fpm") {
            "php-fpm"
        } else {
            server
        };
        out.push('\n');
        out.push_str(&classify::summarize(server, &text, &copy_of(p)));
    }
    out
}

/// Mean and relative spread (half the range over the mean) of the runs' rates.
fn rate(m: &Measured) -> (f64, f64) {
    let rates: Vec<f64> = m.runs.iter().map(load::Outcome::rps).collect();
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    let (lo, hi) = rates
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &r| (a.min(r), b.max(r)));
    (
        mean,
        if mean > 0.0 {
            (hi - lo) / 2.0 / mean
        } else {
            0.0
        },
    )
}

fn merged(m: &Measured) -> load::Outcome {
    let mut all = load::Outcome {
        latency: hdrhistogram::Histogram::new_with_bounds(1, 120_000_000, 3).expect("bounds"),
        ok: 0,
        errors: Default::default(),
        elapsed: Duration::ZERO,
        series: m.runs.first().map(|r| r.series.clone()).unwrap_or_default(),
    };
    for r in &m.runs {
        let _ = all.latency.add(&r.latency);
        all.ok += r.ok;
        all.elapsed += r.elapsed;
        for (k, v) in &r.errors {
            *all.errors.entry(k).or_default() += v;
        }
    }
    all
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

fn report(args: &BenchArgs, results: &[Measured]) {
    let rows: Vec<serde_json::Value> = results
        .iter()
        .map(|m| {
            let all = merged(m);
            let (mean, spread) = rate(m);
            let q = |p: f64| ms(all.latency.value_at_quantile(p));
            json!({
                "config": m.label, "runs": m.runs.len(), "requests_per_second": mean,
                "spread": spread, "ok": all.ok, "failed": all.failed(),
                "latency_ms": {"p50": q(0.5), "p90": q(0.9), "p99": q(0.99), "max": ms(all.latency.max())},
                "errors": all.errors, "nginx_queue_full": m.queue_full,
                "fpm_max_children_reached": m.max_children, "notes": m.notes,
                "listening": m.listening, "series": all.series, "dropped": m.dropped,
                "php_fpm_masters": m.fpm_masters, "tuned_changes": m.changes,
                "errors_from": explain::errors_start(m).map(|(second, connections)| json!({"second": second, "connections": connections})),
            })
        })
        .collect();
    let somaxconn = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok());
    if let (BenchFormat::Json, Some(path)) = (args.format, &args.plot) {
        if let Err(e) = std::fs::write(path, plot::svg(results)) {
            eprintln!("error: cannot write {}: {e}", path.display());
        }
    }
    if args.format == BenchFormat::Json {
        let out = json!({
            "target": match args.target { Target::Php => prefix::SCRIPT, Target::Static => prefix::STATIC },
            "concurrency": args.concurrency, "keep_alive": !args.no_keep_alive,
            "ramp": args.ramp.map(|(from, to, d)| json!({"from": from, "to": to, "seconds": d.as_secs_f64()})),
            "somaxconn": somaxconn, "sandbox": sandbox_line(args), "results": rows,
        });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return;
    }
    if args.experiment == Some(Experiment::Dhe) {
        println!(
            "lemplint bench --experiment dhe: TLS handshakes, a new connection each, {} run{} per configuration; report !kEDH = ALL:!kEDH!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP (TLS 1.2), DHE + dhparam = DHE-RSA-AES*-GCM with a 2048-bit ssl_dhparam (TLS 1.2), Mozilla interm. = Mozilla's intermediate list (TLS 1.2 and 1.3)",
            args.runs.max(1),
            if args.runs.max(1) == 1 { "" } else { "s" }
        );
    } else {
        // A ramp runs its own numbers of connections, not --concurrency's.
        let connections = match args.ramp {
            Some((from, to, d)) => format!(
                "{from} → {to} connections over {:.0} s (a ramp)",
                d.as_secs_f64()
            ),
            None => format!("{} connections", args.concurrency),
        };
        println!(
        "lemplint bench: {} × {connections}{}, {} run{} per configuration, kernel somaxconn {} (not changed by the bench)",
        match args.target { Target::Php => prefix::SCRIPT, Target::Static => prefix::STATIC },
        if args.no_keep_alive { ", a new connection per request" } else { ", keep-alive" },
        args.runs.max(1),
        if args.runs.max(1) == 1 { "" } else { "s" },
        somaxconn.map_or("unknown".into(), |v| v.to_string())
    );
    }
    println!();
    let get = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap_or(0.0);
    print!("{:<22}", "");
    for r in &rows {
        print!("{:>18}", r["config"].as_str().unwrap_or(""));
    }
    if rows.len() == 2 {
        print!("{:>12}", "change");
    }
    println!();
    let line = |name: &str, vals: Vec<f64>, fmt: &dyn Fn(f64) -> String| {
        print!("{name:<22}");
        for v in &vals {
            print!("{:>18}", fmt(*v));
        }
        if vals.len() == 2 && vals[0] > 0.0 {
            print!("{:>11.1}%", (vals[1] - vals[0]) / vals[0] * 100.0);
        }
        println!();
    };
    let tls = args.experiment == Some(Experiment::Dhe);
    let unit = if tls { "handshakes/s" } else { "requests/s" };
    line(
        unit,
        rows.iter().map(|r| get(r, "requests_per_second")).collect(),
        &|v| format!("{v:.0}"),
    );
    print!("{:<22}", "  spread of runs");
    for r in &rows {
        if r["runs"].as_u64().unwrap_or(0) < 2 {
            print!("{:>18}", "(one run)");
        } else {
            print!("{:>17.1}%", get(r, "spread") * 100.0);
        }
    }
    println!();
    if !tls {
        measured_lines(&rows, &line);
    }
    verdicts(results, unit);
    if tls {
        println!("(TLS handshakes with a new connection each: openssl s_time -new, {} clients in parallel)", args.concurrency.clamp(1, 8));
    }
    finish_report(args, results);
}

/// Prints a row of the table: its name, a value per configuration, and how to show one.
type Row<'a> = &'a dyn Fn(&str, Vec<f64>, &dyn Fn(f64) -> String);

/// The latency, failure and log rows of the table.
fn measured_lines(rows: &[serde_json::Value], line: Row) {
    let get = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap_or(0.0);
    let lat = |r: &serde_json::Value, k: &str| r["latency_ms"][k].as_f64().unwrap_or(0.0);
    for (k, name) in [
        ("p50", "latency p50 ms"),
        ("p90", "latency p90 ms"),
        ("p99", "latency p99 ms"),
        ("max", "latency max ms"),
    ] {
        line(name, rows.iter().map(|r| lat(r, k)).collect(), &|v| {
            format!("{v:.2}")
        });
    }
    line(
        "failed requests",
        rows.iter().map(|r| get(r, "failed")).collect(),
        &|v| format!("{v:.0}"),
    );
    let mut classes: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            r["errors"]
                .as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default()
        })
        .collect();
    classes.sort();
    classes.dedup();
    for c in classes {
        line(
            &format!("  {c}"),
            rows.iter()
                .map(|r| r["errors"][&c].as_f64().unwrap_or(0.0))
                .collect(),
            &|v| format!("{v:.0}"),
        );
    }
    line(
        "nginx queue full (11)",
        rows.iter().map(|r| get(r, "nginx_queue_full")).collect(),
        &|v| format!("{v:.0}"),
    );
    line(
        "pm.max_children hit",
        rows.iter()
            .map(|r| get(r, "fpm_max_children_reached"))
            .collect(),
        &|v| format!("{v:.0}"),
    );
}

/// Each configuration against the first: a difference counts beyond twice the spread.
fn verdicts(results: &[Measured], unit: &str) {
    let Some(a) = results.first() else { return };
    if results.len() > 1 {
        println!();
    }
    for b in &results[1..] {
        let ((ra, sa), (rb, sb)) = (rate(a), rate(b));
        let d = if ra > 0.0 { (rb - ra) / ra } else { 0.0 };
        let noise = sa.max(sb);
        let (what, first) = (&b.label, &a.label);
        if a.runs.len() < 2 || b.runs.len() < 2 {
            println!("{what} vs {first}: {:+.1}% in {unit}; one run each, no spread to compare it with (use --runs 3).", d * 100.0);
        } else if d.abs() > 2.0 * noise {
            println!("{what} is {:.1}% {} than {first} in {unit}, beyond the run-to-run spread ({:.1}%).", d.abs() * 100.0, if d > 0.0 { "faster" } else { "slower" }, noise * 100.0);
        } else {
            println!("{what} vs {first}: {:+.1}% in {unit}, less than twice the run-to-run spread (±{:.1}%): not a measurable change.", d * 100.0, noise * 100.0);
        }
    }
}

/// The ramp's chart, the plot and the notes.
fn finish_report(args: &BenchArgs, results: &[Measured]) {
    if args.ramp.is_some() {
        println!();
        chart(results);
    }
    if let Some(path) = &args.plot {
        match std::fs::write(path, plot::svg(results)) {
            Ok(()) => println!("plot: {}", path.display()),
            Err(e) => eprintln!("error: cannot write {}: {e}", path.display()),
        }
    }
    explain::print(args, results);
    let mut seen = std::collections::HashSet::new();
    for n in results.iter().flat_map(|m| &m.notes) {
        if seen.insert(n) {
            println!("note: {n}");
        }
    }
    let mut dropped: Vec<&String> = Vec::new();
    for d in results.iter().flat_map(|m| &m.dropped) {
        if !dropped.contains(&d) {
            dropped.push(d);
        }
    }
    if !dropped.is_empty() {
        println!("dropped from the private copy (bench runs only directives it understands):");
        for d in dropped {
            println!("  {d}");
        }
    }
    println!("{}", sandbox_line(args));
}

/// What the servers ran in, for the report.
fn sandbox_line(args: &BenchArgs) -> String {
    if args.no_sandbox {
        "no sandbox (--no-sandbox): the servers ran as lemplint's user".into()
    } else {
        sandbox::describe(sandbox::Sandbox::owner().0)
    }
}

/// Throughput and p99 latency second by second, as a line of bars per configuration.
fn chart(results: &[Measured]) {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let bars = |values: &[f64], max: f64| -> String {
        values
            .iter()
            .map(|v| {
                if max <= 0.0 {
                    BARS[0]
                } else {
                    BARS[((v / max) * 7.0).round().clamp(0.0, 7.0) as usize]
                }
            })
            .collect()
    };
    let series: Vec<(&str, Vec<f64>, Vec<f64>)> = results
        .iter()
        .filter_map(|m| {
            let s = &m.runs.first()?.series;
            Some((
                m.label.as_str(),
                s.iter().map(|x| x.ok as f64).collect(),
                s.iter().map(|x| x.p99_ms).collect(),
            ))
        })
        .collect();
    let max_rps = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .fold(0.0, f64::max);
    let max_p99 = series
        .iter()
        .flat_map(|s| s.2.iter().copied())
        .fold(0.0, f64::max);
    println!("Over the ramp (one bar per second; first run of each):");
    for (label, rps, p99) in &series {
        println!(
            "  {label:<14} req/s   {}  (peak {:.0}; scale {max_rps:.0})",
            bars(rps, max_rps),
            rps.iter().copied().fold(0.0, f64::max)
        );
        println!(
            "  {:<14} p99 ms  {}  (worst {:.1}; scale {max_p99:.1})",
            "",
            bars(p99, max_p99),
            p99.iter().copied().fold(0.0, f64::max)
        );
    }
    if let Some(first) = results.first().and_then(|m| m.runs.first()) {
        let c: Vec<String> = first
            .series
            .iter()
            .map(|s| s.connections.to_string())
            .collect();
        if let (Some(a), Some(b)) = (c.first(), c.last()) {
            println!("  connections {a} → {b}");
        }
    }
}
