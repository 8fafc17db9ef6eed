//! The command line as clap types, and nothing else: the rule flags, `--json`, the
//! subcommands and their arguments. The commands read these in `cmd/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use hoyito::search::{Eval, ExactMethod, Explore, TableKind};
use hoyito::tables::Method;
use hoyito::{CaptureSide, LastFour, Variant};

use hoyito::DEFAULT_TABLES_DIR;

/// Analyse and solve Hoyito II and Hoyito III (Dominican mancala).
///
/// Positions are written as in RULES.md: South's row, '/', North's row, each in sowing
/// order, the side to move, and optionally the seeds captured so far, e.g.
/// "4,4,4,4,4,4/4,4,4,4,4,4 S 0-0". A move is a hole number 1..H in the mover's own row.
///
/// Long jobs (prove, tables build, tables verify --full) show a progress bar on a terminal;
/// when stderr is a log file or a pipe they print a plain line a minute instead, or every N
/// seconds with the environment variable SOLVE_PROGRESS_EVERY=N (0: at every step).
#[derive(Parser, Debug)]
#[command(name = "solve", version, about, long_about)]
pub struct Cli {
    #[command(flatten)]
    pub rules: RuleArgs,

    /// Print exactly one JSON object (one per line for streamed input) instead of text.
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
}

/// The rule options, accepted by every subcommand.
#[derive(Args, Debug, Clone)]
pub struct RuleArgs {
    /// Capture rule: hoyito2 (chain captures) or hoyito3 (landing hole only).
    #[arg(long, global = true, default_value = "hoyito2", value_parser = parse_option::<Variant>)]
    pub variant: Variant,

    /// Holes per row, 2..=12 [default: taken from the position, else 6].
    #[arg(long, global = true, allow_negative_numbers = true)]
    pub holes: Option<usize>,

    /// Seeds per hole at the start, 1..=8.
    #[arg(
        long,
        global = true,
        default_value_t = 4,
        allow_negative_numbers = true
    )]
    pub seeds: usize,

    /// Who gets the seeds left when a capture leaves 4 or fewer: capturer, S or N
    /// (S and N are Hoyito III match rules, and may be combined with either variant).
    #[arg(long = "last-four", global = true, default_value = "capturer", value_parser = parse_option::<LastFour>)]
    pub last_four: LastFour,

    /// Where captures may happen: any row, or only the opponent's row.
    #[arg(long = "capture-side", global = true, default_value = "any", value_parser = parse_option::<CaptureSide>)]
    pub capture_side: CaptureSide,
}

