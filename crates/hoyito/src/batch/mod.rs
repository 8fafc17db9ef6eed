//! Games stepped together, for programs that learn to play: a [`Batch`] of environments,
//! each a game from the same start in which a learning agent plays one side (or both)
//! against an opponent of [`crate::agents`]. One call steps every game: the agent's move,
//! the opponent's replies, the reward, the end of the episode and, where asked, a new
//! episode; the observations and the legal moves are written into flat buffers (the Python
//! package's vector environment writes them straight into numpy arrays).
//!
//! The games end where a [`Game`](crate::Game) of the same moves ends: no moves left (the
//! last four included) or a repeated position. A repetition is looked for only among the
//! positions since the last capture, as in [`crate::agents::random_game`]: a capture takes
//! seeds off the board for good, so no earlier position can come back.
//!
//! ```
//! use hoyito::batch::{Batch, BatchOptions};
//! use hoyito::{Position6, Rules};
//!
//! let rules = Rules::default();
//! let start = Position6::start(&rules).unwrap();
//! let mut batch = Batch::new(rules, start, 4, BatchOptions::default(), 7).unwrap();
//! // Every game plays its first legal move until all have ended once.
//! while (0..4).any(|i| batch.episodes(i) == 0) {
//!     let actions: Vec<i64> = (0..4)
//!         .map(|i| i64::from(batch.mask(i).trailing_zeros().min(5)))
//!         .collect();
//!     batch.step(&actions).unwrap();
//! }
//! ```

use std::fmt;
use std::path::PathBuf;

use anyhow::Result;
use hoyito_rules::{Child, Move, Position, Rules, Side, Status};
use rayon::prelude::*;

use crate::agents::{Opponent, OpponentKind};

mod history;
mod rows;

use history::{forget, Filter, Seen};
pub use rows::{observe, StepOut};

/// How the agent is rewarded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reward {
    /// Each step: the seeds the agent's side captured minus the opponent's since the last
    /// reward (the opponent's replies and the last four included).
    #[default]
    Captures,
    /// 0 until the episode ends, then the final margin.
    Margin,
}

/// Why an episode ended (its game's end, as a record names it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A capture left 4 seeds or fewer: they went to a player and the game is over.
    LastFour,
    /// Neither side has a legal move.
    NoMoves,
    /// A position (board and side to move) came back.
    Repetition,
}

impl Ending {
    /// The name a record gives it: "last-four", "no-moves" or "repetition".
    pub fn tag(self) -> &'static str {
        match self {
            Ending::LastFour => "last-four",
            Ending::NoMoves => "no-moves",
            Ending::Repetition => "repetition",
        }
    }
}

/// What every game of a batch is.
#[derive(Clone, Debug)]
pub struct BatchOptions {
    /// The learning agent's side.
    pub player: Side,
    /// Who plays the other side: `None` when the caller plays both sides (or plays the
    /// opponent's moves itself with [`Batch::play`], see `external`).
    pub opponent: Option<OpponentKind>,
    /// The endgame tables of an engine opponent (see [`Opponent::new`]).
    pub tables: Option<PathBuf>,
    /// How the agent is rewarded.
    pub reward: Reward,
    /// Episodes are truncated after this many plies (both sides' moves count).
    pub max_plies: Option<u32>,
    /// Whether a step of a game whose episode ended starts a new episode (and ignores its
    /// action), as Gymnasium's "next step" autoreset does; else such a step is an error. (An
    /// episode that ends as it starts, by the opponent's first moves, is reported by the
    /// step after its reset, which ignores its action too.)
    pub autoreset: bool,
    /// Whether the caller plays the opponent's moves (no `opponent`): observations are then
    /// the agent's, not those of the side to move.
    pub external: bool,
    /// Whether each game keeps the moves of its episode ([`Batch::moves`]).
    pub record_moves: bool,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            player: Side::South,
            opponent: None,
            tables: None,
            reward: Reward::Captures,
            max_plies: None,
            autoreset: true,
            external: false,
            record_moves: false,
        }
    }
}

