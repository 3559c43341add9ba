//! The nginx configuration as nginx sees it: includes replaced by the files they read, so
//! every directive occurrence knows its file and its block path (`http > server > location`).
//! A file included twice (a `fastcgi_params` in many locations) yields one occurrence per
//! place, exactly as nginx parses it once per `include`.
//!
//! Only directives become occurrences. The body of a word-list block (`types`, `map`, `geo`,
//! `split_clients`, `charset_map`) is a module's entries, and so is every file an `include`
//! among them reads: parsed on its own, such a file's lines look like directives to the
//! parser, so the expansion never walks into a word list at all. A `map` is an occurrence;
//! nothing in it is, and rules, which see the configuration through this index, cannot
//! mistake a map entry `server_tokens on;` for the directive.

use super::fanout::Overflow;
use super::nginx::NginxConfig;
use crate::fxhash::FxHashMap;
use crate::source::FileId;
use crate::syntax::nginx::{BlockKind, Directive, NodeId, NodeKind};

/// Index into [`Expanded::occurrences`].
pub type OccId = u32;
pub const NO_PARENT: OccId = u32::MAX;

/// A directive name, interned per configuration: equal names (by value) have equal ids.
pub type NameId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    pub file: FileId,
    pub node: NodeId,
    /// The enclosing block directive's occurrence, or [`NO_PARENT`] at the top level.
    pub parent: OccId,
    pub name: NameId,
}

pub struct Expanded {
    pub occurrences: Vec<Occurrence>,
    /// Names by value, and as text (invalid UTF-8 replaced), by id.
    names: FxHashMap<Box<[u8]>, NameId>,
    name_text: Vec<Box<str>>,
    /// Occurrences by name id, in order, so a rule asking for `fastcgi_pass` looks at
    /// those and nothing else: those named `n` are `by_name.occ[by_name.start[n]..][..]`.
    by_name: Groups,
    /// The same per block, so `effective()` is a lookup rather than a scan of the block (a
    /// `http` with thousands of servers made it quadratic): see [`ChildIndex`].
    children: ChildIndex,
    /// Set when the includes multiply the configuration past its budget (see
    /// [`super::fanout`]): the expansion then holds only the first occurrences, as many as
    /// the files have directives, and the configuration is an input error (NGX020).
    pub overflow: Option<Overflow>,
}

/// Occurrence ids in groups: group `g` is `occ[start[g]..start[g + 1]]`.
struct Groups {
    start: Vec<u32>,
    occ: Vec<OccId>,
}

impl Groups {
    /// Groups `count` items by `group_of` (a counting sort: stable, so each group stays in
    /// occurrence order).
    fn build(count: usize, groups: usize, group_of: impl Fn(usize) -> usize) -> Groups {
        let mut start = vec![0u32; groups + 1];
        for i in 0..count {
            start[group_of(i) + 1] += 1;
        }
        for g in 1..start.len() {
            start[g] += start[g - 1];
        }
        let mut fill = start.clone();
        let mut occ = vec![0 as OccId; count];
        for i in 0..count {
            let g = group_of(i);
            occ[fill[g] as usize] = i as OccId;
            fill[g] += 1;
        }
        Groups { start, occ }
    }

    fn get(&self, g: usize) -> &[OccId] {
        &self.occ[self.start[g] as usize..self.start[g + 1] as usize]
    }

    fn get_mut(&mut self, g: usize) -> &mut [OccId] {
        &mut self.occ[self.start[g] as usize..self.start[g + 1] as usize]
    }
}

/// Every occurrence grouped by parent, each group sorted by name id, then by position: the
/// children of a block named `n` are a binary search away. Only blocks with children have
/// a group (the top level has the last one); a bit per occurrence says which do, and
/// counting the bits below a block (a rank) gives its group, so a 100 MB configuration
/// pays about 4 bytes per occurrence rather than 12.
struct ChildIndex {
    groups: Groups,
    /// The name id of each entry of `groups.occ`, side by side: a name lookup searches this
    /// contiguous array instead of loading each occurrence (4 bytes per occurrence; name
    /// lookups are what rules do most).
    names: Vec<NameId>,
    parents: Parents,
    /// One past the last descendant of each group's block (an occurrence's descendants are
    /// contiguous, so this stands in for a per-occurrence field most of which would be
    /// `id + 1`).
    ends: Vec<OccId>,
}

