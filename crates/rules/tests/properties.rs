//! Property tests of the rules: conservation of seeds, notation round-trips, validity of
//! positions reached by random play, South/North symmetry, and agreement with a plain
//! reference implementation of a move (arrays, absolute-state endless detection).

use std::collections::HashSet;

use hoyito_rules::{
    CaptureSide, Diagram, Game, LastFour, Move, Position, Position12, Position6, Rules, Side,
    Variant,
};
use proptest::prelude::*;

fn rules_strategy() -> impl Strategy<Value = Rules> {
    (
        prop_oneof![Just(Variant::Hoyito2), Just(Variant::Hoyito3)],
        2usize..=12,
        1usize..=8,
        prop_oneof![
            Just(LastFour::Capturer),
            Just(LastFour::South),
            Just(LastFour::North)
        ],
        prop_oneof![Just(CaptureSide::Any), Just(CaptureSide::Opponent)],
    )
        .prop_map(|(v, h, s, l, c)| {
            let l = if v == Variant::Hoyito2 {
                LastFour::Capturer
            } else {
                l
            };
            Rules::new(v, h, s, l, c).unwrap()
        })
}

/// Plays `choices` as random moves (each an index into the legal moves) from the start,
/// calling `check` on every position reached.
fn random_game<const W: usize>(
    rules: &Rules,
    choices: &[usize],
    mut check: impl FnMut(&Position<W>),
) {
    let mut game = Game::new(*rules, Position::<W>::start(rules).unwrap());
    check(&game.position());
    for &c in choices {
        if game.is_over() {
            break;
        }
        let list = game.position().moves(rules);
        let mv = list.children()[c % list.len()].mv;
        game.play(mv).unwrap();
        check(&game.position());
    }
}

fn run_sized(rules: &Rules, choices: &[usize], check: &mut dyn FnMut(String, u32, u32, u32)) {
    if rules.holes() <= 6 {
        random_game::<2>(rules, choices, |p| {
            check(
                p.to_string(),
                p.seeds_on_board(),
                p.captured(Side::South) as u32,
                p.captured(Side::North) as u32,
            )
        });
    } else {
        random_game::<4>(rules, choices, |p| {
            check(
                p.to_string(),
                p.seeds_on_board(),
                p.captured(Side::South) as u32,
                p.captured(Side::North) as u32,
            )
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, .. ProptestConfig::default() })]

    /// Seeds on the board plus seeds captured always equal the seeds of the game, and every
    /// position reached parses back to itself.
    #[test]
    fn seeds_are_conserved_and_positions_stay_valid(
        rules in rules_strategy(),
        choices in prop::collection::vec(0usize..12, 0..120),
    ) {
        let total = rules.total_seeds() as u32;
        run_sized(&rules, &choices, &mut |text, board, s, n| {
            assert_eq!(board + s + n, total, "{text}");
            let d: Diagram = text.parse().unwrap();
            assert_eq!(d.holes(), rules.holes());
            assert!(d.south.iter().chain(&d.north).all(|&x| (x as u32) <= total));
        });
    }

    /// The legal mask of every position reached has the bits of the legal moves, and of
    /// no other hole.
    #[test]
    fn legal_mask_is_the_legal_moves(
        rules in rules_strategy(),
        choices in prop::collection::vec(0usize..12, 0..120),
    ) {
        let check = |p: &Position12| {
            let moves = p.moves(&rules);
            let bits = moves.children().iter().fold(0u16, |m, c| m | 1 << (c.mv.0 - 1));
            assert_eq!(p.legal_mask(&rules), bits, "{p}");
            assert_eq!(p.legal_mask(&rules).count_ones() as usize, p.count_legal(&rules));
        };
        random_game::<4>(&rules, &choices, check);
        if rules.holes() <= 6 {
            random_game::<2>(&rules, &choices, |p| {
                assert_eq!(p.legal_mask(&rules), p.cast::<4>().unwrap().legal_mask(&rules));
            });
        }
    }

    /// Formatting then parsing a position gives the same position.
    #[test]
    fn notation_round_trips(
        south in prop::collection::vec(0u8..9, 6),
        north in prop::collection::vec(0u8..9, 6),
        north_to_move in any::<bool>(),
        cap in (0u16..16, 0u16..16),
    ) {
        let rules = Rules::default().with_seeds(8).unwrap();
        let side = if north_to_move { Side::North } else { Side::South };
        let board: u16 = south.iter().chain(&north).map(|&x| x as u16).sum();
        prop_assume!(board + cap.0 + cap.1 <= 96);
        let p = Position6::from_rows(&rules, &south, &north, side, [cap.0, cap.1]).unwrap();
        let q = Position6::parse(&rules, &p.to_string()).unwrap();
        prop_assert_eq!(p, q);
        prop_assert_eq!(p.to_string(), q.to_string());
    }

    /// Exchanging South and North (rotating the board by a row and swapping the side to move)
    /// gives the same moves with mirrored results.
    #[test]
    fn south_north_symmetry(
        rules in rules_strategy(),
        choices in prop::collection::vec(0usize..12, 0..60),
    ) {
        // Mirroring exchanges who receives a last-four award of S or N.
        let rules = if rules.variant() == Variant::Hoyito3 {
            Rules::new(Variant::Hoyito3, rules.holes(), rules.seeds(), LastFour::Capturer, rules.capture_side()).unwrap()
        } else { rules };
        let check = |p: &Position12| {
            let m = p.mirrored();
            assert_eq!(m.mirrored(), *p);
            let a = p.moves(&rules);
            let b = m.moves(&rules);
            assert_eq!(a.endless().collect::<Vec<_>>(), b.endless().collect::<Vec<_>>());
            assert_eq!(a.len(), b.len());
            for (x, y) in a.children().iter().zip(b.children()) {
                assert_eq!(x.mv, y.mv);
                assert_eq!(x.position.mirrored(), y.position, "{p} move {}", x.mv);
                assert_eq!((x.gain, x.extra_turn), (y.gain, y.extra_turn));
            }
        };
        random_game::<4>(&rules, &choices, check);
    }
}

