//! Sweeps: the bound operator applied to every position of the layer that is not final, in
//! index order within each chunk, chunks in parallel.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::operator::Ctx;
use super::scratch::{piece_move, MoveSink};
use super::work::{Packing, CHANGED};
use super::Progress;

impl Ctx<'_> {
    /// Sweeps the own range of the cells (the whole layer in a build by one process) once,
    /// skipping final positions. With `sink`, also writes the
    /// reversed quiet moves of the positions evaluated (to successors that are not final)
    /// and marks the positions that change. Returns the positions evaluated and those whose
    /// bounds rose.
    pub(super) fn sweep(
        &self,
        pk: Packing,
        sink: Option<&MoveSink>,
        progress: &dyn Progress,
    ) -> (u64, u64) {
        self.sweep_in(self.cells.range(), pk, sink, progress, true)
    }

    /// [`Ctx::sweep`] over the positions of `range` only (of indices in the layer); the
    /// others are read, never written. When `stoppable` and [`Progress::stopped`], the pieces
    /// not yet started are skipped, and the caller must drop the layer.
    pub(super) fn sweep_in(
        &self,
        range: std::ops::Range<u64>,
        pk: Packing,
        sink: Option<&MoveSink>,
        progress: &dyn Progress,
        stoppable: bool,
    ) -> (u64, u64) {
        let changed = AtomicU64::new(0);
        let evaluated = AtomicU64::new(0);
        self.chunks_in(range, |start, end, side| {
            if stoppable && progress.stopped() {
                return;
            }
            let mut local = 0u64;
            let ordered = sink.is_some() && self.order.kept();
            if ordered {
                self.order.begin(side, start);
            }
            // The piece's moves, as `MoveSink::write` takes them.
            let first = side as u64 * self.layout.per_side() + start;
            let mut moves: Vec<u64> = Vec::new();
            let seen = self.walk(
                std::iter::once(start..end),
                side,
                |_, cell| !pk.is_final(cell.load(Relaxed)),
                |i, pending| {
                    let cell = self.cells.get(i);
                    let old = cell.load(Relaxed);
                    let new = if sink.is_some() {
                        self.resolve(pk, pending, |j| moves.push(piece_move(j, i - first)))
                    } else {
                        self.resolve(pk, pending, |_| {})
                    };
                    if new != old {
                        // Bounds only rise (the operator is monotone and starts at the
                        // bottom); the max keeps that true even against a stale read.
                        let merged = pk.merge(new, old);
                        let rose = merged != pk.bounds(old);
                        let mut w = merged | (new & pk.final_bit);
                        if rose {
                            local += 1;
                            if sink.is_some() {
                                w |= CHANGED;
                                self.changed_blocks.mark(i);
                            }
                        }
                        if w != old {
                            cell.store(w, Relaxed);
                        }
                    }
                },
            );
            if ordered {
                self.order.end(side, start);
            }
            if let Some(s) = sink {
                s.write(first, &mut moves);
            }
            changed.fetch_add(local, Relaxed);
            evaluated.fetch_add(seen, Relaxed);
            progress.advance(end - start);
        });
        (evaluated.into_inner(), changed.into_inner())
    }
}
