//! Building layers: the bound iteration of the project's `docs/tables.md`, driven layer by layer.
//!
//! A layer is swept ([`sweep`]) until nothing changes, or, with rounds, until the sweep that
//! writes its moves reversed to scratch files ([`scratch`]); rounds ([`rounds`]) then
//! evaluate only the predecessors of positions that changed. Both apply the bound operator
//! of [`operator`] to the working bytes of [`work`].

#[cfg(feature = "mpi")]
mod distributed;
mod operator;
mod order;
mod rounds;
mod scratch;
mod sweep;
mod work;

use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::time::Instant;

use hoyito_rules::Rules;

use crate::error::{io, Inconsistency, TableError, Unsupported};
use crate::format::{
    file_name, key_dir, layers_up_to, step_of, write_layer, BuildCounts, Layer, TableKey,
};
use crate::index::Layout;
use operator::Ctx;
use scratch::{MoveIndex, MoveSink, ScratchDir};
use work::{Cells, Packing, MAX_BOUND};

#[cfg(feature = "mpi")]
pub use distributed::{build_distributed, ExchangeStats, MpiOptions};

/// What the build reports as it goes. Every method has an empty default.
pub trait Progress: Sync {
    /// A layer starts: its seeds and positions.
    fn layer_start(&self, _seeds: usize, _positions: u64) {}
    /// How the layer will be built: with `rounds`, the second sweep writes the layer's
    /// moves to scratch files (see [`Method::Auto`]).
    fn layer_plan(&self, _seeds: usize, _positions: u64, _rounds: bool) {}
    /// A sweep over the layer starts (1-based).
    fn sweep_start(&self, _seeds: usize, _sweep: u32) {}
    /// `positions` more positions of the current sweep are done.
    fn advance(&self, _positions: u64) {}
    /// A sweep ended: `evaluated` positions were not final yet and had their moves
    /// generated, `changed` of them got a better bound.
    fn sweep_end(&self, _seeds: usize, _sweep: u32, _evaluated: u64, _changed: u64) {}
    /// A round ended (see [`Method::Auto`]): `evaluated` positions had a successor that
    /// changed, `changed` of them got a better bound.
    fn round_end(&self, _seeds: usize, _round: u32, _evaluated: u64, _changed: u64) {}
    /// A scratch file of layer `seeds` was found damaged (`path`): the layer is built again
    /// from the start.
    fn scratch_damaged(&self, _seeds: usize, _path: &Path) {}
    /// A layer is finished (or was already there when `stats.reused`).
    fn layer_done(&self, _stats: &LayerStats) {}
    /// Whether the build should stop (Ctrl-C): polled between pieces of a sweep, between
    /// sweeps and rounds and before each layer (by [`build`] and [`build_with`]; a build over
    /// MPI, whose processes must agree on when to stop, does not poll it). The build then returns
    /// [`TableError::Interrupted`]: the finished layers stay, the unfinished one is not
    /// written and its scratch files are removed.
    fn stopped(&self) -> bool {
        false
    }
}

/// A [`Progress`] that reports nothing.
pub struct Quiet;
impl Progress for Quiet {}

/// Figures of one layer's build.
#[derive(Clone, Debug)]
pub struct LayerStats {
    /// Seeds on the board.
    pub seeds: usize,
    /// Positions stored.
    pub positions: u64,
    /// Sweeps over the whole layer (without rounds, the last one changes nothing).
    pub sweeps: u32,
    /// Rounds over the predecessors of changed positions (the last one changes nothing).
    pub rounds: u32,
    /// Wall time of the build of this layer, writing included.
    pub seconds: f64,
    /// Bytes of the layer's file.
    pub file_bytes: u64,
    /// Bytes of memory the working array of the layer takes (one a position).
    pub working_bytes: u64,
    /// Positions whose moves were generated, over all sweeps and rounds.
    pub evaluations: u64,
    /// Bytes of scratch files of reversed moves the build wrote (0 without rounds).
    pub scratch_bytes: u64,
    /// Reversed moves the rounds read (0 without rounds).
    pub scratch_moves: u64,
    /// Whether the layer was already built (found complete and valid) and not rebuilt.
    pub reused: bool,
    /// Bytes of memory the build of the layer was estimated to take at its peak before it
    /// started ([`layer_memory`]; 0 when reused).
    pub memory_estimate: u64,
}

