//! The tree compiled for the backtracking matcher: a flat list of instructions, as small
//! interpreters (PCRE2's own included) run them. Counted repeats are unrolled, so the
//! program's size is capped at [`MAX_PROGRAM`]; a larger one is not run.

use super::ast::{Assertion, GroupKind, Kind, Mode, Node};
use super::set::ByteSet;
use crate::source::Span;

/// Instructions at most (a pattern like `(a{1000}){1000}` would unroll to millions).
pub const MAX_PROGRAM: usize = 1 << 16;

#[derive(Clone, Debug)]
pub(super) enum Inst {
    Byte(u8),
    /// A byte from `sets[i]`.
    Set(u32),
    Assert(Assertion),
    /// Try `.0` first, then `.1`.
    Split(u32, u32),
    Jmp(u32),
    /// Records the position in slot `n` (the whole match's `0`/`1`, or a loop mark).
    Save(u32),
    /// Opens capture `k`: its start is kept aside until it closes (a backreference inside
    /// the group sees the previous iteration's capture, as in PCRE2).
    Open(u32),
    /// Closes capture `k`: its start and end become visible.
    Close(u32),
    /// Ends an unbounded loop whose iteration matched nothing (slot `mark` holds where
    /// the iteration started): PCRE2 then moves on past the loop.
    Progress {
        mark: u32,
        exit: u32,
    },
    Backref {
        group: u32,
        caseless: bool,
    },
    /// Runs the sub-program at `start` (ended by [`Inst::SubEnd`]) at the position, then
    /// continues at `next`.
    Sub {
        kind: SubKind,
        start: u32,
        next: u32,
    },
    /// A lookbehind: `branches[i]` holds its (length, start) pairs.
    Behind {
        negated: bool,
        branches: u32,
        next: u32,
    },
    SubEnd,
    Match,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum SubKind {
    Atomic,
    Ahead { negated: bool },
}

/// A set, and the bytes whose membership is unsure (with where the set is written).
#[derive(Clone, Debug)]
pub(super) struct SetEntry {
    pub set: ByteSet,
    pub unsure: ByteSet,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Program {
    pub insts: Vec<Inst>,
    pub sets: Vec<SetEntry>,
    pub behinds: Vec<Vec<(u32, u32)>>,
    /// Slots: two per capture (group 0 is the whole match), then each capture's pending
    /// start ([`Program::pending`]), then one per loop mark.
    pub slots: usize,
    pub captures: u32,
}

pub(super) struct TooLarge;

impl Program {
    /// The slot holding capture `k`'s start while it is open.
    pub fn pending(&self, k: u32) -> usize {
        2 * (self.captures as usize + 1) + k as usize
    }
}

struct Compiler<'r> {
    root: &'r Node,
    p: Program,
    captures: u32,
}

/// Compiles the pattern tree; `captures` is the number of capturing groups.
pub(super) fn compile(root: &Node, captures: u32) -> Result<Program, TooLarge> {
    let mut c = Compiler {
        root,
        p: Program {
            slots: 3 * (captures as usize + 1),
            captures,
            ..Program::default()
        },
        captures,
    };
    c.emit(Inst::Save(0))?;
    c.node(root, 0)?;
    c.emit(Inst::Save(1))?;
    c.emit(Inst::Match)?;
    let _ = c.captures;
    Ok(c.p)
}

impl Compiler<'_> {
    fn pc(&self) -> u32 {
        self.p.insts.len() as u32
    }

    fn emit(&mut self, i: Inst) -> Result<u32, TooLarge> {
        if self.p.insts.len() >= MAX_PROGRAM {
            return Err(TooLarge);
        }
        self.p.insts.push(i);
        Ok(self.pc() - 1)
    }

    fn patch(&mut self, at: u32, i: Inst) {
        self.p.insts[at as usize] = i;
    }

