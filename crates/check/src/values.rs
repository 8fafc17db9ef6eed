//! Verifying the values of the endgame tables, layer by layer, with this crate's own rules
//! and indexing: every stored value is the game's value given the smaller layers.
//!
//! ## What is checked
//!
//! A layer holds every position with `n` seeds on the board. A move of its side to move is
//!
//! - an **exit**, whose worth to the mover is known without this layer: a capture that
//!   leaves 4 or fewer seeds ends the game (the seeds captured, plus or minus the seeds
//!   left, by the last-four rule); any other capture is worth the seeds captured plus the
//!   stored value of the position it leaves, in a smaller layer, the same side to move (an
//!   extra turn); when neither side can move, the game is over and the position is worth 0;
//! - or a **quiet** move: a move that captures nothing, worth minus the stored value of the
//!   position it leads to (same layer, other side to move); a side with no legal move passes,
//!   which is a quiet move to the same board with the other side to move.
//!
//! Moves whose sowing never ends are not legal. A stored value `V(p)` is checked twice:
//!
//! 1. **Local consistency**: `V(p)` equals the best worth over `p`'s moves, and lies in
//!    `-n ..= n`. This says the values are *a* fixpoint of the game's value operator.
//! 2. **Least fixpoint**: every nonzero value is *forced in finitely many moves*. Inside a
//!    layer quiet moves form cycles, and a cycle admits more than one consistent labelling:
//!    two positions whose only moves lead to each other are worth 0 (endless play), but +4
//!    and -4 agree with those moves just as well. The game's values are the labelling in
//!    which each nonzero value is forced.
//!
//! "Forced" is computed as the least set of positions (the *grounded* ones) closed under:
//! a position of value 0 is grounded; a position of value `v > 0` is grounded when it has an
//! exit worth exactly `v`, or a quiet move to a grounded position of value `-v`; a position
//! of value `v < 0` is grounded when every quiet move leads to a grounded position. (With
//! local consistency, a positive value is then reached by a finite forcing line of moves
//! worth `v`, and a negative value cannot be escaped: every reply either exits at a worth
//! of at most `v` or enters a grounded position worth at least `-v` to the opponent.)
//! Locally consistent values with every position grounded are the game's values: the
//! grounded values can each be forced and, because each is the best over its moves, neither
//! side can do better in finite play, while endless play is worth 0 (the proof is written
//! out in `docs/table-format.md`, "What a correct layer is"). A labelling on a cycle such
//! as +4/-4 above is locally consistent but never grounded, since no exit holds it up.
//!
//! ## How
//!
//! One parallel pass over the layer, in index order, unranks each position, plays every
//! move with [`crate::rules`]-compatible sowing on a fixed array, ranks the children with
//! this crate's index, checks local consistency, counts the values against the header's
//! histogram, and grounds in place what it can (a bit a position, set only on the strength
//! of bits already set, so that parallel work never grounds too much). Further passes visit
//! only the positions still open, alternating the direction of the walk, until one grounds
//! nothing: the set is then closed, and any position left open is reported. Memory: the
//! packed values of the layer and of the smaller layers (as read from the files) and one
//! bit a position.

mod board;
mod graph;

use std::time::Instant;

use crate::error::CheckError;
use crate::resume::{Kept, Resume};
use crate::rules::Rules;
use crate::tables::Tables;
use graph::LayerGraph;

/// Most holes in a row of a board the tables cover (2x6).
pub const MAX_TABLE_HOLES: usize = 6;
const BOARD: usize = 2 * MAX_TABLE_HOLES;
/// Positions one task walks at a time (the unit of parallel work and of progress).
const CHUNK: u64 = 1 << 14;
/// Chunks walked between two points where the check may save its state or stop.
const SEGMENT: u64 = 64;

/// A board in sowing order (South's row, then North's), unused holes 0.
type Board = [u8; BOARD];

/// What a verified layer came to.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerReport {
    /// Seeds on the board.
    pub seeds: usize,
    /// Positions in the layer, all checked.
    pub positions: u64,
    /// Positions with a nonzero value, each shown forced.
    pub nonzero: u64,
    /// Nonzero positions left to ground after the first pass.
    pub open_after_first: u64,
    /// Passes over the layer: the first (every position), then those over the positions
    /// still open, the last of which grounded nothing new (or none was needed).
    pub passes: u32,
    /// Positions whose moves were generated, over all passes.
    pub evaluations: u64,
    /// The payload checksum of the layer's file.
    pub payload_checksum: u64,
    /// Wall time of the check of this layer, in seconds (reading the files excluded; a
    /// resumed check counts the time of its earlier runs too).
    pub seconds: f64,
    /// Verified by an earlier run on the same tables, as its state folder records
    /// ([`Resume`]): read, not checked again.
    pub earlier: bool,
}

/// What [`verify_tables`] found: every layer verified, smallest first.
#[derive(Clone, Debug, PartialEq)]
pub struct TablesReport {
    /// The rules of the tables.
    pub rules: Rules,
    /// The largest layer.
    pub max_seeds: usize,
    /// One report a layer verified, smallest first.
    pub layers: Vec<LayerReport>,
    /// Layers read but trusted (smaller than those verified, read and checksummed only);
    /// empty for [`verify_tables`].
    pub trusted: Vec<usize>,
    /// Wall time in seconds, reading the files included.
    pub seconds: f64,
}

