//! The arguments of the independent checker's commands: `check-proof` and `check-tables`.

use std::path::PathBuf;

use clap::Args;

/// Arguments of `solve check-proof`. The rules come from the certificate; the rule flags
/// are not used.
#[derive(Args, Debug)]
pub struct CheckProofArgs {
    /// The certificate file (as `solve prove --certificate` writes it).
    #[arg(value_name = "CERT")]
    pub certificate: PathBuf,
    /// The tables folder (one subfolder per set of rules) holding the layers the
    /// certificate rests on; each is read and checked in full (header, checksums) first.
    /// Needed when the certificate's header names tables.
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Verify every table layer the certificate rests on first (as `check-tables` does),
    /// so that the proof rests on the checker alone, not on the build of the tables.
    #[arg(long, requires = "tables")]
    pub verify_tables: bool,
    /// With --verify-tables, print no line per pass on standard error.
    #[arg(long, requires = "verify_tables")]
    pub quiet: bool,
}

/// Arguments of `solve check-tables`.
#[derive(Args, Debug)]
pub struct CheckTablesArgs {
    /// The tables folder: one subfolder per set of rules, as `solve tables build --dir`
    /// makes it.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Verify only the layer of this many seeds, over the smaller layers (read and
    /// checksummed, their values trusted).
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        conflicts_with = "max_seeds"
    )]
    pub layer: Option<usize>,
    /// Verify the layers up to this many seeds (it, then 4 fewer, ... above 4) [default:
    /// every layer in the folder, each chain of layers up to its largest].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub max_seeds: Option<usize>,
    /// Folder of the check's state: each layer verified is recorded there (and not checked
    /// again while its file and the smaller layers' are unchanged), and a layer under check
    /// saves where it stands (one bit a position), so that a stopped check goes on from
    /// there. Without it, a stop loses the work.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Stop cleanly after this many seconds, saving the state (run again to go on).
    #[arg(
        long = "time-limit",
        value_name = "SECONDS",
        allow_negative_numbers = true
    )]
    pub time_limit: Option<u64>,
    /// Save the state at least this often, in seconds (with --state).
    #[arg(
        long = "save-every",
        value_name = "SECONDS",
        default_value_t = 300,
        requires = "state"
    )]
    pub save_every: u64,
    /// Print no progress and no line per pass on standard error.
    #[arg(long)]
    pub quiet: bool,
}
