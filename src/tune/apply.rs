//! A tuning plan as file contents: every recommendation's edits applied in one pass, with
//! the fixer's own choice of non-overlapping edits. `tune --diff`/`--write` print or write
//! them; `bench` loads them into an overlay to measure the tuned stack.

use super::Plan;
use crate::fix::apply::{choose, splice};
use crate::fix::{Change, Changes, Edit, Fix};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Applies every plan's edits in one pass.
pub fn apply(plans: &[Plan]) -> Changes {
    let fixes: Vec<Fix> = plans
        .iter()
        .flat_map(|p| p.recommendations.iter())
        .filter(|r| !r.edits.is_empty())
        .map(|r| Fix::safe(r.setting.clone(), r.edits.clone()))
        .collect();
    let refs: Vec<&Fix> = fixes.iter().collect();
    let chosen = choose(&refs);
    let mut by_file: BTreeMap<PathBuf, (std::sync::Arc<crate::source::SourceFile>, Vec<&Edit>)> =
        BTreeMap::new();
    for i in chosen {
        for e in &fixes[i].edits {
            by_file
                .entry(e.file.path.clone())
                .or_insert_with(|| (e.file.clone(), Vec::new()))
                .1
                .push(e);
        }
    }
    by_file
        .into_iter()
        .map(|(path, (src, edits))| {
            let new = splice(&src.text, &edits);
            let change = Change {
                original: src.text.clone(),
                stamp: src.stamp,
                new,
            };
            (path, change)
        })
        .filter(|(_, c)| c.original != c.new)
        .collect()
}
