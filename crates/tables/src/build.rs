//! Building layers: the bound iteration of the crate documentation, with forward sweeps.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::time::Instant;

use hoyito_rules::{Position6, Rules, Side};
use rayon::prelude::*;

use crate::error::{io, TableError};
use crate::format::{bits_of, file_name, step_of, write_layer, Layer, TableKey};
use crate::index::{Layout, MAX_BOARD};

/// Positions a task sweeps in one piece (the unit of parallel work and of progress).
const CHUNK: u64 = 1 << 15;

/// Largest bound a working byte holds in each of its two halves.
const MAX_BOUND: usize = 15;

/// What the build reports as it goes. Every method has an empty default.
pub trait Progress: Sync {
    /// A layer starts: its seeds and positions.
    fn layer_start(&self, _seeds: usize, _positions: u64) {}
    /// A sweep over the layer starts (1-based).
    fn sweep_start(&self, _seeds: usize, _sweep: u32) {}
    /// `positions` more positions of the current sweep are done.
    fn advance(&self, _positions: u64) {}
    /// A sweep ended: `evaluated` positions were not final yet and had their moves
    /// generated, `changed` of them got a better bound.
    fn sweep_end(&self, _seeds: usize, _sweep: u32, _evaluated: u64, _changed: u64) {}
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
    /// Sweeps to reach the fixpoint (the last one changes nothing).
    pub sweeps: u32,
    /// Wall time of the build of this layer, writing included.
    pub seconds: f64,
    /// Bytes of the layer's file.
    pub file_bytes: u64,
    /// Bytes of memory the working array of the layer takes (one a position).
    pub working_bytes: u64,
    /// Positions whose moves were generated, over all sweeps (final positions are skipped).
    pub evaluations: u64,
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
                seconds: layer.header().build_millis as f64 / 1000.0,
                file_bytes: layer.file_bytes(),
                working_bytes: layer.layout().count(),
                evaluations: 0,
                reused: true,
            };
            progress.layer_done(&s);
            stats.push(s);
            lower[n] = Some(layer);
            continue;
        }
        let s = build_layer(&path, &key, n, &lower, progress)?;
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

/// The value of a position whose layer is finished (the board holds more than 4 seeds).
#[inline(always)]
fn lower_value(lower: &[Option<Layer>], p: &Position6, missing: &AtomicBool) -> i32 {
    let n = p.seeds_on_board() as usize;
    match lower.get(n).and_then(|l| l.as_ref()) {
        Some(l) => l.value(index_of(l.layout(), p)),
        None => {
            missing.store(true, Relaxed);
            0
        }
    }
}

/// How bounds sit in a working byte: the mover's bound `lo` in the low `width` bits, the
/// opponent's `hi` above it, both in units of the value step, and where they leave room
/// (bounds up to 7) a *final* bit: the position's bounds are at the fixpoint already.
#[derive(Clone, Copy)]
struct Packing {
    width: u32,
    mask: u8,
    final_bit: u8,
    top: u8,
}

