//! The build over several processes with MPI (the `mpi` feature): each layer is split into
//! one range of indices a process, block-aligned, and swept in bulk-synchronous steps.
//!
//! Every process holds a working byte for every position of the layer, but writes only its
//! own range; the bytes of other ranges are a copy, refreshed before each sweep. At the
//! start of a layer each process walks its range once to list the successors it will read
//! in other ranges (sorted, without repeats) and sends each owner the indices it wants
//! (an all-to-all exchange with counts). Then each sweep is: the owners answer with the
//! current bytes of the indices asked (an all-to-all exchange), every process sweeps its
//! range with the same operator and walk as a one-process sweep ([`Ctx::sweep_in`]), and
//! an all-reduce adds the positions that rose. A sweep in which nothing rose anywhere read
//! current bytes everywhere, so the bounds are the least fixpoint of the same operator as a
//! one-process build, and the payloads are identical (the sweep counts and times in the
//! header may differ). Only sweeps: no rounds and no scratch files.
//!
//! Rank 0 then receives every range, writes the layer's file, and every process reads the
//! file back whole as a smaller layer for the layers above it: the folder must be one that
//! every process sees (one machine, or a shared file system). Past what one machine holds,
//! the copy of the whole layer and of the smaller layers on every process is the limit.
//!
//! After each sweep that changed something, every process saves its range and the sweep
//! reached beside the layer's file (`layer-NN.hyt.mpi-R-of-N`, written whole, then renamed
//! over the last one); a job started again with the same number of processes starts each
//! range from its saved bytes, and the checkpoints are removed once the layer is written.
//! Any saved bytes are bounds below the fixpoint with sound final marks, so ranges saved
//! at different sweeps (a job stopped while saving) still lead to the same fixpoint; a
//! checkpoint that does not match its process, range or layer is ignored.
//!
//! A process that fails returns its error without telling the others, which wait in the
//! next exchange: the caller ends the job (`MPI_Abort`), as MPI programs do.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;
use std::time::Instant;

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::traits::{Communicator, CommunicatorCollectives, Destination, Equivalence, Root, Source};
use mpi::Count;

use super::operator::Ctx;
use super::work::{self, Packing, BLOCK};
use super::{check_buildable, histogram, LayerStats, Progress, Solved};
use crate::error::{io, Inconsistency, TableError, Unsupported};
use crate::format::{checksum, file_name, key_dir, layers_up_to, step_of, Layer, TableKey};
use hoyito_rules::Rules;

/// Figures of the exchange of one layer's build over MPI, added over the processes.
#[derive(Clone, Debug, Default)]
pub struct ExchangeStats {
    /// Seeds on the board of the layer.
    pub seeds: usize,
    /// Indices asked of other processes at the start of the layer (8 bytes each).
    pub requested: u64,
    /// Bytes answered in each sweep (one a requested index).
    pub answered_per_sweep: u64,
    /// Sweeps, those before a restart included.
    pub sweeps: u32,
    /// The sweep whose checkpoints the build started from (0: from nothing).
    pub resumed_at: u32,
}

/// [`crate::build`] over the processes of `world`, which all call it with the same
/// arguments: every layer up to `max_seeds` for `rules` under `dir`, each layer split over
/// the processes and swept to its fixpoint (see the module documentation), written by rank
/// 0. Layers already built are kept, as rank 0 finds them. Every process gets the figures
/// of every layer (its `progress` is called as by [`crate::build`], with the counts of all
/// processes added; give the others a [`super::Quiet`]) and those of the exchange.
pub fn build_distributed<C: Communicator>(
    world: &C,
    dir: &Path,
    rules: &Rules,
    max_seeds: usize,
    progress: &dyn Progress,
) -> Result<Vec<(LayerStats, ExchangeStats)>, TableError> {
    let key = TableKey::of(rules);
    check_buildable(&key, max_seeds)?;
    let folder = key_dir(dir, &key);
    let root = world.process_at_rank(0);
    if world.rank() == 0 {
        std::fs::create_dir_all(&folder).map_err(io(&folder))?;
    }
    world.barrier();
    let mut lower: Vec<Option<Layer>> = (0..=max_seeds).map(|_| None).collect();
    let mut stats = Vec::new();
    for n in layers_up_to(max_seeds) {
        let path = folder.join(file_name(n));
        // Rank 0 decides, so that every process takes the same branch.
        let mut there = u8::from(world.rank() == 0 && path.exists());
        root.broadcast_into(&mut there);
        let s = if there == 1 {
            let layer = Layer::read(&path, &key, n)?;
            let s = (LayerStats::reused(&layer), ExchangeStats::default());
            lower[n] = Some(layer);
            s
        } else {
            let (solved, x) = solve_layer(world, &key, n, &lower, &folder, progress)?;
            let s = match solved {
                Some(solved) => solved.write(&path)?,
                None => LayerStats::started(n, 0),
            };
            // Everyone reads the layer once rank 0 has written it.
            world.barrier();
            let saved = checkpoint_path(&folder, n, world.rank(), world.size());
            match std::fs::remove_file(&saved) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io(&saved)(e));
                }
                _ => {}
            }
            let layer = Layer::read(&path, &key, n)?;
            let s = LayerStats {
                file_bytes: layer.file_bytes(),
                positions: layer.layout().count(),
                sweeps: x.sweeps,
                ..s
            };
            lower[n] = Some(layer);
            (s, x)
        };
        progress.layer_done(&s.0);
        stats.push(s);
    }
    Ok(stats)
}

