//! Which response headers a block sends, as nginx builds its lists: the `add_header` /
//! `add_trailer` entries after ngx_http_headers_merge_conf (with `add_header_inherit`), and
//! the names headers-more's `more_set_headers` sets (which merges every level's entries, so
//! it is never lost by inheritance).
//!
//! ngx_http_headers_merge_conf (nginx 1.29.3 added the `*_inherit` directives, changes.xml):
//! a level's list is its own entries; a level without entries takes its parent's list,
//! unless `add_header_inherit off` is in effect there; with `merge` in effect, the parent's
//! list is appended to the level's own. The mode itself is inherited like any setting.

use crate::analysis::cursor::Directive;
use crate::fxhash::FxHashSet;
use crate::source::{FileId, Span};
use crate::stack::expanded::NO_PARENT;
use crate::stack::model::NginxInstance;
use std::borrow::Cow;
use std::collections::HashSet;

/// `add_header_inherit` / `add_trailer_inherit` in effect at a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inherit {
    /// The default: the parent's list only when the level has no entries of its own.
    On,
    /// Nothing inherited, whether or not the level has entries.
    Off,
    /// The parent's list appended to the level's own.
    Merge,
}

/// A level of the configuration: a block, or the main context (`None`) of `inst`.
#[derive(Clone, Copy)]
pub struct Level<'a> {
    pub inst: &'a NginxInstance,
    pub block: Option<Directive<'a>>,
}

impl<'a> Level<'a> {
    pub fn of(block: Directive<'a>) -> Level<'a> {
        Level {
            inst: block.instance(),
            block: Some(block),
        }
    }

    /// The level a directive stands in.
    pub fn around(d: Directive<'a>) -> Level<'a> {
        Level {
            inst: d.instance(),
            block: d.parent(),
        }
    }

    /// The enclosing level; `None` for the main context.
    pub fn parent(self) -> Option<Level<'a>> {
        let block = self.block?;
        Some(Level {
            inst: self.inst,
            block: block.parent(),
        })
    }

    /// The directives named `name` written directly in this level (through includes).
    pub fn own(self, name: &str) -> Vec<Directive<'a>> {
        match self.block {
            Some(b) => b.children(name).collect(),
            // The name index, not a walk of the top level (a fragment can hold thousands
            // of blocks there).
            None => self
                .inst
                .expanded
                .children_named(NO_PARENT, name)
                .iter()
                .map(|&occ| Directive::new(self.inst, occ))
                .collect(),
        }
    }

    /// The `inherit` directive (`add_header_inherit`) in effect here: the level's own, else
    /// the nearest enclosing level's.
    pub fn inherit_mode(self, inherit: &str) -> Inherit {
        let mut level = Some(self);
        while let Some(l) = level {
            if let Some(d) = l.own(inherit).last() {
                return match d.arg(0) {
                    Some(a) if a.is("off") => Inherit::Off,
                    Some(a) if a.is("merge") => Inherit::Merge,
                    _ => Inherit::On,
                };
            }
            level = l.parent();
        }
        Inherit::On
    }
}

/// The `add_header` (or `add_trailer`, with `inherit` = `add_trailer_inherit`) entries nginx
/// sends at `level`, own first, as ngx_http_headers_merge_conf builds them.
pub fn sent<'a>(level: Level<'a>, name: &str, inherit: &str) -> Vec<Directive<'a>> {
    let mut out = level.own(name);
    let Some(parent) = level.parent() else {
        return out;
    };
    match level.inherit_mode(inherit) {
        Inherit::Off => {}
        Inherit::On if out.is_empty() => out = sent(parent, name, inherit),
        Inherit::On => {}
        Inherit::Merge => out.extend(sent(parent, name, inherit)),
    }
    out
}

/// The header arguments of a headers-more directive (`more_set_headers`,
/// `more_clear_headers`, …): its arguments but the `-s`/`-t` options and their values.
pub fn more_headers_specs(d: Directive<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut args = d.args();
    while let Some(a) = args.next() {
        let v = a.value();
        if v == "-s" || v == "-t" {
            args.next();
            continue;
        }
        out.push(v.into_owned());
    }
    out
}

