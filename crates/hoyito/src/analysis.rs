//! The analysis of a position: its best move and value, by the one policy every front
//! uses. The opening book answers first (a proven value, at once); then the endgame tables
//! and an exact search over them (the small layers built in memory when no table file holds
//! them); else a search limited by depth, time or nodes. The answer ([`Analysis`]) says
//! which decided it ([`Source`]).
//!
//! ```
//! use hoyito::analysis::{analyse, AnalysisOptions, Source};
//! use hoyito::{Diagram, Rules};
//!
//! let rules = Rules::default();
//! let d: Diagram = "4,0,1,0,0,1/0,0,0,0,1,1 S".parse().unwrap();
//! let options = AnalysisOptions { no_tables: true, ..AnalysisOptions::default() };
//! let a = analyse(&rules, Some(&d), &options).unwrap();
//! // Small enough to solve at once: South captures 8 more seeds than North from here.
//! assert!(a.exact);
//! assert_eq!(a.source, Source::Proof);
//! assert_eq!((a.score, a.best), (8, Some(1)));
//! ```

use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use hoyito_rules::{Diagram, Move, Position, Rules, Side};
use hoyito_search::{Config, Eval, ExactMethod, Explore, SearchResult, Searcher, TableKind};
use hoyito_tables::Tables;
use serde::Serialize;

use crate::policy::{self, Ask};
use crate::setup::{dispatch, position, search_threads, tables_for, with_threads};

pub use crate::policy::{MoveScore, Source, DEFAULT_TIME_MS};
pub use crate::streamed::{analyse_streamed, Phase, Streamed};

/// How a search searches: threads, transposition table, and the methods of exact mode.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// Search threads (`None`: all cores).
    pub threads: Option<usize>,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Transposition table design.
    pub table: TableKind,
    /// How exact mode proves what the tables and small components do not reach.
    pub exact_method: ExactMethod,
    /// Which positions the threshold proofs of exact mode explore next.
    pub explore: Explore,
}

impl Default for EngineOptions {
    fn default() -> Self {
        let c = Config::default();
        EngineOptions {
            threads: None,
            hash_mb: 64,
            table: c.table,
            exact_method: c.exact_method,
            explore: c.explore,
        }
    }
}

impl EngineOptions {
    /// The search configuration of these options.
    pub fn config(&self) -> Result<Config> {
        let threads = search_threads(self.threads)?;
        if self.hash_mb == 0 || self.hash_mb > crate::setup::MAX_HASH_MB {
            return Err(crate::error::bad_option(
                "hash_mb",
                format!("must be between 1 and {}", crate::setup::MAX_HASH_MB),
            ));
        }
        Ok(Config {
            threads,
            hash_mb: self.hash_mb,
            table: self.table,
            eval: Eval::default(),
            exact_method: self.exact_method,
            explore: self.explore,
            ..Config::default()
        })
    }
}

/// What an analysis may do: its limits (none: exact when the position is small enough to
/// solve quickly, else [`DEFAULT_TIME_MS`]), the tables and the book.
#[derive(Clone, Debug, Default)]
pub struct AnalysisOptions {
    /// Search to this depth (plies; extra turns count).
    pub depth: Option<u32>,
    /// Search for this many milliseconds, everything the analysis does included.
    pub time_ms: Option<u64>,
    /// Stop after this many nodes (all threads together).
    pub nodes: Option<u64>,
    /// Search to the end of the game and return the proven value.
    pub exact: bool,
    /// Also value every legal move.
    pub all_moves: bool,
    /// Endgame tables to use (2x6 only; `None`: [`DEFAULT_TABLES_DIR`](crate::DEFAULT_TABLES_DIR)
    /// when built there).
    pub tables: Option<PathBuf>,
    /// Use no endgame tables.
    pub no_tables: bool,
    /// Do not answer from the opening book.
    pub no_book: bool,
    /// How the search searches.
    pub engine: EngineOptions,
    /// Set by the front (from any thread) to stop the analysis: it answers with what it
    /// has, marked `stopped` (a front cancels an analysis whose position changed).
    pub stop: Option<Arc<AtomicBool>>,
}

/// Move numbers for a report.
fn move_numbers(mv: &[Move]) -> Vec<u8> {
    mv.iter().map(|m| m.0).collect()
}

