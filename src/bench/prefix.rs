//! A private copy of a stack, runnable on loopback without touching the running services.
//!
//! nginx's configuration is written out from the expanded tree (includes inlined), with:
//! every `listen` on `127.0.0.1` and a free high port (its parameters that size the queue
//! kept: `backlog=`, `reuseport`, `deferred`, `default_server`), document roots replaced by a
//! generated site, pid, logs and temporary files inside the prefix, and each `fastcgi_pass`
//! that reaches a pool of the stack pointed at that pool's socket in the prefix. Anything
//! that would send traffic elsewhere (`proxy_pass`, an upstream or `fastcgi_pass` that is not
//! a pool of the stack) is refused: traffic never leaves loopback. TLS servers are left out
//! (their certificates are the server's); what concerns them is not measured.
//!
//! PHP-FPM gets one master with the stack's pools: their process-manager and queue settings
//! and PHP values as written, listening on sockets in the prefix, logging there.

use crate::analysis::stack_links::{pool_links, PoolLink};
use crate::stack::expanded::{OccId, NO_PARENT};
use crate::stack::model::{NginxInstance, Stack};
use crate::syntax::nginx::BlockKind;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What the generated site answers.
pub const SCRIPT: &str = "/index.php";
pub const STATIC: &str = "/static.txt";

/// The default PHP script: a CPU-bound string workload, as the field report measured.
pub const DEFAULT_SCRIPT: &str = "<?php\n// lemplint bench: string work, about 2 ms of CPU.\n$s = '';\nfor ($i = 0; $i < 4000; $i++) {\n    $s .= md5($i . 'lemplint');\n}\necho strlen($s), \"\\n\";\n";

/// One setting changed from the stack as it is (an experiment's variant).
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// PHP-FPM pools on loopback TCP ports instead of unix sockets.
    pub fastcgi_tcp: bool,
    /// `worker_processes` for nginx.
    pub worker_processes: Option<String>,
    /// `backlog=` on every nginx `listen`.
    pub nginx_backlog: Option<u64>,
    /// `listen.backlog` of every pool.
    pub fpm_backlog: Option<u64>,
    /// PHP-FPM masters to run (0 or 1: one): each pool's workers split across them, nginx
    /// balancing over their sockets with an upstream.
    pub fpm_masters: usize,
    /// A TLS server added to `http` (the `dhe` experiment: handshakes with one cipher
    /// configuration, on a self-signed certificate made for the run).
    pub tls: Option<TlsServer>,
}

#[derive(Clone, Debug)]
pub struct TlsServer {
    pub port: u16,
    pub cert: PathBuf,
    pub key: PathBuf,
    pub protocols: String,
    pub ciphers: String,
    pub dhparam: Option<PathBuf>,
}

/// Where a copied pool listens.
#[derive(Clone, Debug)]
pub enum PoolAddr {
    Unix(PathBuf),
    Tcp(u16),
}

impl PoolAddr {
    /// As nginx's `fastcgi_pass` names it.
    fn target(&self) -> String {
        match self {
            PoolAddr::Unix(p) => format!("unix:{}", p.display()),
            PoolAddr::Tcp(port) => format!("127.0.0.1:{port}"),
        }
    }

    /// Whether PHP-FPM accepts connections there yet.
    pub fn ready(&self) -> bool {
        match self {
            PoolAddr::Unix(p) => p.exists(),
            PoolAddr::Tcp(port) => std::net::TcpStream::connect(("127.0.0.1", *port)).is_ok(),
        }
    }
}

/// A private copy, written under `dir`.
pub struct Private {
    pub dir: PathBuf,
    pub nginx_conf: PathBuf,
    /// One php-fpm configuration per master (none when nginx reaches no pool).
    pub fpm_conf: Vec<PathBuf>,
    /// The port of the first server (the one the load goes to).
    pub port: u16,
    /// The `Host` header to send (the first server's first name, or `localhost`).
    pub host: String,
    /// Pools copied (name, where they listen).
    pub pools: Vec<(String, PoolAddr)>,
    /// What was left out, for the report.
    pub notes: Vec<String>,
}

