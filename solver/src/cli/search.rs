//! The engine's settings and the arguments of the search commands: `best`, `prove`,
//! `bench`, `match` and `openings`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use hoyito::search::{Eval, ExactMethod, Explore, TableKind};

use super::PositionArgs;

/// Transposition table design (both are measured by `solve bench`).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TableArg {
    /// Fixed-size lockless table of packed atomic entries.
    Atomic,
    /// DashMap keyed by the exact board.
    Map,
}

impl From<TableArg> for TableKind {
    fn from(t: TableArg) -> Self {
        match t {
            TableArg::Atomic => TableKind::Atomic,
            TableArg::Map => TableKind::Map,
        }
    }
}

/// How exact mode proves values beyond the endgame tables and small components.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ExactArg {
    /// Threshold proofs over an explicit graph of positions (least fixpoint, one thread).
    Proof,
    /// Null-window alpha-beta to the end of the game with repetition on the path.
    AlphaBeta,
}

impl From<ExactArg> for ExactMethod {
    fn from(e: ExactArg) -> Self {
        match e {
            ExactArg::Proof => ExactMethod::Proof,
            ExactArg::AlphaBeta => ExactMethod::AlphaBeta,
        }
    }
}

/// Which positions a threshold proof explores next (the values proven are the same).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ExploreArg {
    /// The most-proving leaves, by proof and disproof numbers (proof-number search over the
    /// graph explored so far), then the nearest of the other unexplored positions.
    Focused,
    /// Every unexplored position the answer still depends on, nearest first (the way of
    /// earlier versions, kept for comparison).
    Breadth,
}

impl From<ExploreArg> for Explore {
    fn from(e: ExploreArg) -> Self {
        match e {
            ExploreArg::Focused => Explore::Focused,
            ExploreArg::Breadth => Explore::Breadth,
        }
    }
}

/// Search settings shared by `best` and `bench`.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Search threads [default: all cores]. With more than one, a depth-, node- or
    /// time-limited search may differ from run to run; with 1 a depth- or node-limited
    /// search is deterministic.
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Transposition table size in MiB.
    #[arg(long = "hash-mb", default_value_t = 64, allow_negative_numbers = true)]
    pub hash_mb: usize,
    /// Transposition table design.
    #[arg(long, value_enum, default_value = "atomic")]
    pub table: TableArg,
    /// How exact mode proves values that the tables and small components do not reach.
    #[arg(long = "exact-method", value_enum, default_value = "proof")]
    pub exact_method: ExactArg,
    /// Which positions the threshold proofs of exact mode explore next.
    #[arg(long, value_enum, default_value = "focused")]
    pub explore: ExploreArg,
}

/// Arguments of `solve best`.
#[derive(Args, Debug)]
pub struct BestArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Search to this depth (plies; extra turns count).
    #[arg(long, short, conflicts_with = "exact", allow_negative_numbers = true)]
    pub depth: Option<u32>,
    /// Search for this many milliseconds; the move of the last completed iteration is
    /// returned.
    #[arg(long = "time-ms", allow_negative_numbers = true)]
    pub time_ms: Option<u64>,
    /// Stop after this many nodes (all threads together).
    #[arg(long, allow_negative_numbers = true)]
    pub nodes: Option<u64>,
    /// Search to the end of the game and return the proven value.
    #[arg(long)]
    pub exact: bool,
    /// Also give every legal move with its score.
    #[arg(long = "all-moves")]
    pub all_moves: bool,
    /// Endgame tables to use (2x6 only): positions with seeds on the board within them are
    /// exact at once, and exact search stops at them [default: data/tables when built].
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Search without endgame tables.
    #[arg(long = "no-tables", conflicts_with = "tables")]
    pub no_tables: bool,
    /// Search even when the opening book (data/book: proven values of the 2x6 starts and
    /// their first plies) holds the position. Without limits or with --exact, a position in
    /// the book is answered from it at once.
    #[arg(long = "no-book")]
    pub no_book: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Arguments of `solve prove`.
