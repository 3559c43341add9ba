//! NGX187 raw-uri-access-check: an access decision taken on `$request_uri`, the request line's
//! URI exactly as the client sent it, while nginx chooses the location and the file by the
//! normalised URI (`ngx_http_parse_complex_uri`: `.` and `..` segments resolved, `%XX`
//! decoded, `//` merged under `merge_slashes on`). The two differ whenever the client wants:
//!
//! * an exemption, `if ($request_uri ~ ^/user/login) { set $realm off; }` with
//!   `auth_basic $realm;`: `/user/login/../../secret` matches and is served as `/secret`
//!   without credentials;
//! * an allowlist, `if ($request_uri !~ ^/public/) { return 404; }`: `/public/../secret`
//!   passes and is served as `/secret`;
//! * a denylist, `if ($request_uri ~ ^/admin) { return 403; }`: `/./admin` does not match and
//!   is served as `/admin`.
//!
//! Each finding carries a request the regex treats the wrong way, built from the text the
//! pattern was written for ([`Regex::sample`]) and confirmed by matching; without one, nothing
//! is reported. `tests/raw_uri_binary.rs` sends the three shapes' requests to nginx.

use crate::analysis::cursor::Directive;
use crate::analysis::if_condition::{self, Test};
use crate::analysis::pcre::Regex;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct RawUriAccessCheck;
    code: NGX187,
    name: "raw-uri-access-check",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

/// The path every witness request reaches once nginx has normalised it.
const ELSEWHERE: &str = "/secret";

impl Rule for RawUriAccessCheck {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("if") {
            let Some(cond) = if_condition::parse(d) else {
                continue;
            };
            let Test::Matches { pattern, caseless } = &cond.test else {
                continue;
            };
            if cond.var != "request_uri" {
                continue;
            }
            let refuses = d.children("return").any(refusal);
            let exempts = if cond.negated || refuses {
                None
            } else {
                exemption(d)
            };
            if !refuses && exempts.is_none() {
                continue;
            }
            let Ok(re) = Regex::parse(pattern, *caseless) else {
                continue;
            };
            let Some(path) = sample_path(&re) else {
                continue;
            };
            let op = match (cond.negated, *caseless) {
                (false, false) => "~",
                (false, true) => "~*",
                (true, false) => "!~",
                (true, true) => "!~*",
            };
            let message = if cond.negated || exempts.is_some() {
                // The raw URI matches, the normalised one is elsewhere.
                let Some(sent) = climbing(&re, &path) else {
                    continue;
                };
                match exempts {
                    Some(auth) => format!(
                        "`if ($request_uri {op} …)` switches authentication off by the URI as \
                         the client wrote it, which nginx does not normalise: `{sent}` matches, \
                         and nginx serves that request as `{ELSEWHERE}` without `{}` asking \
                         for credentials",
                        auth.name()
                    ),
                    None => format!(
                        "`if ($request_uri {op} …)` refuses by the URI as the client wrote it, \
                         which nginx does not normalise: `{sent}` passes the test, and nginx \
                         serves that request as `{ELSEWHERE}`"
                    ),
                }
            } else {
                let Some(sent) = disguised(&re, &path) else {
                    continue;
                };
                format!(
                    "`if ($request_uri {op} …)` refuses by the URI as the client wrote it, which \
                     nginx does not normalise: `{sent}` does not match, and nginx serves that \
                     request as `{path}`"
                )
            };
            let diag = cx.report(d.file(), d.span(), message);
            if let Some(auth) = exempts {
                diag.label(
                    auth.file().clone(),
                    auth.span(),
                    "switched off by the raw URI",
                );
            }
            diag.help = Some(
                "test `$uri` instead (the normalised URI the locations see: `.` and `..` \
                 resolved, `%XX` decoded, slashes merged), or give the path a `location` of its \
                 own with the access rules inside"
                    .into(),
            );
        }
    }
}

/// `return` with a refusal: 401, 403, 404, 444 or any other 4xx/5xx.
fn refusal(r: Directive<'_>) -> bool {
    r.arg(0)
        .and_then(|a| a.value().parse::<u16>().ok())
        .is_some_and(|c| (400..600).contains(&c))
}

/// The `auth_basic` that reads a variable this `if` sets to `off`, in the same server (or
/// around it).
fn exemption(i: Directive<'_>) -> Option<Directive<'_>> {
    let server = i.enclosing("server");
    i.children("set").find_map(|s| {
        if s.arg(1).is_none_or(|v| v.value() != "off") {
            return None;
        }
        let var = s.arg(0)?.value().to_ascii_lowercase();
        crate::analysis::cursor::named(i.instance(), "auth_basic").find(|a| {
            a.arg(0)
                .is_some_and(|v| v.value().to_ascii_lowercase() == var)
                && a.enclosing("server")
                    .is_none_or(|s| server.is_some_and(|own| own.occ() == s.occ()))
        })
    })
}

/// The path of the subject the pattern was written for (`/user/login`), when it is a plain
/// path the regex matches.
fn sample_path(re: &Regex) -> Option<String> {
    let sample = String::from_utf8(re.sample()?).ok()?;
    let path = sample.split('?').next()?.to_string();
    let plain = path.starts_with('/')
        && path.len() > 1
        && !path.contains("/.")
        && !path.contains("//")
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/-_.~".contains(&b));
    (plain && re.is_match(path.as_bytes()) == Ok(true)).then_some(path)
}

/// A request the regex matches that nginx serves as [`ELSEWHERE`]: the path, then one `..`
/// per segment (one more would climb above the root, which nginx refuses with 400).
fn climbing(re: &Regex, path: &str) -> Option<String> {
    if re.is_match(ELSEWHERE.as_bytes()) != Ok(false) {
        return None;
    }
    let trimmed = path.trim_end_matches('/');
    let segments = trimmed.split('/').filter(|s| !s.is_empty()).count();
    let sent = format!("{trimmed}{}{ELSEWHERE}", "/..".repeat(segments));
    (re.is_match(sent.as_bytes()) == Ok(true)).then_some(sent)
}

/// A request for `path` the regex does not match: `/./` before it, else its first letter
/// percent-encoded.
fn disguised(re: &Regex, path: &str) -> Option<String> {
    let dotted = format!("/.{path}");
    let encoded = path
        .char_indices()
        .find(|(_, c)| c.is_ascii_alphanumeric())
        .map(|(i, c)| format!("{}%{:02X}{}", &path[..i], c as u32, &path[i + 1..]));
    [Some(dotted), encoded]
        .into_iter()
        .flatten()
        .find(|s| re.is_match(s.as_bytes()) == Ok(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn re(p: &str) -> Regex {
        Regex::parse(p, false).unwrap()
    }

    #[test]
    fn witnesses() {
        let login = re("^(/user/login|/test.html)");
        let path = sample_path(&login).unwrap();
        assert_eq!(
            climbing(&login, &path).as_deref(),
            Some("/user/login/../../secret")
        );
        let public = re("^/(public|static)/");
        let path = sample_path(&public).unwrap();
        assert_eq!(
            climbing(&public, &path).as_deref(),
            Some("/public/../secret")
        );
        let admin = re("^/admin");
        assert_eq!(disguised(&admin, "/admin").as_deref(), Some("/./admin"));
        // A regex that allows `.` segments itself is disguised by encoding.
        let loose = re("^(/\\.)?/admin");
        assert_eq!(disguised(&loose, "/admin").as_deref(), Some("/%61dmin"));
        // Exact matches leave no climbing request.
        let exact = re("^/user/login$");
        assert_eq!(climbing(&exact, "/user/login"), None);
    }
}
