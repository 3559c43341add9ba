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
//!
//! Within a layer references may go across, but never around in a circle: the top-level
//! modules' graph has no cycle (`cli` → `server` → `cli` made each need the other to build
//! and to understand). And within the rules layer, a rule file imports the rules' machinery
//! and `analysis`, never another rule's file (what two rules share is a model of its own in
//! `analysis/`), and keys nothing by address (`*const`): what a rule keys by has an id
//! (`stack::ids`), which is stable, ordered and cannot dangle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: &[(u8, &[&str])] = &[
    (
        0,
        &[
            "source",
            "escape",
            "exit",
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

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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

/// Every source file under `src/`, as (module path, path relative to `src/`, code without
/// comments), sorted.
fn sources() -> Vec<(String, PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().to_path_buf();
            let mut parts: Vec<String> = rel
                .with_extension("")
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            let text = code(&std::fs::read_to_string(&f).unwrap());
            (parts.join("::"), rel, text)
        })
        .collect()
}

/// The graph of top-level modules (`stack` → `host`): who refers to whom by `crate::`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, _, text) in sources() {
        let top = module.split("::").next().unwrap().to_string();
        let to = graph.entry(top.clone()).or_default();
        for path in referenced_modules(&text) {
            let target = path.split("::").next().unwrap();
            if target != top {
                to.insert(target.to_string());
            }
        }
    }
    graph
}

/// A cycle of `graph` as the modules along it (the first repeated at the end), if any.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first, with the path so far: an edge back into the path closes a cycle.
    fn visit<'g>(
        node: &'g str,
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'g str>,
        done: &mut BTreeSet<&'g str>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|n| *n == node) {
            let mut cycle: Vec<String> = path[i..].iter().map(|s| s.to_string()).collect();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if !done.insert(node) {
            return None;
        }
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn top_level_modules_form_no_cycle() {
    let graph = module_graph();
    assert!(graph.len() > 10, "the graph was read: {graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "the top-level modules refer to each other in a circle: {}",
            cycle.join(" → ")
        );
    }
}

/// The check finds a cycle when there is one, and none in a chain.
#[test]
fn a_cycle_is_caught() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert_eq!(
        find_cycle(&graph(&[
            ("cli", "bench"),
            ("bench", "tune"),
            ("tune", "cli")
        ])),
        Some(vec![
            "bench".into(),
            "tune".into(),
            "cli".into(),
            "bench".into()
        ])
    );
    assert_eq!(
        find_cycle(&graph(&[
            ("cli", "bench"),
            ("bench", "tune"),
            ("cli", "tune")
        ])),
        None
    );
}

/// The folders of `src/rules/` that hold one file per rule (and `lint.rs`, the tool's own).
const RULE_DIRS: &[&str] = &["nginx", "fpm", "sysctl", "stack", "tls"];

/// Whether a module path is a rule's file (`rules::nginx::autoindex_on`, `rules::lint`).
fn is_rule_module(module: &str) -> bool {
    let parts: Vec<&str> = module.split("::").collect();
    match parts.as_slice() {
        ["rules", "lint", ..] => true,
        ["rules", dir, _, ..] => RULE_DIRS.contains(dir),
        _ => false,
    }
}

/// What a rule file imports from other rule files: `crate::rules::<lang>::…` paths, and
/// top-level `use super::…` (a sibling; a test module's `use super::` is indented).
fn rule_imports(module: &str, text: &str) -> Vec<String> {
    let mut out: Vec<String> = referenced_modules(text)
        .into_iter()
        .filter(|p| is_rule_module(p) && !is_within(module, p))
        .collect();
    // `rules::lint`'s `super` is the rules' machinery; a language folder's file's `super`
    // is its folder, which holds nothing but its rules; in a rule split into a folder of
    // its own (`rules::fpm::pm_invalid::pool`) `super` is the rule and `super::super` the
    // language's folder.
    let depth = module.split("::").count();
    let sibling = |l: &str| match depth {
        3 => l.starts_with("use super::"),
        _ => depth > 3 && l.contains("super::super::"),
    };
    out.extend(
        text.lines()
            .filter(|l| sibling(l))
            .map(|l| l.trim().to_string()),
    );
    out
}

