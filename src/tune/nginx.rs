//! nginx: one worker per CPU, file limits that fit the connections.

use super::{Plan, Recommendation};
use crate::fix::edits;
use crate::stack::expanded::{OccId, View, NO_PARENT};
use crate::stack::model::{NginxInstance, Stack};
use crate::stack::sizing;

/// A worker's connection limit below this starves a PHP site behind keep-alive clients.
const MIN_CONNECTIONS: u64 = 1024;

fn first_in(view: &View<'_>, name: &'static str, parent: OccId) -> Option<OccId> {
    view.named(name)
        .find(|&o| view.expanded.get(o).parent == parent)
}

/// A recommendation that replaces the first argument of the directive `occ`.
fn replace_first_arg(
    inst: &NginxInstance,
    view: &View<'_>,
    occ: OccId,
    setting: &str,
    current: String,
    recommended: String,
    reason: String,
) -> Recommendation {
    let (file, _) = view.location(occ);
    let tree = &inst.config.file(view.expanded.get(occ).file).parsed.tree;
    let word = tree.args(view.directive(occ))[0];
    Recommendation {
        line: line_of(view, occ),
        edits: vec![edits::replace_arg(&file, &word, &recommended)],
        file,
        setting: setting.into(),
        current: Some(current),
        recommended,
        reason,
    }
}

fn line_of(view: &View<'_>, occ: OccId) -> u32 {
    let (file, span) = view.location(occ);
    file.line_of(span.start)
}

pub fn recommend(stack: &Stack, cpus: u32, plan: &mut Plan) {
    for inst in stack.nginx.iter().filter(|i| !i.standalone) {
        let view = inst.view();
        if first_in(&view, "events", NO_PARENT).is_none() {
            continue; // not a main configuration
        }
        main_context(inst, &view, cpus, &stack.host, plan);
    }
}

