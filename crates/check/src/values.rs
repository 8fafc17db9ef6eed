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

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

use crate::error::{CheckError, ValueFailure, ValueFault};
use crate::resume::{Kept, Resume, Standing};
use crate::rules::{CaptureSide, Position, Rules, Side, Variant};
use crate::tables::{choose, Layer, Tables};

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

/// The index of a layer: `binom[q][j] = C(q + j - 1, j)` gives the rank of a board in the
/// mover's view as `sum over j = 1 .. 2H-1 of binom[Q_j][j]`, `Q_j` the seeds of its first
/// `j` holes (the same rank as [`crate::tables::rank`], from a table).
struct Index {
    holes: usize,
    seeds: usize,
    sides: usize,
    per_side: u64,
    binom: Vec<[u64; BOARD]>,
}

impl Index {
    fn new(holes: usize, seeds: usize, sides: usize) -> Option<Index> {
        let k = 2 * holes;
        let mut binom = vec![[0u64; BOARD]; seeds + 1];
        for (q, row) in binom.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate().take(k).skip(1) {
                *cell = choose((q + j - 1) as u64, j as u64)?;
            }
        }
        Some(Index {
            holes,
            seeds,
            sides,
            per_side: choose((seeds + k - 1) as u64, (k - 1) as u64)?,
            binom,
        })
    }

    fn count(&self) -> u64 {
        self.per_side * self.sides as u64
    }

    /// The index of `board` (absolute) with `side` to move.
    #[inline]
    fn index(&self, board: &Board, side: Side) -> u64 {
        let k = 2 * self.holes;
        let shift = if side == Side::South { 0 } else { self.holes };
        let mut q = 0usize;
        let mut r = 0u64;
        for j in 1..k {
            let i = j - 1 + shift;
            q += board[if i >= k { i - k } else { i }] as usize;
            r += self.binom[q][j];
        }
        if self.sides == 2 && side == Side::North {
            r + self.per_side
        } else {
            r
        }
    }

    /// The position of index `i` (`< count`): its absolute board and side to move.
    fn position(&self, i: u64) -> (Board, Side) {
        let k = 2 * self.holes;
        let (side, mut r) = if i >= self.per_side {
            (Side::North, i - self.per_side)
        } else {
            (Side::South, i)
        };
        // The prefix sums Q_j from the last down: the largest q with binom[q][j] <= r.
        let mut prefix = [0usize; BOARD + 1];
        prefix[k] = self.seeds;
        let mut q = self.seeds;
        for j in (1..k).rev() {
            while self.binom[q][j] > r {
                q -= 1;
            }
            r -= self.binom[q][j];
            prefix[j] = q;
        }
        let mut view = [0u8; BOARD];
        for (h, cell) in view.iter_mut().enumerate().take(k) {
            *cell = (prefix[h + 1] - prefix[h]) as u8;
        }
        let shift = if side == Side::South { 0 } else { self.holes };
        let mut board = [0u8; BOARD];
        for (h, &seeds) in view.iter().enumerate().take(k) {
            let at = h + shift;
            board[if at >= k { at - k } else { at }] = seeds;
        }
        (board, side)
    }
}

/// A layer's packed values, read in place.
struct Values<'a> {
    payload: &'a [u8],
    bits: usize,
    mask: u32,
    step: i32,
    offset: i32,
}

