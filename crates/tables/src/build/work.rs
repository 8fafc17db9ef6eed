//! The working state of a layer's build: one byte a position (two bounds and two marks),
//! and bitmaps with a bit per block of positions.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use crate::error::{TableError, Unsupported};

/// Largest bound a working byte holds in each of its two halves.
pub(super) const MAX_BOUND: usize = 15;

/// Positions a block holds: the unit of the block bitmaps and of the index of the scratch
/// moves (a block of one is a block of the other).
pub(super) const BLOCK: u64 = 128;

/// Bit 6 during rounds: a successor changed, evaluate the position.
pub(super) const EVAL: u8 = 0x40;
/// Bit 7: the bounds rose in the last sweep or round.
pub(super) const CHANGED: u8 = 0x80;

/// The working bytes of a layer of `len` positions, all 0 (both bounds at the bottom),
/// backed by huge pages where the system allows.
pub(super) fn alloc(len: u64) -> Result<Vec<u8>, TableError> {
    let memory = TableError::Unsupported(Unsupported::Memory { bytes: len });
    let Ok(len) = usize::try_from(len) else {
        return Err(memory);
    };
    let mut bytes: Vec<u8> = Vec::new();
    bytes.try_reserve_exact(len).map_err(|_| memory)?;
    // The advice must come before the pages are first touched (by the zeroing).
    crate::mem::advise_huge_pages(bytes.spare_capacity_mut());
    bytes.resize(len, 0);
    Ok(bytes)
}

/// `len` elements made by `make`, backed by huge pages where the system allows (for arrays
/// read at random, as [`alloc`]).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))] // used by the build over MPI only
pub(super) fn huge_vec<T>(len: usize, make: impl FnMut() -> T) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    crate::mem::advise_huge_pages(v.spare_capacity_mut());
    v.extend(std::iter::repeat_with(make).take(len));
    v
}

/// The working bytes as atomics, so that threads may read and write them at once.
pub(super) fn atomic(bytes: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: `AtomicU8` has the same size and alignment as `u8`, and the exclusive borrow
    // of `bytes` lasts as long as the atomic view.
    unsafe { std::slice::from_raw_parts(bytes.as_mut_ptr() as *const AtomicU8, bytes.len()) }
}

/// The working bytes one build reads and writes: those of its own range of the layer (the
/// whole layer in a build by one process) and, in a build over several processes, a
/// [`Mirror`] of the bytes of the positions in other ranges that its own positions read. A
/// position of another range that is not in the copy reads as 0 (both bounds at the
/// bottom): the walk that lists the successors to copy reads nothing else, and a sweep
/// reads no other position whose byte could change what it finds (see
/// `distributed::remote_successors`).
#[derive(Clone, Copy)]
pub(super) struct Cells<'a> {
    start: u64,
    own: &'a [AtomicU8],
    copy: Option<&'a Mirror>,
}

/// What a position outside the cells held reads as.
static BOTTOM: AtomicU8 = AtomicU8::new(0);

/// [`BOTTOM`].
pub(super) fn bottom() -> &'static AtomicU8 {
    &BOTTOM
}

impl<'a> Cells<'a> {
    /// The bytes of the whole layer.
    pub(super) fn whole(work: &'a [AtomicU8]) -> Cells<'a> {
        Cells {
            start: 0,
            own: work,
            copy: None,
        }
    }

    /// The bytes `own` of the range that starts at `start`, and those of `copy` (if any)
    /// for the other positions.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))] // used by the build over MPI only
    pub(super) fn split(start: u64, own: &'a [AtomicU8], copy: Option<&'a Mirror>) -> Cells<'a> {
        Cells { start, own, copy }
    }

    /// The indices of the own range.
    pub(super) fn range(&self) -> Range<u64> {
        self.start..self.start + self.own.len() as u64
    }

