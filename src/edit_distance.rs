//! How far apart two names are, for "did you mean" suggestions (a typo of a directive, a
//! sysctl key, a cipher, a socket path).

/// The Levenshtein distance over bytes: insertions, deletions and substitutions each cost 1.
pub fn levenshtein(a: &[u8], b: &[u8]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate a mistyped `word` most likely meant, compared without case: one that
/// starts with it (`server-token` → `server-tokens-on`), else the nearest within a third of
/// the word's length in edits (at least 2; `NGX22` → `NGX022`). `None` when nothing is
/// near; words over 64 bytes are not compared (the comparison is quadratic).
pub fn closest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if word.is_empty() || word.len() > 64 {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    let limit = (word.len() / 3).max(2);
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let c_lower = c.to_ascii_lowercase();
        let d = if c_lower.starts_with(&lower) && lower.len() >= 3 {
            0
        } else {
            levenshtein(lower.as_bytes(), c_lower.as_bytes())
        };
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::{closest, levenshtein};

    #[test]
    fn suggestions() {
        let names = ["server-tokens-on", "NGX022", "autoindex-on", "lint", "fix"];
        assert_eq!(
            closest("server-token", names.into_iter()),
            Some("server-tokens-on")
        );
        assert_eq!(closest("ngx22", names.into_iter()), Some("NGX022"));
        assert_eq!(
            closest("autoindx-on", names.into_iter()),
            Some("autoindex-on")
        );
        assert_eq!(closest("lnt", names.into_iter()), Some("lint"));
        assert_eq!(closest("quux-frobnicate", names.into_iter()), None);
        assert_eq!(closest("", names.into_iter()), None);
    }

    #[test]
    fn distances() {
        assert_eq!(levenshtein(b"kitten", b"sitting"), 3);
        assert_eq!(levenshtein(b"pm.max_childen", b"pm.max_children"), 1);
        assert_eq!(levenshtein(b"", b"abc"), 3);
        assert_eq!(levenshtein(b"user", b"user"), 0);
    }
}