/// How a layer's fixpoint is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Sweep the whole layer until a sweep changes nothing: one byte a position and nothing
    /// else.
    Sweeps,
    /// Sweep once; then, in the second sweep, also write every quiet move between
    /// positions that are not final, reversed, to scratch files beside the tables, and go on
    /// in *rounds* that evaluate only the predecessors of positions that changed. Layers
    /// with more than 2^35 positions (over 36 seeds on 2x6) use sweeps only; so do small
    /// layers (under 2^20 positions), where sweeps cost less than the files. A build in
    /// memory ([`build_in_memory`](crate::build_in_memory)) keeps the moves in memory and
    /// goes on in rounds whatever the layer's size.
    Auto,
    /// Like `Auto`, writing the moves in the given sweep (at least 1) whatever the layer's size
    /// (the CLI's `--moves-at-sweep`).
    MovesAtSweep(u32),
}

/// Options of a build.
#[derive(Clone, Copy, Debug)]
pub struct BuildOptions {
    /// How each layer's fixpoint is reached.
    pub method: Method,
    /// Most bytes of memory a layer's build may take ([`layer_memory`]): a layer planned in
    /// rounds whose estimate is over it is swept instead when that fits, else the build
    /// stops with [`Unsupported::LayerMemory`] before the layer starts. `None`: no limit.
    pub max_memory: Option<u64>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            method: Method::Auto,
            max_memory: None,
        }
    }
}

/// Moves the sweep of a layer of `count` positions writes for its rounds, about, with some
/// margin: 2.5 a position (measured on 2x6: 2.1 to 2.3 up to 20 seeds in both variants, 1.9
/// at 24 and 1.8 at 28 in Hoyito II).
fn moves_estimate(count: u64) -> u64 {
    count.saturating_mul(5) / 2
}

/// Bytes of the write buffer of a move file.
const MOVE_BUFFER: u64 = 1 << 16;

/// Bytes the build of a layer of `count` positions takes at its peak, estimated: the working
/// byte of each position, the smaller layers it reads (`lower_bytes`, as loaded) and, with
/// `rounds`, what the rounds add. On files: the block index and bitmaps (under 0.02 byte a
/// position), the write buffers of the move files and the move files being sorted, one per
/// thread (of `threads`), counted three times; in memory (`in_memory`), the moves
/// themselves, 8 bytes each. Without rounds, three bitmaps of blocks only. To that sum it
/// adds a tenth, and 16 MiB for the program itself and the long-sowing cache of the rules
/// crate (process-wide, at most about 200 MB, far less in these builds). Against the peak resident memory measured by
/// `solve tables build` (Hoyito II, 2x6): see the project's `docs/robustness.md` ("Faults
/// during long work").
pub fn layer_memory(
    count: u64,
    lower_bytes: u64,
    rounds: bool,
    in_memory: bool,
    threads: u64,
) -> u64 {
    let blocks = 3 * count.div_ceil(8 * work::BLOCK);
    let base = count + lower_bytes + blocks;
    let moves = moves_estimate(count);
    // The block index and the blocks' checksums, 4 bytes each.
    let index = 8 * count.div_ceil(work::BLOCK);
    let files = count
        .div_ceil(AUTO_FILE_POSITIONS)
        .clamp(1, scratch::MAX_MOVE_FILES);
    let arrays = match (rounds, in_memory) {
        (false, _) => base,
        (true, true) => base + index + 8 * moves,
        (true, false) => {
            // A move file being sorted, three times: measured up to 16 seeds, each thread
            // added two to three files' bytes to the peak while the vector grew as the file
            // was read; it is now allocated at its size, and the margin is kept.
            let sorting = threads.clamp(1, files) * 3 * 8 * moves.div_ceil(files);
            base + index + files * MOVE_BUFFER + sorting
        }
    };
    arrays + arrays / 10 + PROCESS_BYTES
}

/// Bytes of scratch disk the rounds of a layer of `count` positions take at their peak,
/// estimated with some margin: 2.5 moves a position (`moves_estimate`), each coded in
/// `log2(count) + 2` bits (measured: `log2(count) + 0.2` bits at 20 and 28 seeds; see the
/// module `scratch`).
pub fn scratch_estimate(count: u64) -> u64 {
    let bits = 64 - count.leading_zeros() as u64 + 2;
    moves_estimate(count).saturating_mul(bits) / 8
}

/// Memory of the program itself, its buffers and the long-sowing cache, in the estimate of
/// [`layer_memory`].
const PROCESS_BYTES: u64 = 16 << 20;

