//! `solve openings` (opening sets) and `solve match --openings` / `--concurrency`.

mod common;

use std::collections::BTreeSet;

use common::{fails, json, ok};
use hoyito_rules::{read_records, Game, Position6, Rules};

/// The positions reached from the start in exactly `plies` plies with the game going,
/// enumerated here independently of the command.
fn reached(rules: Rules, plies: usize) -> BTreeSet<String> {
    let mut level = vec![Game::new(rules, Position6::start(&rules).unwrap())];
    for _ in 0..plies {
        let mut next = Vec::new();
        for g in &level {
            for c in g.position().moves(&rules).children() {
                let mut h = g.clone();
                h.play(c.mv).unwrap();
                if !h.is_over() {
                    next.push(h);
                }
            }
        }
        level = next;
    }
    level.iter().map(|g| g.position().to_string()).collect()
}

/// The positions of an opening file (comments left out).
fn positions(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn generate(extra: &[&str]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("o.txt");
    let f = file.to_str().unwrap();
    let mut args = vec!["openings", "-o", f];
    args.extend_from_slice(extra);
    ok(&args);
    let text = std::fs::read_to_string(&file).unwrap();
    (dir, text)
}

#[test]
fn all_openings_are_the_positions_reached_in_the_plies() {
    let (_d, text) = generate(&["--plies", "3"]);
    assert!(text.starts_with("# "), "{text}");
    let got = positions(&text);
    let want = reached(Rules::default(), 3);
    assert_eq!(got.len(), want.len());
    assert_eq!(got.iter().cloned().collect::<BTreeSet<_>>(), want);
}

#[test]
fn a_sample_is_fixed_by_its_seed() {
    let (_d, a) = generate(&["--plies", "4", "--sample", "10", "--seed", "7"]);
    let (_e, b) = generate(&["--plies", "4", "--sample", "10", "--seed", "7"]);
    let (_f, c) = generate(&["--plies", "4", "--sample", "10", "--seed", "8"]);
    let (pa, pb, pc) = (positions(&a), positions(&b), positions(&c));
    assert_eq!(pa, pb);
    assert_ne!(pa, pc);
    assert_eq!(pa.len(), 10);
    let all = reached(Rules::default(), 4);
    assert!(pa.iter().chain(&pc).all(|p| all.contains(p)));
}

#[test]
fn balanced_openings_are_a_subset() {
    let (_d, all) = generate(&["--plies", "2"]);
    let (_e, some) = generate(&["--plies", "2", "--balanced", "0", "--depth", "2"]);
    let (all, some) = (positions(&all), positions(&some));
    assert!(some.len() < all.len(), "{some:?}");
    assert!(some.iter().all(|p| all.contains(p)));
}

#[test]
fn the_committed_sets_are_reached_in_four_plies() {
    for (file, rules) in [
        ("2x6-hoyito2-4ply.txt", Rules::default()),
        ("2x6-hoyito3-4ply.txt", Rules::hoyito3()),
    ] {
        let path = format!("{}/../data/openings/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        assert!(
            text.contains("solve"),
            "{file}: the header names the command"
        );
        let all = reached(rules, 4);
        let got = positions(&text);
        assert!(!got.is_empty());
        assert!(got.iter().all(|p| all.contains(p)), "{file}");
    }
}

#[test]
fn a_match_plays_each_opening_twice() {
    let (dir, _) = generate(&["--plies", "2", "--sample", "3", "--seed", "2"]);
    let f = dir.path().join("o.txt");
    let r = dir.path().join("rec");
    let v = json(&[
        "match",
        "--openings",
        f.to_str().unwrap(),
        "--depth",
        "2",
        "--hash-mb",
        "1",
        "--records",
        r.to_str().unwrap(),
    ]);
    assert_eq!(v["pairs"], 3);
    assert_eq!(v["games"], 6);
    let games = read_records(&std::fs::read_to_string(r.join("match.txt")).unwrap()).unwrap();
    let openings = positions(&std::fs::read_to_string(&f).unwrap());
    assert_eq!(games.len(), 6);
    for (k, g) in games.iter().enumerate() {
        let start = g.start.to_string();
        assert_eq!(start, openings[k / 2], "game {k}");
    }
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "# a comment\n4,4,4/4,4 S 0-0\n").unwrap();
    fails(&["match", "--openings", bad.to_str().unwrap()], "line 2");
    fails(
        &["match", "--openings", "/nonexistent/openings.txt"],
        "cannot read",
    );
}

#[test]
fn concurrency_does_not_change_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let mut texts = Vec::new();
    for n in ["1", "2"] {
        let r = dir.path().join(n);
        ok(&[
            "match",
            "--pairs",
            "4",
            "--depth",
            "3",
            "--seed",
            "5",
            "--hash-mb",
            "1",
            "--concurrency",
            n,
            "--records",
            r.to_str().unwrap(),
        ]);
        texts.push(std::fs::read_to_string(r.join("match.txt")).unwrap());
    }
    let a = read_records(&texts[0]).unwrap();
    assert_eq!(a.len(), 8);
    assert_eq!(texts[0], texts[1]);
}
