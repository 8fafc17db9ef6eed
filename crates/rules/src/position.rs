//! The bit-packed position and the move generator.

use std::fmt;

use crate::error::{PlayError, PositionError};
use crate::moves::{Child, Move, MoveList, Status};
use crate::notation::Diagram;
use crate::options::{CaptureSide, Rules, Side, Variant, MAX_HOLES};
use crate::sowing::{long_sowing, FAST_LAPS};

/// Bytes with value 1 in every lane of a word.
const LO: u64 = 0x0101_0101_0101_0101;

/// A position: the seeds in every hole, the side to move and the seeds captured so far.
///
/// The position is `W` little-endian `u64` words, read as `8 * W` byte lanes:
///
/// ```text
///  lane   0 ..= 2H-1            ...     L-4     L-3          L-2          L-1
///        +--------------------+-----+-------+------------+------------+------+
///        | holes, sowing order| 0 0 |   H   | captured S | captured N | side |
///        +--------------------+-----+-------+------------+------------+------+
///  L = 8W.  South's hole k is lane k-1, North's hole k is lane H+k-1.
///  Position<2> (16 bytes) holds boards up to 2x6, Position<4> (32 bytes) up to 2x12.
/// ```
///
/// A lane holds at most 192 (2 x 12 holes x 8 seeds), so adding to every lane of a word at
/// once never carries into the next lane: a lap of sowing is one masked add per word.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position<const W: usize> {
    lanes: [u64; W],
}

/// Positions of boards up to 2x6, in 16 bytes.
pub type Position6 = Position<2>;
/// Positions of boards up to 2x12, in 32 bytes.
pub type Position12 = Position<4>;

const _: () = assert!(std::mem::size_of::<Position6>() == 16);
const _: () = assert!(std::mem::size_of::<Position12>() == 32);

/// `RUN6[n / 2][h][c]`: one seed in each of the `c` lanes after lane `h`, wrapping at `n`
/// (boards up to 2x6, as one 128-bit value). A lap of `c < n` seeds from hole `h` adds it.
static RUN6: [[[u128; 12]; 12]; 7] = {
    let mut t = [[[0u128; 12]; 12]; 7];
    let mut half = 1;
    while half <= 6 {
        let n = 2 * half;
        let mut h = 0;
        while h < n {
            let mut c = 0;
            while c < n {
                let mut v = 0u128;
                let mut k = 1;
                while k <= c {
                    v |= 1u128 << (8 * ((h + k) % n));
                    k += 1;
                }
                t[half][h][c] = v;
                c += 1;
            }
            h += 1;
        }
        half += 1;
    }
    t
};

/// `RUN12[h][c]`: one seed in each of the `c` lanes after lane `h`, wrapping at 24 (the 2x12
/// board, as four words).
static RUN12: [[[u64; 4]; 24]; 24] = {
    let mut t = [[[0u64; 4]; 24]; 24];
    let mut h = 0;
    while h < 24 {
        let mut c = 0;
        while c < 24 {
            let mut k = 1;
            while k <= c {
                let lane = (h + k) % 24;
                t[h][c][lane / 8] |= 1u64 << (8 * (lane % 8));
                k += 1;
            }
            c += 1;
        }
        h += 1;
    }
    t
};

/// Builds the table `ONES[k]`: lanes `0 .. k` hold 1, the others 0.
const fn ones_table<const W: usize>() -> [[u64; W]; 33] {
    let mut t = [[0u64; W]; 33];
    let mut k = 0;
    while k <= 32 {
        let mut j = 0;
        while j < W {
            let lo = 8 * j;
            let m = if k <= lo {
                0
            } else if k - lo >= 8 {
                8
            } else {
                k - lo
            };
            t[k][j] = if m == 8 {
                LO
            } else {
                LO & ((1u64 << (8 * m)) - 1)
            };
            j += 1;
        }
        k += 1;
    }
    t
}

impl<const W: usize> Position<W> {
    const LANES: usize = 8 * W;
    const HOLES_LANE: usize = Self::LANES - 4;
    const CAPTURED_LANE: usize = Self::LANES - 3;
    const SIDE_LANE: usize = Self::LANES - 1;
    /// Most holes per row this type holds.
    pub const MAX_HOLES: usize = {
        let m = (8 * W - 4) / 2;
        if m < MAX_HOLES {
            m
        } else {
            MAX_HOLES
        }
    };
    const ONES: [[u64; W]; 33] = ones_table::<W>();
    /// Mask of the last word that keeps board lanes only (the top 4 lanes are bookkeeping).
    const BOARD_MASK_LAST: u64 = 0x0000_0000_ffff_ffff;
    /// Mask of the last word that keeps the board, `H` and the side, not the captured counts.
    const KEY_MASK_LAST: u64 = 0xff00_00ff_ffff_ffff;

    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> u8 {
        if W == 2 {
            // As one 128-bit value the lanes stay in registers (no variable array index).
            (self.as_u128() >> (8 * i)) as u8
        } else {
            (self.lanes[i >> 3] >> ((i & 7) * 8)) as u8
        }
    }

