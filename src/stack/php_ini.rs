//! The php.ini files of a stack, grouped as PHP reads them: one set per PHP configuration
//! directory (its *home*), `php.ini` first, then the scan directory's `*.ini` files in
//! alphabetical order of their names (`php_init_config()` sorts them with `alphasort`), the
//! last value of a directive winning.
//!
//! Homes, by layout:
//! * Debian: `etc/php/8.2/fpm/php.ini` and `etc/php/8.2/fpm/conf.d/*.ini` → `etc/php/8.2/fpm`;
//! * the official docker images: `usr/local/etc/php/php.ini` and `…/php/conf.d/*.ini` →
//!   `usr/local/etc/php`;
//! * RHEL: `etc/php.ini` and `etc/php.d/*.ini` → `etc`;
//! * a repository's own layout: the file's directory (`docker/php/custom.ini`, which a
//!   Dockerfile copies into the scan directory), or the parent of its `conf.d/`.
//!
//! `php.ini-production` and `php.ini-development` are the distribution's templates, and
//! `php8.2.ini` or `php-prod.ini` outside a scan directory one of several php.ini a build
//! picks from: PHP never reads them under that name, so each is a set of its own that no
//! pool runs with.
//!
//! Which php-fpm runs with which set: [`IniSets::for_dir`].

use super::fs::Fs;
use crate::source::{Shared, Span};
use crate::syntax::fpm::{Entry, LineKind};
use crate::syntax::phpini::{self, Parsed, Scope};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub struct IniFile {
    pub source: Shared,
    pub parsed: Parsed,
    /// A copy of the distribution's template, edited or not
    /// ([`super::php_template::copies_template`]): its weak values were copied, not chosen.
    pub template_copy: bool,
}

/// The php.ini files PHP reads from one home, in reading order.
pub struct IniSet {
    pub home: PathBuf,
    pub files: Vec<IniFile>,
    /// A template or variant (`php.ini-production`, `php8.2.ini` outside a scan directory):
    /// linted on its own, but no pool runs with it (which one a build copies into place is
    /// not in the tree).
    pub template: bool,
    /// Why this looks like a development configuration (see [`development`]), if it does.
    pub development: Option<String>,
    /// Directive → (file, item) of its last global assignment.
    last: HashMap<String, (usize, usize)>,
}

/// A php.ini value: where it is written and what PHP reads.
#[derive(Clone)]
pub struct IniVal<'a> {
    pub file: &'a IniFile,
    /// The item index in the file.
    pub line: usize,
    /// After INI evaluation (quotes removed, `On` → `1`).
    pub text: String,
    /// False when the value depends on the environment (`${VAR}`) or an unknown constant.
    pub known: bool,
}

impl<'a> IniVal<'a> {
    pub fn entry(&self) -> Option<&'a Entry> {
        match &self.file.parsed.file.lines.get(self.line)?.kind {
            LineKind::Entry(e) => Some(e),
            _ => None,
        }
    }

    /// The value's span (the entry's when it has no value).
    pub fn span(&self) -> Span {
        self.entry()
            .map(super::instances::value_span)
            .unwrap_or_default()
    }

    /// `memory_limit = 256M` as written (key and raw value).
    pub fn written(&self) -> String {
        let src = &self.file.source;
        match self.entry() {
            Some(e) => format!("{} = {}", src.str(e.key), src.str(e.raw_value).trim()),
            None => String::new(),
        }
    }
}

impl IniSet {
    /// The value PHP reads for `name` from these files: the last assignment outside
    /// `[PATH=…]`/`[HOST=…]` sections. Names are case-sensitive, as in PHP.
    pub fn get(&self, name: &str) -> Option<IniVal<'_>> {
        let &(file, line) = self.last.get(name)?;
        self.val(file, line)
    }

    fn val(&self, file: usize, line: usize) -> Option<IniVal<'_>> {
        let f = &self.files[file];
        let LineKind::Entry(e) = &f.parsed.file.lines[line].kind else {
            return None;
        };
        let (raw, known) = super::fpm::eval_value(e, &f.source.text);
        Some(IniVal {
            file: f,
            line,
            text: String::from_utf8_lossy(&raw).into_owned(),
            known,
        })
    }

    /// Every directive set here, with its value, sorted by name.
    pub fn values(&self) -> Vec<(&str, IniVal<'_>)> {
        let mut out: Vec<_> = self
            .last
            .iter()
            .filter_map(|(k, &(f, l))| Some((k.as_str(), self.val(f, l)?)))
            .collect();
        out.sort_by(|a, b| a.0.cmp(b.0));
        out
    }

    /// The home as shown to the user.
    pub fn shown_home(&self) -> String {
        crate::escape::path(&self.home)
    }
}