/// Which occurrences have children, and each one's group: a bit per occurrence, and the
/// number of set bits before each 64 (a rank).
struct Parents {
    /// Bit `o` is set when occurrence `o` has children.
    has_children: Vec<u64>,
    /// Set bits in the words before each word of `has_children`.
    rank: Vec<u32>,
    /// The top level's group: the one after every block's.
    top: usize,
}

impl Expanded {
    /// Expands `config` from its main file. `include` directives appear as occurrences
    /// themselves, followed by the contents of the files they read (as siblings, in the
    /// include's block).
    pub fn build(config: &NginxConfig) -> Expanded {
        // Past the budget, expand no more than the files hold: enough for the other rules
        // to run at the cost of reading the files, while the run fails on the overflow.
        let fanout = super::fanout::check(config);
        let limit = fanout
            .as_ref()
            .map_or_else(|o| o.directives.min(o.budget) as usize, |_| usize::MAX);
        // Room for exactly the directives the expansion holds, which the budget check has
        // just counted. Sized by the files' nodes instead, a tree that includes a snippet
        // in every server outgrew it and doubled: 8.7 MB where 5.9 MB are used on the 10 MB
        // tree, and the freed half stayed resident a while with the allocator.
        let expected = fanout.as_ref().map_or(limit, |&total| total as usize);
        let overflow = fanout.err();
        let mut occ: Vec<Occurrence> = Vec::with_capacity(expected.min(limit));
        let mut interner = Interner::default();
        // Per file: its local name ids → ours, each interned when a directive first uses
        // it. A file's name table also numbers the first words of word-list entries (a
        // map's keys, a `types` block's MIME types), which are not directives: interning
        // those too cost a string and a table slot per map key (a 150,000-key map: 11 MB).
        let mut local_names: Vec<Vec<NameId>> = vec![Vec::new(); config.files.len()];
        // A file being walked: its next node, where it ends, and the occurrence its
        // top-level directives belong to.
        struct Frame {
            file: FileId,
            next: NodeId,
            end: NodeId,
            parent: OccId,
            /// Open block occurrences of this frame, and the node each ends before.
            open: Vec<(OccId, NodeId)>,
        }
        let main = FileId(0);
        let mut stack = vec![Frame {
            file: main,
            next: 0,
            end: config.file(main).parsed.tree.nodes.len() as NodeId,
            parent: NO_PARENT,
            open: Vec::new(),
        }];
        let include = interner.intern(b"include");
        while let Some(frame) = stack.last_mut() {
            let file = config.file(frame.file);
            let tree = &file.parsed.tree;
            let names = &mut local_names[frame.file.0 as usize];
            if names.is_empty() && !tree.names.is_empty() {
                *names = vec![UNSEEN; tree.names.len()];
            }
            // Walk this file's nodes until it ends or an include opens another file.
            let mut opened: Option<(&[FileId], OccId)> = None;
            while frame.next < frame.end && occ.len() < limit {
                let id = frame.next;
                frame.next += 1;
                // Close the blocks walked past.
                while let Some(&(_, end_node)) = frame.open.last() {
                    if id < end_node {
                        break;
                    }
                    frame.open.pop();
                }
                let node = &tree.nodes[id as usize];
                // Comments, error fragments, and word-list entries are not directives.
                let NodeKind::Directive(d) = &node.kind else {
                    continue;
                };
                let local = &mut names[d.name_id as usize];
                if *local == UNSEEN {
                    let word = tree.names[d.name_id as usize];
                    *local = interner.intern(&word.value(&file.source.text));
                }
                let name = *local;
                let parent = frame.open.last().map_or(frame.parent, |&(o, _)| o);
                let me = occ.len() as OccId;
                occ.push(Occurrence {
                    file: frame.file,
                    node: id,
                    parent,
                    name,
                });
                match d.block().map(|b| b.kind) {
                    // Nothing inside a word list is a directive, nor is anything its
                    // includes read: skip it whole (see the module's comment).
                    Some(BlockKind::WordList) => frame.next = node.end,
                    Some(_) if node.end > id + 1 => frame.open.push((me, node.end)),
                    _ => {}
                }
                if name == include {
                    if let Some(targets) = config.includes.get(frame.file, id) {
                        opened = Some((targets, parent));
                        break;
                    }
                }
            }
            match opened {
                // Push in reverse so the first target is walked first.
                Some((targets, parent)) => {
                    for &t in targets.iter().rev() {
                        stack.push(Frame {
                            file: t,
                            next: 0,
                            end: config.file(t).parsed.tree.nodes.len() as NodeId,
                            parent,
                            open: Vec::new(),
                        });
                    }
                }
                None => {
                    stack.pop();
                }
            }
        }
        let by_name = Groups::build(occ.len(), interner.text.len(), |i| occ[i].name as usize);
        let children = ChildIndex::build(&occ);
        Expanded {
            occurrences: occ,
            names: interner.ids,
            name_text: interner.text,
            by_name,
            children,
            overflow,
        }
    }

