//! NGX116 header-lost-by-inheritance: a level (server, location, `if` in a location) that
//! writes its own `add_header` — or `proxy_set_header`, `fastcgi_param`, … — no longer
//! inherits any of the enclosing level's: nginx takes the parent's list only into a level
//! that sets none. A location adding `Cache-Control` silently drops the server's
//! `Strict-Transport-Security` and `Content-Security-Policy`.
//!
//! The lists are the ones nginx builds: `add_header`/`add_trailer` after
//! `add_header_inherit`/`add_trailer_inherit` (nginx 1.29.3; `merge` keeps the parent's,
//! `off` drops them on purpose) — analysis::header_lists; the others replace the parent's
//! list whenever the level has an entry (their merge functions: ngx_http_proxy_merge_headers,
//! ngx_http_fastcgi_merge_params, ngx_http_upstream_hide_headers_hash). A header the level
//! writes again is not lost, nor one `more_set_headers` sets (headers-more merges every
//! level). nginx's own defaults (`Host $proxy_host`, `Connection close`) are added whatever
//! the configuration says, so they are never "lost"; only what the configuration set is
//! named. A level holding an include that could not be read is not judged: what it adds is
//! unknown.
//!
//! A lost response header is weighed where it is lost (analysis::header_relevance): the
//! finding is a warning only when a lost security header matters for what the level answers
//! with. Framing and content policies on a location of static assets, HSTS there (noted per
//! host from its documents), nosniff on files typed by their extension, document headers on
//! the CORS preflight branch, or a CSP that allows everything: information, saying why. A
//! CORS header of the other kind of response (Expose-Headers on the preflight branch,
//! Allow-Methods where no preflight is answered) and a header the security headers module
//! sends itself are not lost at all.

use crate::analysis::cursor::{self, Directive};
use crate::analysis::header_lists::{
    has_unread_include, is_security_header, more_set_anywhere_above, sent, unread_includes,
    Inherit, Level, Present,
};
use crate::analysis::header_relevance::{
    self as relevance, is_proxy_default, module_sends, Relevance,
};
use crate::diagnostic::{Label, Severity};
use crate::fix::{Edit, Fix};
use crate::fxhash::FxHashSet;
use crate::rules::{Context, Focus, Rule};
use crate::source::{FileId, Span};
use crate::stack::expanded::OccId;
use crate::stack::ids::NginxId;
use crate::stack::model::NginxInstance;
use crate::syntax::nginx::known;
use std::collections::{HashMap, HashSet};

