//! What every check produces: a problem at a place in a file, with a code and a severity.

use crate::source::{Shared, Span};

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
    /// Stable rule code (`NGX000` for nginx syntax errors).
    pub code: &'static str,
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
        code: &'static str,
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
