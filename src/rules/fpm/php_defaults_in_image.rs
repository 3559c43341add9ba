//! FPM112 php-defaults-in-image: pools run in a docker-library php-fpm image
//! (`FROM php:8.2-fpm`) that has no php.ini, and nothing in the tree gives it one.
//!
//! The official images ship `php.ini-development` and `php.ini-production` under
//! `/usr/local/etc/php/` but no `php.ini`: their README asks the Dockerfile to install one
//! (`mv "$PHP_INI_DIR/php.ini-production" "$PHP_INI_DIR/php.ini"`). Without it PHP runs on
//! its compiled-in defaults, and under FPM `display_errors = 1` writes each error, with file
//! paths, into the response (`tests/security_php_binary.rs` shows it with php-fpm and no
//! php.ini); `expose_php = 1` and `log_errors = 0` come with it.
//!
//! Decidable only where the tree shows the whole image, from the stack
//! model's `FpmConfig::image_php_ini`, false only when no Dockerfile instruction names
//! `php.ini` or `$PHP_INI_DIR` or writes under `/usr/local/etc/php/` (outside `php-fpm.d/`),
//! and no compose volume mounts there. A pool that sets `display_errors` itself is reported
//! as info for the other defaults; a development configuration (named so) is not reported.

use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct PhpDefaultsInImage;
    code: FPM112,
    name: "php-defaults-in-image",
    lang: fpm,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

impl Rule for PhpDefaultsInImage {
    fn check(&self, cx: &mut Context<'_>) {
        let root = &cx.stack.root;
        for inst in cx.fpm_instances() {
            let Some(image) = inst
                .configs
                .iter()
                .find(|c| c.image.is_some() && !c.image_php_ini)
                .and_then(|c| c.image.as_deref())
            else {
                continue;
            };
            for pool in &inst.pools {
                if pool.ini.is_some() {
                    continue; // the model found a php.ini for it after all
                }
                // The pool's header in a tree file (the image's own files are synthetic).
                let Some((header, span)) = pool.headers.iter().find_map(|h| {
                    let f = h.file();
                    (!f.synthetic)
                        .then(|| h.header_span())
                        .flatten()
                        .map(|s| (h, s))
                }) else {
                    continue;
                };
                let dev = |p: &std::path::Path| {
                    crate::stack::php_ini::named_for_development(p, root).is_some()
                };
                if dev(&header.file().path)
                    || inst
                        .configs
                        .iter()
                        .filter_map(|c| c.compose.as_deref())
                        .any(dev)
                {
                    continue;
                }
                // What the defaults leave, minus what the pool sets itself.
                let own = |name: &str| pool.php_setting(name).map(|(v, _)| v);
                let display = own("display_errors").is_none();
                let mut left = Vec::new();
                if own("display_errors").is_none() {
                    left.push("display_errors = 1 (errors, with file paths, in the responses)");
                }
                if own("log_errors").is_none() {
                    left.push("log_errors = 0 (errors not logged)");
                }
                if own("expose_php").is_none() {
                    left.push("expose_php = 1 (`X-Powered-By: PHP/<version>`)");
                }
                if left.is_empty() {
                    continue;
                }
                let d = cx.report(
                    header.file(),
                    span,
                    format!(
                        "pool `{}` runs in {image}, which has no php.ini, and nothing in the \
                         tree installs one: PHP runs on its compiled-in defaults, {}",
                        pool.name,
                        left.join(", ")
                    ),
                );
                if !display {
                    d.severity = Severity::Info;
                }
                d.help = Some(
                    "install the image's production settings in the Dockerfile: `RUN mv \
                     \"$PHP_INI_DIR/php.ini-production\" \"$PHP_INI_DIR/php.ini\"`"
                        .into(),
                );
            }
        }
    }
}