impl<'a> Values<'a> {
    fn of(layer: &'a Layer) -> Values<'a> {
        Values {
            payload: layer.payload(),
            bits: layer.bits(),
            mask: (1u32 << layer.bits()) - 1,
            step: layer.step() as i32,
            offset: (layer.seeds() / layer.step()) as i32,
        }
    }

    /// The code of position `i`. The padding byte after the values makes the second byte
    /// read always present; a code spans at most two bytes (at most 9 bits).
    #[inline]
    fn code(&self, i: u64) -> u32 {
        let bit = i * self.bits as u64;
        let byte = (bit / 8) as usize;
        let word = self.payload[byte] as u32 | (self.payload[byte + 1] as u32) << 8;
        (word >> (bit % 8)) & self.mask
    }

    #[inline]
    fn value(&self, i: u64) -> i32 {
        (self.code(i) as i32 - self.offset) * self.step
    }
}

/// The outcome of sowing one hole.
enum Sown {
    /// The sowing never ends: the move is not legal.
    Endless,
    /// The board after the move, and the seeds captured (0: a quiet move).
    Done(Board, u32),
}

/// Whether `mover` may capture in hole `at`.
#[inline]
fn may_capture(rules: &Rules, mover: Side, at: usize) -> bool {
    match rules.capture_side {
        CaptureSide::Any => true,
        CaptureSide::Opponent => (at < rules.holes) != (mover == Side::South),
    }
}

/// Sows hole index `start` (non-empty) of `board` for `mover`, exactly as
/// [`Position::play`](crate::rules::Position::play) does, on a fixed array: laps with relay,
/// a capture of exactly 4 at the end of a lap (with the Hoyito II chain before it), the end
/// of the move on an empty hole; endless sowing found by Brent's cycle detection on the
/// state between laps (the board and the hole the next lap is lifted from).
fn sow(rules: &Rules, board: &Board, mover: Side, start: usize) -> Sown {
    let size = 2 * rules.holes;
    let mut b = *board;
    let mut from = start;
    let mut saved = (b, from);
    let mut power: u64 = 1;
    let mut laps: u64 = 0;
    let landing = loop {
        let seeds = b[from];
        b[from] = 0;
        let mut at = from;
        for _ in 0..seeds {
            at += 1;
            if at == size {
                at = 0;
            }
            b[at] += 1;
        }
        let count = b[at];
        if count == 4 && may_capture(rules, mover, at) {
            break Some(at);
        }
        if count == 1 {
            break None;
        }
        from = at;
        if saved.1 == from && saved.0 == b {
            return Sown::Endless;
        }
        laps += 1;
        if laps == power {
            saved = (b, from);
            power *= 2;
            laps = 0;
        }
    };
    let mut captured = 0u32;
    if let Some(at) = landing {
        captured += b[at] as u32;
        b[at] = 0;
        if rules.variant == Variant::Hoyito2 {
            let mut i = if at == 0 { size - 1 } else { at - 1 };
            while b[i] == 4 && may_capture(rules, mover, i) {
                captured += 4;
                b[i] = 0;
                i = if i == 0 { size - 1 } else { i - 1 };
            }
        }
    }
    Sown::Done(b, captured)
}

/// Whether `side` has a legal move on `board`.
fn can_move(rules: &Rules, board: &Board, side: Side) -> bool {
    let first = if side == Side::South { 0 } else { rules.holes };
    (first..first + rules.holes)
        .any(|start| board[start] > 0 && matches!(sow(rules, board, side, start), Sown::Done(..)))
}

/// One move as the check sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    /// A move that leaves the layer (a capture, a game end): its worth to the mover.
    Exit(i32),
    /// A quiet move or a pass, to the position of this index (other side to move): worth
    /// minus its value.
    Quiet(u64),
}

/// The moves of a position: at most one a hole, or one pass, or one game end.
struct Moves {
    edges: [Edge; MAX_TABLE_HOLES],
    len: usize,
}

impl Moves {
    fn as_slice(&self) -> &[Edge] {
        &self.edges[..self.len]
    }
}

/// One layer under check, with the smaller layers its captures lead to.
struct LayerGraph<'a> {
    rules: Rules,
    layer: &'a Layer,
    seeds: usize,
    index: Index,
    values: Values<'a>,
    /// `smaller[m]`: the index and values of layer `m < seeds`, where the tables hold it.
    smaller: Vec<Option<(Index, Values<'a>)>>,
}

impl<'a> LayerGraph<'a> {
    fn new(tables: &'a Tables, rules: &Rules, layer: &'a Layer) -> Result<Self, CheckError> {
        let sides = layer.sides();
        let too_large = |seeds: usize| CheckError::Table {
            path: layer.path().to_path_buf(),
            problem: format!("the layer of {seeds} seeds is too large to index"),
        };
        let seeds = layer.seeds();
        let index = Index::new(rules.holes, seeds, sides).ok_or_else(|| too_large(seeds))?;
        if index.count() != layer.positions() {
            return Err(CheckError::Table {
                path: layer.path().to_path_buf(),
                problem: format!(
                    "{} positions in the file, {} boards of {seeds} seeds",
                    layer.positions(),
                    index.count()
                ),
            });
        }
        let mut smaller = Vec::new();
        for m in 0..seeds {
            smaller.push(match tables.layer(m) {
                Some(l) => Some((
                    Index::new(rules.holes, m, sides).ok_or_else(|| too_large(m))?,
                    Values::of(l),
                )),
                None => None,
            });
        }
        Ok(LayerGraph {
            rules: *rules,
            layer,
            seeds,
            index,
            values: Values::of(layer),
            smaller,
        })
    }