    /// The bytes of the own range, in index order.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))] // used by the build over MPI only
    pub(super) fn own(&self) -> &'a [AtomicU8] {
        self.own
    }

    /// The byte of position `i` of the layer.
    #[inline(always)]
    pub(super) fn get(&self, i: u64) -> &'a AtomicU8 {
        match self.own_cell(i) {
            Some(cell) => cell,
            None => self.other(i),
        }
    }

    /// The byte of position `i` if it is in the own range.
    #[inline(always)]
    fn own_cell(&self, i: u64) -> Option<&'a AtomicU8> {
        let k = usize::try_from(i.wrapping_sub(self.start)).ok()?;
        self.own.get(k)
    }

    /// [`Cells::get`] outside the own range.
    #[inline(never)]
    fn other(&self, i: u64) -> &'a AtomicU8 {
        let found = self
            .copy
            .and_then(|c| c.in_whole(i).or_else(|| c.slot(i).map(|k| &c.bytes[k])));
        match found {
            Some(cell) => cell,
            None => bottom(),
        }
    }

    /// The byte of position `i` if it is in the own range or in a range copied whole,
    /// having started to load it into the cache; else `None`, having started to load the
    /// part of the copy's map that finds it (such a position takes two steps:
    /// [`Cells::fetch`] next).
    #[inline(always)]
    pub(super) fn fetch_own(&self, i: u64) -> Option<&'a AtomicU8> {
        let copy = self.copy;
        let found = self.own_cell(i).or_else(|| copy?.in_whole(i));
        match (found, copy) {
            (Some(cell), _) => crate::mem::prefetch(std::slice::from_ref(cell), 0),
            (None, Some(c)) => c.prefetch_map(i),
            (None, None) => {}
        }
        found
    }

    /// [`Cells::get`], and starts loading the byte into the cache, so that the miss overlaps
    /// with other work until it is read.
    #[inline(always)]
    pub(super) fn fetch(&self, i: u64) -> &'a AtomicU8 {
        let cell = self.get(i);
        crate::mem::prefetch(std::slice::from_ref(cell), 0);
        cell
    }

    /// Calls `f` on every byte held, own and copied, in parallel.
    pub(super) fn for_each_held(&self, f: impl Fn(&AtomicU8) + Sync + Send) {
        self.own.par_iter().for_each(&f);
        if let Some(c) = self.copy {
            c.bytes.par_iter().for_each(&f);
        }
    }
}

/// Words of marks in a piece of a [`Mirror`]'s map.
const SPAN_WORDS: usize = 6;

/// Positions a piece of a [`Mirror`]'s map covers: six words of marks beside the count of
/// the marks before them and the marks before each word, 64 bytes, so that a look-up reads
/// one cache line and counts the bits of one word.
const SPAN: u64 = SPAN_WORDS as u64 * 64;

/// Bits of each count of the marks before a word in its piece (at most 320).
const PARTIAL_BITS: usize = 9;

/// A piece of a [`Mirror`]'s map.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Span {
    /// The marks before the piece.
    before: u64,
    /// The marks in the piece before word `k`, [`PARTIAL_BITS`] bits each from bit
    /// `(k - 1) * PARTIAL_BITS`, for words 1 to 5.
    partial: u64,
    words: [u64; SPAN_WORDS],
}

/// The bytes a process holds of the positions of other ranges that its own positions read:
/// a bit a position of the layer marks those held, and a byte each is kept in index order,
/// found by counting the marks before it (the map costs 0.17 bytes a position of the
/// layer, where a byte each would cost 1).
pub(super) struct Mirror {
    map: Vec<Span>,
    /// The ranges held whole, each with the place of its first byte: a byte of these is
    /// found without the map.
    whole: Vec<(Range<u64>, usize)>,
    /// The bytes held, in index order.
    pub(super) bytes: Vec<AtomicU8>,
}

impl Mirror {
    /// The positions marked in `words` (bit `i % 64` of word `i / 64` for position `i`),
    /// their bytes all 0; every position of the ranges `whole` is marked.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))] // used by the build over MPI only
    pub(super) fn new(words: Vec<u64>, whole: &[Range<u64>]) -> Mirror {
        // Both are read at random, so both get huge pages.
        let mut total = 0u64;
        let mut pieces = words.chunks(SPAN_WORDS);
        let map = huge_vec(words.len().div_ceil(SPAN_WORDS), || {
            let mut span = Span {
                before: total,
                ..Span::default()
            };
            if let Some(c) = pieces.next() {
                span.words[..c.len()].copy_from_slice(c);
                let mut within = 0u64;
                for (k, w) in span.words.iter().enumerate() {
                    if k > 0 {
                        span.partial |= within << ((k - 1) * PARTIAL_BITS);
                    }
                    within += w.count_ones() as u64;
                }
                total += within;
            }
            span
        });
        let bytes = huge_vec(total as usize, || AtomicU8::new(0));
        let mut mirror = Mirror {
            map,
            whole: Vec::new(),
            bytes,
        };
        mirror.whole = whole
            .iter()
            .filter(|r| !r.is_empty())
            .filter_map(|r| Some((r.clone(), mirror.slot(r.start)?)))
            .collect();
        mirror
    }

