//! The servers' logs: where the configuration sends them, and the symptoms they hold.
//!
//! Only the logs the configuration names are read (nginx `error_log`, PHP-FPM's `[global]`
//! `error_log` and each pool's `slowlog`), with their rotations beside them (`error.log.1`,
//! `error.log.2.gz`, logrotate's `dateext` names). A file is opened only when its real path
//! (symlinks resolved) lies in the real directory the configuration names, and is a regular
//! file: a link in `/var/log/nginx` to `/etc/shadow` is refused by name, never read. Lines
//! are matched against [`super::templates`] and counted; their text is kept only with
//! `--show-lines` (it holds clients' addresses and requests).

use super::templates::{self, Server, Symptom, Template};
use crate::stack::confine::Confinement;
use crate::stack::expanded::NO_PARENT;
use crate::stack::model::Stack;
use crate::stack::paths::under_root;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Debian's nginx writes here when the main context names no `error_log` (its build's
/// `--error-log-path`).
const NGINX_DEFAULT_ERROR_LOG: &str = "/var/log/nginx/error.log";

/// The most a log file may hold, decompressed: a log past it (or a gzip bomb) is an error,
/// not a silently shorter count.
pub const MAX_LOG_BYTES: u64 = 8 << 30;

/// Lines kept per symptom with `--show-lines`.
const SHOWN_LINES: usize = 5;

/// A log the configuration names.
#[derive(Clone, Debug)]
pub struct Configured {
    pub server: Server,
    /// As written in the configuration (escaped for display).
    pub written: String,
    /// Where on this machine it is.
    pub path: PathBuf,
    /// The directive that names it (`file:line`), or the server's default.
    pub at: String,
}

/// One symptom's count, per subject (upstream or pool).
#[derive(Clone, Debug, Default)]
pub struct Count {
    pub count: u64,
    pub first: Option<String>,
    pub last: Option<String>,
    /// The matched lines (escaped), only with `--show-lines`.
    pub lines: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Scan {
    pub logs: Vec<Configured>,
    /// (template id, subject) → count.
    pub counts: BTreeMap<(Symptom, String), Count>,
    /// Files read, with their lines.
    pub read: Vec<(PathBuf, u64)>,
    /// Files not read, and why.
    pub not_read: Vec<String>,
    /// The oldest time seen in any log line (what the logs hold).
    pub oldest: Option<(i64, String)>,
}

impl Scan {
    pub fn total(&self, symptom: Symptom) -> u64 {
        self.counts
            .iter()
            .filter(|((s, _), _)| *s == symptom)
            .map(|(_, c)| c.count)
            .sum()
    }
}

/// Where the stack's servers log, as paths of this machine. A relative nginx path is
/// relative to nginx's prefix: the running master's `-p` when `prefixes` has it for the
/// configuration's main file, else the prefix the configuration was read with.
pub fn locations(
    stack: &Stack,
    root: Option<&Path>,
    prefixes: &[(PathBuf, PathBuf)],
) -> (Vec<Configured>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let machine = |written: &Path, prefix: Option<&Path>| -> Option<PathBuf> {
        if written.is_absolute() {
            Some(match root {
                Some(r) => under_root(r, written),
                None => written.to_path_buf(),
            })
        } else {
            prefix.map(|p| p.join(written))
        }
    };
    for inst in crate::analysis::stack_links::active_nginx(stack) {
        let view = inst.view();
        let main = super::main_file(inst).unwrap_or(Path::new(""));
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let prefix = prefixes
            .iter()
            .find(|(conf, _)| canon(conf) == canon(main))
            .map_or(inst.config.prefix.as_path(), |(_, p)| p.as_path());
        let mut main_has = false;
        for occ in view.named("error_log") {
            let Some(arg) = view.arg(occ, 0) else {
                continue;
            };
            main_has |= view.expanded.get(occ).parent == NO_PARENT;
            let (file, span) = view.location(occ);
            let at = format!(
                "{}:{}",
                crate::escape::path(&file.path),
                file.line_of(span.start)
            );
            if arg == "stderr" || arg.starts_with("syslog:") || arg.starts_with("memory:") {
                continue;
            }
            let written = Path::new(arg.as_ref());
            if written == Path::new("/dev/null") {
                continue;
            }
            match machine(written, Some(prefix)) {
                Some(path) => out.push(Configured {
                    server: Server::Nginx,
                    written: crate::escape::text(&arg).into_owned(),
                    path,
                    at,
                }),
                None => notes.push(format!(
                    "{at}: error_log {} is relative to a prefix not known here",
                    crate::escape::text(&arg)
                )),
            }
        }
        if !main_has && !inst.standalone {
            if let Some(path) = machine(Path::new(NGINX_DEFAULT_ERROR_LOG), None) {
                out.push(Configured {
                    server: Server::Nginx,
                    written: NGINX_DEFAULT_ERROR_LOG.into(),
                    path,
                    at: "nginx's default (no error_log in the main context)".into(),
                });
            }
        }
    }
    for inst in crate::stack::instances::instances(stack) {
        let mut named = Vec::new();
        if let Some(v) = inst.global("error_log") {
            named.push((Server::PhpFpm, v));
        }
        for pool in &inst.pools {
            if let Some(v) = pool.get("slowlog") {
                named.push((Server::Slowlog, v));
            }
        }
        for (server, v) in named {
            let file = v.at.file();
            let line = v.at.entry().map_or(1, |e| file.line_of(e.key.start));
            let at = format!("{}:{line}", crate::escape::path(&file.path));
            let text = v.text.trim();
            if !v.known || text == "syslog" || text.is_empty() {
                continue;
            }
            match machine(Path::new(text), None) {
                Some(path) => out.push(Configured {
                    server,
                    written: crate::escape::text(text).into_owned(),
                    path,
                    at,
                }),
                None => notes.push(format!(
                    "{at}: {} is relative to php-fpm's prefix, not known here",
                    crate::escape::text(text)
                )),
            }
        }
    }
    out.sort_by(|a, b| (&a.path, a.server).cmp(&(&b.path, b.server)));
    out.dedup_by(|a, b| a.path == b.path);
    (out, notes)
}

/// What to read and how.
pub struct Window<'a> {
    /// Lines older than this (seconds since the epoch) are not counted.
    pub since: Option<i64>,
    pub show_lines: bool,
    pub confine: &'a Confinement,
}