impl Packing {
    fn new(half: usize) -> Packing {
        if half <= 7 {
            Packing {
                width: 3,
                mask: 7,
                final_bit: 0x40,
                top: half as u8,
            }
        } else {
            Packing {
                width: 4,
                mask: 15,
                final_bit: 0,
                top: half as u8,
            }
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
    fn is_final(self, w: u8) -> bool {
        w & self.final_bit != 0
    }
    #[inline(always)]
    fn pack(self, lo: u8, hi: u8, is_final: bool) -> u8 {
        lo | hi << self.width | if is_final { self.final_bit } else { 0 }
    }
}

/// One application of the bound operator to position `p` (see the crate documentation).
/// Returns the new working byte. It is marked final when the bounds cannot rise any more:
/// every quiet successor was final when read (exits never change), or a bound is the
/// largest the layer allows.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn update(
    rules: &Rules,
    layout: &Layout,
    pk: Packing,
    step: i32,
    work: &[AtomicU8],
    lower: &[Option<Layer>],
    missing: &AtomicBool,
    p: &Position6,
) -> u8 {
    let mut lo = 0u8;
    let mut hi = u8::MAX;
    let mut all_final = true;
    p.for_each_child(rules, |c| {
        if c.extra_turn {
            let x = c.gain as i32
                + if c.ended_game {
                    0
                } else {
                    lower_value(lower, &c.position, missing)
                };
            let x = x / step;
            lo = lo.max(x.max(0) as u8);
            hi = hi.min((-x).max(0) as u8);
        } else {
            let w = work[index_of(layout, &c.position) as usize].load(Relaxed);
            lo = lo.max(pk.hi(w));
            hi = hi.min(pk.lo(w));
            all_final &= pk.is_final(w);
        }
    });
    if hi == u8::MAX {
        // No legal move: the side passes, and the same board with the other side to move
        // is this position's only successor. If that side cannot move either, both stay 0.
        let w = work[index_of(layout, &p.with_side_flipped()) as usize].load(Relaxed);
        lo = pk.hi(w);
        hi = pk.lo(w);
        all_final = pk.is_final(w);
    }
    let done = all_final || lo == pk.top || hi == pk.top;
    pk.pack(lo, hi, done)
}

/// Sweeps the whole layer once, in index order within each chunk, chunks in parallel,
/// skipping final positions. Returns the positions evaluated and those whose bounds rose.
#[allow(clippy::too_many_arguments)]
fn sweep(
    rules: &Rules,
    layout: &Layout,
    pk: Packing,
    step: i32,
    work: &[AtomicU8],
    lower: &[Option<Layer>],
    missing: &AtomicBool,
    progress: &dyn Progress,
) -> (u64, u64) {
    let per_side = layout.per_side();
    let chunks_per_side = per_side.div_ceil(CHUNK);
    let holes = layout.holes();
    let changed = AtomicU64::new(0);
    let evaluated = AtomicU64::new(0);
    (0..chunks_per_side * layout.sides() as u64)
        .into_par_iter()
        .for_each(|c| {
            let side = (c / chunks_per_side) as usize;
            let start = (c % chunks_per_side) * CHUNK;
            let end = (start + CHUNK).min(per_side);
            let base = side as u64 * per_side;
            let mut board = [0u8; MAX_BOARD];
            layout.unrank(start, &mut board);
            let mut local = 0u64;
            let mut seen = 0u64;
            for r in start..end {
                let cell = &work[(base + r) as usize];
                let old = cell.load(Relaxed);
                if !pk.is_final(old) {
                    seen += 1;
                    let p = position_of(rules, holes, side, &board);
                    let new = update(rules, layout, pk, step, work, lower, missing, &p);
                    if new != old {
                        // Bounds only rise (the operator is monotone and starts at the
                        // bottom); the max keeps that true even against a stale read.
                        let lo = pk.lo(new).max(pk.lo(old));
                        let hi = pk.hi(new).max(pk.hi(old));
                        cell.store(pk.pack(lo, hi, pk.is_final(new)), Relaxed);
                        if lo != pk.lo(old) || hi != pk.hi(old) {
                            local += 1;
                        }
                    }
                }
                layout.next(&mut board);
            }
            changed.fetch_add(local, Relaxed);
            evaluated.fetch_add(seen, Relaxed);
            progress.advance(end - start);
        });
    (evaluated.into_inner(), changed.into_inner())
}

/// Builds one layer into `path`, reading smaller layers from `lower`.
fn build_layer(
    path: &Path,
    key: &TableKey,
    n: usize,
    lower: &[Option<Layer>],
    progress: &dyn Progress,
) -> Result<LayerStats, TableError> {
    let t0 = Instant::now();
    let rules = key.build_rules()?;
    let sides = if key.symmetric() { 1 } else { 2 };
    let layout = Layout::new(key.holes, n, sides)
        .ok_or_else(|| TableError::Unsupported(format!("layer {n} too large")))?;
    for m in layers_up_to(n) {
        if m < n && lower.get(m).is_none_or(|l| l.is_none()) {
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
    bytes.resize(len, 0);
    // SAFETY: `AtomicU8` has the same size and alignment as `u8`, and `bytes` is not used
    // again while the atomic view lives.
    let work: &[AtomicU8] =
        unsafe { std::slice::from_raw_parts(bytes.as_mut_ptr() as *const AtomicU8, len) };
    let step = step_of(n) as i32;
    let half = n / step as usize;
    let pk = Packing::new(half);
    let missing = AtomicBool::new(false);
    progress.layer_start(n, count);
    let mut sweeps = 0u32;
    let mut updates = 0u64;
    loop {
        sweeps += 1;
        progress.sweep_start(n, sweeps);
        let (evaluated, changed) =
            sweep(&rules, &layout, pk, step, work, lower, &missing, progress);
        progress.sweep_end(n, sweeps, evaluated, changed);
        updates += evaluated;
        if missing.load(Relaxed) {
            return Err(TableError::Inconsistent(format!(
                "a capture from the layer of {n} seeds reached a layer that is not built"
            )));
        }
        if changed == 0 {
            break;
        }
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
    write_layer(path, key, &layout, sweeps, millis, histogram, |i| {
        let w = work[i as usize].load(Relaxed);
        code(pk.lo(w) as usize, pk.hi(w) as usize, half)
    })?;
    let file_bytes = std::fs::metadata(path).map_err(io(path))?.len();
    Ok(LayerStats {
        seeds: n,
        positions: count,
        sweeps,
        seconds: t0.elapsed().as_secs_f64(),
        file_bytes,
        working_bytes: count,
        evaluations: updates,
        reused: false,
    })
}

/// The stored code of a position from its bounds at the fixpoint: the mover's forced gain
/// if any, else minus the opponent's, else 0 (endless play).
#[inline]
fn code(lo: usize, hi: usize, half: usize) -> u8 {
    let v = if lo > 0 { lo as i64 } else { -(hi as i64) };
    (v + half as i64).clamp(0, 2 * half as i64) as u8
}