    /// The moves of `board` with `side` to move.
    fn moves(&self, board: &Board, side: Side) -> Result<Moves, CheckError> {
        let rules = &self.rules;
        let mut out = Moves {
            edges: [Edge::Exit(0); MAX_TABLE_HOLES],
            len: 0,
        };
        let first = if side == Side::South { 0 } else { rules.holes };
        for start in first..first + rules.holes {
            if board[start] == 0 {
                continue;
            }
            let edge = match sow(rules, board, side, start) {
                Sown::Endless => continue,
                Sown::Done(next, 0) => Edge::Quiet(self.index.index(&next, side.other())),
                Sown::Done(next, captured) => {
                    let left = self.seeds - captured as usize;
                    let gain = captured as i32;
                    if left <= 4 {
                        let award = if rules.last_four_to(side) == side {
                            left as i32
                        } else {
                            -(left as i32)
                        };
                        Edge::Exit(gain + award)
                    } else {
                        Edge::Exit(gain + self.smaller_value(&next, side, left)?)
                    }
                }
            };
            out.edges[out.len] = edge;
            out.len += 1;
        }
        if out.len == 0 {
            out.edges[0] = if can_move(rules, board, side.other()) {
                Edge::Quiet(self.index.index(board, side.other()))
            } else {
                Edge::Exit(0)
            };
            out.len = 1;
        }
        Ok(out)
    }

    /// The stored value of `board` (`left` seeds) with `side` to move, from a smaller layer.
    fn smaller_value(&self, board: &Board, side: Side, left: usize) -> Result<i32, CheckError> {
        match self.smaller.get(left).and_then(|s| s.as_ref()) {
            Some((index, values)) => {
                let i = index.index(board, side);
                let code = values.code(i) as i32;
                let v = (code - values.offset) * values.step;
                if v.abs() > left as i32 {
                    let position = to_position(&self.rules, board, side);
                    return Err(CheckError::Table {
                        path: self.layer.path().to_path_buf(),
                        problem: format!(
                            "a capture leads to {position}, whose value code {code} in the \
                             layer of {left} seeds is out of range"
                        ),
                    });
                }
                Ok(v)
            }
            None => Err(CheckError::Table {
                path: self.layer.path().to_path_buf(),
                problem: format!(
                    "a capture leads to {}, in the layer of {left} seeds, which is not open",
                    to_position(&self.rules, board, side)
                ),
            }),
        }
    }

    #[inline]
    fn worth(&self, e: Edge) -> i32 {
        match e {
            Edge::Exit(x) => x,
            Edge::Quiet(c) => -self.values.value(c),
        }
    }

    /// Whether a position of value `v` with `moves` is grounded, given the bits so far.
    #[inline]
    fn grounded(&self, done: &Bits, v: i32, moves: &[Edge]) -> bool {
        if v > 0 {
            moves.iter().any(|&e| match e {
                Edge::Exit(x) => x == v,
                Edge::Quiet(c) => self.values.value(c) == -v && done.get(c),
            })
        } else if v < 0 {
            moves.iter().all(|&e| match e {
                Edge::Exit(_) => true,
                Edge::Quiet(c) => done.get(c),
            })
        } else {
            true
        }
    }

    fn failure(&self, index: u64, fault: ValueFault, count: u64) -> CheckError {
        let (board, side) = self.index.position(index);
        CheckError::WrongValue(Box::new(ValueFailure {
            path: self.layer.path().to_path_buf(),
            seeds: self.seeds,
            index,
            position: to_position(&self.rules, &board, side),
            stored: self.values.value(index),
            fault,
            count,
        }))
    }

