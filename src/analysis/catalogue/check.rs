//! "nginx -t without nginx": the errors nginx's `ngx_conf_handler` and the generic set
//! handlers give while reading a configuration, found from the catalogue: an unknown name
//! (only a likely typo: real configurations use modules no catalogue has), a directive in a
//! context that does not allow it, a wrong argument count, a flag that is not `on`/`off`,
//! and a second value nginx rejects in one block.
//!
//! Contexts are the ones nginx would be in. The top of a main configuration is `main` when
//! it shows it is one (a directive only `main` allows: `http`, `events`, `user`, …); the
//! top of any other file, which may be included anywhere, is every context at once. Blocks
//! narrow it as the parser's table says (`server` at the top is http's, stream's or mail's;
//! `if` in a `location` is `if in location`). A verdict is given only when it holds in
//! every context the directive may be in. Inside a block lemplint does not model (a
//! third-party module's), nothing is judged.

use super::{ctx, lookup, suggest, Ctx, Entry, Modules};
use crate::analysis::cursor;
use crate::diagnostic::MAX_FINDINGS_PER_FILE;
use crate::host::HostFacts;
use crate::source::{FileId, Shared, Span};
use crate::stack::expanded::{OccId, NO_PARENT};
use crate::stack::model::{NginxInstance, Stack};
use crate::syntax::nginx::{known, NodeId};
use std::collections::{HashMap, HashSet};

/// The classes of error, one per rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// NGX024 `unknown directive "x"; did you mean "y"?`
    Unknown,
    /// NGX025 `"x" directive is not allowed here`
    NotAllowed,
    /// NGX026 `invalid number of arguments in "x" directive`
    ArgCount,
    /// NGX027 `invalid value "v" in "x" directive, it must be "on" or "off"`
    FlagValue,
    /// NGX023 `"x" directive is duplicate`
    Duplicate,
    /// NGX029 `"x" directive invalid value`, `invalid port in "…"`, `invalid return code`
    Value,
}

/// One error, at one directive of one configuration.
#[derive(Clone, Debug)]
pub struct Finding {
    pub kind: Kind,
    pub file: Shared,
    pub node: NodeId,
    /// The configuration (index into `Stack::nginx`) and occurrence it was found in.
    pub instance: usize,
    pub occ: OccId,
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
    /// For a typo, the name meant; for a flag, `on` or `off` when the value clearly means
    /// one.
    pub suggestion: Option<&'static str>,
    /// For a duplicate, where the first one is.
    pub earlier: Option<(Shared, Span)>,
}

/// The findings of one configuration, computed once for the five rules that ask.
struct Findings {
    all: Vec<Finding>,
    /// Duplicates past [`MAX_FINDINGS_PER_FILE`] in one included file, counted rather than
    /// built: a generated file can hold millions, and only a thousand per file are shown.
    counted: Vec<(Shared, u32)>,
}

/// The findings of one kind in a stack, by reference into each configuration's findings
/// (not copied: a generated file can hold millions).
#[derive(Default)]
pub struct Found {
    sets: Vec<std::sync::Arc<Findings>>,
    picks: Vec<(u32, u32)>,
    /// Per file (by path), the findings counted and not built; see [`Found::counted`].
    counted: Vec<(Shared, u32)>,
}

impl Found {
    pub fn iter(&self) -> impl Iterator<Item = &Finding> {
        self.picks
            .iter()
            .map(|&(set, k)| &self.sets[set as usize].all[k as usize])
    }

    /// The files with more findings than were built, and how many more: each file once, with
    /// the largest count among the configurations that read it (a file read twice holds the
    /// same duplicates twice, not twice as many). Only duplicates are ever counted.
    pub fn counted(&self) -> &[(Shared, u32)] {
        &self.counted
    }
}

/// Suggestions are looked for at most this many times per configuration (each scans the
/// catalogue, about 90 µs): a hostile file of a million distinct names costs at most about
/// 0.2 s here, and past the bound unknown names are simply not reported. No real
/// configuration has a thousand distinct unknown names.
const MAX_SUGGESTIONS: usize = 2_000;

