//! NGX140 proxy-pass-uri-mismatch: what URI `proxy_pass` sends upstream, computed the way
//! ngx_http_proxy_module builds it.
//!
//! * A URI part in a `proxy_pass` without variables is refused by nginx inside a regex
//!   location, a named location, `if` or `limit_except` (ngx_http_proxy_pass: there is no
//!   matched prefix to replace) — an Error: nginx does not start.
//! * In a prefix location, nginx replaces the matched prefix with the URI part. When one of
//!   them ends in `/` and the other does not, every path comes out wrong: `location /api` +
//!   `http://b/` sends `/api/v1` as `//v1` and `/api../x` as `/../x` (a traversal the
//!   backend resolves); `location /api/` + `http://b/v1` sends `/api/users` as `/v1users`.
//! * With variables in the URI part nginx sends it as evaluated, unescaped. `$uri`,
//!   `$document_uri` and regex captures are percent-decoded: `%3F`/`%2F` become `?`/`/`,
//!   moving path into query or across segments (Info). When a client's `%0d%0a` can become
//!   a line break in the request line (request splitting), NGX040 reports it and this rule
//!   stays silent on that argument.
//!
//! Checked against nginx 1.22: the rewrites above are what a backend received.

use crate::analysis::cursor::Directive;
use crate::analysis::pass_target::PassTarget;
use crate::analysis::variables::{Danger, PartKind, Provenance, Script};
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct ProxyPassUriMismatch;
    code: NGX140,
    name: "proxy-pass-uri-mismatch",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
}

/// How nginx reads a `location`'s arguments, as far as this rule cares.
enum LocKind {
    Prefix(String),
    Exact,
    Regex(String),
    Named,
}

fn location_kind(loc: Directive<'_>) -> Option<LocKind> {
    let args: Vec<String> = loc.args().map(|a| a.value().into_owned()).collect();
    Some(match args.as_slice() {
        [m, name] => match m.as_str() {
            "=" => LocKind::Exact,
            "^~" => LocKind::Prefix(name.clone()),
            "~" | "~*" => LocKind::Regex(name.clone()),
            _ => return None,
        },
        [name] => {
            if name.starts_with('=') {
                LocKind::Exact
            } else if let Some(rest) = name.strip_prefix("^~") {
                LocKind::Prefix(rest.to_string())
            } else if let Some(rest) = name.strip_prefix("~*") {
                LocKind::Regex(rest.to_string())
            } else if let Some(rest) = name.strip_prefix('~') {
                LocKind::Regex(rest.to_string())
            } else if name.starts_with('@') {
                LocKind::Named
            } else {
                LocKind::Prefix(name.clone())
            }
        }
        _ => return None,
    })
}

/// Whether a `rewrite` in the location (or an `if` in it) may change the URI: nginx then
/// sends the rewritten URI whole and ignores the URI part (valid_location is cleared).
fn rewrites(loc: Directive<'_>) -> bool {
    loc.children("rewrite").next().is_some()
        || loc
            .children("if")
            .any(|i| i.children("rewrite").next().is_some())
}

impl Rule for ProxyPassUriMismatch {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let mut provenance: Option<Provenance<'_>> = None;
            for d in crate::analysis::cursor::named(inst, "proxy_pass") {
                let Some(arg) = d.arg(0) else {
                    continue;
                };
                let value = arg.value().into_owned();
                let target = PassTarget::parse(&value, true);
                let Some(uri) = target.uri else {
                    continue;
                };
                let Some(parent) = d.parent() else {
                    continue;
                };
                if !value.contains('$') {
                    let context = match parent.name() {
                        "if" => Some("inside `if`".to_string()),
                        "limit_except" => Some("inside `limit_except`".to_string()),
                        "location" => match location_kind(parent) {
                            Some(LocKind::Regex(re)) => {
                                Some(format!("in the regex location `{re}`"))
                            }
                            Some(LocKind::Named) => Some("in a named location".to_string()),
                            _ => None,
                        },
                        _ => None,
                    };
                    if let Some(context) = context {
                        let found = cx.report(
                            d.file(),
                            arg.raw(),
                            format!(
                                "\"proxy_pass\" cannot have URI part in location given by regular expression, or inside named location, or inside \"if\" statement, or inside \"limit_except\" block: nginx refuses `{uri}` {context}"
                            ),
                        );
                        found.severity = Severity::Error;
                        found.help = Some(format!(
                            "drop the URI part (`proxy_pass {}{};` sends the request's URI as it is), or build it from captures or variables (`{}{}$1`), or `rewrite … break` to the URI first",
                            target.scheme, target.authority, target.scheme, target.authority
                        ));
                        continue;
                    }
                    if parent.name() == "location" && !rewrites(parent) {
                        if let Some(LocKind::Prefix(prefix)) = location_kind(parent) {
                            slash_mismatch(cx, d, arg, &prefix, uri, &target);
                        }
                    }
                    continue;
                }
                // Variables in the URI part: sent as evaluated.
                if !uri.contains('$') {
                    continue;
                }
                let p = provenance.get_or_insert_with(|| Provenance::new(inst.view()));
                let answer = p.argument(d.occ(), 0);
                // A client-chosen line break here is request splitting, NGX040's finding
                // (header-crlf-injection follows the same chains); one report is enough.
                if answer.why(Danger::CrLf).is_some() {
                    continue;
                }
                if let Some(what) = decoded_reference(p, d, uri, parent) {
                    let found = cx.report(
                        d.file(),
                        arg.raw(),
                        format!(
                            "`{what}` is sent upstream percent-decoded: a client's `%2F` and `%3F` reach the backend as `/` and `?`, changing its path and query"
                        ),
                    );
                    found.severity = Severity::Info;
                    found.help = Some(
                        "use `$request_uri` (kept encoded) or leave the URI part out; in a prefix location `proxy_pass http://b/prefix/;` replaces the location prefix and re-encodes the rest".into(),
                    );
                }
            }
        }
    }
}

