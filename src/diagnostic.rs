//! What every check produces: a problem at a place in a file, with a code and a severity.

use crate::source::{Shared, Span};
use std::fmt;

/// Which rule a finding is of: its position in the registry (`crate::rules::RULES`), in
/// code order. A `u16` a finding carries instead of the code string, so that what the
/// registry says about the rule is one index away rather than a hash-map lookup by string;
/// it prints, compares and serializes as its code (`NGX022`), so every output keeps the
/// code. The ids are generated from `rules/<lang>/<CODE>.toml` by `build.rs`: one constant
/// per code in [`rule_ids`] (`rule_ids::NGX022`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(u16);

/// One [`RuleId`] constant per rule code, and [`rule_ids::CODES`] in registry order.
pub mod rule_ids {
    use super::RuleId;
    include!(concat!(env!("OUT_DIR"), "/rule_ids.rs"));
}

impl RuleId {
    /// The rule's code (`NGX022`).
    pub const fn as_str(self) -> &'static str {
        rule_ids::CODES[self.0 as usize]
    }

    /// Its position in the registry.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The id of a code as written (`NGX022`; upper case), if a rule has it.
    pub fn of_code(code: &str) -> Option<RuleId> {
        rule_ids::CODES
            .iter()
            .position(|c| *c == code)
            .map(|i| RuleId(i as u16))
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for RuleId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<RuleId> for &str {
    fn eq(&self, other: &RuleId) -> bool {
        *self == other.as_str()
    }
}

impl serde::Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// At most this many findings of one rule are kept per file; the rest are counted and
/// reported as one finding. No real file comes close, but a generated one can hold millions
/// (a 63 MB file of `gzip on;`), and keeping a finding each would take gigabytes. `fix`
/// still fixes them all: it repeats until nothing changes. Analyses that find millions of
/// one kind (the catalogue's duplicates) stop building them at this bound and count the rest.
pub const MAX_FINDINGS_PER_FILE: u32 = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A secondary place shown with the diagnostic.
#[derive(Clone, Debug)]
pub struct Label {
    pub file: Shared,
    pub span: Span,
    pub text: String,
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The rule (`NGX000` for nginx syntax errors): prints as its code.
    pub code: RuleId,
    pub severity: Severity,
    pub message: String,
    pub file: Shared,
    pub span: Span,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    pub fix: Option<crate::fix::Fix>,
    /// False when nothing the server starts from reads the file (a vhost in
    /// `sites-available` that is not enabled, a pool no master includes): the finding is
    /// true of the file, not of the running server. Set by the engine.
    pub loaded: bool,
}

impl Diagnostic {
    pub fn new(
        code: RuleId,
        severity: Severity,
        file: Shared,
        span: Span,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            file,
            span,
            labels: Vec::new(),
            help: None,
            fix: None,
            loaded: true,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_label(mut self, file: Shared, span: Span, text: impl Into<String>) -> Self {
        self.labels.push(Label {
            file,
            span,
            text: text.into(),
        });
        self
    }

    /// Adds a secondary place (for rules, which hold a `&mut Diagnostic`).
    pub fn label(&mut self, file: Shared, span: Span, text: impl Into<String>) -> &mut Self {
        self.labels.push(Label {
            file,
            span,
            text: text.into(),
        });
        self
    }

    pub fn with_fix(&mut self, fix: crate::fix::Fix) -> &mut Self {
        self.fix = Some(fix);
        self
    }
}
