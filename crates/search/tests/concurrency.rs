//! Concurrency stress tests of the two structures the search threads share: the
//! transposition table (both designs) under eight threads of exact search on random
//! positions, checked against one thread; and the long-sowing cache of the rules crate
//! under eight threads generating the moves of positions with long sowings at once, checked
//! against one thread with the cache cold.

use hoyito_rules::{CaptureSide, LastFour, Move, Position6, Rules, Side, Variant};
use hoyito_search::{Config, ExactMethod, Limits, Searcher, TableKind};

/// A small xorshift generator (a fixed seed: the same positions every run).
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Positions reached by random games from the start of `rules`, each taken the first time
/// the board holds at most `seeds` seeds (games that end before are skipped).
fn random_positions(rules: &Rules, count: usize, seeds: u32, rng: &mut Xorshift) -> Vec<Position6> {
    let mut out = Vec::new();
    while out.len() < count {
        let mut p = Position6::start(rules).unwrap();
        for _ in 0..400 {
            if p.seeds_on_board() <= seeds {
                out.push(p);
                break;
            }
            let moves = p.moves(rules);
            let children = moves.children();
            if children.is_empty() {
                match p.passed(rules) {
                    Some(q) if q.has_legal_move(rules) => {
                        p = q;
                        continue;
                    }
                    _ => break,
                }
            }
            let c = &children[rng.below(children.len())];
            if c.ended_game {
                break;
            }
            p = c.position;
        }
    }
    out
}

/// Eight threads of exact alpha-beta (no retrograde analysis, so that the threads do the
/// work) share one table over a stream of random positions (2x4, at most 12 seeds on the
/// board; larger boards take minutes in a debug build); every score equals
/// that of a one-thread search, and every best move is legal and keeps the score.
#[test]
fn shared_transposition_table_gives_the_one_thread_values() {
    let rules = Rules::new(Variant::Hoyito2, 4, 4, LastFour::Capturer, CaptureSide::Any).unwrap();
    let mut rng = Xorshift(0x5eed_1234_abcd_0001);
    let positions = random_positions(&rules, 12, 12, &mut rng);
    for table in [TableKind::Atomic, TableKind::Map] {
        check_exact(&rules, &positions, table);
    }
}

/// [`shared_transposition_table_gives_the_one_thread_values`] for one rule set and table.
fn check_exact(rules: &Rules, positions: &[Position6], table: TableKind) {
    let rules = *rules;
    let config = |threads| Config {
        threads,
        hash_mb: 8,
        table,
        retrograde_seeds: Some(0),
        exact_method: ExactMethod::AlphaBeta,
        ..Config::default()
    };
    // One searcher for all positions: the table carries entries from one to the next.
    let many = Searcher::new(rules, config(8));
    for p in positions {
        let r = many.search(p, &Limits::exact());
        let one = Searcher::new(rules, config(1)).search(p, &Limits::exact());
        assert!(r.exact && one.exact, "{p}: {r:?} {one:?}");
        assert_eq!(r.score, one.score, "{p} with {table:?}");
        // The best move keeps the value: its child, solved on one thread, says so.
        let Some(best) = r.best else {
            continue;
        };
        let child = p
            .play(&rules, best)
            .unwrap_or_else(|e| panic!("{p}: {best:?}: {e}"));
        let v = if child.ended_game {
            child.value(0)
        } else {
            let c = Searcher::new(rules, config(1)).search(&child.position, &Limits::exact());
            child.value(c.score)
        };
        assert_eq!(
            v, r.score,
            "{p}: best move {} does not keep the value",
            best.0
        );
    }
}

/// The moves of every position, as text (children and endless moves).
fn move_lists(rules: &Rules, positions: &[Position6], order: &[usize]) -> Vec<(usize, String)> {
    order
        .iter()
        .map(|&i| {
            let moves = positions[i].moves(rules);
            let children: Vec<String> = moves
                .children()
                .iter()
                .map(|c| format!("{}:{}:{}", c.mv.0, c.position, c.gain))
                .collect();
            let endless: Vec<u8> = moves.endless().map(|m: Move| m.0).collect();
            (i, format!("{children:?} endless {endless:?}"))
        })
        .collect()
}

/// Eight threads generate the moves of the same positions with long sowings at once (on
/// 2x6 with up to 8 seeds a hole, both capture sides), each in its own order, with the
/// long-sowing cache emptied first: every move list equals the one a single thread found.
#[test]
fn long_sowing_cache_gives_the_one_thread_moves() {
    let mut rng = Xorshift(0x5eed_1234_abcd_0002);
    for capture_side in [CaptureSide::Any, CaptureSide::Opponent] {
        let rules = Rules::new(Variant::Hoyito3, 6, 8, LastFour::Capturer, capture_side).unwrap();
        // Random boards, kept when one of their moves takes the long-sowing path.
        let mut positions = Vec::new();
        let mut tried = 0;
        while positions.len() < 100 {
            tried += 1;
            assert!(tried < 1_000_000, "too few long sowings");
            let cells: Vec<u8> = (0..12).map(|_| rng.below(9) as u8).collect();
            let side = if rng.below(2) == 0 {
                Side::South
            } else {
                Side::North
            };
            if let Ok(p) = Position6::from_rows(&rules, &cells[..6], &cells[6..], side, [0, 0]) {
                // Long sowings, but none of more than a million laps (a test in debug mode).
                let before = hoyito_rules::sowing::stats();
                p.moves(&rules);
                let after = hoyito_rules::sowing::stats();
                let laps = after.slow_laps - before.slow_laps;
                if after.long_sowings > before.long_sowings && laps < 1_000_000 {
                    positions.push(p);
                }
            }
        }
        hoyito_rules::sowing::clear_cache();
        let all: Vec<usize> = (0..positions.len()).collect();
        let mut expected = move_lists(&rules, &positions, &all);
        expected.sort();
        hoyito_rules::sowing::clear_cache();
        let orders: Vec<Vec<usize>> = (0..8)
            .map(|t| {
                let mut o = all.clone();
                for i in (1..o.len()).rev() {
                    o.swap(i, (i * 7919 + t * 104_729) % (i + 1));
                }
                o
            })
            .collect();
        let found: Vec<Vec<(usize, String)>> = std::thread::scope(|s| {
            let handles: Vec<_> = orders
                .iter()
                .map(|o| s.spawn(|| move_lists(&rules, &positions, o)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for mut f in found {
            f.sort();
            assert_eq!(f, expected, "{capture_side:?}");
        }
    }
}
