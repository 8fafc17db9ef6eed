//! The perfect player (the engine's exact strength over the small tables of the cache)
//! never lets its value fall: whatever the opponent does, the net seeds it is sure of (what
//! it has won so far plus the proven value of the position) never go down, and the final
//! margin is at least the value it started from. From the 2x6 starts, it follows the
//! proofs (book and certificates) and keeps the value they prove, whatever the opponent does.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use hoyito::cache::small_tables;
use hoyito::play::players::{Engine, Strength};
use hoyito::search::{Config, Limits, Searcher};
use hoyito::tables::{Quiet, Tables};
use hoyito::{Position6, Rules, Side};

/// The opponents the perfect player meets.
#[derive(Clone, Copy, Debug)]
enum Opponent {
    Random,
    Engine(Strength),
}

#[test]
fn the_perfect_side_never_loses_value() {
    let rules = Rules::default();
    // The tests' cache (the command-line tests share it), built here if not yet.
    let cache = concat!(env!("CARGO_TARGET_TMPDIR"), "/hoyito-cache");
    std::env::set_var(hoyito::cache::CACHE_ENV, cache);
    let small = small_tables(&rules, 16, &Quiet).unwrap().unwrap();
    let tables = small.tables;
    let opponents = [
        Opponent::Random,
        Opponent::Engine(Strength::Level(1)),
        Opponent::Engine(Strength::Level(2)),
        Opponent::Engine(Strength::Depth(3)),
    ];
    let starts = [
        "2,0,0,3,2,1/2,3,0,0,2,1 N",
        "0,1,0,1,3,2/2,3,1,1,1,1 S",
        "3,1,4,0,1,1/2,0,1,1,1,1 S",
    ];
    let mut games = 0;
    for text in starts {
        let start = Position6::parse(&rules, text).unwrap();
        for (k, opponent) in opponents.into_iter().enumerate() {
            for perfect in [Side::South, Side::North] {
                let seed = 7 + k as u64;
                play_one(&rules, &tables, start, perfect, opponent, seed);
                games += 1;
            }
        }
    }
    assert_eq!(games, 24);
}

/// One game from `start`, `perfect` against `opponent`, checking the invariant at each ply.
fn play_one(
    rules: &Rules,
    tables: &Arc<Tables>,
    start: Position6,
    perfect: Side,
    opponent: Opponent,
    seed: u64,
) {
    let mut engine = Engine::<2>::new(
        *rules,
        Strength::Exact,
        Some(Arc::clone(tables)),
        1,
        16,
        seed,
    );
    let judge =
        Searcher::<2>::new(*rules, Config::default()).with_probe(Box::new(Arc::clone(tables)));
    let value = |p: &Position6| {
        let r = judge.search(p, &Limits::exact());
        assert!(r.exact, "not proven: {p}");
        r.score
    };
    let sign = |side: Side| if side == perfect { 1 } else { -1 };
    let stop = AtomicBool::new(false);
    let mut p = start;
    // Net seeds won by the perfect side so far, and what it is sure of.
    let mut won = 0;
    let first = sign(p.side_to_move()) * value(&p);
    let mut sure = first;
    for ply in 0..400 {
        let children = p.moves(rules);
        let children = children.children();
        if children.is_empty() {
            // A pass keeps the value; no move for either side ends the game (the value of
            // the board left is what `sure` counts for it).
            match p.passed(rules) {
                Some(q) => {
                    p = q;
                    continue;
                }
                None => {
                    won = sure;
                    break;
                }
            }
        }
        let mover = p.side_to_move();
        let mv = if mover == perfect {
            engine.choose(rules, &p, Strength::Exact, &stop).unwrap().mv
        } else {
            match opponent {
                Opponent::Random => children[engine.rng().below(children.len())].mv,
                Opponent::Engine(s) => engine.choose(rules, &p, s, &stop).unwrap().mv,
            }
        };
        let c = children.iter().find(|c| c.mv == mv).unwrap();
        let child_value = if c.ended_game { 0 } else { value(&c.position) };
        let next = won + sign(mover) * c.value(child_value);
        assert!(
            next >= sure,
            "{opponent:?}, perfect {perfect:?}, ply {ply} at {p}: move {} lets the sure value \
             fall from {sure} to {next}",
            mv.0
        );
        if mover == perfect {
            assert_eq!(next, sure, "the perfect move keeps the value at {p}");
        }
        sure = next;
        won += sign(mover) * c.gain as i32;
        if c.ended_game {
            break;
        }
        p = c.position;
    }
    assert_eq!(
        won, sure,
        "the game ended: what was won is what was sure ({p})"
    );
    assert!(
        won >= first,
        "final margin {won} below the start's value {first}"
    );
}

