//! A quick "certainly not", before any provenance is worked out: an argument whose every
//! reference is a built-in variable the configuration never defines, and which cannot hold
//! the danger wherever it is read, needs no walk. Most arguments of a large configuration
//! (`https://$host$request_uri`, `$upstream_cache_status`) end here, so a rule asks the
//! full question ([`super::Provenance`]) only of the few that could be dangerous.

use super::builtin::{self, Origin};
use super::danger::Danger;
use super::parse::Script;
use crate::fxhash::FxHashSet;
use crate::stack::expanded::View;

/// Built-ins whose value the configuration decides (`Origin::Config`) but never from a
/// client's bytes that could hold a line break: `$host` is the validated Host
/// (`ngx_http_validate_host` refuses CR/LF) or a server name; the peer's address and port
/// are numbers (realip only accepts an address).
const CONFIG_WITHOUT_CRLF: &[&str] = &["host", "remote_addr", "binary_remote_addr", "remote_port"];

pub struct Quick {
    /// Names that `set` or `map` define with a value that may hold variables (or through
    /// an include we do not read here).
    defined: FxHashSet<String>,
    /// Names defined only with literal values (`map` entries and `set` values without `$`,
    /// `geo`, `split_clients`).
    literal: FxHashSet<String>,
    /// Some file has named-capture syntax, which can define any name: no quick answers.
    named_captures: bool,
}

impl Quick {
    pub fn new(view: &View<'_>) -> Quick {
        let mut defined = FxHashSet::default();
        let mut literal = FxHashSet::default();
        let var = |s: &str| s.strip_prefix('$').map(|n| n.to_ascii_lowercase());
        // `geo` and `split_clients` values are literal text: the configuration's, never a
        // client's.
        for dir in ["geo", "split_clients"] {
            for occ in view.named(dir) {
                if let Some(n) = view.args(occ).last().and_then(|a| var(a)) {
                    literal.insert(n);
                }
            }
        }
        for occ in view.named("set") {
            let args = view.args(occ);
            if let Some(n) = args.first().and_then(|a| var(a)) {
                let plain = args.get(1).is_some_and(|v| !v.contains('$'));
                if plain { &mut literal } else { &mut defined }.insert(n);
            }
        }
        for occ in view.named("map") {
            if let Some(n) = view.arg(occ, 1).as_deref().and_then(var) {
                if map_is_literal(view, occ) {
                    &mut literal
                } else {
                    &mut defined
                }
                .insert(n);
            }
        }
        // A name defined both ways may hold what the non-literal definition holds.
        literal.retain(|n| !defined.contains(n));
        // One pass per file for `(?`, the start all three share, then the bytes after it.
        let open = memchr::memmem::Finder::new(b"(?");
        let named_captures = view.config.ids().any(|id| {
            let text = &view.config.file(id).source.text;
            open.find_iter(text).any(|i| {
                let rest = &text[i + 2..];
                rest.starts_with(b"<") || rest.starts_with(b"P<") || rest.starts_with(b"'")
            })
        });
        let mut quick = Quick {
            defined,
            literal,
            named_captures,
        };
        // A map whose source cannot hold a line break, and whose values hold only its own
        // captures (pieces of that source) and such variables, cannot hold one either
        // (`map $host$request_uri $redirect { ~^…/(.*)$ https://…/$1; }`).
        for _ in 0..2 {
            for occ in view.named("map") {
                let Some(n) = view.arg(occ, 1).as_deref().and_then(var) else {
                    continue;
                };
                if !quick.defined.contains(&n) || quick.named_captures {
                    continue;
                }
                let o = view.expanded.get(occ);
                let file = view.config.file(o.file);
                let tree = &file.parsed.tree;
                let src = &file.source.text;
                let source_inert = tree
                    .args(view.directive(occ))
                    .first()
                    .is_some_and(|w| quick.inert(w, src, false));
                // A `$1` in a value is the entry's own capture only when its key is a regex.
                let values_inert = map_values(view, occ, |key, value| {
                    let regex = key.value(src).starts_with(b"~");
                    quick.inert(value, src, regex)
                });
                if source_inert && values_inert {
                    quick.defined.remove(&n);
                    quick.literal.insert(n);
                }
            }
        }
        quick
    }

