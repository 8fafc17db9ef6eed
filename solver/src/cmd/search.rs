//! The search subcommands: `best` (best move and value), `bench` (search depth and speed on
//! a fixed suite) and `match` (games between two search settings, to tune the evaluation).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{Diagram, Game, Move, Position, Rules, Side};
use hoyito_search::{plain_search, Config, Eval, Limits, SearchResult, Searcher, TableKind};
use hoyito_tables::Tables;
use serde::Serialize;

use crate::cli::{BenchArgs, BestArgs, EngineArgs, MatchArgs, RuleArgs, DEFAULT_TABLES_DIR};
use crate::common::{dispatch, emit, position, resolve, search_threads, with_threads};

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
        ..Config::default()
    })
}

/// Move numbers for a report.
fn move_numbers(mv: &[Move]) -> Vec<u8> {
    mv.iter().map(|m| m.0).collect()
}

/// A legal move's score, with `--all-moves`.
#[derive(Serialize)]
struct MoveScore {
    #[serde(rename = "move")]
    mv: u8,
    score: i32,
    exact: bool,
}

/// What `solve best` prints.
#[derive(Serialize)]
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
        Ok(())
    }
}

/// Opens the endgame tables `best` asked for, the layers of at most `seeds` seeds (play
/// from the position never reaches larger ones, and each layer is read and checked whole):
/// `None` when they are turned off, not built for these rules (the default folder only),
/// the board is not 2x6, or no layer is small enough.
fn best_tables(rules: &Rules, a: &BestArgs, seeds: usize) -> Result<Option<Arc<Tables>>> {
    if a.no_tables || rules.holes() != 6 {
        return Ok(None);
    }
    let dir = a
        .tables
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_TABLES_DIR));
    let context = || format!("cannot use the endgame tables in {}", dir.display());
    if Tables::headers(&dir, rules)
        .with_context(context)?
        .is_empty()
    {
        if a.tables.is_some() {
            bail!(
                "no endgame tables for these rules in {} (build them with `solve tables build`)",
                dir.display()
            );
        }
        return Ok(None);
    }
    let tables = Tables::open_up_to(&dir, rules, seeds).with_context(context)?;
    Ok((tables.max_seeds() > 0).then(|| Arc::new(tables)))
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
    let report = dispatch!(rules, best_sized(&rules, d.as_ref(), a))?;
    emit(&report, json)
}

