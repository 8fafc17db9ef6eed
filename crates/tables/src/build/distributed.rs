//! The build over several processes with MPI (the `mpi` feature): each layer is split into
//! one range of indices a process, block-aligned, and brought to its fixpoint in
//! bulk-synchronous steps: sweeps, then (as [`super::Method`] plans them) rounds.
//!
//! Every process holds the working bytes of its own range, and writes only those, and a
//! copy of the bytes its own positions read in other ranges ([`Mirror`]), refreshed between
//! steps. At the start of a layer each process walks its range once to list the successors
//! it will read in other ranges (sorted, without repeats; a bit a position of the layer
//! marks them, and the copy finds a byte by counting the marks before it) and sends each
//! owner the indices it wants, each as its offset in the owner's range (4 bytes, so a range
//! holds at most 2^32 positions; an all-to-all exchange with counts). Then each sweep is:
//! the owners answer with the current bytes of the indices asked (an all-to-all exchange),
//! every process sweeps its range with the same operator and walk as a one-process sweep
//! ([`Ctx::sweep_in`]), and an all-reduce
//! adds the positions that rose. A sweep in which nothing rose anywhere read current bytes
//! everywhere, so the bounds are the least fixpoint of the same operator as a one-process
//! build, and the payloads are identical (the sweep counts and times in the header may
//! differ).
//!
//! **Rounds.** The sweep that writes the moves writes, on each process, the reversed quiet
//! moves *of its own positions* (to successors anywhere in the layer) to its own scratch
//! folder (`layer-NN.hyt.moves-R-of-N`), coded and indexed by successor as in a one-process
//! build, and marks the positions that rose. Each round is then: every process sends the
//! positions of its range marked changed (index and byte, 8 bytes) to the processes that
//! asked for them at the start of the layer, which store them in their copies marked
//! changed; then every process runs the round of one process ([`Ctx::round`]):
//! its moves mark its own predecessors of every changed position, local or not, and it
//! evaluates those; an all-reduce adds the positions that rose, and the layer is done when
//! none did anywhere. So no move ever travels: the changes have to reach the processes that
//! read them anyway, and the predecessors that a change concerns on a process are the ones
//! that process's own moves list. A process evaluates a predecessor in the round after its
//! successor changed, with the changed byte in its copy, so the rounds end at the same
//! fixpoint as those of one process, and the payloads are identical.
//!
//! Rank 0 then writes the layer's file, its own range first, then every other range as its
//! process sends it, a piece at a time, and every process reads the file back whole as a
//! smaller layer for the layers above it: the folder must be one that every process sees
//! (one machine, or a shared file system). So a process holds its range (a byte a
//! position), the copy (a byte an index asked of others), the bitmap of the layer (0.17
//! bytes a position), the indices others asked of it (4 bytes each, or a bit for each
//! position of its range where that is fewer: [`AskForm`](ask::AskForm)) and a copy of the
//! smaller layers, which is the limit past what one machine holds.
//!
//! After each sweep that changed something, and during rounds at most every
//! `checkpoint_every`, every process saves its range (without marks) and the step reached
//! (sweeps, then rounds) beside the layer's file (`layer-NN.hyt.mpi-R-of-N`, written whole
//! as `.tmp`, then renamed over the last one); a job started again with the same number of
//! processes starts each range from its saved bytes, and the checkpoints are removed once
//! the layer is written, with the `.tmp` of a save that a stopped job left unfinished. The
//! moves are not kept: after a restart the first sweep writes them again. Any
//! saved bytes are bounds below the fixpoint with sound final marks, so ranges saved at
//! different steps (a job stopped while saving) still lead to the same fixpoint; a
//! checkpoint that does not match its process, range or layer is ignored.
//!
//! A process that fails returns its error without telling the others, which wait in the
//! next exchange: the caller ends the job (`MPI_Abort`), as MPI programs do.

mod ask;
mod checkpoint;
mod gather;

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
use std::time::{Duration, Instant};

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::traits::{Communicator, CommunicatorCollectives, Equivalence, Root};
use mpi::Count;

use rayon::prelude::*;

