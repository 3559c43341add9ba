//! The checks shared by the fuzz targets (`fuzz/fuzz_targets/*.rs`) and the property tests
//! (`tests/properties.rs`, which also runs every file of `tests/regressions/` through them).
//!
//! Each check takes one input, runs a part of lemplint on it and returns `Err` with a
//! description when an invariant does not hold. A panic inside lemplint is a failure too: the
//! fuzzers report it as a crash, and the property tests as a failed case.
//!
//! This file depends on nothing but `lemplint` and std, so both crates can include it with
//! `#[path]`.

use lemplint::engine::fix_loop::{run as run_fixes, Outcome, Request};
use lemplint::engine::{StackArgs, STDIN};
use lemplint::fix::Applicability;
use lemplint::report::{self, Format};
use lemplint::source::Span;
use lemplint::stack::discover::{sniff, FileKind};
use lemplint::stack::fs::OverlayFs;
use lemplint::syntax::nginx::{self, BlockKind, NodeKind, ROOT};
use lemplint::syntax::{fpm, sysctl, SyntaxError};
use lemplint::tls::{self, OpenSslVersion};
use std::collections::HashMap;
use std::path::PathBuf;

type Check = Result<(), String>;

fn ensure(ok: bool, what: impl FnOnce() -> String) -> Check {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

fn in_bounds(s: Span, len: usize) -> bool {
    s.start <= s.end && s.end as usize <= len
}

fn within(inner: Span, outer: Span) -> bool {
    outer.start <= inner.start && inner.start <= inner.end && inner.end <= outer.end
}

fn errors_in_bounds(errors: &[SyntaxError], len: usize) -> Check {
    for e in errors {
        ensure(in_bounds(e.span, len), || {
            format!(
                "error {:?} has span {:?}, file has {len} bytes",
                e.message, e.span
            )
        })?;
        if let Some((s, label)) = e.related {
            ensure(in_bounds(s, len), || {
                format!(
                    "error {:?}: related span {s:?} ({label}) out of bounds",
                    e.message
                )
            })?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// nginx
// ---------------------------------------------------------------------------------------------

/// Parses `src`, prints it back (must be identical) and checks the tree's structure: every
/// span in bounds; words in document order and disjoint; the node arena properly nested
/// (descendant ranges, parents, depths) with each node's span inside its parent's and
/// siblings in order without overlap; each directive's parts in order inside its span.
pub fn nginx(src: &[u8]) -> Check {
    let parsed = nginx::parse(src);
    let tree = &parsed.tree;
    let len = src.len();
    match tree.print(src) {
        Some(out) if out == src => {}
        Some(out) => {
            return Err(format!(
                "nginx print differs: {:?}",
                String::from_utf8_lossy(&out)
            ))
        }
        None => return Err("nginx print returned None (a byte was lost)".into()),
    }
    errors_in_bounds(&parsed.errors, len)?;

    let mut prev_end = 0u32;
    for (i, w) in tree.words.iter().enumerate() {
        ensure(
            in_bounds(w.raw(), len) && within(w.inner(), w.raw()),
            || {
                format!(
                    "word {i}: raw {:?} inner {:?} (len {len})",
                    w.raw(),
                    w.inner()
                )
            },
        )?;
        ensure(w.raw().start >= prev_end, || {
            format!(
                "word {i} at {:?} overlaps or precedes the previous word (ends {prev_end})",
                w.raw()
            )
        })?;
        prev_end = w.raw().end;
    }
    let mut prev_end = 0u32;
    ensure(tree.comment_owners.len() == tree.arg_comments.len(), || {
        "argument comments and their owners differ in number".to_string()
    })?;
    for (i, &owner) in tree.comment_owners.iter().enumerate() {
        let directive = tree.nodes.get(owner as usize).map(|n| &n.kind);
        ensure(
            matches!(directive, Some(NodeKind::Directive(_) | NodeKind::Entry(_))),
            || format!("argument comment {i} belongs to node {owner}, not a statement"),
        )?;
        ensure(i == 0 || tree.comment_owners[i - 1] <= owner, || {
            format!("argument comment {i}: owners out of order")
        })?;
    }
    for (i, s) in tree.arg_comments.iter().enumerate() {
        ensure(in_bounds(*s, len) && s.start >= prev_end, || {
            format!("argument comment {i} at {s:?} out of bounds or order")
        })?;
        ensure(src.get(s.start as usize) == Some(&b'#'), || {
            format!("argument comment {i} at {s:?} does not start with #")
        })?;
        prev_end = s.end;
    }

    let n = tree.nodes.len();
    for (i, node) in tree.nodes.iter().enumerate() {
        let id = i as u32;
        let at = || {
            format!(
                "node {i} ({:?}, span {:?})",
                kind_name(&node.kind),
                node.span
            )
        };
        ensure(in_bounds(node.span, len), || {
            format!("{}: span out of bounds", at())
        })?;
        ensure(node.end > id && node.end as usize <= n, || {
            format!("{}: descendant end {} out of range", at(), node.end)
        })?;
        if node.parent != ROOT {
            let p = node.parent as usize;
            ensure(p < i, || {
                format!("{}: parent {p} does not precede it", at())
            })?;
            let parent = &tree.nodes[p];
            ensure(id < parent.end && node.end <= parent.end, || {
                format!(
                    "{}: not nested in its parent {p} (descendants ..{})",
                    at(),
                    parent.end
                )
            })?;
            ensure(within(node.span, parent.span), || {
                format!("{}: span outside its parent's {:?}", at(), parent.span)
            })?;
            let has_block = matches!(&parent.kind, NodeKind::Directive(d) | NodeKind::Entry(d)
                if d.block().is_some_and(|b| !matches!(b.kind, BlockKind::Lua)));
            ensure(has_block, || {
                format!("{}: parent {p} has no directive block", at())
            })?;
            // A word list's lines, and all that nests in them, are entries.
            let in_word_list = matches!(&parent.kind, NodeKind::Directive(d) | NodeKind::Entry(d)
                if d.block().is_some_and(|b| b.kind == BlockKind::WordList));
            if let (true, Some(d)) = (in_word_list, node.kind.statement()) {
                ensure(matches!(node.kind, NodeKind::Entry(_)), || {
                    format!("{}: a directive inside a word list", at())
                })?;
                ensure(
                    d.block().is_none_or(|b| b.kind != BlockKind::Directives),
                    || format!("{}: a block of directives inside a word list", at()),
                )?;
            }
        } else {
            ensure(!matches!(node.kind, NodeKind::Entry(_)), || {
                format!("{}: an entry at the top level", at())
            })?;
        }
        if node.end > id + 1 {
            let ok = matches!(&node.kind, NodeKind::Directive(d) | NodeKind::Entry(d)
                if d.block().is_some_and(|b| !matches!(b.kind, BlockKind::Lua)));
            ensure(ok, || format!("{}: has descendants but no block", at()))?;
        }
        match &node.kind {
            NodeKind::Directive(d) | NodeKind::Entry(d) => {
                ensure(
                    d.args.0 >= 1 && d.args.0 <= d.args.1 && d.args.1 as usize <= tree.words.len(),
                    || format!("{}: argument range {:?} invalid", at(), d.args),
                )?;
                let name = tree.name(d);
                ensure(name.raw().start == node.span.start, || {
                    format!("{}: does not start at its name {:?}", at(), name.raw())
                })?;
                let mut last = name.raw().end;
                for w in tree.args(d) {
                    ensure(w.raw().start >= last && within(w.raw(), node.span), || {
                        format!(
                            "{}: argument {:?} out of order or outside the span",
                            at(),
                            w.raw()
                        )
                    })?;
                    last = w.raw().end;
                }
                for c in tree.comments_in(id) {
                    ensure(c.start >= name.raw().end, || {
                        format!("{}: argument comment {c:?} before the name", at())
                    })?;
                }
                if let Some(semi) = d.semicolon() {
                    ensure(
                        d.block().is_none() && semi.start >= last && semi.end == node.span.end,
                        || format!("{}: semicolon {semi:?} misplaced", at()),
                    )?;
                    ensure(src[semi.range()] == *b";", || {
                        format!("{}: semicolon span is not ';'", at())
                    })?;
                }
                if let Some(b) = d.block() {
                    ensure(
                        b.open().start >= last && within(b.open(), node.span),
                        || format!("{}: block open {:?} misplaced", at(), b.open()),
                    )?;
                    ensure(src[b.open().range()] == *b"{", || {
                        format!("{}: open span is not '{{'", at())
                    })?;
                    match b.close() {
                        Some(c) => {
                            ensure(c.start >= b.open().end && c.end == node.span.end, || {
                                format!("{}: block close {c:?} misplaced", at())
                            })?;
                            ensure(src[c.range()] == *b"}", || {
                                format!("{}: close span is not '}}'", at())
                            })?;
                        }
                        None => ensure(node.span.end as usize == len, || {
                            format!(
                                "{}: unclosed block does not run to the end of the file",
                                at()
                            )
                        })?,
                    }
                    if let Some(body) = b.lua_body(src) {
                        ensure(body.start <= body.end && in_bounds(body, len), || {
                            format!("{}: Lua body {body:?} not between the braces", at())
                        })?;
                    }
                }
            }
            NodeKind::Comment => ensure(src.get(node.span.start as usize) == Some(&b'#'), || {
                format!("{}: comment does not start with #", at())
            })?,
            NodeKind::Error => ensure(
                node.span.len() == 1 && matches!(src[node.span.start as usize], b';' | b'{' | b'}'),
                || format!("{}: error node is not one stray ; {{ or }}", at()),
            )?,
        }
    }
    // Siblings: in order, without overlap.
    let mut parents: Vec<u32> = vec![ROOT];
    parents.extend(
        tree.statements()
            .filter(|(id, _)| tree.node(*id).end > id + 1)
            .map(|(id, _)| id),
    );
    for p in parents {
        let mut prev: Option<Span> = None;
        for c in tree.children(p) {
            let s = tree.node(c).span;
            if let Some(q) = prev {
                ensure(q.end <= s.start, || {
                    format!(
                        "siblings under {p}: {q:?} and node {c} {s:?} overlap or are out of order"
                    )
                })?;
            }
            prev = Some(s);
        }
    }
    Ok(())
}

fn kind_name(k: &NodeKind) -> &'static str {
    match k {
        NodeKind::Directive(_) => "directive",
        NodeKind::Entry(_) => "entry",
        NodeKind::Comment => "comment",
        NodeKind::Error => "error",
    }
}

/// Builds crossplane's JSON payload for `src` (as `crossplane parse` of one file) and
/// serializes it: must not panic, and the status must agree with the errors list.
pub fn nginx_crossplane(src: &[u8]) -> Check {
    use lemplint::syntax::nginx::crossplane::{payload, CrossplaneFile};
    let parsed = nginx::parse(src);
    let includes = HashMap::new();
    let v = payload(&[CrossplaneFile {
        path: "/etc/nginx/nginx.conf".into(),
        src,
        parsed: &parsed,
        includes: &includes,
    }]);
    let text = v.to_string();
    let status = v["status"].as_str().unwrap_or("");
    let errors = v["errors"].as_array().map_or(0, Vec::len);
    ensure(
        (status == "ok") == (errors == 0) && !text.is_empty(),
        || format!("crossplane payload inconsistent: status {status:?} with {errors} errors"),
    )
}

// ---------------------------------------------------------------------------------------------
// PHP-FPM
// ---------------------------------------------------------------------------------------------

/// Parses `src` as a PHP-FPM file: items contiguous (so printing is identity), each item's
/// terminator at its end, and every span of a section header or entry inside its item and
/// in order (`[` name `]`; key `=` value `; comment`).
pub fn fpm(src: &[u8]) -> Check {
    let parsed = fpm::parse(src);
    let len = src.len();
    match parsed.file.print(src) {
        Some(out) if out == src => {}
        Some(_) => return Err("fpm print differs from the input".into()),
        None => return Err("fpm print returned None".into()),
    }
    errors_in_bounds(&parsed.errors, len)?;
    let mut pos = 0u32;
    for (i, line) in parsed.file.lines.iter().enumerate() {
        let at = || format!("fpm item {i} ({:?})", line.span);
        ensure(line.span.start == pos && in_bounds(line.span, len), || {
            format!("{}: not contiguous at {pos}", at())
        })?;
        ensure(
            line.eol.end == line.span.end && within(line.eol, line.span),
            || format!("{}: terminator {:?} not at its end", at(), line.eol),
        )?;
        ensure(
            src[line.eol.range()]
                .iter()
                .all(|&b| b == b'\r' || b == b'\n'),
            || format!("{}: terminator {:?} holds other bytes", at(), line.eol),
        )?;
        pos = line.span.end;
        let item = line.span;
        match &line.kind {
            fpm::LineKind::Comment { text, .. } => {
                ensure(
                    within(*text, item) && src.get(text.start as usize) == Some(&b';'),
                    || format!("{}: comment text {text:?} misplaced", at()),
                )?;
            }
            fpm::LineKind::Section(s) => {
                ensure(
                    within(s.open, item)
                        && within(s.name, item)
                        && within(s.close, item)
                        && s.open.end <= s.name.start
                        && s.name.end <= s.close.start,
                    || {
                        format!(
                            "{}: section parts out of order: {:?} {:?} {:?}",
                            at(),
                            s.open,
                            s.name,
                            s.close
                        )
                    },
                )?;
            }
            fpm::LineKind::Entry(e) => {
                let spans = [
                    Some(e.key),
                    Some(e.name),
                    e.subkey,
                    Some(e.eq),
                    Some(e.raw_value),
                    Some(e.value),
                    e.comment,
                ];
                for s in spans.into_iter().flatten() {
                    ensure(within(s, item), || {
                        format!("{}: entry span {s:?} outside the item", at())
                    })?;
                }
                ensure(
                    within(e.name, e.key) && e.subkey.is_none_or(|s| within(s, e.key)),
                    || {
                        format!(
                            "{}: name {:?} / subkey {:?} not inside key {:?}",
                            at(),
                            e.name,
                            e.subkey,
                            e.key
                        )
                    },
                )?;
                ensure(
                    e.key.end <= e.eq.start && e.eq.end <= e.raw_value.start,
                    || {
                        format!(
                            "{}: key {:?}, = {:?}, value {:?} out of order",
                            at(),
                            e.key,
                            e.eq,
                            e.raw_value
                        )
                    },
                )?;
                ensure(within(e.value, e.raw_value), || {
                    format!(
                        "{}: value {:?} not inside raw value {:?}",
                        at(),
                        e.value,
                        e.raw_value
                    )
                })?;
                if let Some(c) = e.comment {
                    ensure(e.raw_value.end <= c.start, || {
                        format!("{}: comment {c:?} before the value", at())
                    })?;
                }
                if let Some(h) = e.section.map(|h| h as usize) {
                    ensure(
                        h < i && matches!(parsed.file.lines[h].kind, fpm::LineKind::Section(_)),
                        || format!("{}: section index {h} is not an earlier header", at()),
                    )?;
                }
            }
            fpm::LineKind::Blank | fpm::LineKind::Error | fpm::LineKind::Xml => {}
        }
    }
    ensure(pos as usize == len, || {
        format!("fpm items end at {pos}, file has {len} bytes")
    })?;
    // The accessors walk the same items; they must not panic either.
    let _ = parsed.file.sections(src);
    for (_, e) in parsed.file.entries() {
        let _ = e.value_text_no_env(src);
        let _ = e.subkey_text(src, &fpm::no_env);
        let _ = e.unresolved_constants(src);
    }
    for start in [fpm::StartIn::Global, fpm::StartIn::Pool] {
        errors_in_bounds(&parsed.file.load_errors(src, &fpm::no_env, start), len)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// sysctl
// ---------------------------------------------------------------------------------------------

/// Parses `src` as a sysctl file: one item per physical line, contiguous; assignments' parts
/// inside the line (before its terminator) and in order (`-` key `=` value).
pub fn sysctl(src: &[u8]) -> Check {
    let parsed = sysctl::parse(src);
    let len = src.len();
    match parsed.file.print(src) {
        Some(out) if out == src => {}
        Some(_) => return Err("sysctl print differs from the input".into()),
        None => return Err("sysctl print returned None".into()),
    }
    errors_in_bounds(&parsed.errors, len)?;
    let mut pos = 0u32;
    for (i, line) in parsed.file.lines.iter().enumerate() {
        let at = || format!("sysctl line {i} ({:?})", line.span);
        ensure(
            line.span.start == pos && in_bounds(line.span, len) && !line.span.is_empty(),
            || format!("{}: not contiguous at {pos}", at()),
        )?;
        let lf = src[line.span.range()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        let last = line.span.end as usize == len;
        ensure(
            lf == 1 && src[line.span.end as usize - 1] == b'\n' || lf == 0 && last,
            || format!("{}: not one physical line", at()),
        )?;
        ensure(
            line.eol.end == line.span.end && within(line.eol, line.span),
            || format!("{}: terminator {:?} not at its end", at(), line.eol),
        )?;
        pos = line.span.end;
        let content = Span::new(line.span.start, line.eol.start);
        match &line.kind {
            sysctl::LineKind::Comment { text } => ensure(
                within(*text, content) && matches!(src[text.start as usize], b'#' | b';'),
                || format!("{}: comment text {text:?} misplaced", at()),
            )?,
            sysctl::LineKind::Exclude { dash, key } => ensure(
                within(*dash, content) && within(*key, content) && dash.end <= key.start,
                || format!("{}: exclude {dash:?} {key:?} misplaced", at()),
            )?,
            sysctl::LineKind::Assignment(a) => {
                for s in [a.dash, Some(a.key), Some(a.eq), Some(a.value)]
                    .into_iter()
                    .flatten()
                {
                    ensure(within(s, content), || {
                        format!("{}: span {s:?} outside the line", at())
                    })?;
                }
                ensure(
                    a.dash.is_none_or(|d| d.end <= a.key.start)
                        && a.key.end <= a.eq.start
                        && a.eq.end <= a.value.start
                        && src[a.eq.range()] == *b"=",
                    || {
                        format!(
                            "{}: parts out of order: {:?} {:?} {:?} {:?}",
                            at(),
                            a.dash,
                            a.key,
                            a.eq,
                            a.value
                        )
                    },
                )?;
                let _ = a.normalized_key(src);
                let _ = a.proc_path(src);
            }
            sysctl::LineKind::Blank | sysctl::LineKind::Error => {}
        }
    }
    ensure(pos as usize == len, || {
        format!("sysctl lines end at {pos}, file has {len} bytes")
    })
}

// ---------------------------------------------------------------------------------------------
// TLS cipher strings
// ---------------------------------------------------------------------------------------------

/// Expands `spec` for every modelled OpenSSL version: must not panic, must give the same
/// answer twice, and must list each suite at most once (as `openssl ciphers` does).
pub fn cipher(spec: &str) -> Check {
    for v in OpenSslVersion::ALL {
        let a = tls::expand(spec, v);
        let b = tls::expand(spec, v);
        let (Ok(a), Ok(b)) = (a, b) else {
            continue;
        };
        let ids = |e: &tls::Expansion| e.suites.iter().map(|s| s.id).collect::<Vec<_>>();
        ensure(ids(&a) == ids(&b), || {
            format!("{v}: expanding {spec:?} twice differs")
        })?;
        let mut seen = std::collections::HashSet::new();
        for s in &a.suites {
            ensure(seen.insert(s.id), || {
                format!("{v}: {spec:?} lists {} twice", s.name)
            })?;
        }
        let _ = a
            .suites
            .iter()
            .map(|s| tls::weaknesses(s).len())
            .sum::<usize>();
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// lint + fix of standard input
// ---------------------------------------------------------------------------------------------

/// The kind lemplint gives standard input with this content (`workspace.rs`).
pub fn stdin_kind(src: &[u8]) -> FileKind {
    sniff(src).unwrap_or(FileKind::Nginx)
}

/// Syntax errors of `src` read as `kind`.
pub fn syntax_errors(kind: FileKind, src: &[u8]) -> usize {
    match kind {
        FileKind::Nginx => nginx::parse(src).errors.len(),
        FileKind::FpmMaster | FileKind::FpmPool => fpm::parse(src).errors.len(),
        FileKind::Sysctl => sysctl::parse(src).errors.len(),
        // PHP stops at a php.ini's first error: one finding at most.
        FileKind::PhpIni => {
            usize::from(lemplint::stack::php_ini::first_error(&fpm::parse(src)).is_some())
        }
    }
}

/// `-` with no config file, and host facts given so the rules that need them run too
/// (`--cpus 4 --memory 2GiB`).
fn stdin_args() -> StackArgs {
    StackArgs {
        paths: vec![PathBuf::from(STDIN)],
        isolated: true,
        cpus: Some(4),
        memory: Some("2GiB".into()),
        ..Default::default()
    }
}

/// `lemplint fix --unsafe-fixes -` on `src`, in memory: the fixed text and the outcome.
pub fn fix_stdin(src: &[u8]) -> Result<(Vec<u8>, Outcome), String> {
    let args = stdin_args();
    let req = Request {
        stdin: Some(src.to_vec()),
        args: &args,
        select: &[],
        ignore: &[],
        level: Applicability::Unsafe,
    };
    let outcome = run_fixes(&req)?;
    let text = outcome
        .changed
        .get(std::path::Path::new(STDIN))
        .map_or_else(|| src.to_vec(), |c| c.new.clone());
    Ok((text, outcome))
}

/// `lemplint lint -` on `src`: every diagnostic's spans (and its fix's edits) inside its file,
/// and every report format renders. Returns the codes reported.
pub fn lint_stdin(src: &[u8]) -> Result<Vec<&'static str>, String> {
    let mut fs = OverlayFs::new(lemplint::engine::real_fs(&stdin_args()));
    fs.insert(PathBuf::from(STDIN), src.to_vec());
    let (_, findings) = lemplint::engine::collect_with(&stdin_args(), &[], &[], None, &fs)?;
    for d in &findings.diagnostics {
        let len = d.file.text.len();
        ensure(in_bounds(d.span, len), || {
            format!(
                "{} span {:?} outside its file ({len} bytes)",
                d.code, d.span
            )
        })?;
        for l in &d.labels {
            ensure(in_bounds(l.span, l.file.text.len()), || {
                format!("{} label span {:?} out of bounds", d.code, l.span)
            })?;
        }
        for e in d.fix.iter().flat_map(|f| &f.edits) {
            ensure(in_bounds(e.range, e.file.text.len()), || {
                format!(
                    "{} fix edit {:?} outside {}",
                    d.code,
                    e.range,
                    e.file.path.display()
                )
            })?;
        }
    }
    for format in [Format::Full, Format::Concise, Format::Json] {
        let mut out = Vec::new();
        report::write(
            format,
            &mut out,
            &findings.diagnostics,
            &findings.summary,
            false,
        )
        .map_err(|e| format!("rendering {format:?}: {e}"))?;
    }
    Ok(findings
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect())
}

/// Lints and fixes `src` as standard input, then fixes the result again. The fixer must
/// report no bug of its own; must not add syntax errors (a file without any keeps none; it
/// may remove some, e.g. FPM010 turns a `#` comment php-fpm rejects into a `;` one); must
/// leave alone a file that lint reports as unparsable (`fix/run.rs`: such a file is never
/// written); and fixing twice must equal fixing once.
pub fn lint_fix(src: &[u8]) -> Check {
    let codes = lint_stdin(src)?;
    let unparsable = codes
        .iter()
        .any(|c| lemplint::rules::by_code(c).is_some_and(|r| r.input_error) && *c != "NGX020");
    let kind = stdin_kind(src);
    let before = syntax_errors(kind, src);
    let (once, first) = fix_stdin(src)?;
    ensure(first.bugs.is_empty(), || {
        format!("fixer bug on the input: {:?}", first.bugs)
    })?;
    let after = syntax_errors(kind, &once);
    ensure(after <= before, || {
        format!(
            "fixing a {kind:?} file with {before} syntax errors left {after}: {:?} (applied {:?})",
            String::from_utf8_lossy(&once),
            first.applied
        )
    })?;
    if unparsable {
        ensure(once == src, || {
            format!(
                "a {kind:?} file lint calls unparsable ({codes:?}) was changed: {:?}",
                first.applied
            )
        })?;
    }
    let (twice, second) = fix_stdin(&once)?;
    ensure(second.bugs.is_empty(), || {
        format!("fixer bug on the fixed text: {:?}", second.bugs)
    })?;
    ensure(twice == once, || {
        format!(
            "fixing twice differs from fixing once:\nonce:  {:?}\ntwice: {:?}\nsecond run applied {:?}",
            String::from_utf8_lossy(&once),
            String::from_utf8_lossy(&twice),
            second.applied
        )
    })
}

// ---------------------------------------------------------------------------------------------
// Regression files
// ---------------------------------------------------------------------------------------------

/// Runs a saved fuzzer input through the checks of the target that found it; the target is
/// the file name's prefix (`fuzz_nginx_parse-1a2b3c4d.bin`).
pub fn regression(file_name: &str, data: &[u8]) -> Check {
    let target = file_name.rsplit_once('-').map_or(file_name, |(t, _)| t);
    match target {
        "fuzz_nginx_parse" => nginx(data).and_then(|()| nginx_crossplane(data)),
        "fuzz_fpm_parse" => fpm(data),
        "fuzz_sysctl_parse" => sysctl(data),
        "fuzz_cipher_string" => cipher(&String::from_utf8_lossy(data)),
        "fuzz_lint_fix_stdin" => lint_fix(data),
        other => Err(format!("{file_name}: unknown fuzz target {other:?}")),
    }
}
