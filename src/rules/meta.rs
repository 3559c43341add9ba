//! Rule metadata and documentation, read from `rules/<lang>/<CODE>.toml` (embedded in the
//! binary at build time, parsed only when a rule's docs or severity are needed).

use crate::diagnostic::Severity;

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

#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Option_ {
    #[serde(rename = "type")]
    pub kind: String,
    pub default: toml::Value,
    pub description: String,
}

#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RuleMeta {
    pub code: String,
    pub name: String,
    pub category: Category,
    pub severity: SeverityName,
    pub fix: FixAvailability,
    #[serde(default)]
    pub needs_host: bool,
    pub summary: String,
    pub docs: Docs,
    #[serde(default)]
    pub options: std::collections::BTreeMap<String, Option_>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeverityName {
    Error,
    Warning,
    Info,
}

impl From<SeverityName> for Severity {
    fn from(s: SeverityName) -> Severity {
        match s {
            SeverityName::Error => Severity::Error,
            SeverityName::Warning => Severity::Warning,
            SeverityName::Info => Severity::Info,
        }
    }
}

impl RuleMeta {
    pub fn parse(text: &str) -> Result<RuleMeta, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }
}
