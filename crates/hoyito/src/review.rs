//! The review of a recorded game, ply by ply against the engine's values: the value before
//! each move, the best move and its value, the seeds the move lost and its class; per side
//! the share of best moves, the seeds lost and the first error inside the endgame tables;
//! the data of the value graph (drawing it is a front's work); and the record annotated
//! with a comment on every ply.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{Game, Note, Position, Record, Side};
use hoyito_search::{Config, Limits, Searcher};
use serde::Serialize;

use crate::draw::side_name;
use crate::setup::{dispatch, tables_for};

/// How a game is reviewed.
#[derive(Clone, Debug)]
pub struct ReviewOptions {
    /// The record file, for the report.
    pub file: PathBuf,
    /// Which game of the file, from 1, for the report.
    pub game: usize,
    /// Prove every value.
    pub exact: bool,
    /// With `exact`, the milliseconds each ply's proofs may take, all its moves together; a
    /// move not proven within its share is valued by the search so far, marked heuristic
    /// (`None`: no limit).
    pub ply_ms: Option<u64>,
    /// Search each position for this many milliseconds.
    pub time_ms: Option<u64>,
    /// Search each position to this depth (`None`: 10 when no other limit is given).
    pub depth: Option<u32>,
    /// Endgame tables: positions within them are valued exactly.
    pub tables: Option<PathBuf>,
    /// Write the record annotated with a comment on every ply to this file.
    pub output: Option<PathBuf>,
    /// Search threads.
    pub threads: usize,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
}

impl Default for ReviewOptions {
    fn default() -> Self {
        ReviewOptions {
            file: PathBuf::new(),
            game: 1,
            exact: false,
            ply_ms: None,
            time_ms: None,
            depth: None,
            tables: None,
            output: None,
            threads: 1,
            hash_mb: 64,
        }
    }
}

/// Depth of a review given no limit.
const DEFAULT_DEPTH: u32 = 10;

/// The classes of a move by the seeds it lost against the best move: none is `best`, up to
/// [`INACCURACY`] an `inaccuracy`, up to [`MISTAKE`] a `mistake`, more a `blunder`. A capture
/// is 4 seeds: losing one is a mistake, two a blunder.
const INACCURACY: i32 = 3;
/// See [`INACCURACY`].
const MISTAKE: i32 = 7;

/// The class of a move that lost `lost` seeds.
fn class(lost: i32) -> &'static str {
    if lost <= 0 {
        "best"
    } else if lost <= INACCURACY {
        "inaccuracy"
    } else if lost <= MISTAKE {
        "mistake"
    } else {
        "blunder"
    }
}

/// One ply reviewed.
#[derive(Clone, Debug, Serialize)]
pub struct PlyReview {
    /// From 1.
    pub ply: usize,
    /// The mover: `South` or `North`.
    pub side: String,
    /// The move as the record writes it.
    pub token: String,
    /// The position before the move.
    pub position: String,
    /// The value before the move, for the mover (the best move's value).
    pub value: i32,
    /// The best move (the first of equal best moves).
    pub best: u8,
    /// The played move's value, for the mover.
    pub played_value: i32,
    /// Seeds the move lost against the best move.
    pub lost: i32,
    /// `best`, `inaccuracy`, `mistake` or `blunder`.
    pub class: &'static str,
    /// Whether every value of the position was proven (else heuristic).
    pub exact: bool,
    /// Whether the position lies within the endgame tables.
    pub in_tables: bool,
}

/// A side's accuracy.
#[derive(Serialize)]
struct SideReview {
    side: String,
    plies: usize,
    best: usize,
    /// Share of best moves, 0 to 1.
    best_share: f64,
    lost: i32,
    inaccuracies: usize,
    mistakes: usize,
    blunders: usize,
    /// The first ply inside the endgame tables whose move lost seeds.
    first_error_in_tables: Option<usize>,
}

/// A game reviewed.
#[derive(Serialize)]
pub struct ReviewReport {
    file: String,
    game: usize,
    rules: String,
    south: String,
    north: String,
    result: String,
    /// How values were found: the limits, and the tables' reach.
    mode: String,
    tables_max_seeds: usize,
    thresholds: String,
    plies: Vec<PlyReview>,
    sides: [SideReview; 2],
    /// The value before each ply for South, one row a line (text plot).
    graph: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotated: Option<String>,
    /// The SVG value graph a front wrote, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub svg: Option<String>,
}

