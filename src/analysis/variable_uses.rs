//! Whether a configuration uses a variable at all: some directive of the instance, other than
//! the `map` or `geo` that defines it, names `$name` or `${name}` in an argument. A rule
//! judging what a variable's definition lets through (NGX132's origin allowlist in a `map`)
//! has nothing to report when the configuration as it runs never reads the variable (its
//! only consumer in an include that is commented out).
//!
//! Only answered for a whole configuration: a standalone file (a snippet, a vhost nothing
//! includes) may be read by a configuration not in the tree, and an `include` that read
//! nothing may hold the consumer; then the answer is "used" (unknown is not "unused").

use crate::analysis::cursor::{self, Directive};
use crate::source::Shared;
use crate::stack::model::{NginxInstance, Stack};
use std::collections::HashSet;

/// Each configuration's [`read_names`], computed when first asked.
#[derive(Default)]
pub struct Reads<'a> {
    names: Vec<(&'a NginxInstance, Option<HashSet<String>>)>,
}

impl<'a> Reads<'a> {
    /// Whether `var` is read by none of the whole configurations that load `file` (a map's
    /// own configuration, or, when the map is met in a standalone file's reading, the main
    /// files that include the same file): false when no whole configuration loads it, or
    /// one of them cannot be read completely.
    pub fn unread_where_loaded(&mut self, stack: &'a Stack, file: &Shared, var: &str) -> bool {
        let mut any = false;
        for inst in stack.nginx.iter().filter(|i| !i.standalone) {
            if !inst.config.files.iter().any(|f| f.source.path == file.path) {
                continue;
            }
            let at = match self.names.iter().position(|(i, _)| std::ptr::eq(*i, inst)) {
                Some(at) => at,
                None => {
                    self.names.push((inst, read_names(inst)));
                    self.names.len() - 1
                }
            };
            match &self.names[at].1 {
                Some(names) if !names.contains(var) => any = true,
                _ => return false,
            }
        }
        any
    }
}

/// The variable names (lowercase, without `$`) the instance's directives read, or `None`
/// when the configuration is not whole (see the module's comment).
pub fn read_names(inst: &NginxInstance) -> Option<HashSet<String>> {
    if inst.standalone {
        return None;
    }
    let mut names = HashSet::new();
    let mut stack: Vec<Directive<'_>> = cursor::top_level(inst).collect();
    while let Some(d) = stack.pop() {
        if d.name() == "include" && d.is_unknown_include() {
            return None;
        }
        // A map's or geo's second argument is the variable it defines, not a use.
        let defines = matches!(d.name(), "map" | "geo" | "split_clients");
        for (i, a) in d.args().enumerate() {
            if defines && i == d.args().len() - 1 {
                continue;
            }
            collect(&a.value(), &mut names);
        }
        if defines {
            // Entries' values are uses; their keys of a map are match patterns, not scripts,
            // but a pattern holding `$` names nothing nginx reads.
            for (_, value) in d.entries() {
                if let Some(v) = value {
                    collect(&v.value(), &mut names);
                }
            }
        } else {
            stack.extend(d.all_children());
        }
    }
    Some(names)
}

/// Adds each `$name` / `${name}` of `text` to `names`.
fn collect(text: &str, names: &mut HashSet<String>) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        let braced = b.get(i + 1) == Some(&b'{');
        let start = i + 1 + usize::from(braced);
        let mut end = start;
        while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
            end += 1;
        }
        if end > start {
            names.insert(text[start..end].to_ascii_lowercase());
        }
        i = end.max(i + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_with_and_without_braces() {
        let mut names = HashSet::new();
        collect("${cors_origin}x $Host:$1 $", &mut names);
        let mut got: Vec<_> = names.into_iter().collect();
        got.sort();
        assert_eq!(got, ["1", "cors_origin", "host"]);
    }
}
