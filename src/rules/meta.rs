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

/// Which selection a rule belongs to (clippy's lint groups, ruff's default set). Declared with
/// the rule; `select`/`ignore` accept the group's name.
///
/// - `Default`: runs when no rule is selected, and may fail a CI run: correctness, and
///   security or performance problems that are true wherever the rule fires. A rule stays
///   here only while the judged sets (`scripts/precision`) hold no false or misleading
///   finding of it at warning or error.
/// - `Hardening`: advice whose truth depends on what the site is for (HSTS, secret files in
///   a docroot that may not be a checkout, a default server, map defaults): opt in with
///   `select = ["default", "hardening"]`.
/// - `Preview`: every new rule until its measured precision earns it a place; runs only when
///   named by its code or with the `preview` selector, never through a prefix or `ALL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Group {
    Default,
    Hardening,
    Preview,
}

impl Group {
    pub const ALL: [Group; 3] = [Group::Default, Group::Hardening, Group::Preview];

    pub fn as_str(self) -> &'static str {
        match self {
            Group::Default => "default",
            Group::Hardening => "hardening",
            Group::Preview => "preview",
        }
    }

    /// The group a selector names (`default`, `hardening`, `preview`), any case.
    pub fn named(selector: &str) -> Option<Group> {
        Group::ALL
            .into_iter()
            .find(|g| selector.eq_ignore_ascii_case(g.as_str()))
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
    /// GitHub code scanning's `security-severity` (0.1 to 10.0) for a rule of the
    /// `security` category, when its default severity does not say it well (see
    /// `report::sarif::security_severity`).
    #[serde(default)]
    pub security_severity: Option<f64>,
    #[serde(default)]
    pub options: std::collections::BTreeMap<String, OptionDoc>,
}

impl RuleMeta {
    pub fn parse(text: &str) -> Result<RuleMeta, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }
}