    /// Checks the layer: pass 1 over every position, then passes over the positions still
    /// open until one grounds nothing, in segments between which `kept` may save the state
    /// and the check may stop (resumed from a partial state kept by an earlier run).
    fn verify(&self, progress: &dyn Progress, kept: &Kept) -> Result<LayerReport, CheckError> {
        let started = Instant::now();
        let n = self.index.count();
        let chunks = n.div_ceil(CHUNK);
        let codes = self.layer.histogram().len();
        let (mut s, done) = match kept.partial()? {
            Some((s, words)) if s.histogram.len() == codes => (s, Bits::from_words(words)),
            _ => (Standing::new(codes), Bits::new(n)),
        };
        let resume = kept.resume();
        let mut saved = Instant::now();
        let pass_size = |s: &Standing| if s.pass == 1 { n } else { s.open };
        progress.pass_start(self.seeds, s.pass, pass_size(&s));
        if s.next_chunk > 0 {
            progress.advance(if s.pass == 1 {
                (s.next_chunk * CHUNK).min(n)
            } else {
                s.pass_visited
            });
        }
        loop {
            if s.next_chunk < chunks {
                let segment = s.next_chunk..(s.next_chunk + SEGMENT).min(chunks);
                s.next_chunk = segment.end;
                if s.pass == 1 {
                    self.first_segment(&done, segment, progress)?.add_to(&mut s);
                } else {
                    let (grounded, visited) =
                        self.open_segment(&done, s.pass, segment, progress)?;
                    s.pass_grounded += grounded;
                    s.pass_visited += visited;
                }
            }
            if s.next_chunk == chunks {
                // The pass is over.
                let grounded = if s.pass == 1 {
                    self.check_first(&s)?;
                    s.open = s.nonzero - s.first_grounded;
                    s.open_after_first = s.open;
                    s.evaluations = n;
                    s.first_grounded
                } else {
                    s.evaluations += s.pass_visited;
                    s.open -= s.pass_grounded;
                    s.pass_grounded
                };
                progress.pass_end(self.seeds, s.pass, grounded, s.open);
                if s.open == 0 || (s.pass > 1 && grounded == 0) {
                    break;
                }
                s.pass += 1;
                s.next_chunk = 0;
                s.pass_grounded = 0;
                s.pass_visited = 0;
                progress.pass_start(self.seeds, s.pass, pass_size(&s));
            }
            let stop = resume.must_stop();
            if stop || resume.save_every.is_some_and(|e| saved.elapsed() >= e) {
                let mut now = s.clone();
                now.seconds += started.elapsed().as_secs_f64();
                kept.save_partial(&now, &done.words())?;
                saved = Instant::now();
            }
            if stop {
                let through = if s.pass == 1 {
                    (s.next_chunk * CHUNK).min(n)
                } else {
                    s.pass_visited
                };
                return Err(CheckError::Stopped {
                    seeds: self.seeds,
                    pass: s.pass,
                    visited: through,
                    of: pass_size(&s),
                    state: kept.partial_path(),
                });
            }
        }
        if s.open > 0 {
            let at = (0..n).find(|&i| !done.get(i)).unwrap_or(0);
            return Err(self.failure(at, ValueFault::NotForced, s.open));
        }
        Ok(LayerReport {
            seeds: self.seeds,
            positions: n,
            nonzero: s.nonzero,
            open_after_first: s.open_after_first,
            passes: s.pass,
            evaluations: s.evaluations,
            payload_checksum: self.layer.payload_checksum(),
            seconds: s.seconds + started.elapsed().as_secs_f64(),
            earlier: false,
        })
    }

