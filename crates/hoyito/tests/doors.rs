//! One answer at every door: a table of positions (the book, the proven line, positions of 8
//! to 16 seeds, 2x12) asked at every door of the library with its defaults: the analysis of
//! `solve best` and Python's `best`, the play session's hint, the engine protocol's `go`,
//! the level-5 and perfect players of `solve play`, the web board's engine and its analysis
//! stream, and the opponents of the Python environments. Every door gives the same value and
//! exactness, and every perfect move keeps the value. The positions are those every door
//! settles whatever the machine's speed (the book, the certificates, the cache's layers, a
//! small component); positions a proof settles within a time budget are timed by the
//! benchmark `cargo run --release -p hoyito-benches --example doors`.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use hoyito::agents::{Opponent, OpponentKind};
use hoyito::analysis::{analyse, analyse_streamed, AnalysisOptions};
use hoyito::board::{engine_move, GameSpec};
use hoyito::play::players::{Engine, Strength};
use hoyito::{Diagram, Position, Rules};

/// The positions: the rules' holes, the position, and whether every door settles it
/// whatever the machine's speed (the others are proven within a time budget: the doors that
/// proved them agree, and every door's move is legal).
const POSITIONS: &[(usize, &str, bool)] = &[
    // The start: the opening book.
    (6, "4,4,4,4,4,4/4,4,4,4,4,4 S 0-0", true),
    // Two plies in: the book's second ply.
    (6, "2,10,4,2,4,9/1,10,1,4,1,0 S 0-0", true),
    // 8 seeds.
    (6, "4,0,1,0,0,1/0,0,0,0,1,1 S 0-0", true),
    // 12 seeds.
    (6, "1,2,0,3,1,1/1,0,2,0,0,1 S 0-0", true),
    // 16 seeds: the cache's largest layer.
    (6, "6,0,0,0,0,1/1,2,2,1,3,0 N 0-0", true),
    // 40 and 28 seeds on the proven line from the start: the certificates' strategies.
    (6, "0,2,5,10,0,3/10,1,4,0,2,3 N 0-8", true),
    (6, "5,3,3,1,0,1/0,6,0,4,1,4 N 0-20", true),
    // 2x12 with few seeds: a proof of some thousand positions.
    (
        12,
        "0,0,0,0,0,0,0,0,0,1,1,2/0,0,0,0,0,0,0,0,0,2,1,1 S 0-0",
        false,
    ),
];

fn rules(holes: usize) -> Rules {
    Rules::new(
        hoyito::Variant::Hoyito2,
        holes,
        4,
        hoyito::rules::LastFour::Capturer,
        hoyito::rules::CaptureSide::Any,
    )
    .unwrap()
}

/// The tests' cache of the small tables (the command-line tests share it).
fn use_test_cache() {
    let cache = concat!(env!("CARGO_TARGET_TMPDIR"), "/hoyito-cache");
    std::env::set_var(hoyito::cache::CACHE_ENV, cache);
}

/// The value, exactness and move of one door.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Answer {
    door: &'static str,
    value: i32,
    exact: bool,
    mv: Option<u8>,
}

#[test]
fn every_door_gives_the_same_value_and_every_perfect_move_keeps_it() {
    use_test_cache();
    for &(holes, text, settled) in POSITIONS {
        let rules = rules(holes);
        let d: Diagram = text.parse().unwrap();
        match holes {
            6 => doors::<2>(&rules, &d, text, settled),
            _ => doors::<4>(&rules, &d, text, settled),
        }
    }
}

