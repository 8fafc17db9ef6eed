//! The outcome of a search.

use hoyito_rules::Move;

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The best move, or `None` when the side to move must pass or the game is over.
    pub best: Option<Move>,
    /// Score of the best move for the side to move: net future captures (estimated unless
    /// `exact`).
    pub score: i32,
    /// Whether `score` is the proven game value.
    pub exact: bool,
    /// Proven bounds on the value (`lower == upper` when exact).
    pub lower: i32,
    /// See `lower`.
    pub upper: i32,
    /// Depth of the last completed iteration (for an exact search, the deepest ply reached).
    pub depth: u32,
    /// The principal variation, starting with `best` (moves of both sides, extra turns
    /// included, passes left out).
    pub pv: Vec<Move>,
    /// Nodes searched, all threads together.
    pub nodes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Whether the search ended by a limit (time or nodes) before finishing its task.
    pub stopped: bool,
}

impl SearchResult {
    /// Nothing known yet about a position with `seeds` on the board: value within
    /// `-seeds ..= seeds`, no move, no node.
    pub(crate) fn unknown(seeds: u32) -> Self {
        let n = seeds as i32;
        SearchResult {
            best: None,
            score: 0,
            exact: false,
            lower: -n,
            upper: n,
            depth: 0,
            pv: Vec::new(),
            nodes: 0,
            seconds: 0.0,
            stopped: false,
        }
    }

    /// A proven value `score` with its best move and line, `depth` the length of the line.
    pub(crate) fn proven(score: i32, best: Option<Move>, pv: Vec<Move>) -> Self {
        SearchResult {
            best,
            score,
            exact: true,
            lower: score,
            upper: score,
            depth: pv.len() as u32,
            pv,
            ..SearchResult::unknown(0)
        }
    }

    /// The result for the position before an automatic pass, given this one for the
    /// position after it: the value negated, the bounds exchanged, no move of its own.
    pub(crate) fn before_pass(self) -> Self {
        SearchResult {
            best: None,
            score: -self.score,
            lower: -self.upper,
            upper: -self.lower,
            pv: Vec::new(),
            ..self
        }
    }
}
