//! STK009 fpm-status-page-exposed: a pool's `pm.status_path` that any client reaches through
//! the nginx location passing requests to the pool.
//!
//! php-fpm answers its status page instead of running a script when the request's
//! `SCRIPT_NAME` equals `pm.status_path` (`fpm_status_handle_request`, which compares the
//! request URI php-fpm takes from `SCRIPT_NAME`). `?full` lists every worker with the client
//! address, method, URI with its query string and script of the request it is serving or last
//! served: other users' reset-password links, session tokens in URLs and internal paths, and
//! the pool's capacity for someone timing a flood.
//!
//! For each pool with a status path that nginx reaches, location matching picks the block
//! nginx uses for that URI in each server holding a `fastcgi_pass` to the pool. The page is
//! exposed when that block is the one with the `fastcgi_pass`, sends `SCRIPT_NAME` as the
//! request's URI (`$fastcgi_script_name`, `$uri`, `$document_uri`) and some
//! `SCRIPT_FILENAME` (php-fpm refuses a request without one first), and nothing refuses
//! clients there: no `deny`, no authentication, not `internal`, a server listening beyond
//! loopback. A written `deny` or login counts as NGX112 reads it: in order, first match
//! decides, and `satisfy any` lets an `allow` of everyone skip the login. Dedicated locations named like the usual status paths are NGX112's, which reads
//! nginx alone; this rule finds the rest, where only the pool says the path exists (a
//! catch-all `location /` that passes every request to PHP, a custom path).

use crate::analysis::access;
use crate::analysis::cursor::Directive;
use crate::analysis::fastcgi_params::reaches_status_handler;
use crate::analysis::fpm_status::fpm_status_path;
use crate::analysis::locations::Locations;
use crate::analysis::request::access::{guarded_by_if, is_internal};
use crate::analysis::request::opening::defeated;
use crate::analysis::stack_links::{pool_links, setting_place};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct FpmStatusPageExposed;
    code: STK009,
    name: "fpm-status-page-exposed",
    lang: stack,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
    uses_locations: true,
}

impl Rule for FpmStatusPageExposed {
    fn check(&self, cx: &mut Context<'_>) {
        for link in pool_links(cx.stack) {
            let Some((setting, path)) = link.cfg.get(link.pool, "pm.status_path") else {
                continue;
            };
            let path = path.trim().to_string();
            if !path.starts_with('/') {
                continue;
            }
            let pass = link.pass;
            let Some(block) = pass.parent().filter(|b| b.name() == "location") else {
                continue;
            };
            let Some(server) = pass.enclosing("server") else {
                continue;
            };
            let locations = Locations::of(pass.instance());
            let Some(locs) = locations.server(server.occ()) else {
                continue;
            };
            let sel = locs.select(path.as_bytes());
            if !sel.is_decided() || sel.internal {
                continue;
            }
            let Some(loc) = sel.location() else { continue };
            if locs.get(loc).occ != block.occ() {
                continue;
            }
            if fpm_status_path(block).is_some()
                || is_internal(block)
                || guarded_by_if(block)
                || access::local_only(server)
                || block.children("return").next().is_some()
                || !reaches_status_handler(block)
            {
                continue;
            }
            // A `deny` or login counts only as nginx runs it (NGX112's reading: the first
            // matching rule decides; under `satisfy any` an `allow` is enough).
            let opening = match access::restriction(block) {
                None => None,
                Some(_) => match defeated(block, Some(server)) {
                    Some(o) => Some(o),
                    None => continue,
                },
            };
            if !cx.claim(pass.file(), pass.span()) {
                continue;
            }
            let label = |b: Directive<'_>| {
                b.args()
                    .map(|a| a.raw_text().into_owned())
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let who = match &opening {
                None => "any client can read it, and".to_string(),
                Some(o) => format!("any client can read it: {};", o.why()),
            };
            let d = cx.report(
                pass.file(),
                pass.span(),
                format!(
                    "`{path}` reaches pool `{}`'s status page through `location {}`: {who} \
                     `{path}?full` lists the client address and URI of every request the \
                     workers serve",
                    link.pool.name,
                    label(block)
                ),
            );
            if let Some((f, s)) = setting_place(link.cfg, setting) {
                d.label(f, s, "php-fpm answers this path with its status page");
            }
            if let Some(o) = &opening {
                d.label(o.allow.file().clone(), o.allow.span(), o.label());
                d.help = Some(o.help());
                continue;
            }
            d.help = Some(format!(
                "serve it from its own location for the monitoring hosts only: `location = \
                 {path} {{ allow 127.0.0.1; deny all; fastcgi_pass …; include fastcgi_params; \
                 }}`, or remove pm.status_path"
            ));
        }
    }
}