#[derive(Args, Debug)]
pub struct ProveArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Endgame tables the proof stands on (2x6 only) [default: data/tables when built].
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Prove without endgame tables (small boards; slow on 2x6).
    #[arg(long = "no-tables", conflicts_with = "tables")]
    pub no_tables: bool,
    /// Folder of the run's state: every claim proven so far. A run given a folder that holds
    /// the state of the same position and rules resumes from it [default: a temporary
    /// folder, removed at the end].
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Write the certificate of the proven value to this file (see data/CERTIFICATE.md).
    #[arg(long, value_name = "FILE")]
    pub certificate: Option<PathBuf>,
    /// Also prove the value of every legal move (each is a root of the certificate).
    #[arg(long = "all-moves")]
    pub all_moves: bool,
    /// Prove only whether the side to move gets at least T, not the exact value: 1 asks
    /// whether it wins, 0 whether it does not lose. The certificate proves the answer
    /// ("at least T", or "at most T - 1"). Cheaper where the value is far from T.
    #[arg(
        long = "at-least",
        value_name = "T",
        allow_negative_numbers = true,
        conflicts_with = "all_moves"
    )]
    pub at_least: Option<i32>,
    /// Stop after this many seconds (the state is kept: run again to go on).
    #[arg(
        long = "time-limit",
        value_name = "SECONDS",
        allow_negative_numbers = true
    )]
    pub time_limit: Option<u64>,
    /// Depth of the search that guesses the value, so that the proofs start next to it.
    #[arg(
        long = "guess-depth",
        default_value_t = 8,
        allow_negative_numbers = true
    )]
    pub guess_depth: u32,
    /// Threads for loading the tables and the guess [default: all cores]. With two or more,
    /// a proof that lasts over half a second proves two thresholds of the value at once (the
    /// bounds memory then split between them); with 1, a run resumed from its state writes
    /// the record and certificate that an unstopped one does.
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Most memory for the bounds the proofs keep, in MiB (about 30 bytes a bound on 2x6;
    /// growing into it takes half as much again for a moment). Once full, the bounds of the positions
    /// with the fewest seeds are forgotten first and proven again when needed: a long run
    /// keeps to its memory, at some cost in time [default: a third of the machine's memory].
    #[arg(long = "cache-mb", value_name = "MIB", allow_negative_numbers = true)]
    pub cache_mb: Option<u64>,
    /// Stop cleanly, keeping the state, once the machine's available memory falls below this
    /// many MiB: the graph of a proof has no bound of its own, and a proof that outgrows the
    /// machine is better stopped than killed. 0: never [default: an eighth of the machine's
    /// memory].
    #[arg(
        long = "memory-reserve",
        value_name = "MIB",
        allow_negative_numbers = true
    )]
    pub memory_reserve: Option<u64>,
    /// Which positions the threshold proofs explore next. Both ways prove the same values;
    /// a run resumed from its state writes the same record and certificate as an unstopped
    /// one when both explore the same way.
    #[arg(long, value_enum, default_value = "focused")]
    pub explore: ExploreArg,
    /// In focused proofs, the positions a capture's own proof may explore the first time it
    /// is tried (four times as many each time after) before it is given up for other ways
    /// meanwhile; what it decided is kept. The values are the same whatever the cap.
    #[arg(long = "capture-cap", value_name = "POSITIONS", default_value_t = hoyito::search::Prover::<2>::DEFAULT_CAPTURE_CAP, value_parser = clap::value_parser!(u64).range(1..))]
    pub capture_cap: u64,
}

