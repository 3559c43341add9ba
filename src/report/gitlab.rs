//! The `gitlab` format: a GitLab Code Quality report (a JSON array of issues), for
//! `artifacts:reports:codequality`.
//!
//! Each issue: `description` (`CODE: message`), `check_name` (the code), `fingerprint`,
//! `severity` (error → `major`, warning → `minor`, info → `info`) and
//! `location.path`/`location.lines.begin`.
//!
//! The fingerprint is 64-bit FNV-1a, as 16 lowercase hex digits, over the code, the path
//! (forward slashes), the message and the line, each followed by a NUL byte. FNV-1a is
//! written out here because std's hashers promise no stable output across Rust releases,
//! and GitLab compares fingerprints across pipelines to tell new findings from fixed ones.
//! When two findings would get the same fingerprint, the later ones also hash their
//! occurrence number (`#2`, `#3`, …), so each stays distinct and stable.

use super::json::positions;
use super::Summary;
use crate::diagnostic::{Diagnostic, Severity};
use serde_json::{json, Value};
use std::collections::HashMap;

/// 64-bit FNV-1a.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The fingerprint of a finding (`occurrence` 1 for the first with these fields).
pub fn fingerprint(code: &str, path: &str, message: &str, line: u32, occurrence: usize) -> String {
    let mut key = Vec::with_capacity(code.len() + path.len() + message.len() + 16);
    for part in [code, path, message, &line.to_string()] {
        key.extend_from_slice(part.as_bytes());
        key.push(0);
    }
    if occurrence > 1 {
        key.extend_from_slice(format!("#{occurrence}").as_bytes());
        key.push(0);
    }
    format!("{:016x}", fnv1a64(&key))
}

pub fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

pub fn document(diagnostics: &[Diagnostic]) -> Value {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let issues: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let (start, _) = positions(d);
            let path = d.file.real_path().to_string_lossy().into_owned();
            let base = fingerprint(d.code, &path, &d.message, start.line, 1);
            let n = seen.entry(base.clone()).or_insert(0);
            *n += 1;
            let fp = if *n == 1 {
                base
            } else {
                fingerprint(d.code, &path, &d.message, start.line, *n)
            };
            json!({
                "description": format!("{}: {}", d.code, d.message),
                "check_name": d.code,
                "fingerprint": fp,
                "severity": severity(d.severity),
                "location": {
                    "path": path,
                    "lines": { "begin": start.line },
                },
            })
        })
        .collect();
    Value::Array(issues)
}

pub fn write(
    out: &mut dyn std::io::Write,
    diagnostics: &[Diagnostic],
    _summary: &Summary,
) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &document(diagnostics))?;
    out.write_all(b"\n")
}
