//! Unified diffs that `git apply` accepts.

use similar::TextDiff;
use std::path::Path;

/// The path as it should appear after `a/` and `b/`: relative to the current directory
/// when the file is below it (so `git apply` at the repository root finds it).
pub fn display_path(path: &Path) -> String {
    // A symlink is written through to its target, and git tracks the link itself, so the
    // diff names the target (`sites-available/x` for `sites-enabled/x`).
    let resolved = std::fs::canonicalize(path).ok();
    let path = resolved.as_deref().unwrap_or(path);
    let rel = std::env::current_dir()
        .ok()
        .and_then(|cwd| {
            let abs = std::path::absolute(path).ok()?;
            abs.strip_prefix(&cwd).ok().map(Path::to_path_buf)
        })
        .unwrap_or_else(|| path.to_path_buf());
    let s = rel.to_string_lossy().replace('\\', "/");
    // `a/` + an absolute path would read `a//tmp/x`; git and patch -p1 want `a/tmp/x`.
    let s = s.strip_prefix('/').map(String::from).unwrap_or(s);
    s.strip_prefix("./").map(String::from).unwrap_or(s)
}

/// A unified diff of one file, named `name` (see [`display_path`]). `created`: the file does
/// not exist yet (the diff then comes from `/dev/null`, so `git apply` creates it). Bytes are
/// compared as (lossy) text line by line; a missing final newline is marked the way `diff`
/// and git mark it.
pub fn unified(name: &str, old: &[u8], new: &[u8], created: bool) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let mut out = String::new();
    if created {
        out.push_str(&format!("--- /dev/null\n+++ b/{name}\n"));
    } else {
        out.push_str(&format!("--- a/{name}\n+++ b/{name}\n"));
    }
    let diff = TextDiff::from_lines(old.as_ref(), new.as_ref());
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
