//! The Python package `hoyito`: a thin binding over the `hoyito` library. It converts types,
//! releases the GIL during searches, turns Ctrl-C into the library's stop flag and the
//! library's errors into `ValueError`; every rule, search and report is the library's.
//!
//! Built by maturin as `hoyito._hoyito`; `python/hoyito/__init__.py` re-exports it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hoyito::agents::{Opponent as LibOpponent, OpponentKind};
use hoyito::analysis::{AnalysisOptions, EngineOptions};
use hoyito::proof::{ProofControl, ProofOptions};
use hoyito::{Diagram, Move, Position12, Position6, Side};
use pyo3::exceptions::{PyFileNotFoundError, PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyType};

/// Every error of the library, raised as `ValueError` with its message (causes joined by
/// `: `).
fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The library's `anyhow` errors with their causes.
fn lib_error(e: hoyito::Error) -> PyErr {
    PyValueError::new_err(format!("{e:#}"))
}

/// `FileNotFoundError` for a path the call needs and that is not there.
fn need_path(path: &Path) -> PyResult<()> {
    if path.exists() {
        Ok(())
    } else {
        Err(PyFileNotFoundError::new_err((
            2,
            "No such file or directory",
            path.display().to_string(),
        )))
    }
}

/// How often a search running with the GIL released looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a worker thread with the GIL released, checking for signals every
/// [`SIGNAL_POLL`] from the calling thread. When a signal handler raises (Ctrl-C raises
/// `KeyboardInterrupt`), `stop` is set, the work is waited for (it stops at once with what
/// it has) and the exception is raised.
fn interruptible<T: Send>(
    py: Python<'_>,
    stop: &Arc<AtomicBool>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    py.detach(|| {
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            let worker = scope.spawn(move || {
                // The receiver waits for it (or has seen the worker panic).
                let _ = tx.send(work());
            });
            let mut raised = None;
            loop {
                match rx.recv_timeout(SIGNAL_POLL) {
                    Ok(out) => {
                        return match raised {
                            Some(e) => Err(e),
                            None => Ok(out),
                        }
                    }
                    Err(RecvTimeoutError::Timeout) => {
                        if raised.is_none() {
                            if let Err(e) = Python::attach(|py| py.check_signals()) {
                                stop.store(true, Ordering::Relaxed);
                                raised = Some(e);
                            }
                        }
                    }
                    // The worker panicked: its panic goes on in this thread.
                    Err(RecvTimeoutError::Disconnected) => match worker.join() {
                        Err(panic) => std::panic::resume_unwind(panic),
                        Ok(()) => unreachable!("a worker that returned has sent its answer"),
                    },
                }
            }
        })
    })
}

// ---------------------------------------------------------------------------------------
// Rules

/// The rules of a game: the variant and its options (data/RULES.md).
///
/// Rules(variant="hoyito2", holes=6, seeds=4, last_four="capturer", capture_side="any")
///
/// - variant: "hoyito2" (captures chain backwards) or "hoyito3" (the landing hole only)
/// - holes: holes a row, 2 to 12 (6 standard, 12 the extended Hoyito II)
/// - seeds: seeds a hole at the start, 1 to 8
/// - last_four: who takes the seeds left when a capture ends the game: "capturer", "S" or "N"
/// - capture_side: "any" (captures in either row) or "opponent" (the opponent's row only)
///
/// Bad options raise ValueError.
#[pyclass(name = "Rules", module = "hoyito", frozen, eq, hash, from_py_object)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PyRules {
    rules: hoyito::Rules,
}

#[pymethods]
impl PyRules {
    #[new]
    #[pyo3(signature = (variant="hoyito2", holes=6, seeds=4, last_four="capturer", capture_side="any"))]
    fn new(
        variant: &str,
        holes: usize,
        seeds: usize,
        last_four: &str,
        capture_side: &str,
    ) -> PyResult<Self> {
        let rules = hoyito::Rules::new(
            variant.parse().map_err(value_error)?,
            holes,
            seeds,
            last_four.parse().map_err(value_error)?,
            capture_side.parse().map_err(value_error)?,
        )
        .map_err(value_error)?;
        Ok(PyRules { rules })
    }

    /// "hoyito2" or "hoyito3".
    #[getter]
    fn variant(&self) -> String {
        self.rules.variant().to_string()
    }

    /// Holes a row.
    #[getter]
    fn holes(&self) -> usize {
        self.rules.holes()
    }

    /// Seeds a hole at the start.
    #[getter]
    fn seeds(&self) -> usize {
        self.rules.seeds()
    }

    /// Who takes the last four seeds: "capturer", "S" or "N".
    #[getter]
    fn last_four(&self) -> String {
        self.rules.last_four().to_string()
    }

    /// "any" or "opponent".
    #[getter]
    fn capture_side(&self) -> String {
        self.rules.capture_side().to_string()
    }

