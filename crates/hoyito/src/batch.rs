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

/// A slot's filter of the positions seen: 512 bits.
type Filter = [u64; 8];

/// A position's key in a slot's history, and the two bits of its hash in the filter.
struct Seen<const W: usize> {
    packed: Option<u64>,
    bits: [(usize, u64); 2],
}

impl<const W: usize> Seen<W> {
    #[inline]
    fn of(p: &Position<W>) -> Self {
        let packed = p.packed_key();
        let h = match packed {
            Some(k) => k.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            None => p.key(),
        };
        let bit = |b: u64| ((b >> 6) as usize & 7, 1u64 << (b & 63));
        Seen {
            packed,
            bits: [bit(h >> 55), bit(h >> 46)],
        }
    }

    /// Whether the position may have been seen (both its bits set).
    #[inline]
    fn maybe_in(&self, seen: &Filter) -> bool {
        self.bits.iter().all(|&(w, b)| seen[w] & b != 0)
    }

    /// Whether the position is in the slot's history.
    #[inline]
    fn is_in(&self, s: &Slot<W>, p: &Position<W>) -> bool {
        match self.packed {
            Some(k) => s.history.contains(&k),
            None => s.wide.contains(&p.board_key()),
        }
    }

    /// Adds the position to the slot's history.
    #[inline]
    fn remember(&self, s: &mut Slot<W>, p: &Position<W>) {
        for &(w, b) in &self.bits {
            s.seen[w] |= b;
        }
        match self.packed {
            Some(k) => s.history.push(k),
            None => s.wide.push(p.board_key()),
        }
    }
}

/// Clears a slot's history (at a capture, or a new episode).
#[inline]
fn forget<const W: usize>(s: &mut Slot<W>) {
    s.history.clear();
    s.wide.clear();
    s.seen = [0; 8];
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
                    .chunks(CHUNK, games, setup.rules.holes())
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
        2 * self.rules.holes() + 2
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

    /// Writes the observation of every game, one after another, into `out`
    /// (`len() * observation_len()` values): the viewer's row (holes 1..H in sowing order),
    /// the other row, the viewer's captured seeds, the other side's.
    pub fn write_observations(&self, out: &mut [i16]) {
        let n = self.observation_len();
        for (s, o) in self.slots.iter().zip(out.chunks_exact_mut(n)) {
            self.setup().write_observation(s, o);
        }
    }

    /// Writes every game's legal actions into `out` (`len() * holes` values, row by row).
    pub fn write_masks(&self, out: &mut [bool]) {
        let h = self.rules.holes();
        for (s, o) in self.slots.iter().zip(out.chunks_exact_mut(h)) {
            write_mask(s, o);
        }
    }

    /// Writes the last step's rewards, terminations and truncations, and the side to move
    /// (0 South, 1 North) of every game.
    pub fn write_results(
        &self,
        rewards: &mut [f64],
        terminated: &mut [bool],
        truncated: &mut [bool],
        to_move: &mut [i8],
    ) {
        for (i, s) in self.slots.iter().enumerate() {
            write_result(s, i, rewards, terminated, truncated, to_move);
        }
    }
}

/// Where [`Batch::step_into`] writes the results of a step: `observations` and `masks` a
/// row a game (of [`Batch::observation_len`] and of holes values), the others a value a
/// game, as the `write_` methods of [`Batch`] write them.
pub struct StepOut<'a> {
    /// Observations, as [`Batch::write_observations`].
    pub observations: &'a mut [i16],
    /// Legal actions, as [`Batch::write_masks`].
    pub masks: &'a mut [bool],
    /// Rewards, as [`Batch::write_results`].
    pub rewards: &'a mut [f64],
    /// Terminations.
    pub terminated: &'a mut [bool],
    /// Truncations.
    pub truncated: &'a mut [bool],
    /// The side to move: 0 South, 1 North.
    pub to_move: &'a mut [i8],
}

impl<'a> StepOut<'a> {
    /// The rows of `rows` games at a time, in order (the last part may hold fewer), of a
    /// batch of `games` games of `holes` holes a row.
    fn chunks(self, rows: usize, games: usize, holes: usize) -> impl Iterator<Item = StepOut<'a>> {
        let n = self.observations.len() / games.max(1);
        let mut observations = self.observations.chunks_mut(rows * n);
        let mut masks = self.masks.chunks_mut(rows * holes);
        let mut rewards = self.rewards.chunks_mut(rows);
        let mut terminated = self.terminated.chunks_mut(rows);
        let mut truncated = self.truncated.chunks_mut(rows);
        let mut to_move = self.to_move.chunks_mut(rows);
        std::iter::from_fn(move || {
            Some(StepOut {
                observations: observations.next()?,
                masks: masks.next()?,
                rewards: rewards.next()?,
                terminated: terminated.next()?,
                truncated: truncated.next()?,
                to_move: to_move.next()?,
            })
        })
    }
}

