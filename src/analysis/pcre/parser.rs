//! The parser: pattern bytes to a [`Node`] tree with spans, as PCRE2 10.42 reads them
//! (8-bit library, no `PCRE2_UTF`, default compile context; leading option settings that do
//! not change which bytes match, `(*UTF)` on ASCII patterns among them, are read past).
//!
//! Recursion follows group nesting only, which is capped at [`MAX_NESTING`] — the depth at
//! which PCRE2 itself fails with "parentheses are too deeply nested" — and patterns are at
//! most [`MAX_PATTERN`] bytes long.

use super::ast::{Assertion, CharSet, Group, GroupKind, Kind, Mode, Node, Repeat, SetKind};
use super::error::ParseError;
use super::props;
use super::set::{self, ByteSet};
use crate::source::Span;

/// The deepest group nesting accepted: PCRE2 10.42 (default `parens_nest_limit`) refuses
/// the 221st level.
pub const MAX_NESTING: usize = 220;
/// Longer patterns are not analysed (nginx's are a few dozen bytes).
pub const MAX_PATTERN: usize = 32 * 1024;
/// The largest `{n,m}` bound PCRE2 accepts.
const MAX_REPEAT: u32 = 65535;

type Result<T> = std::result::Result<T, ParseError>;

/// The capturing groups of a pattern: how many, and their names, numbered as PCRE2
/// numbers them (by opening parenthesis, from 1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureTable {
    count: u32,
    names: Vec<(String, u32)>,
}

impl CaptureTable {
    /// The number of capturing groups (PCRE2's "Capture group count").
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Named groups, in the order they are written: (name, number).
    pub fn names(&self) -> &[(String, u32)] {
        &self.names
    }

    /// The name of group `index`, if it has one.
    pub fn name(&self, index: u32) -> Option<&str> {
        self.names
            .iter()
            .find(|(_, i)| *i == index)
            .map(|(n, _)| n.as_str())
    }

    /// The number of the group called `name`.
    pub fn index(&self, name: &str) -> Option<u32> {
        self.names.iter().find(|(n, _)| n == name).map(|&(_, i)| i)
    }
}

/// Options that change how the rest of a group is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub caseless: bool,
    pub multiline: bool,
    pub dotall: bool,
    pub extended: bool,
    pub extended_more: bool,
    pub no_auto_capture: bool,
    pub ungreedy: bool,
    pub dupnames: bool,
}

/// A reference whose group is checked once the whole pattern is read (they may point
/// forwards).
enum Ref {
    Number(u32),
    Name(String),
}

/// One item of a character class.
enum ClassAtom {
    Byte(u8),
    Set(ByteSet, ByteSet),
    /// `\Q`, `\E`: nothing to add.
    Nothing,
}

/// What `(` started.
enum Grouped {
    Node(Node),
    /// `(?i)`: options for the rest of the group.
    Options,
    /// `(?#…)`.
    Comment,
}

/// What an escape outside a class stands for.
enum Escape {
    Byte(u8),
    Set(ByteSet, ByteSet, SetKind),
    Assert(Assertion),
    Backref(Ref),
    Newline,
    Quote,
    EndQuote,
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    flags: Flags,
    groups: u32,
    names: Vec<(String, u32)>,
    refs: Vec<(Ref, Span)>,
    depth: usize,
    in_quote: bool,
}

/// Parses `pattern`; `caseless` is nginx's `~*` (PCRE2_CASELESS).
pub fn parse(pattern: &[u8], caseless: bool) -> Result<(Node, CaptureTable)> {
    if pattern.len() > MAX_PATTERN {
        return Err(ParseError::unsupported(
            span(0, pattern.len()),
            "a pattern longer than 32 KiB",
        ));
    }
    let mut p = Parser {
        s: pattern,
        pos: 0,
        flags: Flags {
            caseless,
            ..Flags::default()
        },
        groups: 0,
        names: Vec::new(),
        refs: Vec::new(),
        depth: 0,
        in_quote: false,
    };
    p.start_options()?;
    let mut root = p.alternation()?;
    if p.pos < pattern.len() {
        // Only a `)` stops the top level early.
        return Err(ParseError::syntax(122, span(p.pos, p.pos + 1)));
    }
    let table = CaptureTable {
        count: p.groups,
        names: std::mem::take(&mut p.names),
    };
    // PCRE2 reports a lookbehind of variable length before a reference to a missing
    // group: check once with references unresolved (taken as fixed), then again.
    check_lookbehinds(&root, &root, 0)?;
    let resolved = p.resolve_refs(&table)?;
    if !resolved.is_empty() {
        patch_refs(&mut root, &resolved, 0);
        check_lookbehinds(&root, &root, 0)?;
    }
    Ok((root, table))
}

fn span(start: usize, end: usize) -> Span {
    Span::new(start as u32, end as u32)
}

/// Marks a backreference whose group is not known yet: the index of its entry in
/// `Parser::refs`, with the top bit set.
const UNRESOLVED: u32 = 1 << 31;

fn patch_refs(node: &mut Node, resolved: &[u32], depth: usize) {
    if depth > 4 * MAX_NESTING + 16 {
        return;
    }
    match &mut node.kind {
        Kind::Backref { group, .. } if *group & UNRESOLVED != 0 => {
            *group = resolved[(*group & !UNRESOLVED) as usize];
        }
        Kind::Group(g) => patch_refs(&mut g.body, resolved, depth + 1),
        Kind::Repeat(r) => patch_refs(&mut r.node, resolved, depth + 1),
        Kind::Concat(v) | Kind::Alternation(v) => {
            for n in v {
                patch_refs(n, resolved, depth + 1);
            }
        }
        _ => {}
    }
}

