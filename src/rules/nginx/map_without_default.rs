//! NGX114 map-without-default: a `map` or `geo` with no `default` entry. Requests that
//! match no entry get the empty string, which is seldom stated on purpose; when the
//! result decides access (`if ($allowed = 0) { return 403; }`), the empty string matches
//! neither value and the clients the map does not list slip through: Warning.
//!
//! Silent for a variable that keys a `limit_req_zone` / `limit_conn_zone` or decides
//! `*_cache_bypass` / `*_no_cache`: there an empty value is the documented "not this one"
//! (requests with an empty key are not limited; an empty condition does not bypass), so a
//! map that lists only the requests to act on means exactly that. So for `if ($var)`,
//! `access_log … if=$var` and `charset $var`, and for a map whose input can only take the
//! values it lists ([`covers_every_value`]).

use crate::analysis::cursor::Directive;
use crate::analysis::if_condition;
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use crate::source::FileId;
use crate::stack::nginx::NginxConfig;
use crate::syntax::nginx::tree::{NodeId, ROOT};
use std::collections::HashMap;

declare_rule! {
    pub struct MapWithoutDefault;
    code: NGX114,
    name: "map-without-default",
    lang: nginx,
    category: Security,
    severity: Info,
    fix: None,
    group: Hardening,
}

impl Rule for MapWithoutDefault {
    fn check(&self, cx: &mut Context<'_>) {
        // The `if ($var = value) { return …; }` checks, by variable, found once: each with
        // its value and whether it refuses (4xx/5xx).
        let mut checks: HashMap<String, Vec<Check<'_>>> = HashMap::new();
        for i in cx.nginx_directives("if") {
            if let Some((var, check)) = check_on_value(i) {
                checks.entry(var).or_default().push(check);
            }
        }
        let empty_means_no = empty_means_no(cx);
        for name in ["map", "geo"] {
            for d in cx.nginx_directives(name) {
                if !d.has_block() {
                    continue;
                }
                let Some(result) = d.args().last().map(|a| a.value().to_ascii_lowercase()) else {
                    continue;
                };
                if !result.starts_with('$') {
                    continue;
                }
                // Empty as "no match" is meant only where this block alone defines the
                // variable: a `geo` that redefines a `map` of the same name (the later one
                // wins) empties it for everyone the `geo` does not list.
                if empty_means_no.contains(&result[1..]) && definitions(cx, d, &result) == 1 {
                    continue;
                }
                let inst = d.instance();
                let occ = inst.expanded.get(d.occ());
                let mut values = Vec::new();
                match entries(&inst.config, occ.file, occ.node, 0, &mut values) {
                    Some(false) => {}
                    // A default, or an include we could not read (which may hold it).
                    Some(true) | None => continue,
                }
                // Every value the source can take is listed: no request gets the empty one.
                if name == "map" && covers_every_value(cx, d) {
                    continue;
                }
                let source = if name == "geo" && d.args().len() == 1 {
                    "$remote_addr".to_string()
                } else {
                    d.arg(0).map(|a| a.value().into_owned()).unwrap_or_default()
                };
                let on_result: Vec<&Check<'_>> = checks
                    .get(&result)
                    .map(|v| {
                        v.iter()
                            .filter(|c| std::ptr::eq(c.at.instance(), inst))
                            .collect()
                    })
                    .unwrap_or_default();
                let same_config = fails_open(&values, &on_result);
                let shown = d
                    .args()
                    .last()
                    .map(|a| a.value().into_owned())
                    .unwrap_or_default();
                let mut message = format!(
                    "`{name} {source} {shown}` has no `default`: requests that match no entry get an empty {shown}"
                );
                if !same_config.is_empty() {
                    message.push_str(&format!(
                        ", which the access check `{}` does not refuse, so every client the {name} does not list gets through",
                        condition(same_config[0])
                    ));
                }
                let diag = cx.report(d.file(), d.span(), message);
                for c in &same_config {
                    diag.label(c.file().clone(), c.span(), "lets an empty value through");
                }
                if !same_config.is_empty() {
                    diag.severity = Severity::Warning;
                }
                diag.help = Some(
                    "state the value for unmatched requests: `default …;` as the first entry (`default \"\";` when empty is meant)"
                        .to_string(),
                );
            }
        }
    }
}

