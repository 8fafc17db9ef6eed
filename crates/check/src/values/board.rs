//! The check's own indexing and sowing: the index of a layer and its inverse, a layer's
//! packed values read in place, and the sowing of one hole on a fixed array, each written
//! apart from the rules and tables crates that it checks.

use super::{Board, BOARD};
use crate::rules::{CaptureSide, Position, Rules, Side, Variant};
use crate::tables::{choose, Layer};

/// The index of a layer: `binom[q][j] = C(q + j - 1, j)` gives the rank of a board in the
/// mover's view as `sum over j = 1 .. 2H-1 of binom[Q_j][j]`, `Q_j` the seeds of its first
/// `j` holes (the same rank as [`crate::tables::rank`], from a table).
pub(super) struct Index {
    holes: usize,
    seeds: usize,
    sides: usize,
    per_side: u64,
    binom: Vec<[u64; BOARD]>,
}

impl Index {
    pub(super) fn new(holes: usize, seeds: usize, sides: usize) -> Option<Index> {
        let k = 2 * holes;
        let mut binom = vec![[0u64; BOARD]; seeds + 1];
        for (q, row) in binom.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate().take(k).skip(1) {
                *cell = choose((q + j - 1) as u64, j as u64)?;
            }
        }
        Some(Index {
            holes,
            seeds,
            sides,
            per_side: choose((seeds + k - 1) as u64, (k - 1) as u64)?,
            binom,
        })
    }

    pub(super) fn count(&self) -> u64 {
        self.per_side * self.sides as u64
    }

    /// The index of `board` (absolute) with `side` to move.
    #[inline]
    pub(super) fn index(&self, board: &Board, side: Side) -> u64 {
        let k = 2 * self.holes;
        let shift = if side == Side::South { 0 } else { self.holes };
        let mut q = 0usize;
        let mut r = 0u64;
        for j in 1..k {
            let i = j - 1 + shift;
            q += board[if i >= k { i - k } else { i }] as usize;
            r += self.binom[q][j];
        }
        if self.sides == 2 && side == Side::North {
            r + self.per_side
        } else {
            r
        }
    }

    /// The position of index `i` (`< count`): its absolute board and side to move.
    pub(super) fn position(&self, i: u64) -> (Board, Side) {
        let (view, side) = self.view_of(i);
        (self.absolute(&view, side), side)
    }

    /// The board of index `i` in the mover's view, and the side to move.
    fn view_of(&self, i: u64) -> (Board, Side) {
        let k = 2 * self.holes;
        let (side, mut r) = if i >= self.per_side {
            (Side::North, i - self.per_side)
        } else {
            (Side::South, i)
        };
        // The prefix sums Q_j from the last down: the largest q with binom[q][j] <= r.
        let mut prefix = [0usize; BOARD + 1];
        prefix[k] = self.seeds;
        let mut q = self.seeds;
        for j in (1..k).rev() {
            while self.binom[q][j] > r {
                q -= 1;
            }
            r -= self.binom[q][j];
            prefix[j] = q;
        }
        let mut view = [0u8; BOARD];
        for (h, cell) in view.iter_mut().enumerate().take(k) {
            *cell = (prefix[h + 1] - prefix[h]) as u8;
        }
        (view, side)
    }

    /// The absolute board of `view`, a board in the view of `side`.
    fn absolute(&self, view: &Board, side: Side) -> Board {
        let k = 2 * self.holes;
        let shift = if side == Side::South { 0 } else { self.holes };
        let mut board = [0u8; BOARD];
        for (h, &seeds) in view.iter().enumerate().take(k) {
            let at = h + shift;
            board[if at >= k { at - k } else { at }] = seeds;
        }
        board
    }

    /// A walk over the positions from index `i` on, each found from the one before it
    /// rather than from its index ([`Walk::next`], [`Walk::seek`]).
    pub(super) fn walk_from(&self, i: u64) -> Walk<'_> {
        let (view, side) = self.view_of(i);
        Walk {
            index: self,
            view,
            side,
            at: i,
        }
    }
}

/// Consecutive positions of a layer (see [`Index::walk_from`]).
pub(super) struct Walk<'a> {
    index: &'a Index,
    /// The board of index `at`, in the view of `side`.
    view: Board,
    side: Side,
    at: u64,
}

/// Indices a [`Walk::seek`] steps through rather than finding the board from the index.
const SEEK_STEPS: u64 = 16;