    /// The id of a directive name, if the configuration has it at all.
    pub fn name_id(&self, name: &str) -> Option<NameId> {
        self.names.get(name.as_bytes()).copied()
    }

    /// How many distinct names the configuration has (ids are `0..name_count()`).
    pub fn name_count(&self) -> usize {
        self.name_text.len()
    }

    /// A name as text.
    pub fn name_text(&self, id: NameId) -> &str {
        &self.name_text[id as usize]
    }

    /// Every occurrence of a directive, in configuration order.
    pub fn named(&self, name: &str) -> std::iter::Copied<std::slice::Iter<'_, OccId>> {
        let list = match self.name_id(name) {
            Some(id) => self.by_name.get(id as usize),
            None => &[],
        };
        list.iter().copied()
    }

    pub fn get(&self, id: OccId) -> &Occurrence {
        &self.occurrences[id as usize]
    }

    /// Enclosing block occurrences, innermost first.
    pub fn ancestors(&self, id: OccId) -> impl Iterator<Item = OccId> + '_ {
        let mut cur = self.occurrences[id as usize].parent;
        std::iter::from_fn(move || {
            (cur != NO_PARENT).then(|| {
                let out = cur;
                cur = self.occurrences[cur as usize].parent;
                out
            })
        })
    }

    /// Direct children (through includes) of a block occurrence, or of the top level.
    pub fn children(&self, parent: OccId) -> impl Iterator<Item = OccId> + '_ {
        let (start, end) = if parent == NO_PARENT {
            (0, self.occurrences.len() as OccId)
        } else {
            (parent + 1, self.end(parent))
        };
        // Jump over each child's subtree: descendants of a child are `child+1 .. end`.
        let mut next = start;
        std::iter::from_fn(move || {
            (next < end).then(|| {
                let id = next;
                next = self.end(id);
                id
            })
        })
    }

    /// One past the last descendant of `id`: its descendants are `id + 1 .. end(id)`.
    pub fn end(&self, id: OccId) -> OccId {
        if id == NO_PARENT {
            return self.occurrences.len() as OccId;
        }
        match self.children.group(id) {
            Some(g) => self.children.ends[g],
            None => id + 1,
        }
    }

    /// Whether a block occurrence has any directive inside (through includes too).
    pub fn has_children(&self, id: OccId) -> bool {
        self.children.group(id).is_some()
    }

    /// The direct children of `parent` (or of the top level), by name id, then in order.
    pub fn children_by_name(&self, parent: OccId) -> &[OccId] {
        match self.children.group(parent) {
            Some(g) => self.children.groups.get(g),
            None => &[],
        }
    }

    /// The direct children of `parent` named `name`, in order.
    pub fn children_named(&self, parent: OccId, name: &str) -> &[OccId] {
        match self.name_id(name) {
            Some(id) => self.children_with(parent, id),
            None => &[],
        }
    }

    /// [`Expanded::children_named`] by name id.
    pub fn children_with(&self, parent: OccId, name: NameId) -> &[OccId] {
        let Some(group) = self.children.group(parent) else {
            return &[];
        };
        let groups = &self.children.groups;
        let range = groups.start[group] as usize..groups.start[group + 1] as usize;
        let names = &self.children.names[range.clone()];
        let lo = names.partition_point(|&n| n < name);
        let hi = lo + names[lo..].partition_point(|&n| n == name);
        &groups.occ[range][lo..hi]
    }
}