/// The first index of every process's range, and the layer's size at the end: `size`
/// nearly equal parts, cut at multiples of [`BLOCK`].
fn split(count: u64, size: usize) -> Vec<u64> {
    let mut bounds: Vec<u64> = (0..size as u64)
        .map(|r| (count as u128 * r as u128 / size as u128) as u64 / BLOCK * BLOCK)
        .collect();
    bounds.push(count);
    bounds
}

/// The process whose range holds index `i`.
fn owner(bounds: &[u64], i: u64) -> usize {
    bounds.partition_point(|&b| b <= i) - 1
}

/// An MPI count, or an error if `n` is more than one message holds.
fn count_of(n: usize) -> Result<Count, TableError> {
    Count::try_from(n)
        .map_err(|_| TableError::Unsupported(Unsupported::Message { elements: n as u64 }))
}

/// Sends `out[r]` to process `r` for every `r` and returns what each process sent here, in
/// two all-to-all exchanges (the counts, then the elements).
fn exchange<C: Communicator, T: Equivalence + Copy + Default>(
    world: &C,
    out: &[Vec<T>],
) -> Result<Vec<Vec<T>>, TableError> {
    let counts = out
        .iter()
        .map(|v| count_of(v.len()))
        .collect::<Result<Vec<Count>, _>>()?;
    let mut in_counts = vec![0 as Count; out.len()];
    world.all_to_all_into(&counts[..], &mut in_counts[..]);
    let displs = offsets(&counts)?;
    let in_displs = offsets(&in_counts)?;
    // One element more than sent or received: the buffer of an empty vector of bytes is at
    // address 1, which Open MPI takes for MPI_IN_PLACE.
    let mut flat: Vec<T> = out.concat();
    flat.push(T::default());
    let total: usize = in_counts.iter().map(|&c| c as usize).sum();
    let mut got = vec![T::default(); total + 1];
    {
        let send = Partition::new(&flat[..], &counts[..], &displs[..]);
        let mut recv = PartitionMut::new(&mut got[..], &in_counts[..], &in_displs[..]);
        world.all_to_all_varcount_into(&send, &mut recv);
    }
    Ok(in_counts
        .iter()
        .zip(&in_displs)
        .map(|(&c, &d)| got[d as usize..(d + c) as usize].to_vec())
        .collect())
}

/// The displacements of consecutive pieces of `counts` elements.
fn offsets(counts: &[Count]) -> Result<Vec<Count>, TableError> {
    let mut at = 0usize;
    counts
        .iter()
        .map(|&c| {
            let d = count_of(at);
            at += c as usize;
            d
        })
        .collect()
}

/// The quiet successors of the positions of `own` that lie outside it, sorted and without
/// repeats, by the process that owns them. Every working byte is still 0 (nothing final), so
/// [`Ctx::resolve`] hands over every quiet successor.
fn remote_successors(ctx: &Ctx, pk: Packing, own: &Range<u64>, bounds: &[u64]) -> Vec<Vec<u64>> {
    let found = Mutex::new(Vec::new());
    ctx.chunks_in(own.clone(), |start, end, side| {
        let mut local = Vec::new();
        ctx.walk(
            std::iter::once(start..end),
            side,
            |_| true,
            |_, pending| {
                ctx.resolve(pk, pending, |j| {
                    if !own.contains(&j) {
                        local.push(j)
                    }
                });
            },
        );
        local.sort_unstable();
        local.dedup();
        found
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(local);
    });
    let mut all = found.into_inner().unwrap_or_else(|e| e.into_inner());
    all.sort_unstable();
    all.dedup();
    let mut by_owner = vec![Vec::new(); bounds.len() - 1];
    for j in all {
        by_owner[owner(bounds, j)].push(j);
    }
    by_owner
}

