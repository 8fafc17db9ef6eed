//! Helpers shared by the search tests.

use hoyito_rules::{Move, Position6, Rules};
use hoyito_search::{Limits, Searcher};

/// The exact value of move `m` of `p` for its mover, the position after it solved by `s`.
pub fn move_value(s: &Searcher<2>, rules: &Rules, p: &Position6, m: Move) -> i32 {
    let c = p.play(rules, m).unwrap();
    let child = if c.ended_game {
        0
    } else {
        s.search(&c.position, &Limits::exact()).score
    };
    c.value(child)
}
