//! NGX137 regex-redos: a regex nginx runs on client input — `location ~`, `rewrite`, `if
//! ($var ~ …)` on a request variable, a `map` regex key over one, `server_name ~` — that
//! backtracks exponentially (`(a+)+$`), or polynomially (`.*.*x$`) far enough that a subject
//! of the 8 KB nginx accepts reaches PCRE2's match limit: one request keeps a worker busy
//! until that limit (10 million by default) ends the match with an error and nginx answers
//! 500. Other polynomial patterns of degree three or more are information.
//!
//! The structure and the attack string are the PCRE module's (`Regex::redos`); only
//! findings its own matcher confirmed take super-linear steps are reported, and the
//! attack is checked against the real PCRE2 by tests/redos_pcre2test.rs. nginx's
//! `pcre_jit` is off by default, and a JIT-compiled pattern still backtracks the same
//! number of ways, only faster; but the JIT fails a subject without the pattern's last
//! required byte at any length, so under `pcre_jit on` the attack shown holds that byte
//! (`Regex::redos_subject_jit`), and a pattern with no failing subject that holds it is not
//! reported.

use crate::analysis::cursor::{Directive, Word};
use crate::analysis::pcre::{Redos, Regex, Risk};
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use std::borrow::Cow;

declare_rule! {
    pub struct RegexRedos;
    code: NGX137,
    name: "regex-redos",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
}

/// The longest subject a client puts in one request line or header: nginx's default
/// `large_client_header_buffers 4 8k` (a longer request line is refused with 414, a longer
/// header with 400).
const MAX_SUBJECT: usize = 8 * 1024;

/// The least polynomial degree reported at all: a quadratic match that cannot reach the
/// match limit within [`MAX_SUBJECT`] costs a few milliseconds.
const MIN_DEGREE: u32 = 3;

/// How many times the attack's pump is repeated in the message.
const PUMPS: usize = 32;

/// A regex to analyse: (directive, word holding the pattern, the pattern when it is not
/// the word's whole value, caseless, what it matches, how a client delivers it).
type Site<'a> = (
    Directive<'a>,
    Word<'a>,
    Option<String>,
    bool,
    Cow<'static, str>,
    Channel,
);

/// How the text a regex runs on reaches nginx, which decides the bytes an attack can hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Channel {
    /// The normalised URI (`$uri`, locations, `rewrite`): percent-escapes decoded, then
    /// slashes merged and `.` segments removed.
    Uri,
    /// Raw from the request line (`$request_uri`, `$args`, `$arg_*`): nothing is decoded,
    /// and the line carries no control byte or space (nginx answers 400).
    RequestLine,
    /// A header's value (`Host`, `$http_*`, cookies): anything but NUL, CR and LF.
    Header,
    /// Any byte (a request body, a decoded user name).
    Any,
}

impl Channel {
    /// Whether a client can deliver `s` this way (for [`Channel::Uri`], `merge_slashes`).
    fn carries(self, s: &[u8], merge_slashes: bool) -> bool {
        match self {
            Channel::Uri => survives_normalisation(s, merge_slashes),
            Channel::RequestLine => s.iter().all(|&b| (0x21..0x7f).contains(&b)),
            Channel::Header => !s.iter().any(|&b| matches!(b, 0 | b'\r' | b'\n')),
            Channel::Any => true,
        }
    }
}

/// A pattern's analysis, kept for every site that repeats it: the regex, its confirmed
/// ReDoS, and that ReDoS with an attack a client can deliver (computed on first use): on the
/// URI with `merge_slashes` off and on, in the request line, in a header.
struct Analysed {
    re: Regex,
    redos: Redos,
    delivered: [std::cell::OnceCell<Option<Redos>>; 4],
}

