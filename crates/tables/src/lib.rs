//! # hoyito-tables
//!
//! Exact endgame tables for Hoyito on boards up to 2x6: for every position with `n` seeds on
//! the board, its value as RULES.md defines it (net future captures of the side to move under
//! best play, endless play worth 0). One table ("layer") per `n`, built from small to large
//! with [`build()`], stored one file per layer, and read with [`Tables`]; or, for small
//! layers, built in memory with [`Tables::in_memory`] (the same build, no file written), for
//! an exact search without tables on disk.
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
//! ## Reaching the fixpoint: sweeps, then rounds
//!
//! Relay sowing makes predecessors impractical to generate, so the operator is applied
//! forwards. Each sweep walks the layer in chunks of consecutive indices (`Layout::next`, no
//! unranking), generates every position's moves and reads each successor's byte; chunks run
//! in parallel with rayon. A position is evaluated a few positions after its moves were
//! generated and its successors' bytes prefetched, so that the cache misses of those random
//! reads overlap with the sowing of the next positions (14% off the 20-seed layer). The
//! number of sweeps a layer needs is the length of its longest forced sequence inside the
//! layer (29 sweeps at 20 seeds, 42 at 16, with a long thin tail of changes), so sweeping
//! to the end is slow. Two things cut it down:
//!
//! - **Final positions.** Bit 6 of the working byte (see "Memory" below) marks a position
//!   whose bounds cannot rise any more: every quiet successor
//!   was final when read (exits never change), or a bound is the largest of the layer. Final
//!   positions are skipped. By induction a final position's bounds are its fixpoint bounds.
//!   (Few positions become final: 5% after two sweeps at 20 seeds; the cycles keep the rest
//!   open.)
//! - **Rounds** ([`Method::Auto`]). The second sweep also writes the quiet moves (and
//!   passes) that a round may need, reversed (successor, predecessor), to scratch files
//!   beside the tables, one file per range of successors, coded (about 3.3 bytes a move at
//!   20 seeds): those of positions it leaves not final to successors that are not final,
//!   but not a move to a successor whose mover already forces a gain when the opponent's
//!   bound at the predecessor is already held to no more than that gain, by a move that
//!   never changes (an exit, a final successor) or because the predecessor's mover forces a
//!   gain (its opponent's bound then stays 0). Such a successor's other bound stays 0, so it
//!   never raises the predecessor's own bound, and its rises never lower the least of the
//!   opponent's: no change of it can change the predecessor's bounds. That leaves out 38% of
//!   the moves at 28 seeds (about 1.8 moves a position instead of 2.9), and more in larger
//!   layers. The files are then sorted, coded again block by block and
//!   indexed by blocks of 256 successors. Bit 7 marks positions whose bounds
//!   rose, and a bitmap with a bit per block marks the blocks that hold one. A round marks
//!   (bit 6, and a second bitmap) the predecessors of the changed positions, reading only
//!   the blocks of the move files whose bit is set, then evaluates the marked positions,
//!   visiting only the marked blocks, and marks those that rose. Rounds stop when one
//!   changes nothing. A round costs its evaluations and the reads of its blocks, not a
//!   sweep. ([`Method::MovesAtSweep`], the CLI's `--moves-at-sweep`, writes the moves in
//!   another sweep.)
//!
//! Rounds are exact for the same reason: every bound written is still below the least
//! fixpoint; and when the rounds stop, every position that is not final has been evaluated
//! after the last change of each of its successors that could change its bounds (every
//! change marks the predecessors whose moves were written for the next round; final
//! positions never change, and a move left out is one whose successor's changes cannot
//! change `F` at the predecessor), so the bounds `X` satisfy `F(X) <= X`.
//! A pre-fixpoint lies above the least fixpoint (Knaster–Tarski), so `X` is the least
//! fixpoint. The tests check both methods against an independent solver.
//!
//! **Memory.** The state of a position while its layer is built is one byte: both bounds
//! as one *joint code* in bits 0 to 4 (`lo` and `hi` are never both positive, so the pair
//! takes one of `2 * top + 1` values: 17 at 32 seeds, at most 31 in the layers up to 60
//! seeds), bit 5 set only if the bounds ever clash (the build then refuses the layer), and
//! the two marks in bits 6 and 7. On top of that working array a build holds: the finished
//! smaller layers, packed at 3 to 5 bits a position (about 0.15 byte per position of the
//! layer being built, since each layer is 4 to 5 times the one below); in rounds, the block
//! index of the move files (4 bytes per 256 positions) and three bitmaps of blocks (a bit
//! per 256 positions each); while the moves are written, a 64 KiB buffer per move file (at
//! most 1000 files); while they are sorted, one move file per thread (1/1000 of the moves
//! each at 28 seeds, decoded at 8 bytes a move); and the long-sowing cache of the rules
//! crate (at most about 2 million entries). For the 28-seed layer (1,676,056,044 positions
//! under symmetric rules) that is 1.68 GB of working bytes and a measured peak of 2.24 GB
//! in all, 1.34 bytes a position; twice the positions for `last_four = S | N`.
//!
//! **Disk.** Rounds need scratch space for the moves, about 2.3 moves a position at 16 and
//! 20 seeds, 2.0 at 24 and 1.8 at 28 (Hoyito II), coded
//! (the module `build::scratch`): as the sweep writes them, in runs sorted by successor
//! with Rice-coded gaps; then, file by file, sorted and coded again in blocks of 256
//! successors, each block's moves sorted by predecessor with Rice-coded gaps and an 8-bit
//! offset for the successor. A move takes about `log2(positions) + 0.2` bits at the peak,
//! while the sweep writes them (measured: 3.3 bytes a move at 20 seeds, 3.6 at 24, 3.9 at
//! 28), so the scratch of a layer is 0.79 GB at 20 seeds, 4.3 GB at 24 and 18.6 GB at 28
//! (against 1.9, 9.6 and 38.5 GB at 8 bytes a move before). Decoding costs time in the
//! rounds (the 24-seed layer: 216 s against 204 s, one run each on an idle machine). The files
//! are deleted when the layer is done. `Method::Sweeps` needs none. A build in memory
//! ([`build_in_memory`]) keeps the moves in memory instead (8 bytes a move, not coded), and
//! goes on in rounds from the smallest layer: up to 12 seeds (Hoyito II, 1 thread, on the
//! loaded 2-core machine) it takes 1.2 s and 27 MB at peak, as long as the build to files,
//! against 7.0 s and 5 MB with `Method::Sweeps` (the 12-seed layer takes 2 sweeps and 46
//! rounds, or 26 sweeps).
//!
//! ## Measured
//!
//! The figures of a build (time, memory and disk per layer, up to 28 seeds) are kept in one
//! place, the section "Measured speed" of the project's `README.md`.
//!
//! ## 32 seeds
//!
//! The 32-seed layer has 5,752,004,349 positions (C(43, 11)) under symmetric rules. With
//! the joint code its working byte keeps both marks, and its indices fit the 35 bits a
//! coded move gives a predecessor, so [`Method::Auto`] builds it with rounds like the
//! smaller layers. Estimated from the 28-seed layer (1,676,056,044 positions: 883 s, 18.6 GB
//! of scratch, peak 2.25 GB; two sweeps of 488 s, then sorting and rounds, 382 s):
//!
//! - **Memory**: 5.75 GB of working bytes, 1.1 GB of smaller layers, and about 0.5 GB of
//!   block index, bitmaps, write buffers and two move files being sorted: about 7.4 GB, 1.28
//!   bytes a position, in the 24 GB of this kind of machine.
//! - **Disk**: about 2.87 moves a position at `log2(5.75e9) + 0.2 = 32.6` bits each: about
//!   67 GB of scratch at the peak (the end of the second sweep), then less.
//! - **Time**: the sweeps scale with the positions (3.4 times the 28-seed layer's, plus a
//!   tenth for the larger array): about 31 minutes; the sorting and rounds, 22 minutes at the
//!   same cost a position, more since 67 GB of moves do not stay in the page cache of a
//!   24 GB machine (twice that: 44 minutes). In all **about 1 to 1.3 hours** on 2 cores. The
//!   file is about 3.6 GB (5 bits a value).
//!
//! Measured in part (the README's "Measured speed"): a build stopped in its second sweep
//! had taken 6.9 GB of memory and written 64.0 GB of scratch in 39.5 minutes of that sweep,
//! still writing. So the disk estimate is about right, and the time estimate is short: the
//! second sweep ran at about 40% of the 28-seed layer's speed a position, so the whole layer
//! would take 2 to 3 hours.
//!
//! Sweeping to the end instead (`Method::Sweeps`: no scratch) takes 30 to 40 sweeps of
//! about 21 minutes, 11 to 14 hours.
//!
//! ## Splitting the build across machines
//!
//! A layer depends only on smaller layers and on itself. With the `mpi` feature,
//! `build_distributed` builds each layer over the processes of an MPI job (`mpirun -np M
//! solve tables build ...`): each process owns one index range (`[k N/M, (k+1) N/M)` of the
//! `N` positions, cut at blocks of 256) and reads every smaller layer whole from its file
//! (read-only, at most 5 bits a position). A sweep is one bulk-synchronous step: the owners
//! send the current bytes of the successors other processes asked for (the indices were
//! listed and sent once per layer, an all-to-all exchange with counts; the answers are one
//! more each sweep), each process sweeps its own range with the operator and walk of a
//! one-process sweep and all its cores (Jacobi between processes, Gauss–Seidel inside one),
//! and an all-reduce adds the positions that rose; the layer is done when none did
//! anywhere. The exactness argument is unchanged (stale reads stay below the fixpoint, and
//! a sweep that changes nothing anywhere read current bytes), so the payloads equal a
//! one-process build's. Rounds go across processes too: each process writes the reversed
//! moves of its own positions to its own scratch folder, and a round is one more
//! bulk-synchronous step: each process sends the positions of its range that rose to the
//! processes that read them, then marks the predecessors its moves list for every changed
//! position and evaluates them (no move is ever sent). A process holds the bytes of its own
//! range and a copy of only the bytes its range reads in other ranges (a bitmap of the layer
//! with counts every 384 positions finds them: 0.17 bytes a position of the layer). Rank 0
//! writes the file from the ranges as they arrive, a piece at a time, and every process then
//! reads it (the folder must be shared). After each sweep,
//! and every few minutes in rounds, each process saves its range (a checkpoint beside the
//! layer's file), so a job stopped by the loss of a process and started again with the same
//! number of processes resumes from there.
//!
//! Not done yet: overlapping the exchange with the next batch's generation. Every process
//! holds a copy of the smaller layers, which is then what one machine must hold.
//! Without the feature none of this is compiled and the build is unchanged.
//!
//! ## Verifying
//!
//! [`Tables::verify_full`] proves built tables exact without trusting the build: every
//! position of every layer agrees with its moves, and every nonzero value is forced in
//! finitely many moves, which holds for the least fixpoint only (see [`mod@verify`] for the
//! proof and the algorithm).
//!
//! ## Files
//!
//! See [`mod@format`] for the layout: a header with the rules, the layer, the count, the format
//! version, checksums, the sweeps and a histogram of values, then the values packed at
//! [`bits_of`] bits each. A build writes a layer under a temporary name and renames it when
//! complete, so a stopped build resumes at the first layer without a file, and a damaged file
//! is reported, never used.
#![deny(missing_docs)]

