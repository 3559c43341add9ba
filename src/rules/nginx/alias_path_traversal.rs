//! NGX100 alias-path-traversal: an `alias` that a request can walk out of with `..`.
//!
//! nginx resolves `..` only as a whole path segment (`/a/../b`), so `/static../` is a plain
//! URI. Two ways it reaches the `alias` directory's parent:
//!
//! - a prefix location without its final `/` over an `alias` with one
//!   (`location /static { alias /srv/static/; }`): `/static../secret` matches the
//!   prefix, and nginx replaces `/static` with the alias, reading `/srv/static/../secret`;
//! - a regex location whose capture is pasted after a `/` of the alias
//!   (`location ~ ^/img(.*)$ { alias /srv/img/$1; }`): `/img../x` captures `../x`; without
//!   the `^` the same (an unanchored regex is also tried at the URI's first byte).
//!
//! Each finding is proven with a URI: location matching must select the location for it
//! (a longer prefix or an earlier regex may take it first), the location must serve files
//! (analysis::serving: no `*_pass`, `return`, `deny all`, login), and the path nginx builds
//! must hold a `..` segment. An `internal` location is not reported: a client cannot send
//! it the URI; only the application's own redirects reach it. Nor is one that the rewrite
//! phases never let the URI reach (a server-level `return`, a `rewrite` that moves it):
//! the request is followed by [`crate::analysis::request`]. Matching slashes
//! (`/static/` with `/srv/static/`) and an alias without the final `/` (`/srv/static`,
//! which yields `/srv/static../secret`, a name in the same directory) are safe.

use crate::analysis::cursor::Directive;
use crate::analysis::locations::{Kind, Location, Locations, ServerLocations};
use crate::analysis::request::{End, Gone, Model};
use crate::analysis::serving::{self, Handler};
use crate::analysis::variables::parse::{PartKind, Script};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct AliasPathTraversal;
    code: NGX100,
    name: "alias-path-traversal",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Sometimes,
    group: Default,
    uses_locations: true,
}

/// What follows the regex's literal prefix in the probes for a capture.
const SUFFIXES: [&str; 6] = [
    "../etc/passwd",
    "../x",
    "../x.png",
    "../x.jpg",
    "../x.css",
    "../x.html",
];

impl Rule for AliasPathTraversal {
    fn check(&self, cx: &mut Context<'_>) {
        for alias in cx.nginx_directives("alias") {
            let Some(location) = alias.parent().filter(|p| p.name() == "location") else {
                continue;
            };
            let Some(server) = location.enclosing("server") else {
                continue;
            };
            let inst = alias.instance();
            let locations = Locations::of(inst);
            let Some(locs) = locations.server(server.occ()) else {
                continue;
            };
            let Some(id) = locs.location_of(location.occ()) else {
                continue;
            };
            let loc = locs.get(id);
            let Some(value) = alias.arg(0).map(|a| a.value().into_owned()) else {
                continue;
            };
            let proof = match loc.kind {
                Kind::Prefix | Kind::NoRegexPrefix => prefix_proof(loc, &value),
                Kind::Regex { .. } => capture_proof(loc, &value),
                _ => None,
            };
            let Some(proof) = proof else { continue };
            if !served_here(locs, location, &proof.uri) {
                continue;
            }
            report(cx, alias, location, loc, locs, &proof);
        }
    }
}

struct Proof {
    /// The URI (normalised, as sent) that walks out.
    uri: String,
    /// The path nginx opens for it.
    path: String,
    /// The directory that is, when it is one.
    reaches: Option<String>,
    /// What the `..` comes from.
    how: String,
}

/// `location /x` with `alias …/`: `/x../` maps to the alias' parent.
fn prefix_proof(loc: &Location, alias: &str) -> Option<Proof> {
    let name = std::str::from_utf8(&loc.name).ok()?;
    if name.ends_with('/') || !alias.ends_with('/') || alias.trim_end_matches('/').is_empty() {
        return None;
    }
    if alias.contains('$') {
        return None; // the directory depends on a variable: not one path to name
    }
    let uri = format!("{name}../");
    let parent = parent_of(alias.trim_end_matches('/'));
    Some(Proof {
        path: format!("{alias}../"),
        reaches: Some(parent),
        how: format!(
            "the location `{name}` has no final `/`, so `{name}..` matches it and nginx \
             puts `{alias}` in place of `{name}`"
        ),
        uri,
    })
}

