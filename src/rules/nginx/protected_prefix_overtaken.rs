//! NGX161 protected-prefix-overtaken: a location that keeps clients out (`auth_basic`,
//! `auth_request`, `deny all`, `internal`) and a URI under it that nginx hands to another
//! location without that restriction, which then serves the same files or backend.
//!
//! nginx picks one location per request (analysis::locations, as
//! `ngx_http_core_find_location`): the longest prefix is only remembered, then the regex
//! locations of its level and the levels around it are tried in order and the first that
//! matches wins, unless that prefix is `^~`. The access checks of the location that lost do
//! not run: `location /admin/ { auth_basic …; }` beside `location ~ \.php$ { fastcgi_pass
//! …; }` runs `/admin/x.php` without a password. A regex nested inside the prefix inherits
//! its checks (it is found only through it); a sibling does not. Among regex locations the
//! first in the file wins, so a restricted regex after a broader one is overtaken the same
//! way. With `merge_slashes off`, `//admin/x` is not under the prefix `/admin/` at all, yet
//! names the same file.
//!
//! Each finding carries a witness URI: location matching is asked which block serves it,
//! and analysis::serving what that block does. Reported only when that block serves
//! something (a file, a `*_pass`), from the same place as the restricted one (the same
//! `root`, or a `*_pass` to the same target), and keeps no client out itself. Silent when
//! the restriction is set at the server level (every location inherits it), when the
//! prefix is `^~`, and when an include that was not read may hold either side.

use crate::analysis::access::unread_include_around;
use crate::analysis::cursor::Directive;
use crate::analysis::locations::{Kind, LocId, Locations, Selection, ServerLocations};
use crate::analysis::request::access::{keeps_out, refuses_some};
use crate::analysis::serving::{self, Handler};
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use crate::stack::model::NginxInstance;

declare_rule! {
    pub struct ProtectedPrefixOvertaken;
    code: NGX161,
    name: "protected-prefix-overtaken",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Hardening,
    uses_locations: true,
}

/// Names tried under a restricted location, most telling first: a PHP script, the
/// static files a cache-header location is usually written for, then the data files a
/// `deny` is usually written to keep in (see [`DATA_EXTENSIONS`]).
const SUFFIXES: [&[u8]; 17] = [
    b"index.php",
    b"x.php",
    b"x.js",
    b"x.css",
    b"x.png",
    b"x.jpg",
    b"x.html",
    b"x.txt",
    b"x.json",
    b"x.sql",
    b"x.zip",
    b"x.gz",
    b"x.tar",
    b"x.bak",
    b"x.csv",
    b"x.pdf",
    b"x.log",
];

/// Extensions of the files a restriction exists to keep in: dumps, backups and archives,
/// exports and documents, logs, keys and configuration. A regex location that serves
/// these under a restricted prefix hands out what the restriction was written for (a
/// warning); one that serves stylesheets, scripts, images or fonts discloses the assets
/// a page under the prefix loads anyway (information).
const DATA_EXTENSIONS: [&str; 36] = [
    "sql", "dump", "db", "sqlite", "sqlite3", "mdb", "bak", "backup", "old", "orig", "swp", "zip",
    "gz", "tgz", "tar", "bz2", "xz", "7z", "rar", "csv", "tsv", "xls", "xlsx", "ods", "doc",
    "docx", "odt", "pdf", "log", "ini", "conf", "cfg", "yml", "yaml", "key", "pem",
];

/// Whether `uri` names a data file (its last segment's extension is in
/// [`DATA_EXTENSIONS`], compared without case as `~*` locations do).
fn is_data_file(uri: &[u8]) -> bool {
    let name = uri.rsplit(|&b| b == b'/').next().unwrap_or(uri);
    let Some(dot) = name.iter().rposition(|&b| b == b'.') else {
        return false;
    };
    let ext = &name[dot + 1..];
    DATA_EXTENSIONS
        .iter()
        .any(|d| d.as_bytes().eq_ignore_ascii_case(ext))
}

