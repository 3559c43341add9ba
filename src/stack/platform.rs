//! The main configuration a platform supplies when a repository ships only fragments.
//!
//! An application image copies `conf.d/app.conf` (and maybe `conf.d/limits.conf`) into the
//! official nginx image, whose own `/etc/nginx/nginx.conf` includes `conf.d/*.conf` inside
//! `http {}`; Alpine's package does the same with `http.d/*.conf`. Linted one by one, such
//! files are islands: a `client_max_body_size 10M` set at `http` level in one is unknown to
//! the server of the other. So when a stack has no nginx main configuration of its own, the
//! fragments of one `conf.d/` or `http.d/` directory are read inside the platform's stock
//! main file, as the server reads them. That file is not in the tree: nothing is reported
//! in it, nothing edits it (`SourceFile::synthetic`), and `lemplint stack` says whose it is.

use super::fs::Fs;
use crate::source::SourceFile;
use crate::syntax::nginx::known;
use std::path::{Path, PathBuf};

/// Whose stock main file a fragment directory belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    /// The official nginx image (and nginx.org's packages): `conf.d/*.conf` in `http`.
    NginxImage,
    /// Alpine's nginx package: `http.d/*.conf` in `http`.
    Alpine,
}

impl Platform {
    /// The platform whose stock configuration includes the files of `dir`: by its name, or
    /// by where the deployment puts it (a compose file mounts `./nginx:/etc/nginx/conf.d`, a
    /// Dockerfile copies it to `/etc/nginx/conf.d/`).
    pub fn of_dir(dir: &Path) -> Option<Platform> {
        match dir.file_name()?.to_str()? {
            "conf.d" => Some(Platform::NginxImage),
            "http.d" => Some(Platform::Alpine),
            _ => deployed_as(dir),
        }
    }

    /// What `lemplint stack` says of the main file.
    pub fn describe(self) -> &'static str {
        match self {
            Platform::NginxImage => {
                "not in the tree: the official nginx image's own nginx.conf, which includes conf.d/*.conf inside http"
            }
            Platform::Alpine => {
                "not in the tree: Alpine's nginx.conf, which includes http.d/*.conf inside http"
            }
        }
    }

    /// The stock main file's directives that matter to the fragments (what they inherit),
    /// then an include of each fragment, in the order nginx's glob reads them.
    fn text(self, fragments: &[PathBuf]) -> String {
        let mut out = String::from(match self {
            // docker-library/nginx's nginx.conf (mainline and stable, 1.2x).
            Platform::NginxImage => {
                "worker_processes auto;\nevents {\n    worker_connections 1024;\n}\nhttp {\n    default_type application/octet-stream;\n    sendfile on;\n    keepalive_timeout 65;\n"
            }
            // Alpine's nginx.conf (aports main/nginx).
            Platform::Alpine => {
                "worker_processes auto;\nevents {\n    worker_connections 1024;\n}\nhttp {\n    default_type application/octet-stream;\n    server_tokens off;\n    client_max_body_size 1m;\n    sendfile on;\n    tcp_nopush on;\n"
            }
        });
        for f in fragments {
            // Relative to the prefix (the directory's parent), as the stock file writes it.
            let rel: PathBuf = f
                .iter()
                .rev()
                .take(2)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let p = rel
                .to_string_lossy()
                .replace('\\', "\\\\")
                .replace('"', "\\\"");
            out.push_str(&format!("    include \"{p}\";\n"));
        }
        out.push_str("}\n");
        out
    }

    /// The stock main file including `fragments` (all in one directory), as a source that
    /// is marked synthetic: it sits beside the directory's parent as `nginx.conf`.
    pub fn main_file(self, dir: &Path, fragments: &[PathBuf]) -> SourceFile {
        let path = dir.parent().unwrap_or(dir).join("nginx.conf");
        let mut source = SourceFile::new(path, self.text(fragments).into_bytes());
        source.synthetic = true;
        source
    }
}

/// How far above a directory the compose file or Dockerfile that places it is looked for.
const DEPLOY_DEPTH: usize = 3;