/// Parses a rule option with the library's own message on error (the library accepts
/// several spellings, e.g. `S`, `s` and `south`).
fn parse_option<T: std::str::FromStr<Err = hoyito::rules::RulesError>>(
    s: &str,
) -> Result<T, String> {
    s.parse()
        .map_err(|e: hoyito::rules::RulesError| e.to_string())
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Draw a position: North's row on top, right to left, so that sowing runs
    /// counterclockwise on screen.
    Show(PositionArgs),
    /// List the legal moves of a position with their results, and the moves that are
    /// illegal because their sowing never ends.
    Moves(PositionArgs),
    /// Play moves from a position (passes are applied automatically) and print the result.
    Apply(ApplyArgs),
    /// Count the move sequences of exactly D plies (extra turns are plies, passes are not).
    Perft(PerftArgs),
    /// Endgame tables: build, probe, list and verify exact values of small positions.
    Tables(TablesArgs),
    /// Best move and value of a position: exact when small enough (or with --exact), else a
    /// depth-, time- or node-limited search.
    Best(BestArgs),
    /// Search depth and speed on a fixed suite of positions (data/bench), with a node count
    /// at a fixed depth that fingerprints the search.
    Bench(BenchArgs),
    /// Prove the exact value of a position (default: the start) over endgame tables, with a
    /// certificate that `check-proof` verifies; resumable with --state.
    Prove(ProveArgs),
    /// Games between two players (evaluation weights, depths) from random openings, both
    /// sides of each, with Elo, normalised Elo, LOS and pentanomial counts as fastchess
    /// reports them, and an optional SPRT that stops the match at its decision.
    Match(MatchArgs),
    /// Write an opening set for `match --openings`: the positions reached from the start in
    /// --plies plies (all, or a seeded --sample), optionally only the balanced ones.
    Openings(OpeningsArgs),
    /// Play a game in the terminal: a person against the engine, engine against engine, or
    /// two people; with --match, a Hoyito III match of rounds. Commands at the prompt: a
    /// hole number plays it; moves, hint, eval on|off, analyse, `undo [N]`, redo, save FILE,
    /// load FILE, swap, resign, quit, help. When standard input is not a terminal it reads
    /// the same commands one a line, so games can be scripted. While the engine thinks,
    /// `stop` or Ctrl-C makes it move now. Each side's engine may play at its own strength
    /// (--south-level, --north-depth, ...). Every game is written as a record when it ends
    /// (data/RECORDS.md), and on Ctrl-C at the prompt. With --json the transcript goes to
    /// standard error and standard output gets one report of the games.
    Play(PlayArgs),
    /// Game records (data/RECORDS.md): `record check FILE` validates a file.
    Record(RecordArgs),
    /// Show a recorded game move by move with the board after each ply, or only the position
    /// at one ply.
    Replay(ReplayArgs),
    /// Speak the engine protocol of data/PROTOCOL.md (modelled on UCI) on standard input and
    /// output, so that another program can drive the engine.
    Engine,
    /// Review a recorded game: each ply's value, best move, seeds lost and class, each side's
    /// accuracy, a value graph, and the record annotated with comments.
    Review(ReviewArgs),
    /// Check a proof certificate (data/CERTIFICATE.md) with the independent checker, which
    /// has its own rules and table reader; exits non-zero, naming the first failing entry,
    /// when the certificate is rejected.
    #[command(name = "check-proof")]
    CheckProof(CheckProofArgs),
    /// Verify endgame tables with the independent checker (its own rules, index and reader;
    /// none of the engine's code): every stored value is the best over its moves and every
    /// nonzero value is forced in finitely many moves (the least fixpoint), layer by layer,
    /// smallest first; exits non-zero naming the first wrong position. The rules come from
    /// the rule flags (--variant, --holes [default 6], --last-four, --capture-side). With
    /// --state, a long check saves its state, stops cleanly on Ctrl-C or --time-limit, and
    /// goes on from there when run again.
    #[command(name = "check-tables")]
    CheckTables(CheckTablesArgs),
    /// Serve the web board: an analysis board in the browser with every move's value
    /// (proven or estimated), play against the engine, Hoyito III matches, records and the
    /// opening book (docs/web.md). Prints the address and serves until Ctrl-C; the page
    /// needs no network (every file is in the binary).
    Serve(ServeArgs),
    /// Print a shell completion script for bash, zsh, fish, elvish or powershell, e.g.
    /// `solve completions bash > ~/.local/share/bash-completion/completions/solve`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `solve man > solve.1; man ./solve.1`.
    Man,
}

/// An optional position, the argument of `show`, `moves`, `perft` and `best`.
#[derive(Args, Debug)]
pub struct PositionArgs {
    /// The position, quoted or as separate words, e.g. 4,4,4,4,4,4/4,4,4,4,4,4 S 0-0
    /// [default: the standard start].
    #[arg(num_args = 0..=3, value_name = "POSITION")]
    pub position: Vec<String>,
}

impl PositionArgs {
    /// The position's words joined; `None` when none was given.
    pub fn text(&self) -> Option<String> {
        (!self.position.is_empty()).then(|| self.position.join(" "))
    }
}

/// Arguments of `solve apply`.
#[derive(Args, Debug)]
pub struct ApplyArgs {
    /// The position to start from (`start` for the standard start), quoted or as separate
    /// words, then the moves to play in order, extra turns included, passes left out.
    #[arg(required = true, num_args = 2.., value_name = "POSITION MOVE")]
    pub words: Vec<String>,
}

/// Arguments of `solve perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Plies to count.
    #[arg(long, short, allow_negative_numbers = true)]
    pub depth: u32,
    /// Threads [default: all cores]. 1 runs the single-threaded perft.
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<usize>,
}

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

/// Who plays a side in `solve play`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlayerArg {
    /// A person, at the prompt.
    Human,
    /// The engine, at --level (or --depth, --time-ms, --exact).
    Engine,
    /// Uniformly random legal moves (seeded by --seed).
    Random,
}

