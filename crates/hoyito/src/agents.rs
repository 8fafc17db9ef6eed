//! Players for programs that learn to play: random games in batches ([`random_playouts`]),
//! seeded and run on all cores, and an [`Opponent`] that picks moves as a random player, as
//! the engine at a level, or as a perfect player (proven values where the opening book, the
//! certificates, the endgame tables or a quick exact search reach, else the engine's
//! strongest level). The
//! Python package's environment for learning agents stands on these.
//!
//! ```
//! use hoyito::agents::{random_playouts, Opponent, OpponentKind};
//! use hoyito::{Position6, Rules};
//!
//! let rules = Rules::default();
//! let start = Position6::start(&rules).unwrap();
//! let batch = random_playouts(&rules, &start, 100, 7);
//! assert_eq!(batch.margins.len(), 100);
//! // Every game ends, and the same seed plays the same games.
//! assert_eq!(batch.margins, random_playouts(&rules, &start, 100, 7).margins);
//!
//! let mut random = Opponent::<2>::new(rules, OpponentKind::Random, None, 1).unwrap();
//! let mv = random.choose(&start, None).unwrap();
//! assert!((1..=6).contains(&mv.0));
//! ```

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{bail, Result};
use hoyito_rules::{Child, Move, Position, Rules, Side, Status};
use hoyito_tables::Tables;
use rayon::prelude::*;

use crate::play::{Engine, Strength};
use crate::setup::Rng;

/// The results of a batch of random games, in the order of their seeds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Playouts {
    /// Each game's final margin: the seeds South captured minus North's, counted from the
    /// start position (its captured counts included).
    pub margins: Vec<i32>,
    /// Each game's length in plies (extra turns count, passes do not).
    pub plies: Vec<u32>,
}

impl Playouts {
    /// Moves played in all the games together.
    pub fn moves(&self) -> u64 {
        self.plies.iter().map(|&p| p as u64).sum()
    }
}

/// The seed of game `i` of a batch seeded with `seed`.
fn game_seed(seed: u64, i: usize) -> u64 {
    Rng(seed ^ (i as u64).wrapping_mul(0xd134_2543_de82_ef95)).next_u64()
}

/// Plays one game from `start` to its end, each move drawn uniformly from the legal ones
/// and told to `on_move`; returns the final position and the plies played. It ends where a
/// [`Game`](crate::Game) of the same moves ends (no moves left, the last four, or a repeated position)
/// and is faster: each move's result comes from the move list rather than being played
/// again, and a repetition is looked for only among the positions since the last capture
/// (a capture takes seeds off the board for good, so no earlier position can come back).
pub fn random_game<const W: usize>(
    rules: &Rules,
    start: &Position<W>,
    rng: &mut Rng,
    mut on_move: impl FnMut(Move),
) -> (Position<W>, u32) {
    let (mut p, status) = start.settle(rules);
    let mut plies = 0;
    if status == Status::Over {
        return (p, plies);
    }
    let mut since_capture = vec![p.board_key()];
    loop {
        let moves = p.moves(rules);
        let children = moves.children();
        // A settled position of a game that goes on has a legal move.
        let child = children[rng.below(children.len())];
        on_move(child.mv);
        plies += 1;
        let (next, status) = child.position.settle(rules);
        p = next;
        if status == Status::Over {
            break;
        }
        let key = p.board_key();
        if child.captured > 0 {
            since_capture.clear();
        } else if since_capture.contains(&key) {
            break;
        }
        since_capture.push(key);
    }
    (p, plies)
}

/// Plays `games` random games from `start` on all cores: game `i` draws its moves from a
/// generator seeded by `seed` and `i`, so the results depend on the seed alone.
pub fn random_playouts<const W: usize>(
    rules: &Rules,
    start: &Position<W>,
    games: usize,
    seed: u64,
) -> Playouts {
    let results: Vec<(i32, u32)> = (0..games)
        .into_par_iter()
        .map(|i| {
            let (end, plies) = random_game(rules, start, &mut Rng(game_seed(seed, i)), |_| {});
            let margin = end.captured(Side::South) as i32 - end.captured(Side::North) as i32;
            (margin, plies)
        })
        .collect();
    let (margins, plies) = results.into_iter().unzip();
    Playouts { margins, plies }
}

/// How an [`Opponent`] picks its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpponentKind {
    /// Uniformly among the legal moves.
    Random,
    /// The engine at a level, 1 (weakest) to 5, as `solve play --level` plays.
    Level(u8),
    /// The perfect player of every door ([`Strength::Exact`]): the proven best move where
    /// the opening book, the certificates ([`crate::strategy`]), the endgame tables or a
    /// proof within [`PERFECT_TIME_MS`](crate::policy::PERFECT_TIME_MS) reach; elsewhere
    /// the best estimate (the certificates' move where they prove its own bound, which keeps
    /// it).
    Perfect,
}

/// A computer player for programs that play against one: a random player, the engine at a
/// level, or a perfect player. It can move between threads (a front runs its searches on a
/// worker thread): each engine move is chosen by an [`Engine`] made for that move, which
/// clears its table before every move anyway.
pub struct Opponent<const W: usize> {
    rules: Rules,
    kind: OpponentKind,
    tables: Option<Arc<Tables>>,
    rng: Rng,
}

