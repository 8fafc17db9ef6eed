//! The rules subcommands: `show`, `moves`, `apply`, `perft`.

use std::time::Instant;

use anyhow::{Context as _, Result};
use clap::Args;
use hoyito_rules::{
    parse_move, perft as perft_seq, perft_parallel, End, Game, Position, Rules, Side, Status,
    Winner,
};
use serde_json::json;

use crate::cli::{position, print_json, resolve, RuleArgs};
use crate::dispatch;

/// Arguments of `solve show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The position, quoted or as separate words, e.g. 4,4,4,4,4,4/4,4,4,4,4,4 S 0-0
    /// [default: the standard start].
    #[arg(num_args = 0..=3, value_name = "POSITION")]
    pub position: Vec<String>,
}

/// Arguments of `solve moves`.
#[derive(Args, Debug)]
pub struct MovesArgs {
    /// The position, quoted or as separate words, e.g. 4,4,4,4,4,4/4,4,4,4,4,4 S 0-0
    /// [default: the standard start].
    #[arg(num_args = 0..=3, value_name = "POSITION")]
    pub position: Vec<String>,
}

/// Arguments of `solve apply`.
#[derive(Args, Debug)]
pub struct ApplyArgs {
    /// The position to start from (`start` for the standard start), quoted or as separate
    /// words, then the moves to play in order, extra turns included, passes left out.
    #[arg(required = true, num_args = 2.., value_name = "POSITION MOVE")]
    pub words: Vec<String>,
}

/// Arguments of `solve perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// The position, quoted or as separate words, e.g. 4,4,4,4,4,4/4,4,4,4,4,4 S 0-0
    /// [default: the standard start].
    #[arg(num_args = 0..=3, value_name = "POSITION")]
    pub position: Vec<String>,
    /// Plies to count.
    #[arg(long, short)]
    pub depth: u32,
    /// Threads [default: all cores]. 1 runs the single-threaded perft.
    #[arg(long)]
    pub threads: Option<usize>,
}

/// A position given as one or more words, joined; `None` when none was given.
pub fn joined(words: &[String]) -> Option<String> {
    (!words.is_empty()).then(|| words.join(" "))
}

/// Splits `POSITION MOVE...` where the position may be one quoted word or up to three words
/// (board, side, captured): a word `S`/`N` after the board, and then a word with a `-`,
/// belong to the position.
pub fn split_position(words: &[String]) -> (String, &[String]) {
    let mut end = 1.min(words.len());
    let mut parts: Vec<&str> = words[..end].iter().map(String::as_str).collect();
    if parts.len() == 1
        && !parts[0].contains(' ')
        && matches!(words.get(end).map(String::as_str), Some("S" | "N"))
    {
        parts.push(&words[end]);
        end += 1;
        if words.get(end).is_some_and(|w| w.contains('-')) {
            parts.push(&words[end]);
            end += 1;
        }
    }
    (parts.join(" "), &words[end..])
}

/// Draws a position for a person: North's row on top, right to left.
pub fn draw<const W: usize>(p: &Position<W>) -> String {
    let h = p.holes();
    let cell = |v: u8| format!("{v:>4}");
    let mut s = String::new();
    s.push_str("         ");
    s.extend((1..=h).rev().map(|k| format!("{:>4}", format!("N{k}"))));
    s.push('\n');
    s.push_str("North  ");
    s.push_str("  ");
    s.extend((1..=h).rev().map(|k| cell(p.seeds_in(Side::North, k))));
    s.push_str(&format!("    captured {}\n", p.captured(Side::North)));
    s.push_str("South  ");
    s.push_str("  ");
    s.extend((1..=h).map(|k| cell(p.seeds_in(Side::South, k))));
    s.push_str(&format!("    captured {}\n", p.captured(Side::South)));
    s.push_str("         ");
    s.extend((1..=h).map(|k| format!("{:>4}", format!("S{k}"))));
    s.push('\n');
    let mover = match p.side_to_move() {
        Side::South => "South",
        Side::North => "North",
    };
    s.push_str(&format!(
        "{mover} to move; {} seeds on the board\n",
        p.seeds_on_board()
    ));
    s
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::South => "S",
        Side::North => "N",
    }
}

/// `solve show`.
pub fn show(args: &RuleArgs, json: bool, a: &ShowArgs) -> Result<()> {
    let (rules, d) = resolve(args, joined(&a.position).as_deref())?;
    dispatch!(rules, show_sized(&rules, d.as_ref(), json))
}

fn show_sized<const W: usize>(
    rules: &Rules,
    d: Option<&hoyito_rules::Diagram>,
    json: bool,
) -> Result<()> {
    let p: Position<W> = position(rules, d)?;
    if json {
        let (s, n) = p.rows();
        print_json(&json!({
            "position": p.to_string(),
            "south": s,
            "north": n,
            "side": side_name(p.side_to_move()),
            "captured": [p.captured(Side::South), p.captured(Side::North)],
            "seeds_on_board": p.seeds_on_board(),
            "rules": rules_json(rules),
        }));
    } else {
        println!("{rules}");
        print!("{}", draw(&p));
        println!("{p}");
    }
    Ok(())
}

/// The rules as a JSON object.
pub fn rules_json(r: &Rules) -> serde_json::Value {
    json!({
        "variant": r.variant().to_string(),
        "holes": r.holes(),
        "seeds": r.seeds(),
        "last_four": r.last_four().to_string(),
        "capture_side": r.capture_side().to_string(),
    })
}

