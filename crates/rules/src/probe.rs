//! The oracle of exact values that a search may ask (an endgame table).

use std::sync::Arc;

use crate::position::Position;

/// An oracle that knows exact values of small positions (an endgame table).
///
/// A search asks it about every position whose seeds on the board are at most
/// [`Probe::max_seeds`] and treats an answer as the exact value.
///
/// ```
/// use hoyito_rules::{Position6, Probe, Rules};
///
/// /// Knows only that a board of 4 or fewer seeds is worth 0.
/// struct Empty;
/// impl Probe<2> for Empty {
///     fn probe(&self, p: &Position6) -> Option<i32> {
///         (p.seeds_on_board() <= 4).then_some(0)
///     }
///     fn max_seeds(&self) -> u32 {
///         4
///     }
/// }
/// let r = Rules::default();
/// let p = Position6::parse(&r, "0,0,0,0,0,1/0,0,0,0,0,1 S").unwrap();
/// assert_eq!(Empty.probe(&p), Some(0));
/// ```
pub trait Probe<const W: usize>: Sync {
    /// The exact value of `p` for its side to move, if known.
    fn probe(&self, p: &Position<W>) -> Option<i32>;
    /// The most seeds on the board of the positions this oracle may know.
    fn max_seeds(&self) -> u32;
}

/// A shared oracle answers as the oracle itself (so a search can hold an `Arc` of tables).
///
/// Where this trait is in scope, a method call such as `tables.max_seeds()` on an `Arc` of
/// an oracle finds this impl before the oracle's own inherent method: call the inherent
/// one by path (`Tables::max_seeds(&tables)`) if the two differ.
impl<const W: usize, P: Probe<W> + Send + ?Sized> Probe<W> for Arc<P> {
    #[inline]
    fn probe(&self, p: &Position<W>) -> Option<i32> {
        (**self).probe(p)
    }
    fn max_seeds(&self) -> u32 {
        (**self).max_seeds()
    }
}
