//! How the request's `Origin` header reaches a response header through the configuration's
//! variables: `$http_origin` itself, a `set` that copies it before the header is sent, or a
//! `map $http_origin` that yields it for any origin ([`Index::origin_of`]), followed at
//! most [`MAX_DEPTH`] steps; and whether a check of the origin (an `if`, a scripted
//! handler) stands in the way.

use crate::analysis::cursor::{self, Directive, Word};
use crate::analysis::header_lists::Level;
use crate::analysis::origin_regex::{regex_key, STRANGERS};
use crate::analysis::pcre::Regex;
use crate::analysis::variables::PartKind;
use crate::stack::model::NginxInstance;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// An `if` condition as nginx reads it: words, the first starting with `(`, the last ending
/// with `)` (ngx_http_rewrite_if), which may stand alone; the parentheses are removed and
/// words left empty dropped.
pub fn condition(d: Directive<'_>) -> Option<Vec<(Word<'_>, String)>> {
    let mut words: Vec<(Word<'_>, String)> =
        d.args().map(|w| (w, w.value().into_owned())).collect();
    let first = words.first_mut()?;
    first.1 = first.1.strip_prefix('(')?.to_string();
    let last = words.last_mut()?;
    last.1 = last.1.strip_suffix(')')?.to_string();
    words.retain(|(_, v)| !v.is_empty());
    Some(words)
}

/// How far a variable is followed (`set $a $b`, `map … $b { default $c; }` …).
const MAX_DEPTH: usize = 4;

/// How the request's `Origin` reaches a header.
pub enum Via<'a> {
    /// `$http_origin` itself.
    Direct,
    /// `set $var …` on the way to the header, from the origin.
    Set { var: String, set: Directive<'a> },
    /// `map … $var`, which yields the origin for any origin: `entry` is the key that does
    /// (`default`, `~.*`).
    Map {
        var: String,
        map: Directive<'a>,
        entry: Word<'a>,
    },
}

// The variable a value is made of, alone (`$cors`, `"${cors}"`), lowercase, without `$`.
pub fn single_variable(value: Word<'_>) -> Option<String> {
    let script = value.variables();
    if script.error.is_some() {
        return None;
    }
    match script.parts.as_slice() {
        [p] => match &p.kind {
            PartKind::Variable { .. } => p.kind.key(),
            _ => None,
        },
        _ => None,
    }
}

/// What the check asks of one configuration about its variables, gathered once.
pub struct Index<'a> {
    inst: &'a NginxInstance,
    /// `set $name …` by name (lowercase, without `$`).
    sets: HashMap<String, Vec<Directive<'a>>>,
    /// `map … $name` by name.
    maps: HashMap<String, Vec<Directive<'a>>>,
    /// Names something else defines: `geo`, `split_clients`, a module's `*_set`, a named
    /// capture. Such a variable is not known.
    other: HashSet<String>,
    /// The variables of the maps of `$http_origin`.
    origin_maps: Vec<String>,
    /// Per map: the entry through which it yields the origin for any origin.
    memo: RefCell<HashMap<Directive<'a>, Option<Word<'a>>>>,
}

impl<'a> Index<'a> {
    pub fn new(inst: &'a NginxInstance) -> Index<'a> {
        let var = |w: Option<Word<'_>>| {
            w.and_then(|a| a.value().strip_prefix('$').map(|v| v.to_ascii_lowercase()))
        };
        let mut index = Index {
            inst,
            sets: HashMap::new(),
            maps: HashMap::new(),
            other: HashSet::new(),
            origin_maps: Vec::new(),
            memo: RefCell::new(HashMap::new()),
        };
        for d in cursor::named(inst, "set") {
            if let Some(n) = var(d.arg(0)) {
                index.sets.entry(n).or_default().push(d);
            }
        }
        for d in cursor::named(inst, "map") {
            if let Some(n) = var(d.arg(1)) {
                if d.arg(0).is_some_and(|s| s.is("$http_origin")) {
                    index.origin_maps.push(n.clone());
                }
                index.maps.entry(n).or_default().push(d);
            }
            for (key, _) in d.entries() {
                if regex_key(&key.value()).is_some() {
                    index.other.extend(capture_names(&key.value()));
                }
            }
        }
        // Their variable is the last argument: `geo [$src] $var`, `split_clients $src $var`.
        for dir in ["geo", "split_clients"] {
            for d in cursor::named(inst, dir) {
                index.other.extend(var(d.args().last()));
            }
        }
        for dir in [
            "perl_set",
            "js_set",
            "set_by_lua",
            "set_by_lua_block",
            "set_by_lua_file",
            "auth_request_set",
            "set_escape_uri",
            "set_unescape_uri",
        ] {
            for d in cursor::named(inst, dir) {
                index.other.extend(var(d.arg(0)));
            }
        }
        for dir in [
            "location",
            "if",
            "rewrite",
            "server_name",
            "fastcgi_split_path_info",
        ] {
            for d in cursor::named(inst, dir) {
                for a in d.args() {
                    index.other.extend(capture_names(&a.value()));
                }
            }
        }
        index
    }

