//! The errors of this crate.
//!
//! Every cause is typed (an I/O error, a path, a layer, the numbers that disagree) and shown
//! once, in `Display`: no error here reports a `source()`, so a chain of causes (`{:#}` of
//! `anyhow`) never prints a cause twice.

use std::fmt;
use std::path::PathBuf;

use hoyito_rules::RulesError;

use crate::format::TableKey;

/// Why a table could not be built, opened or read.
#[derive(Debug)]
pub enum TableError {
    /// Reading or writing a file failed.
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A table file (or a scratch file of a build) is damaged; it is not used.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        damage: Damage,
    },
    /// A table file is valid but belongs to other rules, another layer or another format.
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What differs.
        mismatch: Mismatch,
    },
    /// The request cannot be met (board too large, layer too large for the value encoding).
    Unsupported(Unsupported),
    /// A layer needs a smaller layer that is not there.
    MissingLayer {
        /// Seeds on the board of the missing layer.
        seeds: usize,
    },
    /// The build found values that contradict each other: a bug, reported rather than stored.
    Inconsistent(Inconsistency),
    /// The build was asked to stop ([`crate::Progress::stopped`]) before the layer of `seeds`
    /// seeds was done: the smaller layers are written, that one is not, and its scratch
    /// files are removed, so that the next build resumes there.
    Interrupted {
        /// Seeds on the board of the layer that was not finished.
        seeds: usize,
    },
}

/// What is wrong with a damaged file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Damage {
    /// The file ends before its fixed header does.
    ShortHeader,
    /// The file does not start with the magic bytes of a table.
    Magic,
    /// The header announces a histogram no layer has.
    HistogramBins(u32),
    /// The file ends inside the histogram or the header checksum.
    HeaderCut,
    /// The header's checksum does not match its bytes.
    HeaderChecksum {
        /// The checksum stored in the file.
        stored: u64,
        /// The checksum of the header's bytes.
        computed: u64,
    },
    /// A rule option's code is unknown.
    RuleCode {
        /// The option.
        option: &'static str,
        /// The code found.
        code: u8,
    },
    /// The header names a layer this program cannot index.
    LayerTooLarge,
    /// A header field disagrees with the layer the header names.
    Field {
        /// The field.
        field: &'static str,
        /// What the header says.
        found: u64,
        /// What the layer implies.
        expected: u64,
    },
    /// The file's size disagrees with its header.
    Size {
        /// Bytes of the file.
        found: u64,
        /// Bytes the header implies.
        expected: u64,
    },
    /// The payload does not fit in this machine's address space.
    PayloadTooLarge(u64),
    /// The payload's checksum does not match the header.
    PayloadChecksum {
        /// The checksum stored in the header.
        stored: u64,
        /// The checksum of the payload read.
        computed: u64,
    },
    /// A scratch file of moves cannot be decoded (cut short, or damaged), or holds another
    /// number of moves than were written to it (then `at` is its length).
    BadMoves {
        /// The byte where decoding failed.
        at: u64,
    },
}

/// What differs between a valid table file and the one wanted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// Another version of the file format.
    Version {
        /// The version of the file.
        found: u32,
        /// The version this program reads.
        expected: u32,
    },
    /// Built for other rules.
    Rules {
        /// The rules of the file.
        found: TableKey,
        /// The rules wanted.
        expected: TableKey,
    },
    /// Another layer.
    Layer {
        /// Seeds on the board of the file's layer.
        found: usize,
        /// Seeds on the board of the layer wanted.
        expected: usize,
    },
}

/// A request the tables cannot meet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// The rules themselves are invalid.
    Rules(RulesError),
    /// The board is wider than 2x6.
    Board {
        /// Holes per row.
        holes: usize,
    },
    /// More seeds than the board holds.
    Seeds {
        /// Seeds on the board asked for.
        seeds: usize,
        /// Holes per row.
        holes: usize,
    },
    /// A layer's values do not fit the bounds of a build's working byte.
    Bounds {
        /// Seeds on the board of the layer.
        seeds: usize,
    },
    /// A layer has too many positions for 64-bit indices, or for this machine's memory.
    LayerTooLarge {
        /// Seeds on the board of the layer.
        seeds: usize,
    },
    /// The build of a layer would take more memory than allowed
    /// ([`crate::BuildOptions::max_memory`]), even by sweeps.
    LayerMemory {
        /// Seeds on the board of the layer.
        seeds: usize,
        /// Bytes the layer's build is estimated to take ([`crate::layer_memory`]).
        needed: u64,
        /// Bytes allowed.
        limit: u64,
    },
    /// An allocation failed.
    Memory {
        /// Bytes asked for.
        bytes: u64,
    },
    /// One message of a build over several processes would hold more elements than MPI
    /// counts (2^31 - 1).
    Message {
        /// Elements the message would hold.
        elements: u64,
    },
    /// The range of one process of a build over several processes would hold more than
    /// 2^32 positions (the indices exchanged are offsets in a range, 4 bytes each).
    Range {
        /// Positions the range would hold.
        positions: u64,
    },
}

