//! Unit tests of the queries (the differential test against pcre2test is
//! tests/pcre_differential.rs).

use super::*;

fn re(p: &str) -> Regex {
    Regex::parse(p, false).unwrap_or_else(|e| panic!("{p}: {e:?}"))
}

fn m(p: &str, s: &str) -> bool {
    re(p).is_match(s.as_bytes()).unwrap()
}

fn span_of(p: &str, s: &str) -> Option<(usize, usize)> {
    re(p).captures(s.as_bytes()).unwrap().map(|c| c.whole())
}

fn err(p: &str) -> ParseError {
    Regex::parse(p, false).unwrap_err()
}

#[test]
fn matching_basics() {
    assert!(m(r"\.php$", "/x.php"));
    assert!(m(r"\.php$", "/x.php\n"));
    assert!(!m(r"\.php\z", "/x.php\n"));
    assert!(!m(r"\.php$", "/x.php.jpg"));
    assert!(m(r".php$", "/x_php"));
    assert!(m(r"[^/]\.php(/|$)", "/a/x.php/info"));
    assert!(m(r"^/(?!uploads).*\.php$", "/x.php"));
    assert!(!m(r"^/(?!uploads).*\.php$", "/uploads/x.php"));
    assert!(m(r"(?<=/)x", "/x"));
    assert!(!m(r"(?<!/)x", "/x"));
    assert!(m(r"(?i)ABC", "abc"));
    assert!(Regex::parse(r"\.PHP$", true)
        .unwrap()
        .is_match(b"/x.php")
        .unwrap());
    assert!(m(r"(a)\1", "aa"));
    assert!(!m(r"(a)\1", "ab"));
    assert!(m(r"(?<n>a)\k<n>(?P=n)", "aaa"));
    assert!(m(r"\Qa.b\E+", "a.bbb"));
    assert!(!m(r"\Qa.b\E", "axb"));
    assert!(m(r"[[:digit:]]{3}", "a123"));
    assert!(m(r"\x41\x{42}\101", "ABA"));
    assert!(!m(r"(?>a+)a", "aaa"));
    assert!(!m(r"a++a", "aaa"));
    assert!(m(r"(?s).", "\n"));
    assert!(!m(r".", "\n"));
    assert!(m(r"(?m)^b", "a\nb"));
    assert!(!m(r"^b", "a\nb"));
    assert!(m(r"(?x) a b # comment", "ab"));
    assert!(m(r"\p{Lu}", "A"));
    assert!(!m(r"\p{Lu}", "a"));
}

#[test]
fn leftmost_and_priorities_as_pcre() {
    assert_eq!(span_of("a|ab", "xab"), Some((1, 2)));
    assert_eq!(span_of("a*?b", "aab"), Some((0, 3)));
    assert_eq!(span_of("(a?)*b", "b"), Some((0, 1)));
    let c = re(r"^(.+\.php)(.*)$")
        .captures(b"/x.php.jpg")
        .unwrap()
        .unwrap();
    assert_eq!(c.get(1), Some((0, 6)));
    let c = re(r"^(?<s>.+?\.php)(?<i>/.*)?$")
        .captures(b"/a.php/b.php")
        .unwrap()
        .unwrap();
    assert_eq!(c.get(1), Some((0, 6)));
    assert_eq!(c.get(2), Some((6, 12)));
    let c = re("(a)|(b)").captures(b"b").unwrap().unwrap();
    assert_eq!((c.get(1), c.get(2)), (None, Some((0, 1))));
}

#[test]
fn errors_carry_pcre2_messages_and_spans() {
    let e = err("a(");
    assert_eq!(e.kind, ErrorKind::Syntax(114));
    assert_eq!(e.message, "missing closing parenthesis");
    assert_eq!(err("[z-a]").kind, ErrorKind::Syntax(108));
    assert_eq!(err("*a").kind, ErrorKind::Syntax(109));
    assert_eq!(err(r"(?<=a+)b").kind, ErrorKind::Syntax(125));
    assert_eq!(err(r"\i").kind, ErrorKind::Syntax(103));
    assert_eq!(err(r"(a)\2").kind, ErrorKind::Syntax(115));
    assert_eq!(err("a)").span, crate::source::Span::new(1, 2));
    assert_eq!(err(r"(?R)").kind, ErrorKind::Unsupported);
    assert_eq!(err(r"a\K").kind, ErrorKind::Unsupported);
    let deep = format!("{}a{}", "(".repeat(221), ")".repeat(221));
    assert_eq!(err(&deep).kind, ErrorKind::Syntax(119));
    let ok = format!("{}a{}", "(".repeat(220), ")".repeat(220));
    assert_eq!(re(&ok).capture_table().count(), 220);
}

