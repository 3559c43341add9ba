//! NGX008 php-location-regex-unanchored: a regex location meant for PHP that also sends
//! other files to PHP-FPM.
//!
//! A location is *meant for PHP* when it is a regex location (`~` or `~*`) whose regex
//! mentions `php` and whose block passes to FastCGI (`fastcgi_pass`, directly or through an
//! include). Only *generic* PHP locations are judged: those whose regex matches `/x.php`.
//! A location naming particular scripts (`^/index\.php(/|$)`) is not.
//!
//! The regex is run (by [`crate::analysis::pcre`], as PCRE2 runs it) against URIs that are
//! not PHP scripts:
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
//!
//! A location whose `SCRIPT_FILENAME` names one script (text, under `$document_root` at
//! most) is not judged: php-fpm runs that script whatever the URI.

use crate::analysis::cursor::{Directive, Word};
use crate::analysis::pcre::{Captures, Kind, Node, Regex, SetKind};
use crate::analysis::php_guard::{
    has_file_check, passes_to_fastcgi, regex_word, Catchers, UPLOAD_URI,
};
use crate::diagnostic::Severity;
use crate::fix::{edits, Edit, Fix};
use crate::fxhash::FxHashMap;
use crate::rules::{Context, Rule};
use crate::source::Span;
use crate::syntax::nginx::tree::unescape;

declare_rule! {
    pub struct PhpLocationRegexUnanchored;
    code: NGX008,
    name: "php-location-regex-unanchored",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

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

/// A regex location and where its regex is written.
struct PhpLocation<'a> {
    location: Directive<'a>,
    /// The word holding the regex.
    word: Word<'a>,
    /// Bytes of the modifier written in the same word (`~\.php$`): 0, 1 or 2.
    prefix: usize,
    pattern: String,
    caseless: bool,
}

