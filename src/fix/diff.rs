//! Unified diffs that `git apply` accepts.

use similar::TextDiff;
use std::path::Path;

/// The path as it should appear after `a/` and `b/`: relative to the current directory
/// when the file is below it (so `git apply` at the repository root finds it).
pub fn display_path(path: &Path) -> String {
    let rel = std::env::current_dir()
        .ok()
        .and_then(|cwd| {
            let abs = std::path::absolute(path).ok()?;
            abs.strip_prefix(&cwd).ok().map(Path::to_path_buf)
        })
        .unwrap_or_else(|| path.to_path_buf());
    let s = rel.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").map(String::from).unwrap_or(s)
}

/// A unified diff of one file. Bytes are compared as (lossy) text line by line; a missing
/// final newline is marked the way `diff` and git mark it.
pub fn unified(path: &Path, old: &[u8], new: &[u8]) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let name = display_path(path);
    let diff = TextDiff::from_lines(old.as_ref(), new.as_ref());
    let mut out = String::new();
    if path.exists() || path == Path::new(crate::workspace::STDIN) {
        out.push_str(&format!("--- a/{name}\n+++ b/{name}\n"));
    } else {
        // A file the fix creates: git apply creates it from /dev/null.
        out.push_str(&format!("--- /dev/null\n+++ b/{name}\n"));
    }
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        out.push_str(&format!("{}\n", hunk.header()));
        for change in hunk.iter_changes() {
            let sign = match change.tag() {
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
                similar::ChangeTag::Equal => ' ',
            };
            out.push(sign);
            let line = change.value();
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}
