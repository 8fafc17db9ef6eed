//! The checker's own rules against the conformance vectors of `data/conformance/` (made by an
//! independent implementation of RULES.md), the perft table of `data/RULES.md`, and the
//! engine's rules on random positions.

use std::path::PathBuf;

use hoyito_check::rules::perft;
use hoyito_check::{CaptureSide, LastFour, Position, Rules, Side, Variant};
use serde_json::Value;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

fn vectors(name: &str) -> Vec<Value> {
    let path = data_dir().join("conformance").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn rules_of(v: &Value) -> Rules {
    Rules {
        holes: v["holes"].as_u64().unwrap() as usize,
        variant: match v["rules"].as_str().unwrap() {
            "hoyito2" => Variant::Hoyito2,
            "hoyito3" => Variant::Hoyito3,
            other => panic!("variant {other}"),
        },
        last_four: match v["last_four"].as_str().unwrap_or("capturer") {
            "capturer" => LastFour::Capturer,
            "S" => LastFour::South,
            "N" => LastFour::North,
            other => panic!("last four {other}"),
        },
        capture_side: match v["capture_side"].as_str().unwrap_or("any") {
            "any" => CaptureSide::Any,
            "opponent" => CaptureSide::Opponent,
            other => panic!("capture side {other}"),
        },
    }
}

/// A position in RULES.md notation with optional captured seeds `S-N`.
fn parse(text: &str) -> (Position, [i32; 2]) {
    let words: Vec<&str> = text.split_whitespace().collect();
    let p = Position::parse(&words[..2].join(" ")).unwrap();
    let captured = match words.get(2) {
        Some(c) => {
            let (s, n) = c.split_once('-').unwrap();
            [s.parse().unwrap(), n.parse().unwrap()]
        }
        None => [0, 0],
    };
    (p, captured)
}

fn numbers(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_u64().unwrap() as usize)
        .collect()
}

#[test]
fn apply_vectors() {
    let all = vectors("apply.jsonl");
    assert!(all.len() >= 400);
    for v in &all {
        let rules = rules_of(v);
        let text = v["position"].as_str().unwrap();
        let (mut p, mut captured) = parse(text);
        let legal: Vec<usize> = p.legal_moves(&rules).iter().map(|m| m.0).collect();
        assert_eq!(legal, numbers(&v["legal"]), "{text}: legal moves");
        assert_eq!(
            p.endless_moves(&rules),
            numbers(&v["endless"]),
            "{text}: endless"
        );
        let mut over = false;
        for hole in numbers(&v["moves"]) {
            assert!(!over, "{text}: a move after the end");
            p = p.settled(&rules).expect("a side can move");
            let played = p.play(&rules, hole).unwrap();
            let before = captured;
            let index = |side: Side| if side == Side::South { 0 } else { 1 };
            captured[index(p.side)] += played.captured as i32;
            if played.ended {
                captured[index(rules.last_four_to(p.side))] += played.next.seeds() as i32;
            }
            let gain = (captured[0] - before[0]) - (captured[1] - before[1]);
            assert_eq!(
                played.south_gain, gain,
                "{text}: South's gain of move {hole}"
            );
            p = played.next;
            if played.ended {
                over = true;
                p.board.iter_mut().for_each(|s| *s = 0);
            } else {
                match p.settled(&rules) {
                    Some(q) => p = q,
                    None => over = true,
                }
            }
        }
        let expect = &v["expect"];
        let (q, c) = parse(expect["position"].as_str().unwrap());
        assert_eq!(p, q, "{text}: position after {:?}", v["moves"]);
        assert_eq!(over, expect["over"].as_bool().unwrap(), "{text}: over");
        let listed: Vec<i32> = numbers(&expect["captured"])
            .iter()
            .map(|&x| x as i32)
            .collect();
        assert_eq!(c.to_vec(), listed);
        assert_eq!(captured, c, "{text}: captured");
    }
}

#[test]
fn endless_vectors() {
    let all = vectors("endless.jsonl");
    assert!(all.len() >= 20);
    for v in &all {
        let rules = rules_of(v);
        let text = v["position"].as_str().unwrap();
        let (p, _) = parse(text);
        let legal: Vec<usize> = p.legal_moves(&rules).iter().map(|m| m.0).collect();
        assert_eq!(legal, numbers(&v["legal"]), "{text}: legal");
        let endless = p.endless_moves(&rules);
        assert!(!endless.is_empty());
        assert_eq!(endless, numbers(&v["endless"]), "{text}: endless");
    }
}

#[test]
fn perft_vectors() {
    let all = vectors("perft.jsonl");
    assert!(all.len() >= 16);
    for v in &all {
        let rules = rules_of(v);
        let text = v["position"].as_str().unwrap();
        let (p, _) = parse(text);
        // Depths kept small for debug builds: up to about 10,000 sequences.
        for (d, expect) in v["perft"].as_array().unwrap().iter().enumerate() {
            let expect = expect.as_u64().unwrap();
            if expect > 13_000 {
                break;
            }
            assert_eq!(
                perft(&rules, &p, d as u32 + 1),
                expect,
                "{text} depth {}",
                d + 1
            );
        }
    }
}

