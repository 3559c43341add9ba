//! The `gitlab` format: a GitLab Code Quality report (a JSON array of issues), for
//! `artifacts:reports:codequality`.
//!
//! Each issue: `description` (`CODE: message`), `check_name` (the code), `fingerprint`,
//! `severity` (error → `major`, warning → `minor`, info → `info`) and
//! `location.path`/`location.lines.begin`.
//!
//! `location.path` is relative to the repository root, and `fingerprint` is computed from
//! the finding's content, never its line (see [`super::fingerprint`]): adding a comment
//! above a finding keeps its fingerprint, so GitLab does not report it as fixed and new.

use super::fingerprint::{self, Root};
use super::json::positions;
use super::Summary;
use crate::diagnostic::{Diagnostic, Severity};
use serde_json::{json, Value};

pub fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

/// The report, with paths and fingerprints relative to `root`.
pub fn document(diagnostics: &[Diagnostic], root: &Root) -> Value {
    let fingerprints = fingerprint::fingerprints(root, diagnostics);
    let issues: Vec<Value> = diagnostics
        .iter()
        .zip(fingerprints)
        .map(|(d, fp)| {
            let (start, _) = positions(d);
            json!({
                "description": format!("{}: {}", d.code, d.message),
                "check_name": d.code,
                "fingerprint": fp,
                "severity": severity(d.severity),
                "location": {
                    "path": fingerprint::path_of(root, d),
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
    summary: &Summary,
) -> std::io::Result<()> {
    let root = Root::new(summary.root.as_deref());
    serde_json::to_writer_pretty(&mut *out, &document(diagnostics, &root))?;
    out.write_all(b"\n")
}