/// Layers smaller than this are swept to the end under [`Method::Auto`] when the moves go
/// to files. Moves kept in memory cost no file, and rounds pay from the smallest layer (8
/// seeds: 0.08 s against 0.13 s of sweeps, best of three).
const AUTO_MIN_POSITIONS: u64 = 1 << 20;

/// Successors a move file holds, about: large files under [`Method::Auto`] (and as large
/// vectors in memory: buckets of 2^16 successors took 35 MB against 27 MB up to 12 seeds,
/// for no gain in time); many small ones under [`Method::MovesAtSweep`] (for tests, to exercise
/// the index).
const AUTO_FILE_POSITIONS: u64 = 1 << 20;
const TEST_FILE_POSITIONS: u64 = 1 << 12;

/// Successors a move file holds under `method` (see [`AUTO_FILE_POSITIONS`]).
fn file_positions(method: Method) -> u64 {
    match method {
        Method::MovesAtSweep(_) => TEST_FILE_POSITIONS,
        _ => AUTO_FILE_POSITIONS,
    }
}

/// Builds every layer up to `max_seeds` seeds for `rules` under `dir` (in the rules' own
/// folder), smallest first. Layers whose files are already there and valid are kept, so a
/// stopped build resumes at the first missing layer; a corrupt or mismatched file is an error
/// (it is not overwritten, so that damage is not hidden).
pub fn build(
    dir: &Path,
    rules: &Rules,
    max_seeds: usize,
    progress: &dyn Progress,
) -> Result<Vec<LayerStats>, TableError> {
    build_with(dir, rules, max_seeds, &BuildOptions::default(), progress)
}

