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
//! ends, each file is read, decoded, sorted and coded again block by block: a block's
//! moves sorted by predecessor, the gaps between predecessors Rice-coded and each
//! successor as its 8-bit offset in the block. Every block starts on a byte, so a round
//! reads and decodes only the blocks it needs.

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

/// A reversed move of one bucket as sorted in memory: the successor's block in the bucket
/// in the high bits, then the predecessor's index, then the successor's offset in its
/// block; so that sorting the records groups them by block and, within a block, sorts them
/// by predecessor. `successor` counts from the bucket's first successor (buckets hold
/// fewer than 2^29 successors: see [`MoveSink::create`]).
#[inline(always)]
fn record(successor: u64, predecessor: u64) -> u64 {
    ((successor / BLOCK) << (PRED_BITS + OFFSET_BITS))
        | (predecessor << OFFSET_BITS)
        | (successor % BLOCK)
}

/// The block in the bucket, the predecessor and the offset in the block of a [`record`].
#[inline(always)]
fn split(record: u64) -> (u64, u64, u64) {
    (
        record >> (PRED_BITS + OFFSET_BITS),
        (record >> OFFSET_BITS) & ((1 << PRED_BITS) - 1),
        record % BLOCK,
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
    /// Coded runs appended to a file, and how many moves they hold.
    File(PathBuf, Mutex<(BufWriter<File>, u64)>),
    /// [`record`]s.
    Memory(Mutex<Vec<u64>>),
}

/// The move files (or vectors) being written.
pub(super) struct MoveSink {
    files: Vec<BucketSink>,
    per_bucket: u64,
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
                    BucketSink::File(path, Mutex::new((BufWriter::with_capacity(1 << 16, f), 0)))
                }
                None => BucketSink::Memory(Mutex::new(Vec::new())),
            });
        }
        Ok(MoveSink {
            files,
            per_bucket,
            bytes: AtomicU64::new(0),
            error: Mutex::new(None),
        })
    }

    /// Appends `moves` ([`piece_move`]s) of the piece of a sweep whose first position is
    /// `first`, to their files (and empties it). The first error is kept for
    /// [`MoveSink::finish`].
    pub(super) fn write(&self, first: u64, moves: &mut Vec<u64>) {
        moves.sort_unstable();
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
                    let mut w = w.lock().unwrap_or_else(|e| e.into_inner());
                    w.1 += n as u64;
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
                    let (mut w, moves) = w.into_inner().unwrap_or_else(|e| e.into_inner());
                    w.flush().map_err(io(&path))?;
                    (Moves::File(path), moves)
                }
                BucketSink::Memory(v) => {
                    let v = v.into_inner().unwrap_or_else(|e| e.into_inner());
                    let moves = v.len() as u64;
                    (Moves::Memory(v), moves)
                }
            });
        }
        let written = self.bytes.into_inner();
        MoveIndex::build(stores, self.per_bucket, count, written)
    }
}

/// The moves of one bucket: a file (of runs while written, of blocks once indexed), or the
/// [`record`]s in memory.
enum Moves {
    File(PathBuf),
    Memory(Vec<u64>),
}

/// Reads the runs of a move file as written by the sweep, holding `moves` moves, as
/// [`record`]s; a file holding another number is damaged. Both vectors are allocated once
/// at their size: one that grew while the file was read would take up to twice the
/// records' bytes, and its copy as much again, for each thread sorting a file.
fn read_runs(path: &Path, moves: u64) -> Result<Vec<u64>, TableError> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    let mut records = Vec::with_capacity(moves as usize);
    let mut r = BitReader::new(&bytes);
    while !r.at_end() {
        coding::get_run(&mut r, |s, p| records.push(record(s, p)))
            .ok_or_else(|| corrupt(path, Damage::BadMoves { at: r.byte() }))?;
    }
    // A file that lost runs (or gained some) since the sweep wrote it.
    if records.len() as u64 != moves {
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
}

/// The reversed quiet moves, sorted by successor, with a block index (4 bytes for every
/// 256 positions in memory).
pub(super) struct MoveIndex {
    pub(super) buckets: Vec<MoveBucket>,
    per_bucket: u64,
    /// Bytes of scratch at the peak: the moves as the sweep wrote them, or as indexed if
    /// that is more (8 bytes a move in memory).
    pub(super) peak_bytes: u64,
    /// Moves kept (repeats dropped).
    pub(super) moves: u64,
}

