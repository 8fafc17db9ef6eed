//! How a searcher searches: threads, transposition table, evaluation.

use crate::eval::Eval;

/// Which transposition table to use (both are measured in `solve bench`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TableKind {
    /// Fixed-size lockless table of packed atomic entries (the default: faster).
    #[default]
    Atomic,
    /// `DashMap` keyed by the exact board.
    Map,
}

/// How a [`Searcher`](crate::Searcher) searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Search threads (at least 1). With 1 thread a search is deterministic.
    pub threads: usize,
    /// Transposition table size in mebibytes.
    pub hash_mb: usize,
    /// Transposition table design.
    pub table: TableKind,
    /// Evaluation at the horizon of depth-limited searches.
    pub eval: Eval,
    /// Seeds on the board up to which exact mode solves cycle components by retrograde
    /// analysis. `None` picks by board size; `Some(0)` leaves exact mode to proofs or alpha-beta alone
    /// (for tests and measurements: it is far slower on positions with long cycles).
    pub retrograde_seeds: Option<u32>,
    /// How exact mode proves values that the oracle and retrograde analysis do not reach.
    pub exact_method: ExactMethod,
    /// Which positions a threshold proof explores next ([`ExactMethod::Proof`] only).
    pub explore: Explore,
}

/// Which positions a threshold proof explores next. Both prove the same values; they
/// differ in how much they explore on the way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Explore {
    /// The most-proving leaves, by proof and disproof numbers over the graph explored so
    /// far, then the rest of the unexplored positions the root depends on, nearest first,
    /// up to a sixteenth of the graph a round (the default: it explores about a hundredth
    /// of what `Breadth` does at the Hoyito II start over the tables up to 24 seeds).
    #[default]
    Focused,
    /// Every unexplored position the root still depends on, nearest first.
    Breadth,
}

/// How exact mode proves a value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExactMethod {
    /// Threshold proofs over an explicit graph of positions, with the least-fixpoint rule of
    /// the tables, so cycles cost no path-dependent work (the default; one thread).
    #[default]
    Proof,
    /// Null-window alpha-beta to the end of the game with repetition on the path, on every
    /// search thread.
    AlphaBeta,
}

impl Config {
    /// Seeds on the board up to which exact mode solves whole components by retrograde
    /// analysis: `retrograde_seeds`, or by board size (components of positions with more
    /// seeds are too large on the boards played).
    pub fn retro_seeds(&self, holes: usize) -> u32 {
        if let Some(s) = self.retrograde_seeds {
            return s;
        }
        match holes {
            0..=4 => 24,
            5..=6 => 12,
            7..=8 => 8,
            _ => 4,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            threads: 1,
            hash_mb: 64,
            table: TableKind::Atomic,
            eval: Eval::default(),
            retrograde_seeds: None,
            exact_method: ExactMethod::Proof,
            explore: Explore::Focused,
        }
    }
}