/// Building layers: the driver, sweeps, rounds and their scratch moves.
mod build;
/// The errors, each cause typed and shown once.
mod error;
pub mod format;
/// Grounding: the check that values are the least fixpoint, over any graph of positions.
mod grounding;
/// Small layers built in memory ([`Tables::in_memory`], [`build_in_memory`]).
mod in_memory;
/// The perfect index of a layer ([`Layout`]).
mod index;
/// Memory hints, a positional read, free disk space.
mod mem;
/// Opening built tables and probing them ([`Tables`]).
mod reader;
pub mod verify;

pub use build::{
    build, build_with, layer_memory, scratch_estimate, BuildOptions, LayerStats, Method, Progress,
    Quiet,
};
#[cfg(feature = "mpi")]
pub use build::{build_distributed, ExchangeStats, MpiOptions};
pub use error::{Damage, Inconsistency, Mismatch, TableError, Unsupported};
pub use format::{
    bits_of, key_dir, layers_up_to, step_of, Header, Layer, TableKey, FORMAT_VERSION,
};
pub use in_memory::build_in_memory;
pub use index::{Layout, MAX_BOARD};
pub use mem::available_space;
/// The MPI bindings the distributed build uses (feature `mpi`), for the caller to start MPI.
#[cfg(feature = "mpi")]
pub use mpi;
pub use reader::{MoveValue, Tables};
pub use verify::{FullCheck, FullFailure, FullFault, FullOptions};