/// The platform directory a deployment file near `dir` puts it in: a compose volume
/// (`- ./nginx:/etc/nginx/conf.d:ro`) or a Dockerfile `COPY`/`ADD` (relative to the
/// Dockerfile's directory, the usual build context) whose target is `/etc/nginx/conf.d` or
/// `/etc/nginx/http.d`.
fn deployed_as(dir: &Path) -> Option<Platform> {
    let want = lexical(dir);
    let mut base = dir.parent();
    for _ in 0..DEPLOY_DEPTH {
        let b = base?;
        let listing = std::fs::read_dir(if b.as_os_str().is_empty() {
            Path::new(".")
        } else {
            b
        })
        .ok()?;
        for entry in listing.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().to_ascii_lowercase();
            let compose =
                (name.ends_with(".yml") || name.ends_with(".yaml")) && name.contains("compose");
            let dockerfile = name.starts_with("dockerfile") || name.ends_with(".dockerfile");
            if !compose && !dockerfile {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            for (src, dst) in placements(&text, compose) {
                let platform = match dst.trim_end_matches('/') {
                    "/etc/nginx/conf.d" => Platform::NginxImage,
                    "/etc/nginx/http.d" => Platform::Alpine,
                    _ => continue,
                };
                if src.starts_with('/') || src.contains(['$', '*']) {
                    continue;
                }
                if lexical(&b.join(src.trim_end_matches('/'))) == want {
                    return Some(platform);
                }
            }
        }
        base = b.parent();
    }
    None
}

/// `(source, target)` pairs a compose file's short volume syntax or a Dockerfile's
/// `COPY`/`ADD` (not `--from` another stage) writes.
fn placements(text: &str, compose: bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if compose {
            let Some(item) = line.strip_prefix('-') else {
                continue;
            };
            let item = item.trim().trim_matches(['"', '\'']);
            let mut parts = item.split(':');
            if let (Some(src), Some(dst)) = (parts.next(), parts.next()) {
                out.push((src.to_string(), dst.to_string()));
            }
            continue;
        }
        let mut words = line.split_whitespace();
        let Some(cmd) = words.next() else { continue };
        if !cmd.eq_ignore_ascii_case("copy") && !cmd.eq_ignore_ascii_case("add") {
            continue;
        }
        let args: Vec<&str> = words.collect();
        if args.iter().any(|a| a.starts_with("--from")) {
            continue;
        }
        let args: Vec<&str> = args.into_iter().filter(|a| !a.starts_with("--")).collect();
        if let [srcs @ .., dst] = args.as_slice() {
            for src in srcs {
                out.push((src.to_string(), dst.to_string()));
            }
        }
    }
    out
}

/// `path` without `.` components and with `dir/..` folded (no file system access).
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Directives nginx takes in a server or location but not in `http` (the parser's table
/// holds the block directives; these simple ones are what server snippets start with).
const SERVER_ONLY: [&str; 10] = [
    "listen",
    "server_name",
    "return",
    "rewrite",
    "try_files",
    "fastcgi_pass",
    "proxy_pass",
    "alias",
    "internal",
    "break",
];

/// Whether an nginx file reads as what a platform includes inside `http`: it parses, and
/// every statement at its top is one nginx allows in `http` (`server`, `upstream`, `map`,
/// `client_max_body_size` …). A file of `location` blocks is a server's snippet, included by
/// a configuration the tree does not hold: not one of these.
pub fn is_http_fragment(fs: &dyn Fs, path: &Path) -> bool {
    let Ok(source) = fs.source(path).1 else {
        return false;
    };
    let (source, parsed) = fs.nginx_tree(source);
    if !parsed.errors.is_empty() || !source.holes.is_empty() {
        return false;
    }
    let tree = &parsed.tree;
    let mut any = false;
    for id in tree.children(crate::syntax::nginx::ROOT) {
        let Some(d) = tree.statement(id) else {
            continue;
        };
        let name = tree.name(d).value(&source.text);
        if SERVER_ONLY.iter().any(|n| n.as_bytes() == name.as_ref()) {
            return false;
        }
        let info = known::lookup(&name);
        if info != known::NONE {
            let allowed = known::get(info)
                .is_some_and(|k| (k.simple_contexts() | k.block_contexts()) & known::HTTP != 0);
            if !allowed {
                return false;
            }
        }
        any = true;
    }
    any
}