/// Values of a build that contradict each other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inconsistency {
    /// A capture led to a smaller layer that is not built.
    ExitToMissingLayer {
        /// Seeds on the board of the layer being built.
        seeds: usize,
    },
    /// Positions whose bounds say both sides can force a gain.
    BothSidesWin {
        /// Seeds on the board of the layer.
        seeds: usize,
        /// How many positions.
        positions: u64,
    },
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TableError::Corrupt { path, damage } => {
                write!(f, "{}: corrupt file: {damage}", path.display())
            }
            TableError::Mismatch { path, mismatch } => {
                write!(
                    f,
                    "{}: table file does not match: {mismatch}",
                    path.display()
                )
            }
            TableError::Unsupported(what) => write!(f, "unsupported: {what}"),
            TableError::MissingLayer { seeds } => {
                write!(f, "the table of {seeds} seeds on the board is missing")
            }
            TableError::Inconsistent(what) => write!(f, "inconsistent table values: {what}"),
            TableError::Interrupted { seeds } => write!(
                f,
                "interrupted in the layer of {seeds} seeds (the smaller layers are written; \
                 the same command resumes there)"
            ),
        }
    }
}

/// The message of every variant is complete (an I/O error's cause is part of it), so no
/// variant reports a `source`: a chain of causes would print the cause twice.
impl std::error::Error for TableError {}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Damage::ShortHeader => write!(f, "shorter than a header"),
            Damage::Magic => write!(f, "not a Hoyito table (bad magic)"),
            Damage::HistogramBins(bins) => write!(f, "impossible histogram size {bins}"),
            Damage::HeaderCut => write!(f, "header cut short"),
            Damage::HeaderChecksum { stored, computed } => write!(
                f,
                "header checksum does not match (stored {stored:#018x}, computed {computed:#018x})"
            ),
            Damage::RuleCode { option, code } => write!(f, "unknown {option} code {code}"),
            Damage::LayerTooLarge => write!(f, "layer too large for this program"),
            Damage::Field {
                field,
                found,
                expected,
            } => write!(
                f,
                "header field {field} is {found}, the layer has {expected}"
            ),
            Damage::Size { found, expected } => {
                write!(f, "file is {found} bytes, the header says {expected}")
            }
            Damage::PayloadTooLarge(bytes) => {
                write!(f, "payload of {bytes} bytes too large for this machine")
            }
            Damage::PayloadChecksum { stored, computed } => write!(
                f,
                "payload checksum does not match (stored {stored:#018x}, computed {computed:#018x})"
            ),
            Damage::BadMoves { at } => {
                write!(f, "scratch file of moves cut short or damaged at byte {at}")
            }
        }
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Version { found, expected } => {
                write!(f, "format version {found}, this program reads {expected}")
            }
            Mismatch::Rules { found, expected } => write!(
                f,
                "built for {}, wanted {}",
                found.folder(),
                expected.folder()
            ),
            Mismatch::Layer { found, expected } => {
                write!(f, "holds the layer of {found} seeds, wanted {expected}")
            }
        }
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Rules(e) => write!(f, "{e}"),
            Unsupported::Board { holes } => {
                write!(f, "tables cover boards up to 2x6, not 2x{holes}")
            }
            Unsupported::Seeds { seeds, holes } => {
                write!(f, "{seeds} seeds do not fit a 2x{holes} board")
            }
            Unsupported::Bounds { seeds } => write!(
                f,
                "the layer of {seeds} seeds has values beyond the {}-bit bounds",
                crate::format::bits_of(*seeds)
            ),
            Unsupported::LayerTooLarge { seeds } => {
                write!(f, "the layer of {seeds} seeds is too large")
            }
            Unsupported::LayerMemory {
                seeds,
                needed,
                limit,
            } => write!(
                f,
                "the layer of {seeds} seeds needs about {} MiB of memory, even swept without \
                 scratch moves, and at most {} MiB may be used",
                needed.div_ceil(1 << 20),
                limit >> 20
            ),
            Unsupported::Memory { bytes } => write!(f, "cannot allocate {bytes} bytes"),
            Unsupported::Message { elements } => write!(
                f,
                "a message between processes would hold {elements} elements, more than MPI \
                 counts: use more processes"
            ),
            Unsupported::Range { positions } => write!(
                f,
                "a process's range of the layer would hold {positions} positions, more than \
                 2^32: use more processes"
            ),
        }
    }
}

impl fmt::Display for Inconsistency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Inconsistency::ExitToMissingLayer { seeds } => write!(
                f,
                "a capture from the layer of {seeds} seeds reached a layer that is not built"
            ),
            Inconsistency::BothSidesWin { seeds, positions } => write!(
                f,
                "{positions} positions of the layer of {seeds} seeds have both sides winning"
            ),
        }
    }
}

/// Wraps an I/O error with its path.
pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A damaged file's error.
pub(crate) fn corrupt(path: &std::path::Path, damage: Damage) -> TableError {
    TableError::Corrupt {
        path: path.to_path_buf(),
        damage,
    }
}

/// A mismatched file's error.
pub(crate) fn mismatch(path: &std::path::Path, mismatch: Mismatch) -> TableError {
    TableError::Mismatch {
        path: path.to_path_buf(),
        mismatch,
    }
}
