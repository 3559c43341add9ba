//! nginx's tree of the prefix and exact locations of one level (a server, or a location's
//! nested ones), built and searched as `ngx_http_init_static_location_trees` and
//! `ngx_http_core_find_static_location` do (nginx 1.22, `src/http/ngx_http.c`,
//! `ngx_http_core_module.c`).
//!
//! The locations are sorted by name (with `ngx_filename_cmp`, where `/` sorts before every
//! other byte, and `=` before a prefix location of the same name); an exact and a prefix
//! location of the same name share an entry; each prefix location takes the entries after
//! it whose names start with its name as its subtree; every list becomes a binary tree
//! around its middle entry. A search compares the URI with a node's name: smaller goes
//! left, larger right; a prefix node whose name starts the URI is remembered and the search
//! goes on in its subtree with the rest of the URI. The answer is the longest prefix, with
//! nginx's quirks kept: a node's length is one byte (`u_char`), so a name longer than 255
//! bytes past its parent's is matched on its length modulo 256, as nginx does; and a URI
//! one `/` short of a location with a `*_pass` is a redirect (`auto_redirect`).
//!
//! Building is a sort plus one pass per list; a search visits one node per level of each
//! binary tree it descends: O(log n) per nesting of prefixes.

use super::{Kind, LocId, Location};
use std::cmp::Ordering;

const NONE: u32 = u32::MAX;

/// `ngx_filename_cmp` on Linux (case-sensitive): the first `n` bytes, a byte past the end
/// of either being the NUL that ends a C string; `/` below every byte but NUL.
pub(super) fn filename_cmp(a: &[u8], b: &[u8], n: usize) -> Ordering {
    for i in 0..n {
        let c1 = a.get(i).copied().unwrap_or(0);
        let c2 = b.get(i).copied().unwrap_or(0);
        if c1 == c2 {
            if c1 == 0 {
                return Ordering::Equal;
            }
            continue;
        }
        if c1 == 0 || c2 == 0 {
            return c1.cmp(&c2);
        }
        let map = |c: u8| if c == b'/' { 0 } else { c };
        return map(c1).cmp(&map(c2));
    }
    Ordering::Equal
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// No location matched.
    Declined,
    /// An exact location.
    Exact(LocId),
    /// The longest matching prefix location.
    Prefix(LocId),
    /// The URI is this location's name without its final `/`, and it passes requests to
    /// an upstream (`auto_redirect`): a 301 to the name.
    Redirect(LocId),
}

/// One entry of a sorted list: an exact location, a prefix location, or both (same name).
struct Entry {
    exact: Option<LocId>,
    inclusive: Option<LocId>,
    /// The entries whose names start with this (prefix) location's name, sorted.
    list: Vec<u32>,
}

impl Entry {
    fn loc(&self) -> LocId {
        self.exact
            .or(self.inclusive)
            .expect("an entry has a location")
    }
}

struct Node {
    left: u32,
    right: u32,
    /// The tree of the entries under this prefix location.
    tree: u32,
    exact: Option<LocId>,
    inclusive: Option<LocId>,
    auto_redirect: bool,
    /// The name is `name_of`'s name from `start`, `len` bytes (nginx's `u_char len`).
    name_of: LocId,
    start: u32,
    len: u8,
}

pub(super) struct StaticTree {
    nodes: Vec<Node>,
    root: u32,
}

/// A location the tree could not take: nginx refuses the configuration.
pub(super) struct Duplicate(pub LocId);

impl StaticTree {
    pub(super) const fn empty() -> StaticTree {
        StaticTree {
            nodes: Vec::new(),
            root: NONE,
        }
    }

