//! The game record: repetition, passes, end of game, winner; and notation errors.

use hoyito_rules::{
    Diagram, End, Game, LastFour, Move, ParseErrorKind, Position, Position6, Rules, Side, Variant,
    Winner,
};

/// Deterministic pseudo-random numbers for reproducible random games.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn repetition_ends_the_game_and_leaves_the_seeds_to_nobody() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut repetitions = 0;
    for holes in 2..=4 {
        for seeds in 1..=3 {
            let rules = Rules::new(
                Variant::Hoyito2,
                holes,
                seeds,
                LastFour::Capturer,
                hoyito_rules::CaptureSide::Any,
            )
            .unwrap();
            for _ in 0..200 {
                let mut game = Game::new(rules, Position6::start(&rules).unwrap());
                while !game.is_over() {
                    let list = game.position().moves(&rules);
                    let mv = list.children()[(rng.next() % list.len() as u64) as usize].mv;
                    game.play(mv).unwrap();
                }
                let last = game.position();
                let total = rules.total_seeds() as u32;
                let captured =
                    last.captured(Side::South) as u32 + last.captured(Side::North) as u32;
                match game.end().unwrap() {
                    End::Repetition => {
                        repetitions += 1;
                        // The final position occurred before, with the same side to move.
                        let earlier = &game.positions()[..game.positions().len() - 1];
                        assert!(earlier.iter().any(|p| p.board_key() == last.board_key()));
                        // The seeds on the board are nobody's.
                        assert_eq!(last.seeds_on_board() + captured, total);
                        assert!(last.seeds_on_board() > 0);
                        assert_eq!(game.play(Move(1)), Err(hoyito_rules::PlayError::GameOver));
                    }
                    End::NoMoves => {
                        // Neither side can move.
                        assert!(!last.has_legal_move(&rules));
                        assert!(!last.with_side_flipped().has_legal_move(&rules));
                    }
                }
                let w = game.winner().unwrap();
                let (s, n) = (last.captured(Side::South), last.captured(Side::North));
                assert_eq!(
                    w,
                    match s.cmp(&n) {
                        std::cmp::Ordering::Greater => Winner::Side(Side::South),
                        std::cmp::Ordering::Less => Winner::Side(Side::North),
                        std::cmp::Ordering::Equal => Winner::Draw,
                    }
                );
            }
        }
    }
    assert!(repetitions > 0, "random small games include repetitions");
}

#[test]
fn a_side_without_moves_passes() {
    // South's row is empty: North moves.
    let rules = Rules::default();
    let p = Position6::parse(&rules, "0,0,0,0,0,0/1,2,1,0,2,2 S").unwrap();
    assert!(p.moves(&rules).is_empty());
    let game = Game::new(rules, p);
    assert_eq!(game.position().side_to_move(), Side::North);
    assert!(!game.is_over());
}

#[test]
fn capture_leaving_four_or_fewer_ends_and_awards() {
    // From data/conformance/apply.jsonl: North's capture leaves 4 seeds, North takes them.
    let r = Rules::hoyito3();
    let p = Position6::parse(&r, "0,3,0,1,0,0/1,0,0,2,0,1 N 20-20").unwrap();
    let c = p.play(&r, Move(4)).unwrap();
    assert!(c.ended_game);
    assert_eq!((c.captured, c.awarded, c.gain), (4, 4, 8));
    // With last_four = S the same seeds go to South: net gain 0 for North.
    let rs = Rules::new(
        Variant::Hoyito3,
        6,
        4,
        LastFour::South,
        hoyito_rules::CaptureSide::Any,
    )
    .unwrap();
    let c = p.play(&rs, Move(4)).unwrap();
    assert_eq!((c.captured, c.awarded, c.gain), (4, 4, 0));
    assert_eq!(c.position.to_string(), "0,0,0,0,0,0/0,0,0,0,0,0 N 24-24");
    let mut g = Game::new(rs, p);
    g.play(Move(4)).unwrap();
    assert_eq!(g.end(), Some(End::NoMoves));
    assert_eq!(g.winner(), Some(Winner::Draw));
}

#[test]
fn notation_errors_say_what_and_where() {
    let cases: &[(&str, ParseErrorKind, usize)] = &[
        ("", ParseErrorKind::Empty, 1),
        ("1,2,3 S", ParseErrorKind::MissingSlash, 6),
        ("1,2/3,4/5,6 S", ParseErrorKind::ExtraSlash, 8),
        ("1,,3/1,2,3 S", ParseErrorKind::EmptyHole, 3),
        ("1,2,-3/1,2,3 S", ParseErrorKind::NotANumber("-3".into()), 5),
        (
            "1,2,300/1,2,3 S",
            ParseErrorKind::TooManySeeds("300".into()),
            5,
        ),
        (
            "1,2,3/1,2 S",
            ParseErrorKind::UnequalRows { south: 3, north: 2 },
            7,
        ),
        ("1/1 S", ParseErrorKind::RowLength(1), 1),
        ("1,2/1,2", ParseErrorKind::MissingSide, 8),
        ("1,2/1,2 W", ParseErrorKind::BadSide("W".into()), 9),
        (
            "1,2/1,2 S 1+2",
            ParseErrorKind::BadCaptured("1+2".into()),
            11,
        ),
        ("1,2/1,2 S 1-2 x", ParseErrorKind::Trailing("x".into()), 15),
    ];
    for (text, kind, column) in cases {
        let e = text.parse::<Diagram>().unwrap_err();
        assert_eq!(&e.kind, kind, "{text}");
        assert_eq!(e.column, *column, "column for {text}: {e}");
        assert!(e.to_string().contains(&format!("column {column}")));
    }
}

