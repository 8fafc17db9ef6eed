//! `solve`: the command-line program over the `hoyito` library. It parses, calls the
//! library and prints; the logic lives in the library, the commands in this package's
//! library (`hoyito_solver`), and `main` dispatches to them.

use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory as _, Parser};

use hoyito_solver::cli::{Cli, Command};
use hoyito_solver::{cmd, common};

/// Runs a parsed command line.
fn run(cli: Cli) -> Result<()> {
    common::check_limits(&cli)?;
    let (rules, json) = (&cli.rules, cli.json);
    match &cli.command {
        Command::Show(a) => cmd::rules::show(rules, json, a),
        Command::Moves(a) => cmd::rules::moves(rules, json, a),
        Command::Apply(a) => cmd::rules::apply(rules, json, a),
        Command::Perft(a) => cmd::rules::perft(rules, json, a),
        Command::Tables(a) => cmd::tables::run(rules, json, a),
        Command::Best(a) => cmd::search::best(rules, json, a),
        Command::Bench(a) => cmd::search::bench(rules, json, a),
        Command::Match(a) => cmd::search::play_match(rules, json, a),
        Command::Openings(a) => cmd::openings::run(rules, json, a),
        Command::Play(a) => cmd::play::run(rules, json, a),
        Command::CheckProof(a) => cmd::check::run(json, a),
        Command::CheckTables(a) => cmd::check::tables(rules, json, a),
        Command::Prove(a) => cmd::prove::prove(rules, json, a),
        Command::Record(a) => cmd::record::run(json, a),
        Command::Replay(a) => cmd::record::replay(json, a),
        Command::Engine => cmd::engine::run(),
        Command::Review(a) => cmd::review::run(json, a),
        Command::Serve(a) => cmd::serve::run(json, a),
        Command::Completions { shell } => {
            clap_complete::generate(*shell, &mut Cli::command(), "solve", &mut std::io::stdout());
            Ok(())
        }
        Command::Man => clap_mangen::Man::new(Cli::command())
            .render(&mut std::io::stdout())
            .map_err(Into::into),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // `{:#}` prints the chain of causes, each once, joined by ": ".
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
