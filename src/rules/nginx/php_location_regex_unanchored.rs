//! NGX008 php-location-regex-unanchored: a regex location meant for PHP that also sends
//! other files to PHP-FPM.
//!
//! A location is *meant for PHP* when it is a regex location (`~` or `~*`) whose regex
//! mentions `php` and whose block passes to FastCGI (`fastcgi_pass`, directly or through an
//! include). Only *generic* PHP locations are judged: those whose regex matches `/x.php`.
//! A location naming particular scripts (`^/index\.php(/|$)`) is not.
//!
//! The regex is run (by a small PCRE-subset matcher below) against URIs that are not PHP
//! scripts:
//! - `/x.php.jpg`: the regex does not stop at `.php` (`~ \.php` has no `$`);
//! - `/x_php`: the `.` before `php` is unescaped and matches any character (`~ .php$`);
//! - `/x.ph`: a quantifier after `php` (`~ \.php*`) makes the last `p` optional.
//!
//! A match does not count when the script name is cut at `.php` anyway: a capture group
//! from the start of the URI that ends in `.php` (`~ ^(.+\.php)(.*)$`, whose `$1` is the
//! script), or a `fastcgi_split_path_info` in the block whose first capture ends in `.php`.
//! Such a location gets a warning; the fix escapes the dot, drops the quantifier and ends
//! the regex with `$` (`(/|$)` when the block uses `fastcgi_split_path_info`), then checks
//! the new regex with the same URIs.
//!
//! Separately, at info level: a generic PHP location that matches
//! `/uploads/evil.jpg/x.php` (a script that does not exist after an uploaded file) with no
//! file check (`try_files`, `if (!-f …)`, or `internal`) lets PHP-FPM decide what to run.
//! With `cgi.fix_pathinfo=1` (PHP's default) PHP walks back to `/uploads/evil.jpg`; only
//! PHP-FPM's `security.limit_extensions` then stops it from running the upload.

use crate::diagnostic::Severity;
use crate::fix::{edits, Edit, Fix};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::rules::{Context, Rule};
use crate::source::{Shared, Span};
use crate::stack::expanded::{OccId, View};
use crate::stack::model::NginxInstance;
use crate::syntax::nginx::tree::unescape;
use crate::syntax::nginx::Word;

pub struct PhpLocationRegexUnanchored;

/// URIs that are not PHP scripts, with what matching them reveals.
const BAD_URIS: [(&str, &str); 3] = [
    (
        "/x.php.jpg",
        "nothing after `php` requires the end of the URI (`$`)",
    ),
    (
        "/x_php",
        "the `.` before `php` is not escaped (`\\.`) and matches any character",
    ),
    (
        "/x.ph",
        "the quantifier after `php` applies to the last `p` alone",
    ),
];
const GOOD_URI: &str = "/x.php";
/// A script that does not exist, after an uploaded file.
const UPLOAD_URI: &str = "/uploads/evil.jpg/x.php";

/// A regex location and where its regex is written.
struct PhpLocation<'a> {
    occ: OccId,
    file: Shared,
    word: Word,
    /// Bytes of the modifier written in the same word (`~\.php$`): 0, 1 or 2.
    prefix: usize,
    pattern: String,
    caseless: bool,
    view: View<'a>,
}

impl Rule for PhpLocationRegexUnanchored {
    fn check(&self, cx: &mut Context<'_>) {
        let stack = cx.stack;
        // A file read by several configurations is judged once.
        let mut seen: FxHashSet<(&std::path::Path, u32)> = FxHashSet::default();
        // Thousands of vhosts share a handful of PHP regexes: analyse each once.
        let mut analyses: FxHashMap<String, Vec<AnalysisFor>> = FxHashMap::default();
        let mut catchers = Catchers::default();
        for (i, inst) in stack.nginx.iter().enumerate() {
            catchers.config = i;
            let view = inst.view();
            for occ in view.named("location") {
                let Some(loc) = php_location(inst, occ) else {
                    continue;
                };
                let path = inst
                    .config
                    .file(inst.expanded.get(occ).file)
                    .source
                    .path
                    .as_path();
                if !seen.insert((path, loc.word.raw().start)) {
                    continue;
                }
                let split = split_path_info(&loc.view, loc.occ);
                let known = match analyses.get_mut(loc.pattern.as_str()) {
                    Some(known) => known,
                    None => analyses.entry(loc.pattern.clone()).or_default(),
                };
                let at = match known
                    .iter()
                    .position(|a| a.caseless == loc.caseless && a.split == split)
                {
                    Some(at) => at,
                    None => {
                        let analysis = analyse(&loc.pattern, loc.caseless, split.as_deref());
                        known.push(AnalysisFor {
                            caseless: loc.caseless,
                            split,
                            analysis,
                        });
                        known.len() - 1
                    }
                };
                let analysis = &known[at].analysis;
                if let Some(analysis) = analysis {
                    judge(cx, &loc, analysis, &mut catchers);
                }
            }
        }
    }
}

