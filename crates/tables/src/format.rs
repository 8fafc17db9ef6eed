//! The file format of one layer, and a finished layer held in memory.
//!
//! ```text
//!  offset  size  field
//!       0     8  magic "HOYITOTB"
//!       8     4  format version (1), little-endian like every number here
//!      12     1  holes per row
//!      13     1  variant: 2 = hoyito2, 3 = hoyito3
//!      14     1  last four: 0 = capturer, 1 = S, 2 = N
//!      15     1  capture side: 0 = any, 1 = opponent
//!      16     4  seeds on the board (the layer)
//!      20     1  sides to move stored (1 under symmetric rules, else 2)
//!      21     1  bits per value
//!      22     1  value step g (values are multiples of g: 4 when the layer is a multiple of 4)
//!      23     1  reserved, 0
//!      24     8  positions
//!      32     8  payload bytes
//!      40     8  payload checksum
//!      48     4  sweeps the build took
//!      52     4  histogram bins B = 2 * seeds / g + 1
//!      56     8  build time in milliseconds
//!      64     4  rounds the build took (see `Method::Auto`)
//!      68     4  reserved, 0
//!      72   8*B  histogram: positions per value, from -seeds to +seeds in steps of g
//!  72+8B     8  header checksum (of every byte before it)
//!  80+8B     .  payload
//! ```
//!
//! The payload holds one code per position, in index order, `bits` bits each, packed
//! little-endian (the first position in the low bits of the first byte), followed by one
//! zero byte of padding. A code is `value / g + seeds / g`. The checksum is a 64-bit
//! multiply-rotate hash over little-endian words (it finds damage, it is not a signature).

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use hoyito_rules::{CaptureSide, LastFour, Rules, Variant};

use crate::error::{corrupt, io, mismatch, Damage, Mismatch, TableError, Unsupported};
use crate::index::Layout;

/// The file format version written and accepted.
pub const FORMAT_VERSION: u32 = 1;
const MAGIC: &[u8; 8] = b"HOYITOTB";
const FIXED: usize = 72;

/// The rule options a table depends on. The seeds a hole at the start do not enter: a layer
/// of `n` seeds is the same game whatever the start was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableKey {
    /// Holes per row.
    pub holes: usize,
    /// Chain captures or landing hole only.
    pub variant: Variant,
    /// Who receives the last seeds.
    pub last_four: LastFour,
    /// Which rows may be captured.
    pub capture_side: CaptureSide,
}

impl TableKey {
    /// The key of a set of rules.
    pub fn of(rules: &Rules) -> TableKey {
        TableKey {
            holes: rules.holes(),
            variant: rules.variant(),
            last_four: rules.last_four(),
            capture_side: rules.capture_side(),
        }
    }

    /// Rules with this key and the most seeds a hole, so that every layer is a legal board.
    pub fn build_rules(&self) -> Result<Rules, TableError> {
        Rules::new(
            self.variant,
            self.holes,
            hoyito_rules::MAX_SEEDS,
            self.last_four,
            self.capture_side,
        )
        .map_err(|e| TableError::Unsupported(Unsupported::Rules(e)))
    }

    /// Whether one side to move suffices (the rules are the same with the sides exchanged).
    pub fn symmetric(&self) -> bool {
        self.last_four == LastFour::Capturer
    }

    /// Sides to move stored in each layer: 1 under symmetric rules, else 2.
    pub(crate) fn sides(&self) -> usize {
        if self.symmetric() {
            1
        } else {
            2
        }
    }

    /// The folder name of this key's tables, e.g. `2x6-hoyito2-capturer-any`.
    pub fn folder(&self) -> String {
        format!(
            "2x{}-{}-{}-{}",
            self.holes, self.variant, self.last_four, self.capture_side
        )
    }

    fn codes(&self) -> [u8; 4] {
        [
            self.holes as u8,
            match self.variant {
                Variant::Hoyito2 => 2,
                Variant::Hoyito3 => 3,
            },
            match self.last_four {
                LastFour::Capturer => 0,
                LastFour::South => 1,
                LastFour::North => 2,
            },
            match self.capture_side {
                CaptureSide::Any => 0,
                CaptureSide::Opponent => 1,
            },
        ]
    }
}

/// The value step of a layer: every value of a layer of `seeds` seeds is a multiple of it
/// (captures take multiples of 4; the last-four award is `seeds mod 4` when not 0).
pub fn step_of(seeds: usize) -> usize {
    match seeds % 4 {
        0 => 4,
        2 => 2,
        _ => 1,
    }
}

