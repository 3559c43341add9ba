//! STK014 php-sandbox-absent: a pool that nginx passes a site's requests to runs PHP with no
//! `open_basedir`, so a script reads every file the pool's user can.
//!
//! `open_basedir` limits the files PHP's own functions open to the listed directories. It is
//! defence in depth, not a boundary (PHP's security classification does not treat its
//! bypasses as vulnerabilities; programs PHP starts ignore it), which is why this is info: it matters the day an attacker gets a PHP file run (an upload that
//! executes, a vulnerable plugin), when it keeps `/etc`, other sites' files and their
//! credentials out of reach. The message says whether `disable_functions` is empty too (then
//! the same script can also run commands with `system()`/`exec()`/`proc_open()`), which is
//! the larger hole; whether it can be closed depends on what the application calls.
//!
//! Judged on the pool's effective value (`PoolView::php`: the pool's `php_admin_value`, else
//! its php.ini, else PHP's default), only when that is known: a pool whose php.ini is not in
//! the tree may get `open_basedir` from the server's. A pool no nginx server of the stack
//! reaches serves no site known here; a development configuration is not reported.

use crate::analysis::stack_links::{pool_links, pool_view};
use crate::rules::{Context, Rule};
use crate::stack::ids::PoolId;
use std::collections::HashSet;

declare_rule! {
    pub struct PhpSandboxAbsent;
    code: STK014,
    name: "php-sandbox-absent",
    lang: stack,
    category: Security,
    severity: Info,
    fix: None,
    group: Preview,
}

impl Rule for PhpSandboxAbsent {
    fn check(&self, cx: &mut Context<'_>) {
        let instances = cx.fpm_instances();
        let mut seen: HashSet<PoolId> = HashSet::new();
        for link in pool_links(cx.stack) {
            let Some(pool) = pool_view(instances, &link) else {
                continue;
            };
            if !seen.insert(pool.id) {
                continue;
            }
            let Some(header) = pool.headers.first() else {
                continue;
            };
            let development = pool.ini.is_some_and(|s| s.development.is_some())
                || crate::stack::php_ini::named_for_development(
                    &header.file().path,
                    &cx.stack.root,
                )
                .is_some();
            if development {
                continue;
            }
            let Some(basedir) = pool.php("open_basedir").filter(|v| v.known) else {
                continue;
            };
            if !basedir.text.trim().is_empty() {
                continue;
            }
            let Some(span) = header.header_span() else {
                continue;
            };
            let functions = pool
                .php("disable_functions")
                .filter(|v| v.known && v.text.trim().is_empty())
                .map(|v| {
                    format!(
                        "; disable_functions is empty too ({}), so the same script can run \
                         commands (`system`, `exec`, `proc_open`)",
                        v.describe()
                    )
                })
                .unwrap_or_default();
            let d = cx.report(
                header.file(),
                span,
                format!(
                    "pool `{}` serves a site with no open_basedir ({}): a PHP file an \
                     attacker gets to run (an upload that executes, a vulnerable plugin) reads \
                     every file the pool's user can, other sites' and credentials \
                     included{functions}",
                    pool.name,
                    basedir.describe()
                ),
            );
            d.help = Some(
                "limit it to the site: `php_admin_value[open_basedir] = /var/www/site:/tmp` \
                 (with the session and upload directories the site uses); list the command \
                 functions the application does not call in `php_admin_value[disable_functions]`"
                    .into(),
            );
        }
    }
}
