//! Transposition tables shared by all search threads.
//!
//! Two designs sit behind the [`Table`] trait so that they can be measured on the same
//! searches (`solve bench --table atomic|map`):
//!
//! - [`AtomicTable`]: a fixed-size array of 64-byte buckets, four slots each, every slot two
//!   `AtomicU64` (`key ^ data`, `data`) read and written with relaxed ordering. A torn write
//!   (two threads storing the same slot at once) leaves a pair whose XOR does not give the
//!   key back, so it reads as a miss: the table is racy by design but never returns a mixed
//!   entry. Keys are the 64-bit [`Position::key`] hash.
//! - [`MapTable`]: a `DashMap` keyed by the exact board ([`Position::board_key`]), so it has
//!   no hash collisions at all, at the price of locks, hashing and allocation.
//!
//! **Replacement** (atomic table): a store goes to the slot that already holds the key, else
//! to the slot of its bucket with the lowest `depth - 8 * (age difference)`, so entries from
//! older searches go first and, among entries of the current search, the shallowest. An
//! entry of the current search that holds the same key is kept when the new result is
//! shallower and not exact, so a deep result is not lost to a shallow re-search. The map table
//! keeps every key until it reaches its capacity, then only updates keys it already holds
//! (first come, first kept), which is enough for the searches it is compared on.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use dashmap::DashMap;
use hoyito_rules::Position;

/// What a stored score says about the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score is at least the stored one (the search failed high).
    Lower = 1,
    /// The true score is at most the stored one (the search failed low).
    Upper = 2,
    /// The stored score is the true score.
    Exact = 3,
}

/// Depth stored for results proven to the end of the game.
pub const PROVEN: u8 = u8::MAX;

/// One stored search result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The score, for the side to move, net future captures (or a heuristic estimate).
    pub score: i16,
    /// How the score bounds the true value.
    pub bound: Bound,
    /// Remaining depth the result was searched to; [`PROVEN`] for a result searched to the
    /// end of the game (then the score bounds the exact game value).
    pub depth: u8,
    /// The best move found (hole number), 0 if none.
    pub mv: u8,
}

/// Packed layout of an entry in a `u64`:
///
/// ```text
///  bits  0..16  score (i16)     16..18  bound     18..26  depth
///        26..30 move (0..=12)   30..36  age (search generation, mod 64)
/// ```
fn pack(e: Entry, age: u8) -> u64 {
    (e.score as u16 as u64)
        | (e.bound as u64) << 16
        | (e.depth as u64) << 18
        | (e.mv as u64 & 0xf) << 26
        | (age as u64 & 0x3f) << 30
}

fn unpack(d: u64) -> Option<(Entry, u8)> {
    let bound = match (d >> 16) & 3 {
        1 => Bound::Lower,
        2 => Bound::Upper,
        3 => Bound::Exact,
        _ => return None,
    };
    Some((
        Entry {
            score: d as u16 as i16,
            bound,
            depth: (d >> 18) as u8,
            mv: ((d >> 26) & 0xf) as u8,
        },
        ((d >> 30) & 0x3f) as u8,
    ))
}

/// A transposition table shared by the search threads.
pub trait Table<const W: usize>: Sync {
    /// The entry stored for `p` (whose [`Position::key`] is `key`), if any.
    fn probe(&self, p: &Position<W>, key: u64) -> Option<Entry>;
    /// Stores a result for `p`.
    fn store(&self, p: &Position<W>, key: u64, e: Entry);
    /// Marks the start of a new search (entries of older searches are replaced first).
    fn new_search(&self);
    /// Forgets everything.
    fn clear(&self);
    /// Permille of the table in use (an estimate).
    fn hashfull(&self) -> u32;
}

/// One slot: `check = key ^ data`, and `data`. All zeros is the empty slot.
#[derive(bytemuck::Zeroable)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// Slots in a bucket: four, one cache line.
const BUCKET: usize = 4;

const _: () = assert!(BUCKET * std::mem::size_of::<Slot>() == 64);