/// The body of capture group `index`.
pub(super) fn find_group(node: &Node, index: u32, depth: usize) -> Option<&Node> {
    if depth > 4 * MAX_NESTING + 16 {
        return None;
    }
    match &node.kind {
        Kind::Group(g) => match g.kind {
            GroupKind::Capture { index: i, .. } if i == index => Some(&g.body),
            _ => find_group(&g.body, index, depth + 1),
        },
        Kind::Repeat(r) => find_group(&r.node, index, depth + 1),
        Kind::Concat(v) | Kind::Alternation(v) => {
            v.iter().find_map(|n| find_group(n, index, depth + 1))
        }
        _ => None,
    }
}

/// The length every match of `node` has, if fixed (backreferences count as their group's).
pub(super) fn fixed_len(root: &Node, node: &Node, depth: usize) -> Option<u32> {
    if depth > 4 * MAX_NESTING + 16 {
        return None;
    }
    match &node.kind {
        Kind::Empty | Kind::Assert(_) => Some(0),
        Kind::Literal { .. } | Kind::Set(_) => Some(1),
        Kind::Group(g) => match g.kind {
            GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => Some(0),
            _ => fixed_len(root, &g.body, depth + 1),
        },
        Kind::Concat(v) => v
            .iter()
            .try_fold(0u32, |a, n| a.checked_add(fixed_len(root, n, depth + 1)?)),
        Kind::Alternation(v) => {
            let first = fixed_len(root, &v[0], depth + 1)?;
            v[1..]
                .iter()
                .all(|n| fixed_len(root, n, depth + 1) == Some(first))
                .then_some(first)
        }
        Kind::Repeat(r) => {
            if r.max != Some(r.min) {
                return None;
            }
            fixed_len(root, &r.node, depth + 1)?.checked_mul(r.min)
        }
        Kind::Backref { group, .. } if *group & UNRESOLVED != 0 => Some(0),
        Kind::Backref { group, .. } => fixed_len(root, find_group(root, *group, 0)?, depth + 1),
    }
}

