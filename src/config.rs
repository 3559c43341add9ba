//! `lemplint.toml` / `.lemplint.toml`: the user's settings.
//!
//! Looked for in the first path given (when it is a directory) and then in each parent, or
//! named with `--config`. Unknown keys are errors (a typo must not silently disable a
//! setting), reported with a code frame into the TOML.

use crate::diagnostic::Severity;
use crate::host::{HostFacts, HostSpec, Provenance};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const FILE_NAMES: [&str; 2] = ["lemplint.toml", ".lemplint.toml"];

#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// Rules to run (codes, prefixes, names, groups); default: the `default` group.
    pub select: Option<Vec<String>>,
    /// Rules to run on top of `select` (or of the default group): `["hardening"]`.
    #[serde(default)]
    pub extend_select: Vec<String>,
    #[serde(default)]
    pub ignore: Vec<String>,
    /// Glob → rules ignored in matching files.
    #[serde(default)]
    pub per_file_ignores: BTreeMap<String, Vec<String>>,
    pub fail_on: Option<Severity>,
    /// Per-rule options, `[rules.FPM004] worker-rss = "96MiB"`, as written: the rules layer
    /// checks them against each rule's typed options (`crate::rules::options`).
    #[serde(default)]
    pub rules: RuleTables,
    #[serde(default)]
    pub host: HostSpec,
    #[serde(default)]
    pub paths: PathsConfig,
    /// `lemplint fmt`'s layout.
    #[serde(default)]
    pub format: crate::format::FormatConfig,
}

#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PathsConfig {
    pub root: Option<PathBuf>,
    pub prefix: Option<PathBuf>,
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// A configuration and the file it came from.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    pub config: Config,
    pub path: Option<PathBuf>,
    /// `per-file-ignores`, compiled: pattern → the rules it ignores.
    pub per_file: Vec<(PathGlob, Vec<String>)>,
    /// The `paths` of each `[[host.profile]]`, compiled, in order.
    profiles: Vec<Vec<PathGlob>>,
    /// `[paths] exclude`, compiled.
    exclude: Vec<PathGlob>,
}

impl Loaded {
    /// Whether discovery leaves `path` out (`[paths] exclude`): files nothing includes are
    /// not looked at there; what a configuration includes is still read.
    pub fn excluded(&self, path: &Path) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        let rel = relative_to_config(self.path.as_deref(), path);
        self.exclude.iter().any(|g| g.matches(&rel))
    }
}

/// A path pattern of `lemplint.toml` (`per-file-ignores`, `[[host.profile]] paths`), matched
/// against paths relative to the config file's directory, one syntax for both: `*` and `?`
/// stay within a path component, `**` crosses them, `[…]` is a class; a pattern matches a
/// path when it matches the path or one of its directories, and `dir/**` matches `dir`
/// itself. So `hosts/*` covers every file under `hosts/web1/`, and `centminmod/**` the stack
/// rooted at `centminmod`.
#[derive(Clone, Debug)]
pub struct PathGlob {
    pub pattern: String,
    matcher: globset::GlobMatcher,
    /// For `dir/**`: `dir`.
    dir: Option<globset::GlobMatcher>,
}

impl PathGlob {
    pub fn new(pattern: &str) -> Result<PathGlob, String> {
        let build = |p: &str| {
            globset::GlobBuilder::new(p)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map(|g| g.compile_matcher())
                .map_err(|e| format!("invalid glob {pattern:?}: {}", e.kind()))
        };
        let trimmed = pattern.trim_start_matches("./");
        Ok(PathGlob {
            pattern: pattern.to_string(),
            matcher: build(trimmed)?,
            dir: match trimmed.strip_suffix("/**") {
                Some(d) if !d.is_empty() => Some(build(d)?),
                _ => None,
            },
        })
    }

    /// Whether `path` (relative to the config file's directory) or one of its directories
    /// matches.
    pub fn matches(&self, path: &Path) -> bool {
        path.ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .any(|a| self.matcher.is_match(a) || self.dir.as_ref().is_some_and(|d| d.is_match(a)))
    }
}

/// `path` relative to the directory of the config file at `config` (as given when it lies
/// elsewhere).
pub fn relative_to_config(config: Option<&Path>, path: &Path) -> PathBuf {
    let base = config.and_then(|p| p.parent()).unwrap_or(Path::new(""));
    std::path::absolute(path)
        .ok()
        .and_then(|abs| {
            let base = std::path::absolute(base).ok()?;
            abs.strip_prefix(&base).ok().map(Path::to_path_buf)
        })
        .unwrap_or_else(|| path.to_path_buf())
}

/// `[rules.*]` as written: rule key → option key → value, each with its place in the file.
pub type RuleTables = BTreeMap<Spanned<String>, OptionTable>;
/// One `[rules.CODE]` table.
pub type OptionTable = BTreeMap<Spanned<String>, Spanned<toml::Value>>;
pub use toml::Spanned;

