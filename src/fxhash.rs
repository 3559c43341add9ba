//! A small, fast, non-cryptographic hasher (the multiply-rotate "FxHash" used inside rustc)
//! for the indexes built over every directive of a configuration: keys are our own names
//! and ids, so SipHash's protection against chosen keys buys nothing and costs a tenth of
//! the lint time on large trees.

use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        for &b in chunks.remainder() {
            self.add(b as u64);
        }
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(n as u64);
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    /// The state with its high half folded into the low one by a full-width multiply. The
    /// low bits of a product depend only on the low bits of its factors, so the state's low
    /// bits never see the high bytes of each 8-byte word: names differing only there
    /// (`/prefix/00000001`, `/prefix/00000002`: 15,000 map keys) collided in every table
    /// indexed by the low bits (the parser's name table, hashbrown), making a parse
    /// quadratic. The upper 64 bits of the 128-bit product depend on every bit of the state;
    /// folding them in is one multiply (as foldhash and ahash finish).
    #[inline]
    fn finish(&self) -> u64 {
        let full = u128::from(self.hash) * u128::from(SEED);
        (full as u64) ^ ((full >> 64) as u64)
    }
}

pub type FxHashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A `HashSet` with [`FxHasher`].
pub type FxHashSet<K> = std::collections::HashSet<K, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys differing only in the high bytes of their last word spread over the low bits,
    /// where tables take their index.
    #[test]
    fn the_low_bits_see_every_byte() {
        let low: FxHashSet<u64> = (0..4096)
            .map(|i| {
                let mut h = FxHasher::default();
                h.write(format!("/prefix/{i:08}").as_bytes());
                h.finish() & 0xffff
            })
            .collect();
        assert!(low.len() > 3000, "{} distinct of 4096", low.len());
    }
}