/// Hears about the progress of a table check (every method does nothing by default). The
/// methods may be called from several threads.
pub trait Progress: Sync {
    /// A pass over layer `seeds` starts (pass 1 visits every position; later passes only
    /// the `positions` still open).
    fn pass_start(&self, seeds: usize, pass: u32, positions: u64) {
        let _ = (seeds, pass, positions);
    }
    /// `positions` more positions of the current pass were visited.
    fn advance(&self, positions: u64) {
        let _ = positions;
    }
    /// A pass ended: `grounded` positions shown forced in it, `open` nonzero ones left.
    fn pass_end(&self, seeds: usize, pass: u32, grounded: u64, open: u64) {
        let _ = (seeds, pass, grounded, open);
    }
    /// A layer was verified.
    fn layer_done(&self, report: &LayerReport) {
        let _ = report;
    }
}

/// A [`Progress`] that hears nothing.
pub struct Silent;

impl Progress for Silent {}

/// Verifies the layer of `seeds` seeds of `rules` under the tables folder `dir` (one
/// subfolder per set of rules), given the smaller layers `seeds - 4`, `seeds - 8`, ...
/// (each read and checksummed, their values trusted: [`verify_tables`] verifies them
/// first). A wrong value is [`CheckError::WrongValue`], naming the position.
pub fn verify_layer(
    dir: &std::path::Path,
    rules: &Rules,
    seeds: usize,
    progress: &dyn Progress,
) -> Result<LayerReport, CheckError> {
    verify_layer_resuming(dir, rules, seeds, progress, &Resume::none())
}

/// As [`verify_layer`], stopping and resuming as `resume` says.
pub fn verify_layer_resuming(
    dir: &std::path::Path,
    rules: &Rules,
    seeds: usize,
    progress: &dyn Progress,
    resume: &Resume,
) -> Result<LayerReport, CheckError> {
    check_board(rules)?;
    let tables = Tables::open(dir, rules, seeds)?;
    verify_opened(&tables, rules, seeds, progress, resume)
}

/// Verifies every layer of `rules` up to `max_seeds` under `dir` (`max_seeds`,
/// `max_seeds - 4`, ... down to the smallest above 4), smallest first, each over the
/// smaller ones already verified. Stops at the first error.
pub fn verify_tables(
    dir: &std::path::Path,
    rules: &Rules,
    max_seeds: usize,
    progress: &dyn Progress,
) -> Result<TablesReport, CheckError> {
    verify_tables_resuming(dir, rules, max_seeds, progress, &Resume::none())
}

/// As [`verify_tables`], stopping and resuming as `resume` says: layers verified by an
/// earlier run on the same tables are not checked again, and a layer stopped midway goes on
/// from its saved state.
pub fn verify_tables_resuming(
    dir: &std::path::Path,
    rules: &Rules,
    max_seeds: usize,
    progress: &dyn Progress,
    resume: &Resume,
) -> Result<TablesReport, CheckError> {
    let started = Instant::now();
    check_board(rules)?;
    let tables = Tables::open(dir, rules, max_seeds)?;
    let layers = verify_all(&tables, rules, progress, resume)?;
    Ok(TablesReport {
        rules: *rules,
        max_seeds,
        layers,
        trusted: Vec::new(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Verifies every layer of tables already opened (for `rules`), smallest first.
pub fn verify_all(
    tables: &Tables,
    rules: &Rules,
    progress: &dyn Progress,
    resume: &Resume,
) -> Result<Vec<LayerReport>, CheckError> {
    check_board(rules)?;
    let mut reports = Vec::new();
    for n in 5..=tables.max_seeds() {
        if tables.layer(n).is_some() {
            reports.push(verify_opened(tables, rules, n, progress, resume)?);
        }
    }
    Ok(reports)
}

/// Verifies layer `seeds` of tables already opened (for `rules`), trusting the smaller
/// layers; stops and resumes as `resume` says.
pub fn verify_opened(
    tables: &Tables,
    rules: &Rules,
    seeds: usize,
    progress: &dyn Progress,
    resume: &Resume,
) -> Result<LayerReport, CheckError> {
    check_board(rules)?;
    let layer = tables.layer(seeds).ok_or_else(|| CheckError::Table {
        path: std::path::PathBuf::from(crate::tables::folder_name(rules)),
        problem: format!("the tables opened hold no layer of {seeds} seeds"),
    })?;
    let graph = LayerGraph::new(tables, rules, layer)?;
    let kept = Kept::new(
        resume,
        crate::tables::folder_name(rules),
        seeds,
        ground(tables, rules, seeds),
        graph.index.count(),
    );
    let report = match kept.verified()? {
        Some(earlier) => earlier,
        None => {
            let report = graph.verify(progress, &kept)?;
            kept.save_verified(&report)?;
            report
        }
    };
    progress.layer_done(&report);
    Ok(report)
}

/// The ground of layer `seeds`: a checksum of the rules, the layer and the payload
/// checksums of it and of every smaller layer opened (what its values are checked against).
fn ground(tables: &Tables, rules: &Rules, seeds: usize) -> u64 {
    let mut bytes = crate::tables::folder_name(rules).into_bytes();
    bytes.extend_from_slice(&(seeds as u64).to_le_bytes());
    for m in 0..=seeds {
        if let Some(l) = tables.layer(m) {
            bytes.extend_from_slice(&(m as u64).to_le_bytes());
            bytes.extend_from_slice(&l.payload_checksum().to_le_bytes());
        }
    }
    crate::tables::checksum(&bytes)
}

/// The tables cover boards of 2x2 to 2x6.
fn check_board(rules: &Rules) -> Result<(), CheckError> {
    if (Rules::MIN_HOLES..=MAX_TABLE_HOLES).contains(&rules.holes) {
        Ok(())
    } else {
        Err(CheckError::Table {
            path: std::path::PathBuf::from(crate::tables::folder_name(rules)),
            problem: format!(
                "tables cover boards of 2x2 to 2x{MAX_TABLE_HOLES}, not 2x{}",
                rules.holes
            ),
        })
    }
}
