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
//! With `capture_side = opponent` the phase matters only when a lap lands on a 4: the walk
//! first looks for a repeat of the board alone. Such a repeat after `P` laps, with the phase
//! moved by `D`, makes the boards periodic from there on and the phases shift by `D` each
//! period; the 4-landings of one period (kept in a list) then tell exactly whether and where
//! a later period captures. This divides the cycle to walk by up to `2H`: an endless sowing of
//! 2 billion laps on a 2x6 board of 8 seeds a hole repeats its board after 165 million.
//! When a period holds too many 4-landings to keep, the walk falls back to whole states.
//!
//! Repeats are found exactly two ways, in bounded memory: a *distinguished* state (about one in
//! 256, chosen by a hash of the board) met twice, which closes a cycle a few hundred laps after
//! it has been gone round once, and Brent's cycle detection, for cycles without distinguished
//! states. The distinguished states of one walk are kept in a set of at most
//! 65,536 entries: when it is full, only the states that pass a hash test twice as
//! strict are kept, and from then on met.
//!
//! Results are cached in a concurrent map keyed by relative states: the state where the sowing
//! left the fast path, and the distinguished states met later, so a second sowing that joins a
//! known cycle or a known long tail stops at the first distinguished state it meets. A cached
//! result is stored relative to the key state, so it serves every rotation.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

use dashmap::DashMap;

use crate::position::Position;

/// Laps run on the fast path before a sowing is handed to the exact detector.
pub const FAST_LAPS: usize = 64;

/// Cache entries kept before the cache is cleared (memory bound: about 100 bytes an entry).
const CACHE_LIMIT: usize = 1 << 21;

/// Distinguished states kept by one walk (memory bound: about 150 bytes an entry).
const MET_LIMIT: usize = 1 << 16;

/// 4-landings kept by one walk for the board-only repeat (about 60 bytes an entry).
const FOURS_LIMIT: usize = 1 << 16;

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
/// Sowings that ended in a later period of their board (for the tests).
#[cfg(test)]
static PERIODIC_ENDINGS: AtomicU64 = AtomicU64::new(0);

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
        // Both below n, so a subtraction takes the sum modulo n (no division in the loop).
        let wrap = |x: usize| if x >= n { x - n } else { x };
        let phase = wrap(self.phase as usize + r);
        let ended = count == 1
            || (count == 4
                // capture_side = opponent: only a 4 in the opponent's row captures.
                && (self.phase == u8::MAX || phase >= self.holes));
        if r != 0 {
            self.board = self.board.rotated(r, n);
            if self.phase != u8::MAX {
                self.phase = phase as u8;
            }
            self.abs = wrap(self.abs + r);
        }
        ended
    }

    /// A hash of the board alone (not the phase), whose top bits pick the distinguished
    /// states: those with the top `8 + level` bits clear.
    #[inline]
    fn hash(&self) -> u64 {
        let mut h = 0u64;
        for x in self.board.words() {
            h = (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            h ^= h >> 31;
        }
        h
    }

    /// The final relative board and absolute landing hole for an ending relative to this state.
    fn resolve(&self, e: &Ending) -> (Position<W>, usize) {
        (unpad(&e.board), (self.abs + e.delta as usize) % self.n)
    }
}

/// Whether a hash picks a distinguished state at `level` (one in `256 << level`).
#[inline]
fn distinguished(h: u64, level: u32) -> bool {
    h >> (56 - level) == 0
}

/// A state met on a walk: the walker and the lap after which it was met.
#[derive(Clone, Copy)]
struct Met<const W: usize> {
    walker: Walker<W>,
    lap: u64,
    hash: u64,
}

/// A lap that landed on a 4 in the mover's row (so the sowing went on): the state it left.
#[derive(Clone, Copy)]
struct Four<const W: usize> {
    walker: Walker<W>,
    lap: u64,
}

