//! Helpers shared by the tests: the conformance helpers of the rules crate's tests, and
//! every combination of rule options.
#![allow(dead_code)]

use hoyito_rules::{CaptureSide, LastFour, Rules, Variant};

#[path = "../../../rules/tests/common.rs"]
mod conformance;
#[allow(unused_imports)] // not every test file uses them
pub use conformance::*;

/// Every combination of rule options (hoyito2 only with last four to the capturer).
pub fn all_rule_sets(holes: usize, seeds: usize) -> Vec<Rules> {
    let mut out = Vec::new();
    for variant in [Variant::Hoyito2, Variant::Hoyito3] {
        for last_four in [LastFour::Capturer, LastFour::South, LastFour::North] {
            for capture_side in [CaptureSide::Any, CaptureSide::Opponent] {
                if let Ok(r) = Rules::new(variant, holes, seeds, last_four, capture_side) {
                    out.push(r);
                }
            }
        }
    }
    out
}
