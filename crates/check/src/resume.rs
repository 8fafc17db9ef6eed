//! Stopping a long verification of the tables and resuming it: what stops it, and the
//! state it keeps in a folder.
//!
//! A layer is verified in segments of positions. Between two segments the check may save
//! its state (at most every [`Resume::save_every`]) and may stop: when [`Resume::stop`] is
//! raised or [`Resume::deadline`] has passed, it saves and returns
//! [`CheckError::Stopped`]. The state folder holds, per set of rules and layer:
//!
//! - `<rules>-<seeds>.partial` while the layer is under check: the pass, the next segment,
//!   the counts so far and one bit a position (the positions shown forced), followed by a
//!   checksum of all of it;
//! - `<rules>-<seeds>.verified` once it is verified: the layer's report.
//!
//! Both name the *ground* of the layer: a checksum of the rules, the layer and the payload
//! checksums of the layer and of every smaller layer its captures lead to. A state whose
//! ground differs from the tables opened now (another file, a rebuilt layer) is not used:
//! the layer is checked from its start, and a stale file is replaced.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crate::error::CheckError;
use crate::tables::checksum;
use crate::values::LayerReport;

/// When a verification of the tables stops, and where it keeps what it has done.
#[derive(Clone, Debug, Default)]
pub struct Resume<'a> {
    /// The state folder ([module docs](self)); `None`: nothing is kept, a stop loses the
    /// work done.
    pub state: Option<PathBuf>,
    /// Save the state at least this often (`None`: only when stopping).
    pub save_every: Option<Duration>,
    /// Stop at the next segment once this is raised.
    pub stop: Option<&'a AtomicBool>,
    /// Stop at the next segment once this instant has passed.
    pub deadline: Option<Instant>,
}

impl Resume<'_> {
    /// Nothing kept, nothing stops the check.
    pub fn none() -> Resume<'static> {
        Resume::default()
    }

    /// Whether the check must stop now.
    pub(crate) fn must_stop(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    fn file(&self, name: &str, seeds: usize, ext: &str) -> Option<PathBuf> {
        self.state
            .as_ref()
            .map(|d| d.join(format!("{name}-{seeds}.{ext}")))
    }
}

const PARTIAL_MAGIC: &[u8; 8] = b"HYTCHK01";
const VERIFIED_HEAD: &str = "hoyito checked layer 1";

/// Where a layer's check stands: everything but the bits.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Standing {
    /// The current pass (1: every position).
    pub pass: u32,
    /// The next chunk of the pass to visit.
    pub next_chunk: u64,
    /// The first pass's histogram of value codes so far.
    pub histogram: Vec<u64>,
    /// Counts of the first pass so far: nonzero values, those grounded, and the
    /// faults (count, first index) of values out of range and against their moves.
    pub nonzero: u64,
    pub first_grounded: u64,
    pub range: (u64, u64),
    pub moves: (u64, u64),
    /// Nonzero positions open at the end of the last pass ended, and after the first.
    pub open: u64,
    pub open_after_first: u64,
    /// Positions whose moves were generated in the passes ended.
    pub evaluations: u64,
    /// In the current pass (after the first): positions grounded and visited so far.
    pub pass_grounded: u64,
    pub pass_visited: u64,
    /// Seconds of checking in earlier runs.
    pub seconds: f64,
}

impl Standing {
    pub(crate) fn new(codes: usize) -> Standing {
        Standing {
            pass: 1,
            next_chunk: 0,
            histogram: vec![0; codes],
            nonzero: 0,
            first_grounded: 0,
            range: (0, u64::MAX),
            moves: (0, u64::MAX),
            open: 0,
            open_after_first: 0,
            evaluations: 0,
            pass_grounded: 0,
            pass_visited: 0,
            seconds: 0.0,
        }
    }

