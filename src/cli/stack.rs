//! `lemplint stack`: what lemplint sees — per stack, every file read and how it was reached,
//! the PHP-FPM pools with their listen addresses, each pool's effective PHP settings (default
//! → php.ini → scan directory → pool) with where each comes from, the effective sysctl
//! values, and the host facts with their sources.

use super::{EXIT_ERROR, EXIT_OK};
use crate::engine::{StackArgs, Workspace};
use crate::stack::fpm::FpmConfig;
use crate::stack::model::Stack;
use crate::stack::nginx::{LoadProblemKind, Reached};
use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use std::path::Path;

#[derive(Args, Debug)]
pub struct StackCmdArgs {
    #[command(flatten)]
    pub stack: StackArgs,
    #[arg(long, value_enum, default_value_t = StackFormat::Text)]
    pub format: StackFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StackFormat {
    Text,
    Json,
}

/// One file read, and how it was reached.
struct FileRow {
    kind: &'static str,
    path: String,
    how: String,
}

fn at(path: &std::path::Path, line: u32) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{name}:{line}")
}

fn files(stack: &Stack) -> Vec<FileRow> {
    let mut rows = Vec::new();
    // What discovery saw in a file found on its own (its name, directory or content).
    let why = |p: &std::path::Path| match stack.why.get(p) {
        Some(w) => format!(" ({w})"),
        None => String::new(),
    };
    let lone_run = stack.lone_pools_run();
    for inst in &stack.nginx {
        let c = &inst.config;
        for f in &c.files {
            let found = f.source.shown_path();
            let how = match &f.reached {
                Reached::Entry if inst.standalone => {
                    format!("standalone: nothing includes it{}", why(found))
                }
                Reached::Entry => format!("entry point{}", why(found)),
                Reached::Include { from, node, glob } => {
                    let src = &c.file(*from).source;
                    let line = src.line_of(c.file(*from).parsed.tree.node(*node).span.start);
                    format!(
                        "{} from {}",
                        if *glob { "glob" } else { "include" },
                        at(&src.path, line)
                    )
                }
            };
            let path = match &f.source.member {
                // A section of a dump: the dump, and the file it holds.
                Some(m) => format!("{} › {}", m.container.display(), m.name.display()),
                None => f.source.path.display().to_string(),
            };
            rows.push(FileRow {
                kind: "nginx",
                path,
                how,
            });
        }
    }
    for cfg in &stack.fpm {
        for f in &cfg.files {
            let how = match f.included_from {
                None if cfg.has_master => format!("master{}", why(&f.source.path)),
                None if lone_run => format!(
                    "pool file: no master here includes it{}",
                    why(&f.source.path)
                ),
                None => format!(
                    "pool file, not loaded: no master of this stack includes it{}",
                    why(&f.source.path)
                ),
                Some((file, line)) => {
                    let src = &cfg.files[file].source;
                    let item = &cfg.files[file].parsed.file.lines[line];
                    format!(
                        "include from {}{}",
                        at(&src.path, src.line_of(item.span.start)),
                        if cfg.image.is_some() {
                            why(&f.source.path)
                        } else {
                            String::new()
                        }
                    )
                }
            };
            rows.push(FileRow {
                kind: "php-fpm",
                path: f.source.path.display().to_string(),
                how,
            });
        }
    }
    for f in &stack.sysctl.files {
        let how = match &f.masked_by {
            Some(p) => format!("masked by {}", p.display()),
            None => format!("discovered{}", why(&f.source.path)),
        };
        rows.push(FileRow {
            kind: "sysctl",
            path: f.source.path.display().to_string(),
            how,
        });
    }
    let instances = crate::stack::instances::instances(stack);
    for set in &stack.php_ini.sets {
        let read = instances
            .iter()
            .any(|i| i.ini.is_some_and(|s| std::ptr::eq(s, set)));
        for (i, f) in set.files.iter().enumerate() {
            let name = f
                .source
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            let mut how = if set.template
                && name.as_deref().is_some_and(|n| n.starts_with("php.ini-"))
            {
                "a template: PHP never reads it under this name".to_string()
            } else if set.template {
                "a php.ini variant, linted on its own: which one a build installs is not in the tree"
                    .to_string()
            } else if i == 0 && f.source.path.file_name().is_some_and(|n| n == "php.ini") {
                format!("php.ini of {}", set.shown_home())
            } else {
                format!("scan directory of {}, read after php.ini", set.shown_home())
            };
            if !set.template {
                how.push_str(if read {
                    ", read by this stack's php-fpm"
                } else {
                    ", no php-fpm of this stack reads it"
                });
            }
            if let (0, Some(dev)) = (i, &set.development) {
                how.push_str(&format!("; development: {dev}"));
            }
            rows.push(FileRow {
                kind: "php.ini",
                path: f.source.path.display().to_string(),
                how,
            });
        }
    }
    rows
}

