//! A game's positions since its last capture, for the repetition rule: their keys, and a
//! filter that spares most searches of them.

use hoyito_rules::Position;

use super::Slot;

/// A slot's filter of the positions seen: 512 bits.
pub(super) type Filter = [u64; 8];

/// A position's key in a slot's history, and the two bits of its hash in the filter.
pub(super) struct Seen<const W: usize> {
    packed: Option<u64>,
    bits: [(usize, u64); 2],
}

impl<const W: usize> Seen<W> {
    #[inline]
    pub(super) fn of(p: &Position<W>) -> Self {
        let packed = p.packed_key();
        let h = match packed {
            Some(k) => k.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            None => p.key(),
        };
        let bit = |b: u64| ((b >> 6) as usize & 7, 1u64 << (b & 63));
        Seen {
            packed,
            bits: [bit(h >> 55), bit(h >> 46)],
        }
    }

    /// Whether the position may have been seen (both its bits set).
    #[inline]
    pub(super) fn maybe_in(&self, seen: &Filter) -> bool {
        self.bits.iter().all(|&(w, b)| seen[w] & b != 0)
    }

    /// Whether the position is in the slot's history.
    #[inline]
    pub(super) fn is_in(&self, s: &Slot<W>, p: &Position<W>) -> bool {
        match self.packed {
            Some(k) => s.history.contains(&k),
            None => s.wide.contains(&p.board_key()),
        }
    }

    /// Adds the position to the slot's history.
    #[inline]
    pub(super) fn remember(&self, s: &mut Slot<W>, p: &Position<W>) {
        for &(w, b) in &self.bits {
            s.seen[w] |= b;
        }
        match self.packed {
            Some(k) => s.history.push(k),
            None => s.wide.push(p.board_key()),
        }
    }
}

/// Clears a slot's history (at a capture, or a new episode).
#[inline]
pub(super) fn forget<const W: usize>(s: &mut Slot<W>) {
    s.history.clear();
    s.wide.clear();
    s.seen = [0; 8];
}
