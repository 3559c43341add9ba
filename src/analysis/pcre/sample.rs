//! A short subject a pattern matches, spelled the way its author most likely meant it:
//! the first branch of each alternation, each repeat its minimum, an unescaped `.` as a
//! dot, a class as its first letter. Rules use it as "the trusted text" a pattern was
//! written for (the domain an origin check allows) and build attacker strings from it;
//! the caller confirms with [`super::Regex::is_match`], since lookarounds and
//! backreferences are not honoured here.

use super::ast::{GroupKind, Kind, Node, SetKind};

/// The longest sample built; past it, `None`.
const MAX_SAMPLE: usize = 4096;

/// A subject `root` most likely was written to match, or `None` when one cannot be
/// spelled (a backreference, a set with no byte) or it grows past [`MAX_SAMPLE`].
pub fn sample(root: &Node) -> Option<Vec<u8>> {
    sample_with(root, &[])
}

/// A sample whose capture groups in `groups` (by number) hold the given text: a branch
/// or a repeat holding one of them is taken instead of the first branch or the minimum.
/// Rules build requests with it (a location regex whose `$1` carries an attacker's host).
pub fn sample_with(root: &Node, groups: &[(u32, Vec<u8>)]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    write(root, groups, &mut out, 0)?;
    Some(out)
}

/// Whether `n` holds one of `groups`.
fn holds(n: &Node, groups: &[(u32, Vec<u8>)], depth: usize) -> bool {
    if depth > 4 * super::MAX_NESTING || groups.is_empty() {
        return false;
    }
    match &n.kind {
        Kind::Group(g) => {
            matches!(g.kind, GroupKind::Capture { index, .. } if groups.iter().any(|(k, _)| *k == index))
                || holds(&g.body, groups, depth + 1)
        }
        Kind::Concat(v) | Kind::Alternation(v) => v.iter().any(|c| holds(c, groups, depth + 1)),
        Kind::Repeat(r) => holds(&r.node, groups, depth + 1),
        _ => false,
    }
}

fn write(n: &Node, groups: &[(u32, Vec<u8>)], out: &mut Vec<u8>, depth: usize) -> Option<()> {
    if depth > 4 * super::MAX_NESTING || out.len() > MAX_SAMPLE {
        return None;
    }
    match &n.kind {
        Kind::Empty | Kind::Assert(_) => {}
        Kind::Literal { byte, .. } => out.push(*byte),
        Kind::Set(cs) => {
            let set = &cs.set;
            let b = if matches!(cs.written, SetKind::Dot { .. }) && set.contains(b'.') {
                b'.'
            } else {
                (b'a'..=b'z')
                    .chain(b'0'..=b'9')
                    .find(|b| set.contains(*b))
                    .or_else(|| set.first())?
            };
            out.push(b);
        }
        Kind::Group(g) => match &g.kind {
            GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => {}
            GroupKind::Capture { index, .. } => match groups.iter().find(|(k, _)| k == index) {
                Some((_, text)) => out.extend_from_slice(text),
                None => write(&g.body, groups, out, depth + 1)?,
            },
            _ => write(&g.body, groups, out, depth + 1)?,
        },
        Kind::Concat(v) => {
            for c in v {
                write(c, groups, out, depth + 1)?;
            }
        }
        Kind::Alternation(v) => {
            let branch = v
                .iter()
                .find(|b| holds(b, groups, depth + 1))
                .or_else(|| v.first())?;
            write(branch, groups, out, depth + 1)?;
        }
        Kind::Repeat(r) => {
            let mut times = r.min;
            if times == 0 && r.max != Some(0) && holds(&r.node, groups, depth + 1) {
                times = 1;
            }
            for _ in 0..times.min(MAX_SAMPLE as u32) {
                write(&r.node, groups, out, depth + 1)?;
            }
        }
        Kind::Backref { .. } => return None,
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use crate::analysis::pcre::Regex;

    fn sample(p: &str) -> Option<String> {
        Regex::parse(p, false)
            .unwrap()
            .sample()
            .map(|s| String::from_utf8(s).unwrap())
    }

    #[test]
    fn samples_read_as_the_author_meant() {
        assert_eq!(
            sample(r"^https?://(www\.)?example\.com$").unwrap(),
            "http://example.com"
        );
        assert_eq!(sample(r"example.com").unwrap(), "example.com");
        assert_eq!(
            sample(r"^https://(foo|bar)\.[a-z]+\.org$").unwrap(),
            "https://foo.a.org"
        );
        assert_eq!(sample(r"(a)\1"), None);
        for p in [
            r"^https?://(www\.)?example\.com$",
            r"[0-9]{3}x",
            r"\w+@\w+\.io",
        ] {
            let re = Regex::parse(p, false).unwrap();
            assert!(re.is_match(&re.sample().unwrap()).unwrap(), "{p}");
        }
    }
}
