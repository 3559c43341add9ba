//! `lemplint tune`: recommended settings for the host, with reasons; `--diff` or `--write`.

use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use crate::engine::{StackArgs, Workspace};
use crate::fix::{diff, write};
use crate::stack::model::Stack;
use crate::tune::{self, Assumptions, Plan};
use clap::{Args, ValueEnum};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct TuneArgs {
    #[command(flatten)]
    pub stack: StackArgs,
    /// Memory kept for everything but PHP: a size (1GiB) or a percentage (25%)
    #[arg(long, value_name = "SIZE|PCT")]
    pub reserve: Option<String>,
    /// Resident memory of one PHP worker (default: [rules.FPM004] worker-rss, else 64MiB)
    #[arg(long, value_name = "SIZE", conflicts_with = "sample")]
    pub worker_rss: Option<String>,
    /// Measure the running PHP-FPM workers (p95 of their resident memory)
    #[arg(long)]
    pub sample: bool,
    #[arg(long, value_enum, default_value_t = TuneFormat::Text)]
    pub format: TuneFormat,
    /// Print the changes as a unified diff (for `git apply`)
    #[arg(long, conflicts_with = "write")]
    pub diff: bool,
    /// Apply the changes to the files
    #[arg(long)]
    pub write: bool,
}

