//! Games stepped together in Rust (`hoyito::batch`): the core of the environments of
//! `hoyito.env`, writing observations and masks straight into numpy arrays.

use hoyito::batch::{Batch, BatchOptions, Reward, StepError};
use hoyito::Side;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::agents::{opponent_kind, KindArg};
use crate::errors::{lib_error, seed_arg, Int};
use crate::games::{AnyGame, PyGame};
use crate::rules::{make_pos, rules_or_default, Pos, PyPosition, PyRules};
use crate::tables::{tables_path, TablesArg};

/// A batch of the size that fits its rules.
pub(crate) enum AnyBatch {
    Small(Batch<2>),
    Large(Batch<4>),
}

macro_rules! with_batch {
    ($batch:expr, $b:ident => $body:expr) => {
        match $batch {
            AnyBatch::Small($b) => $body,
            AnyBatch::Large($b) => $body,
        }
    };
}

/// A step error in Python's words.
fn step_error(e: StepError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A new one-dimensional numpy array of `len` values, filled by `fill`.
fn array1<'py, T: numpy::Element>(
    py: Python<'py>,
    len: usize,
    fill: impl FnOnce(&mut [T]),
) -> Bound<'py, PyArray1<T>> {
    // SAFETY: the array is new, contiguous and of `len` values: no one else sees it before
    // it is returned, so the slice is its only view (which is why it is taken from the
    // data pointer, without the borrow tracking of `as_slice_mut`, a third of the cost of a
    // small array), and `fill` writes every value before any is read.
    unsafe {
        let a = PyArray1::<T>::new(py, len, false);
        match len {
            0 => fill(&mut []),
            _ => fill(std::slice::from_raw_parts_mut(a.data(), len)),
        }
        a
    }
}

/// A new numpy array of `shape` (rows, columns), filled row by row by `fill`.
fn array2<'py, T: numpy::Element>(
    py: Python<'py>,
    shape: [usize; 2],
    fill: impl FnOnce(&mut [T]),
) -> Bound<'py, PyArray2<T>> {
    // SAFETY: as in `array1`, with `shape[0] * shape[1]` values.
    unsafe {
        let a = PyArray2::<T>::new(py, shape, false);
        match shape[0] * shape[1] {
            0 => fill(&mut []),
            n => fill(std::slice::from_raw_parts_mut(a.data(), n)),
        }
        a
    }
}

/// Games stepped together in Rust: the core of hoyito.env's HoyitoVectorEnv and HoyitoEnv.
///
/// Batch(num_envs, rules=None, opponent=None, *, player="S", reward="captures", start=None,
/// tables=None, max_plies=None, seed=None, autoreset=True, external=False,
/// record_moves=False)
///
/// Each game plays from `start` (a Position or its text; default the start of `rules`);
/// the agent plays `player`'s side, and `opponent` ("random", a level 1..5 or "level N",
/// "perfect", or None: the caller plays both sides) the other, stepped in Rust. Actions are
/// 0-based (action a sows hole a + 1). A random opponent of game i is seeded with seed + i;
/// an engine opponent is shared by the games. With `autoreset`, a step of a game whose
/// episode ended starts a new episode and ignores the action (Gymnasium's "next step"
/// autoreset); without, it raises ValueError. `external`: the caller plays the opponent's
/// moves with play() and ends the step with finish(); observations are then the agent's.
#[pyclass(name = "Batch", module = "hoyito")]
pub(crate) struct PyBatch {
    batch: AnyBatch,
    rules: hoyito::Rules,
    /// `info["legal_actions"]` of each mask, made once (boards of up to 8 holes a row): a
    /// tuple, so that the steps can share it.
    legal: Vec<Py<PyTuple>>,
}

