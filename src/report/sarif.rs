//! The `sarif` format: SARIF 2.1.0, as GitHub code scanning and most CI dashboards read it.
//!
//! One run. `tool.driver.rules` holds the rules that appear in the results (in code order),
//! each with its documentation; `result.ruleIndex` points into that list. Listing only those
//! keeps the log small and the same for the same findings, and nothing in SARIF or in code
//! scanning needs the rules that found nothing (`lemplint rules` lists them all).
//!
//! Columns count Unicode code points (`run.columnKind = "unicodeCodePoints"`), as
//! [`SourceFile::line_col`] does; ends are exclusive, as SARIF's `endColumn` is. A relative
//! path becomes a relative URI with `uriBaseId: "%SRCROOT%"` (forward slashes,
//! percent-encoded); an absolute one a `file://` URI. Labels become `relatedLocations`;
//! a fix becomes `fixes[0]`, its edits `replacements` whose `deletedRegion` gives the byte
//! range as `charOffset`/`charLength` counted in code points (the same numbers for ASCII),
//! with its line and column too.

use super::Summary;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::RuleEntry;
use crate::source::{SourceFile, Span};
use serde_json::{json, Map, Value};
use std::path::Path;

/// The `$schema` written: the OASIS 2.1.0 (errata 01) schema, which the tests validate against.
pub const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// Where the tool is documented: the crate's homepage or repository when Cargo.toml names
/// one, else its crates.io page.
pub fn information_uri() -> &'static str {
    [env!("CARGO_PKG_HOMEPAGE"), env!("CARGO_PKG_REPOSITORY")]
        .into_iter()
        .find(|s| !s.is_empty())
        .unwrap_or("https://crates.io/crates/lemplint")
}

pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// `artifactLocation` for a file: relative URI against `%SRCROOT%`, or a `file://` URI.
pub fn artifact_location(path: &Path) -> Value {
    use std::os::unix::ffi::OsStrExt;
    // The name's own bytes, percent-encoded: a `\\` or a byte that is not UTF-8 is part of
    // the file's name and stays exactly that.
    let bytes = path.as_os_str().as_bytes();
    if path.is_absolute() {
        json!({ "uri": format!("file://{}", percent_encode(bytes)) })
    } else {
        let relative = bytes.strip_prefix(b"./").unwrap_or(bytes);
        json!({ "uri": percent_encode(relative), "uriBaseId": "%SRCROOT%" })
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters and `/`.
fn percent_encode(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Code points before a byte offset (bytes when that prefix is not valid UTF-8), matching
/// how columns are counted.
fn char_offset(file: &SourceFile, byte: u32) -> usize {
    let prefix = &file.text[..(byte as usize).min(file.text.len())];
    match std::str::from_utf8(prefix) {
        Ok(s) => s.chars().count(),
        Err(_) => prefix.len(),
    }
}

fn region(file: &SourceFile, span: Span) -> Map<String, Value> {
    let start = file.line_col(span.start);
    let end = file.line_col(span.end);
    let mut r = Map::new();
    r.insert("startLine".into(), start.line.into());
    r.insert("startColumn".into(), start.column.into());
    r.insert("endLine".into(), end.line.into());
    r.insert("endColumn".into(), end.column.into());
    r
}

/// How a rule's documentation is written out for `rule.help`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum HelpFormat {
    Markdown,
    Text,
}

/// A rule's full documentation, for `rule.help.markdown` or `rule.help.text`: the same
/// sections in the same order, as Markdown headings or as `Heading:` lines.
fn help(entry: &RuleEntry, format: HelpFormat) -> String {
    let meta = entry.meta();
    let docs = &meta.docs;
    let markdown = format == HelpFormat::Markdown;
    let fence = match entry.lang {
        "nginx" => "nginx",
        "fpm" | "sysctl" => "ini",
        _ => "",
    };
    // (heading, body, whether the body is a configuration snippet)
    let sections = [
        ("What it does", docs.what_it_does.trim(), false),
        ("Why it matters", docs.why_it_matters.trim(), false),
        ("Example", docs.example.trim_end(), true),
        ("Use instead", docs.use_instead.trim_end(), true),
        ("Fix safety", docs.fix_safety.trim(), false),
    ];
    let mut out = if markdown {
        format!("## {} ({})\n\n{}\n", entry.name, entry.code, meta.summary)
    } else {
        format!("{} ({}): {}\n", entry.name, entry.code, meta.summary)
    };
    for (heading, body, snippet) in sections {
        out.push_str(&match (markdown, snippet) {
            (true, true) => format!("\n### {heading}\n\n```{fence}\n{body}\n```\n"),
            (true, false) => format!("\n### {heading}\n\n{body}\n"),
            (false, true) => format!("\n{heading}:\n{body}\n"),
            (false, false) => format!("\n{heading}: {body}\n"),
        });
    }
    if !docs.references.is_empty() {
        out.push_str(if markdown {
            "\n### References\n\n"
        } else {
            "\nReferences:\n"
        });
        for r in &docs.references {
            out.push_str(&if markdown {
                format!("- <{r}>\n")
            } else {
                format!("- {r}\n")
            });
        }
    }
    out
}

/// A `reportingDescriptor` for a code; a code without a registered rule gets only its id.
fn rule_descriptor(code: &str) -> Value {
    let Some(entry) = crate::rules::by_code(code) else {
        return json!({
            "id": code,
            "shortDescription": { "text": code },
        });
    };
    let meta = entry.meta();
    json!({
        "id": entry.code,
        "name": entry.name,
        "shortDescription": { "text": meta.summary.trim() },
        "fullDescription": { "text": meta.docs.what_it_does.trim() },
        "help": {
            "text": help(entry, HelpFormat::Text),
            "markdown": help(entry, HelpFormat::Markdown),
        },
        "defaultConfiguration": { "level": level(entry.severity()) },
        "properties": { "tags": [entry.category.as_str()] },
    })
}

fn fix(f: &crate::fix::Fix) -> Value {
    // One artifactChange per file, in the order the files first appear among the edits.
    let mut changes: Vec<(&crate::source::Shared, Vec<Value>)> = Vec::new();
    for e in &f.edits {
        let mut deleted = region(&e.file, e.range);
        let offset = char_offset(&e.file, e.range.start);
        let length = char_offset(&e.file, e.range.end).saturating_sub(offset);
        deleted.insert("charOffset".into(), offset.into());
        deleted.insert("charLength".into(), length.into());
        let replacement = json!({
            "deletedRegion": deleted,
            "insertedContent": { "text": e.content },
        });
        match changes
            .iter_mut()
            .find(|(file, _)| std::sync::Arc::ptr_eq(file, &e.file) || file.path == e.file.path)
        {
            Some((_, replacements)) => replacements.push(replacement),
            None => changes.push((&e.file, vec![replacement])),
        }
    }
    json!({
        "description": { "text": f.title },
        "artifactChanges": changes.into_iter().map(|(file, replacements)| json!({
            "artifactLocation": artifact_location(file.real_path()),
            "replacements": replacements,
        })).collect::<Vec<_>>(),
        "properties": {
            "applicability": serde_json::to_value(f.applicability).unwrap_or(Value::Null),
        },
    })
}

fn result(d: &Diagnostic, rule_index: Option<usize>) -> Value {
    let mut r = Map::new();
    r.insert("ruleId".into(), d.code.into());
    if let Some(i) = rule_index {
        r.insert("ruleIndex".into(), i.into());
    }
    r.insert("level".into(), level(d.severity).into());
    r.insert("message".into(), json!({ "text": d.message }));
    // Code scanning annotates files, not symlinks: a finding read through
    // `sites-enabled/x` is placed in the real file, and the link named beside it.
    r.insert(
        "locations".into(),
        json!([{
            "physicalLocation": {
                "artifactLocation": artifact_location(d.file.real_path()),
                "region": region(&d.file, d.span),
            }
        }]),
    );
    let mut related: Vec<Value> = d
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            json!({
                "id": i,
                "physicalLocation": {
                    "artifactLocation": artifact_location(l.file.real_path()),
                    "region": region(&l.file, l.span),
                },
                "message": { "text": l.text },
            })
        })
        .collect();
    if d.file.through_link.is_some() {
        related.push(json!({
            "id": related.len(),
            "physicalLocation": {
                "artifactLocation": artifact_location(&d.file.path),
            },
            "message": { "text": format!("read through the symlink {}", d.file.path.display()) },
        }));
    }
    if !related.is_empty() {
        r.insert("relatedLocations".into(), related.into());
    }
    if let Some(f) = &d.fix {
        r.insert("fixes".into(), json!([fix(f)]));
    }
    let mut properties = serde_json::Map::new();
    if let Some(h) = &d.help {
        properties.insert("help".into(), json!(h));
    }
    if !d.loaded {
        properties.insert("loaded".into(), json!(false));
    }
    if !properties.is_empty() {
        r.insert("properties".into(), Value::Object(properties));
    }
    Value::Object(r)
}

