//! Command-line tests of the statistics of `solve match` (the library's formulas are tested
//! against fastchess's vectors in crates/stats).

mod common;

use common::{fails, json, ok};
use serde_json::Value;

/// Both players with the same weights; `extra` adds flags.
fn even_match(extra: &[&str]) -> Value {
    let mut args = vec![
        "match",
        "--json",
        "--a-row",
        "0",
        "--a-mobility",
        "0",
        "--hash-mb",
        "1",
    ];
    args.extend_from_slice(extra);
    json(&args)
}

#[test]
fn identical_players_score_one_point_a_pair() {
    let v = even_match(&["--pairs", "3", "--depth", "3", "--threads", "2"]);
    assert_eq!(v["games"], 6);
    assert_eq!(v["pairs"], 3);
    assert_eq!(v["score"], 0.5);
    // Each opening gives the same game twice, with the sides of A and B swapped.
    assert_eq!(v["pentanomial"], serde_json::json!([0, 0, 3, 0, 0]));
    assert_eq!(v["wins"], v["losses"]);
    assert_eq!(v["mean_margin"], 0.0);
    assert_eq!(v["pair_margin"]["mean"], 0.0);
    assert_eq!(v["pair_margin"]["error"], 0.0);
    // No spread between pairs: no Elo estimate.
    assert!(v["elo"].is_null());
    assert!(v.get("sprt").unwrap().is_null());
}

#[test]
fn match_reports_pair_statistics() {
    let args = [
        "match",
        "--pairs",
        "4",
        "--depth",
        "2",
        "--threads",
        "1",
        "--hash-mb",
        "1",
    ];
    let v = json(&args);
    let p: Vec<u64> = v["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert_eq!(p.iter().sum::<u64>(), 4);
    // The pairs' points are the games' points.
    let half_points: u64 = p.iter().enumerate().map(|(i, n)| i as u64 * n).sum();
    let wins = v["wins"].as_u64().unwrap();
    let draws = v["draws"].as_u64().unwrap();
    assert_eq!(half_points, 2 * wins + draws);
    assert_eq!(
        v["pairs_win_loss"].as_u64().unwrap() + v["pairs_draw_draw"].as_u64().unwrap(),
        p[2]
    );
    let e = &v["elo"];
    let (elo, lower, upper) = (
        e["elo"].as_f64().unwrap(),
        e["elo_lower"].as_f64().unwrap(),
        e["elo_upper"].as_f64().unwrap(),
    );
    assert!(lower < elo && elo < upper, "{e}");
    let los = e["los"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&los));
    // The margin per pair is twice the margin per game.
    let m = &v["pair_margin"];
    let mean_margin = v["mean_margin"].as_f64().unwrap();
    assert!((m["mean"].as_f64().unwrap() - 2.0 * mean_margin).abs() < 1e-9);
    assert!(m["lower"].as_f64().unwrap() <= m["upper"].as_f64().unwrap());

    let text = ok(&args);
    assert!(text.contains("Ptnml(0-2) ["), "{text}");
    assert!(text.contains("nElo"), "{text}");
    assert!(text.contains("LOS"), "{text}");
}

/// Depth 5 against depth 1, same weights: the SPRT accepts H1 long before the pair budget,
/// after the same pair whatever the number of threads.
#[test]
fn sprt_accepts_the_deeper_player() {
    let flags = |threads: &'static str| {
        even_match(&[
            "--pairs",
            "20",
            "--a-depth",
            "5",
            "--b-depth",
            "1",
            "--sprt",
            "elo0=0",
            "elo1=200",
            "--threads",
            threads,
        ])
    };
    let v = flags("1");
    let s = &v["sprt"];
    assert_eq!(s["decision"], "H1", "{v}");
    assert_eq!(s["model"], "normalized");
    assert!(s["llr"].as_f64().unwrap() >= s["upper_bound"].as_f64().unwrap());
    let pairs = v["pairs"].as_u64().unwrap();
    assert!(pairs < 20, "{pairs} pairs");
    assert_eq!(v["games"].as_u64().unwrap(), 2 * pairs);
    assert_eq!(v["a"]["depth"], 5);
    assert_eq!(v["b"]["depth"], 1);
    let w = flags("3");
    assert_eq!(w["pairs"], v["pairs"]);
    assert_eq!(w["sprt"]["llr"], v["sprt"]["llr"]);
    assert_eq!(w["pentanomial"], v["pentanomial"]);
}

