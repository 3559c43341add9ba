//! The syntax tree of a pattern. Every node has the span (byte offsets into the pattern)
//! it was written at; options (`i`, `m`, `s`, `x`, `n`, `U`) are already applied, so a
//! caseless literal says so and a `$` knows whether it is multiline.

use super::set::ByteSet;
use crate::source::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub kind: Kind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Matches the empty string: an empty branch, `(?i)`, `(?#…)`, `\Q\E`.
    Empty,
    /// One byte; `caseless` when `(?i)` (or `~*`) was in force and the byte is a letter.
    Literal {
        byte: u8,
        caseless: bool,
    },
    /// One byte from a set: `.`, `\d`, `[…]`, `\p{..}`, `\N`.
    Set(Box<CharSet>),
    /// A zero-width assertion written with one token.
    Assert(Assertion),
    Group(Box<Group>),
    // Boxed slices, not vectors: a node is then 32 bytes instead of 40, and a parsed
    // pattern (one node per literal byte) is kept for each distinct regex location of a
    // configuration (48,000 locations: 26 MB of nodes as vectors).
    Concat(Box<[Node]>),
    Alternation(Box<[Node]>),
    Repeat(Box<Repeat>),
    /// `\1`, `\g{-1}`, `\k<name>`, `(?P=name)`: the text group `group` captured.
    Backref {
        group: u32,
        caseless: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CharSet {
    /// The bytes it matches (case variants included under `(?i)`).
    pub set: ByteSet,
    /// Bytes whose membership is not known (Unicode scripts above U+007F): a match that
    /// depends on one is undecided, and a query treats them as possible.
    pub unsure: ByteSet,
    pub written: SetKind,
}

/// How a set was written (it matters to rules that explain or repair a pattern).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetKind {
    /// `.`; `dotall` under `(?s)`.
    Dot { dotall: bool },
    /// `\d \D \w \W \s \S \h \H \v \V \N`: the letter.
    Escape(u8),
    /// `\p{..}` / `\P{..}`.
    Property,
    /// `[…]`.
    Class { negated: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assertion {
    /// `^`: start of subject, or after an inner newline under `(?m)`.
    StartLine { multiline: bool },
    /// `$`: end of subject or before a final newline; before any newline under `(?m)`.
    EndLine { multiline: bool },
    /// `\A`.
    StartSubject,
    /// `\z`.
    EndSubject,
    /// `\Z`: end of subject or before a final newline.
    EndSubjectOrNewline,
    /// `\G`: the start offset (always 0 here, so like `\A`).
    StartOfMatch,
    /// `\b`.
    WordBoundary,
    /// `\B`.
    NotWordBoundary,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub kind: GroupKind,
    pub body: Node,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupKind {
    /// `( )`, `(?<n> )`, `(?P<n> )`, `(?'n' )`: PCRE2's number (from 1, by opening
    /// parenthesis) and name.
    Capture { index: u32, name: Option<String> },
    /// `(?: )`, `(?i: )`.
    NonCapture,
    /// `(?> )`, and the body of a possessive quantifier.
    Atomic,
    /// `(?= )`, `(?! )`.
    Lookahead { negated: bool },
    /// `(?<= )`, `(?<! )`; each branch has a fixed length (PCRE2 10.42 requires it).
    Lookbehind { negated: bool },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repeat {
    pub node: Node,
    pub min: u32,
    /// `None`: unbounded.
    pub max: Option<u32>,
    pub mode: Mode,
    /// Where the quantifier (with its `?` or `+`) is written.
    pub quantifier: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Greedy,
    Lazy,
    Possessive,
}

impl Node {
    pub fn new(kind: Kind, span: Span) -> Node {
        Node { kind, span }
    }

    /// The node's items when it is a sequence, else the node alone.
    pub fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Concat(v) => v,
            _ => std::slice::from_ref(self),
        }
    }

    /// The branches when it is an alternation, else the node alone.
    pub fn branches(&self) -> &[Node] {
        match &self.kind {
            Kind::Alternation(v) => v,
            _ => std::slice::from_ref(self),
        }
    }

    /// Whether the node only ever matches the empty string (assertions, lookarounds).
    pub fn is_zero_width(&self) -> bool {
        match &self.kind {
            Kind::Empty | Kind::Assert(_) => true,
            Kind::Group(g) => {
                matches!(
                    g.kind,
                    GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. }
                ) || g.body.is_zero_width()
            }
            Kind::Concat(v) | Kind::Alternation(v) => v.iter().all(Node::is_zero_width),
            Kind::Repeat(r) => r.max == Some(0) || r.node.is_zero_width(),
            _ => false,
        }
    }
}
