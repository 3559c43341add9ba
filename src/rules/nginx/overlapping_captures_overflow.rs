//! NGX135 overlapping-captures-overflow (CVE-2026-9256): a `rewrite` whose replacement
//! holds no variables but two captures that overlap (one group inside the other,
//! `^/((.*))$` with `$1$2`), in a redirect or with arguments, where nginx escapes the
//! captures. A replacement with a variable, or with a capture written twice, is measured
//! reference by reference and is not affected. Before nginx 1.31.1 / 1.30.2 the buffer was sized from the URI's escaping
//! counted once, while each overlapping capture escapes the same bytes again: a heap
//! overflow with a URI such as `/++++++++` (nginx commit "Rewrite: fix buffer overflow with
//! overlapping captures"). Version-aware through `[host] nginx`.

use crate::analysis::advisory_report::verdict;
use crate::analysis::nginx_advisories::{by_cve, Advisory};
use crate::analysis::pcre::{GroupKind, Kind, Node, Regex};
use crate::analysis::variables::PartKind;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct OverlappingCapturesOverflow;
    code: NGX135,
    name: "overlapping-captures-overflow",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
}

impl Rule for OverlappingCapturesOverflow {
    fn check(&self, cx: &mut Context<'_>) {
        let Some((severity, version_note)) = verdict(advisory(), cx.host) else {
            return;
        };
        for r in cx.nginx_directives("rewrite") {
            let (Some(pattern), Some(replacement)) = (r.arg(0), r.arg(1)) else {
                continue;
            };
            let v = replacement.value();
            let script = replacement.variables();
            let mut used: Vec<u32> = Vec::new();
            let mut variables = false;
            for p in &script.parts {
                match p.kind {
                    PartKind::Capture(k) => used.push(k as u32),
                    PartKind::Variable { .. } => variables = true,
                    PartKind::Literal => {}
                }
            }
            // With a variable, or a capture written twice (`$1$1$2`), nginx keeps the
            // replacement's length codes and measures each reference, escaped, in a first
            // pass (ngx_http_rewrite_module.c: `lengths = NULL` only when
            // `sc.variables == 0 && !sc.dup_capture`): the buffer fits.
            let mut distinct = used.clone();
            distinct.sort_unstable();
            distinct.dedup();
            if variables || used.len() < 2 || distinct.len() < used.len() {
                continue;
            }
            let flag = r.arg(2).map(|f| f.value().into_owned());
            let redirect = matches!(flag.as_deref(), Some("redirect" | "permanent"))
                || ["http://", "https://"].iter().any(|p| v.starts_with(p));
            let args = v.find('?').is_some_and(|i| i + 1 < v.len());
            if !redirect && !args {
                continue;
            }
            let Ok(re) = Regex::parse(&pattern.value(), false) else {
                continue;
            };
            let Some((outer, inner)) = overlapping_pair(re.ast(), &used) else {
                continue;
            };
            let file = r.file().clone();
            let diag = cx.report(
                &file,
                replacement.raw(),
                format!(
                    "`${outer}` and `${inner}` overlap (group {inner} is inside group {outer}) and \
                     are escaped into a buffer sized for one of them (heap overflow); {version_note}"
                ),
            );
            diag.severity = severity;
            diag.help = Some(format!(
                "upgrade nginx to {} or later; until then, reference only one of the nested \
                 groups (make the other `(?:…)`)",
                advisory().fixes()
            ));
        }
    }
}

/// Two referenced groups, one inside the other (outer, inner).
fn overlapping_pair(root: &Node, used: &[u32]) -> Option<(u32, u32)> {
    let mut pairs = Vec::new();
    walk(root, &mut Vec::new(), &mut pairs, 0);
    pairs
        .into_iter()
        .find(|(o, i)| used.contains(o) && used.contains(i))
}

/// Every (ancestor group, group) pair of capture groups.
fn walk(n: &Node, open: &mut Vec<u32>, out: &mut Vec<(u32, u32)>, depth: usize) {
    if depth > 4 * crate::analysis::pcre::MAX_NESTING {
        return;
    }
    match &n.kind {
        Kind::Group(g) => {
            if let GroupKind::Capture { index, .. } = g.kind {
                for &o in open.iter() {
                    out.push((o, index));
                }
                open.push(index);
                walk(&g.body, open, out, depth + 1);
                open.pop();
            } else {
                walk(&g.body, open, out, depth + 1);
            }
        }
        Kind::Concat(v) | Kind::Alternation(v) => {
            for c in v {
                walk(c, open, out, depth + 1);
            }
        }
        Kind::Repeat(r) => walk(&r.node, open, out, depth + 1),
        _ => {}
    }
}

/// CVE-2026-9256, from the advisories table (scripts/gen-nginx-advisories.py).
fn advisory() -> &'static Advisory {
    by_cve("CVE-2026-9256").expect("the advisories table lists CVE-2026-9256")
}