/// A problem with one option value (or key), with the byte range of the offending TOML.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionError {
    pub message: String,
    pub span: Option<std::ops::Range<usize>>,
    /// For an unknown key: the key and the keys the table accepts (from serde's
    /// `unknown_field`), so the caller can say what was meant.
    pub unknown: Option<(String, &'static [&'static str])>,
}

impl std::fmt::Display for OptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OptionError {}

impl serde::de::Error for OptionError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        OptionError {
            message: msg.to_string(),
            span: None,
            unknown: None,
        }
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        OptionError {
            message: format!("unknown option `{field}`"),
            span: None,
            unknown: Some((field.to_string(), expected)),
        }
    }
}

/// A serde deserializer over one `[rules.CODE]` table: a rule's typed options are read from
/// it, and every error comes back with the place of the key or value at fault (a value
/// error's message starts with the key: `reserve: invalid size "lots"`).
pub struct OptionsDeserializer<'a> {
    table: &'a OptionTable,
}

impl<'a> OptionsDeserializer<'a> {
    pub fn new(table: &'a OptionTable) -> Self {
        OptionsDeserializer { table }
    }
}

impl<'de> serde::Deserializer<'de> for OptionsDeserializer<'_> {
    type Error = OptionError;

    fn deserialize_any<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, OptionError> {
        visitor.visit_map(OptionsAccess {
            iter: self.table.iter(),
            value: None,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct OptionsAccess<'a> {
    iter: std::collections::btree_map::Iter<'a, Spanned<String>, Spanned<toml::Value>>,
    value: Option<(&'a Spanned<String>, &'a Spanned<toml::Value>)>,
}

impl<'de> serde::de::MapAccess<'de> for OptionsAccess<'_> {
    type Error = OptionError;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, OptionError> {
        use serde::de::IntoDeserializer;
        let Some((k, v)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some((k, v));
        let key: serde::de::value::StrDeserializer<'_, OptionError> =
            k.get_ref().as_str().into_deserializer();
        seed.deserialize(key).map(Some).map_err(|mut e| {
            e.span = e.span.or(Some(k.span()));
            e
        })
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, OptionError> {
        let (k, v) = self
            .value
            .take()
            .expect("next_value_seed is called after next_key_seed");
        seed.deserialize(v.get_ref().clone())
            .map_err(|e| OptionError {
                message: format!("{}: {}", k.get_ref(), e.message()),
                span: Some(v.span()),
                unknown: None,
            })
    }
}

/// A problem in a config file, with the byte range of the offending TOML.
#[derive(Debug)]
pub struct ConfigError {
    pub path: PathBuf,
    pub text: String,
    pub message: String,
    pub span: Option<std::ops::Range<usize>>,
    /// What the user probably meant (a near key), shown under the code frame.
    pub help: Option<String>,
}

impl<'de> serde::Deserialize<'de> for Severity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match s.as_str() {
            "error" => Ok(Severity::Error),
            "warning" => Ok(Severity::Warning),
            "info" => Ok(Severity::Info),
            _ => Err(serde::de::Error::custom(format!(
                "invalid severity \"{}\": expected \"error\", \"warning\" or \"info\"",
                crate::escape::excerpt(&s, 40)
            ))),
        }
    }
}

/// Finds the config for `start` (a file or directory): the first `lemplint.toml` or
/// `.lemplint.toml` in it or a parent directory.
pub fn find(start: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(start).ok()?;
    let mut dir = if abs.is_dir() {
        Some(abs.as_path())
    } else {
        abs.parent()
    };
    while let Some(d) = dir {
        for name in FILE_NAMES {
            let p = d.join(name);
            if p.is_file() {
                return Some(crate::stack::paths::relative_to_cwd(&p));
            }
        }
        dir = d.parent();
    }
    None
}

pub fn load(path: &Path) -> Result<Loaded, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        path: path.to_path_buf(),
        text: String::new(),
        message: format!("cannot read {}: {e}", path.display()),
        span: None,
        help: None,
    })?;
    parse(path, text)
}