/// A plain implementation of one move for the test: an array board, a copy per move, every
/// absolute sowing state kept in a hash set.
fn reference_move(rules: &Rules, board: &[u32], side: Side, hole: usize) -> Reference {
    let h = rules.holes();
    let n = 2 * h;
    let start = if side == Side::South { 0 } else { h };
    let capturable =
        |i: usize| rules.capture_side() == CaptureSide::Any || (i >= h) != (side == Side::North);
    let mut b = board.to_vec();
    let mut at = start + hole - 1;
    let mut seen = HashSet::new();
    loop {
        let c = b[at] as usize;
        b[at] = 0;
        for k in 1..=c {
            b[(at + k) % n] += 1;
        }
        at = (at + c) % n;
        if b[at] == 1 {
            return Reference::Ends(b, 0, false);
        }
        if b[at] == 4 && capturable(at) {
            let mut got = 4;
            b[at] = 0;
            if rules.variant() == Variant::Hoyito2 {
                let mut j = at;
                loop {
                    j = (j + n - 1) % n;
                    if b[j] != 4 || !capturable(j) {
                        break;
                    }
                    got += 4;
                    b[j] = 0;
                }
            }
            return Reference::Ends(b, got, true);
        }
        if !seen.insert((b.clone(), at)) {
            return Reference::Endless;
        }
        if seen.len() > REFERENCE_LAPS {
            return Reference::GaveUp;
        }
    }
}

/// Laps after which the reference gives up (it keeps every state: an endless sowing of tens
/// of millions of laps, which random boards with up to 96 seeds do produce, would take
/// gigabytes and minutes). Such moves are left to the conformance vectors and the known
/// cases below.
const REFERENCE_LAPS: usize = 100_000;

/// What the reference says about a move.
enum Reference {
    /// The sowing ends: the board after it, the seeds captured, whether it captured.
    Ends(Vec<u32>, u32, bool),
    /// The sowing never ends.
    Endless,
    /// Longer than [`REFERENCE_LAPS`]: no answer.
    GaveUp,
}

proptest! {
    // A fixed seed: random boards with up to 96 seeds include endless sowings of up to
    // billions of laps, which the exact detector walks in seconds to minutes; with a seed
    // the run takes the same time every time. (`PROPTEST_RNG_SEED` is ignored here; change
    // the seed to explore other boards.)
    #![proptest_config(ProptestConfig {
        cases: 3000,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261130),
        .. ProptestConfig::default()
    })]

    /// Every move of a random 2x6 position agrees with the reference implementation:
    /// endless or not, board after the sowing, seeds captured, extra turn.
    #[test]
    fn moves_agree_with_reference(
        cells in prop::collection::vec(0u32..9, 12),
        north_to_move in any::<bool>(),
        hoyito3 in any::<bool>(),
        opponent in any::<bool>(),
    ) {
        let total: u32 = cells.iter().sum();
        prop_assume!(total > 4);
        let variant = if hoyito3 { Variant::Hoyito3 } else { Variant::Hoyito2 };
        let side_rule = if opponent { CaptureSide::Opponent } else { CaptureSide::Any };
        let rules = Rules::new(variant, 6, 8, LastFour::Capturer, side_rule).unwrap();
        let side = if north_to_move { Side::North } else { Side::South };
        let south: Vec<u8> = cells[..6].iter().map(|&x| x as u8).collect();
        let north: Vec<u8> = cells[6..].iter().map(|&x| x as u8).collect();
        let p = Position6::from_rows(&rules, &south, &north, side, [0, 0]).unwrap();
        for hole in 1..=6 {
            if p.seeds_in(side, hole) == 0 {
                continue;
            }
            let reference = reference_move(&rules, &cells, side, hole);
            if matches!(reference, Reference::GaveUp) {
                continue;
            }
            let mine = p.play(&rules, Move(hole as u8));
            match reference {
                Reference::GaveUp => {}
                Reference::Endless => prop_assert!(mine.is_err(), "{p}: move {hole} should be endless"),
                Reference::Ends(b, got, capture) => {
                    let c = mine.unwrap();
                    prop_assert_eq!(c.captured as u32, got);
                    prop_assert_eq!(c.extra_turn, capture);
                    let left: u32 = b.iter().sum();
                    if capture && left <= 4 {
                        prop_assert!(c.ended_game);
                        prop_assert_eq!(c.position.seeds_on_board(), 0);
                    } else {
                        let (s, nn) = c.position.rows();
                        let mine_board: Vec<u32> = s.iter().chain(&nn).map(|&x| x as u32).collect();
                        prop_assert_eq!(mine_board, b, "{} move {}", p, hole);
                    }
                }
            }
        }
    }
}

