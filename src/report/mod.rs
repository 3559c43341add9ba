//! Rendering diagnostics for people and machines: one module per output format.
//!
//! Every format receives the same input: the diagnostics (sorted by file and position) and
//! a [`Summary`] of the run. Formats never re-run rules or read files.

pub mod baseline;
pub mod checkstyle;
pub mod concise;
pub mod fingerprint;
mod frame_source;
pub mod full;
pub mod github;
pub mod gitlab;
pub mod json;
pub mod junit;
pub mod rule_docs;
pub mod sarif;
mod xml;

use crate::diagnostic::Diagnostic;
use std::io::{self, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Code frames with help (miette)
    Full,
    /// One line per finding: file:line:col: severity[CODE] message
    Concise,
    /// lemplint's JSON contract (version 1)
    Json,
    /// SARIF 2.1.0 (GitHub code scanning)
    Sarif,
    /// GitHub Actions workflow commands (annotations)
    Github,
    /// GitLab Code Quality report
    Gitlab,
    /// Checkstyle XML
    Checkstyle,
    /// JUnit XML
    Junit,
}

pub use crate::engine::Summary;

/// A JSON array written one element at a time: each value is built, written and dropped,
/// so a report of 50,000 findings never holds them all as JSON values at once.
pub struct Streamed<'a, T, F>(pub &'a [T], pub F);

impl<T, F: Fn(&T) -> serde_json::Value> serde::Serialize for Streamed<'_, T, F> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(&self.1))
    }
}

/// Writes `diagnostics` in `format`. `color` only affects `full`.
pub fn write(
    format: Format,
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    color: bool,
) -> io::Result<()> {
    match format {
        Format::Full => full::write(out, diagnostics, summary, color),
        Format::Concise => concise::write(out, diagnostics, summary),
        Format::Json => json::write(out, diagnostics, summary),
        Format::Sarif => sarif::write(out, diagnostics, summary),
        Format::Github => github::write(out, diagnostics, summary),
        Format::Gitlab => gitlab::write(out, diagnostics, summary),
        Format::Checkstyle => checkstyle::write(out, diagnostics, summary),
        Format::Junit => junit::write(out, diagnostics, summary),
    }
}
