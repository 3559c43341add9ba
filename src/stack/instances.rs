//! PHP-FPM instances: the php-fpm processes a stack would start, each with its pools merged
//! by name across the files it reads, and every value as php-fpm would read it (known, or set
//! at runtime by `${VAR}` or a template placeholder).
//!
//! A master (`php-fpm*.conf`) is one instance with the files it includes; pool files that no
//! master reads are grouped by directory, as `include = pool.d/*.conf` would read them, and
//! are marked not loaded (`master == false`). Built once per lint run and shared by the rules
//! (`Context::fpm_instances`), and by whatever else sizes or lists pools.

use super::fpm::{eval_value, FpmConfig, Setting};
use super::model::Stack;
use crate::source::{Shared, Span};
use crate::syntax::error::SyntaxError;
use crate::syntax::fpm::{self, AfterInclude, Entry, Line, LineKind, StartIn};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// `unknown entry 'x'` / `unknown directive 'x'`: php-fpm's words for a name it does not know
/// (FPM002's findings; FPM001 reports the other load errors).
pub fn is_unknown_name(message: &str) -> bool {
    message.starts_with("unknown entry ") || message.starts_with("unknown directive ")
}

/// One php-fpm as it would run: a master with the files it includes, or the pool files of one
/// directory that no master reads (read together, as `include = pool.d/*.conf` would).
pub struct Instance<'a> {
    pub configs: Vec<&'a FpmConfig>,
    /// Loaded from a `php-fpm*.conf` master.
    pub master: bool,
    /// Every file php-fpm reads is known and loads cleanly: a setting absent from the files
    /// takes php-fpm's default. False for pool files without their master.
    pub complete: bool,
    /// Every `include` was read (at least one file each, none outside the tree or missing).
    /// An include glob that matches nothing in a repository may well match on the server.
    pub includes_read: bool,
    pub pools: Vec<PoolView<'a>>,
    /// php-fpm 8.2's per-entry load errors, every file of the instance.
    pub load_errors: Vec<LoadError<'a>>,
    /// `[global]` settings by lowercased key: the last occurrence in reading order.
    globals: HashMap<String, At<'a>>,
    /// The php.ini files this php-fpm reads, when the stack has them.
    pub ini: Option<&'a super::php_ini::IniSet>,
}

/// A load error and the file it is in.
pub struct LoadError<'a> {
    pub cfg: &'a FpmConfig,
    pub file: usize,
    pub error: SyntaxError,
    /// Whether the entry is read in a pool (`Some(true)`), in `[global]`, or unknown (the start
    /// of a pool file no master reads).
    pub in_pool: Option<bool>,
}

impl<'a> LoadError<'a> {
    pub fn file(&self) -> &'a Shared {
        &self.cfg.files[self.file].source
    }

    /// The entry the error is about (its key span is the error's span).
    pub fn entry(&self) -> Option<&'a Entry> {
        self.cfg.files[self.file]
            .parsed
            .file
            .entries()
            .map(|(_, e)| e)
            .find(|e| e.key == self.error.span)
    }
}

/// Where a setting or a pool header is written.
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub cfg: &'a FpmConfig,
    pub setting: Setting,
}

impl<'a> At<'a> {
    pub fn file(self) -> &'a Shared {
        self.cfg.source(self.setting)
    }

    pub fn entry(self) -> Option<&'a Entry> {
        self.cfg.entry(self.setting)
    }

    /// The items of the file the setting is in.
    pub fn lines(self) -> &'a [Line] {
        &self.cfg.files[self.setting.file].parsed.file.lines
    }

    /// `[name]`, when this is a section header.
    pub fn header_span(self) -> Option<Span> {
        match &self.lines().get(self.setting.line)?.kind {
            LineKind::Section(s) => Some(Span::new(s.open.start, s.close.end)),
            _ => None,
        }
    }
}

/// The span to underline for an entry's value: the value, or `key =` when it is empty.
pub fn value_span(e: &Entry) -> Span {
    if e.raw_value.is_empty() {
        Span::new(e.key.start, e.eq.end)
    } else {
        e.raw_value
    }
}

/// A setting's value as php-fpm reads it.
#[derive(Clone)]
pub struct Val<'a> {
    pub at: At<'a>,
    /// After INI evaluation and `$pool` substitution.
    pub text: String,
    /// False when the value depends on the environment (`${VAR}`) or a PHP constant we do not
    /// know: the text is then not what php-fpm sees.
    pub known: bool,
}

