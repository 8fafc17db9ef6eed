//! The rules subcommands: `show`, `moves`, `apply`, `perft`.

use std::fmt;
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{
    parse_move, perft as perft_seq, perft_parallel, sowing, Diagram, End, Game, Position, Rules,
    Side, Status, Winner,
};
use serde::Serialize;

use crate::cli::{ApplyArgs, PerftArgs, PositionArgs, RuleArgs};
use crate::common::{
    dispatch, draw, emit, position, resolve, split_position, with_threads, RulesReport,
};

/// Seeds captured by South and by North.
fn captured<const W: usize>(p: &Position<W>) -> [u8; 2] {
    [p.captured(Side::South), p.captured(Side::North)]
}

/// What `solve show` prints.
#[derive(Serialize)]
struct ShowReport {
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

/// `solve show`.
pub fn show(rules_args: &RuleArgs, json: bool, a: &PositionArgs) -> Result<()> {
    let (rules, d) = resolve(rules_args, a.text().as_deref())?;
    let report = dispatch!(rules, show_sized(&rules, d.as_ref()))?;
    emit(&report, json)
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

/// A legal move and what it leads to.
#[derive(Serialize)]
struct MoveRow {
    #[serde(rename = "move")]
    mv: u8,
    position: String,
    captured: u8,
    extra_turn: bool,
    over: bool,
}

/// What `solve moves` prints.
#[derive(Serialize)]
struct MovesReport {
    position: String,
    moves: Vec<MoveRow>,
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

/// `solve moves`.
pub fn moves(rules_args: &RuleArgs, json: bool, a: &PositionArgs) -> Result<()> {
    let (rules, d) = resolve(rules_args, a.text().as_deref())?;
    let report = dispatch!(rules, moves_sized(&rules, d.as_ref()))?;
    emit(&report, json)
}

fn moves_sized<const W: usize>(rules: &Rules, d: Option<&Diagram>) -> Result<MovesReport> {
    let p: Position<W> = position(rules, d)?;
    let list = p.moves(rules);
    let moves = list
        .children()
        .iter()
        .map(|c| {
            let (after, status) = c.position.settle(rules);
            MoveRow {
                mv: c.mv.0,
                position: after.to_string(),
                captured: c.captured,
                extra_turn: c.extra_turn,
                over: status == Status::Over,
            }
        })
        .collect();
    Ok(MovesReport {
        position: p.to_string(),
        moves,
        endless: list.endless().map(|m| m.0).collect(),
        side: p.side_to_move(),
    })
}

/// What `solve apply` prints.
#[derive(Serialize)]
struct ApplyReport {
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

/// `solve apply`.
pub fn apply(rules_args: &RuleArgs, json: bool, a: &ApplyArgs) -> Result<()> {
    let (position, moves) = split_position(&a.words);
    let text = (position != "start").then_some(position.as_str());
    let (rules, d) = resolve(rules_args, text)?;
    if moves.is_empty() {
        bail!("no moves to apply: give the moves after the position");
    }
    let report = dispatch!(rules, apply_sized(&rules, d.as_ref(), moves))?;
    emit(&report, json)
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
struct PerftReport {
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

/// `solve perft`.
pub fn perft(rules_args: &RuleArgs, json: bool, a: &PerftArgs) -> Result<()> {
    let (rules, d) = resolve(rules_args, a.position.text().as_deref())?;
    let report = dispatch!(rules, perft_sized(&rules, d.as_ref(), a))?;
    emit(&report, json)
}

fn perft_sized<const W: usize>(
    rules: &Rules,
    d: Option<&Diagram>,
    a: &PerftArgs,
) -> Result<PerftReport> {
    let p: Position<W> = position(rules, d)?;
    let t0 = Instant::now();
    let nodes = if a.threads == Some(1) {
        perft_seq(&p, rules, a.depth)
    } else {
        with_threads(a.threads, || perft_parallel(&p, rules, a.depth))?
    };
    let seconds = t0.elapsed().as_secs_f64();
    let st = sowing::stats();
    Ok(PerftReport {
        position: p.to_string(),
        depth: a.depth,
        nodes,
        seconds,
        nodes_per_second: nodes as f64 / seconds.max(1e-9),
        threads: a.threads.unwrap_or_else(rayon::current_num_threads),
        long_sowings: st.long_sowings,
        long_sowing_laps: st.slow_laps,
        long_sowing_cache_hits: st.cache_hits,
    })
}
