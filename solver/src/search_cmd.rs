//! The search subcommands: `best` (best move and value), `bench` (search depth and speed on
//! a fixed suite) and `match` (games between two search settings, to tune the evaluation).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use clap::{Args, ValueEnum};
use hoyito_rules::{Diagram, Game, Move, Position, Rules, Side};
use hoyito_search::{plain_search, Config, Eval, Limits, Probe, SearchResult, Searcher, TableKind};
use hoyito_tables::Tables;
use serde_json::json;

use crate::cli::{position, print_json, resolve, RuleArgs};
use crate::dispatch;
use crate::rules_cmd::joined;

/// Time a search gets when no limit is given and the position is too large to solve.
const DEFAULT_TIME_MS: u64 = 3000;

/// Transposition table design (both are measured by `solve bench`).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TableArg {
    /// Fixed-size lockless table of packed atomic entries.
    Atomic,
    /// DashMap keyed by the exact board.
    Map,
}

impl From<TableArg> for TableKind {
    fn from(t: TableArg) -> Self {
        match t {
            TableArg::Atomic => TableKind::Atomic,
            TableArg::Map => TableKind::Map,
        }
    }
}

/// Search settings shared by `best`, `bench` and `match`.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Search threads [default: all cores]. With 1 the search is deterministic.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Transposition table size in MiB.
    #[arg(long = "hash-mb", default_value_t = 64)]
    pub hash_mb: usize,
    /// Transposition table design.
    #[arg(long, value_enum, default_value = "atomic")]
    pub table: TableArg,
}