#[test]
fn capture_table_numbers_as_pcre2() {
    let r = re(r"(a)(?:b)(?<x>c)(?P<y>d)(?'z'e)(?=(f))");
    let t = r.capture_table();
    assert_eq!(t.count(), 5);
    assert_eq!(t.index("x"), Some(2));
    assert_eq!(t.name(4), Some("z"));
    assert_eq!(t.index("nope"), None);
    assert_eq!(re("(?n)(a)(?<b>c)").capture_table().count(), 1);
}

#[test]
fn anchoring() {
    assert!(re("^/x").anchored_start());
    assert!(re(r"\A/x").anchored_start());
    assert!(re("^a|^b").anchored_start());
    assert!(re("(^a|^b)c").anchored_start());
    assert!(!re("^a|b").anchored_start());
    assert!(!re("(?m)^a").anchored_start());
    assert!(!re("a^").anchored_start());
    assert!(re(r"\.php$").anchored_end());
    assert!(re(r"(\.php|\.phtml)\z").anchored_end());
    assert!(!re(r"\.php(/|$)").anchored_end());
    assert!(!re(r"\.php").anchored_end());
    assert!(re(r"a$(?=\n?)").anchored_end());
}

#[test]
fn capture_contents() {
    let r = re(r"^/([^/]+)/(.*)$");
    assert_eq!(r.can_contain(Target::Group(1), b'/'), Possible::No);
    assert_eq!(r.can_contain(Target::Group(1), b'a'), Possible::Maybe);
    assert_eq!(r.can_contain(Target::Group(2), b'/'), Possible::Maybe);
    assert_eq!(r.can_contain(Target::Group(2), b'\n'), Possible::No);
    assert_eq!(r.can_contain(Target::Whole, b'/'), Possible::Maybe);
    assert_eq!(r.can_contain(Target::Group(9), b'a'), Possible::No);
    let s = re(r"(?s)^(.*)$");
    assert_eq!(s.can_contain(Target::Group(1), b'\n'), Possible::Maybe);
    let b = re(r"(\d+)-\1");
    assert_eq!(b.can_contain(Target::Whole, b'x'), Possible::No);
    assert_eq!(b.can_contain(Target::Whole, b'7'), Possible::Maybe);
    // A lookahead inspects but does not capture.
    let l = re(r"^(?=.*/)([a-z]+)");
    assert_eq!(l.can_contain(Target::Group(1), b'/'), Possible::No);
    let c = Regex::parse("([a-z]+)", true).unwrap();
    assert_eq!(c.can_contain(Target::Group(1), b'Q'), Possible::Maybe);
}

#[test]
fn capture_sets_in_one_walk_equal_the_fixpoint() {
    // The one-walk shortcut must give what the fixpoint gives, for groups inside
    // lookarounds, inside `{0}`, nested, alternated, named, and with no group at all.
    for p in [
        r"^/([^/]+)/(.*)$",
        r"^(?=(a+))b(c)",
        r"(?<!(x))y",
        r"(a){0}b",
        r"((a|(b))c)*(?<n>d+)",
        r"~*(bot|crawl(er|ing)|spider|(?:wget|curl)/[0-9.]+)",
        r"plain",
    ] {
        for caseless in [false, true] {
            let r = Regex::parse(p, caseless).unwrap();
            let n = r.capture_table().count() as usize + 1;
            assert_eq!(
                super::queries::capture_sets(r.ast(), n as u32 - 1),
                super::queries::fixpoint(r.ast(), n),
                "{p}"
            );
        }
    }
}

#[test]
fn literal_prefixes() {
    assert_eq!(re(r"^/static/.*\.css$").literal_prefix(), b"/static/");
    assert_eq!(re(r"/(api|apt)/").literal_prefix(), b"/ap");
    assert_eq!(re(r"(?:ab){2}c+d").literal_prefix(), b"ababc");
    assert_eq!(re(r"\.php$").literal_prefix(), b".php");
    assert_eq!(re(r"[.]x").literal_prefix(), b".x");
    assert_eq!(re(r"a?b").literal_prefix(), b"");
    assert_eq!(Regex::parse("/Ab", true).unwrap().literal_prefix(), b"/");
}

