//! Rules and positions: `Rules`, `Position`, and perft.

use hoyito::{Diagram, Move, Position12, Position6, Side};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyType};

use crate::errors::{value_error, Int};

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
pub(crate) struct PyRules {
    pub(crate) rules: hoyito::Rules,
}

#[pymethods]
impl PyRules {
    #[new]
    #[pyo3(
        signature = (variant="hoyito2", holes=Int::of(6), seeds=Int::of(4), last_four="capturer", capture_side="any"),
        text_signature = "(variant='hoyito2', holes=6, seeds=4, last_four='capturer', capture_side='any')"
    )]
    pub(crate) fn new(
        variant: &str,
        holes: Int,
        seeds: Int,
        last_four: &str,
        capture_side: &str,
    ) -> PyResult<Self> {
        // The rules from words in the library's one place for it.
        let mut b = hoyito::Rules::builder()
            .holes(holes.count("holes")?)
            .seeds(seeds.count("seeds")?);
        for (key, value) in [
            ("variant", variant),
            ("last_four", last_four),
            ("capture_side", capture_side),
        ] {
            b.set(key, value).map_err(value_error)?;
        }
        let rules = b.build().map_err(value_error)?;
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

    pub(crate) fn __repr__(&self) -> String {
        format!(
            "Rules(variant='{}', holes={}, seeds={}, last_four='{}', capture_side='{}')",
            self.variant(),
            self.holes(),
            self.seeds(),
            self.last_four(),
            self.capture_side()
        )
    }

    pub(crate) fn __str__(&self) -> String {
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
pub(crate) fn rules_or_default(rules: Option<PyRules>) -> hoyito::Rules {
    rules.map_or_else(hoyito::Rules::default, |r| r.rules)
}

/// A position of the size that fits its rules: 16 bytes up to 2x6, 32 bytes beyond.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Pos {
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
pub(crate) use with_pos;

/// Small numbers (holes, seeds) as Python ints: pyo3 turns a `Vec<u8>` into `bytes`.
pub(crate) fn ints(v: impl IntoIterator<Item = u8>) -> Vec<u32> {
    v.into_iter().map(u32::from).collect()
}

/// The diagram of a position (what the library's analyses take).
pub(crate) fn diagram<const W: usize>(p: &hoyito::Position<W>) -> Diagram {
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
pub(crate) fn make_pos(rules: &hoyito::Rules, text: Option<&str>) -> PyResult<Pos> {
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
pub(crate) struct PyPosition {
    pub(crate) rules: hoyito::Rules,
    pub(crate) pos: Pos,
}

impl PyPosition {
    /// Checks that the position is played under `rules`.
    pub(crate) fn check_rules(&self, rules: &hoyito::Rules) -> PyResult<()> {
        if self.rules == *rules {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "the position is of the rules {}, not {}",
                self.rules, rules
            )))
        }
    }

    pub(crate) fn diagram(&self) -> Diagram {
        with_pos!(&self.pos, p => diagram(p))
    }

    /// The same position as the 2x6 type, for the endgame tables.
    pub(crate) fn small(&self) -> PyResult<Position6> {
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
    pub(crate) fn new(text: Option<&str>, rules: Option<PyRules>) -> PyResult<Self> {
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
    pub(crate) fn moves(&self) -> Vec<u32> {
        let mask = self.legal_mask();
        (0..16)
            .filter(|k| mask & (1 << k) != 0)
            .map(|k| k + 1)
            .collect()
    }

    /// The legal moves of the side to move as an int: bit h - 1 is set when hole h is
    /// legal (the action mask of a learning agent, without a list).
    pub(crate) fn legal_mask(&self) -> u16 {
        with_pos!(&self.pos, p => p.legal_mask(&self.rules))
    }

    /// The moves from non-empty holes whose sowing never ends (illegal).
    fn endless_moves(&self) -> Vec<u32> {
        with_pos!(&self.pos, p => ints(p.moves(&self.rules).endless().map(|m| m.0)))
    }

    /// Whether `hole` is a legal move.
    fn is_legal(&self, hole: Int) -> bool {
        let Ok(h) = hole.signed::<u8>("hole") else {
            return false;
        };
        with_pos!(&self.pos, p => p.play(&self.rules, Move(h)).is_ok())
    }

    /// The position after the side to move plays `hole` (1..H), and any automatic pass.
    /// A capture gives the mover another move (the side to move stays). An illegal move
    /// raises ValueError.
    fn play(&self, hole: Int) -> PyResult<Self> {
        let h = hole.signed::<u8>("hole").map_err(|_| {
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

    pub(crate) fn __str__(&self) -> String {
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

    pub(crate) fn __repr__(&self) -> String {
        let rules = if self.rules == hoyito::Rules::default() {
            String::new()
        } else {
            format!(", rules={}", PyRules { rules: self.rules }.__repr__())
        };
        format!("Position('{}'{rules})", self.__str__())
    }
}

/// The number of move sequences of exactly `depth` plies from `position` (extra turns are
/// plies, passes are not), counted on all cores.
#[pyfunction]
pub(crate) fn perft(py: Python<'_>, position: PyPosition, depth: Int) -> PyResult<u64> {
    let depth: u32 = depth.count("depth")?;
    let rules = position.rules;
    Ok(
        py.detach(
            || with_pos!(&position.pos, p => hoyito::rules::perft_parallel(p, &rules, depth)),
        ),
    )
}
