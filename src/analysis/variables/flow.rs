//! Where a variable's value comes from at a place in the configuration, and so what a
//! client can put into an argument there.
//!
//! nginx's rules, as this module applies them:
//! - `set`, `rewrite` and `if` run in the rewrite phases: the server's own ones (at server
//!   level and in its `if` blocks), then those of the one location that serves the request —
//!   not those of the locations around it (`ngx_http_rewrite_merge_loc_conf` never inherits
//!   the codes). A rewrite-phase directive sees only what ran before it; any other directive
//!   sees all of them. When no `set` of a variable can have run on the way, one elsewhere
//!   in the same server still can (after an internal redirect: `try_files`, `error_page`,
//!   `rewrite … last` keep variables), so those count, said as such.
//! - `$1`…`$9` are the captures of the last regex that matched (`ngx_http_regex_exec`; a
//!   regex that fails leaves them). Before a place come: the server's `server_name ~`
//!   regexes, its server-level `if`/`rewrite` regexes, the regex of the serving location
//!   (and of regex locations around it), then the location's own `if`/`rewrite` regexes.
//!   A regex that certainly matched — the serving location's, an `if` the place is inside —
//!   hides those before it; those after it may win.
//! - a named capture `(?<n>…)` is a variable set by whichever regex defines it.
//! - `map` values are scripts: a literal is the configuration's, a variable is whatever it
//!   holds, and `$1` in an entry with a regex key is that regex's capture of the map's
//!   source. `geo` and `split_clients` values are literals.
//! - a location, `rewrite` or `fastcgi_split_path_info` regex matches `$uri`; a
//!   `server_name` regex, `$host`; an `if`, its variable; a map regex, the map's source.
//!   What a capture can hold is what its subject can hold, narrowed by the bytes the group
//!   can match ([`Regex::can_contain`]): a group that cannot hold `/` carries no `/`, and
//!   a piece of a path can be a host name or a `..` segment the whole never is (see
//!   [`super::capture`]).
//! - `$1`…`$9` are URL-escaped (`ngx_escape_uri`, `NGX_ESCAPE_ARGS`: CR and LF become
//!   `%0D` `%0A`; `/` and `.` stay) where the rewrite module copies them with its `quote`
//!   flag on (ngx_http_script_copy_capture_code): in a `set` value before any `rewrite` of
//!   the same block has run (ngx_http_rewrite_handler starts with `quote = 1`; a rewrite's
//!   end code clears it), and in the replacement of a redirecting `rewrite`. nginx escapes
//!   only when the URI was percent-encoded — as it must be to hold a decoded LF — so this
//!   clears CR/LF for captures of `$uri` (location, rewrite) and not others. Named captures
//!   are variables and are never escaped; `return`, `add_header`, `proxy_pass` copy
//!   captures as they are.
//! - some built-in variables depend on the configuration ([`configured`]): a `rewrite`
//!   puts its replacement into `$uri`, `$host` is one of the server's names when only
//!   exact names reach the server, `$document_root` is `root`'s value…
//!
//! Unknown variables (set by Lua, Perl, njs, a module this catalogue lacks) carry nothing:
//! rules built on this report what is shown, not what is guessed.
//!
//! Bounds: one query works out each (variable, place) once (a cycle is cut where it
//! closes, so an answer found inside a cycle may miss what only the cycle adds), follows
//! at most [`MAX_DEPTH`] links and [`MAX_VISITS`] definitions; past that the answer says
//! [`Answer::truncated`]. Definitions are indexed per server, so a question looks only at
//! what its server holds.

pub use super::answer::{Answer, Step};
use super::builtin::{self, Origin};
use super::capture::{capture_answer, capture_dangers, names_in, regex_key};
use super::danger::{Danger, Dangers};
use super::parse::{PartKind, Script};
use crate::analysis::pcre::Regex;
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::source::FileId;
use crate::source::{Shared, Span};
use crate::stack::expanded::{OccId, View, NO_PARENT};
use crate::syntax::nginx::{NodeId, Word, ROOT};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// The longest chain of definitions followed.
pub const MAX_DEPTH: usize = 32;
/// The most definitions one query looks at.
pub const MAX_VISITS: usize = 20_000;

/// Where a regex is and what it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Site {
    /// `location ~ re`: matches `$uri`.
    Location(OccId),
    /// `rewrite re …`: matches `$uri`.
    Rewrite(OccId),
    /// `if ($v ~ re)`: matches the variable.
    If(OccId),
    /// `server_name ~re`, its argument `i`: matches `$host`.
    ServerName(OccId, usize),
    /// `fastcgi_split_path_info re`: matches `$uri`.
    SplitPath(OccId),
}

/// A parsed `if` condition with a regex.
struct IfRegex {
    subject: Vec<u8>,
    pattern: Vec<u8>,
    caseless: bool,
}

/// The directives of the rewrite phases.
fn is_rewrite_phase(name: &str) -> bool {
    matches!(name, "set" | "rewrite" | "if" | "return" | "break")
}