    /// Pass 1 over the chunks of `segment`, in index order: each value in range and the
    /// best over its moves, counted by value, and marked in `done` where already shown
    /// forced.
    fn first_segment(
        &self,
        done: &Bits,
        segment: std::ops::Range<u64>,
        progress: &dyn Progress,
    ) -> Result<FirstPass, CheckError> {
        let n = self.index.count();
        let range = self.seeds as i32;
        let codes = self.layer.histogram().len();
        segment
            .into_par_iter()
            .map(|c| -> Result<FirstPass, CheckError> {
                let mut s = FirstPass::new(codes);
                for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                    let code = self.values.code(i) as usize;
                    if code >= codes {
                        s.fault(Fault::Range, i);
                        continue;
                    }
                    s.histogram[code] += 1;
                    let v = self.values.value(i);
                    if v.abs() > range {
                        s.fault(Fault::Range, i);
                        continue;
                    }
                    let (board, side) = self.index.position(i);
                    let moves = self.moves(&board, side)?;
                    let moves = moves.as_slice();
                    let best = moves.iter().map(|&e| self.worth(e)).max().unwrap_or(0);
                    if best != v {
                        s.fault(Fault::Moves, i);
                    }
                    if v != 0 {
                        s.nonzero += 1;
                    }
                    if self.grounded(done, v, moves) {
                        done.set(i);
                        if v != 0 {
                            s.grounded += 1;
                        }
                    }
                }
                progress.advance(((c + 1) * CHUNK).min(n) - c * CHUNK);
                Ok(s)
            })
            .try_reduce(|| FirstPass::new(codes), |a, b| Ok(a.merge(b)))
    }

    /// The faults of the first pass, the first one named, and the header's histogram
    /// against the values counted.
    fn check_first(&self, first: &Standing) -> Result<(), CheckError> {
        for (fault, (count, at)) in [(Fault::Range, first.range), (Fault::Moves, first.moves)] {
            if count > 0 {
                let fault = match fault {
                    Fault::Range => ValueFault::OutOfRange,
                    Fault::Moves => {
                        let (board, side) = self.index.position(at);
                        let moves = self.moves(&board, side)?;
                        let expected = moves
                            .as_slice()
                            .iter()
                            .map(|&e| self.worth(e))
                            .max()
                            .unwrap_or(0);
                        ValueFault::Moves { expected }
                    }
                };
                return Err(self.failure(at, fault, count));
            }
        }
        for (code, (&stored, &counted)) in self
            .layer
            .histogram()
            .iter()
            .zip(&first.histogram)
            .enumerate()
        {
            if stored != counted {
                let value = (code as i32 - self.values.offset) * self.values.step;
                return Err(CheckError::Table {
                    path: self.layer.path().to_path_buf(),
                    problem: format!(
                        "the header's histogram gives {stored} positions of value {value}, \
                         the values {counted}"
                    ),
                });
            }
        }
        Ok(())
    }

    /// A later pass over the chunks of `segment`: the positions still open (not in
    /// `done`), every other pass backwards, marked where now shown forced. Returns the
    /// positions marked and those visited.
    fn open_segment(
        &self,
        done: &Bits,
        pass: u32,
        segment: std::ops::Range<u64>,
        progress: &dyn Progress,
    ) -> Result<(u64, u64), CheckError> {
        let n = self.index.count();
        let backwards = pass & 1 == 0;
        let visited = AtomicU64::new(0);
        let grounded = segment
            .into_par_iter()
            .map(|c| -> Result<u64, CheckError> {
                let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                let (mut seen, mut g) = (0u64, 0u64);
                let mut visit = |i: u64| -> Result<(), CheckError> {
                    if done.get(i) {
                        return Ok(());
                    }
                    seen += 1;
                    let (board, side) = self.index.position(i);
                    let moves = self.moves(&board, side)?;
                    if self.grounded(done, self.values.value(i), moves.as_slice()) {
                        done.set(i);
                        g += 1;
                    }
                    Ok(())
                };
                if backwards {
                    for i in (lo..hi).rev() {
                        visit(i)?;
                    }
                } else {
                    for i in lo..hi {
                        visit(i)?;
                    }
                }
                visited.fetch_add(seen, Relaxed);
                progress.advance(seen);
                Ok(g)
            })
            .try_reduce(|| 0, |a, b| Ok(a + b))?;
        Ok((grounded, visited.into_inner()))
    }
}

/// The checker's position of an absolute board.
fn to_position(rules: &Rules, board: &Board, side: Side) -> Position {
    Position {
        board: board[..2 * rules.holes].to_vec(),
        side,
    }
}

#[derive(Clone, Copy)]
enum Fault {
    Range,
    Moves,
}

/// The counts of the first pass over some positions.
struct FirstPass {
    histogram: Vec<u64>,
    nonzero: u64,
    grounded: u64,
    /// Positions out of range, and the first of them.
    range: (u64, u64),
    /// Positions against their moves, and the first of them.
    moves: (u64, u64),
}

impl FirstPass {
    fn new(codes: usize) -> FirstPass {
        FirstPass {
            histogram: vec![0; codes],
            nonzero: 0,
            grounded: 0,
            range: (0, u64::MAX),
            moves: (0, u64::MAX),
        }
    }

    fn fault(&mut self, kind: Fault, i: u64) {
        let slot = match kind {
            Fault::Range => &mut self.range,
            Fault::Moves => &mut self.moves,
        };
        slot.0 += 1;
        slot.1 = slot.1.min(i);
    }