/// Settings of the main context and `events`.
fn main_context(
    inst: &NginxInstance,
    view: &View<'_>,
    cpus: u32,
    host: &crate::host::HostFacts,
    plan: &mut Plan,
) {
    let wp = first_in(view, "worker_processes", NO_PARENT);
    let affinity = first_in(view, "worker_cpu_affinity", NO_PARENT);
    let pinned = affinity.is_some_and(|a| view.args(a).first().is_some_and(|v| v != "auto"));
    // Statements to insert into the main context, in order, as one edit.
    let mut inserts: Vec<(String, String, String)> = Vec::new(); // (setting, value, reason)

    let wp_value = wp.and_then(|o| view.args(o).first().map(|v| v.to_string()));
    let want_wp = if pinned {
        cpus.to_string()
    } else {
        "auto".to_string()
    };
    let wp_reason = if pinned {
        format!("worker_cpu_affinity pins workers, so start exactly one per CPU ({cpus})")
    } else {
        format!("one worker per CPU ({cpus}); `auto` follows the machine if it is resized")
    };
    // `auto` or the CPU count are both right; with pinned affinity only the count is.
    let acceptable = |v: &str| v == cpus.to_string() || (v == "auto" && !pinned);
    match (wp, wp_value.as_deref()) {
        (Some(o), Some(v)) if !acceptable(v) => {
            plan.recommendations.push(replace_first_arg(
                inst,
                view,
                o,
                "worker_processes",
                v.to_string(),
                want_wp.clone(),
                wp_reason,
            ));
        }
        (None, _) if cpus > 1 => inserts.push((
            "worker_processes".into(),
            want_wp.clone(),
            format!("unset means 1 worker (nginx's default); {wp_reason}"),
        )),
        _ => {}
    }
    if let (Some(a), true) = (affinity, pinned) {
        let (file, _) = view.location(a);
        let d = view.directive(a);
        let tree = &inst.config.file(view.expanded.get(a).file).parsed.tree;
        let args = tree.args(d);
        let span = args[0].raw().cover(args[args.len() - 1].raw());
        plan.recommendations.push(Recommendation {
            line: line_of(view, a),
            edits: vec![crate::fix::Edit::replace(&file, span, "auto")],
            file,
            setting: "worker_cpu_affinity".into(),
            current: Some(view.args(a).join(" ")),
            recommended: "auto".into(),
            reason: format!("`auto` binds each of the {cpus} workers to its own CPU and stays right if the CPU count changes"),
        });
    }

    // Connections and the descriptors they need.
    let events = first_in(view, "events", NO_PARENT);
    let wc_occ = events.and_then(|e| first_in(view, "worker_connections", e));
    let written = wc_occ.map(|o| view.args(o).first().and_then(|v| v.parse::<u64>().ok()));
    // A value the files do not give (a placeholder an installer fills in): the descriptors
    // it needs are not known here either.
    if let (Some(o), Some(None)) = (wc_occ, written) {
        let occ = view.expanded.get(o);
        plan.notes.push(format!(
            "{}:{}: worker_connections is `{}`, a placeholder the deployment fills in: worker_connections and worker_rlimit_nofile not tuned",
            crate::escape::path(&inst.config.file(occ.file).source.path),
            line_of(view, o),
            crate::escape::text(&view.args(o).join(" "))
        ));
        insert_main(inst, view, wp, inserts, plan);
        return;
    }
    let wc: u64 = written.flatten().unwrap_or(sizing::DEFAULT_CONNECTIONS);
    let mut connections = wc;
    if wc < MIN_CONNECTIONS {
        connections = MIN_CONNECTIONS;
        let reason = format!("{wc} connections per worker is tight for a PHP site with keep-alive clients; {MIN_CONNECTIONS} is the usual floor");
        match wc_occ {
            Some(o) => {
                plan.recommendations.push(replace_first_arg(
                    inst,
                    view,
                    o,
                    "worker_connections",
                    wc.to_string(),
                    connections.to_string(),
                    reason,
                ));
            }
            None => {
                if let Some(e) = events {
                    let occ = view.expanded.get(e);
                    let f = inst.config.file(occ.file);
                    let stmt = format!("worker_connections {connections};");
                    plan.recommendations.push(Recommendation {
                        file: f.source.clone(),
                        line: line_of(view, e),
                        edits: vec![edits::insert_at_block_start(
                            &f.source,
                            &f.parsed.tree,
                            occ.node,
                            &stmt,
                        )],
                        setting: "worker_connections".into(),
                        current: None,
                        recommended: connections.to_string(),
                        reason,
                    });
                }
            }
        }
    }
    let cached = crate::analysis::nginx_main::cached_files(inst);
    let want_nofile = sizing::worker_descriptors(connections, cached);
    let nofile_occ = first_in(view, "worker_rlimit_nofile", NO_PARENT);
    let nofile: Option<u64> =
        nofile_occ.and_then(|o| view.args(o).first().and_then(|v| v.parse().ok()));
    let nofile_reason = if cached + sizing::WORKER_FIXED_DESCRIPTORS > connections {
        format!(
            "{connections} connections (worker_connections counts upstream connections too) + {cached} files open_file_cache may keep open + {} for logs and the event queue",
            sizing::WORKER_FIXED_DESCRIPTORS
        )
    } else {
        format!(
            "{connections} connections (worker_connections counts upstream connections too) + {connections} for files: one being sent or a temp file per connection, the logs among them"
        )
    };
    // The limit workers inherit (nginx's unit, `[host] nofile`) may already be enough: then
    // nothing is added, and nothing is ever set below it.
    let inherited = host.nofile.as_ref().map(|f| f.value);
    match (nofile_occ, nofile) {
        (None, _) if inherited.is_some_and(|n| n >= want_nofile) => {}
        (Some(o), Some(n)) if n < want_nofile => {
            plan.recommendations.push(replace_first_arg(
                inst,
                view,
                o,
                "worker_rlimit_nofile",
                n.to_string(),
                want_nofile.to_string(),
                nofile_reason,
            ));
        }
        (None, _) => inserts.push((
            "worker_rlimit_nofile".into(),
            want_nofile.to_string(),
            nofile_reason,
        )),
        _ => {}
    }
    insert_main(inst, view, wp, inserts, plan);
}

/// Inserts main-context statements as one edit: after `worker_processes`, else after
/// `user`/`pid`, else at the top of the main file.
fn insert_main(
    inst: &NginxInstance,
    view: &View<'_>,
    wp: Option<OccId>,
    inserts: Vec<(String, String, String)>,
    plan: &mut Plan,
) {
    if inserts.is_empty() {
        return;
    }
    let anchor = wp
        .or_else(|| first_in(view, "pid", NO_PARENT))
        .or_else(|| first_in(view, "user", NO_PARENT))
        .filter(|&o| view.expanded.get(o).file.0 == 0);
    let main = inst.config.file(crate::source::FileId(0));
    let src = &main.source;
    let nl = edits::line_ending(&src.text);
    let joined: Vec<String> = inserts
        .iter()
        .map(|(s, v, _)| format!("{s} {v};"))
        .collect();
    let (edit, line) = match anchor {
        Some(a) => {
            let node = view.expanded.get(a).node;
            let indent = "";
            let text = joined.join(&format!("{nl}{indent}"));
            (
                edits::insert_after(src, &main.parsed.tree, node, &text),
                line_of(view, a) + 1,
            )
        }
        None => (
            edits::insert_at_block_start(
                src,
                &main.parsed.tree,
                crate::syntax::nginx::ROOT,
                &joined.join(nl),
            ),
            1,
        ),
    };
    let mut edit = Some(edit);
    for (setting, value, reason) in inserts {
        plan.recommendations.push(Recommendation {
            file: src.clone(),
            line,
            setting,
            current: None,
            recommended: value,
            reason,
            // The first recommendation carries the one edit for all of them.
            edits: edit.take().into_iter().collect(),
        });
    }
}
