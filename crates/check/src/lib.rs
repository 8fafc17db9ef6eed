//! An independent checker of the proof certificates of `data/CERTIFICATE.md`.
//!
//! A certificate is a set of claims about positions ("South's value is at least / at most
//! b"), each justified by the claims, table values and game ends one move further on. This
//! crate checks one with code that shares nothing with the engine: its own rules
//! ([`rules`]: a board is a `Vec<u8>`, sowing runs lap by lap, endless sowing is found
//! exactly by cycle detection), its own reader of the endgame table files ([`tables`]:
//! every header field, both checksums and the index re-derived from their definitions) and
//! the justification rules of the certificate format ([`check`]). The table values are
//! verified by [`values`] ([`verify_tables`], [`check_file_verifying_tables`]): each value
//! the best over its moves, and each nonzero value forced in finitely many moves, so that
//! a proof over tables rests on this crate alone.
//!
//! ```no_run
//! use std::path::Path;
//! let report = hoyito_check::check_file(Path::new("start.cert"), Some(Path::new("data/tables")))?;
//! println!("{} entries checked, {} table look-ups", report.entries, report.table_lookups);
//! # Ok::<(), hoyito_check::CheckError>(())
//! ```
//!
//! Verifying the tables themselves, every layer up to 20 seeds, smallest first:
//!
//! ```no_run
//! use std::path::Path;
//! use hoyito_check::{verify_tables, CaptureSide, LastFour, Rules, Silent, Variant};
//! let rules = Rules {
//!     holes: 6,
//!     variant: Variant::Hoyito2,
//!     last_four: LastFour::Capturer,
//!     capture_side: CaptureSide::Any,
//! };
//! let report = verify_tables(Path::new("data/tables"), &rules, 20, &Silent)?;
//! for layer in &report.layers {
//!     println!("layer {}: {} positions, {} nonzero", layer.seeds, layer.positions, layer.nonzero);
//! }
//! # Ok::<(), hoyito_check::CheckError>(())
//! ```
#![deny(missing_docs)]

pub mod certificate_file;
mod error;
mod justification;
pub mod resume;
pub mod rules;
pub mod tables;
pub mod values;

use std::path::Path;

pub use certificate_file::{write_certificate, Certificate, Claim, Entry, Kind};
pub use error::{CheckError, Failure, Place, Reason, Step, ValueFailure, ValueFault};
pub use justification::{check, Report};
pub use resume::Resume;
pub use rules::{CaptureSide, LastFour, Position, Rules, Side, Variant};
pub use tables::Tables;
pub use values::{
    verify_all, verify_layer, verify_layer_resuming, verify_opened, verify_tables,
    verify_tables_resuming, LayerReport, Progress, Silent, TablesReport,
};

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

/// As [`check_file`], but every table layer the certificate names is first *verified*
/// ([`values`]: every value the game's value given the smaller layers, the least fixpoint),
/// not only read and checksummed, so that the proof rests on this crate alone. Returns the
/// report of the tables' verification too (`None` when the certificate names no tables).
/// With a state folder in `resume`, a layer verified earlier over the same files is taken
/// from its record there, and each layer verified is recorded ([`resume`]).
pub fn check_file_verifying_tables(
    cert: &Path,
    tables: Option<&Path>,
    progress: &dyn Progress,
    resume: &Resume,
) -> Result<(Report, Option<TablesReport>), CheckError> {
    let certificate = Certificate::read(cert)?;
    let (opened, verified) = match (certificate.tables, tables) {
        (Some(max_seeds), Some(dir)) => {
            let started = std::time::Instant::now();
            let opened = Tables::open(dir, &certificate.rules, max_seeds)?;
            let layers = verify_all(&opened, &certificate.rules, progress, resume)?;
            let report = TablesReport {
                rules: certificate.rules,
                max_seeds,
                layers,
                trusted: Vec::new(),
                seconds: started.elapsed().as_secs_f64(),
            };
            (Some(opened), Some(report))
        }
        (Some(max_seeds), None) => return Err(CheckError::TablesNeeded { max_seeds }),
        (None, _) => (None, None),
    };
    Ok((check(&certificate, opened.as_ref())?, verified))
}
