//! A position looked at through the rules: drawn ([`show`]), its moves with their results
//! ([`moves`]), moves played from it ([`apply`]) and its move tree counted ([`perft`]).
//!
//! ```
//! use hoyito::inspect::perft;
//! use hoyito::Rules;
//! let report = perft(&Rules::default(), None, 3, Some(1)).unwrap();
//! assert_eq!(report.nodes(), hoyito::rules::perft(&hoyito::Position6::start(&Rules::default()).unwrap(), &Rules::default(), 3));
//! ```

use std::fmt;
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{
    parse_move, perft as perft_seq, perft_parallel, sowing, Diagram, End, Game, Position, Rules,
    Side, Winner,
};
use serde::Serialize;

use crate::board::{move_views, MoveView};
use crate::draw::{draw, RulesReport};
use crate::setup::{dispatch, position, with_threads};

/// Seeds captured by South and by North.
fn captured<const W: usize>(p: &Position<W>) -> [u8; 2] {
    [p.captured(Side::South), p.captured(Side::North)]
}

/// What `solve show` prints.
#[derive(Serialize)]
pub struct ShowReport {
    position: String,
    south: Vec<u8>,
    north: Vec<u8>,
    side: String,
    captured: [u8; 2],
    seeds_on_board: u32,
    rules: RulesReport,
    #[serde(skip)]
    rules_line: String,
    #[serde(skip)]
    drawing: String,
}

impl fmt::Display for ShowReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.rules_line)?;
        write!(f, "{}", self.drawing)?;
        writeln!(f, "{}", self.position)
    }
}

/// Draws a position (`None`: the start).
pub fn show(rules: &Rules, d: Option<&Diagram>) -> Result<ShowReport> {
    dispatch!(rules, show_sized(rules, d))
}

fn show_sized<const W: usize>(rules: &Rules, d: Option<&Diagram>) -> Result<ShowReport> {
    let p: Position<W> = position(rules, d)?;
    let (south, north) = p.rows();
    Ok(ShowReport {
        position: p.to_string(),
        south,
        north,
        side: p.side_to_move().to_string(),
        captured: captured(&p),
        seeds_on_board: p.seeds_on_board(),
        rules: RulesReport::of(rules),
        rules_line: rules.to_string(),
        drawing: draw(&p),
    })
}

/// What `solve moves` prints.
#[derive(Serialize)]
pub struct MovesReport {
    position: String,
    moves: Vec<MoveView>,
    endless: Vec<u8>,
    #[serde(skip)]
    side: Side,
}

impl fmt::Display for MovesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.position)?;
        if self.moves.is_empty() {
            writeln!(f, "no legal move: {} passes", self.side)?;
        }
        for m in &self.moves {
            let mut notes = Vec::new();
            if m.captured > 0 {
                notes.push(format!("captures {}", m.captured));
            }
            if m.extra_turn && !m.over {
                notes.push("extra turn".to_string());
            }
            if m.over {
                notes.push("game over".to_string());
            }
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!("   ({})", notes.join(", "))
            };
            writeln!(f, "  {:>2}  ->  {}{notes}", m.mv, m.position)?;
        }
        for m in &self.endless {
            writeln!(f, "  {m:>2}  is illegal: its sowing never ends")?;
        }
        Ok(())
    }
}

/// The legal moves of a position with their results, and the moves that are illegal because their sowing never ends.
pub fn moves(rules: &Rules, d: Option<&Diagram>) -> Result<MovesReport> {
    dispatch!(rules, moves_sized(rules, d))
}

fn moves_sized<const W: usize>(rules: &Rules, d: Option<&Diagram>) -> Result<MovesReport> {
    let p: Position<W> = position(rules, d)?;
    let list = p.moves(rules);
    let moves = move_views(rules, &list);
    Ok(MovesReport {
        position: p.to_string(),
        moves,
        endless: list.endless().map(|m| m.0).collect(),
        side: p.side_to_move(),
    })
}

/// What `solve apply` prints.
#[derive(Serialize)]
pub struct ApplyReport {
    position: String,
    over: bool,
    captured: [u8; 2],
    winner: Option<String>,
    end: Option<&'static str>,
    #[serde(skip)]
    drawing: String,
    #[serde(skip)]
    side: Side,
}