/// Arguments of `solve play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Continue the game of a record file (the last game of the file); the record's rules
    /// replace the rule flags.
    #[arg(long, value_name = "RECORD", conflicts_with = "position")]
    pub load: Option<PathBuf>,
    /// Who plays South.
    #[arg(long, value_enum, default_value = "human")]
    pub south: PlayerArg,
    /// Who plays North.
    #[arg(long, value_enum, default_value = "engine")]
    pub north: PlayerArg,
    /// Engine strength, 1 (shallow, a seeded choice among near-best moves) to 5 (perfect
    /// where an exact search is quick or the tables reach, else a 3 s search), or `perfect`
    /// (as --exact: the proven move of the opening book and the certificates from the
    /// start, else an exact search); from level 3 the engine plays perfectly inside the
    /// endgame tables [default: 3]. It holds for both sides unless --south-level or
    /// --north-level (or -depth, -time-ms) say otherwise.
    #[arg(
        long,
        value_name = "LEVEL",
        value_parser = parse_level,
        allow_negative_numbers = true,
        conflicts_with_all = ["depth", "time_ms", "exact"]
    )]
    pub level: Option<LevelArg>,
    /// The engine searches this many plies for each move (instead of a level).
    #[arg(long, allow_negative_numbers = true, conflicts_with_all = ["time_ms", "exact"])]
    pub depth: Option<u32>,
    /// The engine searches this many milliseconds for each move (instead of a level).
    #[arg(
        long = "time-ms",
        allow_negative_numbers = true,
        conflicts_with = "exact"
    )]
    pub time_ms: Option<u64>,
    /// The engine plays perfectly: the proven move where the opening book or the
    /// certificates know the value (from the start), else it proves the value of the move it
    /// plays (slow on full boards; where the certificates prove a bound it keeps, it plays
    /// their move after 10 s). The same as --level perfect.
    #[arg(long)]
    pub exact: bool,
    /// South's engine plays at this level, 1 to 5, whatever --level, --depth, --time-ms or
    /// --exact say (those stay the strength of North's engine and of hint and analyse), so
    /// that an engine can play a weaker or stronger one.
    #[arg(
        long = "south-level",
        value_name = "LEVEL",
        value_parser = clap::value_parser!(u8).range(1..=5),
        allow_negative_numbers = true,
        conflicts_with_all = ["south_depth", "south_time_ms"]
    )]
    pub south_level: Option<u8>,
    /// North's engine plays at this level, 1 to 5 (as --south-level for South).
    #[arg(
        long = "north-level",
        value_name = "LEVEL",
        value_parser = clap::value_parser!(u8).range(1..=5),
        allow_negative_numbers = true,
        conflicts_with_all = ["north_depth", "north_time_ms"]
    )]
    pub north_level: Option<u8>,
    /// South's engine searches this many plies for each move (as --south-level).
    #[arg(
        long = "south-depth",
        value_name = "DEPTH",
        allow_negative_numbers = true,
        conflicts_with = "south_time_ms"
    )]
    pub south_depth: Option<u32>,
    /// North's engine searches this many plies for each move (as --south-level for South).
    #[arg(
        long = "north-depth",
        value_name = "DEPTH",
        allow_negative_numbers = true,
        conflicts_with = "north_time_ms"
    )]
    pub north_depth: Option<u32>,
    /// South's engine searches this many milliseconds for each move (as --south-level).
    #[arg(
        long = "south-time-ms",
        value_name = "MS",
        allow_negative_numbers = true
    )]
    pub south_time_ms: Option<u64>,
    /// North's engine searches this many milliseconds for each move (as --south-level for
    /// South).
    #[arg(
        long = "north-time-ms",
        value_name = "MS",
        allow_negative_numbers = true
    )]
    pub north_time_ms: Option<u64>,
    /// Write the record here (a match writes all its rounds to it) [default: a new file in
    /// games/ of the current folder].
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Seed of the engine's choices at levels 1 and 2 and of the random player.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub seed: u64,
    /// Endgame tables (2x6): the engine plays perfectly inside them from level 3.
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Play a Hoyito III match of this many rounds (RULES.md, "Matches of rounds") from the
    /// standard start, with a tally after each round.
    #[arg(long = "match", value_name = "ROUNDS", allow_negative_numbers = true, conflicts_with_all = ["position", "load"])]
    pub rounds: Option<u32>,
    /// Start with the evaluation after each ply turned on (`eval on` at the prompt).
    #[arg(long)]
    pub eval: bool,
    /// Search threads of the engine (1 repeats depth-limited games exactly).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub threads: usize,
    /// Transposition table size in MiB.
    #[arg(long = "hash-mb", default_value_t = 16, allow_negative_numbers = true)]
    pub hash_mb: usize,
}