/// The outcome of a walk whose board (not phase) repeats: `earlier` and `now` hold the same
/// relative board, `fours` every 4-landing in between (laps `earlier.lap + 1 ..= now.lap`).
/// From `earlier` on the boards repeat every `P = now.lap - earlier.lap` laps and the lane
/// that is lane 0 moves on by `D = now.abs - earlier.abs` each period, so the 4-landing of
/// lap `t` comes back in lap `t + mP` on the hole `D * m` further on. The sowing ends at the
/// first such return in the opponent's row; it is endless when none is.
fn periodic_outcome<const W: usize>(
    earlier: &Met<W>,
    now: &Met<W>,
    fours: &[Four<W>],
) -> Option<(Position<W>, usize)> {
    let (n, holes) = (now.walker.n, now.walker.holes);
    let d = (now.walker.abs + n - earlier.walker.abs) % n;
    if d == 0 {
        return None;
    }
    let period: Vec<&Four<W>> = fours
        .iter()
        .filter(|f| f.lap > earlier.lap && f.lap <= now.lap)
        .collect();
    for m in 1..n {
        for f in &period {
            let phase = (f.walker.phase as usize + m * d) % n;
            if phase >= holes {
                #[cfg(test)]
                PERIODIC_ENDINGS.fetch_add(1, Relaxed);
                return Some((f.walker.board, (f.walker.abs + m * d) % n));
            }
        }
    }
    None
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

    let entry = Met {
        walker: w,
        lap: 0,
        hash: w.hash(),
    };
    let mut cycles = Cycles::new(entry, opponent_only);
    let mut laps = 0u64;
    // The outcome: the last lap's board relative to its landing hole, and that hole;
    // `None` for an endless sowing.
    let outcome: Option<(Position<W>, usize)> = loop {
        laps += 1;
        if w.lap() {
            break Some((w.board, w.abs));
        }
        let now = Met {
            walker: w,
            lap: laps,
            hash: w.hash(),
        };
        if let Some(outcome) = cycles.step(&now, cache) {
            break outcome;
        }
    };

    SLOW_LAPS.fetch_add(laps, Relaxed);
    if cache.len() > CACHE_LIMIT {
        cache.clear();
    }
    for state in std::iter::once(&entry.walker).chain(cycles.met.values().map(|m| &m.walker)) {
        let ending = outcome.map(|(board, abs)| Ending {
            board: pad(&board),
            delta: ((abs + n - state.abs) % n) as u8,
        });
        cache.insert(state.key(), ending);
    }
    outcome.map(absolute)
}

/// The search for the end or the cycle of one slow sowing ([`long_sowing`]): Brent's method,
/// the distinguished states met on the walk, and the 4-landings of the current period.
struct Cycles<const W: usize> {
    /// Whether repeats are looked for on the board alone (`capture_side = opponent` until the
    /// 4-landings of a period are too many to keep), else on the whole state.
    board_only: bool,
    /// The distinguished states met on this walk, by board (and phase unless `board_only`).
    met: ahash::AHashMap<Key, Met<W>>,
    level: u32,
    /// 4-landings since lap `fours_from` (only while `board_only`).
    fours: Vec<Four<W>>,
    fours_from: u64,
    /// Brent's saved state, and its power and distance.
    tortoise: Met<W>,
    power: u64,
    lam: u64,
}

impl<const W: usize> Cycles<W> {
    fn new(entry: Met<W>, opponent_only: bool) -> Self {
        Cycles {
            board_only: opponent_only,
            met: ahash::AHashMap::new(),
            level: 0,
            fours: Vec::new(),
            fours_from: 0,
            tortoise: entry,
            power: 1,
            lam: 0,
        }
    }

    /// Looks at the state `now`, reached at the end of a lap that did not end the sowing:
    /// `Some` with the outcome (as [`long_sowing`]'s loop breaks with it) when it closes a
    /// cycle or the cache knows it, `None` to sow on.
    fn step(&mut self, now: &Met<W>, cache: &Cache) -> Option<Option<(Position<W>, usize)>> {
        let w = now.walker;
        if self.board_only && w.board.get(0) == 4 {
            if self.fours.len() == FOURS_LIMIT {
                // Only the laps since Brent's saved state are needed to close its cycle.
                let from = self.tortoise.lap;
                self.fours.retain(|f| f.lap > from);
                self.fours_from = from;
            }
            if self.fours.len() == FOURS_LIMIT {
                // Too many 4-landings to follow: look for whole repeated states instead.
                self.board_only = false;
                self.fours = Vec::new();
                self.met.clear();
                self.tortoise = *now;
                (self.power, self.lam) = (1, 0);
                return None;
            }
            self.fours.push(Four {
                walker: w,
                lap: now.lap,
            });
        }
        self.lam += 1;
        let same = w.board == self.tortoise.walker.board
            && (self.board_only || w.phase == self.tortoise.walker.phase);
        if same {
            return Some(periodic_outcome(&self.tortoise, now, &self.fours));
        }
        if distinguished(now.hash, 0) {
            if let Some(hit) = cache.get(&w.key()) {
                CACHE_HITS.fetch_add(1, Relaxed);
                return Some(hit.as_ref().map(|e| w.resolve(e)));
            }
            if distinguished(now.hash, self.level) {
                if let Some(outcome) = self.meet(now) {
                    return Some(outcome);
                }
            }
        }
        if self.lam == self.power {
            self.tortoise = *now;
            self.power *= 2;
            self.lam = 0;
        }
        None
    }

