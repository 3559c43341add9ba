//! STK008 uploaded-file-executed-as-php: nginx, PHP and PHP-FPM together let an uploaded
//! file run as PHP.
//!
//! `/uploads/avatar.jpg/x.php` takes three steps to run the JPEG:
//! 1. nginx passes it to PHP-FPM without checking that the script exists: a generic PHP
//!    regex location matches it, and neither `try_files`, an `if (!-f …)` nor `internal`
//!    stands in the way, nor an earlier regex location that catches it (NGX008 reports this
//!    step alone, as info);
//! 2. PHP's `cgi.fix_pathinfo` is on in the pool nginx reaches (PHP's default, 1): PHP walks
//!    back along the path to the file that exists, `/uploads/avatar.jpg`;
//! 3. the pool's `security.limit_extensions` lets that file run: set empty (no list: every
//!    file runs) or to an extension that is not PHP's. php-fpm's default, `.php .phar`,
//!    refuses it, so only an explicit setting completes the chain (FPM102 reports the
//!    setting alone).
//!
//! When all three hold, this reports once, at the nginx location, with the pool's two
//! settings as labels: any one safeguard breaks the chain and silences it.

use crate::analysis::cursor::Directive;
use crate::analysis::pcre::Regex;
use crate::analysis::php_guard::{
    has_file_check, limit_extensions, regex_word, Catchers, UPLOAD_URI,
};
use crate::analysis::stack_links::{pool_links, pool_view};
use crate::rules::{Context, Rule};
use crate::stack::instances::php_bool;
use crate::stack::php_settings::Origin;

declare_rule! {
    pub struct UploadedFileExecutedAsPhp;
    code: STK008,
    name: "uploaded-file-executed-as-php",
    lang: stack,
    category: Security,
    severity: Error,
    fix: None,
    group: Default,
}

/// Whether `location` is a generic PHP regex location that `UPLOAD_URI` reaches.
fn reached_by_upload(location: Directive<'_>) -> Option<String> {
    let (word, caseless, prefix) = regex_word(location)?;
    let value = word.value();
    let pattern = value.get(prefix..)?;
    let re = Regex::parse(pattern, caseless).ok()?;
    let matches = |uri: &str| re.is_match(uri.as_bytes()).ok() == Some(true);
    (matches("/x.php") && matches(UPLOAD_URI)).then(|| pattern.to_string())
}

impl Rule for UploadedFileExecutedAsPhp {
    fn check(&self, cx: &mut Context<'_>) {
        let instances = cx.fpm_instances();
        let mut catchers = Catchers::default();
        for link in pool_links(cx.stack) {
            let Some(pool) = pool_view(instances, &link) else {
                continue;
            };
            // Step 3: the pool's list lets a non-PHP file run.
            let Some(limit) = pool.get("security.limit_extensions").filter(|v| v.known) else {
                continue;
            };
            let (exts, others) = limit_extensions(&limit.text);
            if !exts.is_empty() && others.is_empty() {
                continue;
            }
            // Step 2: cgi.fix_pathinfo on (PHP's default when nothing in the tree says).
            let Some(fix_pathinfo) = pool.php("cgi.fix_pathinfo") else {
                continue;
            };
            let on = php_bool(&fix_pathinfo.text);
            if fix_pathinfo.is_set() && (!fix_pathinfo.known || !on) {
                continue;
            }
            // Step 1: the location around the fastcgi_pass.
            let Some(location) = link.pass.parent().filter(|p| p.name() == "location") else {
                continue;
            };
            let Some(pattern) = reached_by_upload(location) else {
                continue;
            };
            if has_file_check(location) || catchers.earlier_sibling_catches(location) {
                continue;
            }
            let Some((word, _, _)) = regex_word(location) else {
                continue;
            };
            if !cx.claim(word.file(), word.raw()) {
                continue;
            }
            let allows = if exts.is_empty() {
                "security.limit_extensions is empty, so php-fpm runs any file".to_string()
            } else {
                format!(
                    "security.limit_extensions = {} lets a `{}` file run",
                    limit.text.trim(),
                    others[0]
                )
            };
            let d = cx.report(
                word.file(),
                word.raw(),
                format!(
                    "an uploaded file can run as PHP here: `{UPLOAD_URI}` reaches PHP location \
                     `{pattern}` without a check that the script exists, cgi.fix_pathinfo = {} \
                     ({}) makes PHP run `/uploads/evil.jpg` instead, and in pool `{}` {allows}",
                    fix_pathinfo.shown(),
                    fix_pathinfo.describe(),
                    pool.name
                ),
            );
            d.label(
                limit.at.file().clone(),
                limit.span(),
                "lets the upload run as PHP",
            );
            match &fix_pathinfo.origin {
                Origin::Ini(v) => {
                    d.label(
                        v.file.source.clone(),
                        v.span(),
                        "PHP walks back to the upload",
                    );
                }
                Origin::Pool { val, .. } => {
                    d.label(
                        val.at.file().clone(),
                        val.span(),
                        "PHP walks back to the upload",
                    );
                }
                Origin::Default => {}
            }
            d.help = Some(
                "any one safeguard breaks the chain: `try_files $uri =404;` in the location \
                 (`try_files $fastcgi_script_name =404;` after `fastcgi_split_path_info`), \
                 `security.limit_extensions = .php` in the pool, or `cgi.fix_pathinfo = 0` in \
                 php.ini"
                    .into(),
            );
        }
    }
}
