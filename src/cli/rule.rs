//! `lemplint rule CODE|NAME` (one rule's documentation) and `lemplint rules` (the list).

use super::{EXIT_ERROR, EXIT_OK};
use crate::report::rule_docs::{fix_text, text as render};
use crate::rules::{self, meta::FixAvailability};
use clap::{Args, ValueEnum};

#[derive(Args, Debug)]
pub struct RuleArgs {
    /// A rule code (NGX022) or name (server-tokens-on)
    pub rule: String,
}

#[derive(Args, Debug)]
pub struct RulesArgs {
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Text,
    Json,
    /// A Markdown table (the one in README.md)
    Markdown,
}

pub fn run_rule(args: RuleArgs) -> i32 {
    match rules::lookup(&args.rule) {
        Some(rule) => {
            print!("{}", render(rule));
            EXIT_OK
        }
        None => {
            let near = crate::edit_distance::closest(
                &args.rule,
                rules::RULES.iter().flat_map(|r| [r.code, r.name]),
            )
            .and_then(rules::lookup);
            match near {
                Some(r) => eprintln!(
                    "error: no rule named {:?}: did you mean {} ({})? (`lemplint rules` lists them all)",
                    args.rule, r.name, r.code
                ),
                None => eprintln!(
                    "error: no rule named {:?} (see `lemplint rules`)",
                    args.rule
                ),
            }
            EXIT_ERROR
        }
    }
}

pub fn run_rules(args: RulesArgs) -> i32 {
    match args.format {
        ListFormat::Json => {
            let list: Vec<_> = rules::RULES
                .iter()
                .map(|r| {
                    let m = r.meta();
                    serde_json::json!({
                        "code": r.code, "name": r.name, "category": r.category.as_str(),
                        "severity": r.severity().as_str(), "summary": m.summary,
                        "group": r.group.as_str(),
                        "status": rules::lifecycle::SHIPPED.status(r).as_str(),
                        "fix": fix_text(r.fix), "needs_host": r.needs_host,
                    })
                })
                .collect();
            println!("{}", serde_json::json!({ "rules": list }));
        }
        ListFormat::Markdown => print!("{}", markdown_table()),
        ListFormat::Text => {
            let width = rules::RULES.iter().map(|r| r.name.len()).max().unwrap_or(0);
            for r in rules::RULES.iter() {
                let m = r.meta();
                println!(
                    "{:<7} {:<width$} {:<11} {:<7} {:<9} {}{}",
                    r.code,
                    r.name,
                    r.category.as_str(),
                    r.severity().as_str(),
                    r.group.as_str(),
                    m.summary,
                    if r.fix != FixAvailability::None {
                        " [fix]"
                    } else {
                        ""
                    }
                );
            }
        }
    }
    EXIT_OK
}

/// Every rule as a Markdown table: code, name, category, severity, group, fix, summary.
pub fn markdown_table() -> String {
    let mut out = String::from("| code | name | category | severity | group | fix | summary |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    for r in rules::RULES.iter() {
        let m = r.meta();
        out.push_str(&format!(
            "| {} | {} | {} | {}{} | {} | {} | {} |\n",
            r.code,
            r.name,
            r.category.as_str(),
            r.severity().as_str(),
            if r.needs_host { " (host)" } else { "" },
            r.group.as_str(),
            fix_text(r.fix),
            m.summary.replace('|', "\\|")
        ));
    }
    out
}