use super::operator::Ctx;
use super::scratch::{MoveIndex, MoveSink, ScratchDir};
use super::work::{self, Cells, Mirror, Packing, BLOCK, CHANGED, EVAL};
use super::{check_buildable, BuildOptions, LayerStats, Progress};
use crate::error::{io, Inconsistency, TableError, Unsupported};
use crate::format::{
    file_name, key_dir, layers_up_to, step_of, write_layer, BuildCounts, Layer, TableKey,
};
use ask::{ask_piece, asked_count, asked_offsets, is_asked};
use checkpoint::{checkpoint_path, load_checkpoint, remove_checkpoint, save_checkpoint};
use gather::{send_range, Gathered};
use hoyito_rules::Rules;

/// Figures of the exchange of one layer's build over MPI, added over the processes.
#[derive(Clone, Debug, Default)]
pub struct ExchangeStats {
    /// Seeds on the board of the layer.
    pub seeds: usize,
    /// Indices asked of other processes at the start of the layer.
    pub requested: u64,
    /// Bytes those asks took (`ask::AskForm`: 4 an index, or a bit a position of
    /// the owner's range, whichever is fewer).
    pub ask_bytes: u64,
    /// Bytes answered in each sweep (one a requested index).
    pub answered_per_sweep: u64,
    /// Sweeps this job ran (not those before a restart).
    pub sweeps: u32,
    /// Rounds after the sweep that wrote the moves (0: sweeps only).
    pub rounds: u32,
    /// Changed positions sent to the processes that read them in rounds (8 bytes each:
    /// index and byte).
    pub updates: u64,
    /// The step (sweeps and rounds) whose checkpoints the build started from (0: from
    /// nothing).
    pub resumed_at: u32,
    /// Seconds the slowest process spent exchanging: making what it sends, the all-to-all
    /// exchanges (the indices asked, the answers of each sweep, the changes of each round)
    /// and taking in what it got. What an exchange that overlapped the sweep could hide.
    pub exchange_seconds: f64,
    /// Seconds the slowest process waited at the end of the sweeps and rounds for the
    /// others to finish theirs (the all-reduce of the counts): the cost of uneven ranges.
    pub wait_seconds: f64,
}

impl ExchangeStats {
    /// Bytes all processes sent each other for the layer: the indices asked, the answers of
    /// every sweep and the changes of every round (the final gather to rank 0 not counted).
    pub fn bytes_sent(&self) -> u64 {
        self.ask_bytes + self.answered_per_sweep * self.sweeps as u64 + 8 * self.updates
    }
}

/// The settings of a build over MPI.
#[derive(Clone, Debug)]
pub struct MpiOptions {
    /// During rounds, each process saves its range at most this often (after each sweep
    /// always), so that a job stopped resumes from there.
    pub checkpoint_every: Duration,
    /// A process copies another's range whole when it reads at least one position in this
    /// many of it, and only the positions it reads otherwise (0: never whole). A byte of a
    /// range copied whole is found without the copy's map: one cache miss a read instead of
    /// two, for at most this many times the memory of the positions read.
    pub copy_whole_from: u64,
    /// The most bytes a process sends in one step of a sweep's exchange of answers (and so
    /// about the most it receives): the answers travel in steps of this size, so that
    /// neither what a process sends nor what it gets is held whole beside its copy.
    pub answer_step: usize,
}

impl Default for MpiOptions {
    fn default() -> Self {
        MpiOptions {
            checkpoint_every: Duration::from_secs(300),
            copy_whole_from: 4,
            answer_step: 64 << 20,
        }
    }
}

