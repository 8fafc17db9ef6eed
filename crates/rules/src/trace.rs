//! A move replayed lap by lap, for people: where each lap started and ended and how many
//! seeds the landing hole then held, and which holes the capture took.
//!
//! Relay sowing is hard to follow by eye, so a game shown to a person prints this trace. It
//! is a plain reimplementation over a `Vec` of counts, kept apart from the packed move
//! generator of [`Position`](crate::Position) (which it must agree with, and is tested
//! against): it is slower, and is only ever run on a move already known to be legal.

use crate::error::PlayError;
use crate::moves::Move;
use crate::options::{CaptureSide, Rules, Variant};
use crate::position::Position;

/// One lap of a sowing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lap {
    /// The hole the seeds were lifted from (an index `0 .. 2H`, sowing order).
    pub from: usize,
    /// Seeds sown in this lap.
    pub sown: u32,
    /// The hole that received the lap's last seed.
    pub landing: usize,
    /// Seeds in the landing hole once the lap ended (1: the move ends; 4: a capture when the
    /// hole may be captured; otherwise the next lap lifts them).
    pub seeds: u8,
}

/// A move replayed lap by lap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The move.
    pub mv: Move,
    /// Every lap, the first from the move's own hole.
    pub laps: Vec<Lap>,
    /// The holes captured (indices, the landing hole first, then the chain backwards).
    pub captured_holes: Vec<usize>,
    /// The board after the move (before any last-four award clears it), in sowing order.
    pub board: Vec<u8>,
}

impl Trace {
    /// The hole the move started from (an index `0 .. 2H`).
    pub fn start(&self) -> usize {
        self.laps[0].from
    }

    /// The hole where the last lap ended.
    pub fn landing(&self) -> usize {
        self.laps.last().map_or(self.start(), |l| l.landing)
    }

    /// Seeds captured by the move (the last-four award not included).
    pub fn captured(&self) -> usize {
        4 * self.captured_holes.len()
    }
}

impl<const W: usize> Position<W> {
    /// Replays move `mv` lap by lap. The move is first checked with [`Position::play`], so an
    /// illegal move (empty hole, out of range, endless sowing) is an error and a legal one is
    /// known to end.
    ///
    /// ```
    /// use hoyito_rules::{Move, Position6, Rules};
    /// let r = Rules::default();
    /// let t = Position6::start(&r).unwrap().trace(&r, Move(1)).unwrap();
    /// // RULES.md: laps end on 4 (5 seeds), 9 (5), 2 (6), 8 (6) and 2 (1).
    /// let ends: Vec<(usize, u8)> = t.laps.iter().map(|l| (l.landing, l.seeds)).collect();
    /// assert_eq!(ends, [(4, 5), (9, 5), (2, 6), (8, 6), (2, 1)]);
    /// assert!(t.captured_holes.is_empty());
    /// ```
    pub fn trace(&self, rules: &Rules, mv: Move) -> Result<Trace, PlayError> {
        self.play(rules, mv)?;
        let h = self.holes();
        let n = 2 * h;
        let mover_start = self.side_to_move().index() * h;
        let own_row = |i: usize| (i + n - mover_start) % n < h;
        let capturable = |i: usize| rules.capture_side() == CaptureSide::Any || !own_row(i);
        let mut board: Vec<u8> = (0..n).map(|i| self.seeds(i)).collect();
        let mut laps = Vec::new();
        let mut at = mover_start + mv.hole() - 1;
        let capture = loop {
            let seeds = std::mem::take(&mut board[at]) as u32;
            let from = at;
            for _ in 0..seeds {
                at = (at + 1) % n;
                board[at] += 1;
            }
            let c = board[at];
            laps.push(Lap {
                from,
                sown: seeds,
                landing: at,
                seeds: c,
            });
            if c == 1 {
                break false;
            }
            if c == 4 && capturable(at) {
                break true;
            }
        };
        let mut captured_holes = Vec::new();
        if capture {
            captured_holes.push(at);
            board[at] = 0;
            if rules.variant() == Variant::Hoyito2 {
                let mut j = at;
                loop {
                    j = (j + n - 1) % n;
                    if board[j] != 4 || !capturable(j) {
                        break;
                    }
                    captured_holes.push(j);
                    board[j] = 0;
                }
            }
        }
        Ok(Trace {
            mv,
            laps,
            captured_holes,
            board,
        })
    }
}
