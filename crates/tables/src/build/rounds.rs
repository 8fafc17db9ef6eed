//! Rounds: after the sweep that writes the scratch moves, each round visits the
//! predecessors of the positions that changed (read from the sorted moves): a predecessor
//! whose mover's bound a change raises gets it at once, and only those whose opponent's
//! bound may rise are evaluated (their moves generated again).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::operator::Ctx;
use super::scratch::{BucketReader, MoveIndex};
use super::work::{Packing, BLOCK, CHANGED, EVAL};
use crate::error::TableError;

/// Moves a round reads ahead of the one it passes on (see [`Ahead`]).
const AHEAD: usize = 16;

/// The last [`AHEAD`] moves read, oldest first: a move is passed on once `AHEAD` more were
/// read after it, by then its predecessor's byte is in the cache.
#[derive(Default)]
struct Ahead {
    moves: [(u64, u64); AHEAD],
    /// Moves read, all told; the oldest held is `read - held`.
    read: usize,
    held: usize,
}

impl Ahead {
    /// Holds `m`, and gives back the oldest move when `AHEAD` were already held.
    #[inline(always)]
    fn push(&mut self, m: (u64, u64)) -> Option<(u64, u64)> {
        let slot = self.read % AHEAD;
        let out = (self.held == AHEAD).then(|| self.moves[slot]);
        self.moves[slot] = m;
        self.read += 1;
        self.held = (self.held + 1).min(AHEAD);
        out
    }

    /// The oldest move held, taken out.
    fn pop(&mut self) -> Option<(u64, u64)> {
        if self.held == 0 {
            return None;
        }
        let m = self.moves[(self.read - self.held) % AHEAD];
        self.held -= 1;
        Some(m)
    }
}

/// Blocks without a change that a read of changed blocks goes through rather than starting
/// a new read (one read being cheaper than several).
const READ_THROUGH: usize = 4;

