//! The rule documentation site: one Markdown page per rule, `docs/rules/CODE.md`, and an
//! index, `docs/rules/README.md`, generated from the rules' metadata (`rules/*/*.toml`
//! and `declare_rule!`), the same text `lemplint rule CODE` prints. The pages are committed
//! so that GitHub renders them; `tests/rule_docs.rs` fails when they are out of date and
//! `LEMPLINT_BLESS=1 cargo test --test rule_docs` writes them again.
//!
//! SARIF's `helpUri` points at a rule's page under [`BASE_URL`]: the `main` branch of the
//! project's GitHub repository, a URL that stays valid as long as the rule exists (codes
//! are never reused).

use crate::rules::{self, meta::FixAvailability, RuleEntry};

/// Where the pages are published: `docs/rules/` on the repository's `main` branch.
pub const BASE_URL: &str = "https://github.com/lemplint/lemplint/blob/main/docs/rules/";

/// The directory of the pages, relative to the repository root.
pub const DIR: &str = "docs/rules";

/// The page of a rule.
pub fn help_uri(code: &str) -> String {
    format!("{BASE_URL}{code}.md")
}

pub fn fix_text(f: FixAvailability) -> &'static str {
    match f {
        FixAvailability::Always => "always",
        FixAvailability::Sometimes => "sometimes",
        FixAvailability::None => "none",
    }
}

fn indent(text: &str, by: &str) -> String {
    text.trim_end()
        .lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{by}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A rule's documentation as plain text for a terminal (`lemplint rule CODE`, the
/// language server's hover on a code).
pub fn text(rule: &RuleEntry) -> String {
    let m = rule.meta();
    let d = &m.docs;
    let mut out = format!(
        "{} {}\n{} · {} · group: {} ({}) · fix: {}{}\n\n{}\n",
        rule.code,
        rule.name,
        rule.category.as_str(),
        rule.severity().as_str(),
        rule.group.as_str(),
        rules::lifecycle::SHIPPED.status(rule).as_str(),
        fix_text(rule.fix),
        if rule.needs_host {
            " · needs host facts"
        } else {
            ""
        },
        m.summary
    );
    for (title, body) in [
        ("What it does", &d.what_it_does),
        ("Why it matters", &d.why_it_matters),
    ] {
        out.push_str(&format!("\n{title}\n{}\n", indent(body, "  ")));
    }
    out.push_str(&format!("\nExample\n{}\n", indent(&d.example, "    ")));
    out.push_str(&format!(
        "\nUse instead\n{}\n",
        indent(&d.use_instead, "    ")
    ));
    out.push_str(&format!("\nFix safety\n{}\n", indent(&d.fix_safety, "  ")));
    if !m.options.is_empty() {
        out.push_str("\nOptions\n");
        for (name, o) in &m.options {
            out.push_str(&format!(
                "  {name} ({}, default {}): {}\n",
                o.kind, o.default, o.description
            ));
        }
    }
    if !d.references.is_empty() {
        out.push_str("\nReferences\n");
        for r in &d.references {
            out.push_str(&format!("  - {r}\n"));
        }
    }
    out
}

fn fence(rule: &RuleEntry) -> &'static str {
    match rule.lang {
        "nginx" => "nginx",
        "fpm" | "sysctl" => "ini",
        _ => "",
    }
}

/// A rule's page.
pub fn page(rule: &RuleEntry) -> String {
    let m = rule.meta();
    let d = &m.docs;
    let mut out = format!(
        "<!-- generated from rules/{}/{}.toml by `LEMPLINT_BLESS=1 cargo test --test rule_docs`; do not edit -->\n\n# {} `{}`\n\n{}\n\n",
        rule.lang,
        rule.code,
        rule.code,
        rule.name,
        m.summary.trim()
    );
    let mut facts = vec![
        ("Category", rule.category.as_str().to_string()),
        ("Severity", rule.severity().as_str().to_string()),
        ("Group", rule.group.as_str().to_string()),
        (
            "Status",
            rules::lifecycle::SHIPPED.status(rule).as_str().to_string(),
        ),
        ("Fix", fix_text(rule.fix).to_string()),
        (
            "Needs host facts",
            if rule.needs_host { "yes" } else { "no" }.to_string(),
        ),
    ];
    if let Some(score) = super::sarif::security_severity(rule) {
        facts.push(("Security severity (GitHub)", score));
    }
    out.push_str("| | |\n| --- | --- |\n");
    for (k, v) in facts {
        out.push_str(&format!("| {k} | {v} |\n"));
    }
    let fence = fence(rule);
    for (heading, body, snippet) in [
        ("What it does", d.what_it_does.trim(), false),
        ("Why it matters", d.why_it_matters.trim(), false),
        ("Example", d.example.trim_end(), true),
        ("Use instead", d.use_instead.trim_end(), true),
        ("Fix safety", d.fix_safety.trim(), false),
    ] {
        if snippet {
            out.push_str(&format!("\n## {heading}\n\n```{fence}\n{body}\n```\n"));
        } else {
            out.push_str(&format!("\n## {heading}\n\n{body}\n"));
        }
    }
    if !m.options.is_empty() {
        out.push_str("\n## Options\n\n| option | type | default | description |\n| --- | --- | --- | --- |\n");
        for (name, o) in &m.options {
            out.push_str(&format!(
                "| `{name}` | {} | `{}` | {} |\n",
                o.kind,
                o.default,
                o.description.trim().replace('|', "\\|").replace('\n', " ")
            ));
        }
    }
    if !d.references.is_empty() {
        out.push_str("\n## References\n\n");
        for r in &d.references {
            out.push_str(&format!("- <{r}>\n"));
        }
    }
    out.push_str(&format!(
        "\nSuppress one finding with `{} lemplint: ignore {} -- reason` on its line or the line above; see the [index](README.md) for every rule.\n",
        if matches!(rule.lang, "fpm") { ";" } else { "#" },
        rule.code
    ));
    out
}

/// The index page: every rule, linked to its page.
pub fn index() -> String {
    let mut out = String::from(
        "<!-- generated from rules/*/*.toml by `LEMPLINT_BLESS=1 cargo test --test rule_docs`; do not edit -->\n\n# lemplint rules\n\n`lemplint rules` lists them and `lemplint rule CODE` prints a page in the terminal. Codes: `NGX` nginx, `FPM` PHP-FPM and php.ini, `SYS` sysctl, `STK` across the stack, `LINT` lemplint's own.\n\n| code | name | category | severity | group | fix | summary |\n| --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for r in rules::RULES.iter() {
        out.push_str(&format!(
            "| [{code}]({code}.md) | {} | {} | {}{} | {} | {} | {} |\n",
            r.name,
            r.category.as_str(),
            r.severity().as_str(),
            if r.needs_host { " (host)" } else { "" },
            r.group.as_str(),
            fix_text(r.fix),
            r.meta().summary.trim().replace('|', "\\|"),
            code = r.code,
        ));
    }
    out
}

/// Every file of the site: (path relative to the repository root, contents).
pub fn files() -> Vec<(String, String)> {
    let mut files = vec![(format!("{DIR}/README.md"), index())];
    for r in rules::RULES.iter() {
        files.push((format!("{DIR}/{}.md", r.code), page(r)));
    }
    files
}