impl<'a> Val<'a> {
    /// The header of the section this value is written in (`[www]`), where a setting the
    /// pool lacks is reported and inserted.
    pub fn section_header(&self) -> Option<At<'a>> {
        let header = self.entry()?.section? as usize;
        Some(At {
            cfg: self.at.cfg,
            setting: Setting {
                file: self.at.setting.file,
                line: header,
            },
        })
    }

    fn of(at: At<'a>, pool: Option<&str>) -> Option<Val<'a>> {
        let e = at.entry()?;
        let src = &at.file().text;
        let (raw, known) = eval_value(e, src);
        let raw = match pool {
            Some(name) => fpm::expand_pool(&raw, name.as_bytes()),
            None => raw,
        };
        Some(Val {
            at,
            text: String::from_utf8_lossy(&raw).into_owned(),
            known,
        })
    }

    pub fn entry(&self) -> Option<&'a Entry> {
        self.at.entry()
    }

    pub fn span(&self) -> Span {
        self.entry().map(value_span).unwrap_or_default()
    }

    /// The value as php-fpm's integer parser reads it, when known and valid.
    pub fn int(&self) -> Option<i32> {
        self.known
            .then(|| fpm::parse_int(self.text.as_bytes()).ok())
            .flatten()
    }
}

/// A pool merged by name across the files of an instance.
pub struct PoolView<'a> {
    /// Its position among the pools of every instance, in order.
    pub id: super::ids::PoolId,
    /// The name as written in its first header.
    pub name: String,
    /// Every header of the pool, in reading order (never empty).
    pub headers: Vec<At<'a>>,
    /// Every setting with its lowercased key (array keys keep their case), sorted by key
    /// and, within a key, in reading order. One list per pool with keys borrowed from the
    /// files' pools: a map per pool with a copied key and a list per setting cost about
    /// 900 bytes for a pool of four settings (20,000 pools: 18 MB), this about 160.
    settings: Vec<(&'a str, At<'a>)>,
    /// The php.ini files this pool's php-fpm reads, when the stack has them
    /// (`IniSets::for_dir`).
    pub ini: Option<&'a super::php_ini::IniSet>,
}

impl<'a> PoolView<'a> {
    /// The value php-fpm uses for `key` (the last occurrence), `$pool` substituted.
    pub fn get(&self, key: &str) -> Option<Val<'a>> {
        let &(_, at) = self.occurrences(&key.to_ascii_lowercase()).last()?;
        Val::of(at, Some(&self.name))
    }

    /// The occurrences of `key` (lowercased already), in reading order.
    fn occurrences(&self, key: &str) -> &[(&'a str, At<'a>)] {
        &self.settings[super::fpm::key_range(&self.settings, key)]
    }

    /// Every occurrence of `key` in reading order (the last one is php-fpm's).
    pub fn all(&self, key: &str) -> Vec<Val<'a>> {
        self.occurrences(&key.to_ascii_lowercase())
            .iter()
            .filter_map(|&(_, at)| Val::of(at, Some(&self.name)))
            .collect()
    }

    /// The pool's own value of the PHP setting `name`, and whether it is an admin one.
    /// php-fpm applies `php_value`/`php_flag` first and `php_admin_value`/`php_admin_flag`
    /// after them (`fpm_php_apply_defines`), so an admin value wins; within a level the last
    /// one does. An admin value also stays out of `ini_set`'s reach (it is marked
    /// `ZEND_INI_SYSTEM`), a `php_value` does not (`ZEND_INI_USER`).
    pub fn php_setting(&self, name: &str) -> Option<(Val<'a>, bool)> {
        // Every `php_*[…]` key sorts between `php_` and `php``; most pools write none, and
        // rules ask each pool for a dozen settings: the keys are looked up in that range
        // only, compared piecewise rather than formatted (240,000 pools asked 4 keys each
        // for every setting a rule reads).
        let lo = self.settings.partition_point(|(k, _)| *k < "php_");
        let hi = lo + self.settings[lo..].partition_point(|(k, _)| *k < "php`");
        let php = &self.settings[lo..hi];
        if php.is_empty() {
            return None;
        }
        let last = |kinds: [&str; 2]| {
            kinds
                .iter()
                .rev()
                .find_map(|k| php[super::fpm::joined_key_range(php, [k, "[", name, "]"])].last())
                .map(|&(_, at)| at)
        };
        if let Some(at) = last(["php_admin_flag", "php_admin_value"]) {
            return Val::of(at, Some(&self.name)).map(|v| (v, true));
        }
        let at = last(["php_flag", "php_value"])?;
        Val::of(at, Some(&self.name)).map(|v| (v, false))
    }
}