impl fmt::Display for ReviewReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} game {}: {} (South) vs {} (North), {}, {}",
            self.file, self.game, self.south, self.north, self.rules, self.result
        )?;
        writeln!(f, "values: {}", self.mode)?;
        writeln!(f, "classes by seeds lost: {}", self.thresholds)?;
        writeln!(
            f,
            "{:>4}  {:<7} {:>6} {:>5} {:>6} {:>4}  {:<10} how",
            "ply", "move", "value", "best", "played", "lost", "class"
        )?;
        for p in &self.plies {
            writeln!(
                f,
                "{:>4}  {:<7} {:>+6} {:>5} {:>+6} {:>4}  {:<10} {}{}",
                p.ply,
                p.token,
                p.value,
                p.best,
                p.played_value,
                p.lost,
                p.class,
                if p.exact { "exact" } else { "heuristic" },
                if p.in_tables { ", tables" } else { "" }
            )?;
        }
        for s in &self.sides {
            writeln!(
                f,
                "{}: {} plies, {} best ({:.0}%), {} seeds lost, {} inaccuracies, {} mistakes, \
                 {} blunders; first error inside the tables: {}",
                s.side,
                s.plies,
                s.best,
                100.0 * s.best_share,
                s.lost,
                s.inaccuracies,
                s.mistakes,
                s.blunders,
                s.first_error_in_tables
                    .map_or("none".to_string(), |p| format!("ply {p}"))
            )?;
        }
        writeln!(f, "value for South before each ply:")?;
        write!(f, "{}", self.graph)?;
        if let Some(path) = &self.annotated {
            writeln!(f, "annotated record written to {path}")?;
        }
        if let Some(path) = &self.svg {
            writeln!(f, "value graph written to {path}")?;
        }
        Ok(())
    }
}

/// Reviews a recorded game.
pub fn review(record: &Record, a: &ReviewOptions) -> Result<ReviewReport> {
    review_with_progress(record, a, &|_, _| {})
}

/// [`review`], telling `progress` the ply about to be reviewed and the plies in all.
pub fn review_with_progress(
    record: &Record,
    a: &ReviewOptions,
    progress: &dyn Fn(usize, usize),
) -> Result<ReviewReport> {
    // A file that cannot be written is said before the review's searches, not after.
    if let Some(path) = &a.output {
        writable("-o", path)?;
    }
    if a.ply_ms == Some(0) {
        return Err(crate::error::bad_option("ply_ms", "must be at least 1"));
    }
    dispatch!(record.rules, review_sized(record, a, progress))
}

impl ReviewReport {
    /// The plies reviewed, in order.
    pub fn plies(&self) -> &[PlyReview] {
        &self.plies
    }

    /// The value for South before each ply: the points of the value graph.
    pub fn south_values(&self) -> Vec<i32> {
        south_values(&self.plies)
    }
}

fn review_sized<const W: usize>(
    record: &Record,
    a: &ReviewOptions,
    progress: &dyn Fn(usize, usize),
) -> Result<ReviewReport> {
    let rules = record.rules;
    let game: Game<W> = record.game()?;
    let seeds = rules.holes() * 2 * rules.seeds();
    let tables = tables_for(&rules, a.tables.as_deref(), a.tables.is_none(), seeds)?;
    let table_seeds = tables
        .as_ref()
        .map_or(0, hoyito_rules::Probe::<W>::max_seeds);
    let config = Config {
        threads: a.threads,
        hash_mb: a.hash_mb,
        ..Config::default()
    };
    let searcher = Searcher::<W>::new(rules, config);
    let searcher = match tables {
        Some(t) => searcher.with_probe(Box::new(t)),
        None => searcher,
    };
    let (limits, mode) = if a.exact {
        match a.ply_ms {
            Some(ms) => (
                Limits {
                    time: Some(Duration::from_millis(ms)),
                    ..Limits::exact()
                },
                format!("exact, at most {ms} ms a ply"),
            ),
            None => (Limits::exact(), "exact".to_string()),
        }
    } else if let Some(t) = a.time_ms {
        (Limits::time_ms(t), format!("{t} ms a move searched"))
    } else {
        let d = a.depth.unwrap_or(DEFAULT_DEPTH);
        (Limits::depth(d), format!("depth {d}"))
    };
    let mode = if table_seeds > 0 {
        format!("{mode}; exact inside the tables (up to {table_seeds} seeds on the board)")
    } else {
        mode
    };
    let mut plies = Vec::new();
    let n = record.plies.len();
    for (i, (p, ply)) in game.positions().iter().zip(&record.plies).enumerate() {
        progress(i + 1, n);
        plies.push(review_ply(&searcher, p, ply, i + 1, &limits, table_seeds));
    }
    let sides = [Side::South, Side::North].map(|s| side_review(&plies, s));
    let graph = graph(&plies);
    let annotated = match &a.output {
        Some(path) => {
            let mut out = record.clone();
            for (ply, r) in out.plies.iter_mut().zip(&plies) {
                let time_ms = ply.note.as_ref().and_then(|n| n.time_ms);
                ply.note = Some(Note {
                    value: Some(r.value),
                    exact: r.exact,
                    best: Some(hoyito_rules::Move(r.best)),
                    time_ms,
                    text: format!("class={} lost={}", r.class, r.lost),
                });
            }
            std::fs::write(path, hoyito_rules::try_write_records(&[out])?)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Some(path.display().to_string())
        }
        None => None,
    };
    Ok(ReviewReport {
        file: a.file.display().to_string(),
        game: a.game,
        rules: rules.to_string(),
        south: record.south.clone(),
        north: record.north.clone(),
        result: record.result().to_string(),
        mode,
        tables_max_seeds: table_seeds as usize,
        thresholds: format!(
            "best 0, inaccuracy 1..={INACCURACY}, mistake {}..={MISTAKE}, blunder {} or more",
            INACCURACY + 1,
            MISTAKE + 1
        ),
        plies,
        sides,
        graph,
        annotated,
        svg: None,
    })
}