impl MoveIndex {
    /// Sorts each file (one at a time per thread, so memory holds at most one file per
    /// thread), drops repeated moves, codes the blocks and indexes them. `stores` holds
    /// each bucket's moves as the sweep wrote them (runs in a file), with their number.
    fn build(
        stores: Vec<(Moves, u64)>,
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
                    (Moves::File(path), moves) => (read_runs(&path, moves)?, Some(path)),
                    (Moves::Memory(moves), _) => (moves, None),
                };
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
                    });
                };
                let (bytes, offsets) = code_blocks(&moves, blocks)
                    .ok_or_else(|| io(&path)(std::io::Error::other("a move file over 4 GiB")))?;
                drop(moves);
                coded.fetch_add(bytes.len() as u64, Relaxed);
                std::fs::write(&path, &bytes).map_err(io(&path))?;
                Ok(MoveBucket {
                    moves: Moves::File(path),
                    offsets,
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
        })
    }

    /// The global block of block 0 of bucket `b` (buckets hold whole blocks).
    pub(super) fn first_block(&self, b: usize) -> u64 {
        b as u64 * self.per_bucket / BLOCK
    }
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
/// bytes and where each block starts in them. `None` if they pass 4 GiB (about a billion
/// moves in one file, far more than [`MAX_MOVE_FILES`] files of a layer under
/// [`MAX_ROUND_POSITIONS`] hold).
fn code_blocks(records: &[u64], blocks: usize) -> Option<(Vec<u8>, Vec<u32>)> {
    let mut out = BitWriter::default();
    let mut offsets = Vec::with_capacity(blocks + 1);
    let mut pairs = Vec::new();
    let mut i = 0;
    for k in 0..blocks as u64 {
        offsets.push(u32::try_from(out.bytes()).ok()?);
        pairs.clear();
        while i < records.len() && split(records[i]).0 == k {
            let (_, pred, offset) = split(records[i]);
            pairs.push((pred, offset));
            i += 1;
        }
        if !pairs.is_empty() {
            coding::put_run(&mut out, &pairs);
            out.align();
        }
    }
    offsets.push(u32::try_from(out.bytes()).ok()?);
    Some((out.finish(), offsets))
}

/// Reads the moves of a bucket block by block, opening its file (if on disk) at the first
/// read.
pub(super) struct BucketReader<'a> {
    bucket: &'a MoveBucket,
    /// The bucket's first successor.
    first: u64,
    file: Option<File>,
    buf: Vec<u8>,
}

