//! Rule documentation, read from `rules/<lang>/<CODE>.toml` (embedded in the binary at build
//! time, parsed only when a rule's docs are shown). The TOML holds prose only; a rule's facts
//! (code, name, category, severity, fix, options' types) are declared in its source file.

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Correctness,
    Security,
    Performance,
    Reliability,
    Style,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Correctness => "correctness",
            Category::Security => "security",
            Category::Performance => "performance",
            Category::Reliability => "reliability",
            Category::Style => "style",
        }
    }
}

/// Whether the rule can offer a fix (ruff's `FixAvailability`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FixAvailability {
    Always,
    Sometimes,
    None,
}

#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Docs {
    pub what_it_does: String,
    pub why_it_matters: String,
    /// A configuration on which the rule fires.
    pub example: String,
    /// The same configuration corrected; the rule stays silent on it.
    pub use_instead: String,
    pub fix_safety: String,
    #[serde(default)]
    pub references: Vec<String>,
    /// Why the example cannot be run from text (e.g. it needs a dangling symlink); the
    /// registry test then skips running it, and the rule's firing case is tested elsewhere.
    #[serde(default)]
    pub example_not_runnable: Option<String>,
    /// Host facts the example needs (for rules that need host facts), as in `[host]`.
    #[serde(default)]
    pub example_host: Option<crate::host::HostSpec>,
}

/// One option's documentation. `type` and `default` describe, for a reader, what the rule's
/// options struct accepts and what it does when the key is not written; `tests/registry.rs`
/// checks that every documented key is one the struct accepts, that every key the struct
/// accepts is documented, and that the documented default is a value the struct accepts.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OptionDoc {
    #[serde(rename = "type")]
    pub kind: String,
    pub default: toml::Value,
    pub description: String,
}

/// What `rules/<lang>/<CODE>.toml` holds.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RuleMeta {
    /// One line, shown in `lemplint rules` and the README's table.
    pub summary: String,
    pub docs: Docs,
    #[serde(default)]
    pub options: std::collections::BTreeMap<String, OptionDoc>,
}

impl RuleMeta {
    pub fn parse(text: &str) -> Result<RuleMeta, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }
}
