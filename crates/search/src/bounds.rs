//! The prover's cache of proven bounds: South's value of a position lies in `lo ..= hi`.
//!
//! A hash map that grows up to a size fixed in advance and then, rather than grow again,
//! forgets the bounds cheapest to prove again: those of the positions with the fewest seeds
//! on the board, about half of what it holds, in one pass. Forgetting a bound is always
//! sound (it costs a proof again, no more), so a long run keeps to its memory instead of
//! growing until the machine runs out of it. Below that size nothing is forgotten, and a
//! run behaves exactly as with an unbounded map. A few bounds can be pinned: those are never
//! forgotten.

use std::collections::{HashMap, HashSet};

use hoyito_rules::Position;

type Map<const W: usize> = HashMap<[u64; W], (i16, i16), ahash::RandomState>;

/// Proven bounds of South's value, by position (the board and side to move).
pub(crate) struct BoundCache<const W: usize> {
    map: Map<W>,
    /// The most bounds held: a full table of the largest size allowed.
    max_len: usize,
    /// Bounds forgotten to make room.
    dropped: u64,
    /// The keys never forgotten (few: the positions asked about from outside).
    pinned: HashSet<[u64; W], ahash::RandomState>,
}

/// Bytes of one slot of the map: the key, the bounds and a control byte.
const fn slot_bytes<const W: usize>() -> usize {
    std::mem::size_of::<([u64; W], (i16, i16))>() + 1
}

impl<const W: usize> BoundCache<W> {
    /// A cache that holds at most `bytes` of bounds (at least a few); growing into that
    /// size takes up to half as much again for a moment.
    pub fn new(bytes: usize) -> Self {
        // The map's table has a power of two of slots, at most seven eighths of them used.
        let slots = (bytes / slot_bytes::<W>()).max(16);
        let slots = 1usize << (usize::BITS - 1 - slots.leading_zeros());
        BoundCache {
            map: HashMap::with_hasher(ahash::RandomState::with_seeds(3, 1, 4, 1)),
            max_len: slots / 8 * 7,
            dropped: 0,
            pinned: HashSet::with_hasher(ahash::RandomState::with_seeds(3, 1, 4, 1)),
        }
    }

    /// Bounds held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Bounds forgotten to make room so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Forgets every bound, pinned ones included.
    pub fn clear(&mut self) {
        self.map.clear();
        self.pinned.clear();
    }

    /// The bounds of `p` held, if any.
    pub fn get(&self, p: &Position<W>) -> Option<(i32, i32)> {
        self.map
            .get(&p.board_key())
            .map(|&(lo, hi)| (i32::from(lo), i32::from(hi)))
    }

    /// Narrows the bounds of `p` to `lo ..= hi` (South's view; what is held already stays).
    pub fn tighten(&mut self, p: &Position<W>, lo: i32, hi: i32) {
        let key = p.board_key();
        if self.map.len() >= self.max_len && !self.map.contains_key(&key) {
            self.make_room();
        }
        let n = p.seeds_on_board() as i16;
        let e = self.map.entry(key).or_insert((-n, n));
        e.0 = e.0.max(lo as i16);
        e.1 = e.1.min(hi as i16);
    }

    /// Narrows the bounds held by every bound `other` holds (pinned ones are not pinned here).
    pub fn absorb(&mut self, other: &BoundCache<W>) {
        for (key, &(lo, hi)) in &other.map {
            if self.map.len() >= self.max_len && !self.map.contains_key(key) {
                self.make_room();
            }
            let e = self.map.entry(*key).or_insert((lo, hi));
            e.0 = e.0.max(lo);
            e.1 = e.1.min(hi);
        }
    }

    /// [`BoundCache::tighten`], and the bounds of `p` are never forgotten from now on.
    pub fn pin(&mut self, p: &Position<W>, lo: i32, hi: i32) {
        self.tighten(p, lo, hi);
        self.pinned.insert(p.board_key());
    }

