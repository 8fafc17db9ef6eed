//! # hoyito-search
//!
//! Best move and value of a Hoyito position: negamax alpha-beta with principal-variation
//! windows and iterative deepening, a transposition table shared by all threads (Lazy SMP),
//! and an exact mode that proves the game value under the rules' `Values` section: net future
//! captures for the side to move, extra turns as same-side plies, endless play worth 0.
//!
//! ```
//! use hoyito_rules::{Position6, Rules};
//! use hoyito_search::{Config, Limits, Searcher};
//!
//! let rules = Rules::default();
//! let p = Position6::parse(&rules, "4,0,1,0,0,1/0,0,0,0,1,1 S").unwrap();
//! let searcher = Searcher::new(rules, Config::default());
//! let r = searcher.search(&p, &Limits::exact());
//! assert!(r.exact);
//! assert_eq!(r.score, 8);
//! ```
#![deny(missing_docs)]

mod eval;
mod plain;
mod retro;
mod search;
mod tt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hoyito_rules::{Move, Position, Rules};

pub use eval::Eval;
pub use plain::plain_search;
pub use tt::{AtomicTable, Bound, Entry, MapTable, Table, PROVEN};

use retro::Retro;
use search::{Shared, Worker, INFINITE};

/// An oracle that knows exact values of small positions (an endgame table).
///
/// The search asks it about every position whose seeds on the board are at most
/// [`Probe::max_seeds`] and treats an answer as the exact value.
pub trait Probe<const W: usize>: Sync {
    /// The exact value of `p` for its side to move, if known.
    fn probe(&self, p: &Position<W>) -> Option<i32>;
    /// The most seeds on the board of the positions this oracle may know.
    fn max_seeds(&self) -> u32;
}

/// When a search stops. Without any limit a search runs until it proves the value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration of a depth-limited search (plies; extra turns count).
    pub depth: Option<u32>,
    /// Wall-clock time.
    pub time: Option<Duration>,
    /// Nodes, all threads together (checked every 1024 nodes of a thread).
    pub nodes: Option<u64>,
    /// Search to the end of the game and return the proven value.
    pub exact: bool,
}

impl Limits {
    /// An exact search with no other limit.
    pub fn exact() -> Self {
        Limits {
            exact: true,
            ..Limits::default()
        }
    }
    /// A depth-limited search to `depth` plies.
    pub fn depth(depth: u32) -> Self {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }
    /// A depth-limited search for `ms` milliseconds.
    pub fn time_ms(ms: u64) -> Self {
        Limits {
            time: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }
}

/// Which transposition table to use (both are measured in `solve bench`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TableKind {
    /// Fixed-size lockless table of packed atomic entries (the default: faster).
    #[default]
    Atomic,
    /// `DashMap` keyed by the exact board.
    Map,
}

/// How a [`Searcher`] searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Search threads (at least 1). With 1 thread a search is deterministic.
    pub threads: usize,
    /// Transposition table size in mebibytes.
    pub hash_mb: usize,
    /// Transposition table design.
    pub table: TableKind,
    /// Evaluation at the horizon of depth-limited searches.
    pub eval: Eval,
    /// Seeds on the board up to which exact mode solves cycle components by retrograde
    /// analysis. `None` picks by board size; `Some(0)` leaves exact mode to alpha-beta alone
    /// (for tests and measurements: it is far slower on positions with long cycles).
    pub retrograde_seeds: Option<u32>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            threads: 1,
            hash_mb: 64,
            table: TableKind::Atomic,
            eval: Eval::default(),
            retrograde_seeds: None,
        }
    }
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The best move, or `None` when the side to move must pass or the game is over.
    pub best: Option<Move>,
    /// Score of the best move for the side to move: net future captures (estimated unless
    /// `exact`).
    pub score: i32,
    /// Whether `score` is the proven game value.
    pub exact: bool,
    /// Proven bounds on the value (`lower == upper` when exact).
    pub lower: i32,
    /// See `lower`.
    pub upper: i32,
    /// Depth of the last completed iteration (for an exact search, the deepest ply reached).
    pub depth: u32,
    /// The principal variation, starting with `best` (moves of both sides, extra turns
    /// included, passes left out).
    pub pv: Vec<Move>,
    /// Nodes searched, all threads together.
    pub nodes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Whether the search ended by a limit (time or nodes) before finishing its task.
    pub stopped: bool,
}

