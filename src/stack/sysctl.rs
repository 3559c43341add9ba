//! The kernel settings a stack applies at boot, in the order `sysctl --system` applies them:
//! `*.conf` from `/etc/sysctl.d`, `/run/sysctl.d`, `/usr/local/lib/sysctl.d`,
//! `/usr/lib/sysctl.d`, `/lib/sysctl.d` sorted by file name (a name in an earlier directory
//! masks the same name in a later one), then `/etc/sysctl.conf`. The last assignment of a key
//! wins; every assignment is kept, with its file and line, for the rules.

use super::fs::Fs;
use crate::source::Shared;
use crate::syntax::sysctl::{self, Assignment, LineKind, Parsed};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Directories in precedence order (earlier masks later for the same file name).
const DIRS: [&str; 5] = [
    "etc/sysctl.d",
    "run/sysctl.d",
    "usr/local/lib/sysctl.d",
    "usr/lib/sysctl.d",
    "lib/sysctl.d",
];

pub struct SysctlFile {
    pub source: Shared,
    pub parsed: Parsed,
    /// Another file with the same name in an earlier directory hides this one.
    pub masked_by: Option<PathBuf>,
    /// `sysctl --system` and systemd-sysctl read it: a `*.conf` of a sysctl.d directory, or
    /// `/etc/sysctl.conf` (procps `PreloadSystem`; systemd's `sysctl.d(5)`). False for a
    /// file elsewhere in a tree laid out as a server, such as a vendor agent's own
    /// `/etc/<vendor>/sysctl.conf`: whatever applies it, and when, is not known here. In a
    /// repository of loose files (no sysctl file in a standard place) every file is taken to
    /// be deployed to one.
    pub system: bool,
    /// A file of `/usr/local/lib/sysctl.d`, `/usr/lib/sysctl.d` or `/lib/sysctl.d`: what the
    /// distribution or a package ships (systemd's `50-default.conf`, `50-pid-max.conf`), as
    /// opposed to what the administrator wrote in `/etc` or `/run`.
    pub vendor: bool,
}

/// One assignment: file index and line item.
#[derive(Clone, Copy, Debug)]
pub struct Set {
    pub file: usize,
    pub line: usize,
}

#[derive(Default)]
pub struct SysctlSet {
    /// In application order (masked files included, flagged).
    pub files: Vec<SysctlFile>,
    /// Normalised key → every assignment in application order (masked files excluded).
    pub keys: BTreeMap<String, Vec<Set>>,
}

impl SysctlSet {
    pub fn assignment(&self, s: Set) -> Option<&Assignment> {
        match &self.files[s.file].parsed.file.lines.get(s.line)?.kind {
            LineKind::Assignment(a) => Some(a),
            _ => None,
        }
    }

    /// The value the kernel ends up with for `key` (either separator), with where it is set.
    pub fn effective(&self, key: &str) -> Option<(Set, String)> {
        let s = *self
            .keys
            .get(&sysctl::normalize_key(key.as_bytes()))?
            .last()?;
        let a = self.assignment(s)?;
        Some((
            s,
            a.value_text(&self.files[s.file].source.text).into_owned(),
        ))
    }

    /// Every assignment `sysctl --system` applies to the concrete `key`, in application order:
    /// its own lines when it has any, else the glob lines matching it (`net.ipv4.conf.*.x`).
    /// systemd-sysctl never applies a glob to a key some line names explicitly, wherever that
    /// line is (`sysctl.d(5)`: "explicit settings take precedence"). Only the files it reads
    /// (`system`) count.
    pub fn applied(&self, key: &str) -> Vec<Set> {
        let key = sysctl::normalize_key(key.as_bytes());
        let system = |s: &&Set| self.files[s.file].system;
        if let Some(own) = self.keys.get(&key) {
            let own: Vec<Set> = own.iter().filter(system).copied().collect();
            if !own.is_empty() {
                return own;
            }
        }
        let mut globs: Vec<Set> = self
            .keys
            .iter()
            .filter(|(k, _)| sysctl::is_glob(k.as_bytes()) && key_matches(k, &key))
            .flat_map(|(_, sets)| sets.iter().filter(system).copied())
            .collect();
        globs.sort_by_key(|s| (s.file, s.line));
        globs
    }

    /// The text of an assignment's value.
    pub fn value_of(&self, s: Set) -> Option<String> {
        let a = self.assignment(s)?;
        Some(a.value_text(&self.files[s.file].source.text).into_owned())
    }