/// The codes reported, sorted: the run's rules, which results point at by index.
fn reported_codes(diagnostics: &[Diagnostic]) -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = diagnostics.iter().map(|d| d.code).collect();
    codes.sort_unstable();
    codes.dedup();
    codes
}

/// The run's `tool` object.
fn tool(codes: &[&str]) -> Value {
    let rules: Vec<Value> = codes.iter().map(|c| rule_descriptor(c)).collect();
    json!({
        "driver": {
            "name": "lemplint",
            "version": env!("CARGO_PKG_VERSION"),
            "semanticVersion": env!("CARGO_PKG_VERSION"),
            "informationUri": information_uri(),
            "rules": rules,
        }
    })
}

/// The whole SARIF log.
pub fn document(diagnostics: &[Diagnostic]) -> Value {
    let codes = reported_codes(diagnostics);
    let results: Vec<Value> = diagnostics
        .iter()
        .map(|d| result(d, codes.binary_search(&d.code).ok()))
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": tool(&codes),
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// Writes [`document`], with the results streamed.
pub fn write(
    out: &mut dyn std::io::Write,
    diagnostics: &[Diagnostic],
    _summary: &Summary,
) -> std::io::Result<()> {
    #[derive(serde::Serialize)]
    struct Log<R> {
        #[serde(rename = "$schema")]
        schema: &'static str,
        version: &'static str,
        runs: [Run<R>; 1],
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Run<R> {
        tool: Value,
        column_kind: &'static str,
        results: R,
    }
    let codes = reported_codes(diagnostics);
    let result_of = |d: &Diagnostic| result(d, codes.binary_search(&d.code).ok());
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: tool(&codes),
            column_kind: "unicodeCodePoints",
            results: super::Streamed(diagnostics, result_of),
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    out.write_all(b"\n")
}