/// Writes `s`'s legal actions into `out` (holes values).
#[inline]
fn write_mask<const W: usize>(s: &Slot<W>, out: &mut [bool]) {
    for (k, x) in out.iter_mut().enumerate() {
        *x = s.mask & (1 << k) != 0;
    }
}

/// Writes `s`'s reward, termination, truncation and side to move as value `i` of each.
#[inline]
fn write_result<const W: usize>(
    s: &Slot<W>,
    i: usize,
    rewards: &mut [f64],
    terminated: &mut [bool],
    truncated: &mut [bool],
    to_move: &mut [i8],
) {
    rewards[i] = f64::from(s.reward);
    terminated[i] = s.terminated;
    truncated[i] = s.truncated;
    to_move[i] = s.position.side_to_move().index() as i8;
}

impl<const W: usize> Setup<'_, W> {
    /// Writes `s`'s observation into `out`.
    #[inline]
    fn write_observation(&self, s: &Slot<W>, out: &mut [i16]) {
        observe(&s.position, view(self.options, &s.position), out);
    }

    /// Writes `s`'s results as row `row` of `out`.
    #[inline]
    fn write_row(&self, s: &Slot<W>, row: usize, out: &mut StepOut<'_>) {
        let (n, h) = (
            out.observations.len() / out.rewards.len(),
            self.rules.holes(),
        );
        self.write_observation(s, &mut out.observations[row * n..(row + 1) * n]);
        write_mask(s, &mut out.masks[row * h..(row + 1) * h]);
        let StepOut {
            rewards,
            terminated,
            truncated,
            to_move,
            ..
        } = out;
        write_result(s, row, rewards, terminated, truncated, to_move);
    }
}