    /// Seeds in the game.
    #[getter]
    fn total_seeds(&self) -> usize {
        self.rules.total_seeds()
    }

    fn __repr__(&self) -> String {
        format!(
            "Rules(variant='{}', holes={}, seeds={}, last_four='{}', capture_side='{}')",
            self.variant(),
            self.holes(),
            self.seeds(),
            self.last_four(),
            self.capture_side()
        )
    }

    fn __str__(&self) -> String {
        self.rules.to_string()
    }

    /// Pickling: the class and its arguments.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let args = (
            self.variant(),
            self.holes(),
            self.seeds(),
            self.last_four(),
            self.capture_side(),
        );
        Ok((py.get_type::<PyRules>().into_any(), args.into_pyobject(py)?))
    }
}

/// The rules given, else the standard Hoyito II on 2x6.
fn rules_or_default(rules: Option<PyRules>) -> hoyito::Rules {
    rules.map_or_else(hoyito::Rules::default, |r| r.rules)
}

// ---------------------------------------------------------------------------------------
// Positions

/// A position of the size that fits its rules: 16 bytes up to 2x6, 32 bytes beyond.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Pos {
    Small(Position6),
    Large(Position12),
}

impl From<Position6> for Pos {
    fn from(p: Position6) -> Self {
        Pos::Small(p)
    }
}

impl From<Position12> for Pos {
    fn from(p: Position12) -> Self {
        Pos::Large(p)
    }
}

/// Runs `$body` with `$p` bound to the position, whatever its size.
macro_rules! with_pos {
    ($pos:expr, $p:ident => $body:expr) => {
        match $pos {
            Pos::Small($p) => $body,
            Pos::Large($p) => $body,
        }
    };
}

/// Small numbers (holes, seeds) as Python ints: pyo3 turns a `Vec<u8>` into `bytes`.
fn ints(v: impl IntoIterator<Item = u8>) -> Vec<u32> {
    v.into_iter().map(u32::from).collect()
}

/// The diagram of a position (what the library's analyses take).
fn diagram<const W: usize>(p: &hoyito::Position<W>) -> Diagram {
    let (south, north) = p.rows();
    Diagram {
        south,
        north,
        side: p.side_to_move(),
        captured: Some([
            p.captured(Side::South) as u16,
            p.captured(Side::North) as u16,
        ]),
    }
}

/// The position of `text` (or the start) under `rules`, in the size that fits.
fn make_pos(rules: &hoyito::Rules, text: Option<&str>) -> PyResult<Pos> {
    fn sized<const W: usize>(
        rules: &hoyito::Rules,
        text: Option<&str>,
    ) -> PyResult<hoyito::Position<W>> {
        match text {
            Some(t) => hoyito::Position::<W>::parse(rules, t).map_err(value_error),
            None => hoyito::Position::<W>::start(rules).map_err(value_error),
        }
    }
    Ok(if hoyito::setup::small(rules) {
        Pos::Small(sized::<2>(rules, text)?)
    } else {
        Pos::Large(sized::<4>(rules, text)?)
    })
}

/// A position: the seeds in every hole, the side to move and the seeds captured so far.
///
/// Position(text=None, rules=None): the position in the notation of data/RULES.md
/// ("4,4,4,4,4,4/4,4,4,4,4,4 S 0-0": South's row, North's row, each in sowing order, the
/// side to move, the seeds captured), or the start; rules default to Rules().
/// Positions are immutable: play() returns a new one. str() gives the notation.
#[pyclass(name = "Position", module = "hoyito", frozen, eq, hash, from_py_object)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PyPosition {
    rules: hoyito::Rules,
    pos: Pos,
}

impl PyPosition {
    /// Checks that the position is played under `rules`.
    fn check_rules(&self, rules: &hoyito::Rules) -> PyResult<()> {
        if self.rules == *rules {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "the position is of the rules {}, not {}",
                self.rules, rules
            )))
        }
    }

    fn diagram(&self) -> Diagram {
        with_pos!(&self.pos, p => diagram(p))
    }

    /// The same position as the 2x6 type, for the endgame tables.
    fn small(&self) -> PyResult<Position6> {
        match self.pos {
            Pos::Small(p) => Ok(p),
            Pos::Large(_) => Err(PyValueError::new_err(
                "the endgame tables hold 2x6 positions only",
            )),
        }
    }
}

#[pymethods]
impl PyPosition {
    #[new]
    #[pyo3(signature = (text=None, rules=None))]
    fn new(text: Option<&str>, rules: Option<PyRules>) -> PyResult<Self> {
        let rules = rules_or_default(rules);
        Ok(PyPosition {
            rules,
            pos: make_pos(&rules, text)?,
        })
    }

    /// The standard start of `rules` (default Rules()): every hole full, South to move.
    #[classmethod]
    #[pyo3(signature = (rules=None))]
    fn start(_cls: &Bound<'_, PyType>, rules: Option<PyRules>) -> PyResult<Self> {
        Self::new(None, rules)
    }

