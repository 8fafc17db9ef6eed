//! Building layers: the bound iteration of the crate documentation, with forward sweeps.

use std::fs::File;
use std::io::{BufWriter, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use hoyito_rules::{Position6, Rules, Side};
use rayon::prelude::*;

use crate::error::{io, TableError};
use crate::format::{bits_of, file_name, step_of, write_layer, BuildCounts, Layer, TableKey};
use crate::index::{Layout, MAX_BOARD};
use crate::mem::prefetch;

/// Positions a task sweeps in one piece (the unit of parallel work and of progress).
const CHUNK: u64 = 1 << 15;

/// Positions whose moves are generated before the first of them is evaluated in a sweep.
const LAG: usize = 8;

/// Largest bound a working byte holds in each of its two halves.
const MAX_BOUND: usize = 15;

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
    /// A layer is finished (or was already there when `stats.reused`).
    fn layer_done(&self, _stats: &LayerStats) {}
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
    /// Whether the layer was already built (found complete and valid) and not rebuilt.
    pub reused: bool,
}

/// The layers a build of up to `max_seeds` needs: `max_seeds`, `max_seeds - 4`, ... down to
/// the smallest above 4, in increasing order.
pub fn layers_up_to(max_seeds: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (5..=max_seeds).filter(|n| n % 4 == max_seeds % 4).collect();
    v.sort_unstable();
    v
}

/// The folder of a key's tables under `dir`.
pub fn key_dir(dir: &Path, key: &TableKey) -> std::path::PathBuf {
    dir.join(key.folder())
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
        if path.exists() {
            let layer = Layer::read(&path, &key, n)?;
            let s = LayerStats {
                seeds: n,
                positions: layer.layout().count(),
                sweeps: layer.header().sweeps,
                rounds: layer.header().rounds,
                seconds: layer.header().build_millis as f64 / 1000.0,
                file_bytes: layer.file_bytes(),
                working_bytes: layer.layout().count(),
                evaluations: 0,
                scratch_bytes: 0,
                reused: true,
            };
            progress.layer_done(&s);
            stats.push(s);
            lower[n] = Some(layer);
            continue;
        }
        let s = build_layer(&path, &key, n, &lower, options, progress)?;
        progress.layer_done(&s);
        stats.push(s);
        lower[n] = Some(Layer::read(&path, &key, n)?);
    }
    Ok(stats)
}

fn check_buildable(key: &TableKey, max_seeds: usize) -> Result<(), TableError> {
    let rules = key.build_rules()?;
    if key.holes > 6 {
        return Err(TableError::Unsupported(format!(
            "tables cover boards up to 2x6, not 2x{}",
            key.holes
        )));
    }
    if max_seeds > rules.total_seeds() {
        return Err(TableError::Unsupported(format!(
            "{max_seeds} seeds do not fit a 2x{} board",
            key.holes
        )));
    }
    for n in layers_up_to(max_seeds) {
        if n / step_of(n) > MAX_BOUND {
            return Err(TableError::Unsupported(format!(
                "the layer of {n} seeds has values beyond the {}-bit bounds",
                bits_of(n)
            )));
        }
    }
    Ok(())
}

/// The position of index `side`, `board` (mover's view) in absolute terms.
#[inline(always)]
pub(crate) fn position_of(
    rules: &Rules,
    holes: usize,
    side: usize,
    board: &[u8; MAX_BOARD],
) -> Position6 {
    let (first, second) = board[..2 * holes].split_at(holes);
    let (south, north, side) = if side == 0 {
        (first, second, Side::South)
    } else {
        (second, first, Side::North)
    };
    // The board fits the build rules (checked before the build), so this cannot fail.
    Position6::from_rows(rules, south, north, side, [0, 0]).unwrap_or_default()
}

/// The index of a position in `layout`, with its side to move.
#[inline(always)]
pub(crate) fn index_of(layout: &Layout, p: &Position6) -> u64 {
    let holes = layout.holes();
    let k = 2 * holes;
    let side = p.side_to_move().index();
    let mut board = [0u8; MAX_BOARD];
    let shift = side * holes;
    for (i, b) in board.iter_mut().enumerate().take(k) {
        let j = i + shift;
        *b = p.seeds(if j >= k { j - k } else { j });
    }
    let r = layout.rank(&board[..k]);
    if layout.sides() == 2 {
        side as u64 * layout.per_side() + r
    } else {
        r
    }
}