/// PHP's reading of a boolean setting (`zend_ini_parse_bool`): `on`, `yes`, `true` in any
/// case, or a number other than 0.
pub fn php_bool(text: &str) -> bool {
    let t = text.trim();
    ["on", "yes", "true"]
        .iter()
        .any(|w| t.eq_ignore_ascii_case(w))
        || t.parse::<i64>().is_ok_and(|n| n != 0)
}

impl<'a> Instance<'a> {
    /// A `[global]` setting (the last occurrence in reading order).
    pub fn global(&self, key: &str) -> Option<Val<'a>> {
        Val::of(*self.globals.get(&key.to_ascii_lowercase())?, None)
    }
}

/// Every php-fpm instance of the stack. PHP 5.2 XML configurations are left out (FPM000).
pub fn instances(stack: &Stack) -> Vec<Instance<'_>> {
    let mut out = Vec::new();
    let mut lone: Vec<(Option<PathBuf>, Vec<&FpmConfig>)> = Vec::new();
    for cfg in &stack.fpm {
        if cfg.files.iter().any(|f| f.parsed.file.xml) {
            continue;
        }
        if cfg.has_master {
            out.push(build(vec![cfg], true));
            continue;
        }
        let path = cfg.files.first().map(|f| f.source.path.clone());
        let dir = path
            .filter(|p| p.extension().is_some_and(|e| e == "conf"))
            .and_then(|p| p.parent().map(|d| d.to_path_buf()));
        match lone.iter_mut().find(|(d, _)| dir.is_some() && *d == dir) {
            Some((_, group)) => group.push(cfg),
            None => lone.push((dir, vec![cfg])),
        }
    }
    out.extend(lone.into_iter().map(|(_, cfgs)| build(cfgs, false)));
    let only_php = out.len() == 1;
    for inst in &mut out {
        let dir = inst
            .configs
            .first()
            .and_then(|c| c.files.first())
            .and_then(|f| f.source.path.parent().map(PathBuf::from));
        let ini = dir.and_then(|d| stack.php_ini.for_dir(&d, only_php));
        inst.ini = ini;
        for p in &mut inst.pools {
            p.ini = ini;
        }
    }
    for (i, p) in out.iter_mut().flat_map(|inst| &mut inst.pools).enumerate() {
        p.id = super::ids::PoolId::new(i);
    }
    out
}

fn build(configs: Vec<&FpmConfig>, master: bool) -> Instance<'_> {
    // Sized for every pool at once (see `fpm::assemble_pools`).
    let count = configs.iter().map(|c| c.pools.len()).sum();
    let mut pools: Vec<PoolView<'_>> = Vec::with_capacity(count);
    // Keyed by the name as written when it is lowercase already (nearly always), not a
    // lowercased copy of every pool's name.
    let mut by_name: crate::fxhash::FxHashMap<std::borrow::Cow<'_, str>, usize> =
        crate::fxhash::FxHashMap::default();
    by_name.reserve(count);
    let mut globals: HashMap<String, At<'_>> = HashMap::new();
    let mut load_errors = Vec::new();
    let mut clean = master;
    let mut includes_read = true;
    for cfg in &configs {
        includes_read &= cfg.problems.is_empty();
        for (i, f) in cfg.files.iter().enumerate() {
            includes_read &= f
                .parsed
                .file
                .includes(&f.source.text)
                .all(|(line, _)| cfg.files.iter().any(|g| g.included_from == Some((i, line))));
            clean &= f.parsed.errors.is_empty();
            // The headerless start of an included file belongs to the includer's section,
            // which the stack's pools do not record: treat such a pool as partly unknown.
            if i > 0 && f.parsed.file.entries().any(|(_, e)| e.section.is_none()) {
                clean = false;
            }
            for (error, in_pool) in file_load_errors(cfg, i) {
                clean = false;
                load_errors.push(LoadError {
                    cfg,
                    file: i,
                    error,
                    in_pool,
                });
            }
        }
        for file in 0..cfg.files.len() {
            for (line, e, in_pool) in entry_contexts(cfg, file) {
                if in_pool == Some(false) && e.subkey.is_none() {
                    let key = e
                        .key_text(&cfg.files[file].source.text)
                        .to_ascii_lowercase();
                    globals.insert(
                        key,
                        At {
                            cfg,
                            setting: Setting { file, line },
                        },
                    );
                }
            }
        }
        for p in &cfg.pools {
            // Pools by name (php-fpm compares them ignoring case), looked up, not searched.
            let key = if p.name.bytes().any(|b| b.is_ascii_uppercase()) {
                std::borrow::Cow::Owned(p.name.to_ascii_lowercase())
            } else {
                std::borrow::Cow::Borrowed(p.name.as_str())
            };
            let idx = *by_name.entry(key).or_insert_with(|| {
                pools.push(PoolView {
                    id: Default::default(),
                    name: p.name.clone(),
                    headers: Vec::new(),
                    settings: Vec::new(),
                    ini: None,
                });
                pools.len() - 1
            });
            let view = &mut pools[idx];
            view.headers
                .extend(p.headers.iter().map(|&setting| At { cfg, setting }));
            let own = p.settings.iter();
            view.settings
                .extend(own.map(|&(ref key, setting)| (&**key, At { cfg, setting })));
        }
    }
    pools.retain(|p| !p.headers.is_empty());
    for p in &mut pools {
        super::fpm::sort_by_key(&mut p.settings);
    }
    Instance {
        configs,
        master,
        complete: clean && includes_read,
        includes_read,
        pools,
        load_errors,
        globals,
        ini: None,
    }
}

