//! NGX185 private-location-reachable: a location whose name says its files are private
//! (`/protected/`, `/private/`, `/internal/`, `/secure-files/`) serves them to any client:
//! no `internal`, no `deny`, no login.
//!
//! Such a location is how nginx serves files an application hands out only after its own
//! checks: the application answers `X-Accel-Redirect: /protected/invoice.pdf`, nginx
//! makes an internal redirect to that URI and serves the file (nginx.org,
//! ngx_http_core_module `internal`, whose example is `location /protected/`; the X-Accel
//! guide). Only `internal` keeps a client's own request for the same URI out (404); without
//! it `GET /protected/invoice.pdf` skips the application and its checks. Drupal's private
//! file directory and Yii's `protected` directory are guarded the same way.
//!
//! The evidence is the name, so the rule asks more of everything else: the location is a
//! prefix or exact one that a client's request selects (a regex beside it may take some
//! URIs: NGX161's question), it serves files as they are (no content handler, `return` or
//! rewrite of its own), nothing can refuse a request there (analysis::request::access:
//! `internal`, `allow`/`deny`, a login, an access script, an `if` that answers 4xx, at any
//! level), the server passes other requests to an application (the one that would send
//! `X-Accel-Redirect`), and no include that was not read sits around it.

use crate::analysis::access::unread_include_around;
use crate::analysis::cursor::Directive;
use crate::analysis::locations::{Kind, LocId, Locations, ServerLocations};
use crate::analysis::pass_target::PASSES;
use crate::analysis::request::access::refuses_some;
use crate::analysis::serving::{self, Handler};
use crate::fix::Fix;
use crate::rules::{Context, Rule};
use crate::stack::model::NginxInstance;

declare_rule! {
    pub struct PrivateLocationReachable;
    code: NGX185,
    name: "private-location-reachable",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Sometimes,
    group: Preview,
    uses_locations: true,
}

/// Words that name a path segment as private, alone or joined to another word by `-` or
/// `_` (`protected_files`, `private-uploads`, `x-accel-files`).
const PRIVATE_WORDS: [&str; 9] = [
    "protected",
    "private",
    "internal",
    "secure",
    "secret",
    "secrets",
    "restricted",
    "x-accel",
    "xaccel",
];

impl Rule for PrivateLocationReachable {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let locations = Locations::of(inst);
            for server in locations.servers() {
                if !passes_to_an_application(inst, server) {
                    continue;
                }
                for (id, loc) in server.iter() {
                    if !loc.selectable
                        || loc.internal
                        || !matches!(loc.kind, Kind::Prefix | Kind::NoRegexPrefix | Kind::Exact)
                    {
                        continue;
                    }
                    let Some(word) = private_word(&loc.name) else {
                        continue;
                    };
                    if let Some(dir) = serves_files_openly(inst, server, id) {
                        report(cx, inst, server, id, word, dir);
                    }
                }
            }
        }
    }
}

/// The word of [`PRIVATE_WORDS`] that some segment of the location's path is named with.
fn private_word(name: &[u8]) -> Option<&'static str> {
    let name = String::from_utf8_lossy(name).to_ascii_lowercase();
    name.split('/').find_map(|segment| {
        PRIVATE_WORDS.into_iter().find(|w| {
            segment == *w
                || segment
                    .strip_prefix(w)
                    .is_some_and(|rest| rest.starts_with(['-', '_']))
                || segment
                    .strip_suffix(w)
                    .is_some_and(|rest| rest.ends_with(['-', '_']))
        })
    })
}

/// Whether some block of the server hands requests to an upstream (`fastcgi_pass`,
/// `proxy_pass`…): the application that answers `X-Accel-Redirect`.
fn passes_to_an_application(inst: &NginxInstance, server: &ServerLocations) -> bool {
    let has_pass = |d: Directive<'_>| PASSES.iter().any(|p| d.children(p).next().is_some());
    has_pass(Directive::new(inst, server.server))
        || server
            .iter()
            .any(|(_, l)| has_pass(Directive::new(inst, l.occ)))
}

/// The `root`/`alias` that location `id` serves a file under it from, when a client's
/// request for such a file selects it and nothing there can refuse the request.
fn serves_files_openly<'a>(
    inst: &'a NginxInstance,
    server: &ServerLocations,
    id: LocId,
) -> Option<Option<Directive<'a>>> {
    let loc = server.get(id);
    let block = Directive::new(inst, loc.occ);
    if refuses_some(block) || unread_include_around(block) {
        return None;
    }
    // A file under the location, as a client would ask for it.
    let mut uri = loc.name.to_vec();
    if loc.kind != Kind::Exact {
        if !uri.ends_with(b"/") {
            uri.push(b'/');
        }
        uri.extend_from_slice(b"file.pdf");
    }
    let sel = server.select_request(&uri).ok()?;
    if sel.location() != Some(id) {
        return None; // another location takes it (a regex beside: NGX161)
    }
    match serving::handler(inst, server, &sel, &uri)? {
        Handler::Static(files) => Some(files.dir),
        _ => None,
    }
}

fn report(
    cx: &mut Context<'_>,
    inst: &NginxInstance,
    server: &ServerLocations,
    id: LocId,
    word: &str,
    dir: Option<Directive<'_>>,
) {
    let loc = server.get(id);
    let block = Directive::new(inst, loc.occ);
    if !cx.claim(block.file(), block.span()) {
        return;
    }
    let label = loc.label();
    let from = dir
        .and_then(|d| Some(format!(" from `{}`", d.arg(0)?.value())))
        .unwrap_or_default();
    let edit = block.insert_at_block_start("internal;");
    let d = cx.report(
        block.file(),
        block.span(),
        format!(
            "`location {label}` is named `{word}` but serves its files{from} to any client: \
             it is not `internal` and nothing refuses a request there, so a direct request \
             gets what an application would hand out only after its own checks \
             (`X-Accel-Redirect`)"
        ),
    );
    if let Some(dir) = dir {
        d.label(dir.file().clone(), dir.span(), "served to everyone");
    }
    d.help = Some(format!(
        "add `internal;` to `location {label}` (an `X-Accel-Redirect` or other internal \
         redirect still reaches it; a client's request gets 404), or restrict it with \
         `deny`/`auth_basic` if clients should reach it"
    ));
    d.with_fix(Fix::unsafe_(
        format!("Add `internal;` to `location {label}`"),
        vec![edit],
    ));
}