/// The most regex locations whose samples are tried per restricted location: servers
/// with hundreds of regexes get the fixed names and the first samples.
const MAX_SAMPLED: usize = 32;

impl Rule for ProtectedPrefixOvertaken {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let locations = Locations::of(inst);
            for server in locations.servers() {
                for (id, loc) in server.iter() {
                    if !loc.selectable {
                        continue;
                    }
                    if let Some(f) = overtaken(inst, server, id) {
                        report(cx, inst, server, id, &f);
                    }
                }
            }
        }
    }
}

/// One way around a restriction.
struct Found<'a> {
    /// What keeps clients out of the restricted location.
    guard: Directive<'a>,
    /// The URI a client sends.
    uri: Vec<u8>,
    /// The location that serves it instead, and how it ends up there.
    other: Directive<'a>,
    explain: String,
    /// The witness needs `merge_slashes off`.
    slashes: bool,
    /// The other location passes it on (`*_pass`) rather than serving a file.
    pass: bool,
    /// The URI names a data file ([`is_data_file`]) that the other location serves.
    data: bool,
}

impl Found<'_> {
    /// How much the witness shows, to keep the strongest: a request passed on, then a data
    /// file served, then an asset.
    fn weight(&self) -> u8 {
        if self.pass {
            2
        } else {
            u8::from(self.data)
        }
    }
}

/// The first witness that `id`'s restriction is walked around, preferring one served by
/// a `*_pass` (a script run) over a data file, and a data file over an asset.
fn overtaken<'a>(
    inst: &'a NginxInstance,
    server: &ServerLocations,
    id: LocId,
) -> Option<Found<'a>> {
    let loc = server.get(id);
    let block = Directive::new(inst, loc.occ);
    let guard = keeps_out(block)?;
    // Set at the server level (or above), every location inherits it: nothing to walk
    // around. Set in a location: only that location and those nested in it have it.
    if guard.parent().is_none_or(|p| p.name() != "location") {
        return None;
    }
    if unread_include_around(block) {
        return None;
    }
    let mut best: Option<Found<'a>> = None;
    let mut consider = |uri: Vec<u8>, slashes: bool, regex_only: bool| {
        if best.as_ref().is_some_and(|b| b.weight() == 2) || !plausible(server, &uri) {
            return;
        }
        let Some((other, sel, pass)) = served_around(inst, server, id, &uri, slashes, regex_only)
        else {
            return;
        };
        let found = Found {
            guard,
            data: !pass && is_data_file(&uri),
            uri,
            other,
            explain: sel.explain(server),
            slashes,
            pass,
        };
        if best.as_ref().is_none_or(|b| found.weight() > b.weight()) {
            best = Some(found);
        }
    };
    match loc.kind {
        Kind::Prefix => {
            for uri in under_prefix(server, id) {
                consider(uri, false, true);
            }
            // `merge_slashes off`: a doubled slash before the name leaves the prefix; the
            // file system reads `//admin/x` as `/admin/x`.
            if !server.merge_slashes && !server.merge_slashes_varies {
                let mut uri = b"/".to_vec();
                uri.extend_from_slice(&joined(&loc.name, b"x"));
                consider(uri, true, false);
            }
        }
        Kind::Regex { .. } => {
            for uri in under_regex(server, id) {
                consider(uri, false, true);
            }
        }
        // `=` ends the search, `^~` stops the regexes, a named location has no URI.
        Kind::Exact | Kind::NoRegexPrefix | Kind::Named => {}
    }
    best
}

/// Whether a client would send `uri` as it is and it could name a file a site keeps: nginx
/// leaves it unchanged (no `.`/`..` segment to resolve, no slashes to merge unless the
/// server keeps them), and no path segment is hidden. A dot-file `deny` (`~ /\.`,
/// `~ /\.ht`) guards `.htaccess` and `.git/config`, which a script or asset regex does
/// not take; the `.php` under `.git/` that it would is not a file sites have.
fn plausible(server: &ServerLocations, uri: &[u8]) -> bool {
    let same = crate::analysis::locations::normalise(uri, server.merge_slashes)
        .is_ok_and(|n| n.path == uri && n.args.is_none());
    same && !uri.windows(2).any(|w| w == b"/.")
}