/// The answer of an analysis: the best move and the value for the side to move, and how
/// they were found.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The position analysed, in the notation.
    pub position: String,
    /// What decided the answer.
    pub source: Source,
    /// The search mode, in words (e.g. `exact`, `time 3000 ms (default: ...)`).
    pub mode: String,
    /// Search threads.
    pub threads: usize,
    /// Whether another run gives the same result: one thread and no time limit.
    pub repeatable: bool,
    /// The largest layer of the endgame tables in use (0: none).
    pub tables_max_seeds: usize,
    /// Milliseconds spent building the tables (in memory, or into the cache), when the
    /// analysis built them.
    pub tables_built_ms: Option<u64>,
    /// The folder of the tables in use when they are the small tables of the user's cache
    /// (see [`cache`](crate::cache)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables_cache: Option<PathBuf>,
    /// The best move (`None`: no move to play, or none found within the limit).
    #[serde(rename = "move")]
    pub best: Option<u8>,
    /// The value for the side to move (proven when `exact`).
    pub score: i32,
    /// Whether the score is proven.
    pub exact: bool,
    /// Proven bounds of the value for the side to move.
    pub bounds: [i32; 2],
    /// Depth of the last finished iteration.
    pub depth: u32,
    /// The principal variation.
    pub pv: Vec<u8>,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds the whole analysis took, from its start: the tables read or built in memory,
    /// the search and, with `all_moves`, every move's search.
    pub seconds: f64,
    /// Whether a limit stopped the search.
    pub stopped: bool,
    /// Every legal move's score, with [`AnalysisOptions::all_moves`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<MoveScore>>,
    /// Why the answer came from the watchdog, when it did ([`Watchdog`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The side to move.
    #[serde(skip)]
    pub side: Side,
    /// Seeds on the board.
    #[serde(skip)]
    pub seeds_on_board: i32,
}

impl fmt::Display for Analysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let exact = if self.exact { " (exact)" } else { "" };
        writeln!(f, "{}", self.position)?;
        writeln!(f, "search: {}", self.mode)?;
        // A proven value is the same whatever the run.
        if !self.repeatable && !self.exact {
            writeln!(
                f,
                "{} thread(s): another run may search other nodes and give another move \
                 (one thread and no time limit repeat exactly)",
                self.threads
            )?;
        }
        if self.tables_max_seeds > 0 {
            writeln!(
                f,
                "endgame tables in use: up to {} seeds on the board{}",
                self.tables_max_seeds,
                match (self.tables_built_ms, &self.tables_cache) {
                    (Some(ms), None) =>
                        format!(" (built in memory in {:.2} s)", ms as f64 / 1000.0),
                    (Some(ms), Some(dir)) => format!(
                        " (built into the cache {} in {:.2} s)",
                        dir.display(),
                        ms as f64 / 1000.0
                    ),
                    (None, Some(dir)) => format!(" (from the cache {})", dir.display()),
                    (None, None) => String::new(),
                }
            )?;
        }
        match self.best {
            Some(m) => writeln!(f, "best move {m}, score {}{exact}", self.score)?,
            None if self.note.is_some() => writeln!(f, "no move found within the limit")?,
            None if self.score == 0 && self.exact && self.nodes <= 1 => writeln!(
                f,
                "no move to play: the game is over, or 4 or fewer seeds are left (worth 0)"
            )?,
            None => writeln!(f, "{} must pass; score {}{exact}", self.side, self.score)?,
        }
        let [lower, upper] = self.bounds;
        let n = self.seeds_on_board;
        if !self.exact && self.mode.starts_with("exact") {
            // An exact search that gave up says so, with what it did prove.
            writeln!(
                f,
                "not proven: the exact search stopped at its limit; proven bounds {lower} ..= {upper}"
            )?;
        } else if !self.exact && (lower > -n || upper < n) {
            writeln!(f, "proven bounds {lower} ..= {upper}")?;
        }
        if self.source == Source::Book {
            let from = if self.mode.starts_with("opening book") {
                "the opening book"
            } else {
                "the certificates"
            };
            writeln!(f, "from {from}: proven, no search ({:.3} s)", self.seconds)?;
            return self.write_moves(f);
        }
        let pv: Vec<String> = self.pv.iter().map(|m| m.to_string()).collect();
        writeln!(f, "depth {}, pv {}", self.depth, pv.join(" "))?;
        writeln!(
            f,
            "{} nodes in {:.3} s ({:.0} nodes/s){}",
            self.nodes,
            self.seconds,
            self.nodes as f64 / self.seconds.max(1e-9),
            if self.stopped {
                ", stopped by a limit"
            } else {
                ""
            }
        )?;
        self.write_moves(f)?;
        if let Some(note) = &self.note {
            writeln!(f, "{note}")?;
        }
        Ok(())
    }
}