/// The fixed-size lockless table (see the module documentation).
pub struct AtomicTable {
    /// The buckets, [`BUCKET`] slots each, from `first` on. The slots are zeroed memory from
    /// the allocator (with the alignment of a slot, not of a cache line, so that the
    /// operating system hands the pages out as the search first touches them, and a large
    /// table costs nothing until it is used); `first` puts each bucket on a cache line.
    slots: Vec<Slot>,
    first: usize,
    mask: u64,
    age: AtomicU8,
}

impl AtomicTable {
    /// A table of about `mb` mebibytes (rounded down to a power of two buckets, at least one).
    pub fn new(mb: usize) -> Self {
        let size = BUCKET * std::mem::size_of::<Slot>();
        let want = (mb.max(1) << 20) / size;
        let n = if want.is_power_of_two() {
            want
        } else {
            (want.next_power_of_two() >> 1).max(1)
        };
        let slots = bytemuck::zeroed_vec::<Slot>(BUCKET * (n + 1));
        let misaligned = slots.as_ptr() as usize % size;
        let first = (size - misaligned) % size / std::mem::size_of::<Slot>();
        AtomicTable {
            slots,
            first,
            mask: n as u64 - 1,
            age: AtomicU8::new(0),
        }
    }

    /// The bucket of `key`.
    #[inline]
    fn bucket(&self, key: u64) -> &[Slot] {
        // The high bits pick the bucket; the whole key is checked in the slot.
        let i = self.first + BUCKET * ((key >> 32) & self.mask) as usize;
        &self.slots[i..i + BUCKET]
    }
}

impl<const W: usize> Table<W> for AtomicTable {
    #[inline]
    fn probe(&self, _p: &Position<W>, key: u64) -> Option<Entry> {
        for s in self.bucket(key) {
            let d = s.data.load(Ordering::Relaxed);
            if s.check.load(Ordering::Relaxed) ^ d == key {
                return unpack(d).map(|(e, _)| e);
            }
        }
        None
    }

    #[inline]
    fn store(&self, _p: &Position<W>, key: u64, e: Entry) {
        let age = self.age.load(Ordering::Relaxed) & 0x3f;
        let b = self.bucket(key);
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, s) in b.iter().enumerate() {
            let d = s.data.load(Ordering::Relaxed);
            let c = s.check.load(Ordering::Relaxed);
            let old = unpack(d);
            if c ^ d == key {
                if let Some((o, a)) = old {
                    if a == age && o.depth > e.depth && e.bound != Bound::Exact {
                        return;
                    }
                }
                victim = i;
                break;
            }
            let value = match old {
                None => i32::MIN,
                Some((o, a)) => o.depth as i32 - 8 * ((age + 64 - a) & 0x3f) as i32,
            };
            if value < worst {
                worst = value;
                victim = i;
            }
        }
        let d = pack(e, age);
        let s = &b[victim];
        s.check.store(key ^ d, Ordering::Relaxed);
        s.data.store(d, Ordering::Relaxed);
    }

    fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    fn clear(&self) {
        for s in &self.slots {
            s.check.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
    }

    fn hashfull(&self) -> u32 {
        // The slots of the first 250 buckets.
        let n = BUCKET * (self.mask as usize + 1).min(250);
        let used = self.slots[self.first..self.first + n]
            .iter()
            .filter(|s| s.data.load(Ordering::Relaxed) != 0)
            .count();
        (used * 1000 / n) as u32
    }
}

/// The `DashMap` table keyed by the exact board (see the module documentation).
pub struct MapTable<const W: usize> {
    map: DashMap<[u64; W], Entry, ahash::RandomState>,
    capacity: usize,
}

impl<const W: usize> MapTable<W> {
    /// A table that keeps at most about `mb` mebibytes of entries.
    pub fn new(mb: usize) -> Self {
        // Key, entry and the map's own overhead: about 2.5 times the payload.
        let per = (8 * W + std::mem::size_of::<Entry>()) * 5 / 2;
        MapTable {
            map: DashMap::with_hasher(ahash::RandomState::with_seeds(1, 2, 3, 4)),
            capacity: (mb.max(1) << 20) / per,
        }
    }
}

