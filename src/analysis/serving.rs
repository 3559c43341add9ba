//! What nginx does with a request in the block location matching chose for it: serve a
//! file from disk (the static, index and autoindex modules), pass it upstream, answer it
//! with `return`, refuse it (`deny all`, a login), 404 it (`internal`), or something this
//! module does not follow. The path and file rules (NGX100–NGX104) ask it "does
//! `/.git/config` come off the disk here, and from which directory?".
//!
//! Followed, as nginx runs the phases for one request:
//! - the server's rewrite phase (before the location search): a `return` directly in the
//!   server answers everything; a `rewrite` whose regex matches the URI, or an `if` this
//!   module cannot rule out, makes the answer [`Handler::Other`];
//! - the location's rewrite phase: the same, with the location's own `return`, `rewrite`
//!   and `if` (rewrite module directives are not inherited);
//! - the access phase: `deny all`, `auth_basic`, `auth_request` as inherited;
//! - the content phase: a `*_pass` or a module's content handler set in the block itself
//!   (content handlers are not inherited), else `try_files` (the block's own: nginx does
//!   not merge it into nested locations), else the static module.
//!
//! An `if` is ruled out when the request decides it (`$scheme`, `$host`, `$http_…`: the
//! client picks the branch that serves the file) or when it tests that a file does not
//! exist (`!-f`, `!-e`, `!-d`: the files asked about are assumed to exist). Every other
//! `if` makes the answer [`Handler::Other`]: rules stay silent rather than guess.
//!
//! The directory comes from the nearest `root` or `alias` from the block outwards (nginx
//! merges both as one setting, so a nested location inherits its parent's `alias`); none
//! at all means nginx's compiled-in default, `html` under its prefix.

use crate::analysis::cursor::Directive;
use crate::analysis::locations::{Outcome, Selection, ServerLocations};
use crate::analysis::pcre::Regex;
use crate::stack::model::NginxInstance;

/// Whether a directive named `name` makes its block's content handler something other than
/// files: one of the `*_pass` directives ([`crate::analysis::pass_target::PASSES`]) or
/// another content handler.
pub fn is_content(name: &str) -> bool {
    crate::analysis::pass_target::PASSES.contains(&name) || OTHER_CONTENT.contains(&name)
}

/// The content handlers that are not a `*_pass` to an upstream.
const OTHER_CONTENT: &[&str] = &[
    "stub_status",
    "empty_gif",
    "perl",
    "js_content",
    "content_by_lua",
    "content_by_lua_block",
    "content_by_lua_file",
    "echo",
    "echo_exec",
    "echo_location",
    "mp4",
    "flv",
    "xslt_stylesheet",
    "healthcheck_status",
    "vhost_traffic_status_display",
    "passenger_enabled",
];

/// Variables a client sets freely: an `if` over them alone is a branch the client picks.
const CLIENT_CHOSEN: &[&str] = &[
    "scheme",
    "https",
    "host",
    "http_host",
    "server_port",
    "request_method",
    "http_x_forwarded_proto",
    "http_x_forwarded_for",
    "http_user_agent",
    "http_referer",
    "http_upgrade",
    "http_origin",
];

/// The files a static handler serves from.
#[derive(Clone, Copy, Debug)]
pub struct Files<'a> {
    /// The `root` or `alias` that applies; `None` for nginx's default (`html`).
    pub dir: Option<Directive<'a>>,
    /// The `try_files` of the block, when it has one that tries `$uri` as a file.
    pub try_files: Option<Directive<'a>>,
    /// A directory itself can reach the index and autoindex modules: no `try_files`, or
    /// one that tries `$uri/`.
    pub directories: bool,
}

impl<'a> Files<'a> {
    /// Whether `dir` is an `alias` (rather than a `root`).
    pub fn is_alias(&self) -> bool {
        self.dir.is_some_and(|d| d.name() == "alias")
    }

    /// The directory as written (`/var/www/html`); `None` for nginx's default.
    pub fn path(&self) -> Option<String> {
        Some(self.dir?.arg(0)?.value().into_owned())
    }
}