    /// Reads a position in the notation of data/RULES.md under `rules` (default Rules()).
    /// Bad text raises ValueError saying what is wrong and at which column.
    #[classmethod]
    #[pyo3(signature = (text, rules=None))]
    fn parse(_cls: &Bound<'_, PyType>, text: &str, rules: Option<PyRules>) -> PyResult<Self> {
        Self::new(Some(text), rules)
    }

    /// The rules the position is played under.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules { rules: self.rules }
    }

    /// Holes a row.
    #[getter]
    fn holes(&self) -> usize {
        self.rules.holes()
    }

    /// The side to move: "S" (South) or "N" (North).
    #[getter]
    fn side_to_move(&self) -> String {
        with_pos!(&self.pos, p => p.side_to_move().letter().to_string())
    }

    /// The seeds of every hole in sowing order: South's holes 1..H, then North's 1..H.
    #[getter]
    fn board<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let (mut s, n) = with_pos!(&self.pos, p => p.rows());
        s.extend(n);
        PyTuple::new(py, s)
    }

    /// South's row, holes 1..H.
    #[getter]
    fn south(&self) -> Vec<u32> {
        with_pos!(&self.pos, p => ints(p.rows().0))
    }

    /// North's row, holes 1..H.
    #[getter]
    fn north(&self) -> Vec<u32> {
        with_pos!(&self.pos, p => ints(p.rows().1))
    }

    /// Seeds captured so far: (South's, North's).
    #[getter]
    fn captured(&self) -> (u8, u8) {
        with_pos!(&self.pos, p => (p.captured(Side::South), p.captured(Side::North)))
    }

    /// Seeds still on the board.
    #[getter]
    fn seeds_on_board(&self) -> u32 {
        with_pos!(&self.pos, p => p.seeds_on_board())
    }

    /// The legal moves of the side to move: hole numbers 1..H, in order. Moves whose
    /// sowing never ends are not legal (see endless_moves()).
    fn moves(&self) -> Vec<u32> {
        with_pos!(&self.pos, p => ints(p.moves(&self.rules).children().iter().map(|c| c.mv.0)))
    }

    /// The moves from non-empty holes whose sowing never ends (illegal).
    fn endless_moves(&self) -> Vec<u32> {
        with_pos!(&self.pos, p => ints(p.moves(&self.rules).endless().map(|m| m.0)))
    }

    /// Whether `hole` is a legal move.
    fn is_legal(&self, hole: i64) -> bool {
        let Ok(h) = u8::try_from(hole) else {
            return false;
        };
        with_pos!(&self.pos, p => p.play(&self.rules, Move(h)).is_ok())
    }

    /// The position after the side to move plays `hole` (1..H), and any automatic pass.
    /// A capture gives the mover another move (the side to move stays). An illegal move
    /// raises ValueError.
    fn play(&self, hole: i64) -> PyResult<Self> {
        let h = u8::try_from(hole).map_err(|_| {
            PyValueError::new_err(format!(
                "hole {hole} is out of range 1..={}",
                self.rules.holes()
            ))
        })?;
        let pos = with_pos!(&self.pos, p => {
            let child = p.play(&self.rules, Move(h)).map_err(value_error)?;
            Pos::from(child.position.settle(&self.rules).0)
        });
        Ok(PyPosition {
            rules: self.rules,
            pos,
        })
    }

    /// Whether the game is over here: neither side has a legal move (a capture that left 4
    /// or fewer seeds ends the game too: they go to a player at once). A Game also ends on a
    /// repeated position.
    fn is_over(&self) -> bool {
        with_pos!(&self.pos, p => p.settle(&self.rules).1 == hoyito::Status::Over)
    }

    /// The same position seen from the other side: rows, captured counts and side to move
    /// exchanged.
    fn mirrored(&self) -> Self {
        let pos = with_pos!(&self.pos, p => Pos::from(p.mirrored()));
        PyPosition {
            rules: self.rules,
            pos,
        }
    }

    /// The board drawn for a person: North's row above South's, right to left.
    fn diagram_text(&self) -> String {
        with_pos!(&self.pos, p => hoyito::draw::draw(p))
    }

    fn __str__(&self) -> String {
        with_pos!(&self.pos, p => p.to_string())
    }

    /// Pickling: the class, the notation and the rules.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let args = (self.__str__(), PyRules { rules: self.rules });
        Ok((
            py.get_type::<PyPosition>().into_any(),
            args.into_pyobject(py)?,
        ))
    }

    fn __repr__(&self) -> String {
        let rules = if self.rules == hoyito::Rules::default() {
            String::new()
        } else {
            format!(", rules={}", PyRules { rules: self.rules }.__repr__())
        };
        format!("Position('{}'{rules})", self.__str__())
    }
}

