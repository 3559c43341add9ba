//! The PHP settings a pool runs with, and where each comes from. php-fpm starts from PHP's
//! compiled-in defaults, reads php.ini and then the scan directory (`php_init_config`), and
//! when a worker starts it applies the pool's `php_value`/`php_flag` and then its
//! `php_admin_value`/`php_admin_flag` (`fpm_php_apply_defines`). php-fpm 8.2 applies a
//! `php_value` whatever the directive's access level (a `PHP_INI_SYSTEM` directive such as
//! `allow_url_fopen` takes it too: `fpm_php_zend_ini_alter_master` does not check it); what
//! `admin` adds is that the value is locked against `ini_set()` and `.user.ini`.
//! `tests/php_ini_binary.rs` checks this order against the real php-fpm8.2.

use super::instances::{PoolView, Val};
use super::php_ini::{IniSet, IniVal};
use crate::source::{Shared, Span};

/// Where an effective value comes from.
#[derive(Clone)]
pub enum Origin<'a> {
    /// PHP's compiled-in default (no php.ini or pool sets it).
    Default,
    /// A php.ini file.
    Ini(IniVal<'a>),
    /// The pool's `php_value`/`php_flag` (`admin` false) or `php_admin_value`/`php_admin_flag`.
    Pool { val: Val<'a>, admin: bool },
}

/// A setting's value as a pool's scripts see it.
#[derive(Clone)]
pub struct Effective<'a> {
    pub text: String,
    /// False when the value depends on the environment or an unknown constant.
    pub known: bool,
    pub origin: Origin<'a>,
}

impl<'a> Effective<'a> {
    /// Where the value comes from, in words (`php.ini:412`, `www.conf:30, php_admin_value`,
    /// `PHP's default`).
    pub fn describe(&self) -> String {
        let at = |src: &crate::source::Shared, offset: u32| {
            let name = src
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{}:{}", crate::escape::line(&name), src.line_of(offset))
        };
        match &self.origin {
            Origin::Default if self.known => "PHP's default".into(),
            Origin::Default => "PHP's default; no php.ini for this pool in the tree".into(),
            Origin::Ini(v) => at(&v.file.source, v.span().start),
            Origin::Pool { val, admin } => {
                let kind = if *admin {
                    "php_admin_value"
                } else {
                    "php_value"
                };
                format!("{}, {kind}", at(val.at.file(), val.span().start))
            }
        }
    }

    /// The value as written where it is set (`Off`, `256M`), or PHP's default (`""` when
    /// empty).
    pub fn shown(&self) -> String {
        let written = match &self.origin {
            Origin::Default => None,
            Origin::Ini(v) => v
                .entry()
                .map(|e| v.file.source.str(e.raw_value).trim().to_string()),
            Origin::Pool { val, .. } => val
                .entry()
                .map(|e| val.at.file().str(e.raw_value).trim().to_string()),
        };
        match written.unwrap_or_else(|| self.text.clone()) {
            w if w.is_empty() => "\"\"".into(),
            w => w,
        }
    }

    /// Whether the value was written somewhere (not PHP's default).
    pub fn is_set(&self) -> bool {
        !matches!(self.origin, Origin::Default)
    }

    /// Where the value is written when someone chose it: a pool's own setting, or a php.ini
    /// that is not a copy of the distribution's template (whose values were copied, see
    /// [`super::php_template`]). `None` for PHP's default and a template copy's line.
    pub fn chosen_at(&self) -> Option<(&'a Shared, Span)> {
        match &self.origin {
            Origin::Default => None,
            Origin::Ini(v) if v.file.template_copy => None,
            Origin::Ini(v) => Some((&v.file.source, v.span())),
            Origin::Pool { val, .. } => Some((val.at.file(), val.span())),
        }
    }
}

/// The settings rules judge, shown by `lemplint stack` for each pool.
pub const SHOWN: &[&str] = &[
    "allow_url_include",
    "cgi.fix_pathinfo",
    "display_errors",
    "expose_php",
    "max_execution_time",
    "memory_limit",
    "opcache.enable",
    "post_max_size",
    "upload_max_filesize",
];

impl<'a> PoolView<'a> {
    /// The value of PHP setting `name` this pool's scripts see: the pool's own, else php.ini's
    /// (when the pool's php.ini is known), else PHP's default. `None` for a directive PHP
    /// does not know that nothing sets.
    pub fn php(&self, name: &str) -> Option<Effective<'a>> {
        if let Some((val, admin)) = self.php_setting(name) {
            // php-fpm reads a `php_flag`/`php_admin_flag` as a boolean and stores `1` or `0`
            // (`fpm_conf_set_array`); a `php_value` is stored as the INI parser gives it
            // (`Off` → empty).
            let flag = val
                .entry()
                .is_some_and(|e| e.name_bytes(&val.at.file().text).ends_with(b"_flag"));
            let text = match flag {
                true if super::instances::php_bool(&val.text) => "1".into(),
                true => "0".into(),
                false => val.text.clone(),
            };
            return Some(Effective {
                text,
                known: val.known,
                origin: Origin::Pool { val, admin },
            });
        }
        from_ini(self.ini, name)
    }
}

/// The value of `name` from a php.ini set alone: its last global assignment, else PHP's
/// default (known only when the set is: without it, the server's php.ini may say otherwise).
/// `None` for a directive PHP does not know that the set does not write.
pub fn from_ini<'a>(ini: Option<&'a IniSet>, name: &str) -> Option<Effective<'a>> {
    if let Some(v) = ini.and_then(|set| set.get(name)) {
        return Some(Effective {
            text: v.text.clone(),
            known: v.known,
            origin: Origin::Ini(v),
        });
    }
    let d = crate::syntax::phpini::directive(name)?;
    Some(Effective {
        text: d.default.into(),
        known: ini.is_some(),
        origin: Origin::Default,
    })
}

/// PHP's quantity (`zend_ini_parse_quantity`): an integer with an optional `K`/`M`/`G` (any
/// case), leading blanks allowed. `None`: not one we read the same way as PHP.
pub fn php_quantity(text: &str) -> Option<u64> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = t[..digits].parse().ok()?;
    let mult = match t[digits..].trim() {
        "" => 1,
        "k" | "K" => 1 << 10,
        "m" | "M" => 1 << 20,
        "g" | "G" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mult)
}