    fn words(&self) -> Vec<u64> {
        let mut w = vec![
            self.pass as u64,
            self.next_chunk,
            self.nonzero,
            self.first_grounded,
            self.range.0,
            self.range.1,
            self.moves.0,
            self.moves.1,
            self.open,
            self.open_after_first,
            self.evaluations,
            self.pass_grounded,
            self.pass_visited,
            self.seconds.to_bits(),
            self.histogram.len() as u64,
        ];
        w.extend(&self.histogram);
        w
    }

    fn from_words(w: &[u64]) -> Option<Standing> {
        let codes = *w.get(14)? as usize;
        if w.len() != 15 + codes {
            return None;
        }
        Some(Standing {
            pass: u32::try_from(w[0]).ok()?,
            next_chunk: w[1],
            nonzero: w[2],
            first_grounded: w[3],
            range: (w[4], w[5]),
            moves: (w[6], w[7]),
            open: w[8],
            open_after_first: w[9],
            evaluations: w[10],
            pass_grounded: w[11],
            pass_visited: w[12],
            seconds: f64::from_bits(w[13]),
            histogram: w[15..].to_vec(),
        })
    }
}

fn io_error(path: &Path, e: std::io::Error) -> CheckError {
    CheckError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn damaged(path: &Path, problem: &str) -> CheckError {
    CheckError::Io {
        path: path.to_path_buf(),
        message: format!(
            "not a usable state of a table check ({problem}); remove it to check the layer \
             from its start"
        ),
    }
}

/// Writes `bytes` to `path` through a temporary file renamed into place.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CheckError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    }
    let tmp = path.with_extension("tmp");
    let mut f = fs::File::create(&tmp).map_err(|e| io_error(&tmp, e))?;
    f.write_all(bytes).map_err(|e| io_error(&tmp, e))?;
    f.sync_all().map_err(|e| io_error(&tmp, e))?;
    fs::rename(&tmp, path).map_err(|e| io_error(path, e))
}

/// The state of a layer's check, as kept in the state folder.
pub(crate) struct Kept<'r, 'a> {
    resume: &'r Resume<'a>,
    name: String,
    seeds: usize,
    ground: u64,
    positions: u64,
}

impl<'r, 'a> Kept<'r, 'a> {
    /// The kept state of layer `seeds` of the rules whose folder is `name`, on `ground`.
    pub(crate) fn new(
        resume: &'r Resume<'a>,
        name: String,
        seeds: usize,
        ground: u64,
        positions: u64,
    ) -> Self {
        Kept {
            resume,
            name,
            seeds,
            ground,
            positions,
        }
    }