/// Directives dropped from the copy: the prefix decides them, or they read the server's
/// files (certificates) or send traffic elsewhere only when used, which is checked apart.
const DROPPED: &[&str] = &[
    "user",
    "pid",
    "daemon",
    "master_process",
    "error_log",
    "access_log",
    "include",
    "client_body_temp_path",
    "proxy_temp_path",
    "fastcgi_temp_path",
    "uwsgi_temp_path",
    "scgi_temp_path",
    "ssl_certificate",
    "ssl_certificate_key",
    "ssl_trusted_certificate",
    "ssl_client_certificate",
    "ssl_dhparam",
    "ssl_crl",
    "ssl_password_file",
    "ssl_stapling_file",
    "ssl_session_ticket_key",
    "ssl_stapling",
    "ssl_stapling_verify",
    "resolver",
    "lua_package_path",
    "lua_package_cpath",
    "env",
    "working_directory",
];

/// Files every nginx package ships, which a repository's configuration may include without
/// holding a copy.
const STOCK_INCLUDES: &[&str] = &[
    "fastcgi_params",
    "fastcgi.conf",
    "mime.types",
    "scgi_params",
    "uwsgi_params",
    "proxy_params",
];

/// Directives that send requests elsewhere.
const PASSES: &[&str] = &[
    "proxy_pass",
    "uwsgi_pass",
    "scgi_pass",
    "grpc_pass",
    "memcached_pass",
];

pub fn build(
    stack: &Stack,
    dir: &Path,
    ports: &mut dyn FnMut() -> Result<u16, String>,
    over: &Overrides,
) -> Result<Private, String> {
    let inst = crate::analysis::stack_links::active_nginx(stack)
        .find(|i| !i.standalone)
        .or_else(|| stack.nginx.first())
        .ok_or("the stack has no nginx configuration to run")?;
    let www = dir.join("www");
    std::fs::create_dir_all(&www).map_err(|e| e.to_string())?;
    for sub in [
        "tmp/body",
        "tmp/proxy",
        "tmp/fastcgi",
        "tmp/uwsgi",
        "tmp/scgi",
    ] {
        std::fs::create_dir_all(dir.join(sub)).map_err(|e| e.to_string())?;
    }
    let links = pool_links(stack);
    let mut w = Writer {
        inst,
        dir: dir.to_path_buf(),
        www,
        links: &links,
        out: String::new(),
        ports,
        port_of: HashMap::new(),
        first_port: None,
        host: None,
        notes: Vec::new(),
        pools: Vec::new(),
        over,
    };
    let _ = writeln!(
        w.out,
        "# lemplint bench: a private copy of {}\npid {};\nerror_log {} notice;\ndaemon off;",
        inst.config.files[0].source.path.display(),
        dir.join("nginx.pid").display(),
        dir.join("error.log").display()
    );
    if let Some(n) = &over.worker_processes {
        let _ = writeln!(w.out, "worker_processes {n};");
    }
    for occ in inst.expanded.children(NO_PARENT) {
        w.directive(occ, 0)?;
    }
    let port = w
        .first_port
        .ok_or("the configuration has no plain-HTTP server to measure")?;
    let nginx_conf = dir.join("nginx.conf");
    std::fs::write(&nginx_conf, &w.out).map_err(|e| e.to_string())?;
    let host = w.host.clone().unwrap_or_else(|| "localhost".into());
    let mut notes = std::mem::take(&mut w.notes);
    let pools = std::mem::take(&mut w.pools);
    let masters = over.fpm_masters.max(1);
    let mut fpm_conf = Vec::new();
    if !pools.is_empty() {
        for k in 0..masters {
            let conf = dir.join(format!("php-fpm-{k}.conf"));
            let text = fpm_config(dir, &pools, over, k, &mut notes);
            std::fs::write(&conf, text).map_err(|e| e.to_string())?;
            fpm_conf.push(conf);
        }
    }
    let pools = pools
        .into_iter()
        .flat_map(|p| {
            let name = p.name.clone();
            p.addrs.into_iter().map(move |a| (name.clone(), a))
        })
        .collect();
    Ok(Private {
        dir: dir.to_path_buf(),
        nginx_conf,
        fpm_conf,
        port,
        host,
        pools,
        notes,
    })
}

/// Writes the generated site: the PHP script and a static file.
pub fn write_site(p: &Private, script: &str) -> Result<(), String> {
    let www = p.dir.join("www");
    std::fs::write(www.join("index.php"), script).map_err(|e| e.to_string())?;
    std::fs::write(www.join("static.txt"), "lemplint bench\n".repeat(64))
        .map_err(|e| e.to_string())?;
    Ok(())
}