impl Rule for PhpLocationRegexUnanchored {
    fn check(&self, cx: &mut Context<'_>) {
        // Thousands of vhosts share a handful of PHP regexes: analyse each once.
        let mut analyses: FxHashMap<String, Vec<AnalysisFor>> = FxHashMap::default();
        let mut catchers = Catchers::default();
        for location in cx.nginx_directives("location") {
            let Some(loc) = php_location(location) else {
                continue;
            };
            // A `SCRIPT_FILENAME` that names one script runs that script whatever the URI:
            // no other file can be sent to PHP through this location.
            if fixed_script(location) {
                continue;
            }
            // A file read by several configurations is judged once.
            if !cx.claim(loc.word.file(), loc.word.raw()) {
                continue;
            }
            let split = split_path_info(location);
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
    let re = Regex::parse(pattern, caseless).ok()?;
    if find(&re, GOOD_URI) != Some(true) {
        return None; // names particular scripts, or cannot be decided
    }
    let split = split.and_then(|s| Regex::parse(s, false).ok());
    let bad = bad_matches(&re, split.as_ref())?;
    let fixed = if bad.is_empty() {
        None
    } else {
        fixed_pattern(pattern, caseless, split.as_ref())
    };
    Some(Analysis {
        upload: find(&re, UPLOAD_URI) == Some(true),
        bad,
        fixed,
    })
}

/// The regex of a regex location: its word, whether it is caseless (`~*`), and how many
/// bytes of the word the modifier takes (`location ~\.php$`: 1; `location ~ \.php$`: 0).
/// The regex location if it is meant for PHP. Runs for every `location`, so nothing is
/// allocated before the pattern is known to name `php`.
fn php_location(location: Directive<'_>) -> Option<PhpLocation<'_>> {
    if !location.has_block() {
        return None;
    }
    let (word, caseless, prefix) = regex_word(location)?;
    let value = word.value();
    let pattern = value.get(prefix..)?;
    let names_php = pattern
        .as_bytes()
        .windows(3)
        .any(|w| w.eq_ignore_ascii_case(b"php"));
    if !names_php || !passes_to_fastcgi(location) {
        return None;
    }
    Some(PhpLocation {
        location,
        word,
        prefix,
        pattern: pattern.to_string(),
        caseless,
    })
}

/// The first argument of the block's `fastcgi_split_path_info`, if any.
fn split_path_info(location: Directive<'_>) -> Option<String> {
    let split = location.children("fastcgi_split_path_info").next()?;
    Some(split.arg(0)?.value().into_owned())
}

fn judge<'a>(
    cx: &mut Context<'_>,
    loc: &PhpLocation<'a>,
    analysis: &Analysis,
    catchers: &mut Catchers<'a>,
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
    let d = cx.report(loc.word.file(), loc.word.raw(), message);
    d.help = Some(format!("{}; {advice}", causes.join("; ")));
    if let Some((fix, _)) = fix {
        d.with_fix(fix);
    }
}

/// Whether the regex matches somewhere in `uri`; `None` when undecidable.
fn find(re: &Regex, uri: &str) -> Option<bool> {
    re.is_match(uri.as_bytes()).ok()
}

/// The leftmost match's captures; `None` when undecidable, `Some(None)` for no match.
fn captures(re: &Regex, uri: &str) -> Option<Option<Captures>> {
    re.captures(uri.as_bytes()).ok()
}

/// Indexes of the [`BAD_URIS`] the regex sends to PHP as scripts; `None` if undecidable.
fn bad_matches(re: &Regex, split: Option<&Regex>) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for (i, (uri, _)) in BAD_URIS.iter().enumerate() {
        let Some(caps) = captures(re, uri)? else {
            continue;
        };
        if script_cut_at_php(uri, caps.as_slice()) {
            continue;
        }
        if let Some(split) = split {
            if let Some(Some(c)) = captures(split, uri) {
                let c = c.as_slice();
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
fn fixed_pattern(pattern: &str, caseless: bool, split: Option<&Regex>) -> Option<String> {
    let re = Regex::parse(pattern, caseless).ok()?;
    let anchor = if split.is_some() { "(/|$)" } else { "$" };
    let mut new = pattern.to_string();
    // Apply from the end so earlier offsets stay valid.
    let mut changes = extension_repairs(&re, anchor);
    changes.sort_by_key(|c| std::cmp::Reverse(c.0));
    for (at, len, text) in changes {
        new.replace_range(at..at + len, &text);
    }
    if new == pattern {
        return None;
    }
    let fixed = Regex::parse(&new, caseless).ok()?;
    let ok = find(&fixed, GOOD_URI) == Some(true)
        && bad_matches(&fixed, split).is_some_and(|b| b.is_empty());
    ok.then_some(new)
}

/// The edit writing `new` in place of the location's regex, keeping the word's quotes.
fn fix_edit(loc: &PhpLocation<'_>, new: &str) -> Option<(Fix, String)> {
    let src = &loc.word.file().text;
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
        vec![Edit::replace(loc.word.file(), span, new)],
    );
    Some((fix, new.to_string()))
}

/// The info-level check, for a generic PHP location that matches [`UPLOAD_URI`]: is there a
/// file check?
fn check_guard<'a>(cx: &mut Context<'_>, loc: &PhpLocation<'a>, catchers: &mut Catchers<'a>) {
    if has_file_check(loc.location) {
        return;
    }
    if catchers.earlier_sibling_catches(loc.location) {
        return;
    }
    let d = cx.report(
        loc.word.file(),
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

/// A change to the pattern: (byte offset, length replaced, new text).
type Change = (usize, usize, String);

/// Changes that write each `php` extension of the pattern as `\.php` followed by `anchor`:
/// escape a bare `.` before it, drop a quantifier after it, and add the anchor where a
/// top-level branch ends right after it.
fn extension_repairs(re: &Regex, anchor: &str) -> Vec<Change> {
    let len = re.pattern().len();
    let mut out = Vec::new();
    for alt in re.ast().branches() {
        repairs_in(alt.items(), None, true, anchor, len, &mut out);
    }
    out
}

/// The item without its quantifier, and the quantifier's byte range (empty if none).
fn atom(item: &Node) -> (&Node, (usize, usize)) {
    match &item.kind {
        Kind::Repeat(r) => (
            &r.node,
            (r.quantifier.start as usize, r.quantifier.end as usize),
        ),
        _ => (item, (item.span.end as usize, item.span.end as usize)),
    }
}

fn lit(item: &Node, want: u8) -> bool {
    matches!(item.kind, Kind::Literal { byte, .. } if byte.eq_ignore_ascii_case(&want))
}

fn once(item: &Node) -> bool {
    match &item.kind {
        Kind::Repeat(r) => r.min == 1 && r.max == Some(1),
        _ => true,
    }
}

/// Walks one sequence; `before` is the item before the enclosing group (for
/// `\.(php|phtml)`), `top` tells whether the sequence is a top-level branch.
fn repairs_in(
    seq: &[Node],
    before: Option<&Node>,
    top: bool,
    anchor: &str,
    len: usize,
    out: &mut Vec<Change>,
) {
    for (i, item) in seq.iter().enumerate() {
        if let Kind::Group(g) = &atom(item).0.kind {
            let prev = if i > 0 { seq.get(i - 1) } else { before };
            for alt in g.body.branches() {
                repairs_in(alt.items(), prev, false, anchor, len, out);
            }
        }
        let is_php = i + 2 < seq.len()
            && lit(atom(item).0, b'p')
            && lit(atom(&seq[i + 1]).0, b'h')
            && lit(atom(&seq[i + 2]).0, b'p')
            && once(item)
            && once(&seq[i + 1]);
        if !is_php {
            continue;
        }
        let dot = if i > 0 { seq.get(i - 1) } else { before };
        let Some(dot) = dot else { continue };
        let (dot_atom, _) = atom(dot);
        match &dot_atom.kind {
            Kind::Set(cs) if matches!(cs.written, SetKind::Dot { .. }) && once(dot) => {
                out.push((dot_atom.span.start as usize, 1, "\\.".into()))
            }
            Kind::Literal { byte: b'.', .. } => {}
            Kind::Set(cs)
                if cs.written == (SetKind::Class { negated: false })
                    && cs.set.single() == Some(b'.') => {}
            _ => continue, // not an extension (`/phpmyadmin`)
        }
        let (_, quant) = atom(&seq[i + 2]);
        if quant.1 > quant.0 {
            out.push((quant.0, quant.1 - quant.0, String::new()));
        }
        if top && i + 3 == seq.len() && quant.1 == len {
            out.push((len, 0, anchor.to_string()));
        } else if top && i + 3 == seq.len() {
            // The branch ends here but another follows (`\.php|…`).
            out.push((quant.1, 0, anchor.to_string()));
        }
    }
}

/// Whether the `SCRIPT_FILENAME` the location sends names one script: text, and at most the
/// root it is under (`/healthz-php/index.php`, `$document_root/index.php`), nothing taken
/// from the request.
fn fixed_script(location: Directive<'_>) -> bool {
    let Some(value) = crate::analysis::fastcgi_params::param(location, "SCRIPT_FILENAME") else {
        return false;
    };
    let script = crate::analysis::variables::Script::parse_value(value.as_bytes());
    script.error.is_none()
        && script.parts.iter().all(|p| match &p.kind {
            crate::analysis::variables::PartKind::Literal => true,
            crate::analysis::variables::PartKind::Variable { name, .. } => {
                name.eq_ignore_ascii_case("document_root")
                    || name.eq_ignore_ascii_case("realpath_root")
            }
            crate::analysis::variables::PartKind::Capture(_) => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(re: &str) -> String {
        let r = Regex::parse(re, false).unwrap();
        let mut new = re.to_string();
        let mut ch = extension_repairs(&r, "$");
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

    #[test]
    fn probe_uris() {
        let re = Regex::parse(r"\.php", false).unwrap();
        assert_eq!(bad_matches(&re, None), Some(vec![0]));
        let re = Regex::parse(r"^(.+\.php)(.*)$", false).unwrap();
        assert_eq!(bad_matches(&re, None), Some(vec![]));
        let re = Regex::parse(r".php$", false).unwrap();
        assert_eq!(bad_matches(&re, None), Some(vec![1]));
    }
}
