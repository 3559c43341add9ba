//! NGX102 secret-file-exposed: a server whose static handler serves version-control
//! metadata and credential files (`/.git/config`, `/.env`, `/.htpasswd`…) to anyone who
//! asks, because no location denies them.
//!
//! Location matching (analysis::locations) picks the block nginx uses for each URI below,
//! and analysis::serving says what that block does with it: only a block that answers with
//! a file from a `root` or `alias` counts. A `deny all`, a `return`, a login, `internal`, a
//! `*_pass` (the backend's business), or a `try_files` that never tries `$uri` serve no
//! file. A server with no `root` at all serves nginx's compiled-in `html` directory (and
//! the packaged `/usr/share/nginx/html` is the welcome page): no repository lives there.
//!
//! Which files count, and why: a repository's `.git/config` (its remotes, often with a
//! token) and `.git/HEAD` (with it, tools rebuild the whole source tree from
//! `/.git/objects/`), Subversion's and Mercurial's equivalents, `.env` (the database and API
//! credentials of Laravel, Symfony, Node and Docker deployments) and `.htpasswd` (password
//! hashes, often kept beside the site). Backups of scripts are NGX103's. SQL dumps and
//! `composer.lock` are left out: nothing marks a dump's name, and a lock file tells
//! versions, not secrets.

use crate::analysis::cursor::Directive;
use crate::analysis::locations::Locations;
use crate::analysis::serving;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct SecretFileExposed;
    code: NGX102,
    name: "secret-file-exposed",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Hardening,
    uses_locations: true,
}

/// The URIs asked about, in the order they are listed.
const SECRETS: [&str; 6] = [
    "/.git/config",
    "/.git/HEAD",
    "/.env",
    "/.htpasswd",
    "/.svn/entries",
    "/.hg/hgrc",
];

/// Whether a directory holds no deployed site: nginx's default (`html` under its prefix),
/// the packages' welcome page (`/usr/share/nginx/html`, OpenResty's
/// `/usr/local/openresty/nginx/html`), or no directory at all (`/dev/null`).
///
/// Also a framework's public directory (`…/public` of Laravel and Symfony 4+, `…/web` of
/// Symfony 2–3, `…/pub` of Magento 2, `…/webroot` of CakePHP, a build's `…/dist` or
/// `…/build`): the repository and its `.env` are one level up, outside the root, so the
/// probes would name files that are not there.
fn no_site(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    let last = path.rsplit('/').next().unwrap_or(path);
    path == "html"
        || path.ends_with("/nginx/html")
        || path.starts_with("/dev/")
        || (path.contains('/')
            && matches!(
                last,
                "public" | "web" | "pub" | "webroot" | "dist" | "build"
            ))
}

impl Rule for SecretFileExposed {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let locations = Locations::of(inst);
            for server in locations.servers() {
                let mut served = serving::serving_blocks(inst, server, &SECRETS);
                served.retain(|s| s.dir.arg(0).is_some_and(|a| !no_site(&a.value())));
                let Some(first) = served.first() else {
                    continue;
                };
                let (block, dir, uris) = (&first.block, first.dir, &first.uris);
                if !cx.claim(block.file(), block.span()) {
                    continue;
                }
                let all: Vec<String> = served
                    .iter()
                    .flat_map(|s| s.uris.iter().map(|u| format!("`{u}`")))
                    .collect();
                let where_ = if block.name() == "server" {
                    "this server (no location takes them)".to_string()
                } else {
                    format!("`location {}`", location_label(*block))
                };
                // A root the deployment fills in is named as such, not by its placeholder.
                let path = match dir.arg(0) {
                    Some(a) if a.is_templated() => "the root the deployment sets".to_string(),
                    Some(a) => format!("`{}`", a.value()),
                    None => "``".to_string(),
                };
                let message = format!(
                    "{} {} served as files from {path} by {where_}",
                    all.join(", "),
                    if all.len() == 1 { "is" } else { "are" },
                );
                let d = cx.report(block.file(), block.span(), message);
                d.label(
                    dir.file().clone(),
                    dir.span(),
                    format!("`{}` serves {}", dir.name(), uris.join(", ")),
                );
                for other in served.iter().skip(1) {
                    d.label(
                        other.block.file().clone(),
                        other.block.span(),
                        format!("also serves {}", other.uris.join(", ")),
                    );
                }
                d.help = Some(
                    "deny hidden files in this server: `location ~ /\\.(?!well-known/) { deny \
                     all; }` (it leaves `/.well-known/` for ACME and security.txt)"
                        .into(),
                );
            }
        }
    }
}

/// The location's arguments as written (`~ /\.git`).
fn location_label(location: Directive<'_>) -> String {
    location
        .args()
        .map(|a| a.value().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}
