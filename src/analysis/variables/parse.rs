//! An argument's value split the way nginx's script compiler splits it
//! (`ngx_http_script_compile`, src/http/ngx_http_script.c): literal text, variables and
//! regex captures, each with its span in the source.
//!
//! The compiler's rules, which [`Script::parse_value`] follows byte for byte:
//! - `$` followed by `1`…`9` is a capture, and only that one digit: `$12` is `$1` then `2`
//!   (`$0` is not a capture but a variable named `0`, which nginx refuses as unknown);
//! - otherwise `$` starts a name of `A-Z a-z 0-9 _`, ended by the first other byte; `${name}`
//!   brackets it so text may follow directly (`${name}x`);
//! - `$` at the end of the value, `$` followed by a byte that cannot start a name (`$/`,
//!   `$-`), and `${}` are errors: nginx says `invalid variable name`; `${name` with no `}`
//!   (or with a byte other than a name byte before it) is `the closing bracket in "name"
//!   variable is missing`. nginx refuses the configuration at the first one, so parsing
//!   stops there: the rest of the value is one literal part and [`Script::error`] says why.
//! - everything else is literal, `\` included: the configuration reader resolves `\"`,
//!   `\'`, `\\`, `\t`, `\r`, `\n` before the compiler runs and keeps every other `\x`, so
//!   `\$uri` is a backslash followed by the variable `$uri`.
//!
//! A named capture (`(?<name>…)`) is a variable like any other here: the flow
//! ([`super::flow`]) knows which names regexes define.
//!
//! Which arguments nginx compiles as scripts is the directive's business (`set`'s value,
//! `return`'s text, `rewrite`'s replacement, `map`'s source and values…, not a regex); the
//! parser applies to whatever it is given.

use crate::source::Span;
use crate::syntax::nginx::Word;

/// What a part of a script is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PartKind {
    /// Text copied as it is.
    Literal,
    /// `$name` or `${name}`. The name is kept as written; nginx compares names without
    /// case (`ngx_http_get_variable_index` lowercases them), see [`PartKind::key`].
    Variable { name: Box<str>, braced: bool },
    /// `$1` … `$9`: a capture of the last regex nginx evaluated.
    Capture(u8),
}

impl PartKind {
    /// The variable's name as nginx looks it up (lowercase), for a variable part.
    pub fn key(&self) -> Option<String> {
        match self {
            PartKind::Variable { name, .. } => Some(name.to_ascii_lowercase()),
            _ => None,
        }
    }
}

/// One part of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub kind: PartKind,
    /// Where it is written: into the source file for [`Script::parse_word`] (inside the
    /// quotes, escapes as typed), into the value for [`Script::parse_value`].
    pub span: Span,
    /// Where it is in the value (escapes resolved): `value[start..end]` is its text.
    pub value: Span,
}

/// Why nginx refuses a script, in nginx's words, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    pub message: String,
    pub span: Span,
}