/// [`crate::build_with`] over the processes of `world`, which all call it with the same
/// arguments: every layer up to `max_seeds` for `rules` under `dir`, each layer split over
/// the processes and brought to its fixpoint by sweeps, then rounds as `options.method`
/// plans them (see the module documentation; `options.max_memory` is not checked), written
/// by rank 0, with the settings of `mpi`. Layers already built are kept, as rank 0 finds them. Every process
/// gets the figures of every layer (its `progress` is called as by [`crate::build`], with
/// the counts of all processes added; give the others a [`super::Quiet`]) and those of the
/// exchange.
pub fn build_distributed<C: Communicator>(
    world: &C,
    dir: &Path,
    rules: &Rules,
    max_seeds: usize,
    options: &BuildOptions,
    mpi: &MpiOptions,
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
            let how = How { options, mpi };
            let (s, x) = solve_layer(world, &key, n, &lower, &folder, &path, &how, progress)?;
            // Everyone reads the layer once rank 0 has written it.
            world.barrier();
            remove_checkpoint(&checkpoint_path(&folder, n, world.rank(), world.size()))?;
            let layer = Layer::read(&path, &key, n)?;
            let s = LayerStats {
                file_bytes: layer.file_bytes(),
                positions: layer.layout().count(),
                sweeps: x.sweeps,
                rounds: x.rounds,
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

/// One piece of elements for each process, in one flat buffer (so that a list as long as
/// the layer is held once, not once more for the exchange).
struct Parts<T> {
    /// The pieces one after the other, and one element more: the buffer of an empty vector of
    /// bytes is at address 1, which Open MPI takes for `MPI_IN_PLACE`.
    data: Vec<T>,
    counts: Vec<Count>,
    displs: Vec<Count>,
}

impl<T: Copy + Default> Parts<T> {
    /// The pieces `data[starts[r] .. starts[r + 1]]`, `data` being consumed.
    fn new(mut data: Vec<T>, starts: &[usize]) -> Result<Parts<T>, TableError> {
        let counts = starts
            .windows(2)
            .map(|w| count_of(w[1] - w[0]))
            .collect::<Result<Vec<Count>, _>>()?;
        let displs = offsets(&counts)?;
        data.push(T::default());
        Ok(Parts {
            data,
            counts,
            displs,
        })
    }

    /// The pieces of `pieces`, one a process.
    fn from_pieces(pieces: impl Iterator<Item = Vec<T>>) -> Result<Parts<T>, TableError> {
        let mut data = Vec::new();
        let mut starts = vec![0];
        for piece in pieces {
            data.extend(piece);
            starts.push(data.len());
        }
        Parts::new(data, &starts)
    }

    /// The piece of process `r`.
    fn part(&self, r: usize) -> &[T] {
        let d = self.displs[r] as usize;
        &self.data[d..d + self.counts[r] as usize]
    }

    /// The pieces, in process order.
    fn parts(&self) -> impl Iterator<Item = &[T]> {
        (0..self.counts.len()).map(|r| self.part(r))
    }

    /// Elements in all pieces.
    fn len(&self) -> usize {
        self.data.len() - 1
    }
}

/// Sends the piece `out.part(r)` to process `r` for every `r` and returns what each process
/// sent here, in two all-to-all exchanges (the counts, then the elements).
fn exchange<C: Communicator, T: Equivalence + Copy + Default>(
    world: &C,
    out: &Parts<T>,
) -> Result<Parts<T>, TableError> {
    let mut in_counts = vec![0 as Count; out.counts.len()];
    world.all_to_all_into(&out.counts[..], &mut in_counts[..]);
    let in_displs = offsets(&in_counts)?;
    let total: usize = in_counts.iter().map(|&c| c as usize).sum();
    let mut got = Parts {
        data: vec![T::default(); total + 1],
        counts: in_counts,
        displs: in_displs,
    };
    {
        let send = Partition::new(&out.data[..], &out.counts[..], &out.displs[..]);
        let mut recv = PartitionMut::new(&mut got.data[..], &got.counts[..], &got.displs[..]);
        world.all_to_all_varcount_into(&send, &mut recv);
    }
    Ok(got)
}

/// Sends every process the bytes of this one's range that it asked for (`asked`, `gives[r]`
/// of them for process `r`) and puts those the others send into `copy`, which holds
/// `gets[r]` bytes of process `r`'s range, owner after owner, each in index order: the
/// order the answers come in. The answers travel in steps of at most `step` bytes sent by a
/// process (a share for each other process) and so at most as many received, so that
/// neither what a process sends nor what it gets is ever held whole beside the copy (with
/// two processes and the other range copied whole, that was twice the copy's size again).
fn exchange_answers<C: Communicator>(
    world: &C,
    asked: &Parts<u32>,
    (gives, gets): (&[usize], &[usize]),
    mine: &[AtomicU8],
    copy: &Mirror,
    step: usize,
) -> Result<(), TableError> {
    let size = gives.len();
    let share = (step / size).max(1);
    let local = gives.iter().chain(gets).copied().max().unwrap_or(0) as u64;
    let mut most = 0u64;
    world.all_reduce_into(&local, &mut most, SystemOperation::max());
    let steps = most.div_ceil(share as u64) as usize;
    let mut lists: Vec<_> = asked.parts().map(asked_offsets).collect();
    let mut at = Vec::with_capacity(size);
    let mut held = 0;
    for &g in gets {
        at.push(held);
        held += g;
    }
    debug_assert_eq!(held, copy.len());
    // One element more than any step needs: the buffer of an empty vector is at address 1,
    // which Open MPI takes for `MPI_IN_PLACE` (see [`Parts`]).
    let room = |n: &[usize]| n.iter().map(|&c| c.min(share)).sum::<usize>() + 1;
    let mut send = Vec::with_capacity(room(gives));
    let mut recv = vec![0u8; room(gets)];
    for k in 0..steps {
        let first = k * share;
        let piece = |n: usize| n.saturating_sub(first).min(share);
        send.clear();
        for (list, &n) in lists.iter_mut().zip(gives) {
            send.extend(list.take(piece(n)).map(|o| mine[o as usize].load(Relaxed)));
        }
        send.push(0);
        let counts = |n: &[usize]| -> Result<Vec<Count>, TableError> {
            n.iter().map(|&c| count_of(piece(c))).collect()
        };
        let (send_counts, recv_counts) = (counts(gives)?, counts(gets)?);
        let (send_displs, recv_displs) = (offsets(&send_counts)?, offsets(&recv_counts)?);
        {
            let out = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
            let mut got = PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]);
            world.all_to_all_varcount_into(&out, &mut got);
        }
        for r in (0..size).filter(|&r| recv_counts[r] > 0) {
            let (d, c) = (recv_displs[r] as usize, recv_counts[r] as usize);
            let into = &copy.bytes[at[r] + first..at[r] + first + c];
            into.par_iter()
                .zip(&recv[d..d + c])
                .for_each(|(cell, &w)| cell.store(w, Relaxed));
        }
    }
    Ok(())
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
/// repeats, by the process that owns them, each as its offset in its owner's range; the
/// same positions as a bitmap of the layer (a bit a position), from which a [`Mirror`] is
/// made; and the ranges asked whole (every position of a range of which at least one in
/// `whole_from` is read). `ctx` holds the bytes of `own` only, all still 0 (nothing final),
/// and every other position reads as 0, so [`Ctx::resolve`] hands over every quiet
/// successor that a sweep can read, except those of a position whose exits alone give its
/// mover the largest gain the layer allows: its bounds are then final whatever its quiet
/// successors hold (the opponent's bound is 0), so a sweep may read them as 0 too. They are
/// marked in the bitmap and read back in order, so that no list holds a successor twice.
fn remote_successors(
    ctx: &Ctx,
    pk: Packing,
    own: &Range<u64>,
    bounds: &[u64],
    whole_from: u64,
) -> Result<Listing, TableError> {
    if bounds.len() == 2 {
        // One process: nothing lies outside its range, and the walk would cost a sweep.
        return Ok(Listing {
            wanted: Parts::new(Vec::new(), &[0, 0])?,
            held: Vec::new(),
            whole: Vec::new(),
        });
    }
    if let Some(w) = bounds.windows(2).find(|w| w[1] - w[0] > 1 << 32) {
        return Err(TableError::Unsupported(Unsupported::Range {
            positions: w[1] - w[0],
        }));
    }
    let count = ctx.layout.count();
    let seen = work::huge_vec(count.div_ceil(64) as usize, || AtomicU64::new(0));
    ctx.chunks_in(own.clone(), |start, end, side| {
        ctx.walk(
            std::iter::once(start..end),
            side,
            |_, _| true,
            |_, pending| {
                ctx.resolve(pk, pending, |j| {
                    if !own.contains(&j) {
                        let (word, bit) = (&seen[(j / 64) as usize], 1u64 << (j % 64));
                        if word.load(Relaxed) & bit == 0 {
                            word.fetch_or(bit, Relaxed);
                        }
                    }
                });
            },
        );
    });
    let mut words: Vec<u64> = seen.into_iter().map(AtomicU64::into_inner).collect();
    // The ranges start at multiples of a block, so each word of the bitmap lies in one.
    let mut whole = Vec::new();
    for w in bounds.windows(2) {
        let part = &mut words[(w[0] / 64) as usize..w[1].div_ceil(64) as usize];
        let n: u64 = part.iter().map(|x| x.count_ones() as u64).sum();
        if n > 0 && whole_from > 0 && n * whole_from >= w[1] - w[0] {
            for (k, word) in part.iter_mut().enumerate() {
                let left = w[1] - w[0] - k as u64 * 64;
                *word = if left >= 64 { !0 } else { (1 << left) - 1 };
            }
            whole.push(w[0]..w[1]);
        }
    }
    let pieces: Vec<Vec<u32>> = bounds
        .par_windows(2)
        .map(|w| {
            ask_piece(
                &words[(w[0] / 64) as usize..w[1].div_ceil(64) as usize],
                w[1] - w[0],
            )
        })
        .collect();
    Ok(Listing {
        wanted: Parts::from_pieces(pieces.into_iter())?,
        held: words,
        whole,
    })
}

/// What [`remote_successors`] finds.
struct Listing {
    /// The pieces of indices to ask of each process ([`ask_piece`]).
    wanted: Parts<u32>,
    /// The positions to copy, a bit a position of the layer.
    held: Vec<u64>,
    /// The ranges copied whole.
    whole: Vec<Range<u64>>,
}

/// How every layer is built: the method, and the settings of the build over MPI.
struct How<'a> {
    options: &'a BuildOptions,
    mpi: &'a MpiOptions,
}