/// Bits a value needs in a layer of `seeds` seeds.
pub fn bits_of(seeds: usize) -> u8 {
    let codes = 2 * (seeds / step_of(seeds)) + 1;
    let mut b = 1u8;
    while (1usize << b) < codes {
        b += 1;
    }
    b
}

/// The layers a build of up to `max_seeds` needs: `max_seeds`, `max_seeds - 4`, ... down to
/// the smallest above 4, in increasing order (boards of 4 or fewer seeds need no table).
pub fn layers_up_to(max_seeds: usize) -> Vec<usize> {
    (5..=max_seeds).filter(|n| n % 4 == max_seeds % 4).collect()
}

/// The folder of a key's tables under `dir`.
pub fn key_dir(dir: &Path, key: &TableKey) -> PathBuf {
    dir.join(key.folder())
}

/// The file name of a layer.
pub fn file_name(seeds: usize) -> String {
    format!("layer-{seeds:02}.hyt")
}

/// The layer of a file named by [`file_name`], or `None` for any other name.
pub(crate) fn layer_of_file_name(name: &str) -> Option<usize> {
    let n = name
        .strip_prefix("layer-")?
        .strip_suffix(".hyt")?
        .parse::<usize>()
        .ok()?;
    (file_name(n) == name).then_some(n)
}

/// The 64-bit checksum of a byte string.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h = Checksum::new();
    h.update(bytes);
    h.finish()
}

/// An incremental [`checksum`]; feeding the bytes in pieces of any size gives the same result.
pub struct Checksum {
    h: u64,
    tail: [u8; 8],
    tail_len: usize,
    len: u64,
}

impl Checksum {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    /// A new, empty checksum.
    pub fn new() -> Self {
        Checksum {
            h: 0x243f_6a88_85a3_08d3,
            tail: [0; 8],
            tail_len: 0,
            len: 0,
        }
    }
    #[inline]
    fn word(&mut self, w: u64) {
        self.h = (self.h.rotate_left(23) ^ w).wrapping_mul(Self::K);
    }
    /// Adds bytes.
    pub fn update(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len() as u64;
        while self.tail_len > 0 && !bytes.is_empty() {
            self.tail[self.tail_len] = bytes[0];
            self.tail_len = (self.tail_len + 1) % 8;
            bytes = &bytes[1..];
            if self.tail_len == 0 {
                let w = u64::from_le_bytes(self.tail);
                self.word(w);
            }
        }
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            self.word(u64::from_le_bytes(a));
        }
        for &b in chunks.remainder() {
            self.tail[self.tail_len] = b;
            self.tail_len += 1;
        }
    }
    /// The checksum of everything added.
    pub fn finish(mut self) -> u64 {
        let mut a = [0u8; 8];
        a[..self.tail_len].copy_from_slice(&self.tail[..self.tail_len]);
        let w = u64::from_le_bytes(a);
        self.word(w);
        let len = self.len;
        self.word(len);
        let mut h = self.h;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }
}

impl Default for Checksum {
    fn default() -> Self {
        Self::new()
    }
}

/// What a layer file's header says.
#[derive(Clone, Debug)]
pub struct Header {
    /// The rules.
    pub key: TableKey,
    /// Seeds on the board.
    pub seeds: usize,
    /// Sides to move stored.
    pub sides: usize,
    /// Bits per value.
    pub bits: u8,
    /// Value step.
    pub step: usize,
    /// Positions.
    pub count: u64,
    /// Payload bytes (padding included).
    pub payload_len: u64,
    /// Payload checksum.
    pub payload_checksum: u64,
    /// Sweeps the build took.
    pub sweeps: u32,
    /// Rounds the build took.
    pub rounds: u32,
    /// Build time in milliseconds.
    pub build_millis: u64,
    /// Positions per value, from `-seeds` to `seeds` in steps of `step`.
    pub histogram: Vec<u64>,
}

impl Header {
    /// Bytes of the header on disk.
    pub fn len(&self) -> usize {
        FIXED + 8 * self.histogram.len() + 8
    }

    /// Whether the header has no histogram (never, for a valid layer).
    pub fn is_empty(&self) -> bool {
        self.histogram.is_empty()
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.len());
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        b.extend_from_slice(&self.key.codes());
        b.extend_from_slice(&(self.seeds as u32).to_le_bytes());
        b.extend_from_slice(&[self.sides as u8, self.bits, self.step as u8, 0]);
        b.extend_from_slice(&self.count.to_le_bytes());
        b.extend_from_slice(&self.payload_len.to_le_bytes());
        b.extend_from_slice(&self.payload_checksum.to_le_bytes());
        b.extend_from_slice(&self.sweeps.to_le_bytes());
        b.extend_from_slice(&(self.histogram.len() as u32).to_le_bytes());
        b.extend_from_slice(&self.build_millis.to_le_bytes());
        b.extend_from_slice(&self.rounds.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        for h in &self.histogram {
            b.extend_from_slice(&h.to_le_bytes());
        }
        let c = checksum(&b);
        b.extend_from_slice(&c.to_le_bytes());
        b
    }