/// `solve moves`.
pub fn moves(args: &RuleArgs, json: bool, a: &MovesArgs) -> Result<()> {
    let (rules, d) = resolve(args, joined(&a.position).as_deref())?;
    dispatch!(rules, moves_sized(&rules, d.as_ref(), json))
}

fn moves_sized<const W: usize>(
    rules: &Rules,
    d: Option<&hoyito_rules::Diagram>,
    json: bool,
) -> Result<()> {
    let p: Position<W> = position(rules, d)?;
    let list = p.moves(rules);
    let endless: Vec<u8> = list.endless().map(|m| m.0).collect();
    let rows: Vec<_> = list
        .children()
        .iter()
        .map(|c| {
            let (after, status) = c.position.settle(rules);
            (c, after, status == Status::Over)
        })
        .collect();
    if json {
        let moves: Vec<_> = rows
            .iter()
            .map(|(c, after, over)| {
                json!({
                    "move": c.mv.0,
                    "position": after.to_string(),
                    "captured": c.captured,
                    "extra_turn": c.extra_turn,
                    "over": over,
                })
            })
            .collect();
        print_json(&json!({ "position": p.to_string(), "moves": moves, "endless": endless }));
    } else {
        println!("{p}");
        if rows.is_empty() {
            println!("no legal move: {} passes", p.side_to_move());
        }
        for (c, after, over) in &rows {
            let mut notes = Vec::new();
            if c.captured > 0 {
                notes.push(format!("captures {}", c.captured));
            }
            if c.extra_turn && !over {
                notes.push("extra turn".to_string());
            }
            if *over {
                notes.push("game over".to_string());
            }
            println!(
                "  {:>2}  ->  {}{}",
                c.mv.0,
                after,
                if notes.is_empty() {
                    String::new()
                } else {
                    format!("   ({})", notes.join(", "))
                }
            );
        }
        for m in &endless {
            println!("  {m:>2}  is illegal: its sowing never ends");
        }
    }
    Ok(())
}

/// `solve apply`.
pub fn apply(args: &RuleArgs, json: bool, a: &ApplyArgs) -> Result<()> {
    let (position, moves) = split_position(&a.words);
    let text = (position != "start").then_some(position.as_str());
    let (rules, d) = resolve(args, text)?;
    if moves.is_empty() {
        anyhow::bail!("no moves to apply: give the moves after the position");
    }
    dispatch!(rules, apply_sized(&rules, d.as_ref(), moves, json))
}

fn apply_sized<const W: usize>(
    rules: &Rules,
    d: Option<&hoyito_rules::Diagram>,
    moves: &[String],
    json: bool,
) -> Result<()> {
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
    let winner = game.winner().map(|w| match w {
        Winner::Side(s) => side_name(s),
        Winner::Draw => "draw",
    });
    let end = game.end().map(|e| match e {
        End::NoMoves => "no_moves",
        End::Repetition => "repetition",
    });
    if json {
        print_json(&json!({
            "position": p.to_string(),
            "over": game.is_over(),
            "captured": [p.captured(Side::South), p.captured(Side::North)],
            "winner": winner,
            "end": end,
        }));
    } else {
        print!("{}", draw(&p));
        println!("{p}");
        match (end, winner) {
            (Some(e), Some(w)) => println!(
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
            _ => println!("{} to move", p.side_to_move()),
        }
    }
    Ok(())
}

/// Runs `f` on a rayon pool of `threads` threads (all cores when `None`).
pub fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    match threads {
        Some(0) => anyhow::bail!("--threads must be at least 1"),
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .context("cannot start the thread pool")?;
            Ok(pool.install(f))
        }
        None => Ok(f()),
    }
}

/// `solve perft`.
pub fn perft(args: &RuleArgs, json: bool, a: &PerftArgs) -> Result<()> {
    let (rules, d) = resolve(args, joined(&a.position).as_deref())?;
    dispatch!(rules, perft_sized(&rules, d.as_ref(), a, json))
}

fn perft_sized<const W: usize>(
    rules: &Rules,
    d: Option<&hoyito_rules::Diagram>,
    a: &PerftArgs,
    json: bool,
) -> Result<()> {
    let p: Position<W> = position(rules, d)?;
    let t0 = Instant::now();
    let nodes = if a.threads == Some(1) {
        perft_seq(&p, rules, a.depth)
    } else {
        with_threads(a.threads, || perft_parallel(&p, rules, a.depth))?
    };
    let secs = t0.elapsed().as_secs_f64();
    let nps = nodes as f64 / secs.max(1e-9);
    let threads = a.threads.unwrap_or_else(rayon::current_num_threads);
    let st = hoyito_rules::sowing::stats();
    if json {
        print_json(&json!({
            "position": p.to_string(),
            "depth": a.depth,
            "nodes": nodes,
            "seconds": secs,
            "nodes_per_second": nps,
            "threads": threads,
            "long_sowings": st.long_sowings,
            "long_sowing_laps": st.slow_laps,
            "long_sowing_cache_hits": st.cache_hits,
        }));
    } else {
        println!("perft({}) from {p}", a.depth);
        println!("nodes {nodes}");
        println!(
            "time {secs:.3} s, {:.2} M nodes/s on {threads} thread(s)",
            nps / 1e6
        );
        println!(
            "sowings past {} laps: {} ({} answered from the cache, {} laps walked)",
            hoyito_rules::sowing::FAST_LAPS,
            st.long_sowings,
            st.cache_hits,
            st.slow_laps
        );
    }
    Ok(())
}
