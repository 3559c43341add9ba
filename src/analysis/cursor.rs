//! A typed cursor over an nginx configuration as nginx reads it (includes expanded), so that
//! rules ask questions of directives and words instead of juggling the instance, its view,
//! occurrence ids, trees and sources.
//!
//! A [`Directive`] is one occurrence in one configuration: a snippet included twice is two
//! directives (with different parents), the same node of the same file. Reporting through
//! `Context::report` keeps one finding per place, so a rule may walk every configuration
//! without keeping its own "seen" set.
//!
//! Contexts are nginx's own (`NGX_HTTP_SRV_CONF`, …; [`known`]'s bit set). Where a directive
//! stands is a *set* of them: the top of a file nothing includes may be any context (a
//! snippet can be included anywhere), and each enclosing block narrows it.

use crate::analysis::catalogue;
use crate::fix::{edits, Edit};
use crate::source::{Shared, Span};
use crate::stack::expanded::{OccId, NO_PARENT};
use crate::stack::model::NginxInstance;
use crate::syntax::nginx::known::{self, Ctx};
use crate::syntax::nginx::tree;
use std::borrow::Cow;

/// One directive occurrence of one nginx configuration.
#[derive(Clone, Copy)]
pub struct Directive<'a> {
    inst: &'a NginxInstance,
    occ: OccId,
}

/// Equality and hashing by identity: the same occurrence of the same configuration (so a
/// rule can key a per-block cache by a directive).
macro_rules! identity {
    ($t:ident) => {
        impl PartialEq for $t<'_> {
            fn eq(&self, other: &Self) -> bool {
                std::ptr::eq(self.inst, other.inst) && self.occ == other.occ
            }
        }

        impl Eq for $t<'_> {}

        impl std::hash::Hash for $t<'_> {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                std::ptr::hash(self.inst, state);
                self.occ.hash(state);
            }
        }
    };
}

identity!(Directive);
identity!(Block);

impl std::fmt::Debug for Directive<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Directive")
            .field("name", &self.name())
            .field("file", &self.file().path)
            .field("span", &self.span())
            .finish()
    }
}

/// The directives of the configuration's main context (through includes), in order.
pub fn top_level<'a>(inst: &'a NginxInstance) -> impl Iterator<Item = Directive<'a>> {
    inst.expanded
        .children(NO_PARENT)
        .map(move |occ| Directive { inst, occ })
}

/// Every directive named `name` in the configuration, in configuration order: a lookup in
/// the name index, never a walk of the tree.
pub fn named<'a>(inst: &'a NginxInstance, name: &str) -> impl Iterator<Item = Directive<'a>> {
    inst.expanded
        .named(name)
        .map(move |occ| Directive { inst, occ })
}

impl<'a> Directive<'a> {
    pub fn new(inst: &'a NginxInstance, occ: OccId) -> Directive<'a> {
        Directive { inst, occ }
    }

    pub fn occ(self) -> OccId {
        self.occ
    }

    pub fn instance(self) -> &'a NginxInstance {
        self.inst
    }

    /// The id of this `server` block (its configuration and occurrence): what a rule keys
    /// per-server facts by.
    pub fn server_id(self) -> crate::stack::ids::ServerId {
        crate::stack::ids::ServerId {
            config: self.inst.id,
            occ: self.occ,
        }
    }