pub fn parse(path: &Path, text: String) -> Result<Loaded, ConfigError> {
    let config: Config = match toml::from_str(&text) {
        Ok(c) => c,
        Err(e) => {
            return Err(ConfigError {
                path: path.to_path_buf(),
                message: e.message().to_string(),
                span: e.span(),
                help: None,
                text,
            })
        }
    };
    let bad = |message: String| ConfigError {
        path: path.to_path_buf(),
        text: text.clone(),
        message,
        span: None,
        help: None,
    };
    if config.host.paths.is_some() {
        return Err(bad(
            "`paths` belongs in a [[host.profile]], not in [host]".into()
        ));
    }
    for p in &config.host.profile {
        if p.paths.as_ref().is_none_or(Vec::is_empty) {
            return Err(bad(
                "every [[host.profile]] needs `paths` (globs of the stacks it describes)".into(),
            ));
        }
        if !p.profile.is_empty() {
            return Err(bad("[[host.profile]] cannot nest profiles".into()));
        }
    }
    let profiles = config
        .host
        .profile
        .iter()
        .map(|p| {
            p.paths
                .iter()
                .flatten()
                .map(|g| PathGlob::new(g).map_err(|e| bad(format!("[[host.profile]]: {e}"))))
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let per_file = config
        .per_file_ignores
        .iter()
        .map(|(g, rules)| {
            PathGlob::new(g)
                .map(|m| (m, rules.clone()))
                .map_err(|e| bad(format!("[per-file-ignores]: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Check values now, not when a rule first needs them.
    let mut probe = HostFacts::default();
    probe
        .fill_from(&config.host, &Provenance::Flag)
        .map_err(|m| bad(format!("[host]: {m}")))?;
    let exclude = config
        .paths
        .exclude
        .iter()
        .map(|g| PathGlob::new(g).map_err(|e| bad(format!("[paths] exclude: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Loaded {
        config,
        path: Some(path.to_path_buf()),
        per_file,
        profiles,
        exclude,
    })
}

impl Loaded {
    /// Host facts for a stack at `stack_path`: `flags` first, then the first matching
    /// `[[host.profile]]`, then `[host]`.
    pub fn host_facts(&self, flags: &HostSpec, stack_path: &Path) -> Result<HostFacts, String> {
        let mut facts = HostFacts::default();
        facts.fill_from(flags, &Provenance::Flag)?;
        let file = self
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let rel = relative_to_config(self.path.as_deref(), stack_path);
        for (profile, globs) in self.config.host.profile.iter().zip(&self.profiles) {
            if let Some(hit) = globs.iter().find(|g| g.matches(&rel)) {
                let source = Provenance::Profile {
                    file: file.clone(),
                    pattern: hit.pattern.clone(),
                };
                facts.fill_from(profile, &source)?;
                break;
            }
        }
        facts.fill_from(&self.config.host, &Provenance::Config { file })?;
        Ok(facts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_errors_with_a_span() {
        let e = parse(Path::new("lemplint.toml"), "selct = []\n".into()).unwrap_err();
        assert!(e.message.contains("unknown field `selct`"), "{}", e.message);
        assert_eq!(e.span, Some(0..5));
    }

    #[test]
    fn profiles_match_stack_paths() {
        let text = r#"
[host]
cpus = 2
memory = "2GiB"

[[host.profile]]
paths = ["hosts/big-*"]
cpus = 64
memory = "256GiB"
"#;
        let loaded = parse(Path::new("lemplint.toml"), text.into()).unwrap();
        let big = loaded
            .host_facts(&HostSpec::default(), Path::new("hosts/big-1"))
            .unwrap();
        assert_eq!(big.cpus.unwrap().value, 64);
        let small = loaded
            .host_facts(&HostSpec::default(), Path::new("hosts/small-1"))
            .unwrap();
        assert_eq!(small.cpus.unwrap().value, 2);
        let flag = HostSpec {
            cpus: Some(1),
            ..Default::default()
        };
        assert_eq!(
            loaded
                .host_facts(&flag, Path::new("hosts/big-1"))
                .unwrap()
                .cpus
                .unwrap()
                .value,
            1
        );
    }

    #[test]
    fn one_glob_syntax_for_profiles_and_per_file_ignores() {
        let g = |p: &str| PathGlob::new(p).unwrap();
        assert!(g("centminmod/**").matches(Path::new("centminmod")));
        assert!(g("centminmod/**").matches(Path::new("centminmod/usr/local/nginx/conf/nginx.conf")));
        assert!(g("hosts/*").matches(Path::new("hosts/web1/etc/nginx/nginx.conf")));
        assert!(!g("hosts/*.conf").matches(Path::new("hosts/web1/x.conf")));
        assert!(g("**/sites-enabled/*").matches(Path::new("a/etc/nginx/sites-enabled/x")));
        assert!(!g("hosts/web1").matches(Path::new("hosts/web10/x")));
        assert!(PathGlob::new("a/[").is_err());
        let text = "[[host.profile]]\npaths = [\"centminmod/**\"]\ncpus = 8\n";
        let loaded = parse(Path::new("lemplint.toml"), text.into()).unwrap();
        let facts = loaded
            .host_facts(&HostSpec::default(), Path::new("centminmod"))
            .unwrap();
        assert_eq!(facts.cpus.unwrap().value, 8);
    }

    #[test]
    fn bad_values_are_reported_at_load() {
        let e = parse(Path::new("x.toml"), "[host]\nmemory = \"lots\"\n".into()).unwrap_err();
        assert!(e.message.contains("invalid size"), "{}", e.message);
    }
}
