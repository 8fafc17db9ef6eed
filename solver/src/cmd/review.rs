//! `solve review`: a recorded game ply by ply against the engine's values: the value before
//! each move, the best move and its value, the seeds the move lost and its class; per side
//! the share of best moves, the seeds lost and the first error inside the endgame tables; a
//! value graph; and the record annotated with a comment on every ply.

use std::fmt;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{Game, Note, Position, Record, Side};
use hoyito_search::{Config, Limits, Searcher};
use serde::Serialize;

use crate::cli::ReviewArgs;
use crate::common::{dispatch, emit, record_game, side_name, tables_for};

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
#[derive(Serialize)]
struct PlyReview {
    /// From 1.
    ply: usize,
    side: String,
    /// The move as the record writes it.
    token: String,
    /// The position before the move.
    position: String,
    /// The value before the move, for the mover (the best move's value).
    value: i32,
    /// The best move and its value (the first of equal best moves).
    best: u8,
    /// The played move's value, for the mover.
    played_value: i32,
    /// Seeds the move lost against the best move.
    lost: i32,
    class: &'static str,
    /// Whether every value of the position was proven (else heuristic).
    exact: bool,
    /// Whether the position lies within the endgame tables.
    in_tables: bool,
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

/// What `solve review` prints.
#[derive(Serialize)]
struct ReviewReport {
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
    /// The SVG value graph written, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    svg: Option<String>,
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

/// `solve review FILE`.
pub fn run(json: bool, a: &ReviewArgs) -> Result<()> {
    let record = record_game(&a.file, a.game)?;
    // A file that cannot be written is said before the review's searches, not after.
    for (flag, path) in [("-o", &a.output), ("--svg", &a.svg)] {
        if let Some(path) = path {
            writable(flag, path)?;
        }
    }
    let report = dispatch!(record.rules, review_sized(&record, a))?;
    emit(&report, json)
}

fn review_sized<const W: usize>(record: &Record, a: &ReviewArgs) -> Result<ReviewReport> {
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
        (Limits::exact(), "exact".to_string())
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
    for (i, (p, ply)) in game.positions().iter().zip(&record.plies).enumerate() {
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
            std::fs::write(path, hoyito_rules::write_records(&[out]))
                .with_context(|| format!("cannot write {}", path.display()))?;
            Some(path.display().to_string())
        }
        None => None,
    };
    let svg = match &a.svg {
        Some(path) => {
            let text = svg_graph(record, a, &plies);
            std::fs::write(path, text)
                .with_context(|| format!("--svg: cannot write {}", path.display()))?;
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
        svg,
    })
}

/// Checks that `path` (given with `flag`) can be written: a file name in a folder that
/// exists.
fn writable(flag: &str, path: &Path) -> Result<()> {
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
    let limits = if in_tables { Limits::exact() } else { *limits };
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

/// Text that may stand in SVG text and attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The fill of a ply's point by its class (the moves that lost seeds stand out).
fn class_colour(class: &str) -> &'static str {
    match class {
        "best" => "#333333",
        "inaccuracy" => "#e0a000",
        "mistake" => "#e06000",
        _ => "#c00000",
    }
}

/// The value graph as an SVG document: the value for South before each ply, joined by a
/// line; one `circle` of class `ply` a ply, filled where the values were proven and hollow
/// where heuristic, coloured by the move's class, with a tooltip; the zero line, the scale
/// and a legend.
fn svg_graph(record: &Record, a: &ReviewArgs, plies: &[PlyReview]) -> String {
    const LEFT: f64 = 48.0;
    const RIGHT: f64 = 16.0;
    const TOP: f64 = 44.0;
    const PLOT: f64 = 200.0;
    const BOTTOM: f64 = 56.0;
    let values = south_values(plies);
    let n = values.len();
    // Columns of 4 to 16 pixels, about 640 in all, and room for the legend.
    let columns = n.max(1) as f64;
    let plot_width = ((640.0 / columns).clamp(4.0, 16.0) * columns).max(480.0);
    let step = plot_width / columns;
    let width = LEFT + plot_width + RIGHT;
    let height = TOP + PLOT + BOTTOM;
    let top = values.iter().map(|v| v.abs()).max().unwrap_or(0).max(1);
    let x = |i: usize| LEFT + step * (i as f64 + 0.5);
    let y = |v: i32| TOP + PLOT / 2.0 - v as f64 / top as f64 * (PLOT / 2.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    let _ = writeln!(
        s,
        "<title>value for South before each ply: {} game {}</title>",
        escape(&a.file.display().to_string()),
        a.game
    );
    let _ = writeln!(
        s,
        "<rect x=\"0\" y=\"0\" width=\"{width:.0}\" height=\"{height:.0}\" fill=\"white\"/>"
    );
    let _ = writeln!(
        s,
        "<text x=\"{LEFT}\" y=\"18\" font-size=\"13\">{} (South) vs {} (North), {}</text>",
        escape(&record.south),
        escape(&record.north),
        escape(record.result())
    );
    let _ = writeln!(
        s,
        "<text x=\"{LEFT}\" y=\"34\">value for South before each ply, in seeds</text>"
    );
    // The frame, the zero line and the scale.
    let (left, right) = (LEFT, width - RIGHT);
    let _ = writeln!(
        s,
        "<rect x=\"{left}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{PLOT}\" fill=\"none\" stroke=\"#999999\"/>",
        right - left
    );
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{0:.1}\" x2=\"{right:.1}\" y2=\"{0:.1}\" stroke=\"#999999\" stroke-dasharray=\"4 3\"/>",
        y(0)
    );
    for (v, label) in [
        (top, format!("{top:+}")),
        (0, "0".to_string()),
        (-top, format!("{:+}", -top)),
    ] {
        let _ = writeln!(
            s,
            "<text x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>",
            LEFT - 6.0,
            y(v) + 4.0
        );
    }
    // Ply numbers along the bottom: the first, every tenth, the last.
    for i in 0..n {
        let ply = i + 1;
        if ply == 1 || ply % 10 == 0 || ply == n {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.0}\" text-anchor=\"middle\">{ply}</text>",
                x(i),
                TOP + PLOT + 14.0
            );
        }
    }
    if n > 0 {
        let points: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(i, &v)| format!("{:.1},{:.1}", x(i), y(v)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#4060a0\" stroke-width=\"1.5\"/>",
            points.join(" ")
        );
    }
    for (i, (p, &v)) in plies.iter().zip(&values).enumerate() {
        let colour = class_colour(p.class);
        let (fill, proof) = if p.exact {
            (colour, "exact")
        } else {
            ("white", "heuristic")
        };
        let radius = if p.class == "best" { 3.0 } else { 4.5 };
        let _ = writeln!(
            s,
            "<circle class=\"ply {} {proof}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"{radius}\" fill=\"{fill}\" \
             stroke=\"{colour}\" stroke-width=\"1.5\"><title>ply {} {}: {v:+} for South before it; \
             {} (lost {}), {proof}</title></circle>",
            p.class,
            x(i),
            y(v),
            p.ply,
            escape(&p.token),
            p.class,
            p.lost
        );
    }
    // The legend.
    let ly = TOP + PLOT + 36.0;
    let mut lx = LEFT;
    for (label, colour, fill) in [
        ("best", class_colour("best"), class_colour("best")),
        (
            "inaccuracy",
            class_colour("inaccuracy"),
            class_colour("inaccuracy"),
        ),
        ("mistake", class_colour("mistake"), class_colour("mistake")),
        ("blunder", class_colour("blunder"), class_colour("blunder")),
        ("hollow: heuristic", "#333333", "white"),
    ] {
        let _ = writeln!(
            s,
            "<circle cx=\"{:.0}\" cy=\"{:.0}\" r=\"4\" fill=\"{fill}\" stroke=\"{colour}\" stroke-width=\"1.5\"/>",
            lx + 4.0,
            ly - 4.0
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.0}\" y=\"{ly:.0}\">{label}</text>",
            lx + 12.0
        );
        lx += 12.0 + 7.0 * label.len() as f64 + 14.0;
    }
    s.push_str("</svg>\n");
    s
}