/// [`build`] with options.
pub fn build_with(
    dir: &Path,
    rules: &Rules,
    max_seeds: usize,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<Vec<LayerStats>, TableError> {
    let key = TableKey::of(rules);
    check_buildable(&key, max_seeds)?;
    let folder = key_dir(dir, &key);
    std::fs::create_dir_all(&folder).map_err(io(&folder))?;
    let mut lower: Vec<Option<Layer>> = (0..=max_seeds).map(|_| None).collect();
    let mut stats = Vec::new();
    for n in layers_up_to(max_seeds) {
        let path = folder.join(file_name(n));
        if progress.stopped() && !path.exists() {
            return Err(TableError::Interrupted { seeds: n });
        }
        let (layer, s) = if path.exists() {
            let layer = Layer::read(&path, &key, n)?;
            let s = LayerStats::reused(&layer);
            (layer, s)
        } else {
            let s = solve_layer_retrying(&key, n, &lower, options, &path, progress)?;
            (Layer::read(&path, &key, n)?, s)
        };
        progress.layer_done(&s);
        stats.push(s);
        lower[n] = Some(layer);
    }
    Ok(stats)
}

/// Solves layer `n` and writes it at `path`, its scratch moves beside it. A scratch file
/// found damaged (its checksums or its counts: see the module `scratch`) is never read into
/// a value: the layer is built again from the start, once; damaged a second time, the
/// build stops with the error.
fn solve_layer_retrying(
    key: &TableKey,
    n: usize,
    lower: &[Option<Layer>],
    options: &BuildOptions,
    path: &Path,
    progress: &dyn Progress,
) -> Result<LayerStats, TableError> {
    let scratch = ScratchDir::new(path)?;
    let moves_dir = path.with_extension("moves");
    match solve_layer(key, n, lower, options, scratch, progress) {
        Err(TableError::Corrupt { path: bad, .. }) if bad.starts_with(&moves_dir) => {
            progress.scratch_damaged(n, &bad);
            let scratch = ScratchDir::new(path)?;
            solve_layer(key, n, lower, options, scratch, progress)?.write(path)
        }
        solved => solved?.write(path),
    }
}

/// One forward sweep over layer `seeds` of `rules`, the smaller layers read from their
/// files under `dir`: every position's moves generated and every successor's byte (and
/// every capture's value) read, in index order, on all of rayon's threads; the first sweep
/// of a build, writing nothing. The yardstick of a build's time (`build / sweep`): see the
/// example `tables_ratio` of the benchmarks. Returns the seconds it took, the smaller
/// layers' reading not counted, and the positions evaluated.
pub fn sweep_once(dir: &Path, rules: &Rules, seeds: usize) -> Result<(f64, u64), TableError> {
    let key = TableKey::of(rules);
    check_buildable(&key, seeds)?;
    let folder = key_dir(dir, &key);
    let mut lower: Vec<Option<Layer>> = (0..=seeds).map(|_| None).collect();
    for n in layers_up_to(seeds).into_iter().filter(|&n| n < seeds) {
        lower[n] = Some(Layer::read(&folder.join(file_name(n)), &key, n)?);
    }
    let (rules, layout) = layer_setup(&key, seeds, &lower)?;
    let mut bytes = work::alloc(layout.count())?;
    let work = work::atomic(&mut bytes);
    let ctx = Ctx::new(
        rules,
        &layout,
        step_of(seeds) as i32,
        Cells::whole(work),
        &lower,
    );
    let t0 = Instant::now();
    let (evaluated, _) = ctx.sweep(Packing::new(seeds / step_of(seeds)), None, &Quiet);
    let seconds = t0.elapsed().as_secs_f64();
    ctx.check_exits()?;
    Ok((seconds, evaluated))
}

/// Solves the layer of `n` seeds in memory, the smaller ones given in `lower`: no file is
/// read or written (the moves of rounds are kept in memory).
pub(crate) fn solve_layer_in_memory(
    key: &TableKey,
    n: usize,
    lower: &[Option<Layer>],
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<(Layer, LayerStats), TableError> {
    solve_layer(key, n, lower, options, ScratchDir::memory(), progress)?.into_layer()
}

pub(crate) fn check_buildable(key: &TableKey, max_seeds: usize) -> Result<(), TableError> {
    let rules = key.build_rules()?;
    let unsupported = |what| Err(TableError::Unsupported(what));
    if key.holes > 6 {
        return unsupported(Unsupported::Board { holes: key.holes });
    }
    if max_seeds > rules.total_seeds() {
        return unsupported(Unsupported::Seeds {
            seeds: max_seeds,
            holes: key.holes,
        });
    }
    match layers_up_to(max_seeds)
        .into_iter()
        .find(|&n| n / step_of(n) > MAX_BOUND)
    {
        Some(seeds) => unsupported(Unsupported::Bounds { seeds }),
        None => Ok(()),
    }
}

impl LayerStats {
    /// The figures of a layer of `count` positions whose build starts.
    fn started(seeds: usize, count: u64) -> LayerStats {
        LayerStats {
            seeds,
            positions: count,
            sweeps: 0,
            rounds: 0,
            seconds: 0.0,
            file_bytes: 0,
            working_bytes: count,
            evaluations: 0,
            scratch_bytes: 0,
            scratch_moves: 0,
            reused: false,
            memory_estimate: 0,
        }
    }

    /// The figures of a layer found built, from its header.
    fn reused(layer: &Layer) -> LayerStats {
        let h = layer.header();
        LayerStats {
            seeds: layer.seeds(),
            positions: layer.layout().count(),
            sweeps: h.sweeps,
            rounds: h.rounds,
            seconds: h.build_millis as f64 / 1000.0,
            file_bytes: layer.file_bytes(),
            working_bytes: layer.layout().count(),
            evaluations: 0,
            scratch_bytes: 0,
            scratch_moves: 0,
            reused: true,
            memory_estimate: 0,
        }
    }
}

/// A layer solved in memory, at its fixpoint, not yet packed.
struct Solved {
    key: TableKey,
    layout: Layout,
    pk: Packing,
    /// The working bytes, one a position.
    bytes: Vec<u8>,
    histogram: Vec<u64>,
    stats: LayerStats,
    t0: Instant,
}

impl Solved {
    /// The counts for the header: the build's time so far.
    fn counts(&self) -> BuildCounts {
        BuildCounts {
            sweeps: self.stats.sweeps,
            rounds: self.stats.rounds,
            millis: self.t0.elapsed().as_millis() as u64,
        }
    }

    /// Writes the layer's file at `path` (the working bytes streamed into it, never a
    /// second copy in memory).
    fn write(self, path: &Path) -> Result<LayerStats, TableError> {
        let ((), stats) = self.pack(|key, layout, counts, histogram, pk, bytes| {
            write_layer(path, key, layout, counts, histogram, |i| {
                pk.code(bytes[i as usize])
            })?;
            let bytes = std::fs::metadata(path).map_err(io(path))?.len();
            Ok(((), bytes))
        })?;
        Ok(stats)
    }

    /// Packs the layer in memory, as it would read back from its file.
    fn into_layer(self) -> Result<(Layer, LayerStats), TableError> {
        self.pack(|key, layout, counts, histogram, pk, bytes| {
            let layer = Layer::from_codes(key, layout, counts, histogram, |i| {
                pk.code(bytes[i as usize])
            })?;
            let bytes = layer.file_bytes();
            Ok((layer, bytes))
        })
    }

    /// Hands the layer's header fields, packing and working bytes to `out` (a file or
    /// memory), which returns its result and the layer's size as a file; the stats get that
    /// size and the time.
    fn pack<T>(
        self,
        out: impl FnOnce(
            &TableKey,
            &Layout,
            BuildCounts,
            Vec<u64>,
            &Packing,
            &[u8],
        ) -> Result<(T, u64), TableError>,
    ) -> Result<(T, LayerStats), TableError> {
        let counts = self.counts();
        let Solved {
            key,
            layout,
            pk,
            bytes,
            histogram,
            mut stats,
            t0,
        } = self;
        let (value, file_bytes) = out(&key, &layout, counts, histogram, &pk, &bytes)?;
        stats.file_bytes = file_bytes;
        stats.seconds = t0.elapsed().as_secs_f64();
        Ok((value, stats))
    }
}

/// Solves layer `n`, reading smaller layers from `lower`: sweeps, then rounds if planned,
/// their moves in `scratch`. The one place a layer is computed, for files and memory.
fn solve_layer(
    key: &TableKey,
    n: usize,
    lower: &[Option<Layer>],
    options: &BuildOptions,
    scratch: ScratchDir,
    progress: &dyn Progress,
) -> Result<Solved, TableError> {
    let t0 = Instant::now();
    let (rules, layout) = layer_setup(key, n, lower)?;
    let count = layout.count();
    let step = step_of(n);
    let pk = Packing::new(n / step);
    let mut moves_at = moves_at_sweep(options.method, count, scratch.in_memory());
    let lower_bytes: u64 = lower.iter().flatten().map(Layer::file_bytes).sum();
    let threads = rayon::current_num_threads() as u64;
    let need = |rounds| layer_memory(count, lower_bytes, rounds, scratch.in_memory(), threads);
    let mut memory = need(moves_at.is_some());
    if let Some(limit) = options.max_memory.filter(|&l| memory > l) {
        if moves_at.is_some() && need(false) <= limit {
            // Sweeps to the end fit where rounds do not: slower, the same values.
            moves_at = None;
            memory = need(false);
        } else {
            return Err(TableError::Unsupported(Unsupported::LayerMemory {
                seeds: n,
                needed: need(false),
                limit,
            }));
        }
    }
    let mut bytes = work::alloc(count)?;
    let work = work::atomic(&mut bytes);
    let ctx = Ctx::new(rules, &layout, step as i32, Cells::whole(work), lower);
    // One process: the first round can skip what the sweep's order already passed on.
    ctx.order.keep();
    progress.layer_start(n, count);
    progress.layer_plan(n, count, moves_at.is_some());
    let mut stats = LayerStats::started(n, count);
    stats.memory_estimate = memory;
    let sweeps = SweepPlan {
        moves_at,
        scratch: &scratch,
        file_positions: file_positions(options.method),
    };
    if let Some(moves) = run_sweeps(&ctx, pk, &sweeps, progress, &mut stats)? {
        run_rounds(&ctx, pk, &moves, progress, &mut stats)?;
        drop(moves);
        scratch.remove()?;
    }
    let histogram = histogram(work, pk, n)?;
    drop(ctx);
    Ok(Solved {
        key: *key,
        layout,
        pk,
        bytes,
        histogram,
        stats,
        t0,
    })
}

/// The rules and index layout of layer `n`, once every smaller layer it can reach is in
/// `lower`: what every build of a layer (one process or several) starts from.
pub(super) fn layer_setup(
    key: &TableKey,
    n: usize,
    lower: &[Option<Layer>],
) -> Result<(Rules, Layout), TableError> {
    let rules = key.build_rules()?;
    let layout = Layout::new(key.holes, n, key.sides()).ok_or(TableError::Unsupported(
        Unsupported::LayerTooLarge { seeds: n },
    ))?;
    check_lower(n, lower)?;
    Ok((rules, layout))
}

/// An error unless every smaller layer that layer `n` can reach is in `lower`.
fn check_lower(n: usize, lower: &[Option<Layer>]) -> Result<(), TableError> {
    match layers_up_to(n)
        .into_iter()
        .find(|&m| m < n && !matches!(lower.get(m), Some(Some(_))))
    {
        Some(seeds) => Err(TableError::MissingLayer { seeds }),
        None => Ok(()),
    }
}

/// The sweep (1-based) that writes the moves to scratch files (or memory), if the layer
/// goes on in rounds: only where the indices fit a move record
/// ([`scratch::MAX_ROUND_POSITIONS`]).
fn moves_at_sweep(method: Method, count: u64, in_memory: bool) -> Option<u32> {
    let possible = count <= scratch::MAX_ROUND_POSITIONS;
    match method {
        Method::Sweeps => None,
        Method::Auto if !possible || (count < AUTO_MIN_POSITIONS && !in_memory) => None,
        // The first sweep finds most exits (and reads successors that are mostly not
        // final); later sweeps cost the whole layer while rounds cost little more than their
        // evaluations.
        Method::Auto => Some(2),
        Method::MovesAtSweep(k) => possible.then_some(k.max(1)),
    }
}

/// Where and when the sweeps write the moves.
struct SweepPlan<'a> {
    /// The sweep that writes them (none: sweep to the end).
    moves_at: Option<u32>,
    scratch: &'a ScratchDir,
    /// Successors a move file holds, about.
    file_positions: u64,
}

/// Sweeps the layer until a sweep changes nothing, or until the sweep that writes the
/// moves: then returns them, sorted and indexed, for the rounds.
fn run_sweeps(
    ctx: &Ctx,
    pk: Packing,
    plan: &SweepPlan,
    progress: &dyn Progress,
    stats: &mut LayerStats,
) -> Result<Option<MoveIndex>, TableError> {
    let (n, count) = (stats.seeds, stats.positions);
    loop {
        stats.sweeps += 1;
        progress.sweep_start(n, stats.sweeps);
        let sink = if plan.moves_at.is_some_and(|k| stats.sweeps >= k) {
            Some(MoveSink::create(plan.scratch, count, plan.file_positions)?)
        } else {
            None
        };
        let (evaluated, changed) = ctx.sweep(pk, sink.as_ref(), progress);
        if progress.stopped() {
            // The sweep skipped its remaining pieces; the sink and its files go.
            return Err(TableError::Interrupted { seeds: n });
        }
        progress.sweep_end(n, stats.sweeps, evaluated, changed);
        stats.evaluations += evaluated;
        ctx.check_exits()?;
        if let Some(sink) = sink {
            let moves = sink.finish(count)?;
            stats.scratch_bytes = moves.peak_bytes;
            stats.scratch_moves = moves.moves;
            return Ok(Some(moves));
        }
        if changed == 0 {
            return Ok(None);
        }
    }
}

/// Rounds until one changes nothing.
fn run_rounds(
    ctx: &Ctx,
    pk: Packing,
    moves: &MoveIndex,
    progress: &dyn Progress,
    stats: &mut LayerStats,
) -> Result<(), TableError> {
    ctx.start_rounds(pk);
    loop {
        stats.rounds += 1;
        if progress.stopped() {
            return Err(TableError::Interrupted { seeds: stats.seeds });
        }
        let (evaluated, changed) = ctx.round(pk, moves)?;
        progress.round_end(stats.seeds, stats.rounds, evaluated, changed);
        stats.evaluations += evaluated;
        ctx.check_exits()?;
        if changed == 0 {
            return Ok(());
        }
    }
}

/// Positions per stored code, once the bounds are at the fixpoint; an error if any
/// position has both sides winning.
fn histogram(work: &[AtomicU8], pk: Packing, seeds: usize) -> Result<Vec<u64>, TableError> {
    let (histogram, bad) = code_counts(work, pk);
    consistent(seeds, bad)?;
    Ok(histogram)
}

/// The positions of `work` of each stored code, and the number whose bounds are not
/// consistent ([`Packing::is_consistent`]).
fn code_counts(work: &[AtomicU8], pk: Packing) -> (Vec<u64>, u64) {
    let mut histogram = vec![0u64; 2 * pk.top as usize + 1];
    let mut bad = 0u64;
    for cell in work {
        let w = cell.load(Relaxed);
        bad += !pk.is_consistent(w) as u64;
        histogram[pk.code(w) as usize] += 1;
    }
    (histogram, bad)
}

/// An error if `bad` positions of layer `seeds` have bounds that are not consistent.
fn consistent(seeds: usize, bad: u64) -> Result<(), TableError> {
    if bad > 0 {
        return Err(TableError::Inconsistent(Inconsistency::BothSidesWin {
            seeds,
            positions: bad,
        }));
    }
    Ok(())
}
