//! The computer players of `solve play`: the engine at a level (or a fixed search), the
//! random player, and the analysis behind `hint`, `analyse` and `eval`.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::policy::{self, Ask, BookUse, Source, DEFAULT_TIME_MS, PERFECT_TIME_MS};

use hoyito_rules::{Move, Note, Position, Rules};
use hoyito_search::{Config, Limits, SearchResult, Searcher};
use hoyito_tables::Tables;

use crate::setup::Rng;

/// How strong the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    /// A level, 1 to 5 (see `Engine::level_ask`).
    Level(u8),
    /// A fixed search depth.
    Depth(u32),
    /// A fixed search time in milliseconds.
    TimeMs(u64),
    /// An exact search of every move.
    Exact,
}

impl Strength {
    /// The player's name in a record.
    pub fn name(&self) -> String {
        match self {
            Strength::Level(l) => format!("engine level {l}"),
            Strength::Depth(d) => format!("engine depth {d}"),
            Strength::TimeMs(t) => format!("engine {t} ms"),
            Strength::Exact => "engine exact".to_string(),
        }
    }
}

/// Depth and the margin (seeds below the best value) within which a level picks at random.
const LEVELS: [(u32, i32); 5] = [(2, 8), (4, 4), (6, 0), (10, 0), (14, 0)];

/// The engine of one game: a searcher for each strength that plays (the two sides may
/// play at different strengths) and one that analyses for the person (with the tables at
/// every level).
pub struct Engine<const W: usize> {
    rules: Rules,
    config: Config,
    tables: Option<Arc<Tables>>,
    /// The players met so far, by strength (made at their first move).
    players: Vec<(Strength, Player<W>)>,
    analyst: Searcher<W>,
    /// The strength whose searches the analysis follows (`--level`, `--depth`, ...).
    strength: Strength,
    rng: Rng,
}

/// The searcher of one strength.
struct Player<const W: usize> {
    searcher: Searcher<W>,
    /// Seeds on the board up to which its tables answer (0 without tables).
    table_seeds: u32,
}

/// A move the engine chose and what it knew.
pub struct Choice {
    /// The move.
    pub mv: Move,
    /// Value before it, exactness, best move and time.
    pub note: Note,
}

impl<const W: usize> Engine<W> {
    /// An engine for `rules` whose analysis for the person follows `strength`.
    pub fn new(
        rules: Rules,
        strength: Strength,
        tables: Option<Arc<Tables>>,
        threads: usize,
        hash_mb: usize,
        seed: u64,
    ) -> Self {
        let config = Config {
            threads,
            hash_mb,
            ..Config::default()
        };
        let tables = tables.filter(|t| t.max_seeds() > 0);
        let mut analyst = Searcher::<W>::new(rules, config);
        if let Some(t) = &tables {
            analyst = analyst.with_probe(Box::new(Arc::clone(t)));
        }
        Engine {
            rules,
            config,
            tables,
            players: Vec::new(),
            analyst,
            strength,
            rng: Rng(seed),
        }
    }

    /// The index in `players` of the player of `strength`, made at its first use.
    fn player(&mut self, strength: Strength) -> usize {
        match self.players.iter().position(|(s, _)| *s == strength) {
            Some(at) => at,
            None => {
                let mut searcher = Searcher::<W>::new(self.rules, self.config);
                let mut table_seeds = 0;
                // The two lowest levels play without the tables.
                if let Some(t) = self
                    .tables
                    .as_ref()
                    .filter(|_| !matches!(strength, Strength::Level(1 | 2)))
                {
                    table_seeds = t.max_seeds() as u32;
                    searcher = searcher.with_probe(Box::new(Arc::clone(t)));
                }
                let player = Player {
                    searcher,
                    table_seeds,
                };
                self.players.push((strength, player));
                self.players.len() - 1
            }
        }
    }

    /// The random generator of the seeded choices (shared with the random player).
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// What a move in `p` at `strength` asks of the policy ([`policy::decide`]), and the
    /// random margin: levels 1 and 2 search 2 and 4 plies and pick at random among the
    /// moves within 8 and 4 seeds of the best; levels 3 and 4 search 6 and 10 plies, exactly
    /// inside the tables (level 4 also where an exact search is quick); level 5 gives the
    /// default answer (proven where that is quick, else the best estimate in 3 s); the
    /// exact strength is the perfect player ([`Ask::perfect`]).
    fn level_ask(player: &Player<W>, strength: Strength, p: &Position<W>) -> (Ask, i32) {
        let in_tables = p.seeds_on_board() <= player.table_seeds;
        match strength {
            Strength::Depth(d) => (Ask::depth(d), 0),
            Strength::TimeMs(t) => (
                Ask {
                    time: Some(Duration::from_millis(t)),
                    ..Ask::default()
                },
                0,
            ),
            Strength::Exact => (Ask::perfect(PERFECT_TIME_MS), 0),
            Strength::Level(5) => (Ask::best(), 0),
            Strength::Level(l) => {
                let (depth, margin) = LEVELS[(l.clamp(1, 5) - 1) as usize];
                let exact = match l {
                    1 | 2 => false,
                    3 => in_tables,
                    _ => in_tables || player.searcher.exact_is_quick(p),
                };
                if exact {
                    (Ask::exact(), 0)
                } else {
                    (Ask::depth(depth), margin)
                }
            }
        }
    }