/// The findings of `kind` in the whole stack, each directive once however many
/// configurations read its file, in configuration order.
///
/// The modules are those `[host] nginx-modules` says the nginx has (see [`Modules`]);
/// without the list, every module the catalogue knows is assumed. One run asks with one
/// host, so the findings are kept with the configuration.
pub fn findings(stack: &Stack, kind: Kind, host: &HostFacts) -> Found {
    let modules = host.nginx_modules.as_ref().map(|f| f.value.as_slice());
    let mut seen = HashSet::new();
    // A number per path, looked up once per file object rather than once per finding (a
    // generated file can hold millions of findings).
    let mut ids: HashMap<*const crate::source::SourceFile, usize> = HashMap::new();
    let mut paths: HashMap<std::path::PathBuf, usize> = HashMap::new();
    let mut out = Found::default();
    let mut counted: HashMap<usize, usize> = HashMap::new();
    for (i, inst) in stack.nginx.iter().enumerate() {
        let all = inst.memo.get(|| check(i, inst, modules));
        let set = out.sets.len() as u32;
        let mut id_of = |file: &Shared| {
            *ids.entry(std::sync::Arc::as_ptr(file)).or_insert_with(|| {
                let next = paths.len();
                *paths.entry(file.path.clone()).or_insert(next)
            })
        };
        for (k, f) in all.all.iter().enumerate().filter(|(_, f)| f.kind == kind) {
            if seen.insert((id_of(&f.file), f.node)) {
                out.picks.push((set, k as u32));
            }
        }
        if kind == Kind::Duplicate {
            for (file, n) in &all.counted {
                match counted.entry(id_of(file)) {
                    std::collections::hash_map::Entry::Occupied(e) => {
                        let slot = &mut out.counted[*e.get()].1;
                        *slot = (*slot).max(*n);
                    }
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(out.counted.len());
                        out.counted.push((file.clone(), *n));
                    }
                }
            }
        }
        out.sets.push(all);
    }
    out
}

/// Whether the top of this configuration is certainly nginx's main context.
fn top_is_main(inst: &NginxInstance) -> bool {
    if inst.standalone {
        return false;
    }
    let view = inst.view();
    inst.expanded.children(NO_PARENT).any(|o| {
        let c = super::contexts(view.name(o));
        c != 0 && c & !ctx::MAIN == 0
    })
}

/// The contexts inside the block of a directive named `name` opened in one of `c`; 0 when
/// it is not a block lemplint models there (nothing inside is judged).
fn inner(name: &str, c: Ctx) -> Ctx {
    let info = known::lookup(name.as_bytes());
    match known::get(info) {
        Some(k) if k.block_contexts() & c != 0 => k.inner(c),
        _ => 0,
    }
}

/// Where each file's first syntax error is, by file id: nginx stops there and never reads
/// what follows, and the parser's recovery may have cut it oddly (a `{` inside a regex), so
/// nothing ending after it is judged.
struct FirstErrors(Vec<u32>);

impl FirstErrors {
    fn of(inst: &NginxInstance) -> FirstErrors {
        FirstErrors(
            inst.config
                .files
                .iter()
                .map(|f| {
                    f.parsed
                        .errors
                        .iter()
                        .map(|e| e.span.start)
                        .min()
                        .unwrap_or(u32::MAX)
                })
                .collect(),
        )
    }

    fn after(&self, inst: &NginxInstance, file: crate::source::FileId, node: NodeId) -> bool {
        let first = self.0.get(file.0 as usize).copied().unwrap_or(u32::MAX);
        first != u32::MAX && inst.config.file(file).parsed.tree.node(node).span.end > first
    }
}

/// The entries of a directive nginx would try in one of the contexts `c`, as written
/// (block or not): nginx takes the first command of that name allowed in the context, and a
/// module's other commands of the name elsewhere do not apply.
fn applicable(
    entries: &'static [Entry],
    c: Ctx,
    block: bool,
) -> impl Iterator<Item = &'static Entry> {
    entries
        .iter()
        .filter(move |e| e.allowed_in(c) && e.block == block)
}

/// What the catalogue says of a name written in the contexts `c`, as a block or not: the
/// same for every occurrence of the name there, so worked out once per name and context
/// (a large tree has hundreds of thousands of directives and a few hundred names).
#[derive(Clone, Copy)]
struct Verdict {
    c: Ctx,
    block: bool,
    /// The contexts inside its block ([`inner`]); 0 for a simple directive.
    inside: Ctx,
    /// The first applicable entry: none applies when `None`.
    first: Option<&'static Entry>,
    /// Bit `n` (`n` < 8): some applicable entry accepts `n` arguments; bit 8: 8 or more
    /// ([`super::Arity::accepts`] answers alike for every count past 7).
    accepts: u16,
    /// Every applicable entry is a flag.
    all_flags: bool,
    /// Some applicable entry's value is judged ([`super::values::judged`]).
    judged: bool,
}

impl Verdict {
    fn of(name: &str, entries: &'static [Entry], c: Ctx, block: bool) -> Verdict {
        let mut accepts = 0u16;
        for e in applicable(entries, c, block) {
            for n in 0..=8 {
                if e.arity.accepts(n) {
                    accepts |= 1 << n;
                }
            }
        }
        Verdict {
            c,
            block,
            inside: if block { inner(name, c) } else { 0 },
            first: applicable(entries, c, block).next(),
            accepts,
            all_flags: applicable(entries, c, block).all(|e| e.is_flag()),
            judged: applicable(entries, c, block).any(super::values::judged),
        }
    }

