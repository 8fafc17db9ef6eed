//! The search subcommands: `best` (best move and value), `bench` (search depth and speed on
//! a fixed suite) and `match` (games between two search settings, to tune the evaluation).

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{write_records, Diagram, Game, Move, Position, Record, Rules, Side};
use hoyito_search::{plain_search, Config, Eval, Limits, SearchResult, Searcher, TableKind};
use hoyito_stats::{Decision, EloEstimate, MeanInterval, Outcome, Pentanomial, Sprt, Trinomial};
use hoyito_tables::Tables;
use serde::Serialize;

use crate::cli::{BenchArgs, BestArgs, EngineArgs, MatchArgs, RuleArgs};
use crate::client::Client;
use crate::common::{
    dispatch, emit, open_tables, position, read_openings, resolve, search_threads, tables_for,
    with_threads, Rng,
};

/// Time a search gets when no limit is given and the position is too large to solve.
const DEFAULT_TIME_MS: u64 = 3000;

/// The search configuration of the engine flags.
fn config(e: &EngineArgs) -> Result<Config> {
    let threads = search_threads(e.threads)?;
    if e.hash_mb == 0 || e.hash_mb > 1 << 16 {
        bail!("--hash-mb must be between 1 and 65536");
    }
    Ok(Config {
        threads,
        hash_mb: e.hash_mb,
        table: e.table.into(),
        eval: Eval::default(),
        exact_method: e.exact_method.into(),
        explore: e.explore.into(),
        ..Config::default()
    })
}

/// Move numbers for a report.
fn move_numbers(mv: &[Move]) -> Vec<u8> {
    mv.iter().map(|m| m.0).collect()
}

/// A legal move's score, with `--all-moves`.
#[derive(Clone, Serialize)]
struct MoveScore {
    #[serde(rename = "move")]
    mv: u8,
    score: i32,
    exact: bool,
}

/// What `solve best` prints.
#[derive(Clone, Serialize)]
struct BestReport {
    position: String,
    mode: String,
    threads: usize,
    /// Whether another run gives the same result: one thread and no time limit.
    repeatable: bool,
    tables_max_seeds: usize,
    /// Milliseconds spent building the tables in memory, when `best` built them.
    tables_built_ms: Option<u64>,
    #[serde(rename = "move")]
    best: Option<u8>,
    score: i32,
    exact: bool,
    bounds: [i32; 2],
    depth: u32,
    pv: Vec<u8>,
    nodes: u64,
    seconds: f64,
    stopped: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<MoveScore>>,
    /// Why the answer came from the watchdog, when it did ([`Watchdog`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[serde(skip)]
    side: Side,
    #[serde(skip)]
    seeds_on_board: i32,
}

impl fmt::Display for BestReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let exact = if self.exact { " (exact)" } else { "" };
        writeln!(f, "{}", self.position)?;
        writeln!(f, "search: {}", self.mode)?;
        if !self.repeatable {
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
                match self.tables_built_ms {
                    Some(ms) => format!(" (built in memory in {:.2} s)", ms as f64 / 1000.0),
                    None => String::new(),
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
        for m in self.moves.iter().flatten() {
            let exact = if m.exact { " (exact)" } else { "" };
            writeln!(f, "  {}: {}{exact}", m.mv, m.score)?;
        }
        if let Some(note) = &self.note {
            writeln!(f, "{note}")?;
        }
        Ok(())
    }
}

/// Opens the endgame tables `best` asked for (see [`crate::common::tables_for`]).
fn best_tables(rules: &Rules, a: &BestArgs, seeds: usize) -> Result<Option<Arc<Tables>>> {
    tables_for(rules, a.tables.as_deref(), a.no_tables, seeds)
}