/// Solves layer `n` over the processes of `world` and writes its file at `path` (rank 0
/// gathers the ranges into it); all get the figures of the exchange, and rank 0 those of
/// the file.
#[allow(clippy::too_many_arguments)]
fn solve_layer<C: Communicator>(
    world: &C,
    key: &TableKey,
    n: usize,
    lower: &[Option<Layer>],
    folder: &Path,
    path: &Path,
    how: &How,
    progress: &dyn Progress,
) -> Result<(LayerStats, ExchangeStats), TableError> {
    let options = how.options;
    let t0 = Instant::now();
    let (rules, layout) = super::layer_setup(key, n, lower)?;
    let count = layout.count();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let bounds = split(count, size);
    let own = bounds[rank]..bounds[rank + 1];
    let mut bytes = work::alloc(own.end - own.start)?;
    let mine = work::atomic(&mut bytes);
    let step = step_of(n);
    let pk = Packing::new(n / step);
    let mut moves_at = super::moves_at_sweep(options.method, count, false);
    progress.layer_start(n, count);
    progress.layer_plan(n, count, moves_at.is_some());
    let mut stats = LayerStats::started(n, count);

    let Listing {
        wanted,
        held,
        whole,
    } = {
        let cells = Cells::split(own.start, mine, None);
        let ctx = Ctx::new(rules, &layout, step as i32, cells, lower);
        remote_successors(&ctx, pk, &own, &bounds, how.mpi.copy_whole_from)?
    };
    let mut clock = Clock::default();
    let asked = timed(&mut clock.exchange, || exchange(world, &wanted))?;
    // The bytes of each process's range this one holds, and those each asked of this one.
    let gets: Vec<usize> = wanted.parts().map(asked_count).collect();
    let gives: Vec<usize> = asked.parts().map(asked_count).collect();
    drop(wanted);
    let copy = Mirror::new(held, &whole);
    let ctx = Ctx::new(
        rules,
        &layout,
        step as i32,
        Cells::split(own.start, mine, Some(&copy)),
        lower,
    );
    let mut x = ExchangeStats::asked(world, n, &gives, &asked);
    let saved = checkpoint_path(folder, n, world.rank(), world.size());
    stats.sweeps = resume(world, &saved, n, &own, mine);
    x.resumed_at = stats.sweeps;
    if x.resumed_at > 0 {
        // The moves are not kept over a restart: the first sweep writes them again.
        moves_at = moves_at.map(|k| k.max(x.resumed_at + 1));
    }
    let scratch = match moves_at {
        Some(_) => Some(moves_dir(folder, n, rank, size)?),
        None => None,
    };
    let plan = Sweeps {
        n,
        count,
        own: &own,
        asked: &asked,
        gives: &gives,
        gets: &gets,
        copy: &copy,
        saved: &saved,
        scratch: scratch.as_ref(),
        moves_at,
    };
    let mut tally = Tally {
        stats: &mut stats,
        exchange: &mut x,
        clock: &mut clock,
    };
    run_to_fixpoint(world, &ctx, pk, mine, &plan, how, progress, &mut tally)?;
    drop(ctx);
    drop(copy);
    drop(asked);
    (x.exchange_seconds, x.wait_seconds) = slowest(world, &clock);
    let total = histogram_over_all(world, n, mine, pk)?;
    if rank != 0 {
        send_range(world, mine);
        return Ok((LayerStats::started(n, 0), x));
    }
    let counts = BuildCounts {
        sweeps: stats.sweeps,
        rounds: stats.rounds,
        millis: t0.elapsed().as_millis() as u64,
    };
    let mut from = Gathered::new(world, &bounds, mine);
    write_layer(path, key, &layout, counts, total, |i| pk.code(from.byte(i)))?;
    stats.file_bytes = std::fs::metadata(path).map_err(io(path))?.len();
    stats.seconds = t0.elapsed().as_secs_f64();
    Ok((stats, x))
}