#[test]
fn endless_detection_is_exact_on_known_cases() {
    // From data/conformance/endless.jsonl: move 4 never ends, the others do.
    let rules = Rules::hoyito3();
    let p = Position6::parse(&rules, "3,2,9,3,1,0/1,0,2,1,0,2 S 12-12").unwrap();
    assert!(p.play(&rules, Move(4)).is_err());
    let cells = [3, 2, 9, 3, 1, 0, 1, 0, 2, 1, 0, 2];
    assert!(matches!(
        reference_move(&rules, &cells, Side::South, 4),
        Reference::Endless
    ));
    for hole in [1, 2, 3, 5] {
        assert!(p.play(&rules, Move(hole)).is_ok());
    }
}

/// The packed key as its documentation writes it: 5 bits a hole from bit 0, then the side.
fn packed_reference<const W: usize>(p: &Position<W>) -> u64 {
    let (south, north) = p.rows();
    let holes = south.iter().chain(&north).enumerate();
    let board: u64 = holes.map(|(i, &c)| u64::from(c) << (5 * i)).sum();
    board | u64::from(p.side_to_move() == Side::North) << 60
}

proptest! {
    /// The packed key is exact: two boards (and sides) share it when and only when they
    /// share their board key; it is there exactly when no hole holds more than 31 seeds on
    /// a board of up to 6 holes a row. Small hole counts make equal boards common; one hole
    /// may be large.
    #[test]
    fn packed_keys_are_exact(
        a in prop::collection::vec(0u8..3, 12),
        b in prop::collection::vec(0u8..3, 12),
        big in 0u8..56,
        at in 0usize..12,
        sides in (any::<bool>(), any::<bool>()),
    ) {
        // 8 seeds a hole allow holes of more than the key's 31.
        let rules = Rules::new(Variant::Hoyito2, 6, 8, LastFour::Capturer, CaptureSide::Any).unwrap();
        let side = |north: bool| if north { Side::North } else { Side::South };
        let make = |cells: &[u8], north: bool| {
            Position6::from_rows(&rules, &cells[..6], &cells[6..], side(north), [0, 0]).unwrap()
        };
        let mut big_cells = a.clone();
        big_cells[at] = big;
        let positions = [make(&a, sides.0), make(&b, sides.1), make(&big_cells, sides.0)];
        for p in &positions {
            let (south, north) = p.rows();
            let fits = south.iter().chain(&north).all(|&c| c <= 31);
            prop_assert_eq!(p.packed_key().is_some(), fits, "{}", p);
            if fits {
                prop_assert_eq!(p.packed_key(), Some(packed_reference(p)), "{}", p);
            }
            for q in &positions {
                if let (Some(x), Some(y)) = (p.packed_key(), q.packed_key()) {
                    prop_assert_eq!(x == y, p.board_key() == q.board_key(), "{} {}", p, q);
                }
            }
        }
        // Smaller boards, and none on the 2x12 board.
        let rules3 = Rules::new(Variant::Hoyito2, 3, 8, LastFour::Capturer, CaptureSide::Any).unwrap();
        let p = Position6::from_rows(&rules3, &a[..3], &b[..3], side(sides.0), [0, 0]).unwrap();
        prop_assert_eq!(p.packed_key(), Some(packed_reference(&p)));
        let rules12 = Rules::new(Variant::Hoyito2, 12, 2, LastFour::Capturer, CaptureSide::Any).unwrap();
        let cells12: Vec<u8> = a.iter().chain(&b).copied().collect();
        let p = Position12::from_rows(&rules12, &cells12[..12], &cells12[12..], side(sides.0), [0, 0]).unwrap();
        prop_assert_eq!(p.packed_key(), None);
    }
}
