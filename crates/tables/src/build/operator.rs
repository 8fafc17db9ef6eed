//! The bound operator of the project's `docs/tables.md`, applied to one position in two halves
//! ([`Ctx::gather`] generates its moves and prefetches its successors, [`Ctx::resolve`]
//! reads them), and the walks that apply it over ranges of a layer for sweeps and rounds.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};

use hoyito_rules::{Position6, Rules};
use rayon::prelude::*;

use super::order::SweepOrder;
use super::work::{bottom, Blocks, Cells, Packing};
use crate::error::{Inconsistency, TableError};
use crate::format::Layer;
use crate::index::{Layout, MAX_BOARD};

/// Positions a task sweeps in one piece (the unit of parallel work and of progress).
pub(super) const CHUNK: u64 = 1 << 15;

/// Positions whose moves are generated before the first of them is evaluated in a walk.
const LAG: usize = 8;

/// Most moves a position has (one per hole of a side).
const MAX_SIDE: usize = MAX_BOARD / 2;

/// Everything one layer's build reads and marks.
pub(super) struct Ctx<'a> {
    pub(super) rules: Rules,
    pub(super) layout: &'a Layout,
    /// The value step of the layer.
    pub(super) step: i32,
    /// The working bytes (see [`Packing`]): those of the positions this build evaluates,
    /// and of those they read.
    pub(super) cells: Cells<'a>,
    /// The finished smaller layers, by seeds.
    pub(super) lower: &'a [Option<Layer>],
    /// A capture reached a smaller layer that is not there (checked after each pass).
    missing: AtomicBool,
    /// One bit per block: the block holds a position marked changed (set with the mark, in
    /// the sweep that writes the moves and in rounds).
    pub(super) changed_blocks: Blocks,
    /// The same for the changes of the round under way.
    pub(super) next_changed: Blocks,
    /// One bit per block: the block holds a position marked to evaluate.
    pub(super) eval_blocks: Blocks,
    /// The order of the chunks of the sweep that writes the moves, for the first round.
    pub(super) order: SweepOrder,
}