enum AnyTable<const W: usize> {
    Atomic(AtomicTable),
    Map(MapTable<W>),
}

/// A search engine for positions of one size, holding its transposition table between
/// searches.
pub struct Searcher<const W: usize> {
    rules: Rules,
    config: Config,
    table: AnyTable<W>,
    probe: Option<Box<dyn Probe<W>>>,
    retro: Mutex<Retro<W>>,
}

/// Most positions in one component that exact mode solves by retrograde analysis (about
/// 100 bytes each while it is solved).
const RETRO_CAP: usize = 3_000_000;

/// What one thread's driver produced.
#[derive(Clone, Debug)]
struct ThreadResult {
    best: Option<Move>,
    score: i32,
    exact: bool,
    lower: i32,
    upper: i32,
    depth: u32,
    stopped: bool,
}

impl<const W: usize> Searcher<W> {
    /// A searcher for `rules` (positions must have been built for the same rules).
    pub fn new(rules: Rules, config: Config) -> Self {
        let table = match config.table {
            TableKind::Atomic => AnyTable::Atomic(AtomicTable::new(config.hash_mb)),
            TableKind::Map => AnyTable::Map(MapTable::new(config.hash_mb)),
        };
        Searcher {
            rules,
            config: Config {
                threads: config.threads.max(1),
                ..config
            },
            table,
            probe: None,
            retro: Mutex::new(Retro::new(rules, RETRO_CAP)),
        }
    }

    /// Adds an oracle of exact values for small positions.
    pub fn with_probe(mut self, probe: Box<dyn Probe<W>>) -> Self {
        self.probe = Some(probe);
        self
    }

    /// The rules searched.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Forgets every stored result (a later search then repeats its node count exactly).
    pub fn clear(&self) {
        match &self.table {
            AnyTable::Atomic(t) => Table::<W>::clear(t),
            AnyTable::Map(t) => t.clear(),
        }
    }

    /// Searches `p` within `limits`.
    pub fn search(&self, p: &Position<W>, limits: &Limits) -> SearchResult {
        match &self.table {
            AnyTable::Atomic(t) => self.search_with(t, p, limits),
            AnyTable::Map(t) => self.search_with(t, p, limits),
        }
    }

    /// Searches every legal move of `p` within `limits` (each child gets the limits;
    /// the table is shared). Returns each move with its score and whether that is exact.
    pub fn analyse_moves(&self, p: &Position<W>, limits: &Limits) -> Vec<(Move, i32, bool)> {
        let child_limits = Limits {
            depth: limits.depth.map(|d| d.saturating_sub(1).max(1)),
            ..*limits
        };
        p.moves(&self.rules)
            .children()
            .iter()
            .map(|c| {
                let g = c.gain as i32;
                if c.ended_game {
                    return (c.mv, g, true);
                }
                // Each child is a new game: the repetition history starts at the child.
                let r = self.search(&c.position, &child_limits);
                let s = if c.extra_turn {
                    g + r.score
                } else {
                    g - r.score
                };
                (c.mv, s, r.exact)
            })
            .collect()
    }

    /// Whether an exact search of `p` is expected to finish quickly (its seeds on the board
    /// are few enough for retrograde analysis of its component).
    pub fn exact_is_quick(&self, p: &Position<W>) -> bool {
        p.seeds_on_board() <= self.retro_seeds().max(self.probe_seeds())
    }

