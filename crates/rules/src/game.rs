//! A game record: moves played from a start, automatic passes, the end of the game, and
//! repetition.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use crate::error::PlayError;
use crate::moves::{Child, Move, MoveList, Status};
use crate::options::{Rules, Side};
use crate::position::Position;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Neither side has a legal move (a capture emptied the board, or only endless moves or
    /// none are left). Seeds left on the board belong to nobody.
    NoMoves,
    /// A position (board and side to move) occurred for the second time. Seeds left on the
    /// board belong to nobody.
    Repetition,
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Winner {
    /// This side captured more seeds.
    Side(Side),
    /// Equal captures.
    Draw,
}

/// Plies of a random game of 2x6 Hoyito, about (a game's lists are made this large at once).
const TYPICAL_PLIES: usize = 128;

/// A game in progress: the positions reached, the moves played, and whether it is over.
#[derive(Clone, Debug)]
pub struct Game<const W: usize> {
    rules: Rules,
    positions: Vec<Position<W>>,
    moves: Vec<Move>,
    seen: HashSet<[u64; W], BuildHasherDefault<BoardHasher>>,
    /// The moves of the last position when `kept` ([`Game::legal_moves`],
    /// [`Game::play_keeping_moves`]): a move played is then looked up here. Not generated
    /// before they are asked for: [`Game::play`] and a new game cost only the search for one
    /// legal move (the automatic pass), so that a position whose sowings run long is not
    /// sown whole until something needs its moves.
    legal: MoveList<W>,
    kept: bool,
    end: Option<End>,
    /// Moves taken back by [`Game::undo`], the next to redo last.
    undone: Vec<Move>,
}

impl<const W: usize> Game<W> {
    /// Starts a game from `start`, applying an automatic pass if the side to move has none.
    pub fn new(rules: Rules, start: Position<W>) -> Self {
        let (p, status) = start.settle(&rules);
        // Room for a typical game's positions from the start, so that a game played move by
        // move does not grow its set and lists again and again.
        let mut seen = HashSet::with_capacity_and_hasher(TYPICAL_PLIES, Default::default());
        seen.insert(p.board_key());
        let mut positions = Vec::with_capacity(TYPICAL_PLIES);
        positions.push(p);
        Game {
            rules,
            positions,
            moves: Vec::with_capacity(TYPICAL_PLIES),
            seen,
            legal: MoveList::default(),
            kept: false,
            end: (status == Status::Over).then_some(End::NoMoves),
            undone: Vec::new(),
        }
    }

    /// The rules played.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The current position (after any automatic pass).
    pub fn position(&self) -> Position<W> {
        *self.positions.last().expect("a game always has a position")
    }

    /// Every position reached, the start first.
    pub fn positions(&self) -> &[Position<W>] {
        &self.positions
    }

    /// The moves played, extra turns included, passes left out.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Why the game ended, or `None` while it goes on.
    pub fn end(&self) -> Option<End> {
        self.end
    }

    /// The legal moves of the side to move, with their results (none once the game is over),
    /// generated once a position and kept with the game.
    pub fn legal_moves(&mut self) -> &[Child<W>] {
        if self.is_over() {
            return &[];
        }
        if !self.kept {
            self.position().moves_into(&self.rules, &mut self.legal);
            self.kept = true;
        }
        self.legal.children()
    }

    /// The legal moves as bits: bit `k - 1` is set when hole `k` is legal (0 once the game
    /// is over): from the kept moves where they are kept, else by sowing each hole.
    ///
    /// ```
    /// use hoyito_rules::{Game, Move, Position6, Rules};
    /// let r = Rules::default();
    /// let mut g = Game::new(r, Position6::start(&r).unwrap());
    /// assert_eq!(g.legal_mask(), 0b111111);
    /// g.play(Move(1)).unwrap();
    /// assert_eq!(g.legal_mask(), g.position().legal_mask(&r));
    /// ```
    pub fn legal_mask(&self) -> u16 {
        if self.is_over() {
            0
        } else if self.kept {
            self.legal.mask()
        } else {
            self.position().legal_mask(&self.rules)
        }
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// The winner once the game is over, by captured seeds.
    pub fn winner(&self) -> Option<Winner> {
        self.end?;
        let p = self.position();
        let (s, n) = (p.captured(Side::South), p.captured(Side::North));
        Some(match s.cmp(&n) {
            std::cmp::Ordering::Greater => Winner::Side(Side::South),
            std::cmp::Ordering::Less => Winner::Side(Side::North),
            std::cmp::Ordering::Equal => Winner::Draw,
        })
    }

    /// Plays a move, then any automatic pass, and checks for the end of the game.
    /// On error nothing changes. A move played forgets the moves that [`Game::redo`] could
    /// have played again.
    pub fn play(&mut self, mv: Move) -> Result<Child<W>, PlayError> {
        let child = self.advance(mv, false)?;
        self.undone.clear();
        Ok(child)
    }

    /// [`Game::play`], then the moves of the new position generated and kept (as
    /// [`Game::legal_moves`] would): for a loop that asks for the moves at every move, the
    /// next position's moves are sown once, for the automatic pass and the moves alike.
    ///
    /// ```
    /// use hoyito_rules::{Game, Move, Position6, Rules};
    /// let r = Rules::default();
    /// let mut g = Game::new(r, Position6::start(&r).unwrap());
    /// g.play_keeping_moves(Move(1)).unwrap();
    /// assert_eq!(g.legal_mask(), g.position().legal_mask(&r));
    /// ```
    pub fn play_keeping_moves(&mut self, mv: Move) -> Result<Child<W>, PlayError> {
        let child = self.advance(mv, true)?;
        self.undone.clear();
        Ok(child)
    }

    /// Takes back the last move (to the position before it, as it was then: a game that
    /// ended is open again). Returns the move, or `None` at the start. The move can be
    /// played again with [`Game::redo`].
    ///
    /// ```
    /// use hoyito_rules::{Game, Move, Position6, Rules};
    /// let r = Rules::default();
    /// let mut g = Game::new(r, Position6::start(&r).unwrap());
    /// g.play(Move(1)).unwrap();
    /// g.play(Move(2)).unwrap();
    /// assert_eq!(g.undo(), Some(Move(2)));
    /// assert_eq!(g.undo(), Some(Move(1)));
    /// assert_eq!(g.undo(), None);
    /// assert_eq!(g.redo().unwrap(), Some(Move(1)));
    /// assert_eq!(g.moves(), [Move(1)]);
    /// ```
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        let p = self.positions.pop().expect("a position after each move");
        // A position that ended the game by repetition was already seen before it, and
        // stays seen; any other last position was first seen here.
        if self.end != Some(End::Repetition) {
            self.seen.remove(&p.board_key());
        }
        self.end = None;
        self.kept = false;
        self.undone.push(mv);
        Some(mv)
    }

    /// Plays again the last move taken back by [`Game::undo`]: `Ok(None)` when there is none.
    pub fn redo(&mut self) -> Result<Option<Move>, PlayError> {
        let Some(&mv) = self.undone.last() else {
            return Ok(None);
        };
        self.advance(mv, false)?;
        self.undone.pop();
        Ok(Some(mv))
    }

    /// The moves [`Game::redo`] would play, the next one first.
    pub fn redo_moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.undone.iter().rev().copied()
    }

    /// [`Game::play`] without forgetting the moves to redo; the next moves kept if `keep`.
    fn advance(&mut self, mv: Move, keep: bool) -> Result<Child<W>, PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        let kept = if self.kept { self.legal.get(mv) } else { None };
        let child = match kept {
            Some(c) => *c,
            // Moves not kept, or not a legal move (the position says why).
            None => self.position().play(&self.rules, mv)?,
        };
        let (next, status) = if keep {
            child
                .position
                .settle_with_moves(&self.rules, &mut self.legal)
        } else {
            child.position.settle(&self.rules)
        };
        self.kept = keep;
        self.moves.push(mv);
        self.positions.push(next);
        if status == Status::Over {
            self.end = Some(End::NoMoves);
        } else if !self.seen.insert(next.board_key()) {
            self.end = Some(End::Repetition);
        }
        Ok(child)
    }
}

/// The hasher of the positions seen in a game: one multiply a word (the keys are boards a
/// game reached, not chosen to collide, and a set of them is small).
#[derive(Default)]
pub(crate) struct BoardHasher(u64);

impl Hasher for BoardHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.write_u64(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        for &b in words.remainder() {
            self.write_u64(b as u64);
        }
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(26) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}