    fn node(self) -> &'a tree::Directive {
        self.inst.view().directive(self.occ)
    }

    fn tree(self) -> &'a tree::Tree {
        &self
            .inst
            .config
            .file(self.inst.expanded.get(self.occ).file)
            .parsed
            .tree
    }

    /// The file the directive is written in.
    pub fn file(self) -> &'a Shared {
        &self
            .inst
            .config
            .file(self.inst.expanded.get(self.occ).file)
            .source
    }

    /// Whether this directive comes before `other` of the same configuration as nginx reads
    /// it (includes expanded); false for directives of different configurations.
    pub fn is_before(self, other: Directive<'_>) -> bool {
        std::ptr::eq(self.inst, other.inst) && self.occ < other.occ
    }

    /// Whether `other` (of the same configuration) is written in the same file.
    pub fn same_file(self, other: Directive<'_>) -> bool {
        std::ptr::eq(self.inst, other.inst)
            && self.inst.expanded.get(self.occ).file == self.inst.expanded.get(other.occ).file
    }

    /// The name's value (quotes and escapes resolved).
    pub fn name(self) -> &'a str {
        self.inst
            .expanded
            .name_text(self.inst.expanded.get(self.occ).name)
    }

    /// The name as a word.
    pub fn name_word(self) -> Word<'a> {
        Word {
            file: self.file(),
            word: self.tree().name(self.node()),
        }
    }

    /// Where a finding about the directive points: its name.
    pub fn span(self) -> Span {
        self.tree().name(self.node()).raw()
    }

    /// The arguments, in order.
    pub fn args(self) -> impl ExactSizeIterator<Item = Word<'a>> + 'a {
        let file = self.file();
        self.tree()
            .args(self.node())
            .iter()
            .map(move |&word| Word { file, word })
    }

    /// The `i`-th argument.
    pub fn arg(self, i: usize) -> Option<Word<'a>> {
        let word = *self.tree().args(self.node()).get(i)?;
        Some(Word {
            file: self.file(),
            word,
        })
    }

    /// Whether a comment is written between the directive's words: an edit that rewrites
    /// them would drop it.
    pub fn has_comments(self) -> bool {
        !self
            .tree()
            .comments_in(self.inst.expanded.get(self.occ).node)
            .is_empty()
    }

    /// The edit inserting `statement` on its own line after this directive, with its
    /// indentation (in the file the directive is written in, so the statement lands in
    /// the same block of every configuration that reads that file).
    pub fn insert_after(self, statement: &str) -> Edit {
        let node = self.inst.expanded.get(self.occ).node;
        edits::insert_after(self.file(), self.tree(), node, statement)
    }

    /// The edit deleting the directive (its lines, when it stands alone on them).
    pub fn delete(self) -> Edit {
        let node = self.inst.expanded.get(self.occ).node;
        edits::delete_directive(self.file(), self.tree(), node)
    }

    /// The edit inserting `statement` as the first line inside this block's braces.
    pub fn insert_at_block_start(self, statement: &str) -> Edit {
        let node = self.inst.expanded.get(self.occ).node;
        edits::insert_at_block_start(self.file(), self.tree(), node, statement)
    }

    /// Whether this directive is written between `block`'s braces in `block`'s own file,
    /// rather than brought in by an `include`.
    pub fn is_written_in(self, block: Directive<'_>) -> bool {
        self.same_file(block)
            && self
                .tree()
                .node(self.inst.expanded.get(self.occ).node)
                .parent
                == block.inst.expanded.get(block.occ).node
    }

    /// Whether the directive ends with `;` (a statement, not a block or a truncated one).
    pub fn has_semicolon(self) -> bool {
        self.node().semicolon().is_some()
    }

    /// The entries of a block nginx reads as a table rather than as directives (`map`,
    /// `geo`, `types`, `split_clients`): each line's first word and its first value, with
    /// the entries of files an `include` among them reads, in order.
    pub fn entries(self) -> Vec<(Word<'a>, Option<Word<'a>>)> {
        let mut out = Vec::new();
        self.for_each_entry(&mut |key, value| out.push((key, value)));
        out
    }

    /// The [`Directive::entries`] that `keep` accepts, without collecting the others.
    pub fn entries_where(
        self,
        keep: impl Fn(&Word<'a>, &Option<Word<'a>>) -> bool,
    ) -> Vec<(Word<'a>, Option<Word<'a>>)> {
        let mut out = Vec::new();
        self.for_each_entry(&mut |key, value| {
            if keep(&key, &value) {
                out.push((key, value));
            }
        });
        out
    }

    /// [`Directive::entries`] one at a time, without collecting them: a `map` of a million
    /// lines, of which a rule wants a few (regex keys), costs no list of a million pairs.
    pub fn for_each_entry(self, each: &mut dyn FnMut(Word<'a>, Option<Word<'a>>)) {
        // nginx refuses includes nested deeper than its own limit long before this.
        const MAX_INCLUDE_DEPTH: usize = 16;
        fn walk<'a>(
            inst: &'a NginxInstance,
            file: crate::source::FileId,
            node: crate::syntax::nginx::NodeId,
            depth: usize,
            out: &mut dyn FnMut(Word<'a>, Option<Word<'a>>),
        ) {
            let f = inst.config.file(file);
            let t = &f.parsed.tree;
            for id in t.children(node) {
                let Some(d) = t.node(id).kind.statement() else {
                    continue;
                };
                let key = t.name(d);
                if key.is(&f.source.text, "include") {
                    if depth < MAX_INCLUDE_DEPTH {
                        for &target in inst.config.includes.get(file, id).unwrap_or_default() {
                            walk(inst, target, crate::syntax::nginx::ROOT, depth + 1, out);
                        }
                    }
                    continue;
                }
                let value = t.args(d).first().map(|&word| Word {
                    file: &f.source,
                    word,
                });
                out(
                    Word {
                        file: &f.source,
                        word: key,
                    },
                    value,
                );
            }
        }
        let o = self.inst.expanded.get(self.occ);
        walk(self.inst, o.file, o.node, 0, each);
    }

    /// Whether the directive opens a block (`server { … }`).
    pub fn has_block(self) -> bool {
        self.node().block().is_some()
    }

    /// Whether an `include` written directly in this block read no file (missing, outside
    /// the tree, a template, a glob that matched nothing here): what it would bring there
    /// is unknown, so a rule asking "does this block say X" cannot answer no. A package's
    /// stock file (`fastcgi_params`, `snippets/fastcgi-php.conf`, `mime.types`, …) is known
    /// without reading it: parameters and types, no access rules, servers or passes.
    pub fn has_unread_include(self) -> bool {
        self.unread_includes().next().is_some()
    }

    /// The `include` children of this block that read nothing (see
    /// [`Directive::has_unread_include`]).
    pub fn unread_includes(self) -> impl Iterator<Item = Directive<'a>> + 'a {
        self.children("include").filter(|i| i.is_unknown_include())
    }

    /// Whether this `include` read nothing and names no package's stock file (see
    /// [`Directive::has_unread_include`]): what it would bring is unknown.
    pub fn is_unknown_include(self) -> bool {
        let stock = self.arg(0).is_some_and(|a| {
            let v = a.value();
            let name = v.rsplit('/').next().unwrap_or(&v);
            crate::stack::model::STOCK_NGINX_FILES.contains(&name)
        });
        !stock && self.read_nothing()
    }

    /// Whether this `include` read no file (missing, outside the tree, a glob matching
    /// nothing).
    pub fn read_nothing(self) -> bool {
        let o = self.inst.expanded.get(self.occ);
        self.inst
            .config
            .includes
            .get(o.file, o.node)
            .is_none_or(|targets| targets.is_empty())
    }

    /// The enclosing block directive, across includes; `None` at the top level.
    pub fn parent(self) -> Option<Directive<'a>> {
        let parent = self.inst.expanded.get(self.occ).parent;
        (parent != NO_PARENT).then_some(Directive {
            inst: self.inst,
            occ: parent,
        })
    }

    /// The nearest enclosing block named `name` (the `server` a `fastcgi_pass` is in).
    pub fn enclosing(self, name: &str) -> Option<Directive<'a>> {
        let inst = self.inst;
        inst.expanded
            .ancestors(self.occ)
            .find(|&a| inst.expanded.name_text(inst.expanded.get(a).name) == name)
            .map(|occ| Directive { inst, occ })
    }

    /// The enclosing blocks' names, outermost first: `["http", "server", "location"]`.
    pub fn block_path(self) -> Vec<&'a str> {
        self.inst.view().context(self.occ)
    }

    /// The directives named `name` directly inside this block, in order.
    pub fn children(self, name: &str) -> impl Iterator<Item = Directive<'a>> {
        let inst = self.inst;
        inst.expanded
            .children_named(self.occ, name)
            .iter()
            .map(move |&occ| Directive { inst, occ })
    }

    /// The directives named `name` in the block this one stands in (the main context at the
    /// top level), itself included when it has that name, in order.
    pub fn siblings(self, name: &str) -> impl Iterator<Item = Directive<'a>> {
        let inst = self.inst;
        let parent = inst.expanded.get(self.occ).parent;
        inst.expanded
            .children_named(parent, name)
            .iter()
            .map(move |&occ| Directive { inst, occ })
    }

    /// Every directive directly inside this block, in order.
    pub fn all_children(self) -> impl Iterator<Item = Directive<'a>> {
        let inst = self.inst;
        inst.expanded
            .children(self.occ)
            .map(move |occ| Directive { inst, occ })
    }

    /// The directives that set `name` for this block as nginx merges it (see [`merge`]): the
    /// block's own; else, for an inherited directive, the nearest enclosing level that sets
    /// it (for array-like ones, every entry of that one level, which replaces all inherited
    /// ones). Empty for a directive that is not inherited and not set here.
    pub fn effective(self, name: &str) -> impl Iterator<Item = Directive<'a>> {
        Block::from(self).effective(name)
    }

    /// The level this directive is written at: its enclosing block, or the main context.
    pub fn level(self) -> Block<'a> {
        Block {
            inst: self.inst,
            occ: self.inst.expanded.get(self.occ).parent,
        }
    }

    /// The directives that set `name` where this directive stands: the
    /// [`Directive::effective`] of the enclosing level (the main context at the top level).
    /// For a block, what it would inherit if it set none itself; for a `fastcgi_pass`, the
    /// `fastcgi_read_timeout` it runs with. Empty for a directive that is not inherited.
    pub fn inherited(self, name: &str) -> impl Iterator<Item = Directive<'a>> {
        let inst = self.inst;
        let occs: &'a [OccId] = match merge(name) {
            Merge::NotInherited => &[],
            Merge::Inherited | Merge::Replaced => inst
                .view()
                .effective(inst.expanded.get(self.occ).parent, name),
        };
        occs.iter().map(move |&occ| Directive { inst, occ })
    }

    /// The contexts this directive may stand in: one for a configuration read from its
    /// main file, several at the top of a file nothing includes, or inside an unknown block.
    pub fn contexts(self) -> Ctx {
        self.inst.contexts(self.occ)
    }

    /// Whether the directive certainly stands in one of `ctx` (e.g. `known::HTTP_LOC |
    /// known::HTTP_LIF`): false when it may also stand elsewhere.
    pub fn is_in(self, ctx: Ctx) -> bool {
        let here = self.contexts();
        here != 0 && here & !ctx == 0
    }
}