/// The directory above `dir` (`/srv/static` → `/srv/`).
fn parent_of(dir: &str) -> String {
    match dir.rfind('/') {
        Some(0) | None => "/".into(),
        Some(i) => format!("{}/", &dir[..i]),
    }
}

/// A regex location whose capture, after a `/` of the alias, can start with `..`.
fn capture_proof(loc: &Location, alias: &str) -> Option<Proof> {
    let re = loc.regex()?.as_ref().ok()?;
    let script = Script::parse_value(alias.as_bytes());
    if script.error.is_some() {
        return None;
    }
    // The capture numbers written right after a `/` of the alias.
    let mut after_slash: Vec<u32> = Vec::new();
    let mut prev_slash = false;
    for part in &script.parts {
        let text = &alias.as_bytes()[part.value.range()];
        match &part.kind {
            PartKind::Literal => prev_slash = text.last() == Some(&b'/'),
            PartKind::Capture(k) => {
                if prev_slash {
                    after_slash.push(u32::from(*k));
                }
                prev_slash = false;
            }
            PartKind::Variable { name, .. } => {
                if prev_slash {
                    if let Some(k) = re.capture_table().index(name) {
                        after_slash.push(k);
                    }
                }
                prev_slash = false;
            }
        }
    }
    if after_slash.is_empty() {
        return None;
    }
    // The text every match starts with. An anchored regex matches from the URI's first
    // byte, which is its `/`; an unanchored one is tried at each offset, the first one
    // included, so a URI that starts with that text (after a `/` when the text has none)
    // is matched there (`~ /site(.*)` by `/site../x`, as `~ ^/site(.*)` is).
    let mut prefix = re.literal_prefix();
    if !re.anchored_start() && prefix.first() != Some(&b'/') {
        prefix.insert(0, b'/');
    }
    if prefix.first() != Some(&b'/') || prefix.ends_with(b"/") {
        return None; // a `..` after `/` is a dot segment nginx has already resolved
    }
    let prefix = String::from_utf8(prefix).ok()?;
    // The probes: the regex's text then the `..` path, which fits a capture that runs to
    // the end (`^/img(.*)$`); then, for a capture followed by more of the regex
    // (`^/img(.*)/x$`, `^/img(.+)\.png$`), a subject the regex was written for with the
    // `..` path in that capture. Its `..` must follow a byte other than `/`: after a `/`
    // it is a dot segment that nginx resolves before any location is matched.
    let simple = SUFFIXES.iter().map(|suffix| format!("{prefix}{suffix}"));
    let sampled = after_slash.iter().flat_map(|&k| {
        SUFFIXES.iter().filter_map(move |suffix| {
            let uri =
                String::from_utf8(re.sample_with(&[(k, suffix.as_bytes().to_vec())])?).ok()?;
            let at = uri.find(suffix)?;
            (uri.starts_with('/') && at > 0 && !uri[..at].ends_with('/')).then_some(uri)
        })
    });
    for uri in simple.chain(sampled) {
        let Ok(Some(caps)) = re.captures(uri.as_bytes()) else {
            continue;
        };
        let Some(&k) = after_slash.iter().find(|&&k| {
            caps.get(k as usize)
                .is_some_and(|(s, e)| uri.as_bytes()[s..e].starts_with(b"../"))
        }) else {
            continue;
        };
        let (s, e) = caps.get(k as usize)?;
        let path = substitute(&script, alias, &uri, &caps, re);
        return Some(Proof {
            how: format!(
                "capture {k} holds `{}`, and the alias puts it after a `/`",
                &uri[s..e]
            ),
            path,
            reaches: None,
            uri,
        });
    }
    None
}

