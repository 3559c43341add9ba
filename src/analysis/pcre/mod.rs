//! PCRE analysis: nginx's regexes (`location ~`, `if (… ~ …)`, `rewrite`, `map`,
//! `server_name ~`, `valid_referers ~`) read as PCRE2 reads them, and questions rules ask
//! about them.
//!
//! nginx compiles with PCRE2's 8-bit library, `PCRE2_CASELESS` for `~*`, and no
//! `PCRE2_UTF`: patterns and subjects are bytes. [`Regex::parse`] accepts the syntax PCRE2
//! 10.42 accepts — literals and escapes (`\d \w \s \h \v \N \R \b \B \A \z \Z \G`, `\xHH`,
//! `\x{HH}`, `\o{…}`, octal, `\cX`, `\t \n \r \f \e \a`, `\Q…\E`), `.`, `^`, `$`, classes
//! with ranges, negation, escapes and POSIX classes, Unicode properties, capturing, named,
//! non-capturing, atomic and lookaround groups, inline options (`i m s x xx n U J`, `^`),
//! comments, alternation, greedy/lazy/possessive quantifiers, backreferences — and refuses
//! what PCRE2 refuses with PCRE2's message ([`ErrorKind::Syntax`]). Valid PCRE2 beyond that
//! (recursion, conditionals, verbs, `\K`, …) is [`ErrorKind::Unsupported`].
//!
//! Every query is bounded: structural ones walk the tree once (its depth is capped at
//! [`parser::MAX_NESTING`] groups), matching counts steps and stack ([`Limits`]) and says
//! [`Undecided`] rather than run on. Unicode properties are exact for general categories
//! and approximate for scripts above U+007F; matching that depends on such a byte is
//! undecided, and [`Regex::approximations`] says where.
//!
//! Layout: `ast` (the tree), `parser` (with the capture table), `set` and `props` (byte
//! sets, POSIX classes, Unicode properties), `program` and `matcher` (the backtracking
//! matcher), `queries` (anchoring, capture contents, literal prefix), `redos`.

pub mod ast;
pub mod error;
mod matcher;
pub mod parser;
mod program;
pub mod props;
pub mod queries;
pub mod redos;
pub mod sample;
pub mod set;

pub use ast::{Assertion, CharSet, Group, GroupKind, Kind, Mode, Node, Repeat, SetKind};
pub use error::{ErrorKind, ParseError};
pub use matcher::{Captures, Limits, Undecided};
pub use parser::{CaptureTable, MAX_NESTING, MAX_PATTERN};
pub use queries::{Possible, Target};
pub use redos::{Attack, Redos, Risk};
pub use set::ByteSet;

use crate::source::Span;
use std::sync::OnceLock;

/// A parsed pattern, ready for questions.
pub struct Regex {
    pattern: Box<[u8]>,
    caseless: bool,
    root: Node,
    captures: CaptureTable,
    /// `None` when the pattern unrolls past `program::MAX_PROGRAM` instructions. Compiled
    /// on first use: most patterns are only asked structural questions (ReDoS candidates,
    /// prefixes), and unrolling counted repeats cost more than parsing (a third of the
    /// whole corpus run went to patterns never matched). Boxed: a regex not matched
    /// keeps 16 bytes here rather than the program's 96, and a configuration's regexes
    /// are kept for the whole run (one per distinct location regex).
    program: OnceLock<Option<Box<program::Program>>>,
    start: matcher::Start,
    /// The bytes each capture can hold (0 = whole match), on first use like `program`.
    capture_sets: OnceLock<Vec<ByteSet>>,
}

impl std::fmt::Debug for Regex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Regex")
            .field("pattern", &String::from_utf8_lossy(&self.pattern))
            .field("caseless", &self.caseless)
            .finish()
    }
}

impl Regex {
    /// Parses a pattern as nginx compiles it; `caseless` for `~*`.
    pub fn parse(pattern: &str, caseless: bool) -> Result<Regex, ParseError> {
        Regex::parse_bytes(pattern.as_bytes(), caseless)
    }

