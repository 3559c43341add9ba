//! The baseline of `lemplint lint --baseline FILE`: the findings a repository already had,
//! recorded once, so that a CI gate fails only on new ones.
//!
//! ```json
//! {"version": 1,
//!  "findings": [{"fingerprint": "…", "code": "NGX022", "file": "etc/nginx/nginx.conf",
//!                "message": "…"}]}
//! ```
//!
//! Findings are matched by fingerprint alone ([`super::fingerprint`]: rule, repository-
//! relative file, the flagged line's text and the message, never the line number), so
//! lines added or removed elsewhere do not turn a recorded finding into a new one; the
//! code, file and message are there for the people who read the file in a review. Entries
//! are sorted by file, code and fingerprint and written with one key per line, so a
//! refreshed baseline diffs cleanly. Input errors (a file that cannot be parsed or read, a
//! path out of the tree) are never recorded nor hidden: nothing hides a broken file.

use super::fingerprint::{self, Root};
use crate::diagnostic::Diagnostic;
use std::collections::HashSet;

/// The version of the file's format.
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub file: String,
    pub code: String,
    pub fingerprint: String,
    pub message: String,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub version: u32,
    pub findings: Vec<Entry>,
}

/// The baseline of `diagnostics` (input errors left out), sorted.
pub fn build(root: &Root, diagnostics: &[Diagnostic]) -> Baseline {
    let fingerprints = fingerprint::fingerprints(root, diagnostics);
    let mut findings: Vec<Entry> = diagnostics
        .iter()
        .zip(fingerprints)
        .filter(|(d, _)| !crate::rules::is_input_error(d.code))
        .map(|(d, fp)| Entry {
            file: fingerprint::path_of(root, d),
            code: d.code.to_string(),
            fingerprint: fp,
            message: d.message.clone(),
        })
        .collect();
    findings.sort();
    findings.dedup();
    Baseline {
        version: VERSION,
        findings,
    }
}

impl Baseline {
    /// The file's text: pretty JSON and a final newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    pub fn parse(text: &[u8]) -> Result<Baseline, String> {
        let b: Baseline = serde_json::from_slice(text).map_err(|e| e.to_string())?;
        if b.version != VERSION {
            return Err(format!(
                "version {} is not one this lemplint reads (it writes version {VERSION})",
                b.version
            ));
        }
        Ok(b)
    }
}

/// What comparing a run with a baseline found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Findings the baseline holds, left out of the report.
    pub known: usize,
    /// Baseline entries no finding of the run matches any more.
    pub fixed: usize,
}

/// Removes from `diagnostics` the findings the baseline records (never an input error).
pub fn filter(baseline: &Baseline, root: &Root, diagnostics: &mut Vec<Diagnostic>) -> Comparison {
    let recorded: HashSet<&str> = baseline
        .findings
        .iter()
        .map(|e| e.fingerprint.as_str())
        .collect();
    let fingerprints = fingerprint::fingerprints(root, diagnostics);
    let mut seen: HashSet<&str> = HashSet::new();
    let mut keep = Vec::with_capacity(diagnostics.len());
    for (d, fp) in diagnostics.iter().zip(&fingerprints) {
        let known = !crate::rules::is_input_error(d.code) && recorded.contains(fp.as_str());
        if known {
            seen.insert(fp.as_str());
        }
        keep.push(!known);
    }
    let known = keep.iter().filter(|k| !**k).count();
    let fixed = recorded.iter().filter(|fp| !seen.contains(*fp)).count();
    let mut i = 0;
    diagnostics.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    Comparison { known, fixed }
}