/// The analysis of a pattern with a modifier and a `fastcgi_split_path_info`.
struct AnalysisFor {
    caseless: bool,
    split: Option<String>,
    analysis: Option<Analysis>,
}

/// What running a location's regex (and its block's `fastcgi_split_path_info`) against the
/// probe URIs shows; it depends on those strings alone.
struct Analysis {
    /// Indexes of the [`BAD_URIS`] it sends to PHP as scripts.
    bad: Vec<usize>,
    /// It matches [`UPLOAD_URI`].
    upload: bool,
    /// The repaired regex, when the repair passes the checks.
    fixed: Option<String>,
}

/// `None` when the rule has nothing to say: a regex beyond the subset we run, or one that
/// names particular scripts rather than every `.php`.
fn analyse(pattern: &str, caseless: bool, split: Option<&str>) -> Option<Analysis> {
    let re = regex::Regex::parse(pattern, caseless)?;
    if re.find(GOOD_URI) != Some(true) {
        return None; // names particular scripts, or cannot be decided
    }
    let split = split.and_then(|s| regex::Regex::parse(s, false));
    let bad = bad_matches(&re, split.as_ref())?;
    let fixed = if bad.is_empty() {
        None
    } else {
        fixed_pattern(pattern, caseless, split.as_ref())
    };
    Some(Analysis {
        upload: re.find(UPLOAD_URI) == Some(true),
        bad,
        fixed,
    })
}

/// The regex location at `occ` if it is meant for PHP.
fn php_location(inst: &NginxInstance, occ: OccId) -> Option<PhpLocation<'_>> {
    let view = inst.view();
    let o = inst.expanded.get(occ);
    let f = inst.config.file(o.file);
    let tree = &f.parsed.tree;
    let d = tree.directive(o.node)?;
    d.block()?;
    let src = &f.source.text;
    let (word, modifier, prefix) = match tree.args(d) {
        [m, w] => (*w, m.text(src).into_owned(), 0),
        [w] => {
            let t = w.text(src);
            let m = if t.starts_with("~*") {
                "~*"
            } else if t.starts_with('~') {
                "~"
            } else {
                return None;
            };
            (*w, m.to_string(), m.len())
        }
        _ => return None,
    };
    if modifier != "~" && modifier != "~*" {
        return None;
    }
    let value = word.text(src);
    let pattern = value.get(prefix..)?.to_string();
    if !pattern.to_ascii_lowercase().contains("php") || !passes_to_fastcgi(&view, occ) {
        return None;
    }
    Some(PhpLocation {
        occ,
        file: f.source.clone(),
        word,
        prefix,
        pattern,
        caseless: modifier == "~*",
        view,
    })
}

fn passes_to_fastcgi(view: &View<'_>, loc: OccId) -> bool {
    view.expanded
        .children(loc)
        .any(|c| view.name(c) == "fastcgi_pass")
}

/// The first argument of the block's `fastcgi_split_path_info`, if any.
fn split_path_info(view: &View<'_>, loc: OccId) -> Option<String> {
    view.expanded
        .children(loc)
        .find(|&c| view.name(c) == "fastcgi_split_path_info")
        .and_then(|c| view.arg(c, 0).map(|a| a.into_owned()))
}

fn judge(
    cx: &mut Context<'_>,
    loc: &PhpLocation<'_>,
    analysis: &Analysis,
    catchers: &mut Catchers,
) {
    let bad = &analysis.bad;
    if bad.is_empty() {
        if analysis.upload {
            check_guard(cx, loc, catchers);
        }
        return;
    }
    let uris: Vec<String> = bad
        .iter()
        .map(|&i| format!("`{}`", BAD_URIS[i].0))
        .collect();
    let message = format!(
        "PHP location `{}` sends more than .php files to PHP-FPM: it also matches {}",
        loc.pattern,
        uris.join(", ")
    );
    let causes: Vec<&str> = bad.iter().map(|&i| BAD_URIS[i].1).collect();
    let fix = analysis.fixed.as_ref().and_then(|new| fix_edit(loc, new));
    let advice = match &fix {
        Some((_, new)) => format!("use `{new}`"),
        None => "write the extension as `\\.php$` (`\\.php(/|$)` with PATH_INFO)".into(),
    };
    let d = cx.report(&loc.file, loc.word.raw(), message);
    d.help = Some(format!("{}; {advice}", causes.join("; ")));
    if let Some((fix, _)) = fix {
        d.with_fix(fix);
    }
}