/// A level directives are written at: the main context of a configuration, or the block of
/// a block directive. Settings are inherited level by level up to the main context, which has
/// no directive of its own, so questions about "where this is set" take a `Block`.
#[derive(Clone, Copy)]
pub struct Block<'a> {
    inst: &'a NginxInstance,
    /// `NO_PARENT` for the main context.
    occ: OccId,
}

impl std::fmt::Debug for Block<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.directive() {
            Some(d) => write!(f, "Block({d:?})"),
            None => f.write_str("Block(main)"),
        }
    }
}

impl<'a> From<Directive<'a>> for Block<'a> {
    fn from(d: Directive<'a>) -> Block<'a> {
        Block {
            inst: d.inst,
            occ: d.occ,
        }
    }
}

impl<'a> Block<'a> {
    /// The main context (through includes).
    pub fn main(inst: &'a NginxInstance) -> Block<'a> {
        Block {
            inst,
            occ: NO_PARENT,
        }
    }

    /// The block directive; `None` for the main context.
    pub fn directive(self) -> Option<Directive<'a>> {
        (self.occ != NO_PARENT).then_some(Directive {
            inst: self.inst,
            occ: self.occ,
        })
    }

    pub fn is_main(self) -> bool {
        self.occ == NO_PARENT
    }

