//! Checkpoints of a distributed build: each process saves its range of the layer between
//! sweeps and rounds, and a resumed job starts from what was saved.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use crate::error::{io, TableError};
use crate::format::{checksum, file_name, Checksum};

/// The file where process `rank` of `size` keeps its range of layer `n` between sweeps.
pub(super) fn checkpoint_path(folder: &Path, n: usize, rank: i32, size: i32) -> PathBuf {
    folder.join(format!("{}.mpi-{rank}-of-{size}", file_name(n)))
}

/// The file a checkpoint is written to before it is renamed over `path`; a job stopped
/// while saving leaves it behind.
fn temporary_path(path: &Path) -> PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
}

/// Removes the checkpoint at `path` and the temporary file of a save that a stopped job
/// left unfinished, once the layer is written; either may be missing.
pub(super) fn remove_checkpoint(path: &Path) -> Result<(), TableError> {
    for file in [temporary_path(path), path.to_path_buf()] {
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&file)(e)),
            _ => {}
        }
    }
    Ok(())
}

/// The first bytes of a checkpoint.
const CHECKPOINT_MAGIC: &[u8; 8] = b"HOYMPICK";

/// The header of a checkpoint: magic, then seeds, processes, range start and end, step and
/// the checksum of the bytes that follow (`sum`), 8 bytes each, little-endian.
fn checkpoint_header(n: usize, size: i32, own: &Range<u64>, step: u32, sum: u64) -> Vec<u8> {
    let mut h = CHECKPOINT_MAGIC.to_vec();
    for v in [n as u64, size as u64, own.start, own.end, step as u64, sum] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h
}

/// Bytes of a range copied at once to be summed or written.
const CHECKPOINT_PIECE: usize = 1 << 20;

/// Saves `cells` (their bits in `keep`), the range `own` after `step`, at `path`, piece by
/// piece (no copy of the range), through a temporary file renamed over it, so that a
/// stopped job leaves the last whole checkpoint.
pub(super) fn save_checkpoint(
    path: &Path,
    n: usize,
    size: i32,
    own: &Range<u64>,
    step: u32,
    cells: &[AtomicU8],
    keep: u8,
) -> Result<(), TableError> {
    let tmp = temporary_path(path);
    let copy = |piece: &[AtomicU8], buf: &mut Vec<u8>| load_piece(piece, keep, buf);
    let mut buf = Vec::with_capacity(CHECKPOINT_PIECE);
    let mut sum = Checksum::new();
    for piece in cells.chunks(CHECKPOINT_PIECE) {
        copy(piece, &mut buf);
        sum.update(&buf);
    }
    let sum = sum.finish();
    let write = || -> std::io::Result<()> {
        let mut w = BufWriter::new(File::create(&tmp)?);
        w.write_all(&checkpoint_header(n, size, own, step, sum))?;
        let mut buf = Vec::with_capacity(CHECKPOINT_PIECE);
        for piece in cells.chunks(CHECKPOINT_PIECE) {
            copy(piece, &mut buf);
            w.write_all(&buf)?;
        }
        w.into_inner().map_err(|e| e.into_error())?.sync_all()
    };
    write().map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// The sweep and the bytes saved at `path` for the range `own` of layer `n` under `size`
/// processes, if they are there, whole and for this range.
pub(super) fn load_checkpoint(
    path: &Path,
    n: usize,
    size: i32,
    own: &Range<u64>,
) -> Option<(u32, Vec<u8>)> {
    let all = std::fs::read(path).ok()?;
    let head = 8 + 6 * 8;
    let (h, bytes) = (all.get(..head)?, all.get(head..)?);
    let step = u32::try_from(u64::from_le_bytes(h[40..48].try_into().ok()?)).ok()?;
    (h == checkpoint_header(n, size, own, step, checksum(bytes))).then(|| (step, bytes.to_vec()))
}

/// The bytes of `piece` (their bits in `keep`) into `buf`, replacing what it held: a piece
/// of a range to save or to send.
pub(super) fn load_piece(piece: &[AtomicU8], keep: u8, buf: &mut Vec<u8>) {
    buf.clear();
    buf.extend(piece.iter().map(|c| c.load(Relaxed) & keep));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::work;

    #[test]
    fn a_checkpoint_reads_back_only_for_its_range_and_layer() {
        let dir = std::env::temp_dir().join(format!("hoyito-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = checkpoint_path(&dir, 12, 1, 3);
        let mut bytes: Vec<u8> = (0..=255).collect();
        let cells = work::atomic(&mut bytes);
        save_checkpoint(&path, 12, 3, &(256..512), 7, cells, !0).unwrap();
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(load_checkpoint(&path, 12, 3, &(256..512)), Some((7, bytes)));
        assert_eq!(load_checkpoint(&path, 16, 3, &(256..512)), None);
        assert_eq!(load_checkpoint(&path, 12, 2, &(256..512)), None);
        assert_eq!(load_checkpoint(&path, 12, 3, &(0..256)), None);
        let mut damaged = std::fs::read(&path).unwrap();
        *damaged.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &damaged).unwrap();
        assert_eq!(load_checkpoint(&path, 12, 3, &(256..512)), None);
        // A save stopped before its rename leaves its temporary file; both go once the
        // layer is written.
        std::fs::write(temporary_path(&path), b"HOYMPICK").unwrap();
        remove_checkpoint(&path).unwrap();
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        remove_checkpoint(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
