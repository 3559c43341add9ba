//! Finding the stacks in what the user pointed at.
//!
//! Operators lay a server out the way the distribution does (`etc/nginx/nginx.conf`,
//! `etc/php/8.2/fpm/pool.d/www.conf`, `etc/sysctl.d/*.conf`), and infrastructure repositories
//! mirror that per host (`hosts/web1/etc/...`). So files are classified by their names and
//! directories, and grouped by their server root: the directory holding `etc/`, or else the
//! directory the user gave. Each root is one stack.

use super::fs::Fs;
use super::paths::detect_root;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    Nginx,
    FpmMaster,
    FpmPool,
    Sysctl,
    /// php.ini, or a `*.ini` of PHP's scan directory (`conf.d/`, `php.d/`).
    PhpIni,
}

/// The files of one stack, by kind, in sorted order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackFiles {
    /// The server root (`/` for the live system).
    pub root: PathBuf,
    pub nginx: Vec<PathBuf>,
    pub fpm_masters: Vec<PathBuf>,
    pub fpm_pools: Vec<PathBuf>,
    pub sysctl: Vec<PathBuf>,
    pub php_ini: Vec<PathBuf>,
    /// Files the user named: always checked, whatever their content looks like.
    pub explicit: Vec<PathBuf>,
    /// Why discovery took each file for what it is (its name, its directory, its content),
    /// for `lemplint stack`. Files read through an include are what their includer is.
    pub why: crate::fxhash::FxHashMap<PathBuf, String>,
    /// The deployment's own scripts in the tree walked (Dockerfiles, entrypoints, shell
    /// installers, Ansible tasks, compose files): a file they create is supplied at
    /// deployment, not missing (see `Stack::build`).
    pub deploy_scripts: Vec<PathBuf>,
}

impl StackFiles {
    pub fn is_empty(&self) -> bool {
        self.nginx.is_empty()
            && self.fpm_masters.is_empty()
            && self.fpm_pools.is_empty()
            && self.sysctl.is_empty()
            && self.php_ini.is_empty()
    }

    pub fn push(&mut self, kind: FileKind, path: PathBuf) {
        match kind {
            FileKind::Nginx => self.nginx.push(path),
            FileKind::FpmMaster => self.fpm_masters.push(path),
            FileKind::FpmPool => self.fpm_pools.push(path),
            FileKind::Sysctl => self.sysctl.push(path),
            FileKind::PhpIni => self.php_ini.push(path),
        }
    }

    /// Whether `path` is one of this stack's files.
    pub fn contains(&self, path: &Path) -> bool {
        [
            &self.nginx,
            &self.fpm_masters,
            &self.fpm_pools,
            &self.sysctl,
            &self.php_ini,
        ]
        .iter()
        .any(|list| list.iter().any(|p| p == path))
    }
}

/// Directories never worth descending into: version control, dependencies, build output and
/// tool caches. Other hidden directories are searched (`.docker/`, `.examples/`,
/// `.devcontainer/` hold real configuration).
const SKIP_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    "_darcs",
    "target",
    "node_modules",
    "vendor",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".cache",
    ".idea",
    ".vscode",
    ".npm",
    ".yarn",
    ".terraform",
    ".pytest_cache",
    ".mypy_cache",
];

/// Directories of other programs, whose files are never ours, whatever they are named
/// (`supervisor/conf.d/php-fpm.conf` runs php-fpm; it is not its configuration).
const OTHER_PROGRAMS: &[&str] = &[
    "apache2",
    "httpd",
    "lighttpd",
    "caddy",
    "haproxy",
    "traefik",
    "varnish",
    "supervisor",
    "supervisord",
    "supervisor.d",
    "systemd",
    "fail2ban",
    "dovecot",
    "postfix",
    "rspamd",
    "sogo",
    "unbound",
    "zabbix",
    "zabbix_agentd.d",
    "zabbix_agentd.conf.d",
    "fluent-bit",
    "td-agent",
    "logrotate.d",
    // FreeBSD's log rotator: `newsyslog.conf.d/nginx.conf` rotates nginx's logs.
    "newsyslog",
    "cron.d",
    "yum",
    "yum.repos.d",
    "redis",
    "mysql",
    "mariadb",
    "postgresql",
    "clamav",
    "monit",
    "monit.d",
    "glances",
    "kubernetes",
    "prometheus",
    "grafana",
];

/// Whether a directory or file name is another program's: one of [`OTHER_PROGRAMS`], or one
/// with a suffix after `-`, `_` or `.` (`postfix-tlspol`, `syslog-ng.conf`,
/// `haproxy_frontend.cfg`), unless it also names nginx or PHP (`supervisor-nginx.conf` is
/// still left to its content below).
fn is_other_program(name: &str) -> bool {
    if name.contains("nginx") || name.contains("php") || name.contains("openresty") {
        return false;
    }
    OTHER_PROGRAMS.iter().chain(OTHER_PROGRAM_FILES).any(|p| {
        name.strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '_', '.']))
    })
}

/// Programs that keep one file per program they manage, named for it (`nginx.conf`).
const MANAGERS: &[&str] = &[
    "supervisor",
    "supervisord",
    "supervisor.d",
    "monit",
    "monit.d",
    "logrotate.d",
    "newsyslog",
    "newsyslog.conf.d",
    "cron.d",
    "fail2ban",
    "systemd",
];

/// Programs whose configuration is found by its file name more than its directory
/// (`syslog-ng.conf` next to a Dockerfile).
const OTHER_PROGRAM_FILES: &[&str] = &[
    "syslog-ng",
    "rsyslog",
    "logstash",
    "filebeat",
    "telegraf",
    "collectd",
    "squid",
    "stunnel",
    "openvpn",
    "wireguard",
    "sshd_config",
    "ssh_config",
    "smb",
    "exim",
];

