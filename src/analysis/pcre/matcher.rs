//! The backtracking matcher: runs a [`Program`] over a subject as PCRE2's interpreter
//! (`pcre2_match`, no JIT) does — leftmost match, alternatives and quantifiers tried in
//! PCRE2's order, so the captures are PCRE2's.
//!
//! Bounded: every instruction counts a step (at most [`Limits::steps`]), the backtrack
//! stack holds at most [`Limits::stack`] entries, and sub-matches (lookarounds, atomic
//! groups, possessive quantifiers) nest only as deep as the pattern does. Reaching a bound,
//! or a byte whose class membership is not known (see `props`), gives [`Undecided`].

use super::ast::Assertion;
use super::program::{Inst, Program, SubKind};
use super::set;
use crate::source::Span;

/// The bounds of one search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Instructions executed, over all start positions.
    pub steps: u64,
    /// Entries of the backtrack stack (about 24 bytes each).
    pub stack: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            steps: 1_000_000,
            stack: 1 << 18,
        }
    }
}

/// Why a question about a pattern has no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undecided {
    /// The step limit was reached.
    Steps,
    /// The backtrack stack limit was reached.
    Memory,
    /// The answer depends on whether a byte belongs to an approximate set (a Unicode
    /// script above U+007F), written here.
    Approximate(Span),
    /// The pattern is too large to run (see `program::MAX_PROGRAM`).
    TooLarge,
}

/// The spans (byte offsets into the subject) of a match: index 0 is the whole match, `k`
/// is capture group `k` (`None` when it took no part).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captures(Vec<Option<(usize, usize)>>);

impl Captures {
    pub fn get(&self, k: usize) -> Option<(usize, usize)> {
        self.0.get(k).copied().flatten()
    }

    /// The whole match.
    pub fn whole(&self) -> (usize, usize) {
        self.get(0).unwrap_or((0, 0))
    }

    /// Group count + 1.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn as_slice(&self) -> &[Option<(usize, usize)>] {
        &self.0
    }
}

const UNSET: usize = usize::MAX;

enum Frame {
    Alt { pc: u32, pos: usize },
    Restore { slot: u32, old: usize },
    RestoreAll(Box<[usize]>),
}

struct Vm<'a> {
    prog: &'a Program,
    s: &'a [u8],
    slots: Vec<usize>,
    stack: Vec<Frame>,
    steps: u64,
    limits: Limits,
}

/// How a search may start: only at 0, or only where a byte of `first` is.
pub(super) struct Start {
    pub anchored: bool,
    pub first: Option<set::ByteSet>,
}

/// The leftmost match of `prog` in `subject`.
pub(super) fn search(
    prog: &Program,
    start: &Start,
    subject: &[u8],
    limits: Limits,
) -> Result<Option<Captures>, Undecided> {
    search_steps(prog, start, subject, limits).0
}