#[test]
fn sprt_without_a_decision_plays_every_pair() {
    let v = even_match(&[
        "--pairs",
        "2",
        "--depth",
        "2",
        "--threads",
        "1",
        "--sprt",
        "elo0=0",
        "elo1=5",
    ]);
    assert_eq!(v["pairs"], 2);
    assert_eq!(v["sprt"]["decision"], "continue");
    assert!(v["sprt"]["llr"].as_f64().unwrap() < 0.0);
}

#[test]
fn bad_sprt_parameters_are_refused() {
    fails(
        &["match", "--pairs", "1", "--sprt", "elo0=5", "elo1=0"],
        "elo0 (5) must be below elo1 (0)",
    );
    fails(
        &[
            "match", "--pairs", "1", "--sprt", "elo0=0", "elo1=5", "alpha=1",
        ],
        "alpha",
    );
    fails(
        &["match", "--pairs", "1", "--sprt", "elo1=5"],
        "elo0= is missing",
    );
    fails(
        &["match", "--pairs", "1", "--time-ms", "10", "--a-depth", "3"],
        "cannot be used with",
    );
}

#[test]
fn players_search_on_their_own_threads() {
    let v = json(&[
        "match",
        "--json",
        "--pairs",
        "1",
        "--depth",
        "3",
        "--a-threads",
        "2",
        "--concurrency",
        "1",
        "--hash-mb",
        "1",
    ]);
    assert_eq!(v["a"]["threads"], 2);
    assert_eq!(v["b"]["threads"], 1);
    assert_eq!(v["games"], 2);
    fails(&["match", "--a-threads", "0"], "--a-threads");
    fails(&["match", "--b-threads", "100000"], "--b-threads");
}

/// Two identical deterministic players (the default evaluation for both, the same depth,
/// one game at a time) on the paired openings of `data/openings/`: every opening gives the
/// same game twice with the sides swapped, so the score is exactly one half, every pair
/// lands in the middle of the pentanomial, and the report gives no Elo difference.
#[test]
fn identical_players_on_the_paired_openings_score_exactly_one_half() {
    let openings = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/openings/2x6-hoyito2-4ply.txt"
    );
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().to_str().unwrap();
    let args = [
        "match",
        "--b-row",
        "4",
        "--b-mobility",
        "16",
        "--depth",
        "3",
        "--threads",
        "1",
        "--hash-mb",
        "1",
        "--pairs",
        "4",
        "--openings",
        openings,
        "--records",
        records,
    ];
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let v = json(&with_json);
    assert_eq!(v["a"], v["b"], "the same player twice");
    assert_eq!(v["games"], 8);
    assert_eq!(v["score"], 0.5);
    assert_eq!(v["wins"], v["losses"]);
    assert_eq!(v["pentanomial"], serde_json::json!([0, 0, 4, 0, 0]));
    assert_eq!(v["mean_margin"], 0.0);
    assert_eq!(v["pair_margin"]["mean"], 0.0);
    assert!(
        v["elo"].is_null(),
        "no spread between pairs: no Elo estimate"
    );
    let text = ok(&args);
    assert!(text.contains("score 0.500"), "{text}");
    assert!(text.contains("Ptnml(0-2) [0, 0, 4, 0, 0]"), "{text}");
    assert!(
        text.contains("Elo: none (all pairs scored alike)"),
        "{text}"
    );
    assert!(text.contains("Margin per pair +0.00"), "{text}");
    // The records: the two games of each pair start from the same opening of the file and
    // are the same moves, A and B having swapped sides.
    let file = std::fs::read_to_string(dir.path().join("match.txt")).unwrap();
    let games = hoyito_rules::read_records(&file).unwrap();
    assert_eq!(games.len(), 8);
    let listed = std::fs::read_to_string(openings).unwrap();
    let listed: Vec<&str> = listed.lines().filter(|l| !l.starts_with('#')).collect();
    for (k, pair) in games.chunks(2).enumerate() {
        let (first, second) = (&pair[0], &pair[1]);
        assert_eq!(first.start.to_string(), listed[k]);
        assert_eq!(first.start, second.start);
        assert_eq!(first.plies, second.plies, "pair {k}");
        assert_eq!(first.south, second.north);
        assert_eq!(first.north, second.south);
    }
}
