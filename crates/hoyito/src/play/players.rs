//! The computer players of `solve play`: the engine at a level (or a fixed search), the
//! random player, and the analysis behind `hint`, `analyse` and `eval`.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hoyito_rules::{Move, Note, Position, Rules};
use hoyito_search::{Config, Limits, SearchResult, Searcher};
use hoyito_tables::Tables;

use crate::setup::Rng;

/// How strong the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    /// A level, 1 to 5 (see `Engine::level_limits`).
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

/// How long the perfect player (exact strength) searches for the exact value of a position
/// where the certificates prove only its own bound (after the other side left their
/// strategy), before it plays the certificates' move, which keeps that bound.
pub const PERFECT_SEARCH_MS: u64 = 10_000;

/// Depth and the margin (seeds below the best value) within which a level picks at random.
const LEVELS: [(u32, i32); 5] = [(2, 8), (4, 4), (6, 0), (10, 0), (14, 0)];

/// Milliseconds of a level-5 move where no exact search is quick.
const LEVEL5_TIME_MS: u64 = 3000;

/// Depth of the analysis (`hint`, `analyse`, `eval`) at a level, where no exact search is
/// quick.
const ANALYSIS_DEPTH: u32 = 10;

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

    /// The limits and the random margin of a move in `p` at `strength`: levels 1 and 2
    /// search 2 and 4 plies and pick at random among the moves within 8 and 4 seeds of the
    /// best; levels 3 and 4 search 6 and 10 plies, exactly inside the tables (level 4 also
    /// where an exact search is quick); level 5 searches exactly where that is quick (tables
    /// or a small component), else for 3 s.
    fn level_limits(player: &Player<W>, strength: Strength, p: &Position<W>) -> (Limits, i32) {
        let in_tables = p.seeds_on_board() <= player.table_seeds;
        match strength {
            Strength::Depth(d) => (Limits::depth(d), 0),
            Strength::TimeMs(t) => (Limits::time_ms(t), 0),
            Strength::Exact => (Limits::exact(), 0),
            Strength::Level(l) => {
                let (depth, margin) = LEVELS[(l.clamp(1, 5) - 1) as usize];
                let exact = match l {
                    1 | 2 => false,
                    3 => in_tables,
                    _ => in_tables || player.searcher.exact_is_quick(p),
                };
                if exact {
                    (Limits::exact(), 0)
                } else if l == 5 {
                    (Limits::time_ms(LEVEL5_TIME_MS), 0)
                } else {
                    (Limits::depth(depth), margin)
                }
            }
        }
    }

    /// Whether the search of `p` at `strength` may take long enough that a person wants to
    /// stop it: a search by time, or an exact search that is not quick (and not answered by
    /// the proofs).
    pub fn may_take_long(&mut self, strength: Strength, p: &Position<W>) -> bool {
        if strength == Strength::Exact && crate::strategy::proven_move(&self.rules, p).is_some() {
            return false;
        }
        let at = self.player(strength);
        let player = &self.players[at].1;
        let (limits, _) = Self::level_limits(player, strength, p);
        limits.time.is_some() || (limits.is_exact() && !player.searcher.exact_is_quick(p))
    }

    /// The move in `p` at `strength` (`None` when the side to move has none). Setting
    /// `stop` makes it move now: the move of the last finished iteration, or of the bounds
    /// proven so far (the shallow searches of levels 1 and 2 do not heed it).
    ///
    /// The exact strength plays perfectly: the proven move of the opening book or of the
    /// certificates ([`crate::strategy`]) where they know the value, else an exact search;
    /// where the certificates prove only the mover's own bound, that search gets
    /// [`PERFECT_SEARCH_MS`] (or until `stop`), and if it does not finish the certificates'
    /// move is played, which keeps the bound.
    pub fn choose(
        &mut self,
        rules: &Rules,
        p: &Position<W>,
        strength: Strength,
        stop: &AtomicBool,
    ) -> Option<Choice> {
        let start = Instant::now();
        let known = if strength == Strength::Exact {
            if let Some((mv, value)) = crate::strategy::proven_move(rules, p) {
                return Some(Choice {
                    mv: Move(mv),
                    note: Note {
                        value: Some(value),
                        exact: true,
                        best: Some(Move(mv)),
                        time_ms: Some(start.elapsed().as_millis() as u64),
                        text: "proven by the opening book or a certificate".to_string(),
                    },
                });
            }
            crate::strategy::lookup(rules, p).filter(|k| k.keep.is_some())
        } else {
            None
        };
        let at = self.player(strength);
        let player = &self.players[at].1;
        let (mut limits, margin) = Self::level_limits(player, strength, p);
        if known.is_some() {
            limits.time = Some(Duration::from_millis(PERFECT_SEARCH_MS));
        }
        let searcher = &player.searcher;
        // Each move from a clean table, so that a position gets the same move whatever came
        // before it (undo, hints, other games).
        searcher.clear();
        let (mv, value, exact, best) = if margin > 0 {
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
            (mv, top, false, best)
        } else {
            let r = searcher.search_controlled(p, &limits, stop, &|_| {});
            if let Some(k) = known.filter(|_| !r.exact) {
                // The certificates' move keeps the bound they prove for the mover.
                let bound = k.kept(p).unwrap_or(r.score);
                let own = match p.side_to_move() {
                    hoyito_rules::Side::South => bound,
                    hoyito_rules::Side::North => -bound,
                };
                let mv = Move(k.keep.unwrap_or_default());
                return Some(Choice {
                    mv,
                    note: Note {
                        value: Some(own),
                        exact: false,
                        best: Some(mv),
                        time_ms: Some(start.elapsed().as_millis() as u64),
                        text: format!("keeps the proven bound: at least {own} for the mover"),
                    },
                });
            }
            let mv = match r.best {
                Some(m) => m,
                None => p.moves(rules).children().first()?.mv,
            };
            (mv, r.score, r.exact, r.best)
        };
        Some(Choice {
            mv,
            note: Note {
                value: Some(value),
                exact,
                best,
                time_ms: Some(start.elapsed().as_millis() as u64),
                text: String::new(),
            },
        })
    }

    /// The limits of the analysis for the person: the engine's own search when one was
    /// chosen by depth, time or exactness; at a level, exact where that is quick (tables or a
    /// small component), else 10 plies.
    fn analysis_limits(&self, p: &Position<W>) -> Limits {
        match self.strength {
            Strength::Level(_) if self.analyst.exact_is_quick(p) => Limits::exact(),
            Strength::Level(_) => Limits::depth(ANALYSIS_DEPTH),
            Strength::Depth(d) => Limits::depth(d),
            Strength::TimeMs(t) => Limits::time_ms(t),
            Strength::Exact => Limits::exact(),
        }
    }

    /// The best move and value of `p` for its side to move (`hint`, `eval`), by the
    /// analysis policy: the proven value of the opening book or the certificates
    /// ([`crate::strategy`]) where they hold `p`, else the
    /// search (exact where that is quick, inside the tables, or at the chosen strength).
    pub fn analyse(&self, p: &Position<W>) -> SearchResult {
        let proven = crate::book::lookup(&self.rules, p)
            .map(|e| (e.best, e.value))
            .or_else(|| crate::strategy::certified_move(&self.rules, p).map(|(m, v)| (Some(m), v)));
        if let Some((best, value)) = proven {
            let best = best.map(Move);
            return SearchResult {
                best,
                score: value,
                exact: true,
                lower: value,
                upper: value,
                depth: 0,
                pv: best.into_iter().collect(),
                nodes: 0,
                seconds: 0.0,
                stopped: false,
            };
        }
        self.analyst.clear();
        self.analyst.search(p, &self.analysis_limits(p))
    }

    /// Every legal move of `p` with its value and whether that is exact (`analyse`).
    pub fn analyse_moves(&self, p: &Position<W>) -> Vec<(Move, i32, bool)> {
        self.analyst.clear();
        self.analyst.analyse_moves(p, &self.analysis_limits(p))
    }
}
