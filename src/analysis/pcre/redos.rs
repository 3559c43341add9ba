//! ReDoS risk: quantifier structures that make a backtracking matcher (PCRE2's
//! interpreter among them) take exponential or polynomial time on some subjects.
//!
//! * **Exponential**: an unbounded (or more than 16-times) repeat whose body can match a
//!   string in two ways within its iterations: the body matches `ww` both in one iteration
//!   and in two, for a short `w` made of one byte (`(a+)+`, `(.*)*`, `(\w+\s?)*`,
//!   `(a|aa)*`) or of a witness of the body or of a sub-pattern the body repeats
//!   (`((ab)+)+`, `((abc)*x?)*`, `(ab|abab)+`), or two of its alternatives match the same
//!   string (`(a|a)*`, `(\w|\d)*`).
//! * **Polynomial**: unbounded repeats in sequence, with only items that can be empty
//!   between them, over overlapping bytes (`.*.*x`, `\d+\d+`, `\d+\.?\d+`): degree = how
//!   many are chained. Possessive repeats and atomic groups do not backtrack and are left
//!   out.
//!
//! Each finding comes with an attack string (prefix + pump × n + suffix); `confirmed` says
//! whether running it with a growing n made this module's own matcher (which, like PCRE2's
//! interpreter, has no memoisation) take super-linear steps. A structure that the rest of
//! the pattern can never exploit (a `(a+)+` that always succeeds at once) is reported but
//! not confirmed. Not detected: a single quantifier tried from every start position of an
//! unanchored search (`\s+$` is quadratic over all starts).
//!
//! Bounded: one walk over the tree; at most 8 candidate bytes and 8 candidate words per
//! repeat, each tried with a small step limit.

use super::ast::{Assertion, GroupKind, Kind, Mode, Node};
use super::matcher::{self, Limits, Start};
use super::program;
use super::queries::{first_bytes, nullable};
use super::set::ByteSet;
use crate::source::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Risk {
    /// Steps grow as a power of the subject's length.
    Polynomial { degree: u32 },
    /// Steps double with every few bytes.
    Exponential,
}

/// A subject that makes the matcher backtrack: `prefix`, then `pump` repeated, then
/// `suffix` (which makes the match fail, forcing every way to be tried).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attack {
    pub prefix: Vec<u8>,
    pub pump: Vec<u8>,
    pub suffix: Vec<u8>,
}

