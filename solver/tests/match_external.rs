//! `solve match` with external players (`solve engine` itself through the protocol), game
//! records, and adjudication by the endgame tables and by the ply cap.

mod common;

use common::{built_tables, ok, run};
use hoyito_rules::read_records;
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let mut all = vec!["match", "--threads", "1", "--hash-mb", "4", "--json"];
    all.extend_from_slice(args);
    serde_json::from_str(ok(&all).trim()).unwrap()
}

fn tag<'a>(r: &'a hoyito_rules::Record, name: &str) -> Option<&'a str> {
    r.tags
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn solve_engine_through_the_protocol_plays_as_the_same_player_in_process() {
    let engine = format!("{} engine", env!("CARGO_BIN_EXE_solve"));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let base = ["--pairs", "2", "--depth", "2", "--max-plies", "400"];
    let inside = json(&base);
    let mut args = base.to_vec();
    args.extend(["--a-cmd", &engine, "--records", d]);
    let outside = json(&args);
    for key in ["wins", "draws", "losses", "mean_margin", "pentanomial"] {
        assert_eq!(inside[key], outside[key], "{key}");
    }
    let text = std::fs::read_to_string(dir.path().join("match.txt")).unwrap();
    let games = read_records(&text).unwrap();
    assert_eq!(games.len(), 4);
    assert_eq!(games[0].south, engine);
    assert_eq!(games[1].north, engine);
    assert!(games[0].north.starts_with("engine depth 2"));
    assert_eq!(games[3].round, Some(4));
}

#[test]
fn the_ply_cap_and_the_tables_adjudicate_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    json(&[
        "--pairs",
        "2",
        "--depth",
        "1",
        "--max-plies",
        "10",
        "--records",
        d,
    ]);
    let text = std::fs::read_to_string(dir.path().join("match.txt")).unwrap();
    for r in read_records(&text).unwrap() {
        if r.plies.len() >= 10 {
            assert_eq!(tag(&r, "Adjudication"), Some("ply cap of 10 plies"));
            assert_eq!(r.result(), "*");
        }
    }
    let tables = built_tables("8");
    let t = tables.path().to_str().unwrap();
    json(&[
        "--pairs",
        "3",
        "--depth",
        "2",
        "--tables",
        t,
        "--records",
        d,
    ]);
    let text = std::fs::read_to_string(dir.path().join("match.txt")).unwrap();
    let games = read_records(&text).unwrap();
    let adjudicated: Vec<_> = games
        .iter()
        .filter(|r| tag(r, "Adjudication").is_some_and(|a| a.starts_with("tables")))
        .collect();
    assert!(!adjudicated.is_empty(), "{text}");
    for r in adjudicated {
        // The margin is the captures so far and the exact value of the seeds left.
        let end = r.game::<2>().unwrap().position();
        let margin: i32 = tag(r, "AdjudicatedMargin").unwrap().parse().unwrap();
        let so_far = i32::from(r.score[0]) - i32::from(r.score[1]);
        assert!(
            (margin - so_far).abs() <= end.seeds_on_board() as i32,
            "{margin}"
        );
        assert!(end.seeds_on_board() <= 8);
    }
}

#[test]
fn an_external_player_that_cannot_start_is_an_error() {
    let (success, _, err) = run(&[
        "match",
        "--pairs",
        "1",
        "--depth",
        "1",
        "--b-cmd",
        "/nonexistent/engine",
    ]);
    assert!(!success && err.contains("cannot start the engine"), "{err}");
    assert!(!err.contains("panicked"));
}

/// A program that never answers (`sleep`, or `cat`, which echoes) loses each game on time
/// instead of hanging the match: the handshake and every answer have a time limit, the
/// record says why the game ended, and the report names the player by its command.
#[test]
fn a_player_that_never_answers_loses_on_time() {
    for program in ["sleep 1000", "cat"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let (ok, out, err) = run(&[
            "match",
            "--threads",
            "1",
            "--hash-mb",
            "4",
            "--pairs",
            "1",
            "--depth",
            "1",
            "--a-cmd",
            program,
            "--timeout-ms",
            "300",
            "--records",
            d,
        ]);
        assert!(ok, "{program}: {err}");
        assert!(out.contains(&format!("A ({program})")), "{out}");
        assert!(out.contains("2 games, +0 =0 -2"), "{out}");
        let text = std::fs::read_to_string(dir.path().join("match.txt")).unwrap();
        let games = read_records(&text).unwrap();
        assert_eq!(games.len(), 2);
        for g in &games {
            let why = tag(g, "Adjudication").unwrap_or_else(|| panic!("{text}"));
            assert!(why.starts_with("time: "), "{why}");
        }
    }
}
