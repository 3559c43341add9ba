//! The load driver: N connections, each a thread sending HTTP/1.1 requests one after the
//! other (keep-alive, or a new connection per request), every latency in an HdrHistogram,
//! every failure counted by class.

use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Load {
    pub port: u16,
    pub host: String,
    pub path: String,
    pub concurrency: usize,
    /// Stop after this many requests in all (else after `duration`).
    pub requests: Option<u64>,
    pub duration: Duration,
    pub keep_alive: bool,
    pub timeout: Duration,
    /// Connections rising linearly from this many to `concurrency` over `duration` (the
    /// first field report's 1→250 users in 60 s); `None`: all at once.
    pub ramp_from: Option<usize>,
    /// The network the servers listen in (the sandbox's), as each connection's thread
    /// reaches it.
    pub net: super::netns::Net,
}

/// One second of a run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Second {
    /// Connections open during it (at its end).
    pub connections: usize,
    pub ok: u64,
    pub failed: u64,
    /// The 99th percentile latency of its 2xx answers, in ms.
    pub p99_ms: f64,
}

#[derive(Debug)]
pub struct Outcome {
    /// Latencies of the 2xx answers, in microseconds.
    pub latency: Histogram<u64>,
    pub ok: u64,
    /// Failures by class: `connect refused`, `connect reset`, `timeout`, `502`, `503`,
    /// `504`, `other non-2xx`, `read error`.
    pub errors: BTreeMap<&'static str, u64>,
    pub elapsed: Duration,
    /// Second by second (for a ramp's chart).
    pub series: Vec<Second>,
}

impl Outcome {
    pub fn rps(&self) -> f64 {
        self.ok as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn failed(&self) -> u64 {
        self.errors.values().sum()
    }
}

pub fn run(load: &Load, stop: &std::sync::atomic::AtomicBool) -> Outcome {
    let addr: SocketAddr = ([127, 0, 0, 1], load.port).into();
    let issued = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let deadline = started + load.duration;
    let results = Arc::new(Mutex::new(Vec::new()));
    let n = load.concurrency.max(1);
    // When connection `i` joins a ramp (the first `from` at once).
    let start_at = |i: usize| match load.ramp_from {
        Some(from) if i >= from && n > from => load
            .duration
            .mul_f64((i - from + 1) as f64 / (n - from + 1) as f64),
        _ => Duration::ZERO,
    };
    std::thread::scope(|s| {
        for i in 0..n {
            let issued = issued.clone();
            let results = results.clone();
            let delay = start_at(i);
            s.spawn(move || {
                load.net.enter_thread();
                // (second, latency µs, ok) of every request, for the series.
                let mut samples: Vec<(u32, u32, bool)> = Vec::new();
                while started.elapsed() < delay {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    std::thread::sleep(
                        Duration::from_millis(5).min(delay - started.elapsed().min(delay)),
                    );
                }
                let mut hist =
                    Histogram::<u64>::new_with_bounds(1, 120_000_000, 3).expect("bounds");
                let mut ok = 0u64;
                let mut errors: BTreeMap<&'static str, u64> = BTreeMap::new();
                let mut conn: Option<BufReader<TcpStream>> = None;
                loop {
                    if stop.load(Ordering::Relaxed) || Instant::now() >= deadline {
                        break;
                    }
                    if let Some(n) = load.requests {
                        if issued.fetch_add(1, Ordering::Relaxed) >= n {
                            break;
                        }
                    }
                    let t = Instant::now();
                    let answer = request(&mut conn, addr, load);
                    let us = t.elapsed().as_micros().max(1) as u64;
                    let good = matches!(answer, Ok(status) if (200..300).contains(&status));
                    samples.push((
                        (t - started).as_secs() as u32,
                        us.min(u32::MAX as u64) as u32,
                        good,
                    ));
                    match answer {
                        Ok(_) if good => {
                            ok += 1;
                            let _ = hist.record(us);
                        }
                        Ok(502) => *errors.entry("502").or_default() += 1,
                        Ok(503) => *errors.entry("503").or_default() += 1,
                        Ok(504) => *errors.entry("504").or_default() += 1,
                        Ok(_) => *errors.entry("other non-2xx").or_default() += 1,
                        Err(class) => {
                            *errors.entry(class).or_default() += 1;
                            conn = None;
                        }
                    }
                    if !load.keep_alive {
                        conn = None;
                    }
                }
                results.lock().unwrap().push((hist, ok, errors, samples));
            });
        }
    });
    let elapsed = started.elapsed();
    let mut latency = Histogram::<u64>::new_with_bounds(1, 120_000_000, 3).expect("bounds");
    let mut ok = 0;
    let mut errors = BTreeMap::new();
    let mut samples: Vec<(u32, u32, bool)> = Vec::new();
    for (h, n, e, s) in results.lock().unwrap().drain(..) {
        samples.extend(s);
        let _ = latency.add(&h);
        ok += n;
        for (k, v) in e {
            *errors.entry(k).or_default() += v;
        }
    }
    let seconds = elapsed.as_secs() as usize + 1;
    let mut series = Vec::with_capacity(seconds);
    samples.sort_unstable();
    let mut rest = &samples[..];
    for sec in 0..seconds as u32 {
        let cut = rest.partition_point(|x| x.0 == sec);
        let (now, later) = rest.split_at(cut);
        rest = later;
        let mut good: Vec<u32> = now.iter().filter(|x| x.2).map(|x| x.1).collect();
        good.sort_unstable();
        let p99 = good
            .get((good.len() * 99).div_ceil(100).saturating_sub(1))
            .copied()
            .unwrap_or(0);
        let end = Duration::from_secs(sec as u64 + 1);
        series.push(Second {
            connections: (0..n).filter(|&i| start_at(i) < end).count(),
            ok: good.len() as u64,
            failed: (now.len() - good.len()) as u64,
            p99_ms: p99 as f64 / 1000.0,
        });
    }
    // The last second is partial: left out unless it is the only one.
    if series.len() > 1 && elapsed.subsec_millis() < 500 {
        series.pop();
    }
    Outcome {
        latency,
        ok,
        errors,
        elapsed,
        series,
    }
}

fn classify(e: &std::io::Error) -> &'static str {
    use std::io::ErrorKind::*;
    match e.kind() {
        ConnectionRefused => "connect refused",
        ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof => "connect reset",
        TimedOut | WouldBlock => "timeout",
        _ => "read error",
    }
}

