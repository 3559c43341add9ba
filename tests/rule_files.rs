//! Each rule file exports its rule and nothing else: no rule file imports another rule's
//! file (what two rules share belongs in `analysis/`). Checked on the source: a rule file
//! under `src/rules/<lang>/` may not name `crate::rules::<lang>::…` nor a sibling through
//! `super::<file>::…`.

use std::path::Path;

/// The `use`/path references of a rule file that name another rule's file.
fn rule_imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for lang in ["nginx", "fpm", "sysctl", "stack", "tls"] {
        let needle = format!("crate::rules::{lang}::");
        for (i, _) in text.match_indices(&needle) {
            out.push(text[i..].lines().next().unwrap_or("").to_string());
        }
    }
    for (i, _) in text.match_indices("super::") {
        let rest = &text[i + "super::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // `super::*` in a file's own tests, and the rule registry's items, are fine.
        if rest[name.len()..].starts_with("::") && !name.is_empty() {
            out.push(text[i..].lines().next().unwrap_or("").to_string());
        }
    }
    out
}

#[test]
fn no_rule_file_imports_another_rules_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
    let mut offenders = Vec::new();
    let mut files = 0;
    for lang in std::fs::read_dir(&root).unwrap().flatten() {
        if !lang.path().is_dir() {
            continue;
        }
        for f in std::fs::read_dir(lang.path()).unwrap().flatten() {
            let p = f.path();
            if p.file_name().is_some_and(|n| n == "mod.rs")
                || p.extension().is_none_or(|e| e != "rs")
            {
                continue;
            }
            files += 1;
            let text = std::fs::read_to_string(&p).unwrap();
            for line in rule_imports(&text) {
                offenders.push(format!("{}: {line}", p.display()));
            }
        }
    }
    assert!(files > 50, "only {files} rule files found");
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

#[test]
fn an_import_of_another_rule_is_caught() {
    let text = "use crate::rules::nginx::status_page_exposed::defeated;\nuse super::*;\n";
    assert_eq!(rule_imports(text).len(), 1);
    assert_eq!(rule_imports("let x = super::other::f();").len(), 1);
    assert!(rule_imports("use crate::rules::{Context, Rule};").is_empty());
}
