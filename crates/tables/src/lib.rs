//! # hoyito-tables
//!
//! Exact endgame tables for Hoyito on boards up to 2x6: for every position with `n` seeds on
//! the board, its value as RULES.md defines it (net future captures of the side to move under
//! best play, endless play worth 0). One table ("layer") per `n`, built from small to large
//! with [`build()`], stored one file per layer, and read with [`Tables`]; or, for small
//! layers, built in memory with [`Tables::in_memory`] (the same build, no file written), for
//! an exact search without tables on disk.
//!
//! ## Use
//!
//! - **Build**: [`build()`] writes every layer up to `max_seeds` seeds for a rule set into a
//!   folder (its own subfolder, [`key_dir`]), smallest first; [`build_with`] takes
//!   [`BuildOptions`] (the [`Method`], a memory limit). Layers already there are kept, so
//!   a stopped build resumes at the first missing layer.
//! - **Probe**: [`Tables::open`] (or [`Tables::open_up_to`]) reads and checks the layers of a
//!   folder; [`Tables::probe`] gives a position's exact value and [`Tables::best_moves`] the
//!   moves that keep it. [`Tables`] implements the rules crate's `Probe`, the oracle a search
//!   asks.
//! - **Verify**: [`Tables::verify_full`] proves built tables exact without trusting the build
//!   (see [`mod@verify`]).
//! - **Files**: [`mod@format`] gives the layout of a layer file; a damaged or foreign file is
//!   reported as a [`TableError`], never used.
//!
//! How the build works and why its values are exact (the layers and their index, the bound
//! iteration to the least fixpoint, sweeps and rounds, memory and disk, the build over MPI),
//! and what builds measure: `docs/tables.md` and `docs/benchmarks.md` in the project's
//! repository.
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
    build, build_with, layer_memory, scratch_estimate, sweep_once, BuildOptions, LayerStats,
    Method, Progress, Quiet,
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