/// The perft table of RULES.md, read from the document itself.
#[test]
fn perft_table_of_rules_md() {
    let text = std::fs::read_to_string(data_dir().join("RULES.md")).unwrap();
    let mut rows = 0;
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[1].starts_with("Hoyito") {
            continue;
        }
        let name = cells[1];
        let holes = if name.contains("2x12") { 12 } else { 6 };
        let rules = Rules {
            holes,
            variant: if name.starts_with("Hoyito III") {
                Variant::Hoyito3
            } else {
                Variant::Hoyito2
            },
            last_four: LastFour::Capturer,
            capture_side: if name.contains("opponent") {
                CaptureSide::Opponent
            } else {
                CaptureSide::Any
            },
        };
        let start = Position {
            board: vec![4; 2 * holes],
            side: Side::South,
        };
        for (d, cell) in cells[2..].iter().filter(|c| !c.is_empty()).enumerate() {
            let expect: u64 = cell.parse().unwrap();
            if expect > 13_000 {
                break;
            }
            assert_eq!(
                perft(&rules, &start, d as u32 + 1),
                expect,
                "{name} depth {}",
                d + 1
            );
        }
        rows += 1;
    }
    assert_eq!(rows, 4);
}

/// Moves conserve seeds: board plus captures (award included) is unchanged.
#[test]
fn seeds_are_conserved_along_perft_lines() {
    let rules = Rules {
        holes: 6,
        variant: Variant::Hoyito2,
        last_four: LastFour::North,
        capture_side: CaptureSide::Any,
    };
    let mut frontier = vec![Position {
        board: vec![4; 12],
        side: Side::South,
    }];
    for _ in 0..4 {
        let mut next = Vec::new();
        for p in &frontier {
            for (_, m) in p.legal_moves(&rules) {
                let kept: u32 = if m.ended { 0 } else { m.next.seeds() };
                let taken = m.captured + if m.ended { m.next.seeds() } else { 0 };
                assert_eq!(kept + taken, p.seeds(), "{p}");
                assert!(m.south_gain.unsigned_abs() <= taken);
                if !m.ended {
                    next.push(m.next);
                }
            }
        }
        frontier = next;
    }
}

/// The checker's rules against the engine's on random positions of every board size and
/// every combination of options: the same legal and endless moves, and for each move the
/// same position after it, South's gain and game end.
#[test]
fn same_moves_as_the_engine_on_random_positions() {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut random = |n: u64| {
        // A linear congruential generator: plain and reproducible.
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let mut compared = 0;
    for holes in [2usize, 3, 4, 5, 6, 9, 12] {
        for variant in [Variant::Hoyito2, Variant::Hoyito3] {
            for last_four in [LastFour::Capturer, LastFour::South, LastFour::North] {
                for capture_side in [CaptureSide::Any, CaptureSide::Opponent] {
                    let rules = Rules {
                        holes,
                        variant,
                        last_four,
                        capture_side,
                    };
                    let er = hoyito_rules::Rules::new(
                        match variant {
                            Variant::Hoyito2 => hoyito_rules::Variant::Hoyito2,
                            Variant::Hoyito3 => hoyito_rules::Variant::Hoyito3,
                        },
                        holes,
                        hoyito_rules::MAX_SEEDS,
                        match last_four {
                            LastFour::Capturer => hoyito_rules::LastFour::Capturer,
                            LastFour::South => hoyito_rules::LastFour::South,
                            LastFour::North => hoyito_rules::LastFour::North,
                        },
                        match capture_side {
                            CaptureSide::Any => hoyito_rules::CaptureSide::Any,
                            CaptureSide::Opponent => hoyito_rules::CaptureSide::Opponent,
                        },
                    )
                    .unwrap();
                    for _ in 0..500 {
                        // Up to 4 seeds a hole on average, some holes empty.
                        let board: Vec<u8> = (0..2 * holes)
                            .map(|_| if random(4) == 0 { 0 } else { random(8) as u8 })
                            .collect();
                        let side = if random(2) == 0 {
                            Side::South
                        } else {
                            Side::North
                        };
                        let p = Position { board, side };
                        compare_with_engine(&rules, &er, &p);
                        compared += 1;
                    }
                }
            }
        }
    }
    assert_eq!(compared, 7 * 12 * 500);
}

fn compare_with_engine(rules: &Rules, er: &hoyito_rules::Rules, p: &Position) {
    let h = rules.holes;
    let side = match p.side {
        Side::South => hoyito_rules::Side::South,
        Side::North => hoyito_rules::Side::North,
    };
    let q = hoyito_rules::Position12::from_rows(er, &p.board[..h], &p.board[h..], side, [0, 0])
        .unwrap();
    let list = q.moves(er);
    let mine = p.legal_moves(rules);
    let theirs: Vec<usize> = list.children().iter().map(|c| c.mv.hole()).collect();
    let holes: Vec<usize> = mine.iter().map(|m| m.0).collect();
    assert_eq!(holes, theirs, "{p} under {rules}: legal moves");
    let endless: Vec<usize> = list.endless().map(|m| m.hole()).collect();
    assert_eq!(
        p.endless_moves(rules),
        endless,
        "{p} under {rules}: endless"
    );
    for ((hole, played), c) in mine.iter().zip(list.children()) {
        let sign = if p.side == Side::South { 1 } else { -1 };
        assert_eq!(
            played.south_gain,
            sign * c.gain as i32,
            "{p} move {hole}: gain"
        );
        assert_eq!(played.ended, c.ended_game, "{p} move {hole}: end");
        if !played.ended {
            let (mut board, north) = c.position.rows();
            board.extend(north);
            let next_side = match c.position.side_to_move() {
                hoyito_rules::Side::South => Side::South,
                hoyito_rules::Side::North => Side::North,
            };
            assert_eq!(played.next.board, board, "{p} move {hole}: board");
            assert_eq!(played.next.side, next_side, "{p} move {hole}: side");
        }
    }
}