    pub fn parse_bytes(pattern: &[u8], caseless: bool) -> Result<Regex, ParseError> {
        let (root, captures) = parser::parse(pattern, caseless)?;
        let (first, empty) = queries::first_bytes(&root, 0);
        let start = matcher::Start {
            anchored: queries::anchored_start(&root, 0),
            first: (!empty).then_some(first),
        };
        Ok(Regex {
            pattern: pattern.into(),
            caseless,
            root,
            captures,
            program: OnceLock::new(),
            start,
            capture_sets: OnceLock::new(),
        })
    }

    /// The compiled program, compiled the first time it is asked for.
    fn program(&self) -> Option<&program::Program> {
        self.program
            .get_or_init(|| {
                program::compile(&self.root, self.captures.count())
                    .ok()
                    .map(Box::new)
            })
            .as_deref()
    }

    pub fn pattern(&self) -> &[u8] {
        &self.pattern
    }

    pub fn caseless(&self) -> bool {
        self.caseless
    }

    /// The syntax tree (spans are byte offsets into [`Regex::pattern`]).
    pub fn ast(&self) -> &Node {
        &self.root
    }

    /// The capturing groups: count and names, in PCRE2's numbering.
    pub fn capture_table(&self) -> &CaptureTable {
        &self.captures
    }

    /// Where the pattern uses sets known only approximately (Unicode scripts): matching
    /// a subject with a byte above 0x7F there is undecided.
    pub fn approximations(&self) -> Vec<Span> {
        let mut out = Vec::new();
        collect_approx(&self.root, &mut out, 0);
        out
    }

    /// The leftmost match and its captures (PCRE2's), `Ok(None)` for no match.
    pub fn captures(&self, subject: &[u8]) -> Result<Option<Captures>, Undecided> {
        self.captures_with(subject, Limits::default())
    }

    pub fn captures_with(
        &self,
        subject: &[u8],
        limits: Limits,
    ) -> Result<Option<Captures>, Undecided> {
        let Some(p) = self.program() else {
            return Err(Undecided::TooLarge);
        };
        matcher::search(p, &self.start, subject, limits)
    }

    /// Whether the pattern matches somewhere in `subject`.
    pub fn is_match(&self, subject: &[u8]) -> Result<bool, Undecided> {
        self.captures(subject).map(|c| c.is_some())
    }

    /// Every match starts at the start of the subject (`^`, `\A`, `\G`, in every
    /// alternative; not a `^` under `(?m)`).
    pub fn anchored_start(&self) -> bool {
        self.start.anchored
    }

    /// Every match ends at the end of the subject (`\z`), or before a final newline
    /// (`$`, `\Z`; not a `$` under `(?m)`), in every alternative.
    pub fn anchored_end(&self) -> bool {
        queries::anchored_end(&self.root, 0)
    }

    /// Whether no subject can match both patterns, proven from their anchors: both anchored
    /// at the start with no byte that can begin a match of each, or both anchored at the
    /// end with no byte that can end one of each (`$` also matches before a final newline,
    /// so a pattern whose match may end in `\n` proves nothing that way). `false` is "not
    /// proven".
    pub fn disjoint(&self, other: &Regex) -> bool {
        let (a, b) = (&self.root, &other.root);
        if self.anchored_start() && other.anchored_start() {
            let (fa, ea) = queries::first_bytes(a, 0);
            let (fb, eb) = queries::first_bytes(b, 0);
            if !ea && !eb && fa.intersect(fb).is_empty() {
                return true;
            }
        }
        if self.anchored_end() && other.anchored_end() {
            let (la, ea) = queries::last_bytes(a, 0);
            let (lb, eb) = queries::last_bytes(b, 0);
            if !ea
                && !eb
                && !la.contains(b'\n')
                && !lb.contains(b'\n')
                && la.intersect(lb).is_empty()
            {
                return true;
            }
        }
        false
    }

    /// Whether the text of `target` can contain `byte`: `No` only when proven (a `[^/]+`
    /// group never holds `/`; `.` never holds `\n` without `(?s)`).
    pub fn can_contain(&self, target: Target, byte: u8) -> Possible {
        let sets = self
            .capture_sets
            .get_or_init(|| queries::capture_sets(&self.root, self.captures.count()));
        queries::can_contain(sets, target, byte)
    }

    /// The bytes every match starts with (empty when none are certain).
    pub fn literal_prefix(&self) -> Vec<u8> {
        queries::literal_prefix(&self.root)
    }