/// The header names a `more_set_headers` sets: each `Name: value` (or `Name:`, which
/// clears) of [`more_headers_specs`] read up to the colon.
pub fn more_set_header_names(d: Directive<'_>) -> Vec<String> {
    more_headers_specs(d)
        .iter()
        .map(|v| v.split(':').next().unwrap_or("").trim())
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether `more_set_headers` at `level` or any enclosing level sets `header` (headers-more
/// merges the lists of every level, so an enclosing one always applies).
pub fn more_set_anywhere_above(level: Level<'_>, header: &str) -> bool {
    let mut l = Some(level);
    while let Some(here) = l {
        if here.own("more_set_headers").into_iter().any(|d| {
            more_set_header_names(d)
                .iter()
                .any(|n| n.eq_ignore_ascii_case(header))
        }) {
            return true;
        }
        l = here.parent();
    }
    false
}

/// The `include` arguments of `inst` lemplint could not read (missing, outside the tree, a
/// template), as (file, span): built once per configuration, so a rule asks per block in
/// constant time.
pub fn unread_includes(inst: &NginxInstance) -> HashSet<(FileId, Span)> {
    inst.config
        .problems
        .iter()
        .map(|p| (p.file, p.span))
        .collect()
}

/// Whether `block` holds an `include` listed in `unread`.
pub fn has_unread_include(block: Directive<'_>, unread: &HashSet<(FileId, Span)>) -> bool {
    if unread.is_empty() {
        return false;
    }
    let inst = block.instance();
    block.children("include").any(|inc| {
        let file = inst.expanded.get(inc.occ()).file;
        inc.arg(0)
            .is_some_and(|arg| unread.contains(&(file, arg.raw())))
    })
}

/// Response headers that protect the client: losing one weakens the site, not only its
/// caching or its looks.
pub const SECURITY_HEADERS: &[&str] = &[
    "strict-transport-security",
    "content-security-policy",
    "x-frame-options",
    "x-content-type-options",
    "referrer-policy",
    "permissions-policy",
    "cross-origin-opener-policy",
    "cross-origin-embedder-policy",
    "cross-origin-resource-policy",
];

pub fn is_security_header(name: &str) -> bool {
    SECURITY_HEADERS
        .iter()
        .any(|h| h.eq_ignore_ascii_case(name))
}

/// The entry names a level has (its own, then those already counted), compared ignoring
/// case for headers. Most levels have a handful: they are compared in place, without a
/// copy each; past [`Present::SMALL`] a hash set of normalised names takes over, so a level
/// of thousands of entries stays linear.
pub struct Present<'a> {
    caseless: bool,
    small: Vec<Cow<'a, str>>,
    large: FxHashSet<String>,
}

impl<'a> Present<'a> {
    const SMALL: usize = 16;

    pub fn new(caseless: bool) -> Present<'a> {
        Present {
            caseless,
            small: Vec::new(),
            large: FxHashSet::default(),
        }
    }

    fn key(&self, name: &str) -> String {
        if self.caseless {
            name.to_ascii_lowercase()
        } else {
            name.to_string()
        }
    }

    pub fn contains(&self, name: &str) -> bool {
        if self.large.is_empty() {
            self.small.iter().any(|n| self.same(n, name))
        } else {
            self.large.contains(&self.key(name))
        }
    }

    fn same(&self, a: &str, b: &str) -> bool {
        if self.caseless {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    }

    /// Adds `name`; false when it was there already.
    pub fn insert(&mut self, name: Cow<'a, str>) -> bool {
        if self.contains(&name) {
            return false;
        }
        if self.large.is_empty() && self.small.len() < Self::SMALL {
            self.small.push(name);
            return true;
        }
        if self.large.is_empty() {
            let keys: Vec<String> = self.small.iter().map(|n| self.key(n)).collect();
            self.large.extend(keys);
        }
        let key = self.key(&name);
        self.large.insert(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cursor;
    use crate::stack::discover::StackFiles;
    use crate::stack::fs::DumpFs;
    use crate::stack::model::{BuildOptions, Stack};
    use std::path::PathBuf;

    fn stack(text: &str) -> Stack {
        let mut fs = DumpFs::default();
        let path = PathBuf::from("/repo/etc/nginx/nginx.conf");
        fs.files.insert(path.clone(), text.as_bytes().to_vec());
        let found = StackFiles {
            root: PathBuf::from("/repo"),
            nginx: vec![path],
            ..Default::default()
        };
        let opts = BuildOptions {
            prefix: None,
            root: None,
        };
        Stack::build(&fs, &found, &opts, Default::default())
    }

    fn names(list: &[Directive<'_>]) -> Vec<String> {
        list.iter()
            .map(|d| d.arg(0).unwrap().value().into_owned())
            .collect()
    }

    #[test]
    fn inherit_modes_follow_ngx_http_headers_merge_conf() {
        let s = stack(
            "events {}\nhttp {\n  add_header A 1;\n  server {\n    add_header B 2;\n    \
             location /replace { add_header C 3; }\n    location /none { }\n    \
             location /merge { add_header_inherit merge; add_header D 4; }\n    \
             location /off { add_header_inherit off; }\n  }\n  server {\n    \
             add_header_inherit merge;\n    add_header E 5;\n    location / { add_header F 6; }\n  }\n}\n",
        );
        let inst = &s.nginx[0];
        let loc = |uri: &str| {
            cursor::named(inst, "location")
                .find(|l| l.arg(0).unwrap().value() == uri)
                .unwrap()
        };
        let at = |uri: &str| {
            names(&sent(
                Level::of(loc(uri)),
                "add_header",
                "add_header_inherit",
            ))
        };
        assert_eq!(at("/replace"), ["C"]);
        assert_eq!(at("/none"), ["B"]);
        assert_eq!(at("/merge"), ["D", "B"]);
        assert!(at("/off").is_empty());
        // `merge` is inherited: the second server's location appends the server's list, and
        // the server appends http's.
        assert_eq!(at("/"), ["F", "E", "A"]);
    }

    #[test]
    fn more_set_headers_names_skip_the_options() {
        let s = stack(
            "events {}\nhttp {\n  more_set_headers -s 404 -t text/html 'X-A: 1' \"Strict-Transport-Security: max-age=1\" 'X-Gone:';\n}\n",
        );
        let inst = &s.nginx[0];
        let d = cursor::named(inst, "more_set_headers").next().unwrap();
        assert_eq!(
            more_set_header_names(d),
            ["X-A", "Strict-Transport-Security", "X-Gone"]
        );
        let http = d.parent().unwrap();
        assert!(more_set_anywhere_above(
            Level::of(http),
            "strict-transport-security"
        ));
        assert!(!more_set_anywhere_above(Level::of(http), "x-b"));
    }
}