#[test]
fn redos_exponential_classics() {
    for p in [
        r"^(a+)+$",
        r"(a|a)*$",
        r"^(.*)*x",
        r"^(\w+\s?)*$",
        r"(a|aa)*!",
        r"^(\d|\w)+$",
    ] {
        let r = re(p).redos().unwrap_or_else(|| panic!("{p}: no finding"));
        assert_eq!(r.risk, Risk::Exponential, "{p}");
        assert!(r.confirmed, "{p}: attack {:?} not confirmed", r.attack);
    }
    // Structural even when nothing after it can fail.
    assert_eq!(re("(a+)+").redos().unwrap().risk, Risk::Exponential);
    let a = re(r"^(a+)+$").redos().unwrap().attack;
    assert_eq!(a.pump, b"a");
    assert!(!re(r"^(a+)+$").is_match(&a.string(3)).unwrap());
}

#[test]
fn redos_exponential_multibyte_bodies() {
    // A repeat over a body that matches a string of two or more bytes in one iteration
    // and in two: the text `ab`×k splits among the outer iterations in 2^(k-1) ways.
    for (p, pump) in [
        (r"^/((ab)+)+/files$", &b"ab"[..]),
        (r"^/((abc)*x?)*$", b"abc"),
        (r"^/(?:(?:foo)+)+$", b"foo"),
        (r"^/(x?(ab)+)+$", b"ab"),
        (r"^/((ab){1,3})+$", b"ab"),
        (r"^/(ab|abab)+$", b"ab"),
        (r"^/((ab)+|cd)+$", b"ab"),
    ] {
        let r = re(p).redos().unwrap_or_else(|| panic!("{p}: no finding"));
        assert_eq!(r.risk, Risk::Exponential, "{p}");
        assert!(r.confirmed, "{p}: attack {:?} not confirmed", r.attack);
        assert_eq!(r.attack.pump, pump, "{p}");
        assert!(!re(p).is_match(&r.attack.string(3)).unwrap(), "{p}");
    }
    let a = re(r"^/((ab)+)+/files$").redos().unwrap().attack;
    assert_eq!((&a.prefix[..], &a.suffix[..]), (&b"/"[..], &b"!"[..]));
}

#[test]
fn redos_polynomial() {
    for (p, d) in [
        (r".*.*x", 2),
        (r"\d+\d+", 2),
        (r"^\d+\.?\d+$", 2),
        (r"^(.*)(.*)(.*)x", 3),
    ] {
        let r = re(p).redos().unwrap_or_else(|| panic!("{p}: no finding"));
        assert_eq!(r.risk, Risk::Polynomial { degree: d }, "{p}");
    }
    assert!(re(r"^(.*)(.*)(.*)x").redos().unwrap().confirmed);
    assert!(re(r"^\d+\.?\d+$").redos().unwrap().confirmed);
}

#[test]
fn redos_no_false_alarms() {
    for p in [
        r"^/(\d+)/(.*)$",
        r"\.php$",
        r"^/(.+\.php)(/.*)?$",
        r"^(.+\.php)(/.+)$",
        r"(a+b)+",
        r"(ab|a)*c",
        r"^/[a-z]+/\d+$",
        r"a*+a*",
        r"(?>a+)+b",
        r"^(?:[^/]+/)*[^/]+$",
        // One way to split each subject among the iterations.
        r"^/(ab)+/",
        r"^/((ab)+)/",
        r"^/(?:ab|cd)+/",
        r"^/((ab)+c)+/",
        r"^/(x(ab)+)+$",
        r"^/(a|ab)+$",
        r"^/(([a-z0-9-]+)/)+$",
        r"^/(\.[a-z]+)+$",
        r"^/(?>(ab)+)+/",
        r"^/((ab)++)+/",
    ] {
        assert_eq!(re(p).redos(), None, "{p}");
    }
}

#[test]
fn bounded() {
    // Exponential blow-up stops at the step limit.
    let r = re(r"^(a|a)*$");
    let subject = [b"a".repeat(40), b"!".to_vec()].concat();
    assert_eq!(r.captures(&subject), Err(Undecided::Steps));
    // Huge unrolled repeats are refused by the matcher, not by the parser.
    let big = re(r"(?:a{1000}){1000}");
    assert_eq!(big.is_match(b"a"), Err(Undecided::TooLarge));
    // Scripts above U+007F are approximate.
    let g = re(r"\p{Greek}");
    assert_eq!(g.approximations().len(), 1);
    assert!(matches!(
        g.is_match(&[0xb5]),
        Err(Undecided::Approximate(_))
    ));
    assert_eq!(g.is_match(b"abc"), Ok(false));
}

