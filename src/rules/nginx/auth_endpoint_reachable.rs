//! NGX162 auth-endpoint-reachable: the location that answers an `auth_request` subrequest
//! is not `internal`, so a client can request it directly and talk to the authorization
//! service as nginx does.
//!
//! `auth_request /auth` makes a subrequest for the URI `/auth`, which nginx routes through
//! the same location search as a client's request (ngx_http_auth_request_module). Only
//! `internal` tells nginx to answer a client's own request for that location with 404;
//! nginx's documentation and the auth services' guides (oauth2-proxy, Authelia) mark it so.
//! Without it the authorization service is exposed at the site's own address: a client
//! asks it for decisions directly (an oracle for credentials and tokens, with none of the
//! limits the protected locations apply), with the headers the location sets for the
//! subrequest built from its own request.
//!
//! The subrequest's URI must be written out (a variable is not followed), the location is
//! chosen by the location model and must be one written for the subrequest (named by its
//! URI: `location = /auth`, `location /auth`; a broader `location /oauth2/` also serves the
//! service's public pages), and reported only when it passes the request on (a file or a
//! `return` answers a client as it answers nginx) and keeps no client out itself.

use crate::analysis::access::unread_include_around;
use crate::analysis::cursor::Directive;
use crate::analysis::locations::{Kind, Locations};
use crate::analysis::request::access::refuses_some;
use crate::analysis::serving::{self, Handler};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct AuthEndpointReachable;
    code: NGX162,
    name: "auth-endpoint-reachable",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
    uses_locations: true,
}

impl Rule for AuthEndpointReachable {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let locations = Locations::of(inst);
            for d in crate::analysis::cursor::named(inst, "auth_request") {
                let Some(uri) = d.arg(0).map(|a| a.value().into_owned()) else {
                    continue;
                };
                if uri == "off" || !uri.starts_with('/') || uri.contains('$') {
                    continue;
                }
                let Some(server) = d.enclosing("server") else {
                    continue;
                };
                let Some(locs) = locations.server(server.occ()) else {
                    continue;
                };
                // The subrequest's URI is as written, arguments after `?`.
                let path = uri.split('?').next().unwrap_or(&uri);
                let sel = locs.select(path.as_bytes());
                let Some(id) = sel.location() else { continue };
                if sel.internal {
                    continue;
                }
                // Only a location written for the subrequest: named by its URI (`= /auth`,
                // `/auth`). A broader one (`/oauth2/` of oauth2-proxy, with its sign-in and
                // callback pages) is public on purpose, and its service decides.
                let loc = locs.get(id);
                let dedicated =
                    matches!(loc.kind, Kind::Exact | Kind::Prefix | Kind::NoRegexPrefix)
                        && &*loc.name == path.as_bytes();
                if !dedicated {
                    continue;
                }
                let target = Directive::new(inst, loc.occ);
                if refuses_some(target) || unread_include_around(target) {
                    continue;
                }
                let Some(handler) = serving::handler(inst, locs, &sel, path.as_bytes()) else {
                    continue;
                };
                // A file or a `return` answers a client the same as nginx: nothing to ask.
                let Handler::Content(c) = handler else {
                    continue;
                };
                let serves = format!("passes it on (`{}`)", c.name());
                // One finding per endpoint location, labelled with the first `auth_request`.
                if !cx.claim(target.file(), target.span()) {
                    continue;
                }
                let label = locs.get(id).label();
                // At the location, where `internal;` goes; the subrequest is a label.
                let diag = cx.report(
                    target.file(),
                    target.span(),
                    format!(
                        "`location {label}` answers the `auth_request {path}` subrequest and is \
                         open to clients too: it is not `internal` and {serves}, so a direct \
                         request reaches the authorization endpoint"
                    ),
                );
                diag.label(
                    d.file().clone(),
                    d.span(),
                    "the subrequest this location is written for",
                );
                diag.help = Some(format!(
                    "add `internal;` to `location {label}`: the `auth_request` subrequest still \
                     reaches it, a client's request gets 404"
                ));
            }
        }
    }
}
