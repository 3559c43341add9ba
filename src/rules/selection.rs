//! Which rules run: `select`/`ignore` selectors (codes, prefixes, names, groups, `ALL`)
//! weighed by how specifically each names a rule.

use super::meta::Group;
use super::{lifecycle, RuleEntry, RULES};

/// How specifically a selector names a rule: 0 = not at all; a name or full code beats a
/// prefix, a longer prefix beats a shorter one (`ignore = ["NGX"]` with
/// `select = ["NGX022"]` keeps NGX022), and any of them beats a group or `ALL`.
///
/// A group's name (`default`, `hardening`, `preview`) names the rules declared in it. `ALL`
/// and prefixes name every rule of theirs except the preview ones, which only their code,
/// their name or `preview` selects (ruff's rule: a broad selector never turns on a rule
/// that has not earned its place). Ignoring is not so guarded: `ignore = ["NGX1"]` also
/// ignores a preview NGX1xx rule.
pub fn specificity(selector: &str, rule: &RuleEntry) -> usize {
    reach(selector, rule, true)
}

/// [`specificity`] for `ignore` and per-file ignores.
pub fn ignore_specificity(selector: &str, rule: &RuleEntry) -> usize {
    reach(selector, rule, false)
}

fn reach(selector: &str, rule: &RuleEntry, selecting: bool) -> usize {
    let selector = lifecycle::SHIPPED.canonical(selector);
    if selector == rule.name || selector.eq_ignore_ascii_case(rule.code) {
        return usize::MAX;
    }
    if let Some(group) = Group::named(selector) {
        return usize::from(group == rule.group);
    }
    if selecting && rule.group == Group::Preview {
        return 0;
    }
    if selector.eq_ignore_ascii_case("ALL") {
        return 1;
    }
    let upper = selector.to_ascii_uppercase();
    if !upper.is_empty() && rule.code.starts_with(&upper) {
        return 1 + upper.len();
    }
    0
}

/// Which rules run.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Empty: the `default` group.
    pub select: Vec<String>,
    pub ignore: Vec<String>,
}

impl Selection {
    /// Whether `rule` runs. The input errors always do (a file that cannot be parsed, an
    /// include that cannot be read, a path out of the tree): no selection can make a broken
    /// configuration look clean.
    pub fn enabled(&self, rule: &RuleEntry) -> bool {
        if rule.input_error {
            return true;
        }
        let sel = if self.select.is_empty() {
            usize::from(rule.group == Group::Default)
        } else {
            self.select
                .iter()
                .map(|s| specificity(s, rule))
                .max()
                .unwrap_or(0)
        };
        let ign = self
            .ignore
            .iter()
            .map(|s| ignore_specificity(s, rule))
            .max()
            .unwrap_or(0);
        sel > 0 && sel > ign
    }

    /// Selectors that name no rule (a typo must not silently select nothing).
    pub fn unknown(&self) -> Vec<String> {
        self.select
            .iter()
            .chain(&self.ignore)
            .filter(|s| {
                Group::named(s).is_none()
                    && !s.eq_ignore_ascii_case("ALL")
                    && !RULES.iter().any(|r| ignore_specificity(s, r) > 0)
            })
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::nginx::autoindex_on::AutoindexOn;
    use crate::rules::RuleEntry;

    fn in_group(group: Group) -> RuleEntry {
        let mut entry = RuleEntry::of(&AutoindexOn);
        entry.decl.group = group;
        entry
    }

    fn selection(select: &[&str], ignore: &[&str]) -> Selection {
        Selection {
            select: select.iter().map(|s| s.to_string()).collect(),
            ignore: ignore.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Nothing selected runs the default group; `ALL` and prefixes add hardening but never
    /// a preview rule, which only its code, its name or `preview` turns on; ignoring by
    /// prefix reaches preview rules too; the most specific selector wins.
    #[test]
    fn groups_select_as_documented() {
        let (default, hardening, preview) = (
            in_group(Group::Default),
            in_group(Group::Hardening),
            in_group(Group::Preview),
        );
        let runs = |s: &Selection| [&default, &hardening, &preview].map(|r| s.enabled(r));
        assert_eq!(runs(&selection(&[], &[])), [true, false, false]);
        assert_eq!(runs(&selection(&["ALL"], &[])), [true, true, false]);
        assert_eq!(runs(&selection(&["NGX1"], &[])), [true, true, false]);
        assert_eq!(runs(&selection(&["hardening"], &[])), [false, true, false]);
        assert_eq!(runs(&selection(&["preview"], &[])), [false, false, true]);
        assert_eq!(runs(&selection(&["NGX104"], &[])), [true, true, true]);
        assert_eq!(runs(&selection(&["autoindex-on"], &[])), [true, true, true]);
        assert_eq!(
            runs(&selection(&["NGX104"], &["preview", "hardening"])),
            [true, true, true]
        );
        assert_eq!(
            runs(&selection(&["preview", "hardening"], &["NGX1"])),
            [false, false, false]
        );
        assert_eq!(
            runs(&selection(&["NGX"], &["hardening"])),
            [true, true, false],
            "a prefix is more specific than a group"
        );
        assert!(selection(&["Hardening", "ALL", "preview"], &["default"])
            .unknown()
            .is_empty());
        assert_eq!(selection(&["hardned"], &[]).unknown(), ["hardned"]);
    }
}
