//! The module graph stays layered: each source file belongs to one layer and refers (by a
//! `crate::` path) only to its own layer and those below it. The layers, from the bottom:
//!
//! 0. the vocabulary: sources and spans, the parsers and the formatter, diagnostics, fixes
//!    as edits and how they are applied, and small text utilities;
//! 1. the model: stacks (files, roles, confinement, includes, pools, sizing), host facts,
//!    `lemplint.toml`;
//! 2. analysis: what rules ask about (the nginx directive catalogue, PCRE, TLS ciphers…);
//! 3. rules;
//! 4. the engine: the lint pipeline and the fix loop;
//! 5. output: reports, diffs and atomic writes, the tuner;
//! 6. the command line.
//!
//! A file in no layer, or a reference that points up, fails the test with where it is.

use std::path::Path;

const LAYERS: &[(u8, &[&str])] = &[
    (
        0,
        &[
            "source",
            "escape",
            "fxhash",
            "size",
            "edit_distance",
            "timings",
            "syntax",
            "diagnostic",
            "fix",
            "fix::apply",
            "fix::edits",
            "format",
        ],
    ),
    (1, &["stack", "host", "config"]),
    (2, &["analysis", "tls"]),
    (3, &["rules"]),
    (4, &["engine"]),
    (5, &["report", "fix::write", "fix::diff", "tune"]),
    (6, &["cli", "main", "lib", "server", "bench", "doctor"]),
];

const NAMES: [&str; 7] = [
    "vocabulary",
    "model",
    "analysis",
    "rules",
    "engine",
    "output",
    "command line",
];

/// The layer of a module path (`stack::fs`), by its longest listed prefix.
fn layer_of(module: &str) -> Option<u8> {
    LAYERS
        .iter()
        .flat_map(|(l, prefixes)| prefixes.iter().map(move |p| (*l, *p)))
        .filter(|(_, p)| module == *p || module.starts_with(&format!("{p}::")))
        .max_by_key(|(_, p)| p.len())
        .map(|(l, _)| l)
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The text with `//` comments removed (a comment may name any module).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module paths a text names after `crate::`, a grouped `use crate::{a::b, c}` giving
/// each of its members.
fn referenced_modules(text: &str) -> Vec<String> {
    fn path_at(rest: &str) -> String {
        let path: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_' || *c == ':')
            .collect();
        path.trim_end_matches(':').to_string()
    }
    let mut out = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(
                inner
                    .split(',')
                    .map(|m| path_at(m.trim()))
                    .filter(|p| !p.is_empty()),
            );
        } else {
            let p = path_at(rest);
            if !p.is_empty() {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn every_reference_points_down_or_across() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap().with_extension("");
        let mut parts: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        if parts.last().is_some_and(|p| p == "mod") {
            parts.pop();
        }
        let module = parts.join("::");
        let Some(own) = layer_of(&module) else {
            problems.push(format!("{}: in no layer (add it to LAYERS)", rel.display()));
            continue;
        };
        let text = code(&std::fs::read_to_string(f).unwrap());
        for path in referenced_modules(&text) {
            let path = path.as_str();
            match layer_of(path) {
                Some(l) if l > own => problems.push(format!(
                    "{} ({}) refers to crate::{path} ({})",
                    rel.display(),
                    NAMES[own as usize],
                    NAMES[l as usize]
                )),
                Some(_) => {}
                None => problems.push(format!(
                    "{} refers to crate::{path}, which is in no layer",
                    rel.display()
                )),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The check itself notices an upward reference (so it cannot pass by matching nothing).
#[test]
fn an_upward_reference_is_caught() {
    assert_eq!(layer_of("stack::fs"), Some(1));
    assert_eq!(layer_of("fix::write"), Some(5));
    assert_eq!(layer_of("fix::apply"), Some(0));
    assert!(layer_of("engine::lint").unwrap() > layer_of("rules::nginx").unwrap());
    assert_eq!(layer_of("nowhere"), None);
    assert_eq!(
        referenced_modules("use crate::{rules::Rule, engine};\nx = crate::tune::run();"),
        ["rules", "engine", "tune::run"]
    );
}
