//! Every door of the library asked the same positions with its defaults, timed: the
//! analysis (`solve best`, Python's `best`), the play session's hint, the level-5 and
//! perfect players, the engine protocol's `go`, the web board's perfect engine and the
//! perfect opponent of the Python environments. Prints, per door, how many positions gave
//! the analysis's value and exactness, how many were proven, and the median and worst
//! time; then the perfect engine's time per move by seeds on the board, on positions of
//! seeded games between the level-2 engine and the random player.
//!
//! `cargo run --release -p hoyito-benches --example doors -- [GAMES]` (default 6). It uses the
//! small tables of the user's cache (built there first when missing) and no table files.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use hoyito::agents::{Opponent, OpponentKind};
use hoyito::analysis::{analyse, AnalysisOptions};
use hoyito::board::{engine_move, GameSpec};
use hoyito::play::players::{Engine, Strength};
use hoyito::{Diagram, Position6, Rules};

/// The positions every door is asked: the start, a book position, and positions of 8 to 28
/// seeds.
const POSITIONS: &[&str] = &[
    "4,4,4,4,4,4/4,4,4,4,4,4 S 0-0",
    "2,10,4,2,4,9/1,10,1,4,1,0 S 0-0",
    "4,0,1,0,0,1/0,0,0,0,1,1 S 0-0",
    "1,2,0,3,1,1/1,0,2,0,0,1 S 0-0",
    "6,0,0,0,0,1/1,2,2,1,3,0 N 0-0",
    "0,0,0,2,4,1/1,1,1,1,1,8 N 0-28",
    "3,0,2,5,1,1/0,2,4,3,1,2 S 12-12",
    "2,3,4,0,4,1/3,3,3,1,1,3 S 12-8",
];

struct Row {
    door: &'static str,
    same: usize,
    exact: usize,
    times: Vec<f64>,
}

fn main() {
    let games: u64 = std::env::args()
        .nth(1)
        .map(|g| g.parse().expect("GAMES is a number"))
        .unwrap_or(6);
    let rules = Rules::default();
    let doors = [
        "analysis",
        "hint",
        "level 5",
        "perfect",
        "protocol",
        "web engine",
        "opponent",
    ];
    let mut rows: Vec<Row> = doors
        .iter()
        .map(|&door| Row {
            door,
            same: 0,
            exact: 0,
            times: Vec::new(),
        })
        .collect();
    let never = AtomicBool::new(false);
    // Built once: the cache's small layers.
    let tables = hoyito::policy::tables(&rules, None, false, 48, true).expect("tables");
    for text in POSITIONS {
        let d: Diagram = text.parse().expect("a position");
        let p: Position6 = hoyito::setup::position(&rules, Some(&d)).expect("a position");
        let t = Instant::now();
        let a = analyse(&rules, Some(&d), &AnalysisOptions::default()).expect("analysis");
        let reference = (a.score, a.exact);
        let mut answers = vec![(reference, t.elapsed().as_secs_f64())];
        let engine = || Engine::<2>::new(rules, Strength::Level(5), tables.clone(), 1, 16, 1);
        let t = Instant::now();
        let h = engine().analyse(&p);
        answers.push(((h.score, h.exact), t.elapsed().as_secs_f64()));
        for strength in [Strength::Level(5), Strength::Exact] {
            let t = Instant::now();
            let c = engine()
                .choose(&rules, &p, strength, &never)
                .expect("a move");
            let value = c.note.value.unwrap_or(i32::MIN);
            answers.push(((value, c.note.exact), t.elapsed().as_secs_f64()));
        }
        let t = Instant::now();
        let out = hoyito::protocol::run_script_in_turn(&format!("position pos {text}\ngo\n"))
            .expect("protocol");
        answers.push((protocol_score(&out), t.elapsed().as_secs_f64()));
        let spec: GameSpec =
            serde_json::from_value(serde_json::json!({ "start": text })).expect("a spec");
        let t = Instant::now();
        let e = engine_move(&spec, "perfect", None, &never).expect("web engine");
        answers.push((
            (e.value.unwrap_or(i32::MIN), e.exact),
            t.elapsed().as_secs_f64(),
        ));
        let t = Instant::now();
        let mut o = Opponent::<2>::new(rules, OpponentKind::Perfect, None, 1).expect("opponent");
        let mv = o.choose(&p, None);
        // The opponent gives its move only: the same move's proven value is compared.
        let kept = mv.map(|m| value_after(&rules, &p, m.0));
        answers.push((
            (kept.unwrap_or(i32::MIN), reference.1),
            t.elapsed().as_secs_f64(),
        ));
        for (row, (answer, seconds)) in rows.iter_mut().zip(answers) {
            row.same += usize::from(answer == reference || (!reference.1 && !answer.1));
            row.exact += usize::from(answer.1);
            row.times.push(seconds);
        }
    }
    println!(
        "| door | positions | same value and exactness as the analysis | proven | median s | worst s |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for row in &mut rows {
        row.times.sort_by(f64::total_cmp);
        println!(
            "| {} | {} | {} | {} | {:.3} | {:.3} |",
            row.door,
            row.times.len(),
            row.same,
            row.exact,
            row.times[row.times.len() / 2],
            row.times.last().copied().unwrap_or(0.0)
        );
    }
    perfect_times(&rules, games);
}

