//! `lemplint tune`: settings derived from the host's CPUs and memory, each with its reason.
//!
//! Recommendations are pure functions of the stack, the host facts and a few assumptions
//! (a PHP worker's memory, the memory kept for everything else). Each one carries the byte
//! edits that apply it, built with the same helpers the fixer uses, so `tune --diff` is a
//! diff `git apply` accepts and `tune --write` writes atomically. The values are chosen so
//! that `lemplint lint` with the same host facts is silent afterwards on the sizing rules
//! (NGX005, NGX006, NGX007, FPM001, FPM004, STK001, STK002).

mod apply;
mod assumptions;
pub mod fpm;
pub mod kernel;
pub mod nginx;
pub mod rss;

pub use apply::apply;
pub use assumptions::{assumptions, Overrides};

use crate::fix::Edit;
use crate::host::HostFacts;
use crate::size::format_size;
use crate::source::Shared;
use crate::stack::model::Stack;

/// What the tuner assumes beyond the host facts.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Assumptions {
    /// Resident memory of one PHP worker, in bytes.
    pub php_worker_rss: u64,
    /// Where that figure comes from ("default", "--worker-rss", "[rules.FPM004] worker-rss",
    /// "sampled: p95 of 12 workers").
    pub php_worker_rss_source: String,
    /// Memory kept for the OS, nginx, databases and caches, in bytes.
    pub reserve: u64,
    pub reserve_source: String,
}

/// One recommended setting.
#[derive(Clone, Debug)]
pub struct Recommendation {
    /// Where it goes (the file is created when it does not exist yet).
    pub file: Shared,
    /// 1-based line of the current setting, or of where it will be inserted.
    pub line: u32,
    pub setting: String,
    pub current: Option<String>,
    pub recommended: String,
    /// Why, with the arithmetic.
    pub reason: String,
    /// The edits that apply it (empty when it is advice only).
    pub edits: Vec<Edit>,
}

/// Everything the tuner has to say about one stack.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub recommendations: Vec<Recommendation>,
    /// Things a number cannot fix ("even one PHP worker does not fit").
    pub notes: Vec<String>,
}

/// The CPU count and memory the tuner needs, or why it cannot tune.
pub fn sizes(host: &HostFacts) -> Result<(u32, u64), String> {
    match (&host.cpus, &host.memory) {
        (Some(c), Some(m)) => Ok((c.value, m.value)),
        _ => Err("tune needs the host's CPUs and memory: pass --cpus N --memory SIZE, set [host] in lemplint.toml, or run on the server with --host local".into()),
    }
}

/// Builds the plan for a stack.
pub fn plan(stack: &Stack, a: &Assumptions) -> Result<Plan, String> {
    let (cpus, memory) = sizes(&stack.host)?;
    let mut plan = Plan::default();
    nginx::recommend(stack, cpus, &mut plan);
    fpm::recommend(stack, cpus, memory, a, &mut plan);
    kernel::recommend(stack, &mut plan);
    keep_holes(&mut plan);
    plan.recommendations
        .sort_by(|x, y| (&x.file.path, x.line).cmp(&(&y.file.path, y.line)));
    Ok(plan)
}

/// Withholds the recommendations that would edit a placeholder's line (see
/// [`crate::syntax::template`]): its value is the installer's or the template's to fill in,
/// and a number written there would leave their `sed` or renderer nothing to replace.
fn keep_holes(plan: &mut Plan) {
    use crate::syntax::template;
    let mut notes = Vec::new();
    plan.recommendations.retain(|r| {
        if r.file.synthetic || r.edits.iter().any(|e| e.file.synthetic) {
            // A platform's stock file, not in the tree: nothing to write to.
            return false;
        }
        let on_hole = r.edits.iter().any(|e| {
            let f = &e.file;
            template::touches(&f.holes, &f.text, e.range)
        }) || (r.current.is_some() && {
            let at = r.file.line_start(r.line);
            template::touches(&r.file.holes, &r.file.text, crate::source::Span::empty(at))
        });
        let rendered_value = r.edits.iter().find_map(|e| {
            let rendering = e.file.rendered.as_ref()?;
            rendering.subs_in(e.range).next().cloned()
        });
        if let Some(sub) = rendered_value {
            notes.push(format!(
                "{}:{}: {} comes from `{}` = {} ({}); not tuned in the template (recommended: {})",
                crate::escape::path(&r.file.path),
                r.line,
                r.setting,
                sub.placeholder,
                sub.value,
                crate::escape::text(&sub.origin),
                r.recommended
            ));
            return false;
        }
        if on_hole {
            notes.push(format!(
                "{}:{}: {} is a placeholder the deployment fills in; not tuned (recommended: {})",
                crate::escape::path(&r.file.path),
                r.line,
                r.setting,
                r.recommended
            ));
        }
        !on_hole
    });
    // The other edits in rendered files go to their templates.
    for r in plan.recommendations.iter_mut() {
        if let Some(t) = r.file.rendered.as_ref().map(|x| x.template.clone()) {
            r.file = t;
        }
        for e in r.edits.iter_mut() {
            if let Some((file, range)) = crate::engine::rendered::to_template(&e.file, e.range) {
                e.file = file;
                e.range = range;
            }
        }
    }
    plan.notes.extend(notes);
}

/// "613MiB" style, for reasons.
pub fn mib(bytes: u64) -> String {
    format_size(bytes)
}
