//! NGX139 capture-reference-missing: `$N` where the regex nginx certainly evaluated last
//! has fewer than N groups, so `$N` is empty. `$1`…`$9` are the captures of the last
//! regex that matched (`ngx_http_regex_exec` stores them in the request); reported only
//! where that regex is certain:
//!
//! - a `rewrite`'s replacement: its own pattern has just matched;
//! - a directive inside `if ($x ~ re)`: that regex matched to enter the block, and no
//!   `rewrite` in the block can have matched after it;
//! - a directive of a regex `location`: its regex chose the location, and the location has
//!   no `rewrite`, regex `if` or `fastcgi_split_path_info` that could match after it.
//!
//! A `map` with regex keys also sets the captures when its variable is evaluated, so a
//! block that reads such a variable is left alone. Within the `map`, a value's `$N` refers
//! to its own key's regex, which has just matched: `~^/old/ $1;` is always empty.
//!
//! Where no regex is certain, `$N` is still empty when no regex can have run at all
//! (analysis::request::no_capture: a prefix location, no regex `server_name`, rewrite or
//! regex `if` before it, no internal redirect into it), also inside `if ($x !~ re)`: the
//! block runs when `re` failed, and a failed match sets no captures.

use crate::analysis::cursor::{self, Directive};
use crate::analysis::pcre::Regex;
use crate::analysis::regex_args::is_regex_argument;
use crate::analysis::request::no_capture::{is_regex_if, nothing_ran, sets_captures, Seen};
use crate::analysis::request::redirects::Index;
use crate::analysis::variables::capture::{may_reference_capture, CaptureFiles};
use crate::analysis::variables::parse::PartKind;
use crate::analysis::variables::Provenance;
use crate::rules::{Context, Rule};
use crate::source::Span;
use std::collections::HashSet;

declare_rule! {
    pub struct CaptureReferenceMissing;
    code: NGX139,
    name: "capture-reference-missing",
    lang: nginx,
    category: Reliability,
    severity: Warning,
    fix: None,
    group: Default,
    uses_locations: true,
}

/// The rewrite module's directives, which run in the rewrite phase in order.
const REWRITE_PHASE: &[&str] = &["set", "rewrite", "return", "if", "break"];

/// A regex that certainly matched last, and where it is written.
struct Last<'a> {
    regex: Regex,
    at: Directive<'a>,
    what: String,
}

impl Rule for CaptureReferenceMissing {
    fn check(&self, cx: &mut Context<'_>) {
        map_values(cx);
        for inst in &cx.stack.nginx {
            let regex_maps = regex_map_variables(inst);
            // Only files that mention `$N` somewhere can hold a reference: the others'
            // directives are not read.
            let candidates = CaptureFiles::of(inst);
            // Built when a reference with no certain regex is found.
            let mut indexes: Option<(Provenance<'_>, Index<'_>)> = None;
            for occ in 0..inst.expanded.occurrences.len() as u32 {
                if !candidates.may_hold(inst.expanded.get(occ).file) {
                    continue;
                }
                let d = Directive::new(inst, occ);
                if d.name().contains("by_lua") || d.name().starts_with("perl") {
                    continue;
                }
                let mut refs: Vec<(u8, Span, crate::source::Shared)> = Vec::new();
                for (i, w) in d.args().enumerate() {
                    if is_regex_argument(d, i) || !may_reference_capture(w.raw_bytes()) {
                        continue;
                    }
                    // `rewrite`'s flag and `if`'s operator hold no captures; the
                    // replacement and values do.
                    for part in w.variables().parts {
                        if let PartKind::Capture(n) = part.kind {
                            if n > 0 {
                                refs.push((n, part.span, w.file().clone()));
                            }
                        }
                    }
                }
                let Some(&(max, _, _)) = refs.iter().max_by_key(|r| r.0) else {
                    continue;
                };
                let Some(last) = last_regex(d, &regex_maps) else {
                    let seen =
                        indexes.get_or_insert_with(|| (cx.provenance(inst), Index::of(inst)));
                    let reads = |c: Directive<'_>| reads_any(c, &regex_maps);
                    let seen = Seen {
                        reads_regex_map: &reads,
                        provenance: &seen.0,
                        index: &seen.1,
                    };
                    if let Some(empty) = empty_anyway(d, max, &seen) {
                        report_empty(cx, &refs, &empty);
                    }
                    continue;
                };
                let groups = last.regex.capture_table().count();
                if u32::from(max) <= groups {
                    continue;
                }
                for (n, span, file) in refs {
                    if u32::from(n) <= groups {
                        continue;
                    }
                    let plural = if groups == 1 { "" } else { "s" };
                    let diag = cx.report(
                        &file,
                        span,
                        format!(
                            "`${n}` is always empty: the last regex nginx evaluates here, {}, has {groups} capture group{plural}",
                            last.what
                        ),
                    );
                    diag.label(
                        last.at.file().clone(),
                        last.at.span(),
                        format!("{groups} group{plural}"),
                    );
                    diag.help = Some(help(groups, "the regex"));
                }
            }
        }
    }
}

