//! NGX104 autoindex-on: `autoindex on` where it lists a site's own files.
//!
//! A warning where the listing shows the site itself: at `/` (a `location /`, or a server
//! or `http` whose `/` is served from disk with it), or in a location serving files from
//! the directory a PHP server runs its scripts from (the listing names every script,
//! backup and upload). Elsewhere — a `/downloads/` file drop — it is info: a listing may be
//! the point. Only a block that serves files can list (analysis::serving): `autoindex on`
//! in a location that denies everyone, is `internal`, returns or proxies lists nothing, and
//! neither does one whose `try_files` never tries `$uri/`.

use crate::analysis::cursor::Directive;
use crate::analysis::locations::{Locations, ServerLocations};
use crate::analysis::serving::{self, Handler};
use crate::diagnostic::Severity;
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::model::NginxInstance;

declare_rule! {
    pub struct AutoindexOn;
    code: NGX104,
    name: "autoindex-on",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Always,
    group: Default,
    uses_locations: true,
}

/// How far a listing reaches.
enum Reach {
    /// `/` of a server.
    Root(String),
    /// The directory PHP scripts run from.
    Scripts(String, String),
    /// Some other directory (the location's name).
    Other(String),
}

impl Rule for AutoindexOn {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("autoindex") {
            let Some(arg) = d.arg(0) else { continue };
            if !arg.value().eq_ignore_ascii_case("on") {
                continue;
            }
            let Some(block) = d.parent() else { continue };
            let inst = d.instance();
            let Some(reach) = reach(inst, d, block) else {
                continue;
            };
            let (severity, message) = match &reach {
                Reach::Root(dir) => (
                    Severity::Warning,
                    format!(
                        "`autoindex on` lists the site's files at `/` (from `{dir}`): \
                         every file and directory, linked or not"
                    ),
                ),
                Reach::Scripts(name, dir) => (
                    Severity::Warning,
                    format!(
                        "`autoindex on` lists `{name}` from `{dir}`, where this server runs PHP \
                         scripts: the listing names every script, backup and upload"
                    ),
                ),
                Reach::Other(name) => (
                    Severity::Info,
                    format!("`autoindex on` lists the files under `{name}`"),
                ),
            };
            let fix = Fix::unsafe_(
                "Set `autoindex off`",
                vec![edits::replace_arg(d.file(), &arg.tree_word(), "off")],
            );
            let r = cx.report(d.file(), arg.raw(), message);
            r.severity = severity;
            r.help = Some(match reach {
                Reach::Other(_) => "if the listing is meant (a file drop), keep it and silence \
                                    this line; otherwise `autoindex off;`"
                    .into(),
                _ => "`autoindex off;`, and link the files that are meant to be public".into(),
            });
            r.with_fix(fix);
        }
    }
}

/// What the `autoindex on` at `d` (in `block`) lists; `None` when no request lists with it.
fn reach<'a>(inst: &'a NginxInstance, d: Directive<'a>, block: Directive<'a>) -> Option<Reach> {
    let locations = Locations::of(inst);
    match block.name() {
        "location" => {
            let files = lists(inst, d, block)?;
            let name = label(block);
            if is_slash(block) && files.dir.is_some() {
                return Some(Reach::Root(dir_text(files)));
            }
            let server = block
                .enclosing("server")
                .and_then(|s| locations.server(s.occ()));
            if let Some(scripts) = server.and_then(|s| php_dir(inst, s)) {
                if files.path().as_deref() == Some(scripts.as_str()) {
                    return Some(Reach::Scripts(name, scripts));
                }
            }
            Some(Reach::Other(name))
        }
        "server" | "http" => {
            // The servers it applies to: this one, or every one in this `http`.
            let servers: Vec<&ServerLocations> = locations
                .servers()
                .iter()
                .filter(|s| {
                    s.server == block.occ()
                        || Directive::new(inst, s.server).parent() == Some(block)
                })
                .collect();
            let mut other = false;
            for server in &servers {
                let sel = server.select(b"/");
                if let Some(b) = serving::block(inst, server, &sel) {
                    if let Some(files) = lists(inst, d, b).filter(|f| f.dir.is_some()) {
                        return Some(Reach::Root(dir_text(files)));
                    }
                }
                other = other
                    || server.iter().any(|(_, l)| {
                        l.selectable && lists(inst, d, Directive::new(inst, l.occ)).is_some()
                    });
            }
            other.then(|| Reach::Other("the locations that inherit it".into()))
        }
        _ => None,
    }
}

/// The files `block` lists with the `autoindex on` at `d`: it applies there, and the block
/// serves directories from disk.
fn lists<'a>(
    inst: &'a NginxInstance,
    d: Directive<'a>,
    block: Directive<'a>,
) -> Option<serving::Files<'a>> {
    if block.effective("autoindex").last() != Some(d) {
        return None;
    }
    match serving::answer(inst, block) {
        Handler::Static(files) if files.directories => Some(files),
        _ => None,
    }
}

/// The directory PHP scripts run from in `server`: the `root` of the block `/index.php`
/// selects, when it passes to FastCGI.
fn php_dir(inst: &NginxInstance, server: &ServerLocations) -> Option<String> {
    let sel = server.select(b"/index.php");
    let php = serving::block(inst, server, &sel)?;
    php.children("fastcgi_pass").next()?;
    Some(serving::directory(php)?.arg(0)?.value().into_owned())
}

/// `location /` (or `^~ /`, `= /`).
fn is_slash(location: Directive<'_>) -> bool {
    location.args().last().is_some_and(|a| a.is("/"))
}

fn dir_text(files: serving::Files<'_>) -> String {
    files.path().unwrap_or_else(|| "html".into())
}

fn label(location: Directive<'_>) -> String {
    location
        .args()
        .map(|a| a.value().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}