impl Rule for RegexRedos {
    fn check(&self, cx: &mut Context<'_>) {
        // (directive, word holding the pattern, the pattern when it is not the word's whole
        // value, caseless, what it matches). The many location and rewrite patterns are not
        // unescaped here: they are analysed once per distinct raw text below.
        let mut sites: Vec<Site<'_>> = Vec::new();
        // A finding is at its pattern, with no label: when files are named, the patterns of
        // the other files are not shown, and need no analysis.
        let focus = cx.focus();
        let directives = |name| {
            cx.nginx_directives(name)
                .filter(move |d| focus.is_none_or(|f| f.shows(d.file())))
        };
        for d in directives("location") {
            let (Some(m), Some(p), None) = (d.arg(0), d.arg(1), d.arg(2)) else {
                continue;
            };
            // The modifier is never quoted or escaped in practice; the raw bytes decide
            // without unescaping every location's arguments.
            let caseless = match m.raw_bytes() {
                b"~" => false,
                b"~*" => true,
                raw if memchr::memchr(b'~', raw).is_none() => continue,
                _ => match m.value().as_ref() {
                    "~" => false,
                    "~*" => true,
                    _ => continue,
                },
            };
            sites.push((d, p, None, caseless, "the URI".into(), Channel::Uri));
        }
        for d in directives("rewrite") {
            if let Some(p) = d.arg(0) {
                sites.push((d, p, None, false, "the URI".into(), Channel::Uri));
            }
        }
        for d in directives("server_name") {
            for a in d.args() {
                if memchr::memchr(b'~', a.raw_bytes()).is_none() {
                    continue;
                }
                if let Some(p) = a.value().strip_prefix('~') {
                    sites.push((
                        d,
                        a,
                        Some(p.to_string()),
                        true,
                        "the `Host` header".into(),
                        Channel::Header,
                    ));
                }
            }
        }
        for d in directives("if") {
            // Only `~`/`~*`/`!~` conditions hold a regex.
            if !d
                .args()
                .any(|w| memchr::memchr(b'~', w.raw_bytes()).is_some())
            {
                continue;
            }
            if let Some((word, pattern, caseless, var)) = if_regex(d) {
                if client_variable(&var) {
                    let how = channel(&var);
                    sites.push((
                        d,
                        word,
                        Some(pattern),
                        caseless,
                        format!("`{var}`").into(),
                        how,
                    ));
                }
            }
        }
        for d in directives("map") {
            let Some(src) = d.arg(0).map(|a| a.value().into_owned()) else {
                continue;
            };
            if !client_variable(&src) {
                continue;
            }
            let how = channel(&src);
            d.for_each_entry(&mut |key, _| {
                // Only regex keys: the first raw byte tells (a quoted `"~…"` is one too).
                if !key.raw_bytes().iter().take(2).any(|&b| b == b'~') {
                    return;
                }
                let k = key.value();
                let (p, ci) = match (k.strip_prefix("~*"), k.strip_prefix('~')) {
                    (Some(p), _) => (p.to_string(), true),
                    (None, Some(p)) => (p.to_string(), false),
                    _ => return,
                };
                sites.push((d, key, Some(p), ci, format!("`{src}`").into(), how));
            });
        }
        // A pattern repeated in many servers (generated vhosts, shared snippets) is
        // analysed once.
        // The key is the pattern's raw text (with its source: a word's whole value, or a part
        // of it) and the case flag.
        type Key<'a> = (Cow<'a, [u8]>, bool, bool);
        // Boxed: most patterns have no ReDoS, and a parsed regex inline made every slot of
        // the map hundreds of bytes (24,000 distinct location regexes: 9.9 MB).
        let mut seen: crate::fxhash::FxHashMap<Key<'_>, Option<Box<Analysed>>> =
            crate::fxhash::FxHashMap::default();
        // Whether a main file of the stack sets `pcre_jit on`, asked once for the run.
        let main_sets_jit = std::cell::OnceCell::new();
        let stack = cx.stack;
        for (d, word, pattern, caseless, subject, how) in sites {
            let key: Key<'_> = match &pattern {
                None => (Cow::Borrowed(word.raw_bytes()), false, caseless),
                Some(p) => (Cow::Owned(p.clone().into_bytes()), true, caseless),
            };
            let analysed = seen.entry(key).or_insert_with(|| {
                let text = pattern.clone().unwrap_or_else(|| word.value().into_owned());
                let re = Regex::parse(&text, caseless).ok()?;
                let redos = re.redos().filter(|r| r.confirmed)?;
                Some(Box::new(Analysed {
                    re,
                    redos,
                    delivered: Default::default(),
                }))
            });
            let Some(a) = analysed.as_deref() else {
                continue;
            };
            let re = &a.re;
            // nginx matches locations and `rewrite` against the URI after normalising it:
            // an attack whose pumps it changes (`//` merged, `/./` removed) never reaches the
            // regex as written, so the pump is lengthened until it survives, or the pattern
            // is not reported.
            // An attack must be one a client can send: a pump nginx's URI normalisation
            // changes (`//` merged, `/./` removed) never reaches the regex as written, nor does
            // a line feed in the request line (`$args` is not decoded): the pump is lengthened
            // until it gets through, or the pattern is not reported.
            let uri = how == Channel::Uri;
            let merge = uri && !crate::analysis::locations::default_server::written_off(d);
            let slot = match how {
                Channel::Uri => usize::from(merge),
                Channel::RequestLine => 2,
                Channel::Header => 3,
                Channel::Any => 4,
            };
            let r = match a.delivered.get(slot) {
                Some(cell) => {
                    let variant = cell
                        .get_or_init(|| re.redos_accepted(&a.redos, &|s| how.carries(s, merge)));
                    match variant {
                        Some(r) => r,
                        None => continue,
                    }
                }
                None => &a.redos,
            };
            // A URI is shown as the client sends it: from `/`, with escapes.
            let shown = |s: &[u8]| if uri { target(s, true) } else { shown(s) };
            let pattern = pattern.unwrap_or_else(|| word.value().into_owned());
            // A polynomial attack that reaches the match limit within one request costs
            // as much as an exponential one: measured with nginx 1.22.1, an 8 KB URI
            // against `^/[a-z]+.*(/x/.*\.php)$` takes 0.16 s of a worker and answers 500.
            let severity = match r.risk {
                _ if re.redos_reaches_match_limit(r, MAX_SUBJECT) => Severity::Warning,
                Risk::Polynomial { degree } if degree >= MIN_DEGREE => Severity::Info,
                _ => continue,
            };
            let how = match r.risk {
                Risk::Exponential => "exponentially".to_string(),
                Risk::Polynomial { degree } => format!("in time growing as length^{degree}"),
            };
            // A subject of 8 KB is past the interpreter's required-byte check (done below
            // 5,000 bytes), so the polynomial attack needs no sample after it, which could
            // make it match. PCRE2's JIT checks at any length: under `pcre_jit on` the
            // subject ends with a sample, which holds the bytes the pattern requires
            // (tests/redos_pcre2test.rs runs both against pcre2test).
            let state = jit_state(d, &|| *main_sets_jit.get_or_init(|| a_main_sets_jit(stack)));
            let jit = state == Jit::On;
            // Under the JIT, repeats around a lookaround fail fast on its stack limit
            // instead (error -46 in milliseconds): not the cost this rule is about.
            if jit && r.lookaround {
                continue;
            }
            // Where `pcre_jit` is not known (a snippet whose main configuration is not in
            // the tree), a subject that holds the byte the JIT requires works either way;
            // where there is none, the finding says what it depends on.
            let mut depends = "";
            let attack = match r.risk {
                Risk::Polynomial { .. } if jit => match re.redos_subject_jit(r, PUMPS) {
                    Some(s) => shown(&s),
                    // Every subject the JIT would run matches: no attack.
                    None => continue,
                },
                Risk::Polynomial { .. } if state == Jit::Unknown && !r.lookaround => {
                    match re.redos_subject_jit(r, PUMPS) {
                        Some(s) => shown(&s),
                        None => {
                            depends = UNLESS_JIT;
                            shown(&r.attack.string(PUMPS))
                        }
                    }
                }
                Risk::Polynomial { .. } if severity == Severity::Warning => {
                    shown(&r.attack.string(PUMPS))
                }
                _ => shown(&re.redos_subject(r, PUMPS)),
            };
            if state == Jit::Unknown && r.lookaround {
                depends = UNLESS_JIT;
            }
            let effect = match r.risk {
                Risk::Exponential => "keeps a worker matching until PCRE2's match limit".into(),
                Risk::Polynomial { .. } => {
                    let pump = if uri {
                        target(&r.attack.pump, false)
                    } else {
                        shown(&r.attack.pump)
                    };
                    if severity == Severity::Warning && jit {
                        format!(
                            "with `{pump}` repeated to fill the 8 KB nginx accepts, keeps a \
                             worker matching until PCRE2's match limit (then nginx answers \
                             500); `pcre_jit on` makes each attempt several times faster, not \
                             shorter"
                        )
                    } else if severity == Severity::Warning {
                        format!(
                            "with `{pump}` repeated to fill the 8 KB nginx accepts, keeps a \
                             worker matching until PCRE2's match limit (then nginx answers 500)"
                        )
                    } else {
                        format!(
                            "with `{pump}` repeated, costs a worker more the longer it is (below \
                             PCRE2's match limit within 8 KB)"
                        )
                    }
                }
            };
            let file = d.file().clone();
            let diag = cx.report(
                &file,
                word.raw(),
                format!("`{pattern}` backtracks {how} on {subject}: `{attack}` {effect}{depends}"),
            );
            diag.severity = severity;
            diag.help = Some(
                "make the repeats unambiguous (one way to match each byte: `(a+)+` → `a+`, \
                 `(\\w+\\s?)*` → `[\\w\\s]*`), or make them possessive / atomic (`a++`, `(?>…)`); \
                 `pcre_jit on` speeds the match up but backtracks just as many ways"
                    .into(),
            );
        }
    }
}

