//! When one regex matches every subject another matches, decided for the simple patterns
//! location regexes mostly are: each branch a finite set of literal strings
//! (`\.(php|html)`, `^/api/(v1|v2)/`), optionally anchored at the start (`^`, `\A`) and the
//! end (`$`, `\Z`, `\z`). Anything else (classes of several bytes, quantifiers other than
//! `{n}`, lookarounds, backreferences, multiline anchors) is not simple: no answer.
//!
//! For such patterns the test is exact in one direction (sound): `a` covers `b` when
//! every string matching `b` contains a match of `a` at the place `a`'s anchors demand —
//! an unanchored literal inside `b`'s literal, a `$`-anchored one at its end (with `b`
//! anchored there too, no more loosely: `$` also matches before a final newline, `\z`
//! does not), and so on. No "yes" is ever a guess; a "no" may be one.
//!
//! Cost: a pattern expands to at most [`MAX_STRINGS`] strings of at most [`MAX_LEN`]
//! bytes; [`Index`] answers "which earlier pattern covers this one?" with one hash lookup
//! per substring of each string, so a level of thousands of regexes is not compared pair
//! by pair.

use crate::analysis::pcre::{Assertion, GroupKind, Kind, Node, Regex};
use crate::fxhash::FxHashMap;
use std::rc::Rc;

pub const MAX_STRINGS: usize = 32;
pub const MAX_LEN: usize = 64;

/// One byte of a literal: the byte (lowercase when caseless) and whether it matches both
/// cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Byte {
    pub byte: u8,
    pub caseless: bool,
}

/// How a branch's end is anchored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum End {
    /// `\z`: the end of the subject only.
    Strict,
    /// `$` or `\Z`: the end, or before a final newline.
    Loose,
}

/// One alternative: its literal strings and anchors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch {
    pub start: bool,
    pub end: Option<End>,
    pub strings: Vec<Vec<Byte>>,
}

/// A pattern as a list of literal branches, when it is simple.
pub fn literal_branches(re: &Regex) -> Option<Vec<Branch>> {
    let mut out = Vec::new();
    for branch in re.ast().branches() {
        out.push(branch_of(branch)?);
    }
    (!out.is_empty()).then_some(out)
}

fn branch_of(node: &Node) -> Option<Branch> {
    let mut items: &[Node] = node.items();
    let mut start = false;
    let mut end = None;
    if let Some(first) = items.first() {
        if let Kind::Assert(a) = first.kind {
            match a {
                Assertion::StartLine { multiline: false }
                | Assertion::StartSubject
                | Assertion::StartOfMatch => {
                    start = true;
                    items = &items[1..];
                }
                _ => return None,
            }
        }
    }
    if let Some(last) = items.last() {
        if let Kind::Assert(a) = last.kind {
            end = Some(match a {
                Assertion::EndLine { multiline: false } | Assertion::EndSubjectOrNewline => {
                    End::Loose
                }
                Assertion::EndSubject => End::Strict,
                _ => return None,
            });
            items = &items[..items.len() - 1];
        }
    }
    let mut strings = vec![Vec::new()];
    for item in items {
        strings = concat(strings, strings_of(item, 0)?)?;
    }
    Some(Branch {
        start,
        end,
        strings,
    })
}

fn concat(left: Vec<Vec<Byte>>, right: Vec<Vec<Byte>>) -> Option<Vec<Vec<Byte>>> {
    if left.len() * right.len() > MAX_STRINGS {
        return None;
    }
    let mut out = Vec::with_capacity(left.len() * right.len());
    for l in &left {
        for r in &right {
            if l.len() + r.len() > MAX_LEN {
                return None;
            }
            let mut s = l.clone();
            s.extend_from_slice(r);
            out.push(s);
        }
    }
    Some(out)
}