/// Transposition table of an engine move, in MiB: levels 1 to 4 search a few plies; the
/// perfect player's exact searches get more.
const LEVEL_HASH_MB: usize = 4;
const PERFECT_HASH_MB: usize = 16;

impl<const W: usize> Opponent<W> {
    /// An opponent for `rules`. `tables` is a folder of endgame tables (2x6 only; `None`:
    /// [`DEFAULT_TABLES_DIR`](crate::DEFAULT_TABLES_DIR) when built there); a perfect player
    /// on 2x6 with no tables stands on the layers up to 16 seeds of the user's cache (see
    /// [`cache`](crate::cache)), else builds those up to 12 seeds in memory. `seed` seeds its
    /// random choices. Its searches run on one thread.
    pub fn new(rules: Rules, kind: OpponentKind, tables: Option<&Path>, seed: u64) -> Result<Self> {
        if let OpponentKind::Level(l) = kind {
            if !(1..=5).contains(&l) {
                bail!("level must be between 1 and 5, not {l}");
            }
        }
        // The tables every door stands on: the files, else the small layers of the user's
        // cache (built there once), else those up to 12 seeds built in memory.
        let t = match kind {
            OpponentKind::Random => None,
            _ => crate::policy::tables(&rules, tables, false, rules.total_seeds(), true)?,
        };
        Ok(Opponent {
            rules,
            kind,
            tables: t,
            rng: Rng(seed),
        })
    }

    /// How it plays.
    pub fn kind(&self) -> OpponentKind {
        self.kind
    }

    /// Seeds on the board up to which its endgame tables answer (0: it has none).
    pub fn tables_max_seeds(&self) -> usize {
        self.tables.as_ref().map_or(0, |t| t.max_seeds())
    }

    /// A random opponent's move in `p` with its result, the same draw as
    /// [`Opponent::choose`] (for a caller that would play it next: no second sowing).
    /// `None` when the side to move has no legal move.
    ///
    /// The draw is uniform among the holes of the side to move that hold seeds, and only the
    /// hole drawn is sown: a hole whose sowing never ends is no move, and the draw is made
    /// again among the others. Each legal move is drawn with the same chance, at the cost
    /// of one sowing where sowing every hole to list the legal moves first costs one a hole.
    pub(crate) fn random_child(&mut self, p: &Position<W>) -> Option<Child<W>> {
        let side = p.side_to_move();
        let mut holes: u32 = (1..=p.holes())
            .filter(|&k| p.seeds_in(side, k) != 0)
            .fold(0, |m, k| m | 1 << (k - 1));
        while holes != 0 {
            // The `r`-th hole with seeds, counted from the first.
            let mut rest = holes;
            for _ in 0..self.rng.below(holes.count_ones() as usize) {
                rest &= rest - 1;
            }
            let k = rest.trailing_zeros() as usize + 1;
            match p.play(&self.rules, Move(k as u8)) {
                Ok(child) => return Some(child),
                Err(_) => holes &= !(1 << (k - 1)),
            }
        }
        None
    }

