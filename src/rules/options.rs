//! Typed rule options: each rule declares a struct for its `[rules.CODE]` table, and every
//! table of `lemplint.toml` is read into those structs when the file loads, before any rule
//! runs. An unknown rule, an unknown key or a value of the wrong type stops the run with the
//! place in the file (a typo must not silently turn a setting off).

use super::{RuleEntry, RULES};
use crate::config::{OptionError, OptionTable, OptionsDeserializer, RuleTables};
use crate::diagnostic::RuleId;
use std::any::Any;

/// What a rule's options struct must be: read from a `[rules.CODE]` table, with a value for
/// a table that is not written.
pub trait Options: serde::de::DeserializeOwned + Default + Send + Sync + 'static {}

impl<T: serde::de::DeserializeOwned + Default + Send + Sync + 'static> Options for T {}

/// The options of a rule that takes none: any key in its table is an error.
#[derive(Clone, Copy, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoOptions {}

type Parsed = Box<dyn Any + Send + Sync>;

/// How to read one rule's options, without knowing their type (the registry holds rules of
/// every type).
pub(crate) struct OptionsFns {
    parse: fn(&OptionTable) -> Result<Parsed, OptionError>,
    default: fn() -> Parsed,
    names: fn() -> &'static [&'static str],
}

impl OptionsFns {
    pub(crate) const fn of<T: Options>() -> OptionsFns {
        OptionsFns {
            parse: parse::<T>,
            default: default::<T>,
            names: field_names::<T>,
        }
    }

    pub(crate) fn names(&self) -> &'static [&'static str] {
        (self.names)()
    }
}

fn parse<T: Options>(table: &OptionTable) -> Result<Parsed, OptionError> {
    Ok(Box::new(T::deserialize(OptionsDeserializer::new(table))?))
}

fn default<T: Options>() -> Parsed {
    Box::new(T::default())
}

/// The keys a struct accepts, as serde names them (kebab-case here): asked of the type by a
/// deserializer that records the field list serde hands it and reads nothing.
fn field_names<T: Options>() -> &'static [&'static str] {
    struct Names<'a>(&'a mut &'static [&'static str]);

    impl<'de> serde::Deserializer<'de> for Names<'_> {
        type Error = OptionError;

        fn deserialize_any<V: serde::de::Visitor<'de>>(
            self,
            _: V,
        ) -> Result<V::Value, OptionError> {
            Err(serde::de::Error::custom("not a struct"))
        }

        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value, OptionError> {
            *self.0 = fields;
            Err(serde::de::Error::custom("names only"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }

    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(Names(&mut names));
    names
}

/// Every rule's options, in registry order: what the user wrote, else the defaults.
pub struct RuleOptions {
    by_rule: Vec<Parsed>,
    /// `[rules.CODE] severity = "…"`: the severity of every finding of the rule, in place
    /// of the one the rule gives it (hadolint's and ruff's per-rule override).
    severity: Vec<Option<crate::diagnostic::Severity>>,
}

impl Default for RuleOptions {
    fn default() -> Self {
        RuleOptions {
            by_rule: RULES.iter().map(|r| (r.options.default)()).collect(),
            severity: vec![None; RULES.len()],
        }
    }
}

impl std::fmt::Debug for RuleOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RuleOptions")
    }
}

/// A `[rules]` problem: the message, the byte range in lemplint.toml, and a suggestion.
#[derive(Debug, Clone, PartialEq)]
pub struct TableError {
    pub message: String,
    pub span: Option<std::ops::Range<usize>>,
    pub help: Option<String>,
}

/// Keys longer than this are not compared for suggestions (the comparison is quadratic in
/// the key; no real key comes near).
const MAX_SUGGESTED_LEN: usize = 64;

/// The candidate closest to `key` within two edits, if one is.
fn nearest<'a>(key: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if key.len() > MAX_SUGGESTED_LEN {
        return None;
    }
    let lower = key.to_ascii_lowercase();
    candidates
        .map(|c| {
            let d = crate::edit_distance::levenshtein(
                lower.as_bytes(),
                c.to_ascii_lowercase().as_bytes(),
            );
            (d, c)
        })
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

impl RuleOptions {
    /// Reads every `[rules.CODE]` table into its rule's options; the first problem, in file
    /// order, is the error.
    pub fn from_tables(tables: &RuleTables) -> Result<RuleOptions, TableError> {
        let mut out = RuleOptions::default();
        let mut written: Vec<_> = tables.iter().collect();
        written.sort_by_key(|(k, _)| k.span().start);
        for (key, table) in written {
            let code = key.get_ref().as_str();
            // Keyed by code; a renamed rule's old code still reaches it.
            let current = super::lifecycle::SHIPPED.canonical(code);
            let Some(i) = RuleId::of_code(&current.to_ascii_uppercase()).map(RuleId::index) else {
                return Err(unknown_rule(code, key.span()));
            };
            let entry = &RULES[i];
            // `severity` belongs to every rule, not to its options struct.
            let mut table = table.clone();
            if let Some(key) = table.keys().find(|k| k.get_ref() == "severity").cloned() {
                let value = table.remove(&key).expect("the key was just found");
                out.severity[i] = Some(severity_override(entry, &key, &value)?);
            }
            out.by_rule[i] = (entry.options.parse)(&table).map_err(|e| option_error(entry, e))?;
        }
        Ok(out)
    }

