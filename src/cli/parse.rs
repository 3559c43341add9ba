//! `lemplint parse`: print a file's syntax tree (ours, lossless; or crossplane's shape).

use super::input;
use super::{EXIT_ERROR, EXIT_OK};
use crate::diagnostic::{Diagnostic, Severity};
use crate::report::full;
use crate::source::FileId;
use crate::stack::nginx::{self as loader, LoadOptions, LoadProblemKind, NginxConfig};
use crate::syntax::nginx::json::{self, JsonOut};
use crate::syntax::nginx::NodeId;
use clap::{Args, ValueEnum};
use std::io::{BufWriter, IsTerminal, Write};
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
    /// Also read files in DIR, outside the linted tree (a shared include directory)
    #[arg(long, value_name = "DIR")]
    pub allow_outside: Vec<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ParseFormat {
    /// lemplint's lossless tree with spans
    Json,
    /// crossplane 0.5.8's payload
    Crossplane,
}

pub fn run(args: ParseArgs) -> i32 {
    let fs = crate::workspace::real_fs(&crate::workspace::StackArgs {
        paths: vec![args.file.clone()],
        root: args.root.clone(),
        prefix: args.prefix.clone(),
        allow_outside: args.allow_outside.clone(),
        ..Default::default()
    });
    let input = match input::read(&args.file, fs) {
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
        max_files: 0,
    };
    let config = loader::load_from(input.fs.as_ref(), input.main, &opts);
    let diagnostics = diagnostics(&config);
    let color = full::use_color(std::io::stderr().is_terminal());
    let mut stderr = std::io::stderr().lock();
    for d in &diagnostics {
        let _ = stderr.write_all(full::render(d, color).as_bytes());
    }
    // Buffered: the crossplane payload is serialized in many small writes, and a bare
    // stdout lock is line-buffered with a small buffer.
    let mut stdout = BufWriter::new(std::io::stdout().lock());
    let written = match args.format {
        ParseFormat::Json => write_json(&mut stdout, &config),
        ParseFormat::Crossplane => write_crossplane(&mut stdout, &config, args.single_file),
    };
    let written = written
        .and_then(|_| stdout.write_all(b"\n"))
        .and_then(|_| stdout.flush());
    if let Err(e) = written {
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
        let code = match p.kind {
            LoadProblemKind::Unmapped { .. } => continue,
            LoadProblemKind::IncludeNotFound { .. }
            | LoadProblemKind::Unreadable { .. }
            | LoadProblemKind::TooManyIncludes { .. } => "NGX020",
            LoadProblemKind::IncludeCycle { .. } => "NGX021",
            LoadProblemKind::Refused { .. } => "LINT004",
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
    let includes = includes_by_file(config);
    let mut o = JsonOut::new(out);
    o.raw(b"{\"version\":1,\"files\":[");
    for id in config.ids() {
        if id.0 > 0 {
            o.raw(b",");
        }
        write_file_head(&mut o, config, id);
        o.raw(b",\"nodes\":");
        let f = config.file(id);
        json::write_nodes(&mut o, &f.source, &f.parsed.tree, &includes[id.0 as usize])?;
        o.raw(b"}");
    }
    o.raw(b"]}");
    o.flush_buf()
}

/// For each file, its include directives that read files, sorted by node, so the node
/// writer walks them in step with the tree instead of hashing a lookup per directive.
fn includes_by_file(config: &NginxConfig) -> Vec<Vec<(NodeId, &[FileId])>> {
    let mut by_file: Vec<Vec<(NodeId, &[FileId])>> = config.ids().map(|_| Vec::new()).collect();
    for ((file, node), targets) in config.includes.iter() {
        by_file[file.0 as usize].push((node, targets));
    }
    for list in &mut by_file {
        list.sort_unstable_by_key(|(node, _)| *node);
    }
    by_file
}

/// A file's object up to (not including) its `nodes` key: path, how it was reached, and
/// its syntax errors.
fn write_file_head(o: &mut JsonOut<'_>, config: &NginxConfig, id: FileId) {
    let f = config.file(id);
    o.raw(b"{\"path\":");
    o.string(&f.source.path.display().to_string());
    match &f.reached {
        loader::Reached::Entry => o.raw(b",\"reached\":{\"by\":\"entry\"}"),
        loader::Reached::Include { from, node, glob } => {
            let src = &config.file(*from).source;
            let at = config.file(*from).parsed.tree.node(*node).span.start;
            o.raw(if *glob {
                b",\"reached\":{\"by\":\"glob\",\"from\":"
            } else {
                b",\"reached\":{\"by\":\"include\",\"from\":"
            });
            o.uint(from.0);
            o.raw(b",\"line\":");
            o.uint(src.line_of(at));
            o.raw(b"}");
        }
    }
    o.raw(b",\"errors\":[");
    for (n, e) in f.parsed.errors.iter().enumerate() {
        if n > 0 {
            o.raw(b",");
        }
        o.raw(b"{\"message\":");
        o.string(&e.message);
        json::write_position(o, &f.source, e.span);
        o.raw(b"}");
    }
    o.raw(b"]");
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
            // Every `include`, word-list entries too: crossplane follows those as well.
            config
                .file(id)
                .parsed
                .tree
                .includes
                .iter()
                .map(|&node| {
                    let targets = config
                        .includes
                        .get(id, node)
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