/// The strings a node matches, when it is a finite set of literals.
fn strings_of(node: &Node, depth: usize) -> Option<Vec<Vec<Byte>>> {
    if depth > 16 {
        return None;
    }
    match &node.kind {
        Kind::Empty => Some(vec![Vec::new()]),
        Kind::Literal { byte, caseless } => Some(vec![vec![Byte {
            byte: if *caseless {
                byte.to_ascii_lowercase()
            } else {
                *byte
            },
            caseless: *caseless,
        }]]),
        Kind::Set(cs) if cs.unsure.is_empty() => {
            // `[.]`, `\.` written as a class: one byte, or both cases of one letter.
            let single = cs.set.single().map(|b| Byte {
                byte: b,
                caseless: false,
            });
            let pair = || {
                let bytes: Vec<u8> = (0..=255u8).filter(|&b| cs.set.contains(b)).collect();
                match bytes.as_slice() {
                    [a, b] if a.is_ascii_uppercase() && a.to_ascii_lowercase() == *b => {
                        Some(Byte {
                            byte: *b,
                            caseless: true,
                        })
                    }
                    _ => None,
                }
            };
            Some(vec![vec![single.or_else(pair)?]])
        }
        Kind::Group(g) => match g.kind {
            GroupKind::Capture { .. } | GroupKind::NonCapture | GroupKind::Atomic => {
                strings_of(&g.body, depth + 1)
            }
            _ => None,
        },
        Kind::Concat(v) => {
            let mut out = vec![Vec::new()];
            for n in v {
                out = concat(out, strings_of(n, depth + 1)?)?;
            }
            Some(out)
        }
        Kind::Alternation(v) => {
            let mut out = Vec::new();
            for n in v {
                out.extend(strings_of(n, depth + 1)?);
                if out.len() > MAX_STRINGS {
                    return None;
                }
            }
            Some(out)
        }
        Kind::Repeat(r) if r.max == Some(r.min) && r.min <= 8 => {
            let one = strings_of(&r.node, depth + 1)?;
            let mut out = vec![Vec::new()];
            for _ in 0..r.min {
                out = concat(out, one.clone())?;
            }
            Some(out)
        }
        _ => None,
    }
}

/// Whether byte `a` (of the covering pattern) matches every byte `b` matches.
fn byte_covers(a: Byte, b: Byte) -> bool {
    if a.caseless {
        a.byte == b.byte.to_ascii_lowercase()
    } else {
        !b.caseless && a.byte == b.byte
    }
}

fn eq_at(a: &[Byte], b: &[Byte], at: usize) -> bool {
    b.len() >= at + a.len() && a.iter().zip(&b[at..]).all(|(&x, &y)| byte_covers(x, y))
}

/// Whether branch `a` matches (somewhere, as its anchors say) every subject in which
/// branch `b` matches.
pub fn branch_covers(a: &Branch, b: &Branch) -> bool {
    if a.start && !b.start {
        return false;
    }
    match (a.end, b.end) {
        (Some(_), None) => return false,
        (Some(ae), Some(be)) if ae < be => return false, // `\z` does not cover `$`
        _ => {}
    }
    b.strings.iter().all(|s| {
        a.strings.iter().any(|t| {
            if t.len() > s.len() {
                return false;
            }
            match (a.start, a.end.is_some()) {
                (true, true) => t.len() == s.len() && eq_at(t, s, 0),
                (true, false) => eq_at(t, s, 0),
                (false, true) => eq_at(t, s, s.len() - t.len()),
                (false, false) => (0..=s.len() - t.len()).any(|i| eq_at(t, s, i)),
            }
        })
    })
}

/// Whether every subject `b` matches is matched by `a` (both simple); `false` when not
/// shown.
pub fn covers(a: &[Branch], b: &[Branch]) -> bool {
    b.iter().all(|bb| a.iter().any(|ab| branch_covers(ab, bb)))
}

/// A subject `b` matches, built from its first string: `/x` before an unanchored start.
pub fn witness(b: &[Branch]) -> Option<Vec<u8>> {
    let first = b.first()?;
    let s = first.strings.first()?;
    let mut out = Vec::new();
    let bytes = s.iter().map(|c| c.byte);
    if first.start {
        out.extend(bytes);
    } else {
        out.extend_from_slice(b"/x");
        out.extend(bytes);
    }
    Some(out)
}

/// The simple patterns seen so far (one level's regex locations, in order), indexed by
/// their strings (lowercased), so that a later one finds the earlier ones that may cover
/// it without comparing every pair.
#[derive(Default)]
pub struct Index<T> {
    entries: Vec<(T, Rc<[Branch]>)>,
    by_string: FxHashMap<Vec<u8>, Vec<u32>>,
    /// The lengths of `by_string`'s keys: bit `n` for length `n` (at most [`MAX_LEN`], the
    /// top bit standing for any longer). A substring of no such length is not looked up: with 480,000
    /// regex locations the table outgrew the cache, and most of the lookups (every
    /// substring of the new pattern's string) were misses that each cost a cache miss.
    lengths: u128,
}

/// [`Index::lengths`]'s bit for a key of `n` bytes.
fn length_bit(n: usize) -> u128 {
    1 << n.min(127)
}

