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
    let named = reached_by_container_name(cx, port);
    if let Some(why) = in_container(listen.at.cfg, named.as_deref(), port) {
        let reached = reached(cx, port);
        return report_container(cx, pool, &listen, port, &why, reached.as_ref());
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

/// Why a pool of a configuration lemplint reads outside an image model runs in a container,
/// where a bare port is how nginx in another container reaches it: the file is an image's
/// own `docker.conf`, its logs go to the container's output, or nginx names the pool's
/// port on another host name (`reached`: a compose service, `php:9000`).
fn in_container(
    cfg: &crate::stack::fpm::FpmConfig,
    reached: Option<&str>,
    port: u16,
) -> Option<String> {
    for f in &cfg.files {
        let path = &f.source.path;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let in_pool_dir = path
            .parent()
            .and_then(|d| d.file_name())
            .is_some_and(|d| d == "php-fpm.d");
        if in_pool_dir && (name == "docker.conf" || name == "zz-docker.conf") {
            return Some(format!("{name} is a php-fpm container image's own file"));
        }
        if memchr::memmem::find(&f.source.text, b"/proc/self/fd/").is_some() {
            return Some("its logs go to /proc/self/fd, a container's output".into());
        }
    }
    reached.map(|h| format!("nginx reaches it as {h}:{port}, the name of another container"))
}

/// The host name (`php`, a compose service) by which nginx in the tree passes to `port`:
/// nginx runs in another container and reaches php-fpm over their network, so a listen on
/// every interface of php-fpm's container is how the design works, not an accident.
/// How nginx in the tree reaches a pool on every interface of its container, when that
/// tells the listen is the design: by a container's name, or through a `fastcgi_pass` whose
/// address is set at run time (a placeholder its image's entrypoint fills in).
enum Reach {
    Named(String),
    Unresolved(String),
}

/// [`Reach`] for a pool on `port`: a name first, else an address lemplint cannot read.
fn reached(cx: &Context<'_>, port: u16) -> Option<Reach> {
    reached_by_container_name(cx, port)
        .map(Reach::Named)
        .or_else(|| unresolved_pass(cx).map(Reach::Unresolved))
}

/// The argument of a `fastcgi_pass` of the tree's nginx whose address is a placeholder
/// filled in when the containers start: the `fastcgi_pass` itself (`!FPM_HOST!:9000`), or an
/// `upstream` whose servers all are (`server !FPM_HOST!:!FPM_PORT!;`). It may well be this
/// pool, by a container name given at run time. A variable is not such an address: it may
/// come from the request (`$arg_b`).
fn unresolved_pass(cx: &Context<'_>) -> Option<String> {
    use crate::stack::net::{fastcgi_targets, upstreams, Addr};
    for inst in crate::analysis::stack_links::active_nginx(cx.stack) {
        let targets = fastcgi_targets(inst);
        let view = inst.view();
        let ups = upstreams(&view);
        for pass in view.named("fastcgi_pass") {
            if targets.iter().any(|t| t.pass == pass) {
                continue;
            }
            let Some(arg) = view.arg(pass, 0) else {
                continue;
            };
            if arg.contains('$') {
                continue;
            }
            let placeholder = match ups.get(arg.as_ref()) {
                // Every server of the upstream failed to parse (none is a target).
                Some(_) => view.named("upstream").any(|u| {
                    view.arg(u, 0).as_deref() == Some(arg.as_ref())
                        && !view.expanded.children_named(u, "server").is_empty()
                }),
                None => Addr::parse(&arg, 80).is_none(),
            };
            if placeholder {
                return Some(arg.into_owned());
            }
        }
    }
    None
}

fn reached_by_container_name(cx: &Context<'_>, port: u16) -> Option<String> {
    use crate::stack::net::{fastcgi_targets, Addr};
    for inst in crate::analysis::stack_links::active_nginx(cx.stack) {
        for t in fastcgi_targets(inst).iter() {
            if let Addr::Tcp {
                host: Some(h),
                port: p,
            } = &t.addr
            {
                // A host name as written, not a placeholder (`{{ PHPFPMHOST }}`) or variable.
                let named = h.parse::<std::net::IpAddr>().is_err()
                    && !h.eq_ignore_ascii_case("localhost")
                    && h.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
                if named && *p == port {
                    return Some(h.to_string());
                }
            }
        }
    }
    None
}

/// A pool on every interface of its container, which nginx in another container reaches by
/// name (`host`), and whose port no compose file of the tree publishes: the listen is the
/// design, and what it exposes depends on the network and on publishing, which the tree
/// does not show. Information, saying so (three reviews of unseen stacks judged a warning
/// here misleading).
/// `said`: the message already names the host nginx reaches it by.
fn by_design(d: &mut crate::diagnostic::Diagnostic, reach: Option<&Reach>, port: u16, said: bool) {
    let Some(reach) = reach else { return };
    d.severity = crate::diagnostic::Severity::Info;
    let how = match reach {
        _ if said => String::new(),
        Reach::Named(h) => format!("; nginx reaches it as {h}:{port} from another container"),
        Reach::Unresolved(pass) => format!(
            "; nginx passes FastCGI to `{}`, an address set when the containers run",
            crate::escape::excerpt(pass, 80)
        ),
    };
    d.message = format!(
        "{}{how}: the listen is the design, and what it exposes depends on that network and \
         on whether port {port} is published, which this tree does not show",
        d.message
    );
}

/// A pool in a container on every interface: a warning about the container's network.
fn report_container(
    cx: &mut Context<'_>,
    pool: &PoolView<'_>,
    listen: &Val<'_>,
    port: u16,
    why: &str,
    reached: Option<&Reach>,
) {
    let message = format!(
        "[pool {}] listen = {} accepts FastCGI on every interface of its container ({why}): \
         any container on its network (and anyone outside, if port {port} is published) can \
         make php-fpm run a script of their choosing as the pool's user",
        pool.name,
        listen.text.trim(),
    );
    let d = cx.report(listen.at.file(), listen.span(), message);
    d.severity = crate::diagnostic::Severity::Warning;
    // `why` names the host when that was the only sign of a container.
    let said = why.starts_with("nginx reaches it as");
    by_design(d, reached, port, said);
    d.help = Some(
        "FastCGI has no authentication: whoever reaches the port names the script to run \
         (`SCRIPT_FILENAME`) and can set `PHP_VALUE auto_prepend_file=php://input` to run the \
         request body as code. Keep the port on a private network only nginx joins and never \
         publish it (no `ports:`/`-p` for it), set `listen.allowed_clients` to nginx's \
         address, or listen on a unix socket in a volume shared with nginx."
            .into(),
    );
}

/// The image's port published on the host by its compose service: reachable from outside.
fn published(cfg: &crate::stack::fpm::FpmConfig, port: u16) -> Option<(&str, String)> {
    let item = crate::stack::php_image::published_on_host(&cfg.published, port)?;
    let compose = cfg
        .compose
        .as_deref()
        .map(crate::escape::path)
        .unwrap_or_else(|| "the compose file".into());
    Some((item, compose))
}

/// What the compose file's `ports:` item does to the pool.
fn published_message(item: &str, compose: &str, port: u16) -> String {
    format!(
        "{compose} publishes it on the host (`ports: - \"{item}\"`): anyone who reaches port \
         {port} of the host can make php-fpm run a script of their choosing as the pool's user"
    )
}

const PUBLISHED_HELP: &str = "FastCGI has no authentication: whoever reaches the port names \
    the script to run (`SCRIPT_FILENAME`) and can set `PHP_VALUE auto_prepend_file=php://input` \
    to run the request body as code. nginx in the same compose project reaches php-fpm over \
    the project's network without any `ports:` entry: remove it, or bind it to the host's \
    loopback (`127.0.0.1:9000:9000`) if something on the host needs it.";

/// What a pool that listens on every interface of a container is open to, and what to do.
/// Where the image's own pool files are read (its master includes `php-fpm.d`), a `listen`
/// only takes effect in a file read after its `docker.conf`; a repository master without that
/// include sets it where it is.
fn container_help(cfg: &crate::stack::fpm::FpmConfig) -> String {
    let image_pools = cfg.files.iter().any(|f| {
        f.source.synthetic
            && f.source
                .path
                .file_name()
                .is_some_and(|n| n == "docker.conf" || n == "zz-docker.conf")
    });
    let place = if image_pools {
        " (set in a file read after the image's docker.conf, such as www.conf, which holds \
         the image's `listen = 9000`)"
    } else {
        ""
    };
    format!(
        "FastCGI has no authentication: whoever reaches the port names the script to run \
         (`SCRIPT_FILENAME`) and can set `PHP_VALUE auto_prepend_file=php://input` to run the \
         request body as code. In a container, keep the port on a private network that only \
         nginx joins and never publish 9000 (no `ports:`/`-p` for it), or listen on a unix \
         socket in a volume shared with nginx{place}."
    )
}

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
    let tree = |v: &Val<'_>| !v.at.file().synthetic;
    if tree(listen) {
        return report_open(cx, pool, image, listen, port);
    }
    // The image's value: reported only where the tree's own `listen` loses to it (a pool
    // that never sets `listen` takes the image's design as it is), or where compose
    // publishes the port on the host.
    let Some(own) = pool.all("listen").into_iter().rev().find(tree) else {
        return report_published_default(cx, pool, image, listen, port);
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
    let reached = reached(cx, port);
    let d = cx.report(own.at.file(), own.span(), message);
    container_network(d, listen.at.cfg, port, reached.as_ref());
}

/// A pool that leaves `listen` to the image, whose port compose publishes on the host:
/// reported at the pool's header in the tree (or the first tree file of the image).
fn report_published_default(
    cx: &mut Context<'_>,
    pool: &PoolView<'_>,
    image: &str,
    listen: &Val<'_>,
    port: u16,
) {
    let Some((item, compose)) = published(listen.at.cfg, port) else {
        return;
    };
    let header = pool
        .headers
        .iter()
        .find(|h| !h.file().synthetic)
        .and_then(|h| Some((h.file(), h.header_span()?)));
    let first_tree_file = || {
        let f = listen.at.cfg.files.iter().find(|f| !f.source.synthetic)?;
        let end = memchr::memchr(b'\n', &f.source.text).unwrap_or(f.source.text.len());
        Some((&f.source, crate::source::Span::new(0, end as u32)))
    };
    let Some((file, span)) = header.or_else(first_tree_file) else {
        return;
    };
    let message = format!(
        "[pool {}] listens on port {port} of every interface of the container ({image}'s \
         listen = {}), and {}",
        pool.name,
        listen.text.trim(),
        published_message(item, &compose, port),
    );
    let d = cx.report(file, span, message);
    d.help = Some(PUBLISHED_HELP.into());
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
    let reached = reached(cx, port);
    let d = cx.report(listen.at.file(), listen.span(), message);
    container_network(d, listen.at.cfg, port, reached.as_ref());
}

/// A finding about a pool open on the container's network: a warning about that network,
/// or an error when compose publishes the port on the host.
fn container_network(
    d: &mut crate::diagnostic::Diagnostic,
    cfg: &crate::stack::fpm::FpmConfig,
    port: u16,
    reached: Option<&Reach>,
) {
    use crate::diagnostic::Severity;
    d.severity = Severity::Warning;
    d.help = Some(container_help(cfg));
    if let Some((item, compose)) = published(cfg, port) {
        d.severity = Severity::Error;
        d.message = format!("{}; {}", d.message, published_message(item, &compose, port));
        d.help = Some(PUBLISHED_HELP.into());
    } else {
        by_design(d, reached, port, false);
    }
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

    #[test]
    fn published_ports() {
        use crate::stack::php_image::published_on_host;
        let p = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for open in [
            &["9000:9000"][..],
            &["9000"],
            &["8000:9000"],
            &["0.0.0.0:9000:9000/tcp"],
            &["9000-9001:9000-9001"],
            &["80:80", "9000:9000"],
        ] {
            assert!(published_on_host(&p(open), 9000).is_some(), "{open:?}");
        }
        for closed in [
            &["127.0.0.1:9000:9000"][..],
            &["9000:80"],
            &["[::1]:9000:9000"],
            &[],
        ] {
            assert!(published_on_host(&p(closed), 9000).is_none(), "{closed:?}");
        }
    }
}
