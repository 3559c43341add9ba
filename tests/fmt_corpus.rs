//! `lemplint fmt`'s invariants on every nginx file of ../shared/corpus: the formatted text
//! parses to the same tokens, comments and blocks (our crossplane payload, line numbers
//! aside, is identical), formatting it again changes nothing, and it round-trips.

mod common;
use common::{corpus, files_under};
use lemplint::format::nginx::format;
use lemplint::format::{Indent, Style};
use lemplint::syntax::nginx::crossplane::{payload, CrossplaneFile};
use lemplint::syntax::nginx::parse;
use serde_json::Value;

/// The payload without line numbers, which formatting moves, and (with `indent_lua`) the
/// Lua bodies without their lines' indentation.
fn without_lines(mut v: Value, indent_lua: bool) -> Value {
    fn lua_lines(body: &str) -> String {
        body.split('\n')
            .map(|l| l.trim_start_matches([' ', '\t']))
            .collect::<Vec<_>>()
            .join("\n")
    }
    fn strip(v: &mut Value, indent_lua: bool) {
        match v {
            Value::Object(m) => {
                m.remove("line");
                let lua = m
                    .get("directive")
                    .and_then(Value::as_str)
                    .is_some_and(|d| d.ends_with("_by_lua_block"));
                if lua && indent_lua {
                    if let Some(Value::Array(args)) = m.get_mut("args") {
                        for a in args {
                            if let Value::String(s) = a {
                                *s = lua_lines(s);
                            }
                        }
                    }
                }
                m.values_mut().for_each(|v| strip(v, indent_lua));
            }
            Value::Array(a) => a.iter_mut().for_each(|v| strip(v, indent_lua)),
            _ => {}
        }
    }
    strip(&mut v, indent_lua);
    v
}

fn payload_of(src: &[u8], indent_lua: bool) -> Value {
    let parsed = parse(src);
    let includes = std::collections::HashMap::new();
    without_lines(
        payload(&[CrossplaneFile {
            path: "f".into(),
            src,
            parsed: &parsed,
            includes: &includes,
        }]),
        indent_lua,
    )
}

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn formatting_the_corpus_keeps_every_token_and_is_idempotent() {
    let Some(dir) = corpus("nginx") else { return };
    let files = files_under(&dir);
    let mut formatted = 0;
    let mut unchanged = 0;
    let mut skipped = 0;
    let mut failures = Vec::new();
    let styles = [
        Style::default(),
        Style {
            indent: Indent::Tab,
            collapse_spaces: true,
            indent_lua: true,
        },
        Style {
            indent: Indent::Spaces(2),
            collapse_spaces: true,
            indent_lua: false,
        },
    ];
    for style in styles {
        for f in &files {
            let src = std::fs::read(f).unwrap();
            let parsed = parse(&src);
            let out = match format(&src, &parsed, style) {
                Ok(Some(out)) => out,
                Ok(None) => {
                    unchanged += 1;
                    continue;
                }
                Err(lemplint::format::FormatError::Syntax) => {
                    skipped += 1;
                    continue;
                }
                Err(e) => {
                    failures.push(format!("{}: {e:?}", f.display()));
                    continue;
                }
            };
            formatted += 1;
            let again = parse(&out);
            let why = if !again.errors.is_empty() {
                Some(format!("output has errors: {:?}", again.errors[0].message))
            } else if payload_of(&src, style.indent_lua) != payload_of(&out, style.indent_lua) {
                Some("crossplane payload differs".to_string())
            } else if again.tree.print(&out).as_deref() != Some(&out[..]) {
                Some("output does not round-trip".to_string())
            } else {
                match format(&out, &again, style) {
                    Ok(None) => None,
                    Ok(Some(twice)) => Some(format!(
                        "not idempotent:\n{}",
                        similar::TextDiff::from_lines(
                            &String::from_utf8_lossy(&out),
                            &String::from_utf8_lossy(&twice)
                        )
                        .unified_diff()
                    )),
                    Err(e) => Some(format!("second pass: {e:?}")),
                }
            };
            if let Some(why) = why {
                failures.push(format!("{} ({style:?}): {why}", f.display()));
            }
        }
    }
    eprintln!(
        "fmt corpus: {} files × 3 styles: {formatted} reformatted, {unchanged} already formatted, {skipped} with syntax errors",
        files.len()
    );
    assert!(formatted > 1000, "only {formatted} files were formatted");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}