/// Editor and package-manager leftovers that nginx globs would also skip in practice.
fn is_backup(name: &str) -> bool {
    name.ends_with('~')
        || name.starts_with('.')
        || [
            ".bak",
            ".orig",
            ".swp",
            ".dpkg-old",
            ".dpkg-dist",
            ".dpkg-new",
            ".rpmnew",
            ".rpmsave",
            ".disabled",
        ]
        .iter()
        .any(|s| name.ends_with(s))
}

/// Templates of configuration, rendered at deployment (Jinja2, Go templates, ERB, envsubst,
/// envplate…): read as the file they render (`nginx.conf.j2` as `nginx.conf`), with their
/// placeholders as holes (see [`crate::syntax::template`]).
const TEMPLATE_EXTENSIONS: &[&str] = &[
    "j2", "jinja", "jinja2", "tmpl", "tpl", "template", "erb", "mustache", "hbs", "twig", "ejs",
    "liquid", "gotmpl", "ep",
];

/// Not configuration until a build renders them (`configure`'s `.in`), or an example a
/// package ships beside the real file (`.dist`): never ours.
const NOT_YET_EXTENSIONS: &[&str] = &["in", "dist"];

/// The name a template renders to (`default.conf.template` → `default.conf`).
pub fn template_stem(name: &str) -> Option<&str> {
    let (stem, ext) = name.rsplit_once('.')?;
    (TEMPLATE_EXTENSIONS.contains(&ext) && !stem.is_empty()).then_some(stem)
}

/// Extensions that are never nginx configuration, even under an nginx directory (patches,
/// scripts, data, certificates, documentation).
const NOT_CONFIG_EXTENSIONS: &[&str] = &[
    "json", "yml", "yaml", "toml", "xml", "ini", "py", "sh", "bash", "pl", "rb", "php", "js", "ts",
    "lua", "go", "c", "h", "patch", "diff", "md", "rst", "txt", "html", "htm", "css", "crt", "key",
    "pem", "csr", "der", "p12", "gz", "tgz", "zip", "log", "sql", "png", "jpg", "svg", "ico",
    "service", "socket", "timer", "env", "lock", "csv", "pid", "sock", "db", "pp", "mjs", "cjs",
    "mts", "cts", "jsx", "tsx", "rs", "java", "kt", "cs", "swift", "ps1", "bat", "cmd", "zsh",
    "fish", "awk", "vue", "scss", "less", "map", "woff", "woff2", "ttf", "eot", "gif", "webp",
    "pdf", "tar", "xz", "bz2", "zst", "7z", "rpm", "deb", "so", "dll", "exe", "o", "a",
];

fn extension(name: &str) -> Option<&str> {
    name.rsplit_once('.')
        .map(|(_, e)| e)
        .filter(|e| !e.is_empty())
}

/// What a file is, from its path alone; `None` when the path says nothing or names another
/// program's file (the content may still decide, see [`guess`]).
pub fn classify(path: &Path) -> Option<FileKind> {
    match guess(path) {
        PathSays::Kind(g) if g.content != Content::Confirmed => Some(g.kind),
        _ => None,
    }
}

/// What the path of a file says about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSays {
    /// A kind, and how far the content must agree.
    Kind(Guess),
    /// Another program's file, a template or a leftover: never ours.
    NotOurs,
    /// Nothing: only the content can tell.
    Nothing,
}

/// A file's kind as its path suggests it, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guess {
    pub kind: FileKind,
    pub why: String,
    pub content: Content,
}

/// How much the content must confirm a path's guess.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// The path is enough (`nginx.conf`, `sites-enabled/x`, `sysctl.d/x.conf`).
    Trusted,
    /// The kind unless the content reads like nginx (`pool.d/x.conf`: demos keep vhosts in
    /// `php-fpm/`), and nginx content makes it nginx.
    UnlessNginx,
    /// Only when the content confirms it (`php-fpm.conf` in a repository's own layout, which
    /// may be a supervisor or Zabbix file about php-fpm); nginx content makes it nginx,
    /// anything else makes it none of ours.
    Confirmed,
}

/// The nearest directory of `path` that names a kind of configuration, with its name.
fn directory_kind<'p>(dirs: &[&'p str]) -> Option<(FileKind, Content, &'p str)> {
    dirs.iter().rev().find_map(|&d| {
        let (kind, content) = match d {
            "sysctl.d" | "sysctl" => (FileKind::Sysctl, Content::Trusted),
            "pool.d" | "php-fpm.d" => (FileKind::FpmPool, Content::UnlessNginx),
            "sites-enabled" | "sites-available" => (FileKind::Nginx, Content::Trusted),
            // A generic name: nginx's own snippets, or a documentation site's.
            "snippets" => (FileKind::Nginx, Content::UnlessNginx),
            "fpm" | "php" | "php-fpm" => (FileKind::FpmPool, Content::Confirmed),
            _ if d.contains("nginx") || d.contains("openresty") => {
                (FileKind::Nginx, Content::Trusted)
            }
            _ if d.contains("php-fpm") || d.contains("phpfpm") => {
                (FileKind::FpmPool, Content::Confirmed)
            }
            // `sysctl-hardening/` may hold anything a repository about the kernel holds
            // (a dnsmasq file, a php-fpm pool): only what reads like sysctl.
            _ if d.contains("sysctl") => (FileKind::Sysctl, Content::Confirmed),
            _ => return None,
        };
        Some((kind, content, d))
    })
}