fn doors<const W: usize>(rules: &Rules, d: &Diagram, text: &str, settled: bool) {
    let p: Position<W> = hoyito::setup::position(rules, Some(d)).unwrap();
    let mut answers = Vec::new();
    // solve best, Python's best().
    let a = analyse(rules, Some(d), &AnalysisOptions::default()).unwrap();
    answers.push(Answer {
        door: "analysis",
        value: a.score,
        exact: a.exact,
        mv: a.best,
    });
    assert_eq!(
        a.pv.first().copied(),
        a.best,
        "{text}: the line starts with the move"
    );
    let value = a.score;
    assert!(
        a.exact || !settled,
        "{text}: proven by the default analysis"
    );
    // The tables every door stands on.
    let tables =
        hoyito::policy::tables(rules, None, false, p.seeds_on_board() as usize, true).unwrap();
    // The play session's hint, and its level-5 and perfect players.
    let mut engine = Engine::<W>::new(*rules, Strength::Level(5), tables.clone(), 1, 16, 1);
    let hint = engine.analyse(&p);
    answers.push(Answer {
        door: "hint",
        value: hint.score,
        exact: hint.exact,
        mv: hint.best.map(|m| m.0),
    });
    let never = AtomicBool::new(false);
    for (door, strength) in [
        ("level 5", Strength::Level(5)),
        ("perfect", Strength::Exact),
    ] {
        let c = engine.choose(rules, &p, strength, &never).unwrap();
        answers.push(Answer {
            door,
            value: c.note.value.unwrap(),
            exact: c.note.exact,
            mv: Some(c.mv.0),
        });
    }
    // The engine protocol's plain `go`.
    let script = format!(
        "setoption name Holes value {}\nposition pos {text}\ngo\n",
        rules.holes()
    );
    let out = hoyito::protocol::run_script_in_turn(&script).unwrap();
    let (value_told, exact_told) = last_score(&out);
    let best = out
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .and_then(|m| m.parse::<u8>().ok());
    answers.push(Answer {
        door: "protocol",
        value: value_told,
        exact: exact_told,
        mv: best,
    });
    // The web board's perfect engine.
    let spec: GameSpec = serde_json::from_value(serde_json::json!({
        "rules": { "holes": rules.holes() },
        "start": text,
    }))
    .unwrap();
    let e = engine_move(&spec, "perfect", None, &never).unwrap();
    answers.push(Answer {
        door: "web engine",
        value: e.value.unwrap(),
        exact: e.exact,
        mv: Some(e.mv),
    });
    // The web board's analysis stream: its last answer.
    let updates = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&updates);
    let options = AnalysisOptions {
        time_ms: Some(10_000),
        ..AnalysisOptions::default()
    };
    let last = analyse_streamed(rules, Some(d), &options, 400, move |s| {
        seen.lock().unwrap().push(s.clone());
    })
    .unwrap();
    answers.push(Answer {
        door: "web analysis",
        value: last.analysis.score,
        exact: last.analysis.exact,
        mv: last.analysis.best,
    });
    for s in updates.lock().unwrap().iter() {
        // Every answer so far is of this position, its line starting with its move.
        assert_eq!(s.analysis.position, p.to_string());
        assert_eq!(
            s.analysis.pv.first().copied(),
            s.analysis.best,
            "{text}: {s:?}"
        );
        if s.last && s.analysis.exact {
            // A proven value is the best of the moves' values, the move's among them.
            let moves = s.analysis.moves.iter().flatten();
            let top = moves.clone().map(|m| m.score).max();
            assert_eq!(
                top,
                Some(s.analysis.score),
                "{text}: the best of the moves' values"
            );
            let best = moves.clone().find(|m| Some(m.mv) == s.analysis.best);
            assert!(
                best.is_some_and(|m| m.exact && m.score == s.analysis.score),
                "{s:?}"
            );
        }
    }
    // The Python environments' perfect opponent: its move only.
    let mut o = Opponent::<W>::new(*rules, OpponentKind::Perfect, None, 1).unwrap();
    let mv = o.choose(&p, None).map(|m| m.0);
    let mut kept = std::collections::BTreeMap::new();
    let mut after = |mv: u8| *kept.entry(mv).or_insert_with(|| value_after(rules, &p, mv));
    // The value proven: the doors that proved it agree on it.
    let proven: Vec<i32> = answers
        .iter()
        .filter(|a| a.exact)
        .map(|a| a.value)
        .collect();
    let Some(&truth) = proven.first() else {
        assert!(!settled, "{text}: no door proved it");
        return;
    };
    assert!(proven.iter().all(|&v| v == truth), "{text}: {answers:?}");
    if settled {
        answers.push(Answer {
            door: "opponent",
            value,
            exact: true,
            mv,
        });
    }
    for a in &answers {
        let mv = a.mv.expect("a move");
        if settled {
            assert_eq!(
                (a.value, a.exact),
                (value, true),
                "{text}: {a:?} against {answers:?}"
            );
        }
        // Every move given with a proven value keeps it.
        if a.exact {
            assert_eq!(after(mv), truth, "{text}: {} plays {mv}", a.door);
        } else {
            assert!(
                p.moves(rules).children().iter().any(|c| c.mv.0 == mv),
                "{a:?}"
            );
        }
    }
}

/// The proven value of `p` after `mv`, for the side to move in `p`.
fn value_after<const W: usize>(rules: &Rules, p: &Position<W>, mv: u8) -> i32 {
    let moves = p.moves(rules);
    let c = moves
        .children()
        .iter()
        .find(|c| c.mv.0 == mv)
        .copied()
        .unwrap_or_else(|| panic!("{mv} is not legal in {p}"));
    if c.ended_game {
        return c.value(0);
    }
    let d: Diagram = c.position.to_string().parse().unwrap();
    let options = AnalysisOptions {
        exact: true,
        ..AnalysisOptions::default()
    };
    let a = analyse(rules, Some(&d), &options).unwrap();
    assert!(a.exact);
    c.value(a.score)
}

/// The score of the engine protocol's last `info` line with one, and whether it was exact.
fn last_score(out: &str) -> (i32, bool) {
    let line = out
        .lines()
        .rfind(|l| l.starts_with("info") && l.contains(" score "))
        .unwrap_or_else(|| panic!("no score in {out}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|&w| w == "score").unwrap();
    let value = words[at + 1].parse().unwrap();
    (value, words.get(at + 2) == Some(&"exact"))
}