#[test]
fn positions_must_fit_the_rules() {
    let r = Rules::default();
    assert!(Position6::parse(&r, "4,4,4,4,4,4/4,4,4,4,4,4 S 1-0").is_err());
    assert!(Position6::parse(&r, "4,4,4/4,4,4 S").is_err());
    let r12 = Rules::hoyito2(12).unwrap();
    // A 2x12 board does not fit the 16-byte position.
    assert!(Position6::start(&r12).is_err());
    assert!(Position::<4>::start(&r12).is_ok());
    assert!(Rules::hoyito2(1).is_err());
    assert!(Rules::default().with_seeds(0).is_err());
}

#[test]
fn hoyito2_takes_a_fixed_last_four_award() {
    // North's 6 lands on South's 1 (3 + 1 = 4) and captures it, leaving 4 seeds on the board:
    // the game ends and the last four go as the option says, in Hoyito II as in Hoyito III.
    let text = "3,0,0,0,0,4/0,0,0,0,0,1 N";
    for (last_four, captured, winner) in [
        (LastFour::Capturer, [0, 8], Winner::Side(Side::North)),
        (LastFour::South, [4, 4], Winner::Draw),
        (LastFour::North, [0, 8], Winner::Side(Side::North)),
    ] {
        let rules = Rules::new(
            Variant::Hoyito2,
            6,
            4,
            last_four,
            hoyito_rules::CaptureSide::Any,
        )
        .unwrap();
        assert_eq!(rules.is_symmetric(), last_four == LastFour::Capturer);
        let p = Position6::parse(&rules, text).unwrap();
        let child = p.play(&rules, Move(6)).unwrap();
        assert_eq!((child.captured, child.awarded), (4, 4));
        assert!(child.ended_game);
        let after = child.position;
        assert_eq!(
            [after.captured(Side::South), after.captured(Side::North)],
            captured,
            "{last_four}"
        );
        let mut game = Game::new(rules, p);
        game.play(Move(6)).unwrap();
        assert!(game.is_over());
        assert_eq!(game.winner(), Some(winner), "{last_four}");
    }
}

/// The moves a game keeps for its current position are the position's own, after every move,
/// pass, end, undo and redo; and a move that is not legal is refused with the position's
/// reason, leaving the game as it was.
#[test]
fn the_kept_moves_are_the_positions_moves_through_play_undo_and_redo() {
    let mut rng = Rng(0x0dd_ba11_5eed);
    let mut passes = 0;
    for (variant, holes, seeds) in [
        (Variant::Hoyito2, 6, 4),
        (Variant::Hoyito3, 6, 4),
        (Variant::Hoyito2, 3, 2),
        (Variant::Hoyito3, 2, 3),
    ] {
        let rules = Rules::new(
            variant,
            holes,
            seeds,
            LastFour::Capturer,
            hoyito_rules::CaptureSide::Any,
        )
        .unwrap();
        for _ in 0..100 {
            let mut game = Game::new(rules, Position6::start(&rules).unwrap());
            loop {
                let p = game.position();
                let expected = if game.is_over() {
                    0
                } else {
                    p.legal_mask(&rules)
                };
                assert_eq!(game.legal_mask(), expected, "{p}");
                let kept: Vec<_> = game.legal_moves().to_vec();
                if game.is_over() {
                    assert!(kept.is_empty());
                    break;
                }
                assert_eq!(kept, p.moves(&rules).children());
                for k in 0..=holes as u8 + 1 {
                    if k == 0 || expected & 1 << (k - 1) == 0 {
                        let before = game.positions().len();
                        assert_eq!(
                            game.play(Move(k)).unwrap_err(),
                            p.play(&rules, Move(k)).unwrap_err()
                        );
                        assert_eq!(game.positions().len(), before);
                    }
                }
                let mv = kept[(rng.next() % kept.len() as u64) as usize].mv;
                // Both ways of playing: the next moves generated when asked for, or at once.
                let child = if rng.next().is_multiple_of(2) {
                    game.play(mv)
                } else {
                    game.play_keeping_moves(mv)
                }
                .unwrap();
                // The settled position's side differs from the child's after a pass.
                passes += (!game.is_over()
                    && child.position.side_to_move() != game.position().side_to_move())
                    as u32;
                if rng.next().is_multiple_of(4) {
                    let after = game.legal_mask();
                    assert_eq!(game.undo(), Some(mv));
                    assert_eq!(game.legal_mask(), p.legal_mask(&rules));
                    assert_eq!(game.redo().unwrap(), Some(mv));
                    assert_eq!(game.legal_mask(), after);
                }
            }
        }
    }
    assert!(passes > 0, "random games include passes");
}