/// The variables (lowercase, without `$`) whose empty value nginx reads as "not this
/// request": a `limit_req_zone`/`limit_conn_zone` key, a `*_cache_bypass`/`*_no_cache`
/// condition.
fn empty_means_no(cx: &Context<'_>) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    let add = |out: &mut std::collections::HashSet<String>,
               w: crate::analysis::cursor::Word<'_>| {
        for p in w.variables().parts {
            if let Some(k) = p.kind.key() {
                out.insert(k.to_ascii_lowercase());
            }
        }
    };
    // `if ($var)` is false for an empty value: a map that lists only the requests to act
    // on (`map $host$uri $redirect { … }` with `if ($redirect) { return 301 $redirect; }`)
    // leaves the others alone on purpose.
    for i in cx.nginx_directives("if") {
        if let Some(c) = if_condition::parse(i) {
            if c.test == if_condition::Test::Bare && !c.negated {
                out.insert(c.var);
            }
        }
    }
    // `access_log … if=$var` does not log a request whose condition is empty or "0"
    // (ngx_http_log_module); `charset $var` with an empty value adds no charset
    // (ngx_http_charset_module finds no charset named "" and leaves the response alone).
    for d in cx.nginx_directives("access_log") {
        for a in d.args() {
            if a.value().starts_with("if=") {
                add(&mut out, a);
            }
        }
    }
    for d in cx.nginx_directives("charset") {
        if let Some(a) = d.arg(0) {
            add(&mut out, a);
        }
    }
    for name in ["limit_req_zone", "limit_conn_zone"] {
        for d in cx.nginx_directives(name) {
            if let Some(key) = d.arg(0) {
                add(&mut out, key);
            }
        }
    }
    for name in [
        "proxy_cache_bypass",
        "proxy_no_cache",
        "fastcgi_cache_bypass",
        "fastcgi_no_cache",
        "uwsgi_cache_bypass",
        "uwsgi_no_cache",
        "scgi_cache_bypass",
        "scgi_no_cache",
    ] {
        for d in cx.nginx_directives(name) {
            d.args().for_each(|a| add(&mut out, a));
        }
    }
    out
}

/// An `if ($var = value) { return …; }`.
struct Check<'a> {
    at: Directive<'a>,
    value: String,
    refuses: bool,
}

/// The refusing checks an unlisted client slips past: the map names a value that is
/// refused and a value that nothing checks (the one that lets clients in), so it sorts
/// clients both ways and an unlisted one, with the empty value, is sorted as neither —
/// and not refused. A map whose values are all acted on (`307` redirects, `425` refuses)
/// lists only the exceptions, and the empty value is meant to pass.
fn fails_open<'a>(values: &[String], checks: &[&Check<'a>]) -> Vec<Directive<'a>> {
    let refused: Vec<&Check<'a>> = checks
        .iter()
        .copied()
        .filter(|c| c.refuses && values.contains(&c.value))
        .collect();
    let passes = values
        .iter()
        .any(|v| !v.is_empty() && !checks.iter().any(|c| &c.value == v));
    if refused.is_empty() || !passes {
        return Vec::new();
    }
    refused.iter().map(|c| c.at).collect()
}

/// Whether the word-list block at `node` of `file` has a `default` entry, collecting the
/// other entries' values: `None` when an `include` in it read nothing (the default may be
/// there).
fn entries(
    config: &NginxConfig,
    file: FileId,
    node: NodeId,
    depth: usize,
    values: &mut Vec<String>,
) -> Option<bool> {
    // nginx refuses includes nested deeper than this long before.
    const MAX_DEPTH: usize = 16;
    let f = config.file(file);
    let tree = &f.parsed.tree;
    let text = &f.source.text;
    let mut unsure = false;
    for id in tree.children(node) {
        let Some(d) = tree.node(id).kind.statement() else {
            continue;
        };
        let key = tree.name(d);
        if key.is(text, "default") {
            return Some(true);
        }
        if key.is(text, "include") {
            match config.includes.get(file, id) {
                Some(targets) if !targets.is_empty() && depth < MAX_DEPTH => {
                    for &t in targets {
                        match entries(config, t, ROOT, depth + 1, values) {
                            Some(true) => return Some(true),
                            None => unsure = true,
                            Some(false) => {}
                        }
                    }
                }
                _ => unsure = true,
            }
            continue;
        }
        if let Some(v) = tree.args(d).first() {
            values.push(v.text(text).into_owned());
        }
    }
    if unsure {
        None
    } else {
        Some(false)
    }
}

