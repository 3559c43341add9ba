//! The condition of an nginx `if` on one variable, as `ngx_http_rewrite_module` reads it:
//! `($var)` (true unless empty or "0"), `(!$var)`, `($var = text)`, `($var != text)`,
//! `($var ~ regex)`, `~*`, `!~`, `!~*`. File tests (`-f`, `!-e`, …) and conditions on
//! anything but one variable are not read.

use crate::analysis::cursor::Directive;
use crate::analysis::pcre::Regex;

/// What an `if` tests its variable against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Test {
    /// `($var)`, or `(!$var)` when negated.
    Bare,
    /// `= text`, or `!= text` when negated.
    Equals(String),
    /// `~ regex` (`~*`: caseless), or `!~` / `!~*` when negated.
    Matches { pattern: String, caseless: bool },
}

/// A condition on one variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// The variable's name as nginx looks it up: lowercase, without `$`.
    pub var: String,
    pub test: Test,
    pub negated: bool,
}

/// The condition of `if`, when it tests one variable (not a capture `$1`).
pub fn parse(i: Directive<'_>) -> Option<Condition> {
    // The words as nginx splits them: `(` may stand alone or open the first word, `)` close
    // the last; an operand may be empty (`= ""`) or hold spaces (quoted).
    let mut words: Vec<String> = i.args().map(|a| a.value().into_owned()).collect();
    let first = words.first_mut()?;
    *first = first.strip_prefix('(')?.to_string();
    let last = words.last_mut()?;
    *last = last.strip_suffix(')')?.to_string();
    // A `(` or `)` written apart leaves an empty word (quoted empty operands are kept).
    let quoted: Vec<bool> = i.args().map(|a| a.is_quoted()).collect();
    let words: Vec<String> = words
        .into_iter()
        .zip(quoted)
        .filter(|(w, q)| !w.is_empty() || *q)
        .map(|(w, _)| w)
        .collect();
    let mut parts = words.iter().map(String::as_str);
    let first = parts.next()?;
    let (negated_bare, var) = match first.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, first),
    };
    let name = var.strip_prefix('$')?;
    let name = name
        .strip_prefix('{')
        .and_then(|n| n.strip_suffix('}'))
        .unwrap_or(name);
    if name.is_empty()
        || name.as_bytes()[0].is_ascii_digit()
        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return None;
    }
    let var = name.to_ascii_lowercase();
    let Some(op) = parts.next() else {
        return Some(Condition {
            var,
            test: Test::Bare,
            negated: negated_bare,
        });
    };
    if negated_bare {
        return None;
    }
    let operand = parts.next()?.to_string();
    if parts.next().is_some() {
        return None;
    }
    let (test, negated) = match op {
        "=" => (Test::Equals(operand), false),
        "!=" => (Test::Equals(operand), true),
        "~" | "~*" | "!~" | "!~*" => (
            Test::Matches {
                pattern: operand,
                caseless: op.ends_with('*'),
            },
            op.starts_with('!'),
        ),
        _ => return None,
    };
    Some(Condition { var, test, negated })
}

impl Condition {
    /// Whether the condition holds when the variable is empty; `None` when the operand
    /// holds a variable or the pattern cannot be read.
    pub fn holds_when_empty(&self) -> Option<bool> {
        let positive = match &self.test {
            Test::Bare => false,
            Test::Equals(text) if text.contains('$') => return None,
            Test::Equals(text) => text.is_empty(),
            Test::Matches { pattern, caseless } => {
                Regex::parse(pattern, *caseless).ok()?.is_match(b"").ok()?
            }
        };
        Some(positive != self.negated)
    }

    /// Whether this condition and `other` cannot both hold for one value of the same
    /// variable: two different fixed texts, a text the other's pattern does not match, or
    /// two patterns [`Regex::disjoint`] proves apart. Negated tests are not read.
    pub fn excludes(&self, other: &Condition) -> bool {
        if self.var != other.var || self.negated || other.negated {
            return false;
        }
        let fixed = |t: &Test| match t {
            Test::Equals(s) if !s.contains('$') => Some(s.clone()),
            _ => None,
        };
        let regex = |t: &Test| match t {
            // nginx compiles the pattern when it reads the configuration: a `$` in it is
            // the regex's own.
            Test::Matches { pattern, caseless } => Regex::parse(pattern, *caseless).ok(),
            _ => None,
        };
        match (fixed(&self.test), fixed(&other.test)) {
            (Some(a), Some(b)) => return a != b,
            (Some(text), None) => {
                return regex(&other.test).is_some_and(|r| r.is_match(text.as_bytes()) == Ok(false))
            }
            (None, Some(text)) => {
                return regex(&self.test).is_some_and(|r| r.is_match(text.as_bytes()) == Ok(false))
            }
            (None, None) => {}
        }
        match (regex(&self.test), regex(&other.test)) {
            (Some(a), Some(b)) => a.disjoint(&b),
            _ => false,
        }
    }
}