impl<T: Copy> Index<T> {
    /// The first entry that covers `b`.
    pub fn covering(&self, b: &[Branch]) -> Option<T> {
        // Every covering entry has, for the first string of `b`, a string inside it.
        let s: Vec<u8> = b
            .first()?
            .strings
            .first()?
            .iter()
            .map(|c| c.byte.to_ascii_lowercase())
            .collect();
        let mut candidates: Vec<u32> = Vec::new();
        for i in 0..=s.len() {
            for j in i..=s.len() {
                if self.lengths & length_bit(j - i) == 0 {
                    continue;
                }
                if let Some(ids) = self.by_string.get(&s[i..j]) {
                    candidates.extend_from_slice(ids);
                }
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        candidates
            .into_iter()
            .map(|i| &self.entries[i as usize])
            .find(|(_, a)| covers(a, b))
            .map(|(t, _)| *t)
    }

    /// Adds `t`'s pattern (its branches may be shared with a cache of the caller's).
    pub fn insert(&mut self, t: T, branches: impl Into<Rc<[Branch]>>) {
        let branches = branches.into();
        let id = self.entries.len() as u32;
        for br in branches.iter() {
            for s in &br.strings {
                let key: Vec<u8> = s.iter().map(|c| c.byte.to_ascii_lowercase()).collect();
                self.lengths |= length_bit(key.len());
                let ids = self.by_string.entry(key).or_default();
                if ids.last() != Some(&id) {
                    ids.push(id);
                }
            }
        }
        self.entries.push((t, branches));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simple(p: &str, caseless: bool) -> Vec<Branch> {
        literal_branches(&Regex::parse(p, caseless).unwrap()).unwrap()
    }

    fn c(a: &str, b: &str) -> bool {
        covers(&simple(a, false), &simple(b, false))
    }

    #[test]
    fn inclusion() {
        assert!(c(r"\.(php|html)$", r"\.php$"));
        assert!(c(r"\.php$", r"\.php$"));
        assert!(c(r"\.php", r"\.php$"));
        assert!(c(r"php", r"^/a\.php"));
        assert!(c(r"\.(gif|jpg|png)$", r"\.(png|gif)$"));
        assert!(c(r"^/api/", r"^/api/v1/"));
        assert!(c(r"\.php$", r"/x\.php$"));
        assert!(!c(r"\.php$", r"\.php"));
        assert!(!c(r"\.php$", r"\.(php|html)$"));
        assert!(!c(r"^/api/", r"/api/"));
        assert!(!c(r"\.php\z", r"\.php$"));
        assert!(c(r"\.php$", r"\.php\z"));
    }

    #[test]
    fn case() {
        let ci = simple(r"\.php$", true);
        let cs = simple(r"\.PHP$", false);
        assert!(covers(&ci, &cs));
        assert!(!covers(&cs, &ci));
        assert!(!covers(&simple(r"\.php$", false), &ci));
        assert!(covers(&ci, &simple(r"\.[Pp][Hh][Pp]$", false)));
    }

    #[test]
    fn not_simple() {
        for p in [
            r"\.ph.$",
            r"(\.php)+$",
            r"^/(?!x)",
            r"[a-z]\.php$",
            r"(?m)^/a",
        ] {
            assert!(
                literal_branches(&Regex::parse(p, false).unwrap()).is_none(),
                "{p}"
            );
        }
    }

    #[test]
    fn index_finds_the_first_cover() {
        let mut ix = Index::default();
        ix.insert(1, simple(r"\.(css|js)$", false));
        ix.insert(2, simple(r"\.(php|html)$", false));
        ix.insert(3, simple(r"\.php$", false));
        assert_eq!(ix.covering(&simple(r"\.php$", false)), Some(2));
        assert_eq!(ix.covering(&simple(r"\.jsx$", false)), None);
        assert_eq!(witness(&simple(r"\.php$", false)).unwrap(), b"/x.php");
        assert_eq!(witness(&simple(r"^/api/", false)).unwrap(), b"/api/");
    }

    /// The index answers as comparing the new pattern with every earlier one would, with
    /// strings short and near [`MAX_LEN`].
    #[test]
    fn index_agrees_with_comparing_every_pair() {
        let long = "a".repeat(MAX_LEN - 4);
        let patterns = [
            r"\.php$".to_string(),
            r"^/api/".into(),
            format!("^/{long}"),
            format!("{long}b$"),
            "php".into(),
            r"^/api/v1/".into(),
            format!("^/{long}/x"),
            format!("{long}a"),
            format!("^/{long}ab$"),
            r"\.(php|phtml)$".into(),
            "/static1/".into(),
            r"^/static12/".into(),
            r"^/static1/x".into(),
        ];
        let branches: Vec<Vec<Branch>> = patterns.iter().map(|p| simple(p, false)).collect();
        let mut ix = Index::default();
        for (i, b) in branches.iter().enumerate() {
            let every_pair = (0..i).find(|&j| covers(&branches[j], b));
            assert_eq!(ix.covering(b), every_pair, "{}", patterns[i]);
            ix.insert(i, b.clone());
        }
        // Not vacuous: covers are found, short and long.
        assert_eq!(ix.covering(&simple(r"^/static1/x", false)), Some(10));
        assert_eq!(
            ix.covering(&simple(&format!("^/{long}ab$"), false)),
            Some(2)
        );
    }
}