impl ExchangeStats {
    /// The figures of the asks of layer `n`, added over the processes: this one answers
    /// `gives[r]` bytes to process `r` each sweep, and was asked by the pieces `asked`.
    fn asked<C: Communicator>(
        world: &C,
        n: usize,
        gives: &[usize],
        asked: &Parts<u32>,
    ) -> ExchangeStats {
        let mut x = ExchangeStats {
            seeds: n,
            ..ExchangeStats::default()
        };
        let mut sums = [0u64; 2];
        world.all_reduce_into(
            &[gives.iter().sum::<usize>() as u64, 4 * asked.len() as u64][..],
            &mut sums[..],
            SystemOperation::sum(),
        );
        [x.requested, x.ask_bytes] = sums;
        x.answered_per_sweep = x.requested;
        x
    }
}

/// The scratch folder of process `rank` of `size` for the moves of layer `n`: each process
/// writes the moves of its own range (to successors anywhere) to its own.
fn moves_dir(folder: &Path, n: usize, rank: usize, size: usize) -> Result<ScratchDir, TableError> {
    ScratchDir::at(folder.join(format!("{}.moves-{rank}-of-{size}", file_name(n))))
}

/// What the sweeps of one process need beside the layer (of `n` seeds, `count`
/// positions): its range, the indices asked of it and the bytes it gives and gets from each
/// process, the copy of what it reads of other ranges, where it saves its range, and where
/// and from which sweep it writes its moves.
struct Sweeps<'a> {
    n: usize,
    count: u64,
    own: &'a Range<u64>,
    asked: &'a Parts<u32>,
    gives: &'a [usize],
    gets: &'a [usize],
    copy: &'a Mirror,
    saved: &'a Path,
    scratch: Option<&'a ScratchDir>,
    moves_at: Option<u32>,
}

