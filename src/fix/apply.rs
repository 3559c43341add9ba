//! Applying fixes to file contents: sort, skip what overlaps, splice bytes.
//!
//! A fix is applied whole or not at all (in every file it touches). Fixes are taken in order
//! of their first edit; one that overlaps an edit already taken waits for the next pass,
//! when the file has been re-parsed and re-linted and its spans are fresh.

use super::{Edit, Fix};
use crate::fxhash::FxHashMap;
use crate::source::Span;
use std::path::Path;

/// Two edits conflict when their ranges overlap, or when both insert at the same point
/// (their order would be a guess), or one inserts strictly inside the other's range.
pub fn conflicts(a: Span, b: Span) -> bool {
    if a.is_empty() && b.is_empty() {
        return a.start == b.start;
    }
    if a.is_empty() {
        return b.start < a.start && a.start < b.end;
    }
    if b.is_empty() {
        return a.start < b.start && b.start < a.end;
    }
    a.start < b.end && b.start < a.end
}

/// Chooses the fixes of one pass: every fix whose edits conflict with none already chosen.
/// Returns the indexes of the chosen fixes.
pub fn choose(fixes: &[&Fix]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..fixes.len()).collect();
    // Each fix's first edit computed once (a key per comparison would copy paths).
    order.sort_by_cached_key(|&i| {
        let e = fixes[i]
            .edits
            .iter()
            .map(|e| (e.file.path.as_path(), e.range.start))
            .min();
        (e, i)
    });
    let mut taken: FxHashMap<&Path, Vec<Span>> = FxHashMap::default();
    let mut chosen = Vec::new();
    'fixes: for i in order {
        let fix = fixes[i];
        // Edits of one fix must not conflict with each other either.
        for (k, e) in fix.edits.iter().enumerate() {
            if fix.edits[..k]
                .iter()
                .any(|o| o.file.path == e.file.path && conflicts(o.range, e.range))
            {
                continue 'fixes;
            }
            if taken
                .get(e.file.path.as_path())
                .is_some_and(|spans| spans.iter().any(|s| conflicts(*s, e.range)))
            {
                continue 'fixes;
            }
        }
        for e in &fix.edits {
            taken
                .entry(e.file.path.as_path())
                .or_default()
                .push(e.range);
        }
        chosen.push(i);
    }
    chosen
}

/// Applies non-conflicting edits to `text`. Bytes outside the edited ranges are copied
/// unchanged; out-of-range edits are ignored (they cannot come from a parse of `text`).
pub fn splice(text: &[u8], edits: &[&Edit]) -> Vec<u8> {
    let mut sorted: Vec<&&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = Vec::with_capacity(text.len() + 64);
    let mut pos = 0usize;
    for e in sorted {
        let (s, end) = (e.range.start as usize, e.range.end as usize);
        if s < pos || end > text.len() || s > end {
            continue;
        }
        out.extend_from_slice(&text[pos..s]);
        out.extend_from_slice(e.content.as_bytes());
        pos = end;
    }
    out.extend_from_slice(&text[pos..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Shared, SourceFile};

    fn file(text: &str) -> Shared {
        Shared::new(SourceFile::new("f.conf", text.as_bytes().to_vec()))
    }

    fn fix(f: &Shared, edits: &[(u32, u32, &str)]) -> Fix {
        Fix::safe(
            "t",
            edits
                .iter()
                .map(|&(s, e, c)| Edit::replace(f, Span::new(s, e), c))
                .collect(),
        )
    }

    #[test]
    fn adjacent_edits_both_apply() {
        let f = file("abcdef");
        let a = fix(&f, &[(0, 2, "X")]);
        let b = fix(&f, &[(2, 4, "Y")]);
        assert_eq!(choose(&[&a, &b]), vec![0, 1]);
        let edits: Vec<&Edit> = a.edits.iter().chain(&b.edits).collect();
        assert_eq!(splice(&f.text, &edits), b"XYef");
    }

    #[test]
    fn overlapping_fix_waits_for_the_next_pass() {
        let f = file("abcdef");
        let a = fix(&f, &[(0, 3, "X")]);
        let b = fix(&f, &[(2, 5, "Y")]);
        assert_eq!(choose(&[&a, &b]), vec![0]);
    }

    #[test]
    fn zero_width_inserts() {
        let f = file("abc");
        // Two inserts at one point: order unknown, so the second waits.
        assert_eq!(
            choose(&[&fix(&f, &[(1, 1, "X")]), &fix(&f, &[(1, 1, "Y")])]),
            vec![0]
        );
        // An insert at the edge of a replacement is fine; inside it is not.
        assert_eq!(
            choose(&[&fix(&f, &[(1, 2, "X")]), &fix(&f, &[(1, 1, "Y")])]),
            vec![0, 1]
        );
        assert_eq!(
            choose(&[&fix(&f, &[(0, 3, "X")]), &fix(&f, &[(1, 1, "Y")])]),
            vec![0]
        );
        let ins = fix(&f, &[(3, 3, "!\n")]);
        let edits: Vec<&Edit> = ins.edits.iter().collect();
        assert_eq!(splice(&f.text, &edits), b"abc!\n");
    }

    #[test]
    fn multi_file_fix_is_all_or_nothing() {
        let f = file("abcdef");
        let g = Shared::new(SourceFile::new("g.conf", b"123".to_vec()));
        let both = Fix::safe(
            "t",
            vec![
                Edit::replace(&f, Span::new(0, 1), "X"),
                Edit::replace(&g, Span::new(0, 1), "9"),
            ],
        );
        let other = Fix::safe("t", vec![Edit::replace(&g, Span::new(0, 2), "77")]);
        // `other` is ordered after `both` (g.conf > f.conf) and conflicts in g.conf.
        assert_eq!(choose(&[&both, &other]), vec![0]);
    }

    #[test]
    fn bytes_outside_edits_are_kept_exactly() {
        let f = file("a\r\n\tb c\u{e9} d");
        let e = fix(&f, &[(6, 7, "Z")]);
        let edits: Vec<&Edit> = e.edits.iter().collect();
        assert_eq!(splice(&f.text, &edits), "a\r\n\tb Z\u{e9} d".as_bytes());
    }
}
