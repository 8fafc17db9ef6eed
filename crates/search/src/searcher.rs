//! The [`Searcher`]: it holds the transposition table between searches, answers small
//! positions from the oracles, and otherwise runs the search threads, each with a driver
//! (null-window bisection for an exact value, iterative deepening for a limited search).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hoyito_rules::{Move, Position, Probe, Rules};

use crate::alphabeta::{poll_interval, Shared, Worker, INFINITE};
use crate::config::{Config, ExactMethod, TableKind};
use crate::context::{Budget, Context};
use crate::limits::Limits;
use crate::pv::{table_line, value_line, walk};
use crate::result::SearchResult;
use crate::retro::Retro;
use crate::threshold::ThresholdProver;
use crate::tt::{AtomicTable, MapTable, Table};

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
    prover: Mutex<ThresholdProver<W>>,
}

/// How often the relay of [`relay_stop`] looks at the stop signal.
const RELAY_PERIOD: Duration = Duration::from_millis(5);

/// Runs `work` while a thread passes `stop` on to every flag of `to` (within
/// [`RELAY_PERIOD`]). The prover's components solved whole check a flag of their own, which
/// outlives the stop signal a caller lends to one search, and the principal variation's
/// proofs one that their own node limit raises; the relay ends with `work`.
fn relay_stop<R>(stop: &AtomicBool, to: &[&AtomicBool], work: impl FnOnce() -> R) -> R {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let relay = s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if stop.load(Ordering::Relaxed) {
                    for flag in to {
                        flag.store(true, Ordering::Relaxed);
                    }
                    return;
                }
                std::thread::park_timeout(RELAY_PERIOD);
            }
        });
        let r = work();
        done.store(true, Ordering::Relaxed);
        relay.thread().unpark();
        r
    })
}

/// Most positions in one component that exact mode solves by retrograde analysis (about
/// 100 bytes each while it is solved).
const RETRO_CAP: usize = 3_000_000;

/// Most memory the bounds proven by exact mode's proofs take (it is used only as they come).
const PROVER_CACHE_BYTES: usize = 4 << 30;

/// Positions a proven principal variation may always explore beyond its first move.
const LINE_NODES: u64 = 100_000;