    /// Seeds on the board up to which the oracle (endgame tables) answers; 0 without one.
    fn probe_seeds(&self) -> u32 {
        self.probe.as_ref().map_or(0, |o| o.max_seeds())
    }

    /// Seeds on the board up to which exact mode tries retrograde analysis: components of
    /// positions with more seeds are too large on the boards played.
    fn retro_seeds(&self) -> u32 {
        if let Some(s) = self.config.retrograde_seeds {
            return s;
        }
        match self.rules.holes() {
            0..=4 => 24,
            5..=6 => 12,
            7..=8 => 8,
            _ => 4,
        }
    }

    fn retro_len(&self) -> usize {
        self.retro.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Exact value, best move and a principal variation by retrograde analysis, if the
    /// components involved fit the cap.
    fn solve_retro(&self, root: &Position<W>) -> Option<(Option<Move>, i32, Vec<Move>)> {
        let mut retro = self.retro.lock().unwrap_or_else(|e| e.into_inner());
        self.solve_by(root, |p| retro.value(p))
    }

    /// Exact value, best move and a principal variation from the oracle, if it covers `root`
    /// (every position reached without a capture has the same seeds, and captures only
    /// lower them, so the whole line stays within the oracle).
    fn solve_probe(&self, root: &Position<W>) -> Option<(Option<Move>, i32, Vec<Move>)> {
        let o = self.probe.as_deref()?;
        if root.seeds_on_board() > o.max_seeds() {
            return None;
        }
        self.solve_by(root, |p| if p.is_live() { o.probe(p) } else { Some(0) })
    }

    /// Exact value, best move and a principal variation given an exact value function: the
    /// line follows moves that keep the value (captures first), while no position repeats.
    fn solve_by(
        &self,
        root: &Position<W>,
        mut value: impl FnMut(&Position<W>) -> Option<i32>,
    ) -> Option<(Option<Move>, i32, Vec<Move>)> {
        let score = value(root)?;
        let mut pv = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut p = *root;
        let mut best = None;
        while pv.len() < 64 && seen.insert(p.board_key()) {
            let v = value(&p)?;
            let mut chosen = None;
            for c in p.moves(&self.rules).children() {
                let g = c.gain as i32;
                let s = if c.ended_game {
                    g
                } else if c.extra_turn {
                    g + value(&c.position)?
                } else {
                    -value(&c.position)?
                };
                // Among the moves that keep the value, a capture first: it cashes part of
                // the value at once, where a quiet move that keeps it may go round a cycle.
                if s == v {
                    if c.extra_turn {
                        chosen = Some(*c);
                        break;
                    }
                    chosen.get_or_insert(*c);
                }
            }
            let Some(c) = chosen else { break };
            if best.is_none() {
                best = Some(c.mv);
            }
            pv.push(c.mv);
            if c.ended_game {
                break;
            }
            let (q, status) = c.position.settle(&self.rules);
            if status == hoyito_rules::Status::Over {
                break;
            }
            p = q;
        }
        Some((best, score, pv))
    }

    fn search_with<T: Table<W>>(&self, t: &T, root: &Position<W>, limits: &Limits) -> SearchResult {
        let start = Instant::now();
        t.new_search();
        let stop = AtomicBool::new(false);
        let nodes = AtomicU64::new(0);
        let shared = Shared {
            rules: self.rules,
            table: t,
            probe: self.probe.as_deref(),
            eval: self.config.eval,
            stop: &stop,
            nodes: &nodes,
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            deadline: limits.time.map(|d| start + d),
            retro: Some(&self.retro),
            retro_seeds: self.retro_seeds(),
        };
        let rules = self.rules;

        // Passes at the root: search the board with the other side to move and negate.
        let (sign, root_pos) = if root.has_legal_move(&rules) {
            (1, *root)
        } else {
            let q = root.with_side_flipped();
            if !q.has_legal_move(&rules) || !root.is_live() {
                return SearchResult {
                    best: None,
                    score: 0,
                    exact: true,
                    lower: 0,
                    upper: 0,
                    depth: 0,
                    pv: Vec::new(),
                    nodes: 1,
                    seconds: start.elapsed().as_secs_f64(),
                    stopped: false,
                };
            }
            (-1, q)
        };

        let exact = limits.exact || (limits.depth.is_none() && limits.time.is_none());
        if exact {
            let solved = self.solve_probe(&root_pos).or_else(|| {
                (root_pos.seeds_on_board() <= self.retro_seeds())
                    .then(|| self.solve_retro(&root_pos))
                    .flatten()
            });
            if let Some(r) = solved {
                let (best, score, pv) = r;
                return SearchResult {
                    best: if sign == 1 { best } else { None },
                    score: sign * score,
                    exact: true,
                    lower: sign * score,
                    upper: sign * score,
                    depth: pv.len() as u32,
                    pv: if sign == 1 { pv } else { Vec::new() },
                    nodes: self.retro_len() as u64,
                    seconds: start.elapsed().as_secs_f64(),
                    stopped: false,
                };
            }
        }

        let threads = self.config.threads;
        let done: Mutex<Option<ThreadResult>> = Mutex::new(None);
        let max_ply = AtomicU64::new(0);
        let run = |id: usize| {
            let mut w = Worker::new(&shared, id);
            let r = if limits.exact || (limits.depth.is_none() && limits.time.is_none()) {
                drive_exact(&mut w, &root_pos)
            } else {
                drive_iterative(&mut w, &root_pos, limits, start)
            };
            w.flush();
            max_ply.fetch_max(w.max_ply as u64, Ordering::Relaxed);
            // The first exact result ends the search (every exact result is the same
            // value); otherwise only the main thread's result counts.
            if id == 0 || (r.exact && !r.stopped) {
                let mut d = done.lock().unwrap_or_else(|e| e.into_inner());
                if !matches!(d.as_ref(), Some(old) if old.exact && !old.stopped) {
                    *d = Some(r);
                }
                stop.store(true, Ordering::Relaxed);
            }
        };
        let run = &run;
        let result = std::thread::scope(|s| {
            let handles: Vec<_> = (1..threads)
                .filter_map(|id| {
                    std::thread::Builder::new()
                        .stack_size(STACK)
                        .spawn_scoped(s, move || run(id))
                        .ok()
                })
                .collect();
            let main = std::thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(s, move || run(0));
            match main {
                Ok(h) => {
                    let _ = h.join();
                }
                Err(_) => run(0),
            }
            stop.store(true, Ordering::Relaxed);
            for h in handles {
                let _ = h.join();
            }
            done.lock().unwrap_or_else(|e| e.into_inner()).take()
        });
        let r = result.unwrap_or(ThreadResult {
            best: None,
            score: 0,
            exact: false,
            lower: -(root_pos.seeds_on_board() as i32),
            upper: root_pos.seeds_on_board() as i32,
            depth: 0,
            stopped: true,
        });
        // Never return an illegal move: fall back to the first legal one.
        let legal = root_pos.moves(&rules);
        let best = match r.best {
            Some(m) if legal.get(m).is_some() => Some(m),
            _ => legal.children().first().map(|c| c.mv),
        };
        let pv = if sign == 1 {
            principal_variation(&rules, t, &root_pos, best)
        } else {
            Vec::new()
        };
        let (lower, upper) = if sign == 1 {
            (r.lower, r.upper)
        } else {
            (-r.upper, -r.lower)
        };
        SearchResult {
            best: if sign == 1 { best } else { None },
            score: sign * r.score,
            exact: r.exact,
            lower,
            upper,
            depth: if limits.exact || (limits.depth.is_none() && limits.time.is_none()) {
                max_ply.load(Ordering::Relaxed) as u32
            } else {
                r.depth
            },
            pv,
            nodes: nodes.load(Ordering::Relaxed),
            seconds: start.elapsed().as_secs_f64(),
            stopped: r.stopped,
        }
    }
}

/// Stack of a search thread: exact searches may follow long cycles of non-capturing moves
/// (the memory is reserved, not used, until a search goes that deep).
const STACK: usize = 1 << 30;

/// Exact search: null-window tests that halve the interval of possible values, as in
/// exact Connect-4 solvers. The first tests are near 0, where most values lie.
fn drive_exact<const W: usize, T: Table<W>>(
    w: &mut Worker<'_, '_, W, T>,
    root: &Position<W>,
) -> ThreadResult {
    let n = root.seeds_on_board() as i32;
    let (mut lo, mut hi) = (-n, n);
    let mut best = None;
    while lo < hi {
        let mut med = lo + (hi - lo) / 2;
        if med <= 0 && lo / 2 < med {
            med = lo / 2;
        } else if med >= 0 && hi / 2 > med {
            med = hi / 2;
        }
        w.root_best = None;
        w.exact = true;
        w.reset_pending();
        let (r, _) = w.search(root, INFINITE, med, med + 1, 0);
        if w.stopped {
            break;
        }
        if r > med {
            lo = r.min(hi);
            best = w.root_best;
        } else {
            hi = r.max(lo);
        }
    }
    ThreadResult {
        best,
        score: if lo == hi { lo } else { lo.max(0).min(hi) },
        exact: lo == hi,
        lower: lo,
        upper: hi,
        depth: 0,
        stopped: w.stopped,
    }
}

/// Depth-limited search: iterative deepening with principal-variation windows. Stops early
/// when an iteration used no heuristic value (the result is then proven).
fn drive_iterative<const W: usize, T: Table<W>>(
    w: &mut Worker<'_, '_, W, T>,
    root: &Position<W>,
    limits: &Limits,
    start: Instant,
) -> ThreadResult {
    let n = root.seeds_on_board() as i32;
    let max_depth = limits.depth.unwrap_or(250).clamp(1, 250) as i32;
    let mut out = ThreadResult {
        best: None,
        score: 0,
        exact: false,
        lower: -n,
        upper: n,
        depth: 0,
        stopped: false,
    };
    // Every thread starts at depth 1: helpers differ by their root move order. Starting odd
    // helpers a ply deeper was measured slower (2x12 bench, depth 14, 2 threads: 6.2 s
    // against 5.5 s).
    for d in 1..=max_depth {
        w.root_best = None;
        let h0 = w.heuristic;
        let (s, _) = w.search(root, d, -n, n, 0);
        if w.stopped {
            out.stopped = true;
            break;
        }
        out.best = w.root_best;
        out.score = s;
        out.depth = d as u32;
        if w.heuristic == h0 {
            out.exact = true;
            out.lower = s;
            out.upper = s;
            break;
        }
        // An iteration takes several times the previous one: do not start one that cannot
        // finish.
        if let Some(t) = limits.time {
            if w.id == 0 && start.elapsed() * 5 > t * 2 {
                break;
            }
        }
    }
    out
}

/// Follows the table's best moves from `root` (first `best`) while they are legal and no
/// position repeats.
fn principal_variation<const W: usize, T: Table<W>>(
    rules: &Rules,
    t: &T,
    root: &Position<W>,
    best: Option<Move>,
) -> Vec<Move> {
    let mut pv = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut p = *root;
    let mut next = best;
    while let Some(m) = next {
        if pv.len() >= 64 || !seen.insert(p.board_key()) {
            break;
        }
        let Ok(c) = p.play(rules, m) else { break };
        pv.push(m);
        if c.ended_game {
            break;
        }
        let (q, status) = c.position.settle(rules);
        if status == hoyito_rules::Status::Over {
            break;
        }
        p = q;
        next = t
            .probe(&p, p.key())
            .filter(|e| e.mv != 0)
            .map(|e| Move(e.mv));
    }
    pv
}
