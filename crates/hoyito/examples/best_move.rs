//! The best move and value of a position, by the one analysis policy of every front.
//!
//! `cargo run -p hoyito --example best_move -- "0,0,0,3,0,1/1,1,3,2,0,1 N"`

use hoyito::analysis::{analyse, AnalysisOptions};
use hoyito::{Diagram, Rules};

fn main() -> hoyito::Result<()> {
    let text = std::env::args().nth(1);
    let diagram: Option<Diagram> = text.as_deref().map(str::parse).transpose()?;
    let options = AnalysisOptions {
        time_ms: Some(2000),
        ..AnalysisOptions::default()
    };
    let answer = analyse(&Rules::default(), diagram.as_ref(), &options)?;
    println!(
        "{}: move {:?}, value {} for the side to move ({}, decided by {})",
        answer.position,
        answer.best,
        answer.score,
        if answer.exact { "proven" } else { "estimate" },
        answer.source.name()
    );
    Ok(())
}