    pub(crate) fn resume(&self) -> &Resume<'a> {
        self.resume
    }

    /// The state file of this layer with extension `ext` and its bytes, if there is a state
    /// folder and the file exists.
    fn read(&self, ext: &str) -> Result<Option<(PathBuf, Vec<u8>)>, CheckError> {
        let Some(path) = self.resume.file(&self.name, self.seeds, ext) else {
            return Ok(None);
        };
        match fs::read(&path) {
            Ok(b) => Ok(Some((path, b))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error(&path, e)),
        }
    }

    /// The report of the layer verified on the same ground by an earlier run, if any.
    pub(crate) fn verified(&self) -> Result<Option<LayerReport>, CheckError> {
        let Some((path, bytes)) = self.read("verified")? else {
            return Ok(None);
        };
        let text = String::from_utf8_lossy(&bytes);
        let mut lines = text.lines();
        if lines.next() != Some(VERIFIED_HEAD) {
            return Err(damaged(&path, "unknown first line"));
        }
        let mut field = |key: &str| -> Result<String, CheckError> {
            let line = lines.next().unwrap_or("");
            line.strip_prefix(key)
                .and_then(|rest| rest.strip_prefix(' '))
                .map(str::to_string)
                .ok_or_else(|| damaged(&path, &format!("no `{key}` line")))
        };
        let num = |s: String| -> Result<u64, CheckError> {
            s.parse()
                .map_err(|_| damaged(&path, "a count is not a number"))
        };
        let ground = u64::from_str_radix(&field("ground")?, 16)
            .map_err(|_| damaged(&path, "the ground is not a checksum"))?;
        let report = LayerReport {
            seeds: num(field("seeds")?)? as usize,
            positions: num(field("positions")?)?,
            nonzero: num(field("nonzero")?)?,
            open_after_first: num(field("open_after_first")?)?,
            passes: num(field("passes")?)? as u32,
            evaluations: num(field("evaluations")?)?,
            payload_checksum: u64::from_str_radix(&field("payload_checksum")?, 16)
                .map_err(|_| damaged(&path, "the payload checksum is not hexadecimal"))?,
            seconds: field("seconds")?
                .parse()
                .map_err(|_| damaged(&path, "the seconds are not a number"))?,
            earlier: true,
        };
        Ok((ground == self.ground && report.seeds == self.seeds).then_some(report))
    }

    /// Records the layer verified, and removes its partial state.
    pub(crate) fn save_verified(&self, r: &LayerReport) -> Result<(), CheckError> {
        let Some(path) = self.resume.file(&self.name, self.seeds, "verified") else {
            return Ok(());
        };
        let text = format!(
            "{VERIFIED_HEAD}\nground {:016x}\nseeds {}\npositions {}\nnonzero {}\n\
             open_after_first {}\npasses {}\nevaluations {}\npayload_checksum {:016x}\n\
             seconds {}\n",
            self.ground,
            r.seeds,
            r.positions,
            r.nonzero,
            r.open_after_first,
            r.passes,
            r.evaluations,
            r.payload_checksum,
            r.seconds
        );
        write_atomic(&path, text.as_bytes())?;
        if let Some(partial) = self.resume.file(&self.name, self.seeds, "partial") {
            let _ = fs::remove_file(partial);
        }
        Ok(())
    }

    /// The partial state of an earlier run on the same ground: where it stood and its bits
    /// (one word per 64 positions).
    pub(crate) fn partial(&self) -> Result<Option<(Standing, Vec<u64>)>, CheckError> {
        let Some((path, bytes)) = self.read("partial")? else {
            return Ok(None);
        };
        if bytes.len() < 48 || !bytes.len().is_multiple_of(8) || &bytes[..8] != PARTIAL_MAGIC {
            return Err(damaged(&path, "not a partial state"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if checksum(body).to_le_bytes() != sum {
            return Err(damaged(&path, "its checksum does not match"));
        }
        let words: Vec<u64> = body[8..]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        // ground, seeds, positions, standing words, then the bits.
        if words[0] != self.ground || words[1] != self.seeds as u64 || words[2] != self.positions {
            return Ok(None);
        }
        let standing_len = words[3] as usize;
        let bits_len = self.positions.div_ceil(64) as usize;
        if words.len() != 4 + standing_len + bits_len {
            return Err(damaged(&path, "its length does not fit the layer"));
        }
        let standing = Standing::from_words(&words[4..4 + standing_len])
            .ok_or_else(|| damaged(&path, "its counts do not fit together"))?;
        Ok(Some((standing, words[4 + standing_len..].to_vec())))
    }

    /// Saves the partial state (a no-op without a state folder).
    pub(crate) fn save_partial(&self, s: &Standing, bits: &[u64]) -> Result<(), CheckError> {
        let Some(path) = self.resume.file(&self.name, self.seeds, "partial") else {
            return Ok(());
        };
        let standing = s.words();
        let mut bytes = Vec::with_capacity(8 * (5 + standing.len() + bits.len()) + 8);
        bytes.extend_from_slice(PARTIAL_MAGIC);
        for w in [
            self.ground,
            self.seeds as u64,
            self.positions,
            standing.len() as u64,
        ]
        .iter()
        .chain(&standing)
        .chain(bits)
        {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        let sum = checksum(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        write_atomic(&path, &bytes)
    }

    /// The partial state's file, if one is kept.
    pub(crate) fn partial_path(&self) -> Option<PathBuf> {
        self.resume.file(&self.name, self.seeds, "partial")
    }
}