/// The perfect engine's time per move by the seeds on the board, on positions of seeded
/// games between the level-2 engine and the random player.
fn perfect_times(rules: &Rules, games: u64) {
    let never = AtomicBool::new(false);
    let mut by_seeds: Vec<(u32, Vec<(f64, bool)>)> =
        [28, 24, 20, 16].iter().map(|&s| (s, Vec::new())).collect();
    for g in 0..games {
        let mut level = Opponent::<2>::new(*rules, OpponentKind::Level(2), None, g).expect("level");
        let mut random = Opponent::<2>::new(*rules, OpponentKind::Random, None, g).expect("random");
        let start = Position6::start(rules).expect("start");
        let mut game = hoyito::Game::new(*rules, start);
        let mut moves: Vec<u8> = Vec::new();
        let mut next = 0;
        while next < by_seeds.len() && !game.is_over() {
            let p = game.position();
            let seeds = p.seeds_on_board();
            if seeds <= by_seeds[next].0 {
                let spec: GameSpec =
                    serde_json::from_value(serde_json::json!({ "start": p.to_string() }))
                        .expect("a spec");
                let t = Instant::now();
                match engine_move(&spec, "perfect", None, &never) {
                    Ok(e) => by_seeds[next].1.push((t.elapsed().as_secs_f64(), e.exact)),
                    Err(_) => break,
                }
                while next < by_seeds.len() && seeds <= by_seeds[next].0 {
                    next += 1;
                }
            }
            let player = if p.side_to_move() == hoyito::Side::South {
                &mut level
            } else {
                &mut random
            };
            let Some(m) = player.choose(&p, None) else {
                break;
            };
            moves.push(m.0);
            if game.play(m).is_err() {
                break;
            }
        }
    }
    println!();
    println!("| seeds on the board at most | moves | proven | median s | worst s |");
    println!("| --- | --- | --- | --- | --- |");
    for (seeds, mut times) in by_seeds {
        times.sort_by(|a, b| a.0.total_cmp(&b.0));
        if times.is_empty() {
            continue;
        }
        println!(
            "| {seeds} | {} | {} | {:.3} | {:.3} |",
            times.len(),
            times.iter().filter(|t| t.1).count(),
            times[times.len() / 2].0,
            times.last().map_or(0.0, |t| t.0)
        );
    }
}

/// The proven value, for the side to move in `p`, of `mv`.
fn value_after(rules: &Rules, p: &Position6, mv: u8) -> i32 {
    let moves = p.moves(rules);
    let Some(c) = moves.children().iter().find(|c| c.mv.0 == mv).copied() else {
        return i32::MIN;
    };
    if c.ended_game {
        return c.value(0);
    }
    let d: Diagram = c.position.to_string().parse().expect("a position");
    let options = AnalysisOptions::default();
    match analyse(rules, Some(&d), &options) {
        Ok(a) if a.exact => c.value(a.score),
        _ => i32::MIN,
    }
}

/// The score of the engine protocol's last `info` line with one, and whether it was exact.
fn protocol_score(out: &str) -> (i32, bool) {
    let Some(line) = out
        .lines()
        .rfind(|l| l.starts_with("info") && l.contains(" score "))
    else {
        return (i32::MIN, false);
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|&w| w == "score").unwrap_or(0);
    let value = words
        .get(at + 1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(i32::MIN);
    (value, words.get(at + 2) == Some(&"exact"))
}
