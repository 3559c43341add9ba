//! Globs as nginx and php-fpm expand them: `glob(3)` with no flags, on bytes.
//!
//! `*` and `?` match within one path component, never `/`; a leading `.` must be matched by
//! a literal `.`; `[…]` is a bracket expression (`!` or `^` negates, ranges, `[:class:]`); a
//! backslash makes the next character literal; `**` is two stars, not a recursive walk.
//! Results are sorted bytewise (nginx runs in the C locale). Names are bytes: a file name
//! that is not UTF-8 is matched and returned like any other.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// Whether nginx treats an include argument as a pattern (`strpbrk(name, "*?[")`).
pub fn is_pattern(path: &[u8]) -> bool {
    path.iter().any(|b| matches!(b, b'*' | b'?' | b'['))
}

/// Whether a component has an unescaped wildcard (else it names one entry literally).
fn has_magic(c: &[u8]) -> bool {
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            b'\\' => i += 2,
            b'*' | b'?' => return true,
            b'[' if bracket_end(c, i).is_some() => return true,
            _ => i += 1,
        }
    }
    false
}

/// A literal component with its backslashes removed.
fn unescape(c: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(c.len());
    let mut i = 0;
    while i < c.len() {
        if c[i] == b'\\' && i + 1 < c.len() {
            i += 1;
        }
        out.push(c[i]);
        i += 1;
    }
    out
}