declare_rule! {
    pub struct HeaderLostByInheritance;
    code: NGX116,
    name: "header-lost-by-inheritance",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

/// An array-like directive a level replaces as a whole.
struct Kind {
    name: &'static str,
    /// The `*_inherit` directive that changes how the list is inherited, if any.
    inherit: Option<&'static str>,
    /// What its entries are, for the message (plural).
    what: &'static str,
    /// Whether its names compare ignoring case (header names do; FastCGI params do not).
    caseless: bool,
}

const KINDS: &[Kind] = &[
    Kind {
        name: "add_header",
        inherit: Some("add_header_inherit"),
        what: "response headers",
        caseless: true,
    },
    Kind {
        name: "add_trailer",
        inherit: Some("add_trailer_inherit"),
        what: "trailers",
        caseless: true,
    },
    Kind {
        name: "proxy_set_header",
        inherit: None,
        what: "request headers to the upstream",
        caseless: true,
    },
    Kind {
        name: "proxy_hide_header",
        inherit: None,
        what: "hidden upstream headers",
        caseless: true,
    },
    Kind {
        name: "proxy_pass_header",
        inherit: None,
        what: "passed upstream headers",
        caseless: true,
    },
    Kind {
        name: "grpc_set_header",
        inherit: None,
        what: "request headers to the gRPC upstream",
        caseless: true,
    },
    Kind {
        name: "fastcgi_param",
        inherit: None,
        what: "FastCGI params",
        caseless: false,
    },
    Kind {
        name: "uwsgi_param",
        inherit: None,
        what: "uwsgi params",
        caseless: false,
    },
    Kind {
        name: "scgi_param",
        inherit: None,
        what: "SCGI params",
        caseless: false,
    },
];

impl Rule for HeaderLostByInheritance {
    fn check(&self, cx: &mut Context<'_>) {
        let focus = cx.focus();
        // What each configuration says once for every kind and block.
        let mut configs: HashMap<NginxId, PerConfig> = HashMap::new();
        let mut pending: Vec<Pending<'_>> = Vec::new();
        let mut places: HashMap<(NginxId, FileId, Span), usize> = HashMap::new();
        for kind in KINDS {
            // One judgement per level of each configuration.
            let mut judged: FxHashSet<(NginxId, OccId)> = FxHashSet::default();
            let written: Vec<Directive<'_>> = cx.nginx_directives(kind.name).collect();
            let help = help_for(kind);
            let mut last = None;
            for d in written {
                let Some(block) = d.parent() else {
                    continue;
                };
                // Entries of one block mostly come one after another: the set is asked only
                // when the block changes.
                let here = (block.instance().id, block.occ());
                if last == Some(here) || !judged.insert(here) {
                    continue;
                }
                last = Some(here);
                let http = known::HTTP_SRV | known::HTTP_LOC | known::HTTP_LIF;
                if d.contexts() & http == 0 {
                    continue;
                }
                let config = configs
                    .entry(block.instance().id)
                    .or_insert_with(|| PerConfig::new(block.instance()));
                if let Some(p) = judge(kind, block, config, &help, focus) {
                    // A block whose entries of two kinds come from snippets gets one finding
                    // on the block for both: each kind's loss is named in it.
                    let at = p.at.instance().expanded.get(p.at.occ()).file;
                    let key = (p.at.instance().id, at, p.at.span());
                    match places.get(&key) {
                        Some(&i) => merge(&mut pending[i], p),
                        None => {
                            places.insert(key, pending.len());
                            pending.push(p);
                        }
                    }
                }
            }
        }
        for p in pending {
            emit(cx, p);
        }
    }
}

/// A finding not yet reported: the losses of one or more kinds at one place.
struct Pending<'a> {
    at: Directive<'a>,
    message: String,
    security: bool,
    labels: Vec<Label>,
    help: String,
    fix: Option<Fix>,
}

/// Adds `more` (another kind, same block) to `p`.
fn merge(p: &mut Pending<'_>, more: Pending<'_>) {
    // "`location /x` sets its own `fastcgi_param`, so …": the part after the block's name.
    let rest = more
        .message
        .find("` sets its own `")
        .map_or(more.message.as_str(), |i| &more.message[i + 2..]);
    p.message.push_str("; it also ");
    p.message.push_str(rest);
    p.security |= more.security;
    // The "sets `x` here" label of the block comes once per kind; the lost entries differ.
    p.labels.extend(more.labels);
    p.help = "nginx inherits each of these directives only into a level that has none of its \
              own: repeat the lost ones in this block (or put them in a file both levels \
              include)"
        .to_string();
    p.fix = match (p.fix.take(), more.fix) {
        (Some(mut a), Some(b)) => {
            a.edits.extend(b.edits);
            a.title = "Repeat the lost directives here".to_string();
            Some(a)
        }
        (a, b) => a.or(b),
    };
}

fn emit(cx: &mut Context<'_>, p: Pending<'_>) {
    if !cx.claim(p.at.file(), p.at.span()) {
        return;
    }
    let f = cx.report(p.at.file(), p.at.span(), p.message);
    f.labels = p.labels;
    if !p.security {
        f.severity = Severity::Info;
    }
    f.help = Some(p.help);
    if let Some(fix) = p.fix {
        f.with_fix(fix);
    }
}

