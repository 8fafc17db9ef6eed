//! The scratch moves of a build with rounds: every quiet move between positions that are
//! not final, reversed (successor, predecessor), one file (or, for a build in memory, one
//! vector) per range of successors; then sorted and indexed by blocks of successors, so
//! that a round reads only the moves into the blocks that changed.
//!
//! **On disk the moves are coded**, about 4 bytes a move instead of the 8 or 10 of a pair
//! of indices (see [`coding`]). While a sweep writes them, each piece of the sweep appends
//! to each file one *run*: its moves into that file's successors, sorted by successor,
//! the gaps between successors Rice-coded and each predecessor as a fixed-width offset
//! from the run's smallest (a piece covers a short range of predecessors). When the sweep
//! ends, each file is read, decoded, sorted and coded again block by block (see
//! [`code_blocks`]): the number of predecessors of each successor of the block in unary,
//! then the predecessors, successor by successor, each in the fixed width of an index of
//! the layer. Every block starts on a byte, so a round reads only the blocks it needs; and
//! in a block it finds the predecessors of a successor from the counts alone, so that it
//! decodes only those of the successors that changed, not every move of the block.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;

use super::work::BLOCK;
use crate::error::{corrupt, io, Damage, TableError};
use coding::{BitReader, BitWriter};

/// Most move files of a layer. More files make each one smaller to sort in memory.
pub(super) const MAX_MOVE_FILES: u64 = 1000;

/// Bits of a predecessor's index in a [`record`].
const PRED_BITS: u32 = 35;

/// Positions of the largest layer that rounds take: a predecessor's index must fit
/// [`PRED_BITS`] (2^35, beyond the 36-seed layer of 2x6 under symmetric rules).
pub(super) const MAX_ROUND_POSITIONS: u64 = 1 << PRED_BITS;

/// Bits of a predecessor's offset in a piece of a sweep ([`piece_move`]).
const PIECE_BITS: u32 = 16;
const _: () = assert!(super::operator::CHUNK <= 1 << PIECE_BITS);

/// A move of one piece of a sweep as [`MoveSink::write`] takes it: the successor's index,
/// then the predecessor's offset from the piece's first position.
#[inline(always)]
pub(super) fn piece_move(successor: u64, offset: u64) -> u64 {
    successor << PIECE_BITS | offset
}

/// Bits of a successor's offset in its block.
const OFFSET_BITS: u32 = BLOCK.trailing_zeros();

/// Bits of the index of a position of a layer of `count` positions (at least 1).
fn index_bits(count: u64) -> u32 {
    (64 - count.saturating_sub(1).leading_zeros()).max(1)
}

/// A reversed move of one bucket as sorted in memory: the successor in the high bits, then
/// the predecessor's index; so that sorting the records groups them by block and, within a
/// block, by successor, then predecessor. `successor` counts from the bucket's first
/// successor (buckets hold fewer than 2^29 successors: see [`MoveSink::create`]).
#[inline(always)]
fn record(successor: u64, predecessor: u64) -> u64 {
    (successor << PRED_BITS) | predecessor
}

/// The block in the bucket, the predecessor and the offset in the block of a [`record`].
#[inline(always)]
fn split(record: u64) -> (u64, u64, u64) {
    let successor = record >> PRED_BITS;
    (
        successor / BLOCK,
        record & ((1 << PRED_BITS) - 1),
        successor % BLOCK,
    )
}

/// Where a layer's scratch moves go. On disk, the folder beside the layer's file: removed
/// when the layer starts (what a killed build left) and when this is dropped, however the
/// layer ends (a full disk, an error, a panic), so that tens of gigabytes are not left
/// behind. In memory (`None`), vectors of 8 bytes a move, for small layers.
pub(super) struct ScratchDir(Option<PathBuf>);

impl ScratchDir {
    /// The scratch folder of the layer file `layer`, emptied.
    pub(super) fn new(layer: &Path) -> Result<ScratchDir, TableError> {
        ScratchDir::at(layer.with_extension("moves"))
    }

