//! Structural questions about a pattern, answered from its tree: anchoring, which bytes a
//! capture can hold, the literal every match starts with, the first bytes of a match.
//! Each walk is bounded by the tree's depth (capped by the parser's nesting limit) and
//! visits every node at most once, except the capture sets' fixpoint (at most one round
//! per group).

use super::ast::{Assertion, GroupKind, Kind, Node};
use super::parser::find_group;
use super::set::ByteSet;

/// Deeper walks give the conservative answer (a tree is at most ~4 levels per group).
const MAX_DEPTH: usize = 4 * super::parser::MAX_NESTING + 16;
/// The longest literal prefix reported.
pub const MAX_PREFIX: usize = 1024;

/// An answer that is either proven negative or open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Possible {
    /// Proven impossible.
    No,
    /// Not proven impossible (it may or may not happen).
    Maybe,
}

/// What a question about captured text is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The whole match (`$0`).
    Whole,
    /// Capture group `k` (from 1).
    Group(u32),
}

/// The bytes of an item that matches exactly one byte: a literal (both cases when caseless)
/// or a set, not repeated.
pub fn one_byte(node: &Node) -> Option<ByteSet> {
    match &node.kind {
        Kind::Set(cs) => Some(cs.set),
        Kind::Literal { byte, caseless } => {
            let mut s = ByteSet::of(&[*byte]);
            if *caseless {
                s = s.union(ByteSet::of(&[
                    byte.to_ascii_lowercase(),
                    byte.to_ascii_uppercase(),
                ]));
            }
            Some(s)
        }
        _ => None,
    }
}

/// Whether `node` can match the empty string (backreferences are assumed to).
pub fn nullable(node: &Node, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    match &node.kind {
        Kind::Empty | Kind::Assert(_) | Kind::Backref { .. } => true,
        Kind::Literal { .. } | Kind::Set(_) => false,
        Kind::Group(g) => match g.kind {
            GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => true,
            _ => nullable(&g.body, depth + 1),
        },
        Kind::Concat(v) => v.iter().all(|n| nullable(n, depth + 1)),
        Kind::Alternation(v) => v.iter().any(|n| nullable(n, depth + 1)),
        Kind::Repeat(r) => r.min == 0 || nullable(&r.node, depth + 1),
    }
}

/// The bytes a match of `node` can start with, and whether it can be empty (then the
/// set says nothing about what follows). Conservative: unsure bytes are included.
pub fn first_bytes(node: &Node, depth: usize) -> (ByteSet, bool) {
    if depth > MAX_DEPTH {
        return (ByteSet::ALL, true);
    }
    match &node.kind {
        Kind::Empty | Kind::Assert(_) => (ByteSet::EMPTY, true),
        Kind::Backref { .. } => (ByteSet::ALL, true),
        Kind::Literal { byte, caseless } => {
            let s = ByteSet::of(&[*byte]);
            (if *caseless { s.case_closed() } else { s }, false)
        }
        Kind::Set(cs) => (cs.set.union(cs.unsure), false),
        Kind::Group(g) => match g.kind {
            GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => (ByteSet::EMPTY, true),
            _ => first_bytes(&g.body, depth + 1),
        },
        Kind::Concat(v) => {
            let mut acc = ByteSet::EMPTY;
            for n in v {
                let (s, empty) = first_bytes(n, depth + 1);
                acc = acc.union(s);
                if !empty {
                    return (acc, false);
                }
            }
            (acc, true)
        }
        Kind::Alternation(v) => v.iter().fold((ByteSet::EMPTY, false), |(a, e), n| {
            let (s, empty) = first_bytes(n, depth + 1);
            (a.union(s), e || empty)
        }),
        Kind::Repeat(r) => {
            if r.max == Some(0) {
                return (ByteSet::EMPTY, true);
            }
            let (s, empty) = first_bytes(&r.node, depth + 1);
            (s, empty || r.min == 0)
        }
    }
}

