//! Rank 0 gathers the ranges of a layer as it writes its file: every other process sends
//! its range, a piece at a time ([`send_range`], [`Gathered`]).

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use mpi::traits::{Communicator, Destination, Source};

use super::checkpoint::load_piece;
use super::owner;

/// Bytes of a range sent at once when rank 0 gathers the layer.
const GATHER_PIECE: usize = 1 << 24;

/// Sends the bytes of this process's range to rank 0, piece by piece, as [`Gathered`]
/// reads them.
pub(super) fn send_range<C: Communicator>(world: &C, mine: &[AtomicU8]) {
    let to = world.process_at_rank(0);
    let mut buf = Vec::with_capacity(GATHER_PIECE);
    for piece in mine.chunks(GATHER_PIECE) {
        load_piece(piece, !0, &mut buf);
        to.send(&buf[..]);
    }
}

/// The working bytes of the whole layer on rank 0, read in index order: its own range,
/// then each other process's range as that process sends it ([`send_range`]), a piece at a
/// time, so that no process ever holds the whole layer.
pub(super) struct Gathered<'a, C: Communicator> {
    world: &'a C,
    bounds: &'a [u64],
    mine: &'a [AtomicU8],
    /// The piece last received, and the index of its first byte.
    piece: Vec<u8>,
    at: u64,
}

impl<'a, C: Communicator> Gathered<'a, C> {
    pub(super) fn new(world: &'a C, bounds: &'a [u64], mine: &'a [AtomicU8]) -> Gathered<'a, C> {
        Gathered {
            world,
            bounds,
            mine,
            piece: Vec::new(),
            at: 0,
        }
    }

    /// The byte of position `i`; `i` runs through the layer in order.
    pub(super) fn byte(&mut self, i: u64) -> u8 {
        if i < self.bounds[1] {
            return self.mine[i as usize].load(Relaxed);
        }
        if i >= self.at + self.piece.len() as u64 {
            let r = owner(self.bounds, i);
            let len = (self.bounds[r + 1] - i).min(GATHER_PIECE as u64);
            self.piece.resize(len as usize, 0);
            self.world
                .process_at_rank(r as i32)
                .receive_into(&mut self.piece[..]);
            self.at = i;
        }
        self.piece[(i - self.at) as usize]
    }
}