// ---------------------------------------------------------------------------------------
// Games

/// A game of the size that fits its rules.
#[derive(Clone)]
enum AnyGame {
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

/// A game: the positions reached, the moves played (extra turns included, passes automatic),
/// moves taken back and played again, its end (no moves, the last four, or a repeated
/// position) and its record in the PGN-like format of data/RECORDS.md.
///
/// Game(start=None, rules=None): from a Position, a position's text, or the start of
/// `rules` (default Rules()).
#[pyclass(name = "Game", module = "hoyito")]
#[derive(Clone)]
struct PyGame {
    game: AnyGame,
    south: String,
    north: String,
}

impl PyGame {
    fn of(game: AnyGame) -> Self {
        PyGame {
            game,
            south: "?".to_string(),
            north: "?".to_string(),
        }
    }

    fn record_of(&self) -> hoyito::Record {
        let mut r = with_game!(&self.game, g => hoyito::Record::from_game(g));
        r.south = self.south.clone();
        r.north = self.north.clone();
        r
    }

    fn rules_of(&self) -> hoyito::Rules {
        with_game!(&self.game, g => *g.rules())
    }

    fn from_lib_record(r: &hoyito::Record) -> PyResult<Self> {
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
enum PositionArg {
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
    fn position(&self) -> PyPosition {
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
    fn legal_moves(&self) -> Vec<u32> {
        if self.is_over() {
            return Vec::new();
        }
        self.position().moves()
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
    fn push(&mut self, hole: i64) -> PyResult<()> {
        let h = u8::try_from(hole)
            .map_err(|_| PyValueError::new_err(format!("hole {hole} is out of range")))?;
        with_game!(&mut self.game, g => g.play(Move(h)).map(|_| ()).map_err(value_error))
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
    fn is_over(&self) -> bool {
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
    fn record(&self) -> String {
        self.record_of().to_string()
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
        Ok((from_record, (self.record(),).into_pyobject(py)?))
    }

    fn __str__(&self) -> String {
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
fn read_records(text: &str) -> PyResult<Vec<PyGame>> {
    let records = hoyito::rules::read_records(text).map_err(value_error)?;
    records.iter().map(PyGame::from_lib_record).collect()
}

// ---------------------------------------------------------------------------------------
// Analysis

/// A Python object of a report the library serialises (its JSON, as `solve --json` prints
/// it, read by the json module).
fn to_python<'py>(py: Python<'py>, report: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(report).map_err(value_error)?;
    py.import("json")?.call_method1("loads", (text,))
}

/// The answer of best(): the best move and the value for the side to move, and how they
/// were found. `value` is the net seeds the side to move captures from here on under best
/// play (proven when `exact`), as `solve best` reports it.
#[pyclass(name = "Analysis", module = "hoyito", frozen)]
struct PyAnalysis {
    a: hoyito::analysis::Analysis,
}

#[pymethods]
impl PyAnalysis {
    /// The best move (a hole number), or None when there is no move to play.
    #[getter(r#move)]
    fn best(&self) -> Option<u8> {
        self.a.best
    }

    /// The value for the side to move, in seeds.
    #[getter]
    fn value(&self) -> i32 {
        self.a.score
    }

    /// Whether the value is proven.
    #[getter]
    fn exact(&self) -> bool {
        self.a.exact
    }

    /// The principal variation (hole numbers; extra turns included).
    #[getter]
    fn pv(&self) -> Vec<u32> {
        ints(self.a.pv.iter().copied())
    }

    /// What decided the answer: "book", "tables", "proof" or "search".
    #[getter]
    fn source(&self) -> &'static str {
        self.a.source.name()
    }

    /// The search mode, in words.
    #[getter]
    fn mode(&self) -> String {
        self.a.mode.clone()
    }

    /// Proven bounds of the value: (lower, upper).
    #[getter]
    fn bounds(&self) -> (i32, i32) {
        (self.a.bounds[0], self.a.bounds[1])
    }

    /// Depth of the last finished iteration.
    #[getter]
    fn depth(&self) -> u32 {
        self.a.depth
    }

    /// Nodes searched.
    #[getter]
    fn nodes(&self) -> u64 {
        self.a.nodes
    }

    /// Seconds the analysis took.
    #[getter]
    fn seconds(&self) -> f64 {
        self.a.seconds
    }

    /// Whether a limit (or a stop) ended the search.
    #[getter]
    fn stopped(&self) -> bool {
        self.a.stopped
    }

    /// With all_moves=True: (hole, value, exact) for every legal move; else None.
    #[getter]
    fn moves(&self) -> Option<Vec<(u8, i32, bool)>> {
        self.a
            .moves
            .as_ref()
            .map(|m| m.iter().map(|m| (m.mv, m.score, m.exact)).collect())
    }

    /// The whole report as a dict, as `solve best --json` prints it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.a)
    }

    fn __str__(&self) -> String {
        self.a.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Analysis move={} value={} exact={} source={}>",
            self.a.best.map_or("None".to_string(), |m| m.to_string()),
            self.a.score,
            if self.a.exact { "True" } else { "False" },
            self.a.source.name()
        )
    }
}

/// A tables folder given as a path or as a Tables object.
#[derive(FromPyObject)]
enum TablesArg {
    Tables(Py<PyTables>),
    Path(PathBuf),
}

impl TablesArg {
    fn path(&self) -> PathBuf {
        match self {
            TablesArg::Tables(t) => t.get().path.clone(),
            TablesArg::Path(p) => p.clone(),
        }
    }
}

/// The path of a tables argument, checked to exist.
fn tables_path(tables: Option<&TablesArg>) -> PyResult<Option<PathBuf>> {
    let Some(t) = tables else {
        return Ok(None);
    };
    let path = t.path();
    need_path(&path)?;
    Ok(Some(path))
}

/// The best move and value of a position, by the library's one policy (as `solve best`):
/// the opening book answers at once when it holds the position and no limit is given; the
/// endgame tables and an exact search answer small positions; else a search limited by
/// depth, time or nodes (3 s when none is given and the position is too large to solve
/// quickly).
///
/// - depth: search this many plies (extra turns count)
/// - time_ms: search this many milliseconds (the whole call)
/// - exact: search to the end of the game and prove the value (may take long: Ctrl-C stops it)
/// - tables: a folder of endgame tables, or a Tables (2x6 only; default: data/tables of the
///   current folder when built there)
/// - nodes, threads (default: all cores), hash_mb, book (False: search even when the book
///   holds the position), no_tables, all_moves (also value every move)
///
/// Returns an Analysis (.move, .value for the side to move, .exact, .pv, .source, ...).
/// Bad options raise ValueError; Ctrl-C raises KeyboardInterrupt at once.
#[pyfunction]
#[pyo3(signature = (position=None, depth=None, time_ms=None, exact=false, tables=None, *, nodes=None, threads=None, hash_mb=64, book=true, no_tables=false, all_moves=false))]
#[allow(clippy::too_many_arguments)]
fn best(
    py: Python<'_>,
    position: Option<PyPosition>,
    depth: Option<u32>,
    time_ms: Option<u64>,
    exact: bool,
    tables: Option<TablesArg>,
    nodes: Option<u64>,
    threads: Option<usize>,
    hash_mb: usize,
    book: bool,
    no_tables: bool,
    all_moves: bool,
) -> PyResult<PyAnalysis> {
    let position = match position {
        Some(p) => p,
        None => PyPosition::new(None, None)?,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let options = AnalysisOptions {
        depth,
        time_ms,
        nodes,
        exact,
        all_moves,
        tables: tables_path(tables.as_ref())?,
        no_tables,
        no_book: !book,
        engine: EngineOptions {
            threads,
            hash_mb,
            ..EngineOptions::default()
        },
        stop: Some(Arc::clone(&stop)),
    };
    let d = position.diagram();
    let rules = position.rules;
    let a = interruptible(py, &stop, || {
        hoyito::analysis::analyse(&rules, Some(&d), &options)
    })?
    .map_err(lib_error)?;
    Ok(PyAnalysis { a })
}

/// The result of prove(): the proven value for the side to move and a move that keeps it.
#[pyclass(name = "Proof", module = "hoyito", frozen)]
struct PyProof {
    value: Option<i32>,
    best: Option<u8>,
    bounds: [i32; 2],
    complete: bool,
    json: String,
}

#[pymethods]
impl PyProof {
    /// The proven value for the side to move (None: the run stopped before proving it).
    #[getter]
    fn value(&self) -> Option<i32> {
        self.value
    }

    /// A move that keeps the value, proven.
    #[getter(r#move)]
    fn best(&self) -> Option<u8> {
        self.best
    }

    /// Proven bounds of the value: (lower, upper).
    #[getter]
    fn bounds(&self) -> (i32, i32) {
        (self.bounds[0], self.bounds[1])
    }

    /// Whether everything asked is proven.
    #[getter]
    fn complete(&self) -> bool {
        self.complete
    }

    /// The whole report as a dict, as `solve prove --json` prints it (the certificate
    /// written, the work done).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (&self.json,))
    }

    fn __repr__(&self) -> String {
        format!(
            "<Proof value={} move={} complete={}>",
            self.value.map_or("None".to_string(), |v| v.to_string()),
            self.best.map_or("None".to_string(), |m| m.to_string()),
            if self.complete { "True" } else { "False" }
        )
    }
}

/// Proves the exact value of a position by threshold proofs over the endgame tables (as
/// `solve prove`), writing a certificate that check_proof() verifies when `certificate`
/// names a file.
///
/// - tables: a folder of endgame tables, or a Tables (2x6; default: data/tables when built)
/// - certificate: the file to write the certificate to
/// - state: a folder for the run's state (a stopped run resumes from it)
/// - time_limit: stop after this many seconds; at_least: prove only whether the side to
///   move gets at least this many seeds; all_moves: prove every move's value too
///
/// Ctrl-C stops the run (its state kept) and raises KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (position=None, tables=None, certificate=None, *, state=None, time_limit=None, at_least=None, all_moves=false, threads=None, no_tables=false))]
#[allow(clippy::too_many_arguments)]
fn prove(
    py: Python<'_>,
    position: Option<PyPosition>,
    tables: Option<TablesArg>,
    certificate: Option<PathBuf>,
    state: Option<PathBuf>,
    time_limit: Option<u64>,
    at_least: Option<i32>,
    all_moves: bool,
    threads: Option<usize>,
    no_tables: bool,
) -> PyResult<PyProof> {
    let position = match position {
        Some(p) => p,
        None => PyPosition::new(None, None)?,
    };
    let options = ProofOptions {
        tables: tables_path(tables.as_ref())?,
        no_tables,
        state,
        certificate,
        all_moves,
        at_least,
        time_limit,
        threads,
        ..ProofOptions::default()
    };
    let stop = Arc::new(AtomicBool::new(false));
    let control = ProofControl {
        stop: Some(Arc::clone(&stop)),
        progress: None,
    };
    let d = position.diagram();
    let rules = position.rules;
    let report = interruptible(py, &stop, || {
        hoyito::proof::prove(&rules, Some(&d), &options, &control)
    })?
    .map_err(lib_error)?;
    Ok(PyProof {
        value: report.value(),
        best: report.best(),
        bounds: report.bounds(),
        complete: report.complete(),
        json: serde_json::to_string(&report).map_err(value_error)?,
    })
}

/// Checks a proof certificate with the independent checker, which shares no code with the
/// engine (as `solve check-proof`). `tables`: the folder of the endgame tables the
/// certificate rests on. Returns the checker's report as a dict; a rejected certificate
/// raises ValueError naming the failing entry, a missing file FileNotFoundError.
#[pyfunction]
#[pyo3(signature = (path, tables=None, *, verify_tables=false))]
fn check_proof<'py>(
    py: Python<'py>,
    path: PathBuf,
    tables: Option<TablesArg>,
    verify_tables: bool,
) -> PyResult<Bound<'py, PyAny>> {
    need_path(&path)?;
    let tables = tables_path(tables.as_ref())?;
    let report = py
        .detach(|| {
            hoyito::checking::check_proof(
                &path,
                tables.as_deref(),
                verify_tables,
                &hoyito::check::Silent,
            )
        })
        .map_err(lib_error)?;
    to_python(py, &report)
}

/// The number of move sequences of exactly `depth` plies from `position` (extra turns are
/// plies, passes are not), counted on all cores.
#[pyfunction]
fn perft(py: Python<'_>, position: PyPosition, depth: u32) -> u64 {
    let rules = position.rules;
    py.detach(|| with_pos!(&position.pos, p => hoyito::rules::perft_parallel(p, &rules, depth)))
}

// ---------------------------------------------------------------------------------------
// Endgame tables

/// Endgame tables on disk (2x6): the exact value of every position with few enough seeds.
///
/// Tables(path, rules=None, max_seeds=None): the tables of `rules` (default Rules()) in the
/// folder `path` (as `solve tables build --dir` writes them), the layers up to `max_seeds`
/// (default all). Each layer is read and checked whole.
#[pyclass(name = "Tables", module = "hoyito", frozen)]
struct PyTables {
    tables: Arc<hoyito::tables::Tables>,
    path: PathBuf,
}

#[pymethods]
impl PyTables {
    #[new]
    #[pyo3(signature = (path, rules=None, max_seeds=None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        rules: Option<PyRules>,
        max_seeds: Option<usize>,
    ) -> PyResult<Self> {
        need_path(&path)?;
        let rules = rules_or_default(rules);
        let max = max_seeds.unwrap_or(usize::MAX);
        let tables = py
            .detach(|| hoyito::endgame::open_layers(&rules, &path, max))
            .map_err(lib_error)?;
        Ok(PyTables {
            tables: Arc::new(tables),
            path,
        })
    }

    /// Builds the tables of `rules` (default Rules()) up to `max_seeds` seeds on the board
    /// in the folder `path` (as `solve tables build`; layers already there are kept) and
    /// opens them. Ctrl-C stops the build (the finished layers stay).
    #[classmethod]
    #[pyo3(signature = (path, max_seeds, rules=None))]
    fn build(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        path: PathBuf,
        max_seeds: usize,
        rules: Option<PyRules>,
    ) -> PyResult<Self> {
        let r = rules_or_default(rules);
        let stop = Arc::new(AtomicBool::new(false));
        let progress = StopBuild(Arc::clone(&stop));
        let dir = path.clone();
        interruptible(py, &stop, || {
            hoyito::tables::build(&dir, &r, max_seeds, &progress)
        })?
        .map_err(value_error)?;
        Self::new(py, path, rules, None)
    }

    /// The folder.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The rules the tables are of.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules {
            rules: *self.tables.rules(),
        }
    }