#[pymethods]
impl PyBatch {
    #[new]
    #[pyo3(signature = (num_envs, rules=None, opponent=None, *, player="S", reward="captures", start=None, tables=None, max_plies=None, seed=None, autoreset=true, external=false, record_moves=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        num_envs: &Bound<'_, PyAny>,
        rules: Option<PyRules>,
        opponent: Option<KindArg>,
        player: &str,
        reward: &str,
        start: Option<&Bound<'_, PyAny>>,
        tables: Option<TablesArg>,
        max_plies: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        autoreset: bool,
        external: bool,
        record_moves: bool,
    ) -> PyResult<Self> {
        let num_envs = crate::errors::int_arg::<usize>("num_envs", num_envs, 1, 1 << 24)?;
        let player = match player {
            "S" => Side::South,
            "N" => Side::North,
            other => {
                return Err(PyValueError::new_err(format!(
                    "player must be 'S' or 'N', not '{other}'"
                )))
            }
        };
        let reward = match reward {
            "captures" => Reward::Captures,
            "margin" => Reward::Margin,
            other => {
                return Err(PyValueError::new_err(format!(
                    "reward must be 'captures' or 'margin', not '{other}'"
                )))
            }
        };
        let (rules, start) = match start {
            None => {
                let r = rules_or_default(rules);
                (r, make_pos(&r, None)?)
            }
            Some(s) => match s.cast::<PyPosition>() {
                Ok(p) => {
                    let p = *p.get();
                    if let Some(r) = rules {
                        p.check_rules(&r.rules)?;
                    }
                    (p.rules, p.pos)
                }
                Err(_) => {
                    let r = rules_or_default(rules);
                    let text: String = s.extract().map_err(|_| {
                        PyValueError::new_err("start must be a Position or its text")
                    })?;
                    (r, make_pos(&r, Some(&text))?)
                }
            },
        };
        let max_plies = max_plies
            .map(|m| crate::errors::int_arg::<u32>("max_plies", m, 1, u32::MAX as i64))
            .transpose()?;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
        let opponent = opponent.map(|k| opponent_kind(&k)).transpose()?;
        if external && opponent.is_some() {
            return Err(PyValueError::new_err(
                "external=True means the caller plays the opponent: opponent must be None",
            ));
        }
        let options = BatchOptions {
            player,
            opponent,
            tables: tables_path(tables.as_ref())?,
            reward,
            max_plies,
            autoreset,
            external,
            record_moves,
        };
        let batch = py
            .detach(|| -> hoyito::Result<AnyBatch> {
                Ok(match start {
                    Pos::Small(p) => {
                        AnyBatch::Small(Batch::new(rules, p, num_envs, options, seed)?)
                    }
                    Pos::Large(p) => {
                        AnyBatch::Large(Batch::new(rules, p, num_envs, options, seed)?)
                    }
                })
            })
            .map_err(lib_error)?;
        let holes = rules.holes();
        let legal = if holes <= 8 {
            (0..1u32 << holes)
                .map(|m| legal_actions(py, m as u16, holes).map(Bound::unbind))
                .collect::<PyResult<_>>()?
        } else {
            Vec::new()
        };
        Ok(PyBatch {
            batch,
            rules,
            legal,
        })
    }

    /// Games in the batch.
    #[getter]
    fn num_envs(&self) -> usize {
        with_batch!(&self.batch, b => b.len())
    }

    /// The rules played.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules { rules: self.rules }
    }

    /// Values in one observation: 2 * holes + 2.
    #[getter]
    fn observation_len(&self) -> usize {
        2 * self.rules.holes() + 2
    }

    /// The start of every episode.
    #[getter]
    fn start(&self) -> PyPosition {
        let pos = with_batch!(&self.batch, b => Pos::from(*b.start()));
        PyPosition {
            rules: self.rules,
            pos,
        }
    }

    /// Starts the episodes from `start` (a Position of the same rules) at their next reset.
    fn set_start(&mut self, start: PyPosition) -> PyResult<()> {
        start.check_rules(&self.rules)?;
        match (&mut self.batch, start.pos) {
            (AnyBatch::Small(b), Pos::Small(p)) => b.set_start(p),
            (AnyBatch::Large(b), Pos::Large(p)) => b.set_start(p),
            // The rules decide the size of both.
            _ => return Err(PyValueError::new_err("the start does not fit the batch")),
        }
        Ok(())
    }

    /// Starts a new episode in every game; with `seed`, the opponents are seeded again
    /// first (game i's random opponent with seed + i). Returns the observations.
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<i16>>> {
        let seed = seed.map(seed_arg).transpose()?;
        let batch = &mut self.batch;
        py.detach(|| with_batch!(batch, b => b.reset(seed)))
            .map_err(lib_error)?;
        Ok(self.observations(py))
    }

    /// Starts a new episode in game `env` alone.
    fn reset_game(&mut self, env: Int) -> PyResult<()> {
        let env = self.env_index(env)?;
        with_batch!(&mut self.batch, b => b.reset_game(env));
        Ok(())
    }

    /// Steps every game with its action (an int64 array, one per game; any action for a
    /// game whose episode just ended, which starts again). Returns (observations, rewards,
    /// terminated, truncated, to_move, masks) as new numpy arrays, to_move the side to move
    /// (0 South, 1 North), masks as action_masks(). An illegal action raises ValueError
    /// naming the game; no game moves then. The GIL is released while the games step, and
    /// each game's results are written by the thread that stepped it.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let actions = actions.as_slice()?;
        let n = self.num_envs();
        let obs = PyArray2::<i16>::zeros(py, [n, self.observation_len()], false);
        let masks = PyArray2::<bool>::zeros(py, [n, self.rules.holes()], false);
        let rewards = PyArray1::<f64>::zeros(py, n, false);
        let terminated = PyArray1::<bool>::zeros(py, n, false);
        let truncated = PyArray1::<bool>::zeros(py, n, false);
        let to_move = PyArray1::<i8>::zeros(py, n, false);
        // SAFETY: the arrays are new and not yet returned: these slices are their only views
        // while the games step.
        let out = unsafe {
            hoyito::batch::StepOut {
                observations: obs.as_slice_mut()?,
                masks: masks.as_slice_mut()?,
                rewards: rewards.as_slice_mut()?,
                terminated: terminated.as_slice_mut()?,
                truncated: truncated.as_slice_mut()?,
                to_move: to_move.as_slice_mut()?,
            }
        };
        let batch = &mut self.batch;
        py.detach(|| with_batch!(batch, b => b.step_into(actions, out)))
            .map_err(step_error)?;
        PyTuple::new(
            py,
            [
                obs.into_any(),
                rewards.into_any(),
                terminated.into_any(),
                truncated.into_any(),
                to_move.into_any(),
                masks.into_any(),
            ],
        )
    }

    /// Every game's observation, one row a game (int16): the viewer's row (holes 1..H in
    /// sowing order), the other row, the viewer's captured seeds, the other side's. The
    /// viewer is the agent where an opponent plays (or external=True), else the side to
    /// move.
    fn observations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i16>> {
        let shape = [self.num_envs(), self.observation_len()];
        array2(
            py,
            shape,
            |out| with_batch!(&self.batch, b => b.write_observations(out)),
        )
    }

    /// Every game's legal actions, one row a game (bool; none once the episode is over).
    fn action_masks<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        let shape = [self.num_envs(), self.rules.holes()];
        array2(
            py,
            shape,
            |out| with_batch!(&self.batch, b => b.write_masks(out)),
        )
    }

    /// One step of a single game (a batch of one): (observation, reward, terminated,
    /// truncated, info) as HoyitoEnv.step returns them. A step after the end raises
    /// ValueError (without autoreset).
    fn step_one<'py>(&mut self, py: Python<'py>, action: Int) -> PyResult<Bound<'py, PyTuple>> {
        let action = action.signed("action")?;
        with_batch!(&mut self.batch, b => b.step(&[action])).map_err(step_error)?;
        self.result(py, 0)
    }

    /// Plays `action` (hole - 1) in game `env` for the side to move, without the
    /// opponent's replies or the step's results (see finish()).
    fn play(&mut self, env: Int, action: Int) -> PyResult<()> {
        let env = self.env_index(env)?;
        let action = action.signed("action")?;
        with_batch!(&mut self.batch, b => b.play(env, action)).map_err(step_error)
    }

    /// Ends the step of game `env` played with play(): its reward, terminated and
    /// truncated. Returns (observation, reward, terminated, truncated, info).
    fn finish<'py>(&mut self, py: Python<'py>, env: Int) -> PyResult<Bound<'py, PyTuple>> {
        let env = self.env_index(env)?;
        with_batch!(&mut self.batch, b => b.finish(env));
        self.result(py, env)
    }

    /// The observation of game `env` (int16, see observations()).
    fn observation<'py>(&self, py: Python<'py>, env: Int) -> PyResult<Bound<'py, PyArray1<i16>>> {
        let env = self.env_index(env)?;
        Ok(self.observation_of(py, env))
    }

    /// The legal actions of game `env` as bits: bit a set when action a is legal.
    fn legal_mask(&self, env: Int) -> PyResult<u16> {
        let env = self.env_index(env)?;
        Ok(with_batch!(&self.batch, b => b.mask(env)))
    }

    /// The current position of game `env`.
    fn position(&self, env: Int) -> PyResult<PyPosition> {
        let env = self.env_index(env)?;
        let pos = with_batch!(&self.batch, b => Pos::from(b.position(env)));
        Ok(PyPosition {
            rules: self.rules,
            pos,
        })
    }

    /// The episode of game `env` so far as a Game (a copy, replayed from the start; the
    /// moves are kept with record_moves=True).
    fn game(&self, env: Int) -> PyResult<PyGame> {
        let env = self.env_index(env)?;
        let game = with_batch!(&self.batch, b => {
            let mut g = hoyito::Game::new(self.rules, *b.start());
            for &mv in b.moves(env) {
                g.play(mv).map_err(crate::errors::value_error)?;
            }
            AnyGame::from(g)
        });
        Ok(PyGame::of(game))
    }

    /// The agent's margin in game `env`: its captured seeds minus the opponent's since the
    /// start of the episode.
    fn margin(&self, env: Int) -> PyResult<i32> {
        let env = self.env_index(env)?;
        Ok(with_batch!(&self.batch, b => b.margin(env)))
    }

    /// The side to move in game `env`: 0 South, 1 North.
    fn to_move(&self, env: Int) -> PyResult<usize> {
        let env = self.env_index(env)?;
        Ok(with_batch!(&self.batch, b => b.position(env).side_to_move().index()))
    }

    /// Whether the game `env` is over.
    fn is_over(&self, env: Int) -> PyResult<bool> {
        let env = self.env_index(env)?;
        Ok(with_batch!(&self.batch, b => b.end(env).is_some()))
    }

    /// Plies played in the episode of game `env`.
    fn plies(&self, env: Int) -> PyResult<u32> {
        let env = self.env_index(env)?;
        Ok(with_batch!(&self.batch, b => b.plies(env)))
    }

    /// Episodes of each game ended so far (int64).
    fn episodes<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let n = self.num_envs();
        array1(py, n, |out| {
            with_batch!(&self.batch, b => for (i, x) in out.iter_mut().enumerate() {
                *x = b.episodes(i) as i64;
            })
        })
    }

    /// What info holds for game `env`: the action mask, the legal actions, the side to
    /// move, the margin and the end ("last-four", "no-moves", "repetition" or None). (The
    /// position is position(env): its notation costs more than the rest of a step.)
    fn info<'py>(&self, py: Python<'py>, env: Int) -> PyResult<Bound<'py, PyDict>> {
        let env = self.env_index(env)?;
        self.info_of(py, env)
    }

    fn __len__(&self) -> usize {
        self.num_envs()
    }

    fn __repr__(&self) -> String {
        format!("<Batch of {} games>", self.num_envs())
    }
}