    /// Whether the value of `word` (in `src`) certainly cannot hold a client-chosen line
    /// break: `false` means "ask the full question". `captures_escaped`: the caller knows
    /// that `$1`…`$9` are URL-escaped there (a redirecting `rewrite`'s replacement, where
    /// nginx escapes them: `%0D%0A` stays encoded).
    pub fn certainly_without_crlf(
        &self,
        word: &crate::syntax::nginx::Word,
        src: &[u8],
        captures_escaped: bool,
    ) -> bool {
        !self.named_captures && self.inert(word, src, captures_escaped)
    }

    /// Whether every reference in `word` is a variable no client can put a line break into
    /// (and, with `captures`, a regex capture, which the caller knows to be such a piece).
    fn inert(&self, word: &crate::syntax::nginx::Word, src: &[u8], captures: bool) -> bool {
        let script = Script::parse_word(word, src);
        let inert = script.references().all(|part| {
            if let super::parse::PartKind::Capture(_) = part.kind {
                return captures;
            }
            let Some(key) = part.kind.key() else {
                return false;
            };
            if self.defined.contains(&key) {
                return false;
            }
            if self.literal.contains(&key) || CONFIG_WITHOUT_CRLF.contains(&key.as_str()) {
                return true;
            }
            builtin::lookup(&key)
                .is_some_and(|b| b.origin != Origin::Config && !b.dangers.has(Danger::CrLf))
        });
        inert
    }
}

/// Whether every value of map `occ` (its entries' second words) passes `ok`, with no
/// `include` among them (whose entries are not read here).
fn map_values(
    view: &View<'_>,
    occ: crate::stack::expanded::OccId,
    ok: impl Fn(&crate::syntax::nginx::Word, &crate::syntax::nginx::Word) -> bool,
) -> bool {
    let o = view.expanded.get(occ);
    let file = view.config.file(o.file);
    let tree = &file.parsed.tree;
    let src = &file.source.text;
    tree.children(o.node).all(|id| {
        let Some(d) = tree.node(id).kind.statement() else {
            return true;
        };
        let name = tree.name(d);
        if name.is(src, "include") {
            return false;
        }
        match tree.args(d) {
            // `hostnames`, `volatile`: flags, not values.
            [] => !name.value(src).contains(&b'$'),
            [value] => ok(&name, value),
            _ => false,
        }
    })
}

/// Whether every value of map `occ` is literal text.
fn map_is_literal(view: &View<'_>, occ: crate::stack::expanded::OccId) -> bool {
    let o = view.expanded.get(occ);
    let src = &view.config.file(o.file).source.text;
    map_values(view, occ, |_, w| !w.value(src).contains(&b'$'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::expanded::Expanded;
    use crate::stack::fs::DumpFs;
    use crate::stack::nginx::{load, LoadOptions};
    use std::path::{Path, PathBuf};

    /// For each `return 302` of `conf`, in order: whether its URL is certainly free of a
    /// client's line break.
    fn verdicts(conf: &str) -> Vec<bool> {
        let mut fs = DumpFs::default();
        fs.files
            .insert(PathBuf::from("/n/nginx.conf"), conf.as_bytes().to_vec());
        let config = load(&fs, Path::new("/n/nginx.conf"), &LoadOptions::default()).unwrap();
        let expanded = Expanded::build(&config);
        let view = View {
            config: &config,
            expanded: &expanded,
        };
        let quick = Quick::new(&view);
        view.named("return")
            .map(|occ| {
                let o = view.expanded.get(occ);
                let f = view.config.file(o.file);
                let w = f.parsed.tree.args(view.directive(occ))[1];
                quick.certainly_without_crlf(&w, &f.source.text, false)
            })
            .collect()
    }

    #[test]
    fn inert_builtins_literal_maps_and_their_own_captures_need_no_walk() {
        let conf = "http {\n\
            map $host$request_uri $old { default \"\"; ~^a/(.*)$ https://a/$1; }\n\
            map $uri $bad { ~^/(.*)$ $1; }\n\
            map $arg_x $lit { default /; 1 /one; }\n\
            server {\n\
              location /a { return 302 https://$host$request_uri; }\n\
              location /b { return 302 $old; }\n\
              location /c { return 302 $lit; }\n\
              location /d { return 302 https://x$uri; }\n\
              location /e { return 302 $bad; }\n\
              location ~ ^/f(.*) { return 302 /g$1; }\n\
            }\n}\n";
        assert_eq!(verdicts(conf), [true, true, true, false, false, false]);
    }

    #[test]
    fn named_capture_syntax_anywhere_turns_the_shortcut_off() {
        let conf = "http { server { server_name ~^(?<host>.+)$; return 302 https://$host/; } }\n";
        assert_eq!(verdicts(conf), [false]);
    }
}