/// Whether nginx compiles a regex with PCRE2's JIT.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Jit {
    On,
    Off,
    /// A snippet whose main configuration is not in the tree, beside no main file that
    /// sets `pcre_jit on`.
    Unknown,
}

/// What a finding says when it holds only with `pcre_jit` off.
const UNLESS_JIT: &str = " (with `pcre_jit off`, nginx's default: the main configuration that \
    includes this file is not in the tree)";

/// [`Jit`] for `d`: its own main context's `pcre_jit`; for a snippet no main file of the tree
/// includes, `on` when a main file of the stack sets it (an installer's rewrite collection
/// beside the `nginx.conf` it installs; `main_sets_jit` answers that, once per run), else
/// unknown.
fn jit_state(d: Directive<'_>, main_sets_jit: &dyn Fn() -> bool) -> Jit {
    if jit_on(d) {
        return Jit::On;
    }
    if !d.instance().standalone {
        return Jit::Off;
    }
    if main_sets_jit() {
        Jit::On
    } else {
        Jit::Unknown
    }
}

/// Whether a main file of `stack` (not a standalone snippet) sets `pcre_jit on`.
fn a_main_sets_jit(stack: &crate::stack::model::Stack) -> bool {
    stack.nginx.iter().filter(|i| !i.standalone).any(|i| {
        crate::analysis::cursor::named(i, "pcre_jit")
            .any(|p| p.parent().is_none() && p.arg(0).is_some_and(|a| a.is("on")))
    })
}

