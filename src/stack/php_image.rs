//! The php-fpm configuration of the docker-library PHP images (`php:8.3-fpm-alpine`, …).
//!
//! A repository whose Dockerfile builds `FROM php:<version>-fpm…` and copies its pool file
//! into `/usr/local/etc/php-fpm.d/` runs it inside the image's own configuration, which the
//! repository does not hold: `/usr/local/etc/php-fpm.conf` (`[global]`,
//! `include=etc/php-fpm.d/*.conf`) reads, in name order, the image's `docker.conf`,
//! `www.conf` (the stock `[www]` pool, its `listen` commented out) and `zz-docker.conf`
//! (`daemonize = no`) with the repository's files among them. php-fpm merges sections of
//! the same name in read order. Since docker-library/php f26909cd (January 2026, php
//! 8.3.30 and the other series' releases of that week) the image's `listen = 9000` is in
//! `docker.conf`, read *before* the repository's `www.conf`, so a repository's own
//! `listen` takes effect; before, `zz-docker.conf` set it and replaced the repository's. The
//! files modelled are today's (the corpus's `docker-library-php` copy holds them). The
//! image's files are synthetic (`SourceFile::synthetic`): nothing is reported in them.
//! The image has no php.ini (only `php.ini-development` and `php.ini-production`).

use super::fs::Fs;
use std::path::{Path, PathBuf};

/// Where the image's pool files are.
pub const POOL_DIR: &str = "/usr/local/etc/php-fpm.d";

/// Where the image's php-fpm reads its master configuration.
pub const MASTER_PATH: &str = "/usr/local/etc/php-fpm.conf";

/// The image's master, as its Dockerfile template leaves it (the parts that matter).
pub const MASTER: &str = "[global]\n; pid = run/php-fpm.pid\n; error_log = log/php-fpm.log\ninclude=etc/php-fpm.d/*.conf\n";

/// The image's own files in `php-fpm.d/` (docker-library/php, `Dockerfile-linux.template`,
/// as built since January 2026).
pub const STOCK: [(&str, &str); 3] = [
    (
        "docker.conf",
        "[global]\nerror_log = /proc/self/fd/2\n\n; https://github.com/docker-library/php/pull/725#issuecomment-443540114\nlog_limit = 8192\n\n[www]\n; php-fpm closes STDOUT on startup, so sending logs to /proc/self/fd/1 does not work.\n; https://bugs.php.net/bug.php?id=73886\naccess.log = /proc/self/fd/2\n\nclear_env = no\n\n; Ensure worker stdout and stderr are sent to the main error log.\ncatch_workers_output = yes\ndecorate_workers_output = no\n\n; default listen address for easy override in later php-fpm.d/*.conf files\nlisten = 9000\n",
    ),
    (
        "www.conf",
        "[www]\nuser = www-data\ngroup = www-data\n;listen = 127.0.0.1:9000\npm = dynamic\npm.max_children = 5\npm.start_servers = 2\npm.min_spare_servers = 1\npm.max_spare_servers = 3\n",
    ),
    (
        "zz-docker.conf",
        "[global]\ndaemonize = no\n\n; the [www] ini section below is for backwards compatibility and will be removed in 8.6+\n[www]\n",
    ),
];

/// A php-fpm image a Dockerfile builds, and the tree's files it copies into `php-fpm.d/`.
#[derive(Clone, Debug)]
pub struct ImagePools {
    /// The image as written (`php:8.3-fpm-alpine`).
    pub image: String,
    /// Each tree file and its name in `php-fpm.d/`.
    pub files: Vec<(PathBuf, String)>,
    /// A tree file copied over the image's master ([`MASTER_PATH`]): php-fpm starts from it,
    /// not from the stock one (pterodactyl copies its `www.conf` there).
    pub master: Option<PathBuf>,
    /// A compose volume mounts a tree directory over `php-fpm.d/`: the image's own files
    /// are hidden.
    pub replaces_dir: bool,
    /// The files a compose volume mounts (the others a Dockerfile copies).
    pub mounted: Vec<PathBuf>,
    /// The ports the compose service running the image publishes on the host, as written
    /// (`"9000:9000"`), and the compose file.
    pub published: Vec<String>,
    pub compose: Option<PathBuf>,
    /// The Dockerfile or the compose file may give PHP a php.ini or scan-directory file: an
    /// instruction names `php.ini` or `$PHP_INI_DIR` (the image's README installs
    /// `php.ini-production` with `mv "$PHP_INI_DIR/php.ini-production" "$PHP_INI_DIR/php.ini"`)
    /// or writes under `/usr/local/etc/php/` outside `php-fpm.d/`, or a volume mounts there.
    /// False: PHP runs on its compiled-in defaults, the image having no php.ini.
    pub php_ini: bool,
}

