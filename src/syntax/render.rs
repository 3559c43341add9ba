//! Rendering a template's value placeholders with values known for them: given on the command
//! line (`--var`, `--vars`), declared by the repository (an Ansible role's `defaults/main.yml`,
//! a Helm chart's `values.yaml`, a Dockerfile's `ENV`), or written in the placeholder itself
//! (`${PORT:-8080}`, `{{ port | default(80) }}`).
//!
//! Only value placeholders are rendered, each by its value, on its own line: a template's
//! control tags stay holes (both branches kept, see [`super::template`]), and a value that
//! holds a line break is not used. So a rendered file has the template's lines, only columns
//! move, and every offset maps back to the template ([`Rendering::to_template`]): findings
//! are shown at the template's line and column, with the value and where it came from.
//!
//! An expression this module does not understand (a loop variable, a filter it does not
//! know, a value that is itself a template) stays a hole: unknown, never guessed.

use super::template::{Hole, HoleKind};
pub use crate::source::template::{Rendering, Sub};
use crate::source::Span;

/// What a value placeholder asks for: the name looked up, the placeholder's own default,
/// and what is done to the value before it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    /// `nginx_port`, `a.b` (Jinja attribute), `Values.a.b` (Helm), `PORT` (envsubst, sed).
    pub name: String,
    /// The default the placeholder writes itself (`${X:-d}`, `| default('d')`).
    pub default: Option<String>,
    /// Go's `quote`/`squote` and Jinja's `upper`/`lower`/`trim`.
    pub filters: Vec<Filter>,
    /// Which engine reads it: booleans print as `True` in Jinja and `true` in Go.
    pub engine: Engine,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    Quote,
    SingleQuote,
    Upper,
    Lower,
    Trim,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Jinja,
    Go,
    Erb,
    /// envsubst, envplate, a shell `sed`: the value as given.
    Text,
}

/// The value of one variable, with where it came from (shown beside findings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    pub text: String,
    /// `--var`, `vars.toml`, `roles/nginx/defaults/main.yml`, `Dockerfile`.
    pub origin: String,
    /// YAML's `true`/`yes`/`on`: printed by each engine its own way.
    pub boolean: Option<bool>,
}

/// The expression of a value placeholder's text, or `None` when it is not a plain lookup.
pub fn expr(hole: &[u8]) -> Option<Expr> {
    let text = std::str::from_utf8(hole).ok()?;
    if let Some(inner) = text.strip_prefix("{{").and_then(|t| t.strip_suffix("}}")) {
        let inner = inner.trim();
        let inner = inner.strip_prefix('-').unwrap_or(inner);
        let inner = inner.strip_suffix('-').unwrap_or(inner).trim();
        return if inner.starts_with('.') || inner.starts_with("$.") {
            go_expr(inner)
        } else {
            jinja_expr(inner)
        };
    }
    if let Some(inner) = text.strip_prefix("<%=").and_then(|t| t.strip_suffix("%>")) {
        let inner = inner.trim();
        let inner = inner.strip_suffix('-').unwrap_or(inner).trim();
        let name = inner.strip_prefix('@').unwrap_or(inner);
        return plain_name(name).then(|| Expr::named(name, Engine::Erb));
    }
    if let Some(inner) = text.strip_prefix("${").and_then(|t| t.strip_suffix('}')) {
        let n = inner
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let (name, rest) = inner.split_at(n);
        let default = if let Some(d) = rest.strip_prefix(":-").or_else(|| rest.strip_prefix('-')) {
            Some(d.to_string())
        } else if let Some(d) = rest.strip_prefix(":=").or_else(|| rest.strip_prefix('=')) {
            Some(d.to_string())
        } else if rest.is_empty() {
            None
        } else {
            // `${X:?message}`, `${X:+alt}`: not a value this can know.
            return None;
        };
        if name.is_empty() || default.as_deref().is_some_and(|d| d.contains('$')) {
            return None;
        }
        let mut e = Expr::named(name, Engine::Text);
        e.default = default;
        return Some(e);
    }
    // Sed-style placeholders: the name inside its sigils (`@NAME@`, `@NAME`, `%%NAME%%`,
    // `%NAME%`, `__NAME__`, `<NAME>`, `{NAME}`, `$NAME`, `SEDNAME`).
    let name = text
        .trim_start_matches(['@', '%', '<', '{', '$'])
        .trim_end_matches(['@', '%', '>', '}']);
    let name = name
        .strip_prefix("__")
        .and_then(|n| n.strip_suffix("__"))
        .unwrap_or(name);
    (!name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
    .then(|| Expr::named(name, Engine::Text))
}

impl Expr {
    fn named(name: &str, engine: Engine) -> Expr {
        Expr {
            name: name.to_string(),
            default: None,
            filters: Vec::new(),
            engine,
        }
    }
}

/// `a`, `a.b`, `a_b.c2`: a variable, or an attribute of one.
fn plain_name(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|p| {
            p.bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
}

/// The parts of a pipeline, split at `|` outside quotes.
fn pipeline(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quote) = (0, None);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '|') => {
                parts.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(s[start..].trim());
    parts
}

/// A quoted string literal or a number: the default a filter names.
fn literal(s: &str) -> Option<String> {
    let s = s.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|t| t.strip_suffix(q)) {
            return (!inner.contains(q) && !inner.contains('\\')).then(|| inner.to_string());
        }
    }
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.to_string())
}