    /// Reads and checks a header (not the payload) from the start of `file`.
    fn read(path: &Path, file: &mut File) -> Result<Header, TableError> {
        let corrupt = |damage| corrupt(path, damage);
        let mut fixed = [0u8; FIXED];
        file.read_exact(&mut fixed)
            .map_err(|_| corrupt(Damage::ShortHeader))?;
        if &fixed[0..8] != MAGIC {
            return Err(corrupt(Damage::Magic));
        }
        let u32_at =
            |o: usize| u32::from_le_bytes([fixed[o], fixed[o + 1], fixed[o + 2], fixed[o + 3]]);
        let u64_at = |o: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&fixed[o..o + 8]);
            u64::from_le_bytes(a)
        };
        let version = u32_at(8);
        if version != FORMAT_VERSION {
            return Err(mismatch(
                path,
                Mismatch::Version {
                    found: version,
                    expected: FORMAT_VERSION,
                },
            ));
        }
        let bins = u32_at(52);
        if bins > 1024 {
            return Err(corrupt(Damage::HistogramBins(bins)));
        }
        let bins = bins as usize;
        let mut rest = vec![0u8; 8 * bins + 8];
        file.read_exact(&mut rest)
            .map_err(|_| corrupt(Damage::HeaderCut))?;
        let mut all = fixed.to_vec();
        all.extend_from_slice(&rest[..8 * bins]);
        let mut stored = [0u8; 8];
        stored.copy_from_slice(&rest[8 * bins..]);
        let (stored, computed) = (u64::from_le_bytes(stored), checksum(&all));
        if computed != stored {
            return Err(corrupt(Damage::HeaderChecksum { stored, computed }));
        }
        let unknown = |option, code| corrupt(Damage::RuleCode { option, code });
        let key = TableKey {
            holes: fixed[12] as usize,
            variant: match fixed[13] {
                2 => Variant::Hoyito2,
                3 => Variant::Hoyito3,
                code => return Err(unknown("variant", code)),
            },
            last_four: match fixed[14] {
                0 => LastFour::Capturer,
                1 => LastFour::South,
                2 => LastFour::North,
                code => return Err(unknown("last-four", code)),
            },
            capture_side: match fixed[15] {
                0 => CaptureSide::Any,
                1 => CaptureSide::Opponent,
                code => return Err(unknown("capture-side", code)),
            },
        };
        let histogram = (0..bins)
            .map(|i| {
                let mut a = [0u8; 8];
                a.copy_from_slice(&rest[8 * i..8 * i + 8]);
                u64::from_le_bytes(a)
            })
            .collect();
        Ok(Header {
            key,
            seeds: u32_at(16) as usize,
            sides: fixed[20] as usize,
            bits: fixed[21],
            step: fixed[22] as usize,
            count: u64_at(24),
            payload_len: u64_at(32),
            payload_checksum: u64_at(40),
            sweeps: u32_at(48),
            rounds: u32_at(64),
            build_millis: u64_at(56),
            histogram,
        })
    }

    /// Checks that the header's fields are those of `layout`'s layer; the first that is not
    /// is a [`Damage::Field`].
    fn check_fields(&self, layout: &Layout) -> Result<(), Damage> {
        let seeds = layout.seeds();
        let step = step_of(seeds);
        let bits = bits_of(seeds);
        let count = layout.count();
        let fields: [(&'static str, u64, u64); 7] = [
            ("sides", self.sides as u64, layout.sides() as u64),
            ("step", self.step as u64, step as u64),
            ("bits", self.bits as u64, bits as u64),
            ("positions", self.count, count),
            ("payload bytes", self.payload_len, payload_len(count, bits)),
            (
                "histogram bins",
                self.histogram.len() as u64,
                (2 * seeds / step + 1) as u64,
            ),
            // Saturating: a forged histogram (its header checksum made right) may sum past
            // u64::MAX, which is a wrong total, not a panic.
            (
                "histogram total",
                self.histogram
                    .iter()
                    .fold(0u64, |a, &h| a.saturating_add(h)),
                count,
            ),
        ];
        match fields
            .into_iter()
            .find(|&(_, found, expected)| found != expected)
        {
            Some((field, found, expected)) => Err(Damage::Field {
                field,
                found,
                expected,
            }),
            None => Ok(()),
        }
    }
}