impl<const W: usize> Table<W> for MapTable<W> {
    #[inline]
    fn probe(&self, p: &Position<W>, _key: u64) -> Option<Entry> {
        self.map.get(&p.board_key()).map(|e| *e)
    }

    #[inline]
    fn store(&self, p: &Position<W>, _key: u64, e: Entry) {
        let k = p.board_key();
        if let Some(mut old) = self.map.get_mut(&k) {
            if !(old.depth > e.depth && e.bound != Bound::Exact) {
                *old = e;
            }
            return;
        }
        if self.map.len() < self.capacity {
            self.map.insert(k, e);
        }
    }

    fn new_search(&self) {}

    fn clear(&self) {
        self.map.clear();
    }

    fn hashfull(&self) -> u32 {
        (self.map.len() * 1000 / self.capacity.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoyito_rules::{Position6, Rules};

    #[test]
    fn pack_round_trip() {
        for &score in &[-48i16, -1, 0, 7, 96] {
            for &bound in &[Bound::Lower, Bound::Upper, Bound::Exact] {
                let e = Entry {
                    score,
                    bound,
                    depth: 200,
                    mv: 12,
                };
                assert_eq!(unpack(pack(e, 63)), Some((e, 63)));
            }
        }
    }

    #[test]
    fn both_tables_store_and_probe() {
        let r = Rules::default();
        let p = Position6::start(&r).unwrap();
        let e = Entry {
            score: 8,
            bound: Bound::Exact,
            depth: 3,
            mv: 2,
        };
        let a = AtomicTable::new(1);
        let m = MapTable::<2>::new(1);
        Table::<2>::store(&a, &p, p.key(), e);
        m.store(&p, p.key(), e);
        assert_eq!(Table::<2>::probe(&a, &p, p.key()), Some(e));
        assert_eq!(m.probe(&p, p.key()), Some(e));
        let q = p.with_side_flipped();
        assert_eq!(Table::<2>::probe(&a, &q, q.key()), None);
        assert_eq!(m.probe(&q, q.key()), None);
    }

    #[test]
    fn atomic_buckets_sit_on_cache_lines_and_fill_every_slot() {
        let r = Rules::default();
        let p = Position6::start(&r).unwrap();
        // Two buckets (128 bytes): keys that differ above bit 32 pick the bucket.
        let a = AtomicTable {
            mask: 1,
            ..AtomicTable::new(1)
        };
        for bucket in 0..2u64 {
            assert_eq!(a.bucket(bucket << 32).as_ptr() as usize % 64, 0);
        }
        assert_eq!(Table::<2>::hashfull(&a), 0);
        let e = |depth| Entry {
            score: 1,
            bound: Bound::Lower,
            depth,
            mv: 1,
        };
        // Eight keys, four a bucket: every slot is used, none is lost.
        let keys: Vec<u64> = (0..8u64).map(|k| (k % 2) << 32 | (k + 1)).collect();
        for (i, &k) in keys.iter().enumerate() {
            Table::<2>::store(&a, &p, k, e(i as u8));
        }
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(Table::<2>::probe(&a, &p, k), Some(e(i as u8)));
        }
        assert_eq!(Table::<2>::hashfull(&a), 1000);
        // A ninth key in the first bucket replaces its shallowest entry (depth 0).
        Table::<2>::store(&a, &p, 9, e(9));
        assert_eq!(Table::<2>::probe(&a, &p, keys[0]), None);
        assert_eq!(Table::<2>::probe(&a, &p, 9), Some(e(9)));
        Table::<2>::clear(&a);
        assert_eq!(Table::<2>::hashfull(&a), 0);
        assert!(keys.iter().all(|&k| Table::<2>::probe(&a, &p, k).is_none()));
    }
}