    /// Its move in `p` (`None` when the side to move has no legal move). Setting `stop` makes
    /// an engine move at once with what its search knows.
    pub fn choose(&mut self, p: &Position<W>, stop: Option<&AtomicBool>) -> Option<Move> {
        let never = AtomicBool::new(false);
        let stop = stop.unwrap_or(&never);
        let level = match self.kind {
            OpponentKind::Random => return self.random_child(p).map(|c| c.mv),
            OpponentKind::Level(l) => l,
            OpponentKind::Perfect => 0,
        };
        let hash_mb = if self.kind == OpponentKind::Perfect {
            PERFECT_HASH_MB
        } else {
            LEVEL_HASH_MB
        };
        let strength = match level {
            0 => Strength::Exact,
            l => Strength::Level(l),
        };
        let tables = self.tables.clone();
        let seed = self.rng.next_u64();
        let mut engine = Engine::<W>::new(self.rules, strength, tables, 1, hash_mb, seed);
        Some(engine.choose(&self.rules, p, strength, stop)?.mv)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use hoyito_rules::{CaptureSide, End, Game, LastFour, Position6, Variant};

    #[test]
    fn playouts_end_and_conserve_seeds() {
        let rules = Rules::default();
        let start = Position6::start(&rules).unwrap();
        let batch = random_playouts(&rules, &start, 200, 1);
        assert_eq!(batch.plies.len(), 200);
        assert!(batch.plies.iter().all(|&p| p > 0));
        // Captures come in fours, and no side takes more than the 48 seeds.
        assert!(batch.margins.iter().all(|m| m % 4 == 0 && m.abs() <= 48));
        // Another seed plays other games.
        assert_ne!(batch, random_playouts(&rules, &start, 200, 2));
        // Game 0 of the batch is the game its seed plays alone.
        let (_, alone) = random_game(&rules, &start, &mut Rng(game_seed(1, 0)), |_| {});
        assert_eq!(alone, batch.plies[0]);
    }

    #[test]
    fn random_games_end_where_a_game_of_their_moves_ends() {
        // Games that ended by repetition, and by a capture or no moves.
        let mut ends = [0; 2];
        for rules in sample_rules() {
            let start = Position6::start(&rules).unwrap();
            for seed in 0..150 {
                let mut moves = Vec::new();
                let (end, plies) = random_game(&rules, &start, &mut Rng(seed), |m| moves.push(m));
                let mut game = Game::new(rules, start);
                for (k, &m) in moves.iter().enumerate() {
                    assert!(
                        !game.is_over(),
                        "{rules}: seed {seed} went on after the end at {k}"
                    );
                    game.play(m).unwrap();
                }
                assert!(
                    game.is_over(),
                    "{rules}: seed {seed} stopped before the end"
                );
                assert_eq!(game.position(), end);
                assert_eq!(plies as usize, moves.len());
                ends[usize::from(game.end() != Some(End::Repetition))] += 1;
            }
        }
        assert!(ends.iter().all(|&n| n > 0), "{ends:?}");
    }

    /// Both variants, both capture sides, small and standard boards (the batch's tests use
    /// them too).
    pub(crate) fn sample_rules() -> Vec<Rules> {
        let mut out = Vec::new();
        for variant in [Variant::Hoyito2, Variant::Hoyito3] {
            for side in [CaptureSide::Any, CaptureSide::Opponent] {
                for (holes, seeds) in [(6, 4), (3, 2), (4, 3)] {
                    out.push(Rules::new(variant, holes, seeds, LastFour::Capturer, side).unwrap());
                }
            }
        }
        out
    }

    #[test]
    fn a_random_opponent_draws_every_legal_move_alike_and_never_an_endless_one() {
        // From data/conformance/endless.jsonl: hole 6 holds seeds and never ends.
        let rules = Rules::builder()
            .capture_side(CaptureSide::Opponent)
            .build()
            .unwrap();
        let p = Position6::parse(&rules, "2,1,0,2,1,3/1,0,1,0,1,0 S 20-16").unwrap();
        assert!(p.play(&rules, Move(6)).is_err());
        let legal = [1, 2, 4, 5];
        let mut o = Opponent::<2>::new(rules, OpponentKind::Random, None, 7).unwrap();
        let mut counts = [0u32; 7];
        let draws = 8000;
        for _ in 0..draws {
            let child = o.random_child(&p).unwrap();
            assert_eq!(Ok(child), p.play(&rules, child.mv), "the child of its move");
            counts[child.mv.hole()] += 1;
        }
        // Each legal move a quarter of the time: 2000 draws, sd about 39; 6 sd either way (a fixed seed: the same draws at
        // every run).
        for (k, &n) in counts.iter().enumerate().skip(1) {
            let want = if legal.contains(&k) { 1750..2250 } else { 0..1 };
            assert!(want.contains(&n), "hole {k} drawn {n} times");
        }
        // A side with no legal move: none.
        let stuck = Position6::parse(&rules, "0,0,0,0,0,0/1,2,0,0,1,1 S").unwrap();
        assert_eq!(o.random_child(&stuck), None);
    }

    #[test]
    fn opponents_play_legal_moves_and_perfect_keeps_the_value() {
        let rules = Rules::default();
        let p = Position6::parse(&rules, "4,0,1,0,0,1/0,0,0,0,1,1 S").unwrap();
        for kind in [
            OpponentKind::Random,
            OpponentKind::Level(1),
            OpponentKind::Level(3),
            OpponentKind::Perfect,
        ] {
            let mut o = Opponent::<2>::new(rules, kind, None, 3).unwrap();
            let mv = o.choose(&p, None).unwrap();
            assert!(p.play(&rules, mv).is_ok(), "{kind:?} played {mv}");
        }
        // The analysis proves this position worth 8 for South (crates/hoyito/src/analysis.rs):
        // the perfect player's move keeps it.
        let mut perfect = Opponent::<2>::new(rules, OpponentKind::Perfect, None, 0).unwrap();
        // 16 from the small tables cache, 12 built in memory where the cache is off.
        assert!(perfect.tables_max_seeds() >= 12);
        let child = p.play(&rules, perfect.choose(&p, None).unwrap()).unwrap();
        let options = crate::analysis::AnalysisOptions {
            no_tables: true,
            exact: true,
            ..Default::default()
        };
        let d: hoyito_rules::Diagram = child.position.to_string().parse().unwrap();
        let after = crate::analysis::analyse(&rules, Some(&d), &options).unwrap();
        assert_eq!(child.value(after.score), 8);
        // The start is answered from the opening book.
        let start = Position6::start(&rules).unwrap();
        assert_eq!(perfect.choose(&start, None), Some(Move(1)));
        assert!(Opponent::<2>::new(rules, OpponentKind::Level(6), None, 0).is_err());
    }

    #[test]
    fn opponents_and_playouts_move_between_threads() {
        fn send<T: Send>() {}
        send::<Opponent<2>>();
        send::<Opponent<4>>();
        send::<Playouts>();
    }
}
