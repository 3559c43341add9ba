//! NGX132 origin-validation-bypass: a regex that is meant to recognise the site's own
//! origin or referer — `if ($http_origin ~ …)`, `if ($http_referer ~ …)`, a `map
//! $http_origin` regex key, `valid_referers ~…` — and also matches a host an attacker can
//! register: `example.com` (no anchors) matches `https://example.com.evil.net`,
//! `^https://api.example.com$` matches `https://apixexample.com`, `example\.com$` matches
//! `https://evilexample.com`. CORS or CSRF checks built on it let the attacker's site in.
//!
//! Every finding is proven: the trusted text is a subject the pattern was written for
//! ([`Regex::sample`], confirmed by matching), the attacker's subject is built from it with a
//! host whose registrable domain differs, and the PCRE module says it matches. Undecided
//! matches, samples with no domain in them and blocklists (`if (… ~ …) { return 403; }`)
//! stay silent. An `if` counts as an allowlist when its block refuses what fails the test,
//! grants CORS to what passes it, or keeps other sites from framing the page unless the
//! test passes (`if ($http_referer !~ …) { add_header X-Frame-Options SAMEORIGIN; }`,
//! see `if_site`).
//!
//! A regex with no such bypass that was written for the `https://` site and also accepts
//! the same host over `http://` (`^https?://example\.com$`) is reported as info: a
//! plain-HTTP page, which anyone on the network path can replace, passes as the trusted
//! site (`plain_http`).
//!
//! Two tests that can never pass are reported as info, since the check then refuses or
//! protects everyone, or grants no one: an `Origin` regex that requires a path (an origin is
//! `scheme://host[:port]`, never more), and `$http_referrer`, the header `Referrer`, which
//! browsers never send (the header is spelt `Referer`).
//!
//! `add_header Access-Control-Allow-Origin` whose value is the request's `Origin` with no
//! allowlist at all — `$http_origin` itself, a variable `set` from it, or a `map
//! $http_origin` that yields it for any origin — lets every site read the responses: a
//! warning when the level also sends `Access-Control-Allow-Credentials true` (the visitors'
//! authenticated responses), info otherwise (often meant, for public data)
//! (`reflected_origins`).

use crate::analysis::cursor::{self, Directive, Word};
use crate::analysis::header_lists::more_headers_specs;
use crate::analysis::header_lists::{sent, Level};
use crate::analysis::pcre::Regex;
use crate::analysis::variables::PartKind;
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use crate::stack::model::NginxInstance;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

declare_rule! {
    pub struct OriginValidationBypass;
    code: NGX132,
    name: "origin-validation-bypass",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
}

/// What a regex is matched against.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Subject {
    /// `$http_origin`: `scheme://host[:port]`, as a browser serialises it.
    Origin,
    /// `$http_referer`: a whole URL.
    Referer,
    /// `valid_referers ~re`: the referer after `http://` or `https://`
    /// (ngx_http_referer_variable), matched without case.
    RefererNoScheme,
    /// `$http_referrer`: the request header `Referrer`, which no browser sends.
    Misspelt,
}

/// An allowlist regex and where it stands.
struct Check<'a> {
    /// The directive it is in, and the word to label.
    d: Directive<'a>,
    word: Word<'a>,
    subject: Subject,
    pattern: String,
    caseless: bool,
    /// For `if`: whether the test is negated (`!~`); `None` for a map key or
    /// `valid_referers`.
    negated: Option<bool>,
}

