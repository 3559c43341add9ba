//! The nginx configuration as nginx sees it: includes replaced by the files they read, so
//! every directive occurrence knows its file and its block path (`http > server > location`).
//! A file included twice (a `fastcgi_params` in many locations) yields one occurrence per
//! place, exactly as nginx parses it once per `include`.

use super::nginx::NginxConfig;
use crate::fxhash::FxHashMap;
use crate::source::FileId;
use crate::syntax::nginx::{Directive, NodeId, NodeKind};

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
    /// One past the last descendant occurrence.
    pub end: OccId,
    pub name: NameId,
}

pub struct Expanded {
    pub occurrences: Vec<Occurrence>,
    /// Names by value, and as text (invalid UTF-8 replaced), by id.
    names: FxHashMap<Box<[u8]>, NameId>,
    name_text: Vec<Box<str>>,
    /// Occurrences by name id, in order, so a rule asking for `fastcgi_pass` looks at
    /// those and nothing else.
    by_name: Vec<Vec<OccId>>,
    /// The same per block, so `effective()` is a lookup rather than a scan of the block (a
    /// `http` with thousands of servers made it quadratic): see [`ChildIndex`].
    children: ChildIndex,
}

/// Every occurrence grouped by parent (the top level last), each group sorted by name id,
/// then by position: the children of block `p` are `occ[start[p]..start[p + 1]]`, and
/// those named `n` a binary search of `name` within that range away.
struct ChildIndex {
    start: Vec<u32>,
    occ: Vec<OccId>,
    name: Vec<NameId>,
}

/// Safety net against pathological include fan-out (every file included from every
/// location): past this many occurrences the expansion stops. Ten times the directives of
/// a 100 MB configuration.
pub const MAX_OCCURRENCES: usize = 25_000_000;

impl Expanded {
    /// Expands `config` from its main file. `include` directives appear as occurrences
    /// themselves, followed by the contents of the files they read (as siblings, in the
    /// include's block).
    pub fn build(config: &NginxConfig) -> Expanded {
        // Room for every node once: comments make it more than needed, files included
        // several times less.
        let nodes: usize = config.files.iter().map(|f| f.parsed.tree.nodes.len()).sum();
        let mut occ: Vec<Occurrence> = Vec::with_capacity(nodes);
        let mut interner = Interner::default();
        // Per file: its local name ids → ours, filled when the file is first walked.
        let mut local_names: Vec<Vec<NameId>> = vec![Vec::new(); config.files.len()];
        // A file being walked: its next node, where it ends, and the occurrence its
        // top-level directives belong to.
        struct Frame {
            file: FileId,
            next: NodeId,
            end: NodeId,
            parent: OccId,
            /// Open block occurrences of this frame whose `end` is set when we pass them.
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
                *names = tree
                    .names
                    .iter()
                    .map(|w| interner.intern(&w.value(&file.source.text)))
                    .collect();
            }
            // Walk this file's nodes until it ends or an include opens another file.
            let mut opened: Option<(&[FileId], OccId)> = None;
            while frame.next < frame.end && occ.len() < MAX_OCCURRENCES {
                let id = frame.next;
                frame.next += 1;
                // Close the blocks walked past.
                while let Some(&(o, end_node)) = frame.open.last() {
                    if id < end_node {
                        break;
                    }
                    frame.open.pop();
                    occ[o as usize].end = occ.len() as OccId;
                }
                let node = &tree.nodes[id as usize];
                let NodeKind::Directive(d) = &node.kind else {
                    continue;
                };
                let name = names[d.name_id as usize];
                let parent = frame.open.last().map_or(frame.parent, |&(o, _)| o);
                let me = occ.len() as OccId;
                occ.push(Occurrence {
                    file: frame.file,
                    node: id,
                    parent,
                    end: me + 1,
                    name,
                });
                if d.block.is_some() && node.end > id + 1 {
                    frame.open.push((me, node.end));
                }
                if name == include {
                    if let Some(targets) = config.includes.get(&(frame.file, id)) {
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
                    for (o, _) in frame.open.drain(..) {
                        occ[o as usize].end = occ.len() as OccId;
                    }
                    stack.pop();
                }
            }
        }
        let mut by_name: Vec<Vec<OccId>> = vec![Vec::new(); interner.text.len()];
        for (i, o) in occ.iter().enumerate() {
            by_name[o.name as usize].push(i as OccId);
        }
        let children = ChildIndex::build(&occ);
        Expanded {
            occurrences: occ,
            names: interner.ids,
            name_text: interner.text,
            by_name,
            children,
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
            Some(id) => self.by_name[id as usize].as_slice(),
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
            (parent + 1, self.occurrences[parent as usize].end)
        };
        // Jump over each child's subtree: descendants of a child are `child+1 .. end`.
        let mut next = start;
        std::iter::from_fn(move || {
            (next < end).then(|| {
                let id = next;
                next = self.occurrences[id as usize].end.max(id + 1);
                id
            })
        })
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
        let index = &self.children;
        let group = ChildIndex::group(parent, self.occurrences.len());
        let (from, to) = (index.start[group] as usize, index.start[group + 1] as usize);
        let names = &index.name[from..to];
        let lo = names.partition_point(|&n| n < name);
        let hi = lo + names[lo..].partition_point(|&n| n == name);
        &index.occ[from + lo..from + hi]
    }
}

/// Names seen while expanding, numbered in order of first appearance.
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
    /// The group of a parent: its own occurrence id, the top level after all of them.
    fn group(parent: OccId, count: usize) -> usize {
        if parent == NO_PARENT {
            count
        } else {
            parent as usize
        }
    }

    /// A counting sort by parent (occurrences come in order, so each group does too), then
    /// a stable sort by name within each group, which is short except for `http`.
    fn build(occ: &[Occurrence]) -> ChildIndex {
        let mut start = vec![0u32; occ.len() + 2];
        for o in occ {
            start[Self::group(o.parent, occ.len()) + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut order = vec![0 as OccId; occ.len()];
        let mut fill = start.clone();
        for (i, o) in occ.iter().enumerate() {
            let g = Self::group(o.parent, occ.len());
            order[fill[g] as usize] = i as OccId;
            fill[g] += 1;
        }
        drop(fill);
        for w in start.windows(2) {
            let group = &mut order[w[0] as usize..w[1] as usize];
            if group.len() > 1 {
                group.sort_by_key(|&o| occ[o as usize].name);
            }
        }
        let name = order.iter().map(|&o| occ[o as usize].name).collect();
        ChildIndex {
            start,
            occ: order,
            name,
        }
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
        let o = self.expanded.get(id);
        (
            self.config.file(o.file).source.clone(),
            self.directive(id).name.raw(),
        )
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
    /// location inheritance). For directives that nginx allows several times in a block
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