    /// Whether the search of `p` at `strength` may take long enough that a person wants to
    /// stop it: a search by time, or an exact search that is not quick (and not answered by
    /// the proofs).
    pub fn may_take_long(&mut self, strength: Strength, p: &Position<W>) -> bool {
        if crate::policy::proven(&self.rules, p).is_some() && strength != Strength::Level(1) {
            return false;
        }
        let at = self.player(strength);
        let player = &self.players[at].1;
        let (ask, _) = Self::level_ask(player, strength, p);
        let quick = player.searcher.exact_is_quick(p);
        ask.time.is_some() || (!ask.is_limited() && !quick)
    }

    /// The move in `p` at `strength` (`None` when the side to move has none), by the
    /// policy ([`policy::decide`]) with the strength's limits. Setting `stop` makes it move
    /// now: the move of the last finished iteration, or of the bounds proven so far (the
    /// shallow searches of levels 1 and 2 do not heed it).
    ///
    /// The exact strength plays perfectly where a proof settles the position within
    /// [`PERFECT_TIME_MS`]: the proven move of the opening book or of the certificates
    /// ([`crate::strategy`]), of the tables, or of a proof; elsewhere it says so in the
    /// note and plays the best estimate (the certificates' move where they prove the
    /// mover's bound, which keeps it).
    pub fn choose(
        &mut self,
        rules: &Rules,
        p: &Position<W>,
        strength: Strength,
        stop: &AtomicBool,
    ) -> Option<Choice> {
        let start = Instant::now();
        let at = self.player(strength);
        let player = &self.players[at].1;
        let (ask, margin) = Self::level_ask(player, strength, p);
        let searcher = &player.searcher;
        // Each move from a clean table, so that a position gets the same move whatever came
        // before it (undo, hints, other games).
        searcher.clear();
        if margin > 0 {
            let limits = Limits::depth(ask.depth.unwrap_or(1));
            let scored = searcher.analyse_moves(p, &limits);
            let top = scored.iter().map(|&(_, v, _)| v).max()?;
            let best = scored
                .iter()
                .find(|&&(_, v, _)| v == top)
                .map(|&(m, _, _)| m);
            let near: Vec<Move> = scored
                .iter()
                .filter(|&&(_, v, _)| v >= top - margin)
                .map(|&(m, _, _)| m)
                .collect();
            let mv = near[self.rng.below(near.len())];
            return Some(Choice {
                mv,
                note: Note {
                    value: Some(top),
                    exact: false,
                    best,
                    time_ms: Some(start.elapsed().as_millis() as u64),
                    text: String::new(),
                },
            });
        }
        let d = policy::decide(searcher, p, &ask, stop, &|_| {});
        let r = &d.result;
        let mv = match r.best {
            Some(m) => m,
            None => p.moves(rules).children().first()?.mv,
        };
        let text = match (&d.note, d.source) {
            (Some(note), _) => note.clone(),
            (None, Source::Book) => "proven by the opening book or a certificate".to_string(),
            (None, _) => String::new(),
        };
        Some(Choice {
            mv,
            note: Note {
                value: Some(r.score),
                exact: r.exact,
                best: r.best,
                time_ms: Some(start.elapsed().as_millis() as u64),
                text,
            },
        })
    }

    /// What the analysis for the person asks (`hint`, `eval`, `analyse`): the book first,
    /// then the engine's own search when one was chosen by depth or time (a scripted game
    /// repeats exactly), an exact one with the exact strength, and at a level `solve best`'s
    /// answer.
    fn analysis_ask(&self) -> Ask {
        let book = BookUse::Always;
        match self.strength {
            Strength::Level(_) => Ask::best(),
            Strength::Depth(d) => Ask {
                book,
                ..Ask::depth(d)
            },
            Strength::TimeMs(t) => Ask {
                time: Some(Duration::from_millis(t)),
                book,
                ..Ask::default()
            },
            Strength::Exact => Ask::exact(),
        }
    }

    /// The best move and value of `p` for its side to move (`hint`, `eval`), by the policy
    /// ([`policy::decide`]) with the analysis's limits.
    pub fn analyse(&self, p: &Position<W>) -> SearchResult {
        self.analyst.clear();
        let never = AtomicBool::new(false);
        policy::decide(&self.analyst, p, &self.analysis_ask(), &never, &|_| {}).result
    }

    /// Every legal move of `p` with its value and whether that is exact (`analyse`), after
    /// the policy's answer ([`policy::value_moves`]).
    pub fn analyse_moves(&self, p: &Position<W>) -> Vec<(Move, i32, bool)> {
        let main = self.analyse(p);
        let never = AtomicBool::new(false);
        let ask = self.analysis_ask();
        // The default answer's moves share its time; a depth asked keeps to it.
        let timed = ask.depth.is_none() && !main.exact;
        let until = ask
            .time
            .or(timed.then(|| Duration::from_millis(DEFAULT_TIME_MS)))
            .map(|t| Instant::now() + t);
        let (moves, _) = policy::value_moves(
            &self.analyst,
            p,
            &main,
            &policy::MovesBudget {
                proofs: !ask.is_limited(),
                until,
                nodes: None,
                book: true,
            },
            &never,
            &mut |_, _| {},
        );
        moves
            .into_iter()
            .map(|m| (Move(m.mv), m.score, m.exact))
            .collect()
    }
}