    /// Whether the tree ships vendor sysctl files (`/usr/lib/sysctl.d` and the like) that
    /// `sysctl --system` reads: then the distribution's defaults are in the tree, not assumed.
    pub fn ships_vendor_files(&self) -> bool {
        self.files
            .iter()
            .any(|f| f.vendor && f.system && f.masked_by.is_none())
    }

    /// [`SysctlSet::effective`] as a number, when it is one.
    pub fn effective_u64(&self, key: &str) -> Option<(Set, u64)> {
        let (s, v) = self.effective(key)?;
        v.trim().parse().ok().map(|n| (s, n))
    }
}

/// Whether a glob key (dotted, `*`/`?`/`[` inside segments as systemd's `fnmatch` with
/// `FNM_PATHNAME` reads them on the `/proc/sys` path) matches a concrete dotted key.
pub fn key_matches(pattern: &str, key: &str) -> bool {
    let (p, k): (Vec<&str>, Vec<&str>) = (pattern.split('.').collect(), key.split('.').collect());
    p.len() == k.len()
        && p.iter()
            .zip(&k)
            .all(|(p, k)| super::glob::matches(p.as_bytes(), k.as_bytes()))
}

/// Orders a stack's sysctl files as `sysctl --system` would and reads them.
pub fn load(
    fs: &dyn Fs,
    root: &Path,
    paths: &[PathBuf],
    unreadable: &mut Vec<super::model::Unread>,
) -> SysctlSet {
    let rank = |p: &Path| -> (usize, String, String) {
        let rel = p.strip_prefix(root).unwrap_or(p);
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = rel
            .parent()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        // `/etc/sysctl.conf`, or a lone `sysctl.conf` at the top of a repository; not
        // `/etc/<vendor>/sysctl.conf`.
        if name == "sysctl.conf" && (dir.is_empty() || dir == "etc" || dir.ends_with("/etc")) {
            return (2, String::new(), dir);
        }
        match DIRS
            .iter()
            .position(|d| dir == *d || dir.ends_with(&format!("/{d}")))
        {
            Some(i) => (0, name, format!("{i}")),
            // Not a standard directory (a repository's own layout): after the standard ones.
            None => (1, name, dir),
        }
    };
    let mut sorted: Vec<&PathBuf> = paths.iter().collect();
    sorted.sort_by_key(|p| rank(p));
    // A tree with a sysctl file where sysctl --system looks is laid out as the server: its
    // other sysctl files are not read by it.
    let laid_out = sorted.iter().any(|p| {
        let (group, _, dir) = rank(p);
        group == 0 || (group == 2 && !dir.is_empty())
    });
    let mut set = SysctlSet::default();
    let mut first_with_name: BTreeMap<String, PathBuf> = BTreeMap::new();
    for p in sorted {
        let mut source = match fs.source(p).1 {
            Ok(s) => s,
            Err(e) => {
                unreadable.push(super::model::Unread::new(p, &e));
                continue;
            }
        };
        let text = &source.text;
        let (group, name, slot) = rank(p);
        let system = match group {
            0 => name.ends_with(".conf"),
            1 => !laid_out,
            _ => true,
        };
        let masked_by = if group == 0 {
            match first_with_name.get(&name) {
                Some(earlier) => Some(earlier.clone()),
                None => {
                    first_with_name.insert(name, p.clone());
                    None
                }
            }
        } else {
            None
        };
        let r = crate::syntax::template::read(text, crate::syntax::template::Lang::Sysctl);
        let parsed = sysctl::parse(r.masked.as_deref().unwrap_or(text));
        // The slot is the index into DIRS: 2 and after are the vendor directories.
        let vendor = group == 0 && slot.parse::<usize>().is_ok_and(|i| i >= 2);
        let idx = set.files.len();
        if masked_by.is_none() {
            for (line, a) in
                parsed
                    .file
                    .lines
                    .iter()
                    .enumerate()
                    .filter_map(|(i, l)| match &l.kind {
                        LineKind::Assignment(a) => Some((i, a)),
                        _ => None,
                    })
            {
                set.keys
                    .entry(a.normalized_key(text))
                    .or_default()
                    .push(Set { file: idx, line });
            }
        }
        (source.holes, source.unsure) = (r.holes, r.unsure);
        set.files.push(SysctlFile {
            source: Shared::new(source),
            parsed,
            masked_by,
            system,
            vendor,
        });
    }
    set
}
