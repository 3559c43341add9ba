//! Values as the INI parser evaluates them: concatenation, `${VAR}`, constants, escapes, and
//! php-fpm's `$pool` substitution.

use super::parser::{Expr, Part};
use super::values::atoi;
use crate::source::Span;
use crate::syntax::lines::slice;
use std::borrow::Cow;

/// PHP 8.2's error-level constants, the only constants that show up in pool files in practice
/// (`php_admin_value[error_reporting] = E_ALL & ~E_DEPRECATED` → `24575`, verified with `-tt`).
pub(super) const E_CONSTANTS: &[(&str, i32)] = &[
    ("E_ERROR", 1),
    ("E_WARNING", 2),
    ("E_PARSE", 4),
    ("E_NOTICE", 8),
    ("E_CORE_ERROR", 16),
    ("E_CORE_WARNING", 32),
    ("E_COMPILE_ERROR", 64),
    ("E_COMPILE_WARNING", 128),
    ("E_USER_ERROR", 256),
    ("E_USER_WARNING", 512),
    ("E_USER_NOTICE", 1024),
    ("E_STRICT", 2048),
    ("E_RECOVERABLE_ERROR", 4096),
    ("E_DEPRECATED", 8192),
    ("E_USER_DEPRECATED", 16384),
    ("E_ALL", 32767),
];

pub(super) fn constant_value(name: &[u8]) -> Option<i32> {
    E_CONSTANTS
        .iter()
        .find(|(n, _)| n.as_bytes() == name)
        .map(|&(_, v)| v)
}

pub(super) fn concat(parts: &[Part], src: &[u8], env: &dyn Fn(&str) -> Option<String>) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts {
        match *part {
            Part::Text(s) => out.extend_from_slice(slice(src, s)),
            Part::Escaped(s) => out.extend_from_slice(&unescape_double_quoted(slice(src, s))),
            Part::Var(s) => {
                let name = String::from_utf8_lossy(slice(src, s));
                if let Some(v) = env(&name) {
                    out.extend_from_slice(v.as_bytes());
                }
            }
            Part::Constant(s) => match constant_value(slice(src, s)) {
                Some(v) => out.extend_from_slice(v.to_string().as_bytes()),
                None => out.extend_from_slice(slice(src, s)),
            },
        }
    }
    out
}

pub(super) fn eval(expr: &Expr, src: &[u8], env: &dyn Fn(&str) -> Option<String>) -> Vec<u8> {
    match expr {
        Expr::Empty | Expr::Null | Expr::Bool(false) => Vec::new(),
        Expr::Bool(true) => b"1".to_vec(),
        Expr::Concat(parts) => concat(parts, src, env),
        // `zend_ini_do_op`: operands go through atoi(), the result is printed with "%d".
        Expr::Unary(op, e) => {
            let v = atoi(&eval(e, src, env));
            let r = if *op == b'~' { !v } else { i32::from(v == 0) };
            r.to_string().into_bytes()
        }
        Expr::Binary(op, a, b) => {
            let (x, y) = (atoi(&eval(a, src, env)), atoi(&eval(b, src, env)));
            let r = match op {
                b'|' => x | y,
                b'&' => x & y,
                _ => x ^ y,
            };
            r.to_string().into_bytes()
        }
    }
}

pub(super) fn collect_constants(expr: &Expr, src: &[u8], out: &mut Vec<Span>) {
    match expr {
        Expr::Concat(parts) => {
            for p in parts.iter() {
                if let Part::Constant(s) = *p {
                    let name = slice(src, s);
                    let upper = name
                        .iter()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_');
                    if upper && constant_value(name).is_none() {
                        out.push(s);
                    }
                }
            }
        }
        Expr::Unary(_, e) => collect_constants(e, src, out),
        Expr::Binary(_, a, b) => {
            collect_constants(a, src, out);
            collect_constants(b, src, out);
        }
        _ => {}
    }
}

/// `zend_ini_escape_string` for double quotes: `\"`, `\\`, `\$` lose the backslash; any other
/// `\x` is kept as written (`"a\tb"` stays `a\tb`).
pub fn unescape_double_quoted(raw: &[u8]) -> Cow<'_, [u8]> {
    if !raw.contains(&b'\\') {
        return Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c == b'\\' {
            match raw.get(i + 1) {
                Some(&e @ (b'"' | b'\\' | b'$')) => out.push(e),
                Some(&e) => out.extend_from_slice(&[b'\\', e]),
                None => out.push(b'\\'),
            }
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// php-fpm's `$pool` substitution (`fpm_conf_expand_pool_name`), applied to string directives and
/// array values after INI parsing: every `$pool` becomes the pool name (`$poolx` too: it is a plain
/// substring search). php-fpm rescans from the start after each replacement, so a pool name that
/// itself contains `$pool` would loop forever there; we stop after a bounded number of rounds.
pub fn expand_pool(value: &[u8], pool: &[u8]) -> Vec<u8> {
    const NEEDLE: &[u8] = b"$pool";
    let mut out = value.to_vec();
    for _ in 0..1024 {
        let Some(i) = out.windows(NEEDLE.len()).position(|w| w == NEEDLE) else {
            break;
        };
        out.splice(i..i + NEEDLE.len(), pool.iter().copied());
    }
    out
}

/// `${NAME}` expansion in a plain string, as the INI scanner does it outside single quotes: the
/// name (blanks trimmed) is looked up with `env`, an unset variable gives an empty string
/// (php-fpm 8.2 does so silently; `${NAME:-default}` is PHP ≥ 8.3 and on 8.2 simply names a
/// variable `NAME:-default`). An unterminated `${` is kept as written. [`Entry::value_text`] does
/// this with the exact quoting rules; this helper is for text that is already unquoted.
pub fn expand_env(text: &[u8], env: &dyn Fn(&str) -> Option<String>) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(b"${") {
            if let Some(close) = text[i + 2..].iter().position(|&c| c == b'}') {
                let name = String::from_utf8_lossy(&text[i + 2..i + 2 + close]);
                if let Some(v) = env(name.trim_matches([' ', '\t'])) {
                    out.extend_from_slice(v.as_bytes());
                }
                i += close + 3;
                continue;
            }
        }
        out.push(text[i]);
        i += 1;
    }
    out
}