impl Analysis {
    /// Every move's value, a line each (with `all_moves`).
    fn write_moves(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for m in self.moves.iter().flatten() {
            let exact = if m.exact { " (exact)" } else { "" };
            writeln!(f, "  {}: {}{exact}", m.mv, m.score)?;
        }
        Ok(())
    }
}

/// Opens the endgame tables an analysis asked for (see [`tables_for`]).
fn best_tables(rules: &Rules, a: &AnalysisOptions, seeds: usize) -> Result<Option<Arc<Tables>>> {
    tables_for(rules, a.tables.as_deref(), a.no_tables, seeds)
}

/// Seeds on the board up to which `best` builds endgame tables in memory (0: none): for an
/// exact search on 2x6 (asked, or implied by a small position) whose tables, if any, stop
/// below the position's small layers (up to [`SMALL_LAYERS`] seeds). Building them takes
/// about a second; solving their components on the fly in the search takes twice that and
/// twenty times the memory.
fn small_layers(
    rules: &Rules,
    a: &AnalysisOptions,
    seeds: usize,
    tables: Option<&Tables>,
    largest: usize,
) -> usize {
    let limited = a.depth.is_some() || a.time_ms.is_some() || a.nodes.is_some();
    // The default answer tries a proof too.
    let exact = a.exact || !limited;
    let want = largest.min(seeds);
    let have = tables.map_or(0, |t| t.max_seeds());
    if a.no_tables || rules.holes() != 6 || !exact || want <= 8 || have >= want {
        return 0;
    }
    want
}

/// The largest layer `best` builds in memory when no table file holds it.
const SMALL_LAYERS: usize = 12;

/// How much earlier than its share of `--time-ms` an exact search is told to stop (see
/// [`best_sized`]).
const EXACT_OVERHEAD: Duration = Duration::from_millis(40);

/// Least time left for `best` to build the small layers under a time limit: they take about
/// a second, and half the time left at most.
const SMALL_LAYERS_MIN_TIME: Duration = Duration::from_secs(4);

/// Analyses a position (`None`: the start of `rules`) by the one policy: the book, the
/// tables and an exact search, else a limited search (see the module's docs).
pub fn analyse(rules: &Rules, d: Option<&Diagram>, a: &AnalysisOptions) -> Result<Analysis> {
    analyse_watched(rules, d, a, &Watchdog::quiet())
}

/// [`analyse`], keeping `watchdog` told of the answer so far, so that a front can answer at
/// the time limit even when the search cannot return (see [`Watchdog`]).
pub fn analyse_watched(
    rules: &Rules,
    d: Option<&Diagram>,
    a: &AnalysisOptions,
    watchdog: &Watchdog,
) -> Result<Analysis> {
    if a.depth == Some(0) {
        return Err(crate::error::bad_option("depth", "must be at least 1"));
    }
    if a.nodes == Some(0) {
        return Err(crate::error::bad_option("nodes", "must be at least 1"));
    }
    if a.time_ms == Some(0) {
        return Err(crate::error::bad_option("time_ms", "must be at least 1"));
    }
    let answer = dispatch!(rules, best_sized(rules, d, a, watchdog));
    // The analysis answers now, with its report or its error.
    watchdog.disarm();
    answer
}

/// How long after its deadline `best` answers when the search has not returned.
const WATCHDOG_GRACE: Duration = Duration::from_millis(10);

/// Keeps an analysis's time limit when the search cannot: generating one move of a
/// position with a long relay sowing can take seconds and cannot be interrupted. Armed with
/// the analysis's deadline, a thread waits until just after it; if the analysis has not
/// answered by then, it hands the front the last answer the search gave (its last finished
/// iteration, or an answer with no move whose note says why), and the front answers with
/// it (the `solve` command prints it and ends the process). A quiet watchdog
/// ([`Watchdog::quiet`]) never answers for the analysis.
pub struct Watchdog {
    /// When the analysis started.
    start: Instant,
    state: Arc<Mutex<WatchState>>,
    /// What the front does with the answer at the deadline (none: nothing).
    on_deadline: Option<Arc<OnDeadline>>,
    /// What the front does with each new answer so far (none: nothing).
    on_update: Option<Arc<OnUpdate>>,
}

