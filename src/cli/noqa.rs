//! `lemplint lint --add-noqa`: a suppression comment for every finding, so a repository
//! with hundreds of findings can start gating on new ones and remove the comments one by
//! one (ruff's `--add-noqa`).
//!
//! Each finding's line (in nginx, the line its statement starts on) gets, on its own line
//! just above and indented like it, the comment
//! the engine reads (`# lemplint: ignore NGX022,NGX104 -- TODO: reason`; `;` in PHP-FPM and
//! php.ini files): every code found on that line, once. The reason is a placeholder to
//! replace. The edits are written as `lemplint fix` writes: byte insertions only, through
//! the same atomic writer, which re-checks each file at the moment of writing. Running it
//! again adds nothing, since the findings are then suppressed. Not annotated: input errors
//! (they cannot be suppressed), lemplint's own `LINT` findings, and files that cannot be
//! written in place (standard input, a file inside an `nginx -T` dump).

use crate::diagnostic::Diagnostic;
use crate::engine::Workspace;
use crate::fix::{write, Change, Changes, Edit};
use crate::stack::discover::FileKind;
use crate::syntax::nginx::Tree;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

/// The reason written in each comment, for a person to replace.
pub const REASON_PLACEHOLDER: &str = "TODO: reason";

/// The suppression comments to add: the files' changes, and how many comments.
pub fn changes(ws: &Workspace, diagnostics: &[Diagnostic]) -> (Changes, usize) {
    let sources: HashMap<PathBuf, (FileKind, Option<&Tree>)> = ws
        .stacks
        .iter()
        .flat_map(|s| s.sources())
        .map(|(f, kind, tree)| (f.path.clone(), (kind, tree)))
        .collect();
    // (file, offset of the line's start) → codes on that line.
    let mut lines: BTreeMap<(PathBuf, u32), (crate::source::Shared, BTreeSet<&str>)> =
        BTreeMap::new();
    for d in diagnostics {
        if crate::rules::is_input_error(d.code)
            || d.code.as_str().starts_with("LINT")
            || d.file.member.is_some()
            || d.file.stamp.is_none()
        {
            continue;
        }
        let text = &d.file.text;
        let tree = sources.get(&d.file.path).and_then(|(_, t)| *t);
        let at = (statement_start(tree, d.span.start) as usize).min(text.len());
        let start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |i| i + 1) as u32;
        lines
            .entry((d.file.path.clone(), start))
            .or_insert_with(|| (d.file.clone(), BTreeSet::new()))
            .1
            .insert(d.code.as_str());
    }
    let mut edits: BTreeMap<PathBuf, (crate::source::Shared, Vec<Edit>)> = BTreeMap::new();
    let mut count = 0;
    for ((path, start), (file, codes)) in lines {
        let marker = match sources.get(&path).map(|(k, _)| k) {
            Some(FileKind::FpmMaster | FileKind::FpmPool | FileKind::PhpIni) => ";",
            Some(_) => "#",
            None if path.extension().is_some_and(|e| e == "ini") => ";",
            None => "#",
        };
        let text = &file.text;
        let indent: String = text[start as usize..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .map(|&b| b as char)
            .collect();
        let eol = crate::fix::edits::line_ending(text);
        let codes: Vec<&str> = codes.into_iter().collect();
        let comment = format!(
            "{indent}{marker} lemplint: ignore {} -- {REASON_PLACEHOLDER}{eol}",
            codes.join(",")
        );
        count += 1;
        edits
            .entry(path)
            .or_insert_with(|| (file.clone(), Vec::new()))
            .1
            .push(Edit::insert(&file, start, comment));
    }
    let changes = edits
        .into_iter()
        .map(|(path, (file, edits))| {
            let refs: Vec<&Edit> = edits.iter().collect();
            let new = crate::fix::apply::splice(&file.text, &refs);
            (
                path,
                Change {
                    original: file.text.clone(),
                    stamp: file.stamp,
                    new,
                },
            )
        })
        .collect();
    (changes, count)
}

/// Where the nginx statement holding `offset` starts (the innermost directive or entry
/// whose span holds it), so a comment never lands inside a quoted string, a Lua block or
/// between a directive's arguments; `offset` itself elsewhere.
fn statement_start(tree: Option<&Tree>, offset: u32) -> u32 {
    let Some(tree) = tree else { return offset };
    let last = tree.nodes.partition_point(|n| n.span.start <= offset);
    // Nodes are in document order: walking back from the last one starting at or before
    // `offset`, the first that still holds it is the innermost.
    tree.nodes[..last]
        .iter()
        .rev()
        .find(|n| offset < n.span.end)
        .map_or(offset, |n| n.span.start)
}

/// Writes the comments; returns the exit code.
pub fn run(args: &crate::engine::StackArgs, ws: &Workspace, diagnostics: &[Diagnostic]) -> i32 {
    let (changes, count) = changes(ws, diagnostics);
    if changes.is_empty() {
        eprintln!("No suppression comments to add.");
        return super::EXIT_OK;
    }
    let confine = crate::engine::confinement(args);
    let (written, failed) = write::commit(&confine, &changes);
    for (path, e) in &failed {
        eprintln!("error: cannot write {}: {e}", crate::escape::path(path));
    }
    eprintln!(
        "Added {count} suppression comment{} to {written} file{} (reason: `{REASON_PLACEHOLDER}`: replace it with why each finding is acceptable).",
        if count == 1 { "" } else { "s" },
        if written == 1 { "" } else { "s" },
    );
    if failed.is_empty() {
        super::EXIT_OK
    } else {
        super::EXIT_ERROR
    }
}

#[cfg(test)]
mod tests {
    use super::statement_start;

    #[test]
    fn a_comment_goes_above_the_statement_not_inside_it() {
        let text = "http {\n    log_format main '$remote_addr'\n                    '$status';\n    server_tokens on;\n}\n";
        let parsed = crate::syntax::nginx::parse(text.as_bytes());
        let at = |needle: &str| text.find(needle).unwrap() as u32;
        // A word on the continuation line of a quoted, multi-line argument list.
        assert_eq!(
            statement_start(Some(&parsed.tree), at("'$status'")),
            at("log_format")
        );
        assert_eq!(
            statement_start(Some(&parsed.tree), at("on;")),
            at("server_tokens")
        );
        assert_eq!(statement_start(Some(&parsed.tree), at("http")), 0);
        assert_eq!(statement_start(None, 7), 7);
    }
}
