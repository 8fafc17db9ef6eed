//! Runs the `solve` binary: every rules subcommand, the JSON shapes, and bad input.

mod common;

use common::{fails, json, solve};
use serde_json::Value;

#[test]
fn show_draws_north_on_top_right_to_left() {
    let out = solve(&["show", "--seeds", "8", "1,2,3,4,5,6/7,8,9,10,11,0 N 0-4"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let north = text.lines().find(|l| l.starts_with("North")).unwrap();
    let south = text.lines().find(|l| l.starts_with("South")).unwrap();
    let nums = |l: &str| -> Vec<u32> {
        l.split_whitespace()
            .skip(1)
            .take(6)
            .map(|x| x.parse().unwrap())
            .collect()
    };
    assert_eq!(nums(north), vec![0, 11, 10, 9, 8, 7]);
    assert_eq!(nums(south), vec![1, 2, 3, 4, 5, 6]);
    assert!(text.contains("North to move"));
    let v = json(&["show", "--seeds", "8", "1,2,3,4,5,6/7,8,9,10,11,0 N 0-4"]);
    assert_eq!(v["side"], "N");
    assert_eq!(v["captured"], serde_json::json!([0, 4]));
    assert_eq!(v["seeds_on_board"], 66);
}

#[test]
fn show_defaults_to_the_start_of_the_chosen_board() {
    let v = json(&["show", "--holes", "12"]);
    assert_eq!(
        v["position"],
        "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 S 0-0"
    );
    let v = json(&["show", "--holes", "3", "--seeds", "2"]);
    assert_eq!(v["position"], "2,2,2/2,2,2 S 0-0");
}

#[test]
fn moves_lists_results_and_endless_moves() {
    let v = json(&["moves"]);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 6);
    assert_eq!(moves[0]["move"], 1);
    assert_eq!(moves[0]["position"], "2,7,1,6,1,6/6,6,0,1,6,6 N 0-0");
    assert_eq!(moves[0]["captured"], 0);
    assert_eq!(moves[0]["extra_turn"], false);
    assert_eq!(moves[0]["over"], false);
    assert_eq!(v["endless"], serde_json::json!([]));

    let v = json(&[
        "moves",
        "--variant",
        "hoyito3",
        "3,2,9,3,1,0/1,0,2,1,0,2 S 12-12",
    ]);
    let legal: Vec<u64> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_u64().unwrap())
        .collect();
    assert_eq!(legal, vec![1, 2, 3, 5]);
    assert_eq!(v["endless"], serde_json::json!([4]));

    let v = json(&["moves", "2,3,4,0,4,1/3,3,3,1,1,3 S"]);
    let m5 = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == 5)
        .unwrap()
        .clone();
    assert_eq!(m5["captured"], 12);
    assert_eq!(m5["extra_turn"], true);
}

#[test]
fn apply_plays_moves_and_reports_the_end() {
    let v = json(&["apply", "start", "1"]);
    assert_eq!(v["position"], "2,7,1,6,1,6/6,6,0,1,6,6 N 0-0");
    assert_eq!(v["over"], false);
    assert_eq!(v["captured"], serde_json::json!([0, 0]));
    assert_eq!(v["winner"], Value::Null);

    // A vector of data/conformance/apply.jsonl that ends the game.
    let v = json(&[
        "apply",
        "--holes",
        "12",
        "0,1,0,0,0,0,0,0,0,0,0,0/1,0,0,0,0,0,1,1,0,3,1,0 N 48-40",
        "7",
    ]);
    assert_eq!(v["over"], true);
    assert_eq!(v["captured"], serde_json::json!([48, 48]));
    assert_eq!(v["winner"], "draw");

    let v = json(&[
        "apply",
        "--variant",
        "hoyito3",
        "0,3,0,1,0,0/1,0,0,2,0,1 N 20-20",
        "4",
    ]);
    assert_eq!(v["winner"], "N");
}