    #[inline(always)]
    pub(crate) fn set(&mut self, i: usize, v: u8) {
        if W == 2 {
            let x = self.as_u128();
            self.set_u128((x & !(0xff << (8 * i))) | ((v as u128) << (8 * i)));
        } else {
            let s = (i & 7) * 8;
            let w = &mut self.lanes[i >> 3];
            *w = (*w & !(0xff << s)) | ((v as u64) << s);
        }
    }

    #[inline(always)]
    fn as_u128(&self) -> u128 {
        self.lanes[0] as u128 | (self.lanes[1 % W] as u128) << 64
    }

    #[inline(always)]
    fn set_u128(&mut self, x: u128) {
        self.lanes[0] = x as u64;
        self.lanes[1 % W] = (x >> 64) as u64;
    }

    /// The standard start of `rules`: every hole holds `rules.seeds()`, South to move.
    ///
    /// ```
    /// use hoyito_rules::{Position6, Rules};
    /// let p = Position6::start(&Rules::default()).unwrap();
    /// assert_eq!(p.to_string(), "4,4,4,4,4,4/4,4,4,4,4,4 S 0-0");
    /// ```
    pub fn start(rules: &Rules) -> Result<Self, PositionError> {
        let h = rules.holes();
        let row = vec![rules.seeds() as u8; h];
        Self::from_rows(rules, &row, &row, Side::South, [0, 0])
    }

    /// Builds a position from the rows (each in sowing order), the side to move and the seeds
    /// captured by South and North.
    pub fn from_rows(
        rules: &Rules,
        south: &[u8],
        north: &[u8],
        side: Side,
        captured: [u16; 2],
    ) -> Result<Self, PositionError> {
        let h = rules.holes();
        if h > Self::MAX_HOLES {
            return Err(PositionError::TooLargeForType {
                holes: h,
                max: Self::MAX_HOLES,
            });
        }
        if south.len() != h || north.len() != h {
            return Err(PositionError::HolesMismatch {
                diagram: south.len().max(north.len()),
                rules: h,
            });
        }
        let found = south
            .iter()
            .chain(north)
            .map(|&x| x as usize)
            .sum::<usize>()
            + captured[0] as usize
            + captured[1] as usize;
        if found > rules.total_seeds() {
            return Err(PositionError::TooManySeeds {
                found,
                allowed: rules.total_seeds(),
            });
        }
        let mut p = Position { lanes: [0; W] };
        for (i, &s) in south.iter().chain(north).enumerate() {
            p.set(i, s);
        }
        p.set(Self::HOLES_LANE, h as u8);
        p.set(Self::CAPTURED_LANE, captured[0] as u8);
        p.set(Self::CAPTURED_LANE + 1, captured[1] as u8);
        p.set(Self::SIDE_LANE, side as u8);
        Ok(p)
    }

    /// Builds a position from a parsed diagram under `rules` (whose holes must match).
    pub fn from_diagram(rules: &Rules, d: &Diagram) -> Result<Self, PositionError> {
        Self::from_rows(
            rules,
            &d.south,
            &d.north,
            d.side,
            d.captured.unwrap_or([0, 0]),
        )
    }

    /// Parses a position in the notation of RULES.md and checks it against `rules`.
    ///
    /// ```
    /// use hoyito_rules::{Position6, Rules};
    /// let r = Rules::default();
    /// let p = Position6::parse(&r, "2,3,4,0,4,1/3,3,3,1,1,3 S").unwrap();
    /// assert_eq!(p.seeds_on_board(), 28);
    /// assert!(Position6::parse(&r, "2,3,4,0,4/3,3,3,1,1,3 S").is_err());
    /// ```
    pub fn parse(rules: &Rules, text: &str) -> Result<Self, crate::Error> {
        let d: Diagram = text.parse()?;
        Ok(Self::from_diagram(rules, &d)?)
    }