/// What a file is from its path: the file name decides first (`nginx.conf`, `php-fpm*.conf`,
/// `sysctl.conf`), then the nearest directory that names a kind (`sysctl.d`, `pool.d`,
/// `php-fpm.d`, `*nginx*`, `sites-enabled`, `fpm`…): the nearest one wins, so
/// `docker-php-nginx/config/php-fpm.d/www.conf` is a pool. Names and generic directories
/// are only a guess that the content must confirm (see [`Content`]); another program's
/// directory, a template or a leftover is never ours.
pub fn guess(path: &Path) -> PathSays {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy()) else {
        return PathSays::Nothing;
    };
    if let Some(stem) = template_stem(&name) {
        return guess(&path.with_file_name(stem));
    }
    if is_backup(&name) || extension(&name).is_some_and(|e| NOT_YET_EXTENSIONS.contains(&e)) {
        return PathSays::NotOurs;
    }
    let sure = |kind, why: String| {
        PathSays::Kind(Guess {
            kind,
            why,
            content: Content::Trusted,
        })
    };
    // `devilbox-fpm.conf-default`: a `.conf` with a variant suffix.
    let conf = name.ends_with(".conf") || name.contains(".conf-");
    if name == "nginx.conf" || name.ends_with(".nginx") || name.ends_with(".vhost") {
        // A process manager's or log rotator's file for nginx (`supervisor.d/nginx.conf`,
        // `logrotate.d/nginx.conf`) is named for the program it manages.
        let managed = path.parent().is_some_and(|p| {
            p.iter().rev().find_map(|c| {
                let d = c.to_str()?;
                if directory_kind(&[d]).is_some() {
                    Some(false)
                } else {
                    MANAGERS.contains(&d).then_some(true)
                }
            }) == Some(true)
        });
        if managed {
            return PathSays::NotOurs;
        }
        return sure(FileKind::Nginx, format!("named {name}"));
    }
    if name == "sysctl.conf" {
        return sure(FileKind::Sysctl, "named sysctl.conf".into());
    }
    let Some(parent) = path.parent() else {
        return PathSays::Nothing;
    };
    let dirs: Vec<&str> = parent.iter().filter_map(|c| c.to_str()).collect();
    // Other servers' configuration that mentions PHP-FPM (Debian's
    // `apache2/conf-available/php8.2-fpm.conf`, supervisor's `php-fpm.conf`) is not ours.
    // The nearest directory that names a program decides: `kubernetes/nginx/conf.d/x.conf`
    // is nginx's, `nginx/supervisor/php-fpm.conf` supervisor's.
    let nearest_program = dirs
        .iter()
        .rposition(|d| is_other_program(d) || directory_kind(&[d]).is_some());
    if nearest_program.is_some_and(|i| is_other_program(dirs[i])) {
        return PathSays::NotOurs;
    }
    let near = directory_kind(&dirs);
    let in_nginx_dir = near.is_some_and(|(k, _, _)| k == FileKind::Nginx);
    // In an nginx directory, `grafana.conf` or `redis.conf` is a vhost that proxies to it.
    if !in_nginx_dir && is_other_program(name.as_ref()) {
        return PathSays::NotOurs;
    }
    if let Some(g) = php_ini_guess(&name, &dirs) {
        return g;
    }
    let in_fpm_dir = near.is_some_and(|(k, _, _)| k == FileKind::FpmPool);
    let by_name = |kind: FileKind, what: &str| {
        PathSays::Kind(Guess {
            kind,
            why: if in_nginx_dir {
                format!("named like a PHP-FPM {what}, but in an nginx directory")
            } else {
                format!("named {name}")
            },
            // The name and a PHP-FPM directory agree (`etc/php/8.2/fpm/php-fpm.conf`).
            content: if in_fpm_dir {
                Content::Trusted
            } else {
                Content::Confirmed
            },
        })
    };
    if name.starts_with("php-fpm") && conf {
        return by_name(FileKind::FpmMaster, "master");
    }
    // `fpm-pool.conf`, `laravel.pool.conf`: the name says pool, if the content agrees.
    if conf
        && name.contains("pool")
        && (name.contains("fpm") || name.contains("php") || name.ends_with(".pool.conf"))
    {
        return by_name(FileKind::FpmPool, "pool");
    }
    // Outside nginx's directories, a file named for nginx (`nginx_wordpress.j2` in an
    // Ansible role's templates, `site.nginx.conf`) or for one of its stock files is nginx's
    // if its content agrees.
    let nginx_named = name.contains("nginx")
        || matches!(
            name.as_ref(),
            "fastcgi_params" | "fastcgi.conf" | "proxy_params" | "mime.types" | "uwsgi_params"
        );
    if near.is_none()
        && nginx_named
        && (conf || extension(&name).is_none())
        && !is_other_program(name.as_ref())
    {
        return PathSays::Kind(Guess {
            kind: FileKind::Nginx,
            why: format!("named {name}"),
            content: Content::Confirmed,
        });
    }
    match near {
        // Inside nginx trees every file counts (mime.types, fastcgi_params, vhosts named for
        // their domain), but scripts, patches and data kept beside them do not.
        Some((FileKind::Nginx, content, d)) => {
            if extension(&name).is_some_and(|e| NOT_CONFIG_EXTENSIONS.contains(&e)) {
                PathSays::NotOurs
            } else {
                PathSays::Kind(Guess {
                    kind: FileKind::Nginx,
                    why: format!("in {d}/"),
                    content,
                })
            }
        }
        Some((kind, content, d)) if conf => PathSays::Kind(Guess {
            kind,
            why: format!("in {d}/"),
            content,
        }),
        _ => PathSays::Nothing,
    }
}