/// Sweeps over the processes until one changes nothing anywhere, or until the sweep that
/// writes the moves; then rounds ([`run_rounds`]) until the fixpoint. Each sweep starts
/// with the answers to the asks ([`exchange_answers`]); a sweep that changed something is
/// saved ([`save_checkpoint`]).
#[allow(clippy::too_many_arguments)]
fn run_to_fixpoint<C: Communicator>(
    world: &C,
    ctx: &Ctx,
    pk: Packing,
    mine: &[AtomicU8],
    plan: &Sweeps,
    how: &How,
    progress: &dyn Progress,
    tally: &mut Tally,
) -> Result<(), TableError> {
    let (n, count) = (plan.n, plan.count);
    let options = how.options;
    let mut moves = None;
    loop {
        tally.stats.sweeps += 1;
        tally.exchange.sweeps += 1;
        progress.sweep_start(n, tally.stats.sweeps);
        let step = how.mpi.answer_step;
        timed(&mut tally.clock.exchange, || {
            exchange_answers(
                world,
                plan.asked,
                (plan.gives, plan.gets),
                mine,
                plan.copy,
                step,
            )
        })?;
        let sink = match (plan.scratch, plan.moves_at) {
            (Some(dir), Some(k)) if tally.stats.sweeps >= k => Some(MoveSink::create(
                dir,
                count,
                super::file_positions(options.method),
            )?),
            _ => None,
        };
        let (evaluated, changed) =
            ctx.sweep_in(plan.own.clone(), pk, sink.as_ref(), progress, false);
        let (evaluated, changed) = timed(&mut tally.clock.wait, || {
            totals(world, ctx, n, evaluated, changed)
        })?;
        progress.sweep_end(n, tally.stats.sweeps, evaluated, changed);
        tally.stats.evaluations += evaluated;
        if let Some(sink) = sink {
            let m = sink.finish(count)?;
            let mut sums = [0u64; 2];
            world.all_reduce_into(
                &[m.peak_bytes, m.moves][..],
                &mut sums[..],
                SystemOperation::sum(),
            );
            [tally.stats.scratch_bytes, tally.stats.scratch_moves] = sums;
            moves = Some(m);
            break;
        }
        if changed == 0 {
            break;
        }
        save_checkpoint(
            plan.saved,
            n,
            world.size(),
            plan.own,
            tally.stats.sweeps,
            mine,
            !0,
        )?;
    }
    if let Some(moves) = moves {
        let rounds = Rounds {
            own: plan.own,
            asked: plan.asked,
            saved: plan.saved,
            every: how.mpi.checkpoint_every,
        };
        run_rounds(world, ctx, pk, &moves, &rounds, progress, tally)?;
        drop(moves);
        if let Some(scratch) = plan.scratch {
            scratch.remove()?;
        }
    }
    Ok(())
}