struct CopiedPool<'a> {
    name: String,
    /// One address per master.
    addrs: Vec<PoolAddr>,
    /// What nginx passes to: the address, or with several masters an upstream over them.
    target: String,
    cfg: &'a crate::stack::fpm::FpmConfig,
    pool: &'a crate::stack::fpm::Pool,
}

struct Writer<'a> {
    inst: &'a NginxInstance,
    dir: PathBuf,
    www: PathBuf,
    links: &'a [PoolLink<'a>],
    out: String,
    ports: &'a mut dyn FnMut() -> Result<u16, String>,
    /// Original listen address → private port.
    port_of: HashMap<String, u16>,
    first_port: Option<u16>,
    host: Option<String>,
    notes: Vec<String>,
    pools: Vec<CopiedPool<'a>>,
    over: &'a Overrides,
}

impl<'a> Writer<'a> {
    fn raw_args(&self, occ: OccId) -> Vec<String> {
        let o = self.inst.expanded.get(occ);
        let f = self.inst.config.file(o.file);
        let d = f
            .parsed
            .tree
            .statement(o.node)
            .expect("occurrences are statements");
        f.parsed
            .tree
            .args(d)
            .iter()
            .map(|w| String::from_utf8_lossy(&f.source.text[w.raw().range()]).into_owned())
            .collect()
    }

    fn where_(&self, occ: OccId) -> String {
        let (file, span) = self.inst.view().location(occ);
        format!("{}:{}", file.path.display(), file.line_col(span.start).line)
    }

