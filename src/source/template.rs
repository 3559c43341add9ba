//! What a template leaves in a source file: its holes (placeholders a deployment fills in,
//! found by [`crate::syntax::template`]) and, for a file rendered with known values
//! ([`crate::syntax::render`]), the map back to the template. The types live with the
//! source file that carries them, so that `source` does not depend on the parsers (which
//! depend on it); the scanning and rendering stay in `syntax`.

use super::{Shared, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HoleKind {
    /// A value filled in later (`{{ port }}`, `@NAME`, `${NAME}`).
    Value,
    /// A placeholder standing alone on its line: it may expand to any number of directives
    /// (`{{ extra_http_options }}`, `{% include 'x.j2' %}`).
    Statements,
    /// A template's own control tag (`{% if %}`, `{{- end }}`, `<% end %>`): both branches
    /// are kept.
    Control,
    /// A template comment (`{# … #}`, `{{/* … */}}`, `<%# … %>`).
    Comment,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hole {
    pub span: Span,
    pub kind: HoleKind,
}

/// One placeholder rendered: where it was, where its value is, and what it is.
#[derive(Debug, Clone)]
pub struct Sub {
    pub template: Span,
    pub rendered: Span,
    /// The placeholder as written (`{{ nginx_port }}`).
    pub placeholder: String,
    pub value: String,
    pub origin: String,
}

/// A file rendered from its template: the template as read (what findings are shown in and
/// fixes edit), and each placeholder that got a value.
#[derive(Debug)]
pub struct Rendering {
    pub template: Shared,
    pub subs: Vec<Sub>,
}

impl Rendering {
    /// The template offset of a rendered offset: moved by the replacements before it, and
    /// to the placeholder's start (or, for the end of a span, its end) inside a value.
    pub fn offset_to_template(&self, off: u32, is_end: bool) -> u32 {
        // The replacements wholly before `off` (a value ending at `off` included).
        let i = self.subs.partition_point(|s| s.rendered.end <= off);
        if let Some(s) = self.subs.get(i) {
            if off > s.rendered.start {
                return if is_end {
                    s.template.end
                } else {
                    s.template.start
                };
            }
        }
        let delta: i64 = self.subs[..i]
            .iter()
            .map(|s| s.template.len() as i64 - s.rendered.len() as i64)
            .sum();
        (off as i64 + delta) as u32
    }

    pub fn to_template(&self, span: Span) -> Span {
        let start = self.offset_to_template(span.start, false);
        let end = self.offset_to_template(span.end, !span.is_empty());
        Span::new(start, end.max(start))
    }

    /// The replacements a rendered span overlaps or touches.
    pub fn subs_in(&self, span: Span) -> impl Iterator<Item = &Sub> {
        self.subs
            .iter()
            .filter(move |s| s.rendered.start <= span.end && span.start <= s.rendered.end)
    }
}
