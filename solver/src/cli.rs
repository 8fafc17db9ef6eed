//! The command line as clap types, and nothing else: the rule flags, `--json`, the
//! subcommands and their arguments. The commands read these in `cmd/`.
//!
//! The argument types are kept by concern: the search commands and the engine's settings
//! (`search.rs`), the tables (`tables.rs`), games, records and the web board (`games.rs`)
//! and the independent checker (`check.rs`); all are re-exported here.

mod check;
mod games;
mod search;
mod tables;

pub use check::{CheckProofArgs, CheckTablesArgs};
pub use games::{
    LevelArg, PlayArgs, PlayerArg, RecordArgs, RecordCommand, ReplayArgs, ReviewArgs, ServeArgs,
};
pub use search::{
    BenchArgs, BestArgs, EngineArgs, ExactArg, ExploreArg, MatchArgs, OpeningsArgs, ProveArgs,
    TableArg,
};
pub use tables::{BuildArgs, MethodArg, ProbeArgs, TablesArgs, TablesCommand, VerifyArgs};

use clap::{Args, Parser, Subcommand};
use hoyito::{CaptureSide, LastFour, Variant};

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