/// Answers provenance questions about one configuration. Indexes are built once (and shared:
/// see [`Index`]); parsed regexes and per-block directive lists are kept as they are first
/// needed.
pub struct Provenance<'a> {
    view: View<'a>,
    index: Arc<Index>,
    regexes: RegexCache,
    rewrite_lists: RefCell<FxHashMap<OccId, Rc<Vec<OccId>>>>,
    /// Per map: its entries whose value is not a literal.
    dynamic: RefCell<FxHashMap<OccId, Rc<Vec<MapEntry>>>>,
    picks: RefCell<FxHashMap<OccId, Rc<Picks>>>,
    /// Per server: whether `$host` there is one of its names (see `fixed_host`).
    host_fixed: RefCell<FxHashMap<OccId, bool>>,
    /// Per `http` block: each listen address's default server.
    defaults: RefCell<FxHashMap<OccId, Rc<FxHashMap<String, OccId>>>>,
}

/// Where each variable and named capture of one configuration is defined: built once per
/// configuration and shared by every rule that asks (`rules::Context::provenance`), while
/// each rule's [`Provenance`] keeps its own caches of what it asked.
#[derive(Default)]
pub struct Index {
    /// `set $name` by name and server (the enclosing `server`, or `NO_PARENT`), in order.
    sets: FxHashMap<(String, OccId), Vec<OccId>>,
    maps: FxHashMap<String, Vec<OccId>>,
    literal_defs: FxHashMap<String, Vec<OccId>>,
    /// Named captures: the regexes (sites) that define each name, and map entries
    /// (map occurrence, entry node) with such keys.
    named: FxHashMap<(String, OccId), Vec<Site>>,
    named_in_maps: FxHashMap<String, Vec<(OccId, Shared, Word)>>,
}

impl Index {
    /// The index of the configuration `view` shows.
    pub fn build(view: View<'_>) -> Index {
        let p = Provenance::with_index(view, Arc::new(Index::default()));
        let mut index = Index::default();
        p.fill(&mut index);
        index
    }
}

/// A map entry whose value is not a literal.
struct MapEntry {
    file: Shared,
    key: Word,
    value: Word,
    /// The key's regex, for a `~` key nginx accepts.
    regex: Option<Rc<Regex>>,
    /// The value refers to captures only (`$1`), no variable.
    only_captures: bool,
    /// Those captures.
    captures: Vec<u32>,
}

/// For a map's entries with a regex key and only captures in the value: for each of the
/// 16 sets of dangers its source can hold, the first such entry that yields each danger.
/// Only those are worked out in full, so a question costs a few entries, not thousands.
type Picks = [[Option<usize>; 4]; 16];

/// Parsed regexes by site (kind, occurrence, argument): `None` when the pattern is refused.
type RegexCache = RefCell<FxHashMap<(u8, OccId, usize), Option<Rc<Regex>>>>;

/// What one query carries along.
struct Walk {
    /// The (variable, place) pairs being worked out: meeting one again is a cycle.
    open: FxHashSet<(String, OccId)>,
    /// Those worked out, so a variable met twice (`$1` and `$p` of one regex both read
    /// `$uri`) costs once and answers the same.
    done: FxHashMap<(String, OccId), Answer>,
    visits: usize,
    truncated: bool,
}

