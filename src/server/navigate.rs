//! Hover, go to definition and the outline, read from the last lint's stacks.

use super::lines::LineIndex;
use super::{real, real_of, uri, Analysis};
use crate::analysis::catalogue;
use crate::analysis::variables::builtin;
use crate::source::{Shared, Span};
use crate::stack::model::{NginxInstance, Stack};
use crate::stack::nginx::NginxFile;
use crate::syntax::nginx::{NodeId, NodeKind, Tree, Word, ROOT};
use lsp_types as lsp;
use std::path::{Path, PathBuf};

/// An nginx file of the last lint, with the configuration and stack it was read in.
struct Place<'a> {
    stack: &'a Stack,
    inst: &'a NginxInstance,
    file: &'a NginxFile,
    id: crate::source::FileId,
}

fn nginx_file<'a>(a: &'a Analysis, path: &Path) -> Option<Place<'a>> {
    for stack in &a.workspace.stacks {
        for inst in &stack.nginx {
            for id in inst.config.ids() {
                let file = inst.config.file(id);
                if real_of(&file.source) == path {
                    return Some(Place {
                        stack,
                        inst,
                        file,
                        id,
                    });
                }
            }
        }
    }
    None
}

fn path_of(uri: &lsp::Uri) -> Option<PathBuf> {
    uri::to_path(uri.as_str()).map(|p| real(&p))
}

/// The statement and word (0: the name) at `offset`.
fn word_at(tree: &Tree, offset: u32) -> Option<(NodeId, usize, Word)> {
    tree.statements().find_map(|(id, d)| {
        let name = tree.name(d);
        std::iter::once(name)
            .chain(tree.args(d).iter().copied())
            .enumerate()
            .find(|(_, w)| w.raw().start <= offset && offset < w.raw().end.max(w.raw().start + 1))
            .map(|(i, w)| (id, i, w))
    })
}

fn location(file: &Shared, span: Span) -> Option<lsp::Location> {
    let uri = uri::from_path(&real_of(file)).parse().ok()?;
    Some(lsp::Location::new(
        uri,
        LineIndex::new(&file.text).range(span),
    ))
}

fn markdown(value: String) -> lsp::Hover {
    lsp::Hover {
        contents: lsp::HoverContents::Markup(lsp::MarkupContent {
            kind: lsp::MarkupKind::Markdown,
            value,
        }),
        range: None,
    }
}

pub fn hover(a: Option<&Analysis>, p: &lsp::HoverParams) -> Option<lsp::Hover> {
    let a = a?;
    let path = path_of(&p.text_document_position_params.text_document.uri)?;
    let pos = p.text_document_position_params.position;
    let mut parts: Vec<String> = Vec::new();
    // The findings under the cursor: their rules' summaries.
    let text = a
        .diagnostics
        .iter()
        .find(|d| real_of(&d.file) == path)
        .map(|d| d.file.clone());
    let place = nginx_file(a, &path);
    let source = place.as_ref().map(|p| p.file.source.clone()).or(text);
    let source = source?;
    let offset = LineIndex::new(&source.text).offset(pos);
    for d in &a.diagnostics {
        if real_of(&d.file) == path && d.span.start <= offset && offset <= d.span.end {
            let rule = crate::rules::entry(d.code);
            let line = format!("**{}** `{}`: {}", rule.code, rule.name, rule.meta().summary);
            if !parts.contains(&line) {
                parts.push(line);
            }
        }
    }
    // A rule code in a `lemplint: ignore` comment.
    if let Some(code) = code_in_suppression(&source.text, offset) {
        if let Some(rule) = crate::rules::lookup(&code) {
            parts.push(format!(
                "```text\n{}```",
                crate::report::rule_docs::text(rule)
            ));
        }
    }
    if let Some(place) = &place {
        let tree = &place.file.parsed.tree;
        let src = &place.file.source.text;
        if let Some((id, i, w)) = word_at(tree, offset) {
            let is_directive = matches!(tree.node(id).kind, NodeKind::Directive(_));
            if i == 0 && is_directive {
                parts.extend(directive_entries(place, id).into_iter().map(directive_doc));
            } else if let Some(var) = variable_at(&w, src, offset) {
                parts.push(variable_doc(place, &var));
            }
        }
    }
    (!parts.is_empty()).then(|| markdown(parts.join("\n\n---\n\n")))
}