/// The observation of `p` for `side`, written into `out` (`2H + 2` values).
pub fn observe<const W: usize>(p: &Position<W>, side: Side, out: &mut [i16]) {
    let h = p.holes();
    let (own, other) = match side {
        Side::South => (0, h),
        Side::North => (h, 0),
    };
    for k in 0..h {
        out[k] = i16::from(p.seeds(own + k));
        out[h + k] = i16::from(p.seeds(other + k));
    }
    out[2 * h] = i16::from(p.captured(side));
    out[2 * h + 1] = i16::from(p.captured(side.opponent()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::tests::sample_rules;
    use crate::setup::Rng;
    use hoyito_rules::{CaptureSide, End, Game, LastFour, Position12, Position6, Variant};

    /// Random legal actions for every game (any action where an episode just ended).
    fn random_actions<const W: usize>(batch: &Batch<W>, rng: &mut Rng) -> Vec<i64> {
        (0..batch.len())
            .map(|i| {
                let mask = batch.mask(i);
                if mask == 0 {
                    return 0;
                }
                let legal: Vec<i64> = (0..16).filter(|k| mask & (1 << k) != 0).collect();
                legal[rng.below(legal.len())]
            })
            .collect()
    }

    #[test]
    fn seeds_are_conserved_and_masks_are_the_legal_moves() {
        for rules in sample_rules() {
            let start = Position6::start(&rules).unwrap();
            let options = BatchOptions {
                opponent: Some(OpponentKind::Random),
                ..BatchOptions::default()
            };
            let mut batch = Batch::new(rules, start, 300, options, 1).unwrap();
            let mut rng = Rng(5);
            let total = rules.total_seeds() as u32;
            let mut obs = vec![0i16; batch.len() * batch.observation_len()];
            let mut masks = vec![false; batch.len() * rules.holes()];
            for _ in 0..60 {
                batch.step(&random_actions(&batch, &mut rng)).unwrap();
                batch.write_observations(&mut obs);
                batch.write_masks(&mut masks);
                let n = batch.observation_len();
                for i in 0..batch.len() {
                    let p = batch.position(i);
                    let seen: i32 = obs[i * n..(i + 1) * n].iter().map(|&x| x as i32).sum();
                    assert_eq!(seen as u32, total, "{rules} {p}");
                    let legal: Vec<bool> = (1..=rules.holes() as u8)
                        .map(|h| p.play(&rules, Move(h)).is_ok() && batch.end(i).is_none())
                        .collect();
                    let row = &masks[i * rules.holes()..(i + 1) * rules.holes()];
                    assert_eq!(row, &legal[..], "{rules} {p}");
                    // The agent (South) is to move wherever the game goes on.
                    if batch.end(i).is_none() {
                        assert_eq!(p.side_to_move(), Side::South);
                        assert_eq!(batch.view(i), Side::South);
                    }
                }
            }
            assert!((0..batch.len()).any(|i| batch.episodes(i) > 0));
        }
    }

    #[test]
    fn the_same_seed_plays_the_same_games() {
        let rules = Rules::default();
        let start = Position6::start(&rules).unwrap();
        let run = |seed: u64| {
            let options = BatchOptions {
                opponent: Some(OpponentKind::Random),
                ..BatchOptions::default()
            };
            let mut batch = Batch::new(rules, start, 300, options, seed).unwrap();
            let mut rng = Rng(9);
            let mut trace = Vec::new();
            for _ in 0..80 {
                batch.step(&random_actions(&batch, &mut rng)).unwrap();
                trace.extend((0..batch.len()).map(|i| (batch.position(i), batch.reward(i))));
            }
            trace
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }

    /// Plays 40 games of `rules` from `start` for 400 steps, both sides played by the
    /// caller, moves recorded: every episode is the game of its moves, ends where that game
    /// ends, and its rewards add up to its final margin. Returns the episodes that ended by
    /// repetition.
    fn games_equal_games<const W: usize>(rules: Rules, start: Position<W>) -> i32 {
        let options = BatchOptions {
            record_moves: true,
            ..BatchOptions::default()
        };
        let mut batch = Batch::new(rules, start, 40, options, 0).unwrap();
        let mut rng = Rng(2);
        let mut games: Vec<Game<W>> = (0..40).map(|_| Game::new(rules, start)).collect();
        let mut totals = [0; 40];
        let mut ends = [0; 3];
        for _ in 0..400 {
            let actions = random_actions(&batch, &mut rng);
            let finished: Vec<bool> = (0..40).map(|i| batch.terminated(i)).collect();
            batch.step(&actions).unwrap();
            for i in 0..40 {
                if finished[i] {
                    // The step started a new episode.
                    games[i] = Game::new(rules, start);
                    totals[i] = 0;
                    assert_eq!(batch.plies(i), 0);
                    assert_eq!(batch.position(i), games[i].position());
                    continue;
                }
                games[i].play(Move(actions[i] as u8 + 1)).unwrap();
                totals[i] += batch.reward(i);
                assert_eq!(batch.position(i), games[i].position(), "{rules}");
                assert_eq!(batch.moves(i), games[i].moves());
                assert_eq!(batch.terminated(i), games[i].is_over());
                let end = batch.end(i).map(|e| match e {
                    Ending::Repetition => End::Repetition,
                    _ => End::NoMoves,
                });
                assert_eq!(end, games[i].end());
                if let Some(e) = batch.end(i) {
                    ends[e as usize] += 1;
                    let p = games[i].position();
                    let m = p.captured(Side::South) as i32 - p.captured(Side::North) as i32;
                    assert_eq!(totals[i], m, "{rules}");
                }
            }
        }
        assert!(ends.iter().sum::<i32>() > 0, "{rules}");
        ends[Ending::Repetition as usize]
    }

    #[test]
    fn games_equal_games_of_the_same_moves() {
        // Histories of packed keys (2x6 and smaller, no hole above 31 seeds), of board keys
        // (2x8: no packed key), and of both (8 seeds a hole: 96 seeds, where a hole can hold
        // more than 31).
        let mut repetitions = [0; 3];
        for rules in sample_rules() {
            repetitions[0] += games_equal_games(rules, Position6::start(&rules).unwrap());
        }
        for variant in [Variant::Hoyito2, Variant::Hoyito3] {
            let rules = Rules::new(variant, 8, 3, LastFour::Capturer, CaptureSide::Any).unwrap();
            repetitions[1] += games_equal_games(rules, Position12::start(&rules).unwrap());
            let rules = Rules::new(variant, 6, 8, LastFour::Capturer, CaptureSide::Any).unwrap();
            repetitions[2] += games_equal_games(rules, Position6::start(&rules).unwrap());
        }
        assert!(repetitions.iter().all(|&r| r > 0), "{repetitions:?}");
    }

    #[test]
    fn a_random_opponent_plays_as_an_opponent_of_its_seed() {
        // Game i's opponent draws as Opponent::choose with seed + i, move for move.
        let rules = Rules::default();
        let start = Position6::start(&rules).unwrap();
        let options = BatchOptions {
            opponent: Some(OpponentKind::Random),
            record_moves: true,
            autoreset: false,
            ..BatchOptions::default()
        };
        let mut batch = Batch::new(rules, start, 3, options, 40).unwrap();
        let mut rng = Rng(1);
        for _ in 0..30 {
            if (0..3).any(|i| batch.end(i).is_some()) {
                break;
            }
            batch.step(&random_actions(&batch, &mut rng)).unwrap();
        }
        let mut north = 0;
        for i in 0..3 {
            let mut opponent = Opponent::new(rules, OpponentKind::Random, None, 40 + i).unwrap();
            let mut game = Game::new(rules, start);
            for &mv in batch.moves(i as usize) {
                let p = game.position();
                if p.side_to_move() == Side::North {
                    assert_eq!(opponent.choose(&p, None), Some(mv), "game {i} at {p}");
                    north += 1;
                }
                game.play(mv).unwrap();
            }
        }
        assert!(north >= 30, "{north}");
    }

    #[test]
    fn a_step_into_rows_writes_what_the_writers_write() {
        // Alone, in parallel parts (300 games: two of 128 and one of 44), with a random
        // opponent in each game and with one engine shared by the games.
        let rules = Rules::default();
        let start = Position6::start(&rules).unwrap();
        for (games, opponent) in [
            (1, None),
            (300, None),
            (300, Some(OpponentKind::Random)),
            (4, Some(OpponentKind::Level(1))),
        ] {
            // An engine's moves take longer.
            let steps = if games == 4 { 30 } else { 150 };
            let options = BatchOptions {
                opponent,
                max_plies: Some(60),
                ..BatchOptions::default()
            };
            let mut a = Batch::new(rules, start, games, options.clone(), 5).unwrap();
            let mut b = Batch::new(rules, start, games, options, 5).unwrap();
            let (n, h) = (a.observation_len(), rules.holes());
            let mut rng = Rng(3);
            for _ in 0..steps {
                let actions = random_actions(&a, &mut rng);
                a.step(&actions).unwrap();
                let mut want = (vec![0; games * n], vec![false; games * h]);
                a.write_observations(&mut want.0);
                a.write_masks(&mut want.1);
                let mut results = (vec![0.0; games], vec![false; games], vec![false; games]);
                let mut to_move = vec![0; games];
                a.write_results(&mut results.0, &mut results.1, &mut results.2, &mut to_move);
                let mut got = (vec![-1; games * n], vec![true; games * h]);
                let mut got_results = (vec![-1.0; games], vec![true; games], vec![true; games]);
                let mut got_to_move = vec![-1; games];
                b.step_into(
                    &actions,
                    StepOut {
                        observations: &mut got.0,
                        masks: &mut got.1,
                        rewards: &mut got_results.0,
                        terminated: &mut got_results.1,
                        truncated: &mut got_results.2,
                        to_move: &mut got_to_move,
                    },
                )
                .unwrap();
                assert_eq!(got, want, "{games} {opponent:?}");
                assert_eq!(got_results, results);
                assert_eq!(got_to_move, to_move);
            }
        }
    }

    #[test]
    fn steps_check_their_actions_first() {
        let rules = Rules::default();
        let start = Position6::parse(&rules, "0,4,4,4,4,4/4,4,4,4,4,4 S").unwrap();
        let options = BatchOptions {
            autoreset: false,
            max_plies: Some(2),
            ..BatchOptions::default()
        };
        let mut batch = Batch::new(rules, start, 2, options, 0).unwrap();
        assert_eq!(
            batch.step(&[1, 0]),
            Err(StepError::Illegal { env: 1, action: 0 })
        );
        assert_eq!(
            batch.step(&[1, 6]),
            Err(StepError::OutOfRange {
                env: 1,
                action: 6,
                holes: 6
            })
        );
        assert_eq!(
            batch.step(&[1]),
            Err(StepError::Count { given: 1, games: 2 })
        );
        // Nothing moved.
        assert_eq!(batch.position(0), start);
        batch.step(&[1, 1]).unwrap();
        let a = batch.mask(0).trailing_zeros() as i64;
        batch.step(&[a, a]).unwrap();
        assert!(batch.truncated(0) && !batch.terminated(0));
        assert_eq!(batch.step(&[a, a]), Err(StepError::Over { env: 0 }));
    }

    #[test]
    fn an_engine_opponent_answers_with_legal_moves() {
        let rules = Rules::default();
        let start = Position6::parse(&rules, "1,0,2,0,0,1/0,1,0,0,1,1 N").unwrap();
        let options = BatchOptions {
            opponent: Some(OpponentKind::Level(2)),
            player: Side::South,
            ..BatchOptions::default()
        };
        let mut batch = Batch::new(rules, start, 3, options, 0).unwrap();
        // The opponent (North) moved first.
        assert!((0..3).all(|i| batch.plies(i) > 0 || batch.end(i).is_some()));
        let mut rng = Rng(1);
        for _ in 0..300 {
            if (0..3).all(|i| batch.episodes(i) > 1) {
                break;
            }
            batch.step(&random_actions(&batch, &mut rng)).unwrap();
        }
        assert!((0..3).all(|i| batch.episodes(i) > 1));
    }
}