/// Whether nginx compiles `d`'s regexes with PCRE2's JIT (`pcre_jit on` in the main
/// context; off by default).
fn jit_on(d: Directive<'_>) -> bool {
    d.effective("pcre_jit")
        .last()
        .and_then(|p| p.arg(0))
        .is_some_and(|a| a.is("on"))
}

/// `if ($var ~ re)` (and `~*`, `!~`, `!~*`): the word holding the pattern, the pattern,
/// whether caseless, and the variable (as written, with `$`).
fn if_regex(d: Directive<'_>) -> Option<(Word<'_>, String, bool, String)> {
    let mut words: Vec<(Word<'_>, String)> =
        d.args().map(|w| (w, w.value().into_owned())).collect();
    let first = words.first_mut()?;
    first.1 = first.1.strip_prefix('(')?.to_string();
    let last = words.last_mut()?;
    last.1 = last.1.strip_suffix(')')?.to_string();
    words.retain(|(_, v)| !v.is_empty());
    let [(_, var), (_, op), (word, pattern)] = words.as_slice() else {
        return None;
    };
    if !matches!(op.as_str(), "~" | "~*" | "!~" | "!~*") {
        return None;
    }
    Some((*word, pattern.clone(), op.ends_with('*'), var.clone()))
}

/// A variable whose whole value is the client's: a header, argument or cookie, the URI
/// or query, the host.
fn client_variable(var: &str) -> bool {
    let Some(name) = var.strip_prefix('$') else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    ["http_", "arg_", "cookie_"]
        .iter()
        .any(|p| name.starts_with(p))
        || matches!(
            name.as_str(),
            "uri"
                | "document_uri"
                | "request_uri"
                | "args"
                | "query_string"
                | "request"
                | "host"
                | "request_body"
                | "remote_user"
                | "content_type"
        )
}

/// An attack string as a message can show it: printable ASCII as is, other bytes `\xHH`.
fn shown(s: &[u8]) -> String {
    let mut out = String::new();
    for &b in s {
        if b.is_ascii_graphic() || b == b' ' {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// How a client variable's text reaches nginx ([`Channel`]).
fn channel(var: &str) -> Channel {
    let name = var.strip_prefix('$').unwrap_or(var).to_ascii_lowercase();
    match name.as_str() {
        "uri" | "document_uri" => Channel::Uri,
        "request_uri" | "args" | "query_string" | "request" => Channel::RequestLine,
        "request_body" | "remote_user" => Channel::Any,
        _ if name.starts_with("arg_") => Channel::RequestLine,
        _ => Channel::Header,
    }
}

/// Whether a client can make `$uri` hold `uri` (with a `/` before it when it has none): the
/// request target that sends it ([`target`]) normalises back to it.
fn survives_normalisation(uri: &[u8], merge_slashes: bool) -> bool {
    let sent = target(uri, true);
    let mut want = Vec::with_capacity(uri.len() + 1);
    if uri.first() != Some(&b'/') {
        want.push(b'/');
    }
    want.extend_from_slice(uri);
    crate::analysis::locations::normalise(sent.as_bytes(), merge_slashes)
        .is_ok_and(|n| n.path == want)
}

/// The request target that sends the decoded URI `uri`: bytes a request line cannot carry
/// as they are (controls, space, non-ASCII, `%`, `?`, `#`) percent-escaped, and, when
/// `lead`, a `/` before it if it has none.
fn target(uri: &[u8], lead: bool) -> String {
    let mut out = String::with_capacity(uri.len() + 1);
    if lead && uri.first() != Some(&b'/') {
        out.push('/');
    }
    for &b in uri {
        if b.is_ascii_graphic() && !matches!(b, b'%' | b'?' | b'#') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