/// The bytes a match of `node` can end with, and whether it can be empty (then the set
/// says nothing about what comes before). The mirror of [`first_bytes`]; conservative.
pub fn last_bytes(node: &Node, depth: usize) -> (ByteSet, bool) {
    if depth > MAX_DEPTH {
        return (ByteSet::ALL, true);
    }
    match &node.kind {
        Kind::Concat(v) => {
            let mut acc = ByteSet::EMPTY;
            for n in v.iter().rev() {
                let (s, empty) = last_bytes(n, depth + 1);
                acc = acc.union(s);
                if !empty {
                    return (acc, false);
                }
            }
            (acc, true)
        }
        Kind::Alternation(v) => v.iter().fold((ByteSet::EMPTY, false), |(a, e), n| {
            let (s, empty) = last_bytes(n, depth + 1);
            (a.union(s), e || empty)
        }),
        Kind::Group(g) => match g.kind {
            GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => (ByteSet::EMPTY, true),
            _ => last_bytes(&g.body, depth + 1),
        },
        Kind::Repeat(r) => {
            if r.max == Some(0) {
                return (ByteSet::EMPTY, true);
            }
            let (s, empty) = last_bytes(&r.node, depth + 1);
            (s, empty || r.min == 0)
        }
        // A single byte, an assertion or a backreference reads the same both ways.
        _ => first_bytes(node, depth),
    }
}

fn is_start_anchor(a: Assertion) -> bool {
    matches!(
        a,
        Assertion::StartLine { multiline: false }
            | Assertion::StartSubject
            | Assertion::StartOfMatch
    )
}

fn is_end_anchor(a: Assertion) -> bool {
    matches!(
        a,
        Assertion::EndLine { multiline: false }
            | Assertion::EndSubject
            | Assertion::EndSubjectOrNewline
    )
}

/// Whether every match starts at the start of the subject (`^` without `(?m)`, `\A`,
/// `\G`, in every alternative).
pub fn anchored_start(node: &Node, depth: usize) -> bool {
    anchored(node, depth, true)
}

/// Whether every match ends at the end of the subject — or, for `$` and `\Z`, before a
/// newline that ends it — in every alternative.
pub fn anchored_end(node: &Node, depth: usize) -> bool {
    anchored(node, depth, false)
}

fn anchored(node: &Node, depth: usize, start: bool) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match &node.kind {
        Kind::Assert(a) => {
            if start {
                is_start_anchor(*a)
            } else {
                is_end_anchor(*a)
            }
        }
        Kind::Concat(v) => {
            let mut check = |n: &Node| -> Option<bool> {
                if anchored(n, depth + 1, start) {
                    Some(true)
                } else if n.is_zero_width() {
                    None
                } else {
                    Some(false)
                }
            };
            let found = if start {
                v.iter().find_map(&mut check)
            } else {
                v.iter().rev().find_map(&mut check)
            };
            found.unwrap_or(false)
        }
        Kind::Alternation(v) => v.iter().all(|n| anchored(n, depth + 1, start)),
        Kind::Group(g) => match g.kind {
            GroupKind::Lookahead { negated: true } | GroupKind::Lookbehind { .. } => false,
            _ => anchored(&g.body, depth + 1, start),
        },
        Kind::Repeat(r) => r.min >= 1 && anchored(&r.node, depth + 1, start),
        _ => false,
    }
}

