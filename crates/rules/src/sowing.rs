//! Long sowings: exact detection of endless ones, and a shared cache so that no long sowing
//! is walked twice.
//!
//! Every move starts on the fast path in [`crate::Position`]: a packed board and a masked add
//! per lap, for at most [`FAST_LAPS`] laps. About one sowing in ten thousand goes further;
//! those come here.
//!
//! Here the board is kept *relative*: rotated so that lane 0 is the hole where the current
//! lap starts. With `capture_side = any` what a lap does depends only on that rotated board,
//! so the sowing is endless exactly when a relative state repeats, and a relative cycle is
//! much shorter than the absolute one (the absolute state also needs the rotation to line up).
//! With `capture_side = opponent` the state also holds the lane's place relative to the
//! mover's row (the *phase*), so there a relative repeat is an absolute one.
//!
//! Repeats are found with Brent's cycle detection (constant memory, exact). Results are cached
//! in a concurrent map keyed by relative states: the state where the sowing left the fast path,
//! and every *distinguished* state met later (about one in 256, chosen by hash), so a second
//! sowing that joins a known cycle or a known long tail stops at the first distinguished state
//! it meets. A cached result is stored relative to the key state, so it serves every rotation.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

use dashmap::DashMap;

use crate::position::Position;

/// Laps run on the fast path before a sowing is handed to the exact detector.
pub const FAST_LAPS: usize = 64;

/// Cache entries kept before the cache is cleared (memory bound: about 100 bytes an entry).
const CACHE_LIMIT: usize = 1 << 21;

/// A sowing state, relative to the hole where the next lap starts: the board rotated so that
/// the lap's hole is lane 0, as words (zero-padded to the largest board).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    board: [u64; 4],
    n: u8,
    /// Place of lane 0 relative to the mover's row start (`capture_side = opponent`),
    /// `u8::MAX` when captures may happen in any row.
    phase: u8,
}

/// How a long sowing ends, relative to a key state: the board after the last lap rotated so
/// that the landing hole is lane 0, and how far the landing hole is from the key's lane 0.
#[derive(Clone, Copy)]
struct Ending {
    board: [u64; 4],
    delta: u8,
}

type Cache = DashMap<Key, Option<Ending>, ahash::RandomState>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| DashMap::with_hasher(ahash::RandomState::with_seeds(1, 2, 3, 4)))
}

static SLOW_SOWINGS: AtomicU64 = AtomicU64::new(0);
static SLOW_LAPS: AtomicU64 = AtomicU64::new(0);
static CACHE_HITS: AtomicU64 = AtomicU64::new(0);

/// Counters of the long-sowing path since the process started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Sowings that went past the fast path.
    pub long_sowings: u64,
    /// Laps walked on the slow path (not counting cached results).
    pub slow_laps: u64,
    /// Long sowings answered from the cache (at entry or at a distinguished state).
    pub cache_hits: u64,
    /// Entries in the cache now.
    pub cache_entries: u64,
}

/// The long-sowing counters.
pub fn stats() -> Stats {
    Stats {
        long_sowings: SLOW_SOWINGS.load(Relaxed),
        slow_laps: SLOW_LAPS.load(Relaxed),
        cache_hits: CACHE_HITS.load(Relaxed),
        cache_entries: cache().len() as u64,
    }
}

/// Number of entries in the long-sowing cache (for statistics).
pub fn cache_len() -> usize {
    cache().len()
}

/// Empties the long-sowing cache (for benchmarks that measure a cold start).
pub fn clear_cache() {
    cache().clear()
}

/// The relative sowing state being walked, plus where it is in absolute terms.
#[derive(Clone, Copy)]
struct Walker<const W: usize> {
    /// The board, rotated so that lane 0 is the hole of the next lap.
    board: Position<W>,
    /// See [`Key::phase`].
    phase: u8,
    /// Absolute index of lane 0.
    abs: usize,
    n: usize,
    holes: usize,
}

fn pad<const W: usize>(p: &Position<W>) -> [u64; 4] {
    let mut out = [0u64; 4];
    out[..W].copy_from_slice(&p.words());
    out
}

fn unpad<const W: usize>(words: &[u64; 4]) -> Position<W> {
    let mut p = Position::<W>::default();
    for (i, &w) in words.iter().enumerate().take(W) {
        for k in 0..8 {
            p.set(8 * i + k, (w >> (8 * k)) as u8);
        }
    }
    p
}

impl<const W: usize> Walker<W> {
    fn key(&self) -> Key {
        Key {
            board: pad(&self.board),
            n: self.n as u8,
            phase: self.phase,
        }
    }