/// An argument's value as parts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    pub parts: Vec<Part>,
    /// Set when nginx would refuse the value (see the module's comment).
    pub error: Option<ScriptError>,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Script {
    /// Parses a value; spans are offsets into it.
    pub fn parse_value(value: &[u8]) -> Script {
        Script::parse_mapped(value, &|i| i)
    }

    /// Parses an argument as nginx reads it (its value: quotes removed, escapes resolved);
    /// spans point into `src`, the file the word is in, covering the bytes as written.
    pub fn parse_word(word: &Word, src: &[u8]) -> Script {
        let inner = word.inner();
        let raw = &src[inner.range()];
        let value = word.value(src);
        if value.len() == raw.len() {
            // Nothing was unescaped: value offset i is raw offset i.
            let base = inner.start;
            return Script::parse_mapped(&value, &|i| base + i);
        }
        let starts = raw_starts(raw, inner.start, value.len());
        Script::parse_mapped(&value, &|i| starts[i as usize])
    }

    /// `at(i)` is the source offset where value byte `i` starts (`at(len)`: the end).
    fn parse_mapped(v: &[u8], at: &dyn Fn(u32) -> u32) -> Script {
        let mut parts = Vec::new();
        let mut error = None;
        let n = v.len();
        let mut i = 0usize;
        let mut lit_start: Option<usize> = None;
        let mut rest = n;
        let push = |parts: &mut Vec<Part>, kind: PartKind, a: usize, b: usize| {
            parts.push(Part {
                kind,
                span: Span::new(at(a as u32), at(b as u32)),
                value: Span::new(a as u32, b as u32),
            });
        };
        while i < n {
            if v[i] != b'$' {
                lit_start.get_or_insert(i);
                i += 1;
                continue;
            }
            if let Some(s) = lit_start.take() {
                push(&mut parts, PartKind::Literal, s, i);
            }
            let dollar = i;
            rest = dollar;
            let fail = |message: String, end: usize| ScriptError {
                message,
                span: Span::new(at(dollar as u32), at(end as u32)),
            };
            i += 1;
            if i == n {
                error = Some(fail("invalid variable name".into(), n));
                break;
            }
            if (b'1'..=b'9').contains(&v[i]) {
                push(&mut parts, PartKind::Capture(v[i] - b'0'), dollar, i + 1);
                i += 1;
                continue;
            }
            let braced = v[i] == b'{';
            if braced {
                i += 1;
                if i == n {
                    error = Some(fail("invalid variable name".into(), n));
                    break;
                }
            }
            let name_start = i;
            let mut closed = false;
            while i < n {
                if braced && v[i] == b'}' {
                    closed = true;
                    break;
                }
                if !is_name_byte(v[i]) {
                    break;
                }
                i += 1;
            }
            let name = &v[name_start..i];
            if braced && !closed {
                let shown = String::from_utf8_lossy(name);
                error = Some(fail(
                    format!("the closing bracket in \"{shown}\" variable is missing"),
                    i,
                ));
                break;
            }
            let end = if closed { i + 1 } else { i };
            if name.is_empty() {
                error = Some(fail("invalid variable name".into(), end.max(dollar + 1)));
                break;
            }
            let name: Box<str> = String::from_utf8_lossy(name).into();
            push(&mut parts, PartKind::Variable { name, braced }, dollar, end);
            i = end;
        }
        if error.is_some() {
            // nginx stops at the bad `$`; the rest is kept as text so the parts cover the
            // whole value.
            push(&mut parts, PartKind::Literal, rest, n);
        } else if let Some(s) = lit_start {
            push(&mut parts, PartKind::Literal, s, n);
        }
        Script { parts, error }
    }

    /// Whether the value has a variable or a capture (nginx compiles only such values;
    /// others are kept as plain strings).
    pub fn is_literal(&self) -> bool {
        self.parts.iter().all(|p| p.kind == PartKind::Literal)
    }

    /// The variable and capture parts.
    pub fn references(&self) -> impl Iterator<Item = &Part> {
        self.parts.iter().filter(|p| p.kind != PartKind::Literal)
    }
}

