//! Game record files (data/RECORDS.md): [`check_records`] validates a file, [`replay`] shows
//! a recorded game move by move (or the position at one ply).

use std::fmt;

use anyhow::Result;
use hoyito_rules::{Game, Position, Record};
use serde::Serialize;

use std::path::Path;

use crate::draw::{draw, draw_marked, side_name, Marks, RulesReport};
use crate::setup::{dispatch, read_record_file};

/// One game of a checked file.
#[derive(Serialize)]
struct CheckedGame {
    /// The game's number in the file, from 1.
    game: usize,
    rules: String,
    south: String,
    north: String,
    plies: usize,
    result: String,
    /// Seeds captured, South then North.
    score: [u8; 2],
    end: String,
}

/// A record file checked.
#[derive(Serialize)]
pub struct RecordsReport {
    file: String,
    games: Vec<CheckedGame>,
    plies: usize,
}

impl fmt::Display for RecordsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} game(s), {} plies, every move checked",
            self.file,
            self.games.len(),
            self.plies
        )?;
        for g in &self.games {
            writeln!(
                f,
                "  game {}: {} vs {} ({}), {} plies, {} {}-{} ({})",
                g.game, g.south, g.north, g.rules, g.plies, g.result, g.score[0], g.score[1], g.end
            )?;
        }
        Ok(())
    }
}

/// Reads every game of a record file, replaying each move under the record's rules.
pub fn check_records(file: &Path) -> Result<RecordsReport> {
    {
        {
            let games: Vec<CheckedGame> = read_record_file(file)?
                .iter()
                .enumerate()
                .map(|(i, r)| CheckedGame {
                    game: i + 1,
                    rules: r.rules.to_string(),
                    south: r.south.clone(),
                    north: r.north.clone(),
                    plies: r.plies.len(),
                    result: r.result().to_string(),
                    score: r.score,
                    end: r.termination.tag().to_string(),
                })
                .collect();
            Ok(RecordsReport {
                file: file.display().to_string(),
                plies: games.iter().map(|g| g.plies).sum(),
                games,
            })
        }
    }
}

/// One ply of a replay.
#[derive(Serialize)]
struct ReplayPly {
    /// The ply's number, from 1.
    ply: usize,
    /// The move as the record writes it (`S5x8`).
    token: String,
    side: String,
    #[serde(rename = "move")]
    mv: u8,
    captured: u8,
    /// The position before the move.
    before: String,
    /// The position after it (passes applied).
    after: String,
    /// Where each lap ended and with how many seeds, as `S3:2` (hole, seeds there).
    laps: Vec<String>,
    #[serde(skip)]
    drawing: String,
}

/// What `solve replay` prints.
#[derive(Serialize)]
pub struct ReplayReport {
    game: usize,
    rules: RulesReport,
    south: String,
    north: String,
    result: String,
    end: String,
    start: String,
    /// `--ply N`: the position after N plies.
    #[serde(skip_serializing_if = "Option::is_none")]
    ply: Option<usize>,
    /// The position shown with `--ply`, else the final one.
    position: String,
    plies: Vec<ReplayPly>,
    #[serde(skip)]
    drawing: String,
    #[serde(skip)]
    rules_line: String,
}

impl fmt::Display for ReplayReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "game {}: {} (South) vs {} (North), {}, {} ({})",
            self.game, self.south, self.north, self.rules_line, self.result, self.end
        )?;
        if let Some(n) = self.ply {
            writeln!(f, "position after {n} plies: {}", self.position)?;
            return write!(f, "{}", self.drawing);
        }
        writeln!(f, "start: {}", self.start)?;
        write!(f, "{}", self.drawing)?;
        for p in &self.plies {
            writeln!(f)?;
            writeln!(
                f,
                "{}. {} ({} plays {}{}); laps {}",
                p.ply,
                p.token,
                p.side,
                p.mv,
                if p.captured > 0 {
                    format!(", captures {}", p.captured)
                } else {
                    String::new()
                },
                p.laps.join(" ")
            )?;
            write!(f, "{}", p.drawing)?;
        }
        Ok(())
    }
}

/// Replays `record`, game `game` of its file: every ply, or only the position after `ply`
/// plies.
pub fn replay(record: &Record, game: usize, ply: Option<usize>) -> Result<ReplayReport> {
    if let Some(n) = ply {
        if n > record.plies.len() {
            return Err(crate::error::bad_option(
                "ply",
                format!("{n}: game {game} has {} plies", record.plies.len()),
            ));
        }
    }
    dispatch!(record.rules, replay_sized(record, game, ply))
}

fn replay_sized<const W: usize>(
    record: &Record,
    number: usize,
    ply: Option<usize>,
) -> Result<ReplayReport> {
    let game: Game<W> = record.game()?;
    let rules = record.rules;
    let h = rules.holes();
    let hole = |i: usize| format!("{}{}", if i < h { 'S' } else { 'N' }, i % h + 1);
    let positions: Vec<Position<W>> = game
        .positions()
        .iter()
        .copied()
        .chain(std::iter::once(game.position()))
        .collect();
    let mut plies = Vec::new();
    for (i, ply) in record.plies.iter().enumerate() {
        let before = positions[i];
        let after = positions[i + 1];
        let trace = before.trace(&rules, ply.mv)?;
        let marks = Marks {
            start: Some(trace.start()),
            landing: Some(trace.landing()),
            captured: trace.captured_holes.clone(),
        };
        plies.push(ReplayPly {
            ply: i + 1,
            token: ply.to_string(),
            side: side_name(ply.side).to_string(),
            mv: ply.mv.0,
            captured: ply.captured,
            before: before.to_string(),
            after: after.to_string(),
            laps: trace
                .laps
                .iter()
                .map(|l| format!("{}:{}", hole(l.landing), l.seeds))
                .collect(),
            drawing: draw_marked(&after, &marks, false),
        });
    }
    let shown = ply.map_or(positions[positions.len() - 1], |n| positions[n]);
    Ok(ReplayReport {
        game: number,
        rules: RulesReport::of(&rules),
        rules_line: rules.to_string(),
        south: record.south.clone(),
        north: record.north.clone(),
        result: record.result().to_string(),
        end: record.termination.tag().to_string(),
        start: positions[0].to_string(),
        ply,
        position: shown.to_string(),
        plies: if ply.is_some() { Vec::new() } else { plies },
        drawing: if ply.is_some() {
            draw(&shown)
        } else {
            draw(&positions[0])
        },
    })
}