    fn accepts(&self, n: usize) -> bool {
        self.accepts & (1 << n.min(8)) != 0
    }
}

fn check(instance: usize, inst: &NginxInstance, modules: Option<&[String]>) -> Findings {
    let view = inst.view();
    let ex = &inst.expanded;
    // With a module list, what the configuration loads is there too.
    let modules = modules.map(|list| {
        let mut m = Modules::new(list);
        for d in cursor::named(inst, "load_module") {
            if let Some(path) = d.arg(0) {
                m.add(&path.value());
            }
        }
        m
    });
    let top = if top_is_main(inst) {
        ctx::MAIN
    } else {
        ctx::ANY
    };
    let errors = FirstErrors::of(inst);
    // The catalogue's entries for each distinct name, looked up once (a large tree has a
    // million directives and a few hundred names).
    let names: Vec<(&'static [Entry], Ctx)> = (0..ex.name_count() as u32)
        .map(|n| {
            let e = lookup(ex.name_text(n));
            (e, e.iter().fold(0, |c, e| c | e.contexts))
        })
        .collect();
    // Per name, the verdicts for the contexts and forms it was met in (one or two each).
    let mut verdicts: Vec<Vec<Verdict>> = vec![Vec::new(); names.len()];
    // The contexts each occurrence is in; its parent comes before it.
    let mut within: Vec<Ctx> = Vec::with_capacity(ex.occurrences.len());
    let mut out = Vec::new();
    let mut suggested: HashMap<String, Option<&'static str>> = HashMap::new();
    // The contexts inside each occurrence's block (0: none, or not modelled).
    let mut inside: Vec<Ctx> = Vec::with_capacity(ex.occurrences.len());
    for (id, occ) in ex.occurrences.iter().enumerate() {
        let id = id as OccId;
        let c = if occ.parent == NO_PARENT {
            top
        } else {
            inside[occ.parent as usize]
        };
        let d = view.directive(id);
        within.push(c);
        if c == 0 {
            inside.push(0);
            continue;
        }
        let block = d.block().is_some();
        let (entries, allowed) = names[occ.name as usize];
        let known = &mut verdicts[occ.name as usize];
        let verdict = match known.iter().find(|v| v.c == c && v.block == block) {
            Some(v) => *v,
            None => {
                let v = Verdict::of(view.name(id), entries, c, block);
                known.push(v);
                v
            }
        };
        inside.push(verdict.inside);
        if errors.after(inst, occ.file, occ.node) {
            continue;
        }
        let name = view.name(id);
        let file = inst.config.file(occ.file);
        let src = &file.source;
        let tree = &file.parsed.tree;
        let name_span = tree.name(d).raw();
        let finding = |kind, span, message: String| Finding {
            kind,
            file: src.clone(),
            node: occ.node,
            instance,
            occ: id,
            span,
            message,
            help: None,
            suggestion: None,
            earlier: None,
        };
        if let Some(m) = &modules {
            // nginx knows no directive of a module it lacks: the same message as a typo.
            if let Some(first) = entries
                .first()
                .filter(|_| !entries.iter().any(|e| m.has(e)))
            {
                let mut f = finding(
                    Kind::Unknown,
                    name_span,
                    format!("unknown directive \"{name}\""),
                );
                f.help = Some(Modules::how_to_get(first));
                out.push(f);
                continue;
            }
        }
        if entries.is_empty() {
            let guess = if let Some(g) = suggested.get(name) {
                *g
            } else if suggested.len() < MAX_SUGGESTIONS {
                let g = suggest(name, c);
                suggested.insert(name.to_string(), g);
                g
            } else {
                None
            };
            if let Some(g) = guess {
                let mut f = finding(
                    Kind::Unknown,
                    name_span,
                    format!("unknown directive \"{name}\"; did you mean \"{g}\"?"),
                );
                f.suggestion = Some(g);
                out.push(f);
            }
            continue;
        }
        if allowed & c == 0 {
            let mut f = finding(
                Kind::NotAllowed,
                name_span,
                format!("\"{name}\" directive is not allowed here"),
            );
            f.help = Some(format!(
                "`{name}` is allowed in: {}",
                ctx::names(allowed & !ctx::OTHER).join(", ")
            ));
            out.push(f);
            continue;
        }
        // Ended the wrong way (`{` for a simple directive, `;` for a block) is the
        // parser's to say, where it knows; otherwise nothing applies.
        let Some(first) = verdict.first else {
            continue;
        };
        let args = tree.args(d);
        if !verdict.accepts(args.len()) {
            let mut f = finding(
                Kind::ArgCount,
                name_span,
                format!("invalid number of arguments in \"{name}\" directive"),
            );
            f.help = Some(format!(
                "`{name}` takes {} argument(s) here and has {}; an unquoted space (in a regex, a header value) splits a word in two: quote it",
                first.arity.describe(),
                args.len()
            ));
            out.push(f);
            continue;
        }
        if verdict.all_flags {
            if let [arg] = args {
                let v = arg.value(&src.text);
                if !v.eq_ignore_ascii_case(b"on") && !v.eq_ignore_ascii_case(b"off") {
                    let shown = String::from_utf8_lossy(&v);
                    let mut f = finding(
                        Kind::FlagValue,
                        arg.raw(),
                        format!(
                            "invalid value \"{shown}\" in \"{name}\" directive, it must be \
                             \"on\" or \"off\""
                        ),
                    );
                    f.suggestion = flag_meant(&shown);
                    out.push(f);
                    continue;
                }
            }
        }
        // Most directives have no number to judge: nothing is collected or copied for them.
        if let Some(value) = args.first().filter(|_| verdict.judged) {
            let handlers: Vec<&Entry> = applicable(entries, c, block).collect();
            let value = value.value(&src.text);
            if let Some((i, message)) = super::values::invalid(name, &handlers, args.len(), &value)
            {
                out.push(finding(Kind::Value, args[i].raw(), message));
                continue;
            }
        }
    }
    let counted = duplicates(instance, inst, &within, &errors, &names, &mut out);
    Findings { all: out, counted }
}

/// The flag a common spelling of yes or no means, for the fix.
fn flag_meant(value: &str) -> Option<&'static str> {
    match value.to_ascii_lowercase().as_str() {
        "yes" | "true" | "1" | "enable" | "enabled" => Some("on"),
        "no" | "false" | "0" | "disable" | "disabled" => Some("off"),
        _ => None,
    }
}