fn check_lookbehinds(root: &Node, node: &Node, depth: usize) -> Result<()> {
    if depth > 4 * MAX_NESTING + 16 {
        return Ok(());
    }
    match &node.kind {
        Kind::Group(g) => {
            if let GroupKind::Lookbehind { .. } = g.kind {
                for b in g.body.branches() {
                    if fixed_len(root, b, 0).is_none() {
                        return Err(ParseError::syntax(125, node.span));
                    }
                }
            }
            check_lookbehinds(root, &g.body, depth + 1)
        }
        Kind::Repeat(r) => check_lookbehinds(root, &r.node, depth + 1),
        Kind::Concat(v) | Kind::Alternation(v) => v
            .iter()
            .try_for_each(|n| check_lookbehinds(root, n, depth + 1)),
        _ => Ok(()),
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn peek_at(&self, n: usize) -> Option<u8> {
        self.s.get(self.pos + n).copied()
    }

    fn at(&self, prefix: &[u8]) -> bool {
        self.s[self.pos..].starts_with(prefix)
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn err(&self, code: u16, start: usize) -> ParseError {
        ParseError::syntax(code, span(start, self.pos.max(start)))
    }

    /// PCRE2's option settings at the very start of a pattern (`(*UTF)`, `(*LIMIT_MATCH=1000)`,
    /// pcre2pattern "Option settings"). Those that leave which bytes match alone are read
    /// past, so that a leading verb does not hide the rest of the pattern from the analyses
    /// (overlapping captures behind `(*UTF)` are overlapping captures). The others stay
    /// unsupported (the group parser refuses them): a newline convention (`(*CR)`, `(*ANY)`,
    /// …) changes what `.`, `^` and `$` match, `(*NOTEMPTY)` what a match is, `(*BSR_…)` what
    /// `\R` matches.
    ///
    /// `(*UTF)` makes PCRE2 read the pattern and the subject as UTF-8; for a pattern of
    /// ASCII characters with no escape above ASCII or Unicode-only escape, a character
    /// set matches the same ASCII bytes, and a non-ASCII character is matched whole where
    /// this parser sees its bytes one by one (which bytes can reach a capture is the same;
    /// a subject that is not UTF-8 fails to match, and nginx answers 500). Anything beyond
    /// that is left unsupported. `(*UCP)` only changes `\d`, `\w`, `\s` and `\b` for
    /// non-ASCII characters in UTF mode.
    fn start_options(&mut self) -> Result<()> {
        let mut utf = false;
        while self.s[self.pos..].starts_with(b"(*") {
            let body = self.pos + 2;
            let Some(len) = self.s[body..].iter().position(|&b| b == b')') else {
                break;
            };
            let name = &self.s[body..body + len];
            let (word, value) = match name.iter().position(|&b| b == b'=') {
                Some(i) => (&name[..i], Some(&name[i + 1..])),
                None => (name, None),
            };
            let known = match (word, value) {
                (b"UTF" | b"UCP", None) => {
                    utf = true;
                    true
                }
                (
                    b"NO_AUTO_POSSESS" | b"NO_START_OPT" | b"NO_DOTSTAR_ANCHOR" | b"NO_JIT" | b"LF",
                    None,
                ) => true,
                (b"LIMIT_MATCH" | b"LIMIT_DEPTH" | b"LIMIT_HEAP" | b"LIMIT_RECURSION", Some(v)) => {
                    !v.is_empty() && v.iter().all(u8::is_ascii_digit)
                }
                _ => false,
            };
            if !known {
                break;
            }
            self.pos = body + len + 1;
        }
        if utf {
            let rest = &self.s[self.pos..];
            let beyond_ascii = rest.iter().any(|&b| b >= 0x80)
                || rest.windows(2).any(|w| {
                    w[0] == b'\\' && matches!(w[1], b'x' | b'o' | b'N' | b'p' | b'P' | b'X' | b'C')
                });
            if beyond_ascii {
                return Err(self.unsupported(0, "`(*UTF)` with characters or escapes beyond ASCII"));
            }
        }
        Ok(())
    }

    fn unsupported(&self, start: usize, what: &str) -> ParseError {
        ParseError::unsupported(span(start, self.pos.max(start + 1).min(self.s.len())), what)
    }

    fn resolve_refs(&self, table: &CaptureTable) -> Result<Vec<u32>> {
        let mut out = Vec::with_capacity(self.refs.len());
        for (r, sp) in &self.refs {
            let group = match r {
                Ref::Number(n) => (*n >= 1 && *n <= table.count).then_some(*n),
                Ref::Name(name) => {
                    let mut all = table.names.iter().filter(|(n, _)| n == name);
                    let first = all.next().map(|&(_, i)| i);
                    if first.is_some() && all.next().is_some() {
                        return Err(ParseError::unsupported(
                            *sp,
                            "a reference to a duplicated group name",
                        ));
                    }
                    first
                }
            };
            match group {
                Some(g) => out.push(g),
                None => return Err(ParseError::syntax(115, *sp)),
            }
        }
        Ok(out)
    }

    /// Skips white space and `#` comments under `(?x)`.
    fn skip_extended(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' => self.pos += 1,
                b'#' => {
                    while let Some(c) = self.peek() {
                        self.pos += 1;
                        if c == b'\n' {
                            break;
                        }
                    }
                }
                _ => break,
            }
        }
    }

    fn alternation(&mut self) -> Result<Node> {
        let start = self.pos;
        let mut branches = vec![self.concat()?];
        while self.eat(b'|') {
            branches.push(self.concat()?);
        }
        Ok(if branches.len() == 1 {
            branches
                .pop()
                .unwrap_or(Node::new(Kind::Empty, span(start, start)))
        } else {
            // Exactly sized, as a concatenation's nodes are (see `concat`).
            branches.shrink_to_fit();
            Node::new(Kind::Alternation(branches.into()), span(start, self.pos))
        })
    }

    fn literal(&self, byte: u8, start: usize) -> Node {
        Node::new(
            Kind::Literal {
                byte,
                caseless: self.flags.caseless && byte.is_ascii_alphabetic(),
            },
            span(start, self.pos),
        )
    }

    fn concat(&mut self) -> Result<Node> {
        let start = self.pos;
        let mut items: Vec<Node> = Vec::new();
        // Whether the last item can take a quantifier.
        let mut quantifiable = false;
        loop {
            if self.in_quote {
                if self.at(b"\\E") {
                    self.pos += 2;
                    self.in_quote = false;
                    continue;
                }
                let Some(b) = self.peek() else { break };
                let at = self.pos;
                self.pos += 1;
                items.push(self.literal(b, at));
                quantifiable = true;
                continue;
            }
            if self.flags.extended {
                self.skip_extended();
            }
            let Some(c) = self.peek() else { break };
            match c {
                b'|' | b')' => break,
                b'*' | b'+' | b'?' => {
                    let at = self.pos;
                    self.pos += 1;
                    let (min, max) = match c {
                        b'*' => (0, None),
                        b'+' => (1, None),
                        _ => (0, Some(1)),
                    };
                    self.quantify(&mut items, quantifiable, at, min, max)?;
                    quantifiable = false;
                }
                b'{' => match self.braces()? {
                    Some((min, max, end)) => {
                        let at = self.pos;
                        self.pos = end;
                        self.quantify(&mut items, quantifiable, at, min, max)?;
                        quantifiable = false;
                    }
                    None => {
                        let at = self.pos;
                        self.pos += 1;
                        items.push(self.literal(b'{', at));
                        quantifiable = true;
                    }
                },
                _ => {
                    if let Some(q) = self.atom(&mut items)? {
                        quantifiable = q;
                    }
                }
            }
        }
        Ok(match items.len() {
            0 => Node::new(Kind::Empty, span(start, self.pos)),
            1 => items
                .pop()
                .unwrap_or(Node::new(Kind::Empty, span(start, start))),
            _ => {
                // Exactly sized: a parsed regex is kept (per distinct pattern) as long as
                // the configuration, and a list grown by doubling held up to twice its
                // nodes (a literal per byte: `^/static1/` alone kept 320 bytes).
                items.shrink_to_fit();
                Node::new(Kind::Concat(items.into()), span(start, self.pos))
            }
        })
    }

    /// A `{n}`, `{n,}` or `{n,m}` at the current position: (min, max, end). Anything else
    /// starting with `{` is a literal in PCRE2 10.42 (`{,n}` included).
    fn braces(&self) -> Result<Option<(u32, Option<u32>, usize)>> {
        let s = &self.s[self.pos..];
        let digits = |from: usize| s[from..].iter().take_while(|b| b.is_ascii_digit()).count();
        let n1 = digits(1);
        if n1 == 0 {
            return Ok(None);
        }
        let number = |from: usize, len: usize| -> Result<u32> {
            let mut v: u32 = 0;
            for &b in &s[from..from + len] {
                v = v.saturating_mul(10).saturating_add(u32::from(b - b'0'));
            }
            if v > MAX_REPEAT {
                let end = self.pos + from + len;
                return Err(ParseError::syntax(105, span(self.pos, end)));
            }
            Ok(v)
        };
        let mut i = 1 + n1;
        match s.get(i) {
            Some(b'}') => {
                let min = number(1, n1)?;
                Ok(Some((min, Some(min), self.pos + i + 1)))
            }
            Some(b',') => {
                i += 1;
                let n2 = digits(i);
                if s.get(i + n2) != Some(&b'}') {
                    return Ok(None);
                }
                let min = number(1, n1)?;
                let max = if n2 == 0 { None } else { Some(number(i, n2)?) };
                if max.is_some_and(|m| m < min) {
                    return Err(ParseError::syntax(104, span(self.pos, self.pos + i + n2)));
                }
                Ok(Some((min, max, self.pos + i + n2 + 1)))
            }
            _ => Ok(None),
        }
    }

    /// Wraps the last item in a repeat; `at` is where the quantifier starts, the position
    /// is just past it (the `?`/`+` mode is read here).
    fn quantify(
        &mut self,
        items: &mut Vec<Node>,
        quantifiable: bool,
        at: usize,
        min: u32,
        max: Option<u32>,
    ) -> Result<()> {
        if !quantifiable {
            return Err(ParseError::syntax(109, span(at, self.pos)));
        }
        let mut mode = if self.flags.ungreedy {
            Mode::Lazy
        } else {
            Mode::Greedy
        };
        if self.eat(b'?') {
            mode = if self.flags.ungreedy {
                Mode::Greedy
            } else {
                Mode::Lazy
            };
        } else if self.eat(b'+') {
            mode = Mode::Possessive;
        }
        let Some(node) = items.pop() else {
            return Err(ParseError::syntax(109, span(at, self.pos)));
        };
        let sp = span(node.span.start as usize, self.pos);
        items.push(Node::new(
            Kind::Repeat(Box::new(Repeat {
                node,
                min,
                max,
                mode,
                quantifier: span(at, self.pos),
            })),
            sp,
        ));
        Ok(())
    }

    /// Reads one atom onto `items`; returns whether it can be quantified, or `None` when
    /// nothing was added and the previous item's status stands (`\E`, `(?#…)`).
    fn atom(&mut self, items: &mut Vec<Node>) -> Result<Option<bool>> {
        let start = self.pos;
        let c = self.s[self.pos];
        self.pos += 1;
        let set = |set: ByteSet, written| {
            Kind::Set(Box::new(CharSet {
                set,
                unsure: ByteSet::EMPTY,
                written,
            }))
        };
        let node = match c {
            b'(' => {
                return match self.group(start)? {
                    Grouped::Node(n) => {
                        items.push(n);
                        Ok(Some(true))
                    }
                    Grouped::Options => Ok(Some(false)),
                    Grouped::Comment => Ok(None),
                };
            }
            b'[' => {
                if let Some((kind, _, _, _)) = self.posix_at(start) {
                    self.pos = start;
                    return Err(self.err(if kind == b':' { 112 } else { 113 }, start));
                }
                self.class(start)?
            }
            b'.' => {
                let dotall = self.flags.dotall;
                let mut s = ByteSet::ALL;
                if !dotall {
                    s = s.minus(ByteSet::of(b"\n"));
                }
                Node::new(set(s, SetKind::Dot { dotall }), span(start, self.pos))
            }
            b'^' => {
                items.push(Node::new(
                    Kind::Assert(Assertion::StartLine {
                        multiline: self.flags.multiline,
                    }),
                    span(start, self.pos),
                ));
                return Ok(Some(false));
            }
            b'$' => {
                items.push(Node::new(
                    Kind::Assert(Assertion::EndLine {
                        multiline: self.flags.multiline,
                    }),
                    span(start, self.pos),
                ));
                return Ok(Some(false));
            }
            b'\\' => match self.escape(start, false)? {
                Escape::Byte(b) => self.literal(b, start),
                Escape::Set(s, unsure, written) => Node::new(
                    Kind::Set(Box::new(CharSet {
                        set: s,
                        unsure,
                        written,
                    })),
                    span(start, self.pos),
                ),
                Escape::Assert(a) => {
                    items.push(Node::new(Kind::Assert(a), span(start, self.pos)));
                    return Ok(Some(false));
                }
                Escape::Backref(r) => {
                    // Resolved once the whole pattern is read: references may point forwards.
                    let sp = span(start, self.pos);
                    self.refs.push((r, sp));
                    let group = UNRESOLVED | (self.refs.len() as u32 - 1);
                    Node::new(
                        Kind::Backref {
                            group,
                            caseless: self.flags.caseless,
                        },
                        sp,
                    )
                }
                Escape::Newline => newline_node(span(start, self.pos)),
                Escape::Quote => {
                    self.in_quote = true;
                    return Ok(None);
                }
                Escape::EndQuote => return Ok(None),
            },
            b => self.literal(b, start),
        };
        items.push(node);
        Ok(Some(true))
    }

    /// `\R`: `(?>\r\n|\n|\x0b|\f|\r|\x85)`.
    fn escape(&mut self, start: usize, in_class: bool) -> Result<Escape> {
        let Some(c) = self.peek() else {
            return Err(self.err(101, start));
        };
        self.pos += 1;
        let s = |set: ByteSet, letter: u8| {
            Ok(Escape::Set(set, ByteSet::EMPTY, SetKind::Escape(letter)))
        };
        match c {
            b'd' => s(set::digit(), c),
            b'D' => s(set::digit().complement(), c),
            b'w' => s(set::word(), c),
            b'W' => s(set::word().complement(), c),
            b's' => s(set::space(), c),
            b'S' => s(set::space().complement(), c),
            b'h' => s(set::hspace(), c),
            b'H' => s(set::hspace().complement(), c),
            b'v' => s(set::vspace(), c),
            b'V' => s(set::vspace().complement(), c),
            b'N' => {
                if self.peek() == Some(b'{') && !self.peek_at(1).is_some_and(|b| b.is_ascii_digit())
                {
                    let code = if self.at(b"{U+") { 193 } else { 137 };
                    return Err(self.err(code, start));
                }
                if in_class {
                    return Err(self.err(171, start));
                }
                s(ByteSet::ALL.minus(ByteSet::of(b"\n")), c)
            }
            b'p' | b'P' => self.property(start, c == b'P'),
            b'n' => Ok(Escape::Byte(b'\n')),
            b'r' => Ok(Escape::Byte(b'\r')),
            b't' => Ok(Escape::Byte(b'\t')),
            b'f' => Ok(Escape::Byte(0x0c)),
            b'e' => Ok(Escape::Byte(0x1b)),
            b'a' => Ok(Escape::Byte(0x07)),
            b'b' if in_class => Ok(Escape::Byte(0x08)),
            b'g' if in_class => Ok(Escape::Byte(b'g')),
            b'Q' => Ok(Escape::Quote),
            b'E' => Ok(Escape::EndQuote),
            b'x' => self.hex(start),
            b'o' => self.octal_braced(start),
            b'c' => {
                let Some(x) = self.peek() else {
                    return Err(self.err(102, start));
                };
                if !(0x20..0x7f).contains(&x) {
                    self.pos += 1;
                    return Err(self.err(168, start));
                }
                self.pos += 1;
                Ok(Escape::Byte(x.to_ascii_uppercase() ^ 0x40))
            }
            b'0' => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 2 && self.peek().is_some_and(|b| (b'0'..=b'7').contains(&b)) {
                    v = v * 8 + u32::from(self.s[self.pos] - b'0');
                    self.pos += 1;
                    n += 1;
                }
                Ok(Escape::Byte(v as u8))
            }
            b'1'..=b'9' => {
                if in_class {
                    if c >= b'8' {
                        return Ok(Escape::Byte(c));
                    }
                    self.pos -= 1;
                    return self.octal_digits(start);
                }
                let digits_start = self.pos - 1;
                let mut end = digits_start;
                while self.s.get(end).is_some_and(|b| b.is_ascii_digit()) {
                    end += 1;
                }
                let mut n: u32 = 0;
                for &b in &self.s[digits_start..end] {
                    n = n.saturating_mul(10).saturating_add(u32::from(b - b'0'));
                }
                if n < 10 || c >= b'8' || n <= self.groups {
                    self.pos = end;
                    return Ok(Escape::Backref(Ref::Number(n)));
                }
                self.pos = digits_start;
                self.octal_digits(start)
            }
            b'b' => Ok(Escape::Assert(Assertion::WordBoundary)),
            b'B' | b'A' | b'z' | b'Z' | b'G' | b'K' | b'k' | b'C' | b'X' | b'R' if in_class => {
                Err(self.err(107, start))
            }
            b'B' => Ok(Escape::Assert(Assertion::NotWordBoundary)),
            b'A' => Ok(Escape::Assert(Assertion::StartSubject)),
            b'z' => Ok(Escape::Assert(Assertion::EndSubject)),
            b'Z' => Ok(Escape::Assert(Assertion::EndSubjectOrNewline)),
            b'G' => Ok(Escape::Assert(Assertion::StartOfMatch)),
            b'R' => Ok(Escape::Newline),
            b'K' => Err(self.unsupported(start, "`\\K`")),
            b'X' => Err(self.unsupported(start, "`\\X`")),
            b'C' => Err(self.unsupported(start, "`\\C`")),
            b'k' => self.named_ref_k(start),
            b'g' => self.ref_g(start),
            b'F' | b'L' | b'l' | b'U' | b'u' => Err(self.err(137, start)),
            c if c.is_ascii_alphanumeric() => Err(self.err(103, start)),
            c => Ok(Escape::Byte(c)),
        }
    }

    /// Up to three octal digits at the position (the first is known to be one).
    fn octal_digits(&mut self, start: usize) -> Result<Escape> {
        let mut v = 0u32;
        let mut n = 0;
        while n < 3 && self.peek().is_some_and(|b| (b'0'..=b'7').contains(&b)) {
            v = v * 8 + u32::from(self.s[self.pos] - b'0');
            self.pos += 1;
            n += 1;
        }
        if n == 0 {
            // `\8` / `\9` are handled by the caller; nothing else arrives here.
            return Err(self.err(103, start));
        }
        if v > 255 {
            return Err(self.err(151, start));
        }
        Ok(Escape::Byte(v as u8))
    }

    fn hex(&mut self, start: usize) -> Result<Escape> {
        if self.eat(b'{') {
            let mut v: u32 = 0;
            let mut n = 0;
            while let Some(d) = self.peek().and_then(|b| (b as char).to_digit(16)) {
                v = v.saturating_mul(16).saturating_add(d);
                self.pos += 1;
                n += 1;
            }
            if v > 255 {
                return Err(self.err(134, start));
            }
            if self.eat(b'}') {
                if n == 0 {
                    return Err(self.err(178, start));
                }
                return Ok(Escape::Byte(v as u8));
            }
            return Err(self.err(167, start));
        }
        let mut v = 0u32;
        let mut n = 0;
        while n < 2 {
            match self.peek().and_then(|b| (b as char).to_digit(16)) {
                Some(d) => {
                    v = v * 16 + d;
                    self.pos += 1;
                    n += 1;
                }
                None => break,
            }
        }
        Ok(Escape::Byte(v as u8))
    }

    fn octal_braced(&mut self, start: usize) -> Result<Escape> {
        if !self.eat(b'{') {
            return Err(self.err(155, start));
        }
        let mut v: u32 = 0;
        let mut n = 0;
        while let Some(b) = self.peek().filter(|b| (b'0'..=b'7').contains(b)) {
            v = v.saturating_mul(8).saturating_add(u32::from(b - b'0'));
            self.pos += 1;
            n += 1;
        }
        if v > 255 {
            return Err(self.err(134, start));
        }
        if self.eat(b'}') {
            if n == 0 {
                return Err(self.err(178, start));
            }
            return Ok(Escape::Byte(v as u8));
        }
        Err(self.err(164, start))
    }

    fn property(&mut self, start: usize, negated: bool) -> Result<Escape> {
        let braced = self.peek() == Some(b'{');
        let (name, mut neg) = match self.peek() {
            None => return Err(self.err(146, start)),
            Some(b'{') => {
                self.pos += 1;
                let neg = self.eat(b'^');
                let from = self.pos;
                while self.peek().is_some_and(|b| b != b'}') {
                    self.pos += 1;
                }
                if self.peek().is_none() {
                    return Err(self.err(146, start));
                }
                let name = self.s[from..self.pos].to_vec();
                self.pos += 1;
                (name, neg)
            }
            Some(b) => {
                self.pos += 1;
                (vec![b], false)
            }
        };
        if negated {
            neg = !neg;
        }
        let norm = props::normalise(&name);
        if norm.contains(&b':') || norm.contains(&b'=') {
            return Err(self.unsupported(start, "a property with a `:` or `=` qualifier"));
        }
        let Some(p) = props::lookup(&norm) else {
            if name.len() == 1 && !name[0].is_ascii_alphabetic() && !braced {
                return Err(self.err(146, start));
            }
            return Err(self.unsupported(start, "this Unicode property"));
        };
        let set = if neg {
            p.set.complement().minus(p.unsure)
        } else {
            p.set
        };
        Ok(Escape::Set(set, p.unsure, SetKind::Property))
    }

    /// A group name terminated by `term`.
    fn name(&mut self, term: u8) -> Result<String> {
        let start = self.pos;
        match self.peek() {
            None => return Err(self.err(162, start)),
            Some(b) if b.is_ascii_digit() => return Err(self.err(144, start)),
            _ => {}
        }
        while self.peek().is_some_and(is_name_byte) {
            self.pos += 1;
        }
        let len = self.pos - start;
        if len == 0 {
            return Err(self.err(162, start));
        }
        if len > 32 {
            return Err(self.err(148, start));
        }
        let name = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
        if !self.eat(term) {
            return Err(self.err(142, start));
        }
        Ok(name)
    }

    fn named_ref_k(&mut self, start: usize) -> Result<Escape> {
        let term = match self.peek() {
            Some(b'<') => b'>',
            Some(b'\'') => b'\'',
            Some(b'{') => b'}',
            _ => return Err(self.err(169, start)),
        };
        self.pos += 1;
        Ok(Escape::Backref(Ref::Name(self.name(term)?)))
    }

    fn ref_g(&mut self, start: usize) -> Result<Escape> {
        match self.peek() {
            Some(b'<') | Some(b'\'') => {
                Err(self.unsupported(start, "a subroutine call (`\\g<…>`)"))
            }
            Some(b'{') => {
                self.pos += 1;
                if self
                    .peek()
                    .is_some_and(|b| b.is_ascii_digit() || b == b'-' || b == b'+')
                {
                    let n = self.signed_number(start)?;
                    if !self.eat(b'}') {
                        return Err(self.err(157, start));
                    }
                    Ok(Escape::Backref(Ref::Number(n)))
                } else {
                    Ok(Escape::Backref(Ref::Name(self.name(b'}')?)))
                }
            }
            Some(b) if b.is_ascii_digit() || b == b'-' || b == b'+' => {
                let n = self.signed_number(start)?;
                Ok(Escape::Backref(Ref::Number(n)))
            }
            _ => Err(self.err(157, start)),
        }
    }

    /// `n`, `-n` (relative, back) or `+n` (relative, forward) as an absolute group number
    /// (0 when there is no such group).
    fn signed_number(&mut self, start: usize) -> Result<u32> {
        let sign = match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                -1
            }
            Some(b'+') => {
                self.pos += 1;
                1
            }
            _ => 0,
        };
        let from = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if from == self.pos {
            return Err(self.err(157, start));
        }
        let mut n: i64 = 0;
        for &b in &self.s[from..self.pos] {
            n = (n * 10 + i64::from(b - b'0')).min(1 << 20);
        }
        let g = self.groups as i64;
        let abs = match sign {
            -1 => g - n + 1,
            1 => g + n,
            _ => n,
        };
        Ok(if sign == -1 && n == 0 {
            0
        } else {
            abs.clamp(0, 1 << 20) as u32
        })
    }

    /// A POSIX class `[:name:]` (or `[.x.]`, `[=x=]`) starting at `at`: (kind byte,
    /// negated, name range, end).
    fn posix_at(&self, at: usize) -> Option<(u8, bool, (usize, usize), usize)> {
        let s = self.s;
        let kind = *s.get(at + 1)?;
        if !matches!(kind, b':' | b'.' | b'=') {
            return None;
        }
        let mut i = at + 2;
        let neg = kind == b':' && s.get(i) == Some(&b'^');
        if neg {
            i += 1;
        }
        let from = i;
        while let Some(&b) = s.get(i) {
            if b == kind && s.get(i + 1) == Some(&b']') {
                return Some((kind, neg, (from, i), i + 2));
            }
            if b == b'\\' && matches!(s.get(i + 1), Some(b']' | b'\\')) {
                i += 2;
                continue;
            }
            if b == b'[' || b == b']' {
                return None;
            }
            i += 1;
        }
        None
    }

    fn class(&mut self, start: usize) -> Result<Node> {
        let negated = self.eat(b'^');
        let caseless = self.flags.caseless;
        // Literal parts (folded under `(?i)`) and property parts (never folded).
        let mut lits = ByteSet::EMPTY;
        let mut props_set = ByteSet::EMPTY;
        let mut unsure = ByteSet::EMPTY;
        let mut first = true;
        let mut quote = false;
        loop {
            if quote {
                if self.at(b"\\E") {
                    self.pos += 2;
                    quote = false;
                    continue;
                }
            } else if self.flags.extended_more && matches!(self.peek(), Some(b' ' | b'\t')) {
                self.pos += 1;
                continue;
            }
            let Some(c) = self.peek() else {
                return Err(self.err(106, start));
            };
            if c == b']' && !first && !quote {
                self.pos += 1;
                break;
            }
            let item_start = self.pos;
            let atom = self.class_atom(quote, &mut quote)?;
            let lo = match atom {
                ClassAtom::Nothing => continue,
                a => a,
            };
            first = false;
            let dash = self.peek() == Some(b'-') && !quote;
            let range_follows = dash && self.peek_at(1).is_some_and(|b| b != b']');
            match lo {
                ClassAtom::Byte(lo) if range_follows => {
                    self.pos += 1;
                    let hi_start = self.pos;
                    match self.class_atom(false, &mut quote)? {
                        ClassAtom::Byte(hi) => {
                            if hi < lo {
                                return Err(self.err(108, item_start));
                            }
                            lits.insert_range(lo, hi);
                        }
                        ClassAtom::Set(..) => {
                            return Err(ParseError::syntax(150, span(hi_start, self.pos)))
                        }
                        ClassAtom::Nothing => {
                            // `[a-\Q\E…`: the `-` is a literal.
                            lits.insert(lo);
                            lits.insert(b'-');
                        }
                    }
                }
                ClassAtom::Byte(b) => lits.insert(b),
                ClassAtom::Set(..) if range_follows => {
                    self.pos += 1;
                    return Err(self.err(150, item_start));
                }
                ClassAtom::Set(s, u) => {
                    if u.is_empty() && !self.last_was_property(item_start) {
                        lits = lits.union(s);
                    } else {
                        props_set = props_set.union(s);
                        unsure = unsure.union(u);
                    }
                }
                ClassAtom::Nothing => {}
            }
        }
        if caseless {
            lits = lits.case_closed();
        }
        let mut set = lits.union(props_set);
        if negated {
            set = set.complement().minus(unsure);
        }
        Ok(Node::new(
            Kind::Set(Box::new(CharSet {
                set,
                unsure,
                written: SetKind::Class { negated },
            })),
            span(start, self.pos),
        ))
    }

    fn last_was_property(&self, item_start: usize) -> bool {
        self.s[item_start..].starts_with(b"\\p") || self.s[item_start..].starts_with(b"\\P")
    }

    /// One item of a class at the position (a byte, an escape, a POSIX class).
    fn class_atom(&mut self, in_quote: bool, quote: &mut bool) -> Result<ClassAtom> {
        let at = self.pos;
        let Some(c) = self.peek() else {
            return Err(self.err(106, at));
        };
        if in_quote {
            self.pos += 1;
            return Ok(ClassAtom::Byte(c));
        }
        if c == b'[' {
            if let Some((kind, neg, (a, b), end)) = self.posix_at(at) {
                self.pos = end;
                if kind != b':' {
                    return Err(self.err(113, at));
                }
                let name = &self.s[a..b];
                if name == b"<" || name == b">" {
                    return Err(self.unsupported(at, "`[[:<:]]` / `[[:>:]]`"));
                }
                let Some(mut s) = set::posix(name) else {
                    return Err(ParseError::syntax(130, span(at, end)));
                };
                if self.flags.caseless && (name == b"upper" || name == b"lower") {
                    s = set::posix(b"alpha").unwrap_or(s);
                }
                if neg {
                    s = s.complement();
                }
                return Ok(ClassAtom::Set(s, ByteSet::EMPTY));
            }
        }
        self.pos += 1;
        if c != b'\\' {
            return Ok(ClassAtom::Byte(c));
        }
        Ok(match self.escape(at, true)? {
            Escape::Byte(b) => ClassAtom::Byte(b),
            Escape::Set(s, u, _) => ClassAtom::Set(s, u),
            Escape::Quote => {
                *quote = true;
                ClassAtom::Nothing
            }
            Escape::EndQuote => ClassAtom::Nothing,
            // Refused by `escape` inside a class.
            Escape::Assert(_) | Escape::Backref(_) | Escape::Newline => {
                return Err(self.err(107, at))
            }
        })
    }

    /// The group at `start` (the `(` is read).
    fn group(&mut self, start: usize) -> Result<Grouped> {
        if self.depth >= MAX_NESTING {
            return Err(ParseError::syntax(119, span(start, start + 1)));
        }
        let kind = if self.eat(b'*') {
            return Err(self.unsupported(start, "a backtracking verb or `(*…)` option"));
        } else if self.eat(b'?') {
            let Some(c) = self.peek() else {
                return Err(self.err(114, start));
            };
            match c {
                b':' => {
                    self.pos += 1;
                    GroupKind::NonCapture
                }
                b'=' | b'!' => {
                    self.pos += 1;
                    GroupKind::Lookahead { negated: c == b'!' }
                }
                b'>' => {
                    self.pos += 1;
                    GroupKind::Atomic
                }
                b'<' if matches!(self.peek_at(1), Some(b'=' | b'!')) => {
                    let negated = self.peek_at(1) == Some(b'!');
                    self.pos += 2;
                    GroupKind::Lookbehind { negated }
                }
                b'<' | b'\'' => {
                    self.pos += 1;
                    let name = self.name(if c == b'<' { b'>' } else { b'\'' })?;
                    self.capture(start, Some(name))?
                }
                b'P' => {
                    self.pos += 1;
                    match self.peek() {
                        Some(b'<') => {
                            self.pos += 1;
                            let name = self.name(b'>')?;
                            self.capture(start, Some(name))?
                        }
                        Some(b'=') => {
                            self.pos += 1;
                            let name = self.name(b')')?;
                            let sp = span(start, self.pos);
                            self.refs.push((Ref::Name(name), sp));
                            return Ok(Grouped::Node(Node::new(
                                Kind::Backref {
                                    group: UNRESOLVED | (self.refs.len() as u32 - 1),
                                    caseless: self.flags.caseless,
                                },
                                sp,
                            )));
                        }
                        Some(b'>') => {
                            return Err(self.unsupported(start, "a subroutine call (`(?P>…)`)"))
                        }
                        None => return Err(self.err(114, start)),
                        _ => return Err(self.err(141, start)),
                    }
                }
                b'#' => {
                    while let Some(b) = self.peek() {
                        self.pos += 1;
                        if b == b')' {
                            return Ok(Grouped::Comment);
                        }
                    }
                    return Err(self.err(118, start));
                }
                b'|' => return Err(self.unsupported(start, "a branch reset group `(?|…)`")),
                b'(' => return Err(self.unsupported(start, "a conditional group `(?(…)…)`")),
                b'C' => return Err(self.unsupported(start, "a callout `(?C…)`")),
                b'R' | b'&' | b'0'..=b'9' => {
                    return Err(self.unsupported(start, "recursion or a subroutine call"))
                }
                b'+' | b'-' if self.peek_at(1).is_some_and(|b| b.is_ascii_digit()) => {
                    return Err(self.unsupported(start, "a subroutine call"))
                }
                _ => return self.options(start),
            }
        } else if self.flags.no_auto_capture {
            GroupKind::NonCapture
        } else {
            self.capture(start, None)?
        };
        self.group_body(start, kind, self.flags).map(Grouped::Node)
    }

    fn capture(&mut self, start: usize, name: Option<String>) -> Result<GroupKind> {
        self.groups += 1;
        let index = self.groups;
        if let Some(n) = &name {
            if !self.flags.dupnames && self.names.iter().any(|(m, _)| m == n) {
                return Err(self.err(143, start));
            }
            self.names.push((n.clone(), index));
        }
        Ok(GroupKind::Capture { index, name })
    }

    /// Reads a group's body and its `)`; the options in force are restored after it.
    fn group_body(&mut self, start: usize, kind: GroupKind, inner: Flags) -> Result<Node> {
        let saved = self.flags;
        self.flags = inner;
        self.depth += 1;
        let body = self.alternation()?;
        self.depth -= 1;
        self.flags = saved;
        if !self.eat(b')') {
            return Err(self.err(114, start));
        }
        Ok(Node::new(
            Kind::Group(Box::new(Group { kind, body })),
            span(start, self.pos),
        ))
    }

    /// `(?imnsxJU-imnsxJU)` or `(?…:…)`; the `(?` is read.
    fn options(&mut self, start: usize) -> Result<Grouped> {
        let mut f = self.flags;
        let mut on = true;
        if self.eat(b'^') {
            f.caseless = false;
            f.multiline = false;
            f.dotall = false;
            f.extended = false;
            f.extended_more = false;
            f.no_auto_capture = false;
            f.ungreedy = false;
            if self.peek() == Some(b'-') {
                self.pos += 1;
                return Err(self.err(194, start));
            }
        }
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err(114, start));
            };
            self.pos += 1;
            match c {
                b')' => {
                    self.flags = f;
                    return Ok(Grouped::Options);
                }
                b':' => {
                    return self
                        .group_body(start, GroupKind::NonCapture, f)
                        .map(Grouped::Node)
                }
                b'-' if on => on = false,
                b'i' => f.caseless = on,
                b'm' => f.multiline = on,
                b's' => f.dotall = on,
                b'n' => f.no_auto_capture = on,
                b'U' => f.ungreedy = on,
                b'J' => f.dupnames = on,
                b'x' => {
                    if on && self.peek() == Some(b'x') {
                        self.pos += 1;
                        f.extended_more = true;
                    } else if !on {
                        f.extended_more = false;
                    }
                    f.extended = on;
                }
                _ => return Err(self.err(111, start)),
            }
        }
    }
}

/// `\R`: any of CR LF, LF, VT, FF, CR, NEL, as an atomic group.
fn newline_node(sp: Span) -> Node {
    let lit = |b| {
        Node::new(
            Kind::Literal {
                byte: b,
                caseless: false,
            },
            sp,
        )
    };
    let alts = vec![
        Node::new(Kind::Concat(Box::new([lit(b'\r'), lit(b'\n')])), sp),
        lit(b'\n'),
        lit(0x0b),
        lit(0x0c),
        lit(b'\r'),
        lit(0x85),
    ];
    Node::new(
        Kind::Group(Box::new(Group {
            kind: GroupKind::Atomic,
            body: Node::new(Kind::Alternation(alts.into()), sp),
        })),
        sp,
    )
}
