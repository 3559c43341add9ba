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

use crate::analysis::cursor::{self, Directive};
use crate::analysis::pcre::Regex;
use crate::analysis::regex_args::is_regex_argument;
use crate::analysis::variables::capture::{may_reference_capture, CaptureFiles};
use crate::analysis::variables::parse::PartKind;
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
        for (key, value) in m.entries() {
            let Some(value) = value.filter(|v| may_reference_capture(v.raw_bytes())) else {
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

/// Whether `c` may set the request's captures: a `rewrite`, a regex `if`, a plain `if`
/// holding a `rewrite`, or `fastcgi_split_path_info`.
fn sets_captures(c: Directive<'_>) -> bool {
    match c.name() {
        "rewrite" | "fastcgi_split_path_info" => true,
        "if" => is_regex_if(c) || c.children("rewrite").next().is_some(),
        _ => false,
    }
}

fn is_regex_if(i: Directive<'_>) -> bool {
    let args: Vec<String> = i.args().map(|a| a.value().into_owned()).collect();
    args.iter()
        .any(|a| matches!(a.as_str(), "~" | "~*" | "!~" | "!~*"))
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
