//! Principal variations: lines of play followed from the root by a chooser of moves.

use std::collections::HashSet;

use hoyito_rules::{Move, Position, Rules, Status};

use crate::tt::Table;

/// Longest line followed.
const MAX_LINE: usize = 64;

/// Follows moves from `root` while no position repeats, at most [`MAX_LINE`] of them, until
/// the game ends or `next` ends the line. `next` gets the moves so far and the position (after
/// any automatic pass) and gives the move to play (`Some(None)` ends the line, as does an
/// illegal move), or `None` when it cannot tell: the walk then gives `None` too.
fn walk<const W: usize>(
    rules: &Rules,
    root: &Position<W>,
    mut next: impl FnMut(&[Move], &Position<W>) -> Option<Option<Move>>,
) -> Option<Vec<Move>> {
    let mut pv = Vec::new();
    let mut seen = HashSet::new();
    let mut p = *root;
    while pv.len() < MAX_LINE && seen.insert(p.board_key()) {
        let Some(m) = next(&pv, &p)? else { break };
        let Ok(c) = p.play(rules, m) else { break };
        pv.push(m);
        if c.ended_game {
            break;
        }
        let (q, status) = c.position.settle(rules);
        if status == Status::Over {
            break;
        }
        p = q;
    }
    Some(pv)
}

/// The line of the table's best moves from `root`, starting with `best`.
pub(crate) fn table_line<const W: usize, T: Table<W>>(
    rules: &Rules,
    t: &T,
    root: &Position<W>,
    best: Option<Move>,
) -> Vec<Move> {
    let line = walk(rules, root, |pv, p| {
        Some(if pv.is_empty() {
            best
        } else {
            t.probe(p, p.key())
                .filter(|e| e.mv != 0)
                .map(|e| Move(e.mv))
        })
    });
    line.unwrap_or_default()
}

/// Exact value, best move and principal variation of `root` given an exact value function
/// (`None` where a value it needs is unknown): the line follows moves that keep the value.
pub(crate) fn value_line<const W: usize>(
    rules: &Rules,
    root: &Position<W>,
    mut value: impl FnMut(&Position<W>) -> Option<i32>,
) -> Option<(Option<Move>, i32, Vec<Move>)> {
    let score = value(root)?;
    let pv = walk(rules, root, |_, p| keeping_value(rules, p, &mut value))?;
    Some((pv.first().copied(), score, pv))
}

/// A move of `p` that keeps its value, `Some(None)` when there is none (a pass), `None` when
/// a value is unknown. Among the moves that keep the value, a capture first: it cashes part
/// of the value at once, where a quiet move that keeps it may go round a cycle.
fn keeping_value<const W: usize>(
    rules: &Rules,
    p: &Position<W>,
    value: &mut impl FnMut(&Position<W>) -> Option<i32>,
) -> Option<Option<Move>> {
    let v = value(p)?;
    let mut chosen = None;
    for c in p.moves(rules).children() {
        let child = if c.ended_game { 0 } else { value(&c.position)? };
        if c.value(child) == v {
            if c.extra_turn {
                return Some(Some(c.mv));
            }
            chosen.get_or_insert(c.mv);
        }
    }
    Some(chosen)
}