    fn node(&mut self, n: &Node, depth: usize) -> Result<(), TooLarge> {
        if depth > 1024 {
            return Err(TooLarge);
        }
        match &n.kind {
            Kind::Empty => {}
            Kind::Literal { byte, caseless } => {
                if *caseless {
                    let s = ByteSet::of(&[*byte]).case_closed();
                    self.set(s, ByteSet::EMPTY, n.span)?;
                } else {
                    self.emit(Inst::Byte(*byte))?;
                }
            }
            Kind::Set(cs) => self.set(cs.set, cs.unsure, n.span)?,
            Kind::Assert(a) => {
                self.emit(Inst::Assert(*a))?;
            }
            Kind::Backref { group, caseless } => {
                self.emit(Inst::Backref {
                    group: *group,
                    caseless: *caseless,
                })?;
            }
            Kind::Concat(v) => {
                for x in v {
                    self.node(x, depth + 1)?;
                }
            }
            Kind::Alternation(v) => {
                let mut jumps = Vec::new();
                for (i, b) in v.iter().enumerate() {
                    if i + 1 < v.len() {
                        let split = self.emit(Inst::Split(0, 0))?;
                        self.node(b, depth + 1)?;
                        jumps.push(self.emit(Inst::Jmp(0))?);
                        let next = self.pc();
                        self.patch(split, Inst::Split(split + 1, next));
                    } else {
                        self.node(b, depth + 1)?;
                    }
                }
                let end = self.pc();
                for j in jumps {
                    self.patch(j, Inst::Jmp(end));
                }
            }
            Kind::Group(g) => match &g.kind {
                GroupKind::Capture { index, .. } => {
                    self.emit(Inst::Open(*index))?;
                    self.node(&g.body, depth + 1)?;
                    self.emit(Inst::Close(*index))?;
                }
                GroupKind::NonCapture => self.node(&g.body, depth + 1)?,
                GroupKind::Atomic => self.sub(SubKind::Atomic, &g.body, depth)?,
                GroupKind::Lookahead { negated } => {
                    self.sub(SubKind::Ahead { negated: *negated }, &g.body, depth)?
                }
                GroupKind::Lookbehind { negated } => {
                    let at = self.emit(Inst::Behind {
                        negated: *negated,
                        branches: 0,
                        next: 0,
                    })?;
                    let mut branches = Vec::new();
                    for b in g.body.branches() {
                        let len = super::parser::fixed_len(self.root, b, 0).unwrap_or(0);
                        branches.push((len, self.pc()));
                        self.node(b, depth + 1)?;
                        self.emit(Inst::SubEnd)?;
                    }
                    let idx = self.p.behinds.len() as u32;
                    self.p.behinds.push(branches);
                    let next = self.pc();
                    self.patch(
                        at,
                        Inst::Behind {
                            negated: *negated,
                            branches: idx,
                            next,
                        },
                    );
                }
            },
            Kind::Repeat(r) => {
                let lookaround = matches!(&r.node.kind, Kind::Group(g) if matches!(g.kind, GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. }));
                if lookaround {
                    // PCRE2: {0} skips the assertion, a minimum of 0 makes it optional,
                    // otherwise it is obeyed once.
                    if r.max == Some(0) {
                        return Ok(());
                    }
                    if r.min == 0 {
                        let split = self.emit(Inst::Split(0, 0))?;
                        self.node(&r.node, depth + 1)?;
                        let end = self.pc();
                        self.patch(split, Inst::Split(split + 1, end));
                        return Ok(());
                    }
                    return self.node(&r.node, depth + 1);
                }
                if r.mode == Mode::Possessive {
                    let at = self.emit(Inst::Sub {
                        kind: SubKind::Atomic,
                        start: 0,
                        next: 0,
                    })?;
                    self.repeat(&r.node, r.min, r.max, true, depth)?;
                    self.emit(Inst::SubEnd)?;
                    let next = self.pc();
                    self.patch(
                        at,
                        Inst::Sub {
                            kind: SubKind::Atomic,
                            start: at + 1,
                            next,
                        },
                    );
                    return Ok(());
                }
                self.repeat(&r.node, r.min, r.max, r.mode == Mode::Greedy, depth)?;
            }
        }
        Ok(())
    }

    fn set(&mut self, set: ByteSet, unsure: ByteSet, span: Span) -> Result<(), TooLarge> {
        if let (Some(b), true) = (set.single(), unsure.is_empty()) {
            self.emit(Inst::Byte(b))?;
            return Ok(());
        }
        let idx = self.p.sets.len() as u32;
        self.p.sets.push(SetEntry { set, unsure, span });
        self.emit(Inst::Set(idx))?;
        Ok(())
    }

    fn sub(&mut self, kind: SubKind, body: &Node, depth: usize) -> Result<(), TooLarge> {
        let at = self.emit(Inst::Sub {
            kind,
            start: 0,
            next: 0,
        })?;
        self.node(body, depth + 1)?;
        self.emit(Inst::SubEnd)?;
        let next = self.pc();
        self.patch(
            at,
            Inst::Sub {
                kind,
                start: at + 1,
                next,
            },
        );
        Ok(())
    }

    fn split(&self, greedy: bool, body: u32, out: u32) -> Inst {
        if greedy {
            Inst::Split(body, out)
        } else {
            Inst::Split(out, body)
        }
    }

    fn repeat(
        &mut self,
        node: &Node,
        min: u32,
        max: Option<u32>,
        greedy: bool,
        depth: usize,
    ) -> Result<(), TooLarge> {
        let copies = if max.is_none() {
            min.saturating_sub(1)
        } else {
            min
        };
        for _ in 0..copies {
            self.node(node, depth + 1)?;
        }
        match max {
            Some(max) => {
                let mut splits = Vec::new();
                for _ in min..max {
                    splits.push(self.emit(Inst::Split(0, 0))?);
                    self.node(node, depth + 1)?;
                }
                let end = self.pc();
                for s in splits {
                    let i = self.split(greedy, s + 1, end);
                    self.patch(s, i);
                }
            }
            None => {
                // PCRE2 checks each iteration of the looping copy for an empty match;
                // with a minimum, the last mandatory iteration is that copy's first.
                let nullable = super::queries::nullable(node, 0);
                let mark = nullable.then(|| {
                    self.p.slots += 1;
                    self.p.slots as u32 - 1
                });
                if min == 0 {
                    let top = self.emit(Inst::Split(0, 0))?;
                    let progress = self.loop_body(node, mark, depth)?;
                    self.emit(Inst::Jmp(top))?;
                    let exit = self.pc();
                    let i = self.split(greedy, top + 1, exit);
                    self.patch(top, i);
                    self.patch_progress(progress, exit);
                } else {
                    let body = self.pc();
                    let progress = self.loop_body(node, mark, depth)?;
                    let again = self.emit(Inst::Split(0, 0))?;
                    let exit = self.pc();
                    let i = self.split(greedy, body, exit);
                    self.patch(again, i);
                    self.patch_progress(progress, exit);
                }
            }
        }
        Ok(())
    }

    /// One iteration of a loop: the mark (when the body can be empty), the body, and the
    /// progress check to patch with the loop's exit.
    fn loop_body(
        &mut self,
        node: &Node,
        mark: Option<u32>,
        depth: usize,
    ) -> Result<Option<(u32, u32)>, TooLarge> {
        if let Some(m) = mark {
            self.emit(Inst::Save(m))?;
        }
        self.node(node, depth + 1)?;
        Ok(match mark {
            Some(m) => Some((self.emit(Inst::Progress { mark: m, exit: 0 })?, m)),
            None => None,
        })
    }

    fn patch_progress(&mut self, progress: Option<(u32, u32)>, exit: u32) {
        if let Some((at, m)) = progress {
            self.patch(at, Inst::Progress { mark: m, exit });
        }
    }
}