/// How bounds sit in a working byte: the mover's bound `lo` in the low `width` bits, the
/// opponent's `hi` above it, both in units of the value step. Where the bounds leave room
/// (at most 7, so 3 bits each: layers up to 28 seeds of 2x6), bit 6 marks a *final*
/// position during sweeps (its bounds are at the fixpoint) and a position *to evaluate*
/// during rounds, and bit 7 marks a position whose bounds rose (rounds only).
#[derive(Clone, Copy)]
struct Packing {
    width: u32,
    mask: u8,
    final_bit: u8,
    top: u8,
    spare: bool,
}

/// Bit 6 during rounds: a successor changed, evaluate the position.
const EVAL: u8 = 0x40;
/// Bit 7: the bounds rose in the last sweep or round.
const CHANGED: u8 = 0x80;

impl Packing {
    fn new(half: usize) -> Packing {
        if half <= 7 {
            Packing {
                width: 3,
                mask: 7,
                final_bit: 0x40,
                top: half as u8,
                spare: true,
            }
        } else {
            Packing {
                width: 4,
                mask: 15,
                final_bit: 0,
                top: half as u8,
                spare: false,
            }
        }
    }
    /// The same layout without the final bit (rounds use bit 6 for something else).
    fn without_final(self) -> Packing {
        Packing {
            final_bit: 0,
            ..self
        }
    }
    #[inline(always)]
    fn lo(self, w: u8) -> u8 {
        w & self.mask
    }
    #[inline(always)]
    fn hi(self, w: u8) -> u8 {
        (w >> self.width) & self.mask
    }
    #[inline(always)]
    fn bounds(self, w: u8) -> u8 {
        w & (self.mask | self.mask << self.width)
    }
    #[inline(always)]
    fn is_final(self, w: u8) -> bool {
        w & self.final_bit != 0
    }
    #[inline(always)]
    fn pack(self, lo: u8, hi: u8, is_final: bool) -> u8 {
        lo | hi << self.width | if is_final { self.final_bit } else { 0 }
    }
    /// The larger of two sets of bounds, half by half.
    #[inline(always)]
    fn merge(self, a: u8, b: u8) -> u8 {
        self.pack(
            self.lo(a).max(self.lo(b)),
            self.hi(a).max(self.hi(b)),
            false,
        )
    }
}

/// How a layer's fixpoint is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Sweep the whole layer until a sweep changes nothing: one byte a position and nothing
    /// else.
    Sweeps,
    /// Sweep once; then, in the second sweep, also write every quiet move between
    /// positions that are not final, reversed, to scratch files beside the tables, and go on
    /// in *rounds* that evaluate only the predecessors of positions that changed. Layers whose
    /// bounds leave no spare bits (over 28 seeds on 2x6) or with more than 2^32 positions use
    /// sweeps only; so do small layers, where sweeps are cheap.
    Auto,
    /// Like `Auto`, writing the moves in the given sweep (at least 1) whatever the layer's size.
    EdgesAt(u32),
}

/// Options of a build.
#[derive(Clone, Copy, Debug)]
pub struct BuildOptions {
    /// How each layer's fixpoint is reached.
    pub method: Method,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            method: Method::Auto,
        }
    }
}

/// Layers smaller than this are swept to the end under [`Method::Auto`].
const AUTO_MIN_POSITIONS: u64 = 1 << 20;

/// Everything one layer's build reads.
struct Ctx<'a> {
    rules: Rules,
    layout: &'a Layout,
    step: i32,
    work: &'a [AtomicU8],
    lower: &'a [Option<Layer>],
    missing: AtomicBool,
    /// One bit per block of [`MOVE_BLOCK`] positions: the block holds a position marked
    /// changed (set with the mark, in the sweep that writes moves and in rounds).
    changed_blocks: Blocks,
    /// The same for the changes of the round under way.
    next_changed: Blocks,
    /// One bit per block: the block holds a position marked to evaluate.
    eval_blocks: Blocks,
}

/// A bitmap of blocks of [`MOVE_BLOCK`] positions (a bit for every 256 positions), so that a
/// round visits only the parts of the layer where something happened.
struct Blocks(Vec<AtomicU64>);