/// Seeds on the board up to which `best` builds endgame tables in memory (0: none): for an
/// exact search on 2x6 (asked, or implied by a small position) whose tables, if any, stop
/// below the position's small layers (up to [`SMALL_LAYERS`] seeds). Building them takes
/// about a second; solving their components on the fly in the search takes twice that and
/// twenty times the memory.
fn small_layers(rules: &Rules, a: &BestArgs, seeds: usize, tables: Option<&Tables>) -> usize {
    let limited = a.depth.is_some() || a.time_ms.is_some() || a.nodes.is_some();
    let exact = a.exact || (!limited && seeds <= SMALL_LAYERS);
    let want = SMALL_LAYERS.min(seeds);
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

/// The limits of `best` and the words that say what they are: the flags given, else an
/// exact search when the position is small enough to solve quickly, else the default time.
fn best_limits<const W: usize>(
    a: &BestArgs,
    searcher: &Searcher<W>,
    p: &Position<W>,
) -> (Limits, String) {
    let mut limits = Limits {
        depth: a.depth,
        time: a.time_ms.map(Duration::from_millis),
        nodes: a.nodes,
        exact: a.exact,
    };
    let mode = if a.exact {
        "exact".to_string()
    } else if a.depth.is_some() || a.time_ms.is_some() {
        "limited".to_string()
    } else if searcher.exact_is_quick(p) {
        limits.exact = true;
        "exact (small enough to solve quickly)".to_string()
    } else {
        limits.time = Some(Duration::from_millis(DEFAULT_TIME_MS));
        match a.nodes {
            Some(n) => {
                format!("{n} nodes or {DEFAULT_TIME_MS} ms (default time), whichever comes first")
            }
            None => format!("time {DEFAULT_TIME_MS} ms (default: too large to solve quickly)"),
        }
    };
    (limits, mode)
}

/// `solve best`.
pub fn best(rules_args: &RuleArgs, json: bool, a: &BestArgs) -> Result<()> {
    let (rules, d) = resolve(rules_args, a.position.text().as_deref())?;
    if a.depth == Some(0) {
        bail!("--depth must be at least 1");
    }
    if a.nodes == Some(0) || a.time_ms == Some(0) {
        bail!("--nodes and --time-ms must be at least 1");
    }
    let watchdog = Watchdog::new(json);
    let report = dispatch!(rules, best_sized(&rules, d.as_ref(), a, &watchdog));
    // The command answers now, with its report or its error.
    watchdog.disarm();
    emit(&report?, json)
}

/// How long after its deadline `best` answers when the search has not returned.
const WATCHDOG_GRACE: Duration = Duration::from_millis(10);

/// Keeps `best`'s time limit when the search cannot: generating one move of a position with
/// a long relay sowing can take seconds and cannot be interrupted. Armed with the command's
/// deadline, a thread waits until just after it; if the command has not answered by then, it
/// prints the last report the search gave (its last finished iteration, or a report with no
/// move that says why) and ends the process.
struct Watchdog {
    json: bool,
    /// When the command started.
    start: Instant,
    state: Arc<Mutex<WatchState>>,
}

struct WatchState {
    /// The report to print if the deadline passes first.
    report: Option<BestReport>,
    /// Whether the command's own answer, or the watchdog's, has been taken.
    done: bool,
    /// What the command is doing before its search starts, for the note of an answer with
    /// no move (none: the search itself).
    doing: Option<&'static str>,
}

impl Watchdog {
    fn new(json: bool) -> Self {
        Watchdog {
            json,
            start: Instant::now(),
            state: Arc::new(Mutex::new(WatchState {
                report: None,
                done: false,
                doing: None,
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WatchState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts the thread that answers at `deadline` (plus [`WATCHDOG_GRACE`]).
    fn arm(&self, deadline: Instant) {
        let state = Arc::clone(&self.state);
        let (json, start) = (self.json, self.start);
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
            if let Some(mut r) = s.report.take() {
                r.stopped = true;
                r.seconds = start.elapsed().as_secs_f64();
                r.note = Some(watchdog_note(r.best.is_some(), s.doing));
                if emit(&r, json).is_err() {
                    std::process::exit(1);
                }
            }
            std::process::exit(0);
        });
    }

    /// Replaces the report the watchdog would print.
    fn update(&self, f: impl FnOnce(&mut BestReport)) {
        if let Some(r) = &mut self.lock().report {
            f(r);
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

    /// Sets the report the watchdog would print.
    fn set(&self, r: BestReport) {
        self.lock().report = Some(r);
    }

    /// The command answers itself: the watchdog stays quiet (if it has not answered already,
    /// in which case the process is ending and this waits for it).
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
fn fill(report: &mut BestReport, r: &SearchResult) {
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

fn best_sized<const W: usize>(
    rules: &Rules,
    d: Option<&Diagram>,
    a: &BestArgs,
    watchdog: &Watchdog,
) -> Result<BestReport> {
    // One deadline for the whole command: the tables built in memory, the search and the
    // analysis of every move all fit in --time-ms (and --nodes counts them all).
    let start = Instant::now();
    let deadline = a.time_ms.map(|ms| start + Duration::from_millis(ms));
    let p: Position<W> = position(rules, d)?;
    let seeds = p.seeds_on_board() as usize;
    // The report, filled in as the command goes; the watchdog prints a copy if the deadline
    // passes first (as it is here: no move known yet).
    let n = p.seeds_on_board() as i32;
    let mut report = BestReport {
        position: p.to_string(),
        mode: "limited".to_string(),
        threads: a.engine.threads.unwrap_or(1),
        repeatable: false,
        tables_max_seeds: 0,
        tables_built_ms: None,
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
    };
    watchdog.set(report.clone());
    if let Some(d) = deadline {
        watchdog.arm(d);
    }
    // Each layer is read and checked whole: seconds for the largest ones.
    let mut tables = watchdog.during(
        "reading the endgame tables (each layer is read and checked whole)",
        || best_tables(rules, a, seeds),
    )?;
    if let Some(report) = from_book(rules, &p, a) {
        return Ok(report);
    }
    // The transposition table is allocated before the small tables: that takes time too.
    let config = config(&a.engine)?;
    let mut searcher = watchdog.during("allocating the transposition table", || {
        Searcher::<W>::new(*rules, config)
    });
    // Under a time limit the build (about a second, not stopped at once) gets at most half
    // the time left, and only when that is long enough to finish.
    let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
    let small = match left {
        Some(left) if left < SMALL_LAYERS_MIN_TIME => 0,
        _ => small_layers(rules, a, seeds, tables.as_deref()),
    };
    let mut built_ms = None;
    if small > 0 {
        let t0 = Instant::now();
        let until = Until(left.map(|l| t0 + l / 2));
        let options = hoyito_tables::BuildOptions::default();
        let built = with_threads(a.engine.threads, || {
            hoyito_tables::build_in_memory(rules, small, &options, &until)
        })?;
        match built {
            Ok((t, _)) => {
                built_ms = Some(t0.elapsed().as_millis() as u64);
                tables = Some(Arc::new(t));
            }
            // Out of time: the search goes on without them.
            Err(hoyito_tables::TableError::Interrupted { .. }) => {}
            Err(e) => return Err(e).context("building the small endgame tables in memory"),
        }
    }
    if let Some(t) = &tables {
        searcher = searcher.with_probe(Box::new(Arc::clone(t)));
    }
    let (mut limits, mode) = best_limits(a, &searcher, &p);
    // The main search's share: all that is left, or half of it when every move is analysed
    // after it.
    let share = |left: u64, parts: u64| left / parts.max(1);
    let parts = if a.all_moves { 2 } else { 1 };
    // An exact search notices its deadline between steps of its proofs, some tens of
    // milliseconds apart: the exact searches of the command stop that much earlier.
    let overhead = match limits.time {
        Some(time) if limits.is_exact() => EXACT_OVERHEAD.min(time / 10),
        _ => Duration::ZERO,
    };
    if let Some(time) = limits.time {
        let left = time.saturating_sub(start.elapsed() + overhead);
        limits.time = Some(Duration::from_micros(share(left.as_micros() as u64, parts)));
    }
    limits.nodes = limits.nodes.map(|n| share(n, parts).max(1));
    report.mode = mode;
    report.threads = searcher.config().threads;
    report.repeatable = report.threads == 1 && limits.time.is_none();
    report.tables_max_seeds = tables.as_ref().map_or(0, |t| t.max_seeds());
    report.tables_built_ms = built_ms;
    watchdog.set(report.clone());
    if deadline.is_none() && limits.time.is_some() {
        // The default time limit.
        watchdog.arm(start + Duration::from_millis(DEFAULT_TIME_MS));
    }
    // Each finished iteration is what the watchdog would print (it sets the time itself).
    let stop = std::sync::atomic::AtomicBool::new(false);
    let r = searcher.search_controlled(&p, &limits, &stop, &|r| {
        watchdog.update(|w| fill(w, r));
    });
    fill(&mut report, &r);
    watchdog.set(report.clone());
    let mut nodes_used = r.nodes;
    let moves = a.all_moves.then(|| {
        // Each move is searched as deep as the main search got (exactly when it was exact,
        // see `bounded`), within an even share of the time and nodes left.
        let children = p.moves(rules);
        let children = children.children();
        let command_end = limits.time.map(|_| {
            deadline.unwrap_or_else(|| start + Duration::from_millis(DEFAULT_TIME_MS)) - overhead
        });
        let mut out = Vec::new();
        for (i, c) in children.iter().enumerate() {
            if c.ended_game {
                out.push(MoveScore {
                    mv: c.mv.0,
                    score: c.value(0),
                    exact: true,
                });
                continue;
            }
            let left = (children.len() - i) as u64;
            let time = command_end.map(|end| {
                let rest = end.saturating_duration_since(Instant::now());
                Duration::from_micros(share(rest.as_micros() as u64, left).max(1))
            });
            let nodes = a
                .nodes
                .map(|n| share(n.saturating_sub(nodes_used), left).max(1));
            // Exactly only when the command is exact or a time or node limit bounds it: a
            // search asked for a depth alone can come out exact (a line that takes every
            // seed, or the tables), and an exact search of each move with no limit could
            // then run for hours.
            let bounded = limits.is_exact() || time.is_some() || nodes.is_some();
            let child_limits = Limits {
                time,
                nodes,
                ..if r.exact && bounded {
                    Limits::exact()
                } else {
                    Limits::depth(r.depth.saturating_sub(1).max(1))
                }
            };
            // Each child is a new game: the repetition history starts at the child.
            let cr = searcher.search(&c.position, &child_limits);
            nodes_used += cr.nodes;
            out.push(MoveScore {
                mv: c.mv.0,
                score: c.value(cr.score),
                exact: cr.exact,
            });
            let done = out.clone();
            watchdog.update(|w| {
                w.nodes = nodes_used;
                w.moves = Some(done);
            });
        }
        out
    });
    // All the command searched: with `--all-moves`, the moves' searches too.
    report.nodes = nodes_used;
    report.moves = moves;
    Ok(report)
}

/// A build [`Progress`](hoyito_tables::Progress) that stops at a deadline (none: never).
struct Until(Option<Instant>);

impl hoyito_tables::Progress for Until {
    fn stopped(&self) -> bool {
        self.0.is_some_and(|d| Instant::now() >= d)
    }
}

/// The answer of the opening book, when it holds `p` and `best` was given no limit (or
/// `--exact`), no `--all-moves` and no `--no-book`.
fn from_book<const W: usize>(rules: &Rules, p: &Position<W>, a: &BestArgs) -> Option<BestReport> {
    let limited = a.depth.is_some() || a.time_ms.is_some() || a.nodes.is_some();
    if a.no_book || a.all_moves || limited {
        return None;
    }
    let start = std::time::Instant::now();
    let e = crate::book::lookup(rules, p)?;
    Some(BestReport {
        position: p.to_string(),
        mode: format!(
            "opening book: proven, certificate {} (solve check-proof)",
            e.certificate
        ),
        threads: 1,
        repeatable: true,
        tables_max_seeds: 0,
        tables_built_ms: None,
        best: e.best,
        score: e.value,
        exact: true,
        bounds: [e.value, e.value],
        depth: 0,
        pv: e.best.into_iter().collect(),
        nodes: 0,
        seconds: start.elapsed().as_secs_f64(),
        stopped: false,
        moves: None,
        note: None,
        side: p.side_to_move(),
        seeds_on_board: p.seeds_on_board() as i32,
    })
}

/// One position of a bench suite.
#[derive(Serialize)]
struct BenchRow {
    position: String,
    depth: u32,
    nodes: u64,
    seconds: f64,
    nodes_per_second: f64,
    #[serde(rename = "move")]
    best: Option<u8>,
    score: i32,
    exact: bool,
}

/// What `solve bench` prints.
#[derive(Serialize)]
struct BenchReport {
    holes: usize,
    time_ms: Option<u64>,
    depth: Option<u32>,
    threads: usize,
    plain: bool,
    table: String,
    positions: Vec<BenchRow>,
    mean_depth: f64,
    nodes: u64,
    seconds: f64,
    nodes_per_second: f64,
    nodes_per_second_per_thread: f64,
    fingerprint_depth: u32,
    fingerprint: u64,
    /// With `--exact`: positions proven, and the median and longest time of a position.
    proven: Option<usize>,
    median_seconds: Option<f64>,
    max_seconds: Option<f64>,
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.positions {
            writeln!(
                f,
                "{:<60} depth {:>3}  nodes {:>11}  {:>6.2} s  {:>6.2} Mn/s{}",
                r.position,
                r.depth,
                r.nodes,
                r.seconds,
                r.nodes_per_second / 1e6,
                if self.proven.is_some() {
                    format!(
                        "  score {:>3}{}",
                        r.score,
                        if r.exact { " exact" } else { "" }
                    )
                } else {
                    String::new()
                }
            )?;
        }
        if let (Some(p), Some(m), Some(x)) = (self.proven, self.median_seconds, self.max_seconds) {
            writeln!(
                f,
                "proven {p} of {}, median {m:.3} s, longest {x:.3} s a position",
                self.positions.len()
            )?;
        }
        writeln!(
            f,
            "{} positions, {} thread(s){}: mean depth {:.2}, {} nodes in {:.2} s, {:.2} M nodes/s",
            self.positions.len(),
            self.threads,
            if self.plain { ", plain alpha-beta" } else { "" },
            self.mean_depth,
            self.nodes,
            self.seconds,
            self.nodes_per_second / 1e6
        )?;
        writeln!(
            f,
            "fingerprint (nodes at depth {}, 1 thread): {}",
            self.fingerprint_depth, self.fingerprint
        )
    }
}

/// The built-in bench suites (kept in `data/bench/`).
const SUITE6: &str = include_str!("../../../data/bench/suite6.txt");
const SUITE12: &str = include_str!("../../../data/bench/suite12.txt");

/// `solve bench`.
pub fn bench(rules_args: &RuleArgs, json: bool, a: &BenchArgs) -> Result<()> {
    // The built-in suite is picked by --holes (6 when not given, as everywhere).
    let text = match &a.suite {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?,
        None => match rules_args.holes.unwrap_or(6) {
            6 => SUITE6.to_string(),
            12 => SUITE12.to_string(),
            h => bail!("there is a built-in suite for 6 and 12 holes, not {h}"),
        },
    };
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let first = lines.first().context("the suite holds no position")?;
    let (rules, _) = resolve(rules_args, Some(first))?;
    let report = dispatch!(rules, bench_sized(&rules, &lines, a))?;
    emit(&report, json)
}

fn bench_sized<const W: usize>(
    rules: &Rules,
    lines: &[&str],
    a: &BenchArgs,
) -> Result<BenchReport> {
    let config = config(&a.engine)?;
    let threads = if a.plain { 1 } else { config.threads };
    let mut positions = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let p = Position::<W>::parse(rules, l)
            .with_context(|| format!("suite line {}: bad position '{l}'", i + 1))?;
        positions.push(p);
    }
    let limits = match a.depth {
        Some(d) => Limits::depth(d),
        None if a.exact => Limits {
            exact: true,
            ..Limits::time_ms(a.time_ms)
        },
        None => Limits::time_ms(a.time_ms),
    };
    let tables = match &a.tables {
        Some(dir) => Some(Arc::new(open_tables(rules, dir, usize::MAX)?)),
        None => None,
    };
    let run = |p: &Position<W>, limits: &Limits, threads: usize| -> SearchResult {
        if a.plain {
            plain_search(rules, config.eval, p, limits)
        } else {
            let mut s = Searcher::<W>::new(*rules, Config { threads, ..config });
            if let Some(t) = &tables {
                s = s.with_probe(Box::new(Arc::clone(t)));
            }
            // The transposition table's memory is handed out as it is first touched: it is
            // written whole before the clock starts, as in a game where it has been in use,
            // so that the time is the search's.
            s.clear();
            s.search(p, limits)
        }
    };
    let rows: Vec<BenchRow> = positions
        .iter()
        .map(|p| {
            let r = run(p, &limits, threads);
            BenchRow {
                position: p.to_string(),
                depth: r.depth,
                nodes: r.nodes,
                seconds: r.seconds,
                nodes_per_second: r.nodes as f64 / r.seconds.max(1e-9),
                best: r.best.map(|m| m.0),
                score: r.score,
                exact: r.exact,
            }
        })
        .collect();
    let mut times: Vec<f64> = rows.iter().map(|r| r.seconds).collect();
    times.sort_by(f64::total_cmp);
    let proven = a.exact.then(|| rows.iter().filter(|r| r.exact).count());
    let fingerprint_depth = a
        .fingerprint_depth
        .unwrap_or(if rules.holes() <= 6 { 10 } else { 7 });
    let fingerprint: u64 = positions
        .iter()
        .map(|p| run(p, &Limits::depth(fingerprint_depth), 1).nodes)
        .sum();
    let nodes: u64 = rows.iter().map(|r| r.nodes).sum();
    let seconds: f64 = rows.iter().map(|r| r.seconds).sum();
    let depth_sum: u64 = rows.iter().map(|r| r.depth as u64).sum();
    let nps = nodes as f64 / seconds.max(1e-9);
    Ok(BenchReport {
        holes: rules.holes(),
        time_ms: a.depth.is_none().then_some(a.time_ms),
        depth: a.depth,
        threads,
        plain: a.plain,
        table: format!("{:?}", config.table).to_lowercase(),
        mean_depth: depth_sum as f64 / rows.len().max(1) as f64,
        positions: rows,
        nodes,
        seconds,
        nodes_per_second: nps,
        nodes_per_second_per_thread: nps / threads as f64,
        fingerprint_depth,
        fingerprint,
        proven,
        median_seconds: a
            .exact
            .then(|| times.get(times.len() / 2).copied().unwrap_or(0.0)),
        max_seconds: a.exact.then(|| times.last().copied().unwrap_or(0.0)),
    })
}

/// A player in a match report: evaluation weights and depth.
#[derive(Serialize)]
struct Player {
    row: i32,
    mobility: i32,
    /// Depth per move; `None` under a time limit.
    depth: Option<u32>,
    /// Search threads.
    threads: usize,
}

impl Player {
    fn limits(&self, a: &MatchArgs) -> Limits {
        match (a.time_ms, self.depth) {
            (Some(t), _) => Limits::time_ms(t),
            (None, d) => Limits::depth(d.unwrap_or(DEFAULT_MATCH_DEPTH)),
        }
    }
}

/// Depth per move of a match without --depth or --time-ms.
const DEFAULT_MATCH_DEPTH: u32 = 8;

/// An Elo estimate in a match report (see [`EloEstimate`]); an infinite interval end (a
/// score interval that passes 0 or 1) is written `null` in JSON.
#[derive(Serialize)]
struct EloReport {
    elo: f64,
    elo_error: f64,
    elo_lower: f64,
    elo_upper: f64,
    nelo: f64,
    nelo_error: f64,
    /// Likelihood of superiority of A, 0 to 1.
    los: f64,
}

impl From<EloEstimate> for EloReport {
    fn from(e: EloEstimate) -> Self {
        EloReport {
            elo: e.elo,
            elo_error: e.elo_error,
            elo_lower: e.elo_lower,
            elo_upper: e.elo_upper,
            nelo: e.nelo,
            nelo_error: e.nelo_error,
            los: e.los,
        }
    }
}

/// A mean with its 95% interval in a match report.
#[derive(Serialize)]
struct MeanReport {
    mean: f64,
    error: f64,
    lower: f64,
    upper: f64,
}

impl From<MeanInterval> for MeanReport {
    fn from(m: MeanInterval) -> Self {
        MeanReport {
            mean: m.mean,
            error: m.error,
            lower: m.lower(),
            upper: m.upper(),
        }
    }
}

/// The SPRT of a match report.
#[derive(Serialize)]
struct SprtReport {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: &'static str,
    /// The log-likelihood ratio of the game pairs played.
    llr: f64,
    lower_bound: f64,
    upper_bound: f64,
    /// `H0`, `H1` or `continue` (the pair budget ran out first).
    decision: &'static str,
}

/// What `solve match` prints. Results are A's; the Elo estimate is the pentanomial one (from
/// game pairs), as fastchess reports for paired games, and `elo_trinomial` the one from
/// single games.
#[derive(Serialize)]
struct MatchReport {
    games: usize,
    a: Player,
    b: Player,
    wins: u64,
    draws: u64,
    losses: u64,
    score: f64,
    /// Seeds per game.
    mean_margin: f64,
    /// Game pairs played (fewer than --pairs when the SPRT decided).
    pairs: usize,
    /// Pairs that scored 0, ½, 1, 1½ and 2 points.
    pentanomial: [u64; 5],
    /// Pairs of a win and a loss, and of two draws (both in the middle bucket).
    pairs_win_loss: u64,
    pairs_draw_draw: u64,
    /// Share of games drawn.
    draw_ratio: f64,
    /// `None` when the pairs have no spread (all scored alike).
    elo: Option<EloReport>,
    elo_trinomial: Option<EloReport>,
    /// Seeds A won by per pair (both games together), with its 95% interval.
    pair_margin: Option<MeanReport>,
    sprt: Option<SprtReport>,
}

/// `x ± e` with a sign on `x` (`e` is `inf` when the interval is unbounded).
fn plus_minus(x: f64, e: f64) -> String {
    format!("{x:+.2} ± {e:.2}")
}

impl fmt::Display for MatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "A (row {}, mobility {}) vs B (row {}, mobility {}): {} games, +{} ={} -{}, score {:.3}, mean margin {:+.2} seeds for A",
            self.a.row,
            self.a.mobility,
            self.b.row,
            self.b.mobility,
            self.games,
            self.wins,
            self.draws,
            self.losses,
            self.score,
            self.mean_margin
        )?;
        if let (Some(da), Some(db)) = (self.a.depth, self.b.depth) {
            writeln!(f, "Depth A {da}, B {db}")?;
        }
        let [p0, p1, p2, p3, p4] = self.pentanomial;
        writeln!(
            f,
            "Pairs {}, Ptnml(0-2) [{p0}, {p1}, {p2}, {p3}, {p4}] ({} win-loss, {} draw-draw), draw ratio {:.1}%",
            self.pairs,
            self.pairs_win_loss,
            self.pairs_draw_draw,
            100.0 * self.draw_ratio
        )?;
        match &self.elo {
            Some(e) => writeln!(
                f,
                "Elo {} [{:.2}, {:.2}], nElo {}, LOS {:.2}%",
                plus_minus(e.elo, e.elo_error),
                e.elo_lower,
                e.elo_upper,
                plus_minus(e.nelo, e.nelo_error),
                100.0 * e.los
            )?,
            None => writeln!(f, "Elo: none (all pairs scored alike)")?,
        }
        if let Some(m) = &self.pair_margin {
            writeln!(
                f,
                "Margin per pair {} seeds for A",
                plus_minus(m.mean, m.error)
            )?;
        }
        if let Some(s) = &self.sprt {
            writeln!(
                f,
                "SPRT elo0={} elo1={} alpha={} beta={} ({}): LLR {:.2} ({:.2}, {:.2}), {} after {} pairs",
                s.elo0,
                s.elo1,
                s.alpha,
                s.beta,
                s.model,
                s.llr,
                s.lower_bound,
                s.upper_bound,
                match s.decision {
                    "H0" => "H0 accepted",
                    "H1" => "H1 accepted",
                    _ if s.llr.is_nan() => "undecided (the normalized model has no LLR this far from elo1)",
                    _ => "undecided",
                },
                self.pairs
            )?;
        }
        Ok(())
    }
}

/// `solve match`.
pub fn play_match(rules_args: &RuleArgs, json: bool, a: &MatchArgs) -> Result<()> {
    let (rules, _) = resolve(rules_args, None)?;
    if a.pairs == Some(0) {
        bail!("--pairs must be at least 1");
    }
    let sprt = if a.sprt.is_empty() {
        None
    } else {
        let text = a.sprt.join(" ");
        Some(
            text.parse::<Sprt>()
                .with_context(|| format!("--sprt {text}"))?,
        )
    };
    let report = dispatch!(rules, match_sized(&rules, a, sprt.as_ref()))?;
    emit(&report, json)
}

/// Who moves for a side in a match game: the searcher in process, or a program that speaks
/// the engine protocol with its `go` words.
enum Seat<'a, const W: usize> {
    Engine(&'a Searcher<W>, &'a Limits),
    External(&'a mut Client, &'a str),
}

/// One played game: the final captured difference South minus North (adjudicated where the
/// game was), the dumped positions, and its record.
struct Played {
    margin: i32,
    dumped: Vec<String>,
    record: Record,
}

/// One game. It ends at its end, inside the `tables` (with the exact result), or at the ply
/// cap (scored by the captures so far); the record names the adjudication.
fn play_game<const W: usize>(
    rules: &Rules,
    opening: &Opening<W>,
    mut players: [Seat<'_, W>; 2],
    tables: Option<&Tables>,
    a: &MatchArgs,
) -> Result<Played> {
    let mut dumped = Vec::new();
    let start = opening.start;
    let mut game = Game::new(*rules, start);
    let mut ply = 0;
    let mut dump = |g: &Game<W>, ply: usize| {
        if a.dump_plies.contains(&ply) && !g.is_over() {
            dumped.push(g.position().to_string());
        }
    };
    for &m in &opening.moves {
        dump(&game, ply);
        if game.play(m).is_err() {
            break;
        }
        ply += 1;
    }
    let mut adjudication = None;
    loop {
        if game.is_over() {
            break;
        }
        let p = game.position();
        if let Some(v) = tables.and_then(|t| table_value(t, &p)) {
            let v = if p.side_to_move() == Side::South {
                v
            } else {
                -v
            };
            adjudication = Some(("tables", v));
            break;
        }
        if ply >= a.max_plies {
            adjudication = Some(("ply cap", 0));
            break;
        }
        dump(&game, ply);
        let m = match &mut players[p.side_to_move().index()] {
            Seat::Engine(player, limits) => {
                player.clear();
                player.search(&p, limits).best
            }
            Seat::External(client, go) => client.best(&start, game.moves(), go)?,
        };
        let Some(m) = m else { break };
        if let Err(e) = game.play(m) {
            bail!("a player chose move {m} in {p}: {e}");
        }
        ply += 1;
    }
    let p = game.position();
    let captured = p.captured(Side::South) as i32 - p.captured(Side::North) as i32;
    let mut record = Record::from_game(&game);
    let margin = match adjudication {
        Some((how, future)) => {
            let tag = match how {
                "tables" => format!("tables: exact value {future:+} for South"),
                _ => format!("ply cap of {} plies", a.max_plies),
            };
            record.tags.push(("Adjudication".to_string(), tag));
            // The final margin, South minus North: the captures so far and the seeds the
            // exact value says South will capture net (none at the ply cap).
            record.tags.push((
                "AdjudicatedMargin".to_string(),
                format!("{:+}", captured + future),
            ));
            captured + future
        }
        None => captured,
    };
    Ok(Played {
        margin,
        dumped,
        record,
    })
}

/// The exact value of `p` for its side to move from the tables, when they hold it.
fn table_value<const W: usize>(t: &Tables, p: &Position<W>) -> Option<i32> {
    use hoyito_rules::Probe;
    if !p.is_live() || p.seeds_on_board() > Probe::<W>::max_seeds(t) {
        return None;
    }
    Probe::<W>::probe(t, p)
}

/// An opening: a start position and the plies played from it before the players take over.
struct Opening<const W: usize> {
    start: Position<W>,
    moves: Vec<Move>,
}

/// The openings of the match: the positions of --openings in order (from the first again
/// when --pairs asks for more), or `random_plies` random legal plies from the start, fixed by
/// the seed.
fn openings<const W: usize>(rules: &Rules, a: &MatchArgs) -> Result<Vec<Opening<W>>> {
    if let Some(path) = &a.openings {
        let file = read_openings(path)?;
        let mut out = Vec::with_capacity(file.len());
        for (line, d) in &file {
            let start = Position::<W>::from_diagram(rules, d)
                .with_context(|| format!("{} line {line}", path.display()))?;
            out.push(start);
        }
        let n = a.pairs.unwrap_or(out.len());
        return Ok((0..n)
            .map(|k| Opening {
                start: out[k % out.len()],
                moves: Vec::new(),
            })
            .collect());
    }
    let mut rng = Rng(a.seed);
    let start = Position::<W>::start(rules).expect("valid rules");
    Ok((0..a.pairs.unwrap_or(DEFAULT_PAIRS))
        .map(|_| {
            let mut g = Game::new(*rules, start);
            let mut moves = Vec::new();
            while moves.len() < a.random_plies && !g.is_over() {
                let list = g.position().moves(rules);
                let c = list.children();
                let m = c[(rng.next_u64() % c.len() as u64) as usize].mv;
                g.play(m).expect("a listed move is legal");
                moves.push(m);
            }
            Opening { start, moves }
        })
        .collect())
}

/// Pairs of a match without --pairs or --openings.
const DEFAULT_PAIRS: usize = 20;

/// A played pair: A's margins as South and as North, the dumped positions, and the two
/// records.
type PairResult = (i32, i32, Vec<String>, Vec<Record>);

/// Plays the pairs in batches of one per worker thread and scores them in order, stopping
/// after the first pair at which the SPRT decides. Where it stops depends only on the games,
/// not on the threads: with depth limits and one search thread per player, the same
/// command gives the same match.
fn match_sized<const W: usize>(
    rules: &Rules,
    a: &MatchArgs,
    sprt: Option<&Sprt>,
) -> Result<MatchReport> {
    let player_a = Player {
        row: a.a_row,
        mobility: a.a_mobility,
        depth: a
            .time_ms
            .is_none()
            .then(|| a.a_depth.or(a.depth).unwrap_or(DEFAULT_MATCH_DEPTH)),
        threads: search_threads(Some(a.a_threads)).context("--a-threads")?,
    };
    let player_b = Player {
        row: a.b_row,
        mobility: a.b_mobility,
        depth: a
            .time_ms
            .is_none()
            .then(|| a.b_depth.or(a.depth).unwrap_or(DEFAULT_MATCH_DEPTH)),
        threads: search_threads(Some(a.b_threads)).context("--b-threads")?,
    };
    let (limits_a, limits_b) = (player_a.limits(a), player_b.limits(a));
    let config = |p: &Player| Config {
        threads: p.threads,
        hash_mb: a.hash_mb,
        table: TableKind::Atomic,
        eval: Eval {
            row: p.row,
            mobility: p.mobility,
        },
        ..Config::default()
    };
    let tables = tables_for(rules, a.tables.as_deref(), a.tables.is_none(), usize::MAX)?;
    let tables = tables.as_deref();
    let go = |p: &Player| match p.limits(a) {
        Limits { time: Some(t), .. } => format!("movetime {}", t.as_millis()),
        l => format!("depth {}", l.depth.unwrap_or(DEFAULT_MATCH_DEPTH)),
    };
    let (go_a, go_b) = (go(&player_a), go(&player_b));
    let pair = |(number, opening): (usize, &Opening<W>)| -> Result<PairResult> {
        let pa = Searcher::<W>::new(*rules, config(&player_a));
        let pb = Searcher::<W>::new(*rules, config(&player_b));
        let mut ca = a
            .a_cmd
            .as_deref()
            .map(|c| Client::start(c, rules, a.hash_mb, player_a.threads))
            .transpose()?;
        let mut cb = a
            .b_cmd
            .as_deref()
            .map(|c| Client::start(c, rules, a.hash_mb, player_b.threads))
            .transpose()?;
        let mut game = |a_south: bool| -> Result<Played> {
            let seat_a = match ca.as_mut() {
                Some(c) => Seat::External(c, &go_a),
                None => Seat::Engine(&pa, &limits_a),
            };
            let seat_b = match cb.as_mut() {
                Some(c) => Seat::External(c, &go_b),
                None => Seat::Engine(&pb, &limits_b),
            };
            let seats = if a_south {
                [seat_a, seat_b]
            } else {
                [seat_b, seat_a]
            };
            play_game(rules, opening, seats, tables, a)
        };
        // A plays South, then North.
        let mut first = game(true)?;
        let second = game(false)?;
        let name = |p: &Player, cmd: &Option<String>| {
            let threads = match p.threads {
                1 => String::new(),
                n => format!(" threads {n}"),
            };
            match (cmd, p.depth) {
                (Some(c), _) => format!("{c}{threads}"),
                (None, Some(d)) => format!(
                    "engine depth {d} row {} mobility {}{threads}",
                    p.row, p.mobility
                ),
                (None, None) => format!(
                    "engine {} ms row {} mobility {}{threads}",
                    a.time_ms.unwrap_or(0),
                    p.row,
                    p.mobility
                ),
            }
        };
        let (na, nb) = (name(&player_a, &a.a_cmd), name(&player_b, &a.b_cmd));
        let mut records = Vec::new();
        for (k, (mut r, a_south)) in [(first.record, true), (second.record, false)]
            .into_iter()
            .enumerate()
        {
            (r.south, r.north) = if a_south {
                (na.clone(), nb.clone())
            } else {
                (nb.clone(), na.clone())
            };
            r.match_name = Some("solve match".to_string());
            r.round = Some((2 * number + k + 1) as u32);
            records.push(r);
        }
        first.dumped.extend(second.dumped);
        Ok((first.margin, -second.margin, first.dumped, records))
    };
    let openings = openings::<W>(rules, a)?;

    let mut games = Trinomial::default();
    let mut pairs = Pentanomial::default();
    let mut results: Vec<PairResult> = Vec::new();
    let mut llr = None;
    let mut failure = None;
    with_threads(a.threads, || {
        use rayon::prelude::*;
        let batch = if sprt.is_some() {
            rayon::current_num_threads().max(1)
        } else {
            openings.len()
        };
        'batches: for chunk in openings.chunks(batch) {
            let first = results.len();
            let played: Result<Vec<PairResult>> = chunk
                .par_iter()
                .enumerate()
                .map(|(k, o)| pair((first + k, o)))
                .collect();
            let played = match played {
                Ok(p) => p,
                Err(e) => {
                    failure = Some(e);
                    break 'batches;
                }
            };
            for r in played {
                let (x, y) = (
                    Outcome::from_margin(r.0.into()),
                    Outcome::from_margin(r.1.into()),
                );
                games.add(x);
                games.add(y);
                pairs.add_pair(x, y);
                results.push(r);
                if let Some(s) = sprt {
                    let l = s.llr_pentanomial(&pairs);
                    llr = Some(l);
                    if s.decide(l) != Decision::Continue {
                        break 'batches;
                    }
                }
            }
        }
    })?;

    if let Some(e) = failure {
        return Err(e);
    }
    if let Some(dir) = &a.records {
        let all: Vec<Record> = results.iter().flat_map(|r| r.3.iter().cloned()).collect();
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join("match.txt");
        std::fs::write(&path, write_records(&all))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &a.dump {
        let out: String = results
            .iter()
            .flat_map(|(_, _, d, _)| d.iter().map(|l| format!("{l}\n")))
            .collect();
        std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let margin: i64 = results.iter().map(|&(x, y, _, _)| (x + y) as i64).sum();
    let n_games = 2 * results.len();
    Ok(MatchReport {
        games: n_games,
        a: player_a,
        b: player_b,
        wins: games.wins,
        draws: games.draws,
        losses: games.losses,
        score: games.score().unwrap_or(0.5),
        mean_margin: margin as f64 / n_games as f64,
        pairs: results.len(),
        pentanomial: pairs.counts(),
        pairs_win_loss: pairs.wl,
        pairs_draw_draw: pairs.dd,
        draw_ratio: games.draw_ratio().unwrap_or(0.0),
        elo: pairs.elo().map(EloReport::from),
        elo_trinomial: games.elo().map(EloReport::from),
        pair_margin: MeanInterval::from_values(results.iter().map(|&(x, y, _, _)| (x + y) as f64))
            .map(MeanReport::from),
        sprt: sprt.map(|s| {
            let llr = llr.unwrap_or(0.0);
            SprtReport {
                elo0: s.elo0(),
                elo1: s.elo1(),
                alpha: s.alpha(),
                beta: s.beta(),
                model: s.model().name(),
                llr,
                lower_bound: s.lower_bound(),
                upper_bound: s.upper_bound(),
                decision: s.decide(llr).name(),
            }
        }),
    })
}