/// `name` followed by `tail`, with one `/` between them.
fn joined(name: &[u8], tail: &[u8]) -> Vec<u8> {
    let mut out = name.to_vec();
    let tail = tail.strip_prefix(b"/").unwrap_or(tail);
    if !out.ends_with(b"/") {
        out.push(b'/');
    }
    out.extend_from_slice(tail);
    out
}

/// The regex locations that can take a URI from `id`: those at its level and at every
/// level around it (an outer regex beats a nested prefix), in the file's order, without
/// `id` itself.
fn rivals(server: &ServerLocations, id: LocId) -> Vec<LocId> {
    let path = server.path(id);
    let mut levels: Vec<Option<LocId>> = vec![None];
    levels.extend(path[..path.len() - 1].iter().map(|&l| Some(l)));
    server
        .iter()
        .filter(|(r, l)| {
            *r != id
                && l.selectable
                && matches!(l.kind, Kind::Regex { .. })
                && levels.contains(&l.parent)
        })
        .map(|(r, _)| r)
        .collect()
}

/// URIs under the prefix location `id`: its name with each fixed suffix, and with a sample
/// of each regex that could take them.
fn under_prefix(server: &ServerLocations, id: LocId) -> Vec<Vec<u8>> {
    let name = &server.get(id).name;
    let mut out: Vec<Vec<u8>> = SUFFIXES.iter().map(|s| joined(name, s)).collect();
    for r in rivals(server, id).into_iter().take(MAX_SAMPLED) {
        let Some(Ok(re)) = server.get(r).regex() else {
            continue;
        };
        // A tail a file name ends with (`.php`, `.png`): a sample with a `/` of its own
        // (`/framework/…/main.php`) names a file no site keeps under the prefix.
        let Some(sample) = re.sample().filter(|s| !s.contains(&b'/')) else {
            continue;
        };
        if !re.anchored_start() {
            out.push(joined(name, &sample));
            let mut x = joined(name, b"x");
            x.extend_from_slice(&sample);
            out.push(x);
        }
    }
    out.retain(|u| u.starts_with(name));
    out
}

/// URIs the regex location `id` matches: its sample, alone and followed by each fixed
/// suffix and by a sample of each earlier regex.
fn under_regex(server: &ServerLocations, id: LocId) -> Vec<Vec<u8>> {
    let Some(Ok(re)) = server.get(id).regex() else {
        return Vec::new();
    };
    let Some(mut base) = re.sample() else {
        return Vec::new();
    };
    // A sample whose repeat matched nothing before an extension (`/templates(/.*)\.php$`
    // gives `/templates/.php`) names a hidden file, which [`plausible`] rejects: give the
    // file a name (`/templates/x.php`) when the regex still matches it.
    if let Some(named) = named_file(&base).filter(|n| re.is_match(n) == Ok(true)) {
        base = named;
    }
    let mut out = vec![base.clone()];
    out.extend(SUFFIXES.iter().map(|s| joined(&base, s)));
    for r in rivals(server, id).into_iter().take(MAX_SAMPLED) {
        let Some(Ok(other)) = server.get(r).regex() else {
            continue;
        };
        let tail = other.sample().filter(|s| !s.contains(&b'/'));
        if let Some(s) = tail.filter(|_| !other.anchored_start()) {
            // The sample's own file with the rival's extension (`/templates/x.bak` and
            // `.php`: `/templates/x.php`), then the rival's file under the sample.
            let name_start = base.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
            if let Some(dot) = base[name_start..].iter().rposition(|&b| b == b'.') {
                if s.starts_with(b".") {
                    out.insert(0, [&base[..name_start + dot], &s[..]].concat());
                }
            }
            out.push(joined(&base, &[b"x".as_slice(), &s].concat()));
        }
    }
    out.retain(|u| u.starts_with(b"/") && re.is_match(u) == Ok(true));
    out
}

