//! What a regex capture can hold, from what its subject holds and the bytes its group can
//! match; and the cheap scans that find regexes and their named groups in a configuration.

use super::answer::{Answer, Step};
use super::danger::{Danger, Dangers};
use crate::analysis::pcre::{Possible, Regex, Target};

/// What capture `k` of `re` holds when the subject holds `subject`: the dangers whose
/// bytes the group can match. A capture is a piece of its subject, so a piece of text the
/// client writes freely (a path: it can hold `/`) can be any host name (`/c/evil.com` gives
/// `evil.com`) and, cut inside a segment, a `..` segment of its own (`/p..` gives `..` for
/// `^/p(.*)$`) even where the whole value could not — unless the group sits between `/`
/// and `/` or the end, so that its pieces are the subject's own segments.
pub(super) fn capture_answer(re: &Regex, k: u32, subject: Answer) -> Answer {
    let can = |b: u8| re.can_contain(Target::Group(k), b) == Possible::Maybe;
    let mut keep = Dangers::NONE;
    // Only the LF splits a header (see `Danger::CrLf`).
    if can(b'\n') {
        keep = keep.with(Danger::CrLf);
    }
    if can(b'/') {
        keep = keep.with(Danger::Slash);
    }
    let dot = can(b'.');
    if dot {
        keep = keep.with(Danger::DotDot).with(Danger::Host);
    }
    if bounded_group(re.ast(), k) {
        keep = keep.without(Danger::Host);
    }
    let free_text = subject.why(Danger::Slash).map(<[Step]>::to_vec);
    let mut out = subject.narrow(keep);
    if let (true, Some(chain)) = (dot && !bounded_group(re.ast(), k), free_text) {
        if !out.can(Danger::Host) {
            out.chains[Danger::Host.index()] = Some(chain.clone());
        }
        if !out.can(Danger::DotDot) && !segment_aligned(re.ast(), k) {
            out.chains[Danger::DotDot.index()] = Some(chain);
        }
    }
    out
}

/// The dangers [`capture_answer`] gives when the subject holds `subject`, without the
/// chains: what a map entry can add, worked out once per map.
pub(super) fn capture_dangers(re: &Regex, k: u32, subject: Dangers) -> Dangers {
    let can = |b: u8| re.can_contain(Target::Group(k), b) == Possible::Maybe;
    let mut keep = Dangers::NONE;
    if can(b'\n') {
        keep = keep.with(Danger::CrLf);
    }
    if can(b'/') {
        keep = keep.with(Danger::Slash);
    }
    let dot = can(b'.');
    if dot {
        keep = keep.with(Danger::DotDot).with(Danger::Host);
    }
    let bounded = bounded_group(re.ast(), k);
    if bounded {
        keep = keep.without(Danger::Host);
    }
    let mut out = subject.intersect(keep);
    if dot && subject.has(Danger::Slash) {
        if !bounded {
            out = out.with(Danger::Host);
        }
        if !segment_aligned(re.ast(), k) {
            out = out.with(Danger::DotDot);
        }
    }
    out
}

/// Whether capture group `k` matches only text as long as the pattern writes it: no
/// quantifier above `?` and no backreference inside it (`(a.example|b.example)`,
/// `(www\.)?`). Such a group picks among the configuration's own spellings, so it never
/// holds a host of the client's choosing, even where an unescaped `.` matches any byte.
pub(super) fn bounded_group(root: &crate::analysis::pcre::Node, k: u32) -> bool {
    use crate::analysis::pcre::{GroupKind, Kind, Node};
    fn find(n: &Node, k: u32, depth: usize) -> Option<&Node> {
        if depth > crate::analysis::pcre::MAX_NESTING * 4 {
            return None;
        }
        match &n.kind {
            Kind::Group(g) => {
                if matches!(g.kind, GroupKind::Capture { index, .. } if index == k) {
                    return Some(&g.body);
                }
                find(&g.body, k, depth + 1)
            }
            Kind::Concat(v) | Kind::Alternation(v) => v.iter().find_map(|c| find(c, k, depth + 1)),
            Kind::Repeat(r) => find(&r.node, k, depth + 1),
            _ => None,
        }
    }
    fn bounded(n: &Node, depth: usize) -> bool {
        if depth > crate::analysis::pcre::MAX_NESTING * 4 {
            return false;
        }
        match &n.kind {
            Kind::Empty | Kind::Literal { .. } | Kind::Set(_) | Kind::Assert(_) => true,
            Kind::Backref { .. } => false,
            Kind::Group(g) => bounded(&g.body, depth + 1),
            Kind::Concat(v) | Kind::Alternation(v) => v.iter().all(|c| bounded(c, depth + 1)),
            Kind::Repeat(r) => r.max.is_some_and(|m| m <= 1) && bounded(&r.node, depth + 1),
        }
    }
    // A group inside a repeat is only its last iteration: still bounded.
    find(root, k, 0).is_some_and(|body| bounded(body, 0))
}