    /// A short subject the pattern was most likely written to match (see [`sample`]);
    /// confirm it with [`Regex::is_match`].
    pub fn sample(&self) -> Option<Vec<u8>> {
        sample::sample(&self.root)
    }

    /// A sample whose capture groups `groups` (by number) hold the given text (see
    /// [`sample::sample_with`]); confirm it with [`Regex::is_match`].
    pub fn sample_with(&self, groups: &[(u32, Vec<u8>)]) -> Option<Vec<u8>> {
        sample::sample_with(&self.root, groups)
    }

    /// The subject a ReDoS finding's attack makes PCRE2 itself run: the attack with `n`
    /// pumps, then a sample of the pattern ([`Regex::sample`]). PCRE2 first checks that a
    /// subject holds the last literal byte the pattern requires (its "last code unit"
    /// optimisation: `\.html$` needs an `l`) and fails at once without it; the sample
    /// after the failing suffix supplies those bytes and leaves the backtracking intact.
    pub fn redos_subject(&self, r: &Redos, n: usize) -> Vec<u8> {
        let mut s = r.attack.string(n);
        if let Some(sample) = self.sample() {
            s.extend_from_slice(&sample);
        }
        s
    }

    /// The subject `r`'s attack needs under PCRE2's JIT (`pcre_jit on`), which checks for
    /// the pattern's last required byte ([`queries::last_required_byte`]) at any length:
    /// the attack with `n` pumps and that byte before its failing suffix, or after it, or
    /// a sample after it ([`Regex::redos_subject`]), the first that this matcher finds does
    /// not match. `None` when each of them matches: the byte the JIT asks for completes a
    /// match (`^/(.*.*)x` has no failing subject holding an `x`).
    pub fn redos_subject_jit(&self, r: &Redos, n: usize) -> Option<Vec<u8>> {
        let Some((byte, caseless)) = queries::last_required_byte(&self.root, 0) else {
            return Some(r.attack.string(n));
        };
        let holds = |t: &[u8]| {
            t.iter()
                .any(|&b| b == byte || (caseless && b.eq_ignore_ascii_case(&byte)))
        };
        // The three shapes, with `k` pumps.
        let shape = |which: usize, k: usize| {
            let mut t = r.attack.string(k);
            match which {
                0 if holds(&t) => {}
                0 => return None,
                1 => t.insert(t.len() - r.attack.suffix.len(), byte),
                2 => t.push(byte),
                _ => return Some(self.redos_subject(r, k)),
            }
            Some(t)
        };
        // Decided on a short subject, which this backtracking matcher settles at once (the
        // pumps only repeat what makes the match fail), then built at `n` pumps.
        let probe = n.min(8);
        (0..4)
            .find(|&w| shape(w, probe).is_some_and(|t| holds(&t) && self.is_match(&t) == Ok(false)))
            .and_then(|w| shape(w, n))
    }

    /// `r` with an attack whose string `ok` accepts: `r` itself when its string (a few
    /// pumps; not the sample [`Regex::redos_subject`] adds, which only supplies bytes the
    /// pattern requires, wherever they are) passes, else `r` with its pump
    /// lengthened by one byte, after or before it, that still makes this matcher backtrack
    /// super-linearly on the whole pattern. `None` when no such variant is found. nginx
    /// normalises a URI before matching locations: a pump of `/` is merged into one slash,
    /// `/.` pumps are removed as segments, so the attack must survive that (`/a` does).
    pub fn redos_accepted(&self, r: &Redos, ok: &dyn Fn(&[u8]) -> bool) -> Option<Redos> {
        let accepted = |r: &Redos| ok(&r.attack.string(3));
        if accepted(r) {
            return Some(r.clone());
        }
        let program = || self.program();
        for x in *b"a0-_x" {
            for after in [true, false] {
                let mut v = r.clone();
                if after {
                    v.attack.pump.push(x);
                } else {
                    v.attack.pump.insert(0, x);
                }
                if accepted(&v)
                    && redos::confirms(self.captures.count(), &program, &self.start, &v.attack)
                {
                    return Some(v);
                }
            }
        }
        None
    }

