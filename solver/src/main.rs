//! `solve`: the command-line program over the Hoyito libraries. It parses, calls the
//! libraries and prints; the logic lives in the crates.

mod cli;
mod rules_cmd;
mod search_cmd;
mod tables_cmd;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