    /// The block's name (`server`), `main` for the main context.
    pub fn name(self) -> &'a str {
        self.directive().map_or("main", Directive::name)
    }

    /// The directives named `name` written directly at this level, in order.
    pub fn children(self, name: &str) -> impl Iterator<Item = Directive<'a>> {
        let inst = self.inst;
        inst.expanded
            .children_named(self.occ, name)
            .iter()
            .map(move |&occ| Directive { inst, occ })
    }

    /// [`Directive::effective`] for this level.
    pub fn effective(self, name: &str) -> impl Iterator<Item = Directive<'a>> {
        let inst = self.inst;
        let occs: &'a [OccId] = match merge(name) {
            Merge::NotInherited => inst.expanded.children_named(self.occ, name),
            Merge::Inherited | Merge::Replaced => inst.view().effective(self.occ, name),
        };
        occs.iter().map(move |&occ| Directive { inst, occ })
    }

    /// Whether `self` is `outer` or lies inside it.
    pub fn is_within(self, outer: Block<'_>) -> bool {
        std::ptr::eq(self.inst, outer.inst)
            && (outer.occ == NO_PARENT
                || self.occ == outer.occ
                || (self.occ != NO_PARENT
                    && self
                        .inst
                        .expanded
                        .ancestors(self.occ)
                        .any(|a| a == outer.occ)))
    }

    /// The nearest block named `name` that is this one or encloses it (the `http` a server
    /// belongs to).
    pub fn enclosing_or_self(self, name: &str) -> Option<Directive<'a>> {
        let d = self.directive()?;
        if d.name() == name {
            Some(d)
        } else {
            d.enclosing(name)
        }
    }
}

