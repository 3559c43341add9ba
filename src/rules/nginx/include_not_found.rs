//! NGX020 include-not-found: an `include` of a plain file that cannot be read. nginx
//! refuses to start (`open() "…" failed`); a glob that matches nothing is fine. Includes
//! lemplint does not follow to the end (too deep, too many files or glob matches, or a
//! fan-out past the expansion budget of [`crate::stack::fanout`]) are reported here too:
//! an input error, since the findings of a configuration read in part cannot be trusted.

use crate::rules::{Context, Rule};
use crate::source::{FileId, Span};
use crate::stack::fanout::{self, Overflow};
use crate::stack::nginx::{LoadProblemKind, NginxConfig};

declare_rule! {
    pub struct IncludeNotFound;
    code: NGX020,
    name: "include-not-found",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: None,
    group: Default,
    input_error: true,
    blocks_fixes: false,
}

/// Files the nginx package installs next to nginx.conf. A repository often carries only its
/// own files and relies on the package (or the container image) for these, so their absence
/// from the tree is not reported.
const PACKAGE_FILES: &[&str] = &[
    "mime.types",
    "fastcgi_params",
    "fastcgi.conf",
    "scgi_params",
    "uwsgi_params",
    "proxy_params",
    "koi-utf",
    "koi-win",
    "win-utf",
    "fastcgi-php.conf",
    "snakeoil.conf",
];

fn from_package(kind: &LoadProblemKind) -> bool {
    match kind {
        LoadProblemKind::IncludeNotFound { path, .. } => path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| PACKAGE_FILES.contains(&n)),
        _ => false,
    }
}

impl Rule for IncludeNotFound {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            for p in &inst.config.problems {
                // A standalone snippet's relative includes are resolved against a guessed
                // prefix, and absolute paths outside the tree are not ours to check: a
                // "missing" file there would be a false alarm.
                let unverifiable = matches!(
                    p.kind,
                    LoadProblemKind::Unmapped { .. }
                        | LoadProblemKind::Refused { .. }
                        | LoadProblemKind::Template { .. }
                        | LoadProblemKind::Placeholder { .. }
                        | LoadProblemKind::Supplied { .. }
                ) || (inst.standalone
                    && matches!(p.kind, LoadProblemKind::IncludeNotFound { .. }));
                if unverifiable
                    || from_package(&p.kind)
                    || matches!(p.kind, LoadProblemKind::IncludeCycle { .. })
                {
                    continue;
                }
                let src = inst.config.file(p.file).source.clone();
                let root = inst.config.root.clone();
                let d = cx.report(&src, p.span, p.message());
                if let (Some(root), LoadProblemKind::IncludeNotFound { .. }) = (root, &p.kind) {
                    d.help = Some(format!(
                        "absolute paths are read under {} (the server root); use --root to change it",
                        root.display()
                    ));
                }
            }
            if let Some(over) = &inst.expanded.overflow {
                fan_out(cx, &inst.config, over);
            }
        }
    }
}

/// Includes that multiply the configuration past its expansion budget: reported at the
/// first include of the chain that multiplies the most, naming the whole chain.
fn fan_out(cx: &mut Context<'_>, config: &NginxConfig, over: &Overflow) {
    let name = |f: FileId| config.file(f).source.path.display().to_string();
    let mut chain: Vec<String> = over.chain.iter().map(|&(f, _)| name(f)).collect();
    chain.push(name(over.last));
    // The include's argument; the start of the main file for a configuration that is too
    // large with no include at all.
    let (file, span) = match over.chain.first() {
        Some(&(f, node)) => {
            let tree = &config.file(f).parsed.tree;
            let span = tree
                .statement(node)
                .and_then(|d| tree.args(d).first())
                .map(|w| w.raw())
                .or_else(|| tree.nodes.get(node as usize).map(|n| n.span))
                .unwrap_or(Span::new(0, 0));
            (f, span)
        }
        None => (FileId(0), Span::new(0, 0)),
    };
    let src = config.file(file).source.clone();
    cx.report(
        &src,
        span,
        format!(
            "the includes expand this configuration to {} directive occurrences, more than its \
             budget of {} ({}× the {} directives its files hold); expanded only in part: {}",
            over.total,
            over.budget,
            fanout::FACTOR,
            over.directives,
            chain.join(" → ")
        ),
    )
    .help = Some(
        "each include reads its files once per place it is included: include the repeated \
         files from fewer places"
            .into(),
    );
}