fn best_sized<const W: usize>(
    rules: &Rules,
    d: Option<&Diagram>,
    a: &BestArgs,
) -> Result<BestReport> {
    let p: Position<W> = position(rules, d)?;
    let seeds = p.seeds_on_board() as usize;
    let mut tables = best_tables(rules, a, seeds)?;
    let small = small_layers(rules, a, seeds, tables.as_deref());
    let mut built_ms = None;
    if small > 0 {
        let start = std::time::Instant::now();
        let t = with_threads(a.engine.threads, || Tables::in_memory(rules, small))?
            .context("building the small endgame tables in memory")?;
        built_ms = Some(start.elapsed().as_millis() as u64);
        tables = Some(Arc::new(t));
    }
    let mut searcher = Searcher::<W>::new(*rules, config(&a.engine)?);
    if let Some(t) = &tables {
        searcher = searcher.with_probe(Box::new(Arc::clone(t)));
    }
    let (limits, mode) = best_limits(a, &searcher, &p);
    let r = searcher.search(&p, &limits);
    // Each move is searched as deep as the main search got (exactly when it was exact).
    let child_limits = if r.exact {
        Limits::exact()
    } else {
        Limits::depth(r.depth.max(1))
    };
    let moves = a.all_moves.then(|| {
        searcher
            .analyse_moves(&p, &child_limits)
            .into_iter()
            .map(|(m, score, exact)| MoveScore {
                mv: m.0,
                score,
                exact,
            })
            .collect()
    });
    let threads = searcher.config().threads;
    Ok(BestReport {
        position: p.to_string(),
        mode,
        threads,
        repeatable: threads == 1 && limits.time.is_none(),
        tables_max_seeds: tables.as_ref().map_or(0, |t| t.max_seeds()),
        tables_built_ms: built_ms,
        best: r.best.map(|m| m.0),
        score: r.score,
        exact: r.exact,
        bounds: [r.lower, r.upper],
        depth: r.depth,
        pv: move_numbers(&r.pv),
        nodes: r.nodes,
        seconds: r.seconds,
        stopped: r.stopped,
        moves,
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
    let run = |p: &Position<W>, limits: &Limits, threads: usize| -> SearchResult {
        if a.plain {
            plain_search(rules, config.eval, p, limits)
        } else {
            let s = Searcher::<W>::new(*rules, Config { threads, ..config });
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

/// A player's evaluation weights in a match report.
#[derive(Serialize)]
struct Weights {
    row: i32,
    mobility: i32,
}

/// What `solve match` prints.
#[derive(Serialize)]
struct MatchReport {
    games: usize,
    a: Weights,
    b: Weights,
    wins: u32,
    draws: u32,
    losses: u32,
    score: f64,
    mean_margin: f64,
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
        )
    }
}

/// A small deterministic random generator (splitmix64) for match openings.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// `solve match`.
pub fn play_match(rules_args: &RuleArgs, json: bool, a: &MatchArgs) -> Result<()> {
    let (rules, _) = resolve(rules_args, None)?;
    if a.pairs == 0 {
        bail!("--pairs must be at least 1");
    }
    let report = dispatch!(rules, match_sized(&rules, a))?;
    emit(&report, json)
}

/// One game: the final captured difference South minus North, and the dumped positions.
fn play_game<const W: usize>(
    rules: &Rules,
    opening: &[Move],
    players: [&Searcher<W>; 2],
    limits: &Limits,
    a: &MatchArgs,
) -> (i32, Vec<String>) {
    let mut dumped = Vec::new();
    let mut game = Game::new(*rules, Position::<W>::start(rules).expect("valid rules"));
    let mut ply = 0;
    let mut dump = |g: &Game<W>, ply: usize| {
        if a.dump_plies.contains(&ply) && !g.is_over() {
            dumped.push(g.position().to_string());
        }
    };
    for &m in opening {
        dump(&game, ply);
        if game.play(m).is_err() {
            break;
        }
        ply += 1;
    }
    while !game.is_over() && ply < a.max_plies {
        dump(&game, ply);
        let p = game.position();
        let who = p.side_to_move().index();
        players[who].clear();
        let r = players[who].search(&p, limits);
        let Some(m) = r.best else { break };
        if game.play(m).is_err() {
            break;
        }
        ply += 1;
    }
    let p = game.position();
    (
        p.captured(Side::South) as i32 - p.captured(Side::North) as i32,
        dumped,
    )
}

/// Openings: `random_plies` random legal plies from the start, fixed by the seed.
fn openings<const W: usize>(rules: &Rules, a: &MatchArgs) -> Vec<Vec<Move>> {
    let mut rng = Rng(a.seed);
    (0..a.pairs)
        .map(|_| {
            let mut g = Game::new(*rules, Position::<W>::start(rules).expect("valid rules"));
            let mut moves = Vec::new();
            while moves.len() < a.random_plies && !g.is_over() {
                let list = g.position().moves(rules);
                let c = list.children();
                let m = c[(rng.next() % c.len() as u64) as usize].mv;
                g.play(m).expect("a listed move is legal");
                moves.push(m);
            }
            moves
        })
        .collect()
}

fn match_sized<const W: usize>(rules: &Rules, a: &MatchArgs) -> Result<MatchReport> {
    let limits = match a.time_ms {
        Some(t) => Limits::time_ms(t),
        None => Limits::depth(a.depth.unwrap_or(8)),
    };
    let weights_a = Weights {
        row: a.a_row,
        mobility: a.a_mobility,
    };
    let weights_b = Weights {
        row: a.b_row,
        mobility: a.b_mobility,
    };
    let config = |w: &Weights| Config {
        threads: 1,
        hash_mb: a.hash_mb,
        table: TableKind::Atomic,
        eval: Eval {
            row: w.row,
            mobility: w.mobility,
        },
        ..Config::default()
    };
    let games = |opening: &Vec<Move>| {
        let pa = Searcher::<W>::new(*rules, config(&weights_a));
        let pb = Searcher::<W>::new(*rules, config(&weights_b));
        // A plays South, then North.
        let (d1, mut dump) = play_game(rules, opening, [&pa, &pb], &limits, a);
        let (d2, dump2) = play_game(rules, opening, [&pb, &pa], &limits, a);
        dump.extend(dump2);
        (d1, -d2, dump)
    };
    let openings = openings::<W>(rules, a);
    let results: Vec<(i32, i32, Vec<String>)> = {
        use rayon::prelude::*;
        with_threads(a.threads, || openings.par_iter().map(games).collect())?
    };
    let (mut wins, mut draws, mut losses, mut margin) = (0, 0, 0, 0i64);
    for &(x, y, _) in &results {
        for d in [x, y] {
            margin += d as i64;
            match d.cmp(&0) {
                std::cmp::Ordering::Greater => wins += 1,
                std::cmp::Ordering::Equal => draws += 1,
                std::cmp::Ordering::Less => losses += 1,
            }
        }
    }
    if let Some(path) = &a.dump {
        let out: String = results
            .iter()
            .flat_map(|(_, _, d)| d.iter().map(|l| format!("{l}\n")))
            .collect();
        std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let games = 2 * results.len();
    Ok(MatchReport {
        games,
        a: weights_a,
        b: weights_b,
        wins,
        draws,
        losses,
        score: (wins as f64 + 0.5 * draws as f64) / games as f64,
        mean_margin: margin as f64 / games as f64,
    })
}