/// The variable and check of an `if ($var = value) { return …; }` with a non-empty
/// `value` (so an empty `$var` does not trigger it).
fn check_on_value(i: Directive<'_>) -> Option<(String, Check<'_>)> {
    let words: Vec<String> = i.args().map(|a| a.value().into_owned()).collect();
    let joined = words.join(" ");
    let inner = joined.trim().strip_prefix('(')?.strip_suffix(')')?.trim();
    let mut parts = inner.split_whitespace();
    let (var, op, value) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || op != "=" || !var.starts_with('$') {
        return None;
    }
    if value.is_empty() || value == "\"\"" || value == "''" {
        return None;
    }
    let returns: Vec<Directive<'_>> = i.children("return").collect();
    if returns.is_empty() {
        return None;
    }
    let refuses = returns.iter().any(|r| {
        r.arg(0)
            .and_then(|c| c.value().parse::<u16>().ok())
            .is_some_and(|c| c >= 400)
    });
    let value = value.trim_matches(|c| c == '"' || c == '\'').to_string();
    Some((
        var.to_ascii_lowercase(),
        Check {
            at: i,
            value,
            refuses,
        },
    ))
}

fn condition(i: Directive<'_>) -> String {
    let words: Vec<String> = i.args().map(|a| a.value().into_owned()).collect();
    format!("if {}", words.join(" "))
}

/// How many `map`/`geo` blocks of `block`'s configuration define `var` (`$name`).
fn definitions(cx: &Context<'_>, block: Directive<'_>, var: &str) -> usize {
    ["map", "geo"]
        .iter()
        .flat_map(|n| cx.nginx_directives(n))
        .filter(|d| {
            std::ptr::eq(d.instance(), block.instance())
                && d.has_block()
                && d.args()
                    .last()
                    .is_some_and(|a| a.value().eq_ignore_ascii_case(var))
        })
        .count()
}

/// Whether `map`'s source can only take values the map lists: a concatenation of literal
/// text and variables that are themselves results of a `map` with a `default` and literal
/// values (`map $webpok$iscf $ext { 00 …; 01 …; 10 …; 11 …; }` where `$webpok` and `$iscf`
/// are `0`/`1` maps), each combination listed as an exact key.
fn covers_every_value(cx: &Context<'_>, map: Directive<'_>) -> bool {
    // More combinations than this are not worth listing by hand, nor checking.
    const MAX_COMBINATIONS: usize = 256;
    let Some(source) = map.arg(0) else {
        return false;
    };
    let script = source.variables();
    if script.error.is_some() {
        return false;
    }
    let text = source.value();
    let mut combos: Vec<String> = vec![String::new()];
    for part in &script.parts {
        let choices: Vec<String> = match part.kind.key() {
            Some(var) => match finite_values(cx, map, &var) {
                Some(v) => v,
                None => return false,
            },
            None if matches!(part.kind, crate::analysis::variables::PartKind::Literal) => {
                match text.get(part.value.start as usize..part.value.end as usize) {
                    Some(t) => vec![t.to_string()],
                    None => return false,
                }
            }
            None => return false,
        };
        combos = combos
            .iter()
            .flat_map(|c| choices.iter().map(move |v| format!("{c}{v}")))
            .collect();
        if combos.len() > MAX_COMBINATIONS {
            return false;
        }
    }
    let keys: Vec<String> = map
        .entries()
        .into_iter()
        .map(|(k, _)| k.value().into_owned())
        .collect();
    combos.iter().all(|c| keys.contains(c))
}

/// Every value `$var` can take, when the only definition of it in `map`'s configuration is a
/// `map` with a `default` whose values are all literal text.
fn finite_values(cx: &Context<'_>, map: Directive<'_>, var: &str) -> Option<Vec<String>> {
    let inst = map.instance();
    let target = format!("${var}");
    let mut found = None;
    for name in ["map", "geo", "set", "split_clients"] {
        for d in cx.nginx_directives(name) {
            if !std::ptr::eq(d.instance(), inst) {
                continue;
            }
            let defines = match name {
                "set" => d.arg(0),
                _ => d.args().last(),
            }
            .is_some_and(|a| a.value().eq_ignore_ascii_case(&target));
            if !defines {
                continue;
            }
            if name != "map" || found.is_some() {
                return None;
            }
            found = Some(d);
        }
    }
    let def = found?;
    let occ = inst.expanded.get(def.occ());
    if entries(&inst.config, occ.file, occ.node, 0, &mut Vec::new()) != Some(true) {
        return None;
    }
    let mut values = Vec::new();
    for (key, value) in def.entries() {
        if matches!(key.value().as_ref(), "hostnames" | "volatile") && value.is_none() {
            continue;
        }
        let v = value?;
        if v.bytes().contains(&b'$') {
            return None;
        }
        let v = v.value().into_owned();
        if !values.contains(&v) {
            values.push(v);
        }
    }
    Some(values)
}