/// Reads every configured log and its rotations, and counts the symptoms.
pub fn scan(logs: Vec<Configured>, w: &Window<'_>) -> Result<Scan, String> {
    let mut s = Scan::default();
    for log in &logs {
        for file in rotations(log, &mut s.not_read) {
            // A rotation last written before the window holds nothing in it: not opened
            // (a month of compressed logs stays unread for `--since 24h`).
            let modified = std::fs::metadata(&file)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_secs() as i64);
            if let (Some(since), Some(m)) = (w.since, modified) {
                if m < since {
                    continue;
                }
            }
            read_one(&file, log.server, w, &mut s)?;
        }
    }
    s.logs = logs;
    Ok(s)
}

/// The configured file and its rotated copies, each checked: a regular file whose real path
/// is in the real directory the configuration names, and that the run may read.
fn rotations(log: &Configured, not_read: &mut Vec<String>) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (log.path.parent(), log.path.file_name()) else {
        return Vec::new();
    };
    let name = name.to_string_lossy().into_owned();
    let real_dir = match std::fs::canonicalize(dir) {
        Ok(d) => d,
        Err(e) => {
            not_read.push(format!(
                "{} (from {}): {}",
                crate::escape::path(&log.path),
                log.at,
                reason(&e)
            ));
            return Vec::new();
        }
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) => {
            not_read.push(format!("{}: {}", crate::escape::path(dir), reason(&e)));
            return Vec::new();
        }
    };
    let mut found: Vec<(u64, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            rotation_rank(&name, &n).map(|k| (k, e.path()))
        })
        .collect();
    if found.is_empty() {
        not_read.push(format!(
            "{} (from {}): not found, nor a rotation of it",
            crate::escape::path(&log.path),
            log.at
        ));
    }
    // Oldest first, so first/last times read in order.
    found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out = Vec::new();
    for (_, p) in found {
        let real = match std::fs::canonicalize(&p) {
            Ok(r) => r,
            Err(e) => {
                not_read.push(format!("{}: {}", crate::escape::path(&p), reason(&e)));
                continue;
            }
        };
        if real.parent() != Some(real_dir.as_path()) {
            not_read.push(format!(
                "{}: refused: it leads outside {} (the directory the configuration names)",
                crate::escape::path(&p),
                crate::escape::path(dir)
            ));
            continue;
        }
        match std::fs::metadata(&real) {
            Ok(m) if m.is_file() => out.push(p),
            Ok(_) => not_read.push(format!(
                "{}: refused: not a regular file",
                crate::escape::path(&p)
            )),
            Err(e) => not_read.push(format!("{}: {}", crate::escape::path(&p), reason(&e))),
        }
    }
    out
}

