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
    /// analysis. `None` picks by board size; `Some(0)` leaves exact mode to alpha-beta alone
    /// (for tests and measurements: it is far slower on positions with long cycles).
    pub retrograde_seeds: Option<u32>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            threads: 1,
            hash_mb: 64,
            table: TableKind::Atomic,
            eval: Eval::default(),
            retrograde_seeds: None,
        }
    }
}
