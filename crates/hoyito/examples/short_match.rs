//! A short match of the engine's evaluation against a plain one, at depth 3, with an SPRT
//! that stops it at its decision.
//!
//! `cargo run --release -p hoyito --example short_match`

use hoyito::matches::{play_match, MatchOptions};
use hoyito::Rules;

fn main() -> hoyito::Result<()> {
    let options = MatchOptions {
        pairs: Some(12),
        depth: Some(3),
        sprt: Some("elo0=0 elo1=100".parse()?),
        ..MatchOptions::default()
    };
    print!("{}", play_match(&Rules::default(), &options)?);
    Ok(())
}
