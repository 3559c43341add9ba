//! STK013 php-files-served: PHP writes its error log, its session files or its upload
//! temporary files into a directory nginx serves as static files.
//!
//! `error_log = /var/www/html/php_errors.log` under `root /var/www/html` lets anyone fetch
//! `/php_errors.log`: paths, SQL, stack traces and the arguments PHP logs. Session files
//! (`sess_<id>` under `session.save_path`, with `session.save_handler = files`) are named by
//! the session id: every visitor can read the server-side data of their own session (what
//! applications keep from the client there: captcha answers, tokens, roles), and whoever
//! learns or lists another id reads that one. Both are warnings. Upload temporaries
//! (`php<random>` under `upload_tmp_dir`, deleted at the end of the request) leak only when
//! the directory is listed (`autoindex on`, a warning) and are info otherwise.
//!
//! The request is decided as for the path rules: each `root` (the URI is the path below it)
//! and each `alias` of a prefix location give a URI, and location matching with
//! analysis::serving must answer it with a file from that same directive
//! (`analysis::served_path`). A location that denies, proxies or passes the URI to PHP keeps
//! the file private and silences it. A development configuration is not reported; nor a path
//! with a variable, a relative one, or `syslog`.

use crate::analysis::locations::Locations;
use crate::analysis::php_writes::php_writes;
use crate::analysis::served_path::{absolute, requests_for};
use crate::analysis::stack_links::active_nginx;
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use std::path::PathBuf;

declare_rule! {
    pub struct PhpFilesServed;
    code: STK013,
    name: "php-files-served",
    lang: stack,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
    uses_locations: true,
}

/// The file a setting makes PHP write, as a path to ask nginx about, how many of its last
/// path components are below the directory the setting names, and what it holds.
fn written_file(key: &str, value: &str) -> Option<(PathBuf, usize, &'static str)> {
    match key {
        "error_log" => Some((absolute(value)?, 0, "PHP's error log")),
        // `N;/path` and `N;MODE;/path` spread the files over N levels of subdirectories
        // named by the id's first characters.
        "session.save_path" => {
            let dir = absolute(value.rsplit(';').next()?)?;
            let levels: usize = match value.matches(';').count() {
                0 => 0,
                _ => value.split(';').next()?.trim().parse().ok()?,
            };
            const ID: &str = "a1b2c3d4e5f6a7b8c9d0e1f2a3";
            let mut file = dir;
            for c in ID.chars().take(levels) {
                file.push(c.to_string());
            }
            file.push(format!("sess_{ID}"));
            Some((
                file,
                levels.min(ID.len()) + 1,
                "session files (each visitor's `$_SESSION`, named by the session id)",
            ))
        }
        "upload_tmp_dir" => Some((
            absolute(value)?.join("phpA1b2C3"),
            1,
            "uploaded files while their request runs",
        )),
        _ => None,
    }
}

impl Rule for PhpFilesServed {
    fn check(&self, cx: &mut Context<'_>) {
        let instances = cx.fpm_instances();
        for key in ["error_log", "session.save_path", "upload_tmp_dir"] {
            for w in php_writes(cx.stack, instances, key) {
                if w.development {
                    continue;
                }
                if key == "session.save_path"
                    && w.scope
                        .php("session.save_handler")
                        .is_some_and(|h| h.known && h.text.trim() != "files")
                {
                    // redis, memcached: the path is an address. An unknown handler (no
                    // php.ini in the tree) with an absolute path is taken as `files`: the
                    // other handlers' paths are URLs or `host:port`.
                    continue;
                }
                let Some((file, below, what)) = written_file(key, &w.text) else {
                    continue;
                };
                let Some(hit) = active_nginx(cx.stack).find_map(|inst| {
                    requests_for(inst, &Locations::of(inst), &file)
                        .into_iter()
                        .next()
                }) else {
                    continue;
                };
                let listed = hit
                    .block
                    .effective("autoindex")
                    .last()
                    .and_then(|a| a.arg(0))
                    .is_some_and(|a| a.is("on"));
                // The directory's URI for the files below it (`/sessions/`), the file's for
                // the log.
                let mut uri = hit.uri.as_str();
                for _ in 0..below {
                    uri = uri.rsplit_once('/').map_or(uri, |(dir, _)| dir);
                }
                let uri = if below == 0 {
                    uri.to_string()
                } else {
                    format!("{uri}/")
                };
                let how = match (key, listed) {
                    ("error_log", _) => "anyone can download it",
                    (_, true) => "`autoindex on` lists them for anyone to download",
                    ("session.save_path", _) => {
                        "each visitor can download the server-side data of their own session \
                         (`sess_` and the id from their cookie), and anyone who learns another \
                         id, that one's"
                    }
                    _ => "anyone who learns a file's name can download it",
                };
                let dir_word = if hit.dir.name() == "alias" {
                    "alias"
                } else {
                    "root"
                };
                let message = format!(
                    "{}`{}` puts {what} where nginx serves static files: `{uri}` comes from \
                     {dir_word} `{}`, so {how}",
                    w.prefix(),
                    w.written,
                    hit.dir
                        .arg(0)
                        .map(|a| a.value().into_owned())
                        .unwrap_or_default()
                );
                let severity = if key != "upload_tmp_dir" || listed {
                    Severity::Warning
                } else {
                    Severity::Info
                };
                let d = cx.report(w.file, w.span, message);
                d.severity = severity;
                d.label(
                    hit.dir.file().clone(),
                    hit.dir.span(),
                    "serves that directory",
                );
                d.help = Some(
                    "move it outside every `root` and `alias` (`/var/log/php/`, \
                     `/var/lib/php/sessions`, `/tmp`), or deny the directory in nginx \
                     (`location ^~ /logs/ { deny all; }`)"
                        .into(),
                );
            }
        }
    }
}
