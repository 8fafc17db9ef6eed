//! Concurrency under load: many search threads on one shared transposition table, and the
//! long-sowing cache of the rules under many threads at once. Every result is checked
//! against a one-thread computation or the independent conformance vectors.
//!
//! Run under a thread sanitizer (nightly, where the toolchain has `rust-src`):
//! `RUSTFLAGS=-Zsanitizer=thread cargo +nightly test -Zbuild-std --target
//! x86_64-unknown-linux-gnu -p hoyito-search --test stress`.

use std::thread;

use hoyito_rules::{CaptureSide, LastFour, Position, Position6, Rules, Variant};
use hoyito_search::{Config, ExactMethod, Limits, Searcher};
use hoyito_testkit::{moves_of, rules_of, vectors};

/// More threads than the machine has cores, so that they interleave.
const THREADS: usize = 8;

/// Every position of `games` seeded random games from the start (each with a legal move).
fn game_positions(rules: &Rules, games: usize, seed: u64) -> Vec<Position6> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut out = Vec::new();
    for _ in 0..games {
        let mut p = Position6::start(rules).unwrap();
        for _ in 0..400 {
            let list = p.moves(rules);
            let children = list.children();
            if children.is_empty() {
                match p.passed(rules) {
                    Some(q) if q.is_live() => {
                        p = q;
                        continue;
                    }
                    _ => break,
                }
            }
            out.push(p);
            let c = children[next() % children.len()];
            if c.ended_game {
                break;
            }
            p = c.position;
        }
    }
    out
}

fn rules(variant: Variant, holes: usize, seeds: usize) -> Rules {
    Rules::new(variant, holes, seeds, LastFour::Capturer, CaptureSide::Any).unwrap()
}

/// Exact searches on eight threads sharing one small table (1 MiB, never cleared between
/// positions, so entries are overwritten and reused across searches) give the values a
/// one-thread search computes by retrograde analysis.
#[test]
fn eight_threads_on_one_table_agree_with_one_thread() {
    for rules in [
        rules(Variant::Hoyito2, 4, 2),
        rules(Variant::Hoyito3, 4, 2),
        rules(Variant::Hoyito2, 3, 3),
    ] {
        let one = Searcher::<2>::new(rules, Config::default());
        let many = Searcher::<2>::new(
            rules,
            Config {
                threads: THREADS,
                hash_mb: 1,
                retrograde_seeds: Some(0),
                exact_method: ExactMethod::AlphaBeta,
                ..Config::default()
            },
        );
        let positions = game_positions(&rules, 12, 7);
        assert!(
            positions.len() > 50,
            "{rules}: {} positions",
            positions.len()
        );
        for p in positions.iter().step_by(3) {
            let want = one.search(p, &Limits::exact());
            assert!(want.exact, "{rules} {p}");
            let got = many.search(p, &Limits::exact());
            assert!(got.exact, "{rules} {p}: eight threads");
            assert_eq!(got.score, want.score, "{rules} {p}: eight threads");
            let legal: Vec<u8> = p.moves(&rules).children().iter().map(|c| c.mv.0).collect();
            if let Some(m) = got.best {
                assert!(legal.contains(&m.0), "{rules} {p}: move {m} is not legal");
            }
        }
    }
}

/// Depth-limited searches on eight threads on 2x6 (one table for all positions): legal
/// moves, scores within the seeds on the board, and a result that claims to be exact
/// equals the value of an exact one-thread search.
#[test]
fn eight_threads_in_depth_limited_searches() {
    let rules = Rules::default();
    let many = Searcher::<2>::new(
        rules,
        Config {
            threads: THREADS,
            hash_mb: 1,
            ..Config::default()
        },
    );
    let one = Searcher::<2>::new(rules, Config::default());
    let positions = game_positions(&rules, 4, 11);
    let mut proven = 0;
    for p in positions.iter().step_by(2) {
        let r = many.search(p, &Limits::depth(6));
        let n = p.seeds_on_board() as i32;
        assert!((-n..=n).contains(&r.score), "{p}: score {}", r.score);
        let legal: Vec<u8> = p.moves(&rules).children().iter().map(|c| c.mv.0).collect();
        let m = r
            .best
            .expect("a position with a legal move has a best move");
        assert!(legal.contains(&m.0), "{p}: move {m} is not legal");
        if r.exact && p.seeds_on_board() <= 8 {
            let want = one.search(p, &Limits::exact());
            assert_eq!(r.score, want.score, "{p}: exact on eight threads");
            proven += 1;
        }
    }
    assert!(
        proven > 0,
        "no depth-limited result was exact: nothing compared"
    );
}

/// The long-sowing cache filled and read by eight threads at once: every thread finds the
/// legal and endless moves of the independent vectors, in its own order, many times.
#[test]
fn the_long_sowing_cache_under_many_threads() {
    let all = vectors("endless.jsonl");
    assert!(!all.is_empty());
    let cases: Vec<(Rules, String, Vec<u8>, Vec<u8>)> = all
        .iter()
        .map(|v| {
            (
                rules_of(v),
                v["position"].as_str().unwrap().to_string(),
                moves_of(&v["legal"]),
                moves_of(&v["endless"]),
            )
        })
        .collect();
    thread::scope(|s| {
        for t in 0..THREADS {
            let cases = &cases;
            s.spawn(move || {
                for round in 0..20 {
                    for k in 0..cases.len() {
                        let (rules, text, legal, endless) =
                            &cases[(k + 3 * t + round) % cases.len()];
                        let (got_legal, got_endless) = if rules.holes() <= 6 {
                            moves::<2>(rules, text)
                        } else {
                            moves::<4>(rules, text)
                        };
                        assert_eq!(&got_legal, legal, "{text} ({rules}), thread {t}");
                        assert_eq!(&got_endless, endless, "{text} ({rules}), thread {t}");
                    }
                }
            });
        }
    });
}

/// The legal and the endless moves of a position.
fn moves<const W: usize>(rules: &Rules, text: &str) -> (Vec<u8>, Vec<u8>) {
    let p = Position::<W>::parse(rules, text).unwrap();
    let list = p.moves(rules);
    (
        list.children().iter().map(|c| c.mv.0).collect(),
        list.endless().map(|m| m.0).collect(),
    )
}