/// Checks that `path` (given with `flag`) can be written: a file name in a folder that
/// exists.
pub fn writable(flag: &str, path: &Path) -> Result<()> {
    if path.is_dir() {
        bail!("{flag} {} is a folder: give a file name", path.display());
    }
    let parent = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = parent {
        if !dir.is_dir() {
            bail!(
                "{flag} {}: the folder {} does not exist",
                path.display(),
                dir.display()
            );
        }
    }
    Ok(())
}

/// Reviews the move `ply` played in `p`: every legal move valued, exactly inside the tables.
fn review_ply<const W: usize>(
    searcher: &Searcher<W>,
    p: &Position<W>,
    ply: &hoyito_rules::Ply,
    number: usize,
    limits: &Limits,
    table_seeds: u32,
) -> PlyReview {
    let in_tables = p.seeds_on_board() <= table_seeds;
    let mut limits = if in_tables { Limits::exact() } else { *limits };
    // An exact review's time is the ply's: each move gets an even share of it.
    if limits.is_exact() {
        if let Some(t) = limits.time {
            let moves = p.moves(searcher.rules()).len().max(1) as u32;
            limits.time = Some((t / moves).max(Duration::from_millis(1)));
        }
    }
    let values = searcher.analyse_moves(p, &limits);
    // The first of the best moves; a record's move is legal, so the list is not empty.
    let (best, value) = values
        .iter()
        .fold(None, |acc: Option<(u8, i32)>, &(m, v, _)| match acc {
            Some((_, bv)) if bv >= v => acc,
            _ => Some((m.0, v)),
        })
        .unwrap_or((ply.mv.0, 0));
    let played_value = values
        .iter()
        .find(|(m, _, _)| *m == ply.mv)
        .map_or(value, |&(_, v, _)| v);
    let lost = (value - played_value).max(0);
    PlyReview {
        ply: number,
        side: side_name(ply.side).to_string(),
        token: ply.to_string(),
        position: p.to_string(),
        value,
        best,
        played_value,
        lost,
        class: class(lost),
        exact: values.iter().all(|&(_, _, e)| e),
        in_tables,
    }
}

/// The accuracy of `side` over the plies reviewed.
fn side_review(plies: &[PlyReview], side: Side) -> SideReview {
    let mine: Vec<&PlyReview> = plies.iter().filter(|p| p.side == side_name(side)).collect();
    let count = |c: &str| mine.iter().filter(|p| p.class == c).count();
    let best = count("best");
    SideReview {
        side: side_name(side).to_string(),
        plies: mine.len(),
        best,
        best_share: if mine.is_empty() {
            0.0
        } else {
            best as f64 / mine.len() as f64
        },
        lost: mine.iter().map(|p| p.lost).sum(),
        inaccuracies: count("inaccuracy"),
        mistakes: count("mistake"),
        blunders: count("blunder"),
        first_error_in_tables: mine
            .iter()
            .find(|p| p.in_tables && p.lost > 0)
            .map(|p| p.ply),
    }
}

/// Rows of the value graph above and below 0.
const GRAPH_HALF: i32 = 5;

/// A text plot of the value before each ply for South: one column a ply, `*` at the value
/// (scaled to the largest), `-` on the zero line, the scale on the left.
fn graph(plies: &[PlyReview]) -> String {
    let south = south_values(plies);
    let top = south.iter().map(|v| v.abs()).max().unwrap_or(0).max(1);
    let row_of = |v: i32| {
        // Rounded to the nearest row, half away from zero.
        let scaled = v * GRAPH_HALF;
        (scaled + scaled.signum() * top / 2) / top
    };
    let mut out = String::new();
    for row in (-GRAPH_HALF..=GRAPH_HALF).rev() {
        let label = match row {
            GRAPH_HALF => format!("{top:>+5} "),
            0 => format!("{:>5} ", 0),
            r if r == -GRAPH_HALF => format!("{:>+5} ", -top),
            _ => " ".repeat(6),
        };
        out.push_str(&label);
        out.push('|');
        for &v in &south {
            out.push(if row_of(v) == row {
                '*'
            } else if row == 0 {
                '-'
            } else {
                ' '
            });
        }
        out.push('\n');
    }
    out.push_str(&format!("{}+ plies 1..{}\n", " ".repeat(6), south.len()));
    out
}

/// The value for South before each ply, as the graphs draw it.
fn south_values(plies: &[PlyReview]) -> Vec<i32> {
    plies
        .iter()
        .map(|p| if p.side == "South" { p.value } else { -p.value })
        .collect()
}