    /// Adds these counts to where the check stands.
    fn add_to(self, s: &mut Standing) {
        for (a, b) in s.histogram.iter_mut().zip(&self.histogram) {
            *a += b;
        }
        s.nonzero += self.nonzero;
        s.first_grounded += self.grounded;
        for (a, b) in [(&mut s.range, self.range), (&mut s.moves, self.moves)] {
            a.0 += b.0;
            a.1 = a.1.min(b.1);
        }
    }

    fn merge(mut self, other: FirstPass) -> FirstPass {
        for (a, b) in self.histogram.iter_mut().zip(&other.histogram) {
            *a += b;
        }
        self.nonzero += other.nonzero;
        self.grounded += other.grounded;
        for (a, b) in [
            (&mut self.range, other.range),
            (&mut self.moves, other.moves),
        ] {
            a.0 += b.0;
            a.1 = a.1.min(b.1);
        }
        self
    }
}

/// One bit a position, set at most once, by any thread.
struct Bits(Vec<AtomicU64>);

impl Bits {
    fn new(n: u64) -> Bits {
        Bits((0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }
    fn from_words(words: Vec<u64>) -> Bits {
        Bits(words.into_iter().map(AtomicU64::new).collect())
    }
    /// The bits as words (read while no thread sets any).
    fn words(&self) -> Vec<u64> {
        self.0.iter().map(|w| w.load(Relaxed)).collect()
    }
    #[inline]
    fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize].load(Relaxed) & (1 << (i % 64)) != 0
    }
    #[inline]
    fn set(&self, i: u64) {
        self.0[(i / 64) as usize].fetch_or(1 << (i % 64), Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::LastFour;
    use crate::tables::rank;

    fn rules(holes: usize, variant: Variant, capture_side: CaptureSide) -> Rules {
        Rules {
            holes,
            variant,
            last_four: LastFour::Capturer,
            capture_side,
        }
    }

    #[test]
    fn the_index_agrees_with_the_rank_and_inverts() {
        for (holes, seeds, sides) in [(2, 5, 1), (3, 8, 2), (6, 5, 1), (4, 9, 2)] {
            let index = Index::new(holes, seeds, sides).unwrap();
            for i in 0..index.count() {
                let (board, side) = index.position(i);
                let k = 2 * holes;
                assert_eq!(board[..k].iter().map(|&s| s as usize).sum::<usize>(), seeds);
                assert_eq!(index.index(&board, side), i);
                let shift = if side == Side::South { 0 } else { holes };
                let view: Vec<u8> = (0..k).map(|h| board[(h + shift) % k]).collect();
                assert_eq!(rank(&view), i % index.per_side);
            }
        }
    }

    /// The array sowing agrees with the plain rules on every move of every board of some
    /// small layers, both variants and both capture sides.
    #[test]
    fn sowing_agrees_with_the_plain_rules() {
        for r in [
            rules(6, Variant::Hoyito2, CaptureSide::Any),
            rules(6, Variant::Hoyito3, CaptureSide::Opponent),
            rules(3, Variant::Hoyito2, CaptureSide::Opponent),
            rules(2, Variant::Hoyito3, CaptureSide::Any),
        ] {
            let seeds = if r.holes == 6 { 7 } else { 13 };
            let index = Index::new(r.holes, seeds, 2).unwrap();
            for i in 0..index.count() {
                let (board, side) = index.position(i);
                let p = to_position(&r, &board, side);
                for hole in 1..=r.holes {
                    let start = Position::index_of(&r, side, hole);
                    let plain = p.play(&r, hole);
                    if board[start] == 0 {
                        assert!(plain.is_err());
                        continue;
                    }
                    match (sow(&r, &board, side, start), plain) {
                        (Sown::Endless, Err(crate::rules::Illegal::Endless)) => {}
                        (Sown::Done(next, captured), Ok(played)) => {
                            assert_eq!(&next[..2 * r.holes], &played.next.board[..], "{p} {hole}");
                            assert_eq!(captured, played.captured, "{p} {hole}");
                        }
                        _ => panic!("{p} move {hole}: the sowings disagree"),
                    }
                }
                assert_eq!(can_move(&r, &board, side), p.can_move(&r));
            }
        }
    }
}