/// What answers a request.
#[derive(Clone, Copy, Debug)]
pub enum Handler<'a> {
    /// A file from disk.
    Static(Files<'a>),
    /// A `*_pass` or a module's content handler (its directive).
    Content(Directive<'a>),
    /// A `return` (or a server-level one).
    Return(Directive<'a>),
    /// `deny all`, or a login (`auth_basic`, `auth_request`).
    Guarded(Directive<'a>),
    /// `internal`: 404 to a client.
    Internal,
    /// A `rewrite` or `if` that may change the answer, a `try_files` that does not try the
    /// URI as a file, a 301 to the location's name: not followed.
    Other,
}

/// The block serving a selection: the location's `location` directive, or the server's.
pub fn block<'a>(
    inst: &'a NginxInstance,
    locs: &ServerLocations,
    sel: &Selection,
) -> Option<Directive<'a>> {
    match sel.outcome {
        Outcome::Served => {}
        _ => return None,
    }
    let occ = match sel.location() {
        Some(l) => locs.get(l).occ,
        None => locs.server,
    };
    Some(Directive::new(inst, occ))
}

/// What nginx does with an external request for the (normalised) `uri` that selected
/// `sel` in the server `locs`. `None` when the selection is undecided.
pub fn handler<'a>(
    inst: &'a NginxInstance,
    locs: &ServerLocations,
    sel: &Selection,
    uri: &[u8],
) -> Option<Handler<'a>> {
    if !sel.is_decided() {
        return None;
    }
    if sel.internal {
        return Some(Handler::Internal);
    }
    let server = Directive::new(inst, locs.server);
    if let Some(h) = rewrite_phase(server, uri) {
        return Some(h);
    }
    in_block(inst, locs, sel, uri)
}

/// [`handler`] after the server's rewrite phase: the serving block's own phases.
fn in_block<'a>(
    inst: &'a NginxInstance,
    locs: &ServerLocations,
    sel: &Selection,
    uri: &[u8],
) -> Option<Handler<'a>> {
    if !sel.is_decided() {
        return None;
    }
    if sel.internal {
        return Some(Handler::Internal);
    }
    let server = Directive::new(inst, locs.server);
    let Some(block) = block(inst, locs, sel) else {
        return Some(Handler::Other); // a redirect to the location's name
    };
    if block != server {
        if let Some(h) = rewrite_phase(block, uri) {
            return Some(h);
        }
    }
    if let Some(g) = guard(block) {
        return Some(Handler::Guarded(g));
    }
    if let Some(c) = block.all_children().find(|c| is_content(c.name())) {
        return Some(Handler::Content(c));
    }
    let Some(files) = files(block) else {
        return Some(Handler::Other);
    };
    // An include this configuration could not read may hold the `deny` or the location
    // that takes the request: nothing is known.
    if incomplete(inst, block) {
        return None;
    }
    Some(Handler::Static(files))
}