/// The bytes a node can consume (not what its lookarounds inspect); backreferences take
/// their group's set from `groups` (index = group number).
fn consumed(node: &Node, groups: &[ByteSet], depth: usize) -> ByteSet {
    if depth > MAX_DEPTH {
        return ByteSet::ALL;
    }
    match &node.kind {
        Kind::Empty | Kind::Assert(_) => ByteSet::EMPTY,
        Kind::Literal { byte, caseless } => {
            let s = ByteSet::of(&[*byte]);
            if *caseless {
                s.case_closed()
            } else {
                s
            }
        }
        Kind::Set(cs) => cs.set.union(cs.unsure),
        Kind::Backref { group, .. } => groups.get(*group as usize).copied().unwrap_or(ByteSet::ALL),
        Kind::Group(g) => match g.kind {
            GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => ByteSet::EMPTY,
            _ => consumed(&g.body, groups, depth + 1),
        },
        Kind::Concat(v) | Kind::Alternation(v) => v.iter().fold(ByteSet::EMPTY, |a, n| {
            a.union(consumed(n, groups, depth + 1))
        }),
        Kind::Repeat(r) => {
            if r.max == Some(0) {
                ByteSet::EMPTY
            } else {
                consumed(&r.node, groups, depth + 1)
            }
        }
    }
}

/// The bytes each capture group can hold (index = group number, 0 = whole match), with
/// backreferences resolved to a fixpoint.
pub fn capture_sets(root: &Node, count: u32) -> Vec<ByteSet> {
    let n = count as usize + 1;
    // Without backreferences no group's set depends on another's, so one walk of the tree
    // gives every group's set on the way. The fixpoint below walks each group's body once
    // per round, at least two rounds: quadratic in a bot-blocking map's key of hundreds
    // of groups, a fifth of the corpus run.
    let mut walk = OnePass {
        sets: vec![ByteSet::EMPTY; n],
        backref: false,
        too_deep: false,
    };
    walk.sets[0] = walk.consumed(root, 0);
    if !walk.backref && !walk.too_deep {
        return walk.sets;
    }
    fixpoint(root, n)
}

/// Each group's set recomputed from its body until none changes (backreferences take the
/// set of the group they name).
pub(super) fn fixpoint(root: &Node, n: usize) -> Vec<ByteSet> {
    let mut sets = vec![ByteSet::EMPTY; n];
    let bodies: Vec<Option<&Node>> = (0..n)
        .map(|k| {
            if k == 0 {
                Some(root)
            } else {
                find_group(root, k as u32, 0)
            }
        })
        .collect();
    for _ in 0..=n {
        let mut changed = false;
        for k in 0..n {
            let s = bodies[k].map_or(ByteSet::EMPTY, |b| consumed(b, &sets, 0));
            if s != sets[k] {
                sets[k] = s;
                changed = true;
            }
        }
        if !changed {
            return sets;
        }
    }
    // Not settled (cannot happen: sets only grow, 256 bits each); stay conservative.
    vec![ByteSet::ALL; n]
}

/// [`consumed`] of a whole pattern, keeping each capture group's own set as it passes it.
/// It gives up (for the fixpoint) on a backreference, whose set depends on the others, and
/// past [`MAX_DEPTH`], where [`consumed`] from a group's body would reach deeper than from
/// the root.
struct OnePass {
    sets: Vec<ByteSet>,
    backref: bool,
    too_deep: bool,
}

impl OnePass {
    fn consumed(&mut self, node: &Node, depth: usize) -> ByteSet {
        if depth > MAX_DEPTH {
            self.too_deep = true;
            return ByteSet::ALL;
        }
        match &node.kind {
            Kind::Backref { .. } => {
                self.backref = true;
                ByteSet::ALL
            }
            Kind::Group(g) => {
                // Groups inside lookarounds consume nothing of the match but still capture.
                let body = self.consumed(&g.body, depth + 1);
                if let GroupKind::Capture { index, .. } = g.kind {
                    if let Some(s) = self.sets.get_mut(index as usize) {
                        *s = body;
                    }
                }
                match g.kind {
                    GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => ByteSet::EMPTY,
                    _ => body,
                }
            }
            Kind::Concat(v) | Kind::Alternation(v) => v
                .iter()
                .fold(ByteSet::EMPTY, |a, n| a.union(self.consumed(n, depth + 1))),
            Kind::Repeat(r) => {
                // `{0}` consumes nothing, but a group inside it still has its set.
                let body = self.consumed(&r.node, depth + 1);
                if r.max == Some(0) {
                    ByteSet::EMPTY
                } else {
                    body
                }
            }
            _ => consumed(node, &[], depth),
        }
    }
}