/// Indexes of the [`BAD_URIS`] the regex sends to PHP as scripts; `None` if undecidable.
fn bad_matches(re: &regex::Regex, split: Option<&regex::Regex>) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for (i, (uri, _)) in BAD_URIS.iter().enumerate() {
        let Some(caps) = re.captures(uri)? else {
            continue;
        };
        if script_cut_at_php(uri, &caps) {
            continue;
        }
        if let Some(split) = split {
            if let Some(Some(c)) = split.captures(uri) {
                if script_cut_at_php(uri, &c[..c.len().min(2)]) {
                    continue;
                }
            }
        }
        out.push(i);
    }
    Some(out)
}

/// Whether a capture group (not the whole match) runs from the start of the URI to a `.php`:
/// the script name the block uses ends in `.php` whatever follows.
fn script_cut_at_php(uri: &str, caps: &[Option<(usize, usize)>]) -> bool {
    caps.iter().skip(1).flatten().any(|&(s, e)| {
        s == 0
            && e > 4
            && uri
                .get(..e)
                .is_some_and(|t| t.to_ascii_lowercase().ends_with(".php"))
    })
}

/// The regex with its PHP extension repaired, if the repaired regex passes the checks.
fn fixed_pattern(pattern: &str, caseless: bool, split: Option<&regex::Regex>) -> Option<String> {
    let re = regex::Regex::parse(pattern, caseless)?;
    let anchor = if split.is_some() { "(/|$)" } else { "$" };
    let mut new = pattern.to_string();
    // Apply from the end so earlier offsets stay valid.
    let mut changes = re.extension_repairs(anchor);
    changes.sort_by_key(|c| std::cmp::Reverse(c.0));
    for (at, len, text) in changes {
        new.replace_range(at..at + len, &text);
    }
    if new == pattern {
        return None;
    }
    let fixed = regex::Regex::parse(&new, caseless)?;
    let ok = fixed.find(GOOD_URI) == Some(true)
        && bad_matches(&fixed, split).is_some_and(|b| b.is_empty());
    ok.then_some(new)
}

/// The edit writing `new` in place of the location's regex, keeping the word's quotes.
fn fix_edit(loc: &PhpLocation<'_>, new: &str) -> Option<(Fix, String)> {
    let src = &loc.file.text;
    let inner = &src[loc.word.inner().range()];
    if unescape(inner).as_ref() != inner {
        return None; // nginx escapes in the word: offsets would not map
    }
    let quoted = loc.word.raw() != loc.word.inner();
    if !quoted && edits::needs_quotes(new) {
        return None;
    }
    let start = loc.word.inner().start + loc.prefix as u32;
    let span = Span::new(start, loc.word.inner().end);
    let fix = Fix::unsafe_(
        format!("Use `{new}`"),
        vec![Edit::replace(&loc.file, span, new)],
    );
    Some((fix, new.to_string()))
}

/// The info-level check, for a generic PHP location that matches [`UPLOAD_URI`]: is there a
/// file check?
fn check_guard(cx: &mut Context<'_>, loc: &PhpLocation<'_>, catchers: &mut Catchers) {
    if has_file_check(&loc.view, loc.occ) {
        return;
    }
    if catchers.earlier_sibling_catches(&loc.view, loc.occ) {
        return;
    }
    let d = cx.report(
        &loc.file,
        loc.word.raw(),
        format!(
            "PHP location `{}` passes scripts that do not exist to PHP-FPM: `{UPLOAD_URI}` \
             reaches it, and PHP may run `/uploads/evil.jpg` instead",
            loc.pattern
        ),
    );
    d.severity = Severity::Info;
    d.help = Some(
        "add `try_files $uri =404;` (or `try_files $fastcgi_script_name =404;` after \
         `fastcgi_split_path_info`) so nginx answers 404 for scripts that do not exist"
            .into(),
    );
}

/// `try_files`, `internal`, or an `if` testing a file (`-f`, `-e`) in the location.
fn has_file_check(view: &View<'_>, loc: OccId) -> bool {
    view.expanded.children(loc).any(|c| match view.name(c) {
        "try_files" | "internal" => true,
        "if" => view
            .args(c)
            .iter()
            .any(|a| matches!(a.trim_start_matches('('), "-f" | "!-f" | "-e" | "!-e")),
        _ => false,
    })
}