/// The blocks of `server` that answer some of `uris` (normalised) with a file, each with
/// its `root`/`alias` and the URIs, in the order of the first URI each serves. A block
/// without a `root` or `alias` (nginx's default `html`) is left out: no site lives there.
pub fn serving_blocks<'a, 'u>(
    inst: &'a NginxInstance,
    server: &ServerLocations,
    uris: &[&'u str],
) -> Vec<Served<'a, 'u>> {
    let mut out: Vec<Served<'a, 'u>> = Vec::new();
    let top = Directive::new(inst, server.server);
    // Without a `rewrite`, a block's phases do not depend on the URI: each is asked once
    // (vhosts send most probes to the same one or two blocks).
    let no_rewrite = |b: Directive<'_>| b.children("rewrite").next().is_none();
    let top_fixed = no_rewrite(top);
    if top_fixed && rewrite_phase(top, b"/").is_some() {
        return out;
    }
    let mut known: Vec<(Directive<'a>, Option<Handler<'a>>)> = Vec::new();
    for &uri in uris {
        // The server's rewrite phase runs before the location search: when it answers,
        // no search is needed.
        if !top_fixed && rewrite_phase(top, uri.as_bytes()).is_some() {
            continue;
        }
        let sel = server.select(uri.as_bytes());
        let here = block(inst, server, &sel);
        let cached = here.and_then(|b| known.iter().find(|(k, _)| *k == b).map(|(_, h)| *h));
        let answer = match cached {
            Some(h) => h,
            None => {
                let h = in_block(inst, server, &sel, uri.as_bytes());
                if let Some(b) = here.filter(|&b| no_rewrite(b)) {
                    known.push((b, h));
                }
                h
            }
        };
        let Some(Handler::Static(files)) = answer else {
            continue;
        };
        let (Some(dir), Some(block)) = (files.dir, block(inst, server, &sel)) else {
            continue;
        };
        match out.iter_mut().find(|s| s.block == block) {
            Some(s) => s.uris.push(uri),
            None => out.push(Served {
                block,
                dir,
                uris: vec![uri],
            }),
        }
    }
    out
}

/// One block's share of [`serving_blocks`].
pub struct Served<'a, 'u> {
    /// The `location` (or `server`) directive.
    pub block: Directive<'a>,
    /// The `root` or `alias` the files come from.
    pub dir: Directive<'a>,
    pub uris: Vec<&'u str>,
}

/// Whether `block` or a block around it includes files that were not read (missing, or a
/// glob that matched nothing in the linted tree: a fragment's snippets live elsewhere).
///
/// Only what such an include could change counts. One inside the server or its locations
/// may add a location or a `deny`. One above the server (`include conf.d/*.conf;` in
/// `http`, as in Debian's stock nginx.conf) adds servers and `http`-level settings; it
/// cannot add a location to this server, and its `root` would only matter where neither
/// the server nor its locations set one. (An `http`-level `deny all` there would close every
/// site of the server and is not assumed.)
pub fn incomplete(inst: &NginxInstance, block: Directive<'_>) -> bool {
    let own_dir = directory(block).is_some_and(|d| {
        std::iter::successors(d.parent(), |p| p.parent()).any(|p| p.name() == "server")
    });
    let mut at = Some(block);
    let mut above_server = false;
    while let Some(b) = at {
        if above_server && own_dir {
            break;
        }
        above_server |= b.name() == "server";
        for inc in b.children("include") {
            let o = inst.expanded.get(inc.occ());
            if inst
                .config
                .includes
                .get(o.file, o.node)
                .is_none_or(|t| t.is_empty())
            {
                return true;
            }
        }
        at = b.parent();
    }
    false
}

/// What `block` (a `location` or `server`) does with any request it serves, whatever the
/// URI: `internal` (its own or an enclosing location's), an unconditional `return`, a guard,
/// a content handler, or files. A `rewrite` or `if` of its own, or an unread include,
/// makes it [`Handler::Other`].
pub fn answer<'a>(inst: &'a NginxInstance, block: Directive<'a>) -> Handler<'a> {
    let mut at = Some(block);
    while let Some(b) = at.filter(|b| b.name() == "location") {
        if b.children("internal").next().is_some() {
            return Handler::Internal;
        }
        at = b.parent();
    }
    for c in block.all_children() {
        match c.name() {
            "return" => return Handler::Return(c),
            "rewrite" => return Handler::Other,
            "if" if !if_ruled_out(c) => return Handler::Other,
            _ => {}
        }
    }
    if let Some(g) = guard(block) {
        return Handler::Guarded(g);
    }
    if let Some(c) = block.all_children().find(|c| is_content(c.name())) {
        return Handler::Content(c);
    }
    match files(block) {
        Some(f) if !incomplete(inst, block) => Handler::Static(f),
        _ => Handler::Other,
    }
}

/// The static handler's files for a block with no content handler of its own; `None`
/// when its `try_files` does not try the URI as a file.
pub fn files(block: Directive<'_>) -> Option<Files<'_>> {
    let dir = directory(block);
    let Some(tf) = block.children("try_files").last() else {
        return Some(Files {
            dir,
            try_files: None,
            directories: true,
        });
    };
    let args: Vec<String> = tf.args().map(|a| a.value().into_owned()).collect();
    let (_, tried) = args.split_last()?;
    let file = tried.iter().any(|a| a == "$uri");
    let directories = tried.iter().any(|a| a == "$uri/");
    (file || directories).then_some(Files {
        dir,
        try_files: Some(tf),
        directories,
    })
}

/// The `root` or `alias` that applies to `block`: its own, else the nearest enclosing one.
/// Looked up by name, not by scanning each level: a server without `root` reaches `http`,
/// whose children are every server (80,000 servers made NGX102 quadratic).
pub fn directory(block: Directive<'_>) -> Option<Directive<'_>> {
    let mut at = Some(block);
    while let Some(b) = at {
        // The later of the two in the block, as nginx keeps the last one it reads.
        let own = ["root", "alias"]
            .into_iter()
            .filter_map(|n| b.children(n).last())
            .max_by_key(|d| d.occ());
        if own.is_some() {
            return own;
        }
        at = b.parent();
    }
    None
}

/// The access phase refuses every client: `deny all` among the access rules that apply,
/// or a login is required.
fn guard(block: Directive<'_>) -> Option<Directive<'_>> {
    if let Some(d) = block
        .effective("deny")
        .find(|d| d.arg(0).is_some_and(|a| a.is("all")))
    {
        return Some(d);
    }
    for name in crate::analysis::access::AUTH {
        if let Some(d) = block.effective(name).last() {
            if d.arg(0).is_some_and(|a| !a.is("off")) {
                return Some(d);
            }
        }
    }
    None
}

/// The rewrite phase of one block (the server's or a location's): its own `return`,
/// `rewrite` and `if`, in order.
fn rewrite_phase<'a>(block: Directive<'a>, uri: &[u8]) -> Option<Handler<'a>> {
    for c in block.all_children() {
        match c.name() {
            "return" => return Some(Handler::Return(c)),
            "rewrite" => {
                let Some(re) = c.arg(0) else { continue };
                match Regex::parse(&re.value(), false).map(|r| r.is_match(uri)) {
                    Ok(Ok(false)) => {}
                    _ => return Some(Handler::Other),
                }
            }
            "if" if !if_ruled_out(c) => return Some(Handler::Other),
            _ => {}
        }
    }
    None
}

/// Whether an `if` cannot stop a client from getting an existing file: it tests that a
/// file is missing, or only variables the client sets.
fn if_ruled_out(cond: Directive<'_>) -> bool {
    let args: Vec<String> = cond.args().map(|a| a.value().into_owned()).collect();
    let first = args
        .first()
        .map(|a| a.trim_start_matches('('))
        .unwrap_or("");
    if matches!(first, "!-f" | "!-e" | "!-d") {
        return true;
    }
    if matches!(first, "" | "-f" | "-e" | "-d" | "-x" | "!-x") {
        return false;
    }
    let var = first.trim_start_matches('$');
    first.starts_with('$')
        && (CLIENT_CHOSEN.contains(&var) || var.starts_with("http_") || var.starts_with("cookie_"))
        && args.iter().skip(1).all(|a| !a.contains('$'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::locations::Locations;
    use crate::stack::fs::DumpFs;
    use crate::stack::nginx::{load, LoadOptions};
    use std::path::{Path, PathBuf};

    fn instance(conf: &str) -> NginxInstance {
        let mut fs = DumpFs::default();
        fs.files
            .insert(PathBuf::from("/t/nginx.conf"), conf.as_bytes().to_vec());
        let config = load(&fs, Path::new("/t/nginx.conf"), &LoadOptions::default()).unwrap();
        crate::stack::model::config_instance(config, false)
    }

    fn answer(conf: &str, uri: &str) -> String {
        let inst = instance(conf);
        let locs = Locations::of(&inst);
        let server = &locs.servers()[0];
        let sel = server.select(uri.as_bytes());
        match handler(&inst, server, &sel, uri.as_bytes()) {
            Some(Handler::Static(f)) => format!("static {}", f.path().unwrap_or_default()),
            Some(Handler::Content(d)) => format!("content {}", d.name()),
            Some(Handler::Return(_)) => "return".into(),
            Some(Handler::Guarded(d)) => format!("guarded {}", d.name()),
            Some(Handler::Internal) => "internal".into(),
            Some(Handler::Other) => "other".into(),
            None => "unknown".into(),
        }
    }

    #[test]
    fn phases() {
        let conf = "http { server { root /srv;
            location / { try_files $uri $uri/ /index.php?$args; }
            location ~ \\.php$ { fastcgi_pass unix:/x; }
            location ~ /\\.ht { deny all; }
            location /api/ { proxy_pass http://b; }
            location /in/ { internal; }
            location /ret/ { return 404; }
            location /rw/ { rewrite ^/rw/(.*)$ /$1 last; }
            location /lit/ { try_files /index.html =404; }
            location /al/ { alias /data/; location /al/sub/ { } }
            location /h/ { if ($scheme = http) { return 301 https://$host$uri; } }
            location /m/ { if (!-e $request_filename) { rewrite ^ /index.php last; } }
            location /c/ { if ($remote_addr != 10.0.0.1) { return 403; } }
        } }";
        assert_eq!(answer(conf, "/.git/config"), "static /srv");
        assert_eq!(answer(conf, "/.htpasswd"), "guarded deny");
        assert_eq!(answer(conf, "/x.php"), "content fastcgi_pass");
        assert_eq!(answer(conf, "/api/x"), "content proxy_pass");
        assert_eq!(answer(conf, "/in/x"), "internal");
        assert_eq!(answer(conf, "/ret/x"), "return");
        assert_eq!(answer(conf, "/rw/x"), "other");
        assert_eq!(answer(conf, "/lit/x"), "other");
        assert_eq!(answer(conf, "/al/sub/x"), "static /data/");
        assert_eq!(answer(conf, "/h/x"), "static /srv");
        assert_eq!(answer(conf, "/m/x"), "static /srv");
        assert_eq!(answer(conf, "/c/x"), "other");
    }

    #[test]
    fn server_level() {
        let conf = "http { server { root /srv; return 301 https://example.com$request_uri; } }";
        assert_eq!(answer(conf, "/.env"), "return");
        let inst = instance("http { server { location / { } } }");
        let locs = Locations::of(&inst);
        let sel = locs.servers()[0].select(b"/.env");
        let Some(Handler::Static(f)) = handler(&inst, &locs.servers()[0], &sel, b"/.env") else {
            panic!("static expected");
        };
        assert!(f.dir.is_none(), "no root: nginx's default");
        let conf = "http { server { root /srv; deny all; location / { } } }";
        assert_eq!(answer(conf, "/.env"), "guarded deny");
        let conf = "http { server { root /srv; include /t/missing/*.conf; } }";
        assert_eq!(answer(conf, "/.env"), "unknown");
    }
}
