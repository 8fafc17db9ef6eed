//! A game against the engine: South's moves come from the command line (hole numbers; once
//! they run out, South plays its first legal move), and the engine (North) answers each
//! with its best move at depth 6, to the end of the game.
//!
//! `cargo run -p hoyito --example play_engine -- 3 1 6`

use hoyito::analysis::{analyse, AnalysisOptions};
use hoyito::{Game, Move, Position6, Rules, Side};

fn main() -> hoyito::Result<()> {
    let rules = Rules::default();
    let mut game = Game::new(rules, Position6::start(&rules)?);
    let mut mine = std::env::args().skip(1).map(|m| m.parse::<u8>());
    let engine = AnalysisOptions {
        depth: Some(6),
        no_book: true,
        no_tables: true,
        ..AnalysisOptions::default()
    };
    while !game.is_over() {
        let p = game.position();
        let mv = if p.side_to_move() == Side::South {
            match mine.next() {
                Some(m) => Move(m?),
                None => match p.moves(&rules).children().first() {
                    Some(c) => c.mv,
                    None => break,
                },
            }
        } else {
            let diagram = p.to_string().parse()?;
            let answer = analyse(&rules, Some(&diagram), &engine)?;
            match answer.best {
                Some(m) => Move(m),
                None => break,
            }
        };
        game.play(mv)?;
        println!("{} plays {mv}: {}", p.side_to_move(), game.position());
    }
    println!("result: {}", game.position());
    Ok(())
}