impl TuneArgs {
    /// The flags that change what the tuner assumes.
    fn overrides(&self) -> tune::Overrides {
        tune::Overrides {
            reserve: self.reserve.clone(),
            worker_rss: self.worker_rss.clone(),
            sample: self.sample,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TuneFormat {
    Text,
    Json,
}

fn text(stack: &Stack, a: &Assumptions, plan: &Plan) -> String {
    let mut out = String::new();
    let host = stack.host.describe();
    out.push_str(&format!(
        "Stack {}\n  host: {}\n  assumed: PHP worker {} ({}), reserve {} ({})\n",
        if stack.root.as_os_str().is_empty() {
            ".".into()
        } else {
            stack.root.display().to_string()
        },
        host.join(", "),
        tune::mib(a.php_worker_rss),
        a.php_worker_rss_source,
        tune::mib(a.reserve),
        a.reserve_source
    ));
    if plan.recommendations.is_empty() && plan.notes.is_empty() {
        out.push_str("\n  Nothing to change: the settings fit this host.\n");
    }
    let mut by_file: BTreeMap<PathBuf, Vec<&tune::Recommendation>> = BTreeMap::new();
    for r in &plan.recommendations {
        by_file.entry(r.file.path.clone()).or_default().push(r);
    }
    for (path, recs) in by_file {
        out.push_str(&format!("\n  {}\n", crate::escape::path(&path)));
        let width = recs.iter().map(|r| r.setting.len()).max().unwrap_or(0);
        let change = |r: &tune::Recommendation| match &r.current {
            Some(c) => format!("{c} → {}", r.recommended),
            None => format!("(unset) → {}", r.recommended),
        };
        let cwidth = recs
            .iter()
            .map(|r| change(r).chars().count())
            .max()
            .unwrap_or(0);
        for r in recs {
            let c = change(r);
            let pad = cwidth - c.chars().count();
            out.push_str(&format!(
                "    {:<width$}  {c}{}  {}\n",
                r.setting,
                " ".repeat(pad),
                r.reason
            ));
        }
    }
    for n in &plan.notes {
        out.push_str(&format!("\n  note: {n}\n"));
    }
    out
}

fn json_of(stack: &Stack, a: &Assumptions, plan: &Plan) -> serde_json::Value {
    let recs: Vec<_> = plan
        .recommendations
        .iter()
        .map(|r| {
            json!({"file": r.file.path.display().to_string(), "line": r.line, "setting": r.setting,
                   "current": r.current, "recommended": r.recommended, "reason": r.reason})
        })
        .collect();
    let source = stack
        .host
        .cpus
        .as_ref()
        .map(|c| c.source.to_string())
        .unwrap_or_default();
    json!({
        "root": stack.root.display().to_string(),
        "host": {"cpus": stack.host.cpus.as_ref().map(|c| c.value),
                 "memory": stack.host.memory.as_ref().map(|m| m.value), "source": source},
        "assumptions": {"php_worker_rss": a.php_worker_rss, "php_worker_rss_source": a.php_worker_rss_source,
                        "reserve": a.reserve, "reserve_source": a.reserve_source},
        "recommendations": recs,
        "notes": plan.notes,
    })
}

/// Whether the tuner reads a file of the stack: every file but those of standalone nginx
/// snippets (nothing includes them, so no nginx runs them and the tuner leaves them alone).
fn tune_reads(stack: &Stack, path: &std::path::Path) -> bool {
    let in_nginx = |standalone: bool| {
        stack
            .nginx
            .iter()
            .filter(|i| i.standalone == standalone)
            .any(|i| i.config.files.iter().any(|f| f.source.path == path))
    };
    in_nginx(false) || !in_nginx(true)
}

pub fn run(args: TuneArgs) -> i32 {
    let _lock = match super::lock_for_writing(&args.stack, args.write) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let fs = crate::engine::real_fs(&args.stack);
    let confine = fs.confinement().clone();
    let ws = match Workspace::load_with(&args.stack, &fs) {
        Ok(ws) => ws,
        Err(e) => return super::load_failed(&e, "tune"),
    };
    let mut plans = Vec::new();
    let mut reports = Vec::new();
    let mut json_stacks = Vec::new();
    // A stack with a file that cannot be read or parsed as a whole is not tuned: its tree
    // may be wrong, and so would the values read from it, and its settings are weighed
    // together (the backlogs of nginx, php-fpm and the kernel). The other stacks are.
    let mut not_tuned = 0usize;
    for stack in &ws.stacks {
        let mut broken = crate::engine::stack_input_errors(&ws, stack);
        broken.retain(|d| tune_reads(stack, &d.file.path));
        if !broken.is_empty() {
            let mut err = std::io::stderr().lock();
            for d in &broken {
                let _ = writeln!(err, "{}", crate::report::concise::line(d));
            }
            let _ = writeln!(
                err,
                "error: stack {} has errors that must be fixed first; it was not tuned",
                stack.shown_root()
            );
            not_tuned += 1;
            continue;
        }
        let result = tune::assumptions(&args.overrides(), &ws, stack)
            .and_then(|a| tune::plan(stack, &a).map(|p| (a, p)));
        let (a, plan) = match result {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_ERROR;
            }
        };
        reports.push(text(stack, &a, &plan));
        json_stacks.push(json_of(stack, &a, &plan));
        plans.push(plan);
    }
    if args.diff || args.write {
        let changed = tune::apply(&plans);
        if args.diff {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            if diff::write_patch(&mut out, &confine, &changed)
                .and_then(|_| out.flush())
                .is_err()
            {
                return EXIT_ERROR;
            }
            return if not_tuned > 0 {
                EXIT_ERROR
            } else if changed.is_empty() {
                EXIT_OK
            } else {
                EXIT_FINDINGS
            };
        }
        let (written, failed) = write::commit(&confine, &changed);
        for (path, e) in &failed {
            eprintln!("error: cannot write {}: {e}", crate::escape::path(path));
        }
        eprintln!(
            "Wrote {written} file{}.",
            if written == 1 { "" } else { "s" }
        );
        if !failed.is_empty() || not_tuned > 0 {
            return EXIT_ERROR;
        }
    }
    match args.format {
        TuneFormat::Text => print!("{}", crate::escape::text(&reports.join("\n"))),
        TuneFormat::Json => {
            let v = if json_stacks.len() == 1 {
                json_stacks.remove(0)
            } else {
                json!({"stacks": json_stacks})
            };
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
    }
    if not_tuned > 0 {
        EXIT_ERROR
    } else {
        EXIT_OK
    }
}
