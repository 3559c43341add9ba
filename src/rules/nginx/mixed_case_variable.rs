//! NGX121 mixed-case-variable: one variable written in different case in one configuration
//! (`$HTTP_HOST` here, `$http_host` there; `set $Backend` and `$backend`). nginx lowercases
//! every variable name when it registers it and compares names without case
//! (`ngx_http_add_variable`, `ngx_http_get_variable_index`), so both spellings are the same
//! variable — which readers, and anyone grepping for one spelling, do not expect.

use crate::analysis::cursor::Directive;
use crate::analysis::regex_args::is_regex_argument;
use crate::analysis::variables::parse::PartKind;
use crate::rules::{Context, Rule};
use crate::source::{Shared, Span};
use crate::stack::expanded::OccId;
use std::collections::HashMap;

declare_rule! {
    pub struct MixedCaseVariable;
    code: NGX121,
    name: "mixed-case-variable",
    lang: nginx,
    category: Reliability,
    severity: Info,
    fix: None,
    group: Default,
}

/// The first place a spelling is written.
struct Seen {
    spelling: String,
    file: Shared,
    span: Span,
}

impl Rule for MixedCaseVariable {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            // Most configurations write every variable in lower case: a byte scan finds
            // whether any name has a capital before anything is parsed.
            if !any_capitalised_variable(inst) {
                continue;
            }
            // Per lowercase name, each spelling once, in configuration order.
            let mut names: HashMap<String, Vec<Seen>> = HashMap::new();
            let mut order: Vec<String> = Vec::new();
            for occ in 0..inst.expanded.occurrences.len() as OccId {
                let d = Directive::new(inst, occ);
                // Lua and Perl code, not nginx scripts: a `$` there is theirs.
                if d.name().contains("by_lua") || d.name().starts_with("perl") {
                    continue;
                }
                for (i, w) in d.args().enumerate() {
                    if is_regex_argument(d, i) {
                        continue;
                    }
                    if memchr::memchr(b'$', w.raw_bytes()).is_none() {
                        continue;
                    }
                    for part in w.variables().parts {
                        let PartKind::Variable { name, .. } = &part.kind else {
                            continue;
                        };
                        let key = name.to_ascii_lowercase();
                        let list = names.entry(key.clone()).or_insert_with(|| {
                            order.push(key);
                            Vec::new()
                        });
                        if !list.iter().any(|s| *s.spelling == **name) {
                            list.push(Seen {
                                spelling: name.to_string(),
                                file: w.file().clone(),
                                span: part.span,
                            });
                        }
                    }
                }
            }
            for key in order {
                let list = &names[&key];
                if list.len() < 2 {
                    continue;
                }
                // The lowercase spelling is the one nginx registers; else the first.
                let canon = list.iter().position(|s| s.spelling == key).unwrap_or(0);
                let c = &list[canon];
                for (i, s) in list.iter().enumerate() {
                    if i == canon {
                        continue;
                    }
                    let diag = cx.report(
                        &s.file,
                        s.span,
                        format!(
                            "`${}` is the same variable as `${}`: nginx ignores case in variable names, so the two spellings only look different",
                            s.spelling, c.spelling
                        ),
                    );
                    diag.label(
                        c.file.clone(),
                        c.span,
                        format!("written `${}` here", c.spelling),
                    );
                    diag.help = Some(format!("write it as `${}` everywhere", c.spelling));
                }
            }
        }
    }
}

/// Whether an argument of the configuration holds `$` (or `${`) followed by a name with an
/// ASCII capital letter.
fn any_capitalised_variable(inst: &crate::stack::model::NginxInstance) -> bool {
    // Each file's text once (a snippet included in every vhost is not scanned again per
    // include), comments too: a test that errs towards yes.
    inst.config.files.iter().any(|f| {
        let text = &f.source.text;
        memchr::memchr_iter(b'$', text).any(|p| {
            let mut j = p + 1;
            if text.get(j) == Some(&b'{') {
                j += 1;
            }
            while let Some(&b) = text.get(j) {
                if b.is_ascii_uppercase() {
                    return true;
                }
                if !(b.is_ascii_alphanumeric() || b == b'_') {
                    break;
                }
                j += 1;
            }
            false
        })
    })
}
