//! Why a pattern was not parsed: PCRE2 would refuse it too (with the message PCRE2 10.42
//! prints, and its error number), or it is valid PCRE2 that this module does not model.

use crate::source::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub kind: ErrorKind,
    /// Where in the pattern (byte offsets).
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// PCRE2 refuses the pattern; the number is its compile error (`error 114`), and the
    /// message is PCRE2's text.
    Syntax(u16),
    /// Valid (or possibly valid) PCRE2 outside what is modelled here: recursion and
    /// subroutine calls, conditionals, backtracking verbs, callouts, branch reset, `\K`,
    /// `\X`, `\C`, `[[:<:]]`, some Unicode properties, duplicate group names, patterns
    /// whose nesting or size exceeds the limits. Nothing can be said about such a pattern.
    Unsupported,
}

impl ParseError {
    pub fn syntax(code: u16, span: Span) -> ParseError {
        ParseError {
            kind: ErrorKind::Syntax(code),
            span,
            message: message(code).to_string(),
        }
    }

    pub fn unsupported(span: Span, what: &str) -> ParseError {
        ParseError {
            kind: ErrorKind::Unsupported,
            span,
            message: format!("{what} is not supported by lemplint's PCRE analysis"),
        }
    }

    /// Whether PCRE2 itself refuses the pattern.
    pub fn is_syntax(&self) -> bool {
        matches!(self.kind, ErrorKind::Syntax(_))
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// PCRE2 10.42's text for a compile error number (the ones this parser reports).
pub fn message(code: u16) -> &'static str {
    match code {
        101 => "\\ at end of pattern",
        102 => "\\c at end of pattern",
        103 => "unrecognized character follows \\",
        104 => "numbers out of order in {} quantifier",
        105 => "number too big in {} quantifier",
        106 => "missing terminating ] for character class",
        107 => "escape sequence is invalid in character class",
        108 => "range out of order in character class",
        109 => "quantifier does not follow a repeatable item",
        111 => "unrecognized character after (? or (?-",
        112 => "POSIX named classes are supported only within a class",
        113 => "POSIX collating elements are not supported",
        114 => "missing closing parenthesis",
        115 => "reference to non-existent subpattern",
        118 => "missing ) after (?# comment",
        119 => "parentheses are too deeply nested",
        122 => "unmatched closing parenthesis",
        125 => "lookbehind assertion is not fixed length",
        130 => "unknown POSIX class name",
        134 => "character code point value in \\x{} or \\o{} is too large",
        137 => "PCRE2 does not support \\F, \\L, \\l, \\N{name}, \\U, or \\u",
        141 => "unrecognized character after (?P",
        142 => "syntax error in subpattern name (missing terminator?)",
        143 => "two named subpatterns have the same name (PCRE2_DUPNAMES not set)",
        144 => "subpattern name must start with a non-digit",
        146 => "malformed \\P or \\p sequence",
        147 => "unknown property after \\P or \\p",
        148 => "subpattern name is too long (maximum 32 code units)",
        150 => "invalid range in character class",
        151 => "octal value is greater than \\377 in 8-bit non-UTF-8 mode",
        155 => "missing opening brace after \\o",
        157 => "\\g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number",
        162 => "subpattern name expected",
        164 => "non-octal character in \\o{} (closing brace missing?)",
        167 => "non-hex character in \\x{} (closing brace missing?)",
        168 => "\\c must be followed by a printable ASCII character",
        169 => "\\k is not followed by a braced, angle-bracketed, or quoted name",
        171 => "\\N is not supported in a class",
        178 => "digits missing in \\x{} or \\o{} or \\N{U+}",
        193 => "\\N{U+dddd} is supported only in Unicode (UTF) mode",
        194 => "invalid hyphen in option setting",
        _ => "syntax error",
    }
}
