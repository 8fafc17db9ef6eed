//! Games and their records: `Game`, `read_records`.

use hoyito::Move;
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyType};

use crate::errors::{value_error, Int};
use crate::rules::{ints, make_pos, rules_or_default, Pos, PyPosition, PyRules};

/// A game of the size that fits its rules.
#[derive(Clone)]
pub(crate) enum AnyGame {
    Small(hoyito::Game<2>),
    Large(hoyito::Game<4>),
}

macro_rules! with_game {
    ($game:expr, $g:ident => $body:expr) => {
        match $game {
            AnyGame::Small($g) => $body,
            AnyGame::Large($g) => $body,
        }
    };
}

impl From<hoyito::Game<2>> for AnyGame {
    fn from(g: hoyito::Game<2>) -> Self {
        AnyGame::Small(g)
    }
}

impl From<hoyito::Game<4>> for AnyGame {
    fn from(g: hoyito::Game<4>) -> Self {
        AnyGame::Large(g)
    }
}

/// A game: the positions reached, the moves played (extra turns included, passes automatic),
/// moves taken back and played again, its end (no moves, the last four, or a repeated
/// position) and its record in the PGN-like format of data/RECORDS.md.
///
/// Game(start=None, rules=None): from a Position, a position's text, or the start of
/// `rules` (default Rules()).
#[pyclass(name = "Game", module = "hoyito")]
#[derive(Clone)]
pub(crate) struct PyGame {
    pub(crate) game: AnyGame,
    pub(crate) south: String,
    pub(crate) north: String,
}

impl PyGame {
    pub(crate) fn of(game: AnyGame) -> Self {
        PyGame {
            game,
            south: "?".to_string(),
            north: "?".to_string(),
        }
    }

    pub(crate) fn record_of(&self) -> hoyito::Record {
        let mut r = with_game!(&self.game, g => hoyito::Record::from_game(g));
        r.south = self.south.clone();
        r.north = self.north.clone();
        r
    }

    pub(crate) fn rules_of(&self) -> hoyito::Rules {
        with_game!(&self.game, g => *g.rules())
    }

    pub(crate) fn from_lib_record(r: &hoyito::Record) -> PyResult<Self> {
        let game = if hoyito::setup::small(&r.rules) {
            AnyGame::Small(r.game::<2>().map_err(value_error)?)
        } else {
            AnyGame::Large(r.game::<4>().map_err(value_error)?)
        };
        Ok(PyGame {
            game,
            south: r.south.clone(),
            north: r.north.clone(),
        })
    }
}