/// Whether a directory name is PHP's (`php`, `php8.2`, `php-8.2`, `php.d`, `php-fpm`).
fn is_php_dir(d: &str) -> bool {
    d.starts_with("php") && !d.starts_with("phpmyadmin") && !d.starts_with("phpunit")
}

/// What a php.ini-looking path is: `php.ini` itself (and the distribution's
/// `php.ini-production`/`php.ini-development`), or a `*.ini` of a scan directory: in
/// `conf.d/` under a PHP directory, or in `php.d/` (RHEL), trusted; in another PHP directory
/// (`docker/php/custom.ini`) or named for PHP (`docker-php-ext-opcache.ini`), when the content
/// agrees. The CLI's and phpdbg's php.ini (`etc/php/8.2/cli/`) configure no web server: not
/// ours. `None`: not a php.ini path.
fn php_ini_guess(name: &str, dirs: &[&str]) -> Option<PathSays> {
    let is_ini = extension(name) == Some("ini");
    let named = name == "php.ini" || name.starts_with("php.ini-");
    if !is_ini && !named {
        return None;
    }
    let parent = dirs.last().copied().unwrap_or("");
    // The directory PHP reads the file from: its own, or the one above its scan directory.
    let home = match parent {
        "conf.d" => dirs.iter().rev().nth(1).copied().unwrap_or(""),
        _ => parent,
    };
    if matches!(home, "cli" | "phpdbg" | "embed") {
        return Some(PathSays::NotOurs);
    }
    let kind = |why: String, content| {
        Some(PathSays::Kind(Guess {
            kind: FileKind::PhpIni,
            why,
            content,
        }))
    };
    if named {
        return kind(format!("named {name}"), Content::Trusted);
    }
    let php_above = dirs.iter().rev().skip(1).any(|d| is_php_dir(d));
    if (parent == "conf.d" && php_above) || parent == "php.d" {
        return kind(format!("in {parent}/ of PHP"), Content::Trusted);
    }
    if is_php_dir(parent) || name.contains("php") {
        return kind(format!("{name} in {parent}/"), Content::Confirmed);
    }
    None
}

/// How much of a file [`sniff`] looks at.
pub const SNIFF_BYTES: usize = 4096;

/// What an unclassified file is, from its first bytes read through `fs` (so a link out of
/// the tree, a FIFO or `/dev/zero` is never opened here). A file that may not be read is
/// taken as nginx, so that loading it reports why.
fn sniff_file(fs: &dyn Fs, path: &Path) -> Option<(FileKind, &'static str)> {
    match fs.head(path, SNIFF_BYTES) {
        Ok(text) => sniff(&text).map(|k| (k, content_evidence(k))),
        Err(e) if super::confine::refusal(&e).is_some() => Some((FileKind::Nginx, "not read")),
        Err(_) => None,
    }
}

/// What [`sniff`] saw, in words.
fn content_evidence(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Nginx => "its content reads like nginx: `directive …;`, `{` blocks",
        FileKind::FpmMaster | FileKind::FpmPool => {
            "its content is PHP-FPM's: `[section]`, `listen`, `pm`, …"
        }
        FileKind::Sysctl => "its content is sysctl: `net.….key = value`",
        FileKind::PhpIni => "its content is php.ini: PHP's own directives (`memory_limit`, …)",
    }
}

/// A file's kind by its path, and by its content where the path is not enough or says
/// nothing (only where `sniff_unknown`: a repository's own layout, not an `etc` tree).
fn identify(fs: &dyn Fs, path: &Path, sniff_unknown: bool) -> Option<(FileKind, String)> {
    decide(path, sniff_unknown, || sniff_file(fs, path))
}

/// The kind of one file named on its own (`lemplint parse FILE`), from its path and its
/// first bytes, decided as [`discover`] decides it for a file named on the command line;
/// `None` when neither says anything.
pub fn identify_text(path: &Path, head: &[u8]) -> Option<FileKind> {
    decide(path, true, || sniff(head).map(|k| (k, content_evidence(k)))).map(|(k, _)| k)
}

