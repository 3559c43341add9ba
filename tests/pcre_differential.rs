//! Differential test: `lemplint::analysis::pcre` against the real PCRE2 (`pcre2test`, from
//! Debian's `pcre2-utils`; verified with PCRE2 10.42).
//!
//! The patterns are every regex of `../shared/corpus/nginx` — `location ~`/`~*`, `if (… ~
//! …)`, `rewrite`, `map` keys `~…`, `server_name ~…`, `valid_referers ~…`, read with
//! lemplint's own nginx parser — and a few hundred made by a small seeded generator (valid
//! and broken ones). Each runs through one `pcre2test -q` over a temporary file (patterns in
//! `hex`, subjects as `\x{hh}` escapes) and is compared on:
//!
//! * accept/reject (a pattern we call *unsupported* — valid PCRE2 we do not model — is
//!   counted apart, not compared);
//! * the capture group count;
//! * on generated subjects (random walks of the pattern's tree, mutated, and fixed URIs):
//!   match/no-match and the whole match's span; and each capture's text.
//!
//! A subject on which either side gives up (our step limit, an approximate Unicode script,
//! PCRE2's match limit) is counted as undecided. The agreement rates are printed; every
//! disagreement is listed with its reason and fails the test, except the ones listed in
//! [`KNOWN`] (with why). Without `pcre2test` the test is skipped with a note, or fails when
//! `CI=true`; without the corpus only the generated patterns run (see `common::corpus`).

mod common;
use common::Rng;

use lemplint::analysis::pcre::{ErrorKind, GroupKind, Kind, Node, Regex};
use lemplint::syntax::nginx::{parse, ROOT};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

/// Disagreements that are known, and why they remain: (pattern, reason). None at present
/// on the corpus, the edge cases and the seeded patterns. What is known to differ without
/// being exercised here (so it is not compared, rather than listed):
///
/// * Unicode property names other than general categories, PCRE2's specials and script
///   names (binary properties, `Bidi_Class`, `sc:`/`scx:`, 4-letter script codes) are
///   *unsupported*: PCRE2 accepts most and rejects misspellings; we say neither.
/// * Scripts are approximate above U+007F: such subjects are undecided, not compared.
/// * Recursion, subroutine calls, conditionals, verbs, callouts, branch reset, `\K`, `\X`,
///   `\C`, `[[:<:]]` and references to duplicated names are *unsupported*, including
///   the ones PCRE2 itself rejects (`(?1)` without a group 1).
/// * A subject where PCRE2 hits its match limit, or we our step limit, is undecided.
const KNOWN: &[(&str, &str)] = &[];

fn pcre2test() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LEMPLINT_PCRE2TEST") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("pcre2test"))
        .find(|p| p.is_file())
}

/// A pattern to compare: its bytes, caseless (`~*`), and where it came from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Case {
    pattern: Vec<u8>,
    caseless: bool,
    origin: String,
}

// ---------------------------------------------------------------------------------------
// Regexes of the corpus.

