//! Players for programs that learn: `random_playouts` and `Opponent`.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use hoyito::agents::{Opponent as LibOpponent, OpponentKind};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::{lib_error, seed_arg, Int};
use crate::interrupt::interruptible;
use crate::rules::{rules_or_default, with_pos, Pos, PyPosition, PyRules};
use crate::tables::{tables_path, TablesArg};

/// Random games in a batch: each game's final margin (South's captures minus North's) and
/// length in plies.
#[pyclass(name = "Playouts", module = "hoyito", frozen)]
pub(crate) struct PyPlayouts {
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
#[pyo3(signature = (n, seed=None, position=None))]
pub(crate) fn random_playouts(
    py: Python<'_>,
    n: Int,
    seed: Option<&Bound<'_, PyAny>>,
    position: Option<PyPosition>,
) -> PyResult<PyPlayouts> {
    let n: usize = n.count("n")?;
    let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
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
pub(crate) enum AnyOpponent {
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
pub(crate) struct PyOpponent {
    rules: hoyito::Rules,
    opponent: AnyOpponent,
    kind: String,
}

/// A kind given as a level number or a name.
#[derive(FromPyObject)]
pub(crate) enum KindArg {
    Level(i64),
    Name(String),
}

#[pymethods]
impl PyOpponent {
    #[new]
    #[pyo3(signature = (kind=KindArg::Name("random".to_string()), rules=None, tables=None, seed=None))]
    fn new(
        py: Python<'_>,
        kind: KindArg,
        rules: Option<PyRules>,
        tables: Option<TablesArg>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let rules = rules_or_default(rules);
        let k = opponent_kind(&kind)?;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
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

/// The kind an argument names: "random", "perfect", a level 1 to 5 or "level N".
pub(crate) fn opponent_kind(kind: &KindArg) -> PyResult<OpponentKind> {
    let level = |l: i64| match u8::try_from(l) {
        Ok(l @ 1..=5) => Ok(OpponentKind::Level(l)),
        _ => Err(PyValueError::new_err(format!(
            "opponent level must be 1 to 5, not {l}"
        ))),
    };
    match kind {
        KindArg::Level(l) => level(*l),
        KindArg::Name(n) => {
            match n.as_str() {
                "random" => Ok(OpponentKind::Random),
                "perfect" => Ok(OpponentKind::Perfect),
                other => match other
                    .strip_prefix("level")
                    .map(|l| l.trim_start_matches([' ', ':', '=']))
                {
                    Some(l) => level(l.parse().map_err(|_| {
                        PyValueError::new_err(format!("unknown level '{l}': 1 to 5"))
                    })?),
                    None => Err(PyValueError::new_err(format!(
                        "unknown opponent '{other}': random, perfect, or a level 1 to 5"
                    ))),
                },
            }
        }
    }
}