#[test]
fn positions_may_be_quoted_or_separate_words() {
    let a = json(&["show", "2,3,4,0,4,1/3,3,3,1,1,3", "S", "0-4"]);
    let b = json(&["show", "2,3,4,0,4,1/3,3,3,1,1,3 S 0-4"]);
    assert_eq!(a, b);
    let a = json(&["apply", "2,3,4,0,4,1/3,3,3,1,1,3", "S", "5", "1"]);
    let b = json(&["apply", "2,3,4,0,4,1/3,3,3,1,1,3 S", "5", "1"]);
    assert_eq!(a, b);
    assert_eq!(a["captured"], serde_json::json!([12, 0]));
    fails(&["apply", "start"], "");
}

#[test]
fn perft_counts_and_reports_speed() {
    let v = json(&["perft", "--depth", "4"]);
    assert_eq!(v["nodes"], 819);
    assert_eq!(v["depth"], 4);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    assert!(v["nodes_per_second"].as_f64().is_some());
    let v = json(&[
        "perft",
        "--depth",
        "5",
        "--threads",
        "1",
        "--variant",
        "hoyito3",
    ]);
    assert_eq!(v["nodes"], 4056);
    let v = json(&["perft", "--depth", "3", "--threads", "2", "--holes", "12"]);
    assert_eq!(v["nodes"], 1214);
    let v = json(&["perft", "--depth", "4", "--capture-side", "opponent"]);
    assert_eq!(v["nodes"], 896);
}

#[test]
fn bad_positions_are_rejected_with_where_and_what() {
    fails(&["show", "4,4,4,4,4,4/4,4,4,4,4 S"], "unequal length");
    fails(&["show", "4,4,4,x,4,4/4,4,4,4,4,4 S"], "column 7");
    fails(&["show", "4,4,4,4,4,4 4,4,4,4,4,4 S"], "no '/'");
    fails(
        &["show", "4,4,4,4,4,4/4,4,4,4,4,4 X"],
        "'X' is not 'S' or 'N'",
    );
    fails(&["show", "4,4,4,4,4,4/4,4,4,4,4,4"], "missing side");
    fails(&["show", "4,4,,4,4,4/4,4,4,4,4,4 S"], "empty hole");
    fails(&["show", "4,4,4,4,4,4/4,4,4,4,4,4 S 1:2"], "South-North");
    fails(&["show", "9,9,9,9,9,9/4,4,4,4,4,4 S"], "more than the 48");
    fails(
        &["show", "4,4,4,4,4,4/4,4,4,4,4,4 S 4-0"],
        "more than the 48",
    );
    fails(
        &["show", "--holes", "12", "4,4,4,4,4,4/4,4,4,4,4,4 S"],
        "--holes says 12",
    );
    fails(&["show", "4/4 S"], "2 to 12");
}

#[test]
fn bad_moves_and_flags_are_rejected() {
    fails(&["apply", "start", "7"], "out of range");
    fails(&["apply", "start", "0"], "out of range");
    fails(&["apply", "start", "x"], "not a move");
    fails(&["apply", "start", "1", "3"], "empty");
    fails(
        &[
            "apply",
            "--variant",
            "hoyito3",
            "3,2,9,3,1,0/1,0,2,1,0,2 S 12-12",
            "4",
        ],
        "never ends",
    );
    fails(
        &[
            "apply",
            "--holes",
            "12",
            "0,1,0,0,0,0,0,0,0,0,0,0/1,0,0,0,0,0,1,1,0,3,1,0 N 48-40",
            "7",
            "1",
        ],
        "game is over",
    );
    fails(&["show", "--frobnicate"], "--frobnicate");
    fails(&["show", "--variant", "hoyito9"], "hoyito9");
    fails(&["show", "--holes", "13"], "13 holes");
    fails(&["show", "--seeds", "9"], "9 seeds");
    fails(&["show", "--last-four", "W"], "unknown last-four 'W'");
    fails(&["perft", "--depth", "2", "--threads", "0"], "at least 1");
}

