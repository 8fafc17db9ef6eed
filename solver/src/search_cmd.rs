//! The search subcommands: `best` (best move and value), `bench` (search depth and speed on
//! a fixed suite) and `match` (games between two search settings, to tune the evaluation).

use std::time::Duration;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use hoyito_rules::{Diagram, Move, Position, Rules};
use hoyito_search::{Config, Eval, Limits, SearchResult, Searcher, TableKind};
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
            retrograde_seeds: None,
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
    #[command(flatten)]
    pub engine: EngineArgs,
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
    let searcher = Searcher::<W>::new(*rules, a.engine.config()?);
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
        format!("time {DEFAULT_TIME_MS} ms (default: too large to solve quickly)")
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
        match r.best {
            Some(m) => println!(
                "best move {m}, score {}{}",
                r.score,
                if r.exact { " (exact)" } else { "" }
            ),
            None if r.score == 0 && r.exact && r.nodes <= 1 => println!("the game is over"),
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