    /// Whether `$name`, read by the header `at`, holds the request's `Origin` whatever it
    /// is, and how. Only `set` and `map` are followed.
    pub fn origin_of(&self, at: Directive<'a>, name: &str, depth: usize) -> Option<Via<'a>> {
        if name == "http_origin" {
            return Some(Via::Direct);
        }
        if depth >= MAX_DEPTH || self.other.contains(name) {
            return None;
        }
        let sets = self.sets.get(name).map_or(&[][..], Vec::as_slice);
        let maps = self.maps.get(name).map_or(&[][..], Vec::as_slice);
        match (sets, maps) {
            ([], [map]) => {
                let entry = self.map_origin(*map, depth)?;
                Some(Via::Map {
                    var: name.to_string(),
                    map: *map,
                    entry,
                })
            }
            (sets, []) if !sets.is_empty() => {
                // Every `set` of it stores the origin, unconditionally; one of them runs
                // before the header is made.
                for s in sets {
                    if s.parent().is_some_and(|p| p.name() == "if") {
                        return None;
                    }
                    let inner = s.arg(1).and_then(single_variable)?;
                    self.origin_of(at, &inner, depth + 1)?;
                }
                let set = sets.iter().copied().find(|s| runs_before(*s, at))?;
                Some(Via::Set {
                    var: name.to_string(),
                    set,
                })
            }
            _ => None,
        }
    }

    /// Whether `$name` is the origin wherever it is read: `$http_origin`, or the one map
    /// that defines it yields the origin for any origin (a `set` depends on where it runs).
    fn origin_anywhere(&self, name: &str, depth: usize) -> bool {
        if name == "http_origin" {
            return true;
        }
        if depth >= MAX_DEPTH || self.other.contains(name) || self.sets.contains_key(name) {
            return false;
        }
        match self.maps.get(name).map(Vec::as_slice) {
            Some([map]) => self.map_origin(*map, depth).is_some(),
            _ => false,
        }
    }

    /// The entry through which `map` yields the request's `Origin` for any origin: for a
    /// map of `$http_origin`, the one each stranger's origin gets (exact keys, then regexes
    /// in order, then `default`: ngx_http_map_find), the same for all; for a map of
    /// anything else, its `default` when every value is the origin. `None` when an origin
    /// outside a list gets something else, or the map is not read exactly (`hostnames`, an
    /// undecided match).
    fn map_origin(&self, map: Directive<'a>, depth: usize) -> Option<Word<'a>> {
        let cached = self.memo.borrow().get(&map).copied();
        if let Some(known) = cached {
            return known;
        }
        // A cycle of maps is cut here.
        self.memo.borrow_mut().insert(map, None);
        let found = self.map_origin_uncached(map, depth);
        self.memo.borrow_mut().insert(map, found);
        found
    }

    fn map_origin_uncached(&self, map: Directive<'a>, depth: usize) -> Option<Word<'a>> {
        let source = map.arg(0)?.value().to_ascii_lowercase();
        let entries = map.entries();
        if entries.iter().any(|(k, _)| k.is("hostnames")) {
            return None;
        }
        let default = entries.iter().find(|(k, _)| k.is("default"));
        let is_origin = |v: Option<Word<'a>>| {
            v.and_then(single_variable)
                .is_some_and(|n| self.origin_anywhere(&n, depth + 1))
        };
        if source != "$http_origin" {
            let (key, _) = default?;
            let every = entries
                .iter()
                .filter(|(k, _)| !k.is("volatile"))
                .all(|&(_, v)| is_origin(v));
            return every.then_some(*key);
        }
        let mut chosen: Option<Word<'a>> = None;
        for stranger in STRANGERS {
            let mut pick: Option<(Word<'a>, Option<Word<'a>>)> = entries
                .iter()
                .find(|(k, _)| regex_key(&k.value()).is_none() && k.value() == stranger)
                .copied();
            if pick.is_none() {
                for &(k, v) in &entries {
                    let Some((pattern, caseless)) = regex_key(&k.value()) else {
                        continue;
                    };
                    let re = Regex::parse(&pattern, caseless).ok()?;
                    if re.is_match(stranger.as_bytes()).ok()? {
                        pick = Some((k, v));
                        break;
                    }
                }
            }
            let (key, value) = pick.or_else(|| default.copied())?;
            if !is_origin(value) {
                return None;
            }
            chosen.get_or_insert(key);
        }
        chosen
    }

    /// Whether an `if` that may run for the header's requests tests the origin against
    /// something: `$http_origin`, the variable sent, or any map of `$http_origin`. Such a
    /// test may refuse the origins it does not list (`if ($http_origin !~ …) { return 403;
    /// }`). A Lua or njs handler there may check (or rewrite) it unseen, and counts too.
    /// "May run": written in a block around the header, or inside the header's level (which
    /// its locations inherit).
    pub fn checked_elsewhere(&self, at: Directive<'a>, var: &str) -> bool {
        let mut names: Vec<&str> = vec!["http_origin", var];
        names.extend(self.origin_maps.iter().map(String::as_str));
        let checks = |d: Directive<'_>| match d.name() {
            "if" => condition(d).is_some_and(|w| {
                let tested = w[0].1.trim_start_matches('$').to_ascii_lowercase();
                w[0].1.starts_with('$') && names.contains(&tested.as_str()) && !is_presence_test(&w)
            }),
            n => SCRIPTED.contains(&n),
        };
        // The blocks around it.
        let mut level = Some(Level::around(at));
        while let Some(l) = level {
            let mut here = l.own("if");
            for n in SCRIPTED {
                here.extend(l.own(n));
            }
            if here.into_iter().any(checks) {
                return true;
            }
            level = l.parent();
        }
        // The blocks inside its level.
        let Some(block) = at.parent() else {
            return ["if"]
                .iter()
                .chain(SCRIPTED.iter())
                .any(|n| cursor::named(self.inst, n).any(checks));
        };
        let mut stack = vec![block];
        while let Some(b) = stack.pop() {
            for c in b.all_children() {
                if checks(c) {
                    return true;
                }
                if c.has_block() {
                    stack.push(c);
                }
            }
        }
        false
    }
}

/// Handlers that may check the origin, or set the header, in code lemplint does not read.
pub const SCRIPTED: [&str; 11] = [
    "access_by_lua",
    "access_by_lua_block",
    "access_by_lua_file",
    "rewrite_by_lua",
    "rewrite_by_lua_block",
    "rewrite_by_lua_file",
    "header_filter_by_lua",
    "header_filter_by_lua_block",
    "header_filter_by_lua_file",
    "js_access",
    "js_header_filter",
];

/// The names of the named captures a regex defines (`(?<name>…)`, `(?P<name>…)`,
/// `(?'name'…)`), lowercase.
pub fn capture_names(pattern: &str) -> Vec<String> {
    let b = pattern.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == b'(' && b[i + 1] == b'?' {
            let (start, close) = match (b[i + 2], b.get(i + 3)) {
                (b'<', Some(c)) if *c != b'=' && *c != b'!' => (i + 3, b'>'),
                (b'P', Some(b'<')) => (i + 4, b'>'),
                (b'\'', _) => (i + 3, b'\''),
                _ => {
                    i += 1;
                    continue;
                }
            };
            let end = b[start..]
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
                .map_or(b.len(), |p| start + p);
            if end > start && b.get(end) == Some(&close) {
                out.push(pattern[start..end].to_ascii_lowercase());
            }
        }
        i += 1;
    }
    out
}