    /// The tree of the exact and prefix locations among `level` (one level's locations, in
    /// configuration order). Duplicates (two of the same kind and name) are left out and
    /// returned.
    pub(super) fn build(level: &[LocId], locs: &[Location]) -> (StaticTree, Vec<Duplicate>) {
        let name = |id: LocId| &*locs[id as usize].name;
        let mut ids: Vec<LocId> = level
            .iter()
            .copied()
            .filter(|&id| {
                matches!(
                    locs[id as usize].kind,
                    Kind::Exact | Kind::Prefix | Kind::NoRegexPrefix
                )
            })
            .collect();
        if ids.is_empty() {
            return (StaticTree::empty(), Vec::new());
        }
        let exact = |id: LocId| locs[id as usize].kind == Kind::Exact;
        // `ngx_http_cmp_locations` (a stable sort, as `ngx_queue_sort`).
        ids.sort_by(|&a, &b| {
            let (x, y) = (name(a), name(b));
            filename_cmp(x, y, x.len().min(y.len()) + 1).then(exact(b).cmp(&exact(a)))
        });
        // `ngx_http_join_exact_locations`.
        let mut entries: Vec<Entry> = Vec::with_capacity(ids.len());
        let mut duplicates = Vec::new();
        for id in ids {
            let (e, i) = if exact(id) {
                (Some(id), None)
            } else {
                (None, Some(id))
            };
            if let Some(last) = entries.last_mut() {
                let other = name(last.loc());
                if other.len() == name(id).len()
                    && filename_cmp(other, name(id), other.len()) == Ordering::Equal
                {
                    if (e.is_some() && last.exact.is_some())
                        || (i.is_some() && last.inclusive.is_some())
                    {
                        duplicates.push(Duplicate(id));
                    } else {
                        last.inclusive = i;
                    }
                    continue;
                }
            }
            entries.push(Entry {
                exact: e,
                inclusive: i,
                list: Vec::new(),
            });
        }
        // `ngx_http_create_locations_list`: each entry goes under the nearest prefix entry
        // before it whose name starts it. Names that start with a name follow it
        // contiguously in the sorted order, so a stack of the open prefix entries does it.
        let mut top: Vec<u32> = Vec::new();
        let mut open: Vec<u32> = Vec::new();
        for k in 0..entries.len() as u32 {
            let me = name(entries[k as usize].loc());
            while let Some(&p) = open.last() {
                let pn = name(entries[p as usize].loc());
                if me.len() >= pn.len() && filename_cmp(pn, me, pn.len()) == Ordering::Equal {
                    break;
                }
                open.pop();
            }
            match open.last() {
                Some(&p) => entries[p as usize].list.push(k),
                None => top.push(k),
            }
            if entries[k as usize].inclusive.is_some() {
                open.push(k);
            }
        }
        // `ngx_http_create_locations_tree`, with a work list instead of recursion (a chain
        // of prefixes `/a`, `/aa`, `/aaa`… nests as deep as it is long).
        let mut tree = StaticTree {
            nodes: Vec::with_capacity(entries.len()),
            root: NONE,
        };
        // (the entries of a list, a range of it, the prefix length, where to link the node)
        enum Link {
            Root,
            Left(u32),
            Right(u32),
            Tree(u32),
        }
        let lists: Vec<&[u32]> = std::iter::once(top.as_slice())
            .chain(entries.iter().map(|e| e.list.as_slice()))
            .collect();
        let mut work: Vec<(usize, usize, usize, usize, Link)> =
            vec![(0, 0, top.len(), 0, Link::Root)];
        while let Some((list, lo, hi, prefix, link)) = work.pop() {
            let items = &lists[list][lo..hi];
            let mid = items.len() / 2;
            let k = items[mid];
            let entry = &entries[k as usize];
            let loc = entry.loc();
            let len = name(loc).len() - prefix;
            let auto = |id: Option<LocId>| id.is_some_and(|id| locs[id as usize].auto_redirect);
            let me = tree.nodes.len() as u32;
            tree.nodes.push(Node {
                left: NONE,
                right: NONE,
                tree: NONE,
                exact: entry.exact,
                inclusive: entry.inclusive,
                auto_redirect: auto(entry.exact) || auto(entry.inclusive),
                name_of: loc,
                start: prefix as u32,
                len: len as u8,
            });
            match link {
                Link::Root => tree.root = me,
                Link::Left(p) => tree.nodes[p as usize].left = me,
                Link::Right(p) => tree.nodes[p as usize].right = me,
                Link::Tree(p) => tree.nodes[p as usize].tree = me,
            }
            if mid > 0 {
                work.push((list, lo, lo + mid, prefix, Link::Left(me)));
            }
            if mid + 1 < items.len() {
                work.push((list, lo + mid + 1, hi, prefix, Link::Right(me)));
            }
            if !entry.list.is_empty() {
                // nginx passes the full length on, though the node kept it modulo 256.
                let sub = k as usize + 1;
                work.push((sub, 0, entry.list.len(), prefix + len, Link::Tree(me)));
            }
        }
        (tree, duplicates)
    }

    /// `ngx_http_core_find_static_location` for `uri`.
    pub(super) fn find(&self, uri: &[u8], locs: &[Location]) -> Found {
        let mut node = self.root;
        let mut uri = uri;
        let mut found = Found::Declined;
        while node != NONE {
            let n = &self.nodes[node as usize];
            let full = &locs[n.name_of as usize].name;
            let start = (n.start as usize).min(full.len());
            let end = (start + n.len as usize).min(full.len());
            let name = &full[start..end];
            let len = n.len as usize;
            let cmp = filename_cmp(uri, name, uri.len().min(len));
            if cmp != Ordering::Equal {
                node = if cmp == Ordering::Less {
                    n.left
                } else {
                    n.right
                };
                continue;
            }
            match uri.len().cmp(&len) {
                Ordering::Greater => {
                    if let Some(inc) = n.inclusive {
                        found = Found::Prefix(inc);
                        uri = &uri[len..];
                        node = n.tree;
                    } else {
                        node = n.right;
                    }
                }
                Ordering::Equal => {
                    return match (n.exact, n.inclusive) {
                        (Some(e), _) => Found::Exact(e),
                        (None, Some(i)) => Found::Prefix(i),
                        (None, None) => found,
                    };
                }
                Ordering::Less => {
                    if uri.len() + 1 == len && n.auto_redirect {
                        found = Found::Redirect(n.exact.or(n.inclusive).unwrap_or(n.name_of));
                    }
                    node = n.left;
                }
            }
        }
        found
    }
}