/// `uri` with an `x` before each dot that starts a path segment (`/a/.php` → `/a/x.php`),
/// if it has such a dot.
fn named_file(uri: &[u8]) -> Option<Vec<u8>> {
    if !uri.windows(2).any(|w| w == b"/.") {
        return None;
    }
    let mut out = Vec::with_capacity(uri.len() + 2);
    for (i, &b) in uri.iter().enumerate() {
        if b == b'.' && i > 0 && uri[i - 1] == b'/' {
            out.push(b'x');
        }
        out.push(b);
    }
    Some(out)
}

/// The location that serves `uri` instead of `id` (which would have matched it alone),
/// when it keeps no client out, serves something, and serves it from where `id` does;
/// with the selection and whether it passes the request on (`*_pass`).
fn served_around<'a>(
    inst: &'a NginxInstance,
    server: &ServerLocations,
    id: LocId,
    uri: &[u8],
    slashes: bool,
    regex_only: bool,
) -> Option<(Directive<'a>, Selection, bool)> {
    let sel = server.select_request(uri).ok()?;
    let other = sel.location()?;
    if server.path(other).contains(&id) {
        return None; // nested in the restricted location: it inherits the restriction
    }
    let o = server.get(other);
    if regex_only && !matches!(o.kind, Kind::Regex { .. }) {
        return None;
    }
    if slashes && sel.internal {
        return None;
    }
    let block = Directive::new(inst, o.occ);
    if refuses_some(block) || unread_include_around(block) {
        return None;
    }
    let normalised = crate::analysis::locations::normalise(uri, server.merge_slashes).ok()?;
    let handler = serving::handler(inst, server, &sel, &normalised.path)?;
    let restricted = Directive::new(inst, server.get(id).occ);
    let pass = match handler {
        // A location with a content handler of its own (`stub_status`, a `proxy_pass`)
        // guards that, not the files under the root.
        Handler::Static(files) => (own_content(restricted).is_none()
            && same_files(files.dir, serving::directory(restricted)))
        .then_some(false)?,
        // A location that only refuses (`location /admin/ { deny all; }`: no content
        // handler, `root` or `alias` of its own) guards whatever the server would answer
        // for its URIs: the backend behind `location /` included.
        Handler::Content(c) => ((only_refuses(restricted) || same_source(c, restricted))
            && !handled_inside(inst, server, id, c.name()))
        .then_some(true)?,
        _ => return None,
    };
    Some((block, sel, pass))
}

/// Whether a location nested in `id` passes requests with `pass` (`fastcgi_pass`): the
/// author routed that kind of request inside the restriction (`location /lcp { auth_basic
/// …; location ~ \.php$ { … } }`), and a sibling that takes others of the kind (`~
/// \.php84$`) serves file types the protected area does not hold.
fn handled_inside(inst: &NginxInstance, server: &ServerLocations, id: LocId, pass: &str) -> bool {
    server.iter().any(|(n, l)| {
        n != id
            && server.path(n).contains(&id)
            && Directive::new(inst, l.occ).children(pass).next().is_some()
    })
}

/// Whether `block` has no content handler, `root` or `alias` of its own: it exists to
/// refuse what the rest of the server would answer.
fn only_refuses(block: Directive<'_>) -> bool {
    own_content(block).is_none()
        && block.children("root").next().is_none()
        && block.children("alias").next().is_none()
}

/// The content handler set in `block` itself (content handlers are not inherited).
fn own_content(block: Directive<'_>) -> Option<Directive<'_>> {
    block.all_children().find(|c| serving::is_content(c.name()))
}

/// Whether two blocks' `root`/`alias` read the same files for one URI: the same `root`
/// directive (inherited by both), or two `root`s with the same literal path. An `alias`
/// maps the URI elsewhere, so it is never the same as a `root`.
fn same_files(a: Option<Directive<'_>>, b: Option<Directive<'_>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) if a.name() == "root" && b.name() == "root" => {
            a == b
                || (a
                    .arg(0)
                    .is_some_and(|x| !x.is_templated() && !x.value().contains('$'))
                    && a.arg(0).map(|x| x.value().into_owned())
                        == b.arg(0).map(|x| x.value().into_owned()))
        }
        _ => false,
    }
}

