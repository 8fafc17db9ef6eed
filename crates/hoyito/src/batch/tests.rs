//! Tests of the batch.

use super::*;
use crate::agents::tests::sample_rules;
use crate::setup::Rng;
use hoyito_rules::{CaptureSide, End, Game, LastFour, Position12, Position6, Variant};

/// Random legal actions for every game (any action where an episode just ended).
fn random_actions<const W: usize>(batch: &Batch<W>, rng: &mut Rng) -> Vec<i64> {
    (0..batch.len())
        .map(|i| {
            let mask = batch.mask(i);
            if mask == 0 {
                return 0;
            }
            let legal: Vec<i64> = (0..16).filter(|k| mask & (1 << k) != 0).collect();
            legal[rng.below(legal.len())]
        })
        .collect()
}

#[test]
fn seeds_are_conserved_and_masks_are_the_legal_moves() {
    for rules in sample_rules() {
        let start = Position6::start(&rules).unwrap();
        let options = BatchOptions {
            opponent: Some(OpponentKind::Random),
            ..BatchOptions::default()
        };
        let mut batch = Batch::new(rules, start, 300, options, 1).unwrap();
        let mut rng = Rng(5);
        let total = rules.total_seeds() as u32;
        let mut obs = vec![0i16; batch.len() * batch.observation_len()];
        let mut masks = vec![false; batch.len() * rules.holes()];
        for _ in 0..60 {
            batch.step(&random_actions(&batch, &mut rng)).unwrap();
            batch.write_observations(&mut obs);
            batch.write_masks(&mut masks);
            let n = batch.observation_len();
            for i in 0..batch.len() {
                let p = batch.position(i);
                let seen: i32 = obs[i * n..(i + 1) * n].iter().map(|&x| x as i32).sum();
                assert_eq!(seen as u32, total, "{rules} {p}");
                let legal: Vec<bool> = (1..=rules.holes() as u8)
                    .map(|h| p.play(&rules, Move(h)).is_ok() && batch.end(i).is_none())
                    .collect();
                let row = &masks[i * rules.holes()..(i + 1) * rules.holes()];
                assert_eq!(row, &legal[..], "{rules} {p}");
                // The agent (South) is to move wherever the game goes on.
                if batch.end(i).is_none() {
                    assert_eq!(p.side_to_move(), Side::South);
                    assert_eq!(batch.view(i), Side::South);
                }
            }
        }
        assert!((0..batch.len()).any(|i| batch.episodes(i) > 0));
    }
}