/// Whether `target` can contain `byte`: `No` is proven, `Maybe` is not.
pub fn can_contain(sets: &[ByteSet], target: Target, byte: u8) -> Possible {
    let k = match target {
        Target::Whole => 0,
        Target::Group(k) => k as usize,
    };
    match sets.get(k) {
        Some(s) if s.contains(byte) => Possible::Maybe,
        Some(_) => Possible::No,
        None => Possible::No, // no such group: it never captures anything
    }
}

/// The bytes every match starts with. Caseless letters end it (their case is open).
pub fn literal_prefix(root: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    prefix(root, &mut out, 0);
    out
}

/// Appends the literal start of `node`; true when the whole node is that literal (so
/// what follows it continues the prefix).
fn prefix(node: &Node, out: &mut Vec<u8>, depth: usize) -> bool {
    if depth > MAX_DEPTH || out.len() >= MAX_PREFIX {
        return false;
    }
    match &node.kind {
        Kind::Empty | Kind::Assert(_) => true,
        Kind::Literal { byte, caseless } => {
            if *caseless {
                return false;
            }
            out.push(*byte);
            true
        }
        Kind::Set(cs) => match (cs.set.single(), cs.unsure.is_empty()) {
            (Some(b), true) => {
                out.push(b);
                true
            }
            _ => false,
        },
        Kind::Backref { .. } => false,
        Kind::Group(g) => match g.kind {
            GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => true,
            _ => prefix(&g.body, out, depth + 1),
        },
        Kind::Concat(v) => v.iter().all(|n| prefix(n, out, depth + 1)),
        Kind::Alternation(v) => {
            let mut each: Vec<(Vec<u8>, bool)> = Vec::with_capacity(v.len());
            for n in v {
                let mut p = Vec::new();
                let whole = prefix(n, &mut p, depth + 1);
                each.push((p, whole));
            }
            let first = &each[0].0;
            let mut common = first.len();
            for (p, _) in &each[1..] {
                common = common.min(first.iter().zip(p).take_while(|(a, b)| a == b).count());
            }
            out.extend_from_slice(&first[..common]);
            each.iter().all(|(p, whole)| *whole && p.len() == common)
        }
        Kind::Repeat(r) => {
            if r.max == Some(r.min) {
                for _ in 0..r.min {
                    if !prefix(&r.node, out, depth + 1) {
                        return false;
                    }
                }
                true
            } else {
                if r.min >= 1 {
                    prefix(&r.node, out, depth + 1);
                }
                false
            }
        }
    }
}

/// The last literal byte every match must hold, as PCRE2 finds it at compile time (its
/// "last code unit": `l` for `^/goods-(\d+)(.*)\.html`), and whether it is caseless. PCRE2's
/// JIT fails a subject without it at once, whatever its length (the interpreter checks only
/// subjects shorter than 5,000 bytes). Read from the end of the top-level sequence: a
/// literal, or one inside a group or a repeat that must match at least once; an optional
/// or alternative part is stepped over (an earlier literal is still required). `None` when
/// nothing is surely required.
pub fn last_required_byte(node: &Node, depth: usize) -> Option<(u8, bool)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match &node.kind {
        Kind::Literal { byte, caseless } => Some((*byte, *caseless)),
        Kind::Group(g) => match g.kind {
            GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => None,
            _ => last_required_byte(&g.body, depth + 1),
        },
        Kind::Repeat(r) if r.min >= 1 => last_required_byte(&r.node, depth + 1),
        Kind::Concat(v) => v
            .iter()
            .rev()
            .find_map(|n| last_required_byte(n, depth + 1)),
        _ => None,
    }
}
