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
//! stay silent.
//!
//! A regex with no such bypass that was written for the `https://` site and also accepts
//! the same host over `http://` (`^https?://example\.com$`) is reported as info: a
//! plain-HTTP page, which anyone on the network path can replace, passes as the trusted
//! site (`plain_http`).

use crate::analysis::cursor::{Directive, Word};
use crate::analysis::pcre::Regex;
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct OriginValidationBypass;
    code: NGX132,
    name: "origin-validation-bypass",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
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
}

impl Rule for OriginValidationBypass {
    fn check(&self, cx: &mut Context<'_>) {
        // (where, the word to label, what it matches, the pattern, caseless)
        let mut found: Vec<(Directive<'_>, Word<'_>, Subject, String, bool)> = Vec::new();
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
                if let Some((p, ci)) = regex_key(&key.value()) {
                    found.push((d, key, subject, p, ci));
                }
            }
        }
        for d in cx.nginx_directives("valid_referers") {
            for a in d.args() {
                // nginx compiles these caseless whatever follows the `~`.
                if let Some((p, _)) = regex_key(&a.value()) {
                    found.push((d, a, Subject::RefererNoScheme, p, true));
                }
            }
        }
        for (d, word, subject, pattern, caseless) in found {
            let Ok(re) = Regex::parse(&pattern, caseless) else {
                continue;
            };
            let what = match subject {
                Subject::Origin => "an `Origin`",
                Subject::Referer | Subject::RefererNoScheme => "a `Referer`",
            };
            let Some(attack) = bypass(&re, subject) else {
                if let Some(plain) = plain_http(&re, &pattern, caseless, subject) {
                    let file = d.file().clone();
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
            let file = d.file().clone();
            let diag = cx.report(
                &file,
                word.raw(),
                format!(
                    "`{pattern}` also accepts {what} of `{shown}`: {}",
                    attack.reason
                ),
            );
            diag.help = Some(format!(
                "the trusted name is `{}`; anchor the whole value and escape the dots, e.g. `{}`",
                attack.trusted, attack.suggestion
            ));
        }
    }
}

/// A map key's or `valid_referers` regex (`~re`, `~*re`): the pattern and whether `*`.
fn regex_key(text: &str) -> Option<(String, bool)> {
    if let Some(p) = text.strip_prefix("~*") {
        return Some((p.to_string(), true));
    }
    text.strip_prefix('~').map(|p| (p.to_string(), false))
}

/// `if ($http_origin ~ re)` (and `~*`, `!~`, `!~*`; `$http_referer`), unless it is a
/// blocklist: a matching (not negated) test whose block refuses the request. nginx reads
/// the condition as words, the first starting with `(`, the last ending with `)`
/// (ngx_http_rewrite_if), which may stand alone.
fn if_site(d: Directive<'_>) -> Option<(Directive<'_>, Word<'_>, Subject, String, bool)> {
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
    let subject = match var.to_ascii_lowercase().as_str() {
        "$http_origin" => Subject::Origin,
        "$http_referer" => Subject::Referer,
        _ => return None,
    };
    if !matches!(op.as_str(), "~" | "~*" | "!~" | "!~*") {
        return None;
    }
    // Which way the test goes: `!~` guarding a refusal lists the trusted sites; `~`
    // whose block grants CORS or records a trusted origin does too. Anything else
    // (`~` guarding a refusal: a blocklist) is not about trust.
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
    let allowlist = if op.starts_with('!') {
        refuses
    } else {
        grants && !refuses
    };
    if !allowlist {
        return None;
    }
    Some((d, *word, subject, pattern.clone(), op.ends_with('*')))
}

/// A subject the pattern accepts although its host belongs to someone else.
struct Attack {
    subject: String,
    reason: &'static str,
    trusted: String,
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
        Subject::Referer => format!("{scheme}://{h}{path}"),
        Subject::RefererNoScheme => format!("{h}{path}"),
    };
    let matches = |s: &str| re.is_match(s.as_bytes()) == Ok(true);
    // The pattern must accept its own site, written the way the header carries it.
    let own = form(&host);
    if !matches(&own) && !matches(own.trim_end_matches('/')) {
        return None;
    }
    let mut candidates: Vec<(String, &'static str)> = vec![(
        form(&format!("{host}.evil.net")),
        "the pattern is not anchored after the name, so a subdomain of another site passes",
    )];
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
            Subject::Referer => format!("^https://{escaped}(/|$)"),
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
