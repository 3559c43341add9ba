//! Inline suppressions: `# lemplint: ignore NGX001[, CODE…] -- reason` (`;` in PHP-FPM files).

use crate::diagnostic::Diagnostic;
use crate::workspace::Workspace;

/// Removes suppressed diagnostics and reports unused or invalid suppressions.
pub fn apply(diagnostics: Vec<Diagnostic>, _ws: &Workspace) -> Vec<Diagnostic> {
    diagnostics
}