    /// Holes per row, `H`.
    #[inline]
    pub fn holes(&self) -> usize {
        self.get(Self::HOLES_LANE) as usize
    }

    /// The seeds in hole `index` (`0 .. 2H`, sowing order).
    #[inline]
    pub fn seeds(&self, index: usize) -> u8 {
        debug_assert!(index < 2 * self.holes());
        self.get(index)
    }

    /// The seeds in `side`'s hole number `hole` (`1 ..= H`).
    pub fn seeds_in(&self, side: Side, hole: usize) -> u8 {
        self.get(side.index() * self.holes() + hole - 1)
    }

    /// South's and North's rows, each in sowing order.
    pub fn rows(&self) -> (Vec<u8>, Vec<u8>) {
        let h = self.holes();
        (
            (0..h).map(|i| self.get(i)).collect(),
            (h..2 * h).map(|i| self.get(i)).collect(),
        )
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Side {
        if self.get(Self::SIDE_LANE) == 0 {
            Side::South
        } else {
            Side::North
        }
    }

    /// Seeds captured so far by `side`.
    #[inline]
    pub fn captured(&self, side: Side) -> u8 {
        self.get(Self::CAPTURED_LANE + side.index())
    }

    /// The same position in another position type: `None` when the board does not fit.
    ///
    /// ```
    /// use hoyito_rules::{Position12, Position6, Rules};
    /// let r = Rules::default();
    /// let big = Position12::start(&r).unwrap();
    /// assert_eq!(big.cast::<2>(), Some(Position6::start(&r).unwrap()));
    /// ```
    #[inline]
    pub fn cast<const V: usize>(&self) -> Option<Position<V>> {
        let mut out = Position::<V> { lanes: [0; V] };
        if V == W {
            out.lanes.copy_from_slice(&self.lanes[..V]);
            return Some(out);
        }
        let h = self.holes();
        if h > Position::<V>::MAX_HOLES {
            return None;
        }
        for i in 0..2 * h {
            out.set(i, self.get(i));
        }
        out.set(Position::<V>::HOLES_LANE, h as u8);
        out.set(Position::<V>::CAPTURED_LANE, self.get(Self::CAPTURED_LANE));
        out.set(
            Position::<V>::CAPTURED_LANE + 1,
            self.get(Self::CAPTURED_LANE + 1),
        );
        out.set(Position::<V>::SIDE_LANE, self.get(Self::SIDE_LANE));
        Some(out)
    }

    /// The same board and side to move with other captured counts.
    pub fn with_captured(mut self, south: u8, north: u8) -> Self {
        self.set(Self::CAPTURED_LANE, south);
        self.set(Self::CAPTURED_LANE + 1, north);
        self
    }

    /// The same board and captured counts with the other side to move.
    #[inline]
    pub fn with_side_flipped(mut self) -> Self {
        let s = self.get(Self::SIDE_LANE);
        self.set(Self::SIDE_LANE, s ^ 1);
        self
    }

    /// The position seen from the other side: rows exchanged, side to move and captured
    /// counts exchanged. Under symmetric rules it has the same moves and results.
    pub fn mirrored(&self) -> Self {
        let h = self.holes();
        let mut p = *self;
        for i in 0..2 * h {
            p.set((i + h) % (2 * h), self.get(i));
        }
        p.set(Self::CAPTURED_LANE, self.get(Self::CAPTURED_LANE + 1));
        p.set(Self::CAPTURED_LANE + 1, self.get(Self::CAPTURED_LANE));
        p.with_side_flipped()
    }

    /// Seeds on the board.
    #[inline]
    pub fn seeds_on_board(&self) -> u32 {
        let mut acc = 0u64;
        for j in 0..W {
            // No lane overflows: all board lanes together hold at most 192.
            acc += if j == W - 1 {
                self.lanes[j] & Self::BOARD_MASK_LAST
            } else {
                self.lanes[j]
            };
        }
        (acc.wrapping_mul(LO) >> 56) as u32
    }

    /// Seeds in `side`'s row.
    pub fn seeds_in_row(&self, side: Side) -> u32 {
        let h = self.holes();
        (0..h).map(|k| self.get(side.index() * h + k) as u32).sum()
    }

    /// A 64-bit key of the board and side to move (captured counts are left out, since they
    /// do not change what can happen next). Suitable for transposition tables.
    #[inline]
    pub fn key(&self) -> u64 {
        let mut h = 0x243f_6a88_85a3_08d3u64;
        for j in 0..W {
            let w = if j == W - 1 {
                self.lanes[j] & Self::KEY_MASK_LAST
            } else {
                self.lanes[j]
            };
            h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            h ^= h >> 29;
        }
        // murmur3 finaliser
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }

    /// The board and side to move without captured counts, as raw words (an exact key).
    #[inline]
    pub fn board_key(&self) -> [u64; W] {
        let mut k = self.lanes;
        k[W - 1] &= Self::KEY_MASK_LAST;
        k
    }

    /// An exact key of the board and side to move in one word, where it fits: on a board of
    /// up to 6 holes a row whose holes hold at most 31 seeds each (every 2x6 board of up to
    /// 31 seeds, and nearly all of play above), else `None`. Of two positions with the same
    /// number of holes and with keys, the keys are the same exactly when
    /// [`Position::board_key`] is.
    ///
    /// The word's bits, from bit 0: 5 a hole in index order (South's row, then North's),
    /// then the side to move (1 North) at bit 60.
    ///
    /// ```
    /// use hoyito_rules::{Position6, Rules};
    /// let r = Rules::default();
    /// let p = Position6::parse(&r, "0,4,4,0,4,4/4,4,4,4,4,4 S").unwrap();
    /// let q = Position6::parse(&r, "4,4,4,0,4,0/4,4,4,4,4,4 S").unwrap();
    /// assert_ne!(p.packed_key(), q.packed_key());
    /// assert_eq!(p.packed_key(), p.with_captured(3, 5).packed_key());
    /// ```
    #[inline]
    pub fn packed_key(&self) -> Option<u64> {
        if W != 2 {
            return None;
        }
        let rep =
            |unit: u128, bits: u32| (0..128 / bits).fold(0u128, |acc, k| acc | unit << (k * bits));
        let x = self.as_u128() & ((1u128 << (16 * self.holes())) - 1);
        if x & rep(0xe0, 8) != 0 {
            return None;
        }
        // Each byte's 5 bits moved next to its neighbour's: pairs, then fours, then eights.
        let x = (x & rep(0x1f, 16)) | ((x >> 3) & rep(0x3e0, 16));
        let x = (x & rep(0x3ff, 32)) | ((x >> 6) & rep(0xf_fc00, 32));
        let x = (x & rep(0xf_ffff, 64)) | ((x >> 12) & rep(0xff_fff0_0000, 64));
        let side = self.side_to_move().index() as u64;
        Some(x as u64 | ((x >> 64) as u64) << 40 | side << 60)
    }

    /// One lap: lift the seeds of hole `h` and sow them from the next hole on, the origin
    /// included when a lap passes it (`n = 2H` holes). Returns the hole that received the
    /// last seed.
    #[inline(always)]
    pub(crate) fn lap(&mut self, h: usize, n: usize) -> usize {
        let c = self.get(h) as usize;
        if W == 2 && c < n {
            // The common lap (less than a full turn), with one table load: the seeds of
            // lanes h+1 .. h+c, wrapping at n, as a 128-bit add.
            let x = self.as_u128() & !(0xff << (8 * h));
            self.set_u128(x + RUN6[n / 2][h][c]);
            let landing = h + c;
            return if landing >= n { landing - n } else { landing };
        }
        if W == 4 && n == 24 && c < n {
            // The same on the 2x12 board, four words.
            self.set(h, 0);
            let run = &RUN12[h][c];
            for (j, w) in self.lanes.iter_mut().enumerate() {
                *w += run[j];
            }
            let landing = h + c;
            return if landing >= n { landing - n } else { landing };
        }
        let (q, r) = if c < n { (0, c) } else { (c / n, c % n) };
        let s = h + 1;
        let end = s + r;
        // Lanes s .. s+r, wrapping at n, get one more seed; every lane gets q.
        let (hi, wrap) = if end <= n { (end, 0) } else { (n, end - n) };
        let ones = &Self::ONES;
        if W == 2 {
            let o = |k: usize| ones[k][0] as u128 | (ones[k][1 % W] as u128) << 64;
            let x = self.as_u128() & !(0xff << (8 * h));
            self.set_u128(x + o(n) * q as u128 + o(hi) - o(s) + o(wrap));
        } else {
            self.set(h, 0);
            for (j, w) in self.lanes.iter_mut().enumerate() {
                *w += ones[n][j] * q as u64 + ones[hi][j] - ones[s][j] + ones[wrap][j];
            }
        }
        let landing = h + r;
        if landing >= n {
            landing - n
        } else {
            landing
        }
    }

    /// The board alone (lanes `0 .. n`), every bookkeeping lane cleared.
    #[inline]
    pub(crate) fn board_only(&self, n: usize) -> Self {
        let mut out = *self;
        for (j, w) in out.lanes.iter_mut().enumerate() {
            *w &= Self::ONES[n][j] * 0xff;
        }
        out
    }

    /// The board lanes as words (for keys of board-only positions).
    #[inline]
    pub(crate) fn words(&self) -> [u64; W] {
        self.lanes
    }

    /// A board-only position rotated so that hole `by` becomes lane 0 (`n` board lanes).
    #[inline]
    pub(crate) fn rotated(&self, by: usize, n: usize) -> Self {
        if by == 0 {
            return *self;
        }
        if W == 2 {
            let x = self.as_u128();
            let mask = (1u128 << (8 * n)) - 1;
            let mut out = *self;
            out.set_u128(((x >> (8 * by)) | (x << (8 * (n - by)))) & mask);
            return out;
        }
        let (a, b) = (shr_lanes(&self.lanes, by), shl_lanes(&self.lanes, n - by));
        let mut out = Position { lanes: [0; W] };
        for j in 0..W {
            out.lanes[j] = (a[j] | b[j]) & (Self::ONES[n][j] * 0xff);
        }
        out
    }

    /// Plays the sowing from hole `origin` (an index `0 .. 2H` with seeds) through all its
    /// relay laps. Returns the board after the last lap and the hole where it ended, with
    /// whether that ending is a capture; `None` if the sowing never ends. `holes` is
    /// [`Position::holes`], passed down so that a caller can make it a constant.
    #[inline(always)]
    fn sow(&self, rules: &Rules, origin: usize, holes: usize) -> Option<(Self, usize, bool)> {
        let n = 2 * holes;
        let mover_start = self.side_to_move().index() * holes;
        let opponent_only = rules.capture_side() == CaptureSide::Opponent;
        // A hole index is in the opponent's row iff its distance from the mover's row start
        // is at least H.
        let capturable = |i: usize| !opponent_only || (i + n - mover_start) % n >= holes;
        let mut p = *self;
        let mut h = origin;
        for _ in 0..FAST_LAPS {
            h = p.lap(h, n);
            let c = p.get(h);
            if c == 1 {
                return Some((p, h, false));
            }
            if c == 4 && capturable(h) {
                return Some((p, h, true));
            }
        }
        // Rare: hand over to the exact detector, which works on the board alone.
        let (board, landing) = long_sowing(&p.board_only(n), h, holes, mover_start, opponent_only)?;
        let mut out = board;
        for j in 0..W {
            // Put the bookkeeping lanes back.
            out.lanes[j] |= p.lanes[j] & !(Self::ONES[n][j] * 0xff);
        }
        let capture = out.get(landing) == 4 && capturable(landing);
        Some((out, landing, capture))
    }

    /// Plays move `hole` (1-based) without checking that the hole is the mover's and
    /// non-empty. `None` if the sowing never ends. `holes` as in [`Position::sow`].
    #[inline(always)]
    fn play_index(&self, rules: &Rules, hole: usize, holes: usize) -> Option<Child<W>> {
        let n = 2 * holes;
        let mover = self.side_to_move();
        let mover_start = mover.index() * holes;
        let before = self.seeds_on_board();
        let (mut p, landing, capture) = self.sow(rules, mover_start + hole - 1, holes)?;
        let mut captured = 0u32;
        let mut awarded = 0u32;
        let mut gain = 0i16;
        let mut ended_game = false;
        if capture {
            captured += 4;
            p.set(landing, 0);
            if rules.variant() == Variant::Hoyito2 {
                let opponent_only = rules.capture_side() == CaptureSide::Opponent;
                let mut j = landing;
                loop {
                    j = if j == 0 { n - 1 } else { j - 1 };
                    if p.get(j) != 4 || (opponent_only && (j + n - mover_start) % n < holes) {
                        break;
                    }
                    captured += 4;
                    p.set(j, 0);
                }
            }
            gain += captured as i16;
            let left = before - captured;
            let mine = Self::CAPTURED_LANE + mover.index();
            p.set(mine, p.get(mine) + captured as u8);
            if left <= 4 {
                ended_game = true;
                awarded = left;
                let to = rules.last_four_to(mover);
                gain += if to == mover {
                    left as i16
                } else {
                    -(left as i16)
                };
                let lane = Self::CAPTURED_LANE + to.index();
                p.set(lane, p.get(lane) + left as u8);
                for j in 0..W {
                    p.lanes[j] &= !(if j == W - 1 {
                        Self::BOARD_MASK_LAST
                    } else {
                        u64::MAX
                    });
                }
            }
        } else {
            p = p.with_side_flipped();
        }
        Some(Child {
            mv: Move(hole as u8),
            position: p,
            captured: captured as u8,
            awarded: awarded as u8,
            extra_turn: capture,
            ended_game,
            gain,
        })
    }

    /// Generates every move of the side to move: the legal ones with their results, and the
    /// endless ones. Passing is not a move: an empty list means the side must pass.
    #[inline]
    pub fn moves(&self, rules: &Rules) -> MoveList<W> {
        let mut list = MoveList::default();
        self.moves_into(rules, &mut list);
        list
    }

    /// [`Position::moves`] written over `list` (whatever it held), without building a new
    /// list: for a caller that keeps one.
    #[inline]
    pub fn moves_into(&self, rules: &Rules, list: &mut MoveList<W>) {
        // The 2x6 board with its size a constant (see `for_each_child`).
        match self.holes() {
            6 => self.moves_into_h(rules, list, 6),
            holes => self.moves_into_h(rules, list, holes),
        }
    }

    #[inline(always)]
    fn moves_into_h(&self, rules: &Rules, list: &mut MoveList<W>, holes: usize) {
        let start = self.side_to_move().index() * holes;
        list.clear();
        for k in 1..=holes {
            if self.get(start + k - 1) == 0 {
                continue;
            }
            match self.play_index(rules, k, holes) {
                Some(c) => list.push(c),
                None => list.mark_endless(k),
            }
        }
    }

    /// Calls `f` with the result of every legal move, in hole order. Faster than
    /// [`Position::moves`] when the list is not kept.
    #[inline]
    pub fn for_each_child(&self, rules: &Rules, mut f: impl FnMut(&Child<W>)) {
        // The 2x6 board gets its own copy of the move generator, the board's size a
        // constant in every lap (the table of a lap's seeds, the wrap, the capture chain).
        match self.holes() {
            6 => self.for_each_child_h(rules, &mut f, 6),
            holes => self.for_each_child_h(rules, &mut f, holes),
        }
    }

    #[inline(always)]
    fn for_each_child_h(&self, rules: &Rules, f: &mut impl FnMut(&Child<W>), holes: usize) {
        let start = self.side_to_move().index() * holes;
        for k in 1..=holes {
            if self.get(start + k - 1) != 0 {
                if let Some(c) = self.play_index(rules, k, holes) {
                    f(&c);
                }
            }
        }
    }

    /// The number of legal moves of the side to move (sowings only, no results built).
    #[inline]
    pub fn count_legal(&self, rules: &Rules) -> usize {
        let holes = self.holes();
        let start = self.side_to_move().index() * holes;
        (start..start + holes)
            .filter(|&i| self.get(i) != 0 && self.sow(rules, i, holes).is_some())
            .count()
    }

    /// The legal moves of the side to move as bits: bit `k - 1` is set when hole `k` is a
    /// legal move. Sowings only, no results built: cheaper than [`Position::moves`] where only
    /// which moves are legal matters (a batch of games, a learning agent's action mask).
    ///
    /// ```
    /// use hoyito_rules::{Position6, Rules};
    /// let r = Rules::default();
    /// let p = Position6::parse(&r, "0,4,4,0,4,4/4,4,4,4,4,4 S").unwrap();
    /// assert_eq!(p.legal_mask(&r), 0b110110);
    /// ```
    #[inline]
    pub fn legal_mask(&self, rules: &Rules) -> u16 {
        match self.holes() {
            6 => self.legal_mask_h(rules, 6),
            holes => self.legal_mask_h(rules, holes),
        }
    }

    #[inline(always)]
    fn legal_mask_h(&self, rules: &Rules, holes: usize) -> u16 {
        let start = self.side_to_move().index() * holes;
        let mut mask = 0;
        for k in 0..holes {
            if self.get(start + k) != 0 && self.sow(rules, start + k, holes).is_some() {
                mask |= 1 << k;
            }
        }
        mask
    }

    /// Whether the side to move has at least one legal move.
    pub fn has_legal_move(&self, rules: &Rules) -> bool {
        let holes = self.holes();
        let start = self.side_to_move().index() * holes;
        // The sowing alone tells whether a move ends (no result built).
        (start..start + holes).any(|i| self.get(i) != 0 && self.sow(rules, i, holes).is_some())
    }

    /// The position after the automatic pass of a side to move that has no legal move: the
    /// same board with the other side to move, or `None` when that side cannot move either
    /// and the game is over. It does not check that the side to move has no move (callers
    /// know it from [`Position::moves`]); see [`Position::settle`] for the check.
    ///
    /// ```
    /// use hoyito_rules::{Position6, Rules};
    /// let r = Rules::default();
    /// let p = Position6::parse(&r, "0,0,0,0,0,0/1,2,0,0,1,1 S").unwrap();
    /// assert_eq!(p.passed(&r).unwrap().to_string(), "0,0,0,0,0,0/1,2,0,0,1,1 N 0-0");
    /// let q = Position6::parse(&r, "0,0,0,0,0,0/0,0,0,0,0,0 S").unwrap();
    /// assert_eq!(q.passed(&r), None);
    /// ```
    #[inline]
    pub fn passed(&self, rules: &Rules) -> Option<Self> {
        let other = self.with_side_flipped();
        other.has_legal_move(rules).then_some(other)
    }

    /// Applies automatic passes: if the side to move has no legal move but the opponent has,
    /// the turn passes; if neither has, the game is over.
    pub fn settle(&self, rules: &Rules) -> (Self, Status) {
        if self.has_legal_move(rules) {
            return (*self, Status::ToMove);
        }
        match self.passed(rules) {
            Some(other) => (other, Status::ToMove),
            None => (*self, Status::Over),
        }
    }

    /// [`Position::settle`], writing the moves of the settled position into `list` (none
    /// when the game is over): for a caller that needs them next, at the cost of sowing
    /// every hole (where [`Position::settle`] stops at the first legal move).
    pub fn settle_with_moves(&self, rules: &Rules, list: &mut MoveList<W>) -> (Self, Status) {
        self.moves_into(rules, list);
        if !list.is_empty() {
            return (*self, Status::ToMove);
        }
        let other = self.with_side_flipped();
        other.moves_into(rules, list);
        if list.is_empty() {
            (*self, Status::Over)
        } else {
            (other, Status::ToMove)
        }
    }

    /// Plays move `mv` of the side to move, checking that it is legal. The result is before
    /// any automatic pass.
    ///
    /// ```
    /// use hoyito_rules::{Move, Position6, Rules};
    /// let r = Rules::default();
    /// let p = Position6::start(&r).unwrap();
    /// let c = p.play(&r, Move(1)).unwrap();
    /// assert_eq!(c.position.to_string(), "2,7,1,6,1,6/6,6,0,1,6,6 N 0-0");
    /// ```
    pub fn play(&self, rules: &Rules, mv: Move) -> Result<Child<W>, PlayError> {
        let holes = self.holes();
        let k = mv.hole();
        if k == 0 || k > holes {
            return Err(PlayError::OutOfRange { hole: k, holes });
        }
        if self.seeds_in(self.side_to_move(), k) == 0 {
            return Err(PlayError::EmptyHole(k));
        }
        self.play_index(rules, k, holes)
            .ok_or(PlayError::Endless(k))
    }

    /// Whether the board holds more than 4 seeds. Play never reaches a board with 4 or fewer
    /// (the capture that leaves them ends the game), and such a board is worth 0.
    pub fn is_live(&self) -> bool {
        self.seeds_on_board() > 4
    }
}

/// Shifts the lanes of a multi-word value `k` lanes towards lane 0.
#[inline(always)]
fn shr_lanes<const W: usize>(x: &[u64; W], k: usize) -> [u64; W] {
    let (ws, bs) = (k / 8, (k % 8) * 8);
    let mut out = [0u64; W];
    for (i, o) in out.iter_mut().enumerate() {
        let lo = if i + ws < W { x[i + ws] } else { 0 };
        let hi = if i + ws + 1 < W { x[i + ws + 1] } else { 0 };
        *o = if bs == 0 {
            lo
        } else {
            (lo >> bs) | (hi << (64 - bs))
        };
    }
    out
}

/// Shifts the lanes of a multi-word value `k` lanes away from lane 0.
#[inline(always)]
fn shl_lanes<const W: usize>(x: &[u64; W], k: usize) -> [u64; W] {
    let (ws, bs) = (k / 8, (k % 8) * 8);
    let mut out = [0u64; W];
    for (i, o) in out.iter_mut().enumerate() {
        let lo = if i > ws { x[i - ws - 1] } else { 0 };
        let hi = if i >= ws { x[i - ws] } else { 0 };
        *o = if bs == 0 {
            hi
        } else {
            (hi << bs) | (lo >> (64 - bs))
        };
    }
    out
}

impl Position<2> {
    /// The board as one 128-bit value: the seeds of hole `i` (`0 .. 2H`, sowing order, South's
    /// row first) in byte `i`, little-endian; the bytes past the board are 0. A fast way in and
    /// out of a position for code that packs boards itself (see [`Position::from_board_bits`]).
    ///
    /// ```
    /// use hoyito_rules::{Position6, Rules};
    /// let r = Rules::default();
    /// let p = Position6::parse(&r, "1,2,3,4,5,6/7,8,9,0,1,2 N").unwrap();
    /// let bytes = p.board_bits().to_le_bytes();
    /// assert_eq!(bytes[..12], [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2]);
    /// assert_eq!(bytes[12..], [0; 4]);
    /// ```
    #[inline(always)]
    pub fn board_bits(&self) -> u128 {
        self.as_u128() & ((1u128 << (8 * 2 * self.holes())) - 1)
    }

