//! FPM102 limit-extensions-too-broad: `security.limit_extensions` lets php-fpm run files that
//! are not PHP scripts.
//!
//! php-fpm refuses to execute a `SCRIPT_FILENAME` whose name does not end with one of the
//! listed extensions (`fpm_php_limit_extensions`). That is the last guard when nginx hands it
//! an uploaded file (`/uploads/avatar.jpg/x.php` with `cgi.fix_pathinfo=1`): with `.jpg` in
//! the list, or an empty list — php-fpm then builds no list and allows everything
//! (`fpm_conf.c`) — a JPEG carrying PHP code runs. The default, `.php .phar`, is only
//! replaced by an explicit setting, so only explicit ones are judged.
//!
//! The fix (unsafe: a site may really execute `.html` as PHP) keeps the PHP extensions.

use crate::analysis::php_guard::{is_php_extension, limit_extensions};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::instances::PoolView;

declare_rule! {
    pub struct LimitExtensionsTooBroad;
    code: FPM102,
    name: "limit-extensions-too-broad",
    lang: fpm,
    category: Security,
    severity: Warning,
    fix: Always,
    group: Default,
}

impl Rule for LimitExtensionsTooBroad {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in cx.fpm_instances() {
            for pool in &inst.pools {
                check_pool(cx, pool);
            }
        }
    }
}

fn check_pool(cx: &mut Context<'_>, pool: &PoolView<'_>) {
    let Some(v) = pool.get("security.limit_extensions").filter(|v| v.known) else {
        return;
    };
    let (exts, other) = limit_extensions(&v.text);
    let (message, fixed) = if exts.is_empty() {
        (
            format!(
                "[pool {}] security.limit_extensions is empty: php-fpm then runs any file as \
                 PHP, an uploaded image included",
                pool.name
            ),
            ".php".to_string(),
        )
    } else if !other.is_empty() {
        let list = other
            .iter()
            .map(|e| format!("`{e}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let kept: Vec<&str> = exts
            .iter()
            .copied()
            .filter(|e| is_php_extension(e))
            .collect();
        (
            format!(
                "[pool {}] security.limit_extensions allows {list}: php-fpm runs such files as \
                 PHP, so an uploaded file with PHP code inside runs",
                pool.name
            ),
            if kept.is_empty() {
                ".php".to_string()
            } else {
                kept.join(" ")
            },
        )
    } else {
        return;
    };
    let Some(entry) = v.entry() else { return };
    let fix = Fix::unsafe_(
        format!("Set security.limit_extensions = {fixed}"),
        vec![edits::replace_fpm_value(v.at.file(), entry, &fixed)],
    );
    let d = cx.report(v.at.file(), v.span(), message);
    d.help = Some(
        "This list is php-fpm's last guard when nginx passes it a file that is not a script \
         (`/uploads/avatar.jpg/x.php` with `cgi.fix_pathinfo=1`). List only PHP extensions; \
         a template engine that needs `.html` parsed as PHP is safer with the files renamed."
            .into(),
    );
    d.with_fix(fix);
}