/// Whether capture group `k` is written in the pattern's top-level sequence at a segment
/// boundary on both sides: after a literal `/` or at the start of the subject, and before
/// what must start with `/` or the end of the subject (`$`, `\z`, `\Z`).
fn segment_aligned(root: &crate::analysis::pcre::Node, k: u32) -> bool {
    use crate::analysis::pcre::queries::first_bytes;
    use crate::analysis::pcre::{Assertion, ByteSet, GroupKind, Kind, Node};
    let items = root.items();
    let is_group = |n: &Node| {
        matches!(&n.kind, Kind::Group(g)
            if matches!(g.kind, GroupKind::Capture { index, .. } if index == k))
    };
    let Some(at) = items.iter().position(is_group) else {
        return false;
    };
    let start = |n: &Node| {
        matches!(
            n.kind,
            Kind::Assert(Assertion::StartSubject | Assertion::StartLine { multiline: false })
        )
    };
    let before = match at {
        0 => false, // unanchored: the match may start anywhere
        _ => {
            matches!(items[at - 1].kind, Kind::Literal { byte: b'/', .. })
                || items[..at].iter().all(start)
        }
    };
    let after = items.get(at + 1).is_some_and(|n| {
        let (first, empty) = first_bytes(n, 0);
        (!empty && first == ByteSet::of(b"/"))
            || matches!(
                n.kind,
                Kind::Assert(
                    Assertion::EndSubject
                        | Assertion::EndSubjectOrNewline
                        | Assertion::EndLine { multiline: false }
                )
            )
    });
    before && after
}

/// A map key's regex (`~re`, `~*re`), unless escaped (`\~`).
pub(super) fn regex_key(key: &str) -> Option<(&str, bool)> {
    if let Some(p) = key.strip_prefix("~*") {
        return Some((p, true));
    }
    key.strip_prefix('~').map(|p| (p, false))
}

/// Names of named groups in a pattern (`(?<n>`, `(?P<n>`, `(?'n'`), lowercased as nginx
/// looks variables up. A cheap scan: the regex parser confirms them when asked.
pub(super) fn names_in(pattern: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 3 < pattern.len() {
        if pattern[i] == b'\\' {
            i += 2;
            continue;
        }
        if pattern[i] == b'(' && pattern[i + 1] == b'?' {
            let rest = &pattern[i + 2..];
            let (skip, close) = match rest {
                [b'P', b'<', ..] => (2, b'>'),
                [b'<', c, ..] if *c != b'=' && *c != b'!' => (1, b'>'),
                [b'\'', ..] => (1, b'\''),
                _ => (0, 0),
            };
            if skip > 0 {
                let body = &rest[skip..];
                if let Some(end) = body.iter().position(|b| *b == close) {
                    out.push(String::from_utf8_lossy(&body[..end]).to_ascii_lowercase());
                }
            }
        }
        i += 1;
    }
    out
}

/// Whether `text` may refer to a capture (`$1`, `${1}`): a cheap test (one memchr pass)
/// before a script is parsed. It errs towards yes (`${name}` passes too).
pub fn may_reference_capture(text: &[u8]) -> bool {
    memchr::memchr_iter(b'$', text).any(|i| {
        text.get(i + 1)
            .is_some_and(|&b| b.is_ascii_digit() || b == b'{')
    })
}

/// Per file of a configuration, whether its text may refer to a capture anywhere: the rules
/// about `$N` skip the directives of the other files unread. Worked out once per
/// configuration and shared ([`CaptureFiles::of`]).
pub struct CaptureFiles(Vec<bool>);

impl CaptureFiles {
    pub fn of(inst: &crate::stack::model::NginxInstance) -> std::sync::Arc<CaptureFiles> {
        inst.memo.get(|| {
            CaptureFiles(
                inst.config
                    .files
                    .iter()
                    .map(|f| may_reference_capture(&f.source.text))
                    .collect(),
            )
        })
    }

    /// Whether the file may hold a `$N` (or `${…}`).
    pub fn may_hold(&self, file: crate::source::FileId) -> bool {
        self.0[file.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::bounded_group;
    use crate::analysis::pcre::Regex;

    fn bounded(pattern: &str, k: u32) -> bool {
        bounded_group(Regex::parse(pattern, false).unwrap().ast(), k)
    }

    #[test]
    fn a_group_of_written_names_is_bounded_and_a_repeat_is_not() {
        assert!(bounded(r"^/m/(a.example|b\.example)(/.*)$", 1));
        assert!(!bounded(r"^/m/(a.example|b\.example)(/.*)$", 2));
        assert!(bounded(r"^/(www\.)?x$", 1));
        assert!(!bounded(r"^/p/(.+)$", 1));
        assert!(!bounded(r"^/p/([a-z]{1,64})$", 1));
        assert!(!bounded(r"^(a)/(\1)$", 2));
        // The group is not in the pattern.
        assert!(!bounded(r"^/p/(a)$", 2));
    }
}
