//! What a threshold proof reads and what it may spend: the [`Context`] that the prover,
//! the proof graph and the lines of captures pass along, and the [`Budget`] within it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use hoyito_rules::Probe;

/// What a threshold proof reads and what it may spend: the oracle of exact values for
/// small positions (endgame tables), if any, and the budget.
pub(crate) struct Context<'a, const W: usize> {
    pub probe: Option<&'a dyn Probe<W>>,
    pub budget: Budget<'a>,
}

/// Why a proof stopped before its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stopped;

/// When a proof must stop.
pub(crate) struct Budget<'a> {
    pub stop: &'a AtomicBool,
    pub deadline: Option<Instant>,
    pub node_limit: u64,
}

impl Budget<'_> {
    /// Inside a pass over a proof's graph, at step `i`: every 65,536 steps, a look at the
    /// stop signal and the deadline (not the node limit), so that a stop never waits for a
    /// whole pass over a graph of millions of positions.
    #[inline]
    pub(crate) fn poll(&self, i: usize) -> Result<(), Stopped> {
        if i & 0xffff == 0xffff {
            self.check(0)
        } else {
            Ok(())
        }
    }

    pub(crate) fn check(&self, nodes: u64) -> Result<(), Stopped> {
        if (nodes > 0 && nodes >= self.node_limit)
            || self.stop.load(Ordering::Relaxed)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.stop.store(true, Ordering::Relaxed);
            return Err(Stopped);
        }
        Ok(())
    }
}