/// What a configuration says once for all its blocks.
struct PerConfig {
    /// Includes that could not be read: a level holding one is not judged.
    unread: HashSet<(FileId, Span)>,
    /// The `*_inherit` directives that appear at all: without its kind's, every level
    /// inherits plainly, and no level's mode needs looking up.
    inheriting: Vec<&'static str>,
    /// Whether headers-more's `more_set_headers` appears at all.
    more_set: bool,
    /// Whether the third-party security headers module's `security_headers` appears at all.
    security_module: bool,
}

impl PerConfig {
    fn new(inst: &NginxInstance) -> PerConfig {
        PerConfig {
            unread: unread_includes(inst),
            inheriting: KINDS
                .iter()
                .filter_map(|k| k.inherit)
                .filter(|i| cursor::named(inst, i).next().is_some())
                .collect(),
            more_set: cursor::named(inst, "more_set_headers").next().is_some(),
            security_module: cursor::named(inst, "security_headers").next().is_some(),
        }
    }

    fn inherit_used(&self, kind: &Kind) -> bool {
        kind.inherit.is_some_and(|i| self.inheriting.contains(&i))
    }
}

/// The help of every finding of `kind` (the same text for each: built once).
fn help_for(kind: &Kind) -> String {
    match kind.inherit {
        Some(inherit) => format!(
            "nginx inherits `{0}` only into a level that sets none: repeat the lost ones in this \
             block (or put them in a file both levels include); on nginx 1.29.3 and later \
             `{inherit} merge;` keeps them",
            kind.name
        ),
        None => format!(
            "nginx inherits `{0}` only into a level that sets none: repeat the lost ones in this \
             block (or put them in a file both levels include)",
            kind.name
        ),
    }
}

