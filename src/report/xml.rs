//! The little XML the checkstyle and junit formats need, written by hand.

use crate::diagnostic::Diagnostic;

/// Escapes `s` for an XML 1.0 attribute value (in double quotes).
///
/// `&`, `<`, `>`, `"` and `'` become entities. Tab, LF and CR become character references,
/// so that attribute-value normalization does not turn them into spaces. Characters XML 1.0
/// cannot carry at all (other C0 controls, U+FFFE, U+FFFF) become U+FFFD.
pub fn escape(s: &str) -> String {
    escape_as(s, false)
}

/// Escapes `s` for element text: like [`escape`], but line feeds, tabs and quotes stay as
/// they are, so a multi-line text reads as written (a CR is still a reference, so that
/// line-end normalization keeps it).
pub fn escape_text(s: &str) -> String {
    escape_as(s, true)
}

fn escape_as(s: &str, text: bool) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' | '\'' | '\t' | '\n' if text => out.push(c),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The XML declaration every document starts with.
pub const DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

/// Diagnostics grouped by the path shown for their file, files in order of first appearance
/// and findings in their given order.
pub fn by_file(diagnostics: &[Diagnostic]) -> Vec<(String, Vec<&Diagnostic>)> {
    let mut groups: Vec<(String, Vec<&Diagnostic>)> = Vec::new();
    // Each path's group by index: one lookup per finding, not a scan of the groups.
    let mut index: crate::fxhash::FxHashMap<&std::path::Path, usize> = Default::default();
    for d in diagnostics {
        // The real file: CI tools annotate files, not the symlinks that lead to them.
        let i = *index.entry(d.file.real_path()).or_insert_with(|| {
            groups.push((d.file.real_path().display().to_string(), Vec::new()));
            groups.len() - 1
        });
        groups[i].1.push(d);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::{escape, escape_text};

    #[test]
    fn escapes_markup_quotes_and_line_ends() {
        assert_eq!(
            escape("a<b>&\"c\"'d'\n\r\te"),
            "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;&#10;&#13;&#9;e"
        );
        assert_eq!(escape("x\u{1}y\u{FFFE}é"), "x\u{FFFD}y\u{FFFD}é");
        assert_eq!(
            escape_text("\"a\" <&>\n\tb\r"),
            "\"a\" &lt;&amp;&gt;\n\tb&#13;"
        );
    }
}