/// The word at `offset` when its line is a `lemplint:` suppression.
fn code_in_suppression(text: &[u8], offset: u32) -> Option<String> {
    let o = offset as usize;
    let start = memchr::memrchr(b'\n', &text[..o.min(text.len())]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &text[o.min(text.len())..]).map_or(text.len(), |i| o + i);
    let line = &text[start..end];
    memchr::memmem::find(line, b"lemplint:")?;
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
    let mut from = o;
    while from > start && is_word(text[from - 1]) {
        from -= 1;
    }
    let mut to = o;
    while to < end && is_word(text[to]) {
        to += 1;
    }
    (to > from).then(|| String::from_utf8_lossy(&text[from..to]).into_owned())
}

/// The catalogue's entries for the directive at `id`: those of the modules that take it
/// where it stands (a `server` in `http` is the core module's, not stream's or mail's), or
/// every one when where it stands is unknown.
fn directive_entries(place: &Place, id: NodeId) -> Vec<&'static catalogue::Entry> {
    let tree = &place.file.parsed.tree;
    let Some(d) = tree.directive(id) else {
        return Vec::new();
    };
    let name = tree.name(d).text(&place.file.source.text);
    let all = catalogue::lookup(&name);
    let span = tree.name(d).raw();
    let occ = crate::analysis::cursor::named(place.inst, &name)
        .find(|o| std::sync::Arc::ptr_eq(o.file(), &place.file.source) && o.span() == span);
    let mut fit: Vec<&catalogue::Entry> = match occ {
        Some(o) => {
            let (c, block) = (o.contexts(), o.has_block());
            all.iter()
                .filter(|e| e.allowed_in(c) && e.block == block)
                .collect()
        }
        None => all.iter().collect(),
    };
    if fit.is_empty() {
        fit = all.iter().collect();
    }
    // nginx's own module first; third-party ones only when no standard one fits.
    if fit.iter().any(|e| !e.dynamic) {
        fit.retain(|e| !e.dynamic);
    }
    fit
}

/// A catalogue entry as hover text: module, contexts, arguments, inheritance, versions.
fn directive_doc(e: &catalogue::Entry) -> String {
    let contexts = catalogue::ctx::names(e.contexts).join(", ");
    let merge = match e.merge {
        catalogue::Merge::Inherited => "inherited from the enclosing level when not set",
        catalogue::Merge::Array => "a list: setting it at a level replaces every inherited one",
        catalogue::Merge::NotInherited => "not inherited",
        catalogue::Merge::Unknown => "depends on the module",
    };
    let mut out = format!(
        "**{}** — `{}`{}\n\n- contexts: {contexts}\n- arguments: {}{}\n- inheritance: {merge}",
        e.name,
        e.module,
        if e.dynamic {
            " (third-party module)"
        } else {
            ""
        },
        e.arity.describe(),
        if e.block { ", then a block" } else { "" },
    );
    if let Some(doc) = e.documented() {
        push_documented(&mut out, doc);
    }
    if !e.since.is_empty() {
        out.push_str(&format!("\n- since nginx {}", e.since));
    }
    if !e.removed.is_empty() {
        out.push_str(&format!("\n- removed after nginx {}", e.removed));
    }
    out
}

/// The documentation's syntax lines and default, as nginx.org writes them:
/// `client_max_body_size size;`, default `client_max_body_size 1m;`.
fn push_documented(out: &mut String, doc: &catalogue::Documented) {
    let statement = |args: &str| {
        if args.ends_with('}') {
            format!("{} {args}", doc.name)
        } else {
            format!("{} {args};", doc.name).replace(" ;", ";")
        }
    };
    for syntax in doc.syntax {
        out.push_str(&format!("\n- syntax: `{}`", statement(syntax)));
    }
    match doc.default {
        None => out.push_str("\n- default: none"),
        Some(d) if d.contains('\n') || doc.syntax.iter().any(|s| s.ends_with('}')) => {
            // A block's default (`types`): its entries, one per line.
            out.push_str(&format!("\n- default:\n\n```nginx\n{} {{\n", doc.name));
            for line in d.lines() {
                out.push_str(&format!("    {line}\n"));
            }
            out.push_str("}\n```");
        }
        Some(d) => out.push_str(&format!("\n- default: `{}`", statement(d))),
    }
}