/// Solves layer `n` over the processes of `world`: rank 0 gets the whole layer (to write),
/// the others `None`; all get the figures of the exchange.
fn solve_layer<C: Communicator>(
    world: &C,
    key: &TableKey,
    n: usize,
    lower: &[Option<Layer>],
    folder: &Path,
    progress: &dyn Progress,
) -> Result<(Option<Solved>, ExchangeStats), TableError> {
    let t0 = Instant::now();
    let (rules, layout) = super::layer_setup(key, n, lower)?;
    let count = layout.count();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let bounds = split(count, size);
    let own = bounds[rank]..bounds[rank + 1];
    let mut bytes = work::alloc(count)?;
    let work = work::atomic(&mut bytes);
    let step = step_of(n);
    let pk = Packing::new(n / step);
    let ctx = Ctx::new(rules, &layout, step as i32, work, lower);
    progress.layer_start(n, count);
    progress.layer_plan(n, count, false);
    let mut stats = LayerStats::started(n, count);

    let wanted = remote_successors(&ctx, pk, &own, &bounds);
    let asked = exchange(world, &wanted)?;
    let requested = asked.iter().map(|v| v.len() as u64).sum::<u64>();
    let mut x = ExchangeStats {
        seeds: n,
        ..ExchangeStats::default()
    };
    world.all_reduce_into(&requested, &mut x.requested, SystemOperation::sum());
    x.answered_per_sweep = x.requested;
    let saved = checkpoint_path(folder, n, world.rank(), world.size());
    let mut resumed = 0u32;
    if let Some((sweep, bytes)) = load_checkpoint(&saved, n, world.size(), &own) {
        for (cell, w) in work[own.start as usize..own.end as usize].iter().zip(bytes) {
            cell.store(w, Relaxed);
        }
        resumed = sweep;
    }
    world.all_reduce_into(&resumed, &mut stats.sweeps, SystemOperation::max());
    x.resumed_at = stats.sweeps;
    loop {
        stats.sweeps += 1;
        progress.sweep_start(n, stats.sweeps);
        let answers: Vec<Vec<u8>> = asked
            .iter()
            .map(|ix| ix.iter().map(|&i| work[i as usize].load(Relaxed)).collect())
            .collect();
        let got = exchange(world, &answers)?;
        for (ix, values) in wanted.iter().zip(&got) {
            for (&i, &w) in ix.iter().zip(values) {
                work[i as usize].store(w, Relaxed);
            }
        }
        let (evaluated, changed) = ctx.sweep_in(own.clone(), pk, None, progress, false);
        let missing = u64::from(ctx.check_exits().is_err());
        let mut total = [0u64; 3];
        world.all_reduce_into(
            &[evaluated, changed, missing][..],
            &mut total[..],
            SystemOperation::sum(),
        );
        progress.sweep_end(n, stats.sweeps, total[0], total[1]);
        stats.evaluations += total[0];
        if total[2] > 0 {
            return Err(TableError::Inconsistent(
                Inconsistency::ExitToMissingLayer { seeds: n },
            ));
        }
        if total[1] == 0 {
            break;
        }
        let mine: Vec<u8> = work[own.start as usize..own.end as usize]
            .iter()
            .map(|c| c.load(Relaxed))
            .collect();
        save_checkpoint(&saved, n, world.size(), &own, stats.sweeps, &mine)?;
    }
    x.sweeps = stats.sweeps;
    drop(ctx);
    gather(world, &bounds, &mut bytes)?;
    if rank != 0 {
        return Ok((None, x));
    }
    let histogram = histogram(work::atomic(&mut bytes), pk, n)?;
    Ok((
        Some(Solved {
            key: *key,
            layout,
            pk,
            bytes,
            histogram,
            stats,
            t0,
        }),
        x,
    ))
}

/// The file where process `rank` of `size` keeps its range of layer `n` between sweeps.
fn checkpoint_path(folder: &Path, n: usize, rank: i32, size: i32) -> PathBuf {
    folder.join(format!("{}.mpi-{rank}-of-{size}", file_name(n)))
}

