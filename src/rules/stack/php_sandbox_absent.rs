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
//!
//! Severity follows who chose the value (`Effective::chosen_at`): PHP's default and a copy of
//! the distribution's template (which comments `open_basedir` out and writes
//! `disable_functions =`) are information, reported at the pool; an empty value written in a
//! pool or in a php.ini of one's own is someone turning the sandbox off, a warning at that
//! line (the OWASP PHP configuration cheat sheet and PHP's manual ask for both to be set).
//! `disable_functions` written empty is reported on its own only for a pool that takes
//! uploads (`file_uploads`, on by default): an uploaded script that executes is the way an
//! attacker gets to call `system()`.

use crate::analysis::stack_links::{pool_links, pool_view};
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use crate::source::{Shared, Span};
use crate::stack::ids::PoolId;
use crate::stack::instances::{php_bool, PoolView};
use crate::stack::php_settings::Effective;
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

const HELP: &str = "limit it to the site: `php_admin_value[open_basedir] = /var/www/site:/tmp` \
     (with the session and upload directories the site uses); list the command functions the \
     application does not call in `php_admin_value[disable_functions]`";

/// A setting's value when it is known and empty.
fn empty<'a>(pool: &PoolView<'a>, name: &str) -> Option<Effective<'a>> {
    pool.php(name)
        .filter(|v| v.known && v.text.trim().is_empty())
}

/// The pools that reach each written line, in the order first met, so that a php.ini line
/// several pools read is reported once, naming them all.
#[derive(Default)]
struct ByLine<'a> {
    /// (file, span, the pools, what else is open)
    lines: Vec<(&'a Shared, Span, Vec<String>, String)>,
}

impl<'a> ByLine<'a> {
    fn add(&mut self, (file, span): (&'a Shared, Span), pool: &str, also: String) {
        match self
            .lines
            .iter_mut()
            .find(|l| std::ptr::eq(l.0, file) && l.1 == span)
        {
            Some(l) => l.2.push(format!("`{pool}`")),
            None => self
                .lines
                .push((file, span, vec![format!("`{pool}`")], also)),
        }
    }
}

fn pools(names: &[String]) -> String {
    match names {
        [one] => format!("pool {one}"),
        many => format!("pools {}", many.join(", ")),
    }
}

impl Rule for PhpSandboxAbsent {
    fn check(&self, cx: &mut Context<'_>) {
        let instances = cx.fpm_instances();
        let mut seen: HashSet<PoolId> = HashSet::new();
        let mut basedir_lines = ByLine::default();
        let mut functions_lines = ByLine::default();
        let mut at_header = Vec::new();
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
            let functions = empty(pool, "disable_functions");
            let uploads = pool
                .php("file_uploads")
                .is_some_and(|v| v.known && php_bool(&v.text));
            // Written empty for a pool that takes uploads: a finding of its own, at its line.
            let functions_written = functions
                .as_ref()
                .filter(|_| uploads)
                .and_then(|f| f.chosen_at());
            if let Some(at) = functions_written {
                functions_lines.add(at, &pool.name, String::new());
            }
            let Some(basedir) = empty(pool, "open_basedir") else {
                continue;
            };
            let also = functions
                .filter(|_| functions_written.is_none())
                .map(|v| {
                    format!(
                        "; disable_functions is empty too ({}), so the same script can run \
                         commands (`system`, `exec`, `proc_open`)",
                        v.describe()
                    )
                })
                .unwrap_or_default();
            let from = basedir.describe();
            match basedir.chosen_at() {
                // Reported at the line that writes it: no need to say where it comes from.
                Some(at) => basedir_lines.add(at, &pool.name, also),
                None => {
                    if let Some(span) = header.header_span() {
                        at_header.push((header.file(), span, pool.name.to_string(), from, also));
                    }
                }
            }
        }
        for (file, span, name, from, also) in at_header {
            let d = cx.report(
                file,
                span,
                format!(
                    "pool `{name}` serves a site with no open_basedir ({from}): a PHP file an \
                     attacker gets to run (an upload that executes, a vulnerable plugin) reads \
                     every file the pool's user can, other sites' and credentials \
                     included{also}"
                ),
            );
            d.help = Some(HELP.into());
        }
        for (file, span, names, also) in basedir_lines.lines {
            let d = cx.report(
                file,
                span,
                format!(
                    "`open_basedir` is written empty for {}, which serves a site: a PHP \
                     file an attacker gets to run (an upload that executes, a vulnerable \
                     plugin) reads every file the pool's user can, other sites' and \
                     credentials included{also}",
                    pools(&names)
                ),
            );
            d.severity = Severity::Warning;
            d.help = Some(HELP.into());
        }
        for (file, span, names, _) in functions_lines.lines {
            let d = cx.report(
                file,
                span,
                format!(
                    "`disable_functions` is written empty for {}, which serves a site \
                     and takes uploads (file_uploads is on): a script an attacker gets to run \
                     (an uploaded file that executes, an include of user input) starts \
                     commands with `system`, `exec` or `proc_open`",
                    pools(&names)
                ),
            );
            d.severity = Severity::Warning;
            d.help = Some(
                "list the command functions the application does not call: \
                 `disable_functions = exec,passthru,shell_exec,system,proc_open,popen` \
                 (`disable_functions` is PHP_INI_SYSTEM: php.ini or `php_admin_value`)"
                    .into(),
            );
        }
    }
}
