//! `lemplint parse`: print a file's syntax tree (ours, lossless, for nginx, PHP-FPM and
//! sysctl; or crossplane's shape for nginx), its language detected as `lint` detects it.

use super::input;
use super::{EXIT_ERROR, EXIT_OK};
use crate::diagnostic::{rule_ids, Diagnostic, RuleId, Severity};
use crate::escape;
use crate::report::full;
use crate::source::{FileId, Shared};
use crate::stack::discover::{self, FileKind};
use crate::stack::fs::DumpFs;
use crate::stack::nginx::{self as loader, LoadOptions, LoadProblemKind, NginxConfig};
use crate::syntax::lines::json as lines_json;
use crate::syntax::nginx::json::{self, JsonOut};
use crate::syntax::nginx::NodeId;
use crate::syntax::{fpm, sysctl, SyntaxError};
use clap::{Args, ValueEnum};
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Args, Debug)]
pub struct ParseArgs {
    /// The file to parse (`-` reads standard input; an `nginx -T` dump is recognised)
    pub file: PathBuf,
    /// The file's language (default: as `lint` decides it, from the file's name, directory
    /// and content; standard input from its content)
    #[arg(long, value_enum)]
    pub lang: Option<Lang>,
    /// Output format (crossplane: nginx only)
    #[arg(long, value_enum, default_value_t = ParseFormat::Json)]
    pub format: ParseFormat,
    /// Do not follow `include` directives (nginx; PHP-FPM includes are never followed here)
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
    /// crossplane 0.5.8's payload (nginx only)
    Crossplane,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Lang {
    /// nginx (an `nginx -T` dump is read as the files it holds)
    Nginx,
    /// PHP-FPM: `php-fpm.conf` and pool files
    Fpm,
    /// `sysctl.conf` and `sysctl.d` files
    Sysctl,
    /// `php.ini` and the `*.ini` files of PHP's scan directory (`conf.d/`)
    PhpIni,
}

impl Lang {
    /// The language as people name it.
    fn title(self) -> &'static str {
        match self {
            Lang::Nginx => "nginx",
            Lang::Fpm => "PHP-FPM",
            Lang::Sysctl => "sysctl",
            Lang::PhpIni => "php.ini",
        }
    }
}

pub fn run(args: ParseArgs) -> i32 {
    let fs = crate::engine::real_fs(&crate::engine::StackArgs {
        paths: vec![args.file.clone()],
        root: args.root.clone(),
        prefix: args.prefix.clone(),
        allow_outside: args.allow_outside.clone(),
        ..Default::default()
    });
    let main = match input::read(&args.file, &fs) {
        Ok(m) => m,
        Err(msg) => {
            eprintln!("error: {msg}");
            return EXIT_ERROR;
        }
    };
    let lang = args.lang.unwrap_or_else(|| detect(&args.file, &main.text));
    if lang != Lang::Nginx && args.format == ParseFormat::Crossplane {
        match args.lang {
            Some(_) => eprintln!(
                "error: crossplane's format describes nginx only, not {}: use --format json",
                lang.title()
            ),
            None => eprintln!(
                "error: crossplane's format describes nginx only, and {} reads as {} (by its \
                 name, directory or content): use --format json, or --lang nginx to parse it \
                 as nginx",
                escape::path(&main.path),
                lang.title()
            ),
        }
        return EXIT_ERROR;
    }
    match lang {
        Lang::Nginx => match input::nginx(main, fs) {
            Ok(input) => run_nginx(&args, input),
            Err(msg) => {
                eprintln!("error: {msg}");
                EXIT_ERROR
            }
        },
        // php.ini is read by the same Zend INI grammar (see `syntax::phpini`).
        Lang::Fpm | Lang::PhpIni => {
            let src: Shared = Arc::new(main);
            let mut parsed = if lang == Lang::PhpIni {
                fpm::parse_php_ini(&src.text)
            } else {
                fpm::parse(&src.text)
            };
            if lang == Lang::PhpIni {
                // PHP skips entries without a value and stops at its first error.
                let first = crate::stack::php_ini::first_error(&parsed).cloned();
                parsed.errors = first.into_iter().collect();
            }
            let parsed = Lines::Fpm(parsed);
            run_lines(src, parsed)
        }
        Lang::Sysctl => {
            let src: Shared = Arc::new(main);
            let parsed = Lines::Sysctl(sysctl::parse(&src.text));
            run_lines(src, parsed)
        }
    }
}

/// The language of `path` as `lint` would take it: an `nginx -T` dump is nginx; standard
/// input is known by its content only; a file by its name and directory, then its content;
/// nginx when nothing says otherwise (as for a file named on `lint`'s command line).
fn detect(path: &Path, text: &[u8]) -> Lang {
    if DumpFs::looks_like_dump(text) {
        return Lang::Nginx;
    }
    let kind = if input::is_stdin(path) {
        discover::sniff(text)
    } else {
        discover::identify_text(path, text)
    };
    match kind {
        Some(FileKind::FpmMaster | FileKind::FpmPool) => Lang::Fpm,
        Some(FileKind::Sysctl) => Lang::Sysctl,
        Some(FileKind::PhpIni) => Lang::PhpIni,
        Some(FileKind::Nginx) | None => Lang::Nginx,
    }
}