fn jinja_expr(inner: &str) -> Option<Expr> {
    let parts = pipeline(inner);
    let name = parts[0];
    if !plain_name(name) {
        return None;
    }
    let mut e = Expr::named(name, Engine::Jinja);
    for f in &parts[1..] {
        let (fname, args) = match f.find('(') {
            Some(p) => (&f[..p], f[p + 1..].strip_suffix(')')?),
            None => (*f, ""),
        };
        match fname.trim() {
            "default" | "d" => {
                // `default(x, true)` also replaces an empty value: the same here, where an
                // empty value is as unknown as a missing one.
                let first = args.split(',').next()?;
                e.default = Some(literal(first)?);
            }
            "int" | "string" => {}
            "upper" => e.filters.push(Filter::Upper),
            "lower" => e.filters.push(Filter::Lower),
            "trim" => e.filters.push(Filter::Trim),
            _ => return None,
        }
    }
    Some(e)
}

fn go_expr(inner: &str) -> Option<Expr> {
    let parts = pipeline(inner);
    let name = parts[0].strip_prefix('$').unwrap_or(parts[0]);
    let name = name.strip_prefix('.')?;
    if !plain_name(name) || !(name.starts_with("Values.") || name.starts_with("Env.")) {
        return None;
    }
    let mut e = Expr::named(name, Engine::Go);
    for f in &parts[1..] {
        let mut words = f.split_whitespace();
        match (words.next()?, words.next(), words.next()) {
            ("default", Some(d), None) => e.default = Some(literal(d)?),
            ("quote", None, None) => e.filters.push(Filter::Quote),
            ("squote", None, None) => e.filters.push(Filter::SingleQuote),
            ("upper", None, None) => e.filters.push(Filter::Upper),
            ("lower", None, None) => e.filters.push(Filter::Lower),
            ("trim", None, None) => e.filters.push(Filter::Trim),
            ("toString" | "int", None, None) => {}
            _ => return None,
        }
    }
    Some(e)
}

/// The text an engine writes for `value`, after the expression's filters.
fn written(e: &Expr, value: &Value) -> String {
    let mut s = match (value.boolean, e.engine) {
        (Some(true), Engine::Jinja) => "True".to_string(),
        (Some(false), Engine::Jinja) => "False".to_string(),
        (Some(b), _) => b.to_string(),
        (None, _) => value.text.clone(),
    };
    for f in &e.filters {
        s = match f {
            Filter::Quote => format!("\"{s}\""),
            Filter::SingleQuote => format!("'{s}'"),
            Filter::Upper => s.to_uppercase(),
            Filter::Lower => s.to_lowercase(),
            Filter::Trim => s.trim().to_string(),
        };
    }
    s
}

