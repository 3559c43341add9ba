//! Sets of bytes: what one character position of a pattern can match.
//!
//! nginx compiles its regexes with PCRE2's 8-bit library and without `PCRE2_UTF`, so a
//! subject is a string of bytes and every character class is a set of the 256 byte values.
//! `\d`, `\w`, `\s` and the POSIX classes use PCRE2's built-in "C" locale tables (ASCII
//! only); caseless matching folds ASCII letters only.

/// A set of byte values.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ByteSet([u64; 4]);

impl std::fmt::Debug for ByteSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[")?;
        let mut b = 0u16;
        while b < 256 {
            if self.contains(b as u8) {
                let lo = b;
                while b + 1 < 256 && self.contains((b + 1) as u8) {
                    b += 1;
                }
                let show = |x: u16| {
                    let c = x as u8;
                    if c.is_ascii_graphic() {
                        format!("{}", c as char)
                    } else {
                        format!("\\x{c:02x}")
                    }
                };
                if lo == b {
                    write!(f, "{}", show(lo))?;
                } else {
                    write!(f, "{}-{}", show(lo), show(b))?;
                }
            }
            b += 1;
        }
        f.write_str("]")
    }
}

impl ByteSet {
    pub const EMPTY: ByteSet = ByteSet([0; 4]);
    pub const ALL: ByteSet = ByteSet([u64::MAX; 4]);

    pub fn of(bytes: &[u8]) -> ByteSet {
        let mut s = ByteSet::EMPTY;
        for &b in bytes {
            s.insert(b);
        }
        s
    }

    pub fn range(lo: u8, hi: u8) -> ByteSet {
        let mut s = ByteSet::EMPTY;
        s.insert_range(lo, hi);
        s
    }

    pub fn insert(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1 << (b & 63);
    }

    pub fn insert_range(&mut self, lo: u8, hi: u8) {
        for b in lo..=hi {
            self.insert(b);
        }
    }

    pub fn contains(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] & (1 << (b & 63)) != 0
    }

    pub fn union(self, o: ByteSet) -> ByteSet {
        ByteSet(std::array::from_fn(|i| self.0[i] | o.0[i]))
    }

    pub fn intersect(self, o: ByteSet) -> ByteSet {
        ByteSet(std::array::from_fn(|i| self.0[i] & o.0[i]))
    }

    pub fn minus(self, o: ByteSet) -> ByteSet {
        ByteSet(std::array::from_fn(|i| self.0[i] & !o.0[i]))
    }

    pub fn complement(self) -> ByteSet {
        ByteSet(std::array::from_fn(|i| !self.0[i]))
    }

    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// The smallest byte in the set.
    pub fn first(&self) -> Option<u8> {
        self.iter().next()
    }

    /// The byte alone, when the set has exactly one.
    pub fn single(&self) -> Option<u8> {
        (self.len() == 1).then(|| self.first()).flatten()
    }

    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        (0..=255u8).filter(move |&b| self.contains(b))
    }

    /// The set with the other case of every ASCII letter in it.
    pub fn case_closed(self) -> ByteSet {
        let mut s = self;
        for b in self.iter() {
            if b.is_ascii_alphabetic() {
                s.insert(b ^ 0x20);
            }
        }
        s
    }

    /// A byte of the set that is printable ASCII if there is one (for witness strings).
    pub fn pick(&self) -> Option<u8> {
        const PREFERRED: &[u8] = b"a0/.xA_-";
        PREFERRED
            .iter()
            .copied()
            .find(|&b| self.contains(b))
            .or_else(|| self.iter().find(|b| b.is_ascii_graphic()))
            .or_else(|| self.first())
    }
}

/// `\d`: ASCII digits.
pub fn digit() -> ByteSet {
    ByteSet::range(b'0', b'9')
}

/// `\w`: ASCII letters, digits and `_`.
pub fn word() -> ByteSet {
    let mut s = ByteSet::range(b'a', b'z');
    s.insert_range(b'A', b'Z');
    s.insert_range(b'0', b'9');
    s.insert(b'_');
    s
}

/// `\s`: space, `\t`, `\n`, `\v`, `\f`, `\r` (PCRE2 counts VT since 10.0).
pub fn space() -> ByteSet {
    let mut s = ByteSet::range(0x09, 0x0d);
    s.insert(b' ');
    s
}

/// `\h`: the horizontal spaces below 256 (tab, space, NBSP).
pub fn hspace() -> ByteSet {
    ByteSet::of(&[0x09, 0x20, 0xa0])
}

/// `\v`: the vertical spaces below 256 (LF, VT, FF, CR, NEL).
pub fn vspace() -> ByteSet {
    let mut s = ByteSet::range(0x0a, 0x0d);
    s.insert(0x85);
    s
}

/// The POSIX class `[:name:]` (without the brackets), "C" locale.
pub fn posix(name: &[u8]) -> Option<ByteSet> {
    let alpha = ByteSet::range(b'a', b'z').union(ByteSet::range(b'A', b'Z'));
    Some(match name {
        b"alpha" => alpha,
        b"lower" => ByteSet::range(b'a', b'z'),
        b"upper" => ByteSet::range(b'A', b'Z'),
        b"alnum" => alpha.union(digit()),
        b"ascii" => ByteSet::range(0, 127),
        b"blank" => ByteSet::of(b" \t"),
        b"cntrl" => ByteSet::range(0, 31).union(ByteSet::of(&[127])),
        b"digit" => digit(),
        b"graph" => ByteSet::range(33, 126),
        b"print" => ByteSet::range(32, 126),
        b"punct" => ByteSet::range(33, 126).minus(alpha.union(digit())),
        b"space" => space(),
        b"word" => word(),
        b"xdigit" => digit().union(ByteSet::of(b"abcdefABCDEF")),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_sets() {
        assert_eq!(digit().len(), 10);
        assert_eq!(word().len(), 63);
        assert!(space().contains(0x0b));
        assert_eq!(ByteSet::ALL.complement(), ByteSet::EMPTY);
        assert_eq!(ByteSet::of(b"a").case_closed(), ByteSet::of(b"aA"));
        assert_eq!(posix(b"punct").unwrap().len(), 32);
        assert_eq!(ByteSet::of(b"q").single(), Some(b'q'));
        assert_eq!(format!("{:?}", ByteSet::of(b"abcz")), "[a-cz]");
    }
}