impl Rule for OriginValidationBypass {
    fn check(&self, cx: &mut Context<'_>) {
        let mut found: Vec<Check<'_>> = Vec::new();
        for d in cx.nginx_directives("if") {
            if let Some(site) = if_site(d) {
                found.push(site);
            }
        }
        // Map output variables sent as `Access-Control-Allow-Origin`: such a map is an
        // allowlist whatever its values are.
        let cors_vars: Vec<String> = cx
            .nginx_directives("add_header")
            .filter(|d| {
                d.arg(0).is_some_and(|h| {
                    h.value()
                        .eq_ignore_ascii_case("access-control-allow-origin")
                })
            })
            .filter_map(|d| d.arg(1))
            .flat_map(|v| {
                v.variables()
                    .parts
                    .iter()
                    .filter_map(|p| p.kind.key())
                    .collect::<Vec<_>>()
            })
            .collect();
        for d in cx.nginx_directives("map") {
            let subject = match d.arg(0).map(|a| a.value().to_ascii_lowercase()).as_deref() {
                Some("$http_origin") => Subject::Origin,
                Some("$http_referer") => Subject::Referer,
                _ => continue,
            };
            let output = d
                .arg(1)
                .map(|v| v.value().trim_start_matches('$').to_ascii_lowercase());
            let sent_as_cors = output.is_some_and(|o| cors_vars.contains(&o));
            for (key, value) in d.entries() {
                // An entry is a trusted site when the map feeds the CORS header, or when it
                // yields the origin itself; a map of `1`s is as likely a blocklist.
                let yields_origin = value.is_some_and(|v| {
                    let v = v.value().to_ascii_lowercase();
                    v.contains("$http_origin") || v.contains("://")
                });
                let refuses =
                    value.is_some_and(|v| matches!(v.value().as_ref(), "" | "0" | "off" | "false"));
                let trusted = (sent_as_cors && !refuses) || yields_origin;
                if !trusted {
                    continue;
                }
                if let Some((pattern, caseless)) = regex_key(&key.value()) {
                    found.push(Check {
                        d,
                        word: key,
                        subject,
                        pattern,
                        caseless,
                        negated: None,
                    });
                }
            }
        }
        for d in cx.nginx_directives("valid_referers") {
            for a in d.args() {
                // nginx compiles these caseless whatever follows the `~`.
                if let Some((pattern, _)) = regex_key(&a.value()) {
                    found.push(Check {
                        d,
                        word: a,
                        subject: Subject::RefererNoScheme,
                        pattern,
                        caseless: true,
                        negated: None,
                    });
                }
            }
        }
        for c in found {
            let Check {
                d,
                word,
                subject,
                ref pattern,
                caseless,
                negated,
            } = c;
            let file = d.file().clone();
            if subject == Subject::Misspelt {
                let diag = cx.report(
                    &file,
                    word.raw(),
                    format!(
                        "`$http_referrer` is the request header `Referrer`, which browsers never \
                         send (the header is spelt `Referer`): the value is empty, so {}",
                        never_passes(negated)
                    ),
                );
                diag.severity = Severity::Info;
                diag.help = Some(
                    "write `$http_referer`, the variable of the `Referer` header browsers send"
                        .into(),
                );
                continue;
            }
            let Ok(re) = Regex::parse(pattern, caseless) else {
                continue;
            };
            if subject == Subject::Origin {
                if let Some(origin) = origin_with_path(pattern) {
                    let diag = cx.report(
                        &file,
                        word.raw(),
                        format!(
                            "`{pattern}` requires a path after the host, and an `Origin` never \
                             has one (`{origin}`: scheme, host and port only): the pattern \
                             matches no browser's request, so {}",
                            never_passes(negated)
                        ),
                    );
                    diag.severity = Severity::Info;
                    diag.help = Some(format!(
                        "end the pattern at the host (or port), e.g. `^{}$`",
                        escape_origin(&origin)
                    ));
                    continue;
                }
            }
            let what = match subject {
                Subject::Origin => "an `Origin`",
                _ => "a `Referer`",
            };
            let Some(attack) = bypass(&re, subject) else {
                if let Some(plain) = plain_http(&re, pattern, caseless, subject) {
                    let diag = cx.report(
                        &file,
                        word.raw(),
                        format!(
                            "`{pattern}` also accepts {what} of `{}`: a page served over plain \
                             HTTP, which anyone on the network path can alter, passes as the \
                             trusted site",
                            plain.subject
                        ),
                    );
                    diag.severity = Severity::Info;
                    diag.help = Some(format!(
                        "require `https://`, e.g. `{}`; a script injected into the plain-HTTP \
                         page of `{}` then no longer passes the check",
                        plain.suggestion, plain.host
                    ));
                }
                continue;
            };
            // `valid_referers` sees the header after its scheme: show the header.
            let shown = match subject {
                Subject::RefererNoScheme => format!("https://{}", attack.subject),
                _ => attack.subject.clone(),
            };
            let diag = cx.report(
                &file,
                word.raw(),
                format!(
                    "`{pattern}` also accepts {what} of `{shown}`: {}",
                    attack.reason
                ),
            );
            diag.help = Some(if attack.written {
                format!(
                    "the trusted name is `{}`; anchor the whole value and escape the dots, e.g. \
                     `{}`",
                    attack.trusted, attack.suggestion
                )
            } else {
                let example = match subject {
                    Subject::Origin => "^https://(www\\.)?example\\.com$",
                    Subject::RefererNoScheme => "~^(www\\.)?example\\.com(/|$)",
                    _ => "^https://(www\\.)?example\\.com(/|$)",
                };
                format!(
                    "the pattern leaves the host name open (`{}` is the shortest it accepts): \
                     write the trusted names out, anchor the whole value and escape the dots, \
                     e.g. `{example}`",
                    attack.trusted
                )
            });
        }
        reflected_origins(cx);
    }
}

/// What a test that is never true (an empty value, an `Origin` with a path) does: an `if`
/// with `!~` applies its block to everyone, one with `~` to no one; a map entry never
/// applies.
fn never_passes(negated: Option<bool>) -> &'static str {
    match negated {
        Some(true) => {
            "the `!~` test is true for every request, and its block applies to the sites the \
             pattern lists as well"
        }
        Some(false) => "the test is never true, and its block applies to no one",
        None => "this entry never applies",
    }
}

/// The origin (`https://example.com`) an `Origin` pattern requires a path after: every
/// match starts at the start of the subject with `scheme://host[:port]/`. PCRE's own
/// reading: anchored in every alternative, and the literal text every match starts with
/// (read case-sensitively, so a `~*` pattern's letters count too; `/` has no case) holds
/// a `/` after the `://`.
fn origin_with_path(pattern: &str) -> Option<String> {
    let re = Regex::parse(pattern, false).ok()?;
    if !re.anchored_start() {
        return None;
    }
    let prefix = String::from_utf8(re.literal_prefix()).ok()?;
    let (scheme, rest) = prefix.split_once("://")?;
    if scheme.is_empty() || !scheme.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let slash = rest.find('/')?;
    let host = &rest[..slash];
    if host.is_empty() {
        return None;
    }
    // Browsers send the scheme and host in lowercase.
    Some(format!("{scheme}://{host}").to_ascii_lowercase())
}

/// An origin as a regex: dots escaped.
fn escape_origin(origin: &str) -> String {
    origin.replace('.', "\\.")
}

/// A map key's or `valid_referers` regex (`~re`, `~*re`): the pattern and whether `*`.
fn regex_key(text: &str) -> Option<(String, bool)> {
    if let Some(p) = text.strip_prefix("~*") {
        return Some((p.to_string(), true));
    }
    text.strip_prefix('~').map(|p| (p.to_string(), false))
}

