//! The arguments of the commands about games: `play`, `record`, `replay`, `review`, and
//! `serve` (the web board).

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::PositionArgs;

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