    /// The byte of position `i` if it lies in a range held whole.
    #[inline(always)]
    pub(super) fn in_whole(&self, i: u64) -> Option<&AtomicU8> {
        self.whole
            .iter()
            .find(|(r, _)| r.contains(&i))
            .map(|(r, at)| &self.bytes[at + (i - r.start) as usize])
    }

    /// Where the byte of position `i` is kept, if it is held.
    #[inline(always)]
    pub(super) fn slot(&self, i: u64) -> Option<usize> {
        let span = self.map.get((i / SPAN) as usize)?;
        let at = i % SPAN;
        let (w, bit) = ((at / 64) as usize, 1u64 << (at % 64));
        let word = span.words[w];
        if word & bit == 0 {
            return None;
        }
        let before = match w {
            0 => 0,
            _ => span.partial >> ((w - 1) * PARTIAL_BITS) & ((1 << PARTIAL_BITS) - 1),
        };
        Some((span.before + before + (word & (bit - 1)).count_ones() as u64) as usize)
    }

    /// Starts loading the part of the map that finds position `i`.
    #[inline(always)]
    fn prefetch_map(&self, i: u64) {
        crate::mem::prefetch(&self.map, (i / SPAN) as usize);
    }

    /// Bytes held.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))] // used by the build over MPI only
    pub(super) fn len(&self) -> usize {
        self.bytes.len()
    }
}

/// The joint code of both bounds in a working byte's low 5 bits: `lo` when `hi` is 0, else
/// `top + hi` (so that a byte of 0 is both bounds at 0, where a build starts). The two
/// bounds are never both positive (neither side can force a gain when the other can: every
/// bound the build writes is below the least fixpoint, where that holds), so the pair is one
/// of `2 * top + 1` values, which 5 bits hold up to a top of 15 (60 seeds of 2x6).
const CODE: u8 = 0x1f;
/// Bit 5: both bounds came out positive, which only a broken build can give; the layer is
/// then refused ([`Packing::is_consistent`]).
const CLASH: u8 = 0x20;
/// Bit 6 during sweeps: the position is *final* (its bounds are at the fixpoint).
const FINAL: u8 = 0x40;

/// How bounds sit in a working byte: the mover's bound `lo` and the opponent's `hi`, both
/// in units of the value step, as one joint code (bits 0 to 4, and [`CLASH`]); bit 6 marks
/// a *final* position during sweeps and a position *to evaluate* ([`EVAL`]) during rounds,
/// and bit 7 marks a position whose bounds rose ([`CHANGED`]). One byte a position in
/// every layer up to 60 seeds.
#[derive(Clone, Copy)]
pub(super) struct Packing {
    pub(super) final_bit: u8,
    /// The largest bound of the layer (its seeds over its value step).
    pub(super) top: u8,
}

impl Packing {
    pub(super) fn new(top: usize) -> Packing {
        debug_assert!(top <= MAX_BOUND);
        Packing {
            final_bit: FINAL,
            top: top as u8,
        }
    }
    /// The same layout without the final bit (rounds use bit 6 for something else).
    pub(super) fn without_final(self) -> Packing {
        Packing {
            final_bit: 0,
            ..self
        }
    }
    #[inline(always)]
    pub(super) fn lo(self, w: u8) -> u8 {
        let c = w & CODE;
        if c <= self.top {
            c
        } else {
            0
        }
    }
    #[inline(always)]
    pub(super) fn hi(self, w: u8) -> u8 {
        (w & CODE).saturating_sub(self.top)
    }
    #[inline(always)]
    pub(super) fn bounds(self, w: u8) -> u8 {
        w & (CODE | CLASH)
    }
    #[inline(always)]
    pub(super) fn is_final(self, w: u8) -> bool {
        w & self.final_bit != 0
    }
    #[inline(always)]
    pub(super) fn pack(self, lo: u8, hi: u8, is_final: bool) -> u8 {
        let f = if is_final { self.final_bit } else { 0 };
        match (lo, hi) {
            (_, 0) => lo | f,
            (0, _) => (self.top + hi) | f,
            _ => CLASH | f,
        }
    }
    /// The larger of two sets of bounds, bound by bound.
    #[inline(always)]
    pub(super) fn merge(self, a: u8, b: u8) -> u8 {
        self.pack(
            self.lo(a).max(self.lo(b)),
            self.hi(a).max(self.hi(b)),
            false,
        ) | (a | b) & CLASH
    }
    /// Whether bounds at the fixpoint make sense: not both sides winning, none above the top.
    #[inline]
    pub(super) fn is_consistent(self, w: u8) -> bool {
        w & CLASH == 0 && w & CODE <= 2 * self.top
    }
    /// The stored code of a position from its bounds at the fixpoint: the mover's forced
    /// gain if any, else minus the opponent's, else 0 (endless play), plus the top; see
    /// [`crate::format`].
    #[inline]
    pub(super) fn code(self, w: u8) -> u8 {
        let (lo, hi, top) = (self.lo(w), self.hi(w).min(self.top), self.top);
        top + lo - hi
    }
}