/// Where the image's PHP reads php.ini and its scan directory.
const PHP_INI_DIR: &str = "/usr/local/etc/php";

/// Whether a `COPY`/`ADD` target or a volume's mount point is PHP's configuration (php.ini
/// or `conf.d/`), not php-fpm's.
fn is_php_config_target(dst: &str) -> bool {
    let dst = dst.trim_end_matches('/');
    (dst == PHP_INI_DIR || dst.starts_with(&format!("{PHP_INI_DIR}/")))
        && !dst.starts_with(POOL_DIR)
        && !dst.ends_with("php-fpm.conf")
}

/// Whether a Dockerfile's instructions may give PHP a php.ini (see [`ImagePools::php_ini`]).
/// Any stage counts (a file built elsewhere and copied in): the answer errs towards "may".
pub fn dockerfile_gives_php_ini(text: &str) -> bool {
    instructions(text).iter().any(|ins| {
        let (cmd, rest) = ins.split_once(char::is_whitespace).unwrap_or((ins, ""));
        let names = rest.contains("php.ini") || rest.contains("PHP_INI_DIR");
        match cmd.to_ascii_lowercase().as_str() {
            "run" => names,
            "copy" | "add" => {
                names
                    || words(rest)
                        .last()
                        .is_some_and(|dst| is_php_config_target(dst))
            }
            _ => false,
        }
    })
}

/// Whether `image` (a `FROM` argument) is a docker-library php-fpm image: `php:fpm`,
/// `php:8.3-fpm`, `php:8.2-fpm-alpine3.19`, `docker.io/library/php:…`, with a digest or not.
pub fn is_php_fpm_image(image: &str) -> bool {
    let image = image.split('@').next().unwrap_or(image);
    let Some((repo, tag)) = image.rsplit_once(':') else {
        return false;
    };
    let repo = repo.strip_prefix("docker.io/").unwrap_or(repo);
    let repo = repo.strip_prefix("library/").unwrap_or(repo);
    repo == "php" && tag.split('-').any(|w| w == "fpm")
}

/// Instructions of a Dockerfile: lines joined over `\` continuations, comments dropped.
fn instructions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        let t = line.trim();
        if cur.is_empty() && (t.is_empty() || t.starts_with('#')) {
            continue;
        }
        if let Some(head) = t.strip_suffix('\\') {
            cur.push_str(head);
            cur.push(' ');
            continue;
        }
        cur.push_str(t);
        out.push(std::mem::take(&mut cur));
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The arguments of a `COPY`/`ADD`, flags kept: the shell form split on whitespace, the JSON
/// form (`["a", "b"]`) unquoted.
fn words(rest: &str) -> Vec<String> {
    let rest = rest.trim();
    if let Some(json) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return json
            .split(',')
            .map(|w| w.trim().trim_matches('"').to_string())
            .filter(|w| !w.is_empty())
            .collect();
    }
    let mut out: Vec<String> = Vec::new();
    for w in rest.split_whitespace() {
        // `--chown=a:b ["x", "y"]` is rare; the flags come first either way.
        out.push(w.trim_matches('"').to_string());
    }
    out
}

