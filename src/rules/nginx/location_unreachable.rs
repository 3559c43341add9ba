//! NGX105 location-unreachable: a location no request can select, each with its proof.
//!
//! Three cases, from nginx's search order (analysis::locations):
//! - a regex location after a regex location of the same level that matches every URI it
//!   matches (`~ \.php$` after `~ \.(php|html)$`): regexes are tried in order and the first
//!   match wins. Decided by analysis::regex_cover on literal patterns; an undecided pair
//!   is not reported;
//! - a start-anchored regex location whose every match starts with the name of a `^~`
//!   location beside it (`~ ^/static/.*\.css$` next to `^~ /static/`), with no longer plain
//!   prefix beside them: that `^~` is then the longest prefix for each such URI and stops
//!   the regex search;
//! - a prefix or exact location nested in a regex location: nginx accepts it but searches
//!   only the regex locations nested there.
//!
//! The first two are shown with a URI the hidden location matches: location matching
//! selects the other block for it.

use crate::analysis::cursor::Directive;
use crate::analysis::locations::{Kind, LocId, Locations, ServerLocations};
use crate::analysis::regex_cover::{self, Index};
use crate::fxhash::FxHashMap;
use crate::rules::{Context, Rule};
use crate::stack::model::NginxInstance;
use std::rc::Rc;

declare_rule! {
    pub struct LocationUnreachable;
    code: NGX105,
    name: "location-unreachable",
    lang: nginx,
    category: Correctness,
    severity: Warning,
    fix: None,
    group: Default,
    uses_locations: true,
}

/// Suffixes tried after a `^~` name for a URI the regex matches.
const SUFFIXES: [&str; 9] = [
    "", "x", "x.css", "x.js", "x.png", "x.jpg", "x.php", "x.html", "x/y",
];

impl Rule for LocationUnreachable {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            // Servers share compiled regexes (one per distinct pattern), so their literal
            // branches are worked out once per regex.
            let mut branches: Branches = Default::default();
            let locations = Locations::of(inst);
            for server in locations.servers() {
                check_server(cx, inst, server, &mut branches);
            }
        }
    }
}

/// [`regex_cover::literal_branches`] of each regex of one configuration seen, by the
/// regex's address in its location trees (which outlive the check): no copy of the pattern
/// as a key, and the branches shared with the index rather than copied (48,000 regex
/// locations: 18 MB of a 111 MB peak, heaptrack).
type Branches = FxHashMap<usize, Option<Rc<[regex_cover::Branch]>>>;

fn check_server(
    cx: &mut Context<'_>,
    inst: &NginxInstance,
    server: &ServerLocations,
    memo: &mut Branches,
) {
    // The regexes of each level in order, and each level's prefix locations.
    let mut regexes: FxHashMap<Option<LocId>, Vec<LocId>> = FxHashMap::default();
    let mut prefixes: FxHashMap<Option<LocId>, Vec<LocId>> = FxHashMap::default();
    for (id, loc) in server.iter() {
        if !loc.selectable {
            if let Some(p) = loc.parent {
                let parent = server.get(p);
                if parent.selectable && matches!(parent.kind, Kind::Regex { .. }) {
                    nested_in_regex(cx, inst, server, id, p);
                }
            }
            continue;
        }
        match loc.kind {
            Kind::Regex { .. } => regexes.entry(loc.parent).or_default().push(id),
            Kind::Prefix | Kind::NoRegexPrefix => prefixes.entry(loc.parent).or_default().push(id),
            _ => {}
        }
    }
    let mut levels: Vec<_> = regexes.into_iter().collect();
    levels.sort_by_key(|(p, _)| *p);
    for (parent, ids) in levels {
        let level_prefixes = prefixes.get(&parent).map(Vec::as_slice).unwrap_or(&[]);
        let mut index: Index<LocId> = Index::default();
        for id in ids {
            let loc = server.get(id);
            let Some(Ok(re)) = loc.regex() else { continue };
            if let Some(by) = hidden_by_caret(server, level_prefixes, re, id) {
                report(cx, inst, server, id, by.0, &by.1, Reason::Caret);
                continue;
            }
            let Some(branches) = memo
                .entry(std::ptr::from_ref(re) as usize)
                .or_insert_with(|| regex_cover::literal_branches(re).map(Rc::from))
                .clone()
            else {
                continue;
            };
            if let Some(first) = index.covering(&branches) {
                if let Some(uri) = regex_cover::witness(&branches) {
                    if proven(server, id, first, &uri) {
                        let uri = String::from_utf8_lossy(&uri).into_owned();
                        report(cx, inst, server, id, first, &uri, Reason::Regex);
                        continue;
                    }
                }
            }
            index.insert(id, branches);
        }
    }
}