    fn directive(&mut self, occ: OccId, depth: usize) -> Result<(), String> {
        let view = self.inst.view();
        let name = view.name(occ).to_string();
        let indent = "    ".repeat(depth);
        if name == "include" {
            // Inlined by the expansion; one the tree does not have (a repository without
            // Debian's `fastcgi_params`) is this machine's own, as nginx would read it here.
            let o = self.inst.expanded.get(occ);
            let followed = self
                .inst
                .config
                .includes
                .get(o.file, o.node)
                .is_some_and(|t| !t.is_empty());
            let arg = view.arg(occ, 0).unwrap_or_default().into_owned();
            let file = Path::new(&arg)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            let stock = Path::new("/etc/nginx").join(&file);
            if !followed && STOCK_INCLUDES.contains(&file.as_str()) && stock.is_file() {
                let _ = writeln!(self.out, "{indent}include {};", stock.display());
            }
            return Ok(());
        }
        if DROPPED.contains(&name.as_str())
            || name == "worker_processes" && self.over.worker_processes.is_some()
        {
            return Ok(());
        }
        if PASSES.contains(&name.as_str()) {
            return Err(format!(
                "{}: `{name} {}` sends requests outside the stack; lemplint bench keeps all traffic on loopback and measures nginx with PHP-FPM only",
                self.where_(occ),
                view.args(occ).join(" ")
            ));
        }
        let d = view.directive(occ);
        let mut args = self.raw_args(occ);
        match name.as_str() {
            "server" if d.block().is_some() && self.is_tls_server(occ) => {
                self.notes.push(format!(
                    "{}: a TLS server, left out (its certificates are the server's)",
                    self.where_(occ)
                ));
                return Ok(());
            }
            "server" if d.block().is_some() && self.host.is_none() && self.first_port.is_none() => {
                self.host = self
                    .inst
                    .expanded
                    .children_named(occ, "server_name")
                    .first()
                    .and_then(|&s| {
                        view.args(s).into_iter().find(|n| {
                            !n.contains('*') && !n.starts_with('~') && *n != "_" && !n.is_empty()
                        })
                    })
                    .map(|n| n.into_owned());
            }
            "listen" => {
                args = self.listen(occ, &args)?;
            }
            "root" | "alias" => {
                let www = self.www.display().to_string();
                args = vec![if name == "alias" {
                    format!("{www}/")
                } else {
                    www
                }];
            }
            "fastcgi_pass" => {
                args = vec![self.fastcgi_target(occ)?];
            }
            "upstream" => {
                // Only groups of PHP-FPM pools can be copied; a proxy upstream is refused
                // where a `*_pass` uses it.
                let servers = self.inst.expanded.children_named(occ, "server");
                if servers.iter().any(|&s| self.pool_for_server(s).is_none()) {
                    return Ok(());
                }
            }
            "load_module" => {
                let path = view.arg(occ, 0).unwrap_or_default();
                if !Path::new(path.as_ref()).is_file() {
                    self.notes.push(format!(
                        "{}: load_module {path}: not on this machine, left out",
                        self.where_(occ)
                    ));
                    return Ok(());
                }
            }
            _ => {}
        }
        if name == "server" && self.inst.expanded.get(occ).parent != NO_PARENT {
            // `server` inside an upstream: the pool's socket.
            let parent = self.inst.expanded.get(occ).parent;
            if view.name(parent) == "upstream" {
                if let Some(sock) = self.pool_for_server(occ) {
                    let rest: Vec<String> = args.iter().skip(1).cloned().collect();
                    args = std::iter::once(sock).chain(rest).collect();
                }
            }
        }
        let _ = write!(self.out, "{indent}{name}");
        for a in &args {
            let _ = write!(self.out, " {a}");
        }
        match d.block() {
            None => self.out.push_str(";\n"),
            Some(b) if b.kind == BlockKind::Directives => {
                self.out.push_str(" {\n");
                if name == "http" {
                    let dir = self.dir.clone();
                    let _ = writeln!(
                        self.out,
                        "{indent}    access_log off;\n{indent}    error_log {} notice;",
                        dir.join("error.log").display()
                    );
                    for (k, sub) in [
                        ("client_body_temp_path", "body"),
                        ("proxy_temp_path", "proxy"),
                        ("fastcgi_temp_path", "fastcgi"),
                        ("uwsgi_temp_path", "uwsgi"),
                        ("scgi_temp_path", "scgi"),
                    ] {
                        let _ = writeln!(
                            self.out,
                            "{indent}    {k} {};",
                            dir.join("tmp").join(sub).display()
                        );
                    }
                }
                if let (true, Some(t)) = (name == "http", &self.over.tls) {
                    let _ = writeln!(
                        self.out,
                        "{indent}    server {{\n{indent}        listen 127.0.0.1:{} ssl;\n{indent}        ssl_certificate {};\n{indent}        ssl_certificate_key {};\n{indent}        ssl_protocols {};\n{indent}        ssl_ciphers '{}';\n{indent}        ssl_prefer_server_ciphers on;\n{indent}        ssl_session_cache off;\n{indent}        ssl_session_tickets off;{}\n{indent}        return 200 \"ok\\n\";\n{indent}    }}",
                        t.port,
                        t.cert.display(),
                        t.key.display(),
                        t.protocols,
                        t.ciphers,
                        t.dhparam
                            .as_ref()
                            .map(|d| format!("\n{indent}        ssl_dhparam {};", d.display()))
                            .unwrap_or_default()
                    );
                }
                let children: Vec<OccId> = self.inst.expanded.children(occ).collect();
                for c in children {
                    self.directive(c, depth + 1)?;
                }
                if name == "http" {
                    self.master_upstreams(&indent);
                }
                let _ = writeln!(self.out, "{indent}}}");
            }
            Some(b) => {
                // A word list or a Lua body: as written.
                let o = self.inst.expanded.get(occ);
                let f = self.inst.config.file(o.file);
                let src = &f.source.text;
                let end = b.close().map_or(src.len(), |c| c.start as usize);
                let body = String::from_utf8_lossy(&src[b.open().end as usize..end]);
                let _ = writeln!(self.out, " {{{body}}}");
            }
        }
        Ok(())
    }

    fn is_tls_server(&self, server: OccId) -> bool {
        let view = self.inst.view();
        self.inst
            .expanded
            .children_named(server, "listen")
            .iter()
            .any(|&l| {
                view.args(l)
                    .iter()
                    .skip(1)
                    .any(|a| a == "ssl" || a == "quic")
            })
            || self
                .inst
                .expanded
                .children_named(server, "ssl")
                .iter()
                .any(|&s| view.arg(s, 0).as_deref() == Some("on"))
    }