/// Which regex location of each block first catches the upload URI without passing it to
/// FastCGI (a `deny` for upload directories): nginx uses the first matching regex, so a PHP
/// location after it never sees the URI. Found once per block, each distinct regex run once,
/// so a server of thousands of locations costs a walk over them, not one per pair.
#[derive(Default)]
struct Catchers {
    /// The configuration being judged (occurrence ids are per configuration).
    config: usize,
    first: FxHashMap<(usize, OccId), Option<OccId>>,
    runs: FxHashMap<(String, bool), bool>,
}

impl Catchers {
    fn earlier_sibling_catches(&mut self, view: &View<'_>, loc: OccId) -> bool {
        let parent = view.expanded.get(loc).parent;
        let key = (self.config, parent);
        let first = match self.first.get(&key) {
            Some(&f) => f,
            None => {
                let f = self.first_catcher(view, parent);
                self.first.insert(key, f);
                f
            }
        };
        // Occurrences are numbered in document order.
        first.is_some_and(|c| c < loc)
    }

    fn first_catcher(&mut self, view: &View<'_>, parent: OccId) -> Option<OccId> {
        view.expanded
            .children_named(parent, "location")
            .iter()
            .copied()
            .find(|&c| {
                let args = view.args(c);
                let (m, re) = match args.as_slice() {
                    [m, r] => (m.to_string(), r.to_string()),
                    [w] if w.starts_with("~*") => ("~*".into(), w[2..].to_string()),
                    [w] if w.starts_with('~') => ("~".into(), w[1..].to_string()),
                    _ => return false,
                };
                if (m != "~" && m != "~*") || passes_to_fastcgi(view, c) {
                    return false;
                }
                let caseless = m == "~*";
                *self
                    .runs
                    .entry((re, caseless))
                    .or_insert_with_key(|(re, caseless)| {
                        regex::Regex::parse(re, *caseless).and_then(|r| r.find(UPLOAD_URI))
                            == Some(true)
                    })
            })
    }
}

/// A backtracking matcher for the subset of PCRE that PHP location regexes use: literals,
/// escapes, `.`, classes, groups (capturing, non-capturing, named, lookahead), alternation,
/// greedy and lazy quantifiers, `^`, `$`, `\b`. Anything else makes [`Regex::parse`] return
/// `None`, and the rule stays silent rather than guess.
mod regex {
    /// How many steps one match may take before it is abandoned as undecidable.
    const STEP_LIMIT: u32 = 200_000;

    #[derive(Clone, Debug)]
    enum ClassItem {
        Char(char),
        Range(char, char),
        Digit(bool),
        Word(bool),
        Space(bool),
    }

    #[derive(Clone, Debug)]
    enum Node {
        /// A literal; `escaped` when written with a backslash (`\.`).
        Char {
            c: char,
            escaped: bool,
        },
        Any,
        Class {
            negated: bool,
            items: Vec<ClassItem>,
        },
        Start,
        End,
        WordBoundary(bool),
        Group {
            capture: Option<usize>,
            alts: Vec<Vec<Item>>,
        },
        Look {
            negated: bool,
            alts: Vec<Vec<Item>>,
        },
    }

    #[derive(Clone, Debug)]
    struct Item {
        node: Node,
        min: u32,
        max: Option<u32>,
        greedy: bool,
        /// Byte range of the atom in the pattern, and of its quantifier (empty if none).
        atom: (usize, usize),
        quant: (usize, usize),
    }

    pub struct Regex {
        alts: Vec<Vec<Item>>,
        groups: usize,
        caseless: bool,
        len: usize,
    }

    /// A capture per group (group 0 is the whole match).
    pub type Captures = Vec<Option<(usize, usize)>>;