/// The `$name` (or `${name}`) the cursor is on inside a word.
fn variable_at(w: &Word, src: &[u8], offset: u32) -> Option<String> {
    let raw = &src[w.raw().range()];
    let at = (offset - w.raw().start) as usize;
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'$' {
            let braced = raw.get(i + 1) == Some(&b'{');
            let from = i + 1 + braced as usize;
            let mut to = from;
            while to < raw.len() && is_name(raw[to]) {
                to += 1;
            }
            let end = to + (braced && raw.get(to) == Some(&b'}')) as usize;
            if to > from && i <= at && at < end.max(i + 1) {
                return Some(String::from_utf8_lossy(&raw[from..to]).into_owned());
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    None
}

fn variable_doc(place: &Place, name: &str) -> String {
    if let Some(def) = definitions_of_variable(place.inst, name).first() {
        let at = def.file.line_col(def.span.start);
        return format!(
            "`${name}`: set by the configuration (`{}`, {}:{})",
            def.directive,
            crate::escape::path(def.file.shown_path()),
            at.line
        );
    }
    match builtin::lookup(name) {
        Some(b) => {
            let origin = match b.origin {
                builtin::Origin::Client => "client-controlled (as sent)",
                builtin::Origin::Normalised => {
                    "client-controlled (decoded and normalised by nginx)"
                }
                builtin::Origin::Validated => "client-controlled (validated by nginx)",
                builtin::Origin::Server => "set by nginx or the server, not the client",
                builtin::Origin::Upstream => "sent by the upstream server",
                builtin::Origin::Config => "built from the configuration",
            };
            let dangers: Vec<&str> = b.dangers.iter().map(|d| d.describe()).collect();
            let may = if dangers.is_empty() {
                String::new()
            } else {
                format!("; may contain {}", dangers.join(", "))
            };
            format!("`${name}` — `{}`: {origin}{may}.\n\n{}", b.module, b.why)
        }
        None => {
            format!("`${name}`: not a built-in variable, and no `set` or `map` defines it here")
        }
    }
}

struct VarDef<'a> {
    file: &'a Shared,
    span: Span,
    directive: String,
}

/// The statements of a configuration that define `$name` (`set`, `map`, `geo`, …).
fn definitions_of_variable<'a>(inst: &'a NginxInstance, name: &str) -> Vec<VarDef<'a>> {
    let want = format!("${name}");
    let mut out = Vec::new();
    for id in inst.config.ids() {
        let f = inst.config.file(id);
        let (tree, src) = (&f.parsed.tree, &f.source.text);
        for (_, d) in tree.directives() {
            let directive = tree.name(d).text(src);
            let args = tree.args(d);
            let which = match directive.as_ref() {
                "set" | "perl_set" | "js_set" | "set_by_lua" | "set_by_lua_block"
                | "set_by_lua_file" => args.first(),
                "map" | "split_clients" => args.get(1),
                "geo" | "geoip2" => args.last(),
                _ => None,
            };
            if let Some(w) = which.filter(|w| w.text(src) == want) {
                out.push(VarDef {
                    file: &f.source,
                    span: w.raw(),
                    directive: directive.into_owned(),
                });
            }
        }
    }
    out
}

pub fn definition(
    a: Option<&Analysis>,
    p: &lsp::GotoDefinitionParams,
) -> Option<lsp::GotoDefinitionResponse> {
    let a = a?;
    let path = path_of(&p.text_document_position_params.text_document.uri)?;
    let place = nginx_file(a, &path)?;
    let tree = &place.file.parsed.tree;
    let src = &place.file.source.text;
    let offset = LineIndex::new(src).offset(p.text_document_position_params.position);
    let (id, i, w) = word_at(tree, offset)?;
    let d = tree.statement(id)?;
    let name = tree.name(d).text(src);
    let mut out: Vec<lsp::Location> = Vec::new();
    if let Some(var) = variable_at(&w, src, offset) {
        out.extend(
            definitions_of_variable(place.inst, &var)
                .iter()
                .filter_map(|v| location(v.file, v.span)),
        );
    } else if name == "include" {
        if let Some(targets) = place.inst.config.includes.get(place.id, id) {
            for t in targets {
                out.extend(location(
                    &place.inst.config.file(*t).source,
                    Span::new(0, 0),
                ));
            }
        }
    } else if name == "fastcgi_pass" && i > 0 {
        for link in crate::analysis::stack_links::pool_links(place.stack) {
            if std::sync::Arc::ptr_eq(link.pass.file(), &place.file.source)
                && link.pass.span() == tree.name(d).raw()
            {
                if let Some(e) = link.cfg.entry(link.listen) {
                    out.extend(location(link.cfg.source(link.listen), e.key));
                }
            }
        }
    } else if i > 0 && name.ends_with("_pass") {
        if let Some(upstream) = upstream_name(&w.text(src)) {
            out.extend(upstreams(place.inst, &upstream));
        }
    }
    (!out.is_empty()).then_some(lsp::GotoDefinitionResponse::Array(out))
}

/// The upstream group a `proxy_pass http://NAME/…` (or `fastcgi_pass NAME`) names.
fn upstream_name(value: &str) -> Option<String> {
    let rest = value.split_once("://").map_or(value, |(_, r)| r);
    let host = rest.split(['/', '?']).next()?;
    let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
    (!host.is_empty() && !host.contains('$')).then(|| host.to_string())
}