/// A step that cannot be played. Nothing has changed in any game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepError {
    /// The number of actions is not the number of games.
    Count {
        /// Actions given.
        given: usize,
        /// Games in the batch.
        games: usize,
    },
    /// An action that is no hole of the board.
    OutOfRange {
        /// The game.
        env: usize,
        /// The action (hole - 1).
        action: i64,
        /// Holes a row.
        holes: usize,
    },
    /// An action that is not a legal move of the game.
    Illegal {
        /// The game.
        env: usize,
        /// The action (hole - 1).
        action: i64,
    },
    /// A game whose episode is over, in a batch without autoreset.
    Over {
        /// The game.
        env: usize,
    },
    /// The opponent found no move in a game that goes on.
    NoOpponentMove {
        /// The game.
        env: usize,
    },
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Count { given, games } => {
                write!(f, "{given} actions for {games} games")
            }
            StepError::OutOfRange { env, action, holes } => write!(
                f,
                "game {env}: action {action} is out of range 0..{}",
                holes - 1
            ),
            StepError::Illegal { env, action } => write!(
                f,
                "game {env}: action {action} (hole {}) is not a legal move",
                action + 1
            ),
            StepError::Over { env } => write!(f, "game {env}: the episode is over: reset it"),
            StepError::NoOpponentMove { env } => {
                write!(f, "game {env}: the opponent found no move")
            }
        }
    }
}

impl std::error::Error for StepError {}

/// One game of the batch and its episode.
struct Slot<const W: usize> {
    /// The current position, automatic passes applied.
    position: Position<W>,
    /// Its legal moves (bit `k - 1` for hole `k`); 0 once the game is over.
    mask: u16,
    /// The positions since the last capture: their packed keys, one word each
    /// ([`Position::packed_key`]: a 2x6 board while no hole holds more than 31 seeds)...
    history: Vec<u64>,
    /// ... and the board keys of those whose packed key does not fit.
    wide: Vec<[u64; W]>,
    /// A filter of the same positions (two bits a position, from its key's hash): a
    /// position with a bit clear was not seen, and the history is searched only when both
    /// are set (a batch of thousands of games keeps their histories out of the caches
    /// otherwise).
    seen: Filter,
    /// The moves of the episode (when recorded).
    moves: Vec<Move>,
    plies: u32,
    /// The margin rewarded so far.
    counted: i32,
    end: Option<Ending>,
    /// The last step's results.
    reward: i32,
    terminated: bool,
    truncated: bool,
    /// Episodes ended so far.
    episodes: u64,
    /// The random opponent of this game (an engine opponent is shared by the batch).
    opponent: Option<Opponent<W>>,
}

/// The mask of a position whose legal moves were not looked for (no board has 16 holes a
/// row).
const UNKNOWN: u16 = u16::MAX;

/// What a game needs to play a ply: the batch's settings.
struct Setup<'a, const W: usize> {
    rules: &'a Rules,
    start: &'a Position<W>,
    options: &'a BatchOptions,
}