/// Names seen while expanding, numbered in order of first appearance.
/// A file's local name not yet interned (see [`Expanded::build`]).
const UNSEEN: NameId = NameId::MAX;

#[derive(Default)]
struct Interner {
    ids: FxHashMap<Box<[u8]>, NameId>,
    text: Vec<Box<str>>,
}

impl Interner {
    fn intern(&mut self, name: &[u8]) -> NameId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.text.len() as NameId;
        self.ids.insert(Box::from(name), id);
        self.text.push(String::from_utf8_lossy(name).into());
        id
    }
}

impl ChildIndex {
    /// A counting sort by parent (occurrences come in order, so each group does too), then
    /// a stable sort by name within each group, which is short except for `http`.
    fn build(occ: &[Occurrence]) -> ChildIndex {
        let parents = Parents::new(occ);
        let top = parents.top;
        let mut groups = Groups::build(occ.len(), top + 1, |i| {
            parents.group(occ[i].parent).unwrap_or(top)
        });
        for g in 0..=top {
            let group = groups.get_mut(g);
            if group.len() > 1 {
                group.sort_by_key(|&o| occ[o as usize].name);
            }
        }
        // A block's descendants end where its last child's do. Children come after their
        // block, so their groups are later: filling from the last group back, every
        // child's end is known when its block's is computed.
        let mut ends = vec![0 as OccId; top];
        for g in (0..top).rev() {
            ends[g] = groups
                .get(g)
                .iter()
                .map(|&c| parents.group(c).map_or(c + 1, |cg| ends[cg]))
                .max()
                .unwrap_or(0);
        }
        let names = groups.occ.iter().map(|&o| occ[o as usize].name).collect();
        ChildIndex {
            groups,
            names,
            parents,
            ends,
        }
    }

    /// The group of a block's children (the top level's for [`NO_PARENT`]), if it has any.
    fn group(&self, parent: OccId) -> Option<usize> {
        self.parents.group(parent)
    }
}

impl Parents {
    fn new(occ: &[Occurrence]) -> Parents {
        let mut has_children = vec![0u64; occ.len().div_ceil(64)];
        for o in occ {
            if o.parent != NO_PARENT {
                has_children[o.parent as usize / 64] |= 1 << (o.parent % 64);
            }
        }
        let mut rank = Vec::with_capacity(has_children.len());
        let mut count = 0u32;
        for word in &has_children {
            rank.push(count);
            count += word.count_ones();
        }
        Parents {
            has_children,
            rank,
            top: count as usize,
        }
    }

    /// The group of a block's children (the top level's for [`NO_PARENT`]), if it has any.
    fn group(&self, parent: OccId) -> Option<usize> {
        if parent == NO_PARENT {
            return Some(self.top);
        }
        let (word, bit) = (parent as usize / 64, parent % 64);
        let bits = self.has_children[word];
        (bits >> bit & 1 == 1)
            .then(|| (self.rank[word] + (bits & ((1u64 << bit) - 1)).count_ones()) as usize)
    }
}

/// Convenience accessors that need the configuration's sources.
pub struct View<'a> {
    pub config: &'a NginxConfig,
    pub expanded: &'a Expanded,
}