/// [`identify`], with the content read (by `sniff_file`) only when the path leaves it open.
fn decide(
    path: &Path,
    sniff_unknown: bool,
    sniff_file: impl FnOnce() -> Option<(FileKind, &'static str)>,
) -> Option<(FileKind, String)> {
    let is_fpm = |k: FileKind| matches!(k, FileKind::FpmMaster | FileKind::FpmPool);
    match guess(path) {
        PathSays::Kind(g) => match g.content {
            Content::Trusted => Some((g.kind, g.why)),
            Content::UnlessNginx => Some(match sniff_file() {
                Some((FileKind::Nginx, why)) if g.kind != FileKind::Nginx => {
                    (FileKind::Nginx, format!("{}, but {why}", g.why))
                }
                // A generic directory (`snippets/`) whose file does not read like nginx.
                Some((k, _)) if g.kind == FileKind::Nginx && k != FileKind::Nginx => return None,
                None if g.kind == FileKind::Nginx => return None,
                _ => (g.kind, g.why),
            }),
            Content::Confirmed => match sniff_file() {
                Some((k, why)) if (is_fpm(k) && is_fpm(g.kind)) || k == g.kind => {
                    Some((g.kind, format!("{}; {why}", g.why)))
                }
                Some((FileKind::Nginx, why)) => {
                    Some((FileKind::Nginx, format!("{}, but {why}", g.why)))
                }
                _ => None,
            },
        },
        PathSays::NotOurs => None,
        PathSays::Nothing if sniff_unknown => sniff_file().map(|(k, why)| (k, why.to_string())),
        PathSays::Nothing => None,
    }
}

/// PHP-FPM directives that no other program's INI files use (`user`, `group`, `include`,
/// `pid`, `error_log` and the like are everywhere).
fn is_fpm_key(key: &str) -> bool {
    const COMMON: &[&str] = &[
        "user",
        "group",
        "include",
        "chdir",
        "prefix",
        "error_log",
        "log_level",
        "pid",
        "daemonize",
        "syslog.facility",
        "syslog.ident",
        "rlimit_files",
        "rlimit_core",
    ];
    let base = key.split('[').next().unwrap_or(key);
    if key.contains('[') {
        return crate::syntax::fpm::ARRAY_DIRECTIVES.contains(&base);
    }
    !COMMON.contains(&base)
        && (crate::syntax::fpm::POOL_DIRECTIVES
            .iter()
            .any(|(k, _)| *k == base)
            || crate::syntax::fpm::GLOBAL_DIRECTIVES
                .iter()
                .any(|(k, _)| *k == base))
}

/// A directive of PHP's that other programs' INI files do not use (`error_log`, `user_agent`
/// and the like are everywhere), or `extension`/`zend_extension`.
fn is_php_ini_key(key: &str) -> bool {
    const COMMON: &[&str] = &[
        "error_log",
        "user_agent",
        "include_path",
        "from",
        "auto_detect_line_endings",
    ];
    // Extensions Debian's php8.2 packages do not ship (so the generated table lacks them).
    const EXTENSIONS: &[&str] = &[
        "xdebug.",
        "apc.",
        "apcu.",
        "xhprof.",
        "newrelic.",
        "blackfire.",
        "memcached.",
        "redis.",
        "igbinary.",
        "swoole.",
        "phalcon.",
        "aerospike.",
        "imagick.",
        "mongodb.",
    ];
    matches!(key, "extension" | "zend_extension")
        || EXTENSIONS.iter().any(|p| key.starts_with(p))
        || (!COMMON.contains(&key) && crate::syntax::phpini::directive(key).is_some())
}

/// The first dotted part of a key that only the kernel's sysctl tree has.
fn is_sysctl_key(key: &str) -> bool {
    let key = key.trim_start_matches('-');
    [
        "net.", "kernel.", "vm.", "fs.", "dev.", "abi.", "user.", "debug.", "crypto.", "sunrpc.",
    ]
    .iter()
    .any(|p| key.starts_with(p) || key.starts_with(&p.replace('.', "/")))
}

/// What a file is from its first bytes, on evidence that other programs' files do not give:
/// PHP-FPM for INI with PHP-FPM's own directives (`listen`, `pm`, `php_value[…]`, a
/// `[global]` master that includes pools); sysctl for `key = value` lines of the kernel's
/// trees; nginx for statements that end with `;`, `{` or `}` and no `key = value`
/// assignments (postgresql.conf, dovecot's and rspamd's files have those). An `nginx -T`
/// dump is nginx. `None` when the content says nothing.
pub fn sniff(text: &[u8]) -> Option<FileKind> {
    let head = &text[..text.len().min(SNIFF_BYTES)];
    if super::fs::DumpFs::looks_like_dump(head) {
        return Some(FileKind::Nginx);
    }
    let head = String::from_utf8_lossy(head);
    if head.starts_with("#!") {
        return None; // a script
    }
    let mut statements = 0usize;
    let (mut terminated, mut assignments, mut foreign) = (0usize, 0usize, 0usize);
    let (mut headers, mut global, mut fpm_keys, mut includes, mut sysctl_keys) =
        (0usize, false, 0usize, 0usize, 0usize);
    let mut php_keys = 0usize;
    for raw in head.lines().take(80) {
        let line = raw.trim();
        // A template's own tags (`{% if %}`, `{{- end }}`, `<% end %>`) say nothing.
        let tag = ["{%", "{{", "{#", "<%"].iter().any(|t| line.starts_with(t));
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') || tag {
            continue;
        }
        statements += 1;
        // A trailing comment says nothing about the statement (`x = '*'  # … ;`).
        let code = match line.find(" #").or_else(|| line.find("\t#")) {
            Some(i) => line[..i].trim_end(),
            None => line,
        };
        let header = code.split(';').next().unwrap_or(code).trim_end();
        if header.starts_with('[') && header.ends_with(']') {
            headers += 1;
            global |= header.eq_ignore_ascii_case("[global]");
            // php.ini's first section (php.ini-production opens with it).
            php_keys += usize::from(header.eq_ignore_ascii_case("[php]"));
            continue;
        }
        if code.starts_with('<') || code.starts_with('@') {
            foreign += 1; // apache's `<Directory>`, XML, syslog-ng's `@version:`
            continue;
        }
        if code.ends_with(';') || code.ends_with('{') || code.ends_with('}') {
            terminated += 1;
        }
        if let Some((k, _)) = code.split_once('=') {
            let k = k.trim();
            // `key = value`: the name alone before the `=`.
            if !k.is_empty() && !k.contains(char::is_whitespace) {
                assignments += 1;
                let k = k.to_ascii_lowercase();
                fpm_keys += usize::from(is_fpm_key(&k));
                includes += usize::from(k == "include");
                sysctl_keys += usize::from(is_sysctl_key(&k));
                php_keys += usize::from(is_php_ini_key(&k));
            }
        }
    }
    if statements == 0 {
        return None;
    }
    // Headers and PHP-FPM's own keys; or a master's `[global]` that includes; or nothing but a
    // header (`[www]` as a pool is started).
    let fpm_header = headers > 0
        && (fpm_keys > 0 || (global && includes > 0) || (statements == headers && php_keys == 0));
    let fpm_fragment = headers == 0 && fpm_keys >= 2 && fpm_keys * 2 >= assignments;
    if fpm_header || fpm_fragment {
        return Some(FileKind::FpmPool);
    }
    // PHP's own directives, most of the assignments, none of PHP-FPM's.
    // (An override file may carry a stray pool directive: `request_terminate_timeout=600`.)
    if php_keys > fpm_keys * 4 && php_keys * 2 >= assignments.max(1) {
        return Some(FileKind::PhpIni);
    }
    if headers == 0 && sysctl_keys > 0 && sysctl_keys * 10 >= assignments * 8 {
        return Some(FileKind::Sysctl);
    }
    // nginx: nearly every statement terminated, next to no `key = value`.
    let code_lines = statements - headers;
    if headers == 0
        && foreign == 0
        && terminated > 0
        && terminated * 10 >= code_lines * 6
        && assignments * 10 <= code_lines
    {
        return Some(FileKind::Nginx);
    }
    None
}