/// `$N` in a `map` value beyond the groups of the entry's own regex key.
fn map_values(cx: &mut Context<'_>) {
    for m in cx.nginx_directives("map") {
        for (key, value) in
            m.entries_where(|_, value| value.is_some_and(|v| may_reference_capture(v.raw_bytes())))
        {
            let Some(value) = value else {
                continue;
            };
            let k = key.value();
            let (pattern, caseless) = match k.strip_prefix("~*") {
                Some(p) => (p, true),
                None => match k.strip_prefix('~') {
                    Some(p) => (p, false),
                    None => continue,
                },
            };
            let Ok(regex) = Regex::parse(pattern, caseless) else {
                continue;
            };
            let groups = regex.capture_table().count();
            for part in value.variables().parts {
                let PartKind::Capture(n) = part.kind else {
                    continue;
                };
                if n == 0 || u32::from(n) <= groups {
                    continue;
                }
                let plural = if groups == 1 { "" } else { "s" };
                let diag = cx.report(
                    value.file(),
                    part.span,
                    format!(
                        "`${n}` is always empty: this entry's regex `{pattern}` has {groups} capture group{plural}"
                    ),
                );
                diag.label(
                    key.file().clone(),
                    key.raw(),
                    format!("{groups} group{plural}"),
                );
                diag.help = Some(help(groups, "the key's regex"));
            }
        }
    }
}

/// What to write instead of a reference past the last of `groups` groups of `regex`.
fn help(groups: u32, regex: &str) -> String {
    match groups {
        0 => format!(
            "put parentheses around the part of {regex} to capture, or write the text itself"
        ),
        1 => format!("refer to `$1`, or add the missing group to {regex}"),
        n => format!("refer to `$1`…`${n}`, or add the missing group to {regex}"),
    }
}

/// The result variables of maps with a regex key: evaluating one runs its regex and
/// replaces the request's captures.
fn regex_map_variables(inst: &crate::stack::model::NginxInstance) -> HashSet<String> {
    let mut out = HashSet::new();
    for m in cursor::named(inst, "map") {
        let o = inst.expanded.get(m.occ());
        let f = inst.config.file(o.file);
        let tree = &f.parsed.tree;
        // Entries, including those of included files, are not directives; a map whose
        // entries we cannot see (an include) counts as having regex keys.
        let mut regex = false;
        for id in tree.children(o.node) {
            let Some(e) = tree.node(id).kind.statement() else {
                continue;
            };
            let key = tree.name(e).text(&f.source.text);
            if key.starts_with('~') || key == "include" {
                regex = true;
                break;
            }
        }
        if regex {
            if let Some(v) = m.args().last() {
                out.insert(v.value().trim_start_matches('$').to_ascii_lowercase());
            }
        }
    }
    out
}

/// Whether `d` reads one of `vars`.
fn reads_any(d: Directive<'_>, vars: &HashSet<String>) -> bool {
    if vars.is_empty() {
        return false;
    }
    d.args().any(|w| {
        w.bytes().contains(&b'$')
            && w.variables().parts.iter().any(|p| match &p.kind {
                PartKind::Variable { name, .. } => vars.contains(&name.to_ascii_lowercase()),
                _ => false,
            })
    })
}

/// The regex of `if (… ~ re)` (not `!~`: a negated match that succeeds set nothing).
fn if_regex(i: Directive<'_>) -> Option<Regex> {
    let mut args: Vec<String> = i.args().map(|a| a.value().into_owned()).collect();
    let first = args.first_mut()?;
    *first = first.strip_prefix('(')?.to_string();
    let last = args.last_mut()?;
    *last = last.strip_suffix(')')?.to_string();
    args.retain(|a| !a.is_empty());
    match args.as_slice() {
        [_, op, pattern] if op == "~" || op == "~*" => Regex::parse(pattern, op == "~*").ok(),
        _ => None,
    }
}

/// The regex that certainly matched last when `d` runs, if there is one.
fn last_regex<'a>(d: Directive<'a>, maps: &HashSet<String>) -> Option<Last<'a>> {
    if reads_any(d, maps) {
        return None;
    }
    if d.name() == "rewrite" {
        let pattern = d.arg(0)?.value().into_owned();
        let regex = Regex::parse(&pattern, false).ok()?;
        return Some(Last {
            regex,
            at: d,
            what: format!("this rewrite's `{pattern}`"),
        });
    }
    let block = d.parent()?;
    let rewrite_phase = REWRITE_PHASE.contains(&d.name());
    // Whether a directive of the block could set the captures after the block's regex and
    // before `d` (for a rewrite-phase `d`, those before it; else all of the block's).
    let overridden = |b: Directive<'a>| {
        b.all_children().any(|c| {
            let may_run_before = !rewrite_phase || c.is_before(d);
            (sets_captures(c) && may_run_before) || reads_any(c, maps)
        })
    };
    match block.name() {
        "if" => {
            let regex = if_regex(block)?;
            if overridden(block) {
                return None;
            }
            // A directive of a later phase also runs after the rewrite-phase directives
            // that follow the `if` in its block.
            if !rewrite_phase {
                let outer = block.parent()?;
                let later = outer
                    .all_children()
                    .any(|c| block.is_before(c) && (sets_captures(c) || reads_any(c, maps)));
                if later {
                    return None;
                }
            }
            let shown: Vec<String> = block.args().map(|a| a.raw_text().into_owned()).collect();
            Some(Last {
                regex,
                at: block,
                what: format!("`if {}`", shown.join(" ")),
            })
        }
        "location" => {
            let args: Vec<String> = block.args().map(|a| a.value().into_owned()).collect();
            let [m, pattern] = args.as_slice() else {
                return None;
            };
            if m != "~" && m != "~*" {
                return None;
            }
            let regex = Regex::parse(pattern, m == "~*").ok()?;
            if overridden(block) {
                return None;
            }
            Some(Last {
                regex,
                at: block,
                what: format!("`location {m} {pattern}`"),
            })
        }
        _ => None,
    }
}