    /// `listen ADDR params` → `listen 127.0.0.1:PORT` with the queue's parameters.
    fn listen(&mut self, occ: OccId, args: &[String]) -> Result<Vec<String>, String> {
        let Some(addr) = args.first() else {
            return Ok(args.to_vec());
        };
        if addr.starts_with("unix:") {
            return Err(format!(
                "{}: listen {addr}: a unix-socket server cannot be measured over TCP",
                self.where_(occ)
            ));
        }
        let port = match self.port_of.get(addr) {
            Some(p) => *p,
            None => {
                let p = (self.ports)()?;
                self.port_of.insert(addr.clone(), p);
                p
            }
        };
        if self.first_port.is_none() {
            self.first_port = Some(port);
        }
        let keep = |a: &&String| {
            [
                "backlog=",
                "rcvbuf=",
                "sndbuf=",
                "deferred",
                "reuseport",
                "default_server",
                "default",
                "bind",
                "fastopen=",
                "so_keepalive=",
            ]
            .iter()
            .any(|k| a.starts_with(k))
        };
        let backlog = self.over.nginx_backlog.map(|n| format!("backlog={n}"));
        let replaced = backlog.is_some();
        Ok(std::iter::once(format!("127.0.0.1:{port}"))
            .chain(
                args.iter()
                    .skip(1)
                    .filter(keep)
                    .filter(|a| !replaced || !a.starts_with("backlog="))
                    .cloned(),
            )
            .chain(backlog)
            .collect())
    }

    /// The private socket of the pool a `fastcgi_pass` reaches, or a refusal.
    fn fastcgi_target(&mut self, occ: OccId) -> Result<String, String> {
        let view = self.inst.view();
        let value = view.arg(occ, 0).unwrap_or_default().into_owned();
        let links: &'a [PoolLink<'a>] = self.links;
        let link = links
            .iter()
            .find(|l| std::ptr::eq(l.pass.instance(), self.inst) && l.pass.occ() == occ);
        if let Some(link) = link {
            return self.copy_pool(link.cfg, link.pool);
        }
        // An upstream of pools, copied under its own name.
        let upstream_ok = self.inst.expanded.named("upstream").any(|u| {
            view.arg(u, 0).as_deref() == Some(value.as_str())
                && self
                    .inst
                    .expanded
                    .children_named(u, "server")
                    .iter()
                    .all(|&s| self.pool_for_server(s).is_some())
        });
        if upstream_ok {
            return Ok(value);
        }
        Err(format!(
            "{}: fastcgi_pass {value} reaches no PHP-FPM pool of this stack; lemplint bench keeps all traffic on loopback",
            self.where_(occ)
        ))
    }

    /// For a `server` line of an upstream: the private socket of the pool it names.
    fn pool_for_server(&mut self, server: OccId) -> Option<String> {
        let view = self.inst.view();
        let value = view.arg(server, 0)?.into_owned();
        let addr = crate::stack::net::Addr::parse(&value, 80)?;
        let links: &'a [PoolLink<'a>] = self.links;
        let stack_pools: Vec<(
            &'a crate::stack::fpm::FpmConfig,
            &'a crate::stack::fpm::Pool,
        )> = links.iter().map(|l| (l.cfg, l.pool)).collect();
        let hit = stack_pools.into_iter().find(|(c, p)| {
            crate::analysis::stack_links::pool_listen(c, p)
                .is_some_and(|(_, l)| crate::analysis::stack_links::reaches(&addr, &l))
        })?;
        self.copy_pool(hit.0, hit.1).ok()
    }

    /// The pool's private address(es), as nginx's `fastcgi_pass` names them.
    fn copy_pool(
        &mut self,
        cfg: &'a crate::stack::fpm::FpmConfig,
        pool: &'a crate::stack::fpm::Pool,
    ) -> Result<String, String> {
        if let Some(p) = self
            .pools
            .iter()
            .find(|p| std::ptr::eq(p.cfg, cfg) && std::ptr::eq(p.pool, pool))
        {
            return Ok(p.target.clone());
        }
        let i = self.pools.len();
        let safe: String = pool
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let masters = self.over.fpm_masters.max(1);
        let mut addrs = Vec::with_capacity(masters);
        for k in 0..masters {
            addrs.push(if self.over.fastcgi_tcp {
                PoolAddr::Tcp((self.ports)()?)
            } else {
                PoolAddr::Unix(self.dir.join(format!("fpm-{i}-{safe}-{k}.sock")))
            });
        }
        let target = if masters == 1 {
            addrs[0].target()
        } else {
            format!("lemplint_pool_{i}")
        };
        self.pools.push(CopiedPool {
            name: pool.name.clone(),
            addrs,
            target: target.clone(),
            cfg,
            pool,
        });
        Ok(target)
    }

    /// With several masters: an upstream per pool over the masters' sockets.
    fn master_upstreams(&mut self, indent: &str) {
        for p in &self.pools {
            if p.addrs.len() < 2 {
                continue;
            }
            let _ = writeln!(self.out, "{indent}    upstream {} {{", p.target);
            for a in &p.addrs {
                let _ = writeln!(self.out, "{indent}        server {};", a.target());
            }
            let _ = writeln!(self.out, "{indent}    }}");
        }
    }
}

