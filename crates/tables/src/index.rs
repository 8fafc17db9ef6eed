//! The perfect index of a layer: a combinatorial rank of the seed distribution.
//!
//! A board of `k = 2H` holes holding `n` seeds is a composition of `n` into `k` parts, which
//! is a choice of `k - 1` bar positions among `n + k - 1` slots ("stars and bars"): bar `j`
//! (`1 ..= k-1`) sits at `c_j = Q_j + j - 1`, where `Q_j = b_0 + ... + b_{j-1}` is the prefix
//! sum of the holes. The rank is the combinadic of the bars,
//!
//! ```text
//! rank(b) = sum_{j=1}^{k-1} C(Q_j + j - 1, j)
//! ```
//!
//! which numbers the `C(n + k - 1, k - 1)` boards `0 ..` without gaps (colexicographic order
//! of the bars). The same order has a cheap successor ([`Layout::next`]), so a sweep walks a
//! range of indices without ranking from scratch; children are ranked with `k - 1` table
//! look-ups.
//!
//! Boards are stored as seen by the side to move (its row first). Under symmetric rules a
//! position and its mirror have the same value, so one side is stored; otherwise the index is
//! `side * C + rank`, with `side` 0 for South to move.

use hoyito_rules::{Position6, Rules, Side};

/// Most holes on a board (2x6).
pub const MAX_BOARD: usize = 12;

/// The index space of one layer: `holes` holes a row, `seeds` seeds on the board, one or two
/// sides to move stored.
#[derive(Clone, Debug)]
pub struct Layout {
    holes: usize,
    seeds: usize,
    sides: usize,
    per_side: u64,
    /// `binom[q][j] = C(q + j - 1, j)` for `j` in `1 .. 2H`, `q` in `0 ..= seeds` (0 beyond):
    /// a row for every byte value, so that a prefix sum read from a byte needs no bounds check.
    binom: Box<[[u64; MAX_BOARD]; 256]>,
}

/// `C(n, k)` in `u128` (exact for every board this crate handles).
fn choose(n: u64, k: u64) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut r: u128 = 1;
    for i in 0..k {
        r = r * (n - i) as u128 / (i + 1) as u128;
    }
    r
}

impl Layout {
    /// The layout of the layer with `seeds` seeds on a 2x`holes` board, storing one side to
    /// move (`sides = 1`, symmetric rules) or both (`sides = 2`). `None` when the layer does
    /// not fit in 64-bit indices or the board is not 2x2 ..= 2x6.
    pub fn new(holes: usize, seeds: usize, sides: usize) -> Option<Layout> {
        let k = 2 * holes;
        if !(2..=MAX_BOARD / 2).contains(&holes) || !(1..=2).contains(&sides) || seeds > 255 {
            return None;
        }
        let per_side = choose((seeds + k - 1) as u64, (k - 1) as u64);
        if per_side * sides as u128 > u64::MAX as u128 / 2 {
            return None;
        }
        let mut binom = Box::new([[0u64; MAX_BOARD]; 256]);
        for (q, row) in binom.iter_mut().enumerate().take(seeds + 1) {
            for (j, cell) in row.iter_mut().enumerate().take(k).skip(1) {
                *cell = choose((q + j - 1) as u64, j as u64) as u64;
            }
        }
        Some(Layout {
            holes,
            seeds,
            sides,
            per_side: per_side as u64,
            binom,
        })
    }

    /// Holes per row.
    pub fn holes(&self) -> usize {
        self.holes
    }
    /// Seeds on the board.
    pub fn seeds(&self) -> usize {
        self.seeds
    }
    /// Sides to move stored: 1 (symmetric rules) or 2.
    pub fn sides(&self) -> usize {
        self.sides
    }
    /// Boards per side to move.
    pub fn per_side(&self) -> u64 {
        self.per_side
    }
    /// Positions in the layer: boards times sides stored.
    pub fn count(&self) -> u64 {
        self.per_side * self.sides as u64
    }

    /// The index of `p` (which has this layout's seeds and holes), with its side to move.
    #[inline(always)]
    pub(crate) fn index_of(&self, p: &Position6) -> u64 {
        // The 2x6 board gets its own copy, with the row length a constant.
        if self.holes == 6 {
            self.index_with(p, 6)
        } else {
            self.index_with(p, self.holes)
        }
    }