/// Whether the rewrite-phase `set` runs for every request that `at` answers: it stands in
/// a block around `at` (the server, or the location `at` is in), and no `return`,
/// `rewrite` or `break` comes before it there.
pub fn runs_before(set: Directive<'_>, at: Directive<'_>) -> bool {
    let Some(block) = set.parent() else {
        return false;
    };
    inside(at, block)
        && !block
            .all_children()
            .take_while(|c| *c != set)
            .any(|c| matches!(c.name(), "return" | "rewrite" | "break"))
}

/// `if ($var)`, `if ($var = "")`, `if ($var != "")`: whether a value is there, which every
/// cross-origin request's `Origin` is.
pub fn is_presence_test(words: &[(Word<'_>, String)]) -> bool {
    match words {
        [_] => true,
        [_, (_, op)] => op == "=" || op == "!=",
        [_, (_, op), (_, value)] => (op == "=" || op == "!=") && value.is_empty(),
        _ => false,
    }
}

/// Whether `d` stands inside `block`, at any depth.
pub fn inside(d: Directive<'_>, block: Directive<'_>) -> bool {
    let mut p = d.parent();
    while let Some(b) = p {
        if b == block {
            return true;
        }
        p = b.parent();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_names_skip_lookbehinds_and_escapes() {
        assert_eq!(
            capture_names(r"^/(?<a>x)(?P<B_2>y)(?'c'z)(?<=w)(?<!v)\(?<d>)(?P=a)"),
            ["a", "b_2", "c"]
        );
        assert!(capture_names("^https://(www\\.)?example\\.com$").is_empty());
    }
}