impl Blocks {
    fn new(positions: u64) -> Blocks {
        let blocks = positions.div_ceil(MOVE_BLOCK);
        Blocks(
            (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        )
    }
    /// Marks the block of position `i`.
    #[inline(always)]
    fn mark(&self, i: u64) {
        let b = i / MOVE_BLOCK;
        let (word, bit) = (&self.0[(b / 64) as usize], 1u64 << (b % 64));
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }
    /// Whether block `b` is marked.
    #[inline(always)]
    fn get(&self, b: u64) -> bool {
        self.0[(b / 64) as usize].load(Relaxed) & 1 << (b % 64) != 0
    }
    fn clear(&self) {
        self.0.par_iter().for_each(|w| w.store(0, Relaxed));
    }
}

/// A position's moves, generated and with their successors' bytes prefetched, waiting to
/// be read: the first half of one application of the bound operator.
#[derive(Clone, Copy)]
struct Pending<'a> {
    /// Indices of the quiet successors in the layer being built (a pass included).
    quiet: [u64; MAX_SIDE],
    quiet_len: u8,
    /// Captures: the gain and the child's index in its (smaller) layer, if the game goes on.
    exits: [(i32, Option<&'a Layer>, u64); MAX_SIDE],
    exit_len: u8,
}

/// Most moves a position has (one per hole of a side).
const MAX_SIDE: usize = MAX_BOARD / 2;

impl<'a> Ctx<'a> {
    /// Generates the moves of `p` and starts loading every successor's byte, so that the
    /// cache misses overlap with other work until [`Ctx::resolve`] reads them.
    #[inline(always)]
    fn gather(&self, p: &Position6) -> Pending<'a> {
        let mut out = Pending {
            quiet: [0; MAX_SIDE],
            quiet_len: 0,
            exits: [(0, None, 0); MAX_SIDE],
            exit_len: 0,
        };
        let mut moved = false;
        p.for_each_child(&self.rules, |c| {
            moved = true;
            if c.extra_turn {
                let e = if c.ended_game {
                    (c.gain as i32, None, 0)
                } else {
                    let n = c.position.seeds_on_board() as usize;
                    match self.lower.get(n).and_then(|l| l.as_ref()) {
                        Some(l) => {
                            let i = index_of(l.layout(), &c.position);
                            l.prefetch(i);
                            (c.gain as i32, Some(l), i)
                        }
                        None => {
                            self.missing.store(true, Relaxed);
                            (c.gain as i32, None, 0)
                        }
                    }
                };
                out.exits[out.exit_len as usize] = e;
                out.exit_len += 1;
            } else {
                let j = index_of(self.layout, &c.position);
                prefetch(self.work, j as usize);
                out.quiet[out.quiet_len as usize] = j;
                out.quiet_len += 1;
            }
        });
        if !moved {
            // No legal move: the side passes, and the same board with the other side to
            // move is this position's only successor. If that side cannot move either, both
            // stay 0.
            let j = index_of(self.layout, &p.with_side_flipped());
            prefetch(self.work, j as usize);
            out.quiet[0] = j;
            out.quiet_len = 1;
        }
        out
    }

    /// Reads the successors gathered by [`Ctx::gather`]: one application of the bound
    /// operator (see the crate documentation). Returns the new bounds, marked final when they
    /// cannot rise any more: every quiet successor was final when read (exits never change),
    /// or a bound is the largest the layer allows. `edge` receives the index of every quiet
    /// successor that was not final.
    #[inline(always)]
    fn resolve(&self, pk: Packing, pending: &Pending, mut edge: impl FnMut(u64)) -> u8 {
        let mut lo = 0u8;
        let mut hi = u8::MAX;
        let mut all_final = true;
        for &(gain, layer, i) in &pending.exits[..pending.exit_len as usize] {
            let x = (gain + layer.map_or(0, |l| l.value(i))) / self.step;
            lo = lo.max(x.max(0) as u8);
            hi = hi.min((-x).max(0) as u8);
        }
        for &j in &pending.quiet[..pending.quiet_len as usize] {
            let w = self.work[j as usize].load(Relaxed);
            lo = lo.max(pk.hi(w));
            hi = hi.min(pk.lo(w));
            if !pk.is_final(w) {
                all_final = false;
                edge(j);
            }
        }
        let done = all_final || lo == pk.top || hi == pk.top;
        pk.pack(lo, hi, done)
    }

    /// Calls `f(chunk_start, chunk_end, side)` for every chunk of the layer, in parallel.
    fn chunks(&self, f: impl Fn(u64, u64, usize) + Sync + Send) {
        let per_side = self.layout.per_side();
        let chunks_per_side = per_side.div_ceil(CHUNK);
        (0..chunks_per_side * self.layout.sides() as u64)
            .into_par_iter()
            .for_each(|c| {
                let side = (c / chunks_per_side) as usize;
                let start = (c % chunks_per_side) * CHUNK;
                f(start, (start + CHUNK).min(per_side), side)
            });
    }

    /// Walks the positions in `ranges` (increasing) of one side of the layer, evaluating
    /// those that `select` picks (given the position's working byte): their moves are
    /// generated and their successors prefetched [`LAG`] positions before `finish` gets them,
    /// so that the cache misses overlap with the sowing. Steps from one picked position to
    /// the next when they are close, else ranks from scratch. Returns the number picked.
    fn walk(
        &self,
        ranges: impl IntoIterator<Item = std::ops::Range<u64>>,
        side: usize,
        mut select: impl FnMut(&AtomicU8) -> bool,
        mut finish: impl FnMut(u64, &Pending),
    ) -> u64 {
        let base = side as u64 * self.layout.per_side();
        let holes = self.layout.holes();
        let mut board = [0u8; MAX_BOARD];
        let mut at: Option<u64> = None;
        let mut ring: [(u64, Option<Pending>); LAG] = [(0, None); LAG];
        let mut slot = 0;
        let mut seen = 0;
        for r in ranges.into_iter().flatten() {
            let i = base + r;
            if !select(&self.work[i as usize]) {
                continue;
            }
            match at {
                Some(a) if r - a <= 64 => {
                    for _ in a..r {
                        self.layout.next(&mut board);
                    }
                }
                _ => self.layout.unrank(r, &mut board),
            }
            at = Some(r);
            seen += 1;
            let pending = self.gather(&position_of(&self.rules, holes, side, &board));
            if let (j, Some(waiting)) = &ring[slot] {
                finish(*j, waiting);
            }
            ring[slot] = (i, Some(pending));
            slot = (slot + 1) % LAG;
        }
        for k in 0..LAG {
            if let (j, Some(waiting)) = &ring[(slot + k) % LAG] {
                finish(*j, waiting);
            }
        }
        seen
    }

    /// Sweeps the whole layer once, in index order within each chunk, chunks in parallel,
    /// skipping final positions. With `sink`, also writes the reversed quiet moves of the
    /// positions evaluated and marks the positions that change. Returns the positions
    /// evaluated and those whose bounds rose.
    fn sweep(&self, pk: Packing, sink: Option<&EdgeSink>, progress: &dyn Progress) -> (u64, u64) {
        let changed = AtomicU64::new(0);
        let evaluated = AtomicU64::new(0);
        self.chunks(|start, end, side| {
            let mut local = 0u64;
            let mut edges: Vec<u64> = Vec::new();
            let seen = self.walk(
                std::iter::once(start..end),
                side,
                |cell| !pk.is_final(cell.load(Relaxed)),
                |i, pending| {
                    let cell = &self.work[i as usize];
                    let old = cell.load(Relaxed);
                    let new = if sink.is_some() {
                        self.resolve(pk, pending, |j| edges.push(j << 32 | i))
                    } else {
                        self.resolve(pk, pending, |_| {})
                    };
                    if new != old {
                        // Bounds only rise (the operator is monotone and starts at the
                        // bottom); the max keeps that true even against a stale read.
                        let merged = pk.merge(new, old);
                        let rose = merged != pk.bounds(old);
                        let mut w = merged | (new & pk.final_bit);
                        if rose {
                            local += 1;
                            if sink.is_some() {
                                w |= CHANGED;
                                self.changed_blocks.mark(i);
                            }
                        }
                        if w != old {
                            cell.store(w, Relaxed);
                        }
                    }
                },
            );
            if let Some(s) = sink {
                s.write(&mut edges);
            }
            changed.fetch_add(local, Relaxed);
            evaluated.fetch_add(seen, Relaxed);
            progress.advance(end - start);
        });
        (evaluated.into_inner(), changed.into_inner())
    }

    /// One round: mark the predecessors of changed positions (from the sorted move files,
    /// reading only the blocks of successors that hold a changed position), then evaluate
    /// the marked positions. Returns the positions evaluated and those that rose.
    fn round(&self, pk: Packing, moves: &MoveIndex) -> Result<(u64, u64), TableError> {
        moves.buckets.par_iter().enumerate().try_for_each(
            |(b, bucket)| -> Result<(), TableError> {
                // Buckets hold whole blocks, so block `k` of the bucket is this global block.
                let first_block = b as u64 * moves.per_bucket / MOVE_BLOCK;
                let blocks = bucket.offsets.len() - 1;
                let changed_block = |k: usize| self.changed_blocks.get(first_block + k as u64);
                let mut file: Option<File> = None;
                let mut buf: Vec<u8> = Vec::new();
                let mut k = 0;
                while k < blocks {
                    if !changed_block(k) {
                        k += 1;
                        continue;
                    }
                    // A run of blocks with changes (gaps of up to 4 quiet blocks are read
                    // through, one read being cheaper than several).
                    let start = k;
                    let mut end = k + 1;
                    let mut probe = end;
                    while probe < blocks && probe < end + 4 {
                        if changed_block(probe) {
                            end = probe + 1;
                        }
                        probe += 1;
                    }
                    k = end;
                    let (from, to) = (bucket.offsets[start], bucket.offsets[end]);
                    if from == to {
                        continue;
                    }
                    let f = match &file {
                        Some(f) => f,
                        None => file.insert(File::open(&bucket.path).map_err(io(&bucket.path))?),
                    };
                    buf.resize(8 * (to - from) as usize, 0);
                    crate::mem::read_exact_at(f, &mut buf, 8 * from as u64)
                        .map_err(io(&bucket.path))?;
                    for e in buf.chunks_exact(8) {
                        let mut a = [0u8; 8];
                        a.copy_from_slice(e);
                        let e = u64::from_le_bytes(a);
                        let (c, p) = (e >> 32, e & 0xffff_ffff);
                        if self.work[c as usize].load(Relaxed) & CHANGED != 0 {
                            self.work[p as usize].fetch_or(EVAL, Relaxed);
                            self.eval_blocks.mark(p);
                        }
                    }
                }
                Ok(())
            },
        )?;
        let changed = AtomicU64::new(0);
        let evaluated = AtomicU64::new(0);
        let tail = pk.without_final();
        let per_side = self.layout.per_side();
        self.chunks(|start, end, side| {
            let base = side as u64 * per_side;
            // The blocks that overlap the chunk and hold a position to evaluate or a change
            // mark to clear, cut to the chunk.
            let (first, last) = (
                (base + start) / MOVE_BLOCK,
                (base + end).div_ceil(MOVE_BLOCK),
            );
            let ranges = (first..last)
                .filter(|&b| self.eval_blocks.get(b) || self.changed_blocks.get(b))
                .map(|b| {
                    let lo = (b * MOVE_BLOCK).saturating_sub(base).max(start);
                    lo..((b + 1) * MOVE_BLOCK - base).min(end)
                });
            let mut local = 0u64;
            let seen = self.walk(
                ranges,
                side,
                |cell| {
                    let old = cell.load(Relaxed);
                    if old & EVAL == 0 {
                        if old & CHANGED != 0 {
                            cell.store(old & !CHANGED, Relaxed);
                        }
                        return false;
                    }
                    true
                },
                |i, pending| {
                    let cell = &self.work[i as usize];
                    let old = cell.load(Relaxed);
                    let merged = tail.merge(self.resolve(tail, pending, |_| {}), old);
                    if merged != tail.bounds(old) {
                        local += 1;
                        cell.store(merged | CHANGED, Relaxed);
                        self.next_changed.mark(i);
                    } else {
                        cell.store(merged, Relaxed);
                    }
                },
            );
            changed.fetch_add(local, Relaxed);
            evaluated.fetch_add(seen, Relaxed);
        });
        // The marks of this round become the changes the next one reads.
        self.eval_blocks.clear();
        self.changed_blocks
            .0
            .par_iter()
            .zip(&self.next_changed.0)
            .for_each(|(old, new)| old.store(new.swap(0, Relaxed), Relaxed));
        Ok((evaluated.into_inner(), changed.into_inner()))
    }
}

/// Scratch files of reversed quiet moves, one per range of successor indices, each move as
/// a little-endian `u64`: successor index in the high half, predecessor in the low half.
struct EdgeSink {
    files: Vec<(PathBuf, Mutex<BufWriter<File>>)>,
    per_bucket: u64,
    error: Mutex<Option<TableError>>,
    written: AtomicU64,
}

impl EdgeSink {
    /// Files for `count` positions, about `target` successors a file (at most
    /// [`MAX_MOVE_FILES`], fewer than a process may usually open).
    fn create(dir: &Path, count: u64, target: u64) -> Result<EdgeSink, TableError> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let wanted = count.div_ceil(target.max(1)).clamp(1, MAX_MOVE_FILES);
        // Whole blocks of successors a file, so that a file's blocks are blocks of the layer.
        let per_bucket = count.div_ceil(wanted).next_multiple_of(MOVE_BLOCK);
        let buckets = count.div_ceil(per_bucket).max(1);
        let mut files = Vec::new();
        for b in 0..buckets {
            let path = dir.join(format!("moves-{b:03}.bin"));
            let f = File::create(&path).map_err(io(&path))?;
            files.push((path, Mutex::new(BufWriter::with_capacity(1 << 16, f))));
        }
        Ok(EdgeSink {
            files,
            per_bucket,
            error: Mutex::new(None),
            written: AtomicU64::new(0),
        })
    }

