//! NGX101 filesystem-root-exposed: a `root` or `alias` that is a system directory as a whole
//! (`/`, `/etc`, `/home`, `/root`, `/proc`), from which some request gets a file.
//!
//! A directory counts only when a request reaches the static handler with it: location
//! matching picks the block for a probe URI (`/etc/passwd` under `root /`), and
//! analysis::serving must answer with a file from that very directive. A `root /` whose
//! locations all proxy, return or deny serves nothing and is not reported; nor is an
//! `alias` of one file below `/etc` (`alias /etc/nginx/snippets/x.html`), which is not the
//! directory itself.
//!
//! Paths are resolved textually as the kernel walks them (`root /usr/..;` and `root //;`
//! are `/`), and for an `alias` the path nginx builds for the probe is what is resolved:
//! `location /files { alias /.; }` opens `/./etc/passwd` for `/files/etc/passwd` (checked
//! on nginx 1.22.1), while under `location /files/` the same alias opens `/.etc/passwd`.

use crate::analysis::cursor::Directive;
use crate::analysis::locations::{normalise, Kind, Locations, ServerLocations};
use crate::analysis::serving::{self, Handler};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct FilesystemRootExposed;
    code: NGX101,
    name: "filesystem-root-exposed",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
    uses_locations: true,
}

/// A system directory, a file in it that a request would read, and what that file is.
struct Probe {
    dir: &'static str,
    file: &'static str,
    what: &'static str,
}

const PROBES: [Probe; 5] = [
    Probe {
        dir: "/",
        file: "/etc/passwd",
        what: "the whole file system (the system's accounts, every configuration and key the \
               workers can read)",
    },
    Probe {
        dir: "/etc",
        file: "/etc/passwd",
        what: "the system's configuration (accounts, service credentials, TLS keys the \
               workers can read)",
    },
    Probe {
        dir: "/home",
        file: "/home/alice/.ssh/id_rsa",
        what: "every user's home directory (keys, shell histories, documents)",
    },
    Probe {
        dir: "/root",
        file: "/root/.ssh/id_rsa",
        what: "the root account's home directory",
    },
    Probe {
        dir: "/proc",
        file: "/proc/self/environ",
        what: "the kernel's process tree (each process's environment and command line)",
    },
];

/// The probe whose directory `path` is, once resolved as the kernel resolves it (`/etc/`,
/// `/etc/.`, `//etc` and `/usr/../etc` are `/etc`). A path with a variable is decided per
/// request, and a relative one depends on the prefix: neither is judged.
fn probe_of(path: &str) -> Option<&'static Probe> {
    let path = resolve(path)?;
    PROBES.iter().find(|p| p.dir == path)
}

/// `path` as the kernel walks it: repeated `/` are one, `.` is the directory itself, `..`
/// its parent (and `/..` is `/`). Textual: a `..` after a symbolic link would go to the
/// link target's parent, and a `..` after a name that does not exist fails; neither is
/// known here, and system directories are neither. `None` for a relative path or one
/// with a variable.
fn resolve(path: &str) -> Option<String> {
    if !path.starts_with('/') || path.contains('$') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    Some(format!("/{}", parts.join("/")))
}