fn upstreams(inst: &NginxInstance, name: &str) -> Vec<lsp::Location> {
    let mut out = Vec::new();
    for id in inst.config.ids() {
        let f = inst.config.file(id);
        let (tree, src) = (&f.parsed.tree, &f.source.text);
        for (_, d) in tree.directives_named(src, "upstream") {
            if let Some(w) = tree.args(d).first().filter(|w| w.text(src) == name) {
                out.extend(location(&f.source, w.raw()));
            }
        }
    }
    out
}

pub fn symbols(
    a: Option<&Analysis>,
    p: &lsp::DocumentSymbolParams,
) -> Option<lsp::DocumentSymbolResponse> {
    let a = a?;
    let path = path_of(&p.text_document.uri)?;
    if let Some(place) = nginx_file(a, &path) {
        let tree = &place.file.parsed.tree;
        let idx = LineIndex::new(&place.file.source.text);
        return Some(lsp::DocumentSymbolResponse::Nested(block_symbols(
            tree,
            &place.file.source.text,
            &idx,
            ROOT,
        )));
    }
    fpm_symbols(a, &path).map(lsp::DocumentSymbolResponse::Nested)
}

/// The blocks under `parent`: `http` › `server example.com` › `location /`.
fn block_symbols(
    tree: &Tree,
    src: &[u8],
    idx: &LineIndex,
    parent: NodeId,
) -> Vec<lsp::DocumentSymbol> {
    let mut out = Vec::new();
    for id in tree.children(parent) {
        let NodeKind::Directive(d) = &tree.node(id).kind else {
            continue;
        };
        if d.block().is_none() {
            continue;
        }
        let name = tree.name(d).text(src).into_owned();
        let mut label = name.clone();
        let args: Vec<String> = if name == "server" {
            // A server is known by its names.
            tree.children(id)
                .filter_map(|c| tree.directive(c))
                .filter(|c| tree.name(c).is(src, "server_name"))
                .flat_map(|c| tree.args(c).iter().map(|w| w.text(src).into_owned()))
                .collect()
        } else {
            tree.args(d)
                .iter()
                .map(|w| w.text(src).into_owned())
                .collect()
        };
        if !args.is_empty() {
            label.push(' ');
            label.push_str(&args.join(" "));
        }
        let kind = match name.as_str() {
            "http" | "stream" | "mail" | "events" => lsp::SymbolKind::MODULE,
            "server" => lsp::SymbolKind::CLASS,
            "location" | "if" | "limit_except" => lsp::SymbolKind::METHOD,
            "upstream" => lsp::SymbolKind::INTERFACE,
            "map" | "geo" | "split_clients" | "types" => lsp::SymbolKind::ENUM,
            _ => lsp::SymbolKind::OBJECT,
        };
        #[allow(deprecated)]
        out.push(lsp::DocumentSymbol {
            name: label,
            detail: None,
            kind,
            tags: None,
            deprecated: None,
            range: idx.range(tree.node(id).span),
            selection_range: idx.range(tree.name(d).raw()),
            children: Some(block_symbols(tree, src, idx, id)),
        });
    }
    out
}

/// A PHP-FPM file's pools, from each header to the next.
fn fpm_symbols(a: &Analysis, path: &Path) -> Option<Vec<lsp::DocumentSymbol>> {
    use crate::syntax::fpm::LineKind;
    for stack in &a.workspace.stacks {
        for f in stack.fpm_files() {
            if real_of(&f.source) != path {
                continue;
            }
            let src = &f.source.text;
            let idx = LineIndex::new(src);
            let lines = &f.parsed.file.lines;
            let mut out = Vec::new();
            let headers: Vec<(usize, &crate::syntax::fpm::Section)> = lines
                .iter()
                .enumerate()
                .filter_map(|(i, l)| match &l.kind {
                    LineKind::Section(s) => Some((i, s)),
                    _ => None,
                })
                .collect();
            for (k, (i, s)) in headers.iter().enumerate() {
                let end = headers
                    .get(k + 1)
                    .map_or(src.len() as u32, |(j, _)| lines[*j].span.start);
                let name = String::from_utf8_lossy(&src[s.name.range()]).into_owned();
                #[allow(deprecated)]
                out.push(lsp::DocumentSymbol {
                    name: format!("[{name}]"),
                    detail: None,
                    kind: lsp::SymbolKind::NAMESPACE,
                    tags: None,
                    deprecated: None,
                    range: idx.range(Span::new(lines[*i].span.start, end)),
                    selection_range: idx.range(s.name),
                    children: None,
                });
            }
            return Some(out);
        }
    }
    None
}
