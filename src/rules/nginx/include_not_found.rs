//! NGX020 include-not-found: an `include` of a plain file that cannot be read. nginx
//! refuses to start (`open() "…" failed`); a glob that matches nothing is fine.

use crate::rules::{Context, Rule};
use crate::stack::nginx::LoadProblemKind;

declare_rule! {
    pub struct IncludeNotFound;
    code: NGX020,
    name: "include-not-found",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: None,
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
        }
    }
}