/// Whether `candidate` is `name` or one of its rotations, and how old (0: the live file;
/// `name.N[.gz]`: N; dated names sort after the numbered ones by their date, newest first).
fn rotation_rank(name: &str, candidate: &str) -> Option<u64> {
    if candidate == name {
        return Some(0);
    }
    let rest = candidate.strip_prefix(name)?;
    let rest = rest.strip_suffix(".gz").unwrap_or(rest);
    let digits = rest.strip_prefix('.').or_else(|| rest.strip_prefix('-'))?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 10 {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    // logrotate's dateext (`error.log-20261206`): older dates are older files.
    Some(if digits.len() == 8 {
        1_000_000 + (99_999_999 - n)
    } else {
        n
    })
}

fn reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => {
            "permission denied (run as root or the services' user)".into()
        }
        std::io::ErrorKind::NotFound => "not found".into(),
        _ => e.to_string(),
    }
}

fn read_one(path: &Path, server: Server, w: &Window<'_>, s: &mut Scan) -> Result<(), String> {
    let shown = crate::escape::path(path);
    let real = std::fs::canonicalize(path).map_err(|e| format!("{shown}: {e}"))?;
    if let Err(r) = w.confine.permit(&real) {
        s.not_read
            .push(format!("{shown}: refused: {}", r.describe()));
        return Ok(());
    }
    let file = match std::fs::File::open(&real) {
        Ok(f) => f,
        Err(e) => {
            s.not_read.push(format!("{shown}: {}", reason(&e)));
            return Ok(());
        }
    };
    let gz = path.extension().is_some_and(|e| e == "gz");
    let raw: Box<dyn Read> = if gz {
        Box::new(flate2::read::MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    // One byte past the cap tells a file at the cap from one over it.
    let mut reader = BufReader::new(raw.take(MAX_LOG_BYTES + 1));
    let mut buf = Vec::new();
    let mut lines = 0u64;
    let mut bytes = 0u64;
    loop {
        buf.clear();
        let n = match reader.read_until(b'\n', &mut buf) {
            Ok(n) => n,
            Err(e) => {
                // A damaged or truncated rotation (a .gz cut short): what was read counts,
                // and the file is named.
                s.not_read
                    .push(format!("{shown}: read up to line {lines}: {e}"));
                break;
            }
        };
        if n == 0 {
            break;
        }
        bytes += n as u64;
        if bytes > MAX_LOG_BYTES {
            return Err(format!(
                "{shown}: more than {} of log (decompressed); pass a shorter --since or rotate it",
                crate::size::format_size(MAX_LOG_BYTES)
            ));
        }
        lines += 1;
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches(['\n', '\r']);
        let Some((shown_time, t)) = templates::timestamp(line) else {
            continue;
        };
        if w.since.is_some_and(|since| t < since) {
            continue;
        }
        if s.oldest.as_ref().is_none_or(|(o, _)| t < *o) {
            s.oldest = Some((t, shown_time.clone()));
        }
        let Some(tpl) = templates::matching(server, line) else {
            continue;
        };
        count(s, tpl, line, shown_time, w.show_lines);
    }
    s.read.push((path.to_path_buf(), lines));
    Ok(())
}

fn count(s: &mut Scan, tpl: &Template, line: &str, time: String, show: bool) {
    let subject = templates::subject(tpl.server, line).unwrap_or_default();
    let c = s.counts.entry((tpl.symptom, subject)).or_default();
    c.count += 1;
    if c.first.is_none() {
        c.first = Some(time.clone());
    }
    c.last = Some(time);
    if show && c.lines.len() < SHOWN_LINES {
        c.lines.push(crate::escape::text(line).into_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotations_are_recognised_and_ordered() {
        assert_eq!(rotation_rank("error.log", "error.log"), Some(0));
        assert_eq!(rotation_rank("error.log", "error.log.1"), Some(1));
        assert_eq!(rotation_rank("error.log", "error.log.2.gz"), Some(2));
        assert!(rotation_rank("error.log", "error.log-20261206.gz").unwrap() > 2);
        assert!(
            rotation_rank("error.log", "error.log-20261205").unwrap()
                > rotation_rank("error.log", "error.log-20261206").unwrap()
        );
        assert_eq!(rotation_rank("error.log", "error.log.bak"), None);
        assert_eq!(rotation_rank("error.log", "error.logger"), None);
        assert_eq!(rotation_rank("error.log", "access.log"), None);
    }

    const EAGAIN: &str = "2026/12/07 08:46:49 [error] 6#6: *5 connect() to unix:/run/php/www.sock failed (11: Resource temporarily unavailable) while connecting to upstream, client: 203.0.113.9, server: , request: \"GET /secret?token=abc HTTP/1.1\", upstream: \"fastcgi://unix:/run/php/www.sock:\", host: \"x\"\n";

    #[test]
    fn rotated_and_compressed_logs_count_and_links_out_are_refused() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("log");
        std::fs::create_dir(&logs).unwrap();
        std::fs::write(logs.join("error.log"), EAGAIN).unwrap();
        std::fs::write(logs.join("error.log.1"), EAGAIN.repeat(2)).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(EAGAIN.repeat(4).as_bytes()).unwrap();
        std::fs::write(logs.join("error.log.2.gz"), gz.finish().unwrap()).unwrap();
        // A rotation that is a link to a file elsewhere: refused, never read.
        let outside = dir.path().join("elsewhere.log");
        std::fs::write(&outside, EAGAIN.repeat(8)).unwrap();
        std::os::unix::fs::symlink(&outside, logs.join("error.log.3")).unwrap();
        let confine = Confinement::live();
        let w = Window {
            since: None,
            show_lines: false,
            confine: &confine,
        };
        let log = Configured {
            server: Server::Nginx,
            written: "log/error.log".into(),
            path: logs.join("error.log"),
            at: "nginx.conf:1".into(),
        };
        let s = scan(vec![log], &w).unwrap();
        assert_eq!(s.total(Symptom::QueueFull), 7, "{s:?}");
        assert_eq!(s.read.len(), 3);
        assert_eq!(s.not_read.len(), 1, "{:?}", s.not_read);
        assert!(
            s.not_read[0].contains("error.log.3: refused"),
            "{:?}",
            s.not_read
        );
        let c = &s.counts[&(Symptom::QueueFull, "unix:/run/php/www.sock".to_string())];
        assert!(c.lines.is_empty());
        // A window after the lines' time counts none of them.
        let w = Window {
            since: Some(templates::timestamp(EAGAIN).unwrap().1 + 1),
            show_lines: true,
            confine: &confine,
        };
        // A damaged rotation: what it held before the damage counts, and it is named.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(EAGAIN.repeat(16).as_bytes()).unwrap();
        let bytes = gz.finish().unwrap();
        std::fs::write(logs.join("error.log.4.gz"), &bytes[..bytes.len() - 12]).unwrap();
        let damaged = scan(s.logs.clone(), &w).unwrap();
        assert!(
            damaged
                .not_read
                .iter()
                .any(|n| n.contains("error.log.4.gz: read up to line")),
            "{:?}",
            damaged.not_read
        );
        std::fs::remove_file(logs.join("error.log.4.gz")).unwrap();
        let log = s.logs[0].clone();
        let s0 = scan(vec![log.clone()], &w).unwrap();
        assert_eq!(s0.total(Symptom::QueueFull), 0);
        // --show-lines: the lines themselves, five at most.
        let w = Window {
            since: None,
            show_lines: true,
            confine: &confine,
        };
        let s = scan(vec![log], &w).unwrap();
        let c = &s.counts[&(Symptom::QueueFull, "unix:/run/php/www.sock".to_string())];
        assert_eq!(c.lines.len(), SHOWN_LINES);
        assert!(
            c.lines[0].contains("GET /secret?token=abc"),
            "{:?}",
            c.lines
        );
    }
}