/// A bitmap of blocks of [`BLOCK`] positions, so that a round visits only the parts of the
/// layer where something happened.
pub(super) struct Blocks(Vec<AtomicU64>);

impl Blocks {
    pub(super) fn new(positions: u64) -> Blocks {
        let blocks = positions.div_ceil(BLOCK);
        Blocks(
            (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        )
    }
    /// Marks the block of position `i`.
    #[inline(always)]
    pub(super) fn mark(&self, i: u64) {
        let b = i / BLOCK;
        let (word, bit) = (&self.0[(b / 64) as usize], 1u64 << (b % 64));
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }
    /// Whether block `b` is marked.
    #[inline(always)]
    pub(super) fn get(&self, b: u64) -> bool {
        self.0[(b / 64) as usize].load(Relaxed) & 1 << (b % 64) != 0
    }
    pub(super) fn clear(&self) {
        self.0.par_iter().for_each(|w| w.store(0, Relaxed));
    }
    /// Moves the marks of `from` here (replacing these) and clears `from`.
    pub(super) fn take(&self, from: &Blocks) {
        self.0
            .par_iter()
            .zip(&from.0)
            .for_each(|(old, new)| old.store(new.swap(0, Relaxed), Relaxed));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mirror_finds_each_position_it_holds_in_index_order() {
        let count = 5000u64;
        let held: Vec<u64> = (0..count).filter(|i| i % 7 == 3 || i % 64 == 63).collect();
        let mut words = vec![0u64; count.div_ceil(64) as usize];
        for &i in &held {
            words[(i / 64) as usize] |= 1 << (i % 64);
        }
        let mirror = Mirror::new(words, &[]);
        assert_eq!(mirror.len(), held.len());
        for i in 0..count + 100 {
            assert_eq!(mirror.slot(i), held.binary_search(&i).ok(), "position {i}");
        }
    }

    #[test]
    fn a_range_held_whole_is_found_without_the_map_at_the_same_place() {
        // Positions 3 and 70 of the map, and all of 128..256 held whole.
        let mut words = vec![0u64; 4];
        words[0] = 1 << 3;
        words[1] = 1 << 6;
        words[2] = !0;
        words[3] = !0;
        let mirror = Mirror::new(words, std::slice::from_ref(&(128..256)));
        assert_eq!(mirror.len(), 130);
        for i in 128..256 {
            let by_map = &mirror.bytes[mirror.slot(i).unwrap()];
            assert!(std::ptr::eq(mirror.in_whole(i).unwrap(), by_map));
        }
        assert!(mirror.in_whole(70).is_none() && mirror.in_whole(256).is_none());
        assert_eq!(mirror.slot(70), Some(1));
    }

    #[test]
    fn cells_read_the_own_range_then_the_mirror_then_the_bottom() {
        let mut own = vec![1u8, 2, 3, 4];
        let own = atomic(&mut own);
        let mirror = Mirror::new(vec![0b1_0000_0001], &[]);
        mirror.bytes[0].store(10, Relaxed);
        mirror.bytes[1].store(20, Relaxed);
        let cells = Cells::split(4, own, Some(&mirror));
        assert_eq!(cells.range(), 4..8);
        let read: Vec<u8> = (0..12).map(|i| cells.get(i).load(Relaxed)).collect();
        assert_eq!(read, [10, 0, 0, 0, 1, 2, 3, 4, 20, 0, 0, 0]);
        let alone = Cells::split(4, own, None);
        assert_eq!(alone.get(0).load(Relaxed), 0);
        assert_eq!(Cells::whole(own).get(3).load(Relaxed), 4);
    }
}