#[test]
fn help_explains_every_subcommand() {
    let out = solve(&["--help"]);
    let text = String::from_utf8(out.stdout).unwrap();
    for cmd in ["show", "moves", "apply", "perft"] {
        assert!(text.contains(cmd), "--help lists {cmd}");
    }
    let out = solve(&["apply", "--help"]);
    assert!(String::from_utf8(out.stdout).unwrap().contains("passes"));
}

#[test]
fn errors_say_their_cause_once() {
    // A bad line of a bench suite: the position's error comes through the rules crate's
    // umbrella error, under the CLI's context.
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.txt");
    std::fs::write(
        &suite,
        "4,4,4,4,4,4/4,4,4,4,4,4 S\n4,4,4,x,4,4/4,4,4,4,4,4 S\n",
    )
    .unwrap();
    let suite = suite.to_str().unwrap();
    let what = "hole count 'x' is not a non-negative number";
    for args in [
        &["bench", "--suite", suite, "--depth", "1", "--threads", "1"][..],
        &["show", "4,4,4,x,4,4/4,4,4,4,4,4 S"],
        &["best", "4,4,4,x,4,4/4,4,4,4,4,4", "S"],
    ] {
        let err = fails(args, what);
        assert_eq!(err.matches(what).count(), 1, "{args:?}: {err}");
        assert_eq!(err.matches("column 7").count(), 1, "{args:?}: {err}");
    }
    let what = "more than the 48 of the game";
    let err = fails(&["moves", "9,9,9,9,9,9/4,4,4,4,4,4 S"], what);
    assert_eq!(err.matches(what).count(), 1, "{err}");
    let what = "the hole is empty";
    let err = fails(&["apply", "start", "1", "3"], what);
    assert_eq!(err.matches(what).count(), 1, "{err}");
}

#[test]
fn hoyito2_plays_with_a_fixed_last_four_award() {
    // North's 6 captures South's 1 and leaves 4 seeds: the game ends, and the last four go
    // to the capturer, or to South with --last-four S, in Hoyito II as in Hoyito III.
    let p = "3,0,0,0,0,4/0,0,0,0,0,1 N";
    let v = json(&["apply", p, "6"]);
    assert_eq!(v["captured"], serde_json::json!([0, 8]));
    assert_eq!(v["winner"], "N");
    let v = json(&["apply", "--last-four", "S", p, "6"]);
    assert_eq!(v["over"], true);
    assert_eq!(v["captured"], serde_json::json!([4, 4]));
    assert_eq!(v["winner"], "draw");
    let v = json(&["show", "--variant", "hoyito2", "--last-four", "S"]);
    assert_eq!(v["rules"]["variant"], "hoyito2");
    assert_eq!(v["rules"]["last_four"], "S");
    let v = json(&["perft", "--depth", "4", "--last-four", "N"]);
    assert_eq!(v["nodes"], 819);
}

#[test]
fn completions_and_the_manual_are_made_from_the_command_line_definition() {
    let out = solve(&["completions", "bash"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // Every subcommand and a flag of one are offered.
    for word in ["best", "prove", "check-proof", "tables", "--all-moves"] {
        assert!(text.contains(word), "bash completion lacks {word}");
    }
    let out = solve(&["completions", "fish"]);
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("complete -c solve"));
    let out = solve(&["man"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(".ie") || text.contains(".TH solve"),
        "{text}"
    );
    assert!(text.contains("check\\-proof"));
    fails(&["completions", "tcsh"], "tcsh");
}

#[test]
fn a_move_number_too_large_for_any_type_is_named_as_typed() {
    let err = fails(&["apply", "start", "99999999999999999999"], "out of range");
    assert!(
        err.contains("move 99999999999999999999 is out of range: holes are numbered 1 to 6"),
        "{err}"
    );
}