/// The first bytes of a checkpoint.
const CHECKPOINT_MAGIC: &[u8; 8] = b"HOYMPICK";

/// The header of a checkpoint: magic, then seeds, processes, range start and end, sweep and
/// the checksum of the bytes that follow, 8 bytes each, little-endian.
fn checkpoint_header(n: usize, size: i32, own: &Range<u64>, sweep: u32, bytes: &[u8]) -> Vec<u8> {
    let mut h = CHECKPOINT_MAGIC.to_vec();
    for v in [
        n as u64,
        size as u64,
        own.start,
        own.end,
        sweep as u64,
        checksum(bytes),
    ] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h
}

/// Saves `bytes`, the range `own` after `sweep`, at `path` (through a temporary file
/// renamed over it, so that a stopped job leaves the last whole checkpoint).
fn save_checkpoint(
    path: &Path,
    n: usize,
    size: i32,
    own: &Range<u64>,
    sweep: u32,
    bytes: &[u8],
) -> Result<(), TableError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut all = checkpoint_header(n, size, own, sweep, bytes);
    all.extend_from_slice(bytes);
    std::fs::write(&tmp, &all).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// The sweep and the bytes saved at `path` for the range `own` of layer `n` under `size`
/// processes, if they are there, whole and for this range.
fn load_checkpoint(path: &Path, n: usize, size: i32, own: &Range<u64>) -> Option<(u32, Vec<u8>)> {
    let all = std::fs::read(path).ok()?;
    let head = 8 + 6 * 8;
    let (h, bytes) = (all.get(..head)?, all.get(head..)?);
    let sweep = u32::try_from(u64::from_le_bytes(h[40..48].try_into().ok()?)).ok()?;
    (h == checkpoint_header(n, size, own, sweep, bytes)).then(|| (sweep, bytes.to_vec()))
}

/// Pieces of a range sent at once when rank 0 gathers the layer (under MPI's count limit).
const GATHER_PIECE: u64 = 1 << 30;

/// Brings every process's range of `bytes` to rank 0, in place, piece by piece.
fn gather<C: Communicator>(world: &C, bounds: &[u64], bytes: &mut [u8]) -> Result<(), TableError> {
    let rank = world.rank() as usize;
    let pieces = |r: usize| {
        (bounds[r]..bounds[r + 1])
            .step_by(GATHER_PIECE as usize)
            .map(move |a| a as usize..(a + GATHER_PIECE).min(bounds[r + 1]) as usize)
    };
    if rank == 0 {
        for r in 1..bounds.len() - 1 {
            let from = world.process_at_rank(r as i32);
            for p in pieces(r) {
                from.receive_into(&mut bytes[p]);
            }
        }
    } else {
        let to = world.process_at_rank(0);
        for p in pieces(rank) {
            to.send(&bytes[p]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_reads_back_only_for_its_range_and_layer() {
        let dir = std::env::temp_dir().join(format!("hoyito-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = checkpoint_path(&dir, 12, 1, 3);
        let bytes: Vec<u8> = (0..=255).collect();
        save_checkpoint(&path, 12, 3, &(256..512), 7, &bytes).unwrap();
        assert_eq!(load_checkpoint(&path, 12, 3, &(256..512)), Some((7, bytes)));
        assert_eq!(load_checkpoint(&path, 16, 3, &(256..512)), None);
        assert_eq!(load_checkpoint(&path, 12, 2, &(256..512)), None);
        assert_eq!(load_checkpoint(&path, 12, 3, &(0..256)), None);
        let mut damaged = std::fs::read(&path).unwrap();
        *damaged.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &damaged).unwrap();
        assert_eq!(load_checkpoint(&path, 12, 3, &(256..512)), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ranges_are_block_aligned_and_cover_the_layer() {
        for count in [0u64, 1, 255, 256, 1000, 123_457, 1 << 20] {
            for size in 1..=5 {
                let b = split(count, size);
                assert_eq!(b.len(), size + 1);
                assert_eq!((b[0], b[size]), (0, count));
                assert!(b.windows(2).all(|w| w[0] <= w[1]));
                assert!(b[..size].iter().all(|x| x % BLOCK == 0));
                for i in (0..count).step_by(97) {
                    let r = owner(&b, i);
                    assert!(b[r] <= i && i < b[r + 1]);
                }
            }
        }
    }
}