/// The index of the `]` closing the bracket expression opened at `open`, if it closes.
fn bracket_end(p: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if matches!(p.get(i), Some(b'!' | b'^')) {
        i += 1;
    }
    // A `]` right after the opening (or the negation) is a member, not the end.
    if p.get(i) == Some(&b']') {
        i += 1;
    }
    while i < p.len() {
        match p[i] {
            b']' => return Some(i),
            b'[' if p.get(i + 1) == Some(&b':') => {
                // `[:alpha:]`: skip to its `:]`.
                let rest = &p[i + 2..];
                match rest.windows(2).position(|w| w == b":]") {
                    Some(k) => i += 2 + k + 2,
                    None => i += 1,
                }
            }
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

fn class_matches(class: &[u8], b: u8) -> bool {
    match class {
        b"alpha" => b.is_ascii_alphabetic(),
        b"digit" => b.is_ascii_digit(),
        b"alnum" => b.is_ascii_alphanumeric(),
        b"upper" => b.is_ascii_uppercase(),
        b"lower" => b.is_ascii_lowercase(),
        b"space" => b.is_ascii_whitespace() || b == 0x0b,
        b"blank" => b == b' ' || b == b'\t',
        b"punct" => b.is_ascii_punctuation(),
        b"print" => (0x20..0x7f).contains(&b),
        b"graph" => (0x21..0x7f).contains(&b),
        b"cntrl" => b < 0x20 || b == 0x7f,
        b"xdigit" => b.is_ascii_hexdigit(),
        _ => false,
    }
}

/// Whether byte `b` is a member of the bracket expression `p[open..=close]`.
fn bracket_matches(p: &[u8], open: usize, close: usize, b: u8) -> bool {
    let mut i = open + 1;
    let negate = matches!(p[i], b'!' | b'^');
    if negate {
        i += 1;
    }
    let mut hit = false;
    while i < close {
        if p[i] == b'[' && p.get(i + 1) == Some(&b':') {
            if let Some(k) = p[i + 2..close + 1].windows(2).position(|w| w == b":]") {
                hit |= class_matches(&p[i + 2..i + 2 + k], b);
                i += 2 + k + 2;
                continue;
            }
        }
        let (lo, next) = if p[i] == b'\\' && i + 1 < close {
            (p[i + 1], i + 2)
        } else {
            (p[i], i + 1)
        };
        if next + 1 < close && p[next] == b'-' {
            let (hi, after) = if p[next + 1] == b'\\' && next + 2 < close {
                (p[next + 2], next + 3)
            } else {
                (p[next + 1], next + 2)
            };
            hit |= lo <= b && b <= hi;
            i = after;
        } else {
            hit |= lo == b;
            i = next;
        }
    }
    hit != negate
}

/// `fnmatch(pattern, name, FNM_PERIOD)` for one component: whether `name` matches.
pub fn matches(pattern: &[u8], name: &[u8]) -> bool {
    // A leading dot is matched only by a literal dot.
    if name.first() == Some(&b'.') && !matches!(pattern, [b'.', ..] | [b'\\', b'.', ..]) {
        return false;
    }
    // Iterative matching with one backtrack point (the last `*`): linear in practice and
    // at worst pattern × name, both bounded by a file name's length.
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        let step = match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
                continue;
            }
            Some(b'?') => Some(p + 1),
            Some(b'[') => match bracket_end(pattern, p) {
                Some(close) if bracket_matches(pattern, p, close, name[n]) => Some(close + 1),
                Some(_) => None,
                None => (name[n] == b'[').then_some(p + 1),
            },
            Some(b'\\') if p + 1 < pattern.len() => (pattern[p + 1] == name[n]).then_some(p + 2),
            Some(&c) => (c == name[n]).then_some(p + 1),
            None => None,
        };
        match step {
            Some(next) => {
                p = next;
                n += 1;
            }
            None => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// Whether a whole path matches a whole pattern, component by component.
pub fn matches_path(pattern: &Path, path: &Path) -> bool {
    let pc: Vec<Component> = pattern.components().collect();
    let nc: Vec<Component> = path.components().collect();
    pc.len() == nc.len()
        && pc.iter().zip(&nc).all(|(p, n)| match (p, n) {
            (Component::Normal(p), Component::Normal(n)) => matches(p.as_bytes(), n.as_bytes()),
            (p, n) => p == n,
        })
}

/// One entry of a directory listing.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: OsString,
    /// `Some(true)` for a directory, `Some(false)` for anything else, `None` for a symlink
    /// (whose target the caller resolves).
    pub dir: Option<bool>,
}

/// What listing a directory gave.
pub enum Listing {
    /// The entries, and the directory's device and inode when known: a directory met again
    /// below itself (through a link to `.` or to a parent) is a loop, not descended into.
    Entries(Vec<Entry>, Option<(u64, u64)>),
    /// The directory may not be read (outside the linted tree): its would-be matches are
    /// returned as one path, the pattern under it, so that reading it reports the refusal.
    Refused,
    /// Not there, or not a directory.
    Missing,
}

// A glob's cost is bounded by the tree it walks, not by a fixed number: without links a
// walk lists each directory and names each entry once, and only links to a directory from
// several places (a loop is never entered: see [`expand`]) make it list the same directory,
// and name the same files, over and over. So a glob may list each distinct directory it
// reached PER_DISTINCT times and name each distinct entry PER_DISTINCT times (with floors
// for small trees): linear in the tree's size whatever its links, and a large tree without
// such links is never refused.

/// Listings and paths allowed per distinct directory and entry the walk reached.
pub const PER_DISTINCT: usize = 16;
/// Directories any glob may list, whatever the tree.
pub const MIN_LISTINGS: usize = 10_000;
/// Paths any glob may name, whatever the tree.
pub const MIN_MATCHES: usize = 10_000;
/// Never more paths than a configuration may read files ([`super::nginx::MAX_FILES`]): a
/// glob past it could not be followed anyway.
pub const MAX_MATCHES: usize = super::nginx::MAX_FILES;

/// A glob that would list or match more than its budget: an input error naming the glob,
/// never a silently shortened list (a file left out can hide a finding).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge {
    /// `directories` (listed) or `paths` (matched).
    pub what: &'static str,
    /// The budget exceeded.
    pub limit: usize,
    /// The distinct directories or entries of the tree it was proportional to.
    pub distinct: usize,
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.what == "paths" {
            "matches"
        } else {
            "lists"
        };
        let of = if self.what == "paths" {
            "entries"
        } else {
            "directories"
        };
        write!(
            f,
            "{verb} more than {} {}: links reach the tree's {} distinct {of} over and over (a glob may take {PER_DISTINCT} times the tree it walks)",
            self.limit, self.what, self.distinct
        )
    }
}