    /// The position of `side` to move with no seeds captured and the board `bits`, as
    /// [`Position::board_bits`] gives it, under `rules`. Errors as [`Position::from_rows`]:
    /// a byte set past the board of `rules` ([`PositionError::HolesMismatch`]), more seeds than
    /// the game holds.
    ///
    /// ```
    /// use hoyito_rules::{Position6, Rules, Side};
    /// let r = Rules::default();
    /// let p = Position6::parse(&r, "1,2,3,4,5,6/7,8,9,0,1,2 N").unwrap();
    /// assert_eq!(Position6::from_board_bits(&r, p.board_bits(), Side::North), Ok(p));
    /// assert!(Position6::from_board_bits(&r, 1 << 96, Side::South).is_err());
    /// ```
    #[inline(always)]
    pub fn from_board_bits(rules: &Rules, bits: u128, side: Side) -> Result<Self, PositionError> {
        let h = rules.holes();
        if h > Self::MAX_HOLES {
            return Err(PositionError::TooLargeForType {
                holes: h,
                max: Self::MAX_HOLES,
            });
        }
        let past = bits >> (8 * 2 * h);
        if past != 0 {
            // The board needs more holes than the rules have.
            let last = 2 * h + (127 - past.leading_zeros() as usize) / 8;
            return Err(PositionError::HolesMismatch {
                diagram: last / 2 + 1,
                rules: h,
            });
        }
        let found = bits
            .to_le_bytes()
            .iter()
            .map(|&b| b as usize)
            .sum::<usize>();
        if found > rules.total_seeds() {
            return Err(PositionError::TooManySeeds {
                found,
                allowed: rules.total_seeds(),
            });
        }
        let mut p = Position { lanes: [0; 2] };
        p.set_u128(
            bits | (h as u128) << (8 * Self::HOLES_LANE) | (side as u128) << (8 * Self::SIDE_LANE),
        );
        Ok(p)
    }
}

impl<const W: usize> fmt::Display for Position<W> {
    /// The notation of RULES.md, captured counts included.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Written into one buffer and handed to the formatter once: a learning program may
        // ask for the notation at every step. At most 2 x 12 holes of "192," and the rest.
        let mut buf = [0u8; 128];
        let mut len = 0;
        let mut put = |bytes: &[u8]| {
            buf[len..len + bytes.len()].copy_from_slice(bytes);
            len += bytes.len();
        };
        let number = |x: u8| -> ([u8; 3], usize) {
            match x {
                0..=9 => ([b'0' + x, 0, 0], 1),
                10..=99 => ([b'0' + x / 10, b'0' + x % 10, 0], 2),
                _ => ([b'0' + x / 100, b'0' + x / 10 % 10, b'0' + x % 10], 3),
            }
        };
        let h = self.holes();
        for i in 0..2 * h {
            if i == h {
                put(b"/");
            } else if i > 0 {
                put(b",");
            }
            let (d, n) = number(self.get(i));
            put(&d[..n]);
        }
        put(if self.side_to_move() == Side::South {
            b" S "
        } else {
            b" N "
        });
        let (d, n) = number(self.captured(Side::South));
        put(&d[..n]);
        put(b"-");
        let (d, n) = number(self.captured(Side::North));
        put(&d[..n]);
        f.write_str(std::str::from_utf8(&buf[..len]).map_err(|_| fmt::Error)?)
    }
}

impl<const W: usize> fmt::Debug for Position<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

impl<const W: usize> Default for Position<W> {
    fn default() -> Self {
        Position { lanes: [0; W] }
    }
}
