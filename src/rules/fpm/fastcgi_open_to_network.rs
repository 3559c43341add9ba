//! FPM100 fastcgi-open-to-network: a pool that listens on a TCP address other than loopback
//! and accepts FastCGI from any client.
//!
//! FastCGI has no authentication. Whoever can open the port can send a request with
//! `SCRIPT_FILENAME` and `PHP_VALUE` of their choosing (`auto_prepend_file=php://input`, and
//! the request body is code): php-fpm runs it as the pool's user. php-fpm's own guard is
//! `listen.allowed_clients`, which is `any` by default and only applies to TCP sockets
//! (`fpm_php_set_allowed_clients`); a bare port (`listen = 9000`) binds every address
//! (`fpm_sockets.c`).
//!
//! Reported at the `listen` value. Loopback addresses, unix sockets, a set
//! `listen.allowed_clients`, and values lemplint cannot know (`${VAR}`, templates) are left
//! alone. No fix: the address nginx connects from is not in the pool file.

use crate::rules::{Context, Rule};
use crate::stack::fpm::Listen;
use crate::stack::instances::{PoolView, Val};

declare_rule! {
    pub struct FastcgiOpenToNetwork;
    code: FPM100,
    name: "fastcgi-open-to-network",
    lang: fpm,
    category: Security,
    severity: Error,
    fix: None,
    group: Default,
}

impl Rule for FastcgiOpenToNetwork {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in cx.fpm_instances() {
            for pool in &inst.pools {
                check_pool(cx, pool);
            }
        }
    }
}

/// Whether a listen host is loopback only (`127.0.0.0/8`, `::1`, `localhost`).
fn is_loopback(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost")
        || h == "::1"
        || h.parse::<std::net::Ipv4Addr>()
            .is_ok_and(|a| a.is_loopback())
}

/// What a listen host covers, for the message.
fn reach(host: Option<&str>) -> &'static str {
    match host.map(|h| h.trim_start_matches('[').trim_end_matches(']')) {
        None | Some("0.0.0.0" | "::" | "*") => "every address of the host",
        _ => "an address other hosts can reach",
    }
}

fn check_pool(cx: &mut Context<'_>, pool: &PoolView<'_>) {
    let Some(listen) = pool.get("listen").filter(|v| v.known) else {
        return;
    };
    let Some(Listen::Tcp { host, port }) = Listen::parse(&listen.text) else {
        return;
    };
    if host.as_deref().is_some_and(is_loopback) {
        return;
    }
    // A value lemplint cannot read counts as set: an environment variable may hold the list.
    let allowed = pool.get("listen.allowed_clients");
    if allowed
        .as_ref()
        .is_some_and(|v: &Val<'_>| !v.known || !v.text.trim().is_empty())
    {
        return;
    }
    if let Some(image) = listen.at.cfg.image.as_deref() {
        return check_image_pool(cx, pool, image, &listen, port);
    }
    let message = format!(
        "[pool {}] listen = {} accepts FastCGI on {} from any client (no \
         listen.allowed_clients): anyone who reaches port {port} can make php-fpm run PHP code \
         of their choosing as the pool's user",
        pool.name,
        listen.text.trim(),
        reach(host.as_deref()),
    );
    let d = cx.report(listen.at.file(), listen.span(), message);
    d.help = Some(
        "FastCGI has no authentication: a request can set `PHP_VALUE \
         auto_prepend_file=php://input` and send code in its body. When nginx runs on the same \
         host, listen on a unix socket or 127.0.0.1; otherwise set `listen.allowed_clients` to \
         nginx's address. In a container, where nginx reaches php-fpm over the container \
         network, set `listen.allowed_clients` too, or make sure the port is on a private \
         network nothing else joins and is never published (lemplint cannot see the network)."
            .into(),
    );
    if let Some(a) = allowed {
        d.label(
            a.at.file().clone(),
            a.span(),
            "empty: php-fpm accepts any client",
        );
    }
}

/// What a pool that listens on every interface of a container is open to, and what to do.
const CONTAINER_HELP: &str = "FastCGI has no authentication: whoever reaches the port names \
    the script to run (`SCRIPT_FILENAME`) and can set `PHP_VALUE auto_prepend_file=php://input` \
    to run the request body as code. In a container, keep the port on a private network that \
    only nginx joins and never publish 9000 (no `ports:`/`-p` for it), or listen on a unix \
    socket in a volume shared with nginx (set in a file read after the image's docker.conf, \
    such as www.conf, which holds the image's `listen = 9000`).";

/// A pool of a docker-library php-fpm image: the image's `docker.conf` sets `listen = 9000`
/// for `[www]` (in `zz-docker.conf` before January 2026), replacing the `listen` of a
/// repository file read before it. A warning about the container's network, not an error
/// with an address: lemplint cannot see the network.
fn check_image_pool(
    cx: &mut Context<'_>,
    pool: &PoolView<'_>,
    image: &str,
    listen: &Val<'_>,
    port: u16,
) {
    use crate::diagnostic::Severity;
    let tree = |v: &Val<'_>| !v.at.file().synthetic;
    if tree(listen) {
        return report_open(cx, pool, image, listen, port);
    }
    // The image's value: reported only where the tree's own `listen` loses to it (a pool
    // that never sets `listen` takes the image's design as it is).
    let Some(own) = pool.all("listen").into_iter().rev().find(tree) else {
        return;
    };
    if Listen::parse(&own.text) == Listen::parse(&listen.text) {
        // The tree's `0.0.0.0:9000` binds what the image's `9000` binds.
        return report_open(cx, pool, image, &own, port);
    }
    let name = listen
        .at
        .file()
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let message = format!(
        "[pool {}] listen = {} never takes effect: {image}'s own \
         /usr/local/etc/php-fpm.d/{name}, read after this file, sets listen = {}, so the pool \
         accepts FastCGI on every interface of the container (any container on its network, \
         and anyone outside if port {port} is published, can make php-fpm run a script of \
         their choosing)",
        pool.name,
        own.text.trim(),
        listen.text.trim(),
    );
    let d = cx.report(own.at.file(), own.span(), message);
    d.severity = Severity::Warning;
    d.help = Some(CONTAINER_HELP.into());
}

/// The tree's own `listen` on every interface of an image's container.
fn report_open(
    cx: &mut Context<'_>,
    pool: &PoolView<'_>,
    image: &str,
    listen: &Val<'_>,
    port: u16,
) {
    let message = format!(
        "[pool {}] listen = {} in {image} accepts FastCGI on every interface of the container: \
         any container on its network (and anyone outside, if port {port} is published) can \
         make php-fpm run a script of their choosing as the pool's user",
        pool.name,
        listen.text.trim(),
    );
    let d = cx.report(listen.at.file(), listen.span(), message);
    d.severity = crate::diagnostic::Severity::Warning;
    d.help = Some(CONTAINER_HELP.into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for h in ["127.0.0.1", "127.1.2.3", "[::1]", "::1", "localhost"] {
            assert!(is_loopback(h), "{h}");
        }
        for h in ["0.0.0.0", "[::]", "10.0.0.5", "php", "192.168.1.2"] {
            assert!(!is_loopback(h), "{h}");
        }
    }
}