/// From each 2x6 start, the perfect player follows the proofs (the opening book and the
/// certificates compiled into the library, `hoyito::strategy`) against opponents of every
/// kind: at each ply the net seeds it is sure of (won so far, plus the bound the
/// certificates prove on the position) never fall, and never go below the start's value,
/// until the game reaches the endgame tables the certificates stand on, or ends.
#[test]
fn from_the_start_the_perfect_side_follows_the_proofs_and_keeps_its_value() {
    let hoyito3 = Rules::new(
        hoyito::Variant::Hoyito3,
        6,
        4,
        hoyito::LastFour::Capturer,
        hoyito::CaptureSide::Any,
    )
    .unwrap();
    let opponents = [
        Opponent::Random,
        Opponent::Engine(Strength::Level(1)),
        Opponent::Engine(Strength::Level(2)),
        // The other side plays perfectly too: the whole game is then known exactly.
        Opponent::Engine(Strength::Exact),
    ];
    let mut plies = 0;
    for (rules, value) in [(Rules::default(), -28), (hoyito3, -36)] {
        for (k, opponent) in opponents.into_iter().enumerate() {
            for perfect in [Side::South, Side::North] {
                for seed in 0..if matches!(opponent, Opponent::Random) {
                    3
                } else {
                    1
                } {
                    let v = if perfect == Side::South {
                        value
                    } else {
                        -value
                    };
                    plies += follow(&rules, v, perfect, opponent, 11 + seed + 7 * k as u64);
                }
            }
        }
    }
    // 24 games, each followed through the certificates for several plies.
    assert!(plies >= 24 * 4, "{plies} plies in all");
}

/// One game from the start of `rules`, worth `value` to `perfect`; returns the plies played
/// before the game left the certificates.
fn follow(rules: &Rules, value: i32, perfect: Side, opponent: Opponent, seed: u64) -> usize {
    let mut engine = Engine::<2>::new(*rules, Strength::Exact, None, 1, 16, seed);
    // Raised: an exact search stops at once, so the perfect player moves by the proofs
    // alone (the proven move, else the certificates' move that keeps their bound).
    let now = AtomicBool::new(true);
    let never = AtomicBool::new(false);
    let sign = |side: Side| if side == perfect { 1 } else { -1 };
    let bound = |p: &Position6| {
        let k = hoyito::strategy::lookup(rules, p)?;
        match perfect {
            Side::South => k.lower,
            Side::North => k.upper.map(|u| -u),
        }
    };
    let mut p = Position6::start(rules).unwrap();
    let mut won = 0;
    let mut sure = bound(&p).expect("the start is proven");
    assert_eq!(sure, value);
    for ply in 0.. {
        let children = p.moves(rules);
        let children = children.children();
        if children.is_empty() {
            match p.passed(rules) {
                Some(q) => {
                    p = q;
                    continue;
                }
                None => return ply,
            }
        }
        let mover = p.side_to_move();
        let mv = match (mover == perfect, opponent) {
            (false, Opponent::Random) => children[engine.rng().below(children.len())].mv,
            (false, Opponent::Engine(s)) if s != Strength::Exact => {
                engine.choose(rules, &p, s, &never).unwrap().mv
            }
            _ => engine.choose(rules, &p, Strength::Exact, &now).unwrap().mv,
        };
        let c = children.iter().find(|c| c.mv == mv).unwrap();
        won += sign(mover) * c.gain as i32;
        if c.ended_game {
            assert!(
                won >= sure,
                "{rules}: the game ended at {won}, below {sure}"
            );
            return ply + 1;
        }
        let Some(b) = bound(&c.position) else {
            // Out of the certificates: into the tables they stand on (28 seeds at most).
            let seeds = c.position.seeds_on_board();
            assert!(
                seeds <= 28,
                "{rules}: the proofs stop at {} ({seeds} seeds)",
                c.position
            );
            assert!(ply >= 3, "{rules}: the proofs stop after {ply} plies");
            return ply + 1;
        };
        let next = won + b;
        assert!(
            next >= sure,
            "{rules}, {opponent:?}, perfect {perfect:?}, ply {ply} at {p}: move {} lets the sure \
             value fall from {sure} to {next}",
            mv.0
        );
        sure = next;
        assert!(sure >= value);
        p = c.position;
    }
    unreachable!()
}