/// The last stage of a Dockerfile built from a php-fpm image: the image, and each
/// `(source, target)` its `COPY`/`ADD` writes (not `--from` another stage).
pub fn fpm_stage(text: &str) -> Option<(String, Vec<(String, String)>)> {
    type Stage = (String, Vec<(String, String)>);
    let mut stage: Option<Stage> = None;
    let mut found = None;
    let mut aliases: Vec<(String, Stage)> = Vec::new();
    let mut current_alias: Option<String> = None;
    for ins in instructions(text) {
        // Each php-fpm stage as it stands, under its name, for the stages built on it.
        if let (Some(a), Some(s)) = (&current_alias, &stage) {
            match aliases.iter_mut().find(|(n, _)| n == a) {
                Some(entry) => entry.1 = s.clone(),
                None => aliases.push((a.clone(), s.clone())),
            }
        }
        let (cmd, rest) = ins.split_once(char::is_whitespace).unwrap_or((&ins, ""));
        if cmd.eq_ignore_ascii_case("from") {
            if let Some(s) = stage.take() {
                found = Some(s);
            }
            let mut args = rest.split_whitespace().filter(|w| !w.starts_with("--"));
            let image = args.next().unwrap_or("");
            let alias = match (args.next(), args.next()) {
                (Some(kw), Some(name)) if kw.eq_ignore_ascii_case("as") => {
                    Some(name.to_ascii_lowercase())
                }
                _ => None,
            };
            // A stage built on an earlier php-fpm stage (`FROM base AS prod`) keeps its files.
            let inherited = aliases
                .iter()
                .rev()
                .find(|(a, _)| a.eq_ignore_ascii_case(image))
                .map(|(_, s)| s.clone());
            stage = match inherited {
                Some(s) => Some(s),
                None if is_php_fpm_image(image) => Some((image.to_string(), Vec::new())),
                None => None,
            };
            current_alias = alias;
            continue;
        }
        let Some((_, copies)) = stage.as_mut() else {
            continue;
        };
        if !cmd.eq_ignore_ascii_case("copy") && !cmd.eq_ignore_ascii_case("add") {
            continue;
        }
        let args = words(rest);
        if args.iter().any(|a| a.starts_with("--from")) {
            continue;
        }
        let args: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
        if let [srcs @ .., dst] = args.as_slice() {
            for src in srcs {
                copies.push((src.to_string(), dst.to_string()));
            }
        }
    }
    stage.or(found)
}

/// Whether a script is a Dockerfile by its name.
fn is_dockerfile(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.starts_with("dockerfile")
        || name.starts_with("containerfile")
        || name.ends_with(".dockerfile")
}

/// The user a Dockerfile's last stage runs its command as: its last `USER` (the name or uid
/// before any `:group`), `None` when the stage sets none (the base image's, root in the PHP
/// images).
pub fn final_user(text: &str) -> Option<String> {
    let mut user = None;
    for ins in instructions(text) {
        let (op, rest) = ins.split_once(char::is_whitespace).unwrap_or((&ins, ""));
        if op.eq_ignore_ascii_case("FROM") {
            user = None;
        } else if op.eq_ignore_ascii_case("USER") {
            user = rest
                .split_whitespace()
                .next()
                .map(|u| u.split(':').next().unwrap_or(u).to_string());
        }
    }
    user
}

/// Whether the tree builds images (Dockerfiles among `scripts`) and every one runs as an
/// unprivileged user: a php-fpm master such an image starts is not root, so a pool needs no
/// `user` (php-fpm asks for one only when its master is root). A `USER` holding a variable
/// counts as root: its value is not in the tree.
pub fn images_run_unprivileged(fs: &dyn Fs, scripts: &[PathBuf]) -> bool {
    let mut any = false;
    for script in scripts.iter().filter(|p| is_dockerfile(p)) {
        let Ok(text) = fs.read(script) else {
            return false;
        };
        match final_user(&String::from_utf8_lossy(&text)) {
            Some(u) if u != "root" && u != "0" && !u.contains('$') => any = true,
            _ => return false,
        }
    }
    any
}

