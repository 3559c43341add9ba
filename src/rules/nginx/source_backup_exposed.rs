//! NGX103 source-backup-exposed: a PHP server whose static handler sends backups and
//! editor copies of its scripts (`index.php.bak`, `index.php~`, `.index.php.swp`) as plain
//! text, from the directory the scripts run from.
//!
//! A server counts as PHP when location matching sends `/index.php` to a block with a
//! `fastcgi_pass` (an `internal` one too: the front controller's `try_files` gets there). Each backup name is then matched the same way; a block that answers it
//! with a file (analysis::serving) from the same directory as the scripts is reported once
//! per server, with the names. A PHP regex that matches the backups too (`~ \.php` without
//! `$`) sends them to PHP-FPM instead: NGX008's finding, not this one. A location that
//! denies them, a front controller that never tries `$uri`, or a `/` that proxies keeps
//! them from the disk.

use crate::analysis::locations::Locations;
use crate::analysis::serving;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct SourceBackupExposed;
    code: NGX103,
    name: "source-backup-exposed",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Hardening,
    uses_locations: true,
}

const SCRIPT: &str = "/index.php";

/// What editors, deploy tools and people leave beside a script (vim's swap file starts
/// with a dot).
const BACKUPS: [&str; 6] = [
    "/index.php.bak",
    "/index.php~",
    "/.index.php.swp",
    "/index.php.old",
    "/index.php.orig",
    "/index.phps",
];

impl Rule for SourceBackupExposed {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let locations = Locations::of(inst);
            for server in locations.servers() {
                // The block `/index.php` selects, `internal` or not: a front controller
                // reaches an internal PHP location through `try_files`.
                let sel = server.select(SCRIPT.as_bytes());
                let Some(php) = serving::block(inst, server, &sel).filter(|b| {
                    b.name() == "location" && b.children("fastcgi_pass").next().is_some()
                }) else {
                    continue;
                };
                // Where the scripts are: the PHP block's `root`; none means nginx's default
                // `html`, where no site's scripts live.
                let Some(scripts) = serving::directory(php).and_then(|d| d.arg(0)) else {
                    continue;
                };
                let scripts = scripts.value().into_owned();
                let served: Vec<_> = serving::serving_blocks(inst, server, &BACKUPS)
                    .into_iter()
                    .filter(|s| {
                        s.dir.name() == "root" && s.dir.arg(0).is_some_and(|a| a.value() == scripts)
                    })
                    .collect();
                let Some(first) = served.first() else {
                    continue;
                };
                if !cx.claim(first.block.file(), first.block.span()) {
                    continue;
                }
                let uris: Vec<String> = served
                    .iter()
                    .flat_map(|s| s.uris.iter().map(|u| format!("`{u}`")))
                    .collect();
                let by = if first.block.name() == "server" {
                    "this server (no location takes them)".to_string()
                } else {
                    format!("`location {}`", label(first.block))
                };
                // A root the deployment fills in is named as such, not by its placeholder.
                let from = match serving::directory(php).and_then(|d| d.arg(0)) {
                    Some(a) if a.is_templated() => "the root the deployment sets".to_string(),
                    _ => format!("`{scripts}`"),
                };
                let message = format!(
                    "{} {} sent as plain text by {by} from {from}, where `location {}` runs \
                     the scripts: a backup of a script shows its source",
                    uris.join(", "),
                    if uris.len() == 1 { "is" } else { "are" },
                    label(php),
                );
                let d = cx.report(first.block.file(), first.block.span(), message);
                d.label(php.file().clone(), php.span(), format!("runs `{SCRIPT}`"));
                for other in served.iter().skip(1) {
                    d.label(
                        other.block.file().clone(),
                        other.block.span(),
                        format!("also serves {}", other.uris.join(", ")),
                    );
                }
                d.help = Some(
                    "deny backup and editor files before they reach the disk: \
                     `location ~ (~|\\.(bak|old|orig|save|swp|phps))$ { deny all; }`"
                        .into(),
                );
            }
        }
    }
}

/// The location's arguments as written (`~ \.php$`).
fn label(block: crate::analysis::cursor::Directive<'_>) -> String {
    block
        .args()
        .map(|a| a.value().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}