/// A pool's name, and its (setting, value as written, where it comes from) rows.
type PoolSettings = (String, Vec<(&'static str, String, String)>);

/// Each pool's effective PHP settings that rules judge, with where each comes from.
fn php_settings(stack: &Stack) -> Vec<PoolSettings> {
    let mut out = Vec::new();
    for inst in crate::stack::instances::instances(stack) {
        if !inst.master && !stack.lone_pools_run() {
            continue;
        }
        for pool in &inst.pools {
            let rows = crate::stack::php_settings::SHOWN
                .iter()
                .filter_map(|&name| {
                    let e = pool.php(name)?;
                    Some((name, e.shown(), e.describe()))
                })
                .collect();
            out.push((pool.name.clone(), rows));
        }
    }
    out
}

fn not_followed(stack: &Stack) -> Vec<String> {
    // A template some file includes is listed at that include, not again on its own.
    let included_templates: Vec<&Path> = stack
        .nginx
        .iter()
        .flat_map(|inst| &inst.config.problems)
        .filter_map(|p| match &p.kind {
            LoadProblemKind::Template { path } => Some(path.as_path()),
            _ => None,
        })
        .collect();
    let mut out: Vec<String> = stack
        .unreadable
        .iter()
        .map(|u| match u.refused {
            Some(r) => format!("{} ({})", crate::escape::path(&u.path), r.describe()),
            None => format!("{} ({})", crate::escape::path(&u.path), u.why),
        })
        .chain(
            stack
                .skipped
                .iter()
                .filter(|(p, _)| !included_templates.contains(&p.as_path()))
                .map(|(p, why)| format!("{} ({why}: not linted)", crate::escape::path(p))),
        )
        .collect();
    for inst in &stack.nginx {
        for p in &inst.config.problems {
            let src = &inst.config.file(p.file).source;
            let line = src.line_of(p.span.start);
            let what = match &p.kind {
                LoadProblemKind::Unmapped { path } => {
                    format!(
                        "{} (a path of the server, not mapped into the tree)",
                        path.display()
                    )
                }
                LoadProblemKind::Template { path } => {
                    format!("{} (a template: not linted)", crate::escape::path(path))
                }
                _ => p.message(),
            };
            out.push(format!("{}: {what}", at(&src.path, line)));
        }
    }
    for cfg in &stack.fpm {
        for p in &cfg.problems {
            let src = &cfg.files[p.file].source;
            out.push(format!(
                "{}: {}",
                at(&src.path, src.line_of(p.span.start)),
                p.message
            ));
        }
    }
    out
}

fn pool_json(cfg: &FpmConfig, pool: &crate::stack::fpm::Pool) -> Value {
    // A value a placeholder gives is shown as the placeholder it is, not as a value.
    let get = |k: &str| {
        cfg.get(pool, k).map(|(setting, v)| {
            let src = cfg.source(setting);
            let at = cfg.files[setting.file].parsed.file.lines[setting.line].span;
            if crate::syntax::template::touches(&src.holes, &src.text, at) {
                format!("{v} (placeholder, filled in at deployment)")
            } else {
                v
            }
        })
    };
    let header = pool.headers[0];
    let src = cfg.source(header);
    let line = src.line_of(
        cfg.files[header.file].parsed.file.lines[header.line]
            .span
            .start,
    );
    json!({
        "name": pool.name,
        "file": src.path.display().to_string(),
        "line": line,
        "listen": cfg.listen(pool).map(|(_, l)| l.to_string()),
        "listen.backlog": get("listen.backlog"),
        "listen.owner": get("listen.owner"),
        "listen.group": get("listen.group"),
        "listen.mode": get("listen.mode"),
        "user": get("user"),
        "pm": get("pm"),
        "pm.max_children": get("pm.max_children"),
    })
}

fn stack_json(stack: &Stack) -> Value {
    let files: Vec<Value> = files(stack)
        .into_iter()
        .map(|r| json!({"kind": r.kind, "path": r.path, "reached": r.how}))
        .collect();
    let pools: Vec<Value> = stack.pools().map(|(c, p)| pool_json(c, p)).collect();
    let mut sysctl = serde_json::Map::new();
    for key in stack.sysctl.keys.keys() {
        if let Some((s, v)) = stack.sysctl.effective(key) {
            let f = &stack.sysctl.files[s.file];
            let line = f.source.line_of(f.parsed.file.lines[s.line].span.start);
            sysctl.insert(
                key.clone(),
                json!({"value": v, "file": f.source.path.display().to_string(), "line": line}),
            );
        }
    }
    let php: Vec<Value> = php_settings(stack)
        .into_iter()
        .map(|(pool, rows)| {
            let settings: serde_json::Map<String, Value> = rows
                .into_iter()
                .map(|(k, v, from)| (k.to_string(), json!({"value": v, "from": from})))
                .collect();
            json!({"pool": pool, "settings": settings})
        })
        .collect();
    json!({
        "root": stack.root.display().to_string(),
        "files": files,
        "not_followed": not_followed(stack),
        "pools": pools,
        "php": php,
        "sysctl": sysctl,
        "host": stack.host,
    })
}

fn stack_text(stack: &Stack) -> String {
    let mut out = format!("Stack {}\n", stack.shown_root());
    let mut rows = files(stack);
    // Names as they can be shown: a newline or an escape sequence in a file name must not
    // forge a line of this listing or act on the terminal.
    for r in &mut rows {
        r.path = crate::escape::line(&r.path).into_owned();
    }
    let width = rows.iter().map(|r| r.path.len()).max().unwrap_or(0);
    for kind in ["nginx", "php-fpm", "php.ini", "sysctl"] {
        let of_kind: Vec<&FileRow> = rows.iter().filter(|r| r.kind == kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        out.push_str(&format!("\n  {kind}\n"));
        for r in of_kind {
            out.push_str(&format!("    {:<width$}  {}\n", r.path, r.how));
        }
    }
    let nf = not_followed(stack);
    if !nf.is_empty() {
        out.push_str("\n  not read\n");
        for n in nf {
            out.push_str(&format!("    {n}\n"));
        }
    }
    let pools: Vec<Value> = stack.pools().map(|(c, p)| pool_json(c, p)).collect();
    if !pools.is_empty() {
        out.push_str("\n  pools\n");
        for p in pools {
            let s = |k: &str| p[k].as_str().map(String::from);
            let mut parts = vec![format!(
                "listen {}",
                s("listen").unwrap_or_else(|| "(none)".into())
            )];
            for k in [
                "listen.backlog",
                "listen.owner",
                "listen.group",
                "listen.mode",
                "pm",
                "pm.max_children",
            ] {
                if let Some(v) = s(k) {
                    parts.push(format!("{k} {v}"));
                }
            }
            let file = std::path::Path::new(p["file"].as_str().unwrap_or(""));
            out.push_str(&format!(
                "    [{}] {}  ({})\n",
                p["name"].as_str().unwrap_or(""),
                parts.join(", "),
                at(file, p["line"].as_u64().unwrap_or(0) as u32)
            ));
        }
    }
    let php = php_settings(stack);
    if !php.is_empty() {
        out.push_str("\n  php settings (effective, per pool)\n");
        for (pool, rows) in php {
            out.push_str(&format!("    [{pool}]\n"));
            for (k, v, from) in rows {
                out.push_str(&format!("      {k} = {v}  ({from})\n"));
            }
        }
    }
    if !stack.sysctl.keys.is_empty() {
        out.push_str("\n  sysctl (effective)\n");
        for key in stack.sysctl.keys.keys() {
            if let Some((s, v)) = stack.sysctl.effective(key) {
                let f = &stack.sysctl.files[s.file];
                let line = f.source.line_of(f.parsed.file.lines[s.line].span.start);
                out.push_str(&format!(
                    "    {key} = {v}  ({})\n",
                    at(&f.source.path, line)
                ));
            }
        }
    }
    out.push_str("\n  host\n");
    let host = stack.host.describe();
    if host.is_empty() {
        out.push_str("    no host facts (pass --cpus N --memory SIZE, set [host] in lemplint.toml, or --host local)\n");
    }
    for h in host {
        out.push_str(&format!("    {h}\n"));
    }
    out
}

pub fn run(mut args: StackCmdArgs) -> i32 {
    // `-` reads standard input, as `lint -` does.
    let overlay = match crate::engine::stdin_overlay(&mut args.stack) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("error: {msg}");
            return EXIT_ERROR;
        }
    };
    let real = crate::engine::real_fs(&args.stack);
    let fs: &dyn crate::stack::fs::Fs = match &overlay {
        Some(o) => o,
        None => &real,
    };
    let ws = match Workspace::load_with(&args.stack, fs) {
        Ok(ws) => ws,
        Err(e) => {
            let code = super::load_failed(&e, "show");
            if code == EXIT_OK && args.format == StackFormat::Json {
                println!("{}", json!({"version": 1, "stacks": []}));
            }
            return code;
        }
    };
    match args.format {
        StackFormat::Json => {
            let stacks: Vec<Value> = ws.stacks.iter().map(stack_json).collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&json!({"version": 1, "stacks": stacks}))
                    .unwrap_or_default()
            );
        }
        StackFormat::Text => {
            let texts: Vec<String> = ws.stacks.iter().map(stack_text).collect();
            print!("{}", crate::escape::text(&texts.join("\n")));
        }
    }
    EXIT_OK
}