    /// [`Layout::index_of`], the layout's holes a row given as `holes` (a constant where
    /// [`Layout::index_of`] inlines it).
    #[inline(always)]
    fn index_with(&self, p: &Position6, holes: usize) -> u64 {
        let side = p.side_to_move().index();
        let mut bits = p.board_bits();
        if side == 1 {
            bits = swap_rows(bits, holes);
        }
        let r = self.rank_bits(bits, holes);
        if self.sides == 2 {
            side as u64 * self.per_side + r
        } else {
            r
        }
    }

    /// The position of `side` to move (0 for South) and `board` (mover's view, as
    /// [`Layout::unrank`] and [`Layout::next`] leave it), in absolute terms, under `rules`
    /// (which hold this layout's boards: a build's rules, [`TableKey::build_rules`]).
    ///
    /// [`TableKey::build_rules`]: crate::TableKey::build_rules
    #[inline(always)]
    pub(crate) fn position_of(
        &self,
        rules: &Rules,
        side: usize,
        board: &[u8; MAX_BOARD],
    ) -> Position6 {
        let mut bytes = [0u8; 16];
        bytes[..MAX_BOARD].copy_from_slice(board);
        let mut bits = u128::from_le_bytes(bytes);
        let side = if side == 0 {
            Side::South
        } else {
            bits = if self.holes == 6 {
                swap_rows(bits, 6)
            } else {
                swap_rows(bits, self.holes)
            };
            Side::North
        };
        // The board fits the build rules (checked before the build), so this cannot fail.
        Position6::from_board_bits(rules, bits, side).unwrap_or_default()
    }

    /// The rank of a board given in the mover's view (`2H` holes summing to `seeds`).
    #[inline(always)]
    pub fn rank(&self, board: &[u8]) -> u64 {
        let k = 2 * self.holes;
        let mut q = 0usize;
        let mut r = 0u64;
        for (j, &b) in board.iter().enumerate().take(k - 1) {
            q += b as usize;
            r += self.binom[q][j + 1];
        }
        r
    }

    /// [`Layout::rank`] of a board given as [`Position::board_bits`] gives one (hole `i` in
    /// byte `i`, mover's view). The prefix sums of the holes are made by two multiplications
    /// (byte `i` of `x * 0x0101..01` is the sum of bytes `0 ..= i`, as no sum exceeds the
    /// layer's seeds, at most 255), then looked up independently of one another.
    ///
    /// [`Position::board_bits`]: hoyito_rules::Position::board_bits
    #[inline(always)]
    pub(crate) fn rank_bits(&self, bits: u128, holes: usize) -> u64 {
        const ONES: u64 = 0x0101_0101_0101_0101;
        let (lo, hi) = (bits as u64, (bits >> 64) as u64);
        let low = lo.wrapping_mul(ONES);
        let high = hi
            .wrapping_mul(ONES)
            .wrapping_add((low >> 56).wrapping_mul(ONES));
        let prefix = (low as u128 | (high as u128) << 64).to_le_bytes();
        let mut r = 0u64;
        for j in 1..2 * holes {
            r += self.binom[prefix[j - 1] as usize][j];
        }
        r
    }

    /// The board (mover's view) of rank `r < per_side`, written into `board[..2H]`.
    pub fn unrank(&self, mut r: u64, board: &mut [u8; MAX_BOARD]) {
        let k = 2 * self.holes;
        // Prefix sums from the last bar down: Q_j is the largest q with C(q+j-1, j) <= r.
        let mut upper = self.seeds;
        let mut prefix = [0usize; MAX_BOARD + 1];
        prefix[k] = self.seeds;
        for j in (1..k).rev() {
            let mut q = upper;
            while self.binom[q][j] > r {
                q -= 1;
            }
            r -= self.binom[q][j];
            prefix[j] = q;
            upper = q;
        }
        prefix[0] = 0;
        for i in 0..k {
            board[i] = (prefix[i + 1] - prefix[i]) as u8;
        }
        for b in board.iter_mut().skip(k) {
            *b = 0;
        }
    }