impl Attack {
    /// The attack string with the pump repeated `n` times.
    pub fn string(&self, n: usize) -> Vec<u8> {
        let mut s = self.prefix.clone();
        for _ in 0..n {
            s.extend_from_slice(&self.pump);
        }
        s.extend_from_slice(&self.suffix);
        s
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redos {
    pub risk: Risk,
    /// The repeat (or the chain of repeats) responsible.
    pub span: Span,
    pub attack: Attack,
    /// The attack made this module's matcher take super-linear steps.
    pub confirmed: bool,
    /// The repeats hold a lookahead or lookbehind. PCRE2's JIT runs each as a recursion on
    /// its own stack, which such an attack exhausts at once (error -46, "JIT stack limit
    /// reached": a fast failure) rather than backtracking to the match limit.
    pub lookaround: bool,
}

/// PCRE2's default match limit (`MATCH_LIMIT`: calls of its internal `match()`, each a
/// backtracking point), which nginx does not change: past it the match fails with error
/// -47 and nginx answers 500 (`pcre2_match() failed: -47`, logged at `alert`).
pub const PCRE2_MATCH_LIMIT: u64 = 10_000_000;

impl Redos {
    /// Whether the attack, with as many pumps as fit in a subject of `max_len` bytes,
    /// reaches PCRE2's match limit, counting backtracking repeats as `degree` (see
    /// [`super::Regex::redos_reaches_match_limit`], which knows the pattern). Exponential
    /// attacks reach it within a few dozen bytes. A polynomial one of degree d with n pumps
    /// tries about C(n, d) ways to share the pumps among its d backtracking repeats: with
    /// one-byte pumps a quadratic reaches the limit at about 4.5 KB, a cubic one at 400
    /// bytes (checked with pcre2test by tests/redos_pcre2test.rs).
    pub fn reaches_match_limit_as(&self, degree: u32, max_len: usize) -> bool {
        if self.risk == Risk::Exponential {
            return true;
        }
        let fixed = self.attack.prefix.len() + self.attack.suffix.len();
        let n = (max_len.saturating_sub(fixed) / self.attack.pump.len().max(1)) as f64;
        let mut ways = 1.0_f64;
        for i in 0..degree {
            ways *= (n - f64::from(i)).max(0.0) / f64::from(i + 1);
        }
        degree >= 2 && ways >= PCRE2_MATCH_LIMIT as f64
    }
}

const MAX_DEPTH: usize = 4 * super::parser::MAX_NESTING + 16;
const MAX_WITNESS: usize = 256;

pub(super) struct Analyser<'a> {
    pub captures: u32,
    /// The pattern's program, compiled only when a candidate needs confirming.
    pub program: &'a dyn Fn() -> Option<&'a program::Program>,
    pub start: &'a Start,
    found: Vec<Redos>,
}

/// The worst finding of the pattern, if any.
pub(super) fn analyse<'a>(
    root: &Node,
    captures: u32,
    program: &'a dyn Fn() -> Option<&'a program::Program>,
    start: &'a Start,
) -> Option<Redos> {
    let mut a = Analyser {
        captures,
        program,
        start,
        found: Vec::new(),
    };
    a.walk(root, &[], 0);
    let mut found = std::mem::take(&mut a.found);
    // The worst risk, first confirmed one first: only candidates of the worst risk are
    // confirmed, in order, until one is, within the pattern's budget. Confirming every
    // candidate cost up to 17 runs of millions of steps per pattern (1.3 s for one
    // 160-byte pattern of nested repeats); the answer is the same while the budget lasts.
    found.sort_by_key(|f| std::cmp::Reverse(f.risk));
    let worst = found.first()?.risk;
    let mut budget = CONFIRM_BUDGET;
    for i in 0..found.len() {
        if found[i].risk != worst || budget < CONFIRM_STEPS * 2 {
            break;
        }
        let (confirmed, used) = a.confirm(&found[i].attack);
        budget = budget.saturating_sub(used);
        if confirmed {
            found[i].confirmed = true;
            return Some(found.swap_remove(i));
        }
    }
    found.into_iter().next()
}

/// Whether `attack` makes the whole pattern's matching super-linear on this module's
/// matcher (the test [`analyse`] confirms its own candidates with).
pub(super) fn confirms<'a>(
    captures: u32,
    program: &'a dyn Fn() -> Option<&'a program::Program>,
    start: &'a Start,
    attack: &Attack,
) -> bool {
    let a = Analyser {
        captures,
        program,
        start,
        found: Vec::new(),
    };
    a.confirm(attack).0
}

/// Steps one confirmation run may take (see [`Analyser::confirm`]).
const CONFIRM_STEPS: u64 = 2_000_000;
/// Steps all confirmations of one pattern may take: a handful of candidates. Past it the
/// remaining candidates stay unconfirmed (and unreported).
const CONFIRM_BUDGET: u64 = 5 * CONFIRM_STEPS;

