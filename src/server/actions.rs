//! Code actions: each finding's fix (titled as `lemplint fix` titles it), a suppression
//! comment with a reason to fill in, and every safe fix of the file at once.

use super::lines::LineIndex;
use super::{real, real_of, uri, Analysis};
use crate::diagnostic::Diagnostic;
use crate::fix::{Applicability, Edit, Fix};
use lsp_types as lsp;
use std::collections::HashMap;
use std::path::Path;

/// What a suppression's reason says until the user writes one.
pub const REASON_PLACEHOLDER: &str = "<why this is fine here>";

pub fn code_actions(
    analysis: Option<&Analysis>,
    p: &lsp::CodeActionParams,
) -> Vec<lsp::CodeActionOrCommand> {
    let Some(a) = analysis else { return Vec::new() };
    let Some(path) = uri::to_path(p.text_document.uri.as_str()) else {
        return Vec::new();
    };
    let path = real(&path);
    let in_file: Vec<&Diagnostic> = a
        .diagnostics
        .iter()
        .filter(|d| real_of(&d.file) == path)
        .collect();
    let only = p.context.only.as_ref();
    let wants = |kind: &lsp::CodeActionKind| {
        only.is_none_or(|o| o.iter().any(|k| kind.as_str().starts_with(k.as_str())))
    };
    let mut out = Vec::new();
    let mut files = super::FileCache::default();
    if wants(&lsp::CodeActionKind::QUICKFIX) {
        let idx = LineIndex::new(in_file.first().map_or(&[][..], |d| &d.file.text[..]));
        let want = (idx.offset(p.range.start), idx.offset(p.range.end));
        for d in in_file.iter().filter(|d| overlaps(d, want)) {
            let diag = super::to_lsp(d, &mut files);
            if let Some(fix) = d
                .fix
                .as_ref()
                .filter(|f| f.applicability != Applicability::DisplayOnly)
            {
                out.push(action(
                    fix.title.clone(),
                    lsp::CodeActionKind::QUICKFIX,
                    vec![diag.clone()],
                    &fix.edits,
                    fix.applicability == Applicability::Safe,
                ));
            }
            if let Some(edit) = suppression(a, d) {
                out.push(action(
                    format!("Suppress {} here (with a reason)", d.code),
                    lsp::CodeActionKind::QUICKFIX,
                    vec![diag],
                    &[edit],
                    false,
                ));
            }
        }
    }
    if wants(&lsp::CodeActionKind::SOURCE_FIX_ALL) || wants(&lsp::CodeActionKind::QUICKFIX) {
        if let Some(all) = fix_all(&in_file, &path) {
            out.push(all);
        }
    }
    out.into_iter()
        .map(lsp::CodeActionOrCommand::CodeAction)
        .collect()
}

/// Whether a finding's span touches the requested range (an empty range at the cursor
/// counts when the cursor is inside or at either end).
fn overlaps(d: &Diagnostic, (from, to): (u32, u32)) -> bool {
    d.span.start <= to && from <= d.span.end
}

fn action(
    title: String,
    kind: lsp::CodeActionKind,
    diagnostics: Vec<lsp::Diagnostic>,
    edits: &[Edit],
    preferred: bool,
) -> lsp::CodeAction {
    lsp::CodeAction {
        title,
        kind: Some(kind),
        diagnostics: Some(diagnostics),
        edit: Some(workspace_edit(edits)),
        is_preferred: preferred.then_some(true),
        ..Default::default()
    }
}

/// Edits as LSP text edits, per file, positions in the text the fix was made for.
// `WorkspaceEdit::changes` is keyed by `Uri`, whose parsed form caches lazily.
#[allow(clippy::mutable_key_type)]
fn workspace_edit(edits: &[Edit]) -> lsp::WorkspaceEdit {
    let mut changes: HashMap<lsp::Uri, Vec<lsp::TextEdit>> = HashMap::new();
    let mut files = super::FileCache::default();
    for e in edits {
        let Some(uri) = files.get(&e.file).uri().cloned() else {
            continue;
        };
        let range = files.range(&e.file, e.range);
        changes
            .entry(uri)
            .or_default()
            .push(lsp::TextEdit::new(range, e.content.clone()));
    }
    lsp::WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    }
}

/// A `lemplint: ignore CODE -- reason` comment on its own line above the finding's line,
/// indented like it. None for what cannot be suppressed (syntax errors, unreadable files).
fn suppression(a: &Analysis, d: &Diagnostic) -> Option<Edit> {
    if crate::rules::is_input_error(d.code) {
        return None;
    }
    // PHP-FPM and php.ini comments start with `;`, nginx and sysctl ones with `#`.
    let fpm = a.workspace.stacks.iter().any(|s| {
        s.fpm_files()
            .iter()
            .any(|f| std::sync::Arc::ptr_eq(&f.source, &d.file))
    });
    let marker = if fpm || is_ini(&d.file.path) {
        ";"
    } else {
        "#"
    };
    let text = &d.file.text;
    let start = memchr::memrchr(b'\n', &text[..d.span.start as usize]).map_or(0, |i| i + 1);
    let indent: String = text[start..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .map(|&b| b as char)
        .collect();
    let eol = crate::fix::edits::line_ending(text);
    Some(Edit::insert(
        &d.file,
        start as u32,
        format!(
            "{indent}{marker} lemplint: ignore {} -- {REASON_PLACEHOLDER}{eol}",
            d.code
        ),
    ))
}

fn is_ini(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ini")
}

/// Every safe fix of the file that edits only it, as many as can be applied together.
fn fix_all(in_file: &[&Diagnostic], path: &Path) -> Option<lsp::CodeAction> {
    let fixes: Vec<&Fix> = in_file
        .iter()
        .filter_map(|d| d.fix.as_ref())
        .filter(|f| f.applicability == Applicability::Safe)
        .filter(|f| f.edits.iter().all(|e| real_of(&e.file) == path))
        .collect();
    if fixes.is_empty() {
        return None;
    }
    let chosen = crate::fix::apply::choose(&fixes);
    let edits: Vec<Edit> = chosen
        .iter()
        .flat_map(|&i| fixes[i].edits.iter().cloned())
        .collect();
    Some(lsp::CodeAction {
        title: "Fix all safe problems in this file (lemplint)".into(),
        kind: Some(lsp::CodeActionKind::SOURCE_FIX_ALL),
        edit: Some(workspace_edit(&edits)),
        ..Default::default()
    })
}