impl<const W: usize> Setup<'_, W> {
    /// The position after the automatic pass of a side with no legal move, and its mask (0
    /// when neither side can move: the game is over, the position as it was).
    #[inline]
    fn settle(&self, p: Position<W>) -> (Position<W>, u16) {
        let mask = p.legal_mask(self.rules);
        if mask != 0 {
            return (p, mask);
        }
        let q = p.with_side_flipped();
        match q.legal_mask(self.rules) {
            0 => (p, 0),
            m => (q, m),
        }
    }

    /// Starts a new episode in `s`, the opponent's first moves included.
    fn reset(&self, s: &mut Slot<W>, shared: Option<&mut Opponent<W>>) -> Result<(), ()> {
        let (p, mask) = self.settle(*self.start);
        s.position = p;
        s.mask = mask;
        forget(s);
        Seen::of(&p).remember(s, &p);
        s.moves.clear();
        s.plies = 0;
        s.counted = 0;
        s.end = (mask == 0).then_some(Ending::NoMoves);
        s.reward = 0;
        s.terminated = false;
        s.truncated = false;
        self.opponent_moves(s, shared)
    }

    /// Plays the result of a legal move in `s`. Where the batch's opponent moves next, the
    /// legal moves are not looked for beyond what the automatic pass needs (the mask is
    /// [`UNKNOWN`] until the agent is to move).
    #[inline]
    fn apply(&self, s: &mut Slot<W>, child: &Child<W>) {
        s.plies += 1;
        if self.options.record_moves {
            s.moves.push(child.mv);
        }
        let q = child.position;
        let (p, mask) =
            if self.options.opponent.is_some() && q.side_to_move() != self.options.player {
                match q.settle(self.rules) {
                    (p, Status::Over) => (p, 0),
                    (p, Status::ToMove) if p.side_to_move() == self.options.player => {
                        (p, p.legal_mask(self.rules))
                    }
                    (p, Status::ToMove) => (p, UNKNOWN),
                }
            } else {
                self.settle(q)
            };
        s.position = p;
        s.mask = mask;
        if mask == 0 {
            s.end = Some(if child.ended_game {
                Ending::LastFour
            } else {
                Ending::NoMoves
            });
            return;
        }
        let seen = Seen::of(&p);
        if child.captured > 0 {
            forget(s);
        } else if seen.maybe_in(&s.seen) && seen.is_in(s, &p) {
            s.end = Some(Ending::Repetition);
            s.mask = 0;
        }
        seen.remember(s, &p);
    }

    /// The opponent plays until the agent is to move or the game is over.
    fn opponent_moves(&self, s: &mut Slot<W>, shared: Option<&mut Opponent<W>>) -> Result<(), ()> {
        // A random opponent lives in the slot: out of it while the slot changes.
        let mut own = s.opponent.take();
        let Some(opponent) = shared.or(own.as_mut()) else {
            return Ok(());
        };
        let mut out = Ok(());
        while s.end.is_none() && s.position.side_to_move() != self.options.player {
            let child = match opponent.kind() {
                OpponentKind::Random => opponent.random_child(&s.position),
                _ => opponent
                    .choose(&s.position, None)
                    .and_then(|mv| s.position.play(self.rules, mv).ok()),
            };
            match child {
                Some(c) => self.apply(s, &c),
                None => {
                    out = Err(());
                    break;
                }
            }
        }
        if s.mask == UNKNOWN {
            // Only where the opponent failed to move.
            s.mask = s.position.legal_mask(self.rules);
        }
        s.opponent = own;
        out
    }

    /// The margin of the agent's side since the start.
    fn margin(&self, p: &Position<W>) -> i32 {
        let m = |q: &Position<W>| q.captured(Side::South) as i32 - q.captured(Side::North) as i32;
        let south = m(p) - m(self.start);
        if self.options.player == Side::South {
            south
        } else {
            -south
        }
    }

    /// The results of the step that just ended in `s`.
    fn finish(&self, s: &mut Slot<W>) {
        s.terminated = s.end.is_some();
        s.truncated = !s.terminated && self.options.max_plies.is_some_and(|m| s.plies >= m);
        let end = s.terminated || s.truncated;
        s.reward = if self.options.reward == Reward::Margin && !end {
            0
        } else {
            let now = self.margin(&s.position);
            let r = now - s.counted;
            s.counted = now;
            r
        };
        if end {
            s.episodes += 1;
        }
    }

    /// One step of `s`: the agent's action (checked before), the opponent's replies, the
    /// results; a finished episode starts again instead when the batch resets.
    fn step(
        &self,
        s: &mut Slot<W>,
        action: i64,
        shared: Option<&mut Opponent<W>>,
    ) -> Result<(), ()> {
        if s.terminated || s.truncated {
            // Checked before: the batch resets its games.
            return self.reset(s, shared);
        }
        if s.end.is_some() {
            // The episode ended as it started (the opponent's first moves, or a start with
            // no moves): this step reports it.
            self.finish(s);
            return Ok(());
        }
        let mv = Move(action as u8 + 1);
        let child = s
            .position
            .play(self.rules, mv)
            .expect("an action checked legal");
        self.apply(s, &child);
        let out = self.opponent_moves(s, shared);
        self.finish(s);
        out
    }
}