/// Whether the content handler `c` of the overtaking block reaches what `restricted`
/// guards: a FastCGI/SCGI/uwsgi script under the same `root` (the script path is
/// `$document_root$fastcgi_script_name`), or a `*_pass` to the same target as the
/// restricted location's own.
fn same_source(c: Directive<'_>, restricted: Directive<'_>) -> bool {
    let scripts = matches!(c.name(), "fastcgi_pass" | "scgi_pass" | "uwsgi_pass");
    if scripts
        && own_content(restricted).is_none()
        && same_files(
            serving::directory(c.parent().unwrap_or(c)),
            serving::directory(restricted),
        )
    {
        return true;
    }
    let target = |d: Directive<'_>| d.arg(0).map(|a| a.value().into_owned());
    restricted
        .children(c.name())
        .next()
        .is_some_and(|own| target(own).is_some() && target(own) == target(c))
}

fn report(
    cx: &mut Context<'_>,
    inst: &NginxInstance,
    server: &ServerLocations,
    id: LocId,
    f: &Found<'_>,
) {
    let loc = server.get(id);
    let block = Directive::new(inst, loc.occ);
    if !cx.claim(block.file(), block.span()) {
        return;
    }
    let label = loc.label();
    let other = server
        .location_of(f.other.occ())
        .map(|o| server.get(o).label())
        .unwrap_or_default();
    let uri = String::from_utf8_lossy(&f.uri);
    let guard = guard_text(f.guard);
    let how = if f.slashes && f.pass {
        "with `merge_slashes off` the doubled slash keeps the URI out of the prefix, and a \
         backend that merges slashes (most do) answers it as the prefix's URI"
            .to_string()
    } else if f.slashes {
        "with `merge_slashes off` the doubled slash keeps the URI out of the prefix, and the \
         file system still reads the same file"
            .to_string()
    } else if loc.kind == Kind::Prefix {
        format!(
            "nginx tries the regex locations after finding the longest prefix, and the first \
             that matches wins ({}); a regex beside the prefix does not inherit its checks",
            f.explain
        )
    } else {
        format!(
            "regex locations are tried in order and the first that matches wins ({})",
            f.explain
        )
    };
    let what = if f.pass {
        "is passed on"
    } else if f.data {
        "is served as a file (a data file of the kind the restriction keeps in)"
    } else {
        "is served as a file"
    };
    let d = cx.report(
        block.file(),
        block.span(),
        format!(
            "`{uri}` {what} by `location {other}` without the {guard} of `location {label}`: {how}"
        ),
    );
    // A static file of the types an asset location serves (`.css`, `.png`) discloses less
    // than a script run, a request passed to the application behind the restriction, or a
    // dump, backup or export the restriction exists for: information.
    // With doubled slashes the whole prefix is open, whatever the files are.
    if !f.pass && !f.data && !f.slashes {
        d.severity = Severity::Info;
    }
    d.label(f.guard.file().clone(), f.guard.span(), "walked around");
    d.label(
        f.other.file().clone(),
        f.other.span(),
        format!("serves `{uri}` to everyone"),
    );
    d.help = Some(if f.slashes {
        "leave `merge_slashes on` (the default), or repeat the restriction where `//…` \
         lands"
            .to_string()
    } else if loc.kind == Kind::Prefix {
        format!(
            "nest the locations that should run under `{label}` inside it (a nested regex \
             inherits its checks), and make it `location ^~ {label}` so the regexes beside \
             it are not tried"
        )
    } else {
        format!(
            "move `location {label}` before `location {other}`, or repeat the restriction \
             there"
        )
    });
}

/// `auth_basic`, `deny all`, `internal`.
fn guard_text(g: Directive<'_>) -> String {
    match g.name() {
        "deny" => format!(
            "`deny {}`",
            g.arg(0).map(|a| a.value().into_owned()).unwrap_or_default()
        ),
        n => format!("`{n}`"),
    }
}