/// The alias with the captures of `uri` in place (other variables as written).
fn substitute(
    script: &Script,
    alias: &str,
    uri: &str,
    caps: &crate::analysis::pcre::Captures,
    re: &crate::analysis::pcre::Regex,
) -> String {
    let mut out = String::new();
    for part in &script.parts {
        let text = &alias[part.value.range()];
        let k = match &part.kind {
            PartKind::Capture(k) => Some(u32::from(*k)),
            PartKind::Variable { name, .. } => re.capture_table().index(name),
            PartKind::Literal => None,
        };
        match k.and_then(|k| caps.get(k as usize)) {
            Some((s, e)) => out.push_str(&uri[s..e]),
            None if k.is_some() => {}
            None => out.push_str(text),
        }
    }
    out
}

/// Whether the URI selects `location` and is answered with a file there, on some way
/// through the rewrite phases (the request model: a server-level `return` or `rewrite`
/// may answer or move every such request first; a way it cannot follow counts).
fn served_here(locs: &ServerLocations, location: Directive<'_>, uri: &str) -> bool {
    let sel = locs.select(uri.as_bytes());
    let inst = location.instance();
    if serving::block(inst, locs, &sel) != Some(location) {
        return false;
    }
    if !matches!(
        serving::handler(inst, locs, &sel, uri.as_bytes()),
        Some(Handler::Static(_))
    ) {
        return false;
    }
    let server = Directive::new(inst, locs.server);
    let Some(ends) = Model::new(inst).follow(Some(server), None, uri.as_bytes(), None) else {
        return true;
    };
    ends.iter().any(|e| match e {
        End::Content {
            location: Some(l),
            req,
        } => *l == location && req.uri == uri.as_bytes(),
        End::Gone(Gone::Unknown(_)) => true,
        _ => false,
    })
}

fn report(
    cx: &mut Context<'_>,
    alias: Directive<'_>,
    location: Directive<'_>,
    loc: &Location,
    locs: &ServerLocations,
    proof: &Proof,
) {
    let Some(word) = alias.arg(0) else { return };
    let reaches = match &proof.reaches {
        Some(dir) => format!(", the directory `{dir}`,"),
        None => String::new(),
    };
    let message = format!(
        "`{}` reads `{}`{reaches} through this alias: {}",
        proof.uri, proof.path, proof.how
    );
    let fix = slash_fix(location, loc, locs);
    let d = cx.report(word.file(), word.raw(), message);
    d.label(
        location.file().clone(),
        location.span(),
        format!("selected for `{}`", proof.uri),
    );
    d.help = Some(match loc.kind {
        Kind::Regex { .. } => "make the capture unable to start with `..` (`([^/.][^/]*)`, or a \
                               class without `.` at its start), or end the regex's text before \
                               the capture with `/`"
            .into(),
        _ => format!(
            "end the location with `/` as the alias does: `location {}/`",
            String::from_utf8_lossy(&loc.name)
        ),
    });
    if let Some(fix) = fix {
        d.with_fix(fix);
    }
}

/// `location /x` → `location /x/`, when nothing else depends on the name: no nested
/// location (nginx requires a nested prefix to start with its parent's name) and no
/// `location /x/` beside it (nginx would refuse the duplicate). Unsafe: `/x` itself no
/// longer selects the location.
fn slash_fix(location: Directive<'_>, loc: &Location, locs: &ServerLocations) -> Option<Fix> {
    let word = match (loc.kind, location.args().len()) {
        (Kind::Prefix, 1) => location.arg(0)?,
        (Kind::NoRegexPrefix, 2) => location.arg(1)?,
        _ => return None,
    };
    if !loc.children.is_empty() || location.has_comments() {
        return None;
    }
    let mut with_slash = loc.name.to_vec();
    with_slash.push(b'/');
    let clash = locs.iter().any(|(_, other)| {
        other.parent == loc.parent
            && matches!(other.kind, Kind::Prefix | Kind::NoRegexPrefix)
            && *other.name == *with_slash
    });
    if clash {
        return None;
    }
    let new = String::from_utf8(with_slash).ok()?;
    Some(Fix::unsafe_(
        format!("Write `location {new}`"),
        vec![edits::replace_arg(location.file(), &word.tree_word(), &new)],
    ))
}