/// The `^~` location beside `id` that takes every URI its regex matches, with a URI.
fn hidden_by_caret(
    server: &ServerLocations,
    prefixes: &[LocId],
    re: &crate::analysis::pcre::Regex,
    id: LocId,
) -> Option<(LocId, String)> {
    if !re.anchored_start() {
        return None;
    }
    let q = re.literal_prefix();
    let caret = prefixes.iter().copied().find(|&p| {
        let l = server.get(p);
        l.kind == Kind::NoRegexPrefix && q.starts_with(&l.name)
    })?;
    let name = &server.get(caret).name;
    // A longer plain prefix beside it could be the longest one instead, and let regexes run.
    let longer = prefixes.iter().any(|&p| {
        let l = server.get(p);
        l.kind == Kind::Prefix && l.name.len() > name.len() && l.name.starts_with(name)
    });
    if longer {
        return None;
    }
    let base = String::from_utf8(q).ok()?;
    SUFFIXES.iter().find_map(|s| {
        let uri = format!("{base}{s}");
        (re.is_match(uri.as_bytes()) == Ok(true) && proven(server, id, caret, uri.as_bytes()))
            .then_some((caret, uri))
    })
}

/// Whether location matching sends `uri` (which `hidden` matches) to `winner`'s chain
/// rather than to `hidden`.
fn proven(server: &ServerLocations, hidden: LocId, winner: LocId, uri: &[u8]) -> bool {
    let sel = server.select(uri);
    sel.is_decided()
        && sel.chain.iter().any(|s| s.location == winner)
        && sel.chain.iter().all(|s| s.location != hidden)
}

enum Reason {
    Regex,
    Caret,
}

fn label(inst: &NginxInstance, server: &ServerLocations, id: LocId) -> String {
    Directive::new(inst, server.get(id).occ)
        .args()
        .map(|a| a.value().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

fn report(
    cx: &mut Context<'_>,
    inst: &NginxInstance,
    server: &ServerLocations,
    hidden: LocId,
    winner: LocId,
    uri: &str,
    reason: Reason,
) {
    let d = Directive::new(inst, server.get(hidden).occ);
    let w = Directive::new(inst, server.get(winner).occ);
    let (hidden_label, winner_label) = (label(inst, server, hidden), label(inst, server, winner));
    let why = match reason {
        Reason::Regex => format!(
            "the earlier `location {winner_label}` matches every URI this one matches, and \
             nginx uses the first regex that matches"
        ),
        Reason::Caret => format!(
            "every URI it matches starts with `{}`, and `location {winner_label}` stops the \
             regex search for those",
            String::from_utf8_lossy(&server.get(winner).name)
        ),
    };
    let message = format!(
        "`location {hidden_label}` is never selected: {why} (`{uri}` goes to \
         `location {winner_label}`)"
    );
    let r = cx.report(d.file(), d.span(), message);
    r.label(w.file().clone(), w.span(), format!("takes `{uri}`"));
    r.help = Some(match reason {
        Reason::Regex => format!(
            "move `location {hidden_label}` before `location {winner_label}`, or merge the two"
        ),
        Reason::Caret => {
            format!("nest `location {hidden_label}` inside `location {winner_label}`, or drop `^~`")
        }
    });
}

/// A prefix or exact location directly in a regex location.
fn nested_in_regex(
    cx: &mut Context<'_>,
    inst: &NginxInstance,
    server: &ServerLocations,
    id: LocId,
    parent: LocId,
) {
    let d = Directive::new(inst, server.get(id).occ);
    let p = Directive::new(inst, server.get(parent).occ);
    let message = format!(
        "`location {}` is never selected: it is nested in the regex location `location {}`, \
         where nginx searches only nested regex locations",
        label(inst, server, id),
        label(inst, server, parent)
    );
    let r = cx.report(d.file(), d.span(), message);
    r.label(p.file().clone(), p.span(), "a regex location");
    r.help = Some(
        "write it as a regex location (`location ~ ^/x/`), or move it out to a prefix location"
            .into(),
    );
}
