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

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::OnceLock;

use dashmap::DashMap;

/// Laps run on the fast path before a sowing is handed to the exact detector.
pub const FAST_LAPS: usize = 64;

/// Cache entries kept before the cache is cleared (memory bound: about 100 bytes an entry).
const CACHE_LIMIT: usize = 1 << 21;

/// A sowing state, relative to the hole where the next lap starts.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    board: [u8; 32],
    n: u8,
    /// Place of lane 0 relative to the mover's row start (`capture_side = opponent`),
    /// `u8::MAX` when captures may happen in any row.
    phase: u8,
}

/// How a long sowing ends, relative to a key state: the board after the last lap rotated so
/// that the landing hole is lane 0, and how far the landing hole is from the key's lane 0.
#[derive(Clone, Copy)]
struct Ending {
    board: [u8; 32],
    delta: u8,
}

type Cache = DashMap<Key, Option<Ending>, ahash::RandomState>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| DashMap::with_hasher(ahash::RandomState::with_seeds(1, 2, 3, 4)))
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
struct Walker {
    key: Key,
    /// Absolute index of lane 0.
    abs: usize,
    n: usize,
    holes: usize,
}

fn rotate_left(board: &[u8; 32], by: usize, n: usize) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate().take(n) {
        let j = i + by;
        *o = board[if j >= n { j - n } else { j }];
    }
    out
}

impl Walker {
    /// One lap from lane 0. Returns `true` when the sowing ends with this lap (landing in an
    /// empty hole, or on a capturable 4), and in every case leaves lane 0 at the landing hole.
    #[inline]
    fn lap(&mut self) -> bool {
        let n = self.n;
        let b = &mut self.key.board;
        let c = b[0] as usize;
        b[0] = 0;
        let (q, r) = (c / n, c % n);
        if q > 0 {
            for x in b.iter_mut().take(n) {
                *x += q as u8;
            }
        }
        for x in b.iter_mut().take(r + 1).skip(1) {
            *x += 1;
        }
        let count = b[r];
        let ended = count == 1
            || (count == 4 && {
                // capture_side = opponent: only a 4 in the opponent's row captures.
                self.key.phase == u8::MAX || (self.key.phase as usize + r) % n >= self.holes
            });
        if r != 0 {
            self.key.board = rotate_left(&self.key.board, r, n);
            if self.key.phase != u8::MAX {
                self.key.phase = ((self.key.phase as usize + r) % n) as u8;
            }
            self.abs = (self.abs + r) % n;
        }
        ended
    }

    fn distinguished(&self) -> bool {
        let mut h = ahash::RandomState::with_seeds(5, 6, 7, 8).build_hasher();
        self.key.hash(&mut h);
        h.finish() & 0xff == 0
    }

    /// The final relative board and absolute landing hole for an ending relative to this state.
    fn resolve(&self, e: &Ending) -> ([u8; 32], usize) {
        (e.board, (self.abs + e.delta as usize) % self.n)
    }
}

/// Continues a sowing that left the fast path: `board` (absolute, lanes `0 .. 2H`) has just
/// received the last seed of a lap in hole `h`, which is to be relayed. Returns the board after
/// the sowing's last lap and the landing hole of that lap, or `None` if the sowing never ends.
///
/// `mover_start` is the first hole of the mover's row; `opponent_only` is
/// `capture_side = opponent`.
pub(crate) fn long_sowing(
    board: &[u8; 32],
    h: usize,
    holes: usize,
    mover_start: usize,
    opponent_only: bool,
) -> Option<([u8; 32], usize)> {
    let n = 2 * holes;
    let mut w = Walker {
        key: Key {
            board: rotate_left(board, h, n),
            n: n as u8,
            phase: if opponent_only {
                ((h + n - mover_start) % n) as u8
            } else {
                u8::MAX
            },
        },
        abs: h,
        n,
        holes,
    };
    let cache = cache();
    if let Some(hit) = cache.get(&w.key) {
        return hit
            .as_ref()
            .map(|e| w.resolve(e))
            .map(|(board, landing)| (rotate_left(&board, (n - landing) % n, n), landing));
    }

    // States to cache once the outcome is known.
    let mut met: Vec<Walker> = vec![w];
    let mut tortoise = w.key;
    let (mut power, mut lam) = (1u64, 0u64);
    // The outcome: the last lap's board relative to its landing hole, and that hole;
    // `None` for an endless sowing.
    let outcome: Option<([u8; 32], usize)> = loop {
        if w.lap() {
            break Some((w.key.board, w.abs));
        }
        lam += 1;
        if w.key == tortoise {
            break None;
        }
        if w.distinguished() {
            if let Some(hit) = cache.get(&w.key) {
                break hit.as_ref().map(|e| w.resolve(e));
            }
            met.push(w);
        }
        if lam == power {
            tortoise = w.key;
            power *= 2;
            lam = 0;
        }
    };

    if cache.len() > CACHE_LIMIT {
        cache.clear();
    }
    for state in &met {
        let ending = outcome.map(|(board, abs)| Ending {
            board,
            delta: ((abs + n - state.abs) % n) as u8,
        });
        cache.insert(state.key, ending);
    }
    // Relative lane i is absolute hole `landing + i`.
    outcome.map(|(board, landing)| (rotate_left(&board, (n - landing) % n, n), landing))
}