/// The budget for `distinct` things of the tree: PER_DISTINCT each, at least `floor`.
fn budget(distinct: usize, floor: usize, ceiling: usize) -> usize {
    distinct.saturating_mul(PER_DISTINCT).clamp(floor, ceiling)
}

impl std::error::Error for TooLarge {}

/// The walk's budget and the directories on its current path.
struct Walk<'a> {
    list: &'a mut dyn FnMut(&Path) -> Listing,
    out: Vec<PathBuf>,
    listings: usize,
    /// Device and inode of each directory from the first listed down to the current one.
    path: Vec<(u64, u64)>,
    /// Every directory listed (by device and inode), and the entries they hold together:
    /// the size of the tree the budgets are proportional to.
    distinct: std::collections::HashSet<(u64, u64)>,
    entries: usize,
}

/// Expands `pattern` with `list` answering for directories, as `glob(3)` would: sorted, only
/// existing entries, wildcards in directory components descend only into directories.
///
/// Unlike `glob(3)`, a directory is not descended into from below itself (eight links to
/// `.` under `*/*/*/*/*/*/*/*/*/*` are 8¹⁰ paths to the same files): the paths through such
/// a loop name files reached without it. Past its budget (proportional to the distinct
/// directories and entries it reached) the glob is refused.
pub fn expand(
    pattern: &Path,
    list: &mut dyn FnMut(&Path) -> Listing,
) -> Result<Vec<PathBuf>, TooLarge> {
    let mut base = PathBuf::new();
    let mut comps: Vec<&OsStr> = Vec::new();
    for c in pattern.components() {
        match c {
            Component::Normal(n) if comps.is_empty() && !has_magic(n.as_bytes()) => {
                base.push(OsStr::from_bytes(&unescape(n.as_bytes())))
            }
            Component::Normal(n) => comps.push(n),
            other if comps.is_empty() => base.push(other.as_os_str()),
            // `.` and `..` after a wildcard: glob takes them literally.
            other => comps.push(other.as_os_str()),
        }
    }
    if comps.is_empty() {
        return Ok(Vec::new());
    }
    let mut w = Walk {
        list,
        out: Vec::new(),
        listings: 0,
        path: Vec::new(),
        distinct: std::collections::HashSet::new(),
        entries: 0,
    };
    w.walk(&base, &comps)?;
    let mut out = w.out;
    out.sort_by(|a, b| a.as_os_str().as_bytes().cmp(b.as_os_str().as_bytes()));
    Ok(out)
}

