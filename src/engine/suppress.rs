//! Inline suppressions.
//!
//! ```text
//! server_tokens on;  # lemplint: ignore NGX022 -- the header is stripped by the CDN
//! # lemplint: ignore NGX023 -- reason          (on the line above: covers that directive,
//! server { … }                                  and the whole block when it opens one)
//! # lemplint: ignore-file NGX005 -- reason     (anywhere: the whole file)
//! ```
//! In PHP-FPM files the comment starts with `;`. A suppression that silences nothing
//! (LINT001), names an unknown rule or has no reason (LINT002) is reported itself.

use crate::diagnostic::{rule_ids, Diagnostic, RuleId};
use crate::engine::Workspace;
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::rules;
use crate::source::{Shared, Span};
use crate::stack::discover::FileKind;
use crate::syntax::nginx::Tree;
use std::path::{Path, PathBuf};

#[derive(Debug)]
struct Suppression {
    file: Shared,
    /// The comment, for LINT001/LINT002.
    comment: Span,
    /// Byte range whose diagnostics are covered (the whole file for `ignore-file`).
    covers: Span,
    /// (as written, resolved code), one per listed rule.
    codes: Vec<(String, Option<&'static str>)>,
    used: Vec<bool>,
}

const MARKER: &str = "lemplint:";

/// What a `lemplint:` comment says.
#[derive(Debug, PartialEq)]
struct Directive {
    file_wide: bool,
    codes: Vec<String>,
    reason: Option<String>,
}

/// A comment that is a suppression, or the reason it is malformed; `None` for an ordinary
/// comment.
fn parse_comment(text: &str) -> Option<Result<Directive, String>> {
    let body = text.trim_start_matches(['#', ';']).trim_start();
    let rest = body.strip_prefix(MARKER)?.trim_start();
    let (file_wide, rest) = if let Some(r) = rest.strip_prefix("ignore-file") {
        (true, r)
    } else if let Some(r) = rest.strip_prefix("ignore") {
        (false, r)
    } else {
        return Some(Err(format!(
            "unknown suppression {:?}: use `lemplint: ignore CODE -- reason` or `lemplint: ignore-file CODE -- reason`",
            rest.split_whitespace().next().unwrap_or("")
        )));
    };
    let (codes, reason) = match rest.split_once("--") {
        Some((c, r)) => (c, Some(r.trim().to_string()).filter(|r| !r.is_empty())),
        None => (rest, None),
    };
    let codes: Vec<String> = codes
        .split([',', ' ', '\t'])
        .filter(|c| !c.is_empty())
        .map(String::from)
        .collect();
    if codes.is_empty() {
        return Some(Err(
            "suppression names no rule: `lemplint: ignore CODE -- reason`".into(),
        ));
    }
    Some(Ok(Directive {
        file_wide,
        codes,
        reason,
    }))
}

/// Comments of a file with the byte range each one covers.
/// In sysctl files only a whole-line comment is a comment: `key = 1 # lemplint: …` is part
/// of the value (procps writes it to the kernel), so it suppresses nothing.
fn comments(file: &Shared, tree: Option<&Tree>, kind: FileKind) -> Vec<(Span, Span)> {
    let text = &file.text;
    // Nearly every file has no suppression: find that out at memory speed, with a searcher
    // built once for the run rather than once per file.
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(MARKER));
    if FINDER.find(text).is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut line_start = 0usize;
    let lines: Vec<(usize, usize)> = text
        .split_inclusive(|&b| b == b'\n')
        .map(|l| {
            let s = line_start;
            line_start += l.len();
            (s, s + l.len())
        })
        .collect();
    for (i, &(s, e)) in lines.iter().enumerate() {
        let line = &text[s..e];
        let Some(pos) = find_marker_comment(line) else {
            continue;
        };
        let comment = Span::new(
            (s + pos) as u32,
            (s + line.len() - trailing_newline(line)) as u32,
        );
        // A comment line, even when the marker follows another comment on it
        // (`# keep for the CDN  # lemplint: ignore …`), covers the statement below it.
        let own_line = line
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .is_some_and(|p| line[p] == b'#' || line[p] == b';');
        if !own_line && kind == FileKind::Sysctl {
            continue;
        }
        // The statement covered: on this line (trailing comment) or the next code line.
        let target_line = if own_line {
            lines[i + 1..].iter().find(|&&(ls, le)| {
                let l = &text[ls..le];
                let t = l.iter().position(|b| !b.is_ascii_whitespace());
                t.is_some_and(|p| l[p] != b'#' && l[p] != b';')
            })
        } else {
            Some(&lines[i])
        };
        let Some(&(ts, te)) = target_line else {
            out.push((comment, Span::empty(comment.start)));
            continue;
        };
        let mut covers = Span::new(ts as u32, te as u32);
        if let Some(tree) = tree {
            // A directive starting on that line covers its whole span (a block: its body).
            if let Some(n) = tree
                .nodes
                .iter()
                .find(|n| n.span.start as usize >= ts && (n.span.start as usize) < te)
            {
                covers = covers.cover(n.span);
            }
        }
        out.push((comment, covers));
    }
    out
}

fn trailing_newline(line: &[u8]) -> usize {
    line.iter()
        .rev()
        .take_while(|&&b| b == b'\n' || b == b'\r')
        .count()
}

/// Where a `# lemplint:` / `; lemplint:` comment starts in a line.
fn find_marker_comment(line: &[u8]) -> Option<usize> {
    let m = line
        .windows(MARKER.len())
        .position(|w| w == MARKER.as_bytes())?;
    let start = line[..m].iter().rposition(|&b| b == b'#' || b == b';')?;
    line[start + 1..m]
        .iter()
        .all(|b| *b == b' ' || *b == b'\t')
        .then_some(start)
}