/// Arguments of `solve bench` (the built-in suite is chosen by `--holes 6|12`, 6 by default
/// as in every other command).
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Time for each position, in milliseconds.
    #[arg(
        long = "time-ms",
        default_value_t = 1000,
        allow_negative_numbers = true
    )]
    pub time_ms: u64,
    /// Search each position to this depth instead of for a time (time-to-depth).
    #[arg(long, allow_negative_numbers = true)]
    pub depth: Option<u32>,
    /// Depth of the single-threaded searches whose total node count is the fingerprint
    /// [default: 10 on 2x6, 7 on 2x12].
    #[arg(long = "fingerprint-depth", allow_negative_numbers = true)]
    pub fingerprint_depth: Option<u32>,
    /// Plain alpha-beta (no table, no move ordering, one thread) for comparison.
    #[arg(long)]
    pub plain: bool,
    /// Prove each position's value (exact mode, no endgame tables, a fresh searcher for each
    /// position as in one `solve best --exact` run), giving up after --time-ms.
    #[arg(long, conflicts_with_all = ["depth", "plain"])]
    pub exact: bool,
    /// Endgame tables for the searches (2x6 only) [default: none: the bench measures the
    /// search alone].
    #[arg(long, value_name = "DIR", conflicts_with = "plain")]
    pub tables: Option<PathBuf>,
    /// A suite file to use instead of the built-in one (one position a line, '#' comments).
    #[arg(long)]
    pub suite: Option<PathBuf>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Arguments of `solve match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Game pairs to play (each opening is played twice, sides swapped); with --sprt, the
    /// most pairs the test may take [default: 20, or each opening of --openings once].
    #[arg(long, allow_negative_numbers = true)]
    pub pairs: Option<usize>,
    /// Play the positions of this file (one a line, `#` comments, e.g. written by `solve
    /// openings`) in order instead of random openings, from the first again when --pairs
    /// asks for more.
    #[arg(long, value_name = "FILE", conflicts_with = "random_plies")]
    pub openings: Option<PathBuf>,
    /// Time per move of both players, in milliseconds.
    #[arg(
        long = "time-ms",
        conflicts_with_all = ["depth", "a_depth", "b_depth"],
        allow_negative_numbers = true
    )]
    pub time_ms: Option<u64>,
    /// Depth per move of both players [default: 8].
    #[arg(long, allow_negative_numbers = true)]
    pub depth: Option<u32>,
    /// Player A's depth per move [default: --depth].
    #[arg(long = "a-depth", allow_negative_numbers = true)]
    pub a_depth: Option<u32>,
    /// Player B's depth per move [default: --depth].
    #[arg(long = "b-depth", allow_negative_numbers = true)]
    pub b_depth: Option<u32>,
    /// A sequential probability ratio test of A against B that ends the match as soon as
    /// the log-likelihood ratio of the game pairs crosses a bound (fastchess's generalized
    /// SPRT): elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=normalized|logistic].
    #[arg(long, num_args = 1..=5, value_name = "KEY=VALUE")]
    pub sprt: Vec<String>,
    /// Player A's evaluation weight of the row difference (sixteenths of a seed).
    #[arg(long = "a-row", default_value_t = Eval::default().row, allow_negative_numbers = true)]
    pub a_row: i32,
    /// Player A's evaluation weight of the non-empty-hole difference.
    #[arg(long = "a-mobility", default_value_t = Eval::default().mobility, allow_negative_numbers = true)]
    pub a_mobility: i32,
    /// Player B's evaluation weight of the row difference.
    #[arg(long = "b-row", default_value_t = 0, allow_negative_numbers = true)]
    pub b_row: i32,
    /// Player B's evaluation weight of the non-empty-hole difference.
    #[arg(
        long = "b-mobility",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    pub b_mobility: i32,
    /// Player A's search threads (with --time-ms, to measure what more threads gain; play
    /// one game at a time, --concurrency 1, so that the players do not share cores).
    #[arg(long = "a-threads", default_value_t = 1, allow_negative_numbers = true)]
    pub a_threads: usize,
    /// Player B's search threads (see --a-threads).
    #[arg(long = "b-threads", default_value_t = 1, allow_negative_numbers = true)]
    pub b_threads: usize,
    /// Random plies played from the start before the players take over.
    #[arg(
        long = "random-plies",
        default_value_t = 4,
        allow_negative_numbers = true
    )]
    pub random_plies: usize,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub seed: u64,
    /// Longest game, in plies (a longer game is scored by the captures so far).
    #[arg(
        long = "max-plies",
        default_value_t = 600,
        allow_negative_numbers = true
    )]
    pub max_plies: usize,
    /// Write positions reached in the games to this file (for bench suites).
    #[arg(long)]
    pub dump: Option<PathBuf>,
    /// Plies at which positions are written, comma-separated.
    #[arg(
        long = "dump-plies",
        value_delimiter = ',',
        default_value = "4,20,40",
        allow_negative_numbers = true
    )]
    pub dump_plies: Vec<usize>,
    /// Games played at once on worker threads (each player searches on one thread, so with
    /// depth limits the games do not depend on it) [default: all cores].
    #[arg(long, visible_alias = "concurrency", allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Transposition table size of each player, in MiB.
    #[arg(long = "hash-mb", default_value_t = 16, allow_negative_numbers = true)]
    pub hash_mb: usize,
    /// Player A is this program speaking the engine protocol (data/PROTOCOL.md), e.g.
    /// "solve engine" of another build; it gets `go depth D` or `go movetime T`.
    #[arg(long = "a-cmd", value_name = "PROGRAM")]
    pub a_cmd: Option<String>,
    /// Player B is this program (see --a-cmd).
    #[arg(long = "b-cmd", value_name = "PROGRAM")]
    pub b_cmd: Option<String>,
    /// Milliseconds a program (--a-cmd, --b-cmd) has for its handshake, and for each answer
    /// beyond its move time; one that does not answer in time loses the game on time (the
    /// record says so in its `Adjudication` tag).
    #[arg(
        long = "timeout-ms",
        value_name = "MS",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub timeout_ms: u64,
    /// Endgame tables (2x6) that end a game as soon as it enters them, with the exact
    /// result (the record says so in its `Adjudication` tag).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Write every game as a record into DIR/match.txt (adjudicated games are unfinished
    /// records with `Adjudication` and `AdjudicatedMargin` tags).
    #[arg(long, value_name = "DIR")]
    pub records: Option<PathBuf>,
}

/// Arguments of `solve openings`.
#[derive(Args, Debug)]
pub struct OpeningsArgs {
    /// Plies played from the start (a capture's extra turn is a ply of its own).
    #[arg(long, allow_negative_numbers = true)]
    pub plies: usize,
    /// Keep this many of the positions, chosen at random by --seed.
    #[arg(long, allow_negative_numbers = true)]
    pub sample: Option<usize>,
    /// Seed of --sample.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub seed: u64,
    /// Keep only the positions whose value for South (captures so far and a search of
    /// --depth plies) is within this many seeds of 0.
    #[arg(long, value_name = "SEEDS", allow_negative_numbers = true)]
    pub balanced: Option<i32>,
    /// Depth of the --balanced search.
    #[arg(long, default_value_t = 6, allow_negative_numbers = true)]
    pub depth: u32,
    /// The file to write.
    #[arg(long, short)]
    pub output: PathBuf,
}