/// Where configuration lives on a live system: walking all of `/` would read `/proc`,
/// `/home` and every log, so `lemplint lint /` looks only here.
const LIVE_SYSTEM_DIRS: &[&str] = &[
    "etc",
    "usr/local/etc",
    "usr/local/nginx",
    "usr/local/openresty",
    "opt",
    "usr/local",
];

/// Walks `paths` (files or directories) and groups what it finds into stacks.
/// A file named explicitly is always taken (sniffed when its path says nothing).
/// `skip` leaves paths out (`[paths] exclude`); the paths given are always searched.
pub fn discover(paths: &[PathBuf], fs: &dyn Fs, skip: &dyn Fn(&Path) -> bool) -> Vec<StackFiles> {
    let mut by_root: BTreeMap<PathBuf, StackFiles> = BTreeMap::new();
    let mut explicit: Vec<PathBuf> = Vec::new();
    let mut scripts: Vec<PathBuf> = Vec::new();
    for given in paths {
        let mut found = Vec::new();
        if given == Path::new("/") {
            for d in LIVE_SYSTEM_DIRS
                .iter()
                .map(|d| Path::new("/").join(d))
                .filter(|d| d.is_dir())
            {
                // `usr/local` last and shallow: source builds live one or two levels down.
                let depth = if d.ends_with("usr/local") { 29 } else { 0 };
                // The live system's scripts say nothing about what it reads: not collected.
                let mut none = Vec::new();
                let mut out = Walked {
                    files: &mut found,
                    scripts: &mut none,
                };
                walk(fs, skip, &d, &mut out, depth);
            }
            found.sort();
            found.dedup();
        } else if given.is_dir() {
            // A directory that leads out of the tree (a symlink) is not listed: the one
            // entry for it makes loading report why.
            match fs.check_dir(given) {
                Ok(()) => {
                    let mut out = Walked {
                        files: &mut found,
                        scripts: &mut scripts,
                    };
                    walk(fs, skip, given, &mut out, 0);
                }
                Err(_) => found.push((given.clone(), FileKind::Nginx, "not read".into())),
            }
        } else {
            let (kind, why) = identify(fs, given, true).unwrap_or((
                FileKind::Nginx,
                "named on the command line; its path and content say nothing else".into(),
            ));
            found.push((given.clone(), kind, why));
            explicit.push(given.clone());
        }
        let given_is_dir = given.is_dir();
        // The root depends on the directories only (unless the file itself is named like
        // one): look it up once per directory, not once per vhost. The walk lists a
        // directory's files together, so the last directory's answer is the one to keep.
        let mut last: Option<(PathBuf, Option<PathBuf>)> = None;
        for (path, kind, why) in found {
            let named_like_root = path
                .file_name()
                .is_some_and(|n| n == "etc" || n == "usr" || n == "opt");
            let detected = match path.parent() {
                Some(dir) if !named_like_root => match &last {
                    Some((d, root)) if d == dir => root.clone(),
                    _ => {
                        let root = detect_root(&path);
                        last = Some((dir.to_path_buf(), root.clone()));
                        root
                    }
                },
                _ => detect_root(&path),
            };
            let root = detected.unwrap_or_else(|| {
                if given_is_dir {
                    given.clone()
                } else {
                    given.parent().map(Path::to_path_buf).unwrap_or_default()
                }
            });
            let stack = by_root.entry(root.clone()).or_insert_with(|| StackFiles {
                root,
                ..Default::default()
            });
            stack.why.insert(path.clone(), why);
            stack.push(kind, path);
        }
    }
    let mut stacks: Vec<StackFiles> = by_root.into_values().collect();
    for s in &mut stacks {
        s.explicit = explicit.iter().filter(|p| s.contains(p)).cloned().collect();
        s.deploy_scripts = scripts.clone();
    }
    for s in &mut stacks {
        for list in [
            &mut s.nginx,
            &mut s.fpm_masters,
            &mut s.fpm_pools,
            &mut s.sysctl,
            &mut s.php_ini,
        ] {
            list.sort();
            list.dedup();
        }
    }
    stacks
}

/// How deep below a directory given to lint its deployment scripts are looked for, and
/// how many are kept: a repository's Dockerfile, entrypoint and installer sit near its top.
const SCRIPT_DEPTH: usize = 4;
const MAX_SCRIPTS: usize = 200;

/// A deployment's script by its name (see [`StackFiles::deploy_scripts`]).
fn is_deploy_script(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("dockerfile")
        || lower.starts_with("containerfile")
        || lower.ends_with(".dockerfile")
        || lower.ends_with(".sh")
        || lower.contains("entrypoint")
        || lower == "makefile"
        || ((lower.ends_with(".yml") || lower.ends_with(".yaml"))
            && (lower.contains("compose") || lower.contains("task") || lower == "main.yml"))
}

