//! The conformance vectors of `data/conformance/` (made by an independent implementation of
//! RULES.md): move results, endless sowings and perft counts.

use hoyito_rules::{perft, perft_parallel, Game, Move, Position, Rules, Side};
use hoyito_testkit::{moves_of, rules_of, vectors};
use serde_json::Value;

fn check_moves<const W: usize>(rules: &Rules, v: &Value) {
    let text = v["position"].as_str().unwrap();
    let p = Position::<W>::parse(rules, text).unwrap();
    let list = p.moves(rules);
    let legal: Vec<u8> = list.children().iter().map(|c| c.mv.0).collect();
    let endless: Vec<u8> = list.endless().map(|m| m.0).collect();
    assert_eq!(
        legal,
        moves_of(&v["legal"]),
        "legal moves of {text} ({rules})"
    );
    assert_eq!(
        endless,
        moves_of(&v["endless"]),
        "endless moves of {text} ({rules})"
    );
}

fn check_apply<const W: usize>(rules: &Rules, v: &Value) {
    check_moves::<W>(rules, v);
    let text = v["position"].as_str().unwrap();
    let mut game = Game::new(*rules, Position::<W>::parse(rules, text).unwrap());
    for m in moves_of(&v["moves"]) {
        game.play(Move(m))
            .unwrap_or_else(|e| panic!("{text}: move {m}: {e}"));
    }
    let expect = &v["expect"];
    let p = game.position();
    assert_eq!(
        p.to_string(),
        expect["position"].as_str().unwrap(),
        "{text} after {:?} ({rules})",
        v["moves"]
    );
    assert_eq!(
        game.is_over(),
        expect["over"].as_bool().unwrap(),
        "{text}: over"
    );
    let cap = moves_of(&expect["captured"]);
    assert_eq!(
        [p.captured(Side::South), p.captured(Side::North)],
        [cap[0], cap[1]]
    );
}

#[test]
fn apply_vectors() {
    let all = vectors("apply.jsonl");
    assert!(all.len() >= 400);
    for v in &all {
        let rules = rules_of(v);
        if rules.holes() <= 6 {
            check_apply::<2>(&rules, v);
        } else {
            check_apply::<4>(&rules, v);
        }
    }
}

#[test]
fn endless_vectors() {
    let all = vectors("endless.jsonl");
    assert!(!all.is_empty());
    for v in &all {
        assert!(!v["endless"].as_array().unwrap().is_empty());
        let rules = rules_of(v);
        if rules.holes() <= 6 {
            check_moves::<2>(&rules, v);
        } else {
            check_moves::<4>(&rules, v);
        }
    }
}

fn check_perft<const W: usize>(rules: &Rules, v: &Value) {
    let text = v["position"].as_str().unwrap();
    let p = Position::<W>::parse(rules, text).unwrap();
    for (i, want) in v["perft"].as_array().unwrap().iter().enumerate() {
        let d = i as u32 + 1;
        let want = want.as_u64().unwrap();
        assert_eq!(perft(&p, rules, d), want, "perft({text}, {d}) ({rules})");
        assert_eq!(
            perft_parallel(&p, rules, d),
            want,
            "parallel perft({text}, {d})"
        );
    }
}

#[test]
fn perft_vectors() {
    let all = vectors("perft.jsonl");
    assert!(all.len() >= 16);
    for v in &all {
        let rules = rules_of(v);
        if rules.holes() <= 6 {
            check_perft::<2>(&rules, v);
        } else {
            check_perft::<4>(&rules, v);
        }
    }
}

#[test]
fn worked_examples_of_rules_md() {
    let r = Rules::default();
    let p = Position::<2>::start(&r).unwrap();
    let c = p.play(&r, Move(1)).unwrap();
    assert_eq!(c.position.to_string(), "2,7,1,6,1,6/6,6,0,1,6,6 N 0-0");
    assert!(!c.extra_turn);

    let p = Position::<2>::parse(&r, "2,3,4,0,4,1/3,3,3,1,1,3 S").unwrap();
    let c = p.play(&r, Move(5)).unwrap();
    assert_eq!(c.position.to_string(), "2,3,4,0,0,2/0,0,0,1,1,3 S 12-0");
    let r3 = Rules::hoyito3();
    let c = p.play(&r3, Move(5)).unwrap();
    assert_eq!(c.position.to_string(), "2,3,4,0,0,2/4,4,0,1,1,3 S 4-0");
}
