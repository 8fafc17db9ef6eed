//! An independent checker of the proof certificates of `data/CERTIFICATE.md`.
//!
//! A certificate is a set of claims about positions ("South's value is at least / at most
//! b"), each justified by the claims, table values and game ends one move further on. This
//! crate checks one with code that shares nothing with the engine: its own rules
//! ([`rules`]: a board is a `Vec<u8>`, sowing runs lap by lap, endless sowing is found
//! exactly by cycle detection), its own reader of the endgame table files ([`tables`]:
//! every header field, both checksums and the index re-derived from their definitions) and
//! the justification rules of the certificate format ([`check`]). What it trusts is the
//! table values; the crate's README says how those are verified.
//!
//! ```no_run
//! use std::path::Path;
//! let report = hoyito_check::check_file(Path::new("start.cert"), Some(Path::new("data/tables")))?;
//! println!("{} entries checked, {} table look-ups", report.entries, report.table_lookups);
//! # Ok::<(), hoyito_check::CheckError>(())
//! ```
#![deny(missing_docs)]

pub mod certificate_file;
mod error;
mod justification;
pub mod rules;
pub mod tables;

use std::path::Path;

pub use certificate_file::{write_certificate, Certificate, Claim, Entry, Kind};
pub use error::{CheckError, Failure, Place, Reason, Step};
pub use justification::{check, Report};
pub use rules::{CaptureSide, LastFour, Position, Rules, Side, Variant};
pub use tables::Tables;

/// Reads the certificate `cert` and checks it, with the tables under `tables` when it rests
/// on some (the folder that holds one subfolder per set of rules, as `solve tables build
/// --dir` makes it). Every table layer it names is read and checked in full first.
pub fn check_file(cert: &Path, tables: Option<&Path>) -> Result<Report, CheckError> {
    let certificate = Certificate::read(cert)?;
    let opened = match (certificate.tables, tables) {
        (Some(max_seeds), Some(dir)) => Some(Tables::open(dir, &certificate.rules, max_seeds)?),
        (Some(max_seeds), None) => return Err(CheckError::TablesNeeded { max_seeds }),
        (None, _) => None,
    };
    check(&certificate, opened.as_ref())
}