/// One request on the connection (opened when there is none); the response's status.
fn request(
    conn: &mut Option<BufReader<TcpStream>>,
    addr: SocketAddr,
    load: &Load,
) -> Result<u16, &'static str> {
    if conn.is_none() {
        let s = load
            .net
            .connect(addr, load.timeout)
            .map_err(|e| classify(&e))?;
        s.set_read_timeout(Some(load.timeout)).ok();
        s.set_write_timeout(Some(load.timeout)).ok();
        s.set_nodelay(true).ok();
        *conn = Some(BufReader::new(s));
    }
    let c = conn.as_mut().expect("connected");
    let req = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: lemplint-bench\r\nConnection: {}\r\n\r\n",
        load.path,
        load.host,
        if load.keep_alive {
            "keep-alive"
        } else {
            "close"
        }
    );
    c.get_mut()
        .write_all(req.as_bytes())
        .map_err(|e| classify(&e))?;
    let mut line = String::new();
    if c.read_line(&mut line).map_err(|e| classify(&e))? == 0 {
        return Err("connect reset");
    }
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("read error")?;
    let (mut length, mut chunked, mut close) = (None, false, !load.keep_alive);
    loop {
        line.clear();
        if c.read_line(&mut line).map_err(|e| classify(&e))? == 0 {
            return Err("connect reset");
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':').unwrap_or((l, ""));
        let v = v.trim();
        if k.eq_ignore_ascii_case("content-length") {
            length = v.parse::<u64>().ok();
        } else if k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked") {
            chunked = true;
        } else if k.eq_ignore_ascii_case("connection") && v.eq_ignore_ascii_case("close") {
            close = true;
        }
    }
    if chunked {
        loop {
            line.clear();
            c.read_line(&mut line).map_err(|e| classify(&e))?;
            let size = u64::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| "read error")?;
            discard(c, size + 2)?;
            if size == 0 {
                break;
            }
        }
    } else if let Some(n) = length {
        discard(c, n)?;
    } else {
        let mut sink = Vec::new();
        c.read_to_end(&mut sink).map_err(|e| classify(&e))?;
        close = true;
    }
    if close {
        *conn = None;
    }
    Ok(status)
}

fn discard(c: &mut BufReader<TcpStream>, n: u64) -> Result<(), &'static str> {
    let copied =
        std::io::copy(&mut c.by_ref().take(n), &mut std::io::sink()).map_err(|e| classify(&e))?;
    if copied < n {
        return Err("connect reset");
    }
    Ok(())
}