impl<'a> View<'a> {
    pub fn directive(&self, id: OccId) -> &'a Directive {
        let o = self.expanded.get(id);
        let tree = &self.config.file(o.file).parsed.tree;
        match &tree.nodes[o.node as usize].kind {
            NodeKind::Directive(d) => d,
            // Only directive nodes become occurrences.
            _ => unreachable!("occurrences are directives"),
        }
    }

    /// The directive's name (its value: quotes and escapes resolved).
    pub fn name(&self, id: OccId) -> &'a str {
        self.expanded.name_text(self.expanded.get(id).name)
    }

    /// Whether the directive is named `name` (one integer comparison when the
    /// configuration has such a directive at all).
    pub fn is(&self, id: OccId, name: &str) -> bool {
        self.expanded.name_id(name) == Some(self.expanded.get(id).name)
    }

    /// Argument values as text.
    pub fn args(&self, id: OccId) -> Vec<std::borrow::Cow<'a, str>> {
        self.arg_iter(id).collect()
    }

    /// Argument values as text, without collecting them (hot paths: every `listen`).
    pub fn arg_iter(&self, id: OccId) -> impl Iterator<Item = std::borrow::Cow<'a, str>> + 'a {
        let f = self.config.file(self.expanded.get(id).file);
        let src = &f.source.text;
        f.parsed
            .tree
            .args(self.directive(id))
            .iter()
            .map(move |w| w.text(src))
    }

    /// The `i`-th argument's value as text.
    pub fn arg(&self, id: OccId, i: usize) -> Option<std::borrow::Cow<'a, str>> {
        let f = self.config.file(self.expanded.get(id).file);
        let w = f.parsed.tree.args(self.directive(id)).get(i)?;
        Some(w.text(&f.source.text))
    }

    /// The file and the directive's name span: where a diagnostic about it points.
    pub fn location(&self, id: OccId) -> (crate::source::Shared, crate::source::Span) {
        let file = self.config.file(self.expanded.get(id).file);
        let name = file.parsed.tree.name(self.directive(id));
        (file.source.clone(), name.raw())
    }

    /// The block path, outermost first: `["http", "server", "location"]`.
    pub fn context(&self, id: OccId) -> Vec<&'a str> {
        let mut path: Vec<_> = self.expanded.ancestors(id).map(|a| self.name(a)).collect();
        path.reverse();
        path
    }

    /// Every occurrence of a directive, in configuration order.
    pub fn named(&self, name: &str) -> impl Iterator<Item = OccId> + 'a {
        self.expanded.named(name)
    }

    /// The occurrence that sets `name` for the block `block` (a server, a location…):
    /// the block's own, else the nearest enclosing block's (nginx's http → server →
    /// location inheritance). This is the mechanism only: it does not know that `listen`
    /// or `return` are not inherited; rules ask `analysis::cursor::Directive::effective`,
    /// which applies each directive's merge policy. For directives that nginx allows several times in a block
    /// (`add_header`, `fastcgi_param`), all the entries of the one level that has any are
    /// returned: a level that sets one replaces everything inherited.
    pub fn effective(&self, block: OccId, name: &str) -> &'a [OccId] {
        let Some(name) = self.expanded.name_id(name) else {
            return &[];
        };
        let mut level = Some(block);
        while let Some(b) = level {
            let hits = self.expanded.children_with(b, name);
            if !hits.is_empty() {
                return hits;
            }
            level = if b == NO_PARENT {
                None
            } else {
                Some(self.expanded.get(b).parent)
            };
        }
        &[]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::fs::DumpFs;
    use crate::stack::nginx::{load, LoadOptions};
    use std::path::{Path, PathBuf};

    /// A configuration with nested blocks, includes at several levels, a glob of many
    /// files (read ahead in parallel), a block holding only comments and an empty one.
    fn config() -> NginxConfig {
        let mut fs = DumpFs::default();
        let mut add = |path: &str, text: String| {
            fs.files.insert(PathBuf::from(path), text.into_bytes());
        };
        add(
            "/n/nginx.conf",
            "user www;\nevents { worker_connections 10; }\nhttp {\n  include /n/mime.types;\n  \
             gzip on;\n  include /n/sites/*.conf;\n  server { listen 80; location / { # only\n } }\n}\n"
                .into(),
        );
        add("/n/mime.types", "types { text/html html; }\n".into());
        add(
            "/n/php.conf",
            "fastcgi_pass unix:/run/php.sock;\nfastcgi_param A b;\nfastcgi_param C d;\n".into(),
        );
        for i in 0..12 {
            add(
                &format!("/n/sites/{i:02}.conf"),
                format!(
                    "server {{\n  listen 80;\n  server_name s{i};\n  location ~ \\.php$ {{\n    \
                     include /n/php.conf;\n    if ($x) {{ return 404; }}\n  }}\n  location /e {{ }}\n}}\n"
                ),
            );
        }
        let opts = LoadOptions {
            ..LoadOptions::default()
        };
        let config = load(&fs, Path::new("/n/nginx.conf"), &opts).unwrap();
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        config
    }

    #[test]
    fn indexes_agree_with_the_parent_links() {
        let config = config();
        let ex = Expanded::build(&config);
        let n = ex.occurrences.len() as OccId;
        assert!(n > 100, "the fixture expands ({n} occurrences)");
        let is_within = |mut o: OccId, block: OccId| {
            while o != NO_PARENT {
                o = ex.get(o).parent;
                if o == block {
                    return true;
                }
            }
            false
        };
        for block in std::iter::once(NO_PARENT).chain(0..n) {
            let kids: Vec<OccId> = (0..n).filter(|&o| ex.get(o).parent == block).collect();
            assert_eq!(
                ex.children(block).collect::<Vec<_>>(),
                kids,
                "children of {block}"
            );
            if block != NO_PARENT {
                assert_eq!(ex.has_children(block), !kids.is_empty());
                // Descendants are exactly `block + 1 .. end`.
                let end = ex.end(block);
                assert!((block + 1..end).all(|o| is_within(o, block)));
                assert!(end == n || !is_within(end, block));
            }
            for name in 0..ex.name_count() as NameId {
                let want: Vec<OccId> = kids
                    .iter()
                    .copied()
                    .filter(|&o| ex.get(o).name == name)
                    .collect();
                assert_eq!(ex.children_with(block, name), want.as_slice());
            }
        }
        for name in 0..ex.name_count() as NameId {
            let want: Vec<OccId> = (0..n).filter(|&o| ex.get(o).name == name).collect();
            assert_eq!(ex.named(ex.name_text(name)).collect::<Vec<_>>(), want);
        }
    }

    /// A word list's entries, and the lines of a file included inside one, are read (the
    /// include is followed, as nginx follows it) but never become directive occurrences.
    #[test]
    fn nothing_inside_a_word_list_is_an_occurrence() {
        let mut fs = DumpFs::default();
        let mut add = |path: &str, text: &str| {
            fs.files
                .insert(PathBuf::from(path), text.as_bytes().to_vec());
        };
        add(
            "/n/nginx.conf",
            "events {}\nhttp {\n  map $uri $v {\n    server_tokens on;\n    include /n/map.conf;\n  }\n  \
             types { include /n/types.conf; root x; }\n  geo $g { default 0; include /n/map.conf; }\n  \
             server_tokens off;\n}\n",
        );
        add("/n/map.conf", "server_tokens on;\nroot /x;\n");
        add("/n/types.conf", "server_tokens on;\n");
        let config = load(&fs, Path::new("/n/nginx.conf"), &LoadOptions::default()).unwrap();
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        assert_eq!(
            config.files.len(),
            3,
            "the includes in word lists are followed"
        );
        let ex = Expanded::build(&config);
        let view = View {
            config: &config,
            expanded: &ex,
        };
        let names: Vec<_> = (0..ex.occurrences.len() as OccId)
            .map(|o| view.name(o))
            .collect();
        assert_eq!(
            names,
            ["events", "http", "map", "types", "geo", "server_tokens"]
        );
        for block in ["map", "types", "geo"] {
            let occ = view.named(block).next().unwrap();
            assert!(!ex.has_children(occ), "{block} has no directive inside");
        }
        let tokens = view.named("server_tokens").next().unwrap();
        assert_eq!(view.arg(tokens, 0).as_deref(), Some("off"));
        assert_eq!(view.named("root").count(), 0);
    }

    #[test]
    fn includes_expand_in_place_once_per_include() {
        let config = config();
        let ex = Expanded::build(&config);
        let view = View {
            config: &config,
            expanded: &ex,
        };
        // The snippet is read once but expands in each of the twelve PHP locations.
        assert_eq!(view.named("fastcgi_pass").count(), 12);
        for pass in view.named("fastcgi_pass") {
            assert_eq!(view.context(pass), ["http", "server", "location"]);
        }
        // A location inherits from its server and `http`; its own setting wins.
        let location = view
            .named("location")
            .find(|&l| view.arg(l, 0).as_deref() == Some("~"))
            .unwrap();
        assert_eq!(view.effective(location, "gzip").len(), 1);
        assert_eq!(view.effective(location, "fastcgi_param").len(), 2);
        assert!(view.effective(location, "ssl").is_empty());
    }
}