/// The php-fpm image a Dockerfile builds, and its `(source, target)` copies.
fn dockerfile_stage(fs: &dyn Fs, dockerfile: &Path) -> Option<(String, Vec<(String, String)>)> {
    let text = fs.read(dockerfile).ok()?;
    fpm_stage(&String::from_utf8_lossy(&text))
}

/// The tree files the Dockerfiles among `scripts` copy, and the compose files among them
/// mount, into a php-fpm image's `php-fpm.d/` as `*.conf` (the names the image's `include`
/// reads). A `COPY` source is looked for relative to the Dockerfile's directory, then each
/// directory above it (the build context is often the repository's top); a volume's is
/// relative to the compose file.
pub fn image_pools(fs: &dyn Fs, scripts: &[PathBuf]) -> Vec<ImagePools> {
    let mut out = Vec::new();
    let mut built: Vec<PathBuf> = Vec::new();
    for compose in scripts.iter().filter(|p| {
        let n = p
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        (n.ends_with(".yml") || n.ends_with(".yaml")) && n.contains("compose")
    }) {
        let Ok(text) = fs.read(compose) else { continue };
        let base = compose.parent().unwrap_or(Path::new(""));
        for svc in services(&String::from_utf8_lossy(&text)) {
            let dockerfile = svc.build.as_ref().map(|(ctx, file)| {
                let ctx = base.join(ctx.trim_start_matches("./"));
                ctx.join(file.as_deref().unwrap_or("Dockerfile"))
            });
            let stage = dockerfile.as_ref().and_then(|d| dockerfile_stage(fs, d));
            let image = match (&stage, &svc.image) {
                (Some((image, _)), _) => image.clone(),
                (None, Some(image)) if is_php_fpm_image(image) => image.clone(),
                _ => continue,
            };
            let mut pools = ImagePools {
                image,
                files: Vec::new(),
                replaces_dir: false,
                master: None,
                mounted: Vec::new(),
                published: svc.ports.clone(),
                compose: Some(compose.clone()),
                php_ini: svc.volumes.iter().any(|(_, dst)| is_php_config_target(dst))
                    || dockerfile
                        .as_ref()
                        .and_then(|d| fs.read(d).ok())
                        .is_some_and(|t| dockerfile_gives_php_ini(&String::from_utf8_lossy(&t))),
            };
            if let (Some(d), Some((_, copies))) = (&dockerfile, &stage) {
                built.push(d.clone());
                place(fs, &mut pools, copies, |src| locate(fs, d, src));
            }
            let mounts: Vec<(String, String)> = svc
                .volumes
                .iter()
                .filter(|(src, _)| src.starts_with("./") || src.starts_with("../") || src == ".")
                .cloned()
                .collect();
            if mounts
                .iter()
                .any(|(_, dst)| dst.trim_end_matches('/') == POOL_DIR)
            {
                // A directory mounted over php-fpm.d/: only its files are there.
                pools.replaces_dir = true;
                pools.files.clear();
            }
            pools.mounted = place(fs, &mut pools, &mounts, |src| {
                let p = base.join(src.trim_start_matches("./"));
                (fs.read(&p).is_ok() || is_dir(fs, &p)).then_some(p)
            });
            if !pools.files.is_empty() || pools.master.is_some() {
                out.push(pools);
            }
        }
    }
    for script in scripts.iter().filter(|p| is_dockerfile(p)) {
        if built.contains(script) {
            continue;
        }
        let Some((image, copies)) = dockerfile_stage(fs, script) else {
            continue;
        };
        let mut pools = ImagePools {
            image,
            files: Vec::new(),
            replaces_dir: false,
            master: None,
            mounted: Vec::new(),
            published: Vec::new(),
            compose: None,
            php_ini: fs
                .read(script)
                .is_ok_and(|t| dockerfile_gives_php_ini(&String::from_utf8_lossy(&t))),
        };
        place(fs, &mut pools, &copies, |src| locate(fs, script, src));
        if !pools.files.is_empty() || pools.master.is_some() {
            out.push(pools);
        }
    }
    out
}