    fn write(&self, edges: &mut Vec<u64>) {
        edges.sort_unstable();
        let mut rest = &edges[..];
        while let Some(&first) = rest.first() {
            let b = ((first >> 32) / self.per_bucket) as usize;
            let end = ((b as u64 + 1) * self.per_bucket) << 32;
            let n = rest.partition_point(|&e| e < end);
            let mut bytes = Vec::with_capacity(8 * n);
            for e in &rest[..n] {
                bytes.extend_from_slice(&e.to_le_bytes());
            }
            let (path, w) = &self.files[b.min(self.files.len() - 1)];
            let mut w = w.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(e) = w.write_all(&bytes) {
                let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert(io(path)(e));
            }
            rest = &rest[n..];
        }
        self.written.fetch_add(edges.len() as u64, Relaxed);
        edges.clear();
    }

    /// Flushes and closes the files; returns their paths.
    fn finish(self) -> Result<(Vec<PathBuf>, u64), TableError> {
        if let Some(e) = self.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        let mut paths = Vec::new();
        for (path, w) in self.files {
            let mut w = w.into_inner().unwrap_or_else(|e| e.into_inner());
            w.flush().map_err(io(&path))?;
            paths.push(path);
        }
        Ok((paths, self.written.into_inner()))
    }
}