/// Whose view an observation takes.
fn view<const W: usize>(options: &BatchOptions, p: &Position<W>) -> Side {
    if options.opponent.is_some() || options.external {
        options.player
    } else {
        p.side_to_move()
    }
}

/// Games below this many are stepped on the calling thread (a parallel step costs some
/// microseconds to start).
const PARALLEL_GAMES: usize = 256;

/// Games a parallel task steps.
const CHUNK: usize = 128;

/// Games stepped together (see the [module](self)).
pub struct Batch<const W: usize> {
    rules: Rules,
    start: Position<W>,
    options: BatchOptions,
    seed: u64,
    slots: Vec<Slot<W>>,
    /// An engine opponent, shared by the games (its tables are read once): the games are then
    /// stepped one after another, in order.
    shared: Option<Opponent<W>>,
}

impl<const W: usize> Batch<W> {
    /// `games` games from `start` under `options`, each at the start of its first episode.
    /// A random opponent of game `i` draws from a generator seeded with `seed + i` (the
    /// same moves as an [`Opponent`] made with that seed); an engine opponent, shared, is
    /// seeded with `seed`.
    pub fn new(
        rules: Rules,
        start: Position<W>,
        games: usize,
        options: BatchOptions,
        seed: u64,
    ) -> Result<Self> {
        let slot = || Slot {
            position: start,
            mask: 0,
            history: Vec::new(),
            wide: Vec::new(),
            seen: [0; 8],
            moves: Vec::new(),
            plies: 0,
            counted: 0,
            end: None,
            reward: 0,
            terminated: false,
            truncated: false,
            episodes: 0,
            opponent: None,
        };
        let mut batch = Batch {
            rules,
            start,
            options,
            seed,
            slots: (0..games).map(|_| slot()).collect(),
            shared: None,
        };
        batch.make_opponents(seed)?;
        batch.reset_all();
        Ok(batch)
    }

    /// Makes the opponents with `seed`.
    fn make_opponents(&mut self, seed: u64) -> Result<()> {
        self.seed = seed;
        match self.options.opponent {
            None => {}
            Some(OpponentKind::Random) => {
                for (i, s) in self.slots.iter_mut().enumerate() {
                    let seed = seed.wrapping_add(i as u64);
                    s.opponent = Some(Opponent::new(self.rules, OpponentKind::Random, None, seed)?);
                }
            }
            Some(kind) => {
                let tables = self.options.tables.as_deref();
                self.shared = Some(Opponent::new(self.rules, kind, tables, seed)?);
            }
        }
        Ok(())
    }