/// The section the first lines of file `file` are read in: `[global]` for a master, the
/// includer's section at the `include` line for the first file of an include, the section
/// the file read before it by the same include ends in for the others, unknown for a pool file
/// that no master reads.
fn start_in(cfg: &FpmConfig, file: usize) -> Option<StartIn> {
    let mut f = file;
    for _ in 0..64 {
        let (includer, line) = match cfg.files.get(f)?.included_from {
            None => return cfg.has_master.then_some(StartIn::Global),
            Some(at) => at,
        };
        // php-fpm's current section carries from one file of a glob include into the next
        // (`php-fpm -tt`: a headerless `pm.max_children = 10` after a file ending in `[www]`
        // is www's): the file read just before this one by the same `include` decides. It
        // lies between the includer and this file (files are kept in read order).
        if let Some(prev) = last_read_by(cfg, (includer, line), f) {
            match last_section(cfg, prev) {
                Some(end) => return Some(end),
                None => {
                    f = prev;
                    continue;
                }
            }
        }
        let inc = cfg.files.get(includer)?;
        let LineKind::Entry(e) = &inc.parsed.file.lines.get(line)?.kind else {
            return None;
        };
        match e.section {
            Some(h) => {
                let LineKind::Section(s) = &inc.parsed.file.lines.get(h as usize)?.kind else {
                    return None;
                };
                return Some(if s.is_global(&inc.source.text) {
                    StartIn::Global
                } else {
                    StartIn::Pool
                });
            }
            None => f = includer,
        }
    }
    None
}

/// The last file below index `before` that the `include` at `at` (file, line) read: files
/// are kept in read order, so it is the one php-fpm read last of them.
fn last_read_by(cfg: &FpmConfig, at: (usize, usize), before: usize) -> Option<usize> {
    (0..before.min(cfg.files.len()))
        .rev()
        .find(|&j| cfg.files[j].included_from == Some(at))
}

/// The last section header of `file`, if it has one.
fn last_section(cfg: &FpmConfig, file: usize) -> Option<StartIn> {
    let f = cfg.files.get(file)?;
    let src = &f.source.text;
    f.parsed
        .file
        .lines
        .iter()
        .rev()
        .find_map(|line| match &line.kind {
            LineKind::Section(s) => Some(if s.is_global(src) {
                StartIn::Global
            } else {
                StartIn::Pool
            }),
            _ => None,
        })
}

/// Each entry of a file with where php-fpm reads it: `Some(true)` in a pool, `Some(false)` in
/// `[global]`, `None` unknown (the headerless start of a pool file no master reads).
pub fn entry_contexts(cfg: &FpmConfig, file: usize) -> Vec<(usize, &Entry, Option<bool>)> {
    let mut out = Vec::new();
    walk_sections(cfg, file, 0, |i, e, ctx| {
        out.push((i, e, ctx.map(|s| s == StartIn::Pool)))
    });
    out
}

