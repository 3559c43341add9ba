//! Unified diffs that `git apply` accepts and that give exactly what `fix` writes.
//!
//! Files are compared as bytes, split into lines after each LF as git splits them (a
//! Latin-1 comment stays Latin-1, a CR-only file is one line), and printed as bytes. The
//! file names are the files the fixer writes (a symlink's target, through the boundary's
//! resolution), relative to the current directory, and quoted as git quotes unusual names
//! (`"a/x\tb"`, octal escapes for control and non-ASCII bytes), which `git apply` reads back.

use super::{Change, Changes};
use crate::stack::confine::Confinement;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The path as it should appear after `a/` and `b/`: the file that is written (a symlink's
/// target), relative to the current directory when it lies below it, so `git apply` at the
/// repository root finds it.
pub fn display_path(confine: &Confinement, path: &Path) -> Vec<u8> {
    let target = super::write::target(confine, path).unwrap_or_else(|_| path.to_path_buf());
    let shown = confine.shown(&target);
    let mut bytes = shown.as_os_str().as_bytes().to_vec();
    // `a/` + an absolute path would read `a//tmp/x`; git and patch -p1 want `a/tmp/x`.
    while bytes.first() == Some(&b'/') {
        bytes.remove(0);
    }
    if bytes.starts_with(b"./") {
        bytes.drain(..2);
    }
    bytes
}

/// `prefix` + `name` as git writes a file name in a patch: as is when plain, else in double
/// quotes with C escapes (git's `quote_c_style`).
pub fn quoted(prefix: &str, name: &[u8]) -> Vec<u8> {
    let needs = name
        .iter()
        .any(|&b| b < 0x20 || b == 0x7f || b >= 0x80 || b == b'"' || b == b'\\');
    let mut out = Vec::with_capacity(name.len() + prefix.len() + 2);
    if !needs {
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(name);
        return out;
    }
    out.push(b'"');
    out.extend_from_slice(prefix.as_bytes());
    for &b in name {
        match b {
            b'\x07' => out.extend_from_slice(b"\\a"),
            b'\x08' => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\x0b' => out.extend_from_slice(b"\\v"),
            b'\x0c' => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b if !(0x20..0x7f).contains(&b) => {
                out.extend_from_slice(format!("\\{b:03o}").as_bytes())
            }
            b => out.push(b),
        }
    }
    out.push(b'"');
    out
}

/// Lines as git sees them: each ends after its LF; the last may have none.
fn lines(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&b| b == b'\n').collect()
}

/// A hunk's range as diff writes it: `start,len`, the length left out when it is 1, and an
/// empty range numbered by the line before it (`0,0` at the top).
fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

/// A unified diff of one file named `name` (see [`display_path`]). `created`: the file does
/// not exist yet (the diff then comes from `/dev/null`, so `git apply` creates it).
pub fn unified(name: &[u8], old: &[u8], new: &[u8], created: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if created {
        out.extend_from_slice(b"--- /dev/null\n+++ ");
        out.extend_from_slice(&quoted("b/", name));
        out.push(b'\n');
    } else {
        out.extend_from_slice(b"--- ");
        out.extend_from_slice(&quoted("a/", name));
        out.extend_from_slice(b"\n+++ ");
        out.extend_from_slice(&quoted("b/", name));
        out.push(b'\n');
    }
    let a = lines(old);
    let b = lines(new);
    // The plain Myers ops, not `capture_diff_slices`: its Replace hook (similar 2.7) can
    // merge a Delete/Insert run into ops whose indexes overlap, and the hunk headers
    // computed from them then miscount lines, which `git apply` rejects as corrupt.
    let mut capture = similar::algorithms::Capture::new();
    let ops = match similar::algorithms::myers::diff(&mut capture, &a, 0..a.len(), &b, 0..b.len()) {
        Ok(()) => capture.into_ops(),
        Err(never) => match never {},
    };
    for group in similar::group_diff_ops(ops, 3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_start = first.old_range().start;
        let new_start = first.new_range().start;
        let old_len = last.old_range().end - old_start;
        let new_len = last.new_range().end - new_start;
        out.extend_from_slice(
            format!(
                "@@ -{} +{} @@\n",
                range(old_start, old_len),
                range(new_start, new_len)
            )
            .as_bytes(),
        );
        // Within a run of changes, the removed lines come before the added ones, as git
        // prints them (the plain Myers ops may interleave them).
        let mut added: Vec<&[u8]> = Vec::new();
        for op in &group {
            for change in op.iter_changes(&a, &b) {
                match change.tag() {
                    similar::ChangeTag::Delete => push_line(&mut out, b'-', change.value()),
                    similar::ChangeTag::Insert => added.push(change.value()),
                    similar::ChangeTag::Equal => {
                        added.drain(..).for_each(|l| push_line(&mut out, b'+', l));
                        push_line(&mut out, b' ', change.value());
                    }
                }
            }
        }
        added.drain(..).for_each(|l| push_line(&mut out, b'+', l));
    }
    out
}