/// The item of `ports` that publishes the container's `port` on every address of the host
/// (`"9000:9000"`, `"8000:9000"`, `9000`, `0.0.0.0:9000:9000`, a range holding it); one bound
/// to a loopback address (`127.0.0.1:9000:9000`) reaches only the host itself.
pub fn published_on_host(ports: &[String], port: u16) -> Option<&str> {
    ports.iter().map(String::as_str).find(|item| {
        let spec = item.split('/').next().unwrap_or(item);
        let parts: Vec<&str> = spec.rsplitn(3, ':').collect();
        let container = parts[0];
        let ip = parts.get(2).map(|ip| ip.trim_matches(['[', ']']));
        if ip.is_some_and(|ip| ip == "localhost" || ip == "::1" || ip.starts_with("127.")) {
            return false;
        }
        match container.split_once('-') {
            Some((a, b)) => matches!((a.parse::<u16>(), b.parse::<u16>()), (Ok(a), Ok(b)) if a <= port && port <= b),
            None => container.parse::<u16>() == Ok(port),
        }
    })
}

/// Whether a tree path is a directory with entries.
fn is_dir(fs: &dyn Fs, path: &Path) -> bool {
    fs.glob(&path.join("*")).is_ok_and(|l| !l.is_empty())
}

/// Adds to `pools` the tree files that `(source, target)` pairs put in `php-fpm.d/`: a file
/// at its target name, a file or a directory's `*.conf` files into the directory.
fn place(
    fs: &dyn Fs,
    pools: &mut ImagePools,
    pairs: &[(String, String)],
    find: impl Fn(&str) -> Option<PathBuf>,
) -> Vec<PathBuf> {
    let mut placed = Vec::new();
    for (src, dst) in pairs {
        // A file copied over the master replaces it: named as the target, or a file called
        // `php-fpm.conf` copied into the master's directory (`COPY etc/php-fpm.conf
        // /usr/local/etc/`, where Docker keeps the source's name).
        let (master_dir, master_name) = MASTER_PATH.rsplit_once('/').unwrap_or_default();
        let over_master = dst == MASTER_PATH
            || (dst.trim_end_matches('/') == master_dir
                && src.rsplit('/').next() == Some(master_name));
        if over_master && !src.starts_with('/') && !src.contains(['$', '*', '?']) {
            if let Some(found) = find(src).filter(|f| fs.read(f).is_ok()) {
                placed.push(found.clone());
                pools.master = Some(found);
            }
            continue;
        }
        let dst_dir = dst.trim_end_matches('/') == POOL_DIR;
        let named = dst
            .strip_prefix(POOL_DIR)
            .and_then(|r| r.strip_prefix('/'))
            .filter(|r| !r.is_empty() && !r.contains('/'));
        if !dst_dir && named.is_none() {
            continue;
        }
        if src.starts_with('/') || src.contains(['$', '*', '?']) || src.contains("://") {
            continue;
        }
        let src = src.trim_end_matches('/');
        let Some(found) = find(src) else { continue };
        let mut add = |path: PathBuf, name: String| {
            if name.ends_with(".conf") {
                pools.files.retain(|(_, n)| *n != name);
                placed.push(path.clone());
                pools.files.push((path, name));
            }
        };
        if named.is_none() && is_dir(fs, &found) {
            // A directory copied into php-fpm.d/: its files, by their names.
            for f in fs.glob(&found.join("*.conf")).unwrap_or_default() {
                if let Some(n) = f.file_name() {
                    let n = n.to_string_lossy().into_owned();
                    add(f, n);
                }
            }
            continue;
        }
        let name = match named {
            Some(n) => n.to_string(),
            None => match found.file_name() {
                Some(n) => n.to_string_lossy().into_owned(),
                None => continue,
            },
        };
        add(found, name);
    }
    placed
}

/// A compose service, as far as the image's pools are concerned.
#[derive(Default, Debug, PartialEq)]
struct Service {
    image: Option<String>,
    /// The build context and the Dockerfile named in it.
    build: Option<(String, Option<String>)>,
    /// Short-syntax volumes `(source, target)`.
    volumes: Vec<(String, String)>,
    /// Short-syntax published ports (`"9000:9000"`, `127.0.0.1:9000:9000`, `9000`).
    ports: Vec<String>,
}