/// Arguments of `solve record`.
#[derive(Args, Debug)]
pub struct RecordArgs {
    #[command(subcommand)]
    pub command: RecordCommand,
}

/// The record subcommands.
#[derive(Subcommand, Debug)]
pub enum RecordCommand {
    /// Read every game of a record file, replaying each move under the record's rules; an
    /// error names its line and column. Prints each game's plies, result, score and end.
    Check {
        /// The record file.
        file: PathBuf,
    },
}

/// Arguments of `solve replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The record file.
    pub file: PathBuf,
    /// Which game of the file, from 1.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub game: usize,
    /// Show only the position after this many plies (0: the start).
    #[arg(long, allow_negative_numbers = true)]
    pub ply: Option<usize>,
}

/// Arguments of `solve review`.
#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// The record file.
    pub file: PathBuf,
    /// Which game of the file, from 1.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub game: usize,
    /// Prove every value (slow on full boards: see --ply-ms).
    #[arg(long, conflicts_with_all = ["time_ms", "depth"])]
    pub exact: bool,
    /// With --exact, the milliseconds each ply's proofs may take, all its moves together; a
    /// move not proven within its share is valued by the search so far and marked heuristic.
    #[arg(
        long = "ply-ms",
        value_name = "MS",
        requires = "exact",
        allow_negative_numbers = true
    )]
    pub ply_ms: Option<u64>,
    /// Search each position for this many milliseconds.
    #[arg(
        long = "time-ms",
        allow_negative_numbers = true,
        conflicts_with = "depth"
    )]
    pub time_ms: Option<u64>,
    /// Search each position to this depth [default: 10 when no other limit is given].
    #[arg(long, allow_negative_numbers = true)]
    pub depth: Option<u32>,
    /// Endgame tables (2x6): positions within them are valued exactly [default: none].
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Write the record annotated with a comment on every ply to this file.
    #[arg(short = 'o', long = "output", value_name = "ANNOTATED")]
    pub output: Option<PathBuf>,
    /// Draw the value graph as an SVG file: the value for South before each ply, one point
    /// a ply (filled where proven, hollow where heuristic), inaccuracies, mistakes and
    /// blunders in colour.
    #[arg(long, value_name = "OUT.svg")]
    pub svg: Option<PathBuf>,
    /// Search threads (1 repeats a depth-limited review exactly).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub threads: usize,
    /// Transposition table size in MiB.
    #[arg(long = "hash-mb", default_value_t = 64, allow_negative_numbers = true)]
    pub hash_mb: usize,
}

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

/// Arguments of `solve serve`. The rule flags are not used: the page chooses the rules.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The port to listen on (0: any free port; the address printed has the real one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to bind. The default serves this machine only; another address (e.g.
    /// 0.0.0.0) lets other machines play and analyse on this one.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Endgame tables for the analyses and the engine (2x6) [default: data/tables when it
    /// holds tables].
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Analyses run at once over all tabs (more wait for a free slot).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub max_analyses: u16,
    /// Longest time an analysis tries to prove the moves' values, in milliseconds.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub analysis_ms: u64,
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

/// A `--level`: 1 to 5, or perfect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelArg {
    /// A level, 1 to 5.
    Level(u8),
    /// Perfect play (as `--exact`).
    Perfect,
}

fn parse_level(s: &str) -> Result<LevelArg, String> {
    match s {
        "perfect" => Ok(LevelArg::Perfect),
        _ => match s.parse::<u8>() {
            Ok(n @ 1..=5) => Ok(LevelArg::Level(n)),
            _ => Err(format!("the level is 1 to 5 or perfect, not '{s}'")),
        },
    }
}
