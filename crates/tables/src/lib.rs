//! # hoyito-tables
//!
//! Exact endgame tables for Hoyito on boards up to 2x6: for every position with `n` seeds on
//! the board, its value as RULES.md defines it (net future captures of the side to move under
//! best play, endless play worth 0). One table ("layer") per `n`, built from small to large
//! with [`build`], stored one file per layer, and read with [`Tables`].
//!
//! ## Layers and indexing
//!
//! A capture removes a multiple of 4 seeds, so it leaves the layer for a smaller one with the
//! same side to move (an extra turn); every other move (and a pass) stays in the layer with
//! the other side to move. A layer is indexed by a combinatorial rank of its seed
//! distribution (see [`Layout`]): the board as seen from the side to move, so that under
//! symmetric rules (`last_four = capturer`) one side to move is stored for both; with
//! `last_four = S | N` both sides are stored. The index is perfect: `C(n + 11, 11)` boards
//! for `n` seeds on 2x6, each rank a valid board, no gaps.
//!
//! ## The algorithm: bound iteration to the least fixpoint
//!
//! Inside a layer, lower layers already solved, every capture move of position `p` is an
//! *exit* with a known worth `x = gain + v(child)` for the mover (`gain` includes the
//! last-four award when the capture ends the game, whose child is then worth 0). Quiet
//! moves lead to positions of the same layer with the other side to move; a side without a
//! legal move passes to the same board with the other side to move. Play that stays in the
//! layer forever is worth 0.
//!
//! For each position the build keeps two bounds, in units of the layer's value step `g`
//! (4 for `n` a multiple of 4):
//!
//! - `lo(p)`: the largest `t > 0` such that the side to move can force an exit sequence
//!   worth at least `t` to it (0: none found);
//! - `hi(p)`: the largest `t > 0` such that the *opponent* can force one worth at least `t`
//!   to the opponent, i.e. at most `-t` to the mover (0: none found).
//!
//! Both start at 0 and are raised by the operator
//!
//! ```text
//! lo(p) = max(0, max over exits x, max over quiet children c of hi(c))
//! hi(p) = max(0, min(min over exits -x, min over quiet children c of lo(c)))
//! ```
//!
//! (a pass is the one quiet child `p` with the side flipped; with no move on either side
//! both bounds stay 0). The sweeps apply it to every position, in place, until a sweep
//! changes nothing; then `v(p) = lo(p)` if `lo(p) > 0`, else `-hi(p)` if `hi(p) > 0`,
//! else 0.
//!
//! **Why this is exact.** Fix a threshold `t > 0`. "The mover of `p` can force, in finitely
//! many plies, an exit worth at least `t`" is a reachability game, and the sets
//! `{p : lo(p) >= t}` and `{p : hi(p) >= t}` are exactly its attractor computed
//! simultaneously for both sides: a position is in the mover's set iff some exit reaches
//! `t` or some quiet move reaches a position in which the (new) mover's *opponent* is in
//! the opponent's set, and in the opponent's set iff every exit and every quiet move does so.
//! The operator is monotone on a finite lattice, so iteration from the bottom reaches its
//! least fixpoint, and the least fixpoint of an attractor is the attractor (each member is
//! reached by a finite, rank-decreasing forcing strategy; a position outside has a move that
//! keeps it outside forever). In-place (Gauss–Seidel) updates and parallel updates with
//! stale reads stay below the least fixpoint, because every value written is the operator
//! applied to values that are themselves below it; and a sweep that changes nothing proves
//! that the current bounds are a fixpoint, hence the least one.
//!
//! Then the value: if `lo(p) = t > 0` the mover can force at least `t` and cannot force
//! `t + g` in finite play; since endless play gives 0 < `t + g` the opponent can keep it
//! below `t + g` (determinacy of reachability games), so `v(p) = t`. Symmetrically for
//! `hi(p) > 0`. If both are 0, neither side can force a positive result, so each can hold
//! the other to at most 0: `v(p) = 0`. `lo` and `hi` cannot both be positive (two forcing
//! strategies against each other would give two different results); the build checks it.
//!
//! **Memory.** One working byte per position while building (`lo` and `hi` in 4 bits each,
//! values up to `15 g`, i.e. 60 seeds), plus the finished smaller layers packed at 3 to 5
//! bits a position. The 28-seed layer of 2x6 has 1,676,056,044 positions under symmetric
//! rules (1.68 GB working, 838 MB on disk) and twice that otherwise.
//!
//! **Time.** Each sweep generates the moves of every position of the layer and ranks every
//! child. A sweep walks chunks of consecutive indices (`Layout::next`, no unranking) and
//! chunks run in parallel with rayon; sweeps are counted and stored in the file header. The
//! final sweep only confirms the fixpoint.
//!
//! ## Splitting the build across machines
//!
//! A layer depends only on smaller layers and on itself. For one layer, give each machine an
//! index range (say `[k N/M, (k+1) N/M)` of `N` positions, `M` machines) and every smaller
//! layer (read-only, 5 bits a position at most). A sweep becomes: each machine updates its
//! range, reading the bounds of quiet children from a copy of the whole working array of
//! the previous round (Jacobi between machines, Gauss–Seidel inside one); after the round the
//! machines exchange their ranges (1 byte a position) and stop when no range changed. The
//! exactness argument above holds unchanged (stale reads stay below the fixpoint). Layers
//! are done one after another; the files are written per range and joined.
//!
//! ## Files
//!
//! See [`mod@format`] for the layout: a header with the rules, the layer, the count, the format
//! version, checksums, the sweeps and a histogram of values, then the values packed at
//! [`bits_of`] bits each. A build writes a layer under a temporary name and renames it when
//! complete, so a stopped build resumes at the first layer without a file, and a damaged file
//! is reported, never used.
#![deny(missing_docs)]

mod build;
mod error;
pub mod format;
mod index;
mod tables;

pub use build::{
    build, build_with, key_dir, layers_up_to, BuildOptions, LayerStats, Method, Progress, Quiet,
};
pub use error::TableError;
pub use format::{bits_of, step_of, Header, Layer, TableKey, FORMAT_VERSION};
pub use index::{Layout, MAX_BOARD};
pub use tables::{MoveValue, Tables};