/// A short string `node` matches (assertions are ignored, so it may not really match).
fn witness(node: &Node, out: &mut Vec<u8>, depth: usize) {
    if depth > MAX_DEPTH || out.len() >= MAX_WITNESS {
        return;
    }
    match &node.kind {
        Kind::Empty | Kind::Assert(_) | Kind::Backref { .. } => {}
        Kind::Literal { byte, .. } => out.push(*byte),
        Kind::Set(cs) => {
            if let Some(b) = cs.set.pick() {
                out.push(b);
            }
        }
        Kind::Group(g) => match g.kind {
            GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => {}
            _ => witness(&g.body, out, depth + 1),
        },
        Kind::Concat(v) => v.iter().for_each(|n| witness(n, out, depth + 1)),
        Kind::Alternation(v) => {
            // The shortest alternative.
            let best = v
                .iter()
                .map(|n| {
                    let mut w = Vec::new();
                    witness(n, &mut w, depth + 1);
                    w
                })
                .min_by_key(Vec::len)
                .unwrap_or_default();
            out.extend(best);
        }
        Kind::Repeat(r) => {
            for _ in 0..r.min.min(MAX_WITNESS as u32) {
                witness(&r.node, out, depth + 1);
            }
        }
    }
}

/// One byte of each set and literal in `node` (candidate pump bytes), at most 8.
fn candidates(node: &Node, out: &mut Vec<u8>, depth: usize) {
    if depth > MAX_DEPTH || out.len() >= 8 {
        return;
    }
    let mut add = |b: u8| {
        if !out.contains(&b) && out.len() < 8 {
            out.push(b);
        }
    };
    match &node.kind {
        Kind::Literal { byte, .. } => add(*byte),
        Kind::Set(cs) => {
            if let Some(b) = cs.set.pick() {
                add(b);
            }
        }
        Kind::Group(g) => match g.kind {
            GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => {}
            _ => candidates(&g.body, out, depth + 1),
        },
        Kind::Concat(v) | Kind::Alternation(v) => {
            v.iter().for_each(|n| candidates(n, out, depth + 1))
        }
        Kind::Repeat(r) => candidates(&r.node, out, depth + 1),
        _ => {}
    }
}

/// Candidate pumps of two bytes or more (at most 8): a witness of `body` and of the
/// sub-pattern of each repeat inside it. Shorter ones are [`candidates`]' business.
fn words_of(body: &Node, out: &mut Vec<Vec<u8>>, depth: usize) {
    fn add(node: &Node, out: &mut Vec<Vec<u8>>) {
        let mut w = Vec::new();
        witness(node, &mut w, 0);
        if w.len() >= 2 && w.len() <= MAX_WITNESS / 8 && !out.contains(&w) && out.len() < 8 {
            out.push(w);
        }
    }
    fn inner(node: &Node, out: &mut Vec<Vec<u8>>, depth: usize) {
        if depth > MAX_DEPTH || out.len() >= 8 {
            return;
        }
        match &node.kind {
            Kind::Group(g) => match g.kind {
                GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => {}
                _ => inner(&g.body, out, depth + 1),
            },
            Kind::Concat(v) | Kind::Alternation(v) => {
                v.iter().for_each(|n| inner(n, out, depth + 1))
            }
            Kind::Repeat(r) => {
                add(&r.node, out);
                inner(&r.node, out, depth + 1);
            }
            _ => {}
        }
    }
    add(body, out);
    inner(body, out, depth);
}

/// The bytes `node` can consume (a backreference counts as any byte).
fn consumable(node: &Node) -> ByteSet {
    super::queries::capture_sets(node, 0)[0]
}

