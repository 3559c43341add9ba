//! A private copy of a stack, runnable on loopback without touching the running services.
//!
//! Only what [`super::allowlist`] keeps is written (everything else is named in
//! [`Private::dropped`]); `include`s inside `types`/`map`/`geo` bodies are dropped,
//! `fastcgi_param PHP_VALUE`/`PHP_ADMIN_VALUE` too, and cache paths moved into the prefix.
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
//! and the PHP values the allowlist keeps, listening on sockets in the prefix, logging there,
//! with `clear_env` and `.php` scripts only.

use super::allowlist::{self, Verdict};
use crate::analysis::pass_target::PASSES;
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
    pub fn ready(&self, net: &super::netns::Net) -> bool {
        match self {
            PoolAddr::Unix(p) => p.exists(),
            PoolAddr::Tcp(port) => net
                .connect(
                    ([127, 0, 0, 1], *port).into(),
                    std::time::Duration::from_secs(2),
                )
                .is_ok(),
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
    /// Directives and settings the allowlist dropped, as `file:line: name` (escaped).
    pub dropped: Vec<String>,
    /// For each line of the copy's nginx.conf, where the directive on it came from
    /// (`file:line`, escaped), to name the source of a message nginx gives about the copy.
    pub origin: Vec<Option<String>>,
}

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
        dropped: Vec::new(),
        origin: Vec::new(),
        cache_paths: 0,
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
    let mut dropped = std::mem::take(&mut w.dropped);
    let mut origin = std::mem::take(&mut w.origin);
    origin.resize(w.out.lines().count() + 1, None);
    let pools = std::mem::take(&mut w.pools);
    let masters = over.fpm_masters.max(1);
    let mut fpm_conf = Vec::new();
    if !pools.is_empty() {
        for k in 0..masters {
            let conf = dir.join(format!("php-fpm-{k}.conf"));
            let text = fpm_config(dir, &pools, over, k, &mut notes, &mut dropped);
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
        dropped: if masters > 1 { dedup(dropped) } else { dropped },
        origin,
    })
}