/// The sweeps a job resumes after: each process loads its range of layer `n` from its
/// checkpoint `saved` if that is there, whole and for this range, and all take the largest
/// step saved (0: none).
fn resume<C: Communicator>(
    world: &C,
    saved: &Path,
    n: usize,
    own: &Range<u64>,
    mine: &[AtomicU8],
) -> u32 {
    let mut resumed = 0u32;
    if let Some((sweep, bytes)) = load_checkpoint(saved, n, world.size(), own) {
        for (cell, w) in mine.iter().zip(bytes) {
            cell.store(w, Relaxed);
        }
        resumed = sweep;
    }
    let mut most = 0u32;
    world.all_reduce_into(&resumed, &mut most, SystemOperation::max());
    most
}

/// The most time any process spent exchanging, and waiting for the others, in seconds.
fn slowest<C: Communicator>(world: &C, clock: &Clock) -> (f64, f64) {
    let mut most = [0f64; 2];
    world.all_reduce_into(
        &[clock.exchange.as_secs_f64(), clock.wait.as_secs_f64()][..],
        &mut most[..],
        SystemOperation::max(),
    );
    (most[0], most[1])
}

/// The histogram of the codes of layer `n` over all processes, each counting its range
/// (`mine`); an error on every process if any holds an inconsistent byte.
fn histogram_over_all<C: Communicator>(
    world: &C,
    n: usize,
    mine: &[AtomicU8],
    pk: Packing,
) -> Result<Vec<u64>, TableError> {
    let (mut histogram, bad) = super::code_counts(mine, pk);
    let mut total = vec![0u64; histogram.len() + 1];
    histogram.push(bad);
    world.all_reduce_into(&histogram[..], &mut total[..], SystemOperation::sum());
    let bad = total.pop().unwrap_or(0);
    super::consistent(n, bad)?;
    Ok(total)
}

/// The positions evaluated and those that rose in one step of layer `n`, added over the
/// processes; on every process an error if any found a capture into a missing layer.
fn totals<C: Communicator>(
    world: &C,
    ctx: &Ctx,
    n: usize,
    evaluated: u64,
    changed: u64,
) -> Result<(u64, u64), TableError> {
    let missing = u64::from(ctx.check_exits().is_err());
    let mut total = [0u64; 3];
    world.all_reduce_into(
        &[evaluated, changed, missing][..],
        &mut total[..],
        SystemOperation::sum(),
    );
    if total[2] > 0 {
        return Err(TableError::Inconsistent(
            Inconsistency::ExitToMissingLayer { seeds: n },
        ));
    }
    Ok((total[0], total[1]))
}

/// What the rounds of one process need beside the layer: its range, the indices each other
/// process asked of it, and where and how often, at most, it saves its range (a round costs
/// far less than a sweep, and a save writes the whole range).
struct Rounds<'a> {
    own: &'a Range<u64>,
    asked: &'a Parts<u32>,
    saved: &'a Path,
    every: Duration,
}