/// Walks the lines of `file` with the section php-fpm is in (from [`start_in`], each
/// header, and after each `include` the section its last file ended in): `each` gets every
/// entry with the section it is read in (an `include` with the one before it), and the
/// section at the end of the file is returned. `depth` bounds includes that include.
fn walk_sections<'c>(
    cfg: &'c FpmConfig,
    file: usize,
    depth: usize,
    mut each: impl FnMut(usize, &'c Entry, Option<StartIn>),
) -> Option<StartIn> {
    let f = cfg.files.get(file)?;
    let src = &f.source.text;
    let mut ctx = start_in(cfg, file);
    for (i, line) in f.parsed.file.lines.iter().enumerate() {
        match &line.kind {
            LineKind::Section(s) => {
                ctx = Some(if s.is_global(src) {
                    StartIn::Global
                } else {
                    StartIn::Pool
                })
            }
            LineKind::Entry(e) => {
                each(i, e, ctx);
                if e.is_include(src) {
                    match after_include(cfg, file, i, depth) {
                        AfterInclude::Same => {}
                        AfterInclude::In(s) => ctx = Some(s),
                        AfterInclude::Unknown => ctx = None,
                    }
                }
            }
            _ => {}
        }
    }
    ctx
}

/// The section php-fpm is in after the `include` on `line` of `file`: the one the last file
/// it read ended in (php-fpm's current pool carries out of an included file: `php-fpm -tt`
/// applies a `pm.max_children` written after `include=pool.d/*.conf` to the last pool read).
/// Unknown when the include was not read (a path of the server, a file outside the tree).
fn after_include(cfg: &FpmConfig, file: usize, line: usize, depth: usize) -> AfterInclude {
    let Some(LineKind::Entry(e)) = cfg
        .files
        .get(file)
        .and_then(|f| f.parsed.file.lines.get(line))
        .map(|l| &l.kind)
    else {
        return AfterInclude::Same;
    };
    let unread = cfg
        .problems
        .iter()
        .any(|p| p.file == file && p.span.start >= e.key.start && p.span.end <= e.raw_value.end);
    if unread || depth > 16 {
        return AfterInclude::Unknown;
    }
    match last_read_by(cfg, (file, line), cfg.files.len()) {
        None => AfterInclude::Same,
        Some(last) => {
            end_section(cfg, last, depth + 1).map_or(AfterInclude::Unknown, AfterInclude::In)
        }
    }
}

/// The section php-fpm is in at the end of `file`, following its own includes.
fn end_section(cfg: &FpmConfig, file: usize, depth: usize) -> Option<StartIn> {
    walk_sections(cfg, file, depth, |_, _, _| {})
}

/// php-fpm 8.2's load errors for one file, each with the entry's context. Errors on values
/// that depend on `${VAR}` are dropped (the value php-fpm sees is unknown). For the headerless
/// start of a lone pool file, an error is kept only when php-fpm would refuse the entry in
/// `[global]` and in a pool alike.
fn file_load_errors(cfg: &FpmConfig, file: usize) -> Vec<(SyntaxError, Option<bool>)> {
    let f = &cfg.files[file];
    let src = &f.source.text;
    let pf = &f.parsed.file;
    let contexts: HashMap<Span, (Option<bool>, bool)> = entry_contexts(cfg, file)
        .into_iter()
        .map(|(_, e, c)| (e.key, (c, eval_value(e, src).1)))
        .collect();
    let after = |line: usize| after_include(cfg, file, line, 0);
    let errors = match start_in(cfg, file) {
        Some(start) => pf.load_errors_after_includes(src, &fpm::no_env, start, &after),
        None => {
            let global = pf.load_errors(src, &fpm::no_env, StartIn::Global);
            let headerless: HashSet<Span> = contexts
                .iter()
                .filter(|(_, (c, _))| c.is_none())
                .map(|(s, _)| *s)
                .collect();
            pf.load_errors(src, &fpm::no_env, StartIn::Pool)
                .into_iter()
                .filter_map(|e| {
                    if !headerless.contains(&e.span) {
                        return Some(e);
                    }
                    let other = global.iter().find(|g| g.span == e.span)?;
                    Some(if is_unknown_name(&e.message) {
                        other.clone()
                    } else {
                        e
                    })
                })
                .collect()
        }
    };
    errors
        .into_iter()
        .filter_map(|e| {
            let (ctx, known) = contexts.get(&e.span).copied().unwrap_or((None, true));
            (known || is_unknown_name(&e.message)).then_some((e, ctx))
        })
        .collect()
}