/// [`search`], and the steps it took.
pub(super) fn search_steps(
    prog: &Program,
    start: &Start,
    subject: &[u8],
    limits: Limits,
) -> (Result<Option<Captures>, Undecided>, u64) {
    let mut vm = Vm {
        prog,
        s: subject,
        slots: vec![UNSET; prog.slots],
        stack: Vec::new(),
        steps: 0,
        limits,
    };
    for at in 0..=subject.len() {
        if start.anchored && at > 0 {
            break;
        }
        if let Some(first) = &start.first {
            if at == subject.len() || !first.contains(subject[at]) {
                continue;
            }
        }
        vm.slots.fill(UNSET);
        vm.stack.clear();
        let found = match vm.run(0, at, 0) {
            Ok(f) => f,
            Err(e) => return (Err(e), vm.steps),
        };
        if found.is_some() {
            let n = prog.captures as usize + 1;
            let caps = (0..n)
                .map(|k| {
                    let (a, b) = (vm.slots[2 * k], vm.slots[2 * k + 1]);
                    (a != UNSET && b != UNSET).then_some((a, b))
                })
                .collect();
            return (Ok(Some(Captures(caps))), vm.steps);
        }
    }
    (Ok(None), vm.steps)
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Vm<'_> {
    fn assert(&self, a: Assertion, pos: usize) -> bool {
        let s = self.s;
        let n = s.len();
        match a {
            Assertion::StartLine { multiline: false }
            | Assertion::StartSubject
            | Assertion::StartOfMatch => pos == 0,
            Assertion::StartLine { multiline: true } => {
                pos == 0 || (pos < n && s[pos - 1] == b'\n')
            }
            Assertion::EndLine { multiline: false } | Assertion::EndSubjectOrNewline => {
                pos == n || (pos + 1 == n && s[pos] == b'\n')
            }
            Assertion::EndLine { multiline: true } => pos == n || s[pos] == b'\n',
            Assertion::EndSubject => pos == n,
            Assertion::WordBoundary | Assertion::NotWordBoundary => {
                let before = pos > 0 && is_word(s[pos - 1]);
                let after = pos < n && is_word(s[pos]);
                (before != after) == matches!(a, Assertion::WordBoundary)
            }
        }
    }

    fn set_slot(&mut self, slot: usize, v: usize) -> Result<(), Undecided> {
        self.push(Frame::Restore {
            slot: slot as u32,
            old: self.slots[slot],
        })?;
        self.slots[slot] = v;
        Ok(())
    }

    fn push(&mut self, f: Frame) -> Result<(), Undecided> {
        if self.stack.len() >= self.limits.stack {
            return Err(Undecided::Memory);
        }
        self.stack.push(f);
        Ok(())
    }

    fn backref(&self, group: u32, caseless: bool, pos: usize) -> Option<usize> {
        let (a, b) = (
            self.slots[2 * group as usize],
            self.slots[2 * group as usize + 1],
        );
        if a == UNSET || b == UNSET {
            return None; // an unset group matches nothing (PCRE2's default)
        }
        let want = &self.s[a..b];
        let have = self.s.get(pos..pos + want.len())?;
        let same = if caseless {
            want.eq_ignore_ascii_case(have)
        } else {
            want == have
        };
        same.then_some(pos + want.len())
    }

    /// Runs from `pc` at `pos` until `Match`/`SubEnd` (the end position) or failure.
    fn run(&mut self, pc: u32, pos: usize, depth: usize) -> Result<Option<usize>, Undecided> {
        if depth > 512 {
            return Err(Undecided::TooLarge);
        }
        let base = self.stack.len();
        let (mut pc, mut pos) = (pc as usize, pos);
        loop {
            self.steps += 1;
            if self.steps > self.limits.steps {
                return Err(Undecided::Steps);
            }
            let ok = match &self.prog.insts[pc] {
                Inst::Byte(b) => {
                    let hit = self.s.get(pos) == Some(b);
                    if hit {
                        pos += 1;
                        pc += 1;
                    }
                    hit
                }
                Inst::Set(i) => {
                    let e = &self.prog.sets[*i as usize];
                    match self.s.get(pos) {
                        Some(&c) if e.unsure.contains(c) => {
                            return Err(Undecided::Approximate(e.span))
                        }
                        Some(&c) if e.set.contains(c) => {
                            pos += 1;
                            pc += 1;
                            true
                        }
                        _ => false,
                    }
                }
                Inst::Assert(a) => {
                    let hit = self.assert(*a, pos);
                    pc += 1;
                    hit
                }
                &Inst::Split(x, y) => {
                    self.push(Frame::Alt { pc: y, pos })?;
                    pc = x as usize;
                    true
                }
                &Inst::Jmp(x) => {
                    pc = x as usize;
                    true
                }
                &Inst::Save(n) => {
                    self.set_slot(n as usize, pos)?;
                    pc += 1;
                    true
                }
                &Inst::Open(k) => {
                    self.set_slot(self.prog.pending(k), pos)?;
                    pc += 1;
                    true
                }
                &Inst::Close(k) => {
                    let start = self.slots[self.prog.pending(k)];
                    self.set_slot(2 * k as usize, start)?;
                    self.set_slot(2 * k as usize + 1, pos)?;
                    pc += 1;
                    true
                }
                &Inst::Progress { mark, exit } => {
                    pc = if self.slots[mark as usize] == pos {
                        exit as usize
                    } else {
                        pc + 1
                    };
                    true
                }
                &Inst::Backref { group, caseless } => match self.backref(group, caseless, pos) {
                    Some(end) => {
                        pos = end;
                        pc += 1;
                        true
                    }
                    None => false,
                },
                &Inst::Sub { kind, start, next } => {
                    let snapshot: Box<[usize]> = self.slots.clone().into_boxed_slice();
                    let found = self.run(start, pos, depth + 1)?;
                    match (kind, found) {
                        (SubKind::Atomic, Some(end)) => {
                            self.push(Frame::RestoreAll(snapshot))?;
                            pos = end;
                            pc = next as usize;
                            true
                        }
                        (SubKind::Ahead { negated: false }, Some(_)) => {
                            self.push(Frame::RestoreAll(snapshot))?;
                            pc = next as usize;
                            true
                        }
                        (SubKind::Ahead { negated: true }, Some(_)) => {
                            self.slots.copy_from_slice(&snapshot);
                            false
                        }
                        (SubKind::Ahead { negated: true }, None) => {
                            pc = next as usize;
                            true
                        }
                        (_, None) => false,
                    }
                }
                &Inst::Behind {
                    negated,
                    branches,
                    next,
                } => {
                    let snapshot: Box<[usize]> = self.slots.clone().into_boxed_slice();
                    let mut found = false;
                    for i in 0..self.prog.behinds[branches as usize].len() {
                        let (len, start) = self.prog.behinds[branches as usize][i];
                        let len = len as usize;
                        if pos >= len && self.run(start, pos - len, depth + 1)?.is_some() {
                            found = true;
                            break;
                        }
                    }
                    match (negated, found) {
                        (false, true) => {
                            self.push(Frame::RestoreAll(snapshot))?;
                            pc = next as usize;
                            true
                        }
                        (true, true) => {
                            self.slots.copy_from_slice(&snapshot);
                            false
                        }
                        (true, false) => {
                            pc = next as usize;
                            true
                        }
                        (false, false) => false,
                    }
                }
                Inst::SubEnd | Inst::Match => {
                    self.stack.truncate(base);
                    return Ok(Some(pos));
                }
            };
            if ok {
                continue;
            }
            // Backtrack to the latest alternative of this run.
            loop {
                if self.stack.len() <= base {
                    return Ok(None);
                }
                match self.stack.pop() {
                    Some(Frame::Alt { pc: p, pos: q }) => {
                        pc = p as usize;
                        pos = q;
                        break;
                    }
                    Some(Frame::Restore { slot, old }) => self.slots[slot as usize] = old,
                    Some(Frame::RestoreAll(v)) => self.slots.copy_from_slice(&v),
                    None => return Ok(None),
                }
            }
        }
    }
}
