//! The rule documentation site, `docs/rules/` (one page per rule and an index), is
//! generated from the rules' metadata by `lemplint::report::rule_docs`; SARIF's `helpUri`
//! links to its pages. This test fails when a committed page differs from what the
//! metadata gives, when a page is missing, or when a page has no rule; `LEMPLINT_BLESS=1
//! cargo test --test rule_docs` writes the site again.

use lemplint::report::rule_docs;
use std::path::Path;

#[test]
fn rule_docs_site_is_generated() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = rule_docs::files();
    let bless = std::env::var_os("LEMPLINT_BLESS").is_some_and(|v| v == "1");
    let dir = root.join(rule_docs::DIR);
    if bless {
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                std::fs::remove_file(path).unwrap();
            }
        }
    }
    let mut stale = Vec::new();
    for (path, text) in &files {
        let full = root.join(path);
        if bless {
            std::fs::write(&full, text).unwrap();
        } else if std::fs::read_to_string(&full).ok().as_deref() != Some(text.as_str()) {
            stale.push(path.clone());
        }
    }
    let wanted: std::collections::HashSet<String> = files.iter().map(|(p, _)| p.clone()).collect();
    let extra: Vec<String> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| format!("{}/{}", rule_docs::DIR, e.file_name().to_string_lossy()))
                .filter(|p| !wanted.contains(p))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        stale.is_empty() && extra.is_empty(),
        "docs/rules is out of date (rewrite it with `LEMPLINT_BLESS=1 cargo test --test rule_docs`): \
         differs or missing: {stale:?}; no such rule: {extra:?}"
    );
}

#[test]
fn every_rule_has_a_page_that_help_uri_names() {
    for r in lemplint::rules::RULES.iter() {
        let uri = rule_docs::help_uri(r.code);
        assert!(uri.starts_with(rule_docs::BASE_URL), "{uri}");
        let page = uri.strip_prefix(rule_docs::BASE_URL).unwrap();
        assert_eq!(page, format!("{}.md", r.code));
        let text = rule_docs::page(r);
        assert!(text.contains(&format!("# {} `{}`", r.code, r.name)));
        assert!(text.contains(r.meta().docs.why_it_matters.trim()));
    }
    let index = rule_docs::index();
    assert_eq!(
        index.matches("](").count(),
        lemplint::rules::RULES.len(),
        "the index links every rule once"
    );
}

/// `security-severity` in a rule's TOML is for security rules only, on GitHub's scale, and
/// every security rule outside lemplint's own gets a score.
#[test]
fn security_severity_is_for_security_rules_on_githubs_scale() {
    for r in lemplint::rules::RULES.iter() {
        let security = r.category.as_str() == "security";
        if let Some(score) = r.meta().security_severity {
            assert!(
                security,
                "{}: security-severity on a non-security rule",
                r.code
            );
            assert!((0.1..=10.0).contains(&score), "{}: {score}", r.code);
        }
        let written = lemplint::report::sarif::security_severity(r);
        assert_eq!(
            written.is_some(),
            security && r.lang != "lint",
            "{}",
            r.code
        );
    }
    let by = |code: &str| {
        lemplint::report::sarif::security_severity(lemplint::rules::by_code(code).unwrap())
    };
    assert_eq!(by("STK008").as_deref(), Some("9.8"));
    assert_eq!(by("NGX002").as_deref(), Some("8.0"));
    assert_eq!(by("NGX104").as_deref(), Some("5.0"));
    assert_eq!(by("NGX114").as_deref(), Some("2.0"));
    assert_eq!(by("NGX023"), None);
}
