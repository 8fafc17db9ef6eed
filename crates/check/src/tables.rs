//! A reader of the endgame table files, written from the format's description (the comment
//! at the top of `crates/tables/src/format.rs`) and the definition of the index
//! (`crates/tables/src/index.rs`), sharing no code with the tables crate.
//!
//! A layer file is checked in full before any value is used: every header field against
//! what the rules and the layer imply, the header checksum, the file size, the payload
//! checksum and the zero padding byte.

use std::path::{Path, PathBuf};

use crate::error::CheckError;
use crate::rules::{CaptureSide, LastFour, Position, Rules, Side, Variant};

const MAGIC: &[u8; 8] = b"HOYITOTB";
const VERSION: u32 = 1;
/// Bytes of the header before the histogram.
const FIXED: usize = 72;

/// The 64-bit checksum of the table files: the bytes are read as little-endian 64-bit
/// words (the last one completed with zero bytes; a zero word when the length is a multiple
/// of 8), each mixed in as `h = (rotl(h, 23) xor w) * K`, then the length in bytes is mixed
/// in the same way, then a final avalanche.
pub fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mix = |h: u64, w: u64| (h.rotate_left(23) ^ w).wrapping_mul(K);
    let mut h: u64 = 0x243f_6a88_85a3_08d3;
    let mut i = 0;
    while i + 8 <= bytes.len() {
        h = mix(h, le_u64(&bytes[i..i + 8]));
        i += 8;
    }
    let mut last = [0u8; 8];
    last[..bytes.len() - i].copy_from_slice(&bytes[i..]);
    h = mix(h, u64::from_le_bytes(last));
    h = mix(h, bytes.len() as u64);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The binomial coefficient `C(n, k)`, exact (the callers' values fit in 64 bits; `None`
/// when one does not).
pub fn choose(n: u64, k: u64) -> Option<u64> {
    if k > n {
        return Some(0);
    }
    let mut r: u128 = 1;
    for i in 0..k {
        // r = C(n, i) * (n - i) / (i + 1) = C(n, i + 1), always an integer.
        r = r * (n - i) as u128 / (i + 1) as u128;
        if r > u64::MAX as u128 {
            return None;
        }
    }
    Some(r as u64)
}

/// The rank of a board of `2H` holes among all boards with as many seeds (`0 ..`): with
/// `Q_j` the seeds of the first `j` holes, `sum over j = 1 .. 2H-1 of C(Q_j + j - 1, j)`.
pub fn rank(board: &[u8]) -> u64 {
    let mut q: u64 = 0;
    let mut r: u64 = 0;
    for j in 1..board.len() {
        q += board[j - 1] as u64;
        r += choose(q + j as u64 - 1, j as u64).unwrap_or(u64::MAX);
    }
    r
}

/// The folder of a set of rules' tables under the tables directory, e.g.
/// `2x6-hoyito2-capturer-any`.
pub fn folder_name(rules: &Rules) -> String {
    let variant = match rules.variant {
        Variant::Hoyito2 => "hoyito2",
        Variant::Hoyito3 => "hoyito3",
    };
    let last_four = match rules.last_four {
        LastFour::Capturer => "capturer",
        LastFour::South => "S",
        LastFour::North => "N",
    };
    let capture_side = match rules.capture_side {
        CaptureSide::Any => "any",
        CaptureSide::Opponent => "opponent",
    };
    format!("2x{}-{variant}-{last_four}-{capture_side}", rules.holes)
}

/// The path of the layer of `seeds` seeds of `rules` under the tables directory `dir`.
pub fn layer_path(dir: &Path, rules: &Rules, seeds: usize) -> PathBuf {
    dir.join(folder_name(rules))
        .join(format!("layer-{seeds:02}.hyt"))
}

/// The value step of a layer (values are multiples of it).
fn step_of(seeds: usize) -> usize {
    match seeds % 4 {
        0 => 4,
        2 => 2,
        _ => 1,
    }
}

/// Bits a value takes: enough for the `2 * seeds / step + 1` codes.
fn bits_of(seeds: usize) -> usize {
    let codes = 2 * (seeds / step_of(seeds)) + 1;
    let mut bits = 1;
    while (1usize << bits) < codes {
        bits += 1;
    }
    bits
}

/// Checks the start of the bytes of a layer file of `seeds` seeds: magic, version,
/// histogram bins and the header's checksum; returns the header's length.
fn check_header(bytes: &[u8], seeds: usize) -> Result<usize, String> {
    if bytes.len() < FIXED + 8 {
        return Err(format!(
            "{} bytes is too short for a table file",
            bytes.len()
        ));
    }
    if &bytes[0..8] != MAGIC {
        return Err("not a table file (no HOYITOTB magic)".into());
    }
    let version = le_u32(&bytes[8..]);
    if version != VERSION {
        return Err(format!(
            "format version {version}, this reader knows {VERSION}"
        ));
    }
    let step = step_of(seeds);
    let bins = 2 * seeds / step + 1;
    let header_len = FIXED + 8 * bins + 8;
    let found_bins = le_u32(&bytes[52..]) as usize;
    if found_bins != bins {
        return Err(format!(
            "histogram bins {found_bins}, expected {bins} for {seeds} seeds"
        ));
    }
    if bytes.len() < header_len {
        return Err("the header is cut short".into());
    }
    let stored = le_u64(&bytes[header_len - 8..]);
    let computed = checksum(&bytes[..header_len - 8]);
    if stored != computed {
        return Err(format!(
            "header checksum {stored:#018x} does not match the header ({computed:#018x})"
        ));
    }
    Ok(header_len)
}

/// Checks every header field of the bytes of a layer file against what `rules` and
/// `seeds` imply; returns the layer's sides, bits a value, positions a side and payload
/// bytes.
fn check_fields(
    bytes: &[u8],
    rules: &Rules,
    seeds: usize,
) -> Result<(usize, usize, u64, u128), String> {
    let step = step_of(seeds);
    let bins = 2 * seeds / step + 1;
    let sides = if rules.last_four == LastFour::Capturer {
        1
    } else {
        2
    };
    let bits = bits_of(seeds);
    let holes = rules.holes;
    let per_side = choose((seeds + 2 * holes - 1) as u64, (2 * holes - 1) as u64)
        .ok_or("the layer is too large to index")?;
    let count = per_side
        .checked_mul(sides as u64)
        .ok_or("the layer is too large to index")?;
    let payload_len = (count as u128 * bits as u128).div_ceil(8) + 1;
    let histogram_total: u128 = (0..bins)
        .map(|i| le_u64(&bytes[FIXED + 8 * i..]) as u128)
        .sum();
    let variant = match rules.variant {
        Variant::Hoyito2 => 2,
        Variant::Hoyito3 => 3,
    };
    let last_four = match rules.last_four {
        LastFour::Capturer => 0,
        LastFour::South => 1,
        LastFour::North => 2,
    };
    let capture_side = match rules.capture_side {
        CaptureSide::Any => 0,
        CaptureSide::Opponent => 1,
    };
    let fields: [(&str, u128, u128); 13] = [
        ("holes", bytes[12] as u128, holes as u128),
        ("variant", bytes[13] as u128, variant),
        ("last four", bytes[14] as u128, last_four),
        ("capture side", bytes[15] as u128, capture_side),
        ("seeds", le_u32(&bytes[16..]) as u128, seeds as u128),
        ("sides", bytes[20] as u128, sides as u128),
        ("bits", bytes[21] as u128, bits as u128),
        ("step", bytes[22] as u128, step as u128),
        ("reserved byte 23", bytes[23] as u128, 0),
        ("positions", le_u64(&bytes[24..]) as u128, count as u128),
        ("payload bytes", le_u64(&bytes[32..]) as u128, payload_len),
        ("reserved bytes 68..72", le_u32(&bytes[68..]) as u128, 0),
        ("histogram total", histogram_total, count as u128),
    ];
    for (field, found, expected) in fields {
        if found != expected {
            return Err(format!("{field} is {found}, expected {expected}"));
        }
    }
    Ok((sides, bits, per_side, payload_len))
}

/// One layer read from its file and checked.
#[derive(Debug)]
pub struct Layer {
    path: PathBuf,
    holes: usize,
    seeds: usize,
    sides: usize,
    bits: usize,
    step: usize,
    per_side: u64,
    /// The header's histogram: positions per value, from `-seeds` to `+seeds` by `step`.
    histogram: Vec<u64>,
    /// The header's payload checksum (checked against the payload when read).
    payload_checksum: u64,
    payload: Vec<u8>,
}

impl Layer {
    /// Reads the layer of `seeds` seeds of `rules` from `path` and checks all of it; any
    /// damage or mismatch is an error naming the file.
    pub fn read(path: &Path, rules: &Rules, seeds: usize) -> Result<Layer, CheckError> {
        let bytes = std::fs::read(path).map_err(|e| CheckError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Layer::from_bytes(path, bytes, rules, seeds)
    }

    /// Checks the bytes of a layer file (read from `path`).
    pub fn from_bytes(
        path: &Path,
        bytes: Vec<u8>,
        rules: &Rules,
        seeds: usize,
    ) -> Result<Layer, CheckError> {
        let bad = |problem: String| CheckError::Table {
            path: path.to_path_buf(),
            problem,
        };
        let header_len = check_header(&bytes, seeds).map_err(bad)?;
        let (sides, bits, per_side, payload_len) =
            check_fields(&bytes, rules, seeds).map_err(bad)?;
        let (holes, step) = (rules.holes, step_of(seeds));
        let file_len = header_len as u128 + payload_len;
        if bytes.len() as u128 != file_len {
            return Err(bad(format!(
                "the file has {} bytes, its header implies {file_len}",
                bytes.len()
            )));
        }
        let stored = le_u64(&bytes[40..]);
        let computed = checksum(&bytes[header_len..]);
        if stored != computed {
            return Err(bad(format!(
                "payload checksum {stored:#018x} does not match the payload ({computed:#018x})"
            )));
        }
        if bytes[bytes.len() - 1] != 0 {
            return Err(bad("the padding byte after the values is not 0".into()));
        }
        let bins = 2 * seeds / step + 1;
        let histogram = (0..bins).map(|i| le_u64(&bytes[FIXED + 8 * i..])).collect();
        Ok(Layer {
            path: path.to_path_buf(),
            holes,
            seeds,
            sides,
            bits,
            step,
            per_side,
            histogram,
            payload_checksum: stored,
            payload: {
                let mut payload = bytes;
                payload.drain(..header_len);
                payload
            },
        })
    }

    /// Seeds on the board of this layer.
    pub fn seeds(&self) -> usize {
        self.seeds
    }

    /// The file the layer was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Positions in the layer: boards of its seeds times the sides to move stored.
    pub fn positions(&self) -> u64 {
        self.per_side * self.sides as u64
    }

    /// Sides to move stored: 1 under symmetric rules (`last_four = capturer`), else 2.
    pub fn sides(&self) -> usize {
        self.sides
    }

    /// Values are multiples of this step (4 when the seeds are a multiple of 4, 2 when
    /// they are 2 more, else 1).
    pub fn step(&self) -> usize {
        self.step
    }

    /// The payload checksum of the header (equal to the payload's, checked when read).
    pub fn payload_checksum(&self) -> u64 {
        self.payload_checksum
    }

    /// The header's histogram: positions per value, from `-seeds` to `+seeds` by the step.
    pub fn histogram(&self) -> &[u64] {
        &self.histogram
    }

    /// Bits a value takes.
    pub(crate) fn bits(&self) -> usize {
        self.bits
    }

    /// The packed values, followed by the padding byte.
    pub(crate) fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// The index of `p` in the layer: the board as the side to move sees it (its own row
    /// first) ranked, plus `C` (boards a side) for North to move when both sides are stored.
    pub fn index(&self, p: &Position) -> u64 {
        let size = 2 * self.holes;
        let shift = if p.side == Side::South { 0 } else { self.holes };
        let mut view = Vec::with_capacity(size);
        for i in 0..size {
            view.push(p.board[(i + shift) % size]);
        }
        let r = rank(&view);
        if self.sides == 2 && p.side == Side::North {
            self.per_side + r
        } else {
            r
        }
    }

    /// The stored value of `p` for its side to move. `p` must have this layer's holes and
    /// seeds. A code out of range is an error naming the file.
    pub fn value(&self, p: &Position) -> Result<i32, CheckError> {
        let index = self.index(p);
        let first_bit = index * self.bits as u64;
        let mut code: u32 = 0;
        for k in 0..self.bits as u64 {
            let bit = first_bit + k;
            let byte = self.payload[(bit / 8) as usize];
            if (byte >> (bit % 8)) & 1 == 1 {
                code += 1 << k;
            }
        }
        let step = self.step as i32;
        let value = (code as i32 - self.seeds as i32 / step) * step;
        if value.abs() > self.seeds as i32 {
            return Err(CheckError::Table {
                path: self.path.clone(),
                problem: format!("value code {code} of position {p} is out of range"),
            });
        }
        Ok(value)
    }
}

/// The layers of a set of rules up to some seeds, all read and checked when opened.
#[derive(Debug)]
pub struct Tables {
    max_seeds: usize,
    /// `layers[n]`: the layer of `n` seeds, for `n` in `5 ..= max_seeds` with `n` and
    /// `max_seeds` equal modulo 4.
    layers: Vec<Option<Layer>>,
}

impl Tables {
    /// Reads every layer `max_seeds`, `max_seeds - 4`, ... above 4 of `rules` under `dir`.
    pub fn open(dir: &Path, rules: &Rules, max_seeds: usize) -> Result<Tables, CheckError> {
        let mut layers = Vec::new();
        for n in 0..=max_seeds {
            if n > 4 && n % 4 == max_seeds % 4 {
                layers.push(Some(Layer::read(&layer_path(dir, rules, n), rules, n)?));
            } else {
                layers.push(None);
            }
        }
        Ok(Tables { max_seeds, layers })
    }

    /// The most seeds of a layer.
    pub fn max_seeds(&self) -> usize {
        self.max_seeds
    }

    /// The layer of `seeds` seeds, if these tables hold it.
    pub fn layer(&self, seeds: usize) -> Option<&Layer> {
        self.layers.get(seeds).and_then(|l| l.as_ref())
    }

    /// South's value of `p` when its layer is in the tables.
    pub fn south_value(&self, p: &Position) -> Option<Result<i32, CheckError>> {
        let layer = self.layer(p.seeds() as usize)?;
        Some(layer.value(p).map(|v| match p.side {
            Side::South => v,
            Side::North => -v,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_number_the_boards_without_gaps() {
        // Every board of 4 holes with 3 seeds, in any order: the ranks are 0 .. C(6, 3).
        let mut ranks = Vec::new();
        for a in 0..=3u8 {
            for b in 0..=3 - a {
                for c in 0..=3 - a - b {
                    ranks.push(rank(&[a, b, c, 3 - a - b - c]));
                }
            }
        }
        ranks.sort_unstable();
        assert_eq!(ranks, (0..20).collect::<Vec<u64>>());
        assert_eq!(choose(6, 3), Some(20));
        assert_eq!(choose(3, 5), Some(0));
    }

    #[test]
    fn sizes() {
        assert_eq!(bits_of(8), 3);
        assert_eq!(bits_of(28), 4);
        assert_eq!(bits_of(32), 5);
        assert_eq!(bits_of(6), 3);
        assert_eq!(choose(23, 11), Some(1_352_078));
    }
}