/// Every php.ini set of a stack.
#[derive(Default)]
pub struct IniSets {
    pub sets: Vec<IniSet>,
}

impl IniSets {
    /// The set a php-fpm whose master (or first pool file) lies in `dir` runs with: the one
    /// whose home is `dir` (Debian, RHEL), `dir/php` (docker: `usr/local/etc/php-fpm.conf`
    /// beside `usr/local/etc/php/`), the parent of `dir` or its `php/` (a pool directory
    /// beside them: `pool.d/`, `php-fpm.d/`). Failing those, the stack's only set when there
    /// is exactly one and `only_php` says this is the stack's only php-fpm (a repository's
    /// `docker/php.ini` beside `docker/www.conf` in another directory). Templates never.
    pub fn for_dir(&self, dir: &Path, only_php: bool) -> Option<&IniSet> {
        let parent = dir.parent().unwrap_or(dir);
        let candidates = [
            dir.to_path_buf(),
            dir.join("php"),
            parent.to_path_buf(),
            parent.join("php"),
        ];
        let live = || self.sets.iter().filter(|s| !s.template);
        candidates
            .iter()
            .find_map(|c| live().find(|s| &s.home == c))
            .or_else(|| {
                let mut sets = live();
                match (sets.next(), sets.next()) {
                    (Some(only), None) if only_php => Some(only),
                    _ => None,
                }
            })
    }
}

/// Where a php.ini file's set lives, and whether it is `php.ini` itself.
fn home_of(path: &Path) -> (PathBuf, Role) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    if name == "php.ini" {
        return (dir, Role::Main);
    }
    let scan_dir = dir
        .file_name()
        .is_some_and(|d| d == "conf.d" || d == "php.d");
    // `php.ini-production`, and outside a scan directory `php8.2.ini`, `php-prod.ini`: one
    // of several php.ini a build picks from (laradock keeps one per PHP version).
    if name.starts_with("php.ini-")
        || (!scan_dir && name.starts_with("php") && name.ends_with(".ini"))
        || is_variant(&name)
    {
        return (dir, Role::Template);
    }
    match dir.parent() {
        Some(p) if scan_dir => (p.to_path_buf(), Role::Scan),
        _ => (dir, Role::Scan),
    }
}

/// Words that name one environment's file (`20-app.dev.ini` beside `20-app.prod.ini`,
/// `php.deploy.ini`): a build copies one of them, so none is merged with the others.
const VARIANT_WORDS: &[&str] = &[
    "dev",
    "development",
    "devel",
    "local",
    "prod",
    "production",
    "deploy",
    "staging",
];

fn is_variant(name: &str) -> bool {
    name.to_ascii_lowercase()
        .split(['.', '-', '_'])
        .any(|w| VARIANT_WORDS.contains(&w))
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    Main,
    Scan,
    Template,
}

/// Reads the php.ini files and groups them into sets.
pub fn load(
    fs: &dyn Fs,
    root: &Path,
    paths: &[PathBuf],
    unreadable: &mut Vec<super::model::Unread>,
) -> IniSets {
    // (home, role, name) orders each set's files as PHP reads them; a template is keyed by
    // its own path, so each is alone.
    let mut keyed: Vec<(PathBuf, Role, String, &PathBuf)> = paths
        .iter()
        .map(|p| {
            let (home, role) = home_of(p);
            let home = if role == Role::Template {
                p.clone()
            } else {
                home
            };
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (home, role, name, p)
        })
        .collect();
    keyed.sort();
    let mut sets: Vec<IniSet> = Vec::new();
    for (home, role, _, path) in keyed {
        let mut source = match fs.source(path).1 {
            Ok(s) => s,
            Err(e) => {
                unreadable.push(super::model::Unread::new(path, &e));
                continue;
            }
        };
        use crate::syntax::template;
        let masked = super::values::prepare(fs, &mut source, template::Lang::PhpIni);
        let text = masked.as_deref().unwrap_or(&source.text);
        let parsed = phpini::parse(text);
        let template_copy = super::php_template::copies_template(&parsed, text);
        let file = IniFile {
            source: Shared::new(source),
            parsed,
            template_copy,
        };
        let (home, template) = match role {
            Role::Template => (path.parent().unwrap_or(Path::new("")).to_path_buf(), true),
            _ => (home, false),
        };
        match sets.last_mut() {
            Some(s) if !template && !s.template && s.home == home => s.files.push(file),
            _ => sets.push(IniSet {
                home,
                files: vec![file],
                template,
                development: None,
                last: HashMap::new(),
            }),
        }
    }
    for set in &mut sets {
        for (fi, f) in set.files.iter().enumerate() {
            let src = &f.source.text;
            // PHP keeps what precedes a syntax error and drops the rest of the file.
            let end = first_error(&f.parsed).map_or(u32::MAX, |e| e.span.start);
            for (line, e) in f.parsed.file.entries() {
                if e.key.start >= end {
                    break;
                }
                if e.subkey.is_some()
                    || phpini::section_scope(&f.parsed.file, src, line) != Scope::Global
                {
                    continue;
                }
                let name = e.key_text(src).into_owned();
                set.last.insert(name, (fi, line));
            }
        }
        set.development = development(set, root);
    }
    IniSets { sets }
}

