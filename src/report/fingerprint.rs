//! Where a finding is, said so that it survives edits elsewhere in the file: repository-
//! relative paths and content fingerprints, for the code-scanning formats (`sarif`'s
//! `partialFingerprints`, `gitlab`'s `fingerprint`) and the baseline (`lint --baseline`).
//!
//! **Paths** are relative to the repository root ([`Root`]): the git work tree above the
//! linted paths, or the current directory outside one — also when a path was given
//! absolute, so a run in a subdirectory or with `$PWD/etc` names files as the repository
//! does. A file outside the root keeps its absolute path.
//!
//! **Fingerprints** never include a line or column number. They hash, each followed by a
//! NUL byte: the rule's code, the repository-relative path (forward slashes), the text of
//! the line the finding starts on with its whitespace collapsed to single spaces and
//! trimmed (the directive as written, so a comment line inserted above changes nothing
//! and editing the flagged line changes the fingerprint), and the message with the
//! numbers that name other lines replaced by `N` (`line 12`, `www.conf:12`: a message
//! pointing at an earlier line would otherwise move with it). Identical findings in one
//! file (same code, text and message) are told apart by their order in the file: the
//! second hashes `#2` as well, and so on. The hash is 64-bit FNV-1a written out as 16
//! lowercase hex digits: std's hashers promise no stable output across Rust releases,
//! and a fingerprint must not change between pipelines.

use crate::diagnostic::Diagnostic;
use crate::source::SourceFile;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// 64-bit FNV-1a.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The directory paths are made relative to, and the current directory that relative
/// paths start from.
#[derive(Clone, Debug)]
pub struct Root {
    pub root: PathBuf,
    cwd: PathBuf,
}

impl Root {
    /// `root` (the current directory when `None`); relative paths are taken from the
    /// current directory.
    pub fn new(root: Option<&Path>) -> Root {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let root = match root {
            Some(r) => normalize(&cwd.join(r)),
            None => cwd.clone(),
        };
        Root { root, cwd }
    }

    /// The repository root for a run on `paths`: the git work tree holding the first of
    /// them (its real path), else the current directory.
    pub fn detect(paths: &[PathBuf]) -> PathBuf {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let first = paths
            .iter()
            .find(|p| p.as_os_str() != "-")
            .map_or_else(|| cwd.clone(), |p| cwd.join(p));
        let real = std::fs::canonicalize(&first).unwrap_or_else(|_| normalize(&first));
        crate::stack::confine::work_tree_of(&real).unwrap_or(cwd)
    }

    /// `path` (absolute, or relative to the current directory) relative to the root, or
    /// `None` when it is outside.
    pub fn relative(&self, path: &Path) -> Option<PathBuf> {
        let abs = normalize(&self.cwd.join(path));
        abs.strip_prefix(&self.root).ok().map(Path::to_path_buf)
    }

    /// The path a report names: relative to the root with forward slashes, or absolute
    /// when outside it.
    pub fn shown(&self, path: &Path) -> String {
        match self.relative(path) {
            Some(rel) => rel.to_string_lossy().into_owned(),
            None => normalize(&self.cwd.join(path))
                .to_string_lossy()
                .into_owned(),
        }
    }
}

/// `.` and `..` removed lexically (the paths are real paths already; only a relative
/// `./x` or `../x` given by the user needs it).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The line `offset` is on, whitespace collapsed and trimmed.
pub fn line_text(file: &SourceFile, offset: u32) -> String {
    let start = (file.line_start(file.line_of(offset)) as usize).min(file.text.len());
    let rest = &file.text[start..];
    let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |e| e);
    let line = String::from_utf8_lossy(&rest[..end]);
    line.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}

/// The message with line numbers replaced by `N`: the digits after `line ` / `lines `,
/// and after a `:` that follows a letter (`www.conf:12`, not `127.0.0.1:9000`).
pub fn message_key(message: &str) -> String {
    let bytes = message.as_bytes();
    let mut out = String::with_capacity(message.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let after_line = message[..i].ends_with("line ") || message[..i].ends_with("lines ");
        let after_colon = i >= 2 && bytes[i - 1] == b':' && bytes[i - 2].is_ascii_alphabetic();
        if b.is_ascii_digit() && (after_line || after_colon) {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            out.push('N');
            continue;
        }
        let len = utf8_len(b);
        out.push_str(&message[i..(i + len).min(message.len())]);
        i += len;
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

/// The fingerprint of one finding from its parts (`occurrence` 1 for the first finding
/// with these parts in its file).
pub fn fingerprint(code: &str, path: &str, text: &str, message: &str, occurrence: usize) -> String {
    let mut key = Vec::with_capacity(code.len() + path.len() + text.len() + message.len() + 8);
    for part in [code, path, text, &message_key(message)] {
        key.extend_from_slice(part.as_bytes());
        key.push(0);
    }
    if occurrence > 1 {
        key.extend_from_slice(format!("#{occurrence}").as_bytes());
        key.push(0);
    }
    format!("{:016x}", fnv1a64(&key))
}

/// A finding's path for reports: the real file (a symlink's target, a dump's container)
/// relative to `root`.
pub fn path_of(root: &Root, d: &Diagnostic) -> String {
    root.shown(d.file.real_path())
}

/// The fingerprints of `diagnostics`, in order. Findings are numbered among the identical
/// ones in their order, which is the order in the file.
pub fn fingerprints(root: &Root, diagnostics: &[Diagnostic]) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    diagnostics
        .iter()
        .map(|d| {
            let path = path_of(root, d);
            let text = line_text(&d.file, d.span.start);
            let first = fingerprint(d.code.as_str(), &path, &text, &d.message, 1);
            let n = seen.entry(first.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                first
            } else {
                fingerprint(d.code.as_str(), &path, &text, &d.message, *n)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_test_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn messages_lose_line_numbers_only() {
        assert_eq!(
            message_key("shadowed by line 12 and etc/sysctl.d/x.conf:3, listen 127.0.0.1:9000"),
            "shadowed by line N and etc/sysctl.d/x.conf:N, listen 127.0.0.1:9000"
        );
        assert_eq!(message_key("é line 7é"), "é line Né");
        assert_eq!(message_key("2 workers × 64MiB"), "2 workers × 64MiB");
    }

    #[test]
    fn relative_to_the_root_also_when_absolute() {
        let root = Root {
            root: PathBuf::from("/repo"),
            cwd: PathBuf::from("/repo/sub"),
        };
        assert_eq!(
            root.shown(Path::new("etc/nginx.conf")),
            "sub/etc/nginx.conf"
        );
        assert_eq!(root.shown(Path::new("/repo/a/b.conf")), "a/b.conf");
        assert_eq!(root.shown(Path::new("./x/../y.conf")), "sub/y.conf");
        assert_eq!(
            root.shown(Path::new("/elsewhere/c.conf")),
            "/elsewhere/c.conf"
        );
    }
}