    /// Notes the distinguished state `now`: met twice on this walk, it closes a cycle (sooner
    /// than Brent's method, which remains for cycles without distinguished states), and the
    /// outcome is returned as by [`Cycles::step`].
    fn meet(&mut self, now: &Met<W>) -> Option<Option<(Position<W>, usize)>> {
        let mut key = now.walker.key();
        if self.board_only {
            key.phase = u8::MAX;
        }
        match self.met.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => {
                let earlier = *e.get();
                if !self.board_only || earlier.walker.phase == now.walker.phase {
                    return Some(None);
                }
                if earlier.lap >= self.fours_from {
                    return Some(periodic_outcome(&earlier, now, &self.fours));
                }
                // Its period's 4-landings are gone; Brent's method will close it.
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(*now);
            }
        }
        if self.met.len() > MET_LIMIT {
            self.level += 1;
            let level = self.level;
            self.met.retain(|_, m| distinguished(m.hash, level));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::{CaptureSide, LastFour, Move, Position6, Rules, Side, Variant};

    /// What a plain walk of one sowing finds.
    #[derive(Debug, PartialEq)]
    enum Plain {
        /// The board after the last lap (before any capture) and its landing hole.
        Ends(Vec<u32>, usize),
        /// A sowing state (board and hole) repeated: the sowing never ends.
        Endless,
        /// Still going after the lap cap.
        Capped,
    }

    /// One sowing on an array board, lap by lap, from hole `from` of `board` (sowing order),
    /// with every absolute state kept while fewer than `keep` laps have been walked, and a
    /// cap of `cap` laps. Also returns whether the board as seen from the landing hole
    /// repeated before the sowing ended (the case the detector settles from one period).
    fn plain(
        board: &[u32],
        from: usize,
        mover_start: usize,
        opponent_only: bool,
        keep: usize,
        cap: u64,
    ) -> (Plain, bool) {
        let n = board.len();
        let holes = n / 2;
        let mut b = board.to_vec();
        let mut at = from;
        let mut seen = std::collections::HashSet::new();
        let mut relative: HashMap<Vec<u32>, ()> = HashMap::new();
        let mut repeated = false;
        for lap in 0..cap {
            let c = b[at] as usize;
            b[at] = 0;
            for k in 1..=c {
                b[(at + k) % n] += 1;
            }
            at = (at + c) % n;
            let opponent_row = (at + n - mover_start) % n >= holes;
            if b[at] == 1 || (b[at] == 4 && (!opponent_only || opponent_row)) {
                return (Plain::Ends(b, at), repeated);
            }
            if (lap as usize) < keep {
                if !seen.insert((b.clone(), at)) {
                    return (Plain::Endless, repeated);
                }
                let mut r = b.clone();
                r.rotate_left(at);
                repeated |= relative.insert(r, ()).is_some();
            }
        }
        (Plain::Capped, repeated)
    }

    /// The engine's move against the plain walk: the same verdict, and for a move that ends
    /// the same board before captures (known from the engine's board after them, the seeds
    /// it captured and where).
    fn agree(rules: &Rules, p: &Position6, side: Side, hole: usize, verdict: &Plain) {
        let played = p.play(rules, Move(hole as u8));
        match verdict {
            Plain::Capped => assert!(
                played.is_err(),
                "{p} move {hole}: ends, the plain walk did not"
            ),
            Plain::Endless => assert!(played.is_err(), "{p} move {hole} should be endless"),
            Plain::Ends(b, landing) => {
                let c = played.unwrap_or_else(|_| panic!("{p} move {hole} should end"));
                let holes = rules.holes();
                let mover_start = if side == Side::South { 0 } else { holes };
                let opponent_row = (landing + 2 * holes - mover_start) % (2 * holes) >= holes;
                let capture =
                    b[*landing] == 4 && (rules.capture_side() == CaptureSide::Any || opponent_row);
                assert_eq!(c.captured > 0, capture, "{p} move {hole}");
                if !c.ended_game {
                    let (s, nn) = c.position.rows();
                    let mut mine: Vec<u32> = s.iter().chain(&nn).map(|&x| x as u32).collect();
                    if capture {
                        // Hoyito III: only the landing hole is taken.
                        mine[*landing] += c.captured as u32;
                    }
                    assert_eq!(&mine, b, "{p} move {hole}");
                }
            }
        }
    }

    /// A xorshift generator from `seed` (fixed seeds: the same cases every run).
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// Long sowings on small boards with many seeds, continued by the detector from a random
    /// state, against a plain walk that keeps every state: the same verdict, and the same
    /// board and landing hole when the sowing ends. With `capture_side = opponent` this
    /// includes sowings that end only in a later period of their board (seen from the landing
    /// hole), which the detector settles from the 4-landings of one period.
    #[test]
    fn long_sowings_agree_with_a_plain_walk() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        let before = super::PERIODIC_ENDINGS.load(Relaxed);
        let mut endless = 0;
        for case in 0..30_000 {
            let holes = 2 + case % 4;
            let n = 2 * holes;
            let cells: Vec<u32> = (0..n).map(|_| (next() % 12) as u32).collect();
            let h = (next() % n as u64) as usize;
            if cells[h] < 2 {
                continue;
            }
            let mover_start = if next() & 1 == 0 { 0 } else { holes };
            let opponent_only = case % 5 != 0;
            let mut board = Position::<2>::default();
            for (i, &c) in cells.iter().enumerate() {
                board.set(i, c as u8);
            }
            let (verdict, _) = plain(&cells, h, mover_start, opponent_only, usize::MAX, 1 << 24);
            let mine = long_sowing(&board, h, holes, mover_start, opponent_only);
            match verdict {
                Plain::Ends(b, landing) => {
                    let (after, at) = mine.unwrap_or_else(|| panic!("{cells:?} from {h} ends"));
                    let after: Vec<u32> = (0..n).map(|i| after.get(i) as u32).collect();
                    assert_eq!((after, at), (b, landing), "{cells:?} from {h}");
                }
                Plain::Endless => {
                    assert!(mine.is_none(), "{cells:?} from {h} never ends");
                    endless += 1;
                }
                Plain::Capped => panic!("{cells:?} from {h}: plain walk capped"),
            }
        }
        assert!(endless > 0);
        assert!(
            super::PERIODIC_ENDINGS.load(Relaxed) > before,
            "no sowing ended in a later period of its board"
        );
    }

