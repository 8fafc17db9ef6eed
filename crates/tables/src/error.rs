//! The errors of this crate.

use std::fmt;
use std::path::PathBuf;

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
    /// A table file is damaged (bad magic, checksum, size or contents); it is not used.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A table file is valid but belongs to other rules, another layer or another format.
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What differs.
        what: String,
    },
    /// The request cannot be met (board too large, layer too large for the value encoding).
    Unsupported(String),
    /// A layer needs a smaller layer that is not there.
    MissingLayer {
        /// Seeds on the board of the missing layer.
        seeds: usize,
    },
    /// The build found values that contradict each other: a bug, reported rather than stored.
    Inconsistent(String),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TableError::Corrupt { path, what } => {
                write!(f, "{}: corrupt table file: {what}", path.display())
            }
            TableError::Mismatch { path, what } => {
                write!(f, "{}: table file does not match: {what}", path.display())
            }
            TableError::Unsupported(s) => write!(f, "unsupported: {s}"),
            TableError::MissingLayer { seeds } => {
                write!(f, "the table of {seeds} seeds on the board is missing")
            }
            TableError::Inconsistent(s) => write!(f, "inconsistent table values: {s}"),
        }
    }
}

/// The message of every variant is complete (an I/O error's cause is part of it), so no
/// variant reports a `source`: a chain of causes would print the cause twice.
impl std::error::Error for TableError {}

/// Wraps an I/O error with its path.
pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    }
}