impl<'a> BucketReader<'a> {
    /// A reader of bucket `b` of `index`.
    pub(super) fn new(index: &'a MoveIndex, b: usize) -> BucketReader<'a> {
        BucketReader {
            bucket: &index.buckets[b],
            first: index.first_block(b) * BLOCK,
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
    pub(super) fn for_each(
        &mut self,
        start: usize,
        end: usize,
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
                    f(first + block * BLOCK + offset, pred);
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
        let mut r = BitReader::new(&self.buf);
        for k in start..end {
            if bucket.offsets[k] == bucket.offsets[k + 1] {
                continue;
            }
            let base = first + k as u64 * BLOCK;
            coding::get_run(&mut r, |pred, offset| f(base + offset, pred)).ok_or_else(|| {
                corrupt(
                    path,
                    Damage::BadMoves {
                        at: from as u64 + r.byte(),
                    },
                )
            })?;
            r.align();
        }
        Ok(())
    }
}

/// The code of the scratch moves: runs of pairs `(a, b)` sorted by `a` (then `b`), each
/// coded as
///
/// ```text
/// count, first a, Rice parameter k, smallest b, width w of b's offsets
/// then for each pair: (a - previous a) >> k in unary, its k low bits, b - smallest b in w bits
/// ```
///
/// (numbers in the header as 7 bits of width and the bits themselves). With `k` near the
/// logarithm of the mean gap, a gap costs about `k + 1.5` bits: the entropy of pairs drawn
/// at random, which the moves nearly are (measured on the 20-seed layer: 25.4 bits a move
/// against 26.3 for random pairs of the same density).
mod coding {
    /// Bits written from the least significant up, into bytes.
    #[derive(Default)]
    pub(super) struct BitWriter {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }

    impl BitWriter {
        /// Writes the `bits` low bits of `value` (`bits <= 32`).
        #[inline(always)]
        pub(super) fn put(&mut self, value: u64, bits: u32) {
            debug_assert!(bits <= 32 && (bits == 32 || value >> bits == 0));
            // Fewer than 32 bits wait in `acc`, so these fit.
            self.acc |= value << self.n;
            self.n += bits;
            if self.n >= 32 {
                self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
                self.acc >>= 32;
                self.n -= 32;
            }
        }

        /// Writes `value` (any `u64`): its width in 7 bits, then its bits.
        pub(super) fn put_number(&mut self, value: u64) {
            let width = 64 - value.leading_zeros();
            self.put(width as u64, 7);
            if width > 32 {
                self.put(value & 0xffff_ffff, 32);
                self.put(value >> 32, width - 32);
            } else {
                self.put(value, width);
            }
        }

        /// Writes `q` in unary: `q` ones and a zero.
        #[inline(always)]
        pub(super) fn put_unary(&mut self, mut q: u64) {
            while q >= 31 {
                self.put(0x7fff_ffff, 31);
                q -= 31;
            }
            self.put((1 << q) - 1, q as u32 + 1);
        }

        /// Pads to the next byte.
        pub(super) fn align(&mut self) {
            let pad = (8 - self.n % 8) % 8;
            self.put(0, pad);
        }

        /// Bytes written so far (a partial byte counted whole).
        pub(super) fn bytes(&self) -> usize {
            self.out.len() + self.n.div_ceil(8) as usize
        }

        /// The bytes, the last one padded.
        pub(super) fn finish(mut self) -> Vec<u8> {
            self.align();
            let tail = (self.n / 8) as usize;
            self.out.extend_from_slice(&self.acc.to_le_bytes()[..tail]);
            self.out
        }
    }

    /// Reads what a [`BitWriter`] wrote. Every read past the end gives `None`.
    pub(super) struct BitReader<'a> {
        bytes: &'a [u8],
        at: usize,
        acc: u64,
        n: u32,
    }

    impl<'a> BitReader<'a> {
        pub(super) fn new(bytes: &'a [u8]) -> BitReader<'a> {
            BitReader {
                bytes,
                at: 0,
                acc: 0,
                n: 0,
            }
        }

        /// Loads whole bytes until at least 57 bits wait in `acc` (or the bytes end).
        #[inline(always)]
        fn refill(&mut self) {
            if self.n > 56 {
                return;
            }
            if let Some(word) = self.bytes.get(self.at..self.at + 8) {
                let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                let take = (63 - self.n) / 8;
                // Only the whole bytes taken: the bits above them stay 0.
                let bits = self.n + 8 * take;
                self.acc |= (word << self.n) & mask(bits);
                self.at += take as usize;
                self.n = bits;
            } else {
                while self.n <= 56 && self.at < self.bytes.len() {
                    self.acc |= (self.bytes[self.at] as u64) << self.n;
                    self.at += 1;
                    self.n += 8;
                }
            }
        }

        /// Reads `bits` bits (`bits <= 32`).
        #[inline(always)]
        pub(super) fn get(&mut self, bits: u32) -> Option<u64> {
            if self.n < bits {
                self.refill();
                if self.n < bits {
                    return None;
                }
            }
            let v = self.acc & ((1u64 << bits) - 1);
            self.acc >>= bits;
            self.n -= bits;
            Some(v)
        }

        /// Reads what [`BitWriter::put_number`] wrote.
        pub(super) fn get_number(&mut self) -> Option<u64> {
            let width = self.get(7)? as u32;
            match width {
                0..=32 => self.get(width),
                33..=64 => Some(self.get(32)? | self.get(width - 32)? << 32),
                _ => None,
            }
        }

        /// Reads what [`BitWriter::put_unary`] wrote.
        #[inline(always)]
        pub(super) fn get_unary(&mut self) -> Option<u64> {
            let mut q = 0;
            loop {
                if self.n == 0 {
                    self.refill();
                    if self.n == 0 {
                        return None;
                    }
                }
                let ones = self.acc.trailing_ones().min(self.n);
                if ones < self.n {
                    self.acc = self.acc.checked_shr(ones + 1).unwrap_or(0);
                    self.n -= ones + 1;
                    return Some(q + ones as u64);
                }
                q += ones as u64;
                self.acc = 0;
                self.n = 0;
            }
        }

        /// Skips to the next byte.
        pub(super) fn align(&mut self) {
            let drop = self.n % 8;
            self.acc >>= drop;
            self.n -= drop;
        }

        /// The byte the reader is at.
        pub(super) fn byte(&self) -> u64 {
            (self.at - (self.n / 8) as usize) as u64
        }

        /// Whether every byte has been read (padding aside).
        pub(super) fn at_end(&mut self) -> bool {
            self.align();
            self.n == 0 && self.at == self.bytes.len()
        }
    }

    /// Writes a run of `pairs`, sorted, not empty.
    pub(super) fn put_run(w: &mut BitWriter, pairs: &[(u64, u64)]) {
        let m = pairs.len() as u64;
        let (first, last) = (pairs[0].0, pairs[pairs.len() - 1].0);
        let mean_gap = (last - first) / m;
        let k = 63 - (mean_gap | 1).leading_zeros();
        let (b_min, b_max) = pairs
            .iter()
            .fold((u64::MAX, 0), |(lo, hi), &(_, b)| (lo.min(b), hi.max(b)));
        let width = 64 - (b_max - b_min).leading_zeros();
        w.put_number(m);
        w.put_number(first);
        w.put(k as u64, 6);
        w.put_number(b_min);
        w.put(width as u64, 7);
        let mut prev = first;
        for &(a, b) in pairs {
            let gap = a - prev;
            w.put_unary(gap >> k);
            put_wide(w, gap & ((1 << k) - 1), k);
            put_wide(w, b - b_min, width);
            prev = a;
        }
    }

    /// Writes the `bits` low bits of `value`, `bits <= 64`.
    #[inline(always)]
    fn put_wide(w: &mut BitWriter, value: u64, bits: u32) {
        if bits > 32 {
            w.put(value & 0xffff_ffff, 32);
            w.put(value >> 32, bits - 32);
        } else {
            w.put(value, bits);
        }
    }

    /// Reads `bits` bits, `bits <= 64`.
    #[inline(always)]
    fn get_wide(r: &mut BitReader, bits: u32) -> Option<u64> {
        if bits > 32 {
            Some(r.get(32)? | r.get(bits - 32)? << 32)
        } else {
            r.get(bits)
        }
    }

    /// The `bits` low bits set (`bits <= 64`).
    #[inline(always)]
    fn mask(bits: u32) -> u64 {
        u64::MAX.checked_shr(64 - bits).unwrap_or(0)
    }

    /// Reads a run that [`put_run`] wrote, handing each pair to `f`; `None` if the bytes
    /// end inside it or do not make sense.
    pub(super) fn get_run(r: &mut BitReader, mut f: impl FnMut(u64, u64)) -> Option<()> {
        let m = r.get_number()?;
        let first = r.get_number()?;
        let k = r.get(6)? as u32;
        let b_min = r.get_number()?;
        let width = r.get(7)? as u32;
        if k > 63 || width > 64 || m == 0 {
            return None;
        }
        let mut a = first;
        for _ in 0..m {
            // The common case in one load: a short unary part, k bits and width bits.
            r.refill();
            let ones = r.acc.trailing_ones();
            let bits = ones + 1 + k + width;
            if bits <= r.n {
                let acc = r.acc.checked_shr(ones + 1).unwrap_or(0);
                let gap = (ones as u64) << k | acc & mask(k);
                let b = (acc >> k) & mask(width);
                r.acc = r.acc.checked_shr(bits).unwrap_or(0);
                r.n -= bits;
                a = a.checked_add(gap)?;
                f(a, b.checked_add(b_min)?);
                continue;
            }
            let q = r.get_unary()?;
            let low = get_wide(r, k)?;
            a = a.checked_add(q.checked_mul(1 << k)? | low)?;
            let b = get_wide(r, width)?.checked_add(b_min)?;
            f(a, b);
        }
        Some(())
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn small_runs() {
            for pairs in [
                vec![
                    (82u64, 2u64),
                    (89, 290396554623966),
                    (9223372036854775807, 0),
                ],
                vec![(82u64, 2u64), (9223372036854775807, 0)],
                vec![(82u64, 2u64), (1 << 40, 0)],
                vec![(82u64, 2u64), (1 << 40, 1 << 40)],
                vec![(82u64, 2u64), (1 << 20, 1 << 60)],
                vec![(82u64, 2u64), (89, (1 << 63) + 5), (9223372036854775807, 0)],
                vec![
                    (82u64, 2u64),
                    (89, 14868799549403899081),
                    (9223372036854775807, 0),
                ],
                vec![(82u64, 0u64), (89, 1), (9223372036854775807, 0)],
            ] {
                let mut w = BitWriter::default();
                put_run(&mut w, &pairs);
                let bytes = w.finish();
                let mut r = BitReader::new(&bytes);
                let mut got = Vec::new();
                get_run(&mut r, |a, b| got.push((a, b))).expect("a whole run");
                assert_eq!(got, pairs);
            }
        }

        #[test]
        fn runs_read_back_as_written() {
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let mut runs = Vec::new();
            for case in 0..200 {
                let m = 1 + (next() % 300) as usize;
                let spread = 1u64 << (next() % 40);
                let mut pairs: Vec<(u64, u64)> = (0..m)
                    .map(|_| (next() % spread, next() >> (next() % 64)))
                    .collect();
                if case % 7 == 0 {
                    // Equal pairs and wide gaps at the extremes.
                    pairs.push(pairs[0]);
                    pairs.push((u64::MAX >> 1, 0));
                }
                pairs.sort_unstable();
                runs.push(pairs);
            }
            let mut w = BitWriter::default();
            for (i, run) in runs.iter().enumerate() {
                put_run(&mut w, run);
                if i % 3 == 0 {
                    w.align();
                }
            }
            let bytes = w.finish();
            let mut r = BitReader::new(&bytes);
            for (i, run) in runs.iter().enumerate() {
                let mut got = Vec::new();
                get_run(&mut r, |a, b| got.push((a, b))).expect("a whole run");
                assert_eq!(&got, run, "run {i}");
                if i % 3 == 0 {
                    r.align();
                }
            }
            assert!(r.at_end());
            // A cut stream fails instead of inventing moves.
            let mut r = BitReader::new(&bytes[..bytes.len() / 2]);
            let mut ok = 0;
            while get_run(&mut r, |_, _| {}).is_some() {
                ok += 1;
            }
            assert!(ok < runs.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let whole = [first_run.clone(), out.finish()].concat();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("moves-000.bin");
        std::fs::write(&path, &whole).unwrap();
        let mut want: Vec<u64> = runs.concat().iter().map(|&(s, p)| record(s, p)).collect();
        let mut got = read_runs(&path, 5).unwrap();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want);
        // Told of another number of moves, or cut after its first run: damaged.
        for (bytes, moves) in [(&whole, 4), (&whole, 6), (&first_run, 5)] {
            std::fs::write(&path, bytes).unwrap();
            match read_runs(&path, moves) {
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
        // Sorting records groups them by block, then by predecessor.
        let mut r = [record(300, 7), record(5, 9), record(10, 8), record(256, 1)];
        r.sort_unstable();
        let order: Vec<(u64, u64)> = r.iter().map(|&x| (split(x).0, split(x).1)).collect();
        assert_eq!(order, [(0, 8), (0, 9), (1, 1), (1, 7)]);
    }

    #[test]
    fn coded_blocks_read_back_by_block() {
        // Moves into 4 blocks of a bucket starting at successor 1024, the third block empty.
        let first = 1024;
        let moves: Vec<(u64, u64)> = vec![
            (1024, 6_000_000_000),
            (1024, 3),
            (1100, 3),
            (1279, 5_752_004_348),
            (1280, 17),
            (1300, 17),
            (1792, 40),
            (1800, 2),
        ];
        let mut records: Vec<u64> = moves.iter().map(|&(s, p)| record(s - first, p)).collect();
        records.sort_unstable();
        let (bytes, offsets) = code_blocks(&records, 4).unwrap();
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
                },
                MoveBucket {
                    moves: Moves::File(path.clone()),
                    offsets,
                },
            ],
            per_bucket: first,
            peak_bytes: 0,
            moves: 0,
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
                    (first + 256 * start as u64..first + 256 * end as u64).contains(&s)
                })
                .collect();
            want.sort_unstable();
            assert_eq!(got, want, "blocks {start}..{end}");
        }
        // A damaged file is an error, not made-up moves.
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let mut reader = BucketReader::new(&index, 1);
        assert!(reader.for_each(0, 4, |_, _| {}).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
