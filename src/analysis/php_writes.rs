//! Where a PHP setting is written so that it takes effect, for the rules that judge a value
//! (FPM103's insecure settings, FPM108's OPcache): a pool's own `php_value`/`php_flag`/
//! `php_admin_value`/`php_admin_flag` (with php-fpm's precedence, `PoolView::php_setting`), and
//! each php.ini set's last assignment, unless every pool that reads the set writes the
//! setting itself (then the php.ini line never takes effect). PHP's compiled-in defaults are
//! never here: the repository may not hold the server's php.ini.

use crate::source::{Shared, Span};
use crate::stack::instances::{Instance, PoolView};
use crate::stack::model::Stack;
use crate::stack::php_ini::IniSet;
use crate::stack::php_settings::{from_ini, Effective};
use crate::syntax::fpm::Entry;

/// One place a setting is written.
pub struct PhpWrite<'a> {
    pub file: &'a Shared,
    pub entry: &'a Entry,
    /// The value's span.
    pub span: Span,
    /// The value after INI evaluation (`On` → `1`).
    pub text: String,
    /// `key = value` as written.
    pub written: String,
    /// The pool that writes it; `None` for a php.ini.
    pub pool: Option<&'a str>,
    /// Where the other settings of the same scope come from: the pool's effective settings,
    /// or the php.ini set alone.
    pub scope: Scope<'a>,
    /// The configuration counts as development (`php_ini::development`).
    pub development: bool,
    /// Someone wrote this value: a pool's own setting, or a php.ini that is not a copy of
    /// the distribution's template (`php_template`), whose weak values were copied.
    pub chosen: bool,
}

/// The scope a write takes effect in.
#[derive(Clone, Copy)]
pub enum Scope<'a> {
    Pool(&'a PoolView<'a>),
    Ini(&'a IniSet),
}

impl<'a> Scope<'a> {
    /// Another setting's value in the same scope (PHP's default when nothing writes it).
    pub fn php(self, name: &str) -> Option<Effective<'a>> {
        match self {
            Scope::Pool(p) => p.php(name),
            Scope::Ini(set) => from_ini(Some(set), name),
        }
    }
}

impl PhpWrite<'_> {
    /// `[pool www] ` for a pool's setting, nothing for a php.ini line: the start of a message.
    pub fn prefix(&self) -> String {
        self.pool
            .map(|p| format!("[pool {p}] "))
            .unwrap_or_default()
    }
}

/// Every place `name` is written with a known value, pools first, then php.ini sets.
pub fn php_writes<'a>(
    stack: &'a Stack,
    instances: &'a [Instance<'a>],
    name: &str,
) -> Vec<PhpWrite<'a>> {
    let mut out = Vec::new();
    for pool in instances.iter().flat_map(|i| i.pools.iter()) {
        let Some((v, _admin)) = pool.php_setting(name) else {
            continue;
        };
        let Some(entry) = v.entry().filter(|_| v.known) else {
            continue;
        };
        let file = v.at.file();
        out.push(PhpWrite {
            file,
            entry,
            span: v.span(),
            text: v.text.clone(),
            written: format!(
                "{} = {}",
                file.str(entry.key),
                file.str(entry.raw_value).trim()
            ),
            pool: Some(&pool.name),
            scope: Scope::Pool(pool),
            // The php.ini the pool reads, or the pool's own file (`pool.d/dev.conf`,
            // `docker/dev/www.conf`), says development.
            development: pool.ini.is_some_and(|s| s.development.is_some())
                || crate::stack::php_ini::named_for_development(&file.path, &stack.root).is_some(),
            chosen: true,
        });
    }
    for set in &stack.php_ini.sets {
        let Some(v) = set.get(name).filter(|v| v.known) else {
            continue;
        };
        let readers: Vec<&PoolView<'_>> = instances
            .iter()
            .filter(|i| i.ini.is_some_and(|s| std::ptr::eq(s, set)))
            .flat_map(|i| i.pools.iter())
            .collect();
        if !readers.is_empty() && readers.iter().all(|p| p.php_setting(name).is_some()) {
            continue;
        }
        let Some(entry) = v.entry() else { continue };
        out.push(PhpWrite {
            file: &v.file.source,
            entry,
            span: v.span(),
            text: v.text.clone(),
            written: v.written(),
            pool: None,
            scope: Scope::Ini(set),
            development: set.development.is_some(),
            chosen: !v.file.template_copy,
        });
    }
    out
}