    /// The same through moves of positions (the fast path first): on boards of 2 to 5 holes
    /// a row with up to 11 seeds a hole, the engine's moves agree with the plain walk.
    #[test]
    fn moves_agree_with_a_plain_walk() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
        for case in 0..5_000 {
            let holes = 2 + case % 4;
            let capture_side = if case % 3 == 0 {
                CaptureSide::Any
            } else {
                CaptureSide::Opponent
            };
            let rules =
                Rules::new(Variant::Hoyito3, holes, 8, LastFour::Capturer, capture_side).unwrap();
            let n = 2 * holes;
            let cells: Vec<u32> = (0..n).map(|_| (next() % 12) as u32).collect();
            let side = if next() & 1 == 0 {
                Side::South
            } else {
                Side::North
            };
            let rows: Vec<u8> = cells.iter().map(|&x| x as u8).collect();
            let Ok(p) = Position6::from_rows(&rules, &rows[..holes], &rows[holes..], side, [0, 0])
            else {
                continue;
            };
            let mover_start = if side == Side::South { 0 } else { holes };
            for hole in 1..=holes {
                let from = mover_start + hole - 1;
                if cells[from] == 0 {
                    continue;
                }
                let opponent_only = capture_side == CaptureSide::Opponent;
                let (verdict, _) = plain(
                    &cells,
                    from,
                    mover_start,
                    opponent_only,
                    usize::MAX,
                    1 << 24,
                );
                assert_ne!(verdict, Plain::Capped);
                agree(&rules, &p, side, hole, &verdict);
            }
        }
    }

    /// The slow input of the fuzz campaign (`fuzz/slow/`): on 2x6 with 8 seeds a hole,
    /// Hoyito III, captures in the opponent's row only, move 3 of this position repeats its
    /// whole state only after about 2 billion laps (its board, seen from the landing hole,
    /// after 165 million). The move list agrees with a plain walk capped at 20 million laps:
    /// the moves that end, exactly; move 3, not ended within the cap.
    #[test]
    fn the_slow_fuzz_input_is_decided() {
        let rules = Rules::new(
            Variant::Hoyito3,
            6,
            8,
            LastFour::South,
            CaptureSide::Opponent,
        )
        .unwrap();
        let p = Position6::parse(&rules, "1,0,1,0,2,1/52,7,21,1,3,4 N").unwrap();
        let cells = [1, 0, 1, 0, 2, 1, 52, 7, 21, 1, 3, 4];
        let mut endless = Vec::new();
        for hole in 1..=6 {
            let from = 6 + hole - 1;
            if cells[from] == 0 {
                continue;
            }
            let (verdict, _) = plain(&cells, from, 6, true, 100_000, 20_000_000);
            if verdict == Plain::Capped {
                endless.push(hole);
            }
            agree(&rules, &p, Side::North, hole, &verdict);
        }
        assert_eq!(endless, vec![3]);
        let moves = p.moves(&rules);
        let listed: Vec<u8> = moves.children().iter().map(|c| c.mv.0).collect();
        assert_eq!(listed, vec![1, 2, 4, 5, 6]);
        assert_eq!(moves.endless().map(|m| m.0).collect::<Vec<_>>(), vec![3]);
    }
}