impl<'a> Provenance<'a> {
    /// Provenance in the configuration `view` shows, with an index of its own (a rule asks
    /// `rules::Context::provenance` for one that shares the configuration's index).
    pub fn new(view: View<'a>) -> Provenance<'a> {
        let index = Arc::new(Index::build(View {
            config: view.config,
            expanded: view.expanded,
        }));
        Provenance::with_index(view, index)
    }

    /// Provenance in the configuration `view` shows, with its [`Index`] built already.
    pub fn with_index(view: View<'a>, index: Arc<Index>) -> Provenance<'a> {
        Provenance {
            view,
            index,
            regexes: RefCell::default(),
            rewrite_lists: RefCell::default(),
            dynamic: RefCell::default(),
            picks: RefCell::default(),
            defaults: RefCell::default(),
            host_fixed: RefCell::default(),
        }
    }

    /// Fills `p` with where each variable and named capture of the configuration is
    /// defined.
    fn fill(&self, p: &mut Index) {
        let view = View {
            config: self.view.config,
            expanded: self.view.expanded,
        };
        let var_name = |s: &str| s.strip_prefix('$').map(|n| n.to_ascii_lowercase());
        for occ in view.named("set") {
            if let Some(n) = view.arg(occ, 0).as_deref().and_then(var_name) {
                let server = self.enclosing(occ, "server").unwrap_or(NO_PARENT);
                p.sets.entry((n, server)).or_default().push(occ);
            }
        }
        for occ in view.named("map") {
            if let Some(n) = view.arg(occ, 1).as_deref().and_then(var_name) {
                p.maps.entry(n).or_default().push(occ);
            }
            // Visited in place, not listed: a blocklist's tens of thousands of entries
            // were a vector of them per map, when only keys with a named group are kept.
            self.visit_entries(occ, &mut |file, key, _| {
                // A named capture opens with `(?`, which unescaping never makes: a key
                // without it as written has none, and is not unescaped to find out (a
                // blocklist's tens of thousands of regex keys were half a pre-commit run).
                if !has_group_opener(&file.text[key.raw().range()]) {
                    return;
                }
                if let Some((pattern, _)) = regex_key(&key.text(&file.text)) {
                    for n in names_in(pattern.as_bytes()) {
                        p.named_in_maps
                            .entry(n)
                            .or_default()
                            .push((occ, file.clone(), key));
                    }
                }
            });
        }
        // Their variable is the last argument: `geo [$src] $var`, `split_clients $src $var`.
        for dir in ["geo", "split_clients"] {
            for occ in view.named(dir) {
                let args = view.args(occ);
                if let Some(n) = args.last().and_then(|a| var_name(a)) {
                    p.literal_defs.entry(n).or_default().push(occ);
                }
            }
        }
        let mut sites = Vec::new();
        for occ in view.named("location") {
            sites.push(Site::Location(occ));
        }
        for occ in view.named("rewrite") {
            sites.push(Site::Rewrite(occ));
        }
        for occ in view.named("if") {
            sites.push(Site::If(occ));
        }
        for occ in view.named("server_name") {
            for i in 0..args_len(&view, occ) {
                sites.push(Site::ServerName(occ, i));
            }
        }
        for site in sites {
            let Some((pattern, _)) = self.site_pattern(site) else {
                continue;
            };
            let occ = match site {
                Site::Location(o)
                | Site::Rewrite(o)
                | Site::If(o)
                | Site::ServerName(o, _)
                | Site::SplitPath(o) => o,
            };
            let server = self.enclosing(occ, "server").unwrap_or(NO_PARENT);
            for n in names_in(&pattern) {
                p.named.entry((n, server)).or_default().push(site);
            }
        }
    }

    pub fn view(&self) -> &View<'a> {
        &self.view
    }

    /// What a client can put into argument `index` of directive `occ`, there.
    pub fn argument(&self, occ: OccId, index: usize) -> Answer {
        let Some((file, word)) = self.word(occ, index) else {
            return Answer::default();
        };
        let script = Script::parse_word(&word, &file.text);
        let mut walk = Walk {
            open: FxHashSet::default(),
            done: FxHashMap::default(),
            visits: 0,
            truncated: false,
        };
        let escaped = self.escapes_captures(occ, index);
        let mut a = self.script_escaping(occ, &file, &script, None, escaped, &mut walk, 0);
        a.truncated |= walk.truncated;
        a
    }

    /// What a client can put into `script` (written in `file`) evaluated at `place`.
    pub fn script(&self, place: OccId, file: &Shared, script: &Script) -> Answer {
        let mut walk = Walk {
            open: FxHashSet::default(),
            done: FxHashMap::default(),
            visits: 0,
            truncated: false,
        };
        let mut a = self.script_at(place, file, script, None, &mut walk, 0);
        a.truncated |= walk.truncated;
        a
    }

    /// What a client can put into the variable `name` (without `$`) at `place`.
    pub fn variable(&self, place: OccId, name: &str) -> Answer {
        let mut walk = Walk {
            open: FxHashSet::default(),
            done: FxHashMap::default(),
            visits: 0,
            truncated: false,
        };
        let (file, span) = self.view.location(place);
        let mut a = self.var_at(place, &name.to_ascii_lowercase(), &file, span, &mut walk, 0);
        a.truncated |= walk.truncated;
        a
    }

    /// `captures`: for `$1`… inside a map entry, the entry's regex and its subject's answer.
    fn script_at(
        &self,
        place: OccId,
        file: &Shared,
        script: &Script,
        captures: Option<(&Regex, &Answer, &Step)>,
        walk: &mut Walk,
        depth: usize,
    ) -> Answer {
        self.script_escaping(place, file, script, captures, false, walk, depth)
    }

    /// [`Provenance::script_at`], with `$1`… URL-escaped when `escaped` (see the module's
    /// comment).
    #[allow(clippy::too_many_arguments)]
    fn script_escaping(
        &self,
        place: OccId,
        file: &Shared,
        script: &Script,
        captures: Option<(&Regex, &Answer, &Step)>,
        escaped: bool,
        walk: &mut Walk,
        depth: usize,
    ) -> Answer {
        let mut out = Answer::default();
        for part in script.references() {
            match &part.kind {
                PartKind::Variable { name, .. } => {
                    let key = name.to_ascii_lowercase();
                    out.merge(self.var_at(place, &key, file, part.span, walk, depth));
                }
                PartKind::Capture(k) => {
                    let at = Step {
                        file: file.clone(),
                        span: part.span,
                        note: format!("`${k}`"),
                    };
                    let a = match captures {
                        Some((re, subject, step)) => {
                            capture_answer(re, *k as u32, subject.clone()).through(step)
                        }
                        None => self.capture_at(place, *k as u32, escaped, walk, depth),
                    };
                    out.merge(a.through(&at));
                }
                PartKind::Literal => {}
            }
        }
        out
    }

    fn var_at(
        &self,
        place: OccId,
        name: &str,
        file: &Shared,
        span: Span,
        walk: &mut Walk,
        depth: usize,
    ) -> Answer {
        if depth >= MAX_DEPTH || walk.visits >= MAX_VISITS {
            walk.truncated = true;
            return Answer::default();
        }
        let key = (name.to_string(), place);
        if let Some(a) = walk.done.get(&key) {
            return a.clone();
        }
        // A cycle (`set $a $b; set $b $a;`) adds nothing the other definitions do not.
        if !walk.open.insert(key.clone()) {
            return Answer::default();
        }
        walk.visits += 1;
        let out = self.var_defined(place, name, file, span, walk, depth);
        walk.open.remove(&key);
        walk.done.insert(key, out.clone());
        out
    }

    /// [`Provenance::var_at`] once the bounds and the memo are checked.
    fn var_defined(
        &self,
        place: OccId,
        name: &str,
        file: &Shared,
        span: Span,
        walk: &mut Walk,
        depth: usize,
    ) -> Answer {
        let here = |note: String| Step {
            file: file.clone(),
            span,
            note,
        };
        let mut out = Answer::default();
        let mut defined = false;

        // `set`.
        let (sets, elsewhere) = self.sets_reaching(place, name);
        for (occ, note) in sets
            .iter()
            .map(|o| (*o, "is set here"))
            .chain(elsewhere.iter().map(|o| {
                (
                *o,
                "is set here, in another block of the server (reachable by an internal redirect)",
            )
            }))
        {
            defined = true;
            let Some((f, word)) = self.word(occ, 1) else {
                continue;
            };
            let step = Step {
                file: f.clone(),
                span: word.raw(),
                note: format!("`${name}` {note}"),
            };
            let s = Script::parse_word(&word, &f.text);
            let escaped = self.escapes_captures(occ, 1);
            let a = self.script_escaping(occ, &f, &s, None, escaped, walk, depth + 1);
            out.merge(a.through(&step));
        }
        // `map`.
        for &m in self.index.maps.get(name).into_iter().flatten() {
            defined = true;
            out.merge(self.map_at(place, m, name, walk, depth + 1));
        }
        defined |= self.index.literal_defs.contains_key(name);
        // Named captures.
        let server = self.enclosing(place, "server").unwrap_or(NO_PARENT);
        let key = (name.to_string(), server);
        for &site in self.index.named.get(&key).into_iter().flatten() {
            defined = true;
            if !self.site_may_run(site, place) {
                continue;
            }
            let Some(re) = self.site_regex(site) else {
                continue;
            };
            let Some(k) = re.capture_table().index(name) else {
                continue;
            };
            let a = self.site_capture(site, &re, k, walk, depth + 1);
            out.merge(a.through(&here(format!("`${name}` is a named capture"))));
        }
        if let Some(keys) = self.index.named_in_maps.get(name) {
            defined = true;
            out.merge(self.map_named_capture(place, keys, name, walk, depth + 1));
        }
        if !defined {
            // A built-in the client has no hand in needs no reason (nor its formatting,
            // which the hottest questions would pay for nothing).
            if let Some(b) = builtin::lookup(name)
                .filter(|b| b.origin == Origin::Config || !b.dangers.is_empty())
            {
                let step = here(format!("`${name}` is {}", b.why));
                out.merge(if b.origin == Origin::Config {
                    self.configured(place, name, b.dangers, &step, walk, depth + 1)
                } else {
                    Answer::leaf(b.dangers, step)
                });
            }
        }
        out
    }

    /// The `set $name` that can have run before `place` (rewrite-phase directives in the
    /// server and in the serving location), else those elsewhere in the server.
    fn sets_reaching(&self, place: OccId, name: &str) -> (Vec<OccId>, Vec<OccId>) {
        let server = self.enclosing(place, "server");
        let key = (name.to_string(), server.unwrap_or(NO_PARENT));
        let Some(all) = self.index.sets.get(&key) else {
            return (Vec::new(), Vec::new());
        };
        let ran: Vec<OccId> = self
            .rewrite_phase_before(place)
            .into_iter()
            .filter(|o| all.binary_search(o).is_ok())
            .collect();
        if !ran.is_empty() {
            return (ran, Vec::new());
        }
        // Re-entering the place's own location (or server level) runs its rewrite phase
        // from the start again, so only other locations' `set`s can precede it that way.
        let location = self.enclosing(place, "location");
        let others = all
            .iter()
            .copied()
            .filter(|o| {
                let l = self.enclosing(*o, "location");
                server.is_some() && l.is_some() && l != location
            })
            .collect();
        (Vec::new(), others)
    }

    /// The rewrite-phase directives that may run before `place`, in order.
    fn rewrite_phase_before(&self, place: OccId) -> Vec<OccId> {
        let phase = is_rewrite_phase(self.view.name(place));
        let mut out = Vec::new();
        let scopes = [
            self.enclosing(place, "server"),
            self.enclosing(place, "location"),
        ];
        for scope in scopes.into_iter().flatten() {
            for &o in self.rewrite_list(scope).iter() {
                // A rewrite-phase directive sees what ran before it; others see it all.
                if !phase || o < place {
                    out.push(o);
                }
            }
        }
        out
    }

    /// The rewrite-phase directives of a server or location, its `if` blocks included, its
    /// locations not.
    fn rewrite_list(&self, scope: OccId) -> Rc<Vec<OccId>> {
        if let Some(l) = self.rewrite_lists.borrow().get(&scope) {
            return l.clone();
        }
        let ex = self.view.expanded;
        let mut out = Vec::new();
        let end = ex.end(scope);
        let mut o = scope + 1;
        while o < end {
            let name = self.view.name(o);
            if name == "location" {
                o = ex.end(o);
                continue;
            }
            if matches!(name, "set" | "rewrite" | "if") {
                out.push(o);
            }
            o += 1;
        }
        let l = Rc::new(out);
        self.rewrite_lists.borrow_mut().insert(scope, l.clone());
        l
    }

    /// The nearest enclosing `name` block of `occ` (not `occ` itself).
    fn enclosing(&self, occ: OccId, name: &str) -> Option<OccId> {
        self.view
            .expanded
            .ancestors(occ)
            .find(|a| self.view.name(*a) == name)
    }

    /// Whether a regex site can be evaluated for a request reaching `place`.
    fn site_may_run(&self, site: Site, place: OccId) -> bool {
        let ex = self.view.expanded;
        let server = self.enclosing(place, "server");
        match site {
            Site::Location(l) => ex.ancestors(place).any(|a| a == l),
            Site::ServerName(o, _) => server.is_some() && ex.get(o).parent == server.unwrap(),
            // A rewrite's replacement sees its own regex's captures.
            Site::Rewrite(o) | Site::If(o) => {
                o == place
                    || self.rewrite_phase_before(place).contains(&o)
                    || ex.ancestors(place).any(|a| a == o)
            }
            Site::SplitPath(_) => true,
        }
    }

    /// `$k` at `place`: the captures of the regexes that may have matched last.
    fn capture_at(
        &self,
        place: OccId,
        k: u32,
        escaped: bool,
        walk: &mut Walk,
        depth: usize,
    ) -> Answer {
        let ex = self.view.expanded;
        let mut sites: Vec<(Site, bool)> = Vec::new();
        let server = self.enclosing(place, "server");
        let location = self.enclosing(place, "location");
        let inside = |o: OccId| ex.ancestors(place).any(|a| a == o);
        if let Some(s) = server {
            for &sn in ex.children_named(s, "server_name") {
                for i in 0..args_len(&self.view, sn) {
                    sites.push((Site::ServerName(sn, i), false));
                }
            }
        }
        let events = self.rewrite_phase_before(place);
        let (server_events, location_events): (Vec<OccId>, Vec<OccId>) = events
            .into_iter()
            .partition(|o| location.is_none_or(|l| !ex.ancestors(*o).any(|a| a == l)));
        let push_events = |sites: &mut Vec<(Site, bool)>, evs: &[OccId]| {
            for &o in evs {
                if self.view.name(o) == "if" {
                    sites.push((Site::If(o), inside(o)));
                } else {
                    sites.push((Site::Rewrite(o), false));
                }
            }
        };
        push_events(&mut sites, &server_events);
        let mut locs: Vec<OccId> = ex
            .ancestors(place)
            .filter(|a| self.view.name(*a) == "location")
            .collect();
        locs.reverse();
        for l in locs {
            sites.push((Site::Location(l), true));
        }
        push_events(&mut sites, &location_events);
        // A rewrite's replacement: its own regex has just matched.
        if self.view.name(place) == "rewrite" {
            sites.push((Site::Rewrite(place), true));
        }
        // An `if` the place is inside is evaluated before what is in it, after the rest.
        let start = sites
            .iter()
            .rposition(|(s, definite)| *definite && self.site_regex(*s).is_some())
            .unwrap_or(0);
        let mut out = Answer::default();
        for &(site, _) in &sites[start..] {
            let Some(re) = self.site_regex(site) else {
                continue;
            };
            if re.capture_table().count() < k {
                continue;
            }
            let a = self.site_capture(site, &re, k, walk, depth + 1);
            let of_uri = matches!(site, Site::Location(_) | Site::Rewrite(_));
            out.merge(if escaped && of_uri {
                a.narrow(Dangers::ALL.without(Danger::CrLf))
            } else {
                a
            });
        }
        out
    }

    /// Whether nginx URL-escapes the captures in argument `index` of `occ`: a `set` value
    /// with no `rewrite` before it in its block, a redirecting `rewrite`'s replacement.
    fn escapes_captures(&self, occ: OccId, index: usize) -> bool {
        match (self.view.name(occ), index) {
            ("set", 1) => {
                let scope = self
                    .enclosing(occ, "location")
                    .or_else(|| self.enclosing(occ, "server"));
                scope.is_some_and(|s| {
                    !self
                        .rewrite_list(s)
                        .iter()
                        .any(|&o| o < occ && self.view.name(o) == "rewrite")
                })
            }
            ("rewrite", 1) => self.is_redirect(occ),
            _ => false,
        }
    }

    /// A `rewrite` that redirects: its replacement starts with `http://`, `https://` or
    /// `$scheme`, or its flag is `redirect` or `permanent` (ngx_http_rewrite).
    pub fn is_redirect(&self, r: OccId) -> bool {
        let v = self.view.args(r);
        v.get(1).is_some_and(|t| {
            ["http://", "https://", "$scheme"]
                .iter()
                .any(|p| t.starts_with(p))
        }) || v
            .get(2)
            .is_some_and(|f| f == "redirect" || f == "permanent")
    }

    /// What capture `k` of the regex at `site` can hold.
    fn site_capture(
        &self,
        site: Site,
        re: &Regex,
        k: u32,
        walk: &mut Walk,
        depth: usize,
    ) -> Answer {
        let (occ, what, subject) = match site {
            Site::Location(o) => (o, "location", None),
            Site::Rewrite(o) => (o, "rewrite", None),
            Site::SplitPath(o) => (o, "fastcgi_split_path_info", None),
            Site::ServerName(o, _) => (o, "server_name", Some("host")),
            Site::If(o) => (o, "if", Some("")),
        };
        let (file, span) = self.view.location(occ);
        let step = Step {
            file: file.clone(),
            span,
            note: format!(
                "captured (group {k}) by the `{what}` regex `{}`",
                String::from_utf8_lossy(re.pattern())
            ),
        };
        let subject = match (site, subject) {
            (Site::If(o), _) => match self.if_regex(o) {
                Some(c) => {
                    let s = Script::parse_value(&c.subject);
                    let here = self.view.location(o);
                    self.script_at(o, &here.0, &with_span(s, here.1), None, walk, depth)
                }
                None => Answer::default(),
            },
            (_, Some(v)) => self.var_at(occ, v, &file, span, walk, depth),
            // Location, rewrite and split regexes match `$uri` as it is there.
            _ => self.var_at(occ, "uri", &file, span, walk, depth),
        };
        capture_answer(re, k, subject).through(&step)
    }

    /// `$name` of a map: its entries' values (a value's `$k` from the entry's regex key).
    fn map_at(&self, place: OccId, m: OccId, name: &str, walk: &mut Walk, depth: usize) -> Answer {
        let Some((file, src_word)) = self.word(m, 0) else {
            return Answer::default();
        };
        let mut subject: Option<Answer> = None;
        let mut out = Answer::default();
        let entries = self.dynamic_entries(m);
        let picks = self.picks(m, &entries);
        let mut chosen: Option<[Option<usize>; 4]> = None;
        for (i, e) in entries.iter().enumerate() {
            let ef = e.file.clone();
            if e.regex.is_some() && e.only_captures {
                // What such an entry yields depends only on the source: take the first
                // entry for each danger the source's dangers allow (see `Picks`).
                let pick = *chosen.get_or_insert_with(|| {
                    let subj = subject.get_or_insert_with(|| {
                        let s = Script::parse_word(&src_word, &file.text);
                        self.script_at(place, &file, &s, None, walk, depth)
                    });
                    picks[subject_index(subj.dangers())]
                });
                if !pick.contains(&Some(i)) {
                    continue;
                }
            }
            let vs = Script::parse_word(&e.value, &ef.text);
            let key_text = e.key.text(&ef.text).into_owned();
            let step = Step {
                file: ef.clone(),
                span: e.value.raw(),
                note: format!("`${name}` is mapped to this for `{key_text}`"),
            };
            let a = match &e.regex {
                Some(re) => {
                    let subj = subject.get_or_insert_with(|| {
                        let s = Script::parse_word(&src_word, &file.text);
                        self.script_at(place, &file, &s, None, walk, depth)
                    });
                    let subj = subj.clone();
                    let key_step = Step {
                        file: ef.clone(),
                        span: e.key.raw(),
                        note: format!(
                            "captured by the map key `{key_text}` from `{}`",
                            src_word.text(&file.text)
                        ),
                    };
                    self.script_at(place, &ef, &vs, Some((re, &subj, &key_step)), walk, depth)
                }
                None => self.script_at(place, &ef, &vs, None, walk, depth),
            };
            out.merge(a.through(&step));
        }
        out
    }

    /// A named capture defined by a regex key of map `m`.
    fn map_named_capture(
        &self,
        place: OccId,
        keys: &[(OccId, Shared, Word)],
        name: &str,
        walk: &mut Walk,
        depth: usize,
    ) -> Answer {
        let mut subjects: FxHashMap<OccId, Answer> = FxHashMap::default();
        let mut out = Answer::default();
        for (m, ef, key) in keys {
            if !subjects.contains_key(m) {
                let Some((file, src_word)) = self.word(*m, 0) else {
                    continue;
                };
                let s = Script::parse_word(&src_word, &file.text);
                let a = self.script_at(place, &file, &s, None, walk, depth);
                subjects.insert(*m, a);
            }
            let subject = &subjects[m];
            // A capture holds at most this (see `capture_answer`): past it, stop.
            let mut bound = subject.dangers();
            if bound.has(Danger::Slash) {
                bound = bound.with(Danger::Host).with(Danger::DotDot);
            }
            if out.dangers().intersect(bound) == bound {
                continue;
            }
            let key_text = key.text(&ef.text).into_owned();
            let Some((p, ci)) = regex_key(&key_text) else {
                continue;
            };
            let Ok(re) = Regex::parse(p, ci) else {
                continue;
            };
            let Some(k) = re.capture_table().index(name) else {
                continue;
            };
            let step = Step {
                file: ef.clone(),
                span: key.raw(),
                note: format!("`${name}` is captured by the map key `{key_text}`"),
            };
            out.merge(capture_answer(&re, k, subject.clone()).through(&step));
        }
        out
    }

    fn argument_inner(&self, occ: OccId, index: usize, walk: &mut Walk, depth: usize) -> Answer {
        let Some((file, word)) = self.word(occ, index) else {
            return Answer::default();
        };
        let s = Script::parse_word(&word, &file.text);
        self.script_at(occ, &file, &s, None, walk, depth)
    }

    /// The block whose settings apply at `place`: the place itself when it is a block.
    fn block_of(&self, place: OccId) -> OccId {
        if self.view.expanded.has_children(place) {
            place
        } else {
            self.view.expanded.get(place).parent
        }
    }

    /// The `index`-th argument of `occ`, and its file.
    fn word(&self, occ: OccId, index: usize) -> Option<(Shared, Word)> {
        let o = self.view.expanded.get(occ);
        let f = self.view.config.file(o.file);
        let w = *f.parsed.tree.args(self.view.directive(occ)).get(index)?;
        Some((f.source.clone(), w))
    }

    /// The entries of map `m` whose value has a variable or a capture — the only ones
    /// that can carry anything — with their key's regex parsed, found once per map, so a
    /// map of thousands of entries costs little per question.
    fn dynamic_entries(&self, m: OccId) -> Rc<Vec<MapEntry>> {
        if let Some(d) = self.dynamic.borrow().get(&m) {
            return d.clone();
        }
        let d: Vec<_> = self
            .map_entries(m)
            .into_iter()
            .filter_map(|(file, key, value)| {
                let value = value?;
                let script = Script::parse_word(&value, &file.text);
                if script.is_literal() {
                    return None;
                }
                let only_captures = script
                    .references()
                    .all(|p| matches!(p.kind, PartKind::Capture(_)));
                let captures = script
                    .references()
                    .filter_map(|p| match p.kind {
                        PartKind::Capture(k) => Some(k as u32),
                        _ => None,
                    })
                    .collect();
                let regex = regex_key(&key.text(&file.text))
                    .and_then(|(p, ci)| Regex::parse(p, ci).ok())
                    .map(Rc::new);
                Some(MapEntry {
                    file,
                    key,
                    value,
                    regex,
                    only_captures,
                    captures,
                })
            })
            .collect();
        let d = Rc::new(d);
        self.dynamic.borrow_mut().insert(m, d.clone());
        d
    }

    fn picks(&self, m: OccId, entries: &[MapEntry]) -> Rc<Picks> {
        if let Some(p) = self.picks.borrow().get(&m) {
            return p.clone();
        }
        let mut picks: Picks = [[None; 4]; 16];
        for (s, row) in picks.iter_mut().enumerate() {
            let subject = Danger::ALL
                .into_iter()
                .filter(|d| s >> d.index() & 1 == 1)
                .fold(Dangers::NONE, Dangers::with);
            for (i, e) in entries.iter().enumerate() {
                let (Some(re), true) = (&e.regex, e.only_captures) else {
                    continue;
                };
                let yields = e.captures.iter().fold(Dangers::NONE, |acc, k| {
                    acc.union(capture_dangers(re, *k, subject))
                });
                for d in yields.iter() {
                    row[d.index()].get_or_insert(i);
                }
                if row.iter().all(Option::is_some) {
                    break;
                }
            }
        }
        let p = Rc::new(picks);
        self.picks.borrow_mut().insert(m, p.clone());
        p
    }

    /// A map's entries: the file each is written in, its key and value words (the value
    /// absent for `hostnames`, `volatile`), those of files an `include` among them reads
    /// included (the map handler calls nginx's include: ngx_http_map), in order.
    fn map_entries(&self, m: OccId) -> Vec<(Shared, Word, Option<Word>)> {
        let mut out = Vec::new();
        self.visit_entries(m, &mut |file, key, value| {
            out.push((file.clone(), key, value))
        });
        out
    }

    /// Calls `visit` with each entry of map `m` as [`Provenance::map_entries`] lists them.
    fn visit_entries(&self, m: OccId, visit: &mut dyn FnMut(&Shared, Word, Option<Word>)) {
        let o = self.view.expanded.get(m);
        self.entries_in(o.file, o.node, 0, visit);
    }

    /// The entries below `node` of `file` (`ROOT` for a whole included file).
    fn entries_in(
        &self,
        file: FileId,
        node: NodeId,
        depth: usize,
        visit: &mut dyn FnMut(&Shared, Word, Option<Word>),
    ) {
        // nginx refuses includes nested deeper than its own limit long before this.
        const MAX_INCLUDE_DEPTH: usize = 16;
        let f = self.view.config.file(file);
        let tree = &f.parsed.tree;
        for id in tree.children(node) {
            // An included file, parsed on its own, holds directives rather than entries.
            let Some(d) = tree.node(id).kind.statement() else {
                continue;
            };
            let key = tree.name(d);
            if key.is(&f.source.text, "include") {
                if depth < MAX_INCLUDE_DEPTH {
                    for &t in self.view.config.includes.get(file, id).unwrap_or_default() {
                        self.entries_in(t, ROOT, depth + 1, visit);
                    }
                }
                continue;
            }
            visit(&f.source, key, tree.args(d).first().copied());
        }
    }

    /// The pattern a site matches with, and whether it is caseless.
    fn site_pattern(&self, site: Site) -> Option<(Vec<u8>, bool)> {
        let v = &self.view;
        match site {
            Site::Location(o) => {
                // `location ~^/x` is not a regex: the modifier must be its own word.
                if args_len(v, o) != 2 {
                    return None;
                }
                let m = v.arg(o, 0)?;
                let caseless = match m.as_ref() {
                    "~" => false,
                    "~*" => true,
                    _ => return None,
                };
                v.arg(o, 1).map(|re| (re.as_bytes().to_vec(), caseless))
            }
            Site::Rewrite(o) | Site::SplitPath(o) => {
                v.arg(o, 0).map(|a| (a.as_bytes().to_vec(), false))
            }
            Site::ServerName(o, i) => {
                let a = v.arg(o, i)?;
                a.strip_prefix('~').map(|p| (p.as_bytes().to_vec(), false))
            }
            Site::If(o) => self.if_regex(o).map(|c| (c.pattern, c.caseless)),
        }
    }

    fn site_regex(&self, site: Site) -> Option<Rc<Regex>> {
        let key = match site {
            Site::Location(o) => (0, o, 0),
            Site::Rewrite(o) => (1, o, 0),
            Site::If(o) => (2, o, 0),
            Site::ServerName(o, i) => (3, o, i),
            Site::SplitPath(o) => (4, o, 0),
        };
        if let Some(r) = self.regexes.borrow().get(&key) {
            return r.clone();
        }
        let r = self
            .site_pattern(site)
            .and_then(|(p, ci)| Regex::parse_bytes(&p, ci).ok())
            .map(Rc::new);
        self.regexes.borrow_mut().insert(key, r.clone());
        r
    }

    /// An `if`'s condition when it is `$v ~ re`, `~*`, `!~` or `!~*` (nginx reads it as
    /// words, the first starting with `(`, the last ending with `)`: ngx_http_rewrite_if).
    fn if_regex(&self, o: OccId) -> Option<IfRegex> {
        let mut args: Vec<String> = self
            .view
            .args(o)
            .into_iter()
            .map(|a| a.into_owned())
            .collect();
        let first = args.first_mut()?;
        *first = first.strip_prefix('(')?.to_string();
        let last = args.last_mut()?;
        *last = last.strip_suffix(')')?.to_string();
        args.retain(|a| !a.is_empty());
        match args.as_slice() {
            [subject, op, pattern] if matches!(op.as_str(), "~" | "~*" | "!~" | "!~*") => {
                Some(IfRegex {
                    subject: subject.as_bytes().to_vec(),
                    pattern: pattern.as_bytes().to_vec(),
                    caseless: op.ends_with('*'),
                })
            }
            _ => None,
        }
    }
}

/// The index of a set of dangers in [`Picks`].
/// Whether `raw` holds `(?`, which opens every named group.
fn has_group_opener(raw: &[u8]) -> bool {
    memchr::memchr_iter(b'(', raw).any(|i| raw.get(i + 1) == Some(&b'?'))
}

fn subject_index(d: Dangers) -> usize {
    d.iter().map(|d| 1 << d.index()).sum()
}

/// How many arguments a directive has.
fn args_len(view: &View<'_>, occ: OccId) -> usize {
    let o = view.expanded.get(occ);
    view.config
        .file(o.file)
        .parsed
        .tree
        .args(view.directive(occ))
        .len()
}

/// A script parsed from a value whose spans all become `span` (an `if` subject, whose
/// text was rebuilt from its words).
fn with_span(mut s: Script, span: Span) -> Script {
    for p in &mut s.parts {
        p.span = span;
    }
    s
}

mod configured;
#[cfg(test)]
mod tests;
