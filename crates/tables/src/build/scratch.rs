//! The scratch moves of a build with rounds: every quiet move between positions that are
//! not final, reversed (successor, predecessor), one file (or, for a build in memory, one
//! vector) per range of successors; then sorted and indexed by blocks of successors, so
//! that a round reads only the moves into the blocks that changed.

use std::fs::File;
use std::io::{BufWriter, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;

use super::work::BLOCK;
use crate::error::{corrupt, io, Damage, TableError};

/// Most move files of a layer. More files make each one smaller to sort in memory.
pub(super) const MAX_MOVE_FILES: u64 = 1000;

/// A reversed move as stored: the successor's index in the high half, the predecessor's in
/// the low half (so that sorting the records sorts them by successor). Both indices are
/// below 2^32 (rounds are used only in such layers).
#[inline(always)]
pub(super) fn record(successor: u64, predecessor: u64) -> u64 {
    successor << 32 | predecessor
}

/// The successor and the predecessor of a [`record`].
#[inline(always)]
pub(super) fn split(record: u64) -> (u64, u64) {
    (record >> 32, record & 0xffff_ffff)
}

/// Where a layer's scratch moves go. On disk, the folder beside the layer's file: removed
/// when the layer starts (what a killed build left) and when this is dropped, however the
/// layer ends (a full disk, an error, a panic), so that tens of gigabytes are not left
/// behind. In memory (`None`), vectors of 8 bytes a move, for small layers.
pub(super) struct ScratchDir(Option<PathBuf>);

impl ScratchDir {
    /// The scratch folder of the layer file `layer`, emptied.
    pub(super) fn new(layer: &Path) -> Result<ScratchDir, TableError> {
        let dir = layer.with_extension("moves");
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
    File(PathBuf, Mutex<BufWriter<File>>),
    Memory(Mutex<Vec<u64>>),
}

/// The move files (or vectors) being written, as little-endian [`record`]s.
pub(super) struct MoveSink {
    files: Vec<BucketSink>,
    per_bucket: u64,
    error: Mutex<Option<TableError>>,
}

impl MoveSink {
    /// Files in `dir` for `count` positions, about `target` successors a file (at most
    /// [`MAX_MOVE_FILES`], fewer than a process may usually open).
    pub(super) fn create(
        dir: &ScratchDir,
        count: u64,
        target: u64,
    ) -> Result<MoveSink, TableError> {
        if let Some(dir) = &dir.0 {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        let wanted = count.div_ceil(target.max(1)).clamp(1, MAX_MOVE_FILES);
        // Whole blocks of successors a file, so that a file's blocks are blocks of the layer.
        let per_bucket = count.div_ceil(wanted).next_multiple_of(BLOCK);
        let buckets = count.div_ceil(per_bucket).max(1);
        let mut files = Vec::new();
        for b in 0..buckets {
            files.push(match &dir.0 {
                Some(dir) => {
                    let path = dir.join(format!("moves-{b:03}.bin"));
                    let f = File::create(&path).map_err(io(&path))?;
                    BucketSink::File(path, Mutex::new(BufWriter::with_capacity(1 << 16, f)))
                }
                None => BucketSink::Memory(Mutex::new(Vec::new())),
            });
        }
        Ok(MoveSink {
            files,
            per_bucket,
            error: Mutex::new(None),
        })
    }

    /// Appends `records` to their files (and empties it). The first error is kept for
    /// [`MoveSink::finish`].
    pub(super) fn write(&self, records: &mut Vec<u64>) {
        records.sort_unstable();
        let mut rest = &records[..];
        while let Some(&first) = rest.first() {
            let b = (split(first).0 / self.per_bucket) as usize;
            let end = record((b as u64 + 1) * self.per_bucket, 0);
            let n = rest.partition_point(|&e| e < end);
            match &self.files[b.min(self.files.len() - 1)] {
                BucketSink::File(path, w) => {
                    let mut bytes = Vec::with_capacity(8 * n);
                    for e in &rest[..n] {
                        bytes.extend_from_slice(&e.to_le_bytes());
                    }
                    let mut w = w.lock().unwrap_or_else(|e| e.into_inner());
                    if let Err(e) = w.write_all(&bytes) {
                        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
                        slot.get_or_insert(io(path)(e));
                    }
                }
                BucketSink::Memory(v) => {
                    let mut v = v.lock().unwrap_or_else(|e| e.into_inner());
                    v.extend_from_slice(&rest[..n]);
                }
            }
            rest = &rest[n..];
        }
        records.clear();
    }

    /// Flushes and closes the files, then sorts and indexes them.
    pub(super) fn finish(self, count: u64) -> Result<MoveIndex, TableError> {
        if let Some(e) = self.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        let mut stores = Vec::new();
        for sink in self.files {
            stores.push(match sink {
                BucketSink::File(path, w) => {
                    let mut w = w.into_inner().unwrap_or_else(|e| e.into_inner());
                    w.flush().map_err(io(&path))?;
                    Moves::File(path)
                }
                BucketSink::Memory(v) => {
                    Moves::Memory(v.into_inner().unwrap_or_else(|e| e.into_inner()))
                }
            });
        }
        MoveIndex::build(stores, self.per_bucket, count)
    }
}

/// The moves of one bucket: a file of little-endian records, or the records in memory.
enum Moves {
    File(PathBuf),
    Memory(Vec<u64>),
}

/// Reads a move file into memory, straight into its final form (one buffer, not two).
fn read_moves(path: &Path) -> Result<Vec<u64>, TableError> {
    let mut file = File::open(path).map_err(io(path))?;
    let bytes = file.metadata().map_err(io(path))?.len();
    if bytes & 7 != 0 {
        return Err(corrupt(path, Damage::CutMove { bytes }));
    }
    let bytes = bytes as usize;
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

/// Writes `moves` as little-endian records over the file `path`.
fn write_moves(path: &Path, moves: &[u64]) -> Result<(), TableError> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path).map_err(io(path))?);
    for m in moves {
        out.write_all(&m.to_le_bytes()).map_err(io(path))?;
    }
    out.flush().map_err(io(path))
}

/// One bucket of sorted moves and where each block of successors starts in it (in moves).
pub(super) struct MoveBucket {
    moves: Moves,
    offsets: Vec<u32>,
}

/// The reversed quiet moves, sorted by successor, with a block index (4 bytes for every
/// 256 positions in memory).
pub(super) struct MoveIndex {
    pub(super) buckets: Vec<MoveBucket>,
    per_bucket: u64,
    /// The moves kept (repeated moves dropped).
    pub(super) moves: u64,
}

impl MoveIndex {
    /// Sorts each file (one at a time per thread, so memory holds at most one file per
    /// thread), drops repeated moves and indexes the blocks.
    fn build(stores: Vec<Moves>, per_bucket: u64, count: u64) -> Result<MoveIndex, TableError> {
        let kept = AtomicU64::new(0);
        let buckets = stores
            .into_par_iter()
            .enumerate()
            .map(|(b, store)| -> Result<MoveBucket, TableError> {
                let (mut moves, store_path) = match store {
                    Moves::File(path) => (read_moves(&path)?, Some(path)),
                    Moves::Memory(moves) => (moves, None),
                };
                moves.sort_unstable();
                moves.dedup();
                let first = b as u64 * per_bucket;
                let last = (first + per_bucket).min(count);
                let blocks = (last - first).div_ceil(BLOCK) as usize;
                let mut offsets = vec![0u32; blocks + 1];
                let mut at = 0usize;
                for (k, off) in offsets.iter_mut().enumerate() {
                    let limit = first + k as u64 * BLOCK;
                    while at < moves.len() && split(moves[at]).0 < limit {
                        at += 1;
                    }
                    *off = at as u32;
                }
                offsets[blocks] = moves.len() as u32;
                kept.fetch_add(moves.len() as u64, Relaxed);
                let moves = match store_path {
                    Some(path) => {
                        write_moves(&path, &moves)?;
                        Moves::File(path)
                    }
                    None => Moves::Memory(moves),
                };
                Ok(MoveBucket { moves, offsets })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(MoveIndex {
            buckets,
            per_bucket,
            moves: kept.into_inner(),
        })
    }

    /// The global block of block 0 of bucket `b` (buckets hold whole blocks).
    pub(super) fn first_block(&self, b: usize) -> u64 {
        b as u64 * self.per_bucket / BLOCK
    }
}

/// Reads the moves of a bucket block by block, opening its file (if on disk) at the first
/// read.
pub(super) struct BucketReader<'a> {
    bucket: &'a MoveBucket,
    file: Option<File>,
    buf: Vec<u8>,
}

impl<'a> BucketReader<'a> {
    pub(super) fn new(bucket: &'a MoveBucket) -> BucketReader<'a> {
        BucketReader {
            bucket,
            file: None,
            buf: Vec::new(),
        }
    }

    /// Blocks of the bucket.
    pub(super) fn blocks(&self) -> usize {
        self.bucket.offsets.len() - 1
    }

    /// Calls `f` with every record of blocks `start .. end` of the bucket, in one read.
    pub(super) fn for_each(
        &mut self,
        start: usize,
        end: usize,
        mut f: impl FnMut(u64),
    ) -> Result<(), TableError> {
        let (from, to) = (self.bucket.offsets[start], self.bucket.offsets[end]);
        if from == to {
            return Ok(());
        }
        let path = match &self.bucket.moves {
            Moves::File(path) => path,
            Moves::Memory(moves) => {
                moves[from as usize..to as usize].iter().for_each(|&m| f(m));
                return Ok(());
            }
        };
        let file = match &self.file {
            Some(file) => file,
            None => self.file.insert(File::open(path).map_err(io(path))?),
        };
        self.buf.resize(8 * (to - from) as usize, 0);
        crate::mem::read_exact_at(file, &mut self.buf, 8 * from as u64).map_err(io(path))?;
        for e in self.buf.chunks_exact(8) {
            let mut a = [0u8; 8];
            a.copy_from_slice(e);
            f(u64::from_le_bytes(a));
        }
        Ok(())
    }
}