impl Analyser<'_> {
    /// Whether `node` alone matches all of `s`.
    fn full_match(&self, node: &Node, s: &[u8]) -> bool {
        let sp = node.span;
        let whole = Node::new(
            Kind::Concat(Box::new([
                Node::new(Kind::Assert(Assertion::StartSubject), sp),
                node.clone(),
                Node::new(Kind::Assert(Assertion::EndSubject), sp),
            ])),
            sp,
        );
        let Ok(prog) = program::compile(&whole, self.captures) else {
            return false;
        };
        let start = Start {
            anchored: true,
            first: None,
        };
        let limits = Limits {
            steps: 20_000,
            stack: 1 << 14,
        };
        matches!(matcher::search(&prog, &start, s, limits), Ok(Some(_)))
    }

    /// Whether the attack string makes the whole pattern's matching super-linear, and the
    /// steps that took.
    fn confirm(&self, attack: &Attack) -> (bool, u64) {
        let Some(prog) = (self.program)() else {
            return (false, 0);
        };
        let steps = |n: usize| {
            let limits = Limits {
                steps: CONFIRM_STEPS,
                stack: 1 << 18,
            };
            matcher::search_steps(prog, self.start, &attack.string(n), limits)
        };
        let (r1, s1) = steps(8);
        if r1.is_err() {
            return (matches!(r1, Err(matcher::Undecided::Steps)), s1);
        }
        let (r2, s2) = steps(32);
        let used = s1 + s2;
        match r2 {
            Err(matcher::Undecided::Steps) => return (true, used),
            Err(_) => return (false, used),
            // Linear growth is ×4 from 8 to 32 pumps; ask for well over that.
            Ok(_) if s2 > 12 * s1.max(1) => return (true, used),
            Ok(_) => {}
        }
        // A quadratic tried from one start (`^/(.*.*)x$`) grows ×16 from 8 to 32 pumps
        // only in its leading term: the steps of reading the prefix and failing the suffix
        // keep the ratio below 12 (246 → 2,874). From 32 to 64 pumps the constant part
        // no longer counts: linear growth is ×2, quadratic ×4 (2,874 → 10,858).
        let (r3, s3) = steps(64);
        let used = used + s3;
        match r3 {
            Err(matcher::Undecided::Steps) => (true, used),
            Err(_) => (false, used),
            Ok(_) => (s3 > 3 * s2.max(1), used),
        }
    }

    /// A suffix byte that the rest of the pattern cannot start with and the pumped
    /// repeat cannot consume, if there is one (a newline with a byte after it).
    fn suffix(&self, rest: &[Node], pumped: ByteSet) -> Vec<u8> {
        let mut first = ByteSet::EMPTY;
        for n in rest {
            let (s, empty) = first_bytes(n, 0);
            first = first.union(s);
            if !empty {
                break;
            }
        }
        let bad = first.union(pumped);
        let pick = |s: ByteSet| {
            [b'!', b'\n', 0u8, b'~', b'#']
                .into_iter()
                .find(|b| !s.contains(*b))
                .or_else(|| s.complement().first())
        };
        match pick(bad).or_else(|| pick(first)) {
            // `$` also matches before a final newline: a subject ending in `\n` could then
            // match. A byte after it keeps the newline from being final (`.*` cannot
            // cross it either), as `%0Ab` does in a URI.
            Some(b'\n') => vec![b'\n', b'b'],
            Some(b) => vec![b],
            None => Vec::new(),
        }
    }

    /// Walks the tree; `before` is a witness of what a match has read on the way here.
    fn walk(&mut self, node: &Node, before: &[u8], depth: usize) {
        if depth > MAX_DEPTH || self.found.len() > 16 {
            return;
        }
        match &node.kind {
            Kind::Group(g) => match g.kind {
                GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => {}
                _ => self.walk(&g.body, before, depth + 1),
            },
            Kind::Alternation(v) => v.iter().for_each(|n| self.walk(n, before, depth + 1)),
            Kind::Concat(v) => {
                let mut pre = before.to_vec();
                for (i, n) in v.iter().enumerate() {
                    if let Kind::Repeat(_) = n.kind {
                        self.repeat(n, &pre, &v[i + 1..], depth);
                    } else {
                        self.walk(n, &pre, depth + 1);
                    }
                    witness(n, &mut pre, 0);
                }
                self.chains(v, before);
            }
            Kind::Repeat(_) => self.repeat(node, before, &[], depth),
            _ => {}
        }
    }

    fn repeat(&mut self, node: &Node, before: &[u8], rest: &[Node], depth: usize) {
        let Kind::Repeat(r) = &node.kind else { return };
        self.walk(&r.node, before, depth + 1);
        let many = r.max.is_none_or(|m| m > 16);
        if !many || r.mode == Mode::Possessive {
            return;
        }
        let body = &r.node;
        if let Some(pump) = self.ambiguous(body) {
            let suffix = self.suffix(rest, consumable(body));
            self.found.push(Redos {
                risk: Risk::Exponential,
                span: node.span,
                attack: Attack {
                    prefix: before.to_vec(),
                    pump,
                    suffix,
                },
                confirmed: false,
                lookaround: has_lookaround(node, 0),
            });
        }
    }

    /// A string the repeat's body can match in two ways over its iterations.
    fn ambiguous(&self, body: &Node) -> Option<Vec<u8>> {
        let mut cands = Vec::new();
        candidates(body, &mut cands, 0);
        for &c in &cands {
            for k in 1..=3 {
                let w = vec![c; k];
                let ww = vec![c; 2 * k];
                // One iteration over `ww`, or two over `w` each (an atomic body that
                // always takes everything cannot do both).
                let twice = Node::new(
                    Kind::Concat(Box::new([body.clone(), body.clone()])),
                    body.span,
                );
                if self.full_match(body, &ww) && self.full_match(&twice, &ww) {
                    return Some(w);
                }
            }
        }
        // Two alternatives matching the same string.
        let mut inner = body;
        while let Kind::Group(g) = &inner.kind {
            match g.kind {
                GroupKind::Capture { .. } | GroupKind::NonCapture => inner = &g.body,
                _ => break,
            }
        }
        if let Kind::Alternation(v) = &inner.kind {
            for (i, a) in v.iter().enumerate() {
                let mut w = Vec::new();
                witness(a, &mut w, 0);
                if w.is_empty() || !self.full_match(a, &w) {
                    continue;
                }
                for (j, b) in v.iter().enumerate() {
                    if i != j && self.full_match(b, &w) {
                        return Some(w);
                    }
                }
            }
        }
        // Strings of more than one byte: the body matches `ww` in one iteration and in
        // two, where `w` is a witness of the body or of a sub-pattern it repeats, taken
        // 1 to 3 times (`((ab)+)+`, `((abc)*x?)*`, `(?:ab|abab)+`, `((ab){1,3})+`).
        // `((ab)+c)+` is not: every iteration ends with the `c`.
        let mut words = Vec::new();
        words_of(body, &mut words, 0);
        let twice = Node::new(
            Kind::Concat(Box::new([body.clone(), body.clone()])),
            body.span,
        );
        for w in &words {
            for k in 1..=3 {
                let w = w.repeat(k);
                let ww = w.repeat(2);
                if self.full_match(body, &ww) && self.full_match(&twice, &ww) {
                    return Some(w);
                }
            }
        }
        None
    }

    /// A one-byte pump that each repeat of `chain` matches runs of.
    fn chain_pump(&self, chain: &[&Node], overlap: ByteSet) -> Option<Vec<u8>> {
        let mut cands: Vec<u8> = overlap.pick().into_iter().collect();
        cands.extend(overlap.iter().filter(|b| b.is_ascii_graphic()).take(7));
        cands.into_iter().find_map(|c| {
            let ok = chain.iter().all(|n| match &n.kind {
                Kind::Repeat(r) if r.max.is_none() => {
                    (1..=3).any(|k| self.full_match(&r.node, &vec![c; k]))
                }
                _ => true,
            });
            ok.then(|| vec![c])
        })
    }

    /// Chains of unbounded repeats in one sequence with only nullable items between.
    fn chains(&mut self, items: &[Node], before: &[u8]) {
        // Inline plain groups so `(.*)(.*)` is seen as `.*.*`.
        let mut flat: Vec<&Node> = Vec::new();
        flatten(items, &mut flat, 0);
        let mut i = 0;
        while i < flat.len() {
            let Some(set) = unbounded_set(flat[i]) else {
                i += 1;
                continue;
            };
            let mut overlap = set;
            // The overlap narrowed by the separators since the last repeat: it only holds
            // once another repeat follows them.
            let mut pending = set;
            // Whether a separator stands between two repeats of the chain.
            let mut separated = false;
            let mut degree = 1;
            let mut last = i;
            let mut j = i + 1;
            while j < flat.len() {
                if let Some(s) = unbounded_set(flat[j]) {
                    if s.intersect(pending).is_empty() {
                        break;
                    }
                    separated |= pending != overlap;
                    overlap = pending.intersect(s);
                    pending = overlap;
                    degree += 1;
                    last = j;
                } else if let Some(sep) = super::queries::one_byte(flat[j]) {
                    // A one-byte separator the repeats' bytes include (`.*\..*$` on a run of
                    // dots): each pump byte can be it, so the repeats still share the run
                    // (PCRE2 gives up on `^/s/.*\.(.)*$` with 8 KB of dots).
                    if sep.intersect(pending).is_empty() {
                        break;
                    }
                    pending = pending.intersect(sep);
                } else if !nullable(flat[j], 0) {
                    break;
                }
                j += 1;
            }
            // A byte every repeat of the chain can take runs of (`(?:[^/]+/)*[^/]+` has
            // none: the first must end with `/`).
            let pump = (degree >= 2)
                .then(|| self.chain_pump(&flat[i..=last], overlap))
                .flatten();
            if let Some(pump) = pump {
                let mut prefix = before.to_vec();
                for n in &flat[..i] {
                    witness(n, &mut prefix, 0);
                }
                let rest: Vec<Node> = flat[last + 1..].iter().map(|n| (*n).clone()).collect();
                // Not a byte the last repeat takes either: past a separator the overlap is
                // narrower than what that repeat reads to the end (`.*\.(.)*$`).
                let pumped = match unbounded_set(flat[last]) {
                    Some(last_set) if separated => overlap.union(last_set),
                    _ => overlap,
                };
                let suffix = self.suffix(&rest, pumped);
                self.found.push(Redos {
                    risk: Risk::Polynomial { degree },
                    span: flat[i].span.cover(flat[last].span),
                    attack: Attack {
                        prefix,
                        pump,
                        suffix,
                    },
                    confirmed: false,
                    lookaround: flat[i..=last].iter().any(|n| has_lookaround(n, 0)),
                });
                i = last + 1;
            } else {
                i += 1;
            }
        }
    }
}