#[test]
fn disjoint_by_anchors() {
    // Extensions that end differently: no file name matches both.
    assert!(re(r".*\.(jpe?g|gif|png|ico)$").disjoint(&re(r".*\.(css|js)$")));
    // Exact addresses of two families.
    assert!(re(r"^127\.0\.0\.1$").disjoint(&re(r"^::1$")));
    // Case-insensitive patterns close their bytes under case.
    assert!(!Regex::parse(r"\.JS$", true)
        .unwrap()
        .disjoint(&re(r"\.js$")));
    // Not proven: unanchored, a shared last byte, a pattern that may match nothing, or
    // one whose match may end in a newline (which `$` also accepts before).
    assert!(!re(r"\.(png|css)").disjoint(&re(r"\.js")));
    assert!(!re(r"\.png$").disjoint(&re(r"\.svg$")));
    assert!(!re(r"^a*$").disjoint(&re(r"^b$")));
    assert!(!re("a\n$").disjoint(&re("b$")));
    // Confirmed on subjects: each side matches its own.
    for (p, s) in [(r".*\.(css|js)$", "/a.js"), (r"^::1$", "::1")] {
        assert!(m(p, s));
    }
}

#[test]
fn leading_option_settings() {
    // Read past: they do not change which bytes match (checked with pcre2test 10.42).
    assert_eq!(re(r"(*UTF)^/u/((.*))$").capture_table().count(), 2);
    assert_eq!(
        span_of(r"(*UTF)(*NO_JIT)^/u/(.*)$", "/u/a\rb"),
        Some((0, 6))
    );
    assert!(m(r"(*LIMIT_MATCH=1000)(*UCP)^/a", "/ab"));
    assert!(!m(r"(*UTF)^/a$", "/a/"));
    // Not read past: they change what `.`, `$` or a match mean, or need Unicode.
    for p in [
        r"(*CR)a.b",
        r"(*ANYCRLF)^a$",
        r"(*NOTEMPTY)a?",
        r"(*UTF)é+",
        r"(*UTF)\x{100}",
    ] {
        assert_eq!(err(p).kind, ErrorKind::Unsupported, "{p}");
    }
    // Only at the start, and only with a value where one is taken.
    assert_eq!(err(r"a(*UTF)").kind, ErrorKind::Unsupported);
    assert_eq!(err(r"(*LIMIT_MATCH=)a").kind, ErrorKind::Unsupported);
}

#[test]
fn redos_polynomial_from_one_start_is_confirmed() {
    // Anchored, the quadratic's constant part hides its growth from 8 to 32 pumps.
    for p in [r"^/(.*.*)x$", r"^/a(.*.*)x$", r"^/(.*)(.*)\.php$"] {
        let r = re(p).redos().unwrap_or_else(|| panic!("{p}: no finding"));
        assert!(r.confirmed, "{p}: {r:?}");
    }
    // PCRE2 makes `[a-z0-9_]*` possessive through the end of its group (the `-` after it
    // cannot be one of its bytes): the chain backtracks in one repeat only.
    let p = r"^([^\.]*)/([a-z]+[a-z0-9_]*)-([a-z0-9_\-]+)\.html$";
    let r = re(p);
    let f = r.redos().unwrap();
    assert!(!r.redos_reaches_match_limit(&f, 8192), "{p}: {f:?}");
    // Linear patterns stay unconfirmed (or unfound).
    for p in [r"^/[a-z]+/x$", r"^/(.*)x$"] {
        assert!(re(p).redos().is_none_or(|r| !r.confirmed), "{p}");
    }
}

#[test]
fn redos_attack_avoiding_a_pump() {
    // nginx merges `//`: the attack must pump something else that still backtracks.
    let no_double_slash = |s: &[u8]| !s.windows(2).any(|w| w == b"//");
    let exp = re(r".*\.php(\/.*)*$");
    let r = exp.redos().unwrap();
    assert_eq!(r.attack.pump, b"/");
    let v = exp.redos_accepted(&r, &no_double_slash).unwrap();
    assert_eq!(v.attack.pump, b"/a");
    assert_eq!(v.risk, Risk::Exponential);
    // An accepted attack is kept as it is.
    assert_eq!(exp.redos_accepted(&r, &|_| true), Some(r));
    // `.*` and `/*` share only `/`: no other pump makes them backtrack.
    let quad = re(r"^/templates/.*/*.tpl");
    let r = quad.redos().unwrap();
    assert_eq!(quad.redos_accepted(&r, &no_double_slash), None);
}
