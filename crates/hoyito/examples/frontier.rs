//! The frontier of the proofs: of the positions reachable from each 2x6 start in 0 to 4
//! plies (distinct boards and sides to move, counted at the first ply they are reached), how
//! many the opening book and the certificates' strategies (`hoyito::strategy`) know exactly,
//! how many they bound on one side only, and how many they do not reach; then the same for
//! the positions of real games given as a file (`data/exact/real-games.jsonl`).
//!
//! `cargo run --release -p hoyito --example frontier [data/exact/real-games.jsonl]`

use std::collections::HashSet;

use hoyito::search::certificate::board;
use hoyito::{book, strategy, CaptureSide, LastFour, Position6, Rules, Variant};

/// What the proofs know of a position: exactly, one bound, nothing.
#[derive(Default)]
struct Counts {
    exact: usize,
    bound: usize,
    none: usize,
}

impl Counts {
    fn add(&mut self, rules: &Rules, p: &Position6) {
        let known = strategy::lookup(rules, p);
        if book::lookup(rules, p).is_some() || known.is_some_and(|k| k.exact().is_some()) {
            self.exact += 1;
        } else if known.is_some() {
            self.bound += 1;
        } else {
            self.none += 1;
        }
    }

    fn line(&self, what: &str) -> String {
        let all = self.exact + self.bound + self.none;
        format!(
            "{what}: {all} positions, {} known exactly ({:.1}%), {} with one bound, {} not reached",
            self.exact,
            100.0 * self.exact as f64 / all.max(1) as f64,
            self.bound,
            self.none
        )
    }
}

fn main() -> hoyito::Result<()> {
    for variant in [Variant::Hoyito2, Variant::Hoyito3] {
        let rules = Rules::new(variant, 6, 4, LastFour::Capturer, CaptureSide::Any)?;
        let start = Position6::start(&rules)?;
        let mut seen: HashSet<String> = HashSet::new();
        let mut level = vec![start];
        for ply in 0..=4 {
            let mut counts = Counts::default();
            let mut next = Vec::new();
            for p in &level {
                counts.add(&rules, p);
                let moves = p.moves(&rules);
                for c in moves.children() {
                    if c.ended_game {
                        continue;
                    }
                    let mut q = c.position;
                    while q.moves(&rules).children().is_empty() {
                        match q.passed(&rules) {
                            Some(r) => q = r,
                            None => break,
                        }
                    }
                    if seen.insert(board(&q)) {
                        next.push(q);
                    }
                }
            }
            println!("{}", counts.line(&format!("{variant:?} after {ply} plies")));
            level = next;
        }
    }
    if let Some(path) = std::env::args().nth(1) {
        let text = std::fs::read_to_string(&path)?;
        let mut counts = Counts::default();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line)?;
            let variant = match v["rules"].as_str() {
                Some("hoyito3") => Variant::Hoyito3,
                _ => Variant::Hoyito2,
            };
            let rules = Rules::new(variant, 6, 4, LastFour::Capturer, CaptureSide::Any)?;
            let p = Position6::parse(&rules, v["position"].as_str().unwrap_or_default())?;
            counts.add(&rules, &p);
        }
        println!("{}", counts.line(&format!("the positions of {path}")));
    }
    Ok(())
}
