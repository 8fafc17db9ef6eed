//! The results of moves: a move, a legal move's result ([`Child`]), the moves of a position
//! ([`MoveList`]) and whether its side can move ([`Status`]). The move generator that makes
//! them is [`Position`]'s.

use std::fmt;

use crate::options::MAX_HOLES;
use crate::position::Position;

/// A move: the number `1 ..= H` of one of the mover's own holes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Move(pub u8);

impl Move {
    /// The hole number, `1 ..= H`.
    pub const fn hole(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The result of one legal move, before any automatic pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Child<const W: usize> {
    /// The move played.
    pub mv: Move,
    /// The position after it. Its side to move is the mover after a capture (extra turn),
    /// else the opponent; that side may still have to pass (see [`Position::settle`]).
    pub position: Position<W>,
    /// Seeds the mover took by capture in this move (chain included, last-four award not).
    pub captured: u8,
    /// Seeds on the board given away by the last-four rule when the capture ended the game.
    pub awarded: u8,
    /// Whether the mover moves again (the move captured).
    pub extra_turn: bool,
    /// Whether this move ended the game by leaving 4 or fewer seeds.
    pub ended_game: bool,
    /// Net seeds this move wins for the mover: captures, plus or minus the award.
    pub gain: i16,
}

impl<const W: usize> Child<W> {
    /// The value of this move for the mover, given `child_value`, the value of
    /// [`Child::position`] for its own side to move: the gain, plus the child's value after an
    /// extra turn, minus it when the opponent moves next. A move that ended the game is worth
    /// its gain (the finished board is worth 0), whatever `child_value` says.
    ///
    /// ```
    /// use hoyito_rules::{Move, Position6, Rules};
    /// let r = Rules::default();
    /// let p = Position6::parse(&r, "2,3,4,0,4,1/3,3,3,1,1,3 S").unwrap();
    /// let capture = p.play(&r, Move(5)).unwrap(); // takes 12, South moves again
    /// assert_eq!(capture.value(-2), 10);
    /// let start = Position6::start(&r).unwrap();
    /// let quiet = start.play(&r, Move(1)).unwrap(); // captures nothing, North moves next
    /// assert_eq!(quiet.value(-2), 2);
    /// ```
    #[inline]
    pub fn value(&self, child_value: i32) -> i32 {
        let gain = self.gain as i32;
        if self.ended_game {
            gain
        } else if self.extra_turn {
            gain + child_value
        } else {
            gain - child_value
        }
    }
}

/// The legal moves of a position with their results, and the moves whose sowing never ends.
#[derive(Clone, Copy, Debug, Default)]
pub struct MoveList<const W: usize> {
    children: [Child<W>; MAX_HOLES],
    len: u8,
    endless: u16,
}

impl<const W: usize> MoveList<W> {
    /// The legal moves with their results, in hole order.
    pub fn children(&self) -> &[Child<W>] {
        &self.children[..self.len as usize]
    }
    /// Number of legal moves.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether there is no legal move.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The moves from non-empty holes that are illegal because their sowing never ends.
    pub fn endless(&self) -> impl Iterator<Item = Move> + '_ {
        (1..=MAX_HOLES as u8)
            .filter(|h| self.endless & (1 << h) != 0)
            .map(Move)
    }
    /// The result of move `mv`, if it is legal.
    pub fn get(&self, mv: Move) -> Option<&Child<W>> {
        self.children().iter().find(|c| c.mv == mv)
    }
    /// The legal moves as bits: bit `k - 1` is set when hole `k` is legal (as
    /// [`Position::legal_mask`]).
    pub fn mask(&self) -> u16 {
        self.children()
            .iter()
            .fold(0, |m, c| m | 1 << (c.mv.hole() - 1))
    }
    /// Empties the list, for the move generator to fill again.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.endless = 0;
    }
    /// Adds the result of a legal move (in hole order).
    pub(crate) fn push(&mut self, c: Child<W>) {
        self.children[self.len as usize] = c;
        self.len += 1;
    }
    /// Notes that the sowing of hole `k` never ends.
    pub(crate) fn mark_endless(&mut self, k: usize) {
        self.endless |= 1 << k;
    }
}

/// Whether the side to move can play, must pass, or the game is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The side to move has a legal move.
    ToMove,
    /// Neither side has a legal move (this includes an empty board).
    Over,
}
