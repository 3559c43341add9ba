//! What a regex meant to recognise the site's own origin or referer (`if ($http_origin ~
//! …)`, a `map $http_origin` regex key, `valid_referers ~…`) also lets through: a subject
//! built from the trusted text the pattern was written for ([`Regex::sample`], confirmed by
//! matching) with a host whose registrable domain differs, or the same host over plain
//! `http://`. Every answer is a subject the PCRE module says matches; undecided matches
//! give none.

use crate::analysis::pcre::Regex;

/// What a regex is matched against.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Subject {
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

/// A subject the pattern accepts although its host belongs to someone else.
pub struct Attack {
    pub subject: String,
    pub reason: &'static str,
    pub trusted: String,
    /// Whether the pattern spells the trusted name out (else the sample filled in the
    /// pattern's open parts, `([^/])+metrika.*yandex` giving `ametrikayandex.ru`, and
    /// `suggestion` would be a guess).
    pub written: bool,
    pub suggestion: String,
}

/// The first attacker subject that `re` matches, built from the trusted text it was
/// written for.
pub fn bypass(re: &Regex, subject: Subject) -> Option<Attack> {
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
pub struct PlainHttp {
    /// The plain-HTTP subject the pattern accepts.
    pub subject: String,
    pub host: String,
    /// The pattern with the scheme required.
    pub suggestion: String,
}

/// Whether `re`, written for a site over `https://` (its sample says `https://`, or
/// `https?://` makes the `s` optional), also accepts the same host over `http://`. Only
/// origin and referer headers carry a scheme (`valid_referers` strips it); a pattern written
/// for `http://` alone (a plain-HTTP site) is left alone, as are names without a registrable
/// domain (`localhost`, addresses).
pub fn plain_http(
    re: &Regex,
    pattern: &str,
    caseless: bool,
    subject: Subject,
) -> Option<PlainHttp> {
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
pub fn attacker_host(s: &str, subject: Subject) -> String {
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
pub fn registrable(host: &str) -> Option<String> {
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
pub const STRANGERS: [&str; 3] = [
    "https://attacker.example",
    "https://evil-site.net",
    "https://www.mallory.org",
];

/// The origin (`https://example.com`) an `Origin` pattern requires a path after: every
/// match starts at the start of the subject with `scheme://host[:port]/`. PCRE's own
/// reading: anchored in every alternative, and the literal text every match starts with
/// (read case-sensitively, so a `~*` pattern's letters count too; `/` has no case) holds
/// a `/` after the `://`.
pub fn origin_with_path(pattern: &str) -> Option<String> {
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
pub fn escape_origin(origin: &str) -> String {
    origin.replace('.', "\\.")
}

/// A map key's or `valid_referers` regex (`~re`, `~*re`): the pattern and whether `*`.
pub fn regex_key(text: &str) -> Option<(String, bool)> {
    if let Some(p) = text.strip_prefix("~*") {
        return Some((p.to_string(), true));
    }
    text.strip_prefix('~').map(|p| (p.to_string(), false))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
