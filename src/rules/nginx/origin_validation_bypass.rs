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
//!
//! A `map` whose variable nothing in a whole configuration reads (its consumer's include
//! commented out) lets nothing through and is not judged (`analysis::variable_uses`).

use crate::analysis::cursor::{self, Directive, Word};
use crate::analysis::header_lists::more_headers_specs;
use crate::analysis::header_lists::{sent, Level};
use crate::analysis::header_relevance::frame_ancestors;
use crate::analysis::origin_flow::{condition, is_presence_test, single_variable, Index, Via};
use crate::analysis::origin_regex::{
    bypass, escape_origin, origin_with_path, plain_http, regex_key, Subject,
};
use crate::analysis::pcre::Regex;
use crate::analysis::variable_uses;
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
    group: Default,
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
        // The variables each whole configuration reads, asked only when an origin map is met.
        let mut read = variable_uses::Reads::default();
        for d in cx.nginx_directives("map") {
            let subject = match d.arg(0).map(|a| a.value().to_ascii_lowercase()).as_deref() {
                Some("$http_origin") => Subject::Origin,
                Some("$http_referer") => Subject::Referer,
                _ => continue,
            };
            let output = d
                .arg(1)
                .map(|v| v.value().trim_start_matches('$').to_ascii_lowercase());
            // A map whose variable nothing in the running configuration reads lets nothing
            // through (its consumer's include commented out).
            if output
                .as_deref()
                .is_some_and(|o| read.unread_where_loaded(cx.stack, d.file(), o))
            {
                continue;
            }
            let sent_as_cors = output.is_some_and(|o| cors_vars.contains(&o));
            // Of a map that does not feed the CORS header, only entries that may yield the
            // origin are judged: a value without `$` or `:` as written has neither
            // `$http_origin` nor `://` (unescaping makes neither), and is not unescaped to
            // find out (a referer blocklist's thousands of `1`s).
            let may_yield = |v: &Option<Word<'_>>| {
                v.is_some_and(|v| v.raw_bytes().iter().any(|&b| b == b'$' || b == b':'))
            };
            for (key, value) in d.entries_where(|_, v| sent_as_cors || may_yield(v)) {
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

/// `add_header Access-Control-Allow-Origin` whose value is the request's `Origin` with no
/// allowlist (see the module's comment).
fn reflected_origins(cx: &mut Context<'_>) {
    let stack = cx.stack;
    let headers: Vec<(usize, Directive<'_>)> = stack
        .nginx
        .iter()
        .enumerate()
        .flat_map(|(ci, inst)| cursor::named(inst, "add_header").map(move |d| (ci, d)))
        .filter(|(_, d)| {
            d.arg(0)
                .is_some_and(|h| h.is("access-control-allow-origin"))
        })
        .collect();
    // One index per configuration (by its position in the stack), built on its first
    // header.
    let mut indexes: Vec<Option<Index<'_>>> = stack.nginx.iter().map(|_| None).collect();
    for (ci, d) in headers {
        let Some(value) = d.arg(1) else {
            continue;
        };
        let Some(name) = single_variable(value) else {
            continue;
        };
        let index = indexes[ci].get_or_insert_with(|| Index::new(d.instance()));
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