/// Removes suppressed diagnostics; adds LINT001/LINT002 findings where enabled.
/// `ran` tells which rules ran: a suppression of a rule that did not run (deselected, or
/// skipped for lack of host facts) is not "unused".
pub fn apply(
    mut diagnostics: Vec<Diagnostic>,
    ws: &Workspace,
    ran: &dyn Fn(&str) -> bool,
) -> Vec<Diagnostic> {
    let lint001 = ran("LINT001");
    let lint002 = ran("LINT002");
    let mut sups: Vec<Suppression> = Vec::new();
    let mut out: Vec<Diagnostic> = Vec::new();
    // Each file once, even when several stacks read it (borrowed: a 50,000-file
    // configuration would otherwise copy every path).
    let sources: Vec<_> = ws.stacks.iter().flat_map(|s| s.sources()).collect();
    let mut seen: FxHashSet<&Path> = FxHashSet::default();
    for (file, kind, tree) in &sources {
        if !seen.insert(file.path.as_path()) {
            continue;
        }
        for (comment, covers) in comments(file, *tree, *kind) {
            let text = file.str(comment);
            match parse_comment(&text) {
                None => {}
                Some(Err(msg)) if lint002 => out.push(lint(file, comment, rule_ids::LINT002, msg)),
                Some(Err(_)) => {}
                Some(Ok(Directive {
                    file_wide,
                    codes,
                    reason,
                })) => {
                    if reason.is_none() && lint002 {
                        out.push(lint(file, comment, rule_ids::LINT002,
                            "suppression has no reason: add one after `--` (e.g. `-- kept for the legacy client`)".into()));
                    }
                    let codes: Vec<(String, Option<&'static str>)> = codes
                        .into_iter()
                        .map(|c| {
                            let mut code = rules::lookup(&c).map(|r| r.code);
                            if code.is_none() && lint002 {
                                out.push(lint(
                                    file,
                                    comment,
                                    rule_ids::LINT002,
                                    format!("unknown rule {c:?} in suppression"),
                                ));
                            }
                            // A file that cannot be read or parsed whole was not checked:
                            // saying so is never optional.
                            if let Some(input) = code.filter(|c| rules::by_code(c).is_some_and(|r| r.input_error)) {
                                if lint002 {
                                    out.push(lint(
                                        file,
                                        comment,
                                        rule_ids::LINT002,
                                        format!("{input} cannot be suppressed: it means the configuration could not be read or parsed as a whole, so nothing in it was fully checked"),
                                    ));
                                }
                                code = None;
                            }
                            (c, code)
                        })
                        .collect();
                    let covers = if file_wide {
                        Span::new(0, file.len())
                    } else {
                        covers
                    };
                    let n = codes.len();
                    sups.push(Suppression {
                        file: file.clone(),
                        comment,
                        covers,
                        codes,
                        used: vec![false; n],
                    });
                }
            }
        }
    }
    // A file's suppressions, so each finding is checked against its own file's only.
    let mut by_file: FxHashMap<PathBuf, Vec<usize>> = FxHashMap::default();
    for (i, s) in sups.iter().enumerate() {
        by_file.entry(s.file.path.clone()).or_default().push(i);
    }
    diagnostics.retain(|d| {
        let Some(here) = by_file.get(&d.file.path) else {
            return true;
        };
        let mut suppressed = false;
        for &i in here {
            let s = &mut sups[i];
            if d.span.start < s.covers.start || d.span.start > s.covers.end {
                continue;
            }
            for (i, (_, code)) in s.codes.iter().enumerate() {
                if *code == Some(d.code.as_str()) {
                    s.used[i] = true;
                    suppressed = true;
                }
            }
        }
        !suppressed
    });
    // The kept findings stay where they are; the few LINT002 ones join them.
    diagnostics.append(&mut out);
    let mut out = diagnostics;
    if lint001 {
        for s in &sups {
            for ((written, code), used) in s.codes.iter().zip(&s.used) {
                if code.is_some_and(ran) && !used {
                    out.push(lint(
                        &s.file,
                        s.comment,
                        rule_ids::LINT001,
                        format!("unused suppression: {written} reports nothing here"),
                    ));
                }
            }
        }
    }
    out
}

fn lint(file: &Shared, span: Span, code: RuleId, message: String) -> Diagnostic {
    let severity = rules::entry(code).severity();
    Diagnostic::new(code, severity, file.clone(), span, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_grammar() {
        let d = parse_comment("# lemplint: ignore NGX022, NGX023 -- legacy")
            .unwrap()
            .unwrap();
        assert!(!d.file_wide);
        assert_eq!(d.codes, ["NGX022", "NGX023"]);
        assert_eq!(d.reason.as_deref(), Some("legacy"));
        let d = parse_comment("; lemplint: ignore-file FPM005")
            .unwrap()
            .unwrap();
        assert!(d.file_wide);
        assert_eq!(d.codes, ["FPM005"]);
        assert!(d.reason.is_none());
        assert!(parse_comment("# lemplint: disable X").unwrap().is_err());
        assert!(parse_comment("# just a comment").is_none());
    }

    #[test]
    fn marker_must_start_a_comment() {
        assert_eq!(
            find_marker_comment(b"gzip on; # lemplint: ignore X"),
            Some(9)
        );
        assert_eq!(find_marker_comment(b"# see lemplint: docs"), None);
    }
}
