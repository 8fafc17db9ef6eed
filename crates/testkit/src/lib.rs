//! Helpers shared by the tests of the rules, search and tables crates: the conformance
//! vectors in `data/`, the rules they name, and every combination of rule options.
//!
//! A crate of its own (not published, a dev-dependency of the others) rather than a file
//! reached by `#[path]` from each crate's tests: one copy, compiled once, with its own
//! imports.
#![deny(missing_docs)]

use std::path::PathBuf;

use hoyito_rules::{CaptureSide, LastFour, Rules, Variant};
use serde_json::Value;

/// The project's `data/` folder.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

/// The JSON objects of one `data/conformance/*.jsonl` file.
pub fn vectors(name: &str) -> Vec<Value> {
    let path = data_dir().join("conformance").join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

/// The rules a vector names (`rules`, `holes`, `last_four`, `capture_side`).
pub fn rules_of(v: &Value) -> Rules {
    let variant: Variant = v["rules"].as_str().unwrap().parse().unwrap();
    let holes = v["holes"].as_u64().unwrap_or(6) as usize;
    let last_four: LastFour = v["last_four"]
        .as_str()
        .unwrap_or("capturer")
        .parse()
        .unwrap();
    let capture_side: CaptureSide = v["capture_side"].as_str().unwrap_or("any").parse().unwrap();
    Rules::new(variant, holes, 4, last_four, capture_side).unwrap()
}

/// A list of move numbers from a JSON array.
pub fn moves_of(v: &Value) -> Vec<u8> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_u64().unwrap() as u8)
        .collect()
}

/// Every combination of rule options (both variants, every last-four award, both capture
/// sides) on `holes` holes a row with `seeds` seeds a hole.
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
