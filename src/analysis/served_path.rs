//! Whether nginx hands out a file at a given place on disk: the other way round from
//! [`crate::analysis::serving`], which asks what a URI serves. For a path such as PHP's
//! `error_log` or `session.save_path`, each `root` (the URI is the path below it) and each
//! `alias` of a prefix location (the URI is the location's name and the rest) gives a
//! candidate URI; location matching and the serving model then decide whether a request
//! for that URI comes off the disk from that very directive.

use crate::analysis::cursor::{self, Directive};
use crate::analysis::locations::{normalise, Kind, Locations, ServerLocations};
use crate::analysis::serving::{self, Handler};
use crate::stack::model::NginxInstance;
use std::path::{Path, PathBuf};

/// A request that reads the file.
pub struct ServedFile<'a> {
    /// The URI a client sends.
    pub uri: String,
    /// The `root` or `alias` the file comes from.
    pub dir: Directive<'a>,
    /// The static handler's block (a `location`, or the `server`).
    pub block: Directive<'a>,
}

/// A path nginx or PHP writes, made absolute the way the kernel walks it (`.` and `..`
/// applied to the names); `None` for a relative path or one with a variable (`$`, `${`,
/// `%`), which depends on where or how the program runs.
pub fn absolute(path: &str) -> Option<PathBuf> {
    let p = path.trim();
    if !p.starts_with('/') || p.contains('$') || p.contains('%') {
        return None;
    }
    Some(crate::stack::confine::lexical(Path::new(p)))
}

/// The requests of `inst` (whose location trees are `locations`, `Locations::of(inst)`)
/// that read `file` from the disk, at most one per `root`/`alias`.
pub fn requests_for<'a>(
    inst: &'a NginxInstance,
    locations: &Locations,
    file: &Path,
) -> Vec<ServedFile<'a>> {
    let mut out = Vec::new();
    for root in cursor::named(inst, "root") {
        let Some(dir) = root.arg(0).and_then(|a| absolute(&a.value())) else {
            continue;
        };
        let Ok(rest) = file.strip_prefix(&dir) else {
            continue;
        };
        let Some(rest) = rest.to_str().filter(|r| !r.is_empty()) else {
            continue;
        };
        let uri = format!("/{rest}");
        let Some(server) = root
            .enclosing("server")
            .and_then(|s| locations.server(s.occ()))
        else {
            // A `root` at `http` level serves every server that does not set its own.
            for server in locations.servers() {
                if let Some(s) = from(server, inst, &uri, root) {
                    out.push(s);
                    break;
                }
            }
            continue;
        };
        out.extend(from(server, inst, &uri, root));
    }
    for alias in cursor::named(inst, "alias") {
        let Some(dir) = alias.arg(0).and_then(|a| absolute(&a.value())) else {
            continue;
        };
        let Ok(rest) = file.strip_prefix(&dir) else {
            continue;
        };
        let Some(rest) = rest.to_str().filter(|r| !r.is_empty()) else {
            continue;
        };
        let Some(location) = alias.parent().filter(|p| p.name() == "location") else {
            continue;
        };
        let Some(server) = location
            .enclosing("server")
            .and_then(|s| locations.server(s.occ()))
        else {
            continue;
        };
        let Some(id) = server.location_of(location.occ()) else {
            continue;
        };
        let loc = server.get(id);
        if !matches!(loc.kind, Kind::Prefix | Kind::NoRegexPrefix) {
            continue; // a regex location maps captures, an exact one a single URI
        }
        // nginx puts the alias in place of the location's name and appends the rest.
        let name = String::from_utf8_lossy(&loc.name);
        let alias_text = alias
            .arg(0)
            .map(|a| a.value().into_owned())
            .unwrap_or_default();
        let sep = match (name.ends_with('/'), alias_text.ends_with('/')) {
            (true, true) => "",
            // `location /x/ { alias /srv/x; }`: `/x/a` opens `/srv/xa`, not in the directory.
            (true, false) => continue,
            (false, _) => "/",
        };
        let uri = format!("{name}{sep}{rest}");
        let same =
            normalise(uri.as_bytes(), server.merge_slashes).is_ok_and(|n| n.path == uri.as_bytes());
        if same {
            out.extend(from(server, inst, &uri, alias));
        }
    }
    out
}

/// The request for `uri` in `server`, when it is answered with a file from `dir`.
fn from<'a>(
    server: &ServerLocations,
    inst: &'a NginxInstance,
    uri: &str,
    dir: Directive<'a>,
) -> Option<ServedFile<'a>> {
    let sel = server.select(uri.as_bytes());
    let Some(Handler::Static(files)) = serving::handler(inst, server, &sel, uri.as_bytes()) else {
        return None;
    };
    if files.dir != Some(dir) {
        return None;
    }
    Some(ServedFile {
        uri: uri.to_string(),
        dir,
        block: serving::block(inst, server, &sel)?,
    })
}