    fn setup(&self) -> Setup<'_, W> {
        Setup {
            rules: &self.rules,
            start: &self.start,
            options: &self.options,
        }
    }

    /// Starts a new episode in every game. With `seed`, the opponents are made again with
    /// it first (as [`Batch::new`] seeds them), except a perfect one, which needs no seed.
    pub fn reset(&mut self, seed: Option<u64>) -> Result<()> {
        if let Some(seed) = seed {
            if self.options.opponent != Some(OpponentKind::Perfect) {
                self.make_opponents(seed)?;
            }
        }
        self.reset_all();
        Ok(())
    }

    fn reset_all(&mut self) {
        let setup = Setup {
            rules: &self.rules,
            start: &self.start,
            options: &self.options,
        };
        for s in &mut self.slots {
            // An opponent always has a move where the game goes on.
            let _ = setup.reset(s, self.shared.as_mut());
        }
    }

    /// Starts the episodes from `start` from now on (at their next reset).
    pub fn set_start(&mut self, start: Position<W>) {
        self.start = start;
    }

    /// Steps every game with its action (hole - 1): the agent's move, then the
    /// opponent's until the agent is to move again or the game is over. A game whose
    /// episode ended at the last step starts a new one instead and ignores its action (with
    /// `autoreset`; else it is an error). Every action is checked before any game moves.
    pub fn step(&mut self, actions: &[i64]) -> std::result::Result<(), StepError> {
        self.step_rows(actions, None)
    }

    /// [`Batch::step`], writing every game's results into `out` as it goes (while its
    /// game is in the cache, on the thread that stepped it): the same rows as
    /// [`Batch::write_observations`], [`Batch::write_masks`] and [`Batch::write_results`]
    /// write after a step. Nothing is written when the step is refused.
    ///
    /// # Panics
    /// If a slice of `out` is not of its size for this batch.
    pub fn step_into(
        &mut self,
        actions: &[i64],
        out: StepOut<'_>,
    ) -> std::result::Result<(), StepError> {
        let games = self.slots.len();
        let (n, h) = (self.observation_len(), self.rules.holes());
        assert!(
            out.observations.len() == games * n
                && out.masks.len() == games * h
                && [out.rewards.len(), out.terminated.len()] == [games; 2]
                && [out.truncated.len(), out.to_move.len()] == [games; 2],
            "a step's output sized for another batch"
        );
        self.step_rows(actions, Some(out))
    }

    fn step_rows(
        &mut self,
        actions: &[i64],
        out: Option<StepOut<'_>>,
    ) -> std::result::Result<(), StepError> {
        self.check(actions)?;
        let setup = Setup {
            rules: &self.rules,
            start: &self.start,
            options: &self.options,
        };
        // Steps `slots` (the games from `first` on) with their actions, writing their rows
        // into `out` (theirs alone); the first game that failed.
        let run = |first: usize,
                   slots: &mut [Slot<W>],
                   actions: &[i64],
                   mut out: Option<StepOut<'_>>,
                   mut shared: Option<&mut Opponent<W>>| {
            let mut failed = None;
            for (k, (s, &a)) in slots.iter_mut().zip(actions).enumerate() {
                if setup.step(s, a, shared.as_deref_mut()).is_err() {
                    failed = failed.or(Some(first + k));
                }
                if let Some(out) = out.as_mut() {
                    setup.write_row(s, k, out);
                }
            }
            failed
        };
        let failed = if let Some(shared) = self.shared.as_mut() {
            run(0, &mut self.slots, actions, out, Some(shared))
        } else if self.slots.len() >= PARALLEL_GAMES {
            let games = self.slots.len();
            let mut outs: Vec<Option<StepOut<'_>>> = match out {
                Some(out) => out
                    .chunks(CHUNK, setup.observation_len(), setup.rules.holes())
                    .map(Some)
                    .collect(),
                None => (0..games.div_ceil(CHUNK)).map(|_| None).collect(),
            };
            self.slots
                .par_chunks_mut(CHUNK)
                .zip(actions.par_chunks(CHUNK))
                .zip(outs.par_iter_mut())
                .enumerate()
                .filter_map(|(c, ((slots, actions), out))| {
                    run(c * CHUNK, slots, actions, out.take(), None)
                })
                .min()
        } else {
            run(0, &mut self.slots, actions, out, None)
        };
        match failed {
            Some(env) => Err(StepError::NoOpponentMove { env }),
            None => Ok(()),
        }
    }

    /// Checks every action of a step.
    fn check(&self, actions: &[i64]) -> std::result::Result<(), StepError> {
        if actions.len() != self.slots.len() {
            return Err(StepError::Count {
                given: actions.len(),
                games: self.slots.len(),
            });
        }
        let holes = self.rules.holes();
        for (env, (s, &action)) in self.slots.iter().zip(actions).enumerate() {
            if s.terminated || s.truncated || s.end.is_some() {
                if self.options.autoreset {
                    continue;
                }
                return Err(StepError::Over { env });
            }
            if !(0..holes as i64).contains(&action) {
                return Err(StepError::OutOfRange { env, action, holes });
            }
            if s.mask & (1 << action) == 0 {
                return Err(StepError::Illegal { env, action });
            }
        }
        Ok(())
    }

    /// Plays one move (hole - 1 as `action`) in game `env`, for whichever side is to move,
    /// without the opponent's replies or the results: a caller that plays the opponent's
    /// moves itself plays them so, then calls [`Batch::finish`].
    pub fn play(&mut self, env: usize, action: i64) -> std::result::Result<(), StepError> {
        let holes = self.rules.holes();
        let s = &self.slots[env];
        if s.end.is_some() {
            return Err(StepError::Over { env });
        }
        if !(0..holes as i64).contains(&action) {
            return Err(StepError::OutOfRange { env, action, holes });
        }
        if s.mask & (1 << action) == 0 {
            return Err(StepError::Illegal { env, action });
        }
        let child = s
            .position
            .play(&self.rules, Move(action as u8 + 1))
            .map_err(|_| StepError::Illegal { env, action })?;
        let Batch {
            rules,
            start,
            options,
            slots,
            ..
        } = self;
        let setup = Setup {
            rules,
            start,
            options,
        };
        setup.apply(&mut slots[env], &child);
        Ok(())
    }

    /// Ends a step of game `env` played with [`Batch::play`]: its reward, whether it
    /// terminated or was truncated.
    pub fn finish(&mut self, env: usize) {
        let setup = Setup {
            rules: &self.rules,
            start: &self.start,
            options: &self.options,
        };
        setup.finish(&mut self.slots[env]);
    }

    /// Starts a new episode in game `env` alone (the opponent's first moves included).
    pub fn reset_game(&mut self, env: usize) {
        let setup = Setup {
            rules: &self.rules,
            start: &self.start,
            options: &self.options,
        };
        let _ = setup.reset(&mut self.slots[env], self.shared.as_mut());
    }

    /// Games in the batch.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the batch holds no game.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The rules played.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The start of every episode.
    pub fn start(&self) -> &Position<W> {
        &self.start
    }

    /// The settings.
    pub fn options(&self) -> &BatchOptions {
        &self.options
    }

    /// The seed the opponents were last made with.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Values an observation holds: both rows and both captured counts.
    pub fn observation_len(&self) -> usize {
        self.setup().observation_len()
    }

    /// The current position of game `env`.
    pub fn position(&self, env: usize) -> Position<W> {
        self.slots[env].position
    }

    /// The legal moves of game `env` (bit `k - 1` for hole `k`): none once its episode is
    /// over.
    pub fn mask(&self, env: usize) -> u16 {
        self.slots[env].mask
    }

    /// The moves of the current episode of game `env` (recorded with `record_moves`).
    pub fn moves(&self, env: usize) -> &[Move] {
        &self.slots[env].moves
    }

    /// Plies played in the current episode of game `env`.
    pub fn plies(&self, env: usize) -> u32 {
        self.slots[env].plies
    }

    /// Why the game `env` ended, or `None` while it goes on.
    pub fn end(&self, env: usize) -> Option<Ending> {
        self.slots[env].end
    }

    /// The last step's reward of game `env`.
    pub fn reward(&self, env: usize) -> i32 {
        self.slots[env].reward
    }

    /// Whether the last step of game `env` ended its episode (the game is over).
    pub fn terminated(&self, env: usize) -> bool {
        self.slots[env].terminated
    }

    /// Whether the last step of game `env` cut its episode at `max_plies`.
    pub fn truncated(&self, env: usize) -> bool {
        self.slots[env].truncated
    }

    /// Episodes of game `env` ended so far.
    pub fn episodes(&self, env: usize) -> u64 {
        self.slots[env].episodes
    }

    /// The agent's margin in game `env` since the start of the episode.
    pub fn margin(&self, env: usize) -> i32 {
        self.setup().margin(&self.slots[env].position)
    }

    /// The side whose view the observation of game `env` takes: the agent's when an
    /// opponent plays the other side, else the side to move.
    pub fn view(&self, env: usize) -> Side {
        view(&self.options, &self.slots[env].position)
    }
}

#[cfg(test)]
mod tests;