impl Walk<'_> {
    /// The position the walk is at (absolute board, side to move); then steps to the next
    /// index.
    pub(super) fn next(&mut self) -> (Board, Side) {
        let here = (self.index.absolute(&self.view, self.side), self.side);
        self.step();
        here
    }

    /// The position of index `i`, then steps past it: by steps from where the walk is when
    /// `i` is a little ahead, else from `i` itself.
    pub(super) fn seek(&mut self, i: u64) -> (Board, Side) {
        if i >= self.at && i - self.at <= SEEK_STEPS {
            while self.at < i {
                self.step();
            }
        } else {
            *self = self.index.walk_from(i);
        }
        self.next()
    }

    /// Steps to the next index. The next board in the index's order: the first hole after
    /// hole 0 that holds seeds gives one to the hole before it, which also takes every seed
    /// of the holes before it (its bar moves one place up, the bars below it go back to the
    /// bottom).
    fn step(&mut self) {
        self.at += 1;
        let per_side = self.index.per_side;
        if self.at.is_multiple_of(per_side) {
            // The last board of a side: the next index, if any, is North's first.
            if self.at < self.index.count() {
                *self = self.index.walk_from(self.at);
            }
            return;
        }
        let k = 2 * self.index.holes;
        let mut below = self.view[0];
        for j in 1..k {
            if self.view[j] > 0 {
                self.view[..j - 1].fill(0);
                self.view[j - 1] = below + 1;
                self.view[j] -= 1;
                return;
            }
            below += self.view[j];
        }
    }
}

/// A layer's packed values, read in place.
pub(super) struct Values<'a> {
    payload: &'a [u8],
    bits: usize,
    mask: u32,
    pub(super) step: i32,
    pub(super) offset: i32,
}