/// What the walk collects besides configuration files.
struct Walked<'a> {
    files: &'a mut Vec<(PathBuf, FileKind, String)>,
    scripts: &'a mut Vec<PathBuf>,
}

/// Symlinked directories are not followed (a `sites-enabled` link to a file is), which
/// also keeps a link to `..` from looping.
fn walk(fs: &dyn Fs, skip: &dyn Fn(&Path) -> bool, dir: &Path, out: &mut Walked<'_>, depth: usize) {
    if depth > 32 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // Each name once: sorting by `file_name()` would allocate one per comparison.
    let mut entries: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| (e.file_name(), e))
        .collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (name, e) in entries {
        // `lemplint lint .` shows `etc/nginx/…`, not `./etc/nginx/…`.
        let path = if dir == Path::new(".") {
            PathBuf::from(&name)
        } else {
            e.path()
        };
        let Ok(ft) = e.file_type() else { continue };
        let name = name.to_string_lossy();
        if skip(&path) {
            continue;
        }
        if ft.is_dir() {
            if !SKIP_DIRS.contains(&name.as_ref()) {
                walk(fs, skip, &path, out, depth + 1);
            }
            continue;
        }
        if ft.is_symlink() && path.is_dir() {
            continue;
        }
        // Sniffing unknown `.conf` and `.ini` files helps in a repository's own layout (a
        // Dockerfile copies `uploads.ini` into PHP's scan directory); under an `etc`
        // tree the layout is the distribution's, and `ld.so.conf` is not nginx.
        let in_etc = path.components().any(|c| c.as_os_str() == "etc");
        // A template is judged by the name it renders to (`www.conf.j2`).
        let rendered = template_stem(&name).unwrap_or(&name);
        let sniff = (rendered.ends_with(".conf") || rendered.ends_with(".ini")) && !in_etc;
        if depth <= SCRIPT_DEPTH && out.scripts.len() < MAX_SCRIPTS && is_deploy_script(&name) {
            out.scripts.push(path.clone());
        }
        if let Some((kind, why)) = identify(fs, &path, sniff) {
            out.files.push((path, kind, why));
        } else if name.ends_with(".txt") || name.ends_with(".dump") || name.contains("nginx") {
            // An `nginx -T` dump committed to snapshot a server can have any name; the usual
            // ones are looked at, and taken only when they are one.
            let dump = fs
                .head(&path, SNIFF_BYTES)
                .is_ok_and(|h| super::fs::DumpFs::looks_like_dump(&h));
            if dump {
                out.files
                    .push((path, FileKind::Nginx, "an nginx -T dump".into()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(p: &str) -> Option<FileKind> {
        classify(Path::new(p))
    }

    #[test]
    fn classification_by_layout() {
        assert_eq!(kind("etc/nginx/nginx.conf"), Some(FileKind::Nginx));
        assert_eq!(
            kind("etc/nginx/sites-enabled/example.org"),
            Some(FileKind::Nginx)
        );
        assert_eq!(kind("etc/nginx/mime.types"), Some(FileKind::Nginx));
        assert_eq!(
            kind("etc/php/8.2/fpm/php-fpm.conf"),
            Some(FileKind::FpmMaster)
        );
        assert_eq!(
            kind("etc/php/8.2/fpm/pool.d/www.conf"),
            Some(FileKind::FpmPool)
        );
        assert_eq!(
            kind("usr/local/php/etc/php-fpm.d/www.conf"),
            Some(FileKind::FpmPool)
        );
        assert_eq!(
            kind("usr/local/php/etc/php-fpm.conf"),
            Some(FileKind::FpmMaster)
        );
        assert_eq!(kind("etc/sysctl.conf"), Some(FileKind::Sysctl));
        assert_eq!(kind("etc/sysctl.d/99-web.conf"), Some(FileKind::Sysctl));
        assert_eq!(kind("etc/nginx/sites-enabled/example.org~"), None);
        assert_eq!(kind("etc/php/8.2/fpm/php.ini"), Some(FileKind::PhpIni));
        assert_eq!(
            kind("etc/php/8.2/fpm/conf.d/10-opcache.ini"),
            Some(FileKind::PhpIni)
        );
        assert_eq!(
            kind("usr/local/etc/php/conf.d/uploads.ini"),
            Some(FileKind::PhpIni)
        );
        assert_eq!(kind("etc/php.d/20-opcache.ini"), Some(FileKind::PhpIni));
        assert_eq!(kind("php.ini-production"), Some(FileKind::PhpIni));
        // The CLI's php.ini configures no web server; another program's INI is not PHP's.
        assert_eq!(kind("etc/php/8.2/cli/php.ini"), None);
        assert_eq!(kind("etc/php/8.2/cli/conf.d/10-opcache.ini"), None);
        assert_eq!(kind("etc/supervisor/conf.d/worker.ini"), None);
        assert_eq!(kind("uwsgi/app.ini"), None);
        // In a PHP directory or named for PHP: only when the content agrees.
        assert_eq!(kind("docker/php/custom.ini"), None);
        assert_eq!(
            identify_text(Path::new("docker/php/custom.ini"), b"memory_limit = 256M\n"),
            Some(FileKind::PhpIni)
        );
        assert_eq!(
            identify_text(
                Path::new("docker/php/custom.ini"),
                b"[program:x]\ncommand = y\n"
            ),
            None
        );
        assert_eq!(kind("README.md"), None);
        // A name alone is a guess the content must confirm.
        assert_eq!(kind("config/fpm-pool.conf"), None);
        assert_eq!(kind("php-fpm/xlaravel.pool.conf"), Some(FileKind::FpmPool));
        assert_eq!(kind("etc/apache2/conf-available/php8.2-fpm.conf"), None);
        assert_eq!(kind("etc/supervisor/conf.d/php-fpm.conf"), None);
        assert_eq!(kind("conf/etc/supervisor.d/nginx.conf"), None);
        assert_eq!(kind("roles/web/nginx/files/newsyslog/nginx.conf"), None);
        assert_eq!(kind("usr/local/etc/newsyslog.conf.d/nginx.conf"), None);
        assert_eq!(kind("etc/logrotate.d/nginx.conf"), None);
        assert_eq!(kind("deploy/kubernetes/nginx.conf"), Some(FileKind::Nginx));
        assert_eq!(kind("supervisor/nginx/nginx.conf"), Some(FileKind::Nginx));
        assert_eq!(
            kind("roles/nginx/templates/nginx.conf.j2"),
            Some(FileKind::Nginx)
        );
        assert_eq!(kind("sapi/fpm/php-fpm.conf.in"), None);
        assert_eq!(kind("patches/nginx-1.25/fix.patch"), None);
        // An Ansible role's site template, named for nginx; Confirmed: the content decides.
        assert_eq!(kind("roles/wp/templates/nginx_wordpress.j2"), None);
        assert!(matches!(
            guess(Path::new("templates/nginx_wordpress.j2")),
            PathSays::Kind(Guess {
                kind: FileKind::Nginx,
                content: Content::Confirmed,
                ..
            })
        ));
        // A script that writes nginx.conf, kept beside it (seen in a public server repo).
        assert_eq!(kind("etc/nginx/gen.mjs"), None);
        assert_eq!(kind("etc/nginx/modules/ngx_http_echo_module.so"), None);
        assert_eq!(kind("config/nginx-unit/app.json"), None);
        // The nearest directory that names a program decides; a file name names one only
        // outside nginx's directories (there `grafana.conf` is a vhost proxying to it).
        assert_eq!(
            kind("kubernetes/nginx/conf.d/site.conf"),
            Some(FileKind::Nginx)
        );
        assert_eq!(kind("nginx/conf.d/grafana.conf"), Some(FileKind::Nginx));
        assert_eq!(kind("etc/nginx/supervisor/php-fpm.conf"), None);
        assert_eq!(
            guess(Path::new("docker/postfix-tlspol/syslog-ng.conf")),
            PathSays::NotOurs
        );
        assert_eq!(guess(Path::new("docker/syslog-ng.conf")), PathSays::NotOurs);
        assert_eq!(
            guess(Path::new("docker/haproxy_edge.cfg")),
            PathSays::NotOurs
        );
    }

    #[test]
    fn sniffing() {
        assert_eq!(
            sniff(b"; pool\n[www]\nuser = x\nlisten = /run/php.sock\n"),
            Some(FileKind::FpmPool)
        );
        assert_eq!(
            sniff(b"[global]\npid = /run/php-fpm.pid\ninclude=/etc/php-fpm.d/*.conf\n"),
            Some(FileKind::FpmPool)
        );
        assert_eq!(sniff(b"# x\nserver {\n"), Some(FileKind::Nginx));
        assert_eq!(
            sniff(b"net.core.somaxconn = 1024\n"),
            Some(FileKind::Sysctl)
        );
        assert_eq!(sniff(b"hello\n"), None);
        // Other programs' files that look alike on the surface.
        for other in [
            &b"[supervisord]\nnodaemon=true\n[program:php-fpm]\ncommand=php-fpm -F\nuser=root\n"[..],
            b"[main]\ncachedir=/var/cache/yum\nexclude=*.i386 *.i686\n",
            b"listen_addresses = '*'  # what IP address(es) to listen on;\nport = 5432\n",
            b"bind 127.0.0.1 ::1\nport 6379\ndaemonize no\n",
            b"protocols = imap pop3\nservice imap {\n  vsz_limit = 256M\n}\n",
            b"mirrors() {\n  echo one\n  echo two\n}\n",
            b"<Directory /var/www>\n  Require all granted\n</Directory>\n",
            b"[Unit]\nDescription=x\n[Service]\nLimitNOFILE=65535\n",
            b"@version: 3.38\n@include \"scl.conf\"\noptions {\n  use_dns(no);\n};\nsource s_src {\n  internal();\n};\n",
        ] {
            assert_eq!(sniff(other), None, "{}", String::from_utf8_lossy(other));
        }
    }

    #[test]
    fn one_file_by_path_then_content() {
        let id = |p: &str, text: &[u8]| identify_text(Path::new(p), text);
        let ini = b"[www]\nuser = www-data\npm = static\n";
        // The path decides when it is sure, whatever the content.
        assert_eq!(id("etc/sysctl.d/10-x.conf", ini), Some(FileKind::Sysctl));
        assert_eq!(
            id("etc/php/8.2/fpm/pool.d/www.conf", b"x"),
            Some(FileKind::FpmPool)
        );
        // A PHP-FPM name in an nginx directory: the content decides.
        let snippet = b"fastcgi_pass unix:/run/php/php8.2-fpm.sock;\n";
        assert_eq!(
            id("etc/nginx/snippets/php-fpm.conf", snippet),
            Some(FileKind::Nginx)
        );
        assert_eq!(
            id("etc/nginx/snippets/php-fpm.conf", ini),
            Some(FileKind::FpmMaster)
        );
        // A name that says nothing: the content alone.
        assert_eq!(id("app.conf", ini), Some(FileKind::FpmPool));
        assert_eq!(
            id("app.conf", b"vm.swappiness = 10\n"),
            Some(FileKind::Sysctl)
        );
        assert_eq!(id("app.conf", b"hello\n"), None);
    }
}