fn push_line(out: &mut Vec<u8>, sign: u8, line: &[u8]) {
    out.push(sign);
    out.extend_from_slice(line);
    if !line.ends_with(b"\n") {
        out.extend_from_slice(b"\n\\ No newline at end of file\n");
    }
}

/// Every change as one patch, in path order.
pub fn write_patch(
    out: &mut dyn Write,
    confine: &Confinement,
    changes: &Changes,
) -> io::Result<()> {
    for (path, change) in changes {
        let name = display_path(confine, path);
        out.write_all(&unified(
            &name,
            &change.original,
            &change.new,
            change.creates(),
        ))?;
    }
    Ok(())
}

impl Change {
    /// The file does not exist yet: the change creates it.
    pub fn creates(&self) -> bool {
        self.stamp.is_none() && self.original.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_as_git_quotes_them() {
        assert_eq!(quoted("a/", b"etc/x.conf"), b"a/etc/x.conf");
        assert_eq!(quoted("a/", b"x\tb"), b"\"a/x\\tb\"");
        assert_eq!(quoted("b/", b"caf\xc3\xa9"), b"\"b/caf\\303\\251\"");
        assert_eq!(quoted("a/", b"back\\slash"), b"\"a/back\\\\slash\"");
    }

    #[test]
    fn bytes_are_kept_and_cr_only_files_are_one_line() {
        let d = unified(b"f", b"a\r\x0bb\xe9\rc", b"a\r\x0bb\xe9\rd", false);
        assert_eq!(
            d,
            b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\r\x0bb\xe9\rc\n\\ No newline at end of file\n+a\r\x0bb\xe9\rd\n\\ No newline at end of file\n"
        );
    }

    /// Each hunk's header counts the lines it holds: `git apply` rejects a patch as corrupt
    /// otherwise. Files built from a few distinct lines (a re-indented block repeated, as
    /// `fmt` makes them) are where similar's Replace hook used to miscount.
    #[test]
    fn hunk_headers_count_their_lines() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let words = ["}\n", "  a;\n", "    a;\n", "b {\n", "\n", "  c;\n"];
        for _ in 0..2000 {
            let mut file = || -> Vec<u8> {
                (0..next(40))
                    .flat_map(|_| words[next(words.len() as u64) as usize].bytes())
                    .collect()
            };
            let (old, new) = (file(), file());
            let patch = unified(b"f", &old, &new, false);
            let text = String::from_utf8(patch).unwrap();
            let mut want = (0, 0);
            let mut got = (0, 0);
            for line in text.lines().skip(2) {
                if let Some(h) = line.strip_prefix("@@ -") {
                    assert_eq!(got, want, "{text}");
                    let count = |r: &str| r.split_once(',').map_or(1, |(_, n)| n.parse().unwrap());
                    let (o, n) = h.trim_end_matches(" @@").split_once(" +").unwrap();
                    want = (count(o), count(n));
                    got = (0, 0);
                } else if line.starts_with('-') {
                    got.0 += 1;
                } else if line.starts_with('+') {
                    got.1 += 1;
                } else if line.starts_with(' ') {
                    got.0 += 1;
                    got.1 += 1;
                }
            }
            assert_eq!(got, want, "{text}");
        }
    }
}