/// Payload bytes for `count` values of `bits` bits: the packed bits and one byte of padding,
/// so that a value can always be read as two bytes.
pub fn payload_len(count: u64, bits: u8) -> u64 {
    (count * bits as u64).div_ceil(8) + 1
}

/// A finished layer in memory: its header and packed values.
#[derive(Debug)]
pub struct Layer {
    header: Header,
    layout: Layout,
    data: Vec<u8>,
    /// The file it was read from; none for a layer built in memory.
    path: Option<PathBuf>,
    file_bytes: u64,
}

impl Layer {
    /// Seeds on the board.
    pub fn seeds(&self) -> usize {
        self.header.seeds
    }
    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }
    /// The index layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// The file it was read from; `None` for a layer built in memory
    /// ([`Tables::in_memory`](crate::Tables::in_memory)).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
    /// Size of its file in bytes (header and payload): of the file it was read from, or of
    /// the file it would make for a layer built in memory.
    pub fn file_bytes(&self) -> u64 {
        self.file_bytes
    }

    /// The value of position `index`.
    #[inline(always)]
    pub fn value(&self, index: u64) -> i32 {
        let bits = self.header.bits as u64;
        let off = index * bits;
        let byte = (off >> 3) as usize;
        // The padding byte makes `byte + 1` valid for every index < count.
        let w = self.data[byte] as u32 | (self.data[byte + 1] as u32) << 8;
        let code = (w >> (off & 7)) & ((1u32 << bits) - 1);
        let step = self.header.step as i32;
        (code as i32 - self.header.seeds as i32 / step) * step
    }

    /// Starts loading the value of position `index` into the cache.
    #[inline(always)]
    pub(crate) fn prefetch(&self, index: u64) {
        crate::mem::prefetch(
            &self.data,
            ((index * self.header.bits as u64) >> 3) as usize,
        );
    }

    /// Reads and checks a layer file: header, rules, layer, sizes and payload checksum.
    pub fn read(path: &Path, key: &TableKey, seeds: usize) -> Result<Layer, TableError> {
        let mut file = File::open(path).map_err(io(path))?;
        let header = Header::read(path, &mut file)?;
        let corrupt = |damage| corrupt(path, damage);
        if header.key != *key {
            return Err(mismatch(
                path,
                Mismatch::Rules {
                    found: header.key,
                    expected: *key,
                },
            ));
        }
        if header.seeds != seeds {
            return Err(mismatch(
                path,
                Mismatch::Layer {
                    found: header.seeds,
                    expected: seeds,
                },
            ));
        }
        let layout = Layout::new(key.holes, seeds, key.sides())
            .ok_or_else(|| corrupt(Damage::LayerTooLarge))?;
        header.check_fields(&layout).map_err(corrupt)?;
        let file_bytes = file.metadata().map_err(io(path))?.len();
        let expected = header.len() as u64 + header.payload_len;
        if file_bytes != expected {
            return Err(corrupt(Damage::Size {
                found: file_bytes,
                expected,
            }));
        }
        let len = usize::try_from(header.payload_len)
            .map_err(|_| corrupt(Damage::PayloadTooLarge(header.payload_len)))?;
        let mut data = Vec::new();
        data.try_reserve_exact(len)
            .map_err(|_| memory(header.payload_len))?;
        data.resize(len, 0);
        crate::mem::advise_huge_pages(&mut data);
        file.read_exact(&mut data).map_err(io(path))?;
        let computed = checksum(&data);
        if computed != header.payload_checksum {
            return Err(corrupt(Damage::PayloadChecksum {
                stored: header.payload_checksum,
                computed,
            }));
        }
        Ok(Layer {
            header,
            layout,
            data,
            path: Some(path.to_path_buf()),
            file_bytes,
        })
    }

    /// Reads only the header of a layer file (for listing), checking the header checksum.
    pub fn read_header(path: &Path) -> Result<Header, TableError> {
        let mut file = File::open(path).map_err(io(path))?;
        Header::read(path, &mut file)
    }
}

/// How long a layer's build took, for its header.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BuildCounts {
    pub sweeps: u32,
    pub rounds: u32,
    pub millis: u64,
}