#[test]
fn the_same_seed_plays_the_same_games() {
    let rules = Rules::default();
    let start = Position6::start(&rules).unwrap();
    let run = |seed: u64| {
        let options = BatchOptions {
            opponent: Some(OpponentKind::Random),
            ..BatchOptions::default()
        };
        let mut batch = Batch::new(rules, start, 300, options, seed).unwrap();
        let mut rng = Rng(9);
        let mut trace = Vec::new();
        for _ in 0..80 {
            batch.step(&random_actions(&batch, &mut rng)).unwrap();
            trace.extend((0..batch.len()).map(|i| (batch.position(i), batch.reward(i))));
        }
        trace
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
}

/// Plays 40 games of `rules` from `start` for 400 steps, both sides played by the
/// caller, moves recorded: every episode is the game of its moves, ends where that game
/// ends, and its rewards add up to its final margin. Returns the episodes that ended by
/// repetition.
fn games_equal_games<const W: usize>(rules: Rules, start: Position<W>) -> i32 {
    let options = BatchOptions {
        record_moves: true,
        ..BatchOptions::default()
    };
    let mut batch = Batch::new(rules, start, 40, options, 0).unwrap();
    let mut rng = Rng(2);
    let mut games: Vec<Game<W>> = (0..40).map(|_| Game::new(rules, start)).collect();
    let mut totals = [0; 40];
    let mut ends = [0; 3];
    for _ in 0..400 {
        let actions = random_actions(&batch, &mut rng);
        let finished: Vec<bool> = (0..40).map(|i| batch.terminated(i)).collect();
        batch.step(&actions).unwrap();
        for i in 0..40 {
            if finished[i] {
                // The step started a new episode.
                games[i] = Game::new(rules, start);
                totals[i] = 0;
                assert_eq!(batch.plies(i), 0);
                assert_eq!(batch.position(i), games[i].position());
                continue;
            }
            games[i].play(Move(actions[i] as u8 + 1)).unwrap();
            totals[i] += batch.reward(i);
            assert_eq!(batch.position(i), games[i].position(), "{rules}");
            assert_eq!(batch.moves(i), games[i].moves());
            assert_eq!(batch.terminated(i), games[i].is_over());
            let end = batch.end(i).map(|e| match e {
                Ending::Repetition => End::Repetition,
                _ => End::NoMoves,
            });
            assert_eq!(end, games[i].end());
            if let Some(e) = batch.end(i) {
                ends[e as usize] += 1;
                let p = games[i].position();
                let m = p.captured(Side::South) as i32 - p.captured(Side::North) as i32;
                assert_eq!(totals[i], m, "{rules}");
            }
        }
    }
    assert!(ends.iter().sum::<i32>() > 0, "{rules}");
    ends[Ending::Repetition as usize]
}

#[test]
fn games_equal_games_of_the_same_moves() {
    // Histories of packed keys (2x6 and smaller, no hole above 31 seeds), of board keys
    // (2x8: no packed key), and of both (8 seeds a hole: 96 seeds, where a hole can hold
    // more than 31).
    let mut repetitions = [0; 3];
    for rules in sample_rules() {
        repetitions[0] += games_equal_games(rules, Position6::start(&rules).unwrap());
    }
    for variant in [Variant::Hoyito2, Variant::Hoyito3] {
        let rules = Rules::new(variant, 8, 3, LastFour::Capturer, CaptureSide::Any).unwrap();
        repetitions[1] += games_equal_games(rules, Position12::start(&rules).unwrap());
        let rules = Rules::new(variant, 6, 8, LastFour::Capturer, CaptureSide::Any).unwrap();
        repetitions[2] += games_equal_games(rules, Position6::start(&rules).unwrap());
    }
    assert!(repetitions.iter().all(|&r| r > 0), "{repetitions:?}");
}

#[test]
fn a_random_opponent_plays_as_an_opponent_of_its_seed() {
    // Game i's opponent draws as Opponent::choose with seed + i, move for move.
    let rules = Rules::default();
    let start = Position6::start(&rules).unwrap();
    let options = BatchOptions {
        opponent: Some(OpponentKind::Random),
        record_moves: true,
        autoreset: false,
        ..BatchOptions::default()
    };
    let mut batch = Batch::new(rules, start, 3, options, 40).unwrap();
    let mut rng = Rng(1);
    for _ in 0..30 {
        if (0..3).any(|i| batch.end(i).is_some()) {
            break;
        }
        batch.step(&random_actions(&batch, &mut rng)).unwrap();
    }
    let mut north = 0;
    for i in 0..3 {
        let mut opponent = Opponent::new(rules, OpponentKind::Random, None, 40 + i).unwrap();
        let mut game = Game::new(rules, start);
        for &mv in batch.moves(i as usize) {
            let p = game.position();
            if p.side_to_move() == Side::North {
                assert_eq!(opponent.choose(&p, None), Some(mv), "game {i} at {p}");
                north += 1;
            }
            game.play(mv).unwrap();
        }
    }
    assert!(north >= 30, "{north}");
}

#[test]
fn a_step_into_rows_writes_what_the_writers_write() {
    // Alone, in parallel parts (300 games: two of 128 and one of 44), with a random
    // opponent in each game and with one engine shared by the games.
    let rules = Rules::default();
    let start = Position6::start(&rules).unwrap();
    for (games, opponent) in [
        (1, None),
        (300, None),
        (300, Some(OpponentKind::Random)),
        (4, Some(OpponentKind::Level(1))),
    ] {
        // An engine's moves take longer.
        let steps = if games == 4 { 30 } else { 150 };
        let options = BatchOptions {
            opponent,
            max_plies: Some(60),
            ..BatchOptions::default()
        };
        let mut a = Batch::new(rules, start, games, options.clone(), 5).unwrap();
        let mut b = Batch::new(rules, start, games, options, 5).unwrap();
        let (n, h) = (a.observation_len(), rules.holes());
        let mut rng = Rng(3);
        for _ in 0..steps {
            let actions = random_actions(&a, &mut rng);
            a.step(&actions).unwrap();
            let mut want = (vec![0; games * n], vec![false; games * h]);
            a.write_observations(&mut want.0);
            a.write_masks(&mut want.1);
            let mut results = (vec![0.0; games], vec![false; games], vec![false; games]);
            let mut to_move = vec![0; games];
            a.write_results(&mut results.0, &mut results.1, &mut results.2, &mut to_move);
            let mut got = (vec![-1; games * n], vec![true; games * h]);
            let mut got_results = (vec![-1.0; games], vec![true; games], vec![true; games]);
            let mut got_to_move = vec![-1; games];
            b.step_into(
                &actions,
                StepOut {
                    observations: &mut got.0,
                    masks: &mut got.1,
                    rewards: &mut got_results.0,
                    terminated: &mut got_results.1,
                    truncated: &mut got_results.2,
                    to_move: &mut got_to_move,
                },
            )
            .unwrap();
            assert_eq!(got, want, "{games} {opponent:?}");
            assert_eq!(got_results, results);
            assert_eq!(got_to_move, to_move);
        }
    }
}

#[test]
fn steps_check_their_actions_first() {
    let rules = Rules::default();
    let start = Position6::parse(&rules, "0,4,4,4,4,4/4,4,4,4,4,4 S").unwrap();
    let options = BatchOptions {
        autoreset: false,
        max_plies: Some(2),
        ..BatchOptions::default()
    };
    let mut batch = Batch::new(rules, start, 2, options, 0).unwrap();
    assert_eq!(
        batch.step(&[1, 0]),
        Err(StepError::Illegal { env: 1, action: 0 })
    );
    assert_eq!(
        batch.step(&[1, 6]),
        Err(StepError::OutOfRange {
            env: 1,
            action: 6,
            holes: 6
        })
    );
    assert_eq!(
        batch.step(&[1]),
        Err(StepError::Count { given: 1, games: 2 })
    );
    // Nothing moved.
    assert_eq!(batch.position(0), start);
    batch.step(&[1, 1]).unwrap();
    let a = batch.mask(0).trailing_zeros() as i64;
    batch.step(&[a, a]).unwrap();
    assert!(batch.truncated(0) && !batch.terminated(0));
    assert_eq!(batch.step(&[a, a]), Err(StepError::Over { env: 0 }));
}

#[test]
fn an_engine_opponent_answers_with_legal_moves() {
    let rules = Rules::default();
    let start = Position6::parse(&rules, "1,0,2,0,0,1/0,1,0,0,1,1 N").unwrap();
    let options = BatchOptions {
        opponent: Some(OpponentKind::Level(2)),
        player: Side::South,
        ..BatchOptions::default()
    };
    let mut batch = Batch::new(rules, start, 3, options, 0).unwrap();
    // The opponent (North) moved first.
    assert!((0..3).all(|i| batch.plies(i) > 0 || batch.end(i).is_some()));
    let mut rng = Rng(1);
    for _ in 0..300 {
        if (0..3).all(|i| batch.episodes(i) > 1) {
            break;
        }
        batch.step(&random_actions(&batch, &mut rng)).unwrap();
    }
    assert!((0..3).all(|i| batch.episodes(i) > 1));
}