/// `text` with each value placeholder `lookup` knows replaced by its value, and the
/// replacements; `None` when none is known.
pub fn render(
    text: &[u8],
    holes: &[Hole],
    lookup: &dyn Fn(&Expr) -> Option<Value>,
) -> Option<(Vec<u8>, Vec<Sub>)> {
    let mut out = Vec::with_capacity(text.len());
    let mut subs = Vec::new();
    let mut at = 0usize;
    for h in holes {
        if !matches!(h.kind, HoleKind::Value | HoleKind::Statements) {
            continue;
        }
        let raw = &text[h.span.range()];
        let Some(e) = expr(raw) else { continue };
        let value = lookup(&e).or_else(|| {
            e.default.as_ref().map(|d| Value {
                text: d.clone(),
                origin: "the placeholder's default".into(),
                boolean: None,
            })
        });
        let Some(value) = value else { continue };
        let w = written(&e, &value);
        if w.contains(['\n', '\r']) {
            continue;
        }
        out.extend_from_slice(&text[at..h.span.start as usize]);
        let start = out.len() as u32;
        out.extend_from_slice(w.as_bytes());
        subs.push(Sub {
            template: h.span,
            rendered: Span::new(start, out.len() as u32),
            placeholder: String::from_utf8_lossy(raw).into_owned(),
            value: w,
            origin: value.origin,
        });
        at = h.span.end as usize;
    }
    if subs.is_empty() {
        return None;
    }
    out.extend_from_slice(&text[at..]);
    Some((out, subs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;
    use crate::syntax::template::{find, Lang};
    use std::sync::Arc;

    fn e(s: &str) -> Option<Expr> {
        expr(s.as_bytes())
    }

    #[test]
    fn expressions_are_read_or_left_unknown() {
        let j = e("{{ nginx_port }}").unwrap();
        assert_eq!((j.name.as_str(), j.engine), ("nginx_port", Engine::Jinja));
        let d = e("{{- php.max_children | default(5) -}}").unwrap();
        assert_eq!(
            (d.name.as_str(), d.default.as_deref()),
            ("php.max_children", Some("5"))
        );
        assert_eq!(
            e("{{ x | default('a b') }}").unwrap().default.as_deref(),
            Some("a b")
        );
        let g = e("{{ .Values.nginx.port | quote }}").unwrap();
        assert_eq!(
            (g.name.as_str(), g.filters.as_slice()),
            ("Values.nginx.port", &[Filter::Quote][..])
        );
        assert_eq!(
            e("{{ .Values.x | default \"8\" }}")
                .unwrap()
                .default
                .as_deref(),
            Some("8")
        );
        let s = e("${PORT:-8080}").unwrap();
        assert_eq!(
            (s.name.as_str(), s.default.as_deref()),
            ("PORT", Some("8080"))
        );
        assert_eq!(e("${PORT}").unwrap().default, None);
        assert_eq!(e("<%= @port %>").unwrap().name, "port");
        for sed in [
            "@PHP_MAX@",
            "@PHP_MAX",
            "%%PHP_MAX%%",
            "__PHP_MAX__",
            "<PHP_MAX>",
            "{PHP_MAX}",
            "%PHP_MAX%",
        ] {
            assert_eq!(e(sed).unwrap().name, "PHP_MAX", "{sed}");
        }
        // Loops, calls, unknown filters, conditional expansions: unknown.
        for unknown in [
            "{{ item.port }} {{",
            "{{ ports[0] }}",
            "{{ x | regex_replace('a', 'b') }}",
            "{{ lookup('env', 'X') }}",
            "{{ include \"x\" . }}",
            "${X:?missing}",
            "${X:-$Y}",
        ] {
            assert!(e(unknown).is_none(), "{unknown}");
        }
    }

    fn rendered(text: &str, vars: &[(&str, &str)]) -> (String, Rendering) {
        let holes = find(text.as_bytes(), Lang::Nginx);
        let lookup = |x: &Expr| {
            vars.iter().find(|(k, _)| *k == x.name).map(|(_, v)| Value {
                text: v.to_string(),
                origin: "test".into(),
                boolean: None,
            })
        };
        let (out, subs) = render(text.as_bytes(), &holes, &lookup).expect("rendered");
        let template = Arc::new(SourceFile::new("t.conf", text.as_bytes().to_vec()));
        (
            String::from_utf8(out).unwrap(),
            Rendering { template, subs },
        )
    }

    #[test]
    fn values_replace_placeholders_and_offsets_map_back() {
        let t = "events {}\nhttp { worker {{ wc }}; x ${B:-on}; y {{ unknown }}; }\n";
        let (out, r) = rendered(t, &[("wc", "64")]);
        assert_eq!(
            out,
            "events {}\nhttp { worker 64; x on; y {{ unknown }}; }\n"
        );
        // `64` maps to the whole placeholder, text after it to the same text.
        let at = out.find("64").unwrap() as u32;
        assert_eq!(
            r.to_template(Span::new(at, at + 2)),
            Span::new(
                t.find("{{ wc").unwrap() as u32,
                t.find("; x").unwrap() as u32
            )
        );
        let y = out.find("y {{").unwrap() as u32;
        assert_eq!(
            r.to_template(Span::new(y, y + 1)).start,
            t.find("y {{").unwrap() as u32
        );
        // A span from inside a value to after it keeps the placeholder.
        let x = out.find("x on").unwrap() as u32;
        let s = r.to_template(Span::new(x, x + 5));
        assert_eq!(&t[s.range()], "x ${B:-on};");
        assert_eq!(r.subs_in(Span::new(at, at)).count(), 1);
        assert_eq!(r.subs[1].origin, "the placeholder's default");
    }

    #[test]
    fn booleans_print_as_each_engine_does_and_line_breaks_are_not_rendered() {
        let v = |b| Value {
            text: "on".into(),
            origin: "o".into(),
            boolean: Some(b),
        };
        assert_eq!(written(&e("{{ gzip }}").unwrap(), &v(true)), "True");
        assert_eq!(
            written(&e("{{ .Values.gzip }}").unwrap(), &v(false)),
            "false"
        );
        let holes = find(b"a {{ x }};\n", Lang::Nginx);
        let lookup = |_: &Expr| {
            Some(Value {
                text: "1;\nb 2".into(),
                origin: "o".into(),
                boolean: None,
            })
        };
        assert!(render(b"a {{ x }};\n", &holes, &lookup).is_none());
    }
}