/// Rounds over the processes until one changes nothing anywhere. Each round, every process
/// sends the positions of its range that rose in the last step (index and byte) to the
/// processes that read them, marks them changed in its copy, and then runs the round of
/// one process ([`Ctx::round`]): its moves, those of its own positions, mark the
/// predecessors of every changed position it reads, and it evaluates those, all in its
/// range. No move is ever sent.
fn run_rounds<C: Communicator>(
    world: &C,
    ctx: &Ctx,
    pk: Packing,
    moves: &MoveIndex,
    plan: &Rounds,
    progress: &dyn Progress,
    tally: &mut Tally,
) -> Result<(), TableError> {
    let Tally {
        stats,
        exchange: x,
        clock,
    } = tally;
    let n = stats.seeds;
    let own = plan.own;
    ctx.start_rounds(pk);
    let mut last_save = Instant::now();
    let mut updates = 0u64;
    loop {
        stats.rounds += 1;
        let got = timed(&mut clock.exchange, || {
            let changes = own_changes(ctx, own);
            let out = Parts::from_pieces(plan.asked.parts().map(|ix| {
                changes
                    .iter()
                    .filter(|&&c| is_asked(ix, ((c >> 8) - own.start) as u32))
                    .copied()
                    .collect()
            }))?;
            updates += out.len() as u64;
            let got = exchange(world, &out)?;
            for &c in &got.data[..got.len()] {
                let i = c >> 8;
                ctx.cells.get(i).store(c as u8 | CHANGED, Relaxed);
                ctx.changed_blocks.mark(i);
            }
            Ok::<_, TableError>(got)
        })?;
        let received = &got.data[..got.len()];
        let (evaluated, changed) = ctx.round(pk, moves)?;
        // The round evaluates and clears the marks of the own range only.
        for &c in received {
            ctx.cells.get(c >> 8).fetch_and(!CHANGED, Relaxed);
        }
        let (evaluated, changed) = timed(&mut clock.wait, || {
            totals(world, ctx, n, evaluated, changed)
        })?;
        progress.round_end(n, stats.rounds, evaluated, changed);
        stats.evaluations += evaluated;
        if changed == 0 {
            break;
        }
        // Rank 0 decides when to save, so that all save after the same round.
        let mut save = u8::from(world.rank() == 0 && last_save.elapsed() >= plan.every);
        world.process_at_rank(0).broadcast_into(&mut save);
        if save == 1 {
            let mine = ctx.cells.own();
            let step = stats.sweeps + stats.rounds;
            let keep = !(EVAL | CHANGED);
            save_checkpoint(plan.saved, n, world.size(), own, step, mine, keep)?;
            last_save = Instant::now();
        }
    }
    x.rounds = stats.rounds;
    world.all_reduce_into(&updates, &mut x.updates, SystemOperation::sum());
    Ok(())
}

/// What the rounds add to: the layer's counts, the exchange's and the clock.
struct Tally<'a> {
    stats: &'a mut LayerStats,
    exchange: &'a mut ExchangeStats,
    clock: &'a mut Clock,
}

/// The time one process spends exchanging, and waiting for the others (see
/// [`ExchangeStats::exchange_seconds`] and [`ExchangeStats::wait_seconds`]).
#[derive(Default)]
struct Clock {
    exchange: Duration,
    wait: Duration,
}

/// Runs `f` and adds its time to `spent` (a [`Clock`]'s exchange or wait).
fn timed<T>(spent: &mut Duration, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    *spent += t.elapsed();
    r
}

/// The positions of `own` marked changed, each as its index shifted left by 8 bits over its
/// byte without marks, in index order.
fn own_changes(ctx: &Ctx, own: &Range<u64>) -> Vec<u64> {
    let blocks = own.start / BLOCK..own.end.div_ceil(BLOCK);
    blocks
        .into_par_iter()
        .filter(|&b| ctx.changed_blocks.get(b))
        .flat_map_iter(|b| {
            (b * BLOCK..((b + 1) * BLOCK).min(own.end)).filter_map(|i| {
                let w = ctx.cells.get(i).load(Relaxed);
                (w & CHANGED != 0).then_some(i << 8 | (w & !(EVAL | CHANGED)) as u64)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