impl Rule for FilesystemRootExposed {
    fn check(&self, cx: &mut Context<'_>) {
        // `root`: the URI is the file's path itself (nginx appends the URI to the root).
        // Most configurations have no such root at all: the servers are not searched then.
        for inst in &cx.stack.nginx {
            let any = crate::analysis::cursor::named(inst, "root")
                .any(|r| r.arg(0).is_some_and(|a| probe_of(&a.value()).is_some()));
            if !any {
                continue;
            }
            let locations = Locations::of(inst);
            for server in locations.servers() {
                for probe in &PROBES {
                    let uri = &probe.file[probe.dir.trim_end_matches('/').len()..];
                    let Some((dir, block)) = serving_dir(server, inst, uri) else {
                        continue;
                    };
                    if dir.name() != "root" {
                        continue;
                    }
                    let Some(value) = dir.arg(0).map(|a| a.value().into_owned()) else {
                        continue;
                    };
                    if probe_of(&value).is_some_and(|p| std::ptr::eq(p, probe)) {
                        // nginx drops one final `/` of a root and appends the URI.
                        let opens = format!("{}{uri}", value.strip_suffix('/').unwrap_or(&value));
                        report(cx, dir, block, probe, uri, &opens);
                    }
                }
            }
        }
        // `alias`: the URI is the location's prefix followed by the rest of the path.
        for alias in cx.nginx_directives("alias") {
            let Some(value) = alias.arg(0).map(|a| a.value().into_owned()) else {
                continue;
            };
            let Some(probe) = probe_of(&value) else {
                continue;
            };
            let Some(location) = alias.parent().filter(|p| p.name() == "location") else {
                continue;
            };
            let Some(server) = location.enclosing("server") else {
                continue;
            };
            let inst = alias.instance();
            let locations = Locations::of(inst);
            let Some(locs) = locations.server(server.occ()) else {
                continue;
            };
            let Some(id) = locs.location_of(location.occ()) else {
                continue;
            };
            let loc = locs.get(id);
            if !matches!(loc.kind, Kind::Prefix | Kind::NoRegexPrefix) {
                continue; // regex locations map captures, exact ones one URI
            }
            // nginx puts the alias in place of the location's name: the rest of the URI is
            // appended as it is, so `alias /.` under `/files` opens `/./etc/passwd` for
            // `/files/etc/passwd` (the file system's root) but `/.etc/passwd` under `/files/`.
            let relative = probe.file[probe.dir.len()..].trim_start_matches('/');
            for rest in [relative.to_string(), format!("/{relative}")] {
                let opens = format!("{value}{rest}");
                if resolve(&opens).as_deref() != Some(probe.file) {
                    continue;
                }
                let uri = format!("{}{rest}", String::from_utf8_lossy(&loc.name));
                // The request must arrive as this URI (a `//` would be merged away).
                let same = normalise(uri.as_bytes(), locs.merge_slashes)
                    .is_ok_and(|n| n.path == uri.as_bytes());
                if !same {
                    continue;
                }
                if let Some((dir, block)) = serving_dir(locs, inst, &uri) {
                    if dir == alias {
                        report(cx, alias, block, probe, &uri, &opens);
                    }
                }
                break;
            }
        }
    }
}

/// The `root`/`alias` that answers `uri` with a file in `server`, and the serving block.
fn serving_dir<'a>(
    server: &ServerLocations,
    inst: &'a crate::stack::model::NginxInstance,
    uri: &str,
) -> Option<(Directive<'a>, Directive<'a>)> {
    let sel = server.select(uri.as_bytes());
    let Some(Handler::Static(files)) = serving::handler(inst, server, &sel, uri.as_bytes()) else {
        return None;
    };
    Some((files.dir?, serving::block(inst, server, &sel)?))
}

fn report(
    cx: &mut Context<'_>,
    dir: Directive<'_>,
    block: Directive<'_>,
    probe: &Probe,
    uri: &str,
    opens: &str,
) {
    let Some(word) = dir.arg(0) else { return };
    let value = word.value().into_owned();
    // Say how a path that is not written as the directory comes to be it.
    let how = if opens == probe.file {
        String::new()
    } else {
        format!(" (nginx opens `{opens}`, which is `{}`)", probe.file)
    };
    let message = format!(
        "`{} {value}` serves {}: `GET {uri}` returns `{}`{how}",
        dir.name(),
        probe.what,
        probe.file
    );
    let served_by = if block.name() == "server" {
        "the server answers it: no location takes it".to_string()
    } else {
        format!(
            "`location {}` answers it with a file",
            block
                .args()
                .map(|a| a.value().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    let d = cx.report(word.file(), word.raw(), message);
    if block != dir.parent().unwrap_or(block) || block.name() == "server" {
        d.label(block.file().clone(), block.span(), served_by.clone());
    }
    d.help = Some(format!(
        "point `{}` at the directory that holds the site's files (`/var/www/example`), never \
         at a system directory; {served_by}",
        dir.name()
    ));
}
