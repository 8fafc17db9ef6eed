//! Opening sets for matches ([`MatchOptions::openings`](crate::matches::MatchOptions)): the
//! positions reached from the start in a number of plies, all or a seeded sample,
//! optionally only the balanced ones.

use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;

use anyhow::{Context, Result};
use hoyito_rules::{Game, Position, Rules, Side};
use hoyito_search::{Config, Limits, Searcher};
use serde::Serialize;

use crate::setup::{dispatch, Rng};

/// An opening set to write.
#[derive(Clone, Debug)]
pub struct OpeningsOptions {
    /// Plies played from the start (a capture's extra turn is a ply of its own), at most 12.
    pub plies: usize,
    /// Keep this many of the positions, chosen at random by `seed`.
    pub sample: Option<usize>,
    /// Seed of `sample`.
    pub seed: u64,
    /// Keep only the positions whose value for South (captures so far and a search of
    /// `depth` plies) is within this many seeds of 0.
    pub balanced: Option<i32>,
    /// Depth of the `balanced` search.
    pub depth: u32,
    /// The file to write.
    pub output: PathBuf,
    /// What made the file, for its header line (e.g. the command line).
    pub generated_by: String,
}

/// What [`write_openings`] wrote.
#[derive(Serialize)]
pub struct OpeningsReport {
    file: String,
    plies: usize,
    /// Distinct live positions after `plies` plies.
    reached: usize,
    /// Positions kept after sampling.
    sampled: usize,
    /// Positions written (balanced, where asked).
    written: usize,
}

impl fmt::Display for OpeningsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} positions after {} plies, {} sampled, {} written to {}",
            self.reached, self.plies, self.sampled, self.written, self.file
        )
    }
}

/// Writes an opening set of `rules`.
pub fn write_openings(rules: &Rules, a: &OpeningsOptions) -> Result<OpeningsReport> {
    if a.sample == Some(0) {
        return Err(crate::error::bad_option("sample", "must be at least 1"));
    }
    if a.balanced.is_some_and(|v| v < 0) {
        return Err(crate::error::bad_option(
            "balanced",
            "must be 0 or more seeds",
        ));
    }
    if a.plies > 12 {
        return Err(crate::error::bad_option(
            "plies",
            "must be at most 12 (the positions grow about six-fold a ply)",
        ));
    }
    dispatch!(rules, openings_sized(rules, a))
}

/// The distinct positions, in text, reached from the start in exactly `plies` plies with the
/// game still going, sorted (so that a seeded sample does not depend on the search order).
pub fn reached<const W: usize>(rules: &Rules, plies: usize) -> Vec<String> {
    fn walk<const W: usize>(g: &Game<W>, left: usize, out: &mut BTreeSet<String>) {
        if g.is_over() {
            return;
        }
        if left == 0 {
            out.insert(g.position().to_string());
            return;
        }
        let list = g.position().moves(g.rules());
        for c in list.children() {
            let mut next = g.clone();
            if next.play(c.mv).is_ok() {
                walk(&next, left - 1, out);
            }
        }
    }
    let start = Position::<W>::start(rules).expect("valid rules");
    let mut out = BTreeSet::new();
    walk(&Game::new(*rules, start), plies, &mut out);
    out.into_iter().collect()
}

fn openings_sized<const W: usize>(rules: &Rules, a: &OpeningsOptions) -> Result<OpeningsReport> {
    let all = reached::<W>(rules, a.plies);
    let reached_n = all.len();
    let mut chosen = all;
    if let Some(k) = a.sample {
        // A partial Fisher-Yates shuffle fixed by the seed, then the sample in file order.
        let mut rng = Rng(a.seed);
        let k = k.min(chosen.len());
        for i in 0..k {
            let j = i + rng.below(chosen.len() - i);
            chosen.swap(i, j);
        }
        chosen.truncate(k);
        chosen.sort();
    }
    let sampled = chosen.len();
    if let Some(v) = a.balanced {
        let searcher = Searcher::<W>::new(
            *rules,
            Config {
                threads: 1,
                hash_mb: 16,
                ..Config::default()
            },
        );
        let limits = Limits::depth(a.depth);
        let mut kept = Vec::new();
        for text in chosen {
            let d: hoyito_rules::Diagram = text.parse().expect("a position's own text parses");
            let p = Position::<W>::from_diagram(rules, &d).expect("a reached position is valid");
            searcher.clear();
            let r = searcher.search(&p, &limits);
            // The value for South: the captures so far and the searched future captures.
            let so_far = p.captured(Side::South) as i32 - p.captured(Side::North) as i32;
            let future = if p.side_to_move() == Side::South {
                r.score
            } else {
                -r.score
            };
            if (so_far + future).abs() <= v {
                kept.push(text);
            }
        }
        chosen = kept;
    }
    let mut out = format!(
        "# {} opening positions of 2x{}, generated by: {}\n",
        chosen.len(),
        rules.holes(),
        a.generated_by
    );
    for line in &chosen {
        out.push_str(line);
        out.push('\n');
    }
    std::fs::write(&a.output, out)
        .with_context(|| format!("cannot write {}", a.output.display()))?;
    Ok(OpeningsReport {
        file: a.output.display().to_string(),
        plies: a.plies,
        reached: reached_n,
        sampled,
        written: chosen.len(),
    })
}