    /// The severity lemplint.toml gives every finding of `entry`, if it gives one.
    pub fn severity(&self, entry: &RuleEntry) -> Option<crate::diagnostic::Severity> {
        self.severity[entry.id.index()]
    }

    /// The options of `entry`, as its rule declared them (downcast by [`super::Context`]).
    pub(crate) fn of(&self, entry: &RuleEntry) -> &(dyn Any + Send + Sync) {
        let i = entry.id.index();
        self.by_rule[i].as_ref()
    }

    /// The options of rule `R` (for code outside the rule that needs them, e.g. `tune`
    /// sizing with FPM004's worker memory).
    pub fn get<R: super::Declared>(&self) -> &R::Options {
        let i = R::DECL.id.index();
        self.by_rule[i]
            .downcast_ref()
            .expect("the registry parsed these options with R's declared type")
    }
}

/// A `[rules.CODE] severity` value. An input error keeps its own: a file nginx cannot read
/// is an error whatever the configuration says (exit code 2 depends on it).
fn severity_override(
    entry: &RuleEntry,
    key: &toml::Spanned<String>,
    value: &toml::Spanned<toml::Value>,
) -> Result<crate::diagnostic::Severity, TableError> {
    use crate::diagnostic::Severity;
    if entry.input_error {
        return Err(TableError {
            message: format!(
                "[rules.{}] severity: {} means the input could not be read; its severity cannot be changed",
                entry.code, entry.code
            ),
            span: Some(key.span()),
            help: None,
        });
    }
    match value.get_ref().as_str() {
        Some("error") => Ok(Severity::Error),
        Some("warning") => Ok(Severity::Warning),
        Some("info") => Ok(Severity::Info),
        _ => Err(TableError {
            message: format!(
                "[rules.{}] severity must be \"error\", \"warning\" or \"info\"",
                entry.code
            ),
            span: Some(value.span()),
            help: Some(format!("to turn {} off, add it to `ignore`", entry.code)),
        }),
    }
}

fn unknown_rule(code: &str, span: std::ops::Range<usize>) -> TableError {
    let help = if let Some(r) = RULES
        .iter()
        .find(|r| r.name == code || r.code.eq_ignore_ascii_case(code))
    {
        Some(format!(
            "options are keyed by the rule's code: [rules.{}]",
            r.code
        ))
    } else {
        nearest(code, RULES.iter().map(|r| r.code))
            .and_then(super::by_code)
            .map(|r| format!("did you mean [rules.{}] ({})?", r.code, r.name))
    };
    TableError {
        message: format!(
            "unknown rule `{}` in [rules] (see `lemplint rules`)",
            crate::escape::text(code)
        ),
        span: Some(span),
        help,
    }
}

fn option_error(entry: &RuleEntry, e: OptionError) -> TableError {
    let Some((key, expected)) = &e.unknown else {
        return TableError {
            message: format!("[rules.{}] {}", entry.code, e.message),
            span: e.span,
            help: None,
        };
    };
    let help = if expected.is_empty() {
        Some(format!("{} ({}) takes no options", entry.code, entry.name))
    } else {
        match nearest(key, expected.iter().copied()) {
            Some(near) => Some(format!("did you mean `{near}`?")),
            None => Some(format!(
                "{} accepts: {}",
                entry.code,
                expected
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    };
    TableError {
        message: format!(
            "unknown option `{}` in [rules.{}]",
            crate::escape::text(key),
            entry.code
        ),
        span: e.span,
        help,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables(text: &str) -> RuleTables {
        crate::config::parse(std::path::Path::new("lemplint.toml"), text.into())
            .unwrap()
            .config
            .rules
    }

    #[test]
    fn the_keys_a_struct_accepts_are_read_from_serde() {
        assert_eq!(
            field_names::<crate::stack::sizing::MemoryOptions>(),
            ["worker-rss", "reserve"]
        );
        assert!(field_names::<NoOptions>().is_empty());
    }

    #[test]
    fn the_first_problem_in_file_order_is_reported() {
        // NGX999 sorts after FPM004 but comes first in the file.
        let e = RuleOptions::from_tables(&tables("[rules.NGX999]\n[rules.FPM004]\nreserv = 1\n"))
            .unwrap_err();
        assert_eq!(e.span, Some(7..13));
        assert!(e.message.contains("NGX999"), "{}", e.message);
    }

    #[test]
    fn written_options_reach_their_rule_and_the_rest_keep_defaults() {
        use crate::rules::fpm::pm_max_children_exceeds_memory::PmMaxChildrenExceedsMemory;
        use crate::stack::sizing::{MemoryOptions, SizeOption};
        let o = RuleOptions::from_tables(&tables("[rules.FPM004]\nworker-rss = 1000\n")).unwrap();
        assert_eq!(
            o.get::<PmMaxChildrenExceedsMemory>().worker_rss,
            Some(SizeOption::Number(1000))
        );
        let d = RuleOptions::default();
        assert_eq!(
            d.get::<PmMaxChildrenExceedsMemory>(),
            &MemoryOptions::default()
        );
    }

    #[test]
    fn suggestions_stay_within_two_edits_and_skip_long_keys() {
        let keys = ["worker-rss", "reserve"];
        assert_eq!(nearest("RESERV", keys.iter().copied()), Some("reserve"));
        assert_eq!(nearest("memory", keys.iter().copied()), None);
        let long = "r".repeat(10_000);
        assert_eq!(nearest(&long, keys.iter().copied()), None);
    }
}