/// The list without repeats, first occurrence first (each master's configuration names the
/// same dropped pool settings).
fn dedup(v: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    v.into_iter().filter(|x| seen.insert(x.clone())).collect()
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
    dropped: Vec<String>,
    origin: Vec<Option<String>>,
    /// `*_cache_path` directives rewritten so far (each gets its own directory).
    cache_paths: usize,
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
        format!(
            "{}:{}",
            crate::escape::path(&file.path),
            file.line_col(span.start).line
        )
    }

    /// Names a directive the allowlist left out.
    fn drop(&mut self, occ: OccId, what: &str) {
        let line = format!("{}: {}", self.where_(occ), shown(what));
        self.dropped.push(line);
    }

    /// Records that the next line written comes from `occ`.
    fn mark(&mut self, occ: OccId) {
        let n = self.out.matches('\n').count();
        self.origin.resize(n, None);
        self.origin.push(Some(self.where_(occ)));
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
        // FastCGI is the PHP-FPM the bench runs; every other `*_pass` leaves the stack.
        if PASSES.contains(&name.as_str()) && name != "fastcgi_pass" {
            return Err(format!(
                "{}: `{name} {}` sends requests outside the stack; lemplint bench keeps all traffic on loopback and measures nginx with PHP-FPM only",
                self.where_(occ),
                crate::escape::line(&view.args(occ).join(" "))
            ));
        }
        let d = view.directive(occ);
        // A Lua body is never copied, whatever its directive is called.
        let lua = d.block().is_some_and(|b| b.kind == BlockKind::Lua);
        match allowlist::nginx(&name) {
            Verdict::Keep if !lua => {}
            Verdict::Prefix => return Ok(()),
            Verdict::Keep | Verdict::Drop => {
                self.drop(occ, &name);
                return Ok(());
            }
        }
        if name == "worker_processes" && self.over.worker_processes.is_some() {
            return Ok(());
        }
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
            "fastcgi_cache_path" | "proxy_cache_path" => {
                args = self.cache_path(&args)?;
            }
            "fastcgi_param" => {
                let param = view.arg(occ, 0).unwrap_or_default();
                if allowlist::dropped_fastcgi_param(&param) {
                    let what = format!("fastcgi_param {param}");
                    self.drop(occ, &what);
                    return Ok(());
                }
                // The script PHP-FPM runs is the generated site's, never a path the files
                // name (which could be one of the tree's own PHP files).
                let value = view.arg(occ, 1).unwrap_or_default();
                if param.eq_ignore_ascii_case("SCRIPT_FILENAME") && !value.starts_with('$') {
                    let what = format!("fastcgi_param SCRIPT_FILENAME {value}");
                    self.drop(occ, &what);
                    args = vec![
                        "SCRIPT_FILENAME".into(),
                        "$document_root$fastcgi_script_name".into(),
                    ];
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
        self.mark(occ);
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
            Some(b) if b.kind == BlockKind::WordList => {
                self.out.push_str(" {\n");
                self.word_list(occ, &indent);
                let _ = writeln!(self.out, "{indent}}}");
            }
            Some(_) => unreachable!("Lua blocks are dropped above"),
        }
        Ok(())
    }

    /// The entries of a `types`, `map`, `geo` or `split_clients` body, as written, less
    /// their `include`s (which would read a file from anywhere, and nginx quotes a bad line
    /// of it in its error) and any nested block.
    fn word_list(&mut self, occ: OccId, indent: &str) {
        let o = self.inst.expanded.get(occ);
        let f = self.inst.config.file(o.file);
        let tree = &f.parsed.tree;
        let src = &f.source.text;
        for id in tree.children(o.node) {
            let Some(d) = tree.statement(id) else {
                continue;
            };
            let word = |w: &crate::syntax::nginx::Word| {
                String::from_utf8_lossy(&src[w.raw().range()]).into_owned()
            };
            let name = word(&tree.name(d));
            if name == "include" || d.block().is_some() {
                let line = f.source.line_col(tree.node(id).span.start).line;
                self.dropped.push(format!(
                    "{}:{line}: {} (in `{}`)",
                    crate::escape::path(&f.source.path),
                    shown(&name),
                    self.inst.view().name(occ)
                ));
                continue;
            }
            let _ = write!(self.out, "{indent}    {name}");
            for a in tree.args(d) {
                let _ = write!(self.out, " {}", word(a));
            }
            self.out.push_str(";\n");
        }
    }

    /// `fastcgi_cache_path PATH params` → a directory of the prefix, with the parameters
    /// that size the cache (not the loader's or manager's, which only pace its upkeep).
    fn cache_path(&mut self, args: &[String]) -> Result<Vec<String>, String> {
        self.cache_paths += 1;
        let path = self.dir.join(format!("cache/{}", self.cache_paths));
        std::fs::create_dir_all(&path).map_err(|e| e.to_string())?;
        let keep = |a: &&String| {
            [
                "levels=",
                "keys_zone=",
                "inactive=",
                "max_size=",
                "min_free=",
            ]
            .iter()
            .any(|k| a.starts_with(k))
        };
        Ok(std::iter::once(path.display().to_string())
            .chain(args.iter().skip(1).filter(keep).cloned())
            .chain(["use_temp_path=off".to_string()])
            .collect())
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
    dropped: &mut Vec<String>,
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
                    section(&p.name),
                    path.display()
                );
            }
            PoolAddr::Tcp(port) => {
                let _ = write!(out, "\n[{}]\nlisten = 127.0.0.1:{port}\n", section(&p.name));
            }
        }
        // The workers see no environment of lemplint's, and run only `.php` scripts.
        out.push_str("clear_env = yes\nsecurity.limit_extensions = .php\n");
        if let Some(n) = over.fpm_backlog {
            let _ = writeln!(out, "listen.backlog = {n}");
        }
        // Each key once, in key order, with its last occurrence (the one php-fpm uses).
        for group in pool.settings.chunk_by(|a, b| a.0 == b.0) {
            let Some(&(ref key, at)) = group.last() else {
                continue;
            };
            let key: &str = key;
            if key == "listen.backlog" && over.fpm_backlog.is_some() {
                continue;
            }
            // As the file spells the key (`pm.max_children`, `php_value[memory_limit]`).
            let written = cfg.entry(at).map_or_else(
                || key.to_string(),
                |e| String::from_utf8_lossy(&cfg.source(at).text[e.key.range()]).into_owned(),
            );
            let where_ = format!(
                "{}:{}",
                crate::escape::path(&cfg.source(at).path),
                at.line + 1
            );
            match allowlist::pool(key) {
                Verdict::Keep => {}
                Verdict::Prefix => continue,
                Verdict::Drop => {
                    dropped.push(format!(
                        "{where_}: {} (pool {})",
                        shown(&written),
                        shown(&p.name)
                    ));
                    continue;
                }
            }
            let Some(value) = setting_value(cfg, pool, at) else {
                continue;
            };
            if value.contains("${") {
                notes.push(format!(
                    "{where_}: [{}] {}: an environment variable, left out",
                    shown(&p.name),
                    shown(&written)
                ));
                continue;
            }
            let value = match value.trim().parse::<u64>() {
                Ok(n) if masters > 1 && SPLIT.contains(&key) => {
                    n.div_ceil(masters as u64).max(1).to_string()
                }
                _ => value,
            };
            // The key as the allowlist read it (`php_value[memory_limit]`).
            let key = match allowlist::php_setting(key) {
                Some(setting) => {
                    let head = key.split('[').next().unwrap_or_default();
                    format!("{}[{}]", head.to_ascii_lowercase(), setting.trim())
                }
                None => key.to_string(),
            };
            let _ = writeln!(out, "{key} = {}", quote_ini(&value));
        }
    }
    out
}

/// A pool's name as a section header: nothing that could end the header or the line.
fn section(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A pool setting's value as php-fpm reads it (`$pool` substituted; `${VAR}` as written).
fn setting_value(
    cfg: &crate::stack::fpm::FpmConfig,
    pool: &crate::stack::fpm::Pool,
    at: crate::stack::fpm::Setting,
) -> Option<String> {
    let e = cfg.entry(at)?;
    let raw = e.value_text(&cfg.source(at).text, &|name| Some(format!("${{{name}}}")));
    let value = crate::syntax::fpm::expand_pool(&raw, pool.name.as_bytes());
    Some(String::from_utf8_lossy(&value).into_owned())
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

/// A name from the files, for the report: escaped, and cut short (a name can be any size).
fn shown(s: &str) -> String {
    let cut: String = s.chars().take(80).collect();
    let more = if cut.len() < s.len() { "…" } else { "" };
    format!("{}{more}", crate::escape::line(&cut))
}