impl Ctx<'_> {
    /// Clears the final bits, which served the sweeps: rounds use bit 6 to mark positions to
    /// evaluate ([`EVAL`]).
    pub(super) fn start_rounds(&self, pk: Packing) {
        self.cells
            .for_each_held(|c| c.store(c.load(Relaxed) & !pk.final_bit, Relaxed));
    }

    /// One round: mark the predecessors of changed positions, evaluate the marked
    /// positions, and hand this round's changes on to the next. Returns the positions
    /// evaluated and those that rose.
    pub(super) fn round(&self, pk: Packing, moves: &MoveIndex) -> Result<(u64, u64), TableError> {
        self.mark_predecessors(pk.without_final(), moves)?;
        // The sweep's order concerns the sweep's changes only.
        self.order.forget();
        let counts = self.evaluate_marked(pk.without_final());
        self.hand_on_marks();
        Ok(counts)
    }

    /// Passes the change of every position marked [`CHANGED`] on to its predecessors
    /// ([`Ctx::pass_on`]), reading only the blocks of successors that hold a changed
    /// position.
    fn mark_predecessors(&self, tail: Packing, moves: &MoveIndex) -> Result<(), TableError> {
        moves
            .buckets
            .par_iter()
            .enumerate()
            .try_for_each(|(b, _)| self.mark_bucket(tail, moves, b))
    }

    /// [`Ctx::mark_predecessors`] for bucket `b`.
    fn mark_bucket(&self, tail: Packing, moves: &MoveIndex, b: usize) -> Result<(), TableError> {
        let first = moves.first_block(b);
        let mut reader = BucketReader::new(moves, b);
        let blocks = reader.blocks();
        let changed = |k: usize| self.changed_blocks.get(first + k as u64);
        let mut ahead = Ahead::default();
        let mut k = 0;
        while k < blocks {
            if !changed(k) {
                k += 1;
                continue;
            }
            // A run of blocks with changes, read through short gaps.
            let start = k;
            let mut end = k + 1;
            let mut probe = end;
            while probe < blocks && probe < end + READ_THROUGH {
                if changed(probe) {
                    end = probe + 1;
                }
                probe += 1;
            }
            k = end;
            reader.for_each_into(
                start,
                end,
                |c| self.cells.get(c).load(Relaxed) & CHANGED != 0,
                |c, p| {
                    // The predecessors lie anywhere in the layer: each byte is loaded
                    // `AHEAD` moves before it is read, so that the misses overlap.
                    self.cells.fetch(p);
                    if let Some((c, p)) = ahead.push((c, p)) {
                        self.pass_on(tail, c, p);
                    }
                },
            )?;
        }
        while let Some((c, p)) = ahead.pop() {
            self.pass_on(tail, c, p);
        }
        Ok(())
    }

    /// Passes the change of successor `c` on to its predecessor `p`, marking `p` [`EVAL`]
    /// (and its block) when it may change:
    ///
    /// - The opponent's bound at `c` rose (its mover's bound is then 0): that is a bound
    ///   `p`'s mover can force by the move, so `p`'s mover's bound is raised to it at once,
    ///   no move generated (the operator's maximum, applied to one move).
    /// - The mover's bound at `c` rose above `p`'s opponent's bound: that may raise the
    ///   least of the opponent's bounds over `p`'s moves, so `p` is marked to be evaluated;
    ///   unless `p`'s mover's bound is positive (`p`'s opponent's bound then stays 0: every
    ///   bound written is below the least fixpoint, where both are never positive) or the
    ///   opponent's bound is the layer's largest.
    ///
    /// A marked position whose mover's bound is positive was raised in this pass, and only
    /// that ([`Ctx::evaluate_marked`]).
    ///
    /// In the first round, a predecessor that the sweep evaluated after `c` already read
    /// `c`'s change and is left alone ([`SweepOrder::read_after`]).
    ///
    /// [`SweepOrder::read_after`]: super::order::SweepOrder::read_after
    #[inline(always)]
    fn pass_on(&self, tail: Packing, c: u64, p: u64) {
        if self.order.read_after(c, p) {
            return;
        }
        let w = self.cells.get(c).load(Relaxed);
        let (c_lo, c_hi) = (tail.lo(w), tail.hi(w));
        let cell = self.cells.get(p);
        let mut old = cell.load(Relaxed);
        loop {
            let (lo, hi) = (tail.lo(old), tail.hi(old));
            let new = if c_hi > lo {
                let raised = tail.merge(old, tail.pack(c_hi, 0, false));
                raised | old & CHANGED | EVAL
            } else if c_lo > hi && lo == 0 && hi < tail.top && old & EVAL == 0 {
                old | EVAL
            } else {
                return;
            };
            match cell.compare_exchange_weak(old, new, Relaxed, Relaxed) {
                Ok(_) => break,
                Err(now) => old = now,
            }
        }
        self.eval_blocks.mark(p);
    }

    /// Evaluates the positions marked [`EVAL`], visiting only the blocks that hold one or a
    /// change mark to clear; marks those that rose [`CHANGED`] for the next round. A marked
    /// position whose mover's bound is positive was raised by [`Ctx::pass_on`] and is not
    /// evaluated: its opponent's bound stays 0, and every rise of its successors'
    /// opponents' bounds has reached it. `tail` packs without the final bit (bit 6 is
    /// [`EVAL`] in rounds). Returns the positions evaluated and those that rose.
    fn evaluate_marked(&self, tail: Packing) -> (u64, u64) {
        let changed = AtomicU64::new(0);
        let evaluated = AtomicU64::new(0);
        let per_side = self.layout.per_side();
        self.chunks(|start, end, side| {
            let base = side as u64 * per_side;
            // The blocks that overlap the chunk and hold a position to evaluate or a change
            // mark to clear, cut to the chunk.
            let (first, last) = ((base + start) / BLOCK, (base + end).div_ceil(BLOCK));
            let ranges = (first..last)
                .filter(|&b| self.eval_blocks.get(b) || self.changed_blocks.get(b))
                .map(|b| {
                    let lo = (b * BLOCK).saturating_sub(base).max(start);
                    lo..((b + 1) * BLOCK - base).min(end)
                });
            let raised = std::cell::Cell::new(0u64);
            let mut local = 0u64;
            let seen = self.walk(
                ranges,
                side,
                |i, cell| {
                    let old = cell.load(Relaxed);
                    if old & EVAL == 0 {
                        if old & CHANGED != 0 {
                            cell.store(old & !CHANGED, Relaxed);
                        }
                        return false;
                    }
                    if tail.lo(old) > 0 {
                        cell.store(old & !EVAL | CHANGED, Relaxed);
                        self.next_changed.mark(i);
                        raised.set(raised.get() + 1);
                        return false;
                    }
                    true
                },
                |i, pending| {
                    let cell = self.cells.get(i);
                    let old = cell.load(Relaxed);
                    let merged = tail.merge(self.resolve(tail, pending, |_| {}), old);
                    if merged != tail.bounds(old) {
                        local += 1;
                        cell.store(merged | CHANGED, Relaxed);
                        self.next_changed.mark(i);
                    } else {
                        cell.store(merged, Relaxed);
                    }
                },
            );
            changed.fetch_add(local + raised.get(), Relaxed);
            evaluated.fetch_add(seen, Relaxed);
        });
        (evaluated.into_inner(), changed.into_inner())
    }

    /// The marks of this round become the changes the next one reads.
    fn hand_on_marks(&self) {
        self.eval_blocks.clear();
        self.changed_blocks.take(&self.next_changed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ahead_gives_moves_back_in_order_once_each() {
        for n in [
            0u64,
            1,
            AHEAD as u64 - 1,
            AHEAD as u64,
            AHEAD as u64 + 1,
            100,
        ] {
            let mut ahead = Ahead::default();
            let mut out = Vec::new();
            for i in 0..n {
                if let Some(m) = ahead.push((i, 2 * i)) {
                    out.push(m);
                }
                // Nothing is given back before `AHEAD` more were read.
                assert_eq!(out.len() as u64, (i + 1).saturating_sub(AHEAD as u64));
            }
            while let Some(m) = ahead.pop() {
                out.push(m);
            }
            assert_eq!(out, (0..n).map(|i| (i, 2 * i)).collect::<Vec<_>>());
        }
    }
}