/// Stack of a search thread: exact searches may follow long cycles of non-capturing moves
/// (the memory is reserved, not used, until a search goes that deep).
const STACK: usize = 1 << 30;

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
            prover: Mutex::new({
                let mut prover = ThresholdProver::new(
                    rules,
                    config.retro_seeds(rules.holes()),
                    RETRO_CAP,
                    PROVER_CACHE_BYTES,
                );
                prover.explore(config.explore);
                prover
            }),
        }
    }

    /// Adds an oracle of exact values for small positions (endgame tables: an
    /// `Arc<hoyito_tables::Tables>` is one).
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

    /// Forgets every stored result and proven bound (a later depth-limited search then
    /// repeats its node count exactly; components solved whole are kept).
    pub fn clear(&self) {
        match &self.table {
            AnyTable::Atomic(t) => Table::<W>::clear(t),
            AnyTable::Map(t) => t.clear(),
        }
        // The proofs' bounds too (components solved whole are kept, as with retrograde).
        self.prover
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .forget();
    }

    /// Searches `p` within `limits`.
    pub fn search(&self, p: &Position<W>, limits: &Limits) -> SearchResult {
        self.search_controlled(p, limits, &AtomicBool::new(false), &|_| {})
    }

    /// [`Searcher::search`] that a caller controls while it runs: setting `stop` (from any
    /// thread) ends it as a limit would (the result is that of the last finished iteration,
    /// with `stopped`), and `on_iteration` hears of each finished iteration of a limited
    /// search and each narrowing of the bounds of an exact one (depth, score, `lower` and
    /// `upper`, nodes so far, principal variation; the proofs of exact mode and the
    /// oracles report nothing before the result). The callback runs on a search thread:
    /// keep it short. The search itself may set `stop` when it ends at a limit: clear it
    /// before reusing it.
    ///
    /// ```
    /// use std::sync::atomic::AtomicBool;
    /// use std::sync::Mutex;
    /// use hoyito_rules::{Position6, Rules};
    /// use hoyito_search::{Config, Limits, Searcher};
    ///
    /// let rules = Rules::default();
    /// let p = Position6::start(&rules).unwrap();
    /// let searcher = Searcher::new(rules, Config::default());
    /// let depths = Mutex::new(Vec::new());
    /// let stop = AtomicBool::new(false);
    /// let r = searcher.search_controlled(&p, &Limits::depth(4), &stop, &|i| {
    ///     depths.lock().unwrap().push(i.depth)
    /// });
    /// assert_eq!(depths.into_inner().unwrap(), vec![1, 2, 3, 4]);
    /// searcher.clear();
    /// let again = searcher.search(&p, &Limits::depth(4));
    /// assert_eq!((r.best, r.score, r.nodes), (again.best, again.score, again.nodes));
    /// ```
    pub fn search_controlled(
        &self,
        p: &Position<W>,
        limits: &Limits,
        stop: &AtomicBool,
        on_iteration: &(dyn Fn(&SearchResult) + Sync),
    ) -> SearchResult {
        let control = Control { stop, on_iteration };
        match &self.table {
            AnyTable::Atomic(t) => self.search_with(t, p, limits, &control),
            AnyTable::Map(t) => self.search_with(t, p, limits, &control),
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
                if c.ended_game {
                    return (c.mv, c.value(0), true);
                }
                // Each child is a new game: the repetition history starts at the child.
                let r = self.search(&c.position, &child_limits);
                (c.mv, c.value(r.score), r.exact)
            })
            .collect()
    }

    /// Whether an exact search of `p` is expected to finish quickly (its seeds on the board
    /// are few enough for retrograde analysis of its component).
    pub fn exact_is_quick(&self, p: &Position<W>) -> bool {
        p.seeds_on_board() <= self.retro_seeds().max(self.probe_seeds())
    }

    /// Seeds on the board up to which the endgame tables answer; 0 without them.
    pub fn table_seeds(&self) -> u32 {
        self.probe_seeds()
    }

    /// Seeds on the board up to which the oracle (endgame tables) answers; 0 without one.
    fn probe_seeds(&self) -> u32 {
        self.probe.as_ref().map_or(0, |o| o.max_seeds())
    }

    /// Seeds on the board up to which exact mode tries retrograde analysis: components of
    /// positions with more seeds are too large on the boards played.
    fn retro_seeds(&self) -> u32 {
        self.config.retro_seeds(self.rules.holes())
    }

    fn retro_len(&self) -> usize {
        self.retro.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// The search of `root` with table `t`, in three steps: the automatic pass at the root,
    /// the oracles for a small exact search, the search threads otherwise.
    fn search_with<T: Table<W>>(
        &self,
        t: &T,
        root: &Position<W>,
        limits: &Limits,
        control: &Control<'_>,
    ) -> SearchResult {
        let start = Instant::now();
        t.new_search();
        // Passes at the root: search the board with the other side to move and negate.
        let (position, passed) = if root.has_legal_move(&self.rules) {
            (*root, false)
        } else {
            match root.passed(&self.rules).filter(|_| root.is_live()) {
                Some(q) => (q, true),
                None => {
                    return SearchResult {
                        nodes: 1,
                        seconds: start.elapsed().as_secs_f64(),
                        ..SearchResult::proven(0, None, Vec::new())
                    }
                }
            }
        };
        // Iterations of the board after a pass are reported for the root, as the result is.
        let reported = |r: &SearchResult| {
            if passed {
                (control.on_iteration)(&r.clone().before_pass())
            } else {
                (control.on_iteration)(r)
            }
        };
        let control = &Control {
            stop: control.stop,
            on_iteration: &reported,
        };
        let solved = if !limits.is_exact() {
            None
        } else if self.config.exact_method == ExactMethod::Proof {
            // The prover keeps its own solved components.
            Some(self.solve_probe(&position).map_or_else(
                || self.prove(&position, limits, start, control.stop),
                |(best, score, pv)| SearchResult::proven(score, best, pv),
            ))
        } else {
            self.solve_small(&position)
        };
        let r = solved.unwrap_or_else(|| self.search_threads(t, &position, limits, start, control));
        let r = if passed { r.before_pass() } else { r };
        SearchResult {
            seconds: start.elapsed().as_secs_f64(),
            ..r
        }
    }

    /// The exact result of `root` from the oracle, if it covers `root`, or by retrograde
    /// analysis, if `root` is small enough and the components involved fit the cap.
    fn solve_small(&self, root: &Position<W>) -> Option<SearchResult> {
        let (best, score, pv) = self.solve_probe(root).or_else(|| {
            (root.seeds_on_board() <= self.retro_seeds())
                .then(|| self.solve_retro(root))
                .flatten()
        })?;
        Some(SearchResult {
            nodes: self.retro_len() as u64,
            ..SearchResult::proven(score, best, pv)
        })
    }

    /// Exact value, best move and a principal variation by threshold proofs (`threshold.rs`);
    /// on a limit, the bounds proven so far.
    fn prove(
        &self,
        root: &Position<W>,
        limits: &Limits,
        start: Instant,
        stop: &AtomicBool,
    ) -> SearchResult {
        let cx = Context {
            probe: self.probe.as_deref(),
            budget: Budget {
                stop,
                deadline: limits.time.map(|d| start + d),
                node_limit: limits.nodes.unwrap_or(u64::MAX),
            },
        };
        let mut prover = self.prover.lock().unwrap_or_else(|e| e.into_inner());
        prover.start(cx.budget.deadline);
        let work0 = prover.work();
        let retro_stop = prover.retro_stop();
        let result = match relay_stop(stop, &[&retro_stop], || prover.value(&cx, root)) {
            Ok(v) => {
                let rules = self.rules;
                // The line of moves that keep the value, captures first. The first move is
                // the answer; the rest of the line may cost at most as much again as the
                // value did (proving a later position can cost far more than the root).
                let line_stop = AtomicBool::new(false);
                let line = Context {
                    budget: Budget {
                        stop: &line_stop,
                        node_limit: (2 * prover.work_done()).max(LINE_NODES),
                        ..cx.budget
                    },
                    ..cx
                };
                // The caller's stop reaches the line's proofs too: a stop during the line
                // ends it at once rather than at its node limit.
                let pv = relay_stop(stop, &[&retro_stop, &line_stop], || {
                    walk(&rules, root, |moves, p| {
                        let b = if moves.is_empty() { &cx } else { &line };
                        let Ok(v) = prover.value(b, p) else {
                            return Some(None);
                        };
                        Some(prover.keeping_move(b, p, v).ok().flatten().map(|c| c.mv))
                    })
                })
                .unwrap_or_default();
                match pv.first() {
                    Some(&m) => SearchResult::proven(v, Some(m), pv),
                    // The value is proven but no move that keeps it was within the limits:
                    // not an exact answer (the bounds say the value; the move is a guess).
                    None => SearchResult {
                        best: root.moves(&rules).children().first().map(|c| c.mv),
                        score: v,
                        lower: v,
                        upper: v,
                        stopped: true,
                        ..SearchResult::unknown(0)
                    },
                }
            }
            Err((lower, upper)) => SearchResult {
                best: root.moves(&self.rules).children().first().map(|c| c.mv),
                score: 0.clamp(lower, upper),
                lower,
                upper,
                stopped: true,
                ..SearchResult::unknown(0)
            },
        };
        SearchResult {
            // The root counts as visited even when a cache answers it.
            nodes: prover.work() - work0 + 1,
            ..result
        }
    }

    /// Exact value, best move and a principal variation by retrograde analysis, if the
    /// components involved fit the cap.
    fn solve_retro(&self, root: &Position<W>) -> Option<(Option<Move>, i32, Vec<Move>)> {
        let mut retro = self.retro.lock().unwrap_or_else(|e| e.into_inner());
        value_line(&self.rules, root, |p| retro.value(p))
    }

    /// Exact value, best move and a principal variation from the oracle, if it covers `root`
    /// (every position reached without a capture has the same seeds, and captures only
    /// lower them, so the whole line stays within the oracle).
    fn solve_probe(&self, root: &Position<W>) -> Option<(Option<Move>, i32, Vec<Move>)> {
        let o = self.probe.as_deref()?;
        if root.seeds_on_board() > o.max_seeds() {
            return None;
        }
        value_line(&self.rules, root, |p| {
            if p.is_live() {
                o.probe(p)
            } else {
                Some(0)
            }
        })
    }

    /// Runs the search threads on `root` (a position with a legal move) and collects their
    /// result, with a legal best move and the table's principal variation.
    fn search_threads<T: Table<W>>(
        &self,
        t: &T,
        root: &Position<W>,
        limits: &Limits,
        start: Instant,
        control: &Control<'_>,
    ) -> SearchResult {
        let stop = AtomicBool::new(false);
        let nodes = AtomicU64::new(0);
        let shared = Shared {
            rules: self.rules,
            table: t,
            probe: self.probe.as_deref(),
            probe_seeds: self.probe_seeds(),
            eval: self.config.eval,
            stop: &stop,
            nodes: &nodes,
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            poll_every: poll_interval(limits.nodes.unwrap_or(u64::MAX), self.config.threads),
            deadline: limits.time.map(|d| start + d),
            retro: Some(&self.retro),
            retro_seeds: self.retro_seeds(),
            abort: control.stop,
        };
        let (found, max_ply) = self.run_threads(&shared, root, limits, start, control);
        let mut r = found.unwrap_or(SearchResult {
            stopped: true,
            ..SearchResult::unknown(root.seeds_on_board())
        });
        // Never return an illegal move: fall back to the first legal one.
        let legal = root.moves(&self.rules);
        r.best = match r.best {
            Some(m) if legal.get(m).is_some() => Some(m),
            _ => legal.children().first().map(|c| c.mv),
        };
        r.pv = table_line(&self.rules, t, root, r.best);
        if limits.is_exact() {
            r.depth = max_ply;
        }
        r.nodes = nodes.load(Ordering::Relaxed);
        r
    }

    /// Runs `config.threads` workers on `root` until the first exact result or the main
    /// thread's result. Returns that result (`None` if no thread produced one) and the
    /// deepest ply any thread reached.
    fn run_threads<T: Table<W>>(
        &self,
        shared: &Shared<'_, W, T>,
        root: &Position<W>,
        limits: &Limits,
        start: Instant,
        control: &Control<'_>,
    ) -> (Option<SearchResult>, u32) {
        let done: Mutex<Option<SearchResult>> = Mutex::new(None);
        let max_ply = AtomicU64::new(0);
        // An iteration of the main thread, told with the table's line and all the nodes.
        let report = |r: &SearchResult| {
            (control.on_iteration)(&SearchResult {
                pv: table_line(&self.rules, shared.table, root, r.best),
                // The main thread's own count, or all threads' as far as flushed.
                nodes: shared.nodes.load(Ordering::Relaxed).max(r.nodes),
                seconds: start.elapsed().as_secs_f64(),
                ..r.clone()
            })
        };
        let run = |id: usize| {
            let mut w = Worker::new(shared, id);
            let report: &dyn Fn(&SearchResult) = if id == 0 { &report } else { &|_| {} };
            let r = if limits.is_exact() {
                drive_exact(&mut w, root, report)
            } else {
                drive_iterative(&mut w, root, limits, report)
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
                shared.stop.store(true, Ordering::Relaxed);
            }
        };
        let run = &run;
        std::thread::scope(|s| {
            let handles: Vec<_> = (1..self.config.threads)
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
            shared.stop.store(true, Ordering::Relaxed);
            for h in handles {
                let _ = h.join();
            }
        });
        let found = done.into_inner().unwrap_or_else(|e| e.into_inner());
        (found, max_ply.load(Ordering::Relaxed) as u32)
    }
}