    /// One lap from lane 0 (the same lap as the fast path's). Returns `true` when the sowing
    /// ends with this lap (landing in an empty hole, or on a capturable 4), and in every case
    /// leaves lane 0 at the landing hole.
    #[inline]
    fn lap(&mut self) -> bool {
        let n = self.n;
        let r = self.board.lap(0, n);
        let count = self.board.get(r);
        let ended = count == 1
            || (count == 4
                // capture_side = opponent: only a 4 in the opponent's row captures.
                && (self.phase == u8::MAX || (self.phase as usize + r) % n >= self.holes));
        if r != 0 {
            self.board = self.board.rotated(r, n);
            if self.phase != u8::MAX {
                self.phase = ((self.phase as usize + r) % n) as u8;
            }
            self.abs = (self.abs + r) % n;
        }
        ended
    }

    #[inline]
    fn distinguished(&self) -> bool {
        let w = self.board.words();
        let mut h = self.phase as u64;
        for x in w {
            h = (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            h ^= h >> 31;
        }
        h >> 56 == 0
    }

    /// The final relative board and absolute landing hole for an ending relative to this state.
    fn resolve(&self, e: &Ending) -> (Position<W>, usize) {
        (unpad(&e.board), (self.abs + e.delta as usize) % self.n)
    }
}

/// Continues a sowing that left the fast path: `board` (absolute, board lanes only) has just
/// received the last seed of a lap in hole `h`, which is to be relayed. Returns the board
/// after the sowing's last lap (board lanes only) and the landing hole of that lap, or `None`
/// if the sowing never ends.
///
/// `mover_start` is the first hole of the mover's row; `opponent_only` is
/// `capture_side = opponent`.
pub(crate) fn long_sowing<const W: usize>(
    board: &Position<W>,
    h: usize,
    holes: usize,
    mover_start: usize,
    opponent_only: bool,
) -> Option<(Position<W>, usize)> {
    let n = 2 * holes;
    let mut w = Walker {
        board: board.rotated(h, n),
        phase: if opponent_only {
            ((h + n - mover_start) % n) as u8
        } else {
            u8::MAX
        },
        abs: h,
        n,
        holes,
    };
    // Relative lane i of the final board is absolute hole `landing + i`.
    let absolute = |(b, landing): (Position<W>, usize)| (b.rotated((n - landing) % n, n), landing);
    let cache = cache();
    SLOW_SOWINGS.fetch_add(1, Relaxed);
    if let Some(hit) = cache.get(&w.key()) {
        CACHE_HITS.fetch_add(1, Relaxed);
        return hit.as_ref().map(|e| absolute(w.resolve(e)));
    }

    // States to cache once the outcome is known: the entry and the distinguished ones,
    // and the keys of the distinguished ones (a set: a walk of 10^8 laps meets about
    // 400,000 of them, too many to compare one by one at each).
    let mut met: Vec<Walker<W>> = vec![w];
    let mut met_keys: ahash::AHashSet<Key> = ahash::AHashSet::new();
    let mut tortoise = w.board;
    let mut tortoise_phase = w.phase;
    let (mut power, mut lam) = (1u64, 0u64);
    let mut laps = 0u64;
    // The outcome: the last lap's board relative to its landing hole, and that hole;
    // `None` for an endless sowing.
    let outcome: Option<(Position<W>, usize)> = loop {
        laps += 1;
        if w.lap() {
            break Some((w.board, w.abs));
        }
        lam += 1;
        if w.board == tortoise && w.phase == tortoise_phase {
            break None;
        }
        if w.distinguished() {
            if let Some(hit) = cache.get(&w.key()) {
                CACHE_HITS.fetch_add(1, Relaxed);
                break hit.as_ref().map(|e| w.resolve(e));
            }
            // A distinguished state met twice on this walk closes a cycle (sooner than
            // Brent's method, which remains for cycles without distinguished states).
            if !met_keys.insert(w.key()) {
                break None;
            }
            met.push(w);
        }
        if lam == power {
            tortoise = w.board;
            tortoise_phase = w.phase;
            power *= 2;
            lam = 0;
        }
    };

    SLOW_LAPS.fetch_add(laps, Relaxed);
    if cache.len() > CACHE_LIMIT {
        cache.clear();
    }
    for state in &met {
        let ending = outcome.map(|(board, abs)| Ending {
            board: pad(&board),
            delta: ((abs + n - state.abs) % n) as u8,
        });
        cache.insert(state.key(), ending);
    }
    outcome.map(absolute)
}
