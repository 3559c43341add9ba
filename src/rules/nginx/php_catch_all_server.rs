//! NGX164 php-catch-all-server: the PHP application is the default server of an address
//! where other servers have names of their own, so a request with any `Host` reaches it.
//!
//! nginx picks the server for a request by its `Host` among the servers of the address the
//! connection came to, and answers a Host no `server_name` takes with the address's
//! default server (`listen … default_server`, else the first; analysis::locations::
//! default_server, as `ngx_http_find_virtual_server` does). When that server runs PHP
//! (a `fastcgi_pass`) and has no name of its own (`server_name _`, `""`, none) while the
//! others on the address name their sites, the application is served under every Host a
//! client writes, and PHP reads that Host as `$_SERVER['HTTP_HOST']` (nginx passes every
//! request header as `HTTP_*`). Applications build absolute URLs from it: password-reset
//! links, canonical and asset URLs, cache keys — Host header poisoning.
//!
//! Information by default: a deployment may rely on it, and whether the application reads
//! the Host is not in the configuration. A warning when the server itself hands the Host
//! to PHP as the server's own name (`fastcgi_param SERVER_NAME $host`): `SERVER_NAME` is
//! what applications treat as the trusted name. Silent for an address with one server (a
//! single-site container: every request is for the one site), and for a default server
//! that answers everything at the server level (`return 444`). A loopback address counts:
//! the proxy in front of it (Varnish, another nginx) forwards the client's Host; unix
//! sockets are left out.

use crate::analysis::cursor::Directive;
use crate::analysis::locations::default_server::sockets;
use crate::analysis::locations::Locations;
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use crate::stack::model::NginxInstance;

declare_rule! {
    pub struct PhpCatchAllServer;
    code: NGX164,
    name: "php-catch-all-server",
    lang: nginx,
    category: Security,
    severity: Info,
    fix: None,
    group: Preview,
    uses_locations: true,
}

impl Rule for PhpCatchAllServer {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let locations = Locations::of(inst);
            let all: Vec<_> = locations.servers().iter().map(|s| s.server).collect();
            for socket in sockets(&inst.view(), &all) {
                if socket.servers.len() < 2 {
                    continue;
                }
                let default = Directive::new(inst, socket.default);
                if has_own_name(default) {
                    continue;
                }
                let named: Vec<Directive<'_>> = socket
                    .servers
                    .iter()
                    .map(|&s| Directive::new(inst, s))
                    .filter(|&s| s != default && has_own_name(s))
                    .collect();
                let Some(&first_named) = named.first() else {
                    continue;
                };
                if default.children("return").next().is_some() {
                    continue;
                }
                let Some(php) = php_pass(inst, default) else {
                    continue;
                };
                if !cx.claim(default.file(), default.span()) {
                    continue;
                }
                report(cx, &socket, default, php, first_named, named.len());
            }
        }
    }
}

/// The names that are no site's own: nginx's documentation uses `_` for "a name no Host
/// matches", and `""` (or no `server_name`) matches requests without a Host.
fn placeholder(name: &str) -> bool {
    matches!(
        name,
        "" | "_" | "__" | "-" | "~.*" | "~^.*$" | "~^(.*)$" | "~^(.+)$"
    )
}

/// Whether `server` names a site: a `server_name` argument that is not a placeholder.
fn has_own_name(server: Directive<'_>) -> bool {
    server
        .children("server_name")
        .flat_map(|n| n.args())
        .any(|a| !placeholder(&a.value()))
}

/// The `fastcgi_pass` in `server` (at any depth) that runs PHP: in a location or `if`
/// below the server, not in a named or `internal` one only nginx enters.
fn php_pass<'a>(inst: &'a NginxInstance, server: Directive<'a>) -> Option<Directive<'a>> {
    crate::analysis::cursor::named(inst, "fastcgi_pass").find(|p| {
        p.enclosing("server") == Some(server)
            && !crate::analysis::request::access::is_internal(p.parent().unwrap_or(*p))
            && !p
                .enclosing("location")
                .and_then(|l| l.arg(0))
                .is_some_and(|a| a.value().starts_with('@'))
    })
}

/// A `fastcgi_param SERVER_NAME` (or `HTTP_HOST`) that hands PHP the client's Host as the
/// server's own name, in force where `pass` runs.
fn host_as_name<'a>(pass: Directive<'a>) -> Option<Directive<'a>> {
    let block = pass.parent()?;
    block.effective("fastcgi_param").find(|p| {
        p.arg(0).is_some_and(|n| n.is("SERVER_NAME"))
            && p.arg(1)
                .is_some_and(|v| matches!(&*v.value(), "$host" | "$http_host"))
    })
}

fn report(
    cx: &mut Context<'_>,
    socket: &crate::analysis::locations::default_server::Socket,
    default: Directive<'_>,
    php: Directive<'_>,
    named: Directive<'_>,
    count: usize,
) {
    let how = if socket.marked {
        "marked `default_server`"
    } else {
        "the first server"
    };
    let name = named
        .children("server_name")
        .flat_map(|n| n.args())
        .map(|a| a.value().into_owned())
        .find(|n| !placeholder(n))
        .unwrap_or_default();
    let others = match count {
        1 => format!("the server for `{name}` on it is named"),
        2 => format!("the servers for `{name}` and one other on it are named"),
        n => format!(
            "the servers for `{name}` and {} others on it are named",
            n - 1
        ),
    };
    let param = host_as_name(php);
    let message = format!(
        "any Host reaches the PHP application here: this server has no name of its own and \
         is the default of {} ({how}), while {others}, so a request \
         with a Host no server names (`Host: evil.example`) runs PHP with that Host as \
         `HTTP_HOST`{}",
        socket.address,
        if param.is_some() {
            " and as `SERVER_NAME`"
        } else {
            ""
        }
    );
    let d = cx.report(default.file(), default.span(), message);
    d.label(php.file().clone(), php.span(), "runs PHP for every Host");
    if let Some(p) = param {
        d.label(
            p.file().clone(),
            p.span(),
            "the client's Host as the server's own name",
        );
        d.severity = Severity::Warning;
    }
    d.label(
        named.file().clone(),
        named.span(),
        "a named site on the same address",
    );
    d.help = Some(format!(
        "make the default server of {} one that serves nothing (`server {{ listen … \
         default_server; server_name _; return 444; }}`) and give the application's server \
         its real names",
        socket.address
    ));
}
