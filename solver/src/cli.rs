//! Command-line definitions shared by every subcommand: the rule flags, `--json`, how a
//! position argument is read, and the dispatch to the right position size.

use anyhow::{bail, Context as _, Result};
use clap::{Args, Parser, Subcommand};
use hoyito_rules::{CaptureSide, Diagram, LastFour, Position, Position6, Rules, Variant};

use crate::{rules_cmd, search_cmd, tables_cmd};

/// Analyse and solve Hoyito II and Hoyito III (Dominican mancala).
///
/// Positions are written as in RULES.md: South's row, '/', North's row, each in sowing
/// order, the side to move, and optionally the seeds captured so far, e.g.
/// "4,4,4,4,4,4/4,4,4,4,4,4 S 0-0". A move is a hole number 1..H in the mover's own row.
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
    #[arg(long, global = true)]
    pub holes: Option<usize>,

    /// Seeds per hole at the start, 1..=8.
    #[arg(long, global = true, default_value_t = 4)]
    pub seeds: usize,

    /// Who gets the seeds left when a capture leaves 4 or fewer: capturer, S or N
    /// (S and N are Hoyito III match rules).
    #[arg(long = "last-four", global = true, default_value = "capturer", value_parser = parse_option::<LastFour>)]
    pub last_four: LastFour,

    /// Where captures may happen: any row, or only the opponent's row.
    #[arg(long = "capture-side", global = true, default_value = "any", value_parser = parse_option::<CaptureSide>)]
    pub capture_side: CaptureSide,
}

/// Parses a rule option with the library's own message on error.
fn parse_option<T: std::str::FromStr<Err = hoyito_rules::RulesError>>(
    s: &str,
) -> Result<T, String> {
    s.parse()
        .map_err(|e: hoyito_rules::RulesError| e.to_string())
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Draw a position: North's row on top, right to left, so that sowing runs
    /// counterclockwise on screen.
    Show(rules_cmd::ShowArgs),
    /// List the legal moves of a position with their results, and the moves that are
    /// illegal because their sowing never ends.
    Moves(rules_cmd::MovesArgs),
    /// Play moves from a position (passes are applied automatically) and print the result.
    Apply(rules_cmd::ApplyArgs),
    /// Count the move sequences of exactly D plies (extra turns are plies, passes are not).
    Perft(rules_cmd::PerftArgs),
    /// Endgame tables: build, probe, list and verify exact values of small positions.
    Tables(tables_cmd::TablesArgs),
    /// Best move and value of a position: exact when small enough (or with --exact), else a
    /// depth-, time- or node-limited search.
    Best(search_cmd::BestArgs),
    /// Search depth and speed on a fixed suite of positions (data/bench), with a node count
    /// at a fixed depth that fingerprints the search.
    Bench(search_cmd::BenchArgs),
    /// Games between two evaluation settings from random openings, both sides of each.
    Match(search_cmd::MatchArgs),
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let json = cli.json;
    match &cli.command {
        Command::Show(a) => rules_cmd::show(&cli.rules, json, a),
        Command::Moves(a) => rules_cmd::moves(&cli.rules, json, a),
        Command::Apply(a) => rules_cmd::apply(&cli.rules, json, a),
        Command::Perft(a) => rules_cmd::perft(&cli.rules, json, a),
        Command::Tables(a) => tables_cmd::run(&cli.rules, json, a),
        Command::Best(a) => search_cmd::best(&cli.rules, json, a),
        Command::Bench(a) => search_cmd::bench(&cli.rules, json, a),
        Command::Match(a) => search_cmd::play_match(&cli.rules, json, a),
    }
}

/// The rules and (if given) the parsed position of a command line. The number of holes comes
/// from the position when one is given; `--holes` must then agree with it.
pub fn resolve(args: &RuleArgs, position: Option<&str>) -> Result<(Rules, Option<Diagram>)> {
    let diagram = match position {
        Some(text) => Some(
            text.parse::<Diagram>()
                .with_context(|| format!("bad position '{text}'"))?,
        ),
        None => None,
    };
    let holes = match (&diagram, args.holes) {
        (Some(d), Some(h)) if d.holes() != h => bail!(
            "the position has {} holes a row but --holes says {h}",
            d.holes()
        ),
        (Some(d), _) => d.holes(),
        (None, Some(h)) => h,
        (None, None) => 6,
    };
    let rules = Rules::new(
        args.variant,
        holes,
        args.seeds,
        args.last_four,
        args.capture_side,
    )?;
    Ok((rules, diagram))
}

/// A position of the given size: the diagram checked against the rules, or the start.
pub fn position<const W: usize>(rules: &Rules, diagram: Option<&Diagram>) -> Result<Position<W>> {
    Ok(match diagram {
        Some(d) => Position::<W>::from_diagram(rules, d)?,
        None => Position::<W>::start(rules)?,
    })
}

/// Whether positions of these rules fit the 16-byte type (else the 32-byte one is used).
pub fn small(rules: &Rules) -> bool {
    rules.holes() <= Position6::MAX_HOLES
}

/// Calls a function generic over the position size with the size that fits `rules`:
/// `dispatch!(rules, f(args...))` runs `f::<2>(args...)` for boards up to 2x6 and
/// `f::<4>(args...)` for larger ones.
#[macro_export]
macro_rules! dispatch {
    ($rules:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        if $crate::cli::small(&$rules) {
            $f::<2>($($arg),*)
        } else {
            $f::<4>($($arg),*)
        }
    };
}

/// Prints a JSON value on one line.
pub fn print_json(v: &serde_json::Value) {
    println!("{v}");
}
