//! The nginx configuration as nginx sees it: includes replaced by the files they read, so
//! every directive occurrence knows its file and its block path (`http > server > location`).
//! A file included twice (a `fastcgi_params` in many locations) yields one occurrence per
//! place, exactly as nginx parses it once per `include`.

use super::fxhash::FxHashMap;
use super::nginx::NginxConfig;
use crate::source::FileId;
use crate::syntax::nginx::{Directive, NodeId, NodeKind};

/// Index into [`Expanded::occurrences`].
pub type OccId = u32;
pub const NO_PARENT: OccId = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    pub file: FileId,
    pub node: NodeId,
    /// The enclosing block directive's occurrence, or [`NO_PARENT`] at the top level.
    pub parent: OccId,
    /// One past the last descendant occurrence.
    pub end: OccId,
    /// The `include` occurrence this came through, if any (innermost).
    pub via_include: OccId,
}

pub struct Expanded {
    pub occurrences: Vec<Occurrence>,
    /// Occurrences by directive name (its value: nginx unescapes names too), in order, so a
    /// rule asking for `fastcgi_pass` looks at those and nothing else.
    names: FxHashMap<Box<[u8]>, u32>,
    by_name: Vec<Vec<OccId>>,
    /// The same per block: (parent occurrence, name) → its direct children of that name, so
    /// `effective()` is a lookup rather than a scan of the block (a `http` with thousands of
    /// servers made it quadratic).
    /// Sorted (parent, name id, occurrence): one allocation for all blocks, and a binary
    /// search per lookup.
    by_parent: Vec<(OccId, u32, OccId)>,
}

/// Safety net against pathological include fan-out (every file included from every
/// location): past this many occurrences the expansion stops.
pub const MAX_OCCURRENCES: usize = 5_000_000;

impl Expanded {
    /// Expands `config` from its main file. `include` directives appear as occurrences
    /// themselves, followed by the contents of the files they read (as siblings, in the
    /// include's block).
    pub fn build(config: &NginxConfig) -> Expanded {
        let mut occ: Vec<Occurrence> = Vec::new();
        let mut by_parent: Vec<(OccId, u32, OccId)> = Vec::new();
        let mut names: FxHashMap<Box<[u8]>, u32> = FxHashMap::default();
        let mut by_name: Vec<Vec<OccId>> = Vec::new();
        // Work items: (file, next node, end node, parent occurrence, via include).
        struct Frame {
            file: FileId,
            next: NodeId,
            end: NodeId,
            parent: OccId,
            via: OccId,
            /// Open block occurrences of this frame whose `end` is set when we pass them.
            open: Vec<(OccId, NodeId)>,
        }
        let main = FileId(0);
        let mut stack = vec![Frame {
            file: main,
            next: 0,
            end: config.file(main).parsed.tree.nodes.len() as NodeId,
            parent: NO_PARENT,
            via: NO_PARENT,
            open: Vec::new(),
        }];
        while let Some(frame) = stack.last_mut() {
            let tree = &config.file(frame.file).parsed.tree;
            // Close the blocks this frame has walked past.
            while let Some(&(o, end_node)) = frame.open.last() {
                if frame.next >= end_node {
                    frame.open.pop();
                    occ[o as usize].end = occ.len() as OccId;
                } else {
                    break;
                }
            }
            if frame.next >= frame.end || occ.len() >= MAX_OCCURRENCES {
                stack.pop();
                continue;
            }
            let id = frame.next;
            frame.next += 1;
            let node = &tree.nodes[id as usize];
            let NodeKind::Directive(d) = &node.kind else {
                continue;
            };
            let parent = frame.open.last().map_or(frame.parent, |&(o, _)| o);
            let me = occ.len() as OccId;
            let name = d.name.value(&config.file(frame.file).source.text);
            let name_id = match names.get(name.as_ref()) {
                Some(&id) => id,
                None => {
                    let id = by_name.len() as u32;
                    names.insert(Box::from(name.as_ref()), id);
                    by_name.push(Vec::new());
                    id
                }
            };
            by_name[name_id as usize].push(me);
            by_parent.push((parent, name_id, me));
            occ.push(Occurrence {
                file: frame.file,
                node: id,
                parent,
                end: me + 1,
                via_include: frame.via,
            });
            if d.block.is_some() && node.end > id + 1 {
                frame.open.push((me, node.end));
            }
            if let Some(targets) = config.includes.get(&(frame.file, id)) {
                // Push in reverse so the first target is walked first.
                for &t in targets.iter().rev() {
                    stack.push(Frame {
                        file: t,
                        next: 0,
                        end: config.file(t).parsed.tree.nodes.len() as NodeId,
                        parent,
                        via: me,
                        open: Vec::new(),
                    });
                }
            }
        }
        Expanded {
            occurrences: occ,
            names,
            by_name,
            by_parent: {
                // NO_PARENT (u32::MAX) sorts last, which is fine: it is one more key.
                by_parent.sort_unstable();
                by_parent
            },
        }
    }

    /// Every occurrence of a directive, in configuration order.
    pub fn named(&self, name: &str) -> std::iter::Copied<std::slice::Iter<'_, OccId>> {
        let list = match self.names.get(name.as_bytes()) {
            Some(&id) => self.by_name[id as usize].as_slice(),
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
    pub fn children_named(&self, parent: OccId, name: &str) -> Vec<OccId> {
        let Some(&id) = self.names.get(name.as_bytes()) else {
            return Vec::new();
        };
        let lo = self
            .by_parent
            .partition_point(|&(p, n, _)| (p, n) < (parent, id));
        let hi = self
            .by_parent
            .partition_point(|&(p, n, _)| (p, n) <= (parent, id));
        self.by_parent[lo..hi].iter().map(|&(_, _, o)| o).collect()
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

    pub fn name(&self, id: OccId) -> std::borrow::Cow<'a, str> {
        let o = self.expanded.get(id);
        self.directive(id)
            .name
            .text(&self.config.file(o.file).source.text)
    }

    /// Argument values as text.
    pub fn args(&self, id: OccId) -> Vec<std::borrow::Cow<'a, str>> {
        let o = self.expanded.get(id);
        let f = self.config.file(o.file);
        f.parsed
            .tree
            .args(self.directive(id))
            .iter()
            .map(|w| w.text(&f.source.text))
            .collect()
    }

    /// The file and the directive's name span: where a diagnostic about it points.
    pub fn location(&self, id: OccId) -> (crate::source::Shared, crate::source::Span) {
        let o = self.expanded.get(id);
        (
            self.config.file(o.file).source.clone(),
            self.directive(id).name.raw,
        )
    }

    /// The block path, outermost first: `["http", "server", "location"]`.
    pub fn context(&self, id: OccId) -> Vec<std::borrow::Cow<'a, str>> {
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
    pub fn effective(&self, block: OccId, name: &str) -> Vec<OccId> {
        let mut level = Some(block);
        while let Some(b) = level {
            let hits = self.expanded.children_named(b, name);
            if !hits.is_empty() {
                return hits;
            }
            level = if b == NO_PARENT {
                None
            } else {
                Some(self.expanded.get(b).parent)
            };
        }
        Vec::new()
    }
}
