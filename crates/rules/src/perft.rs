//! Perft: the number of move sequences of exactly `d` plies. Every move is a ply (extra
//! turns included), passes are automatic and not plies, and a finished game has no moves.

use rayon::prelude::*;

use crate::options::Rules;
use crate::position::Position;

/// Calls `f` with every child of `p`, or of `p` after an automatic pass when the side to move
/// has no legal move. Calls nothing when the game is over.
#[inline]
fn for_each_successor<const W: usize>(
    p: &Position<W>,
    rules: &Rules,
    mut f: impl FnMut(&Position<W>),
) {
    let mut any = false;
    p.for_each_child(rules, |c| {
        any = true;
        f(&c.position)
    });
    if !any {
        if let Some(q) = p.passed(rules) {
            q.for_each_child(rules, |c| f(&c.position));
        }
    }
}

/// Single-threaded perft.
///
/// ```
/// use hoyito_rules::{perft, Position6, Rules};
/// let r = Rules::default();
/// assert_eq!(perft(&Position6::start(&r).unwrap(), &r, 3), 158);
/// ```
pub fn perft<const W: usize>(p: &Position<W>, rules: &Rules, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    if depth == 1 {
        // Leaves: only whether each sowing ends matters.
        let here = p.count_legal(rules);
        return if here > 0 {
            here as u64
        } else {
            p.passed(rules).map_or(0, |q| q.count_legal(rules) as u64)
        };
    } else {
        for_each_successor(p, rules, |c| n += perft(c, rules, depth - 1));
    }
    n
}

/// Perft on all threads of the current rayon pool. Splits the tree a few plies down so that
/// the work is shared evenly, then runs [`perft`] on each subtree.
pub fn perft_parallel<const W: usize>(p: &Position<W>, rules: &Rules, depth: u32) -> u64 {
    // Enough subtrees to balance: split until there are a few hundred, or 3 plies.
    let mut frontier = vec![*p];
    let mut split = 0;
    while split < 3 && split + 2 < depth && frontier.len() < 256 {
        let mut next = Vec::with_capacity(frontier.len() * 6);
        for q in &frontier {
            for_each_successor(q, rules, |c| next.push(*c));
        }
        frontier = next;
        split += 1;
    }
    frontier
        .par_iter()
        .map(|q| perft(q, rules, depth - split))
        .sum()
}
