//! `solve record check` and `solve replay`: good records are counted and replayed to the
//! positions `solve apply` gives; malformed ones are rejected with their line and column.

mod common;

use std::path::{Path, PathBuf};

use common::{ok, run};
use serde_json::Value;

/// A game between two depth-2 engines, written by `solve play` into `dir/name`.
fn played(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let file = dir.join(name);
    let mut args = vec![
        "play",
        "--south",
        "engine",
        "--north",
        "engine",
        "--depth",
        "2",
        "--record",
        file.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_solve"))
        .env("HOYITO_CACHE", "off")
        .args(&args)
        .stdin(std::process::Stdio::null())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    file
}

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = ok(&all);
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("bad JSON {out}: {e}"))
}

/// Runs a command that must fail; returns its standard error.
fn fails(args: &[&str]) -> String {
    let (success, out, err) = run(args);
    assert!(!success, "solve {args:?} succeeded: {out}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn check_counts_the_games_and_plies_of_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = played(dir.path(), "a.txt", &[]);
    let b = played(
        dir.path(),
        "b.txt",
        &["--variant", "hoyito3", "--seeds", "3"],
    );
    let both = dir.path().join("both.txt");
    let text = format!(
        "{}\n{}",
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap()
    );
    std::fs::write(&both, &text).unwrap();
    let games = hoyito_rules::read_records(&text).unwrap();
    let v = json(&["record", "check", both.to_str().unwrap()]);
    let reported = v["games"].as_array().unwrap();
    assert_eq!(reported.len(), 2);
    for (r, g) in games.iter().zip(reported) {
        assert_eq!(g["plies"].as_u64().unwrap() as usize, r.plies.len());
        assert_eq!(g["result"], r.result());
        assert_eq!(g["end"], r.termination.tag());
    }
    assert_eq!(
        v["plies"].as_u64().unwrap() as usize,
        games.iter().map(|r| r.plies.len()).sum::<usize>()
    );
    assert!(reported[1]["rules"].as_str().unwrap().contains("hoyito3"));
    let text = ok(&["record", "check", both.to_str().unwrap()]);
    assert!(text.contains("2 game(s)"), "{text}");
}

#[test]
fn malformed_records_name_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let f = dir.path().join(name);
        std::fs::write(&f, text).unwrap();
        f.to_str().unwrap().to_string()
    };
    // The side not to move (South plays twice from the start).
    let f = write("side.txt", "[Variant \"hoyito2\"]\nS3 S1 *\n");
    let err = fails(&["record", "check", &f]);
    assert!(
        err.contains("line 2, column 4") && err.contains("North's turn"),
        "{err}"
    );
    // A capture count the rules do not give: S3 N1 captures 4.
    let f = write("capture.txt", "S3\nN1x8 *\n");
    let err = fails(&["record", "check", &f]);
    assert!(
        err.contains("line 2, column 1") && err.contains("captures 4"),
        "{err}"
    );
    // An empty hole, a word that is no move, an unclosed comment, a bad tag.
    let f = write("empty.txt", "S3 N1x4 N2 *\n");
    assert!(fails(&["record", "check", &f]).contains("line 1, column 9"));
    let f = write("word.txt", "S3 hello *\n");
    assert!(fails(&["record", "check", &f]).contains("unexpected 'hello'"));
    let f = write("comment.txt", "S3 {value=+1\n");
    assert!(fails(&["record", "check", &f]).contains("not closed"));
    let f = write("tag.txt", "[Holes \"13\"]\nS1 *\n");
    assert!(fails(&["record", "check", &f]).contains("line 1"));
    // A result the moves do not give.
    let f = write("result.txt", "S3 N1x4 1-0\n");
    assert!(fails(&["record", "check", &f]).contains("line 1, column 9: the result"));
    let f = write("nothing.txt", "");
    assert!(fails(&["record", "check", &f]).contains("no game"));
    let missing = dir.path().join("missing.txt");
    assert!(fails(&["record", "check", missing.to_str().unwrap()]).contains("cannot read"));
    // The same errors reach replay and review.
    let f = write("side2.txt", "S3 S1 *\n");
    assert!(fails(&["replay", &f]).contains("line 1, column 4"));
}

#[test]
fn replay_gives_the_positions_apply_gives() {
    let dir = tempfile::tempdir().unwrap();
    let file = played(dir.path(), "g.txt", &[]);
    let f = file.to_str().unwrap();
    let record: hoyito_rules::Record = std::fs::read_to_string(&file).unwrap().parse().unwrap();
    let v = json(&["replay", f]);
    let plies = v["plies"].as_array().unwrap();
    assert_eq!(plies.len(), record.plies.len());
    let mut moves: Vec<String> = Vec::new();
    for (p, r) in plies.iter().zip(&record.plies) {
        assert_eq!(p["token"], r.to_string());
        moves.push(r.mv.0.to_string());
        let mut args = vec!["apply".to_string(), "start".to_string()];
        args.extend(moves.iter().cloned());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let applied = json(&args);
        assert_eq!(p["after"], applied["position"], "ply {}", p["ply"]);
    }
    // --ply N shows the position after N plies; 0 is the start.
    let at0 = json(&["replay", f, "--ply", "0"]);
    assert_eq!(at0["position"], "4,4,4,4,4,4/4,4,4,4,4,4 S 0-0");
    let at3 = json(&["replay", f, "--ply", "3"]);
    assert_eq!(at3["position"], plies[2]["after"]);
    let text = ok(&["replay", f, "--ply", "3"]);
    assert!(text.contains("position after 3 plies") && text.contains("captured"));
    // The text shows every ply with its board and marks.
    let text = ok(&["replay", f]);
    assert!(text.contains(&format!(
        "{}. {}",
        plies.len(),
        record.plies.last().unwrap()
    )));
    assert!(text.contains('^') && text.contains('*'));
    let n = record.plies.len() + 1;
    assert!(fails(&["replay", f, "--ply", &n.to_string()]).contains("plies"));
    assert!(fails(&["replay", f, "--game", "2"]).contains("1 game(s)"));
    assert!(fails(&["replay", f, "--game", "0"]).contains("from 1"));
}
