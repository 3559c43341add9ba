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

/// [`levenshtein`] when it is at most `limit`, else `None`, computed only as far as needed:
/// a row whose every cell is past `limit` ends it, since no later cell can be smaller.
/// Names of up to 64 bytes fit rows on the stack. A directive typo is compared with every
/// catalogued name of about its length (200 of them), mostly far apart; the full table for
/// each, with two allocations, cost a fifth of a whole-corpus run.
pub fn levenshtein_within(a: &[u8], b: &[u8], limit: usize) -> Option<usize> {
    const ROW: usize = 65;
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    if b.len() >= ROW {
        let d = levenshtein(a, b);
        return (d <= limit).then_some(d);
    }
    let mut prev = [0usize; ROW];
    let mut cur = [0usize; ROW];
    for (j, p) in prev.iter_mut().enumerate().take(b.len() + 1) {
        *p = j;
    }
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut least = cur[0];
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            least = least.min(cur[j + 1]);
        }
        if least > limit {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[b.len()];
    (d <= limit).then_some(d)
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
    fn bounded_distance_agrees_with_the_full_one() {
        let words: [&[u8]; 8] = [
            b"",
            b"sendfile",
            b"sendfille",
            b"proxy_pass",
            b"proxy_pas",
            b"worker_processes",
            b"fastcgi_param",
            &[b'x'; 70],
        ];
        for a in words {
            for b in words {
                let d = levenshtein(a, b);
                for limit in 0..4 {
                    let want = (d <= limit).then_some(d);
                    assert_eq!(super::levenshtein_within(a, b, limit), want);
                }
            }
        }
    }

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
