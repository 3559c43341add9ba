//! NGX136 map-unnamed-capture (CVE-2026-42533): a string expression that copies `$1`…`$9`
//! and after it a `map` variable whose entries are regexes with capture groups
//! (`add_header X $1$mapped`). nginx measures the expression first and fills it after;
//! evaluating the map while measuring runs its regex, which replaces the request's
//! captures, so the fill copies a capture of a different length than was measured — a
//! heap overflow before nginx 1.31.3 / 1.30.4 (CHANGES: "if the map variable was included
//! in a string expression after a capture affected by this map"). A map variable before
//! the capture is measured and then cached, and is not reported. Version-aware through
//! `[host] nginx`.

use crate::analysis::advisory_report::verdict;
use crate::analysis::cursor::Directive;
use crate::analysis::nginx_advisories::{by_cve, Advisory};
use crate::analysis::pcre::Regex;
use crate::analysis::variables::capture::{may_reference_capture, CaptureFiles};
use crate::analysis::variables::PartKind;
use crate::rules::{Context, Rule};
use crate::stack::ids::NginxId;

declare_rule! {
    pub struct MapUnnamedCapture;
    code: NGX136,
    name: "map-unnamed-capture",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Default,
}

/// Directives whose arguments are string expressions with variables.
const EXPRESSIONS: &[&str] = &[
    "add_header",
    "return",
    "rewrite",
    "set",
    "proxy_pass",
    "proxy_set_header",
    "fastcgi_param",
    "uwsgi_param",
    "scgi_param",
    "root",
    "alias",
    "try_files",
    "proxy_redirect",
    "if",
];

impl Rule for MapUnnamedCapture {
    fn check(&self, cx: &mut Context<'_>) {
        let Some((severity, version_note)) = verdict(advisory(), cx.host) else {
            return;
        };
        // Per configuration: the variables of maps with a capturing regex key.
        let mut regex_maps: crate::fxhash::FxHashSet<(NginxId, String)> = Default::default();
        for m in cx.nginx_directives("map") {
            let Some(var) = m.arg(1) else {
                continue;
            };
            let captures = m.entries().iter().any(|(key, _)| {
                let k = key.value();
                let (p, ci) = match (k.strip_prefix("~*"), k.strip_prefix('~')) {
                    (Some(p), _) => (p.to_string(), true),
                    (None, Some(p)) => (p.to_string(), false),
                    _ => return false,
                };
                Regex::parse(&p, ci).is_ok_and(|re| re.capture_table().count() > 0)
            });
            if captures {
                let name = var.value().trim_start_matches('$').to_ascii_lowercase();
                regex_maps.insert((m.instance().id, name));
            }
        }
        if regex_maps.is_empty() {
            return;
        }
        let mut found: Vec<(Directive<'_>, crate::analysis::cursor::Word<'_>, String)> = Vec::new();
        let mut files: Option<(NginxId, std::sync::Arc<CaptureFiles>)> = None;
        for name in EXPRESSIONS {
            for d in cx.nginx_directives(name) {
                let inst = d.instance().id;
                // Only files that mention `$N` at all can hold a capture before a map
                // (the configuration's table is fetched again only when it changes).
                if files.as_ref().is_none_or(|(i, _)| *i != inst) {
                    files = Some((inst, CaptureFiles::of(d.instance())));
                }
                let file = d.instance().expanded.get(d.occ()).file;
                if !files.as_ref().is_some_and(|(_, f)| f.may_hold(file)) {
                    continue;
                }
                for w in d.args() {
                    // A capture has to come first: words without one are not parsed.
                    if !may_reference_capture(w.raw_bytes()) {
                        continue;
                    }
                    let mut capture_seen = false;
                    for p in &w.variables().parts {
                        match &p.kind {
                            PartKind::Capture(_) => capture_seen = true,
                            PartKind::Variable { .. } if capture_seen => {
                                let key = p.kind.key().unwrap_or_default();
                                if regex_maps.contains(&(inst, key.clone())) {
                                    found.push((d, w, key));
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        for (d, w, var) in found {
            let file = d.file().clone();
            let diag = cx.report(
                &file,
                w.raw(),
                format!(
                    "`${var}` comes from a map with regex captures and follows a capture here: \
                     evaluating it replaces the captures between measuring and copying (heap \
                     overflow); {version_note}"
                ),
            );
            diag.severity = severity;
            diag.help = Some(format!(
                "upgrade nginx to {} or later; until then, copy the map variable first \
                 (`set $v ${var};` before this line), put it before the capture, or use \
                 named captures",
                advisory().fixes()
            ));
        }
    }
}

/// CVE-2026-42533, from the advisories table (scripts/gen-nginx-advisories.py).
fn advisory() -> &'static Advisory {
    by_cve("CVE-2026-42533").expect("the advisories table lists CVE-2026-42533")
}