    /// The scratch folder `dir`, emptied (a build over MPI gives each process its own).
    pub(super) fn at(dir: PathBuf) -> Result<ScratchDir, TableError> {
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
        }
        Ok(ScratchDir(Some(dir)))
    }

    /// Moves kept in memory: no file anywhere.
    pub(super) fn memory() -> ScratchDir {
        ScratchDir(None)
    }

    /// Whether the moves are kept in memory.
    pub(super) fn in_memory(&self) -> bool {
        self.0.is_none()
    }

    /// Removes the folder, reporting an error (dropping it ignores errors).
    pub(super) fn remove(&self) -> Result<(), TableError> {
        match &self.0 {
            Some(dir) if dir.exists() => std::fs::remove_dir_all(dir).map_err(io(dir)),
            _ => Ok(()),
        }
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        if let Some(dir) = self.0.as_ref().filter(|d| d.exists()) {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Where the moves of one range of successors are written.
enum BucketSink {
    /// Coded runs appended to a file, how many moves they hold and the sum of their
    /// checksums ([`sum_of`]).
    File(PathBuf, Mutex<(BufWriter<File>, u64, u64)>),
    /// [`record`]s.
    Memory(Mutex<Vec<u64>>),
}

/// The move files (or vectors) being written.
pub(super) struct MoveSink {
    files: Vec<BucketSink>,
    per_bucket: u64,
    /// Bits of a successor's index ([`index_bits`] of the layer's count).
    successor_bits: u32,
    /// Bytes written to the files.
    bytes: AtomicU64,
    error: Mutex<Option<TableError>>,
}

impl MoveSink {
    /// Files in `dir` for `count` positions (under [`MAX_ROUND_POSITIONS`]), about `target`
    /// successors a file (at most [`MAX_MOVE_FILES`], fewer than a process may usually open).
    pub(super) fn create(
        dir: &ScratchDir,
        count: u64,
        target: u64,
    ) -> Result<MoveSink, TableError> {
        debug_assert!(count <= MAX_ROUND_POSITIONS);
        if let Some(dir) = &dir.0 {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        let wanted = count.div_ceil(target.max(1)).clamp(1, MAX_MOVE_FILES);
        // Whole blocks of successors a file, so that a file's blocks are blocks of the layer;
        // at most 2^35 / 1000 (or `target`) successors, far below the 2^29 of a record.
        let per_bucket = count.div_ceil(wanted).next_multiple_of(BLOCK);
        let buckets = count.div_ceil(per_bucket).max(1);
        let mut files = Vec::new();
        for b in 0..buckets {
            files.push(match &dir.0 {
                Some(dir) => {
                    let path = dir.join(format!("moves-{b:03}.bin"));
                    let f = File::create(&path).map_err(io(&path))?;
                    BucketSink::File(
                        path,
                        Mutex::new((BufWriter::with_capacity(1 << 16, f), 0, 0)),
                    )
                }
                None => BucketSink::Memory(Mutex::new(Vec::new())),
            });
        }
        Ok(MoveSink {
            files,
            per_bucket,
            successor_bits: index_bits(count),
            bytes: AtomicU64::new(0),
            error: Mutex::new(None),
        })
    }

    /// Appends `moves` ([`piece_move`]s) of the piece of a sweep whose first position is
    /// `first`, to their files (and empties it). The first error is kept for
    /// [`MoveSink::finish`].
    pub(super) fn write(&self, first: u64, moves: &mut Vec<u64>) {
        // By successor, the runs' order (the order of one successor's predecessors does not
        // matter: each file is sorted whole before the rounds read it).
        ROOM.with_borrow_mut(|room| radix_sort(moves, room, PIECE_BITS, self.successor_bits));
        let mut rest = &moves[..];
        let mut pairs = Vec::new();
        let unpack = |m: u64| (m >> PIECE_BITS, first + (m & ((1 << PIECE_BITS) - 1)));
        while let Some(&m) = rest.first() {
            let b = unpack(m).0 / self.per_bucket;
            let start = b * self.per_bucket;
            let end = piece_move(start + self.per_bucket, 0);
            let n = rest.partition_point(|&m| m < end);
            match &self.files[(b as usize).min(self.files.len() - 1)] {
                BucketSink::File(path, w) => {
                    pairs.clear();
                    pairs.extend(rest[..n].iter().map(|&m| {
                        let (s, p) = unpack(m);
                        (s - start, p)
                    }));
                    let mut out = BitWriter::default();
                    coding::put_run(&mut out, &pairs);
                    let bytes = out.finish();
                    self.bytes.fetch_add(bytes.len() as u64, Relaxed);
                    let sum = sum_of(&bytes);
                    let mut w = w.lock().unwrap_or_else(|e| e.into_inner());
                    w.1 += n as u64;
                    w.2 = w.2.wrapping_add(sum);
                    if let Err(e) = w.0.write_all(&bytes) {
                        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
                        slot.get_or_insert(io(path)(e));
                    }
                }
                BucketSink::Memory(v) => {
                    let mut v = v.lock().unwrap_or_else(|e| e.into_inner());
                    v.extend(rest[..n].iter().map(|&m| {
                        let (s, p) = unpack(m);
                        record(s - start, p)
                    }));
                }
            }
            rest = &rest[n..];
        }
        moves.clear();
    }

    /// Flushes and closes the files, then sorts, codes and indexes them.
    pub(super) fn finish(self, count: u64) -> Result<MoveIndex, TableError> {
        if let Some(e) = self.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        let mut stores = Vec::new();
        for sink in self.files {
            stores.push(match sink {
                BucketSink::File(path, w) => {
                    let (mut w, moves, sum) = w.into_inner().unwrap_or_else(|e| e.into_inner());
                    w.flush().map_err(io(&path))?;
                    (Moves::File(path), moves, sum)
                }
                BucketSink::Memory(v) => {
                    let v = v.into_inner().unwrap_or_else(|e| e.into_inner());
                    let moves = v.len() as u64;
                    (Moves::Memory(v), moves, 0)
                }
            });
        }
        let written = self.bytes.into_inner();
        MoveIndex::build(stores, self.per_bucket, count, written)
    }
}

thread_local! {
    /// Room for the sorts of [`MoveSink::write`], one a thread, kept between pieces.
    static ROOM: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Sorts `keys` by their bits `shift .. shift + bits`, stably (keys equal there keep their
/// order), by passes of at most 11 bits over `room` (a least-significant-digit radix sort;
/// the digits of every pass are counted in one read, and a pass where every key has the
/// same digit is left out). `keys` may come back in `room`'s allocation and `room` in
/// theirs.
fn radix_sort(keys: &mut Vec<u64>, room: &mut Vec<u64>, shift: u32, bits: u32) {
    const DIGIT: u32 = 11;
    const MOST: usize = 4;
    let passes = bits.div_ceil(DIGIT).max(1) as usize;
    assert!(passes <= MOST, "at most {} bits", MOST as u32 * DIGIT);
    let width = bits.div_ceil(passes as u32);
    let mask = (1u64 << width) - 1;
    let digit = |k: u64, pass: usize| ((k >> (shift + pass as u32 * width)) & mask) as usize;
    let mut counts = vec![0usize; passes << width];
    for &k in keys.iter() {
        for pass in 0..passes {
            counts[pass << width | digit(k, pass)] += 1;
        }
    }
    for (pass, counts) in counts.chunks_mut(1 << width).enumerate() {
        if counts.contains(&keys.len()) {
            continue;
        }
        let mut sum = 0;
        for n in counts.iter_mut() {
            (*n, sum) = (sum, sum + *n);
        }
        // Every slot is written once (the counts are a permutation's), so the room need
        // not be cleared first, only be long enough.
        if room.len() < keys.len() {
            room.resize(keys.len(), 0);
        }
        room.truncate(keys.len());
        for &k in keys.iter() {
            let slot = &mut counts[digit(k, pass)];
            room[*slot] = k;
            *slot += 1;
        }
        std::mem::swap(keys, room);
    }
}

/// The moves of one bucket: a file (of runs while written, of blocks once indexed), or the
/// [`record`]s in memory.
enum Moves {
    File(PathBuf),
    Memory(Vec<u64>),
}

/// A checksum of `bytes`: a change of any one 8-byte word (any one bit) changes it. Four
/// lanes take a word each in turn (so that four multiplications run at once), each step a
/// bijection of the lane's state and of the word; the lanes are then folded into one by
/// steps that are bijections of each lane.
pub(super) fn sum_of(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    #[inline(always)]
    fn step(h: u64, w: u64) -> u64 {
        ((h ^ w).wrapping_mul(K)).rotate_left(29)
    }
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("8 bytes"));
    let len = (bytes.len() as u64).wrapping_mul(K);
    let mut lanes = [len, len ^ 1, len ^ 2, len ^ 3];
    let mut quads = bytes.chunks_exact(32);
    for q in &mut quads {
        for (l, h) in lanes.iter_mut().enumerate() {
            *h = step(*h, word(&q[8 * l..8 * l + 8]));
        }
    }
    let mut words = quads.remainder().chunks_exact(8);
    let mut h = lanes[0];
    for w in &mut words {
        h = step(h, word(w));
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    h = step(h, u64::from_le_bytes(tail));
    for &lane in &lanes[1..] {
        h = step(h, lane);
    }
    h ^ h >> 32
}

/// The checksum of a coded block kept in memory: [`sum_of`] folded to 32 bits.
fn block_sum(bytes: &[u8]) -> u32 {
    sum_of(bytes) as u32
}

/// Reads the runs of a move file as written by the sweep, holding `moves` moves whose runs'
/// checksums add up to `sum` ([`sum_of`], wrapping), as [`record`]s; a file holding
/// another number of moves, or other runs, is damaged. Both vectors are allocated once
/// at their size: one that grew while the file was read would take up to twice the
/// records' bytes, and its copy as much again, for each thread sorting a file.
fn read_runs(path: &Path, moves: u64, sum: u64) -> Result<Vec<u64>, TableError> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    let mut records = Vec::with_capacity(moves as usize);
    let mut r = BitReader::new(&bytes);
    let (mut found, mut decoded) = (0u64, 0u64);
    while !r.at_end() {
        let start = r.byte() as usize;
        coding::get_run(&mut r, |s, p| {
            decoded += 1;
            if decoded <= moves {
                records.push(record(s, p))
            }
        })
        .ok_or_else(|| corrupt(path, Damage::BadMoves { at: r.byte() }))?;
        r.align();
        found = found.wrapping_add(sum_of(&bytes[start..r.byte() as usize]));
    }
    // A file that lost runs (or gained some, or had one changed) since the sweep wrote it.
    if decoded != moves || found != sum || r.byte() != bytes.len() as u64 {
        return Err(corrupt(
            path,
            Damage::BadMoves {
                at: bytes.len() as u64,
            },
        ));
    }
    Ok(records)
}

/// One bucket of sorted moves and where each block of successors starts in it (in bytes
/// of its file, or in records in memory).
pub(super) struct MoveBucket {
    moves: Moves,
    offsets: Vec<u32>,
    /// The checksum ([`sum_of`]) of each coded block of a file, checked at each read: a
    /// damaged block is an error, never moves made up.
    sums: Vec<u32>,
}

/// The reversed quiet moves, sorted by successor, with a block index (4 bytes, and 4 of
/// checksum, for every block of [`BLOCK`] positions, in memory).
pub(super) struct MoveIndex {
    pub(super) buckets: Vec<MoveBucket>,
    per_bucket: u64,
    /// Bytes of scratch at the peak: the moves as the sweep wrote them, or as indexed if
    /// that is more (8 bytes a move in memory).
    pub(super) peak_bytes: u64,
    /// Moves kept (repeats dropped).
    pub(super) moves: u64,
    /// Positions of the layer (a predecessor takes [`index_bits`] of it in a coded block).
    count: u64,
}

impl MoveIndex {
    /// Sorts each file (one at a time per thread, so memory holds at most one file per
    /// thread), drops repeated moves, codes the blocks and indexes them. `stores` holds
    /// each bucket's moves as the sweep wrote them (runs in a file), with their number and
    /// the sum of the runs' checksums.
    fn build(
        stores: Vec<(Moves, u64, u64)>,
        per_bucket: u64,
        count: u64,
        written: u64,
    ) -> Result<MoveIndex, TableError> {
        let kept = AtomicU64::new(0);
        let coded = AtomicU64::new(0);
        let buckets = stores
            .into_par_iter()
            .enumerate()
            .map(|(b, store)| -> Result<MoveBucket, TableError> {
                let (mut moves, store_path) = match store {
                    (Moves::File(path), moves, sum) => (read_runs(&path, moves, sum)?, Some(path)),
                    (Moves::Memory(moves), _, _) => (moves, None),
                };
                // In place: a radix sort would need as many bytes again, a file's worth a
                // thread.
                moves.sort_unstable();
                moves.dedup();
                kept.fetch_add(moves.len() as u64, Relaxed);
                let first = b as u64 * per_bucket;
                let last = (first + per_bucket).min(count);
                let blocks = (last - first).div_ceil(BLOCK) as usize;
                let Some(path) = store_path else {
                    let offsets = block_starts(&moves, blocks);
                    return Ok(MoveBucket {
                        moves: Moves::Memory(moves),
                        offsets,
                        sums: Vec::new(),
                    });
                };
                let (bytes, offsets, sums) = code_blocks(&moves, blocks, index_bits(count))
                    .ok_or_else(|| io(&path)(std::io::Error::other("a move file over 4 GiB")))?;
                drop(moves);
                coded.fetch_add(bytes.len() as u64, Relaxed);
                overwrite(&path, &bytes).map_err(io(&path))?;
                drop(bytes);
                Ok(MoveBucket {
                    moves: Moves::File(path),
                    offsets,
                    sums,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let moves = kept.into_inner();
        let peak_bytes = if buckets.iter().any(|b| matches!(b.moves, Moves::Memory(_))) {
            8 * moves
        } else {
            written.max(coded.into_inner())
        };
        Ok(MoveIndex {
            buckets,
            per_bucket,
            peak_bytes,
            moves,
            count,
        })
    }

    /// The global block of block 0 of bucket `b` (buckets hold whole blocks).
    pub(super) fn first_block(&self, b: usize) -> u64 {
        b as u64 * self.per_bucket / BLOCK
    }
}

/// Writes `bytes` over the file at `path` from its start, then cuts it to their length:
/// the pages of the file already in the page cache are written again rather than freed
/// and taken anew (on this project's ext4 machine, 700 MB written over a file took a
/// quarter of the time of the same bytes written after truncating it).
fn overwrite(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    file.write_all(bytes)?;
    file.set_len(bytes.len() as u64)
}

/// Where each of `blocks` blocks starts among the sorted `records` kept in memory (and
/// where the last ends), in records (a build in memory holds far fewer than 2^32 moves).
fn block_starts(records: &[u64], blocks: usize) -> Vec<u32> {
    let mut offsets = vec![0u32; blocks + 1];
    let mut i = 0;
    for (k, off) in offsets.iter_mut().enumerate() {
        while i < records.len() && split(records[i]).0 < k as u64 {
            i += 1;
        }
        *off = i as u32;
    }
    offsets
}

/// Codes sorted `records` block by block (each block from a byte boundary); returns the
/// bytes, where each block starts in them and each block's checksum ([`block_sum`]).
/// `None` if they pass 4 GiB (about a billion moves in one file, far more than
/// [`MAX_MOVE_FILES`] files of a layer under [`MAX_ROUND_POSITIONS`] hold).
///
/// A block that holds moves is coded as
///
/// ```text
/// s: successors coded (the last one with a move, plus one), in OFFSET_BITS + 1 bits
/// m: moves of the block (as BitWriter::put_number)
/// for each of the s successors: its number of predecessors in unary
/// the m predecessors, successor by successor (each one's sorted), in `pred_bits` bits each
/// ```
///
/// so that the predecessors of one successor are found from the counts before it, at a
/// known place, without decoding the others: `pred_bits` plus a little over one bit a move
/// (the layer's index width, where a Rice-coded gap costs about as much: the moves are
/// nearly random pairs).
fn code_blocks(
    records: &[u64],
    blocks: usize,
    pred_bits: u32,
) -> Option<(Vec<u8>, Vec<u32>, Vec<u32>)> {
    let mut out = BitWriter::default();
    let mut offsets = Vec::with_capacity(blocks + 1);
    let mut i = 0;
    for k in 0..blocks as u64 {
        offsets.push(u32::try_from(out.bytes()).ok()?);
        let start = i;
        while i < records.len() && split(records[i]).0 == k {
            i += 1;
        }
        let block = &records[start..i];
        let Some(&last) = block.last() else {
            continue;
        };
        let coded = split(last).2 + 1;
        out.put(coded, OFFSET_BITS + 1);
        out.put_number(block.len() as u64);
        let mut j = 0;
        for offset in 0..coded {
            let from = j;
            while j < block.len() && split(block[j]).2 == offset {
                j += 1;
            }
            out.put_unary((j - from) as u64);
        }
        for &r in block {
            coding::put_wide(&mut out, split(r).1, pred_bits);
        }
        out.align();
    }
    offsets.push(u32::try_from(out.bytes()).ok()?);
    let bytes = out.finish();
    let sums = offsets
        .windows(2)
        .map(|w| block_sum(&bytes[w[0] as usize..w[1] as usize]))
        .collect();
    Some((bytes, offsets, sums))
}

/// The `bits` bits (at most 57) of `bytes` from bit `at` on, as [`BitWriter`] wrote them;
/// `None` past the end.
#[inline(always)]
fn bits_at(bytes: &[u8], at: u64, bits: u32) -> Option<u64> {
    let byte = usize::try_from(at / 8).ok()?;
    let shift = (at % 8) as u32;
    if (at + bits as u64).div_ceil(8) > bytes.len() as u64 {
        return None;
    }
    let word = match bytes.get(byte..byte + 8) {
        Some(w) => u64::from_le_bytes(w.try_into().expect("8 bytes")),
        None => {
            let mut w = [0u8; 8];
            let tail = &bytes[byte..];
            w[..tail.len()].copy_from_slice(tail);
            u64::from_le_bytes(w)
        }
    };
    Some((word >> shift) & ((1u64 << bits) - 1))
}

/// Calls `f(offset, predecessor)` for every move of the coded block `bytes` (see
/// [`code_blocks`]) into a successor at `offset` in the block for which `wanted(offset)`,
/// decoding only those predecessors; `None` if the bytes do not make a block of moves of
/// indices under `count`.
fn read_block(
    bytes: &[u8],
    pred_bits: u32,
    count: u64,
    mut wanted: impl FnMut(u64) -> bool,
    mut f: impl FnMut(u64, u64),
) -> Option<()> {
    let mut r = BitReader::new(bytes);
    let coded = r.get(OFFSET_BITS + 1)?;
    let moves = r.get_number()?;
    if coded == 0 || coded > BLOCK || moves == 0 {
        return None;
    }
    let mut spans = [(0u32, 0u32); BLOCK as usize];
    let mut before = 0u64;
    for offset in 0..coded {
        let n = r.get_unary()?;
        if n > 0 && wanted(offset) {
            spans[offset as usize] = (u32::try_from(before).ok()?, n as u32);
        }
        before = before.checked_add(n)?;
    }
    let start = r.bit();
    // The block ends with the last predecessor (and its byte's padding).
    let end = start.checked_add(moves.checked_mul(pred_bits as u64)?)?;
    if before != moves || end.div_ceil(8) != bytes.len() as u64 {
        return None;
    }
    for (offset, &(first, n)) in spans[..coded as usize].iter().enumerate() {
        for k in first as u64..first as u64 + n as u64 {
            let p = bits_at(bytes, start + k * pred_bits as u64, pred_bits)?;
            if p >= count {
                return None;
            }
            f(offset as u64, p);
        }
    }
    Some(())
}

/// Reads the moves of a bucket block by block, opening its file (if on disk) at the first
/// read.
pub(super) struct BucketReader<'a> {
    bucket: &'a MoveBucket,
    /// The bucket's first successor.
    first: u64,
    /// Bits of a predecessor, and positions of the layer (see [`read_block`]).
    pred_bits: u32,
    count: u64,
    file: Option<File>,
    buf: Vec<u8>,
}

impl<'a> BucketReader<'a> {
    /// A reader of bucket `b` of `index`.
    pub(super) fn new(index: &'a MoveIndex, b: usize) -> BucketReader<'a> {
        BucketReader {
            bucket: &index.buckets[b],
            first: index.first_block(b) * BLOCK,
            pred_bits: index_bits(index.count),
            count: index.count,
            file: None,
            buf: Vec::new(),
        }
    }

    /// Blocks of the bucket.
    pub(super) fn blocks(&self) -> usize {
        self.bucket.offsets.len() - 1
    }

    /// Calls `f(successor, predecessor)` (indices in the layer) for every move into blocks
    /// `start .. end` of the bucket, in one read.
    #[cfg(test)]
    pub(super) fn for_each(
        &mut self,
        start: usize,
        end: usize,
        f: impl FnMut(u64, u64),
    ) -> Result<(), TableError> {
        self.for_each_into(start, end, |_| true, f)
    }

    /// Calls `f(successor, predecessor)` (indices in the layer) for every move into blocks
    /// `start .. end` of the bucket whose successor is `wanted`, in one read: only the
    /// predecessors of those successors are decoded.
    pub(super) fn for_each_into(
        &mut self,
        start: usize,
        end: usize,
        mut wanted: impl FnMut(u64) -> bool,
        mut f: impl FnMut(u64, u64),
    ) -> Result<(), TableError> {
        let bucket: &'a MoveBucket = self.bucket;
        let (from, to) = (bucket.offsets[start], bucket.offsets[end]);
        if from == to {
            return Ok(());
        }
        let first = self.first;
        let path = match &bucket.moves {
            Moves::Memory(moves) => {
                for &m in &moves[from as usize..to as usize] {
                    let (block, pred, offset) = split(m);
                    let successor = first + block * BLOCK + offset;
                    if wanted(successor) {
                        f(successor, pred);
                    }
                }
                return Ok(());
            }
            Moves::File(path) => path,
        };
        let file = match &self.file {
            Some(file) => file,
            None => self.file.insert(File::open(path).map_err(io(path))?),
        };
        self.buf.resize((to - from) as usize, 0);
        crate::mem::read_exact_at(file, &mut self.buf, from as u64).map_err(io(path))?;
        for k in start..end {
            let (a, b) = (bucket.offsets[k], bucket.offsets[k + 1]);
            if a == b {
                continue;
            }
            let base = first + k as u64 * BLOCK;
            let bytes = &self.buf[(a - from) as usize..(b - from) as usize];
            if bucket.sums.get(k) != Some(&block_sum(bytes)) {
                return Err(corrupt(path, Damage::BadMoves { at: a as u64 }));
            }
            read_block(
                bytes,
                self.pred_bits,
                self.count,
                |offset| wanted(base + offset),
                |offset, pred| f(base + offset, pred),
            )
            .ok_or_else(|| corrupt(path, Damage::BadMoves { at: a as u64 }))?;
        }
        Ok(())
    }
}

mod coding;

/// A small generator for the tests of this module and of `coding` (xorshift64): they need no
/// crate for it.
#[cfg(test)]
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_sort_sorts_by_its_bits_and_keeps_ties_in_order() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for (n, shift, bits) in [
            (0, 16, 27),
            (1, 16, 27),
            (5000, 16, 27),
            (20_000, 35, 20),
            (3000, 8, 3),
            (3000, 0, 44),
        ] {
            // Keys whose bits below `shift` count up (their order in), with few distinct
            // sorting bits, so that ties are many; bits above the field are noise.
            let field = (1u64 << bits) - 1;
            let distinct = (n as u64 / 7).max(1);
            let keys: Vec<u64> = (0..n as u64)
                .map(|i| {
                    let high = if shift + bits < 64 {
                        next() << (shift + bits)
                    } else {
                        0
                    };
                    let low = if shift == 0 {
                        0
                    } else {
                        i & ((1 << shift) - 1)
                    };
                    high | ((next() % distinct) & field) << shift | low
                })
                .collect();
            let mut want = keys.clone();
            want.sort_by_key(|&k| (k >> shift) & field);
            let (mut got, mut room) = (keys.clone(), Vec::new());
            radix_sort(&mut got, &mut room, shift, bits);
            assert_eq!(got, want, "{n} keys, bits {shift}..{}", shift + bits);
            // The room may be reused, and every key kept once.
            radix_sort(&mut got, &mut room, shift, bits);
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_move_file_must_hold_the_moves_written_to_it() {
        let runs: [&[(u64, u64)]; 2] = [
            &[(3, 70), (3, 71), (900, 5)],
            &[(0, 6_000_000_000), (12, 1)],
        ];
        let mut out = BitWriter::default();
        coding::put_run(&mut out, runs[0]);
        let first_run = out.finish();
        let mut out = BitWriter::default();
        coding::put_run(&mut out, runs[1]);
        let second_run = out.finish();
        let sum = sum_of(&first_run).wrapping_add(sum_of(&second_run));
        let whole = [first_run.clone(), second_run].concat();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("moves-000.bin");
        std::fs::write(&path, &whole).unwrap();
        let mut want: Vec<u64> = runs.concat().iter().map(|&(s, p)| record(s, p)).collect();
        let mut got = read_runs(&path, 5, sum).unwrap();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want);
        // Told of another number of moves, cut after its first run, or with any bit
        // changed: damaged.
        let mut cases = vec![(whole.clone(), 4), (whole.clone(), 6), (first_run, 5)];
        for bit in 0..8 * whole.len() {
            let mut bad = whole.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            cases.push((bad, 5));
        }
        for (bytes, moves) in cases {
            std::fs::write(&path, &bytes).unwrap();
            match read_runs(&path, moves, sum) {
                Err(TableError::Corrupt { .. }) => {}
                other => panic!("{moves} moves in {} bytes: {other:?}", bytes.len()),
            }
        }
    }

    #[test]
    fn records_keep_indices_past_two_to_the_32() {
        // The 32-seed layer of 2x6 has 5,752,004,349 positions: predecessors need 33 bits.
        for (successor, predecessor) in [
            (0, 0),
            (255, 1),
            (256, 5_752_004_348),
            ((1 << 29) - 1, MAX_ROUND_POSITIONS - 1),
            (123_456_789, 4_294_967_296),
        ] {
            let (block, pred, offset) = split(record(successor, predecessor));
            assert_eq!(block * BLOCK + offset, successor);
            assert_eq!(pred, predecessor);
        }
        // Sorting records groups them by block, then successor, then predecessor.
        let mut r = [
            record(300, 7),
            record(5, 9),
            record(10, 8),
            record(256, 1),
            record(5, 2),
        ];
        r.sort_unstable();
        let order: Vec<(u64, u64)> = r
            .iter()
            .map(|&x| split(x))
            .map(|(block, pred, offset)| (block * BLOCK + offset, pred))
            .collect();
        assert_eq!(order, [(5, 2), (5, 9), (10, 8), (256, 1), (300, 7)]);
    }

    #[test]
    fn coded_blocks_read_back_by_block() {
        // Moves into 4 blocks of a bucket starting at block 4, the third block empty.
        let first = 4 * BLOCK;
        let at = |block: u64, offset: u64| first + block * BLOCK + offset;
        let moves: Vec<(u64, u64)> = vec![
            (at(0, 0), 6_000_000_000),
            (at(0, 0), 3),
            (at(0, 20), 3),
            (at(0, BLOCK - 1), 5_752_004_348),
            (at(1, 0), 17),
            (at(1, 20), 17),
            (at(3, 0), 40),
            (at(3, 8), 2),
        ];
        let mut records: Vec<u64> = moves.iter().map(|&(s, p)| record(s - first, p)).collect();
        records.sort_unstable();
        let count = 6_000_000_001;
        let (bytes, offsets, sums) = code_blocks(&records, 4, index_bits(count)).unwrap();
        assert_eq!(offsets.len(), 5);
        assert_eq!(offsets[2], offsets[3], "an empty block takes no byte");
        let dir = std::env::temp_dir().join(format!("hoyito-moves-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("moves-000.bin");
        std::fs::write(&path, &bytes).unwrap();
        let index = MoveIndex {
            buckets: vec![
                MoveBucket {
                    moves: Moves::Memory(Vec::new()),
                    offsets: vec![0; 5],
                    sums: Vec::new(),
                },
                MoveBucket {
                    moves: Moves::File(path.clone()),
                    sums,
                    offsets,
                },
            ],
            per_bucket: first,
            peak_bytes: 0,
            moves: 0,
            count,
        };
        let mut reader = BucketReader::new(&index, 1);
        assert_eq!(reader.blocks(), 4);
        for (start, end) in [(0, 4), (0, 1), (1, 3), (3, 4), (2, 3)] {
            let mut got = Vec::new();
            reader
                .for_each(start, end, |s, p| got.push((s, p)))
                .unwrap();
            got.sort_unstable();
            let mut want: Vec<(u64, u64)> = moves
                .iter()
                .copied()
                .filter(|&(s, _)| {
                    (first + BLOCK * start as u64..first + BLOCK * end as u64).contains(&s)
                })
                .collect();
            want.sort_unstable();
            assert_eq!(got, want, "blocks {start}..{end}");
        }
        // Only the moves into the successors asked for.
        let asked_sets = [
            vec![at(0, 0), at(0, BLOCK - 1)],
            vec![at(0, 20)],
            vec![at(1, 20), at(3, 8), at(3, 9)],
            vec![],
        ];
        for asked in &asked_sets {
            let mut got = Vec::new();
            reader
                .for_each_into(0, 4, |s| asked.contains(&s), |s, p| got.push((s, p)))
                .unwrap();
            got.sort_unstable();
            let mut want: Vec<(u64, u64)> = moves
                .iter()
                .copied()
                .filter(|(s, _)| asked.contains(s))
                .collect();
            want.sort_unstable();
            assert_eq!(got, want, "successors {asked:?}");
        }
        // A predecessor past the layer's end reads as damage.
        let small = MoveIndex {
            count: 6_000_000_000,
            ..index
        };
        let mut reader = BucketReader::new(&small, 1);
        assert!(reader.for_each(0, 1, |_, _| {}).is_err());
        assert!(reader.for_each(1, 2, |_, _| {}).is_ok());
        let index = MoveIndex {
            count: 6_000_000_001,
            ..small
        };
        // A damaged file is an error, not made-up moves: cut, or a block's counts changed.
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let mut reader = BucketReader::new(&index, 1);
        assert!(reader.for_each(0, 4, |_, _| {}).is_err());
        for bit in 0..8 * bytes.len() {
            let mut bad = bytes.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            std::fs::write(&path, &bad).unwrap();
            let mut reader = BucketReader::new(&index, 1);
            assert!(
                reader.for_each(0, 4, |_, _| {}).is_err(),
                "bit {bit} flipped, read as whole"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