/// The front's handler of each answer so far.
type OnUpdate = dyn Fn(&Analysis) + Send + Sync;

/// The front's handler of an answer at the deadline.
type OnDeadline = dyn Fn(Option<Analysis>) + Send + Sync;

struct WatchState {
    /// The answer to give if the deadline passes first.
    report: Option<Analysis>,
    /// Whether the analysis's own answer, or the watchdog's, has been taken.
    done: bool,
    /// What the analysis is doing before its search starts, for the note of an answer
    /// with no move (none: the search itself).
    doing: Option<&'static str>,
}

impl Watchdog {
    /// A watchdog that calls `on_deadline` with the answer so far (with its note) if the
    /// analysis has not answered just after its deadline.
    pub fn new(on_deadline: impl Fn(Option<Analysis>) + Send + Sync + 'static) -> Self {
        Watchdog {
            on_deadline: Some(Arc::new(on_deadline)),
            ..Watchdog::quiet()
        }
    }

    /// A watchdog that never answers for the analysis.
    pub fn quiet() -> Self {
        Watchdog {
            start: Instant::now(),
            state: Arc::new(Mutex::new(WatchState {
                report: None,
                done: false,
                doing: None,
            })),
            on_deadline: None,
            on_update: None,
        }
    }

    /// This watchdog, also calling `on_update` with the answer so far each time it grows:
    /// when the search starts, at each finished iteration or narrowing of an exact
    /// search's bounds, and at each move valued. A front streams these (the web board
    /// shows estimates that turn into proven values).
    pub fn with_updates(mut self, on_update: impl Fn(&Analysis) + Send + Sync + 'static) -> Self {
        self.on_update = Some(Arc::new(on_update));
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WatchState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts the thread that answers at `deadline` (plus [`WATCHDOG_GRACE`]).
    fn arm(&self, deadline: Instant) {
        let Some(on_deadline) = self.on_deadline.clone() else {
            return;
        };
        let state = Arc::clone(&self.state);
        let start = self.start;
        std::thread::spawn(move || {
            let at = deadline + WATCHDOG_GRACE;
            let now = Instant::now();
            if at > now {
                std::thread::sleep(at - now);
            }
            let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
            if s.done {
                return;
            }
            s.done = true;
            let report = s.report.take().map(|mut r| {
                r.stopped = true;
                r.seconds = start.elapsed().as_secs_f64();
                r.note = Some(watchdog_note(r.best.is_some(), s.doing));
                r
            });
            on_deadline(report);
        });
    }

    /// Replaces the answer the watchdog would give.
    fn update(&self, f: impl FnOnce(&mut Analysis)) {
        let now = {
            let mut state = self.lock();
            let Some(r) = &mut state.report else {
                return;
            };
            f(r);
            self.on_update.as_ref().map(|_| r.clone())
        };
        self.tell(now);
    }

    /// Hands `report` to the front's update handler (outside the lock).
    fn tell(&self, report: Option<Analysis>) {
        if let (Some(on_update), Some(r)) = (&self.on_update, report) {
            on_update(&r);
        }
    }

    /// Runs `f`, which does `what` before the search starts: if the watchdog answers
    /// meanwhile, with no move, its note says so.
    fn during<T>(&self, what: &'static str, f: impl FnOnce() -> T) -> T {
        self.lock().doing = Some(what);
        let out = f();
        self.lock().doing = None;
        out
    }

    /// Sets the answer the watchdog would give.
    fn set(&self, r: Analysis) {
        let copy = self.on_update.as_ref().map(|_| r.clone());
        self.lock().report = Some(r);
        self.tell(copy);
    }

    /// The analysis answers itself: the watchdog stays quiet (if it has not answered
    /// already, in which case the front is answering and this waits for it).
    fn disarm(&self) {
        self.lock().done = true;
    }
}

/// The note of the watchdog's answer: with the last finished iteration's move, or with no
/// move, saying what the time went to (`doing`, else the search).
fn watchdog_note(has_move: bool, doing: Option<&str>) -> String {
    match (has_move, doing) {
        (true, _) => "answered at the time limit from the last finished iteration: the search \
                      had not returned (a long relay sowing cannot be interrupted, and a busy \
                      machine can delay the answer)"
            .to_string(),
        (false, Some(what)) => format!(
            "no move within the time limit: it passed while {what}, before the search started"
        ),
        (false, None) => "no move within the time limit: the search had not returned one (a \
                          long relay sowing, as in generating this position's moves, cannot be \
                          interrupted, and a busy machine can delay the answer)"
            .to_string(),
    }
}

/// Copies a search result into a report.
pub(crate) fn fill(report: &mut Analysis, r: &SearchResult) {
    report.best = r.best.map(|m| m.0);
    report.score = r.score;
    report.exact = r.exact;
    report.bounds = [r.lower, r.upper];
    report.depth = r.depth;
    report.pv = move_numbers(&r.pv);
    report.nodes = r.nodes;
    report.seconds = r.seconds;
    report.stopped = r.stopped;
}

impl AnalysisOptions {
    /// What these options ask of the policy ([`policy::decide`]).
    pub fn ask(&self) -> Ask {
        Ask {
            depth: self.depth,
            time: self.time_ms.map(Duration::from_millis),
            nodes: self.nodes,
            exact: self.exact,
            book: if self.no_book {
                policy::BookUse::Never
            } else {
                policy::BookUse::Unlimited
            },
        }
    }
}

fn best_sized<const W: usize>(
    rules: &Rules,
    d: Option<&Diagram>,
    a: &AnalysisOptions,
    watchdog: &Watchdog,
) -> Result<Analysis> {
    // One deadline for the whole command: the tables built in memory, the search and the
    // analysis of every move all fit in --time-ms (and --nodes counts them all).
    let start = Instant::now();
    let deadline = a.time_ms.map(|ms| start + Duration::from_millis(ms));
    let p: Position<W> = position(rules, d)?;
    let seeds = p.seeds_on_board() as usize;
    let ask = a.ask();
    // The report, filled in as the command goes; the watchdog prints a copy if the deadline
    // passes first (as it is here: no move known yet).
    let mut report = first_report(&p, a);
    watchdog.set(report.clone());
    if let Some(d) = deadline {
        watchdog.arm(d);
    }
    // Each layer is read and checked whole: seconds for the largest ones (a folder given
    // that holds no tables is an error, whatever answers).
    let mut tables = watchdog.during(
        "reading the endgame tables (each layer is read and checked whole)",
        || best_tables(rules, a, seeds),
    )?;
    // The book answers at once, before the search is set up.
    let mut main_ask = ask;
    if !a.all_moves && !a.no_book && !ask.is_limited() {
        if let Some(report) = from_book(rules, &p, start) {
            return Ok(report);
        }
        // Asked already.
        main_ask.book = policy::BookUse::Never;
    }
    // The transposition table is allocated before the small tables: that takes time too.
    let config = a.engine.config()?;
    let mut searcher = watchdog.during("allocating the transposition table", || {
        Searcher::<W>::new(*rules, config)
    });
    let mut built_ms = None;
    let mut cache_dir = None;
    if let Some(small) = small_layers_cached(rules, a, seeds, tables.as_deref(), deadline)? {
        built_ms = small.built_ms;
        cache_dir = Some(small.dir);
        tables = Some(small.tables);
    } else if let Some((t, ms)) =
        small_layers_in_memory(rules, a, seeds, tables.as_deref(), deadline)?
    {
        built_ms = Some(ms);
        tables = Some(t);
    }
    if let Some(t) = &tables {
        searcher = searcher.with_probe(Box::new(Arc::clone(t)));
    }
    // The main answer's share: all the time left, or half of it when every move is valued
    // after it; an exact search notices its deadline between steps of its proofs, some tens
    // of milliseconds apart, so it is told to stop that much earlier.
    let parts = if a.all_moves { 2 } else { 1 };
    let overhead = match ask.time {
        Some(time) if ask.exact => EXACT_OVERHEAD.min(time / 10),
        _ => Duration::ZERO,
    };
    if let Some(end) = deadline {
        let left = end.saturating_duration_since(Instant::now() + overhead);
        main_ask.time = Some(
            Duration::from_micros(share(left.as_micros() as u64, parts))
                .max(Duration::from_micros(1)),
        );
    }
    main_ask.nodes = ask.nodes.map(|n| share(n, parts).max(1));
    let default_time = !ask.exact && !ask.is_limited() && !searcher.exact_is_quick(&p);
    report.threads = searcher.config().threads;
    report.repeatable = report.threads == 1 && ask.time.is_none() && !default_time;
    report.tables_max_seeds = tables.as_ref().map_or(0, |t| t.max_seeds());
    report.tables_built_ms = built_ms;
    report.tables_cache = cache_dir;
    watchdog.set(report.clone());
    if deadline.is_none() && default_time {
        watchdog.arm(start + Duration::from_millis(DEFAULT_TIME_MS));
    }
    report.mode = policy::plan(&searcher, &p, &main_ask);
    watchdog.set(report.clone());
    let front = a.stop.clone().unwrap_or_default();
    let decision = policy::decide(&searcher, &p, &main_ask, &front, &|r| {
        watchdog.update(|w| fill(w, r));
    });
    let mut r = decision.result;
    report.source = decision.source;
    report.mode = decision.mode;
    report.note = decision.note;
    if a.all_moves {
        let until = match (deadline, default_time) {
            (Some(d), _) => Some(d - overhead),
            (None, true) => Some(start + Duration::from_millis(DEFAULT_TIME_MS)),
            (None, false) => None,
        };
        let nodes = a.nodes.map(|n| n.saturating_sub(r.nodes));
        let legal = p.moves(rules).children().len();
        // The default answer and an exact one prove the moves too; a limited one does not.
        let proofs = !ask.is_limited();
        let main_nodes = r.nodes;
        let (moves, used) = policy::value_moves(
            &searcher,
            &p,
            &r,
            &policy::MovesBudget {
                proofs,
                until,
                nodes,
                book: !a.no_book,
            },
            &front,
            &mut |m, used| {
                let done = m.to_vec();
                watchdog.update(|w| {
                    w.nodes = main_nodes + used;
                    w.moves = Some(done);
                });
            },
        );
        r.nodes += used;
        policy::agree(&mut r, &moves, legal);
        report.moves = Some(moves);
    }
    fill(&mut report, &r);
    report.stopped |= front.load(Ordering::Relaxed);
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// `left` shared evenly among `parts`.
fn share(left: u64, parts: u64) -> u64 {
    left / parts.max(1)
}

/// The answer before anything is known: no move, the trivial bounds, stopped (what the
/// watchdog gives if the deadline passes first).
fn first_report<const W: usize>(p: &Position<W>, a: &AnalysisOptions) -> Analysis {
    let n = p.seeds_on_board() as i32;
    Analysis {
        position: p.to_string(),
        source: Source::Search,
        mode: "limited".to_string(),
        threads: a.engine.threads.unwrap_or(1),
        repeatable: false,
        tables_max_seeds: 0,
        tables_built_ms: None,
        tables_cache: None,
        best: None,
        score: 0,
        exact: false,
        bounds: [-n, n],
        depth: 0,
        pv: Vec::new(),
        nodes: 0,
        seconds: 0.0,
        stopped: true,
        moves: None,
        note: None,
        side: p.side_to_move(),
        seeds_on_board: n,
    }
}

/// The small layers built in memory when the analysis wants them ([`small_layers`]), with
/// the milliseconds the build took. Under a time limit the build (about a second, not
/// stopped at once) gets at most half the time left, and only when that is long enough to
/// finish; out of time, the search goes on without them (`None`).
fn small_layers_in_memory(
    rules: &Rules,
    a: &AnalysisOptions,
    seeds: usize,
    tables: Option<&Tables>,
    deadline: Option<Instant>,
) -> Result<Option<(Arc<Tables>, u64)>> {
    let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
    let small = match left {
        Some(left) if left < SMALL_LAYERS_MIN_TIME => 0,
        _ => small_layers(rules, a, seeds, tables, SMALL_LAYERS),
    };
    if small == 0 {
        return Ok(None);
    }
    let t0 = Instant::now();
    let until = Until(left.map(|l| t0 + l / 2));
    let options = hoyito_tables::BuildOptions::default();
    let built = with_threads(a.engine.threads, || {
        hoyito_tables::build_in_memory(rules, small, &options, &until)
    })?;
    match built {
        Ok((t, _)) => Ok(Some((Arc::new(t), t0.elapsed().as_millis() as u64))),
        Err(hoyito_tables::TableError::Interrupted { .. }) => Ok(None),
        Err(e) => Err(e).context("building the small endgame tables in memory"),
    }
}

/// The small layers from the user's cache (see [`cache`](crate::cache)), up to
/// [`CACHE_MAX_SEEDS`](crate::cache::CACHE_MAX_SEEDS) seeds (and the 20-seed layer when a
/// proof built it), when an exact analysis would
/// build them in memory: built into the cache first when they are missing and the analysis
/// has no time limit (under one, only what the cache holds already). `None`: not wanted, the
/// cache is off, or it lacks them under a time limit.
fn small_layers_cached(
    rules: &Rules,
    a: &AnalysisOptions,
    seeds: usize,
    tables: Option<&Tables>,
    deadline: Option<Instant>,
) -> Result<Option<crate::cache::SmallTables>> {
    // The layers up to 16 seeds, built when missing, and the 20-seed one when a proof built
    // it.
    let want = small_layers(rules, a, seeds, tables, crate::cache::CACHE_PROOF_SEEDS);
    if want == 0 {
        // A limited search stands on what the cache holds, as every door does.
        let have = tables.map_or(0, |t| t.max_seeds());
        let reach = seeds.min(crate::cache::CACHE_PROOF_SEEDS);
        if a.no_tables || rules.holes() != 6 || reach <= 8 || have >= reach {
            return Ok(None);
        }
        return Ok(crate::cache::cached_tables(rules, reach));
    }
    if deadline.is_some() {
        return Ok(crate::cache::cached_tables(rules, want));
    }
    let quiet = crate::cache::StopOn(a.stop.as_deref());
    with_threads(a.engine.threads, || {
        crate::cache::small_tables(rules, want, &quiet)
    })?
}

/// A build [`Progress`](hoyito_tables::Progress) that stops at a deadline (none: never).
struct Until(Option<Instant>);

impl hoyito_tables::Progress for Until {
    fn stopped(&self) -> bool {
        self.0.is_some_and(|d| Instant::now() >= d)
    }
}

/// The answer of the opening book, or of the certificates' strategies, where they prove the
/// value of `p` ([`policy::proven`]).
pub(crate) fn from_book<const W: usize>(
    rules: &Rules,
    p: &Position<W>,
    start: Instant,
) -> Option<Analysis> {
    let (best, value, certificate) = policy::proven(rules, p)?;
    Some(Analysis {
        position: p.to_string(),
        source: Source::Book,
        mode: policy::book_mode(&certificate),
        threads: 1,
        repeatable: true,
        tables_max_seeds: 0,
        tables_built_ms: None,
        tables_cache: None,
        best,
        score: value,
        exact: true,
        bounds: [value, value],
        depth: 0,
        pv: best.into_iter().collect(),
        nodes: 0,
        seconds: start.elapsed().as_secs_f64(),
        stopped: false,
        moves: None,
        note: None,
        side: p.side_to_move(),
        seeds_on_board: p.seeds_on_board() as i32,
    })
}

/// The cache folder that an analysis of `d` (`None`: the start) with `a` is about to build
/// the small tables into (the first such answer for a set of rules: about 15 s), so that a
/// front can say so first; `None` when it builds nothing (the book answers, a time limit, no
/// tables wanted, or the cache holds them).
pub fn cache_build_ahead(
    rules: &Rules,
    d: Option<&Diagram>,
    a: &AnalysisOptions,
) -> Option<PathBuf> {
    let ask = a.ask();
    if a.no_tables || a.time_ms.is_some() || ask.is_limited() {
        return None;
    }
    let proven = dispatch!(rules, book_answers(rules, d, a));
    if proven {
        return None;
    }
    let seeds = d.map_or(rules.total_seeds(), Diagram::seeds_on_board);
    crate::cache::pending(rules, seeds, a.tables.as_deref())
}

/// Whether the book or the certificates answer the analysis of `d` with `a` at once.
fn book_answers<const W: usize>(rules: &Rules, d: Option<&Diagram>, a: &AnalysisOptions) -> bool {
    let Ok(p) = position::<W>(rules, d) else {
        return false;
    };
    !a.all_moves && !a.no_book && policy::proven(rules, &p).is_some()
}