/// How nginx carries a directive from an enclosing level into a block that does not set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// The nearest level that sets it applies (`root`, `gzip`, `fastcgi_read_timeout`).
    Inherited,
    /// Array-like: the entries of the nearest level that has any apply, and a level that sets
    /// one replaces all inherited ones (`add_header`, `fastcgi_param`, `allow`/`deny`).
    Replaced,
    /// Each block has its own or none (`listen`, `server_name`, `location`, the rewrite
    /// module's `return`, `rewrite`, `set` and `if`, which run in their own block's phase).
    NotInherited,
}

/// The merge policy of `name` in http: the directive catalogue's where it found one in the
/// http module's merge function (`ngx_conf_merge_*` → inherited, a list assigned from the
/// enclosing level when unset → replaced). Where it could not tell (custom merge code:
/// `root`, `allow`, `index`, the rewrite module), the lists below say, from nginx's
/// documentation: the rewrite module's directives and the block directives belong to their
/// block; the access and header lists are replaced; everything else is inherited.
pub fn merge(name: &str) -> Merge {
    // Looked up for every `effective` query: the policy of each name the catalogue or the
    // lists know is worked out once (a name in neither is inherited).
    static POLICIES: std::sync::OnceLock<crate::fxhash::FxHashMap<&'static str, Merge>> =
        std::sync::OnceLock::new();
    let policies = POLICIES.get_or_init(|| {
        // The catalogue is sorted by name: each name's entries are one run of it, judged
        // where they are (a binary search per name was most of a small stack's rules).
        let mut entries = catalogue::all();
        let mut policies = crate::fxhash::FxHashMap::with_capacity_and_hasher(
            entries.len() + OWN.len() + ARRAYS.len(),
            Default::default(),
        );
        while let Some(first) = entries.first() {
            let run = entries.partition_point(|e| e.name == first.name);
            policies.insert(first.name, policy(first.name, &entries[..run]));
            entries = &entries[run..];
        }
        for &n in OWN.iter().chain(ARRAYS) {
            policies
                .entry(n)
                .or_insert_with(|| policy(n, catalogue::lookup(n)));
        }
        policies
    });
    policies.get(name).copied().unwrap_or(Merge::Inherited)
}