    /// Whether `r`'s attack, in a subject of at most `max_len` bytes, reaches PCRE2's match
    /// limit ([`redos::PCRE2_MATCH_LIMIT`]; then the match fails with an error). PCRE2
    /// counts calls of its internal `match()`, one per backtracking point; at compile time
    /// it makes a single-character repeat possessive when the next item in its sequence is
    /// a character the repeat cannot match (auto-possessification: `\d+x` is run as
    /// `\d++x`). When the chain's last repeat is such a repeat it no longer backtracks,
    /// and the chain counts one degree less (`\d+\d+x$` on 8 KB of digits takes 23 ms but
    /// stays below the limit; `(.*.*)x$`, whose last `.*` ends a group, reaches it).
    pub fn redos_reaches_match_limit(&self, r: &Redos, max_len: usize) -> bool {
        let degree = match r.risk {
            Risk::Exponential => return true,
            Risk::Polynomial { degree } => degree,
        };
        let possessive = ends_auto_possessive(&self.root, r.span.end, 0);
        r.reaches_match_limit_as(degree - u32::from(possessive), max_len)
    }

    /// The worst ReDoS risk in the pattern, with an attack string.
    pub fn redos(&self) -> Option<Redos> {
        redos::analyse(
            &self.root,
            self.captures.count(),
            &|| self.program(),
            &self.start,
        )
    }
}

fn collect_approx(node: &Node, out: &mut Vec<Span>, depth: usize) {
    if depth > 4 * MAX_NESTING + 16 {
        return;
    }
    match &node.kind {
        Kind::Set(cs) if !cs.unsure.is_empty() => out.push(node.span),
        Kind::Group(g) => collect_approx(&g.body, out, depth + 1),
        Kind::Repeat(r) => collect_approx(&r.node, out, depth + 1),
        Kind::Concat(v) | Kind::Alternation(v) => {
            v.iter().for_each(|n| collect_approx(n, out, depth + 1))
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;

/// Whether the repeat that ends at `end` is one PCRE2 auto-possessifies: a repeat of one
/// character (literal or set) followed by a literal or set it cannot match. The item that
/// follows may be past the end of the group the repeat closes (`([a-z]+[a-z0-9_]*)-`):
/// PCRE2 looks through the end of a group that is not repeated (pcre2_auto_possess.c).
fn ends_auto_possessive(node: &Node, end: u32, depth: usize) -> bool {
    possessive_within(node, end, None, depth)
}

/// [`ends_auto_possessive`] inside `node`, where `follow` is the item after `node` in its
/// sequence when the end of `node` passes straight to it.
fn possessive_within(node: &Node, end: u32, follow: Option<&Node>, depth: usize) -> bool {
    if depth > 4 * MAX_NESTING + 16 {
        return false;
    }
    let one_char = |n: &Node| -> Option<set::ByteSet> {
        if let Some(s) = queries::one_byte(n) {
            return Some(s);
        }
        match &n.kind {
            // The first item of a plain group or sequence that follows.
            Kind::Group(g)
                if matches!(g.kind, GroupKind::Capture { .. } | GroupKind::NonCapture) =>
            {
                g.body.items().first().and_then(|f| match &f.kind {
                    Kind::Set(cs) => Some(cs.set),
                    Kind::Literal {
                        byte,
                        caseless: false,
                    } => Some(set::ByteSet::of(&[*byte])),
                    _ => None,
                })
            }
            _ => None,
        }
    };
    if let Kind::Repeat(r) = &node.kind {
        if node.span.end == end {
            let (Some(body), Some(next)) = (one_char(&r.node), follow.and_then(&one_char)) else {
                return false;
            };
            return body.intersect(next).is_empty();
        }
    }
    match &node.kind {
        Kind::Concat(items) => items
            .iter()
            .enumerate()
            .any(|(i, item)| possessive_within(item, end, items.get(i + 1).or(follow), depth + 1)),
        Kind::Alternation(v) => v.iter().any(|n| possessive_within(n, end, None, depth + 1)),
        Kind::Group(g) => {
            let through = matches!(g.kind, GroupKind::Capture { .. } | GroupKind::NonCapture)
                && !matches!(g.body.kind, Kind::Alternation(_));
            possessive_within(&g.body, end, follow.filter(|_| through), depth + 1)
        }
        Kind::Repeat(r) => possessive_within(&r.node, end, None, depth + 1),
        _ => false,
    }
}