/// What a caller of [`Searcher::search_controlled`] holds: the stop flag and the callback.
struct Control<'a> {
    stop: &'a AtomicBool,
    on_iteration: &'a (dyn Fn(&SearchResult) + Sync),
}

/// Exact search: null-window tests that halve the interval of possible values, as in
/// exact Connect-4 solvers. The first tests are near 0, where most values lie.
fn drive_exact<const W: usize, T: Table<W>>(
    w: &mut Worker<'_, '_, W, T>,
    root: &Position<W>,
    report: &dyn Fn(&SearchResult),
) -> SearchResult {
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
        report(&SearchResult {
            nodes: w.nodes,
            best,
            score: if lo == hi { lo } else { lo.max(0).min(hi) },
            exact: lo == hi,
            lower: lo,
            upper: hi,
            depth: w.max_ply as u32,
            ..SearchResult::unknown(0)
        });
    }
    SearchResult {
        best,
        score: if lo == hi { lo } else { lo.max(0).min(hi) },
        exact: lo == hi,
        lower: lo,
        upper: hi,
        stopped: w.stopped,
        ..SearchResult::unknown(0)
    }
}

/// Depth-limited search: iterative deepening with principal-variation windows. Stops early
/// when an iteration used no heuristic value (the result is then proven).
fn drive_iterative<const W: usize, T: Table<W>>(
    w: &mut Worker<'_, '_, W, T>,
    root: &Position<W>,
    limits: &Limits,
    report: &dyn Fn(&SearchResult),
) -> SearchResult {
    let n = root.seeds_on_board() as i32;
    let max_depth = limits.depth.unwrap_or(250).clamp(1, 250) as i32;
    let mut out = SearchResult::unknown(root.seeds_on_board());
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
        let proven = w.heuristic == h0;
        if proven {
            out.exact = true;
            out.lower = s;
            out.upper = s;
        }
        out.nodes = w.nodes;
        report(&out);
        if proven {
            break;
        }
        // A time limit is a fixed move time (UCI's `movetime`), used whole: the iteration
        // under way when it passes is cut off, and the last finished one answers.
    }
    out
}
