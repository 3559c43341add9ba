//! `lemplint parse`: print a file's syntax tree (ours, lossless; or crossplane's shape).

use super::input;
use super::{EXIT_ERROR, EXIT_OK};
use crate::diagnostic::{Diagnostic, Severity};
use crate::report::full;
use crate::source::FileId;
use crate::stack::nginx::{self as loader, LoadOptions, LoadProblemKind, NginxConfig};
use clap::{Args, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ParseArgs {
    /// The file to parse (`-` reads standard input; an `nginx -T` dump is recognised)
    pub file: PathBuf,
    /// Output format
    #[arg(long, value_enum, default_value_t = ParseFormat::Json)]
    pub format: ParseFormat,
    /// Do not follow `include` directives
    #[arg(long)]
    pub single_file: bool,
    /// Directory that relative includes resolve against (default: the file's directory)
    #[arg(short = 'p', long)]
    pub prefix: Option<PathBuf>,
    /// Directory that stands for `/` when absolute includes are resolved (default: the
    /// directory above an `etc` directory in the file's path)
    #[arg(long)]
    pub root: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ParseFormat {
    /// lemplint's lossless tree with spans
    Json,
    /// crossplane 0.5.8's payload
    Crossplane,
}

pub fn run(args: ParseArgs) -> i32 {
    let input = match input::read(&args.file) {
        Ok(i) => i,
        Err(msg) => {
            eprintln!("error: {msg}");
            return EXIT_ERROR;
        }
    };
    let opts = LoadOptions {
        prefix: args.prefix.clone(),
        root: if input.is_dump {
            None
        } else {
            args.root.clone()
        },
        single_file: args.single_file,
        trust_absolute: input.is_dump,
        max_files: 0,
    };
    let config = loader::load_from(input.fs.as_ref(), input.main, &opts);
    let diagnostics = diagnostics(&config);
    let color = full::use_color(std::io::stderr().is_terminal());
    let mut stderr = std::io::stderr().lock();
    for d in &diagnostics {
        let _ = stderr.write_all(full::render(d, color).as_bytes());
    }
    let mut stdout = std::io::stdout().lock();
    let written = match args.format {
        ParseFormat::Json => write_json(&mut stdout, &config),
        ParseFormat::Crossplane => write_crossplane(&mut stdout, &config, args.single_file),
    };
    if let Err(e) = written.and_then(|_| stdout.write_all(b"\n")) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
        }
        return EXIT_ERROR;
    }
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        EXIT_ERROR
    } else {
        EXIT_OK
    }
}

/// Syntax errors of every file, then the include problems, as diagnostics.
pub fn diagnostics(config: &NginxConfig) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for id in config.ids() {
        for e in &config.file(id).parsed.errors {
            let src = &config.file(id).source;
            let mut d = Diagnostic::new(
                "NGX000",
                Severity::Error,
                src.clone(),
                e.span,
                e.message.clone(),
            );
            if let Some((span, label)) = e.related {
                d = d.with_label(src.clone(), span, label);
            }
            out.push(d);
        }
    }
    for p in &config.problems {
        if let LoadProblemKind::OutsideTree { .. } = p.kind {
            continue;
        }
        let code = match p.kind {
            LoadProblemKind::IncludeNotFound { .. } | LoadProblemKind::Unreadable { .. } => {
                "NGX020"
            }
            LoadProblemKind::IncludeCycle { .. } => "NGX021",
            LoadProblemKind::TooManyIncludes { .. } | LoadProblemKind::OutsideTree { .. } => {
                "NGX020"
            }
        };
        let src = config.file(p.file).source.clone();
        let mut d = Diagnostic::new(code, Severity::Error, src, p.span, p.message());
        if let Some(root) = &config.root {
            if let LoadProblemKind::IncludeNotFound { .. } = p.kind {
                d = d.with_help(format!(
                    "absolute paths are read under {} (use --root to change this)",
                    root.display()
                ));
            }
        }
        out.push(d);
    }
    out
}

fn write_json(out: &mut dyn Write, config: &NginxConfig) -> std::io::Result<()> {
    out.write_all(b"{\"version\":1,\"files\":[")?;
    for id in config.ids() {
        if id.0 > 0 {
            out.write_all(b",")?;
        }
        let f = config.file(id);
        let reached = match &f.reached {
            loader::Reached::Entry => serde_json::json!({"by": "entry"}),
            loader::Reached::Include { from, node, glob } => {
                let src = &config.file(*from).source;
                let at = config.file(*from).parsed.tree.node(*node).span.start;
                serde_json::json!({"by": if *glob { "glob" } else { "include" },
                                   "from": from.0, "line": src.line_of(at)})
            }
        };
        let errors: Vec<_> = f
            .parsed
            .errors
            .iter()
            .map(|e| {
                let lc = f.source.line_col(e.span.start);
                serde_json::json!({"message": e.message, "line": lc.line, "column": lc.column,
                                   "span": [e.span.start, e.span.end]})
            })
            .collect();
        let head = serde_json::json!({"path": f.source.path.display().to_string(),
                                      "reached": reached, "errors": errors});
        let mut head = serde_json::to_vec(&head)?;
        head.pop();
        out.write_all(&head)?;
        out.write_all(b",\"nodes\":")?;
        let includes = |node: u32| {
            config
                .includes
                .get(&(id, node))
                .map(|ids| ids.iter().map(|f: &FileId| f.0 as usize).collect())
        };
        crate::syntax::nginx::json::write_nodes(out, &f.source, &f.parsed.tree, &includes)?;
        out.write_all(b"}")?;
    }
    out.write_all(b"]}")
}

/// crossplane's payload. In multi-file mode crossplane gives every `include` an `includes`
/// list (empty when nothing matched or the file could not be read).
fn write_crossplane(
    out: &mut dyn Write,
    config: &NginxConfig,
    single_file: bool,
) -> std::io::Result<()> {
    use crate::syntax::nginx::crossplane::{payload, CrossplaneFile};
    use std::collections::HashMap;
    let includes: Vec<HashMap<u32, Vec<usize>>> = config
        .ids()
        .map(|id| {
            if single_file {
                return HashMap::new();
            }
            let f = config.file(id);
            f.parsed
                .tree
                .directives()
                .filter(|(_, d)| d.name.is(&f.source.text, "include"))
                .map(|(node, _)| {
                    let targets = config
                        .includes
                        .get(&(id, node))
                        .map(|t| t.iter().map(|f| f.0 as usize).collect())
                        .unwrap_or_default();
                    (node, targets)
                })
                .collect()
        })
        .collect();
    let files: Vec<CrossplaneFile> = config
        .ids()
        .map(|id| {
            let f = config.file(id);
            CrossplaneFile {
                path: f.source.path.display().to_string(),
                src: &f.source.text,
                parsed: &f.parsed,
                includes: &includes[id.0 as usize],
            }
        })
        .collect();
    serde_json::to_writer(out, &payload(&files))?;
    Ok(())
}