    /// Forgets the bounds of the positions with the fewest seeds but the pinned ones,
    /// keeping at most `max_len / 2 - 1` (so that the map's table halves, without
    /// tombstones).
    fn make_room(&mut self) {
        let seeds = |k: &[u64; W]| -> usize {
            // The sum of the board's lanes: every seed is in one (the other lanes of a
            // board key, the holes' count and the side, are the same for all keys but the
            // side's 0 or 1, which does not matter here).
            k.iter()
                .map(|w| w.to_le_bytes().iter().map(|&b| b as usize).sum::<usize>())
                .sum()
        };
        let mut count = vec![0usize; 8 * W * 255 + 1];
        for k in self.map.keys() {
            count[seeds(k)] += 1;
        }
        // The least cut such that the keys above it fit.
        let room = (self.max_len / 2 - 1).saturating_sub(self.pinned.len());
        let mut above = self.map.len();
        let mut cut = 0;
        while above > room {
            above -= count[cut];
            cut += 1;
        }
        let before = self.map.len();
        let pinned = &self.pinned;
        self.map
            .retain(|k, _| seeds(k) >= cut || pinned.contains(k));
        self.map.shrink_to(0);
        self.dropped += (before - self.map.len()) as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoyito_rules::{Position6, Rules};

    /// Distinct live positions of 2x6 with at least 4 seeds (as many as asked).
    fn positions(count: usize) -> Vec<Position6> {
        let rules = Rules::default();
        let mut out = Vec::new();
        let mut k = 0u64;
        while out.len() < count {
            // The holes' seeds, 0..=4 each, by the digits of k in base 5.
            let mut rows = [[0u8; 6]; 2];
            let mut x = k;
            for h in 0..12 {
                rows[h / 6][h % 6] = (x % 5) as u8;
                x /= 5;
            }
            k += 1;
            let text = format!(
                "{}/{} S",
                rows[1].map(|v| v.to_string()).join(","),
                rows[0].map(|v| v.to_string()).join(",")
            );
            if let Ok(p) = Position6::parse(&rules, &text) {
                if p.seeds_on_board() >= 4 && p.is_live() {
                    out.push(p);
                }
            }
        }
        out
    }

    #[test]
    fn bounds_only_narrow() {
        let ps = positions(20_000);
        let mut c = BoundCache::<2>::new(64 << 20);
        for p in &ps {
            let n = p.seeds_on_board() as i32;
            c.tighten(p, -n + 4, n);
        }
        for p in &ps {
            let n = p.seeds_on_board() as i32;
            c.tighten(p, -n, n - 4);
            // A weaker bound changes nothing.
            c.tighten(p, -n - 8, n + 8);
        }
        assert_eq!(c.len(), ps.len());
        assert_eq!(c.dropped(), 0);
        for p in &ps {
            let n = p.seeds_on_board() as i32;
            assert_eq!(c.get(p), Some((-n + 4, n - 4)), "{p:?}");
        }
        c.clear();
        assert_eq!(c.get(&ps[0]), None);
    }

    #[test]
    fn a_full_cache_keeps_to_its_size_and_forgets_the_fewest_seeds_first() {
        let ps = positions(60_000);
        // Room for 2^14 slots: 14,336 bounds.
        let mut c = BoundCache::<2>::new((1 << 14) * slot_bytes::<2>() + 100);
        assert_eq!(c.max_len, 14_336);
        let mut most = 0;
        for p in &ps {
            c.tighten(p, 0, 0);
            most = most.max(c.map.capacity());
        }
        assert_eq!(most, 14_336, "the map never outgrows its size");
        assert!(c.dropped() > 0);
        assert_eq!(c.len() as u64 + c.dropped(), ps.len() as u64);
        // What is held is right, and every position forgotten has no more seeds than any
        // kept at the last cut; on average, fewer.
        let (mut kept, mut lost) = ((0u64, 0u64), (0u64, 0u64));
        for p in &ps {
            let s = u64::from(p.seeds_on_board());
            match c.get(p) {
                Some(b) => {
                    assert_eq!(b, (0, 0));
                    kept = (kept.0 + s, kept.1 + 1);
                }
                None => lost = (lost.0 + s, lost.1 + 1),
            }
        }
        assert!(kept.1 > 0 && lost.1 > 0);
        assert!(
            kept.0 * lost.1 > lost.0 * kept.1,
            "kept {kept:?} lost {lost:?}"
        );
    }

    #[test]
    fn pinned_bounds_are_never_forgotten() {
        let ps = positions(60_000);
        let mut c = BoundCache::<2>::new((1 << 14) * slot_bytes::<2>() + 100);
        // The first positions have the fewest seeds, the first forgotten when not pinned.
        let fewest = ps.iter().min_by_key(|p| p.seeds_on_board()).unwrap();
        let n = fewest.seeds_on_board() as i32;
        c.pin(fewest, 2, n - 1);
        let mut lost_as_few = 0;
        for p in ps.iter().filter(|&p| p != fewest) {
            c.tighten(p, 0, 0);
        }
        for p in &ps {
            if c.get(p).is_none() && p.seeds_on_board() == fewest.seeds_on_board() {
                lost_as_few += 1;
            }
        }
        assert!(lost_as_few > 0, "others with as few seeds were forgotten");
        assert_eq!(c.get(fewest), Some((2, n - 1)));
        assert!(c.map.capacity() <= 14_336);
    }
}
