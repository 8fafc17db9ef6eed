//! The arguments of `solve tables` and its subcommands.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use hoyito::tables::Method;
use hoyito::DEFAULT_TABLES_DIR;

/// Arguments of `solve tables`.
#[derive(Args, Debug)]
pub struct TablesArgs {
    /// Folder of the tables; each set of rules has its own subfolder.
    #[arg(long, global = true, default_value = DEFAULT_TABLES_DIR)]
    pub dir: PathBuf,

    #[command(subcommand)]
    pub command: TablesCommand,
}

/// The table subcommands.
#[derive(Subcommand, Debug)]
pub enum TablesCommand {
    /// Build the tables of every layer up to --max-seeds seeds on the board, smallest first.
    /// Layers already built are kept, so a stopped build resumes where it was.
    Build(BuildArgs),
    /// Print the exact value and the best moves of positions.
    Probe(ProbeArgs),
    /// List the layers built for the rules: positions, file sizes, sweeps, value counts.
    Info,
    /// Check on a sample of each layer that every stored value equals the best over the
    /// position's moves; with --full, check every position and prove the values exact.
    Verify(VerifyArgs),
}

/// How a table build reaches each layer's fixpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Two sweeps, then rounds over the predecessors of changed positions.
    Auto,
    /// Sweeps of the whole layer until nothing changes.
    Sweeps,
}

/// Arguments of `solve tables build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// Largest number of seeds on the board to build (layers below it step by 4).
    #[arg(long, allow_negative_numbers = true)]
    pub max_seeds: usize,
    /// Threads [default: all cores].
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// How each layer reaches its fixpoint: `auto` sweeps the layer twice, the second time
    /// also writing its moves reversed to scratch files beside the tables (about 10 bytes a
    /// position at 20 seeds, 12 at 32), then evaluates only the predecessors of changed
    /// positions, round after round (small layers are swept to the end); `sweeps` sweeps the
    /// whole layer until nothing changes (no scratch files, about 8 times slower).
    #[arg(long, value_enum, default_value = "auto")]
    pub method: MethodArg,
    /// With `auto`, write the moves in this sweep instead of the second.
    #[arg(long, allow_negative_numbers = true)]
    pub moves_at_sweep: Option<u32>,
    /// Most memory a layer's build may take, in MiB (the memory the machine has available
    /// when the build starts is a limit too). Before each layer the build estimates its peak
    /// memory: a layer planned in rounds that would take more is swept instead (no scratch
    /// moves, slower) when that fits, else the build stops before the layer with a message
    /// (the smaller layers are kept).
    #[arg(long, value_name = "MB", allow_negative_numbers = true)]
    pub max_memory: Option<u64>,
    /// In a build over MPI (the `mpi` feature), how often each process saves its range of
    /// the layer during rounds, at most, so that a job stopped then resumes from there
    /// (sweeps save after each sweep) [default: 300].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub checkpoint_every: Option<u64>,
    /// In a build over MPI, copy another process's range whole when at least one position
    /// in K of it is read, else only the positions read: a byte of a range copied whole is
    /// found with one cache miss instead of two, for up to K times the memory of the
    /// positions read; 0 never copies whole, the least memory [default: 4].
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub copy_whole_from: Option<u64>,
    /// In a build over MPI, the most KiB a process sends in one step of a sweep's exchange of
    /// answers (and about the most it receives): smaller steps hold less memory beside the
    /// copy of what the process reads, at more messages [default: 65536].
    #[arg(long, value_name = "KIB", allow_negative_numbers = true)]
    pub answer_step_kib: Option<u64>,
}

impl BuildArgs {
    /// The library's build method these flags ask for.
    pub fn method(&self) -> Method {
        match (self.method, self.moves_at_sweep) {
            (MethodArg::Sweeps, _) => Method::Sweeps,
            (MethodArg::Auto, Some(k)) => Method::MovesAtSweep(k),
            (MethodArg::Auto, None) => Method::Auto,
        }
    }
}

/// Arguments of `solve tables probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// Positions to probe, each quoted or as separate words; `-` reads one position a line
    /// from standard input.
    #[arg(required = true, num_args = 1.., value_name = "POSITION")]
    pub positions: Vec<String>,
}

/// Arguments of `solve tables verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Positions checked per layer, spread evenly over its index.
    #[arg(long, default_value_t = 100_000, allow_negative_numbers = true)]
    pub samples: u64,
    /// Also solve this many positions of each layer by exact search that uses only the
    /// smaller layers, and compare with the stored values: an independent check, which also
    /// catches values that agree with their moves but are wrong on cycles.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub search: u64,
    /// Time limit of each of those searches in milliseconds; a search that does not finish
    /// in time is counted as unfinished, not compared.
    #[arg(long, default_value_t = 2000, allow_negative_numbers = true)]
    pub search_ms: u64,
    /// Check only the layer of this many seeds on the board.
    #[arg(long, allow_negative_numbers = true)]
    pub layer: Option<usize>,
    /// Check every position of every layer (not samples), smallest layer first, and prove
    /// that the values are the true ones: each agrees with its moves and each nonzero value
    /// is forced in finitely many moves (the least fixpoint, so no wrong values on cycles).
    /// With --layer, only that layer, trusting the smaller ones.
    #[arg(long, conflicts_with_all = ["samples", "search"])]
    pub full: bool,
    /// With --full, check the layers of at most this many seeds.
    #[arg(long, requires = "full", allow_negative_numbers = true)]
    pub max_seeds: Option<usize>,
    /// With --full, most memory in MiB for the graph of the positions not yet shown forced
    /// (24 bytes each): sweeps until they fit in it, then one more sweep and rounds over
    /// their parents; with 0, sweeps until nothing changes (a bit a position).
    #[arg(
        long,
        requires = "full",
        default_value_t = 4096,
        allow_negative_numbers = true
    )]
    pub graph_mb: u64,
    /// Threads [default: all cores].
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Hide the progress bar and the sweep lines of --full.
    #[arg(long)]
    pub quiet: bool,
}