/// Most move files of a layer. More files make each one smaller to sort in memory.
const MAX_MOVE_FILES: u64 = 1000;

/// Reads a move file into memory, straight into its final form (one buffer, not two).
fn read_moves(path: &Path) -> Result<Vec<u64>, TableError> {
    let mut file = File::open(path).map_err(io(path))?;
    let bytes = file.metadata().map_err(io(path))?.len() as usize;
    if bytes & 7 != 0 {
        return Err(TableError::Corrupt {
            path: path.to_path_buf(),
            what: "scratch file cut inside a move".to_string(),
        });
    }
    let mut moves = vec![0u64; bytes / 8];
    // SAFETY: the bytes of a `u64` slice may be written freely (every bit pattern is a
    // valid `u64`), and the view ends before `moves` is used again.
    let view = unsafe { std::slice::from_raw_parts_mut(moves.as_mut_ptr() as *mut u8, bytes) };
    file.read_exact(view).map_err(io(path))?;
    for m in &mut moves {
        *m = u64::from_le(*m);
    }
    Ok(moves)
}

/// Successor positions per block of the move index: the unit a round reads.
const MOVE_BLOCK: u64 = 256;

/// One sorted move file and where each block of successors starts in it (in moves).
struct MoveBucket {
    path: PathBuf,
    offsets: Vec<u32>,
}

