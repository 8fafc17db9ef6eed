//! When each chunk of the sweep that writes the moves started and ended, so that the first
//! round can leave out the predecessors that already read a change.
//!
//! A position's value rises in a sweep only when the position itself is evaluated. A
//! predecessor `p` evaluated after its successor `c` in that sweep read `c`'s last value:
//! its bounds already hold whatever `c`'s rise gives it, and passing the rise on to it in the
//! first round ([`Ctx::pass_on`](super::operator::Ctx)) changes nothing, or marks it to be
//! evaluated for nothing. `p` was evaluated after `c` when both are in one chunk and `c`
//! comes first (a chunk is walked in index order, each value read after every earlier
//! position's value was written), or when `c`'s chunk ended before `p`'s began, on one
//! clock whose ticks order the chunks' writes before the reads of the chunks that start
//! later (release and acquire). Chunks run at once on other threads are not ordered: their
//! moves are passed on as before. The rounds after the first pass on changes made by rounds,
//! which this order says nothing about.
//!
//! Only a build by one process keeps the order (a copy of another process's bytes changes
//! on that process's clock).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::operator::CHUNK;
use crate::index::Layout;

/// The start and end ticks of each chunk of one sweep (see the [module](self)).
pub(super) struct SweepOrder {
    clock: AtomicU64,
    started: Vec<AtomicU64>,
    /// `u64::MAX` until the chunk ends.
    ended: Vec<AtomicU64>,
    chunks_per_side: u64,
    per_side: u64,
    /// Whether the ticks are those of the sweep that wrote the moves, and the first round
    /// has not ended.
    active: AtomicBool,
}

impl SweepOrder {
    /// An order for the chunks of `layout`, not kept until [`SweepOrder::keep`].
    pub(super) fn new(layout: &Layout) -> SweepOrder {
        let per_side = layout.per_side();
        let chunks_per_side = per_side.div_ceil(CHUNK);
        let chunks = (chunks_per_side * layout.sides() as u64) as usize;
        SweepOrder {
            clock: AtomicU64::new(0),
            started: (0..chunks).map(|_| AtomicU64::new(0)).collect(),
            ended: (0..chunks).map(|_| AtomicU64::new(u64::MAX)).collect(),
            chunks_per_side,
            per_side,
            active: AtomicBool::new(false),
        }
    }

    /// Keeps the order of the sweeps from now on (a build by one process).
    pub(super) fn keep(&self) {
        self.active.store(true, Ordering::Relaxed);
    }

    /// Forgets the order: after the first round.
    pub(super) fn forget(&self) {
        self.active.store(false, Ordering::Relaxed);
    }

    /// Whether the order is kept.
    pub(super) fn kept(&self) -> bool {
        self.active.load(Ordering::Relaxed)
    }

    /// The chunk of position `i` of the layer.
    #[inline(always)]
    fn chunk(&self, i: u64) -> usize {
        // At most two sides: no division by the side's size.
        if i < self.per_side {
            (i / CHUNK) as usize
        } else {
            (self.chunks_per_side + (i - self.per_side) / CHUNK) as usize
        }
    }

    /// Chunk of `side` starting at `start` (from the side's first position) begins.
    #[inline]
    pub(super) fn begin(&self, side: usize, start: u64) {
        let c = self.chunk(side as u64 * self.per_side + start);
        // Acquire: every chunk that ended before this tick has its writes seen here.
        self.started[c].store(self.clock.load(Ordering::Acquire), Ordering::Relaxed);
        self.ended[c].store(u64::MAX, Ordering::Relaxed);
    }

    /// The chunk of `side` starting at `start` ends.
    #[inline]
    pub(super) fn end(&self, side: usize, start: u64) {
        let c = self.chunk(side as u64 * self.per_side + start);
        // Release: this chunk's writes are seen by the chunks that start after this tick.
        let tick = self.clock.fetch_add(1, Ordering::AcqRel) + 1;
        self.ended[c].store(tick, Ordering::Relaxed);
    }

    /// Whether predecessor `p` read the last value successor `c` had in the sweep (see
    /// the [module](self)). False while the order is not kept.
    #[inline(always)]
    pub(super) fn read_after(&self, c: u64, p: u64) -> bool {
        if !self.kept() {
            return false;
        }
        let (a, b) = (self.chunk(c), self.chunk(p));
        if a == b {
            c < p
        } else {
            self.ended[a].load(Ordering::Relaxed) <= self.started[b].load(Ordering::Relaxed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_ended_before_another_began_come_first() {
        let layout = Layout::new(6, 12, 2).unwrap();
        let order = SweepOrder::new(&layout);
        let per_side = layout.per_side();
        let (a, b) = (0, 2 * CHUNK);
        // Nothing is known while the order is not kept.
        assert!(!order.read_after(a, a + 1));
        order.keep();
        order.begin(0, a);
        order.begin(1, b);
        // In one chunk, the earlier position was evaluated first.
        assert!(order.read_after(a, a + 1));
        assert!(!order.read_after(a + 1, a));
        // Chunks under way at once are not ordered.
        assert!(!order.read_after(a, per_side + b));
        order.end(0, a);
        order.begin(0, CHUNK);
        assert!(order.read_after(a, CHUNK + 5));
        assert!(!order.read_after(CHUNK + 5, a));
        // Begun before the first chunk ended: not ordered.
        assert!(!order.read_after(a, per_side + b));
        order.forget();
        assert!(!order.read_after(a, CHUNK + 5));
    }
}