/// A second directive of a name whose every applicable handler rejects a second value in
/// one block, after the first of that block. Past [`MAX_FINDINGS_PER_FILE`] in one file
/// they are counted, not built; returns those counts per file.
fn duplicates(
    instance: usize,
    inst: &NginxInstance,
    within: &[Ctx],
    errors: &FirstErrors,
    names: &[(&'static [Entry], Ctx)],
    out: &mut Vec<Finding>,
) -> Vec<(Shared, u32)> {
    let mut built: HashMap<FileId, u32> = HashMap::new();
    let mut counted: HashMap<FileId, u32> = HashMap::new();
    let view = inst.view();
    let ex = &inst.expanded;
    // Occurrences already in error are not counted again (nginx would have stopped there).
    let failed: HashSet<OccId> = out.iter().map(|f| f.occ).collect();
    let may_dup: Vec<bool> = names
        .iter()
        .map(|(entries, _)| entries.iter().any(|e| e.is_duplicate_checked()))
        .collect();
    let blocks = std::iter::once(NO_PARENT)
        .chain((0..ex.occurrences.len() as OccId).filter(|&o| ex.has_children(o)));
    for block in blocks {
        // Children sorted by name: each run of one name starts with the first set.
        let mut first: Option<(u32, OccId)> = None;
        for &child in ex.children_by_name(block) {
            let occ = ex.get(child);
            // Most names are never "is duplicate": skip them before anything else.
            if !may_dup[occ.name as usize] {
                continue;
            }
            let c = within[child as usize];
            if c == 0 || failed.contains(&child) || errors.after(inst, occ.file, occ.node) {
                continue;
            }
            match first {
                Some((n, earlier)) if n == occ.name => {
                    let d = view.directive(child);
                    let entries = names[occ.name as usize].0;
                    let block = d.block().is_some();
                    let mut applies = applicable(entries, c, block).peekable();
                    if applies.peek().is_none() || !applies.all(|e| e.is_duplicate_checked()) {
                        continue;
                    }
                    let n = built.entry(occ.file).or_insert(0);
                    if *n >= MAX_FINDINGS_PER_FILE {
                        *counted.entry(occ.file).or_insert(0) += 1;
                        continue;
                    }
                    *n += 1;
                    let (file, span) = view.location(child);
                    out.push(Finding {
                        kind: Kind::Duplicate,
                        file,
                        node: occ.node,
                        instance,
                        occ: child,
                        span,
                        // Worded by NGX023 for the findings it shows: a generated file can
                        // hold millions of duplicates, and only a thousand per file are
                        // shown; the rest are counted.
                        message: String::new(),
                        help: None,
                        suggestion: None,
                        earlier: Some(view.location(earlier)),
                    });
                }
                _ => first = Some((occ.name, child)),
            }
        }
    }
    let mut counted: Vec<(FileId, u32)> = counted.into_iter().collect();
    counted.sort_unstable_by_key(|&(f, _)| f);
    counted
        .into_iter()
        .map(|(f, n)| (inst.config.file(f).source.clone(), n))
        .collect()
}