    struct Parser<'a> {
        s: &'a str,
        pos: usize,
        groups: usize,
    }

    impl Parser<'_> {
        fn peek(&self) -> Option<char> {
            self.s[self.pos..].chars().next()
        }

        fn bump(&mut self) -> Option<char> {
            let c = self.peek()?;
            self.pos += c.len_utf8();
            Some(c)
        }

        fn eat(&mut self, prefix: &str) -> bool {
            if self.s[self.pos..].starts_with(prefix) {
                self.pos += prefix.len();
                true
            } else {
                false
            }
        }

        fn alternation(&mut self, depth: usize) -> Option<Vec<Vec<Item>>> {
            if depth > 32 {
                return None;
            }
            let mut alts = vec![Vec::new()];
            loop {
                match self.peek() {
                    None => return (depth == 0).then_some(alts),
                    Some(')') => return (depth > 0).then_some(alts),
                    Some('|') => {
                        self.bump();
                        alts.push(Vec::new());
                    }
                    Some(_) => {
                        let item = self.item(depth)?;
                        alts.last_mut()?.push(item);
                    }
                }
            }
        }

        fn item(&mut self, depth: usize) -> Option<Item> {
            let start = self.pos;
            let node = self.atom(depth)?;
            let atom = (start, self.pos);
            let qstart = self.pos;
            let (min, max) = match self.peek() {
                Some('*') => {
                    self.bump();
                    (0, None)
                }
                Some('+') => {
                    self.bump();
                    (1, None)
                }
                Some('?') => {
                    self.bump();
                    (0, Some(1))
                }
                Some('{') => self.braces()?,
                _ => (1, Some(1)),
            };
            let quantified = self.pos > qstart;
            let mut greedy = true;
            if quantified {
                if matches!(node, Node::Start | Node::End | Node::WordBoundary(_)) {
                    return None;
                }
                if self.eat("?") {
                    greedy = false;
                } else if self.peek() == Some('+') {
                    return None; // possessive
                }
            }
            Some(Item {
                node,
                min,
                max,
                greedy,
                atom,
                quant: (qstart, self.pos),
            })
        }

        fn braces(&mut self) -> Option<(u32, Option<u32>)> {
            let rest = &self.s[self.pos..];
            let end = rest.find('}')?;
            let body = &rest[1..end];
            let (min, max) = match body.split_once(',') {
                None => {
                    let n = body.parse().ok()?;
                    (n, Some(n))
                }
                Some((a, "")) => (a.parse().ok()?, None),
                Some((a, b)) => (a.parse().ok()?, Some(b.parse().ok()?)),
            };
            if max.is_some_and(|m| m < min) || min > 1000 {
                return None;
            }
            self.pos += end + 1;
            Some((min, max))
        }

        fn atom(&mut self, depth: usize) -> Option<Node> {
            match self.bump()? {
                '.' => Some(Node::Any),
                '^' => Some(Node::Start),
                '$' => Some(Node::End),
                '[' => self.class(),
                '\\' => self.escape(),
                '(' => self.group(depth),
                '*' | '+' | '?' | '{' | ')' => None,
                c => Some(Node::Char { c, escaped: false }),
            }
        }

        fn escape(&mut self) -> Option<Node> {
            let c = self.bump()?;
            Some(match c {
                'd' | 'D' => Node::Class {
                    negated: false,
                    items: vec![ClassItem::Digit(c == 'D')],
                },
                'w' | 'W' => Node::Class {
                    negated: false,
                    items: vec![ClassItem::Word(c == 'W')],
                },
                's' | 'S' => Node::Class {
                    negated: false,
                    items: vec![ClassItem::Space(c == 'S')],
                },
                'b' | 'B' => Node::WordBoundary(c == 'b'),
                'A' => Node::Start,
                'z' | 'Z' => Node::End,
                'n' => Node::Char {
                    c: '\n',
                    escaped: true,
                },
                't' => Node::Char {
                    c: '\t',
                    escaped: true,
                },
                c if c.is_ascii_alphanumeric() => return None,
                c => Node::Char { c, escaped: true },
            })
        }

        fn class(&mut self) -> Option<Node> {
            let negated = self.eat("^");
            let mut items = Vec::new();
            let mut first = true;
            loop {
                let c = self.bump()?;
                let item = match c {
                    ']' if !first => break,
                    '[' if self.peek() == Some(':') => return None,
                    '\\' => match self.bump()? {
                        'd' => ClassItem::Digit(false),
                        'D' => ClassItem::Digit(true),
                        'w' => ClassItem::Word(false),
                        'W' => ClassItem::Word(true),
                        's' => ClassItem::Space(false),
                        'S' => ClassItem::Space(true),
                        'n' => ClassItem::Char('\n'),
                        't' => ClassItem::Char('\t'),
                        e if e.is_ascii_alphanumeric() => return None,
                        e => ClassItem::Char(e),
                    },
                    c => ClassItem::Char(c),
                };
                first = false;
                // A range `a-z` (a `-` before `]` is a literal).
                if let ClassItem::Char(lo) = item {
                    if self.s[self.pos..].starts_with('-') && !self.s[self.pos..].starts_with("-]")
                    {
                        self.bump();
                        let hi = match self.bump()? {
                            '\\' => self.bump()?,
                            h => h,
                        };
                        if hi < lo {
                            return None;
                        }
                        items.push(ClassItem::Range(lo, hi));
                        continue;
                    }
                }
                items.push(item);
            }
            Some(Node::Class { negated, items })
        }

        fn group(&mut self, depth: usize) -> Option<Node> {
            enum Kind {
                Capture,
                Plain,
                Look(bool),
            }
            let kind = if self.eat("?:") {
                Kind::Plain
            } else if self.eat("?=") {
                Kind::Look(false)
            } else if self.eat("?!") {
                Kind::Look(true)
            } else if self.eat("?P<") || self.eat("?<") || self.eat("?'") {
                // A named group (a lookbehind `(?<=` / `(?<!` is not supported).
                let close = if self.s[..self.pos].ends_with('\'') {
                    '\''
                } else {
                    '>'
                };
                let name_end = self.s[self.pos..].find(close)?;
                let name = &self.s[self.pos..self.pos + name_end];
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return None;
                }
                self.pos += name_end + 1;
                Kind::Capture
            } else if self.peek() == Some('?') {
                return None; // flags, lookbehind, comments, branch reset…
            } else {
                Kind::Capture
            };
            let index = match kind {
                Kind::Capture => {
                    self.groups += 1;
                    Some(self.groups)
                }
                _ => None,
            };
            let alts = self.alternation(depth + 1)?;
            if !self.eat(")") {
                return None;
            }
            Some(match kind {
                Kind::Look(negated) => Node::Look { negated, alts },
                _ => Node::Group {
                    capture: index,
                    alts,
                },
            })
        }
    }

    struct Run<'a> {
        text: &'a [char],
        caseless: bool,
        steps: u32,
        aborted: bool,
        caps: Captures,
    }

    type Cont<'k> = &'k mut dyn FnMut(&mut Run<'_>, usize) -> bool;

    impl Run<'_> {
        fn eq(&self, a: char, b: char) -> bool {
            a == b || (self.caseless && a.eq_ignore_ascii_case(&b))
        }

        fn class_has(&self, negated: bool, items: &[ClassItem], c: char) -> bool {
            let test = |c: char| {
                items.iter().any(|i| match *i {
                    ClassItem::Char(x) => x == c,
                    ClassItem::Range(lo, hi) => lo <= c && c <= hi,
                    ClassItem::Digit(neg) => c.is_ascii_digit() != neg,
                    ClassItem::Word(neg) => (c.is_ascii_alphanumeric() || c == '_') != neg,
                    ClassItem::Space(neg) => c.is_ascii_whitespace() != neg,
                })
            };
            let hit = test(c)
                || (self.caseless
                    && (test(c.to_ascii_lowercase()) || test(c.to_ascii_uppercase())));
            hit != negated
        }

        fn is_word(&self, at: usize) -> bool {
            self.text
                .get(at)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
        }

        fn seq(&mut self, items: &[Item], pos: usize, k: Cont<'_>) -> bool {
            match items.split_first() {
                None => k(self, pos),
                Some((first, rest)) => self.repeat(first, 0, pos, &mut |r, p| r.seq(rest, p, k)),
            }
        }

        fn repeat(&mut self, it: &Item, count: u32, pos: usize, k: Cont<'_>) -> bool {
            self.steps += 1;
            if self.steps > STEP_LIMIT {
                self.aborted = true;
            }
            if self.aborted {
                return false;
            }
            let can_more = it.max.is_none_or(|m| count < m);
            let can_stop = count >= it.min;
            let more = |r: &mut Run<'_>, k: Cont<'_>| {
                can_more
                    && r.node(&it.node, pos, &mut |r2, p2| {
                        // An empty iteration past the minimum would loop forever.
                        if p2 == pos && count >= it.min {
                            return false;
                        }
                        r2.repeat(it, count + 1, p2, k)
                    })
            };
            // Greedy: try one more iteration first; lazy: try to stop first.
            if !it.greedy && can_stop && k(self, pos) {
                return true;
            }
            if more(self, k) {
                return true;
            }
            it.greedy && can_stop && k(self, pos)
        }

        fn node(&mut self, node: &Node, pos: usize, k: Cont<'_>) -> bool {
            let here = self.text.get(pos).copied();
            match node {
                Node::Char { c, .. } => here.is_some_and(|h| self.eq(h, *c)) && k(self, pos + 1),
                Node::Any => here.is_some_and(|h| h != '\n') && k(self, pos + 1),
                Node::Class { negated, items } => {
                    here.is_some_and(|h| self.class_has(*negated, items, h)) && k(self, pos + 1)
                }
                Node::Start => pos == 0 && k(self, pos),
                Node::End => {
                    let n = self.text.len();
                    (pos == n || (pos + 1 == n && self.text[pos] == '\n')) && k(self, pos)
                }
                Node::WordBoundary(want) => {
                    let before = pos > 0 && self.is_word(pos - 1);
                    ((before != self.is_word(pos)) == *want) && k(self, pos)
                }
                Node::Group { capture, alts } => {
                    for alt in alts {
                        let hit = match capture {
                            Some(i) => {
                                let i = *i;
                                self.seq(alt, pos, &mut |r, p| {
                                    let prev = r.caps[i];
                                    r.caps[i] = Some((pos, p));
                                    if k(r, p) {
                                        return true;
                                    }
                                    r.caps[i] = prev;
                                    false
                                })
                            }
                            None => self.seq(alt, pos, k),
                        };
                        if hit {
                            return true;
                        }
                        if self.aborted {
                            return false;
                        }
                    }
                    false
                }
                Node::Look { negated, alts } => {
                    let saved = self.caps.clone();
                    let found = alts.iter().any(|alt| self.seq(alt, pos, &mut |_, _| true));
                    self.caps = saved;
                    found != *negated && !self.aborted && k(self, pos)
                }
            }
        }
    }

    /// A change to the pattern: (byte offset, length replaced, new text).
    pub type Change = (usize, usize, String);

    impl Regex {
        pub fn parse(pattern: &str, caseless: bool) -> Option<Regex> {
            let mut p = Parser {
                s: pattern,
                pos: 0,
                groups: 0,
            };
            let alts = p.alternation(0)?;
            (p.pos == pattern.len()).then_some(Regex {
                alts,
                groups: p.groups,
                caseless,
                len: pattern.len(),
            })
        }

        /// The captures of the leftmost match (as PCRE picks it), `Some(None)` when there is
        /// no match, `None` when the matcher gave up.
        pub fn captures(&self, text: &str) -> Option<Option<Captures>> {
            let chars: Vec<char> = text.chars().collect();
            // Byte offset of each char index, for captures reported in bytes.
            let mut offsets: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            offsets.push(text.len());
            let mut run = Run {
                text: &chars,
                caseless: self.caseless,
                steps: 0,
                aborted: false,
                caps: vec![None; self.groups + 1],
            };
            for start in 0..=chars.len() {
                run.caps = vec![None; self.groups + 1];
                let top = Node::Group {
                    capture: None,
                    alts: self.alts.clone(),
                };
                let hit = run.node(&top, start, &mut |r, p| {
                    r.caps[0] = Some((start, p));
                    true
                });
                if run.aborted {
                    return None;
                }
                if hit {
                    let caps = run
                        .caps
                        .iter()
                        .map(|c| c.map(|(s, e)| (offsets[s], offsets[e])))
                        .collect();
                    return Some(Some(caps));
                }
            }
            Some(None)
        }

        /// Whether the regex matches somewhere in `text`; `None` when undecidable.
        pub fn find(&self, text: &str) -> Option<bool> {
            self.captures(text).map(|c| c.is_some())
        }

        /// Changes that write each `php` extension of the pattern as `\.php` followed by
        /// `anchor`: escape a bare `.` before it, drop a quantifier after it, and add the
        /// anchor where a top-level branch ends right after it.
        pub fn extension_repairs(&self, anchor: &str) -> Vec<Change> {
            let mut out = Vec::new();
            for alt in &self.alts {
                repairs_in(alt, None, true, anchor, self.len, &mut out);
            }
            out
        }
    }

    fn lit(item: &Item, want: char) -> bool {
        matches!(item.node, Node::Char { c, .. } if c.eq_ignore_ascii_case(&want))
    }

    fn once(item: &Item) -> bool {
        item.min == 1 && item.max == Some(1)
    }

    /// Walks one sequence; `before` is the item before the enclosing group (for
    /// `\.(php|phtml)`), `top` tells whether the sequence is a top-level branch.
    fn repairs_in(
        seq: &[Item],
        before: Option<&Item>,
        top: bool,
        anchor: &str,
        len: usize,
        out: &mut Vec<Change>,
    ) {
        for (i, item) in seq.iter().enumerate() {
            if let Node::Group { alts, .. } = &item.node {
                let prev = if i > 0 { seq.get(i - 1) } else { before };
                for alt in alts {
                    repairs_in(alt, prev, false, anchor, len, out);
                }
            }
            let is_php = i + 2 < seq.len()
                && lit(item, 'p')
                && lit(&seq[i + 1], 'h')
                && lit(&seq[i + 2], 'p')
                && once(item)
                && once(&seq[i + 1]);
            if !is_php {
                continue;
            }
            let dot = if i > 0 { seq.get(i - 1) } else { before };
            let Some(dot) = dot else { continue };
            match &dot.node {
                Node::Any if once(dot) => out.push((dot.atom.0, 1, "\\.".into())),
                Node::Char {
                    c: '.',
                    escaped: true,
                } => {}
                Node::Class {
                    negated: false,
                    items,
                } if matches!(items.as_slice(), [ClassItem::Char('.')]) => {}
                _ => continue, // not an extension (`/phpmyadmin`)
            }
            let last = &seq[i + 2];
            let quantified = last.quant.1 > last.quant.0;
            if quantified {
                out.push((last.quant.0, last.quant.1 - last.quant.0, String::new()));
            }
            if top && i + 3 == seq.len() && last.quant.1 == len {
                out.push((len, 0, anchor.to_string()));
            } else if top && i + 3 == seq.len() {
                // The branch ends here but another follows (`\.php|…`).
                out.push((last.quant.1, 0, anchor.to_string()));
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::Regex;

        fn m(re: &str, text: &str) -> bool {
            Regex::parse(re, false).unwrap().find(text).unwrap()
        }

        #[test]
        fn matching() {
            assert!(m(r"\.php$", "/x.php"));
            assert!(!m(r"\.php$", "/x.php.jpg"));
            assert!(m(r"\.php", "/x.php.jpg"));
            assert!(m(r".php$", "/x_php"));
            assert!(m(r"\.php*", "/x.ph"));
            assert!(m(r"[^/]\.php(/|$)", "/a/x.php/info"));
            assert!(!m(r"[^/]\.php(/|$)", "/x.phpx"));
            assert!(m(r"^/index\.php(/|$)", "/index.php"));
            assert!(!m(r"^/index\.php(/|$)", "/x.php"));
            assert!(m(r"\.php(?:$|/)", "/x.php"));
            assert!(m(r"^/(?!uploads).*\.php$", "/x.php"));
            assert!(!m(r"^/(?!uploads).*\.php$", "/uploads/x.php"));
            assert!(m(r"\d{2}x", "a12x"));
            assert!(!m(r"a\bb", "ab"));
            assert!(Regex::parse(r"\.PHP$", true)
                .unwrap()
                .find("/x.php")
                .unwrap());
        }

        #[test]
        fn captures_follow_pcre_priorities() {
            let re = Regex::parse(r"^(.+\.php)(.*)$", false).unwrap();
            let caps = re.captures("/x.php.jpg").unwrap().unwrap();
            assert_eq!(caps[1], Some((0, 6)));
            let re = Regex::parse(r"^(?<script>.+?\.php)(?<info>/.*)?$", false).unwrap();
            let caps = re.captures("/a.php/b.php").unwrap().unwrap();
            assert_eq!(caps[1], Some((0, 6)));
        }

        #[test]
        fn unsupported_syntax_is_refused() {
            assert!(Regex::parse(r"(?<=x)\.php", false).is_none());
            assert!(Regex::parse(r"(?i)\.php", false).is_none());
            assert!(Regex::parse(r"\1", false).is_none());
            assert!(Regex::parse(r"a++", false).is_none());
            assert!(Regex::parse(r"(a", false).is_none());
        }

        fn repaired(re: &str) -> String {
            let r = Regex::parse(re, false).unwrap();
            let mut new = re.to_string();
            let mut ch = r.extension_repairs("$");
            ch.sort_by_key(|c| std::cmp::Reverse(c.0));
            for (at, len, text) in ch {
                new.replace_range(at..at + len, &text);
            }
            new
        }

        #[test]
        fn repairs() {
            assert_eq!(repaired(r".php*"), r"\.php$");
            assert_eq!(repaired(r"\.php"), r"\.php$");
            assert_eq!(repaired(r".php$"), r"\.php$");
            assert_eq!(repaired(r"\.php$"), r"\.php$");
            assert_eq!(repaired(r"[.]php"), r"[.]php$");
            assert_eq!(repaired(r"^/phpmyadmin"), r"^/phpmyadmin");
        }
    }
}