impl PyBatch {
    /// The index of a game, checked.
    fn env_index(&self, env: Int) -> PyResult<usize> {
        let n = self.num_envs();
        let env: usize = env.count("env")?;
        if env < n {
            Ok(env)
        } else {
            Err(PyValueError::new_err(format!(
                "env {env} is out of range 0..{}",
                n - 1
            )))
        }
    }

    fn observation_of<'py>(&self, py: Python<'py>, env: usize) -> Bound<'py, PyArray1<i16>> {
        array1(py, self.observation_len(), |out| {
            with_batch!(&self.batch, b => {
                hoyito::batch::observe(&b.position(env), b.view(env), out)
            })
        })
    }

    fn info_of<'py>(&self, py: Python<'py>, env: usize) -> PyResult<Bound<'py, PyDict>> {
        let holes = self.rules.holes();
        let (mask, to_move, margin, end) = with_batch!(&self.batch, b => (
            b.mask(env),
            b.position(env).side_to_move().index(),
            b.margin(env),
            b.end(env).map(|e| e.tag()),
        ));
        // A new array at every step: Gymnasium asks that no two infos share data.
        let action_mask = array1(py, holes, |out: &mut [i8]| {
            for (k, x) in out.iter_mut().enumerate() {
                *x = i8::from(mask & (1 << k) != 0);
            }
        });
        let legal = match self.legal.get(usize::from(mask)) {
            Some(t) => t.bind(py).clone(),
            None => legal_actions(py, mask, holes)?,
        };
        let info = PyDict::new(py);
        info.set_item(intern!(py, "action_mask"), action_mask)?;
        info.set_item(intern!(py, "legal_actions"), legal)?;
        info.set_item(intern!(py, "current_player"), to_move)?;
        info.set_item(intern!(py, "margin"), margin)?;
        info.set_item(intern!(py, "end"), end)?;
        Ok(info)
    }

    /// (observation, reward, terminated, truncated, info) of game `env`'s last step.
    fn result<'py>(&self, py: Python<'py>, env: usize) -> PyResult<Bound<'py, PyTuple>> {
        let (reward, terminated, truncated) = with_batch!(&self.batch, b => (
            b.reward(env),
            b.terminated(env),
            b.truncated(env),
        ));
        PyTuple::new(
            py,
            [
                self.observation_of(py, env).into_any(),
                reward.into_pyobject(py)?.into_any(),
                pyo3::types::PyBool::new(py, terminated)
                    .to_owned()
                    .into_any(),
                pyo3::types::PyBool::new(py, truncated)
                    .to_owned()
                    .into_any(),
                self.info_of(py, env)?.into_any(),
            ],
        )
    }
}

/// The legal actions (hole - 1) of `mask` in order, as a tuple.
fn legal_actions(py: Python<'_>, mask: u16, holes: usize) -> PyResult<Bound<'_, PyTuple>> {
    let actions: Vec<u8> = (0..holes as u8).filter(|&k| mask & (1 << k) != 0).collect();
    PyTuple::new(py, actions)
}