/// The reversed quiet moves, sorted by successor, with a block index (4 bytes for every
/// 256 positions in memory).
struct MoveIndex {
    buckets: Vec<MoveBucket>,
    per_bucket: u64,
}

impl MoveIndex {
    /// Sorts each file (one at a time per thread, so memory holds at most one file per
    /// thread), drops repeated moves and indexes the blocks. Returns the index and the moves
    /// kept.
    fn build(
        paths: Vec<PathBuf>,
        per_bucket: u64,
        count: u64,
    ) -> Result<(MoveIndex, u64), TableError> {
        let kept = AtomicU64::new(0);
        let buckets = paths
            .into_par_iter()
            .enumerate()
            .map(|(b, path)| -> Result<MoveBucket, TableError> {
                let mut moves = read_moves(&path)?;
                moves.sort_unstable();
                moves.dedup();
                let first = b as u64 * per_bucket;
                let last = (first + per_bucket).min(count);
                let blocks = (last - first).div_ceil(MOVE_BLOCK) as usize;
                let mut offsets = vec![0u32; blocks + 1];
                let mut at = 0usize;
                for (k, off) in offsets.iter_mut().enumerate() {
                    let limit = first + k as u64 * MOVE_BLOCK;
                    while at < moves.len() && (moves[at] >> 32) < limit {
                        at += 1;
                    }
                    *off = at as u32;
                }
                offsets[blocks] = moves.len() as u32;
                let mut out =
                    BufWriter::with_capacity(1 << 20, File::create(&path).map_err(io(&path))?);
                for m in &moves {
                    out.write_all(&m.to_le_bytes()).map_err(io(&path))?;
                }
                out.flush().map_err(io(&path))?;
                kept.fetch_add(moves.len() as u64, Relaxed);
                Ok(MoveBucket { path, offsets })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((
            MoveIndex {
                buckets,
                per_bucket,
            },
            kept.into_inner(),
        ))
    }
}

/// Builds one layer into `path`, reading smaller layers from `lower`.
fn build_layer(
    path: &Path,
    key: &TableKey,
    n: usize,
    lower: &[Option<Layer>],
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<LayerStats, TableError> {
    let t0 = Instant::now();
    let rules = key.build_rules()?;
    let sides = if key.symmetric() { 1 } else { 2 };
    let layout = Layout::new(key.holes, n, sides)
        .ok_or_else(|| TableError::Unsupported(format!("layer {n} too large")))?;
    for m in layers_up_to(n) {
        if m < n && !matches!(lower.get(m), Some(Some(_))) {
            return Err(TableError::MissingLayer { seeds: m });
        }
    }
    let count = layout.count();
    let len = usize::try_from(count)
        .map_err(|_| TableError::Unsupported(format!("layer {n} too large for memory")))?;
    let mut bytes: Vec<u8> = Vec::new();
    bytes
        .try_reserve_exact(len)
        .map_err(|_| TableError::Unsupported(format!("cannot allocate {len} bytes")))?;
    // The advice must come before the pages are first touched (by the zeroing).
    crate::mem::advise_huge_pages(bytes.spare_capacity_mut());
    bytes.resize(len, 0);
    // SAFETY: `AtomicU8` has the same size and alignment as `u8`, and `bytes` is not used
    // again while the atomic view lives.
    let work: &[AtomicU8] =
        unsafe { std::slice::from_raw_parts(bytes.as_mut_ptr() as *const AtomicU8, len) };
    let step = step_of(n) as i32;
    let half = n / step as usize;
    let pk = Packing::new(half);
    let ctx = Ctx {
        rules,
        layout: &layout,
        step,
        work,
        lower,
        missing: AtomicBool::new(false),
        changed_blocks: Blocks::new(count),
        next_changed: Blocks::new(count),
        eval_blocks: Blocks::new(count),
    };
    let edges_possible = pk.spare && count <= 1 << 32;
    let edges_at = match options.method {
        Method::Sweeps => None,
        Method::Auto if !edges_possible || count < AUTO_MIN_POSITIONS => None,
        Method::Auto => Some(2),
        Method::EdgesAt(k) => edges_possible.then_some(k.max(1)),
    };
    let scratch = path.with_extension("moves");
    if scratch.exists() {
        // Left by a build that was killed.
        std::fs::remove_dir_all(&scratch).map_err(io(&scratch))?;
    }
    // Removes the scratch moves however the layer ends (a full disk, an error, a panic),
    // so that tens of gigabytes are not left behind.
    let _cleanup = RemoveOnDrop(&scratch);
    progress.layer_start(n, count);
    progress.layer_plan(n, count, edges_at.is_some());
    let mut stats = LayerStats {
        seeds: n,
        positions: count,
        sweeps: 0,
        rounds: 0,
        seconds: 0.0,
        file_bytes: 0,
        working_bytes: count,
        evaluations: 0,
        scratch_bytes: 0,
        reused: false,
    };
    let check_missing = |ctx: &Ctx| {
        if ctx.missing.load(Relaxed) {
            Err(TableError::Inconsistent(format!(
                "a capture from the layer of {n} seeds reached a layer that is not built"
            )))
        } else {
            Ok(())
        }
    };
    // Auto writes the moves in the second sweep: the first finds most exits (and reads
    // successors that are mostly not final), later sweeps cost the whole layer while rounds
    // cost little more than their evaluations.
    let mut write_next = edges_at == Some(1);
    let mut files = None;
    loop {
        stats.sweeps += 1;
        progress.sweep_start(n, stats.sweeps);
        let sink = if write_next {
            // Tests (EdgesAt) use many small files to exercise the index.
            let target = match options.method {
                Method::EdgesAt(_) => 1 << 12,
                _ => 1 << 20,
            };
            Some(EdgeSink::create(&scratch, count, target)?)
        } else {
            None
        };
        let (evaluated, changed) = ctx.sweep(pk, sink.as_ref(), progress);
        progress.sweep_end(n, stats.sweeps, evaluated, changed);
        stats.evaluations += evaluated;
        check_missing(&ctx)?;
        if let Some(sink) = sink {
            let per_bucket = sink.per_bucket;
            let (paths, _) = sink.finish()?;
            let (index, kept) = MoveIndex::build(paths, per_bucket, count)?;
            stats.scratch_bytes = 8 * kept;
            files = Some(index);
            break;
        }
        if changed == 0 {
            break;
        }
        write_next = edges_at.is_some_and(|k| stats.sweeps + 1 >= k);
    }
    if let Some(files) = files {
        // The final bits served the sweeps; rounds use bit 6 to mark positions to evaluate.
        work.par_iter()
            .for_each(|c| c.store(c.load(Relaxed) & !pk.final_bit, Relaxed));
        loop {
            stats.rounds += 1;
            let (evaluated, changed) = ctx.round(pk, &files)?;
            progress.round_end(n, stats.rounds, evaluated, changed);
            stats.evaluations += evaluated;
            check_missing(&ctx)?;
            if changed == 0 {
                break;
            }
        }
        std::fs::remove_dir_all(&scratch).map_err(io(&scratch))?;
    }
    let mut histogram = vec![0u64; 2 * half + 1];
    let mut bad = 0u64;
    for cell in work.iter() {
        let w = cell.load(Relaxed);
        let (lo, hi) = (pk.lo(w) as usize, pk.hi(w) as usize);
        if lo > 0 && hi > 0 || lo > half || hi > half {
            bad += 1;
        }
        histogram[code(lo, hi, half) as usize] += 1;
    }
    if bad > 0 {
        return Err(TableError::Inconsistent(format!(
            "{bad} positions of the layer of {n} seeds have both sides winning"
        )));
    }
    let millis = t0.elapsed().as_millis() as u64;
    let counts = BuildCounts {
        sweeps: stats.sweeps,
        rounds: stats.rounds,
        millis,
    };
    write_layer(path, key, &layout, counts, histogram, |i| {
        let w = work[i as usize].load(Relaxed);
        code(pk.lo(w) as usize, pk.hi(w) as usize, half)
    })?;
    stats.file_bytes = std::fs::metadata(path).map_err(io(path))?.len();
    stats.seconds = t0.elapsed().as_secs_f64();
    Ok(stats)
}

/// Removes a scratch folder when dropped (if it is there).
struct RemoveOnDrop<'a>(&'a Path);

impl Drop for RemoveOnDrop<'_> {
    fn drop(&mut self) {
        if self.0.exists() {
            let _ = std::fs::remove_dir_all(self.0);
        }
    }
}

/// The stored code of a position from its bounds at the fixpoint: the mover's forced gain
/// if any, else minus the opponent's, else 0 (endless play).
#[inline]
fn code(lo: usize, hi: usize, half: usize) -> u8 {
    let v = if lo > 0 { lo as i64 } else { -(hi as i64) };
    (v + half as i64).clamp(0, 2 * half as i64) as u8
}