/// For a raw word (inside its quotes) starting at `base`, the source offset where each byte
/// of its value starts, and the end: the inverse of [`crate::syntax::nginx::tree::unescape`].
fn raw_starts(raw: &[u8], base: u32, value_len: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(value_len + 1);
    let mut i = 0;
    while i < raw.len() {
        out.push(base + i as u32);
        let escaped = raw[i] == b'\\'
            && i + 1 < raw.len()
            && matches!(raw[i + 1], b'"' | b'\'' | b'\\' | b't' | b'r' | b'n');
        i += if escaped { 2 } else { 1 };
    }
    out.push(base + raw.len() as u32);
    debug_assert_eq!(out.len(), value_len + 1, "the mapping covers the value");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(v: &str) -> Vec<(PartKind, String)> {
        let s = Script::parse_value(v.as_bytes());
        assert!(s.error.is_none(), "{v}: {:?}", s.error);
        s.parts
            .iter()
            .map(|p| (p.kind.clone(), v[p.value.range()].to_string()))
            .collect()
    }

    fn var(name: &str, braced: bool) -> PartKind {
        PartKind::Variable {
            name: name.into(),
            braced,
        }
    }

    #[test]
    fn a_name_ends_at_the_first_byte_outside_a_z_0_9_underscore() {
        assert_eq!(
            kinds("https://$host$request_uri/x.$Arg_1-y"),
            vec![
                (PartKind::Literal, "https://".into()),
                (var("host", false), "$host".into()),
                (var("request_uri", false), "$request_uri".into()),
                (PartKind::Literal, "/x.".into()),
                (var("Arg_1", false), "$Arg_1".into()),
                (PartKind::Literal, "-y".into()),
            ]
        );
        assert_eq!(var("Arg_1", false).key().as_deref(), Some("arg_1"));
    }

    #[test]
    fn a_capture_is_one_digit_and_zero_is_a_name() {
        assert_eq!(
            kinds("$12$0"),
            vec![
                (PartKind::Capture(1), "$1".into()),
                (PartKind::Literal, "2".into()),
                (var("0", false), "$0".into()),
            ]
        );
    }

    #[test]
    fn braces_let_text_follow_a_name() {
        assert_eq!(
            kinds("${uri}x"),
            vec![
                (var("uri", true), "${uri}".into()),
                (PartKind::Literal, "x".into()),
            ]
        );
    }

    #[test]
    fn errors_use_nginx_words_and_stop_at_the_bad_dollar() {
        for (v, msg, at) in [
            ("a$", "invalid variable name", 1),
            ("$/x", "invalid variable name", 0),
            ("${}", "invalid variable name", 0),
            ("x${", "invalid variable name", 1),
            (
                "${uri",
                "the closing bracket in \"uri\" variable is missing",
                0,
            ),
            (
                "${ur-i}",
                "the closing bracket in \"ur\" variable is missing",
                0,
            ),
        ] {
            let s = Script::parse_value(v.as_bytes());
            let e = s.error.as_ref().unwrap_or_else(|| panic!("{v}"));
            assert_eq!(e.message, msg, "{v}");
            assert_eq!(e.span.start, at, "{v}");
            let last = s.parts.last().unwrap();
            assert_eq!(last.kind, PartKind::Literal);
            assert_eq!(
                last.value.end as usize,
                v.len(),
                "{v}: the parts cover the value"
            );
        }
    }

    #[test]
    fn spans_point_at_the_source_through_quotes_and_escapes() {
        let src = br#"return 200 "a\"$uri\n$1";"#;
        let parsed = crate::syntax::nginx::parse(src);
        let (_, d) = parsed.tree.directives().next().unwrap();
        let word = parsed.tree.args(d)[1];
        let s = Script::parse_word(&word, src);
        let texts: Vec<&str> = s
            .parts
            .iter()
            .map(|p| std::str::from_utf8(&src[p.span.range()]).unwrap())
            .collect();
        assert_eq!(texts, vec!["a\\\"", "$uri", "\\n", "$1"]);
        assert!(s.references().count() == 2 && !s.is_literal());
    }

    /// Random values over the bytes the compiler cares about: the parts are contiguous,
    /// cover the value, and each reference reads back as written.
    #[test]
    fn random_values_split_into_contiguous_parts() {
        let alphabet = b"${}a_Z09-/.\\?";
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 12) as usize;
            let v: Vec<u8> = (0..len)
                .map(|i| alphabet[((seed >> (i * 4 + 8)) % alphabet.len() as u64) as usize])
                .collect();
            let s = Script::parse_value(&v);
            let mut at = 0;
            for p in &s.parts {
                assert_eq!(p.value.start as usize, at, "{v:?}");
                assert!(p.value.end > p.value.start, "{v:?}: an empty part");
                at = p.value.end as usize;
                let text = &v[p.value.range()];
                match &p.kind {
                    PartKind::Variable {
                        name,
                        braced: false,
                    } => {
                        assert_eq!(text, format!("${name}").as_bytes())
                    }
                    PartKind::Variable { name, braced: true } => {
                        assert_eq!(text, format!("${{{name}}}").as_bytes())
                    }
                    PartKind::Capture(k) => assert_eq!(text, format!("${k}").as_bytes()),
                    PartKind::Literal => {}
                }
            }
            assert_eq!(at, v.len(), "{v:?}");
            // Without an error, a `$` only ever starts a reference.
            if s.error.is_none() {
                for p in s.parts.iter().filter(|p| p.kind == PartKind::Literal) {
                    assert!(!v[p.value.range()].contains(&b'$'), "{v:?}");
                }
            }
        }
    }
}