impl EngineArgs {
    fn config(&self) -> Result<Config> {
        let threads = match self.threads {
            Some(0) => bail!("--threads must be at least 1"),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        if self.hash_mb == 0 || self.hash_mb > 1 << 16 {
            bail!("--hash-mb must be between 1 and 65536");
        }
        Ok(Config {
            threads,
            hash_mb: self.hash_mb,
            table: self.table.into(),
            eval: Eval::default(),
            ..Config::default()
        })
    }
}

/// Arguments of `solve best`.
#[derive(Args, Debug)]
pub struct BestArgs {
    /// The position, quoted or as separate words [default: the standard start].
    pub position: Vec<String>,
    /// Search to this depth (plies; extra turns count).
    #[arg(long, short, conflicts_with = "exact")]
    pub depth: Option<u32>,
    /// Search for this many milliseconds; the move of the last completed iteration is
    /// returned.
    #[arg(long = "time-ms")]
    pub time_ms: Option<u64>,
    /// Stop after this many nodes (all threads together).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Search to the end of the game and return the proven value.
    #[arg(long)]
    pub exact: bool,
    /// Also give every legal move with its score.
    #[arg(long = "all-moves")]
    pub all_moves: bool,
    /// Endgame tables to use (2x6 only): positions with seeds on the board within them are
    /// exact at once, and exact search stops at them [default: data/tables when built].
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Search without endgame tables.
    #[arg(long = "no-tables", conflicts_with = "tables")]
    pub no_tables: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Endgame tables as the search's oracle.
pub(crate) struct TableProbe(pub(crate) Arc<Tables>);

impl<const W: usize> Probe<W> for TableProbe {
    fn probe(&self, p: &Position<W>) -> Option<i32> {
        self.0.probe(&p.cast::<2>()?)
    }
    fn max_seeds(&self) -> u32 {
        Tables::max_seeds(&self.0) as u32
    }
}

/// Opens the endgame tables `best` asked for, the layers of at most `seeds` seeds (play
/// from the position never reaches larger ones, and each layer is read and checked whole):
/// `None` when they are turned off, not built for these rules (the default folder only),
/// the board is not 2x6, or no layer is small enough.
fn open_tables(rules: &Rules, a: &BestArgs, seeds: usize) -> Result<Option<Arc<Tables>>> {
    if a.no_tables || rules.holes() != 6 {
        return Ok(None);
    }
    let dir = a
        .tables
        .clone()
        .unwrap_or_else(|| PathBuf::from(crate::tables_cmd::DEFAULT_DIR));
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

/// `solve best`.
pub fn best(args: &RuleArgs, json: bool, a: &BestArgs) -> Result<()> {
    let text = joined(&a.position);
    let (rules, d) = resolve(args, text.as_deref())?;
    dispatch!(rules, best_sized(&rules, d.as_ref(), a, json))
}

fn moves_json(mv: &[Move]) -> Vec<u8> {
    mv.iter().map(|m| m.0).collect()
}

fn best_sized<const W: usize>(
    rules: &Rules,
    d: Option<&Diagram>,
    a: &BestArgs,
    json: bool,
) -> Result<()> {
    let p: Position<W> = position(rules, d)?;
    if a.depth == Some(0) {
        bail!("--depth must be at least 1");
    }
    if a.nodes == Some(0) || a.time_ms == Some(0) {
        bail!("--nodes and --time-ms must be at least 1");
    }
    let tables = open_tables(rules, a, p.seeds_on_board() as usize)?;
    let mut searcher = Searcher::<W>::new(*rules, a.engine.config()?);
    if let Some(t) = &tables {
        searcher = searcher.with_probe(Box::new(TableProbe(Arc::clone(t))));
    }
    let tables_seeds = tables.as_ref().map_or(0, |t| Tables::max_seeds(t));
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
    } else if searcher.exact_is_quick(&p) {
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
    let r = searcher.search(&p, &limits);
    // Each move is searched as deep as the main search got (exactly when it was exact).
    let child_limits = if r.exact {
        Limits::exact()
    } else {
        Limits::depth(r.depth.max(1))
    };
    let all = a
        .all_moves
        .then(|| searcher.analyse_moves(&p, &child_limits));
    if json {
        let mut out = result_json(&r);
        out["position"] = json!(p.to_string());
        out["mode"] = json!(mode);
        out["threads"] = json!(searcher.config().threads);
        out["tables_max_seeds"] = json!(tables_seeds);
        if let Some(all) = &all {
            out["moves"] = json!(all
                .iter()
                .map(|(m, s, e)| json!({"move": m.0, "score": s, "exact": e}))
                .collect::<Vec<_>>());
        }
        print_json(&out);
    } else {
        println!("{p}");
        println!("search: {mode}");
        if tables_seeds > 0 {
            println!("endgame tables in use: up to {tables_seeds} seeds on the board");
        }
        match r.best {
            Some(m) => println!(
                "best move {m}, score {}{}",
                r.score,
                if r.exact { " (exact)" } else { "" }
            ),
            None if r.score == 0 && r.exact && r.nodes <= 1 => println!(
                "no move to play: the game is over, or 4 or fewer seeds are left (worth 0)"
            ),
            None => println!(
                "{} must pass; score {}{}",
                p.side_to_move(),
                r.score,
                if r.exact { " (exact)" } else { "" }
            ),
        }
        let n = p.seeds_on_board() as i32;
        if !r.exact && (r.lower > -n || r.upper < n) {
            println!("proven bounds {} ..= {}", r.lower, r.upper);
        }
        println!(
            "depth {}, pv {}",
            r.depth,
            r.pv.iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        );
        println!(
            "{} nodes in {:.3} s ({:.0} nodes/s){}",
            r.nodes,
            r.seconds,
            r.nodes as f64 / r.seconds.max(1e-9),
            if r.stopped {
                ", stopped by a limit"
            } else {
                ""
            }
        );
        if let Some(all) = &all {
            for (m, s, e) in all {
                println!("  {m:>2}: {s}{}", if *e { " (exact)" } else { "" });
            }
        }
    }
    Ok(())
}

/// The JSON object of a search result.
fn result_json(r: &SearchResult) -> serde_json::Value {
    json!({
        "move": r.best.map(|m| m.0),
        "score": r.score,
        "exact": r.exact,
        "bounds": [r.lower, r.upper],
        "depth": r.depth,
        "pv": moves_json(&r.pv),
        "nodes": r.nodes,
        "seconds": r.seconds,
        "stopped": r.stopped,
    })
}

/// Arguments of `solve bench` (the suite is chosen by `--holes 6|12`, 12 by default).
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Time for each position, in milliseconds.
    #[arg(long = "time-ms", default_value_t = 1000)]
    pub time_ms: u64,
    /// Search each position to this depth instead of for a time (time-to-depth).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Depth of the single-threaded searches whose total node count is the fingerprint
    /// [default: 10 on 2x6, 7 on 2x12].
    #[arg(long = "fingerprint-depth")]
    pub fingerprint_depth: Option<u32>,
    /// Plain alpha-beta (no table, no move ordering, one thread) for comparison.
    #[arg(long)]
    pub plain: bool,
    /// A suite file to use instead of the built-in one (one position a line, '#' comments).
    #[arg(long)]
    pub suite: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// The built-in bench suites (kept in `data/bench/`).
const SUITE6: &str = include_str!("../../data/bench/suite6.txt");
const SUITE12: &str = include_str!("../../data/bench/suite12.txt");

/// `solve bench`.
pub fn bench(args: &RuleArgs, json: bool, a: &BenchArgs) -> Result<()> {
    // The built-in suite is picked by --holes (12 when not given).
    let text = match &a.suite {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?,
        None => match args.holes.unwrap_or(12) {
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
    let (rules, _) = resolve(args, Some(first))?;
    dispatch!(rules, bench_sized(&rules, &lines, a, json))
}

fn bench_sized<const W: usize>(
    rules: &Rules,
    lines: &[&str],
    a: &BenchArgs,
    json: bool,
) -> Result<()> {
    let config = a.engine.config()?;
    let threads = if a.plain { 1 } else { config.threads };
    let mut positions = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let p = Position::<W>::parse(rules, l)
            .with_context(|| format!("suite line {}: bad position '{l}'", i + 1))?;
        positions.push(p);
    }
    let limits = match a.depth {
        Some(d) => Limits::depth(d),
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
    let mut rows = Vec::new();
    let (mut nodes, mut secs, mut depth_sum) = (0u64, 0f64, 0u64);
    for p in &positions {
        let r = run(p, &limits, threads);
        nodes += r.nodes;
        secs += r.seconds;
        depth_sum += r.depth as u64;
        rows.push(json!({
            "position": p.to_string(),
            "depth": r.depth,
            "nodes": r.nodes,
            "seconds": r.seconds,
            "nodes_per_second": r.nodes as f64 / r.seconds.max(1e-9),
            "move": r.best.map(|m| m.0),
            "score": r.score,
        }));
        if !json {
            println!(
                "{:<60} depth {:>3}  nodes {:>11}  {:>6.2} s  {:>6.2} Mn/s",
                p.to_string(),
                r.depth,
                r.nodes,
                r.seconds,
                r.nodes as f64 / r.seconds.max(1e-9) / 1e6
            );
        }
    }
    let fp_depth = a
        .fingerprint_depth
        .unwrap_or(if rules.holes() <= 6 { 10 } else { 7 });
    let fingerprint: u64 = positions
        .iter()
        .map(|p| run(p, &Limits::depth(fp_depth), 1).nodes)
        .sum();
    let n = positions.len().max(1) as f64;
    let nps = nodes as f64 / secs.max(1e-9);
    if json {
        print_json(&json!({
            "holes": rules.holes(),
            "time_ms": if a.depth.is_none() { Some(a.time_ms) } else { None },
            "depth": a.depth,
            "threads": threads,
            "plain": a.plain,
            "table": format!("{:?}", config.table).to_lowercase(),
            "positions": rows,
            "mean_depth": depth_sum as f64 / n,
            "nodes": nodes,
            "seconds": secs,
            "nodes_per_second": nps,
            "nodes_per_second_per_thread": nps / threads as f64,
            "fingerprint_depth": fp_depth,
            "fingerprint": fingerprint,
        }));
    } else {
        println!(
            "{} positions, {} thread(s){}: mean depth {:.2}, {} nodes in {:.2} s, {:.2} M nodes/s",
            positions.len(),
            threads,
            if a.plain { ", plain alpha-beta" } else { "" },
            depth_sum as f64 / n,
            nodes,
            secs,
            nps / 1e6
        );
        println!("fingerprint (nodes at depth {fp_depth}, 1 thread): {fingerprint}");
    }
    Ok(())
}

/// Arguments of `solve match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Game pairs to play (each opening is played twice, sides swapped).
    #[arg(long, default_value_t = 20)]
    pub pairs: usize,
    /// Time per move of both players, in milliseconds.
    #[arg(long = "time-ms", conflicts_with = "depth")]
    pub time_ms: Option<u64>,
    /// Depth per move of both players [default: 8].
    #[arg(long)]
    pub depth: Option<u32>,
    /// Player A's evaluation weight of the row difference (sixteenths of a seed).
    #[arg(long = "a-row", default_value_t = Eval::default().row)]
    pub a_row: i32,
    /// Player A's evaluation weight of the non-empty-hole difference.
    #[arg(long = "a-mobility", default_value_t = Eval::default().mobility)]
    pub a_mobility: i32,
    /// Player B's evaluation weight of the row difference.
    #[arg(long = "b-row", default_value_t = 0)]
    pub b_row: i32,
    /// Player B's evaluation weight of the non-empty-hole difference.
    #[arg(long = "b-mobility", default_value_t = 0)]
    pub b_mobility: i32,
    /// Random plies played from the start before the players take over.
    #[arg(long = "random-plies", default_value_t = 4)]
    pub random_plies: usize,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Longest game, in plies (a longer game is scored by the captures so far).
    #[arg(long = "max-plies", default_value_t = 600)]
    pub max_plies: usize,
    /// Write positions reached in the games to this file (for bench suites).
    #[arg(long)]
    pub dump: Option<std::path::PathBuf>,
    /// Plies at which positions are written, comma-separated.
    #[arg(long = "dump-plies", value_delimiter = ',', default_value = "4,20,40")]
    pub dump_plies: Vec<usize>,
    /// Games played at once (each player searches on one thread) [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Transposition table size of each player, in MiB.
    #[arg(long = "hash-mb", default_value_t = 16)]
    pub hash_mb: usize,
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
pub fn play_match(args: &RuleArgs, json: bool, a: &MatchArgs) -> Result<()> {
    let (rules, _) = resolve(args, None)?;
    if a.pairs == 0 {
        bail!("--pairs must be at least 1");
    }
    dispatch!(rules, match_sized(&rules, a, json))
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

fn match_sized<const W: usize>(rules: &Rules, a: &MatchArgs, json: bool) -> Result<()> {
    let limits = match a.time_ms {
        Some(t) => Limits::time_ms(t),
        None => Limits::depth(a.depth.unwrap_or(8)),
    };
    let eval_a = Eval {
        row: a.a_row,
        mobility: a.a_mobility,
    };
    let eval_b = Eval {
        row: a.b_row,
        mobility: a.b_mobility,
    };
    // Openings: random legal plies from the start, fixed by the seed.
    let mut rng = Rng(a.seed);
    let openings: Vec<Vec<Move>> = (0..a.pairs)
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
        .collect();
    let config = |eval| Config {
        threads: 1,
        hash_mb: a.hash_mb,
        table: TableKind::Atomic,
        eval,
        ..Config::default()
    };
    let games = |opening: &Vec<Move>| {
        let pa = Searcher::<W>::new(*rules, config(eval_a));
        let pb = Searcher::<W>::new(*rules, config(eval_b));
        // A plays South, then North.
        let (d1, mut dump) = play_game(rules, opening, [&pa, &pb], &limits, a);
        let (d2, dump2) = play_game(rules, opening, [&pb, &pa], &limits, a);
        dump.extend(dump2);
        (d1, -d2, dump)
    };
    let results: Vec<(i32, i32, Vec<String>)> = {
        use rayon::prelude::*;
        crate::rules_cmd::with_threads(a.threads, || openings.par_iter().map(games).collect())?
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
        let mut out = String::new();
        for (_, _, d) in &results {
            for l in d {
                out.push_str(l);
                out.push('\n');
            }
        }
        std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let games_played = 2 * results.len();
    let score = (wins as f64 + 0.5 * draws as f64) / games_played as f64;
    if json {
        print_json(&json!({
            "games": games_played,
            "a": {"row": a.a_row, "mobility": a.a_mobility},
            "b": {"row": a.b_row, "mobility": a.b_mobility},
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "score": score,
            "mean_margin": margin as f64 / games_played as f64,
        }));
    } else {
        println!(
            "A (row {}, mobility {}) vs B (row {}, mobility {}): {} games, +{} ={} -{}, score {:.3}, mean margin {:+.2} seeds for A",
            a.a_row, a.a_mobility, a.b_row, a.b_mobility, games_played, wins, draws, losses, score,
            margin as f64 / games_played as f64
        );
    }
    Ok(())
}