/// An `if` condition as nginx reads it: words, the first starting with `(`, the last ending
/// with `)` (ngx_http_rewrite_if), which may stand alone; the parentheses are removed and
/// words left empty dropped.
fn condition(d: Directive<'_>) -> Option<Vec<(Word<'_>, String)>> {
    let mut words: Vec<(Word<'_>, String)> =
        d.args().map(|w| (w, w.value().into_owned())).collect();
    let first = words.first_mut()?;
    first.1 = first.1.strip_prefix('(')?.to_string();
    let last = words.last_mut()?;
    last.1 = last.1.strip_suffix(')')?.to_string();
    words.retain(|(_, v)| !v.is_empty());
    Some(words)
}

/// `if ($http_origin ~ re)` (and `~*`, `!~`, `!~*`; `$http_referer`, and the misspelt
/// `$http_referrer`), when it lists trusted sites:
/// - a negated test (`!~`) whose block refuses the request (`return` 4xx, `deny`) or sends a
///   header that protects it (`X-Frame-Options`, a `Content-Security-Policy` with
///   `frame-ancestors`) which the level around does not send anyway: what the regex accepts
///   is let in, or may frame the page;
/// - a matching test (`~`) whose block grants CORS, records a trusted origin, or lifts
///   that protection (`X-Frame-Options ALLOW-FROM …`, `frame-ancestors` naming sites,
///   `more_clear_headers X-Frame-Options`), and refuses nothing.
///
/// A matching test guarding a refusal (a blocklist) is not about trust.
fn if_site(d: Directive<'_>) -> Option<Check<'_>> {
    let words = condition(d)?;
    let [(_, var), (_, op), (word, pattern)] = words.as_slice() else {
        return None;
    };
    let subject = match var.to_ascii_lowercase().as_str() {
        "$http_origin" => Subject::Origin,
        "$http_referer" => Subject::Referer,
        "$http_referrer" => Subject::Misspelt,
        _ => return None,
    };
    if !matches!(op.as_str(), "~" | "~*" | "!~" | "!~*") {
        return None;
    }
    let refuses = d.all_children().any(|c| {
        c.name() == "deny"
            || (c.name() == "return"
                && c.arg(0)
                    .and_then(|a| a.value().parse::<u16>().ok())
                    .is_some_and(|code| code >= 400))
    });
    let grants = d.all_children().any(|c| match c.name() {
        "add_header" => c.arg(0).is_some_and(|h| {
            h.value()
                .to_ascii_lowercase()
                .starts_with("access-control-")
        }),
        "set" => {
            let name = c.arg(0).map(|a| a.value().to_ascii_lowercase());
            let value = c.arg(1).map(|a| a.value().to_ascii_lowercase());
            name.is_some_and(|n| {
                ["cors", "origin", "allow", "trusted", "valid"]
                    .iter()
                    .any(|w| n.contains(w))
            }) || value.is_some_and(|v| v.contains("$http_origin"))
        }
        _ => false,
    });
    let negated = op.starts_with('!');
    let allowlist = if negated {
        // A header the block adds protects only the requests that fail the test when the
        // level around it does not send one of its own to those that pass.
        refuses
            || (d.all_children().any(protects)
                && !sent(Level::around(d), "add_header", "add_header_inherit")
                    .into_iter()
                    .any(protects))
    } else {
        (grants || d.all_children().any(unprotects)) && !refuses
    };
    if !allowlist {
        return None;
    }
    Some(Check {
        d,
        word: *word,
        subject,
        pattern: pattern.clone(),
        caseless: op.ends_with('*'),
        negated: Some(negated),
    })
}

/// A header (name, value) set by `add_header name value` or `more_set_headers "name:
/// value"` (each of its arguments but the `-s`/`-t` options).
fn headers_set(c: Directive<'_>) -> Vec<(String, String)> {
    match c.name() {
        "add_header" => match (c.arg(0), c.arg(1)) {
            (Some(n), Some(v)) => vec![(n.value().to_ascii_lowercase(), v.value().into_owned())],
            _ => Vec::new(),
        },
        "more_set_headers" => more_headers_specs(c)
            .iter()
            .filter_map(|v| v.split_once(':'))
            .map(|(n, value)| (n.trim().to_ascii_lowercase(), value.trim().to_string()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The `frame-ancestors` sources of a `Content-Security-Policy` value, if it has the
/// directive.
fn frame_ancestors(csp: &str) -> Option<Vec<String>> {
    csp.split(';').find_map(|d| {
        let mut words = d.split_ascii_whitespace();
        words
            .next()
            .filter(|w| w.eq_ignore_ascii_case("frame-ancestors"))
            .map(|_| words.map(|w| w.to_ascii_lowercase()).collect())
    })
}

/// Whether `c` sends a header that keeps other sites from framing the page:
/// `X-Frame-Options` (any value), or a `Content-Security-Policy` with `frame-ancestors`.
fn protects(c: Directive<'_>) -> bool {
    headers_set(c)
        .iter()
        .any(|(name, value)| match name.as_str() {
            "x-frame-options" => !value.trim().is_empty(),
            "content-security-policy" => frame_ancestors(value).is_some(),
            _ => false,
        })
}

/// Whether `c` lifts that protection for the request: `X-Frame-Options` set to something
/// other than `DENY` / `SAMEORIGIN` (`ALLOWALL`, empty, or `ALLOW-FROM …`, which browsers
/// now ignore, header and all), `frame-ancestors` open to any site (`*`, `https:`), or
/// `more_clear_headers` of either header. `frame-ancestors https://partner.example` is not:
/// a stranger who passes the test still may not frame the page.
fn unprotects(c: Directive<'_>) -> bool {
    if c.name() == "more_clear_headers" {
        return more_headers_specs(c).iter().any(|v| {
            v.eq_ignore_ascii_case("x-frame-options")
                || v.eq_ignore_ascii_case("content-security-policy")
        });
    }
    headers_set(c)
        .iter()
        .any(|(name, value)| match name.as_str() {
            "x-frame-options" => {
                let v = value.trim();
                !v.eq_ignore_ascii_case("deny") && !v.eq_ignore_ascii_case("sameorigin")
            }
            "content-security-policy" => frame_ancestors(value).is_some_and(|s| {
                s.iter().any(|s| {
                    matches!(
                        s.as_str(),
                        "*" | "http:" | "https:" | "http://*" | "https://*"
                    )
                })
            }),
            _ => false,
        })
}

/// A subject the pattern accepts although its host belongs to someone else.
struct Attack {
    subject: String,
    reason: &'static str,
    trusted: String,
    /// Whether the pattern spells the trusted name out (else the sample filled in the
    /// pattern's open parts, `([^/])+metrika.*yandex` giving `ametrikayandex.ru`, and
    /// `suggestion` would be a guess).
    written: bool,
    suggestion: String,
}

/// The first attacker subject that `re` matches, built from the trusted text it was
/// written for.
fn bypass(re: &Regex, subject: Subject) -> Option<Attack> {
    let sample = String::from_utf8(re.sample()?).ok()?.to_ascii_lowercase();
    let (scheme, rest) = match sample.split_once("://") {
        Some((s, r)) => (Some(s.to_string()), r.to_string()),
        None => (None, sample.clone()),
    };
    if scheme
        .as_deref()
        .is_some_and(|s| !s.bytes().all(|b| b.is_ascii_alphabetic()))
    {
        return None;
    }
    let host_end = rest.find(['/', ':', '?', '#']).unwrap_or(rest.len());
    let host = rest[..host_end].trim_start_matches('.').to_string();
    let domain = registrable(&host)?;
    let scheme = scheme.unwrap_or_else(|| "https".into());
    // A referer keeps the path the pattern was written for (`example.org/uri`); a
    // browser always sends one, `/` at least.
    let path = match &rest[host_end..] {
        p if p.starts_with('/') => p.to_string(),
        _ => "/".to_string(),
    };
    let form = |h: &str| match subject {
        Subject::Origin => format!("{scheme}://{h}"),
        Subject::Referer | Subject::Misspelt => format!("{scheme}://{h}{path}"),
        Subject::RefererNoScheme => format!("{h}{path}"),
    };
    let matches = |s: &str| re.is_match(s.as_bytes()) == Ok(true);
    // The pattern must accept its own site, written the way the header carries it.
    let own = form(&host);
    if !matches(&own) && !matches(own.trim_end_matches('/')) {
        return None;
    }
    let written = String::from_utf8_lossy(re.pattern())
        .to_ascii_lowercase()
        .replace("\\.", ".")
        .contains(&host);
    let mut candidates: Vec<(String, &'static str)> = vec![(
        form(&format!("{host}.evil.net")),
        "the pattern is not anchored after the name, so a subdomain of another site passes",
    )];
    // A pattern that leaves the host open (`([^/])+metrika.*yandex\.ru/`) may let it end
    // early, the rest of the name following in the path: `ametrika.evil.net/yandex.ru/`.
    if !written && subject != Subject::Origin {
        for i in 1..host.len() {
            let (head, tail) = host.split_at(i);
            if head.ends_with('.') || tail.starts_with('.') {
                continue;
            }
            let s = match subject {
                Subject::RefererNoScheme => format!("{head}.evil.net/{tail}{path}"),
                _ => format!("{scheme}://{head}.evil.net/{tail}{path}"),
            };
            candidates.push((
                s,
                "the pattern lets the host end early, the rest of the name following in the \
                 path, so a host of another site passes",
            ));
        }
    }
    for (i, _) in host.match_indices('.') {
        let mut h = host.clone();
        h.replace_range(i..=i, "x");
        candidates.push((form(&h), "an unescaped `.` matches any character"));
    }
    candidates.push((
        form(&format!("evil{domain}")),
        "nothing requires a `.` or the start before the name, so a longer domain passes",
    ));
    if subject != Subject::Origin {
        let mut s = match subject {
            Subject::Referer => format!("{scheme}://evil.net/?"),
            _ => "evil.net/?".to_string(),
        };
        s.push_str(&sample);
        candidates.push((
            s,
            "the pattern is not anchored at the start, so the name may stand in the path",
        ));
    }
    let suggestion = {
        let escaped = host.replace('.', "\\.");
        match subject {
            Subject::Origin => format!("^https://{escaped}$"),
            Subject::Referer | Subject::Misspelt => format!("^https://{escaped}(/|$)"),
            Subject::RefererNoScheme => format!("~^{escaped}(/|$)"),
        }
    };
    candidates
        .into_iter()
        .find(|(s, _)| {
            let h = attacker_host(s, subject);
            registrable(&h).is_some_and(|d| d != domain) && matches(s)
        })
        .map(|(subject, reason)| Attack {
            subject,
            reason,
            trusted: host.clone(),
            written,
            suggestion,
        })
}

/// An `https://` origin check that also accepts the same host over plain `http://`.
struct PlainHttp {
    /// The plain-HTTP subject the pattern accepts.
    subject: String,
    host: String,
    /// The pattern with the scheme required.
    suggestion: String,
}

/// Whether `re`, written for a site over `https://` (its sample says `https://`, or
/// `https?://` makes the `s` optional), also accepts the same host over `http://`. Only
/// origin and referer headers carry a scheme (`valid_referers` strips it); a pattern written
/// for `http://` alone (a plain-HTTP site) is left alone, as are names without a registrable
/// domain (`localhost`, addresses).
fn plain_http(re: &Regex, pattern: &str, caseless: bool, subject: Subject) -> Option<PlainHttp> {
    if subject == Subject::RefererNoScheme {
        return None;
    }
    let sample = String::from_utf8(re.sample()?).ok()?.to_ascii_lowercase();
    let (scheme, rest) = sample.split_once("://")?;
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let host_end = rest.find(['/', ':', '?', '#']).unwrap_or(rest.len());
    let host = rest[..host_end].trim_start_matches('.').to_string();
    registrable(&host)?;
    let port = rest[host_end..]
        .strip_prefix(':')
        .map(|p| {
            let end = p.find(['/', '?', '#']).unwrap_or(p.len());
            format!(":{}", &p[..end])
        })
        .unwrap_or_default();
    let path = match rest[host_end..].find('/') {
        Some(i) => rest[host_end + i..].to_string(),
        None => "/".to_string(),
    };
    let form = |scheme: &str| match subject {
        Subject::Origin => format!("{scheme}://{host}{port}"),
        _ => format!("{scheme}://{host}{port}{path}"),
    };
    let accepts = |r: &Regex, s: &str| {
        r.is_match(s.as_bytes()) == Ok(true)
            || (subject == Subject::Referer
                && r.is_match(s.trim_end_matches('/').as_bytes()) == Ok(true))
    };
    // Written for the secure site (an `http` sample comes from `https?`: proven below by
    // the pattern accepting `https://` too), and accepting the plain one.
    let (secure, plain) = (form("https"), form("http"));
    if !accepts(re, &secure) || !accepts(re, &plain) {
        return None;
    }
    // `https?` (or `(http|https)` …) → `https`, when that is what makes the scheme
    // optional; else the canonical anchored form.
    let escaped = host.replace('.', "\\.");
    let canonical = match subject {
        Subject::Origin => format!("^https://{escaped}$"),
        _ => format!("^https://{escaped}(/|$)"),
    };
    let suggestion = [
        "https?",
        "http(s)?",
        "http(s?)",
        "(https?)",
        "(http|https)",
        "(https|http)",
    ]
    .iter()
    .map(|optional| pattern.replacen(optional, "https", 1))
    .filter(|p| p != pattern)
    .find(|p| Regex::parse(p, caseless).is_ok_and(|r| accepts(&r, &secure) && !accepts(&r, &plain)))
    .unwrap_or(canonical);
    Some(PlainHttp {
        subject: plain,
        host,
        suggestion,
    })
}

/// The host a candidate subject names.
fn attacker_host(s: &str, subject: Subject) -> String {
    let rest = match subject {
        Subject::RefererNoScheme => s,
        _ => s.split_once("://").map_or(s, |(_, r)| r),
    };
    let end = rest.find(['/', ':', '?', '#']).unwrap_or(rest.len());
    rest[..end].to_string()
}

/// The registrable domain of a host name (`www.example.co.uk` → `example.co.uk`), for the
/// names a pattern can be about: letters, digits and `-` in two or more labels, an
/// alphabetic top-level label. `None` for anything else (an IP address, `localhost`).
fn registrable(host: &str) -> Option<String> {
    let labels: Vec<&str> = host.split('.').collect();
    let ok = labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        && labels.last()?.bytes().all(|b| b.is_ascii_alphabetic());
    if !ok {
        return None;
    }
    let n = labels.len();
    // Two-letter country domains under a generic second level (`co.uk`, `com.au`).
    let second_level = ["co", "com", "org", "net", "ac", "gov", "edu", "ne", "or"];
    let take = if n >= 3 && labels[n - 1].len() == 2 && second_level.contains(&labels[n - 2]) {
        3
    } else {
        2
    };
    Some(labels[n - take..].join("."))
}

/// Origins of sites no allowlist was written for: a map whose regexes accept all three
/// accepts any origin.
const STRANGERS: [&str; 3] = [
    "https://attacker.example",
    "https://evil-site.net",
    "https://www.mallory.org",
];

/// How far a variable is followed (`set $a $b`, `map … $b { default $c; }` …).
const MAX_DEPTH: usize = 4;

/// How the request's `Origin` reaches a header.
enum Via<'a> {
    /// `$http_origin` itself.
    Direct,
    /// `set $var …` on the way to the header, from the origin.
    Set { var: String, set: Directive<'a> },
    /// `map … $var`, which yields the origin for any origin: `entry` is the key that does
    /// (`default`, `~.*`).
    Map {
        var: String,
        map: Directive<'a>,
        entry: Word<'a>,
    },
}

/// `add_header Access-Control-Allow-Origin` whose value is the request's `Origin` with no
/// allowlist (see the module's comment).
fn reflected_origins(cx: &mut Context<'_>) {
    let headers: Vec<Directive<'_>> = cx
        .nginx_directives("add_header")
        .filter(|d| {
            d.arg(0)
                .is_some_and(|h| h.is("access-control-allow-origin"))
        })
        .collect();
    let mut indexes: HashMap<*const NginxInstance, Index<'_>> = HashMap::new();
    for d in headers {
        let Some(value) = d.arg(1) else {
            continue;
        };
        let Some(name) = single_variable(value) else {
            continue;
        };
        let index = indexes
            .entry(d.instance() as *const NginxInstance)
            .or_insert_with(|| Index::new(d.instance()));
        let Some(via) = index.origin_of(d, &name, 0) else {
            continue;
        };
        // Inside an `if`: only a test of whether the origin is there lets every origin in.
        if let Some(block) = d.parent().filter(|p| p.name() == "if") {
            let presence = condition(block).is_some_and(|w| {
                is_presence_test(&w) && {
                    let v = w[0].1.trim_start_matches('$').to_ascii_lowercase();
                    v == "http_origin" || v == name
                }
            });
            if !presence {
                continue;
            }
        }
        if index.checked_elsewhere(d, &name) {
            continue;
        }
        let list = sent(Level::around(d), "add_header", "add_header_inherit");
        // A second, fixed `Access-Control-Allow-Origin` makes browsers refuse the response.
        let doubled = list.iter().any(|o| {
            *o != d
                && o.arg(0)
                    .is_some_and(|h| h.is("access-control-allow-origin"))
                && o.arg(1)
                    .is_some_and(|v| v.variables().is_literal() && !v.value().is_empty())
        });
        if doubled {
            continue;
        }
        let credentials = list
            .iter()
            .copied()
            .find(|o| sends_credentials(*o))
            .or_else(|| more_set_credentials(Level::around(d)));
        let reaches = match &via {
            Via::Direct => "`$http_origin`".to_string(),
            Via::Set { var, set } => format!(
                "`${var}`, set from `{}`",
                set.arg(1)
                    .map(|a| a.value().into_owned())
                    .unwrap_or_default()
            ),
            Via::Map { var, map, entry } => {
                let source = map
                    .arg(0)
                    .map(|a| a.value().into_owned())
                    .unwrap_or_default();
                if entry.is("default") {
                    format!("`${var}`, which `map {source}` yields as the origin by default")
                } else {
                    format!(
                        "`${var}`, which `map {source}` yields as the origin through `{}`, \
                         a key any origin matches",
                        entry.value()
                    )
                }
            }
        };
        let file = d.file().clone();
        let message = if credentials.is_some() {
            format!(
                "`Access-Control-Allow-Origin` echoes the request's `Origin` ({reaches}) with \
                 no allowlist, and `Access-Control-Allow-Credentials true` is sent: any site \
                 can read this server's authenticated responses in its visitors' browsers"
            )
        } else {
            format!(
                "`Access-Control-Allow-Origin` echoes the request's `Origin` ({reaches}) with \
                 no allowlist: any site can read this server's responses in its visitors' \
                 browsers"
            )
        };
        let diag = cx.report(&file, value.raw(), message);
        match &via {
            Via::Direct => {}
            Via::Set { set, .. } => {
                diag.label(set.file().clone(), set.span(), "set from the origin here");
            }
            Via::Map { map, entry, .. } => {
                diag.label(
                    map.file().clone(),
                    entry.raw(),
                    "any origin gets this entry",
                );
            }
        }
        if let Some(c) = credentials {
            diag.label(c.file().clone(), c.span(), "credentials allowed here");
            diag.help = Some(
                "list the sites that may read authenticated responses, e.g. `map $http_origin \
                 $cors { default \"\"; ~^https://(www\\.)?example\\.com$ $http_origin; }` and \
                 `add_header Access-Control-Allow-Origin $cors`; for public data, drop \
                 `Access-Control-Allow-Credentials` instead"
                    .into(),
            );
        } else {
            diag.severity = Severity::Info;
            diag.help = Some(
                "often intended: without `Access-Control-Allow-Credentials` browsers send no \
                 cookies, so only public responses are shared (`Access-Control-Allow-Origin \
                 *` says so plainly); list the trusted origins in a `map $http_origin` if the \
                 server answers differently by network (an intranet, an address allowlist)"
                    .into(),
            );
        }
    }
}

// The variable a value is made of, alone (`$cors`, `"${cors}"`), lowercase, without `$`.
fn single_variable(value: Word<'_>) -> Option<String> {
    let script = value.variables();
    if script.error.is_some() {
        return None;
    }
    match script.parts.as_slice() {
        [p] => match &p.kind {
            PartKind::Variable { .. } => p.kind.key(),
            _ => None,
        },
        _ => None,
    }
}

/// What the check asks of one configuration about its variables, gathered once.
struct Index<'a> {
    inst: &'a NginxInstance,
    /// `set $name …` by name (lowercase, without `$`).
    sets: HashMap<String, Vec<Directive<'a>>>,
    /// `map … $name` by name.
    maps: HashMap<String, Vec<Directive<'a>>>,
    /// Names something else defines: `geo`, `split_clients`, a module's `*_set`, a named
    /// capture. Such a variable is not known.
    other: HashSet<String>,
    /// The variables of the maps of `$http_origin`.
    origin_maps: Vec<String>,
    /// Per map: the entry through which it yields the origin for any origin.
    memo: RefCell<HashMap<Directive<'a>, Option<Word<'a>>>>,
}

impl<'a> Index<'a> {
    fn new(inst: &'a NginxInstance) -> Index<'a> {
        let var = |w: Option<Word<'_>>| {
            w.and_then(|a| a.value().strip_prefix('$').map(|v| v.to_ascii_lowercase()))
        };
        let mut index = Index {
            inst,
            sets: HashMap::new(),
            maps: HashMap::new(),
            other: HashSet::new(),
            origin_maps: Vec::new(),
            memo: RefCell::new(HashMap::new()),
        };
        for d in cursor::named(inst, "set") {
            if let Some(n) = var(d.arg(0)) {
                index.sets.entry(n).or_default().push(d);
            }
        }
        for d in cursor::named(inst, "map") {
            if let Some(n) = var(d.arg(1)) {
                if d.arg(0).is_some_and(|s| s.is("$http_origin")) {
                    index.origin_maps.push(n.clone());
                }
                index.maps.entry(n).or_default().push(d);
            }
            for (key, _) in d.entries() {
                if regex_key(&key.value()).is_some() {
                    index.other.extend(capture_names(&key.value()));
                }
            }
        }
        // Their variable is the last argument: `geo [$src] $var`, `split_clients $src $var`.
        for dir in ["geo", "split_clients"] {
            for d in cursor::named(inst, dir) {
                index.other.extend(var(d.args().last()));
            }
        }
        for dir in [
            "perl_set",
            "js_set",
            "set_by_lua",
            "set_by_lua_block",
            "set_by_lua_file",
            "auth_request_set",
            "set_escape_uri",
            "set_unescape_uri",
        ] {
            for d in cursor::named(inst, dir) {
                index.other.extend(var(d.arg(0)));
            }
        }
        for dir in [
            "location",
            "if",
            "rewrite",
            "server_name",
            "fastcgi_split_path_info",
        ] {
            for d in cursor::named(inst, dir) {
                for a in d.args() {
                    index.other.extend(capture_names(&a.value()));
                }
            }
        }
        index
    }

    /// Whether `$name`, read by the header `at`, holds the request's `Origin` whatever it
    /// is, and how. Only `set` and `map` are followed.
    fn origin_of(&self, at: Directive<'a>, name: &str, depth: usize) -> Option<Via<'a>> {
        if name == "http_origin" {
            return Some(Via::Direct);
        }
        if depth >= MAX_DEPTH || self.other.contains(name) {
            return None;
        }
        let sets = self.sets.get(name).map_or(&[][..], Vec::as_slice);
        let maps = self.maps.get(name).map_or(&[][..], Vec::as_slice);
        match (sets, maps) {
            ([], [map]) => {
                let entry = self.map_origin(*map, depth)?;
                Some(Via::Map {
                    var: name.to_string(),
                    map: *map,
                    entry,
                })
            }
            (sets, []) if !sets.is_empty() => {
                // Every `set` of it stores the origin, unconditionally; one of them runs
                // before the header is made.
                for s in sets {
                    if s.parent().is_some_and(|p| p.name() == "if") {
                        return None;
                    }
                    let inner = s.arg(1).and_then(single_variable)?;
                    self.origin_of(at, &inner, depth + 1)?;
                }
                let set = sets.iter().copied().find(|s| runs_before(*s, at))?;
                Some(Via::Set {
                    var: name.to_string(),
                    set,
                })
            }
            _ => None,
        }
    }

    /// Whether `$name` is the origin wherever it is read: `$http_origin`, or the one map
    /// that defines it yields the origin for any origin (a `set` depends on where it runs).
    fn origin_anywhere(&self, name: &str, depth: usize) -> bool {
        if name == "http_origin" {
            return true;
        }
        if depth >= MAX_DEPTH || self.other.contains(name) || self.sets.contains_key(name) {
            return false;
        }
        match self.maps.get(name).map(Vec::as_slice) {
            Some([map]) => self.map_origin(*map, depth).is_some(),
            _ => false,
        }
    }

    /// The entry through which `map` yields the request's `Origin` for any origin: for a
    /// map of `$http_origin`, the one each stranger's origin gets (exact keys, then regexes
    /// in order, then `default`: ngx_http_map_find), the same for all; for a map of
    /// anything else, its `default` when every value is the origin. `None` when an origin
    /// outside a list gets something else, or the map is not read exactly (`hostnames`, an
    /// undecided match).
    fn map_origin(&self, map: Directive<'a>, depth: usize) -> Option<Word<'a>> {
        let cached = self.memo.borrow().get(&map).copied();
        if let Some(known) = cached {
            return known;
        }
        // A cycle of maps is cut here.
        self.memo.borrow_mut().insert(map, None);
        let found = self.map_origin_uncached(map, depth);
        self.memo.borrow_mut().insert(map, found);
        found
    }

    fn map_origin_uncached(&self, map: Directive<'a>, depth: usize) -> Option<Word<'a>> {
        let source = map.arg(0)?.value().to_ascii_lowercase();
        let entries = map.entries();
        if entries.iter().any(|(k, _)| k.is("hostnames")) {
            return None;
        }
        let default = entries.iter().find(|(k, _)| k.is("default"));
        let is_origin = |v: Option<Word<'a>>| {
            v.and_then(single_variable)
                .is_some_and(|n| self.origin_anywhere(&n, depth + 1))
        };
        if source != "$http_origin" {
            let (key, _) = default?;
            let every = entries
                .iter()
                .filter(|(k, _)| !k.is("volatile"))
                .all(|&(_, v)| is_origin(v));
            return every.then_some(*key);
        }
        let mut chosen: Option<Word<'a>> = None;
        for stranger in STRANGERS {
            let mut pick: Option<(Word<'a>, Option<Word<'a>>)> = entries
                .iter()
                .find(|(k, _)| regex_key(&k.value()).is_none() && k.value() == stranger)
                .copied();
            if pick.is_none() {
                for &(k, v) in &entries {
                    let Some((pattern, caseless)) = regex_key(&k.value()) else {
                        continue;
                    };
                    let re = Regex::parse(&pattern, caseless).ok()?;
                    if re.is_match(stranger.as_bytes()).ok()? {
                        pick = Some((k, v));
                        break;
                    }
                }
            }
            let (key, value) = pick.or_else(|| default.copied())?;
            if !is_origin(value) {
                return None;
            }
            chosen.get_or_insert(key);
        }
        chosen
    }

    /// Whether an `if` that may run for the header's requests tests the origin against
    /// something: `$http_origin`, the variable sent, or any map of `$http_origin`. Such a
    /// test may refuse the origins it does not list (`if ($http_origin !~ …) { return 403;
    /// }`). A Lua or njs handler there may check (or rewrite) it unseen, and counts too.
    /// "May run": written in a block around the header, or inside the header's level (which
    /// its locations inherit).
    fn checked_elsewhere(&self, at: Directive<'a>, var: &str) -> bool {
        let mut names: Vec<&str> = vec!["http_origin", var];
        names.extend(self.origin_maps.iter().map(String::as_str));
        let checks = |d: Directive<'_>| match d.name() {
            "if" => condition(d).is_some_and(|w| {
                let tested = w[0].1.trim_start_matches('$').to_ascii_lowercase();
                w[0].1.starts_with('$') && names.contains(&tested.as_str()) && !is_presence_test(&w)
            }),
            n => SCRIPTED.contains(&n),
        };
        // The blocks around it.
        let mut level = Some(Level::around(at));
        while let Some(l) = level {
            let mut here = l.own("if");
            for n in SCRIPTED {
                here.extend(l.own(n));
            }
            if here.into_iter().any(checks) {
                return true;
            }
            level = l.parent();
        }
        // The blocks inside its level.
        let Some(block) = at.parent() else {
            return ["if"]
                .iter()
                .chain(SCRIPTED.iter())
                .any(|n| cursor::named(self.inst, n).any(checks));
        };
        let mut stack = vec![block];
        while let Some(b) = stack.pop() {
            for c in b.all_children() {
                if checks(c) {
                    return true;
                }
                if c.has_block() {
                    stack.push(c);
                }
            }
        }
        false
    }
}

/// Handlers that may check the origin, or set the header, in code lemplint does not read.
const SCRIPTED: [&str; 11] = [
    "access_by_lua",
    "access_by_lua_block",
    "access_by_lua_file",
    "rewrite_by_lua",
    "rewrite_by_lua_block",
    "rewrite_by_lua_file",
    "header_filter_by_lua",
    "header_filter_by_lua_block",
    "header_filter_by_lua_file",
    "js_access",
    "js_header_filter",
];

/// The names of the named captures a regex defines (`(?<name>…)`, `(?P<name>…)`,
/// `(?'name'…)`), lowercase.
fn capture_names(pattern: &str) -> Vec<String> {
    let b = pattern.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == b'(' && b[i + 1] == b'?' {
            let (start, close) = match (b[i + 2], b.get(i + 3)) {
                (b'<', Some(c)) if *c != b'=' && *c != b'!' => (i + 3, b'>'),
                (b'P', Some(b'<')) => (i + 4, b'>'),
                (b'\'', _) => (i + 3, b'\''),
                _ => {
                    i += 1;
                    continue;
                }
            };
            let end = b[start..]
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
                .map_or(b.len(), |p| start + p);
            if end > start && b.get(end) == Some(&close) {
                out.push(pattern[start..end].to_ascii_lowercase());
            }
        }
        i += 1;
    }
    out
}

/// Whether the rewrite-phase `set` runs for every request that `at` answers: it stands in
/// a block around `at` (the server, or the location `at` is in), and no `return`,
/// `rewrite` or `break` comes before it there.
fn runs_before(set: Directive<'_>, at: Directive<'_>) -> bool {
    let Some(block) = set.parent() else {
        return false;
    };
    inside(at, block)
        && !block
            .all_children()
            .take_while(|c| *c != set)
            .any(|c| matches!(c.name(), "return" | "rewrite" | "break"))
}

/// `if ($var)`, `if ($var = "")`, `if ($var != "")`: whether a value is there, which every
/// cross-origin request's `Origin` is.
fn is_presence_test(words: &[(Word<'_>, String)]) -> bool {
    match words {
        [_] => true,
        [_, (_, op)] => op == "=" || op == "!=",
        [_, (_, op), (_, value)] => (op == "=" || op == "!=") && value.is_empty(),
        _ => false,
    }
}

/// Whether `d` stands inside `block`, at any depth.
fn inside(d: Directive<'_>, block: Directive<'_>) -> bool {
    let mut p = d.parent();
    while let Some(b) = p {
        if b == block {
            return true;
        }
        p = b.parent();
    }
    false
}

/// `add_header Access-Control-Allow-Credentials true`: browsers require the value `true`,
/// exactly.
fn sends_credentials(d: Directive<'_>) -> bool {
    d.arg(0)
        .is_some_and(|h| h.is("access-control-allow-credentials"))
        && d.arg(1).is_some_and(|v| v.value() == "true")
}

/// headers-more's `more_set_headers "Access-Control-Allow-Credentials: true"` at the level
/// or above (it merges every level's).
fn more_set_credentials(level: Level<'_>) -> Option<Directive<'_>> {
    let mut l = Some(level);
    while let Some(here) = l {
        if let Some(d) = here.own("more_set_headers").into_iter().find(|d| {
            headers_set(*d)
                .iter()
                .any(|(n, v)| n == "access-control-allow-credentials" && v == "true")
        }) {
            return Some(d);
        }
        l = here.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_names_skip_lookbehinds_and_escapes() {
        assert_eq!(
            capture_names(r"^/(?<a>x)(?P<B_2>y)(?'c'z)(?<=w)(?<!v)\(?<d>)(?P=a)"),
            ["a", "b_2", "c"]
        );
        assert!(capture_names("^https://(www\\.)?example\\.com$").is_empty());
    }

    #[test]
    fn origin_patterns_that_require_a_path() {
        let origin = |p: &str| origin_with_path(p);
        assert_eq!(
            origin(r"^https://yandex\.ru/$").as_deref(),
            Some("https://yandex.ru")
        );
        assert_eq!(
            origin(r"^https://App\.example\.com:8443/").as_deref(),
            Some("https://app.example.com:8443")
        );
        // Optional, alternative or unanchored paths, and no path at all.
        for p in [
            r"^https://example\.com/?$",
            r"^https://example\.com(/|$)",
            r"https://example\.com/",
            r"^https://example\.com$",
            r"(?m)^https://example\.com/",
            r"^https:///",
        ] {
            assert_eq!(origin(p), None, "{p}");
        }
    }

    #[test]
    fn frame_ancestors_sources() {
        assert_eq!(
            frame_ancestors("default-src 'self'; frame-ancestors 'self' https://a.example"),
            Some(vec!["'self'".to_string(), "https://a.example".to_string()])
        );
        assert_eq!(frame_ancestors("default-src 'self'"), None);
    }
}