fn run_nginx(args: &ParseArgs, input: input::Input) -> i32 {
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
    finish(&diagnostics, |out| match args.format {
        ParseFormat::Json => write_json(out, &config),
        ParseFormat::Crossplane => write_crossplane(out, &config, args.single_file),
    })
}

/// A PHP-FPM or sysctl file: one file, its lines, its syntax errors (FPM000, SYS000).
/// PHP-FPM `include`s are marked, not followed.
fn run_lines(src: Shared, parsed: Lines) -> i32 {
    let diagnostics: Vec<Diagnostic> = parsed
        .errors()
        .iter()
        .map(|e| syntax_diagnostic(parsed.code(), &src, e))
        .collect();
    finish(&diagnostics, |out| {
        let mut o = JsonOut::new(out);
        o.raw(b"{\"version\":1,\"files\":[{\"path\":");
        o.string(&src.path.display().to_string());
        o.raw(b",\"lang\":");
        o.string(parsed.lang());
        o.raw(b",\"reached\":{\"by\":\"entry\"},\"errors\":[");
        lines_json::errors(&mut o, &src, parsed.errors());
        o.raw(b"],\"nodes\":");
        match &parsed {
            Lines::Fpm(p) => fpm::json::write_nodes(&mut o, &src, &p.file)?,
            Lines::Sysctl(p) => sysctl::json::write_nodes(&mut o, &src, &p.file)?,
        }
        o.raw(b"}]}");
        o.flush_buf()
    })
}

/// What a line-based parser made of a file.
enum Lines {
    Fpm(fpm::Parsed),
    Sysctl(sysctl::Parsed),
}

impl Lines {
    fn errors(&self) -> &[SyntaxError] {
        match self {
            Lines::Fpm(p) => &p.errors,
            Lines::Sysctl(p) => &p.errors,
        }
    }

    /// The code its syntax errors are reported under, as `lint` reports them.
    fn code(&self) -> RuleId {
        match self {
            Lines::Fpm(_) => rule_ids::FPM000,
            Lines::Sysctl(_) => rule_ids::SYS000,
        }
    }

    /// The file's `lang` in the JSON: the name `--lang` takes.
    fn lang(&self) -> &'static str {
        match self {
            Lines::Fpm(_) => "fpm",
            Lines::Sysctl(_) => "sysctl",
        }
    }
}

/// Prints `diagnostics` on standard error and what `write` writes on standard output (and a
/// final newline); the exit code says whether there was an error.
fn finish(
    diagnostics: &[Diagnostic],
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> i32 {
    let color = full::use_color(std::io::stderr().is_terminal());
    let mut stderr = std::io::stderr().lock();
    let mut frames = full::Frames::default();
    for d in diagnostics {
        let _ = stderr.write_all(full::render(d, color, &mut frames).as_bytes());
    }
    // Buffered: the crossplane payload is serialized in many small writes, and a bare
    // stdout lock is line-buffered with a small buffer.
    let mut stdout = BufWriter::new(std::io::stdout().lock());
    let written = write(&mut stdout)
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

/// A syntax error as a diagnostic with `code` (NGX000, FPM000, SYS000).
fn syntax_diagnostic(code: RuleId, src: &Shared, e: &SyntaxError) -> Diagnostic {
    let mut d = Diagnostic::new(
        code,
        Severity::Error,
        src.clone(),
        e.span,
        e.message.clone(),
    );
    if let Some((span, label)) = e.related {
        d = d.with_label(src.clone(), span, label);
    }
    d
}

/// Syntax errors of every file, then the include problems, as diagnostics.
pub fn diagnostics(config: &NginxConfig) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for id in config.ids() {
        let src = &config.file(id).source;
        for e in &config.file(id).parsed.errors {
            out.push(syntax_diagnostic(rule_ids::NGX000, src, e));
        }
    }
    for p in &config.problems {
        let code = match p.kind {
            LoadProblemKind::Unmapped { .. }
            | LoadProblemKind::Template { .. }
            | LoadProblemKind::Placeholder { .. }
            | LoadProblemKind::Supplied { .. } => continue,
            LoadProblemKind::IncludeNotFound { .. }
            | LoadProblemKind::Unreadable { .. }
            | LoadProblemKind::TooManyIncludes { .. }
            | LoadProblemKind::GlobTooLarge { .. }
            | LoadProblemKind::TooDeep { .. } => rule_ids::NGX020,
            LoadProblemKind::IncludeCycle { .. } => rule_ids::NGX021,
            LoadProblemKind::Refused { .. } => rule_ids::LINT004,
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