/// Pool settings that are the server's own, not its tuning: left out of the copy.
fn dropped_pool_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    matches!(
        k.as_str(),
        "user"
            | "group"
            | "listen"
            | "listen.owner"
            | "listen.group"
            | "listen.mode"
            | "listen.acl_users"
            | "listen.acl_groups"
            | "listen.allowed_clients"
            | "chroot"
            | "chdir"
            | "access.log"
            | "access.format"
            | "slowlog"
            | "request_slowlog_timeout"
            | "request_slowlog_trace_depth"
            | "prefix"
            | "include"
            | "pm.status_path"
            | "pm.status_listen"
            | "ping.path"
            | "ping.response"
            | "security.limit_extensions"
    ) || k.starts_with("env[")
        || k.contains("[error_log]")
        || k.contains("[session.save_path]")
        || k.contains("[open_basedir]")
        || k.contains("[sendmail_path]")
        || k.contains("[upload_tmp_dir]")
}

/// Process-manager counts a master's share of when the workers are split across masters.
const SPLIT: &[&str] = &[
    "pm.max_children",
    "pm.start_servers",
    "pm.min_spare_servers",
    "pm.max_spare_servers",
];

/// Master `k`'s configuration: every pool, on that master's address.
fn fpm_config(
    dir: &Path,
    pools: &[CopiedPool],
    over: &Overrides,
    k: usize,
    notes: &mut Vec<String>,
) -> String {
    let masters = over.fpm_masters.max(1);
    let mut out = format!(
        "; lemplint bench: the stack's pools on sockets in the prefix (master {} of {masters})\n[global]\npid = {}\nerror_log = {}\ndaemonize = no\n",
        k + 1,
        dir.join(format!("php-fpm-{k}.pid")).display(),
        dir.join("php-fpm.log").display()
    );
    for p in pools {
        let (cfg, pool) = (p.cfg, p.pool);
        match &p.addrs[k] {
            PoolAddr::Unix(path) => {
                let _ = write!(
                    out,
                    "\n[{}]\nlisten = {}\nlisten.mode = 0666\n",
                    p.name,
                    path.display()
                );
            }
            PoolAddr::Tcp(port) => {
                let _ = write!(out, "\n[{}]\nlisten = 127.0.0.1:{port}\n", p.name);
            }
        }
        if let Some(n) = over.fpm_backlog {
            let _ = writeln!(out, "listen.backlog = {n}");
        }
        let mut keys: Vec<&String> = pool.settings.keys().collect();
        keys.sort();
        for key in keys {
            if dropped_pool_key(key) || key == "listen.backlog" && over.fpm_backlog.is_some() {
                continue;
            }
            let Some((_, value)) = cfg.get(pool, key) else {
                continue;
            };
            if value.contains("${") {
                notes.push(format!(
                    "[{}] {key} = {value}: an environment variable, left out",
                    p.name
                ));
                continue;
            }
            // As the file spells the key (`pm.max_children`, `php_value[memory_limit]`).
            let at = *pool.settings[key]
                .last()
                .expect("a listed key has a setting");
            let written = cfg.entry(at).map_or_else(
                || key.clone(),
                |e| String::from_utf8_lossy(&cfg.source(at).text[e.key.range()]).into_owned(),
            );
            let value = match value.trim().parse::<u64>() {
                Ok(n) if masters > 1 && SPLIT.contains(&key.as_str()) => {
                    n.div_ceil(masters as u64).max(1).to_string()
                }
                _ => value,
            };
            let _ = writeln!(out, "{written} = {}", quote_ini(&value));
        }
    }
    out
}

/// A value for php-fpm's INI reader: quoted when it holds what the reader would take apart.
fn quote_ini(v: &str) -> String {
    if v.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"._/-:".contains(&b))
    {
        v.to_string()
    } else {
        format!("\"{}\"", v.replace('"', "\\\""))
    }
}
