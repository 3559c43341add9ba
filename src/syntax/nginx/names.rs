//! Numbering a file's distinct directive names while it is parsed.
//!
//! A table per file would be allocated, zeroed and grown for every one of thousands of
//! small vhost files; this one is kept per thread and emptied in O(1) by bumping a
//! generation, so a slot written for an earlier file counts as free.

use crate::fxhash::FxHasher;
use std::hash::Hasher;

#[derive(Clone, Copy, Default)]
struct Slot {
    /// The file (generation) that wrote the slot; any other means free.
    generation: u32,
    hash: u32,
    id: u32,
}

/// Slots past which [`NameTable::trim`] lets the table go (48 KB).
const TRIM_SLOTS: usize = 4096;

/// Open addressing with linear probing over a power-of-two number of slots.
#[derive(Default)]
pub struct NameTable {
    slots: Vec<Slot>,
    generation: u32,
    len: usize,
    /// A byte the parser keeps per name, by id (emptied with the table, its room kept).
    pub info: Vec<u8>,
}

impl NameTable {
    /// Empties the table for the next file.
    pub fn reset(&mut self) {
        if self.slots.is_empty() {
            self.slots = vec![Slot::default(); 128];
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // After 4 billion files, old generations could come round again.
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
        self.len = 0;
        self.info.clear();
    }

    /// Lets go of a table grown for a file with thousands of distinct first words (a
    /// large `map`'s keys are each one): kept per thread, it would hold that memory for the
    /// rest of the run (a 150,000-key map: 6 MB), while ordinary files need a few hundred
    /// slots.
    pub fn trim(&mut self) {
        if self.slots.len() > TRIM_SLOTS {
            *self = NameTable::default();
        }
    }

    /// The id of the name `value`: an existing one (`is(id)` confirms a candidate), else
    /// `next` (returned with `true`), which the caller then records.
    pub fn find_or_insert(
        &mut self,
        value: &[u8],
        next: u32,
        is: impl Fn(u32) -> bool,
    ) -> (u32, bool) {
        let hash = {
            let mut h = FxHasher::default();
            h.write(value);
            h.finish() as u32
        };
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot.generation != self.generation {
                break;
            }
            if slot.hash == hash && is(slot.id) {
                return (slot.id, false);
            }
            i = (i + 1) & mask;
        }
        self.slots[i] = Slot {
            generation: self.generation,
            hash,
            id: next,
        };
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            self.grow();
        }
        (next, true)
    }

    /// Doubles the slots, re-placing this file's entries by their stored hashes.
    fn grow(&mut self) {
        let live: Vec<Slot> = self
            .slots
            .iter()
            .copied()
            .filter(|s| s.generation == self.generation)
            .collect();
        self.slots = vec![Slot::default(); self.slots.len() * 2];
        let mask = self.slots.len() - 1;
        for s in live {
            let mut i = s.hash as usize & mask;
            while self.slots[i].generation == self.generation {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_numbered_once_per_file_and_forgotten_between_files() {
        let mut table = NameTable::default();
        let mut names: Vec<Vec<u8>> = Vec::new();
        let intern = |table: &mut NameTable, names: &mut Vec<Vec<u8>>, v: &[u8]| {
            let (id, new) =
                table.find_or_insert(v, names.len() as u32, |id| names[id as usize] == v);
            if new {
                names.push(v.to_vec());
            }
            id
        };
        table.reset();
        // Enough names to make the table grow several times.
        let many: Vec<Vec<u8>> = (0..1000).map(|i| format!("d{i}").into_bytes()).collect();
        for (i, n) in many.iter().enumerate() {
            assert_eq!(intern(&mut table, &mut names, n), i as u32);
        }
        for (i, n) in many.iter().enumerate() {
            assert_eq!(intern(&mut table, &mut names, n), i as u32);
        }
        // The next file starts empty.
        table.reset();
        names.clear();
        assert_eq!(intern(&mut table, &mut names, b"d999"), 0);
        assert_eq!(intern(&mut table, &mut names, b"d0"), 1);
        assert_eq!(intern(&mut table, &mut names, b"d999"), 0);
    }
}