/// Text or a Position, for the arguments that take either.
#[derive(FromPyObject)]
pub(crate) enum PositionArg {
    Position(PyPosition),
    Text(String),
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (start=None, rules=None))]
    fn new(start: Option<PositionArg>, rules: Option<PyRules>) -> PyResult<Self> {
        let (rules, pos) = match start {
            Some(PositionArg::Position(p)) => {
                if let Some(r) = rules {
                    p.check_rules(&r.rules)?;
                }
                (p.rules, p.pos)
            }
            Some(PositionArg::Text(t)) => {
                let rules = rules_or_default(rules);
                (rules, make_pos(&rules, Some(&t))?)
            }
            None => {
                let rules = rules_or_default(rules);
                (rules, make_pos(&rules, None)?)
            }
        };
        let game = match pos {
            Pos::Small(p) => AnyGame::Small(hoyito::Game::new(rules, p)),
            Pos::Large(p) => AnyGame::Large(hoyito::Game::new(rules, p)),
        };
        Ok(PyGame::of(game))
    }

    /// Reads a game record (data/RECORDS.md); every move is replayed and checked. A bad
    /// record raises ValueError naming the line and column. With several games, the first.
    #[classmethod]
    fn from_record(_cls: &Bound<'_, PyType>, text: &str) -> PyResult<Self> {
        let records = hoyito::rules::read_records(text).map_err(value_error)?;
        let first = records
            .first()
            .ok_or_else(|| PyValueError::new_err("the text holds no game"))?;
        Self::from_lib_record(first)
    }

    /// The rules played.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules {
            rules: self.rules_of(),
        }
    }

    /// The current position (after any automatic pass).
    #[getter]
    pub(crate) fn position(&self) -> PyPosition {
        let rules = self.rules_of();
        let pos = with_game!(&self.game, g => Pos::from(g.position()));
        PyPosition { rules, pos }
    }

    /// Every position reached, the start first.
    #[getter]
    fn positions(&self) -> Vec<PyPosition> {
        let rules = self.rules_of();
        with_game!(&self.game, g => g
            .positions()
            .iter()
            .map(|&p| PyPosition { rules, pos: Pos::from(p) })
            .collect())
    }

    /// The moves played, extra turns included (hole numbers).
    #[getter]
    fn moves(&self) -> Vec<u32> {
        with_game!(&self.game, g => ints(g.moves().iter().map(|m| m.0)))
    }

    /// The legal moves now (none once the game is over).
    fn legal_moves(&mut self) -> Vec<u32> {
        with_game!(&mut self.game, g => ints(g.legal_moves().iter().map(|c| c.mv.0)))
    }

    /// The legal moves now as an int: bit h - 1 is set when hole h is legal (0 once the
    /// game is over).
    fn legal_mask(&self) -> u16 {
        with_game!(&self.game, g => g.legal_mask())
    }

    /// The name of the South player in the record ("?" unless set).
    #[getter]
    fn get_south(&self) -> String {
        self.south.clone()
    }

    #[setter]
    fn set_south(&mut self, name: String) {
        self.south = name;
    }

    /// The name of the North player in the record ("?" unless set).
    #[getter]
    fn get_north(&self) -> String {
        self.north.clone()
    }

    #[setter]
    fn set_north(&mut self, name: String) {
        self.north = name;
    }

    /// Plays `hole` (1..H) for the side to move, then any automatic pass. An illegal move,
    /// or a move after the end, raises ValueError and changes nothing. Forgets the moves
    /// redo() could have played.
    fn push(&mut self, hole: Int) -> PyResult<()> {
        let h = hole_number(hole)?;
        with_game!(&mut self.game, g => g.play(Move(h)).map(|_| ()).map_err(value_error))
    }

    /// Plays `hole` in place, as push() does, and returns the legal moves that follow as an
    /// int (bit h - 1 for hole h; 0 once the game is over): one call a move for a loop that
    /// plays many games.
    fn play_inplace(&mut self, hole: Int) -> PyResult<u16> {
        let h = hole_number(hole)?;
        with_game!(&mut self.game, g => g.play_keeping_moves(Move(h)).map(|_| ()).map_err(value_error))?;
        Ok(self.legal_mask())
    }

    /// Takes back the last move and returns it; IndexError at the start (as list.pop()).
    fn pop(&mut self) -> PyResult<u8> {
        self.undo()
            .ok_or_else(|| PyIndexError::new_err("pop from a game with no moves"))
    }

    /// Takes back the last move and returns it (None at the start); redo() plays it again.
    fn undo(&mut self) -> Option<u8> {
        with_game!(&mut self.game, g => g.undo().map(|m| m.0))
    }

    /// Plays again the last move taken back, and returns it (None when there is none).
    fn redo(&mut self) -> PyResult<Option<u8>> {
        with_game!(&mut self.game, g => g.redo().map(|m| m.map(|m| m.0)).map_err(value_error))
    }

    /// Whether the game is over.
    pub(crate) fn is_over(&self) -> bool {
        with_game!(&self.game, g => g.is_over())
    }

    /// Why the game ended: "last-four", "no-moves" or "repetition"; None while it goes on.
    #[getter]
    fn end(&self) -> Option<String> {
        let r = self.record_of();
        r.termination
            .is_finished()
            .then(|| r.termination.tag().to_string())
    }

    /// The winner once the game is over: "S", "N" or "draw"; None while it goes on.
    #[getter]
    fn winner(&self) -> Option<String> {
        with_game!(&self.game, g => g.winner().map(|w| match w {
            hoyito::Winner::Side(s) => s.letter().to_string(),
            hoyito::Winner::Draw => "draw".to_string(),
        }))
    }

    /// The game's record in the format of data/RECORDS.md (str(game) gives it too).
    fn record(&self) -> PyResult<String> {
        self.record_of().to_text().map_err(value_error)
    }

    /// A copy of the game.
    fn copy(&self) -> Self {
        self.clone()
    }

    fn __len__(&self) -> usize {
        with_game!(&self.game, g => g.moves().len())
    }

    /// Pickling: the game's record, read back by from_record (the moves to redo are not
    /// kept).
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let from_record = py.get_type::<PyGame>().getattr("from_record")?;
        Ok((from_record, (self.record()?,).into_pyobject(py)?))
    }

    fn __str__(&self) -> PyResult<String> {
        self.record()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Game of {} moves at '{}'>",
            self.__len__(),
            self.position().__str__()
        )
    }
}

/// Every game of a record text (data/RECORDS.md), each replayed and checked. A bad record
/// raises ValueError naming the line and column.
#[pyfunction]
pub(crate) fn read_records(text: &str) -> PyResult<Vec<PyGame>> {
    let records = hoyito::rules::read_records(text).map_err(value_error)?;
    records.iter().map(PyGame::from_lib_record).collect()
}

/// A hole number argument: ValueError when it is no hole number at all.
fn hole_number(hole: Int) -> PyResult<u8> {
    hole.signed::<u8>("hole")
        .map_err(|_| PyValueError::new_err(format!("hole {hole} is out of range")))
}