impl fmt::Display for ApplyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.drawing)?;
        writeln!(f, "{}", self.position)?;
        match (self.end, &self.winner) {
            (Some(e), Some(w)) => writeln!(
                f,
                "game over ({}): {}",
                if e == "repetition" {
                    "a position repeated"
                } else {
                    "no moves left"
                },
                if w == "draw" {
                    "draw".to_string()
                } else {
                    format!("{w} wins")
                }
            ),
            _ => writeln!(f, "{} to move", self.side),
        }
    }
}

/// Plays `moves` (hole numbers) from a position (passes are applied automatically).
pub fn apply(rules: &Rules, d: Option<&Diagram>, moves: &[String]) -> Result<ApplyReport> {
    if moves.is_empty() {
        bail!("no moves to apply: give the moves after the position");
    }
    dispatch!(rules, apply_sized(rules, d, moves))
}

fn apply_sized<const W: usize>(
    rules: &Rules,
    d: Option<&Diagram>,
    moves: &[String],
) -> Result<ApplyReport> {
    let start: Position<W> = position(rules, d)?;
    let mut game = Game::new(*rules, start);
    for (i, m) in moves.iter().enumerate() {
        let mv = parse_move(m, rules.holes())
            .with_context(|| format!("move {} of {} ('{m}')", i + 1, moves.len()))?;
        let before = game.position();
        game.play(mv).with_context(|| {
            format!(
                "move {} of {} ({mv}) cannot be played by {} in {before}",
                i + 1,
                moves.len(),
                before.side_to_move()
            )
        })?;
    }
    let p = game.position();
    Ok(ApplyReport {
        position: p.to_string(),
        over: game.is_over(),
        captured: captured(&p),
        winner: game.winner().map(|w| match w {
            Winner::Side(s) => s.to_string(),
            Winner::Draw => "draw".to_string(),
        }),
        end: game.end().map(|e| match e {
            End::NoMoves => "no_moves",
            End::Repetition => "repetition",
        }),
        drawing: draw(&p),
        side: p.side_to_move(),
    })
}

/// What `solve perft` prints.
#[derive(Serialize)]
pub struct PerftReport {
    position: String,
    depth: u32,
    nodes: u64,
    seconds: f64,
    nodes_per_second: f64,
    threads: usize,
    long_sowings: u64,
    long_sowing_laps: u64,
    long_sowing_cache_hits: u64,
}

impl PerftReport {
    /// The count.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

impl fmt::Display for PerftReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "perft({}) from {}", self.depth, self.position)?;
        writeln!(f, "nodes {}", self.nodes)?;
        writeln!(
            f,
            "time {:.3} s, {:.2} M nodes/s on {} thread(s)",
            self.seconds,
            self.nodes_per_second / 1e6,
            self.threads
        )?;
        writeln!(
            f,
            "sowings past {} laps: {} ({} answered from the cache, {} laps walked)",
            sowing::FAST_LAPS,
            self.long_sowings,
            self.long_sowing_cache_hits,
            self.long_sowing_laps
        )
    }
}

/// Counts the move sequences of exactly `depth` plies from a position (extra turns are plies,
/// passes are not).
/// (`threads`: `None` for all cores, 1 for the sequential count.)
pub fn perft(
    rules: &Rules,
    d: Option<&Diagram>,
    depth: u32,
    threads: Option<usize>,
) -> Result<PerftReport> {
    dispatch!(rules, perft_sized(rules, d, depth, threads))
}

fn perft_sized<const W: usize>(
    rules: &Rules,
    d: Option<&Diagram>,
    depth: u32,
    threads: Option<usize>,
) -> Result<PerftReport> {
    let p: Position<W> = position(rules, d)?;
    let t0 = Instant::now();
    let nodes = if threads == Some(1) {
        perft_seq(&p, rules, depth)
    } else {
        with_threads(threads, || perft_parallel(&p, rules, depth))?
    };
    let seconds = t0.elapsed().as_secs_f64();
    let st = sowing::stats();
    Ok(PerftReport {
        position: p.to_string(),
        depth,
        nodes,
        seconds,
        nodes_per_second: nodes as f64 / seconds.max(1e-9),
        threads: threads.unwrap_or_else(rayon::current_num_threads),
        long_sowings: st.long_sowings,
        long_sowing_laps: st.slow_laps,
        long_sowing_cache_hits: st.cache_hits,
    })
}