/// A position's moves, generated and with their successors' bytes prefetched, waiting to
/// be read: the first half of one application of the bound operator.
#[derive(Clone, Copy)]
pub(super) struct Pending<'a> {
    /// Indices of the quiet successors in the layer being built (a pass included).
    quiet: [u64; MAX_SIDE],
    /// Their working bytes, but for those of `unlocated`.
    cells: [&'a AtomicU8; MAX_SIDE],
    /// A bit for each quiet successor whose byte is in another process's range and not yet
    /// located in the copy ([`Ctx::locate`]).
    unlocated: u8,
    quiet_len: u8,
    /// Captures: the gain and the child's index in its (smaller) layer, if the game goes on.
    exits: [(i32, Option<&'a Layer>, u64); MAX_SIDE],
    exit_len: u8,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(
        rules: Rules,
        layout: &'a Layout,
        step: i32,
        cells: Cells<'a>,
        lower: &'a [Option<Layer>],
    ) -> Ctx<'a> {
        let count = layout.count();
        Ctx {
            rules,
            layout,
            step,
            cells,
            lower,
            missing: AtomicBool::new(false),
            changed_blocks: Blocks::new(count),
            next_changed: Blocks::new(count),
            eval_blocks: Blocks::new(count),
            order: SweepOrder::new(layout),
        }
    }

    /// An error if a capture reached a smaller layer that is not built.
    pub(super) fn check_exits(&self) -> Result<(), TableError> {
        if self.missing.load(Relaxed) {
            Err(TableError::Inconsistent(
                Inconsistency::ExitToMissingLayer {
                    seeds: self.layout.seeds(),
                },
            ))
        } else {
            Ok(())
        }
    }

    /// Generates the moves of `p` and starts loading every successor's byte, so that the
    /// cache misses overlap with other work until [`Ctx::resolve`] reads them.
    #[inline(always)]
    fn gather(&self, p: &Position6) -> Pending<'a> {
        let mut out = Pending {
            quiet: [0; MAX_SIDE],
            cells: [bottom(); MAX_SIDE],
            unlocated: 0,
            quiet_len: 0,
            exits: [(0, None, 0); MAX_SIDE],
            exit_len: 0,
        };
        let mut moved = false;
        p.for_each_child(&self.rules, |c| {
            moved = true;
            if c.extra_turn {
                let e = if c.ended_game {
                    (c.gain as i32, None, 0)
                } else {
                    let n = c.position.seeds_on_board() as usize;
                    match self.lower.get(n).and_then(|l| l.as_ref()) {
                        Some(l) => {
                            let i = l.layout().index_of(&c.position);
                            l.prefetch(i);
                            (c.gain as i32, Some(l), i)
                        }
                        None => {
                            self.missing.store(true, Relaxed);
                            (c.gain as i32, None, 0)
                        }
                    }
                };
                out.exits[out.exit_len as usize] = e;
                out.exit_len += 1;
            } else {
                let j = self.layout.index_of(&c.position);
                let k = out.quiet_len as usize;
                match self.cells.fetch_own(j) {
                    Some(cell) => out.cells[k] = cell,
                    None => out.unlocated |= 1 << k,
                }
                out.quiet[k] = j;
                out.quiet_len += 1;
            }
        });
        if !moved {
            // No legal move: the side passes, and the same board with the other side to
            // move is this position's only successor. If that side cannot move either, both
            // stay 0.
            let j = self.layout.index_of(&p.with_side_flipped());
            match self.cells.fetch_own(j) {
                Some(cell) => out.cells[0] = cell,
                None => out.unlocated = 1,
            }
            out.quiet[0] = j;
            out.quiet_len = 1;
        }
        out
    }

    /// Reads the successors gathered by [`Ctx::gather`]: one application of the bound
    /// operator (see `docs/tables.md`). Returns the new bounds, marked final when they
    /// cannot rise any more: every quiet successor was final when read (exits never change),
    /// or a bound is the largest the layer allows. Unless the new bounds are final,
    /// `open_move` receives the index of every quiet successor that was not final and whose
    /// rises could still change them (the moves a sweep writes to the scratch files).
    #[inline(always)]
    pub(super) fn resolve(
        &self,
        pk: Packing,
        pending: &Pending,
        mut open_move: impl FnMut(u64),
    ) -> u8 {
        let mut lo = 0u8;
        // The least of the opponent's bounds over the moves whose bounds never change
        // again (exits and final successors).
        let mut fixed_hi = u8::MAX;
        for &(gain, layer, i) in &pending.exits[..pending.exit_len as usize] {
            let x = (gain + layer.map_or(0, |l| l.value(i))) / self.step;
            lo = lo.max(x.max(0) as u8);
            fixed_hi = fixed_hi.min((-x).max(0) as u8);
        }
        let mut hi = fixed_hi;
        // The successors that are not final, with their mover's bound when read.
        let mut open = [(0u64, 0u8); MAX_SIDE];
        let mut open_len = 0;
        for (k, &j) in pending.quiet[..pending.quiet_len as usize]
            .iter()
            .enumerate()
        {
            let cell = if pending.unlocated & 1 << k != 0 {
                self.cells.get(j)
            } else {
                pending.cells[k]
            };
            let w = cell.load(Relaxed);
            lo = lo.max(pk.hi(w));
            hi = hi.min(pk.lo(w));
            if pk.is_final(w) {
                fixed_hi = fixed_hi.min(pk.lo(w));
            } else {
                open[open_len] = (j, pk.lo(w));
                open_len += 1;
            }
        }
        let done = open_len == 0 || lo == pk.top || hi == pk.top;
        if !done {
            // Every bound here is at most the least fixpoint, where the two bounds of a
            // position are never both positive: once the mover forces a gain, the
            // opponent's bound stays 0.
            let fixed_hi = if lo > 0 { 0 } else { fixed_hi };
            for &(j, mover) in &open[..open_len] {
                // A successor whose mover already forces a gain never gives this position's
                // mover one (its other bound stays 0), and when the opponent's bound here
                // is held to no more than it by something that never changes, its rises
                // never change the least of the opponent's bounds either: it can never
                // change this position's bounds, so no round needs the move.
                if mover == 0 || fixed_hi > mover {
                    open_move(j);
                }
            }
        }
        pk.pack(lo, hi, done)
    }

    /// Finds the bytes of the quiet successors of `pending` in other ranges, whose places
    /// in the copy [`Ctx::gather`] started loading, and starts loading the bytes: the second
    /// of the walk's three steps, so that the two cache misses of such a successor overlap
    /// with other work.
    #[inline(always)]
    fn locate(&self, pending: &mut Pending<'a>) {
        let mut bits = pending.unlocated;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            pending.cells[k] = self.cells.fetch(pending.quiet[k]);
        }
        pending.unlocated = 0;
    }

    /// Calls `f(chunk_start, chunk_end, side)` for every chunk of the own range of the
    /// cells (the whole layer in a build by one process), in parallel.
    pub(super) fn chunks(&self, f: impl Fn(u64, u64, usize) + Sync + Send) {
        self.chunks_in(self.cells.range(), f)
    }

    /// Calls `f(start, end, side)` for the part of every chunk of the layer that lies in
    /// `range` (of indices in the layer), in parallel; `start` and `end` count from the
    /// side's first position. The chunks are those of [`Ctx::chunks`], cut at the ends of
    /// `range`.
    pub(super) fn chunks_in(
        &self,
        range: std::ops::Range<u64>,
        f: impl Fn(u64, u64, usize) + Sync + Send,
    ) {
        let per_side = self.layout.per_side();
        let chunks_per_side = per_side.div_ceil(CHUNK);
        (0..chunks_per_side * self.layout.sides() as u64)
            .into_par_iter()
            .for_each(|c| {
                let side = (c / chunks_per_side) as usize;
                let base = side as u64 * per_side;
                let first = (c % chunks_per_side) * CHUNK;
                let start = first.max(range.start.saturating_sub(base));
                let end = (first + CHUNK).min(per_side);
                let end = end.min(range.end.saturating_sub(base));
                if start < end {
                    f(start, end, side)
                }
            });
    }

    /// Walks the positions in `ranges` (increasing) of one side of the layer, evaluating
    /// those that `select` picks (given the position's index in the layer and working byte): their moves are
    /// generated and their successors prefetched [`LAG`] positions before `finish` gets them
    /// (those in other ranges found in the copy halfway: [`Ctx::locate`]), so that the cache
    /// misses overlap with the sowing. Steps from one picked position to
    /// the next when they are close, else ranks from scratch. Returns the number picked.
    pub(super) fn walk(
        &self,
        ranges: impl IntoIterator<Item = std::ops::Range<u64>>,
        side: usize,
        mut select: impl FnMut(u64, &AtomicU8) -> bool,
        mut finish: impl FnMut(u64, &Pending),
    ) -> u64 {
        let base = side as u64 * self.layout.per_side();
        let mut board = [0u8; MAX_BOARD];
        let mut at: Option<u64> = None;
        let mut ring: [(u64, Option<Pending>); LAG] = [(0, None); LAG];
        let mut slot = 0;
        let mut seen = 0;
        for r in ranges.into_iter().flatten() {
            let i = base + r;
            if !select(i, self.cells.get(i)) {
                continue;
            }
            self.layout.seek(&mut board, &mut at, r);
            seen += 1;
            let pending = self.gather(&self.layout.position_of(&self.rules, side, &board));
            if let (j, Some(waiting)) = &ring[slot] {
                finish(*j, waiting);
            }
            ring[slot] = (i, Some(pending));
            if let (_, Some(halfway)) = &mut ring[(slot + LAG / 2) % LAG] {
                if halfway.unlocated != 0 {
                    self.locate(halfway);
                }
            }
            slot = (slot + 1) % LAG;
        }
        for k in 0..LAG {
            if let (j, Some(waiting)) = &ring[(slot + k) % LAG] {
                finish(*j, waiting);
            }
        }
        seen
    }
}