/// The services of a compose file, read by indentation (the shapes compose files use:
/// `image:`, `build: dir` or `build:` with `context:`/`dockerfile:`, `volumes:` items
/// `- ./src:/target[:mode]`).
fn services(text: &str) -> Vec<Service> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let unquote = |v: &str| v.trim().trim_matches(['"', '\'']).to_string();
    let mut out = Vec::new();
    let mut in_services = false;
    let mut svc_indent: Option<usize> = None;
    let mut cur: Option<Service> = None;
    let mut section = "";
    let mut section_indent = 0;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let ind = indent(line);
        if ind == 0 {
            out.extend(cur.take());
            in_services = t == "services:";
            svc_indent = None;
            continue;
        }
        if !in_services {
            continue;
        }
        let si = *svc_indent.get_or_insert(ind);
        if ind == si {
            out.extend(cur.take());
            cur = Some(Service::default());
            section = "";
            continue;
        }
        let Some(svc) = cur.as_mut() else { continue };
        if ind <= section_indent {
            section = "";
        }
        if let Some(item) = t.strip_prefix("- ") {
            if section == "ports" {
                svc.ports
                    .push(unquote(item.split(" #").next().unwrap_or("")));
            }
            if section == "volumes" {
                let item = unquote(item);
                let mut parts = item.split(':');
                if let (Some(src), Some(dst)) = (parts.next(), parts.next()) {
                    svc.volumes.push((src.to_string(), dst.to_string()));
                }
            }
            continue;
        }
        let Some((key, value)) = t.split_once(':') else {
            continue;
        };
        let value = unquote(value.split(" #").next().unwrap_or(""));
        match (section, key.trim()) {
            ("build", "context") => {
                if let Some(b) = svc.build.as_mut() {
                    b.0 = value;
                }
            }
            ("build", "dockerfile") => {
                if let Some(b) = svc.build.as_mut() {
                    b.1 = Some(value);
                }
            }
            (_, "image") if ind == si + 2 || section.is_empty() => svc.image = Some(value),
            (_, "build") => {
                svc.build = Some((
                    if value.is_empty() {
                        ".".into()
                    } else {
                        value.clone()
                    },
                    None,
                ));
                if value.is_empty() {
                    section = "build";
                    section_indent = ind;
                }
            }
            (_, "volumes") if value.is_empty() => {
                section = "volumes";
                section_indent = ind;
            }
            (_, "ports") if value.is_empty() => {
                section = "ports";
                section_indent = ind;
            }
            _ => {}
        }
    }
    out.extend(cur);
    out
}