/// Whether module `module` is `of` or inside it.
fn is_within(module: &str, of: &str) -> bool {
    module == of || module.starts_with(&format!("{of}::"))
}

/// Breaches a branch is still removing, as (file, kind). Each entry must still be needed:
/// once its breach is gone the test asks to delete it, so the list cannot outlive its
/// reason. (Empty since issue #38's request model moved NGX130's, NGX132's and NGX140's
/// request processing and STK009's imports to `analysis/`.)
const PENDING: &[(&str, &str)] = &[];

/// A rule file holds one rule: past this many lines, what it models belongs in `analysis/`
/// (or, for one rule's own parts, in a folder of the rule's own).
const MAX_RULE_FILE_LINES: usize = 600;

#[test]
fn rule_files_import_no_rule_file_and_key_nothing_by_address() {
    let mut problems = Vec::new();
    let mut pending_seen = BTreeSet::new();
    for (module, rel, text) in sources() {
        let file = rel.to_string_lossy().into_owned();
        let mut breach = |what: String, kind: &str| match PENDING
            .iter()
            .position(|(f, k)| *f == file && k.starts_with(kind))
        {
            Some(i) => {
                pending_seen.insert(i);
            }
            None => problems.push(format!("src/{file}: {what}")),
        };
        if is_rule_module(&module) {
            for import in rule_imports(&module, &text) {
                breach(
                    format!(
                        "imports another rule's file ({import}): move what they share to analysis/"
                    ),
                    "imports",
                );
            }
        }
        if is_rule_module(&module) {
            let lines = text.lines().count();
            if lines > MAX_RULE_FILE_LINES {
                breach(
                    format!("is longer than {MAX_RULE_FILE_LINES} lines ({lines})"),
                    "is longer",
                );
            }
        }
        if module.starts_with("rules") {
            for (n, line) in text.lines().enumerate() {
                if line.contains("*const ") || line.contains("*const(") {
                    breach(
                        format!("{}: keys by address (`*const`): use an id", n + 1),
                        "*const",
                    );
                }
            }
        }
    }
    for (i, (file, kind)) in PENDING.iter().enumerate() {
        if !pending_seen.contains(&i) {
            problems.push(format!(
                "src/{file}: what PENDING excuses there (`{kind}`) is gone: delete the entry"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The rule-file check tells a rule's file from the rules' machinery, and sees both kinds
/// of sibling import.
#[test]
fn a_rule_importing_a_rule_is_caught() {
    assert!(is_rule_module("rules::nginx::status_page_exposed"));
    assert!(is_rule_module("rules::lint"));
    assert!(!is_rule_module("rules::nginx"));
    assert!(!is_rule_module("rules::registry"));
    assert!(!is_rule_module("analysis::fpm_status"));
    assert!(is_within(
        "rules::fpm::pm_invalid::pool",
        "rules::fpm::pm_invalid"
    ));
    assert!(!is_within(
        "rules::fpm::pm_invalid_x",
        "rules::fpm::pm_invalid"
    ));
    let text = "use crate::rules::{Context, Rule};\nuse crate::rules::nginx::autoindex_on::X;\nuse super::other::Y;\nmod tests {\n    use super::*;\n}";
    assert_eq!(
        rule_imports("rules::stack::mine", text),
        ["rules::nginx::autoindex_on", "use super::other::Y;"]
    );
    let part = "use super::{report_at, X};\nuse super::super::other::Y;\n";
    assert_eq!(
        rule_imports("rules::fpm::mine::part", part),
        ["use super::super::other::Y;"]
    );
}