/// Words that mark a development configuration: in a file name, and (without `local`, which
/// is also `usr/local`) in a directory name.
const DEV_WORDS: &[&str] = &["dev", "development", "devel", "local"];

/// Why a file looks like a development one by its path below the stack's root, if it does:
/// a development word in its name (`php.ini-development`, `php-local.ini`, `dev.conf`) or in
/// a directory's (`docker/dev/php.ini`; `local` does not count there, for `usr/local`).
pub fn named_for_development(path: &Path, root: &Path) -> Option<String> {
    let words = |s: &str, local: bool| {
        s.to_ascii_lowercase()
            .split(['.', '-', '_'])
            .find(|w| DEV_WORDS.contains(w) && (local || *w != "local"))
            .map(str::to_string)
    };
    let rel = path.strip_prefix(root).unwrap_or(path);
    let name = rel.file_name().map(|n| n.to_string_lossy().into_owned());
    let in_name = name.as_deref().and_then(|n| words(n, true));
    let in_dir = || {
        rel.parent()?
            .iter()
            .find_map(|c| words(&c.to_string_lossy(), false))
    };
    in_name.or_else(in_dir).map(|w| {
        format!(
            "{} is named for development (`{w}`)",
            crate::escape::path(path)
        )
    })
}

/// Why a set looks like a development configuration, if it does: a file or directory name
/// (below the stack's root) says so (`php.ini-development`, `php-local.ini`,
/// `docker/dev/php.ini`: whole words between `/ . - _`), `zend.assertions = 1` (the value
/// php.ini-development sets, production's is -1), or Xdebug loaded or configured. Each set
/// decides alone: `php.deploy.ini` beside `php.development.ini` is not a development file.
/// Production warnings
/// (`display_errors`) are not given for such a set.
pub fn development(set: &IniSet, root: &Path) -> Option<String> {
    if let Some(why) = set
        .files
        .iter()
        .find_map(|f| named_for_development(&f.source.path, root))
    {
        return Some(why);
    }
    if let Some(v) = set.get("zend.assertions") {
        if v.known && v.text.trim() == "1" {
            return Some(format!(
                "`{}` ({}) is php.ini-development's value",
                v.written(),
                crate::escape::path(&v.file.source.path)
            ));
        }
    }
    for f in &set.files {
        let src = &f.source.text;
        for (_, e) in f.parsed.file.entries() {
            let key = e.key_text(src);
            if key.starts_with("xdebug.") {
                return Some(format!(
                    "{} configures Xdebug",
                    crate::escape::path(&f.source.path)
                ));
            }
            if key == "zend_extension" || key == "extension" {
                let value = String::from_utf8_lossy(&e.value_text_no_env(src)).to_ascii_lowercase();
                if value.contains("xdebug") {
                    return Some(format!(
                        "{} loads Xdebug",
                        crate::escape::path(&f.source.path)
                    ));
                }
            }
        }
    }
    None
}

/// The first error PHP itself stops at in a php.ini file. An entry without a value, which
/// php-fpm rejects (`value is NULL for a ZEND_INI_PARSER_ENTRY`), PHP skips in silence
/// (`php_ini_parser_cb` returns on a NULL value).
pub fn first_error(parsed: &Parsed) -> Option<&crate::syntax::SyntaxError> {
    parsed
        .errors
        .iter()
        .filter(|e| !e.message.starts_with("value is NULL"))
        .min_by_key(|e| e.span.start)
}
