//! The suite of positions from real games (data/exact/real-games.jsonl): games of the engine
//! at levels 1 to 3 against itself, each opened by 0 to 5 random plies, both variants of
//! the 2x6 game with 4 seeds a hole; every position between plies 3 and 30 with a move to
//! play is kept, one line of JSON each. The same seeds give the same suite.
//!
//! `cargo run --release -p hoyito --example real_games > data/exact/real-games.jsonl`

use std::sync::atomic::AtomicBool;

use hoyito::play::{Engine, Strength};
use hoyito::setup::Rng;
use hoyito::{Position6, Rules, Variant};

/// The name of a variant as the suite writes it.
fn name(v: Variant) -> &'static str {
    match v {
        Variant::Hoyito2 => "hoyito2",
        Variant::Hoyito3 => "hoyito3",
    }
}

/// Games for each variant and pair of levels.
const GAMES: u64 = 4;
/// The plies whose positions are kept.
const PLIES: std::ops::RangeInclusive<usize> = 3..=30;
/// Keep one position in this many (so that a game gives a handful, not all 28).
const EVERY: usize = 4;

fn main() -> hoyito::Result<()> {
    let stop = AtomicBool::new(false);
    for rules in [Rules::default(), Rules::hoyito3()] {
        for (south, north) in [(1, 2), (2, 3), (3, 1), (3, 3), (2, 2)] {
            for game in 0..GAMES {
                let seed = 1000 * south + 100 * north + game;
                let mut engine = Engine::<2>::new(rules, Strength::Level(1), None, 1, 16, seed);
                let mut rng = Rng(seed);
                let random_plies = rng.below(6);
                let mut p = Position6::start(&rules)?;
                let mut kept = 0;
                for ply in 0..=*PLIES.end() {
                    let children = p.moves(&rules);
                    let children = children.children();
                    if children.is_empty() {
                        match p.passed(&rules) {
                            Some(q) => {
                                p = q;
                                continue;
                            }
                            None => break,
                        }
                    }
                    if PLIES.contains(&ply) && (ply + kept) % EVERY == 0 {
                        kept += 1;
                        println!(
                            "{{\"rules\": \"{}\", \"holes\": 6, \"position\": \"{p}\", \"ply\": {ply}, \
                             \"seeds_on_board\": {}, \"game\": \"levels {south}-{north}, seed {seed}, \
                             {random_plies} random plies\"}}",
                            name(rules.variant()),
                            p.seeds_on_board()
                        );
                    }
                    let mv = if ply < random_plies {
                        children[rng.below(children.len())].mv
                    } else {
                        let level = if p.side_to_move() == hoyito::Side::South {
                            south
                        } else {
                            north
                        };
                        match engine.choose(&rules, &p, Strength::Level(level as u8), &stop) {
                            Some(c) => c.mv,
                            None => break,
                        }
                    };
                    let c = children.iter().find(|c| c.mv == mv).expect("a legal move");
                    if c.ended_game {
                        break;
                    }
                    p = c.position;
                }
            }
        }
    }
    Ok(())
}
