//! The fix loop: lint, apply the chosen fixes in memory, re-read and re-lint, repeat until
//! nothing changes. Nothing touches the disk here; the result is the new contents.

use super::lint::{collect_with, Findings};
use crate::engine::{StackArgs, Workspace};
use crate::fix::apply::{choose, splice};
use crate::fix::{Applicability, Change, Changes, Edit, Fix};
use crate::fxhash::FxHashMap as HashMap;
use crate::source::Stamp;
use crate::stack::fs::OverlayFs;
use crate::syntax::template;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// More passes than any real configuration needs; reaching it means two fixes undo each
/// other, which is a bug worth naming.
pub const MAX_PASSES: usize = 10;

pub struct Request<'a> {
    /// Standard input's content when the path is `-` (see `workspace::stdin_overlay`).
    pub stdin: Option<Vec<u8>>,
    pub args: &'a StackArgs,
    pub select: &'a [String],
    pub ignore: &'a [String],
    pub level: Applicability,
}

pub struct Outcome {
    /// Changed files, with the bytes (and the file) their fixes started from.
    pub changed: Changes,
    /// What was applied: (code, fix title), in order.
    pub applied: Vec<(&'static str, String)>,
    /// Files not fixed because they had syntax errors before fixing.
    pub unparsable: Vec<PathBuf>,
    /// Problems of the fixer itself (a fix that broke parsing, no convergence).
    pub bugs: Vec<String>,
    /// The findings left after the last pass (on the fixed contents).
    pub remaining: Findings,
    pub workspace: Workspace,
    /// The boundary the files were read in, which writes are checked against.
    pub confine: std::sync::Arc<crate::stack::confine::Confinement>,
}

/// Every nginx file of the workspace with its number of syntax errors, so telling a file's
/// kind is one lookup and its errors before a fix need no second parse.
fn nginx_errors(ws: &Workspace) -> HashMap<&Path, usize> {
    ws.stacks
        .iter()
        .flat_map(|s| s.nginx_files())
        .map(|f| (f.source.path.as_path(), f.parsed.errors.len()))
        .collect()
}

/// The outcome once the loop stops: the files whose contents differ from their originals,
/// and the findings of the last lint (`last`: its workspace and findings).
fn finish(
    mut fs: OverlayFs,
    originals: BTreeMap<PathBuf, (Vec<u8>, Option<Stamp>)>,
    applied: Vec<(&'static str, String)>,
    unparsable: HashSet<PathBuf>,
    bugs: Vec<String>,
    last: (Workspace, Findings),
) -> Outcome {
    let mut changed = Changes::new();
    for (path, (original, stamp)) in originals {
        if let Some(new) = fs.remove(&path) {
            if new != original {
                changed.insert(
                    path,
                    Change {
                        original,
                        stamp,
                        new,
                    },
                );
            }
        }
    }
    let mut unparsable: Vec<PathBuf> = unparsable.into_iter().collect();
    unparsable.sort();
    let (workspace, remaining) = last;
    let confine = fs.base.confinement().clone();
    Outcome {
        confine,
        changed,
        applied,
        unparsable,
        bugs,
        remaining,
        workspace,
    }
}

pub fn run(req: &Request) -> Result<Outcome, String> {
    let mut fs = OverlayFs::new(crate::engine::real_fs(req.args));
    let mut originals: BTreeMap<PathBuf, (Vec<u8>, Option<Stamp>)> = BTreeMap::new();
    if let Some(text) = &req.stdin {
        let path = PathBuf::from(crate::engine::STDIN);
        fs.insert(path.clone(), text.clone());
        originals.insert(path, (text.clone(), None));
    }
    let mut applied = Vec::new();
    let mut bugs = Vec::new();
    let mut unparsable: HashSet<PathBuf> = HashSet::new();
    let mut pass = 0;
    loop {
        let (ws, findings) = collect_with(req.args, req.select, req.ignore, None, &fs)?;
        if pass == 0 {
            // A file that does not parse is never written: its tree may be wrong.
            for d in &findings.diagnostics {
                if crate::rules::blocks_fixes(d.code) {
                    unparsable.insert(d.file.path.clone());
                }
            }
        }
        let fixes: Vec<(&'static str, &Fix)> = findings
            .diagnostics
            .iter()
            .filter_map(|d| d.fix.as_ref().map(|f| (d.code.as_str(), f)))
            .filter(|(_, f)| {
                f.applicability >= req.level && f.applicability != Applicability::DisplayOnly
            })
            // A section of an `nginx -T` dump is never written: it is a snapshot.
            .filter(|(_, f)| {
                f.edits
                    .iter()
                    .all(|e| !unparsable.contains(&e.file.path) && e.file.member.is_none())
            })
            .collect();
        if fixes.is_empty() || pass == MAX_PASSES {
            if pass == MAX_PASSES && !fixes.is_empty() {
                let codes: Vec<&str> = fixes.iter().map(|(c, _)| *c).collect();
                bugs.push(format!(
                    "fixes did not converge after {MAX_PASSES} passes ({}); this is a lemplint bug",
                    codes.join(", ")
                ));
            }
            let outcome = finish(fs, originals, applied, unparsable, bugs, (ws, findings));
            return Ok(outcome);
        }
        let only: Vec<&Fix> = fixes.iter().map(|(_, f)| *f).collect();
        let chosen = choose(&only);
        let mut by_file: BTreeMap<
            PathBuf,
            (std::sync::Arc<crate::source::SourceFile>, Vec<&Edit>),
        > = BTreeMap::new();
        for &i in &chosen {
            for e in &fixes[i].1.edits {
                by_file
                    .entry(e.file.path.clone())
                    .or_insert_with(|| (e.file.clone(), Vec::new()))
                    .1
                    .push(e);
            }
        }
        let mut broke = false;
        let mut next: Vec<(PathBuf, std::sync::Arc<crate::source::SourceFile>, Vec<u8>)> =
            Vec::new();
        let nginx = nginx_errors(&ws);
        for (path, (source, edits)) in by_file {
            let new = splice(&source.text, &edits);
            if let Some(&before) = nginx.get(path.as_path()) {
                // Read as the loader reads it: placeholders masked (see `syntax::template`).
                let masked = template::read(&new, template::Lang::Nginx).masked;
                let reparsed = crate::syntax::nginx::parse(masked.as_deref().unwrap_or(&new));
                if reparsed.errors.len() > before {
                    bugs.push(format!(
                        "a fix made {} unparsable; it was not applied (this is a lemplint bug, please report it)",
                        path.display()
                    ));
                    broke = true;
                    continue;
                }
            }
            next.push((path, source, new));
        }
        if broke {
            // Keep the last good contents and stop: re-running would choose the same fix.
            let (ws, findings) = collect_with(req.args, req.select, req.ignore, None, &fs)?;
            let outcome = finish(fs, originals, applied, unparsable, bugs, (ws, findings));
            return Ok(outcome);
        }
        for &i in &chosen {
            applied.push((fixes[i].0, fixes[i].1.title.clone()));
        }
        for (path, source, new) in next {
            // The first fix of a file starts from the bytes the rules saw, read from disk
            // with their stamp: the writer later checks the file is still exactly that.
            originals
                .entry(path.clone())
                .or_insert_with(|| (source.text.clone(), source.stamp));
            fs.insert(path, new);
        }
        pass += 1;
    }
}