/// Reports a prefix location and URI part that disagree on the trailing slash.
fn slash_mismatch(
    cx: &mut Context<'_>,
    d: Directive<'_>,
    arg: crate::analysis::cursor::Word<'_>,
    prefix: &str,
    uri: &str,
    target: &PassTarget<'_>,
) {
    let (loc_slash, uri_slash) = (prefix.ends_with('/'), uri.ends_with('/'));
    // `location /robots.txt { proxy_pass http://b/; }` names one file, not a tree: what
    // would follow the prefix is not a path the author serves.
    let file_like = prefix
        .rsplit('/')
        .next()
        .is_some_and(|last| last.contains('.'));
    if file_like && !loc_slash {
        return;
    }
    let message = match (loc_slash, uri_slash) {
        (false, true) => format!(
            "`location {prefix}` has no trailing slash but `proxy_pass` replaces it with `{uri}`: `{prefix}/v1` is sent as `{uri}/v1` and `{prefix}../secret` as `{uri}../secret`"
        ),
        (true, false) => format!(
            "`location {prefix}` ends with a slash but `proxy_pass` replaces it with `{uri}`, which does not: `{prefix}users` is sent as `{uri}users`"
        ),
        _ => return,
    };
    let fixed_uri = if uri_slash {
        uri.trim_end_matches('/').to_string()
    } else {
        format!("{uri}/")
    };
    let fixed_prefix = if loc_slash {
        prefix.to_string()
    } else {
        format!("{prefix}/")
    };
    let found = cx.report(d.file(), arg.raw(), message);
    found.label(
        d.file().clone(),
        d.parent()
            .map_or(d.span(), |p| p.arg(0).map_or(p.span(), |a| a.raw())),
        "the prefix nginx replaces",
    );
    found.help = Some(if loc_slash {
        format!(
            "end both with a slash: `proxy_pass {}{}{fixed_uri};`",
            target.scheme, target.authority
        )
    } else if fixed_uri.is_empty() {
        // `http://b` would stop stripping the prefix: not what `http://b/` meant.
        format!(
            "end both with a slash: `location {fixed_prefix}`, so `{prefix}/v1` is sent as `/v1`"
        )
    } else {
        format!(
            "end both with a slash (`location {fixed_prefix}` with `proxy_pass {}{}{uri};`), or neither (`proxy_pass {}{}{fixed_uri};`)",
            target.scheme, target.authority, target.scheme, target.authority
        )
    });
}

/// The first reference in the URI part whose value nginx has percent-decoded: `$uri`,
/// `$document_uri`, or a capture of the location's regex that can hold a `/` (a `(\d+)`
/// cannot, nor can the decoding then matter).
fn decoded_reference(
    p: &Provenance<'_>,
    d: Directive<'_>,
    uri: &str,
    parent: Directive<'_>,
) -> Option<String> {
    let script = Script::parse_value(uri.as_bytes());
    let regex = match parent.name() {
        "location" => match location_kind(parent) {
            Some(LocKind::Regex(re)) => Some(re),
            _ => None,
        },
        _ => None,
    };
    for part in script.references() {
        let text = &uri[part.value.range()];
        match &part.kind {
            PartKind::Variable { name, .. } => {
                let name = name.to_ascii_lowercase();
                if name == "uri" || name == "document_uri" {
                    return Some(text.to_string());
                }
                // A named capture of the location's own regex.
                let named = regex.as_deref().is_some_and(|re| {
                    re.contains(&format!("<{name}>")) || re.contains(&format!("'{name}'"))
                });
                if named && can_hold_slash(p, d, text) {
                    return Some(text.to_string());
                }
            }
            PartKind::Capture(_) => {
                if regex.is_some() && can_hold_slash(p, d, text) {
                    return Some(text.to_string());
                }
            }
            PartKind::Literal => {}
        }
    }
    None
}

fn can_hold_slash(p: &Provenance<'_>, d: Directive<'_>, text: &str) -> bool {
    let script = Script::parse_value(text.as_bytes());
    p.script(d.occ(), d.file(), &script).can(Danger::Slash)
}