    /// Moves `board`, which holds the board of rank `at` (if any), to the board of rank
    /// `r >= at`: by steps when it is close (cheaper than ranking from scratch), else by
    /// [`Layout::unrank`]. `at` becomes `r`.
    #[inline]
    pub fn seek(&self, board: &mut [u8; MAX_BOARD], at: &mut Option<u64>, r: u64) {
        match *at {
            Some(a) if r - a <= 64 => {
                for _ in a..r {
                    self.next(board);
                }
            }
            _ => self.unrank(r, board),
        }
        *at = Some(r);
    }

    /// Steps `board` to the board of the next rank. Returns `false` (board unchanged) at the
    /// last one.
    #[inline(always)]
    pub fn next(&self, board: &mut [u8; MAX_BOARD]) -> bool {
        let k = 2 * self.holes;
        let mut s = board[0] as usize;
        for j in 1..k {
            if board[j] > 0 {
                for b in board.iter_mut().take(j - 1) {
                    *b = 0;
                }
                board[j - 1] = (s + 1) as u8;
                board[j] -= 1;
                return true;
            }
            s += board[j] as usize;
        }
        false
    }
}

/// A board as [`Position::board_bits`] holds it (hole `i` in byte `i`) with its rows of
/// `holes` exchanged: the absolute board from North's view, or back.
///
/// [`Position::board_bits`]: hoyito_rules::Position::board_bits
#[inline(always)]
fn swap_rows(bits: u128, holes: usize) -> u128 {
    let row = 8 * holes as u32;
    (bits >> row | bits << row) & ((1u128 << (2 * row)) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_unrank_next_agree() {
        for (holes, seeds) in [(2, 0), (2, 5), (3, 8), (4, 6), (5, 5), (6, 4), (2, 255)] {
            let l = Layout::new(holes, seeds, 1).unwrap();
            let mut walk = [0u8; MAX_BOARD];
            l.unrank(0, &mut walk);
            for r in 0..l.per_side() {
                let mut b = [0u8; MAX_BOARD];
                l.unrank(r, &mut b);
                assert_eq!(b, walk, "holes {holes} seeds {seeds} rank {r}");
                assert_eq!(b.iter().map(|&x| x as usize).sum::<usize>(), seeds);
                assert_eq!(l.rank(&b[..2 * holes]), r);
                let mut bytes = [0u8; 16];
                bytes[..MAX_BOARD].copy_from_slice(&b);
                assert_eq!(l.rank_bits(u128::from_le_bytes(bytes), holes), r);
                let more = l.next(&mut walk);
                assert_eq!(more, r + 1 < l.per_side());
            }
        }
    }

    /// `position_of` builds the position of the rows in the mover's view, and `index_of` gives
    /// back the index it came from, for both sides to move.
    #[test]
    fn positions_and_indices_agree() {
        use hoyito_rules::{CaptureSide, LastFour, Variant};
        for (holes, seeds) in [(2, 7), (3, 8), (5, 6), (6, 9)] {
            let rules = Rules::new(
                Variant::Hoyito2,
                holes,
                4,
                LastFour::Capturer,
                CaptureSide::Any,
            )
            .unwrap();
            let l = Layout::new(holes, seeds, 2).unwrap();
            let step = (l.per_side() / 997).max(1);
            for side in 0..2 {
                for r in (0..l.per_side()).step_by(step as usize) {
                    let mut b = [0u8; MAX_BOARD];
                    l.unrank(r, &mut b);
                    let p = l.position_of(&rules, side, &b);
                    let (mover, other) = b[..2 * holes].split_at(holes);
                    let expected = if side == 0 {
                        Position6::from_rows(&rules, mover, other, Side::South, [0, 0])
                    } else {
                        Position6::from_rows(&rules, other, mover, Side::North, [0, 0])
                    };
                    assert_eq!(p, expected.unwrap());
                    assert_eq!(l.index_of(&p), side as u64 * l.per_side() + r);
                }
            }
        }
    }

    #[test]
    fn counts() {
        assert_eq!(Layout::new(6, 12, 1).unwrap().count(), 1_352_078);
        assert_eq!(Layout::new(6, 28, 1).unwrap().count(), 1_676_056_044);
        assert_eq!(Layout::new(6, 28, 2).unwrap().count(), 2 * 1_676_056_044);
    }
}