/// The sequence with non-repeated capturing and plain groups opened up.
fn flatten<'a>(items: &'a [Node], out: &mut Vec<&'a Node>, depth: usize) {
    for n in items {
        match &n.kind {
            Kind::Group(g)
                if depth < 64
                    && matches!(g.kind, GroupKind::Capture { .. } | GroupKind::NonCapture)
                    && !matches!(g.body.kind, Kind::Alternation(_)) =>
            {
                flatten(g.body.items(), out, depth + 1)
            }
            Kind::Concat(v) if depth < 64 => flatten(v, out, depth + 1),
            _ => out.push(n),
        }
    }
}

/// Whether `node` holds a lookahead or lookbehind.
fn has_lookaround(node: &Node, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match &node.kind {
        Kind::Group(g) => {
            matches!(
                g.kind,
                GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. }
            ) || has_lookaround(&g.body, depth + 1)
        }
        Kind::Repeat(r) => has_lookaround(&r.node, depth + 1),
        Kind::Concat(v) | Kind::Alternation(v) => v.iter().any(|n| has_lookaround(n, depth + 1)),
        _ => false,
    }
}

/// The bytes of an unbounded, backtracking repeat.
fn unbounded_set(n: &Node) -> Option<ByteSet> {
    match &n.kind {
        Kind::Repeat(r) if r.max.is_none() && r.mode != Mode::Possessive => {
            let s = consumable(&r.node);
            (!s.is_empty()).then_some(s)
        }
        _ => None,
    }
}