    /// The most seeds on the board of the positions they hold.
    #[getter]
    fn max_seeds(&self) -> usize {
        self.tables.max_seeds()
    }

    /// The exact value of `position` for its side to move (net seeds it captures from here
    /// on). A position beyond the tables, or of other rules, raises ValueError.
    fn probe(&self, position: PyPosition) -> PyResult<i32> {
        position.check_rules(self.tables.rules())?;
        let p = position.small()?;
        match self.tables.probe(&p) {
            Some(v) => Ok(v),
            None => Err(match hoyito::endgame::probe(&self.tables, &p) {
                Err(e) => lib_error(e),
                Ok(_) => PyValueError::new_err("the tables do not hold the position"),
            }),
        }
    }

    /// The value of `position`, or None when the tables do not hold it.
    fn get(&self, position: PyPosition) -> PyResult<Option<i32>> {
        position.check_rules(self.tables.rules())?;
        Ok(self.tables.probe(&position.small()?))
    }

    /// Every legal move of `position` with its exact value for the side to move:
    /// [(hole, value), ...]. Raises ValueError beyond the tables.
    fn move_values(&self, position: PyPosition) -> PyResult<Vec<(u8, i32)>> {
        self.probe(position)?;
        let p = position.small()?;
        Ok(self
            .tables
            .move_values(&p)
            .unwrap_or_default()
            .iter()
            .map(|m| (m.mv.0, m.value))
            .collect())
    }