impl<'a> Values<'a> {
    pub(super) fn of(layer: &'a Layer) -> Values<'a> {
        Values {
            payload: layer.payload(),
            bits: layer.bits(),
            mask: (1u32 << layer.bits()) - 1,
            step: layer.step() as i32,
            offset: (layer.seeds() / layer.step()) as i32,
        }
    }

    /// The code of position `i`. The padding byte after the values makes the second byte
    /// read always present; a code spans at most two bytes (at most 9 bits).
    #[inline]
    pub(super) fn code(&self, i: u64) -> u32 {
        let bit = i * self.bits as u64;
        let byte = (bit / 8) as usize;
        let word = self.payload[byte] as u32 | (self.payload[byte + 1] as u32) << 8;
        (word >> (bit % 8)) & self.mask
    }

    #[inline]
    pub(super) fn value(&self, i: u64) -> i32 {
        (self.code(i) as i32 - self.offset) * self.step
    }
}

/// The outcome of sowing one hole.
pub(super) enum Sown {
    /// The sowing never ends: the move is not legal.
    Endless,
    /// The board after the move, and the seeds captured (0: a quiet move).
    Done(Board, u32),
}

/// Whether `mover` may capture in hole `at`.
#[inline]
fn may_capture(rules: &Rules, mover: Side, at: usize) -> bool {
    match rules.capture_side {
        CaptureSide::Any => true,
        CaptureSide::Opponent => (at < rules.holes) != (mover == Side::South),
    }
}

/// Sows hole index `start` (non-empty) of `board` for `mover`, exactly as
/// [`Position::play`](crate::rules::Position::play) does, on a fixed array: laps with relay,
/// a capture of exactly 4 at the end of a lap (with the Hoyito II chain before it), the end
/// of the move on an empty hole; endless sowing found by Brent's cycle detection on the
/// state between laps (the board and the hole the next lap is lifted from).
pub(super) fn sow(rules: &Rules, board: &Board, mover: Side, start: usize) -> Sown {
    let size = 2 * rules.holes;
    let mut b = *board;
    let mut from = start;
    let mut saved = (b, from);
    let mut power: u64 = 1;
    let mut laps: u64 = 0;
    let landing = loop {
        let seeds = b[from];
        b[from] = 0;
        let mut at = from;
        for _ in 0..seeds {
            at += 1;
            if at == size {
                at = 0;
            }
            b[at] += 1;
        }
        let count = b[at];
        if count == 4 && may_capture(rules, mover, at) {
            break Some(at);
        }
        if count == 1 {
            break None;
        }
        from = at;
        if saved.1 == from && saved.0 == b {
            return Sown::Endless;
        }
        laps += 1;
        if laps == power {
            saved = (b, from);
            power *= 2;
            laps = 0;
        }
    };
    let mut captured = 0u32;
    if let Some(at) = landing {
        captured += b[at] as u32;
        b[at] = 0;
        if rules.variant == Variant::Hoyito2 {
            let mut i = if at == 0 { size - 1 } else { at - 1 };
            while b[i] == 4 && may_capture(rules, mover, i) {
                captured += 4;
                b[i] = 0;
                i = if i == 0 { size - 1 } else { i - 1 };
            }
        }
    }
    Sown::Done(b, captured)
}

/// Whether `side` has a legal move on `board`.
pub(super) fn can_move(rules: &Rules, board: &Board, side: Side) -> bool {
    let first = if side == Side::South { 0 } else { rules.holes };
    (first..first + rules.holes)
        .any(|start| board[start] > 0 && matches!(sow(rules, board, side, start), Sown::Done(..)))
}

/// The checker's position of an absolute board.
pub(super) fn to_position(rules: &Rules, board: &Board, side: Side) -> Position {
    Position {
        board: board[..2 * rules.holes].to_vec(),
        side,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::LastFour;
    use crate::tables::rank;

    fn rules(holes: usize, variant: Variant, capture_side: CaptureSide) -> Rules {
        Rules {
            holes,
            variant,
            last_four: LastFour::Capturer,
            capture_side,
        }
    }

    #[test]
    fn the_index_agrees_with_the_rank_and_inverts() {
        for (holes, seeds, sides) in [(2, 5, 1), (3, 8, 2), (6, 5, 1), (4, 9, 2)] {
            let index = Index::new(holes, seeds, sides).unwrap();
            for i in 0..index.count() {
                let (board, side) = index.position(i);
                let k = 2 * holes;
                assert_eq!(board[..k].iter().map(|&s| s as usize).sum::<usize>(), seeds);
                assert_eq!(index.index(&board, side), i);
                let shift = if side == Side::South { 0 } else { holes };
                let view: Vec<u8> = (0..k).map(|h| board[(h + shift) % k]).collect();
                assert_eq!(rank(&view), i % index.per_side);
            }
        }
    }

    /// A walk gives the positions of consecutive indices, across the two sides.
    #[test]
    fn a_walk_steps_through_the_indices() {
        for (holes, seeds, sides) in [(2, 5, 2), (3, 8, 2), (6, 4, 1), (4, 6, 2)] {
            let index = Index::new(holes, seeds, sides).unwrap();
            let n = index.count();
            for start in [0, 1, n / 3, index.per_side - 1] {
                let mut walk = index.walk_from(start);
                for i in start..n {
                    assert_eq!(walk.next(), index.position(i), "{holes} {seeds} {i}");
                }
                // Seeking forwards, by steps and by jumps, and backwards.
                let mut walk = index.walk_from(start);
                let mut i = start;
                for gap in [0, 1, 5, 16, 17, 40, 2, 0, 300].iter().cycle().take(200) {
                    i += gap;
                    if i >= n {
                        break;
                    }
                    assert_eq!(walk.seek(i), index.position(i), "{holes} {seeds} {i}");
                    i += 1;
                }
                assert_eq!(walk.seek(start), index.position(start));
            }
        }
    }

    /// The array sowing agrees with the plain rules on every move of every board of some
    /// small layers, both variants and both capture sides.
    #[test]
    fn sowing_agrees_with_the_plain_rules() {
        for r in [
            rules(6, Variant::Hoyito2, CaptureSide::Any),
            rules(6, Variant::Hoyito3, CaptureSide::Opponent),
            rules(3, Variant::Hoyito2, CaptureSide::Opponent),
            rules(2, Variant::Hoyito3, CaptureSide::Any),
        ] {
            let seeds = if r.holes == 6 { 7 } else { 13 };
            let index = Index::new(r.holes, seeds, 2).unwrap();
            for i in 0..index.count() {
                let (board, side) = index.position(i);
                let p = to_position(&r, &board, side);
                for hole in 1..=r.holes {
                    let start = Position::index_of(&r, side, hole);
                    let plain = p.play(&r, hole);
                    if board[start] == 0 {
                        assert!(plain.is_err());
                        continue;
                    }
                    match (sow(&r, &board, side, start), plain) {
                        (Sown::Endless, Err(crate::rules::Illegal::Endless)) => {}
                        (Sown::Done(next, captured), Ok(played)) => {
                            assert_eq!(&next[..2 * r.holes], &played.next.board[..], "{p} {hole}");
                            assert_eq!(captured, played.captured, "{p} {hole}");
                        }
                        _ => panic!("{p} move {hole}: the sowings disagree"),
                    }
                }
                assert_eq!(can_move(&r, &board, side), p.can_move(&r));
            }
        }
    }
}