const OWN: &[&str] = &[
    "break",
    "if",
    "internal",
    "limit_except",
    "listen",
    "location",
    "return",
    "rewrite",
    "server",
    "server_name",
    "set",
    "upstream",
];
const ARRAYS: &[&str] = &[
    "add_header",
    "add_trailer",
    "allow",
    "deny",
    "error_page",
    "fastcgi_hide_header",
    "fastcgi_param",
    "fastcgi_pass_header",
    "proxy_hide_header",
    "proxy_pass_header",
    "proxy_set_header",
    "uwsgi_param",
    "scgi_param",
    "grpc_set_header",
];

/// The policy of `name`, whose catalogue entries are `entries`.
fn policy(name: &str, entries: &[catalogue::Entry]) -> Merge {
    if OWN.contains(&name) {
        return Merge::NotInherited;
    }
    // The http command of that name that servers and locations use (not `upstream`'s
    // `keepalive_timeout`). Only positive evidence is taken: the generator's "no merge"
    // also covers lists merged by custom code (`fastcgi_hide_header`).
    let http = entries.iter().find(|e| {
        e.module.starts_with("ngx_http_") && e.allowed_in(known::HTTP_SRV | known::HTTP_LOC)
    });
    match http.map(|e| e.merge) {
        Some(catalogue::Merge::Array) => return Merge::Replaced,
        Some(catalogue::Merge::Inherited) => return Merge::Inherited,
        _ => {}
    }
    if ARRAYS.contains(&name) {
        Merge::Replaced
    } else {
        Merge::Inherited
    }
}

/// One word of a directive (its name or an argument), with the file it is in.
#[derive(Clone, Copy)]
pub struct Word<'a> {
    file: &'a Shared,
    word: tree::Word,
}

impl std::fmt::Debug for Word<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Word({:?})", self.raw_text())
    }
}

impl<'a> Word<'a> {
    /// The value nginx sees: quotes removed, escapes resolved, invalid UTF-8 replaced.
    /// Whether a placeholder the deployment fills in is in the word (see
    /// [`crate::syntax::template`]): its text is not the value the server will read.
    pub fn is_templated(self) -> bool {
        let f = self.file;
        crate::syntax::template::touches(&f.holes, &f.text, self.raw())
    }