    fn __contains__(&self, position: PyPosition) -> bool {
        position.check_rules(self.tables.rules()).is_ok()
            && position
                .small()
                .is_ok_and(|p| self.tables.probe(&p).is_some())
    }

    fn __repr__(&self) -> String {
        format!(
            "<Tables '{}' up to {} seeds>",
            self.path.display(),
            self.tables.max_seeds()
        )
    }
}

/// A table build that stops when Ctrl-C sets the flag.
struct StopBuild(Arc<AtomicBool>);

impl hoyito::tables::Progress for StopBuild {
    fn stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

// ---------------------------------------------------------------------------------------
// Agents

/// Random games in a batch: each game's final margin (South's captures minus North's) and
/// length in plies.
#[pyclass(name = "Playouts", module = "hoyito", frozen)]
struct PyPlayouts {
    playouts: hoyito::agents::Playouts,
    seconds: f64,
}

#[pymethods]
impl PyPlayouts {
    /// Each game's final margin: South's captured seeds minus North's.
    #[getter]
    fn margins(&self) -> Vec<i32> {
        self.playouts.margins.clone()
    }

    /// Each game's length in plies (extra turns count).
    #[getter]
    fn plies(&self) -> Vec<u32> {
        self.playouts.plies.clone()
    }

    /// Moves played in all the games.
    #[getter]
    fn moves(&self) -> u64 {
        self.playouts.moves()
    }