/// Why `$N` is empty (or not the capture it looks like) where no regex certainly matched
/// last.
enum Empty<'a> {
    /// No regex can have run for any request before the directive.
    NoRegex,
    /// Inside `if ($x !~ re)` whose regex has the group, with no regex before it: the
    /// block runs when `re` did not match, and a failed match sets no captures. (With a
    /// regex before it, `$N` is that one's capture, which may be what was meant.)
    Negated { at: Directive<'a>, groups: u32 },
}

/// The `$N` references of `d` (the largest `max`) that are empty, or that read another
/// regex's captures than the negated `if` they are in.
fn empty_anyway<'a>(d: Directive<'a>, max: u8, seen: &Seen<'a, '_>) -> Option<Empty<'a>> {
    // A directive with a regex of its own (`proxy_redirect ~^(.+)/x $1/`,
    // `proxy_cookie_path ~^/a/(.+)$ /$1`) fills `$N` from it.
    if d.args().any(|a| a.value().starts_with('~')) || d.name() == "fastcgi_split_path_info" {
        return None;
    }
    let block = d.parent()?;
    if block.name() == "if" && is_regex_if(block) {
        let (negated, regex) = negated_if_regex(block)?;
        if !negated {
            return None;
        }
        let groups = regex.capture_table().count();
        // A `rewrite` in the block after the `if` may set them first; and a `$N` past the
        // `if`'s own groups is not written for it.
        let set_inside = block
            .all_children()
            .any(|c| sets_captures(c) && (c.is_before(d) || !is_rewrite_phase(d)));
        if set_inside || u32::from(max) > groups {
            return None;
        }
        return nothing_ran(d, block.parent()?, Some(block), seen)
            .then_some(Empty::Negated { at: block, groups });
    }
    nothing_ran(d, block, None, seen).then_some(Empty::NoRegex)
}

fn is_rewrite_phase(d: Directive<'_>) -> bool {
    ["set", "rewrite", "return", "if", "break"].contains(&d.name())
}

/// The regex of `if (… ~ re)` or `if (… !~ re)`, with whether it is negated.
fn negated_if_regex(i: Directive<'_>) -> Option<(bool, Regex)> {
    let mut args: Vec<String> = i.args().map(|a| a.value().into_owned()).collect();
    let first = args.first_mut()?;
    *first = first.strip_prefix('(')?.to_string();
    let last = args.last_mut()?;
    *last = last.strip_suffix(')')?.to_string();
    args.retain(|a| !a.is_empty());
    match args.as_slice() {
        [_, op, pattern] if op.starts_with("!~") || op.starts_with('~') => {
            let caseless = op.ends_with('*');
            Some((op.starts_with('!'), Regex::parse(pattern, caseless).ok()?))
        }
        _ => None,
    }
}

fn report_empty(cx: &mut Context<'_>, refs: &[(u8, Span, crate::source::Shared)], why: &Empty<'_>) {
    for (n, span, file) in refs {
        match why {
            Empty::NoRegex => {
                let diag = cx.report(
                    file,
                    *span,
                    format!(
                        "`${n}` is always empty: no regex runs for a request before this (no \
                         regex location, `rewrite`, regex `if` or regex `server_name` on its way)"
                    ),
                );
                diag.help = Some(
                    "capture with a regex first (`location ~ ^/old/(.*)$`, `rewrite`), or \
                     write the text itself"
                        .to_string(),
                );
            }
            Empty::Negated { at, groups } => {
                let plural = if *groups == 1 { "" } else { "s" };
                let diag = cx.report(
                    file,
                    *span,
                    format!(
                        "`${n}` is always empty: a negated match (`!~`) holds only when the \
                         regex did not match, which sets no captures, and no regex ran before it"
                    ),
                );
                diag.label(
                    at.file().clone(),
                    at.span(),
                    format!("{groups} group{plural}, never captured when the block runs"),
                );
                diag.help = Some(
                    "test with `~` and put the action in that branch, or capture in a \
                     `rewrite` or `map`"
                        .to_string(),
                );
            }
        }
    }
}