fn judge<'a>(
    kind: &Kind,
    block: Directive<'a>,
    config: &PerConfig,
    help: &str,
    focus: Option<&Focus>,
) -> Option<Pending<'a>> {
    let level = Level::of(block);
    let parent = level.parent()?;
    let inherited = match kind.inherit {
        // Without any `*_inherit`, the list is the nearest enclosing level's, as for the
        // other kinds.
        Some(_) if !config.inherit_used(kind) => block.inherited(kind.name).collect(),
        Some(inherit) => {
            if level.inherit_mode(inherit) != Inherit::On {
                // `merge` keeps the parent's entries; `off` drops them on purpose.
                return None;
            }
            sent(parent, kind.name, inherit)
        }
        None => block.inherited(kind.name).collect(),
    };
    if inherited.is_empty() || has_unread_include(block, &config.unread) {
        return None;
    }
    let own = level.own(kind.name);
    // When files are named, a finding none of whose places (the block, its own entries, the
    // lost ones among those inherited) is in one is not shown: asked before the entries'
    // names are read, which is most of the cost of a level that loses nothing shown.
    if let Some(focus) = focus {
        let shown = focus.shows(block.file())
            || own.iter().any(|d| focus.shows(d.file()))
            || inherited.iter().any(|d| focus.shows(d.file()));
        if !shown {
            return None;
        }
    }
    let mut present = Present::new(kind.caseless);
    for d in &own {
        if let Some(a) = d.arg(0) {
            present.insert(a.value());
        }
    }
    // `add_header "" …` is the old idiom for "inherit nothing here": deliberate.
    if kind.inherit.is_some() && present.contains("") {
        return None;
    }
    let mut lost = Vec::new();
    // headers-more is rare: without any `more_set_headers` nothing is asked per header.
    let more_set = config.more_set;
    for d in inherited {
        let Some(name) = d.arg(0).map(|a| a.value()) else {
            continue;
        };
        if !present.insert(name.clone()) {
            continue;
        }
        if kind.name == "add_header" && more_set && more_set_anywhere_above(level, &name) {
            continue;
        }
        if kind.name == "add_header" && config.security_module && module_sends(block, &name) {
            continue;
        }
        if kind.name == "proxy_set_header" && is_proxy_default(&name, d.arg(1)) {
            continue;
        }
        lost.push((d, name.into_owned()));
    }
    // When files are named, a finding none of whose places is in one is not shown: the
    // explanation below is most of this rule's cost.
    if let Some(focus) = focus {
        let shown = focus.shows(block.file())
            || own.iter().any(|d| focus.shows(d.file()))
            || lost.iter().any(|(d, _)| focus.shows(d.file()));
        if !shown {
            return None;
        }
    }
    // What this level answers with decides which lost response headers matter here: a CORS
    // header of the other kind of response is not lost where it matters, and framing,
    // HSTS or nosniff lost on static assets protect nothing there (analysis::header_relevance).
    let mut note = None;
    let mut security = false;
    if kind.name == "add_header" && !lost.is_empty() {
        // `location ~* \.(<browser-cache-extensions>)$`: what it answers with is decided by
        // the value an installer writes there, so which lost header matters is unknown.
        if relevance::pattern_has_hole(block) {
            return None;
        }
        let serves = relevance::serves(block);
        let judged: Vec<Relevance> = lost
            .iter()
            .map(|(d, n)| {
                let value = d.arg(1).map(|a| a.value());
                relevance::relevance(n, value.as_deref(), &serves)
            })
            .collect();
        let mut kept = Vec::with_capacity(lost.len());
        let mut guarding: Vec<(&str, Relevance)> = Vec::new();
        for (entry, r) in lost.iter().zip(&judged) {
            if *r == Relevance::OtherCorsResponse {
                continue;
            }
            if is_security_header(&entry.1) {
                guarding.push((entry.1.as_str(), *r));
            }
            kept.push(entry.clone());
        }
        security = guarding.iter().any(|(_, r)| *r == Relevance::Matters);
        note = relevance::explain(&guarding, &serves).map(|n| (n, guarding.len()));
        lost = kept;
    }
    let &first = own.first()?;
    // The finding goes on the block's first own entry when the block's file holds one; an
    // entry from a snippet several blocks include would carry only one of their findings,
    // so then it goes on the block itself.
    let at = own
        .iter()
        .copied()
        .find(|d| d.same_file(block))
        .unwrap_or(block);
    if lost.is_empty() {
        return None;
    }
    let here = describe(block);
    let from = match lost[0].0.parent() {
        Some(p) => format!("`{}`", describe(p)),
        None => {
            let path = &lost[0].0.file().path;
            let name = path.file_name().map_or(path.as_os_str(), |n| n);
            format!("the top level of `{}`", name.to_string_lossy())
        }
    };
    // "`location /x` sets its own `add_header`, so the 5 response headers set in `server`
    // are not inherited: A, B, …", built by appending.
    let mut message = String::with_capacity(320);
    for part in [
        "`",
        here.as_str(),
        "` sets its own `",
        kind.name,
        "`, so the ",
    ] {
        message.push_str(part);
    }
    if lost.len() == 1 {
        message.push_str(&singular(kind.what));
        message.push_str(" set in ");
        message.push_str(&from);
        message.push_str(" is");
    } else {
        message.push_str(&lost.len().to_string());
        message.push(' ');
        message.push_str(kind.what);
        message.push_str(" set in ");
        message.push_str(&from);
        message.push_str(" are");
    }
    message.push_str(" not inherited: ");
    for (i, (_, name)) in lost.iter().enumerate() {
        if i > 0 {
            message.push_str(", ");
        }
        message.push_str(name);
    }
    if let Some((note, count)) = &note {
        // Severity info: say why none of the lost security headers matters here.
        message.push_str(if *count == 1 {
            ". Where it is lost, it protects nothing: "
        } else {
            ". Where they are lost, they protect nothing: "
        });
        message.push_str(note);
    }
    if kind.name == "add_header" {
        if let Some(to) = relevance::try_files_fallback(block) {
            // What really goes missing on the requests handed on: this block's own headers.
            let mut names: Vec<String> = Vec::new();
            for d in &own {
                if let Some(n) = d.arg(0).map(|a| a.value()) {
                    if !names.iter().any(|m| m.eq_ignore_ascii_case(&n)) {
                        names.push(n.into_owned());
                    }
                }
            }
            for part in [
                ". This applies to the files it serves itself: a request its `try_files` hands to `",
                to.as_str(),
                "` is answered with the headers of the location that takes it, without `",
                names.join("`, `").as_str(),
                "` from here",
            ] {
                message.push_str(part);
            }
        }
    }
    let mut help = help.to_string();
    if block.name() == "if" && kind.name == "add_header" {
        // The idiom that avoids the problem in an `if`: one `add_header` outside it.
        help.push_str(
            "; or set the value through a variable (a `map`, or `set` inside the `if`) and keep one `add_header` outside the `if`",
        );
    }
    let fix = copy_fix(first, &own, block, &lost);
    let mut labels = Vec::with_capacity(lost.len() + usize::from(at == block));
    if at == block {
        labels.push(Label {
            file: first.file().clone(),
            span: first.span(),
            text: format!("`{here}` sets `{}` here", kind.name),
        });
    }
    // One label per lost entry: built by concatenation (a `format!` each is most of the
    // cost of a run with a finding in every vhost).
    let suffix = ["` is set here, not in `", here.as_str(), "`"].concat();
    for (d, name) in &lost {
        labels.push(Label {
            file: d.file().clone(),
            span: d.span(),
            text: ["`", name.as_str(), &suffix].concat(),
        });
    }
    Some(Pending {
        at,
        message,
        security,
        labels,
        help,
        fix,
    })
}