impl Walk<'_> {
    fn push(&mut self, path: PathBuf) -> Result<(), TooLarge> {
        let limit = budget(self.entries, MIN_MATCHES, MAX_MATCHES);
        if self.out.len() >= limit {
            return Err(TooLarge {
                what: "paths",
                limit,
                distinct: self.entries,
            });
        }
        self.out.push(path);
        Ok(())
    }

    fn walk(&mut self, base: &Path, comps: &[&OsStr]) -> Result<(), TooLarge> {
        let Some((c, rest)) = comps.split_first() else {
            return Ok(());
        };
        let dir = if base.as_os_str().is_empty() {
            Path::new(".")
        } else {
            base
        };
        self.listings += 1;
        // Counted before this listing: a directory first met here may not pay for itself.
        let limit = budget(self.distinct.len(), MIN_LISTINGS, usize::MAX);
        if self.listings > limit {
            return Err(TooLarge {
                what: "directories",
                limit,
                distinct: self.distinct.len(),
            });
        }
        let (entries, id) = match (self.list)(dir) {
            Listing::Entries(e, id) => (e, id),
            Listing::Missing => return Ok(()),
            Listing::Refused => {
                let mut placeholder = base.to_path_buf();
                placeholder.extend(comps.iter());
                return self.push(placeholder);
            }
        };
        if let Some(id) = id {
            if self.path.contains(&id) {
                return Ok(());
            }
            self.path.push(id);
            // A directory without identity (none is, read from disk) cannot be told apart
            // from one listed before: it adds nothing to the budget.
            if self.distinct.insert(id) {
                self.entries += entries.len();
            }
        }
        let c = c.as_bytes();
        let literal = (!has_magic(c)).then(|| unescape(c));
        let mut result = Ok(());
        for e in entries {
            let name = e.name.as_bytes();
            let hit = match &literal {
                Some(l) => l == name,
                None => name != b"." && name != b".." && matches(c, name),
            };
            if !hit {
                continue;
            }
            let path = base.join(&e.name);
            result = if rest.is_empty() {
                self.push(path)
            } else if e.dir != Some(false) {
                self.walk(&path, rest)
            } else {
                Ok(())
            };
            if result.is_err() {
                break;
            }
        }
        if id.is_some() {
            self.path.pop();
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnmatch_rules() {
        assert!(matches(b"*.conf", b"a.conf"));
        assert!(!matches(b"*.conf", b".hidden.conf"));
        assert!(matches(b".*.conf", b".hidden.conf"));
        assert!(matches(b"a?c", b"abc"));
        assert!(!matches(b"a?c", b"ac"));
        assert!(matches(b"[ab]x", b"bx"));
        assert!(matches(b"[!ab]x", b"cx"));
        assert!(!matches(b"[^ab]x", b"ax"));
        assert!(matches(b"[a-c]", b"b"));
        assert!(matches(b"[]]", b"]"));
        assert!(matches(b"[[:digit:]]0", b"50"));
        assert!(matches(b"x[", b"x["));
        assert!(matches(b"\\*", b"*"));
        assert!(!matches(b"\\*", b"a"));
        assert!(matches(b"**", b"abc"));
        assert!(matches(b"*a*b*c*", b"xxaxxbxxcxx"));
        assert!(!matches(b"*a*b*c*d", b"xxaxxbxxcxx"));
        assert!(matches(b"*", b"caf\xe9"));
        assert!(matches(b"caf?", b"caf\xe9"));
    }

    #[test]
    fn expansion_is_sorted_per_component_and_does_not_recurse() {
        use std::collections::BTreeMap;
        let tree: BTreeMap<&str, Vec<(&str, bool)>> = BTreeMap::from([
            (
                "/c",
                vec![
                    ("b.conf", false),
                    ("a.conf", false),
                    ("sub", true),
                    (".h.conf", false),
                ],
            ),
            ("/c/sub", vec![("x.conf", false)]),
        ]);
        let mut list = |d: &Path| match tree.get(d.to_str().unwrap()) {
            Some(v) => Listing::Entries(
                v.iter()
                    .map(|(n, d)| Entry {
                        name: (*n).into(),
                        dir: Some(*d),
                    })
                    .collect(),
                None,
            ),
            None => Listing::Missing,
        };
        let got = expand(Path::new("/c/*.conf"), &mut list).unwrap();
        assert_eq!(
            got,
            [PathBuf::from("/c/a.conf"), PathBuf::from("/c/b.conf")]
        );
        // `**` is not recursive: it matches names in one directory, like `*`.
        let got = expand(Path::new("/c/**"), &mut list).unwrap();
        assert_eq!(got.len(), 3);
        let got = expand(Path::new("/c/*/x.conf"), &mut list).unwrap();
        assert_eq!(got, [PathBuf::from("/c/sub/x.conf")]);
        assert!(expand(Path::new("/missing/*"), &mut list)
            .unwrap()
            .is_empty());
    }

    /// A directory whose every entry is a link to itself: no path goes through it twice,
    /// and a tree too wide for the caps is refused, not cut short.
    #[test]
    fn loops_are_not_followed_and_the_caps_hold() {
        let mut listed = 0;
        let mut list = |d: &Path| {
            listed += 1;
            let looped = d.starts_with("/c");
            Listing::Entries(
                (0..8)
                    .map(|i| Entry {
                        name: format!("l{i}").into(),
                        dir: None,
                    })
                    .chain([Entry {
                        name: "a.conf".into(),
                        dir: Some(false),
                    }])
                    .collect(),
                looped.then_some((1, 1)),
            )
        };
        let got = expand(Path::new("/c/*/*/*/*/*/*/*/*/*/*/*.conf"), &mut list).unwrap();
        assert!(got.is_empty());
        assert_eq!(listed, 9, "/c, then each link once");
        // Without identities (no loop seen), the listings are capped.
        let mut list = |_: &Path| {
            Listing::Entries(
                (0..8)
                    .map(|i| Entry {
                        name: format!("l{i}").into(),
                        dir: None,
                    })
                    .collect(),
                None,
            )
        };
        let err = expand(Path::new("/c/*/*/*/*/*/*/*/*/*/*/*.conf"), &mut list).unwrap_err();
        assert_eq!(
            err,
            TooLarge {
                what: "directories",
                limit: MIN_LISTINGS,
                distinct: 0
            }
        );
    }

    /// `/t` holds `n` directories `dk`, each holding a directory `s` with a file `a.conf`,
    /// and then a directory `zz` of `m` links `xj` to `d(j mod n)`.
    fn linked(n: u64, m: u64) -> impl FnMut(&Path) -> Listing {
        move |d: &Path| {
            let rel: Vec<String> = d
                .strip_prefix("/t")
                .unwrap()
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let num = |c: &str| c[1..].parse::<u64>().unwrap();
            let dir = |name: String| Entry {
                name: name.into(),
                dir: None,
            };
            let (id, entries): (u64, Vec<Entry>) = match rel.as_slice() {
                [] => (
                    0,
                    (0..n)
                        .map(|k| dir(format!("d{k}")))
                        .chain([dir("zz".into())])
                        .collect(),
                ),
                [zz] if zz == "zz" => (2 * n + 1, (0..m).map(|j| dir(format!("x{j}"))).collect()),
                [zz, x] if zz == "zz" => (1 + num(x) % n, vec![dir("s".into())]),
                [dk] => (1 + num(dk), vec![dir("s".into())]),
                [dk, _] => (
                    1 + n + num(dk),
                    vec![Entry {
                        name: "a.conf".into(),
                        dir: Some(false),
                    }],
                ),
                _ => return Listing::Missing,
            };
            Listing::Entries(entries, Some((1, id)))
        }
    }

    /// The budgets follow the tree: a large tree walked once is never refused, however far
    /// past the floors; links that list a tree over and over are, at a limit proportional
    /// to the tree (ten times the tree, ten times the limit).
    #[test]
    fn the_budgets_are_proportional_to_the_tree() {
        let glob = Path::new("/t/*/*/*.conf");
        // 60,000 directories and their 60,000 subdirectories, each listed once: twelve
        // times the floor of listings.
        let got = expand(glob, &mut linked(60_000, 0)).unwrap();
        assert_eq!(got.len(), 60_000);
        // 1,000 directories (2,002 distinct with their subdirectories, `/t` and `zz`):
        // links that list them 30,000 times more stay within 16 times the tree…
        let got = expand(glob, &mut linked(1_000, 30_000)).unwrap();
        assert_eq!(got.len(), 1_000);
        // …40,000 times more do not.
        let err = expand(glob, &mut linked(1_000, 40_000)).unwrap_err();
        assert_eq!((err.what, err.distinct), ("directories", 2_002));
        assert_eq!(err.limit, 2_002 * PER_DISTINCT);
        // Ten times the tree, ten times the limit.
        let got = expand(glob, &mut linked(10_000, 300_000)).unwrap();
        assert_eq!(got.len(), 10_000);
        let err = expand(glob, &mut linked(10_000, 400_000)).unwrap_err();
        assert_eq!(err.limit, 20_002 * PER_DISTINCT);
        assert_eq!(
            err.to_string(),
            "lists more than 320032 directories: links reach the tree's 20002 distinct directories over and over (a glob may take 16 times the tree it walks)"
        );
    }
}
