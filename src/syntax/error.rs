//! Syntax errors shared by the three parsers, worded exactly as the real program words them
//! (nginx, php-fpm, sysctl), so a user can search for the message.

use crate::source::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// nginx's own message text, e.g. `unexpected "}"`.
    pub message: String,
    /// Where nginx would stop. Its line is the line nginx reports.
    pub span: Span,
    /// A second place worth showing (e.g. the `{` of a block that is never closed).
    pub related: Option<(Span, &'static str)>,
}

impl SyntaxError {
    pub fn new(message: impl Into<String>, span: Span) -> Self {
        SyntaxError {
            message: message.into(),
            span,
            related: None,
        }
    }

    pub fn with_related(mut self, span: Span, label: &'static str) -> Self {
        self.related = Some((span, label));
        self
    }
}
