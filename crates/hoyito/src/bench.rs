//! The bench: search depth and speed on a fixed suite of positions (`data/bench/`), and a
//! node count at a fixed depth on one thread that fingerprints the search (same code, same
//! count).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{Position, Rules};
use hoyito_search::{plain_search, Config, Limits, SearchResult, Searcher};
use serde::Serialize;

use crate::analysis::EngineOptions;
use crate::setup::{dispatch, open_tables};

/// What a bench measures and how.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Time for each position, in milliseconds.
    pub time_ms: u64,
    /// Search each position to this depth instead of for a time.
    pub depth: Option<u32>,
    /// Depth of the single-threaded searches whose node count is the fingerprint (`None`:
    /// 10 on 2x6, 7 on 2x12).
    pub fingerprint_depth: Option<u32>,
    /// Plain alpha-beta (no table, no move ordering, one thread), for comparison.
    pub plain: bool,
    /// Prove each position's value, giving up after `time_ms`.
    pub exact: bool,
    /// Endgame tables for the searches (none: the search alone).
    pub tables: Option<PathBuf>,
    /// How the searches search.
    pub engine: EngineOptions,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            time_ms: 1000,
            depth: None,
            fingerprint_depth: None,
            plain: false,
            exact: false,
            tables: None,
            engine: EngineOptions::default(),
        }
    }
}

/// The built-in bench suites (kept in `data/bench/`).
const SUITE6: &str = include_str!("../../../data/bench/suite6.txt");
const SUITE12: &str = include_str!("../../../data/bench/suite12.txt");

/// The built-in suite of a board with `holes` holes a row (there is one for 6 and 12).
pub fn builtin_suite(holes: usize) -> Result<&'static str> {
    match holes {
        6 => Ok(SUITE6),
        12 => Ok(SUITE12),
        h => bail!("there is a built-in suite for 6 and 12 holes, not {h}"),
    }
}

/// The positions of a suite's text: one a line, blank lines and `#` comments skipped.
pub fn suite_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// Runs the bench on the positions of `lines` under `rules`.
pub fn bench(rules: &Rules, lines: &[&str], a: &BenchOptions) -> Result<BenchReport> {
    dispatch!(rules, bench_sized(rules, lines, a))
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
pub struct BenchReport {
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

fn bench_sized<const W: usize>(
    rules: &Rules,
    lines: &[&str],
    a: &BenchOptions,
) -> Result<BenchReport> {
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