    /// Seconds the batch took.
    #[getter]
    fn seconds(&self) -> f64 {
        self.seconds
    }

    fn __len__(&self) -> usize {
        self.playouts.margins.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Playouts of {} games, {} moves in {:.3} s>",
            self.playouts.margins.len(),
            self.playouts.moves(),
            self.seconds
        )
    }
}

/// Plays `n` games from `position` (default the start) to their end, each move drawn
/// uniformly among the legal ones, on all cores. Game i draws from a generator seeded by
/// `seed` and i: the same seed gives the same games.
#[pyfunction]
#[pyo3(signature = (n, seed=0, position=None))]
fn random_playouts(
    py: Python<'_>,
    n: usize,
    seed: u64,
    position: Option<PyPosition>,
) -> PyResult<PyPlayouts> {
    let position = match position {
        Some(p) => p,
        None => PyPosition::new(None, None)?,
    };
    let rules = position.rules;
    let t0 = Instant::now();
    let playouts = py.detach(
        || with_pos!(&position.pos, p => hoyito::agents::random_playouts(&rules, p, n, seed)),
    );
    Ok(PyPlayouts {
        playouts,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// An opponent of the size that fits its rules.
enum AnyOpponent {
    Small(LibOpponent<2>),
    Large(LibOpponent<4>),
}

/// A computer player: "random", the engine at a level (1 to 5, as `solve play --level`), or
/// "perfect" (the proven best move where the opening book, the certificates, the endgame
/// tables or a quick exact search reach; else the engine at level 5, or the certificates'
/// move that keeps their bound).
///
/// Opponent(kind="random", rules=None, tables=None, seed=0). A perfect player on 2x6 with no
/// tables stands on those up to 16 seeds of the small tables cache (built into it once,
/// about 15 s; HOYITO_CACHE=off turns it off), else builds those up to 12 in memory.
#[pyclass(name = "Opponent", module = "hoyito")]
struct PyOpponent {
    rules: hoyito::Rules,
    opponent: AnyOpponent,
    kind: String,
}

/// A kind given as a level number or a name.
#[derive(FromPyObject)]
enum KindArg {
    Level(u8),
    Name(String),
}

#[pymethods]
impl PyOpponent {
    #[new]
    #[pyo3(signature = (kind=KindArg::Name("random".to_string()), rules=None, tables=None, seed=0))]
    fn new(
        py: Python<'_>,
        kind: KindArg,
        rules: Option<PyRules>,
        tables: Option<TablesArg>,
        seed: u64,
    ) -> PyResult<Self> {
        let rules = rules_or_default(rules);
        let k = match &kind {
            KindArg::Level(l) => OpponentKind::Level(*l),
            KindArg::Name(n) => match n.as_str() {
                "random" => OpponentKind::Random,
                "perfect" => OpponentKind::Perfect,
                other => match other
                    .strip_prefix("level")
                    .map(|l| l.trim_start_matches([' ', ':', '=']))
                {
                    Some(l) => OpponentKind::Level(l.parse().map_err(|_| {
                        PyValueError::new_err(format!("unknown level '{l}': 1 to 5"))
                    })?),
                    None => {
                        return Err(PyValueError::new_err(format!(
                            "unknown opponent '{other}': random, perfect, or a level 1 to 5"
                        )))
                    }
                },
            },
        };
        let name = match k {
            OpponentKind::Random => "random".to_string(),
            OpponentKind::Perfect => "perfect".to_string(),
            OpponentKind::Level(l) => format!("level {l}"),
        };
        let tables = tables_path(tables.as_ref())?;
        let opponent = py
            .detach(|| -> hoyito::Result<AnyOpponent> {
                Ok(if hoyito::setup::small(&rules) {
                    AnyOpponent::Small(LibOpponent::new(rules, k, tables.as_deref(), seed)?)
                } else {
                    AnyOpponent::Large(LibOpponent::new(rules, k, tables.as_deref(), seed)?)
                })
            })
            .map_err(lib_error)?;
        Ok(PyOpponent {
            rules,
            opponent,
            kind: name,
        })
    }

    /// "random", "perfect" or "level N".
    #[getter]
    fn kind(&self) -> String {
        self.kind.clone()
    }

    /// Seeds on the board up to which its endgame tables answer (0: none).
    #[getter]
    fn tables_max_seeds(&self) -> usize {
        match &self.opponent {
            AnyOpponent::Small(o) => o.tables_max_seeds(),
            AnyOpponent::Large(o) => o.tables_max_seeds(),
        }
    }

    /// Its move in `position` (a hole number; None when the side to move has no legal
    /// move). Ctrl-C makes the engine move at once and raises KeyboardInterrupt.
    fn choose(&mut self, py: Python<'_>, position: PyPosition) -> PyResult<Option<u8>> {
        position.check_rules(&self.rules)?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let opponent = &mut self.opponent;
        if self.kind == "random" {
            // A random move takes microseconds: no worker thread.
            let mv = match (opponent, position.pos) {
                (AnyOpponent::Small(o), Pos::Small(p)) => o.choose(&p, None),
                (AnyOpponent::Large(o), Pos::Large(p)) => o.choose(&p, None),
                _ => None,
            };
            return Ok(mv.map(|m| m.0));
        }
        let mv = interruptible(py, &stop, move || match (opponent, position.pos) {
            (AnyOpponent::Small(o), Pos::Small(p)) => o.choose(&p, Some(&flag)),
            (AnyOpponent::Large(o), Pos::Large(p)) => o.choose(&p, Some(&flag)),
            // Rules decide the size of both.
            _ => None,
        })?;
        Ok(mv.map(|m| m.0))
    }

    fn __repr__(&self) -> String {
        format!("<Opponent {}>", self.kind)
    }
}

/// The Python module `hoyito._hoyito`, re-exported as `hoyito`.
#[pymodule]
fn _hoyito(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyRules>()?;
    m.add_class::<PyPosition>()?;
    m.add_class::<PyGame>()?;
    m.add_class::<PyAnalysis>()?;
    m.add_class::<PyProof>()?;
    m.add_class::<PyTables>()?;
    m.add_class::<PyPlayouts>()?;
    m.add_class::<PyOpponent>()?;
    m.add_function(wrap_pyfunction!(best, m)?)?;
    m.add_function(wrap_pyfunction!(prove, m)?)?;
    m.add_function(wrap_pyfunction!(check_proof, m)?)?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    m.add_function(wrap_pyfunction!(read_records, m)?)?;
    m.add_function(wrap_pyfunction!(random_playouts, m)?)?;
    Ok(())
}