fn singular(what: &str) -> String {
    match what {
        "request headers to the upstream" => "request header to the upstream".into(),
        "request headers to the gRPC upstream" => "request header to the gRPC upstream".into(),
        w => w
            .strip_suffix('s')
            .unwrap_or(w)
            .replace("headers", "header"),
    }
}

/// `location /api`, `server`, `if ($x)`: a block as its opening line reads.
pub(crate) fn describe(block: Directive<'_>) -> String {
    let mut s = String::with_capacity(64);
    push_written(&mut s, block);
    s
}

/// Appends the directive's name and arguments as written, one space apart.
fn push_written(out: &mut String, d: Directive<'_>) {
    out.push_str(d.name());
    for a in d.args() {
        out.push(' ');
        out.push_str(&a.raw_text());
    }
}

/// Copies the lost directives after the level's last own one, when that one is written in
/// the block's own file (an edit in an included snippet would change every includer).
fn copy_fix(
    first: Directive<'_>,
    own: &[Directive<'_>],
    block: Directive<'_>,
    lost: &[(Directive<'_>, String)],
) -> Option<Fix> {
    let anchor = own.iter().rev().find(|d| d.same_file(block))?;
    let _ = first;
    let text = &anchor.file().text;
    // The insertion goes after the anchor's line: only when nothing but its `;` (and a
    // comment) follows it there, not a `}` closing a one-line block.
    let last = anchor.args().last().map_or(anchor.span(), |a| a.raw());
    let rest = &text[last.end as usize..];
    let line = &rest[..rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())];
    let line = String::from_utf8_lossy(line);
    let after = line.trim_start().strip_prefix(';')?.trim();
    if !(after.is_empty() || after.starts_with('#')) {
        return None;
    }
    let start = anchor.span().start as usize;
    let line_start = text[..start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let indent: String = text[line_start..start]
        .iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .map(|&b| b as char)
        .collect();
    // The anchor's own line ending (a scan of the whole file per finding would make a
    // file with many findings quadratic).
    let nl = match memchr::memchr(b'\n', rest) {
        Some(i) if i > 0 && rest[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    };
    // The lost statements, one per line at the anchor's indentation, in one buffer.
    let mut joined = String::with_capacity(64 * lost.len());
    for (i, (d, _)) in lost.iter().enumerate() {
        if i > 0 {
            joined.push_str(nl);
            joined.push_str(&indent);
        }
        push_written(&mut joined, *d);
        joined.push(';');
    }
    let edit: Edit = anchor.insert_after(&joined);
    Some(Fix::unsafe_(
        format!("Repeat the {} lost directive(s) here", lost.len()),
        vec![edit],
    ))
}
