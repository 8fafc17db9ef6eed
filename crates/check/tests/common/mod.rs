//! Helpers shared by the checker's tests: its rules written briefly, the engine's rules of
//! the same options, and tables built by the engine.

#![allow(dead_code)]

use std::path::Path;

use hoyito_check::{CaptureSide, LastFour, Rules, Variant};

/// The checker's rules of these options.
pub fn rules(
    holes: usize,
    variant: Variant,
    last_four: LastFour,
    capture_side: CaptureSide,
) -> Rules {
    Rules {
        holes,
        variant,
        last_four,
        capture_side,
    }
}

/// The engine's rules for the checker's `r`, with `seeds_a_hole` seeds a hole at the start.
pub fn engine_rules_with(r: &Rules, seeds_a_hole: usize) -> hoyito_rules::Rules {
    hoyito_rules::Rules::new(
        match r.variant {
            Variant::Hoyito2 => hoyito_rules::Variant::Hoyito2,
            Variant::Hoyito3 => hoyito_rules::Variant::Hoyito3,
        },
        r.holes,
        seeds_a_hole,
        match r.last_four {
            LastFour::Capturer => hoyito_rules::LastFour::Capturer,
            LastFour::South => hoyito_rules::LastFour::South,
            LastFour::North => hoyito_rules::LastFour::North,
        },
        match r.capture_side {
            CaptureSide::Any => hoyito_rules::CaptureSide::Any,
            CaptureSide::Opponent => hoyito_rules::CaptureSide::Opponent,
        },
    )
    .unwrap()
}

/// The engine's rules for the checker's `r`, with the most seeds a hole, so that every layer
/// is a legal board.
pub fn engine_rules(r: &Rules) -> hoyito_rules::Rules {
    engine_rules_with(r, hoyito_rules::MAX_SEEDS)
}

/// Builds the engine's tables of `r` up to `max_seeds` in `dir`.
pub fn build(dir: &Path, r: &Rules, max_seeds: usize) {
    hoyito_tables::build(dir, &engine_rules(r), max_seeds, &hoyito_tables::Quiet).unwrap();
}