    pub fn value(self) -> Cow<'a, str> {
        self.word.text(&self.file.text)
    }

    /// [`Word::value`] as bytes.
    pub fn bytes(self) -> Cow<'a, [u8]> {
        self.word.value(&self.file.text)
    }

    /// The token as written, quotes included: where a finding or an edit goes.
    pub fn raw(self) -> Span {
        self.word.raw()
    }

    /// The token as written, as bytes (no copy): a cheap test for a byte before the value
    /// is unescaped (`$` is never produced by an escape, so a value with one has it here).
    pub fn raw_bytes(self) -> &'a [u8] {
        &self.file.text[self.word.raw().range()]
    }

    /// The token as written, as text.
    pub fn raw_text(self) -> Cow<'a, str> {
        tree::lossy_text(self.raw_bytes())
    }

    /// The part inside the quotes (the whole token when unquoted).
    pub fn inner(self) -> Span {
        self.word.inner()
    }

    pub fn is_quoted(self) -> bool {
        self.word.quote(&self.file.text) != tree::Quote::None
    }

    /// Whether the value equals `s` (ASCII case ignored: nginx compares names, flags and
    /// keywords with `ngx_strcasecmp`).
    pub fn is(self, s: &str) -> bool {
        self.bytes().eq_ignore_ascii_case(s.as_bytes())
    }

    pub fn file(self) -> &'a Shared {
        self.file
    }

    /// The value split into literal text, variables (`$name`, `${name}`) and captures
    /// (`$1`…`$9`), each with its span in the source, as nginx's script compiler reads it.
    pub fn variables(self) -> crate::analysis::variables::Script {
        crate::analysis::variables::Script::parse_word(&self.word, &self.file.text)
    }

    /// The edit replacing this word by `value`, quoted when nginx needs it.
    pub fn replace(self, value: &str) -> Edit {
        edits::replace_arg(self.file, &self.word, value)
    }

    /// The syntax tree's word, for the edit helpers.
    pub fn tree_word(self) -> tree::Word {
        self.word
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::discover::StackFiles;
    use crate::stack::fs::DumpFs;
    use crate::stack::model::{BuildOptions, Stack};
    use std::path::PathBuf;

    /// The stack of a repository holding the nginx files `files` (paths under `/repo`).
    fn stack(files: &[(&str, &str)]) -> Stack {
        let mut fs = DumpFs::default();
        let mut found = StackFiles {
            root: PathBuf::from("/repo"),
            ..Default::default()
        };
        for (path, text) in files {
            let path = PathBuf::from("/repo").join(path);
            fs.files.insert(path.clone(), text.as_bytes().to_vec());
            found.nginx.push(path);
        }
        let opts = BuildOptions {
            prefix: None,
            root: None,
        };
        Stack::build(&fs, &found, &opts, Default::default())
    }

    #[test]
    fn a_directive_knows_its_words_block_path_and_context() {
        let s = stack(&[(
            "etc/nginx/nginx.conf",
            "events {}\nhttp {\n  server {\n    location / { if ($x) { return 403; } }\n    listen 80;\n  }\n}\n",
        )]);
        let inst = &s.nginx[0];
        let ret = named(inst, "return").next().unwrap();
        assert_eq!(ret.block_path(), ["http", "server", "location", "if"]);
        assert_eq!(ret.arg(0).unwrap().value(), "403");
        assert!(ret.is_in(known::HTTP_LIF));
        assert!(!ret.is_in(known::HTTP_SIF));
        let listen = named(inst, "listen").next().unwrap();
        assert!(listen.is_in(known::HTTP_SRV));
        assert_eq!(listen.parent().unwrap().name(), "server");
        assert_eq!(&listen.file().text[listen.span().range()], b"listen");
    }

    #[test]
    fn effective_follows_each_directives_merge_policy() {
        let s = stack(&[(
            "etc/nginx/nginx.conf",
            "http {\n  root /srv;\n  add_header A 1;\n  server {\n    listen 80;\n    add_header B 2;\n    location / { }\n  }\n}\n",
        )]);
        let inst = &s.nginx[0];
        let loc = named(inst, "location").next().unwrap();
        let root: Vec<_> = loc
            .effective("root")
            .map(|d| d.arg(0).unwrap().value())
            .collect();
        assert_eq!(root, ["/srv"]);
        // The server's add_header replaces http's; listen is not inherited at all.
        let headers: Vec<_> = loc
            .effective("add_header")
            .map(|d| d.arg(0).unwrap().value())
            .collect();
        assert_eq!(headers, ["B"]);
        assert_eq!(loc.effective("listen").count(), 0);
    }

    #[test]
    fn top_level_reads_through_includes_and_edits_land_in_the_written_file() {
        let s = stack(&[
            (
                "etc/nginx/nginx.conf",
                "include main.d/*.conf;\nevents {}\n",
            ),
            (
                "etc/nginx/main.d/workers.conf",
                "worker_processes 4; # four\n",
            ),
        ]);
        let inst = s
            .nginx
            .iter()
            .find(|i| !i.standalone)
            .expect("the main configuration");
        let names: Vec<_> = top_level(inst).map(|d| d.name()).collect();
        // The include stays where it is written; what it reads follows it.
        assert_eq!(names, ["include", "worker_processes", "events"]);
        let wp = top_level(inst).nth(1).unwrap();
        assert!(wp.file().path.ends_with("workers.conf"));
        // A comment after the `;` is not between the words.
        assert!(!wp.has_comments());
        let line = "worker_processes 4; # four\n".len() as u32;
        let edit = wp.insert_after("worker_rlimit_nofile 8192;");
        assert_eq!(edit.file.path, wp.file().path);
        assert_eq!(
            (edit.range, edit.content.as_str()),
            (Span::new(line, line), "worker_rlimit_nofile 8192;\n")
        );
        let del = wp.delete();
        assert_eq!(del.file.path, wp.file().path);
        assert_eq!((del.range, del.content.as_str()), (Span::new(0, line), ""));
    }

    #[test]
    fn siblings_and_inherited_read_the_enclosing_levels() {
        let s = stack(&[(
            "etc/nginx/nginx.conf",
            "http {\n  gzip_types text/css;\n  server {\n    gzip_types a/b;\n    location / { gzip_types c/d; gzip_types e/f; listen 80; }\n  }\n}\n",
        )]);
        let inst = &s.nginx[0];
        let all: Vec<_> = named(inst, "gzip_types").collect();
        let loc = all[2].parent().unwrap();
        assert_eq!(loc.name(), "location");
        // Siblings: the block's own, in order, whichever of them asks.
        assert_eq!(
            all[3].siblings("gzip_types").collect::<Vec<_>>(),
            &all[2..4]
        );
        assert_eq!(all[0].siblings("gzip_types").collect::<Vec<_>>(), &all[..1]);
        // The location inherits the server's list, the server http's; listen is never.
        assert_eq!(loc.inherited("gzip_types").collect::<Vec<_>>(), &all[1..2]);
        let server = loc.parent().unwrap();
        assert_eq!(
            server.inherited("gzip_types").collect::<Vec<_>>(),
            &all[..1]
        );
        assert_eq!(loc.inherited("listen").count(), 0);
        assert_ne!(all[2], all[3]);
        assert_eq!(all[2].enclosing("server"), Some(server));
        assert!(all[2].same_file(all[0]));
        assert!(all[2].is_before(all[3]) && !all[3].is_before(all[2]));
        assert!(
            all[0].is_before(loc),
            "a block comes after what precedes it"
        );
        // A directive hashes its configuration's address, never the configuration's
        // (lazily filled) contents, so the lint's worry does not apply.
        #[allow(clippy::mutable_key_type)]
        let set: std::collections::HashSet<_> = all.iter().chain(&all).copied().collect();
        assert_eq!(set.len(), all.len());
        assert_eq!(all[0].enclosing("server"), None);
        assert_eq!(
            server.enclosing("server"),
            None,
            "a block does not enclose itself"
        );
    }

    #[test]
    fn has_comments_sees_a_comment_between_the_arguments() {
        let s = stack(&[(
            "etc/nginx/nginx.conf",
            "worker_cpu_affinity 01 # first\n 10;\nworker_processes 2;\nevents {}\n",
        )]);
        let inst = &s.nginx[0];
        let wca = named(inst, "worker_cpu_affinity").next().unwrap();
        assert!(wca.has_comments());
        assert!(!named(inst, "worker_processes")
            .next()
            .unwrap()
            .has_comments());
    }

    #[test]
    fn a_snippet_nothing_includes_may_stand_anywhere() {
        let s = stack(&[(
            "etc/nginx/snippets/php.conf",
            "location ~ \\.php$ { fastcgi_pass unix:/run/php.sock; }\n",
        )]);
        let inst = s
            .nginx
            .iter()
            .find(|i| i.standalone)
            .expect("a standalone snippet");
        let pass = named(inst, "fastcgi_pass").next().unwrap();
        assert!(pass.is_in(known::HTTP_LOC | known::HTTP_LIF));
        let loc = pass.parent().unwrap();
        assert!(
            !loc.is_in(known::HTTP_SRV),
            "the top of a snippet is any context"
        );
        assert!(!pass.arg(0).unwrap().is_quoted());
    }

    #[test]
    fn a_word_lists_its_variables_with_spans() {
        let s = stack(&[(
            "etc/nginx/nginx.conf",
            "events {}\nhttp { server { return 302 \"https://${host}$uri?x=$1\"; } }\n",
        )]);
        let inst = &s.nginx[0];
        let ret = named(inst, "return").next().unwrap();
        let word = ret.arg(1).unwrap();
        let script = word.variables();
        let refs: Vec<_> = script
            .references()
            .map(|p| String::from_utf8_lossy(&word.file().text[p.span.range()]).into_owned())
            .collect();
        assert_eq!(refs, ["${host}", "$uri", "$1"]);
    }
}