impl Header {
    /// The header of a layer just built, its payload checksum not yet known (0).
    fn of_build(
        key: &TableKey,
        layout: &Layout,
        counts: BuildCounts,
        histogram: Vec<u64>,
    ) -> Header {
        let seeds = layout.seeds();
        let bits = bits_of(seeds);
        let count = layout.count();
        Header {
            key: *key,
            seeds,
            sides: layout.sides(),
            bits,
            step: step_of(seeds),
            count,
            payload_len: payload_len(count, bits),
            payload_checksum: 0,
            sweeps: counts.sweeps,
            rounds: counts.rounds,
            build_millis: counts.millis,
            histogram,
        }
    }
}

/// Packs the code of each of `count` positions, in index order, at `bits` bits each, and
/// hands the payload (padding byte included) to `emit` in pieces of about 1 MiB; returns
/// its checksum. The one place the payload is made, for files and for layers in memory.
fn pack_payload<E>(
    count: u64,
    bits: u8,
    mut code_of: impl FnMut(u64) -> u8,
    mut emit: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    let mut sum = Checksum::new();
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    let mut acc: u64 = 0;
    let mut acc_bits = 0u32;
    for i in 0..count {
        acc |= (code_of(i) as u64) << acc_bits;
        acc_bits += bits as u32;
        while acc_bits >= 8 {
            buf.push(acc as u8);
            acc >>= 8;
            acc_bits -= 8;
        }
        if buf.len() >= 1 << 20 {
            sum.update(&buf);
            emit(&buf)?;
            buf.clear();
        }
    }
    if acc_bits > 0 {
        buf.push(acc as u8);
    }
    buf.push(0);
    sum.update(&buf);
    emit(&buf)?;
    Ok(sum.finish())
}

impl Layer {
    /// A layer built in memory, from a function giving the code of each position in index
    /// order: the layer a file written with the same codes would read back as, without a
    /// path.
    pub(crate) fn from_codes(
        key: &TableKey,
        layout: &Layout,
        counts: BuildCounts,
        histogram: Vec<u64>,
        code_of: impl FnMut(u64) -> u8,
    ) -> Result<Layer, TableError> {
        let mut header = Header::of_build(key, layout, counts, histogram);
        let len = usize::try_from(header.payload_len).map_err(|_| memory(header.payload_len))?;
        let mut data = Vec::new();
        data.try_reserve_exact(len)
            .map_err(|_| memory(header.payload_len))?;
        header.payload_checksum = pack_payload(layout.count(), header.bits, code_of, |piece| {
            data.extend_from_slice(piece);
            Ok::<(), TableError>(())
        })?;
        crate::mem::advise_huge_pages(&mut data);
        Ok(Layer {
            file_bytes: header.len() as u64 + header.payload_len,
            header,
            layout: layout.clone(),
            data,
            path: None,
        })
    }
}

/// Too little memory for `bytes` bytes of payload.
fn memory(bytes: u64) -> TableError {
    TableError::Unsupported(Unsupported::Memory { bytes })
}

/// Writes a layer file from a function giving the code of each position in index order.
/// The file is written under a temporary name and renamed at the end, so a file with the
/// final name is always complete.
pub(crate) fn write_layer(
    path: &Path,
    key: &TableKey,
    layout: &Layout,
    counts: BuildCounts,
    histogram: Vec<u64>,
    code_of: impl FnMut(u64) -> u8,
) -> Result<(), TableError> {
    let mut header = Header::of_build(key, layout, counts, histogram);
    let tmp = path.with_extension("hyt.tmp");
    let file = File::create(&tmp).map_err(io(&tmp))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(&header.to_bytes()).map_err(io(&tmp))?;
    header.payload_checksum = pack_payload(layout.count(), header.bits, code_of, |piece| {
        out.write_all(piece).map_err(io(&tmp))
    })?;
    let mut file = out.into_inner().map_err(|e| io(&tmp)(e.into_error()))?;
    file.seek(SeekFrom::Start(0)).map_err(io(&tmp))?;
    file.write_all(&header.to_bytes()).map_err(io(&tmp))?;
    file.sync_all().map_err(io(&tmp))?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(io(path))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_is_incremental() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 3) as u8).collect();
        let whole = checksum(&data);
        for split in [1, 3, 8, 13, 500] {
            let mut c = Checksum::new();
            for piece in data.chunks(split) {
                c.update(piece);
            }
            assert_eq!(c.finish(), whole);
        }
        assert_ne!(checksum(&data[..999]), whole);
    }

    #[test]
    fn bits() {
        assert_eq!(bits_of(8), 3);
        assert_eq!(bits_of(28), 4);
        assert_eq!(bits_of(32), 5);
        assert_eq!(bits_of(60), 5);
        assert_eq!(step_of(6), 2);
    }
}
