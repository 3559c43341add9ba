//! The `sarif` format: SARIF 2.1.0, as GitHub code scanning and most CI dashboards read it.
//!
//! One run. `tool.driver.rules` holds the rules that appear in the results (in code order),
//! each with its documentation; `result.ruleIndex` points into that list. Listing only those
//! keeps the log small and the same for the same findings, and nothing in SARIF or in code
//! scanning needs the rules that found nothing (`lemplint rules` lists them all).
//!
//! Columns count Unicode code points (`run.columnKind = "unicodeCodePoints"`), as
//! [`SourceFile::line_col`] does; ends are exclusive, as SARIF's `endColumn` is. A file
//! inside the repository root (the git work tree above the linted paths, else the current
//! directory; see [`super::fingerprint::Root`]) gets a URI relative to it with
//! `uriBaseId: "%SRCROOT%"` (forward slashes, percent-encoded), also when it was named by
//! an absolute path, and `run.originalUriBaseIds` says where `%SRCROOT%` is; a file
//! outside the root gets a `file://` URI. Labels become `relatedLocations`; a fix becomes
//! `fixes[0]`, its edits `replacements` whose `deletedRegion` gives the byte range as
//! `charOffset`/`charLength` counted in code points (the same numbers for ASCII), with its
//! line and column too.
//!
//! For GitHub code scanning: each rule has a `helpUri` (its page of the rule docs in the
//! repository, [`super::rule_docs::help_uri`]); a rule of the `security` category has
//! `properties.security-severity` ([`security_severity`]), so GitHub ranks its alerts
//! Critical, High, Medium or Low; and each result has `partialFingerprints`
//! (`lemplint/v1`: the content fingerprint of [`super::fingerprint`], the same as the
//! GitLab report's), which do not change when lines are added above the finding.

use super::fingerprint::{self, Root};
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

/// The key of `partialFingerprints` (versioned: a new way of computing them is a new key).
pub const FINGERPRINT_KEY: &str = "lemplint/v1";

/// `artifactLocation` for a file: a URI relative to `%SRCROOT%` (the repository root) when
/// the file is inside it, else a `file://` URI.
pub fn artifact_location(root: &Root, path: &Path) -> Value {
    use std::os::unix::ffi::OsStrExt;
    // The name's own bytes, percent-encoded: a `\\` or a byte that is not UTF-8 is part of
    // the file's name and stays exactly that.
    match root.relative(path) {
        Some(rel) => json!({
            "uri": percent_encode(rel.as_os_str().as_bytes()),
            "uriBaseId": "%SRCROOT%",
        }),
        None => json!({ "uri": file_uri(path) }),
    }
}

fn file_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    format!("file://{}", percent_encode(abs.as_os_str().as_bytes()))
}

/// `run.originalUriBaseIds`: where `%SRCROOT%` is (a directory URI ends with `/`).
fn original_uri_base_ids(root: &Root) -> Value {
    let mut uri = file_uri(&root.root);
    if !uri.ends_with('/') {
        uri.push('/');
    }
    json!({ "%SRCROOT%": {
        "uri": uri,
        "description": { "text": "The repository root: the git work tree above the linted paths, or the directory lemplint ran in" },
    } })
}

/// GitHub's `security-severity` for a rule of the `security` category (`None` for other
/// rules and for lemplint's own `LINT` rules): the rule's `security-severity` in its
/// `rules/*.toml` when set, else from its default severity — error 8.0 (High), warning
/// 5.0 (Medium), info 2.0 (Low). GitHub's scale: over 9.0 Critical, 7.0 to 8.9 High, 4.0
/// to 6.9 Medium, 0.1 to 3.9 Low.
pub fn security_severity(entry: &RuleEntry) -> Option<String> {
    if entry.category.as_str() != "security" || entry.lang == "lint" {
        return None;
    }
    let score = entry
        .meta()
        .security_severity
        .unwrap_or(match entry.severity() {
            Severity::Error => 8.0,
            Severity::Warning => 5.0,
            Severity::Info => 2.0,
        });
    Some(format!("{score:.1}"))
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
    let mut properties = json!({ "tags": [entry.category.as_str()] });
    if let Some(score) = security_severity(entry) {
        properties["security-severity"] = score.into();
    }
    json!({
        "id": entry.code,
        "name": entry.name,
        "shortDescription": { "text": meta.summary.trim() },
        "fullDescription": { "text": meta.docs.what_it_does.trim() },
        "helpUri": super::rule_docs::help_uri(entry.code),
        "help": {
            "text": help(entry, HelpFormat::Text),
            "markdown": help(entry, HelpFormat::Markdown),
        },
        "defaultConfiguration": { "level": level(entry.severity()) },
        "properties": properties,
    })
}

fn fix(root: &Root, f: &crate::fix::Fix) -> Value {
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
            "artifactLocation": artifact_location(root, file.real_path()),
            "replacements": replacements,
        })).collect::<Vec<_>>(),
        "properties": {
            "applicability": serde_json::to_value(f.applicability).unwrap_or(Value::Null),
        },
    })
}

fn result(root: &Root, d: &Diagnostic, rule_index: Option<usize>, fp: String) -> Value {
    let mut r = Map::new();
    r.insert("ruleId".into(), d.code.as_str().into());
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
                "artifactLocation": artifact_location(root, d.file.real_path()),
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
                    "artifactLocation": artifact_location(root, l.file.real_path()),
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
                "artifactLocation": artifact_location(root, &d.file.path),
            },
            "message": { "text": format!("read through the symlink {}", d.file.path.display()) },
        }));
    }
    if !related.is_empty() {
        r.insert("relatedLocations".into(), related.into());
    }
    r.insert("partialFingerprints".into(), json!({ FINGERPRINT_KEY: fp }));
    if let Some(f) = &d.fix {
        r.insert("fixes".into(), json!([fix(root, f)]));
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
    let mut codes: Vec<&'static str> = diagnostics.iter().map(|d| d.code.as_str()).collect();
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

/// The whole SARIF log, with paths relative to `root`.
pub fn document(diagnostics: &[Diagnostic], root: &Root) -> Value {
    let codes = reported_codes(diagnostics);
    let fingerprints = fingerprint::fingerprints(root, diagnostics);
    let results: Vec<Value> = diagnostics
        .iter()
        .zip(fingerprints)
        .map(|(d, fp)| result(root, d, codes.binary_search(&d.code.as_str()).ok(), fp))
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": tool(&codes),
            "originalUriBaseIds": original_uri_base_ids(root),
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// Writes [`document`], with the results streamed.
pub fn write(
    out: &mut dyn std::io::Write,
    diagnostics: &[Diagnostic],
    summary: &Summary,
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
        original_uri_base_ids: Value,
        column_kind: &'static str,
        results: R,
    }
    let root = Root::new(summary.root.as_deref());
    let codes = reported_codes(diagnostics);
    // The fingerprints number identical findings, so they are computed for the whole run
    // first (a short string each); the results are still built one at a time.
    let pairs: Vec<(&Diagnostic, String)> = diagnostics
        .iter()
        .zip(fingerprint::fingerprints(&root, diagnostics))
        .collect();
    let result_of = |(d, fp): &(&Diagnostic, String)| {
        result(
            &root,
            d,
            codes.binary_search(&d.code.as_str()).ok(),
            fp.clone(),
        )
    };
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: tool(&codes),
            original_uri_base_ids: original_uri_base_ids(&root),
            column_kind: "unicodeCodePoints",
            results: super::Streamed(&pairs, result_of),
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    out.write_all(b"\n")
}