/// The tree path of a `COPY` source: beside the Dockerfile, or in a directory above it.
fn locate(fs: &dyn Fs, dockerfile: &Path, src: &str) -> Option<PathBuf> {
    let src = src.trim_start_matches("./").trim_end_matches('/');
    let mut dir = dockerfile.parent();
    for _ in 0..4 {
        let d = dir?;
        let p = if d.as_os_str().is_empty() {
            PathBuf::from(src)
        } else {
            d.join(src)
        };
        if fs.read(&p).is_ok() || is_dir(fs, &p) {
            return Some(p);
        }
        dir = d.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_stage_user() {
        assert_eq!(
            final_user("FROM php:8.2-fpm AS base\nUSER app\nFROM base\nRUN x\nUSER rootless:www\n")
                .as_deref(),
            Some("rootless")
        );
        // A new stage starts as its base image's user.
        assert_eq!(
            final_user("FROM php:8.2-fpm\nUSER app\nFROM php:8.2-fpm\n"),
            None
        );
    }

    #[test]
    fn php_fpm_images() {
        for i in [
            "php:fpm",
            "php:8.3-fpm-alpine",
            "php:8.2-fpm-bookworm",
            "php:7.4-fpm",
            "docker.io/library/php:8.1-fpm",
            "library/php:8.3-fpm@sha256:abc",
        ] {
            assert!(is_php_fpm_image(i), "{i}");
        }
        for i in [
            "php:8.3-cli",
            "php:8.3-apache",
            "nginx:alpine",
            "php",
            "myphp:fpm",
        ] {
            assert!(!is_php_fpm_image(i), "{i}");
        }
    }

    #[test]
    fn a_stage_built_on_a_php_fpm_stage_keeps_its_files() {
        let text = "FROM php:8.3-fpm AS base\nCOPY www.conf /usr/local/etc/php-fpm.d/www.conf\n\
                    FROM base AS prod\nCOPY zz-app.conf /usr/local/etc/php-fpm.d/\n";
        let (image, copies) = fpm_stage(text).unwrap();
        assert_eq!(image, "php:8.3-fpm");
        assert_eq!(copies.len(), 2, "{copies:?}");
    }

    #[test]
    fn compose_services() {
        let text = "version: '3'\nservices:\n  php:\n    image: php:8.2-fpm\n    volumes:\n      - ./docker/php/www.conf:/usr/local/etc/php-fpm.d/www.conf:ro\n      - app:/var/www\n  app:\n    build:\n      context: .\n      dockerfile: docker/Dockerfile\n  web:\n    build: ./nginx\n    image: nginx:alpine\nvolumes:\n  app:\n";
        let s = services(text);
        assert_eq!(s.len(), 3, "{s:?}");
        assert_eq!(s[0].image.as_deref(), Some("php:8.2-fpm"));
        assert_eq!(
            s[0].volumes,
            vec![
                (
                    "./docker/php/www.conf".to_string(),
                    "/usr/local/etc/php-fpm.d/www.conf".to_string()
                ),
                ("app".to_string(), "/var/www".to_string())
            ]
        );
        assert_eq!(
            s[1].build,
            Some((".".to_string(), Some("docker/Dockerfile".to_string())))
        );
        assert_eq!(s[2].build, Some(("./nginx".to_string(), None)));
        assert_eq!(s[2].image.as_deref(), Some("nginx:alpine"));
    }

    #[test]
    fn the_last_fpm_stage_counts() {
        let text = "FROM composer:2 AS vendor\nCOPY composer.json /app/\n\
                    FROM --platform=$BUILDPLATFORM php:8.3-fpm-alpine AS app\n\
                    COPY --from=vendor /app/vendor /var/www/vendor\n\
                    COPY --chown=www-data:www-data docker/www.conf \\\n  /usr/local/etc/php-fpm.d/www.conf\n\
                    FROM nginx:alpine\nCOPY x.conf /etc/nginx/conf.d/\n";
        let (image, copies) = fpm_stage(text).unwrap();
        assert_eq!(image, "php:8.3-fpm-alpine");
        assert_eq!(
            copies,
            vec![(
                "docker/www.conf".to_string(),
                "/usr/local/etc/php-fpm.d/www.conf".to_string()
            )]
        );
    }

    #[test]
    fn what_gives_the_image_a_php_ini() {
        let gives = |t: &str| dockerfile_gives_php_ini(t);
        // The image's README way, and its variants.
        assert!(gives(
            "FROM php:8.3-fpm\nRUN mv \"$PHP_INI_DIR/php.ini-production\" \"$PHP_INI_DIR/php.ini\"\n"
        ));
        assert!(gives(
            "FROM php:8.3-fpm\nCOPY php.ini /usr/local/etc/php/\n"
        ));
        assert!(gives(
            "FROM php:8.3-fpm\nCOPY docker/app.ini /usr/local/etc/php/conf.d/app.ini\n"
        ));
        // Pool files and extensions are not php.ini.
        assert!(!gives(
            "FROM php:8.3-fpm\nRUN docker-php-ext-install pdo_mysql\n\
             COPY www.conf /usr/local/etc/php-fpm.d/www.conf\n\
             COPY php-fpm.conf /usr/local/etc/php-fpm.conf\n"
        ));
        assert!(is_php_config_target("/usr/local/etc/php/php.ini"));
        assert!(!is_php_config_target("/usr/local/etc/php-fpm.d/www.conf"));
    }
}