fn corpus_cases() -> Vec<Case> {
    let Some(dir) = common::corpus("nginx") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for file in common::files_under(&dir) {
        let Ok(src) = std::fs::read(&file) else {
            continue;
        };
        let parsed = parse(&src);
        let tree = &parsed.tree;
        let rel = file
            .strip_prefix(&dir)
            .unwrap_or(&file)
            .display()
            .to_string();
        let mut add = |pat: &str, caseless: bool, what: &str| {
            if !pat.is_empty() {
                out.push(Case {
                    pattern: pat.as_bytes().to_vec(),
                    caseless,
                    origin: format!("{rel}: {what}"),
                });
            }
        };
        for (id, d) in tree.directives() {
            let name = tree.name(d).text(&src).into_owned();
            let args: Vec<String> = tree
                .args(d)
                .iter()
                .map(|w| w.text(&src).into_owned())
                .collect();
            let parent = tree.node(id).parent;
            let in_map = parent != ROOT
                && tree
                    .directive(parent)
                    .is_some_and(|p| tree.name(p).text(&src) == "map");
            if in_map {
                if let Some(re) = name.strip_prefix("~*") {
                    add(re, true, "map");
                } else if let Some(re) = name.strip_prefix('~') {
                    add(re, false, "map");
                }
                continue;
            }
            match name.as_str() {
                "location" => match args.as_slice() {
                    [m, re] if m == "~" => add(re, false, "location ~"),
                    [m, re] if m == "~*" => add(re, true, "location ~*"),
                    [w] if w.starts_with("~*") => add(&w[2..], true, "location ~*"),
                    [w] if w.starts_with('~') => add(&w[1..], false, "location ~"),
                    _ => {}
                },
                "if" => {
                    let ops = ["~", "~*", "!~", "!~*"];
                    if let Some(i) = args.iter().position(|a| ops.contains(&a.as_str())) {
                        if let Some(re) = args.get(i + 1) {
                            let mut re = re.as_str();
                            if i + 2 == args.len() {
                                re = re.strip_suffix(')').unwrap_or(re);
                            }
                            add(re, args[i].ends_with('*'), "if");
                        }
                    }
                }
                "rewrite" => {
                    if let Some(re) = args.first() {
                        add(re, false, "rewrite");
                    }
                }
                "server_name" | "valid_referers" => {
                    for a in &args {
                        if let Some(re) = a.strip_prefix('~') {
                            add(re, true, &name);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Handwritten edge cases (PCRE2's errors and corners).

const EDGES: &[&str] = &[
    r"a(",
    r"a)",
    r"[a",
    r"*a",
    r"a**",
    r"a{2}{3}",
    r"^*",
    r"\b*",
    r"(?=a)*",
    r"\",
    r"a\",
    r"\c",
    r"\u0041",
    r"\U",
    r"\L",
    r"\N{U+41}",
    r"\x{100}",
    r"\x{fff",
    r"\o{}",
    r"\o{8}",
    r"\8",
    r"[\8]",
    r"\10",
    r"(a)\2",
    r"\k<x>",
    r"\k<",
    r"(?P=x)",
    r"(?<1a>x)",
    r"(?<n>a)(?<n>b)",
    r"(?z)",
    r"(?i",
    r"(?<=a+)b",
    r"(?<=a|bc)d",
    r"(?<=(a|bc))d",
    r"[z-a]",
    r"[a-\d]",
    r"[\d-z]",
    r"[[:foo:]]",
    r"[[:alpha:]",
    r"[:alpha:]",
    r"\p{Foo}",
    r"\p{L",
    r"\pL",
    r"\p",
    r"\P{^L}",
    r"\p{^Lu}",
    r"\p{greek}",
    r"a{65536}",
    r"a{3,2}",
    r"a{,3}",
    r"a{x}",
    r"(?#comment",
    r"(?#c)a",
    r"(?1)",
    r"\R",
    r"[\R]",
    r"[\B]",
    r"[\b]",
    r"\g{-1}",
    r"(a)\g{-1}",
    r"(a)\g-1",
    r"\g{0}",
    r"(?<n>a)\g{n}",
    r"(?'n'a)\k'n'",
    r"(?'n'a)\k{n}",
    r"(?i:a)",
    r"(?^)a",
    r"(?xx)[",
    r"a]",
    r"(?n)(a)\1",
    r"(?-)a",
    r"(?J)(?<n>a)(?<n>b)",
    r"\Q(a\E)",
    r"\Qab",
    r"\E",
    r"[]",
    r"[]]",
    r"[^]",
    r"[^]]",
    r"(?<=\b)a",
    r"(?<=\d{3})a",
    r"(?<=\1)(a)",
    r"\xZ",
    r"\e\a\f",
    r"\011",
    r"\0",
    r"\400",
    r"[\400]",
    r"\i",
    r"\_",
    r"\x",
    r"\x{41",
    r"\x{}",
    r"\cA",
    r"[\x{41}-\x{5a}]",
    r"(?<name",
    r"(?P",
    r"(?P>",
    r"(?P<n",
    r"(?<a-b>x)",
    r"[a-]",
    r"[-a]",
    r"[\w-]",
    r"[%-\d]",
    r"[\Qa-z\E]",
    r"a{1,2}+",
    r"a{",
    r"1}",
    r"x{0}",
    r"{",
    r"}",
    r"]",
    r"\N",
    r"\N*",
    r"(?ims-x:a)",
    r"(?U)a*",
    r"(?'')",
    r"\k<1>",
    r"\g",
    r"\ga",
    r"(a)\g{+1}",
    r"(?<!ab|c)",
    r"(?<=.)",
    r"[[:^alpha:]]",
    r"[[:word:]]",
    r"[[.a.]]",
    r"[[=a=]]",
    r"[[:alpha:]-z]",
    r"[a-[:alpha:]]",
    r"\p{L&}",
    r"\p{Xan}",
    r"\p{Any}",
    r"\p{Cn}",
    r"\pZ",
    r"\p{",
    r"l",
    r"u",
    r"}",
    r"[\p{L}]",
    r"[^\P{Lu}]",
    r"\w++",
    r"(?>a|b)",
    r"a*+",
    r"a+?",
    r"\z*",
    r"\G",
    r"(?=)",
    r"()",
    r"(|)",
    r"a|",
    r"|a",
    r"\1(a)",
    r"(a\1)",
    r"\08",
    r"\81",
    r"[\0-\7]",
    r"\Ex\Q",
    r"[\E]",
    r"[\Q]\E]",
    r"[\Q\E]",
    r"[^\Q\E]]",
    r"[\A]",
    r"[\N]",
    r"[\g]",
    r"[\o{101}]",
    r"[\cA]",
    r"[\i]",
    r"[\F]",
    r"\k",
    r"\o",
    r"\o5",
    r"\Px",
    r"\x{g}",
    r"(?Px)",
    r"(?P=n",
    r"(?<=a\",
    r"(?^i)a",
    r"(?^-i)a",
    r"(?i-^)a",
    r"[a-\x]",
    r"[\x-a]",
    r"[a-]]",
    r"[--a]",
    r"(?i)[[:upper:]]",
    r"(?x)a{1,",
    r"2}",
    r"(?x)[a",
    r"]",
    r"a{2}?+",
    r"a++?",
    r"(?=a){0}",
    r"\N{3}",
    r"\N{ab}",
    r"\cz",
    r"(a)|(b)",
    r"(a?)*b",
    r"(a*)+b",
    r"(a|)+b",
    r"(a?){2,}b",
    r"(?:a*)*b",
    r"(a*)*?c",
];

fn edge_cases() -> Vec<Case> {
    EDGES
        .iter()
        .enumerate()
        .map(|(i, p)| Case {
            pattern: p.as_bytes().to_vec(),
            caseless: false,
            origin: format!("edge #{i}"),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Generated patterns and subjects.

struct Gen {
    rng: Rng,
    groups: u32,
    /// Deepest group nesting, and most items per sequence.
    depth: u32,
    items: usize,
}

impl Gen {
    fn literal(&mut self) -> String {
        let lits = [
            "a", "b", "x", "p", "h", "/", "-", "_", "0", "9", "A", "Z", "\\.", "\\/", "\\-",
            "\\x41", "\\x{62}", "\\101", "\\t", "\\n", "%", "=", "\\Q.+\\E", "\\$", "}", "]",
            "\\e", "\\cA", "\\o{142}", "\\0",
        ];
        self.rng.pick(&lits).to_string()
    }

    fn class(&mut self) -> String {
        let items = [
            "a",
            "z",
            "a-z",
            "A-Z",
            "0-9",
            "/",
            ".",
            "\\d",
            "\\w",
            "\\s",
            "\\D",
            "\\W",
            "_",
            "-",
            "\\]",
            "\\\\",
            "[:alpha:]",
            "[:digit:]",
            "[:^space:]",
            "[:punct:]",
            "\\x41-\\x5a",
            "\\n",
            "^",
            "\\b",
            "p",
            "h",
        ];
        let mut s = String::from("[");
        if self.rng.chance(30) {
            s.push('^');
        }
        for _ in 0..1 + self.rng.below(3) {
            let it = *self.rng.pick(&items);
            s.push_str(it);
        }
        s.push(']');
        s
    }

    fn atom(&mut self, depth: u32) -> String {
        let r = self.rng.below(100);
        if depth > self.depth || r < 35 {
            return self.literal();
        }
        match r {
            35..=44 => self.class(),
            45..=52 => self
                .rng
                .pick(&[
                    ".", "\\d", "\\w", "\\s", "\\S", "\\W", "\\D", "\\h", "\\N", "\\p{L}",
                    "\\p{Nd}", "\\P{Lu}", "\\v",
                ])
                .to_string(),
            53..=57 => self
                .rng
                .pick(&["^", "$", "\\b", "\\B", "\\A", "\\z", "\\Z"])
                .to_string(),
            58..=72 => {
                self.groups += 1;
                format!("({})", self.alternation(depth + 1))
            }
            73..=78 => format!("(?:{})", self.alternation(depth + 1)),
            79..=81 => {
                self.groups += 1;
                let n = self.groups;
                let open = self.rng.pick(&["(?<g", "(?P<g", "(?'g"]).to_string();
                let close = if open.ends_with('\'') { "'" } else { ">" };
                format!("{open}{n}{close}{})", self.alternation(depth + 1))
            }
            82..=85 => {
                let k = self.rng.pick(&["(?=", "(?!", "(?>"]).to_string();
                format!("{k}{})", self.alternation(depth + 1))
            }
            86..=88 => {
                // Lookbehinds of fixed-length branches (sometimes not, to test the error).
                let k = self.rng.pick(&["(?<=", "(?<!"]).to_string();
                let body = if self.rng.chance(80) {
                    let mut b = String::new();
                    for _ in 0..1 + self.rng.below(3) {
                        b.push_str(&self.literal());
                    }
                    if self.rng.chance(30) {
                        b.push('|');
                        b.push_str(&self.class());
                    }
                    b
                } else {
                    format!("{}+", self.literal())
                };
                format!("{k}{body})")
            }
            89..=92 => {
                let f = self
                    .rng
                    .pick(&[
                        "(?i)", "(?-i)", "(?s)", "(?m)", "(?i:", "(?s:", "(?x)", "(?^)",
                    ])
                    .to_string();
                if f.ends_with(':') {
                    format!("{f}{})", self.alternation(depth + 1))
                } else {
                    f
                }
            }
            93..=96 if self.groups > 0 => {
                let g = 1 + self.rng.below(self.groups as usize);
                match self.rng.below(3) {
                    0 => format!("\\{g}"),
                    1 => format!("\\g{{{g}}}"),
                    _ => format!("(?:\\g{g})"),
                }
            }
            _ => self.literal(),
        }
    }

    fn quantifier(&mut self) -> String {
        let q = [
            "*", "+", "?", "{2}", "{1,3}", "{0,}", "{2,}", "{,2}", "{x}", "{0}", "{1}",
        ];
        let mut s = self.rng.pick(&q).to_string();
        if self.rng.chance(25) {
            s.push(*self.rng.pick(&['?', '+']));
        }
        s
    }

    fn concat(&mut self, depth: u32) -> String {
        let mut s = String::new();
        for _ in 0..1 + self.rng.below(self.items) {
            let a = self.atom(depth);
            let quantifiable = !matches!(
                a.as_str(),
                "^" | "$"
                    | "\\b"
                    | "\\B"
                    | "\\A"
                    | "\\z"
                    | "\\Z"
                    | "(?i)"
                    | "(?-i)"
                    | "(?s)"
                    | "(?m)"
                    | "(?x)"
                    | "(?^)"
            );
            s.push_str(&a);
            if quantifiable && self.rng.chance(35) {
                s.push_str(&self.quantifier());
            }
        }
        s
    }

    fn alternation(&mut self, depth: u32) -> String {
        let mut s = self.concat(depth);
        while self.rng.chance(20) {
            s.push('|');
            s.push_str(&self.concat(depth));
        }
        s
    }

    fn pattern(&mut self) -> String {
        self.groups = 0;
        let mut p = self.alternation(0);
        // Some broken ones: a dropped or extra byte.
        if self.rng.chance(12) && !p.is_empty() {
            let at = self.rng.below(p.len());
            if p.is_char_boundary(at) {
                let junk = *self.rng.pick(&[
                    "(", ")", "[", "\\", "*", "{9,1}", "(?<=a*)", "\\i", "[z-a]", "(?z)", "\\k<q>",
                ]);
                p.insert_str(at, junk);
            }
        }
        p
    }
}

/// `n` patterns of at most `depth` nested groups and `items` items per sequence.
fn generated_cases(seed: u64, n: usize, depth: u32, items: usize) -> Vec<Case> {
    let mut g = Gen {
        rng: Rng(seed),
        groups: 0,
        depth,
        items,
    };
    (0..n)
        .map(|i| Case {
            pattern: g.pattern().into_bytes(),
            caseless: g.rng.chance(25),
            origin: format!("generated {seed:x}#{i}"),
        })
        .collect()
}

/// A random string matching (mostly) `node`.
fn walk(node: &Node, rng: &mut Rng, out: &mut Vec<u8>, depth: usize) {
    if depth > 200 || out.len() > 48 {
        return;
    }
    match &node.kind {
        Kind::Empty | Kind::Assert(_) | Kind::Backref { .. } => {}
        Kind::Literal { byte, caseless } => {
            let b = if *caseless && rng.chance(50) {
                byte ^ 0x20
            } else {
                *byte
            };
            out.push(b);
        }
        Kind::Set(cs) => {
            let members: Vec<u8> = cs.set.iter().filter(|b| *b != b'\\').collect();
            let printable: Vec<u8> = members
                .iter()
                .copied()
                .filter(|b| b.is_ascii_graphic())
                .collect();
            let from = if !printable.is_empty() && rng.chance(85) {
                &printable
            } else {
                &members
            };
            if !from.is_empty() {
                out.push(*rng.pick(from));
            }
        }
        Kind::Group(g) => match g.kind {
            GroupKind::Lookahead { .. } | GroupKind::Lookbehind { .. } => {
                if rng.chance(30) {
                    walk(&g.body, rng, out, depth + 1);
                }
            }
            _ => walk(&g.body, rng, out, depth + 1),
        },
        Kind::Concat(v) => v.iter().for_each(|n| walk(n, rng, out, depth + 1)),
        Kind::Alternation(v) => walk(rng.pick(v), rng, out, depth + 1),
        Kind::Repeat(r) => {
            let max = r.max.unwrap_or(r.min + 3).min(r.min + 3);
            let n = r.min + rng.below((max - r.min + 1) as usize) as u32;
            for _ in 0..n.min(8) {
                walk(&r.node, rng, out, depth + 1);
            }
        }
    }
}

const FIXED_SUBJECTS: &[&[u8]] = &[
    b"",
    b"/",
    b"/x.php",
    b"/x.php.jpg",
    b"/x_php",
    b"/x.ph",
    b"/index.php/a/b",
    b"/uploads/evil.jpg/x.php",
    b"/static/a.css",
    b"/.git/config",
    b"/wp-admin/x",
    b"ABC abc 123\n",
    b"a\nb\n",
    b"\xe9t\xe9",
];

fn subjects(re: Option<&Regex>, rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut out: BTreeSet<Vec<u8>> = FIXED_SUBJECTS.iter().map(|s| s.to_vec()).collect();
    if let Some(re) = re {
        let alphabet = b"abxAZ09/._-ph \n\t%";
        for _ in 0..12 {
            let mut s = Vec::new();
            walk(re.ast(), rng, &mut s, 0);
            out.insert(s.clone());
            // Mutations: replace, insert, delete, or wrap.
            let mut m = s.clone();
            match rng.below(4) {
                0 if !m.is_empty() => {
                    let i = rng.below(m.len());
                    m[i] = *rng.pick(alphabet);
                }
                1 => {
                    let i = rng.below(m.len() + 1);
                    m.insert(i, *rng.pick(alphabet));
                }
                2 if !m.is_empty() => {
                    let i = rng.below(m.len());
                    m.remove(i);
                }
                _ => {
                    m.insert(0, *rng.pick(alphabet));
                    m.push(*rng.pick(alphabet));
                }
            }
            out.insert(m);
        }
    }
    // pcre2test prints a backslash as itself: keep subjects free of them so its output
    // reads back unambiguously.
    out.into_iter()
        .map(|s| {
            s.into_iter()
                .map(|b| if b == b'\\' { b'/' } else { b })
                .collect()
        })
        .collect::<BTreeSet<Vec<u8>>>()
        .into_iter()
        .collect()
}

// ---------------------------------------------------------------------------------------
// Running pcre2test.

#[derive(Debug, Default)]
struct Theirs {
    /// `Err((number, message))` when PCRE2 refused the pattern.
    compiled: Option<Result<u32, (u32, String)>>,
    /// Per subject: `None` undecided (an error such as the match limit), `Some(None)` no
    /// match, else (whole span, captures' texts: `None` unset).
    results: Vec<Option<Option<Outcome>>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    span: (usize, usize),
    groups: Vec<Option<Vec<u8>>>,
}

fn escape_subject(s: &[u8]) -> String {
    if s.is_empty() {
        return "\\".into();
    }
    let mut out = String::new();
    for b in s {
        let _ = write!(out, "\\x{{{b:02x}}}");
    }
    out
}

/// Decodes pcre2test's printing of a substring (printable ASCII as is, others `\xhh`).
fn unprint(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            // \xhh or \x{hh}
            if b.get(i + 2) == Some(&b'{') {
                let end = s[i..].find('}').map_or(b.len(), |e| i + e);
                out.push(u8::from_str_radix(&s[i + 3..end], 16).unwrap_or(0));
                i = end + 1;
            } else {
                out.push(u8::from_str_radix(&s[i + 2..i + 4], 16).unwrap_or(0));
                i += 4;
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn pattern_line(c: &Case) -> String {
    let hex: String = c.pattern.iter().map(|b| format!("{b:02x}")).collect();
    // Single-letter modifiers come first.
    let flags = if c.caseless { "i," } else { "" };
    format!("/{hex}/{flags}hex,info,aftertext,allcaptures")
}

fn run_pcre2test(exe: &PathBuf, cases: &[(Case, Vec<Vec<u8>>)]) -> Vec<Theirs> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let output = dir.path().join("out.txt");
    // Match data sized for each pattern (the default holds 15 captures).
    let mut text = String::from("#subject ovector=0\n");
    for (c, subjects) in cases {
        text.push_str(&pattern_line(c));
        text.push('\n');
        for s in subjects {
            text.push_str(&escape_subject(s));
            text.push('\n');
        }
        text.push('\n');
    }
    std::fs::write(&input, &text).unwrap();
    let st = Command::new(exe)
        .arg("-q")
        .arg(&input)
        .arg(&output)
        .status()
        .unwrap();
    // pcre2test exits 1 when some pattern failed to compile; that is part of the test.
    assert!(st.code().is_some_and(|c| c <= 1), "pcre2test failed: {st}");
    let out = std::fs::read(&output).unwrap();
    let out = String::from_utf8_lossy(&out);
    let lines: Vec<&str> = out.lines().collect();
    if let Some(bad) = lines.iter().find(|l| l.starts_with("** ")) {
        panic!("pcre2test did not take its input: {bad}");
    }

    let mut all = Vec::with_capacity(cases.len());
    let mut i = 0;
    for (c, subjects) in cases {
        let head = pattern_line(c);
        while i < lines.len() && lines[i] != head {
            i += 1;
        }
        assert!(i < lines.len(), "pcre2test output lost track at {head}");
        i += 1;
        let mut t = Theirs::default();
        // Compile result and info, up to the first subject echo.
        while i < lines.len() && !lines[i].starts_with('\\') && !lines[i].is_empty() {
            let l = lines[i];
            if let Some(rest) = l.strip_prefix("Failed: error ") {
                let (num, msg) = rest.split_once(" at offset ").unwrap_or((rest, ""));
                let msg = msg.split_once(": ").map_or("", |(_, m)| m);
                t.compiled = Some(Err((num.parse().unwrap_or(0), msg.to_string())));
            } else if let Some(n) = l.strip_prefix("Capture group count = ") {
                t.compiled = Some(Ok(n.trim().parse().unwrap_or(0)));
            }
            i += 1;
        }
        if matches!(t.compiled, Some(Err(_))) {
            all.push(t);
            continue;
        }
        if t.compiled.is_none() {
            t.compiled = Some(Ok(0)); // no "Capture group count" line means none
        }
        for s in subjects {
            let echo = escape_subject(s);
            while i < lines.len() && lines[i] != echo {
                i += 1;
            }
            i += 1;
            let mut whole: Option<Vec<u8>> = None;
            let mut after: Option<Vec<u8>> = None;
            let mut groups: Vec<Option<Vec<u8>>> = Vec::new();
            let mut result = None;
            while i < lines.len() && !lines[i].starts_with('\\') && !lines[i].is_empty() {
                let l = lines[i];
                if l == "Matched, but too many substrings" {
                    panic!("pcre2test's ovector is too small for {head}");
                } else if l == "No match" {
                    result = Some(None);
                } else if l.starts_with("Failed: error") || l.starts_with("Error") {
                    result = None;
                } else if let Some((k, v)) = l.split_once(": ") {
                    let k: usize = k.trim().parse().unwrap_or(usize::MAX);
                    if k == 0 {
                        whole = Some(unprint(v));
                    } else if k != usize::MAX {
                        while groups.len() < k - 1 {
                            groups.push(None);
                        }
                        groups.push((v != "<unset>").then(|| unprint(v)));
                    }
                } else if let Some(v) = l.strip_prefix(" 0+ ") {
                    after = Some(unprint(v));
                } else if l == " 0+" || l == " 0: " || l == " 0:" {
                    if l.starts_with(" 0+") {
                        after = Some(Vec::new());
                    } else {
                        whole = Some(Vec::new());
                    }
                }
                i += 1;
            }
            if let Some(w) = whole {
                let a = after.unwrap_or_default();
                let start = s.len().saturating_sub(w.len() + a.len());
                result = Some(Some(Outcome {
                    span: (start, start + w.len()),
                    groups,
                }));
            }
            t.results.push(result);
        }
        all.push(t);
    }
    all
}

// ---------------------------------------------------------------------------------------

#[derive(Default)]
struct Tally {
    accept: (usize, usize),
    messages: (usize, usize),
    unsupported: usize,
    captures: (usize, usize),
    matches: (usize, usize),
    spans: (usize, usize),
    groups: (usize, usize),
    undecided: usize,
    disagreements: Vec<String>,
}

fn known(pattern: &[u8]) -> Option<&'static str> {
    KNOWN
        .iter()
        .find(|(p, _)| p.as_bytes() == pattern)
        .map(|(_, why)| *why)
}

fn show(p: &[u8]) -> String {
    String::from_utf8_lossy(p).into_owned()
}

#[test]
fn pcre_analysis_agrees_with_pcre2() {
    let Some(exe) = pcre2test() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "pcre2test (Debian: pcre2-utils) is required on CI (CI=true) for tests/pcre_differential.rs"
        );
        eprintln!("note: pcre2test not found; skipping (set CI=true to make this an error)");
        return;
    };
    let corpus = corpus_cases();
    let n_corpus_found = corpus.len();
    let mut seen = BTreeSet::new();
    let mut cases: Vec<Case> = Vec::new();
    let generated = [
        generated_cases(0x5eed_1234_abcd_0001, 400, 2, 3),
        generated_cases(0x5eed_1234_abcd_0002, 400, 3, 4),
    ];
    for c in corpus
        .into_iter()
        .chain(edge_cases())
        .chain(generated.into_iter().flatten())
    {
        if seen.insert((c.pattern.clone(), c.caseless)) {
            cases.push(c);
        }
    }
    let n_corpus = cases
        .iter()
        .filter(|c| !c.origin.starts_with("generated") && !c.origin.starts_with("edge"))
        .count();
    if n_corpus_found > 0 {
        assert!(
            n_corpus > 50,
            "only {n_corpus} distinct regexes in the corpus"
        );
    }

    let mut rng = Rng(0xdecade);
    let parsed: Vec<Result<Regex, lemplint::analysis::pcre::ParseError>> = cases
        .iter()
        .map(|c| Regex::parse_bytes(&c.pattern, c.caseless))
        .collect();
    let work: Vec<(Case, Vec<Vec<u8>>)> = cases
        .iter()
        .zip(&parsed)
        .map(|(c, p)| (c.clone(), subjects(p.as_ref().ok(), &mut rng)))
        .collect();
    let theirs = run_pcre2test(&exe, &work);

    let mut t = Tally::default();
    for (((case, subjects), ours), th) in work.iter().zip(&parsed).zip(&theirs) {
        let disagree = |t: &mut Tally, what: String| {
            let line = match known(&case.pattern) {
                Some(why) => format!("known: {what} ({why})"),
                None => what,
            };
            t.disagreements.push(format!(
                "{}{} [{}]: {line}",
                show(&case.pattern),
                if case.caseless { " (caseless)" } else { "" },
                case.origin
            ));
        };
        let their = th.compiled.clone().unwrap_or(Ok(0));
        match (ours, &their) {
            (Err(e), _) if e.kind == ErrorKind::Unsupported => {
                t.unsupported += 1;
                continue;
            }
            (Err(e), Err((num, msg))) => {
                t.accept.0 += 1;
                t.accept.1 += 1;
                t.messages.1 += 1;
                if e.kind == ErrorKind::Syntax(*num as u16) && &e.message == msg {
                    t.messages.0 += 1;
                } else {
                    disagree(
                        &mut t,
                        format!(
                            "both reject; ours: {}, PCRE2: error {num}: {msg}",
                            e.message
                        ),
                    );
                }
                continue;
            }
            (Err(e), Ok(_)) => {
                t.accept.1 += 1;
                disagree(&mut t, format!("we reject ({}), PCRE2 accepts", e.message));
                continue;
            }
            (Ok(_), Err((num, msg))) => {
                t.accept.1 += 1;
                disagree(
                    &mut t,
                    format!("we accept, PCRE2 rejects: error {num}: {msg}"),
                );
                continue;
            }
            (Ok(_), Ok(_)) => {
                t.accept.0 += 1;
                t.accept.1 += 1;
            }
        }
        let re = ours.as_ref().unwrap();
        let count = *their.as_ref().unwrap();
        t.captures.1 += 1;
        if re.capture_table().count() == count {
            t.captures.0 += 1;
        } else {
            disagree(
                &mut t,
                format!(
                    "capture count: ours {}, PCRE2 {count}",
                    re.capture_table().count()
                ),
            );
        }
        for (s, theirs) in subjects.iter().zip(&th.results) {
            let ours = re.captures(s);
            let (Ok(ours), Some(theirs)) = (ours, theirs) else {
                t.undecided += 1;
                continue;
            };
            t.matches.1 += 1;
            match (&ours, theirs) {
                (None, None) => t.matches.0 += 1,
                (Some(o), Some(th)) => {
                    t.matches.0 += 1;
                    t.spans.1 += 1;
                    if o.whole() == th.span {
                        t.spans.0 += 1;
                    } else {
                        disagree(
                            &mut t,
                            format!(
                                "on {:?}: whole match ours {:?}, PCRE2 {:?}",
                                show(s),
                                o.whole(),
                                th.span
                            ),
                        );
                        continue;
                    }
                    t.groups.1 += 1;
                    let mine: Vec<Option<Vec<u8>>> = (1..o.len())
                        .map(|k| o.get(k).map(|(a, b)| s[a..b].to_vec()))
                        .collect();
                    let mut theirs_g = th.groups.clone();
                    theirs_g.resize(mine.len(), None);
                    if mine == theirs_g {
                        t.groups.0 += 1;
                    } else {
                        disagree(
                            &mut t,
                            format!(
                                "on {:?}: captures ours {:?}, PCRE2 {:?}",
                                show(s),
                                mine.iter()
                                    .map(|g| g.as_deref().map(show))
                                    .collect::<Vec<_>>(),
                                theirs_g
                                    .iter()
                                    .map(|g| g.as_deref().map(show))
                                    .collect::<Vec<_>>()
                            ),
                        );
                    }
                }
                (o, th) => disagree(
                    &mut t,
                    format!(
                        "on {:?}: ours {}, PCRE2 {}",
                        show(s),
                        if o.is_some() { "match" } else { "no match" },
                        if th.is_some() { "match" } else { "no match" }
                    ),
                ),
            }
        }
    }

    eprintln!(
        "pcre differential: {} patterns ({} from the corpus, {} handwritten, {} generated), {} unsupported (not compared)",
        cases.len(),
        n_corpus,
        cases.iter().filter(|c| c.origin.starts_with("edge")).count(),
        cases.iter().filter(|c| c.origin.starts_with("generated")).count(),
        t.unsupported
    );
    eprintln!(
        "accept/reject: {}/{}, error messages: {}/{}, captures: {}/{}, matches: {}/{}, whole-match spans: {}/{}, capture texts: {}/{}, undecided subjects: {}",
        t.accept.0, t.accept.1, t.messages.0, t.messages.1, t.captures.0, t.captures.1,
        t.matches.0, t.matches.1, t.spans.0, t.spans.1, t.groups.0, t.groups.1, t.undecided
    );
    for d in &t.disagreements {
        eprintln!("  {d}");
    }
    let unexplained: Vec<&String> = t
        .disagreements
        .iter()
        .filter(|d| !d.contains("]: known: "))
        .collect();
    assert!(
        unexplained.is_empty(),
        "{} disagreements with PCRE2 (listed above)",
        unexplained.len()
    );
    // The comparison must have compared something.
    assert!(
        t.accept.1 > 500 && t.matches.1 > 5000,
        "too little compared"
    );
    assert!(t.accept.1 - t.accept.0 < t.accept.1, "nothing accepted");
}
